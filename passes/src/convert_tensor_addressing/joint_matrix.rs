//! DPC++ joint_matrix's translator-internal instructions (`spvopt_ir::grammar::internal`;
//! intel/llvm `SPV_INTEL_joint_matrix.asciidoc` revision 16, with the semantics spv-sim gives
//! them in `sim/src/coop_matrix/joint_matrix.rs`):
//!
//! - `OpCooperativeMatrixLoadCheckedINTEL` / `StoreCheckedINTEL`: the access of
//!   `element_access` with [`Addressing::Checked`]: element (r, c) is the big matrix's
//!   (X + r, Y + c), at `row·Stride·sizeof(pointee) + col·sizeof(component)` bytes (RowMajor;
//!   ColumnMajor swaps row and col), touched only below (Height, Width); out of bounds a load
//!   gives 0 and a store writes nothing. That is a 2D block load/store of a Height x Width
//!   surface (the hardware reads 0 and drops writes outside it), taken where `block_path` proves
//!   or checks at run time its legality; otherwise the per-element loop.
//! - `OpCooperativeMatrixConstructCheckedINTEL`: a loop over the invocation's slots: `Value`
//!   where (X + r, Y + c) of the slot's element is inside Height x Width, else 0.
//! - `OpCooperativeMatrixGetElementCoordINTEL`: (row, column) of slot `Index` of this
//!   invocation, the deal of [`super::distribution`] computed from the lane id (the same deal
//!   every other use of the matrix has, so coordinates and components agree).
//! - `OpCooperativeMatrixPrefetchINTEL`: 2D block prefetches of the Rows x Columns rectangle
//!   where the target has them and their legality is proved or checked at run time; otherwise
//!   dropped (a prefetch "does not modify the behaviour of the program"). The cache level has
//!   no operand in 2D block prefetch: the target's default caching applies.
//!
//! `OpCooperativeMatrixApplyFunctionINTEL` names no function (its operand is a pointer to a
//! function object, a struct): the pass leaves a module containing it unchanged (see the pass).
//!
//! X, Y, Height, Width and Stride are unsigned (zero-extended to 64 bits), as spv-sim reads
//! them. PackedINTEL memory layout (2) is an error naming the instruction.

use spirv::{Op, StorageClass};
use spvopt_analysis::fxhash::FxHashSet as HashSet;
use spvopt_analysis::Target;
use spvopt_ir::grammar::internal::{
    OP_COOPERATIVE_MATRIX_CONSTRUCT_CHECKED_INTEL as CONSTRUCT,
    OP_COOPERATIVE_MATRIX_GET_ELEMENT_COORD_INTEL as COORD,
    OP_COOPERATIVE_MATRIX_LOAD_CHECKED_INTEL as LOAD,
    OP_COOPERATIVE_MATRIX_PREFETCH_INTEL as PREFETCH,
    OP_COOPERATIVE_MATRIX_STORE_CHECKED_INTEL as STORE,
};
use spvopt_ir::{Id, InstId, Interner, Module};

use super::access_run;
use super::block_path::{self, Decision, PrefetchRect};
use super::builder::{function_variable, Builder};
use super::element_access::{self, load_lane, position32, to_u64};
use super::error::ConvertError::{self, Malformed};
use super::model::{clamp, memory_operands, Addressing, Direction, Matrix, Path};
use super::types::{const_u32, Plan};
use crate::edit::cfg::split_block_after;
use crate::edit::location;
use crate::pass::Statistics;

/// What the conversion of these instructions needs from the pass.
pub(super) struct JointMatrix<'a> {
    pub plan: &'a Plan,
    pub target: &'a Target,
    /// The kernels' subgroup size.
    pub sg: u32,
    pub lane_var: Id,
    /// Instructions whose scalar operands are subgroup-uniform in blocks the whole subgroup
    /// reaches.
    pub uniform: &'a HashSet<InstId>,
    pub stats: &'a mut Statistics,
}

/// The id operands of a translator-internal instruction that must be subgroup-uniform for its
/// block form (the matrix Object and Index excluded).
pub(super) fn uniform_operands(opcode: u16, ops: &[u32]) -> Vec<u32> {
    let pick = |ks: &[usize]| ks.iter().filter_map(|&k| ops.get(k).copied()).collect();
    match opcode {
        LOAD => pick(&[0, 1, 2, 4, 5, 6]),
        STORE => pick(&[0, 1, 2, 5, 6, 7]),
        PREFETCH => pick(&[0, 1, 2, 7]),
        _ => Vec::new(),
    }
}

impl JointMatrix<'_> {
    /// Converts the translator-internal instruction at `at` (ApplyFunction never gets here).
    pub fn convert(
        &mut self,
        m: &mut Module,
        types: &mut Interner,
        at: InstId,
    ) -> Result<(), ConvertError> {
        match m.inst(at).opcode() {
            LOAD | STORE => self.checked_access(m, types, at),
            CONSTRUCT => self.construct(m, types, at),
            COORD => self.element_coord(m, types, at),
            PREFETCH => self.prefetch(m, types, at),
            _ => Err(ConvertError::UnknownJointMatrix),
        }
    }

    fn matrix(&self, ty: Option<Id>) -> Result<Matrix, ConvertError> {
        ty.and_then(|t| self.plan.matrices.get(&t).copied())
            .ok_or(ConvertError::NotCooperativeMatrix)
    }

    fn checked_access(
        &mut self,
        m: &mut Module,
        types: &mut Interner,
        at: InstId,
    ) -> Result<(), ConvertError> {
        let inst = m.inst(at).to_owned();
        let load = inst.opcode() == LOAD;
        let id = |k: usize| inst.operand_id(k);
        let pointer = id(0).ok_or(Malformed("Pointer"))?;
        let (x, y) = (
            id(1).ok_or(Malformed("X offset"))?,
            id(2).ok_or(Malformed("Y offset"))?,
        );
        let lo = if load { 3 } else { 4 };
        let column_major = layout(m, id(lo))?;
        let (height, width) = (
            id(lo + 1).ok_or(Malformed("Height"))?,
            id(lo + 2).ok_or(Malformed("Width"))?,
        );
        let stride =
            id(lo + 3).ok_or(Malformed("no Stride (RowMajor and ColumnMajor need one)"))?;
        let mo = memory_operands(inst.operands().get(lo + 4..).unwrap_or(&[]));
        let (mat, dir) = if load {
            let ty = inst.result_type().ok_or(Malformed("no type"))?;
            let mat = self.matrix(Some(ty))?;
            // Every element is written (loaded or 0): start from undef.
            let undef = types.intern(m, Op::Undef, Some(mat.lowered), &[]);
            let result = inst.result_id().ok_or(Malformed("no result"))?;
            let dir = Direction::Load {
                result,
                ty,
                object: undef,
            };
            (mat, dir)
        } else {
            let object = id(3).ok_or(Malformed("Object"))?;
            (self.matrix(m.type_of(object))?, Direction::Store { object })
        };
        let pointer_is_global = m
            .type_of(pointer)
            .and_then(|t| m.def_inst(t))
            .and_then(|t| t.operand_word(0))
            == Some(StorageClass::CrossWorkgroup as u32);
        let request = block_path::Request {
            target: self.target,
            mat: &mat,
            use_: mat.use_,
            store: !load,
            // Out of bounds: 0 / dropped, the hardware's behaviour (`decide_checked`).
            clamp: clamp::CONSTANT,
            view_transposed: Some(column_major),
            structure_error: (!pointer_is_global).then_some("the pointer is not CrossWorkgroup"),
            aligned: mo.aligned,
            uniform: self.uniform.contains(&at),
        };
        let addressing = Addressing::Checked {
            column_major,
            stride,
            x,
            y,
            height,
            width,
        };
        let access = element_access::Access {
            at,
            dir,
            pointer,
            mat: &mat,
            addressing: &addressing,
            memory_access: mo.element_mask,
            block_request: Some(&request),
        };
        let here = location(m, at);
        let path = access_run::convert_one(m, types, self.lane_var, access)?;
        let name = match (&path, load) {
            (Path::Block, true) => "block_checked_loads",
            (Path::Block, false) => "block_checked_stores",
            (Path::RuntimeChecked, true) => "runtime_checked_checked_loads",
            (Path::RuntimeChecked, false) => "runtime_checked_checked_stores",
            (Path::Fallback(_), true) => "fallback_checked_loads",
            (Path::Fallback(_), false) => "fallback_checked_stores",
        };
        self.stats.add(name, 1);
        if let Path::Fallback(why) = path {
            let what = if load { "load" } else { "store" };
            self.stats
                .note(format!("{here}: per-element checked {what}: {why}"));
        }
        Ok(())
    }

    /// `Value` in the slots whose element is inside Height x Width, 0 elsewhere: a loop over the
    /// slots writing a Function variable, loaded as the result.
    fn construct(
        &mut self,
        m: &mut Module,
        types: &mut Interner,
        at: InstId,
    ) -> Result<(), ConvertError> {
        let inst = m.inst(at).to_owned();
        let id = |k: usize| inst.operand_id(k);
        let [x, y, height, width, value] = [0, 1, 2, 3, 4].map(id);
        let (x, y) = (
            x.ok_or(Malformed("X offset"))?,
            y.ok_or(Malformed("Y offset"))?,
        );
        let (height, width) = (
            height.ok_or(Malformed("Height"))?,
            width.ok_or(Malformed("Width"))?,
        );
        let value = value.ok_or(Malformed("Value"))?;
        let ty = inst.result_type().ok_or(Malformed("no type"))?;
        let result = inst.result_id().ok_or(Malformed("no result"))?;
        let mat = self.matrix(Some(ty))?;
        let split = split_block_after(m, at).ok_or(Malformed("not in a block"))?;
        m.erase(at);
        let mut b = Builder {
            m,
            types,
            cur: split.before,
            before: None,
            truncated: Default::default(),
        };
        let lane = load_lane(&mut b, self.lane_var)?;
        let [x, y, height, width] = [
            to_u64(&mut b, x)?,
            to_u64(&mut b, y)?,
            to_u64(&mut b, height)?,
            to_u64(&mut b, width)?,
        ];
        let fn_vec = b.types.pointer(b.m, StorageClass::Function, mat.lowered);
        let fn_elem = b.types.pointer(b.m, StorageClass::Function, mat.component);
        let var = function_variable(&mut b, fn_vec);
        let zero = b.types.null_const(b.m, mat.component);
        b.leave_loop_header(&split);
        let slots = mat.dist.slots();
        b.counted_loop(slots, split.after, |b, k| {
            let (r, c) = position32(b, &mat.dist, lane, k);
            let (r, c) = (b.zext64(r), b.zext64(c));
            let gr = b.op64(Op::IAdd, x, r);
            let gc = b.op64(Op::IAdd, y, c);
            let rows_ok = b.cmp(Op::ULessThan, gr, height);
            let cols_ok = b.cmp(Op::ULessThan, gc, width);
            let inside = b.and(rows_ok, cols_ok);
            let v = b.select(mat.component, inside, value, zero);
            let slot = if slots == 1 {
                var
            } else {
                b.val(Op::InBoundsAccessChain, fn_elem, &[var.word(), k.word()])
            };
            b.void(Op::Store, &[slot.word(), v.word()]);
            Ok(())
        })?;
        m.prepend_inst(
            split.after,
            spvopt_ir::Inst::new(Op::Load, Some(ty), Some(result), &[var.word()]),
        );
        self.stats.add("checked_constructs", 1);
        Ok(())
    }

    /// (row, column) of the element this invocation holds in slot `Index`.
    fn element_coord(
        &mut self,
        m: &mut Module,
        types: &mut Interner,
        at: InstId,
    ) -> Result<(), ConvertError> {
        let inst = m.inst(at).to_owned();
        let matrix = inst.operand_id(0).ok_or(Malformed("Matrix"))?;
        let index = inst.operand_id(1).ok_or(Malformed("Index"))?;
        let mat = self.matrix(m.type_of(matrix))?;
        let (ty, result) = (
            inst.result_type().ok_or(Malformed("no type"))?,
            inst.result_id().ok_or(Malformed("no result"))?,
        );
        let component = m
            .def_inst(ty)
            .filter(|t| t.is(Op::TypeVector) && t.operand_word(1) == Some(2))
            .and_then(|t| t.operand_id(0))
            .filter(|&c| {
                m.def_inst(c)
                    .is_some_and(|t| t.is(Op::TypeInt) && t.operand_word(0) == Some(32))
            })
            .ok_or(Malformed(
                "the result type is not a vector of two 32-bit integers",
            ))?;
        let mut b = Builder::before(m, types, at)?;
        let u32t = b.u32t();
        let index_ok =
            b.m.type_of(index)
                .and_then(|t| b.m.def_inst(t))
                .is_some_and(|t| t.is(Op::TypeInt) && t.operand_word(0) == Some(32));
        if !index_ok {
            return Err(ConvertError::IndexNotU32);
        }
        let index = if b.m.type_of(index) == Some(u32t) {
            index
        } else {
            b.val(Op::Bitcast, u32t, &[index.word()])
        };
        let lane = load_lane(&mut b, self.lane_var)?;
        let (r, c) = position32(&mut b, &mat.dist, lane, index);
        let (r, c) = if component == u32t {
            (r, c)
        } else {
            (
                b.val(Op::Bitcast, component, &[r.word()]),
                b.val(Op::Bitcast, component, &[c.word()]),
            )
        };
        b.with_result(Op::CompositeConstruct, ty, result, &[r.word(), c.word()]);
        m.erase(at);
        self.stats.add("element_coords", 1);
        Ok(())
    }

    /// 2D block prefetches where legal, else nothing.
    fn prefetch(
        &mut self,
        m: &mut Module,
        types: &mut Interner,
        at: InstId,
    ) -> Result<(), ConvertError> {
        let inst = m.inst(at).to_owned();
        let id = |k: usize| inst.operand_id(k);
        let pointer = id(0).ok_or(Malformed("Pointer"))?;
        let (x, y) = (
            id(1).ok_or(Malformed("X offset"))?,
            id(2).ok_or(Malformed("Y offset"))?,
        );
        let here = location(m, at);
        let rect = (|| -> Result<(bool, u32, u32, u32, Id), ConvertError> {
            let rows = id(3)
                .and_then(|v| const_u32(m, v))
                .ok_or(ConvertError::RowsNotConstant)?;
            let cols = id(4)
                .and_then(|v| const_u32(m, v))
                .ok_or(ConvertError::ColumnsNotConstant)?;
            let column_major = match id(6) {
                Some(l) => layout(m, Some(l))?,
                None => false,
            };
            let stride = id(7).ok_or(Malformed("no Stride"))?;
            let (sc, pointee) = m
                .type_of(pointer)
                .and_then(|t| m.def_inst(t))
                .filter(|t| t.is(Op::TypePointer))
                .and_then(|t| Some((t.operand_word(0)?, t.operand_id(1)?)))
                .ok_or(Malformed("the pointer operand is not a pointer"))?;
            if sc != StorageClass::CrossWorkgroup as u32 {
                return Err(ConvertError::NotCrossWorkgroup);
            }
            let elem = m
                .def_inst(pointee)
                .filter(|t| t.is(Op::TypeInt) || t.is(Op::TypeFloat))
                .and_then(|t| t.operand_word(0))
                .map(|bits| bits / 8)
                .filter(|e| matches!(e, 1 | 2 | 4 | 8))
                .ok_or(ConvertError::NotBlockElement)?;
            Ok((column_major, rows, cols, elem, stride))
        })();
        let mut b = Builder::before(m, types, at)?;
        let decision = match rect {
            Err(why) => Decision::Fallback(why.to_string()),
            Ok((column_major, rows, cols, elem, stride)) => {
                match [x, y, stride].map(|v| to_u64(&mut b, v)) {
                    [Ok(x), Ok(y), Ok(stride)] => {
                        let esz = b.c64(u64::from(elem));
                        let pitch = b.op64(Op::IMul, stride, esz);
                        // Memory rows are the matrix's rows (RowMajor) or columns
                        // (ColumnMajor).
                        let (rows, cols, x, y) = if column_major {
                            (cols, rows, x, y)
                        } else {
                            (rows, cols, y, x)
                        };
                        let rect = PrefetchRect {
                            elem,
                            rows,
                            cols,
                            x,
                            y,
                            pitch,
                        };
                        let uniform = self.uniform.contains(&at);
                        let (target, sg) = (self.target, self.sg);
                        block_path::decide_prefetch(&mut b, target, sg, uniform, &rect, pointer)
                    }
                    _ => Decision::Fallback("an offset or the stride is not an integer".into()),
                }
            }
        };
        let name = match decision {
            Decision::Static(plan) => {
                block_path::emit_prefetch(&mut b, &plan, pointer);
                "block_prefetches"
            }
            Decision::Runtime(plan, cond) => {
                b.before = None;
                let split = split_block_after(b.m, at).ok_or(Malformed("not in a block"))?;
                b.cur = split.before;
                b.leave_loop_header(&split);
                b.if_then(cond, |b| {
                    block_path::emit_prefetch(b, &plan, pointer);
                    Ok(())
                })?;
                let after = b.m.block_label(split.after);
                b.void(Op::Branch, &[after.word()]);
                "runtime_checked_prefetches"
            }
            Decision::Fallback(why) => {
                self.stats
                    .note(format!("{here}: joint_matrix prefetch dropped: {why}"));
                "dropped_prefetches"
            }
        };
        m.erase(at);
        self.stats.add(name, 1);
        Ok(())
    }
}

/// The MemoryLayout operand: false for RowMajor, true for ColumnMajor.
fn layout(m: &Module, l: Option<Id>) -> Result<bool, ConvertError> {
    match l.and_then(|x| const_u32(m, x)) {
        Some(0) => Ok(false),
        Some(1) => Ok(true),
        Some(2) => Err(ConvertError::PackedLayout),
        Some(v) => Err(ConvertError::UnknownLayout(v)),
        None => Err(ConvertError::LayoutNotConstant),
    }
}
