//! Triton's fallback form of 2D block IO: calls of IGC's GenISA intrinsics
//! `llvm.genx.GenISA.LSC2DBlock{Read,Write,Prefetch}.<type>`, which Triton's SPIR-V translation
//! leaves as imported functions (intel-xpu-backend-for-triton
//! `third_party/intel/lib/TritonGENToLLVM/TritonGENToLLVMPass.cpp`, `createGenISA2DBlock*`).
//!
//! Arguments (IGC `IGC/GenISAIntrinsics/generator/input/Intrinsic_definitions.yml`,
//! `GenISA_LSC2DBlockRead` / `…Write` / `…Prefetch`): 0 base address (i64), 1 surface width − 1
//! (bytes), 2 surface height − 1 (rows), 3 pitch − 1 (bytes), 4 x (elements), 5 y (rows),
//! 6 element size in **bits**, 7 block width, 8 block height, 9 block count, 10 transpose (bool),
//! 11 VNNI transform (bool), 12 cache controls; writes add 13, the stored value. A read returns
//! the per-invocation block data as its result value; a write takes it as argument 13. IGC lowers
//! the native `OpSubgroup2DBlock*INTEL` ops to exactly these intrinsics, so they run here with the
//! same model ([`crate::block_io_2d`]); the result / stored value must be exactly the bytes the
//! block gives each invocation.

use super::block_and_mma::block2d_kind_name;
use super::*;

use spvopt_analysis::builtin_names::GenIsaBlock as GenIsaOp;

impl<'p> Machine<'p> {
    fn uniform_u32(&self, sg: &Sg, id: u32, mask: u64, what: &str) -> Result<u32, SimError> {
        let v = self.uniform(sg, id, mask, what)?;
        Ok(rd(&v, v.len().min(4), 0) as u32)
    }

    /// Executes one GenISA 2D block call with arguments `args`; `res`/`ret_ty` are the call's
    /// result id and type (reads).
    pub(super) fn genisa_block2d(
        &mut self,
        sg: &mut Sg,
        mask: u64,
        op: GenIsaOp,
        args: &[u32],
        res: u32,
        ret_ty: u32,
    ) -> Result<(), SimError> {
        let name = op.name();
        let want = op.arg_count();
        if args.len() != want {
            return Err(SimError::Module(format!(
                "{name}: expected {want} arguments, got {}",
                args.len()
            )));
        }
        self.require_full(sg, mask, name)?;
        let base = self.uniform_i64(sg, args[0], mask, &format!("{name} base address"))? as u64;
        let field = |s: &Self, i: usize, what: &str| s.uniform_u32(sg, args[i], mask, what);
        // Width, height and pitch are passed minus one (32-bit fields of the payload).
        let mw = i64::from(field(self, 1, "surface width - 1")?) + 1;
        let mh = i64::from(field(self, 2, "surface height - 1")?) + 1;
        let mp = i64::from(field(self, 3, "surface pitch - 1")?) + 1;
        let x = i64::from(field(self, 4, "x")? as i32);
        let y = i64::from(field(self, 5, "y")? as i32);
        let bits = field(self, 6, "element size")?;
        let shape = [
            field(self, 7, "tile width")?,
            field(self, 8, "tile height")?,
            field(self, 9, "block count")?,
        ];
        let transpose = field(self, 10, "transpose")? & 1 != 0;
        let vnni = field(self, 11, "VNNI transform")? & 1 != 0;
        field(self, 12, "cache controls")?;
        if !matches!(bits, 8 | 16 | 32 | 64) {
            return Err(uerr(format!("{name}: element size of {bits} bits")));
        }
        let kind = match (op, transpose, vnni) {
            (GenIsaOp::Prefetch, ..) => Block2dOp::Prefetch,
            (GenIsaOp::Write, false, false) => Block2dOp::Store,
            (GenIsaOp::Write, ..) => {
                return Err(uerr(format!(
                    "{name}: a write cannot transpose or transform"
                )))
            }
            (GenIsaOp::Read, false, false) => Block2dOp::Load,
            (GenIsaOp::Read, false, true) => Block2dOp::LoadTransform,
            (GenIsaOp::Read, true, false) => Block2dOp::LoadTranspose,
            (GenIsaOp::Read, true, true) => {
                return Err(SimError::Unsupported(format!(
                    "{name} with both transpose and VNNI transform"
                )))
            }
        };
        let params = Block2dParams {
            element_size: bits / 8,
            block_width: shape[0],
            block_height: shape[1],
            block_count: shape[2],
            base,
            memory_width: mw,
            memory_height: mh,
            memory_pitch: mp,
            x,
            y,
            mapping: self.block_layout,
            base_alignment: self.block_base_alignment,
        };
        self.block2d_by_value(
            sg,
            name,
            kind,
            bits,
            shape,
            &params,
            args.get(13).copied(),
            res,
            ret_ty,
        )
    }

    /// Executes the 2D block operation `kind` of `bits`-bit elements and `shape` (width,
    /// height, count) at `params` for a call `name` whose data is a value: a read sets the
    /// call's result `res` (of type `ret_ty`), a write stores the value `stored`. Shared by
    /// the GenISA intrinsics and the address payload builtins (`payload.rs`).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn block2d_by_value(
        &mut self,
        sg: &mut Sg,
        name: &str,
        kind: Block2dOp,
        bits: u32,
        shape: [u32; 3],
        params: &Block2dParams,
        stored: Option<u32>,
        res: u32,
        ret_ty: u32,
    ) -> Result<(), SimError> {
        let shape_sg = self.sg_shape(sg);
        let key = format!(
            "{} {}b {}r{}x{}c",
            block2d_kind_name(kind),
            bits,
            shape[1],
            shape[0],
            shape[2]
        );
        let bytes = match kind {
            Block2dOp::Prefetch => {
                let r = block_io_2d::prefetch(params, shape_sg)?;
                self.counters.prefetches += 1;
                self.counters.prefetched_bytes += r.bytes;
                self.prefetched.extend(r.lines);
                r.bytes
            }
            Block2dOp::Store => {
                let stored_id = stored.ok_or_else(|| uerr(format!("{name}: no value to store")))?;
                let lay = block_io_2d::layout(kind, params, shape_sg)?;
                let src: Vec<Vec<u8>> = (0..sg.n)
                    .map(|l| self.val(sg, stored_id, l).to_vec())
                    .collect();
                if src
                    .first()
                    .is_some_and(|v| v.len() != lay.bytes_per_invocation)
                {
                    return Err(uerr(format!(
                        "{name}: the stored value has {} bytes, the block takes {} per invocation",
                        src[0].len(),
                        lay.bytes_per_invocation
                    )));
                }
                block_io_2d::store(&mut self.mem, params, shape_sg, &src)?.bytes
            }
            _ => {
                let lk = match kind {
                    Block2dOp::LoadTransform => LoadKind::Transform,
                    Block2dOp::LoadTranspose => LoadKind::Transpose,
                    _ => LoadKind::Plain,
                };
                let r = block_io_2d::load(&self.mem, lk, params, shape_sg)?;
                let size = self.p.ty(ret_ty)?.size as usize;
                if r.data.first().is_some_and(|d| d.len() != size) {
                    return Err(uerr(format!(
                        "{name}: the result type has {size} bytes, the block gives {} per invocation",
                        r.data[0].len()
                    )));
                }
                for (lane, d) in r.data.iter().enumerate() {
                    self.set(sg, res, lane, d);
                }
                let covered = r
                    .lines
                    .iter()
                    .filter(|l| self.prefetched.contains(l))
                    .count();
                self.counters.lines_loaded_2d += r.lines.len() as u64;
                self.counters.lines_prefetched_before_load += covered as u64;
                r.bytes
            }
        };
        let e = self.counters.block2d.entry(key).or_default();
        e.ops += 1;
        e.bytes += bytes;
        Ok(())
    }
}
