//! The DPC++ `joint_matrix` instructions the LLVM/SPIR-V translator keeps internal (not in
//! SPIRV-Headers; operand layouts in `spvopt_ir::grammar::internal`), with the semantics of
//! their specification (intel/llvm `sycl/doc/design/spirv-extensions/SPV_INTEL_joint_matrix.asciidoc`,
//! revision 16) on the simulator's cooperative-matrix layout (`coop_matrix.rs`):
//!
//! - `OpCooperativeMatrixLoadCheckedINTEL` (Pointer, X offset, Y offset, MemoryLayout, Height,
//!   Width, Stride, Memory Operand): element (r, c) of the result is the big matrix's element
//!   (X + r, Y + c) — X counts rows, Y columns, as DPC++'s `joint_matrix_load_checked(…, Height,
//!   Width, CoordX = row, CoordY = column)` passes them — read at `Pointer + row·Stride + col`
//!   elements (RowMajor) or `Pointer + col·Stride + row` (ColumnMajor) when row < Height and
//!   col < Width; "the out-of-bounds elements are set to 0" and not read.
//! - `OpCooperativeMatrixStoreCheckedINTEL` (Pointer, X, Y, Object, MemoryLayout, Height, Width,
//!   Stride, Memory Operand): the same addresses; "out-of-bounds elements are dropped".
//! - `OpCooperativeMatrixConstructCheckedINTEL` (X, Y, Height, Width, Value): `Value` where
//!   (X + r, Y + c) is inside Height × Width, 0 elsewhere.
//! - `OpCooperativeMatrixGetElementCoordINTEL` (Matrix, Index): (row, column) of the element this
//!   invocation holds as component `Index` (an Index at or past the invocation's length is
//!   undefined behaviour, reported).
//! - `OpCooperativeMatrixPrefetchINTEL`: "does not modify the behaviour of the program": nothing.
//! - `OpCooperativeMatrixApplyFunctionINTEL` (experimental): not executed (an error saying so).
//!
//! Operands other than Index must be the same in every invocation (checked) and the whole
//! subgroup must execute them; the PackedINTEL layout (2) is reported as unsupported.

use super::*;
use spvopt_ir::grammar::internal::{
    OP_COOPERATIVE_MATRIX_CONSTRUCT_CHECKED_INTEL as CONSTRUCT,
    OP_COOPERATIVE_MATRIX_GET_ELEMENT_COORD_INTEL as COORD,
    OP_COOPERATIVE_MATRIX_LOAD_CHECKED_INTEL as LOAD,
    OP_COOPERATIVE_MATRIX_PREFETCH_INTEL as PREFETCH,
    OP_COOPERATIVE_MATRIX_STORE_CHECKED_INTEL as STORE,
};

impl Machine<'_> {
    /// Executes a translator-internal joint_matrix instruction (`inst.internal`).
    pub(crate) fn joint_matrix(
        &mut self,
        sg: &mut Sg,
        inst: &DInst,
        mask: u64,
    ) -> Result<(), SimError> {
        match inst.internal {
            LOAD | STORE => self.checked_load_store(sg, inst, mask),
            CONSTRUCT => self.checked_construct(sg, inst, mask),
            COORD => self.element_coord(sg, inst, mask),
            PREFETCH => Ok(()),
            op => Err(SimError::Unsupported(format!(
                "{} (translator-internal) is not executed by the simulator",
                spvopt_ir::grammar::opcode_name(op).unwrap_or("an internal instruction")
            ))),
        }
    }

    fn checked_load_store(&mut self, sg: &mut Sg, inst: &DInst, mask: u64) -> Result<(), SimError> {
        let load = inst.internal == LOAD;
        let name = if load {
            "OpCooperativeMatrixLoadCheckedINTEL"
        } else {
            "OpCooperativeMatrixStoreCheckedINTEL"
        };
        self.coop_require(sg, mask, name)?;
        let p = self.p;
        let w = &inst.w;
        // Load: Pointer X Y Layout Height Width [Stride] [MemOp]; Store: Pointer X Y Object Layout …
        let lo = if load { 3 } else { 4 };
        if w.len() < lo + 3 {
            return Err(merr(format!("{name}: too few operands")));
        }
        let mty = if load {
            inst.ty
        } else {
            p.vty.get(w[3] as usize).copied().unwrap_or(0)
        };
        let m = mat(p, mty)?;
        let u = |s: &Self, i: usize, what: &str| {
            s.coop_uniform_u64(sg, w[i], mask, &format!("{name} {what}"))
        };
        let ptr = u(self, 0, "Pointer")?;
        let (x, y) = (u(self, 1, "X offset")?, u(self, 2, "Y offset")?);
        let layout = self.const_u64(w[lo])?;
        let (height, width) = (u(self, lo + 1, "Height")?, u(self, lo + 2, "Width")?);
        let stride = match w.get(lo + 3) {
            Some(_) => u(self, lo + 3, "Stride")?,
            None => return Err(merr(format!("{name} without Stride"))),
        };
        let pty = p.vty.get(w[0] as usize).copied().unwrap_or(0);
        let psize = match p.ty(pty)?.ty {
            Ty::Pointer { pointee, .. } if pointee != 0 => p.ty(pointee)?.size as u64,
            _ => m.comp.bytes as u64,
        };
        let es = m.comp.bytes as u64;
        let align = Self::mem_align(w, lo + 4).max(es);
        crate::memory::check_aligned(ptr, align, "checked cooperative matrix pointer")?;
        if !matches!(layout, 0 | 1) {
            return Err(SimError::Unsupported(format!(
                "{name} with memory layout {layout} (RowMajor and ColumnMajor are implemented)"
            )));
        }
        // The big matrix's (row, column) of tile element e, and its address when in bounds.
        let cols = u64::from(m.cols);
        let at = |e: usize| -> Option<u64> {
            let (r, c) = (e as u64 / cols, e as u64 % cols);
            let (gr, gc) = (x.checked_add(r)?, y.checked_add(c)?);
            if gr >= height || gc >= width {
                return None;
            }
            let (major, minor) = if layout == 0 { (gr, gc) } else { (gc, gr) };
            let off = major
                .checked_mul(stride)?
                .checked_mul(psize)?
                .checked_add(minor.checked_mul(es)?)?;
            Some(ptr.wrapping_add(off))
        };
        if load {
            let mut elems = vec![0u64; m.elements()];
            let mut buf = vec![0u8; m.comp.bytes];
            for (e, v) in elems.iter_mut().enumerate() {
                if let Some(a) = at(e) {
                    self.read_mem(sg, 0, a, &mut buf)?;
                    *v = rd(&buf, m.comp.bytes, 0);
                }
            }
            self.scatter(sg, inst.res, &m, &elems, None);
        } else {
            let elems = self.gather(sg, w[3], &m);
            for (e, v) in elems.iter().enumerate() {
                if let Some(a) = at(e) {
                    self.write_mem(a, &v.to_le_bytes()[..m.comp.bytes])?;
                }
            }
        }
        Ok(())
    }

    fn checked_construct(&mut self, sg: &mut Sg, inst: &DInst, mask: u64) -> Result<(), SimError> {
        let name = "OpCooperativeMatrixConstructCheckedINTEL";
        self.coop_require(sg, mask, name)?;
        let w = &inst.w;
        if w.len() != 5 {
            return Err(merr(format!("{name}: expected 5 operands")));
        }
        let m = mat(self.p, inst.ty)?;
        let u = |s: &Self, i: usize, what: &str| {
            s.coop_uniform_u64(sg, w[i], mask, &format!("{name} {what}"))
        };
        let (x, y) = (u(self, 0, "X offset")?, u(self, 1, "Y offset")?);
        let (height, width) = (u(self, 2, "Height")?, u(self, 3, "Width")?);
        let value = self.coop_uniform(sg, w[4], mask, &format!("{name} Value"))?;
        let value = rd(&value, m.comp.bytes.min(value.len()), 0);
        let cols = u64::from(m.cols);
        let elems: Vec<u64> = (0..m.elements())
            .map(|e| {
                let (r, c) = (e as u64 / cols, e as u64 % cols);
                let inside = x.checked_add(r).is_some_and(|gr| gr < height)
                    && y.checked_add(c).is_some_and(|gc| gc < width);
                if inside {
                    value
                } else {
                    0
                }
            })
            .collect();
        self.scatter(sg, inst.res, &m, &elems, None);
        Ok(())
    }

    fn element_coord(&mut self, sg: &mut Sg, inst: &DInst, mask: u64) -> Result<(), SimError> {
        let name = "OpCooperativeMatrixGetElementCoordINTEL";
        let w = &inst.w;
        if w.len() != 2 {
            return Err(merr(format!("{name}: expected 2 operands")));
        }
        let mty = self.p.vty.get(w[0] as usize).copied().unwrap_or(0);
        let m = mat(self.p, mty)?;
        let sgn = self.sgsize as usize;
        let cols = m.cols as usize;
        for lane in lanes(mask) {
            let index = self.val_u64(sg, w[1], lane) as usize;
            let e = index
                .checked_mul(sgn)
                .and_then(|v| v.checked_add(lane))
                .filter(|&e| index < m.per && e < m.elements())
                .ok_or_else(|| {
                    ub(format!(
                        "{name}: Index {index} is not one of invocation {lane}'s elements"
                    ))
                })?;
            let mut out = [0u8; 8];
            out[..4].copy_from_slice(&((e / cols) as u32).to_le_bytes());
            out[4..].copy_from_slice(&((e % cols) as u32).to_le_bytes());
            self.set(sg, inst.res, lane, &out);
        }
        Ok(())
    }
}
