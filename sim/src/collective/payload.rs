//! IGC's 2D block address payload builtins (`__builtin_IB_subgroup_createBlock2DAddressPayload`,
//! `…copy…`, `…set/add…`, `…block_read_ap_*`, `…block_write_ap_*`; names and semantics in
//! `spvopt_analysis::block_payload`), which `hoist-block-payloads` emits and sycl-tla uses.
//!
//! A payload is the state of one 2D block message: surface (base address, width − 1,
//! height − 1, pitch − 1, in bytes and rows as the GenISA intrinsics take them), block
//! position (x in elements, y in rows) and block shape (width, height, count). Here it is an
//! entry of the machine's payload table; the value the creating call returns is a handle to
//! it (a pointer-sized tag that is no address of simulated memory, so a kernel dereferencing
//! it gets an out-of-bounds error). Every call requires the whole subgroup and uniform
//! arguments (the payload is an "opaque, uniform variable" in IGC's words). A
//! read/prefetch/write is exactly the 2D block operation of the name's element size and
//! shape at the payload's surface and at `(x + immX, y + immY)`, executed by the same model
//! as the native ops and the GenISA intrinsics ([`Machine::block2d_by_value`]); the name's
//! shape must be the payload's (IGC's `verifyBlock2DAddressPayload`), else the call is
//! reported as undefined behaviour.

use super::*;

use spvopt_analysis::block_io::BlockKind;
use spvopt_analysis::block_payload::{PayloadAccess, PayloadBuiltin, PayloadField};

/// The most payloads one launch may create (a kernel creating one per loop iteration, as
/// Triton's unhoisted form does, stays far below).
const MAX_PAYLOADS: usize = 1 << 24;
/// Tags of a handle: 64-bit pointers carry `TAG64 | index`, 32-bit ones `TAG32 | index`.
const TAG64: u64 = 0xB10C_0000_0000_0000;
const TAG32: u64 = 0xB000_0000;

use crate::block_payload_state::Payload;

impl<'p> Machine<'p> {
    fn payload_u32(&self, sg: &Sg, id: u32, mask: u64, what: &str) -> Result<u32, SimError> {
        let v = self.uniform(sg, id, mask, what)?;
        Ok(rd(&v, v.len().min(4), 0) as u32)
    }

    /// The payload a handle argument names.
    fn payload_index(&self, sg: &Sg, id: u32, mask: u64, name: &str) -> Result<usize, SimError> {
        let v = self.uniform(sg, id, mask, &format!("{name}: the payload"))?;
        let h = rd(&v, v.len().min(8), 0);
        let idx = if v.len() >= 8 {
            (h & TAG64 == TAG64).then_some(h & !TAG64)
        } else {
            (h & TAG32 == TAG32).then_some(h & !TAG32)
        };
        match idx {
            Some(i) if (i as usize) < self.payloads.len() => Ok(i as usize),
            _ => Err(uerr(format!(
                "{name}: the payload argument is no payload made by \
                 __builtin_IB_subgroup_createBlock2DAddressPayload or …copy…"
            ))),
        }
    }

    /// Appends `p` and returns its handle in the call's result (`res` of type `ret_ty`).
    fn new_payload(
        &mut self,
        sg: &mut Sg,
        p: Payload,
        res: u32,
        ret_ty: u32,
        name: &str,
    ) -> Result<(), SimError> {
        if self.payloads.len() >= MAX_PAYLOADS {
            return Err(uerr(format!(
                "{name}: more than {MAX_PAYLOADS} payloads created in one launch"
            )));
        }
        let size = self.p.ty(ret_ty)?.size as usize;
        let idx = self.payloads.len() as u64;
        let h = if size >= 8 {
            TAG64 | idx
        } else if size == 4 && idx < 1 << 28 {
            TAG32 | idx
        } else {
            return Err(SimError::Module(format!(
                "{name}: the payload type has {size} bytes (a pointer of 4 or 8)"
            )));
        };
        self.payloads.push(p);
        let bytes = h.to_le_bytes();
        for lane in 0..sg.n {
            self.set(sg, res, lane, &bytes[..size.min(8)]);
        }
        Ok(())
    }

    /// Executes one call of a payload builtin `b` (`name`) with arguments `args`; `res` and
    /// `ret_ty` are the call's result id and type.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn payload_builtin(
        &mut self,
        sg: &mut Sg,
        mask: u64,
        b: PayloadBuiltin,
        name: &str,
        args: &[u32],
        res: u32,
        ret_ty: u32,
    ) -> Result<(), SimError> {
        let want = b.arg_count();
        if args.len() != want {
            return Err(SimError::Module(format!(
                "{name}: expected {want} arguments, got {}",
                args.len()
            )));
        }
        self.require_full(sg, mask, name)?;
        match b {
            PayloadBuiltin::Create => {
                let base = self.uniform_i64(sg, args[0], mask, &format!("{name} base"))? as u64;
                let f = |s: &Self, i: usize, what: &str| {
                    s.payload_u32(sg, args[i], mask, &format!("{name} {what}"))
                };
                let p = Payload {
                    base,
                    width_m1: f(self, 1, "width - 1")?,
                    height_m1: f(self, 2, "height - 1")?,
                    pitch_m1: f(self, 3, "pitch - 1")?,
                    x: f(self, 4, "block x")?,
                    y: f(self, 5, "block y")?,
                    shape: [
                        f(self, 6, "block width")?,
                        f(self, 7, "block height")?,
                        f(self, 8, "block count")?,
                    ],
                };
                self.new_payload(sg, p, res, ret_ty, name)
            }
            PayloadBuiltin::Copy => {
                let i = self.payload_index(sg, args[0], mask, name)?;
                let p = self.payloads[i];
                self.new_payload(sg, p, res, ret_ty, name)
            }
            PayloadBuiltin::Set(PayloadField::Base) => {
                let i = self.payload_index(sg, args[0], mask, name)?;
                let v = self.uniform_i64(sg, args[1], mask, &format!("{name} value"))?;
                self.payloads[i].base = v as u64;
                Ok(())
            }
            PayloadBuiltin::Set(field) | PayloadBuiltin::Add(field) => {
                let i = self.payload_index(sg, args[0], mask, name)?;
                let add = matches!(b, PayloadBuiltin::Add(_));
                let v = self.payload_u32(sg, args[1], mask, &format!("{name} value"))?;
                let p = &mut self.payloads[i];
                let slot: &mut u32 = match field {
                    PayloadField::WidthMinusOne => &mut p.width_m1,
                    PayloadField::HeightMinusOne => &mut p.height_m1,
                    PayloadField::PitchMinusOne => &mut p.pitch_m1,
                    PayloadField::BlockX => &mut p.x,
                    PayloadField::BlockY => &mut p.y,
                    PayloadField::Base => {
                        return Err(SimError::Module(format!("{name}: no such builtin")))
                    }
                };
                *slot = if add { slot.wrapping_add(v) } else { v };
                Ok(())
            }
            PayloadBuiltin::Access(a) => self.payload_access(sg, mask, a, name, args, res, ret_ty),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn payload_access(
        &mut self,
        sg: &mut Sg,
        mask: u64,
        a: PayloadAccess,
        name: &str,
        args: &[u32],
        res: u32,
        ret_ty: u32,
    ) -> Result<(), SimError> {
        let i = self.payload_index(sg, args[0], mask, name)?;
        let imm_x = self.payload_u32(sg, args[1], mask, &format!("{name} immX"))? as i32;
        let imm_y = self.payload_u32(sg, args[2], mask, &format!("{name} immY"))? as i32;
        let (cache, stored) = if a.kind == BlockKind::Store {
            (args[4], Some(args[3]))
        } else {
            (args[3], None)
        };
        self.payload_u32(sg, cache, mask, &format!("{name} cache controls"))?;
        let p = self.payloads[i];
        let shape = [a.width, a.height, a.count];
        if p.shape != shape {
            return Err(uerr(format!(
                "{name}: the payload was created for blocks {}x{}x{} (width x height x count), \
                 the call is for {}x{}x{}",
                p.shape[0], p.shape[1], p.shape[2], shape[0], shape[1], shape[2]
            )));
        }
        let kind = match a.kind {
            BlockKind::Load => Block2dOp::Load,
            BlockKind::LoadTransform => Block2dOp::LoadTransform,
            BlockKind::LoadTranspose => Block2dOp::LoadTranspose,
            BlockKind::Store => Block2dOp::Store,
            BlockKind::Prefetch => Block2dOp::Prefetch,
        };
        let params = Block2dParams {
            element_size: a.element_bits / 8,
            block_width: a.width,
            block_height: a.height,
            block_count: a.count,
            base: p.base,
            memory_width: i64::from(p.width_m1) + 1,
            memory_height: i64::from(p.height_m1) + 1,
            memory_pitch: i64::from(p.pitch_m1) + 1,
            x: i64::from(p.x.wrapping_add(imm_x as u32) as i32),
            y: i64::from(p.y.wrapping_add(imm_y as u32) as i32),
            mapping: self.block_layout,
            base_alignment: self.block_base_alignment,
        };
        self.block2d_by_value(
            sg,
            name,
            kind,
            a.element_bits,
            shape,
            &params,
            stored,
            res,
            ret_ty,
        )
    }
}
