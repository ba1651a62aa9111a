//! `convert-tensor-addressing`: Subgroup-scope cooperative matrices moved through
//! `SPV_NV_tensor_addressing` layouts/views (or plain `SPV_KHR_cooperative_matrix` loads and
//! stores) become per-invocation data, Intel subgroup MMA and ordinary memory accesses.
//!
//! What:
//! - Every `OpTypeCooperativeMatrixKHR` (Subgroup scope, constant shape) becomes a vector of
//!   `R·C / SG` components (a scalar for one) dealt as [`distribution`] describes: the layouts of
//!   `SPV_INTEL_subgroup_matrix_multiply_accumulate` for A / B / C where the shape allows it.
//!   Values keep their ids; element-wise arithmetic, conversions between types of the same deal,
//!   phis, selects, Function variables and calls carry over component-wise;
//!   `OpMatrixTimesScalar` becomes `OpVectorTimesScalar` (or a multiply by the splat);
//!   `OpCooperativeMatrixLengthKHR` the slot count; composite construct/extract/insert index the
//!   invocation's components as the KHR spec defines (implementation-defined order, here the
//!   deal's).
//! - Tensor layouts and views become arrays of 32-bit fields ([`tensor_values`]).
//! - `OpCooperativeMatrixLoadTensorNV` / `StoreTensorNV` / `LoadKHR` / `StoreKHR` become the exact
//!   per-element loop of [`element_access`] (every clamp mode and value, block size, view,
//!   clip and dimension count), each reported as `fallback` with its reason.
//! - `OpCooperativeMatrixMulAddKHR` becomes `OpSubgroupMatrixMultiplyAccumulateINTEL` atoms
//!   ([`mul_add`]).
//! - Capabilities and extensions are re-derived (`legalize`'s rule): the cooperative-matrix and
//!   tensor ones go, the Intel ones come.
//!
//! When: the module has cooperative-matrix types; every kernel declares one subgroup size
//! (Subgroup-scope matrices are dealt over it). A construct the conversion cannot express
//! (decode functions, spec-constant shapes or clamp modes, Workgroup scope, a MulAdd outside
//! the MMA atoms, an unknown use of a matrix) is an error naming the instruction; the module is
//! then left unchanged.
//!
//! Why correct: each load/store computes, per element, exactly the address and the
//! clamp/clip/drop decision of the specification (the same formulas as spv-sim's tensor
//! addressing, which reproduces the H100's results), and the per-invocation deal is a
//! bijection between matrix elements and (invocation, slot) pairs (tested), so loads fill and
//! stores drain every element exactly once. Element-wise operations act on the same element in
//! both forms. The MMA chain computes the same sums as MulAdd (K chained through C); the
//! operand layouts are the INTEL extension's.

mod block_path;
mod builder;
pub mod distribution;
mod element_access;
mod mul_add;
mod tensor_values;

use std::collections::{HashMap, HashSet};

use spirv::Op;
use spvopt_analysis::tensor_layout::TensorState;
use spvopt_analysis::uniformity::Uniformity;
use spvopt_analysis::{Analyses, Constants, Fact, KernelFacts, Target};
use spvopt_ir::{Id, Inst, InstId, Interner, Module, Section};

use crate::legalize::lower_block_io::lane_variable;
use crate::legalize::{capabilities, location};
use crate::pass::{Pass, PassError, PassResult, Statistics};
use crate::util::is_side_effect_free;
use builder::Builder;
use distribution::{Distribution, MatrixUse};
use element_access::{clamp, Addressing, Direction, Matrix, Path, View};
use mul_add::AbKind;
use tensor_values::{layout_words, view_words, Consts};

pub struct ConvertTensorAddressing;

/// A tensor layout or view type and its lowered array type.
#[derive(Clone, Copy, Debug)]
enum TensorType {
    Layout { dims: u32, clamp: Option<u32> },
    View { dims: u32 },
}

fn const_u32(m: &Module, id: Id) -> Option<u32> {
    let i = m.def_inst(id)?;
    (i.is(Op::Constant)).then(|| i.operand_word(0)).flatten()
}

fn const_bool(m: &Module, id: Id) -> Option<bool> {
    match m.def_inst(id)?.op()? {
        Op::ConstantTrue => Some(true),
        Op::ConstantFalse => Some(false),
        _ => None,
    }
}

/// Component kind of a matrix component type: (bits, float, bf16).
fn component_kind(m: &Module, t: Id) -> Option<(u32, bool, bool)> {
    let i = m.def_inst(t)?;
    match i.op()? {
        Op::TypeInt => Some((i.operand_word(0)?, false, false)),
        // FP Encoding BFloat16KHR is 0.
        Op::TypeFloat => Some((i.operand_word(0)?, true, i.operand_word(1) == Some(0))),
        _ => None,
    }
}

/// Everything the conversion decided about the module's types.
struct Plan {
    matrices: HashMap<Id, Matrix>,
    tensors: HashMap<Id, (TensorType, Id)>,
}

fn plan(m: &mut Module, types: &mut Interner, sg: u32) -> Result<Plan, String> {
    let mut matrices = HashMap::new();
    let mut tensors = HashMap::new();
    let global: Vec<(InstId, Inst)> = m
        .section_insts(Section::Global)
        .map(|(i, x)| (i, x.clone()))
        .collect();
    for (at, t) in global {
        let Some(id) = t.result_id() else { continue };
        match t.op() {
            Some(Op::TypeCooperativeMatrixKHR) => {
                let w = |k: usize| t.operand_id(k).and_then(|x| const_u32(m, x));
                let (Some(comp), Some(scope), Some(rows), Some(cols), Some(use_)) =
                    (t.operand_id(0), w(1), w(2), w(3), w(4))
                else {
                    return Err(format!(
                        "{}: cooperative matrix type with spec-constant or missing operands \
                         (specialize the module first)",
                        location(m, at)
                    ));
                };
                if scope != spirv::Scope::Subgroup as u32 {
                    return Err(format!(
                        "{}: only Subgroup-scope cooperative matrices can be dealt to \
                         invocations (scope {scope})",
                        location(m, at)
                    ));
                }
                let use_ = MatrixUse::from_word(u64::from(use_))
                    .ok_or_else(|| format!("{}: unknown matrix use {use_}", location(m, at)))?;
                let (bits, is_float, _) = component_kind(m, comp)
                    .filter(|&(b, _, _)| matches!(b, 8 | 16 | 32 | 64))
                    .ok_or_else(|| {
                        format!("{}: unsupported matrix component type", location(m, at))
                    })?;
                let dist = Distribution::choose(use_, bits, rows, cols, sg)
                    .map_err(|e| format!("{}: {e}", location(m, at)))?;
                let lowered = if dist.slots() == 1 {
                    comp
                } else {
                    types.vector(m, comp, dist.slots())
                };
                matrices.insert(
                    id,
                    Matrix {
                        dist,
                        use_,
                        component: comp,
                        bytes: bits / 8,
                        is_float,
                        lowered,
                    },
                );
            }
            Some(Op::TypeTensorLayoutNV) => {
                let dims = t
                    .operand_id(0)
                    .and_then(|x| const_u32(m, x))
                    .filter(|d| (1..=5).contains(d))
                    .ok_or_else(|| format!("{}: tensor layout Dim", location(m, at)))?;
                let clamp = t.operand_id(1).and_then(|x| const_u32(m, x));
                let u32t = types.int(m, 32);
                let n = types.u32_const(m, layout_words(dims));
                let arr = types.array(m, u32t, n);
                tensors.insert(id, (TensorType::Layout { dims, clamp }, arr));
            }
            Some(Op::TypeTensorViewNV) => {
                let dims = t
                    .operand_id(0)
                    .and_then(|x| const_u32(m, x))
                    .filter(|d| (1..=5).contains(d))
                    .ok_or_else(|| format!("{}: tensor view Dim", location(m, at)))?;
                let u32t = types.int(m, 32);
                let n = types.u32_const(m, view_words(dims));
                let arr = types.array(m, u32t, n);
                tensors.insert(id, (TensorType::View { dims }, arr));
            }
            _ => {}
        }
    }
    Ok(Plan { matrices, tensors })
}

/// Memory operands of a load/store.
struct MemoryOperands {
    /// The mask for the per-element accesses: Volatile and Nontemporal carry over.
    element_mask: u32,
    /// The `Aligned` literal.
    aligned: Option<u32>,
    /// Words consumed.
    words: usize,
}

fn memory_operands(ops: &[u32]) -> MemoryOperands {
    let Some(&mask) = ops.first() else {
        return MemoryOperands {
            element_mask: 0,
            aligned: None,
            words: 0,
        };
    };
    let aligned = (mask & 0x2 != 0).then(|| ops.get(1).copied()).flatten();
    let mut n = 1;
    for bit in [0x2u32, 0x8, 0x10, 0x10000, 0x20000] {
        if mask & bit != 0 {
            n += 1;
        }
    }
    MemoryOperands {
        element_mask: mask & (0x1 | 0x4),
        aligned,
        words: n,
    }
}

struct Converter<'a> {
    plan: &'a Plan,
    target: &'a Target,
    /// Tensor loads/stores whose pointer, layout and view are subgroup-uniform and whose block
    /// is reached by the whole subgroup (block-op operands may then be checked at run time).
    uniform_accesses: HashSet<InstId>,
    tensor_states: &'a HashMap<Id, TensorState>,
    lane_var: Id,
    stats: &'a mut Statistics,
    /// Results replaced by other values (applied with the type replacement).
    replaced: HashMap<Id, Id>,
}

impl Converter<'_> {
    fn matrix_of(&self, m: &Module, v: Id) -> Option<Matrix> {
        self.plan.matrices.get(&m.type_of(v)?).copied()
    }

    fn view(&self, m: &Module, v: Id) -> Result<View, String> {
        let ty = m.type_of(v).ok_or("view without type")?;
        let t = m.def_inst(ty).ok_or("view type")?;
        let Some(&(TensorType::View { dims }, _)) = self.plan.tensors.get(&ty) else {
            return Err("the TensorView operand is not a tensor view".into());
        };
        let has_dims = t
            .operand_id(1)
            .and_then(|x| const_bool(m, x))
            .ok_or("the view's HasDimensions is not a boolean constant")?;
        let perm: Vec<u32> = (0..dims as usize)
            .map(|k| t.operand_id(2 + k).and_then(|x| const_u32(m, x)))
            .collect::<Option<_>>()
            .ok_or("the view's permutation is not constant")?;
        Ok(View {
            value: v,
            state: match self.tensor_states.get(&v) {
                Some(TensorState::View(s)) => Some(s.clone()),
                _ => None,
            },
            dims,
            has_dims,
            perm,
        })
    }

    fn convert_inst(
        &mut self,
        m: &mut Module,
        types: &mut Interner,
        at: InstId,
        consts: &Consts,
    ) -> Result<(), String> {
        let inst = m.inst(at).clone();
        let Some(op) = inst.op() else { return Ok(()) };
        let ops: Vec<u32> = inst.operands().to_vec();
        let id = |k: usize| ops.get(k).and_then(|&w| Id::new(w));
        let block = m.inst_block(at).ok_or("not in a block")?;
        match op {
            _ if spvopt_analysis::tensor_layout::is_tensor_op(Some(op)) => {
                let ty = inst.result_type().ok_or("no type")?;
                let &(tt, _) = self
                    .plan
                    .tensors
                    .get(&ty)
                    .ok_or("tensor op with a non-tensor result type")?;
                let dims = match tt {
                    TensorType::Layout { dims, .. } | TensorType::View { dims } => dims,
                };
                // The instructions keep the tensor type until all types are replaced at the
                // end (the type tells the clamp mode and the view's permutation).
                tensor_values::lower_setter(m, at, ty, dims, consts)?;
            }
            Op::CooperativeMatrixLoadTensorNV | Op::CooperativeMatrixStoreTensorNV => {
                let load = op == Op::CooperativeMatrixLoadTensorNV;
                let (pointer, object, layout) = (
                    id(0).ok_or("pointer")?,
                    id(1).ok_or("object")?,
                    id(2).ok_or("layout")?,
                );
                let mo = memory_operands(&ops[3..]);
                let used = mo.words;
                let ta = ops.get(3 + used).copied().unwrap_or(0);
                if ta & !0x1 != 0 {
                    return Err("decode functions (block-quantised loads) are not supported".into());
                }
                let view = if ta & 0x1 != 0 {
                    let v = id(4 + used).ok_or("TensorView operand")?;
                    Some(self.view(m, v)?)
                } else {
                    None
                };
                let lt = m.type_of(layout).ok_or("layout type")?;
                let Some(&(TensorType::Layout { dims, clamp }, _)) = self.plan.tensors.get(&lt)
                else {
                    return Err("the TensorLayout operand is not a tensor layout".into());
                };
                let clamp = clamp
                    .filter(|&c| c <= clamp::REPEAT_MIRRORED)
                    .ok_or("the layout's clamp mode is not a constant (specialize first)")?;
                if let Some(v) = &view {
                    if !v.has_dims && v.dims != dims {
                        return Err(format!(
                            "a view of {} dimensions without its own dimensions used with a \
                             layout of {dims}",
                            v.dims
                        ));
                    }
                }
                let mat = self
                    .matrix_of(m, object)
                    .ok_or("the object is not a matrix")?;
                let state = match self.tensor_states.get(&layout) {
                    Some(TensorState::Layout(s)) => Some(Box::new(s.clone())),
                    _ => None,
                };
                let pointer_is_global = m
                    .type_of(pointer)
                    .and_then(|t| m.def_inst(t))
                    .and_then(|t| t.operand_word(0))
                    == Some(spirv::StorageClass::CrossWorkgroup as u32);
                let (view_transposed, structure_error) = match &view {
                    _ if !pointer_is_global => (None, Some("the pointer is not CrossWorkgroup")),
                    None => (None, None),
                    Some(v) if v.has_dims => (None, Some("a view with its own dimensions")),
                    Some(v) if v.perm == [0, 1] => (Some(false), None),
                    Some(v) if v.perm == [1, 0] => (Some(true), None),
                    Some(_) => (None, Some("a view over more than 2 dimensions")),
                };
                let request = block_path::Request {
                    target: self.target,
                    mat: &mat,
                    use_: mat.use_,
                    store: !load,
                    clamp,
                    view_transposed,
                    structure_error,
                    aligned: mo.aligned,
                    uniform: self.uniform_accesses.contains(&at),
                };
                let addressing = Addressing::Tensor {
                    layout,
                    state,
                    dims,
                    clamp,
                    view,
                };
                let dir = if load {
                    Direction::Load {
                        result: inst.result_id().ok_or("load without result")?,
                        ty: inst.result_type().ok_or("load without type")?,
                        object,
                    }
                } else {
                    Direction::Store { object }
                };
                let mut b = Builder {
                    m,
                    types,
                    cur: block,
                    before: None,
                };
                let here = location(b.m, at);
                let path = element_access::convert(
                    &mut b,
                    at,
                    self.lane_var,
                    dir,
                    pointer,
                    &mat,
                    &addressing,
                    mo.element_mask,
                    Some(&request),
                )?;
                let what = if load { "load" } else { "store" };
                self.stats.add(
                    match (&path, load) {
                        (Path::Block, true) => "block_tensor_loads",
                        (Path::Block, false) => "block_tensor_stores",
                        (Path::RuntimeChecked, true) => "runtime_checked_tensor_loads",
                        (Path::RuntimeChecked, false) => "runtime_checked_tensor_stores",
                        (Path::Fallback(_), true) => "fallback_tensor_loads",
                        (Path::Fallback(_), false) => "fallback_tensor_stores",
                    },
                    1,
                );
                if let Path::Fallback(why) = path {
                    self.stats
                        .note(format!("{here}: per-element tensor {what}: {why}"));
                }
            }
            Op::CooperativeMatrixLoadKHR | Op::CooperativeMatrixStoreKHR => {
                let load = op == Op::CooperativeMatrixLoadKHR;
                let pointer = id(0).ok_or("pointer")?;
                let (object, rest) = if load { (None, 1) } else { (id(1), 2) };
                let layout = id(rest)
                    .and_then(|x| const_u32(m, x))
                    .ok_or("the memory layout is not a constant (RowMajorKHR / ColumnMajorKHR)")?;
                if layout > 1 {
                    return Err(format!(
                        "memory layout {layout} is not RowMajor or ColumnMajor"
                    ));
                }
                let stride = id(rest + 1);
                let mem = memory_operands(ops.get(rest + 2..).unwrap_or(&[])).element_mask;
                let (mat, dir) = if load {
                    let r = inst.result_id().ok_or("no result")?;
                    let ty = inst.result_type().ok_or("no type")?;
                    let mat = *self.plan.matrices.get(&ty).ok_or("not a matrix")?;
                    // A strided load overwrites every element: start from undef.
                    let undef = types.intern(m, Op::Undef, Some(mat.lowered), &[]);
                    (
                        mat,
                        Direction::Load {
                            result: r,
                            ty,
                            object: undef,
                        },
                    )
                } else {
                    let o = object.ok_or("object")?;
                    (
                        self.matrix_of(m, o).ok_or("not a matrix")?,
                        Direction::Store { object: o },
                    )
                };
                let stride = match stride {
                    Some(s) => s,
                    None => types.u32_const(m, 0),
                };
                let addressing = Addressing::Strided {
                    column_major: layout == 1,
                    stride,
                };
                let mut b = Builder {
                    m,
                    types,
                    cur: block,
                    before: None,
                };
                element_access::convert(
                    &mut b,
                    at,
                    self.lane_var,
                    dir,
                    pointer,
                    &mat,
                    &addressing,
                    mem,
                    None,
                )?;
                self.stats.add(
                    if load {
                        "strided_loads"
                    } else {
                        "strided_stores"
                    },
                    1,
                );
            }
            Op::CooperativeMatrixMulAddKHR => {
                let (a, bv, c) = (id(0).ok_or("A")?, id(1).ok_or("B")?, id(2).ok_or("C")?);
                let khr = ops.get(3).copied().unwrap_or(0);
                let (ma, mb, mc) = (
                    self.matrix_of(m, a).ok_or("A is not a matrix")?,
                    self.matrix_of(m, bv).ok_or("B is not a matrix")?,
                    self.matrix_of(m, c).ok_or("C is not a matrix")?,
                );
                let ab = match component_kind(m, ma.component) {
                    Some((16, true, false)) => AbKind::F16,
                    Some((16, true, true)) => AbKind::Bf16,
                    Some((8, false, _)) => AbKind::Int8,
                    _ => return Err("A/B element type has no subgroup MMA form".into()),
                };
                if component_kind(m, mb.component) != component_kind(m, ma.component) {
                    return Err("A and B element types differ".into());
                }
                let result = inst.result_id().ok_or("no result")?;
                let mut b = Builder {
                    m,
                    types,
                    cur: block,
                    before: Some(at),
                };
                let ty = inst.result_type().ok_or("no type")?;
                mul_add::emit(&mut b, (&ma, a), (&mb, bv), (&mc, c), ab, khr, (result, ty))
                    .map_err(|e| format!("MulAdd: {e}"))?;
                m.erase(at);
                self.stats.add("mul_adds", 1);
            }
            Op::CooperativeMatrixLengthKHR => {
                let ty = id(0).ok_or("type")?;
                let mat = self.plan.matrices.get(&ty).ok_or("not a matrix type")?;
                let ut = inst.result_type().ok_or("no type")?;
                let n = types.int_const(m, ut, u64::from(mat.dist.slots()));
                self.replaced
                    .insert(inst.result_id().ok_or("no result")?, n);
                m.erase(at);
            }
            Op::MatrixTimesScalar => {
                let Some(mat) = self.matrix_of(m, id(0).ok_or("matrix")?) else {
                    return Ok(());
                };
                let (mv, s) = (id(0).ok_or("matrix")?, id(1).ok_or("scalar")?);
                let (r, ty) = (
                    inst.result_id().ok_or("no result")?,
                    inst.result_type().ok_or("type")?,
                );
                let slots = mat.dist.slots();
                let new = if mat.is_float && slots > 1 {
                    Inst::new(
                        Op::VectorTimesScalar,
                        Some(ty),
                        Some(r),
                        &[mv.word(), s.word()],
                    )
                } else {
                    let mul = if mat.is_float { Op::FMul } else { Op::IMul };
                    let rhs = if slots > 1 {
                        let splat = m.fresh_id();
                        let words = vec![s.word(); slots as usize];
                        m.insert_before(
                            at,
                            Inst::new(Op::CompositeConstruct, Some(ty), Some(splat), &words),
                        );
                        splat
                    } else {
                        s
                    };
                    Inst::new(mul, Some(ty), Some(r), &[mv.word(), rhs.word()])
                };
                *m.inst_mut(at) = new;
            }
            Op::CompositeConstruct => {
                let ty = inst.result_type().ok_or("type")?;
                let Some(mat) = self.plan.matrices.get(&ty) else {
                    return Ok(());
                };
                let r = inst.result_id().ok_or("no result")?;
                let x = id(0).ok_or("constituent")?;
                let slots = mat.dist.slots();
                *m.inst_mut(at) = if slots == 1 {
                    Inst::new(Op::CopyObject, Some(ty), Some(r), &[x.word()])
                } else {
                    Inst::new(
                        Op::CompositeConstruct,
                        Some(ty),
                        Some(r),
                        &vec![x.word(); slots as usize],
                    )
                };
            }
            Op::CompositeExtract | Op::CompositeInsert => {
                let base = if op == Op::CompositeExtract {
                    id(0)
                } else {
                    id(1)
                }
                .ok_or("composite")?;
                let Some(mat) = self.matrix_of(m, base) else {
                    return Ok(());
                };
                let index = ops.get(if op == Op::CompositeExtract { 1 } else { 2 });
                if index.is_none_or(|&k| k >= mat.dist.slots()) {
                    return Err(format!(
                        "index out of the invocation's {} components",
                        mat.dist.slots()
                    ));
                }
                if mat.dist.slots() == 1 {
                    let r = inst.result_id().ok_or("no result")?;
                    let v = if op == Op::CompositeExtract {
                        base
                    } else {
                        id(0).ok_or("object")?
                    };
                    *m.inst_mut(at) =
                        Inst::new(Op::CopyObject, inst.result_type(), Some(r), &[v.word()]);
                }
            }
            _ => self.check_generic(m, at, &inst)?,
        }
        Ok(())
    }

    /// An instruction that carries matrices component-wise must see one deal on all of them.
    fn check_generic(&self, m: &Module, _at: InstId, inst: &Inst) -> Result<(), String> {
        use Op::*;
        let result_mat = inst
            .result_type()
            .and_then(|t| self.plan.matrices.get(&t).copied());
        let mut operand_mats = Vec::new();
        for &w in inst.operands() {
            if let Some(x) = Id::new(w).and_then(|v| self.matrix_of(m, v)) {
                operand_mats.push(x);
            }
        }
        if result_mat.is_none() && operand_mats.is_empty() {
            return Ok(());
        }
        let op = inst.op().ok_or("unknown opcode")?;
        let componentwise = matches!(
            op,
            FAdd | FSub
                | FMul
                | FDiv
                | FRem
                | FMod
                | FNegate
                | IAdd
                | ISub
                | IMul
                | SDiv
                | UDiv
                | SRem
                | SMod
                | UMod
                | SNegate
                | FConvert
                | SConvert
                | UConvert
                | ConvertFToS
                | ConvertFToU
                | ConvertSToF
                | ConvertUToF
                | Phi
                | Select
                | CopyObject
        );
        let carried = matches!(
            op,
            Load | Store | Variable | Undef | FunctionCall | ReturnValue | FunctionParameter
        );
        if !componentwise && !carried {
            return Err(format!("{op:?} on a cooperative matrix is not supported"));
        }
        let dist = |x: &Matrix| (x.dist.deal, x.dist.slots(), x.dist.rows, x.dist.cols);
        if componentwise {
            let mut all = operand_mats.iter().chain(result_mat.iter());
            if let Some(first) = all.next() {
                if all.any(|x| dist(x) != dist(first)) {
                    return Err(format!(
                        "{op:?} between matrices of different per-invocation layouts \
                         (different use or element width) is not supported"
                    ));
                }
            }
        }
        Ok(())
    }
}

/// Removes pure instructions whose results became unused, starting from `seeds` and following
/// their operands (layout chains the loads no longer read). Linear in the module.
fn remove_dead(m: &mut Module, seeds: Vec<Id>) {
    let mut uses: HashMap<Id, u32> = HashMap::new();
    for i in m.all_insts().collect::<Vec<_>>() {
        m.for_each_used_id(i, |id| *uses.entry(id).or_default() += 1);
    }
    let mut work = seeds;
    while let Some(v) = work.pop() {
        if uses.get(&v).copied().unwrap_or(0) != 0 {
            continue;
        }
        let Some(i) = m.def(v) else { continue };
        if m.inst_block(i).is_none() || !is_side_effect_free(m, m.inst(i)) {
            continue;
        }
        let mut operands = Vec::new();
        m.for_each_used_id(i, |id| operands.push(id));
        m.erase(i);
        for o in operands {
            if let Some(n) = uses.get_mut(&o) {
                *n = n.saturating_sub(1);
                if *n == 0 {
                    work.push(o);
                }
            }
        }
    }
}

/// Drops duplicate type/constant declarations the type replacement created (e.g. a pointer to
/// the new vector type next to an existing identical one). The section is in definition order.
fn merge_duplicate_types(m: &mut Module) -> HashMap<Id, Id> {
    let mut seen: HashMap<(u16, Vec<u32>), Id> = HashMap::new();
    let mut merged: HashMap<Id, Id> = HashMap::new();
    let list: Vec<InstId> = m.section(Section::Global).to_vec();
    for i in list {
        if !merged.is_empty() {
            m.map_used_ids(i, |x| merged.get(&x).copied().unwrap_or(x));
        }
        let inst = m.inst(i);
        let Some(r) = inst.result_id() else { continue };
        let op = inst.op();
        let dedupable = matches!(
            op,
            Some(
                Op::TypeVoid
                    | Op::TypeBool
                    | Op::TypeInt
                    | Op::TypeFloat
                    | Op::TypeVector
                    | Op::TypePointer
                    | Op::TypeFunction
                    | Op::Constant
                    | Op::ConstantTrue
                    | Op::ConstantFalse
                    | Op::ConstantComposite
                    | Op::ConstantNull
            )
        );
        if !dedupable {
            continue;
        }
        let mut key = Vec::with_capacity(inst.words.len());
        key.push(inst.result_type().map_or(0, |t| t.word()));
        key.extend_from_slice(inst.operands());
        match seen.get(&(inst.opcode(), key.clone())) {
            Some(&first) => {
                merged.insert(r, first);
            }
            None => {
                seen.insert((inst.opcode(), key), r);
            }
        }
    }
    if !merged.is_empty() {
        m.retain_section(Section::Global, |m, i| {
            m.inst(i)
                .result_id()
                .is_none_or(|r| !merged.contains_key(&r))
        });
        for i in m.all_insts().collect::<Vec<_>>() {
            m.map_used_ids(i, |x| merged.get(&x).copied().unwrap_or(x));
        }
    }
    merged
}

fn convert(
    m: &mut Module,
    analyses: &mut Analyses,
    target: &Target,
    stats: &mut Statistics,
) -> Result<bool, String> {
    let has_matrices = m
        .section_insts(Section::Global)
        .any(|(_, t)| t.is(Op::TypeCooperativeMatrixKHR) || t.is(Op::TypeTensorLayoutNV));
    if !has_matrices {
        return Ok(false);
    }
    let sg = match analyses.get::<KernelFacts>(m).module_subgroup_size() {
        Some(sg) => sg,
        None => {
            let facts = analyses.get::<KernelFacts>(m);
            let sizes: Vec<String> = m
                .function_ids()
                .filter(|&f| facts.is_reached(f))
                .map(|f| match facts.subgroup_size(f) {
                    Fact::Known(s) => s.to_string(),
                    _ => "unknown".into(),
                })
                .collect();
            return Err(format!(
                "Subgroup-scope cooperative matrices need every kernel to declare one \
                 SubgroupSize (found: {})",
                sizes.join(", ")
            ));
        }
    };
    let tensor_states: HashMap<Id, TensorState> = {
        let consts = analyses.get::<Constants>(m);
        m.all_insts()
            .filter_map(|i| m.inst(i).result_id())
            .filter_map(|r| consts.tensor_state(r).map(|s| (r, s.clone())))
            .collect()
    };
    let uniform_accesses = uniform_tensor_accesses(m, analyses);
    let mut types = Interner::default();
    let plan = plan(m, &mut types, sg)?;
    let lane_var = lane_variable(m, &mut types);
    let u32t = types.int(m, 32);
    let consts = Consts {
        u32t,
        boolt: types.bool(m),
        zero: types.u32_const(m, 0),
        one: types.u32_const(m, 1),
        all_ones: types.u32_const(m, u32::MAX),
    };
    // Setter operands must be u32 for the array inserts: other 32-bit integer types are
    // bitcast first.
    let mut conv = Converter {
        plan: &plan,
        target,
        uniform_accesses,
        tensor_states: &tensor_states,
        lane_var,
        stats,
        replaced: HashMap::new(),
    };
    let mut tensor_seeds = Vec::new();
    let funcs: Vec<_> = m.function_ids().collect();
    for f in funcs {
        let blocks = m.function(f).blocks.clone();
        let insts: Vec<InstId> = blocks
            .iter()
            .flat_map(|&b| m.block_insts(b).collect::<Vec<_>>())
            .collect();
        for at in insts {
            let inst = m.inst(at);
            if spvopt_analysis::tensor_layout::is_tensor_op(inst.op()) {
                if let Some(r) = inst.result_id() {
                    tensor_seeds.push(r);
                }
                bitcast_setter_operands(m, at, u32t);
            }
            conv.convert_inst(m, &mut types, at, &consts)
                .map_err(|e| format!("{}: {e}", location_or_unknown(m, at)))?;
        }
    }
    let replaced = std::mem::take(&mut conv.replaced);
    let mut scalar_constants: HashMap<Id, Id> = HashMap::new();
    // Matrix constants: one constituent (the splat) becomes one per slot.
    let global: Vec<InstId> = m.section(Section::Global).to_vec();
    for i in global {
        let inst = m.inst(i);
        let Some(mat) = inst.result_type().and_then(|t| plan.matrices.get(&t)) else {
            continue;
        };
        if !(inst.is(Op::ConstantComposite) || inst.is(Op::SpecConstantComposite)) {
            continue;
        }
        let x = inst.operands()[0];
        let slots = mat.dist.slots() as usize;
        let (ty, r, op) = (mat.lowered, inst.result_id(), inst.op());
        if slots == 1 {
            // A scalar: the constituent itself.
            if let (Some(r), Some(c)) = (r, Id::new(x)) {
                scalar_constants.insert(r, c);
            }
        } else if let Some(op) = op {
            *m.inst_mut(i) = Inst::new(op, Some(ty), r, &vec![x; slots]);
        }
    }
    // Replace the types (and the values that became others) everywhere.
    let mut map: HashMap<Id, Id> = replaced;
    map.extend(scalar_constants.iter().map(|(&a, &b)| (a, b)));
    for (&t, mat) in &plan.matrices {
        map.insert(t, mat.lowered);
    }
    for (&t, &(_, arr)) in &plan.tensors {
        map.insert(t, arr);
    }
    for i in m.all_insts().collect::<Vec<_>>() {
        m.map_used_ids(i, |x| map.get(&x).copied().unwrap_or(x));
    }
    let old_types: Vec<Id> = plan
        .matrices
        .keys()
        .chain(plan.tensors.keys())
        .chain(scalar_constants.keys())
        .copied()
        .collect();
    m.retain_section(Section::Global, |m, i| {
        m.inst(i)
            .result_id()
            .is_none_or(|r| !old_types.contains(&r))
    });
    m.sort_global_section();
    merge_duplicate_types(m);
    remove_dead(m, tensor_seeds);
    let mut errors = Vec::new();
    capabilities::run(m, stats, &mut errors);
    if let Some(e) = errors.into_iter().next() {
        return Err(e);
    }
    stats.add("matrix_types", plan.matrices.len() as u64);
    Ok(true)
}

/// Tensor loads/stores whose pointer, layout and view are subgroup-uniform, in blocks the whole
/// subgroup reaches.
fn uniform_tensor_accesses(m: &Module, analyses: &mut Analyses) -> HashSet<InstId> {
    let u = analyses.get::<Uniformity>(m);
    let mut out = HashSet::new();
    for i in m.all_insts() {
        let inst = m.inst(i);
        if !(inst.is(Op::CooperativeMatrixLoadTensorNV)
            || inst.is(Op::CooperativeMatrixStoreTensorNV))
        {
            continue;
        }
        let Some(b) = m.inst_block(i) else { continue };
        if u.is_divergent_control(b) {
            continue;
        }
        let ops = inst.operands();
        let mo = memory_operands(ops.get(3..).unwrap_or(&[]));
        let ta = ops.get(3 + mo.words).copied().unwrap_or(0);
        let mut ids = vec![ops[0], ops[2]];
        if ta & 0x1 != 0 {
            ids.extend(ops.get(4 + mo.words).copied());
        }
        if ids
            .iter()
            .filter_map(|&w| Id::new(w))
            .all(|id| u.is_uniform(id))
        {
            out.insert(i);
        }
    }
    out
}

fn location_or_unknown(m: &Module, at: InstId) -> String {
    if m.inst_block(at).is_some() {
        location(m, at)
    } else {
        "(converted instruction)".into()
    }
}

/// Bitcasts 32-bit integer setter operands of another integer type to u32.
fn bitcast_setter_operands(m: &mut Module, at: InstId, u32t: Id) {
    let ops: Vec<u32> = m.inst(at).operands().to_vec();
    for (k, &w) in ops.iter().enumerate().skip(1) {
        let Some(v) = Id::new(w) else { continue };
        let Some(t) = m.type_of(v) else { continue };
        if t == u32t {
            continue;
        }
        let c = m.fresh_id();
        m.insert_before(at, Inst::new(Op::Bitcast, Some(u32t), Some(c), &[v.word()]));
        m.inst_mut(at).operands_mut()[k] = c.word();
    }
}

impl Pass for ConvertTensorAddressing {
    fn name(&self) -> &'static str {
        "convert-tensor-addressing"
    }

    fn run(
        &mut self,
        m: &mut Module,
        analyses: &mut Analyses,
        target: &Target,
    ) -> Result<PassResult, PassError> {
        let mut stats = Statistics::default();
        let original = m.clone();
        match convert(m, analyses, target, &mut stats) {
            Ok(false) => Ok(PassResult::unchanged(stats)),
            Ok(true) => Ok(PassResult {
                changed: true,
                stats,
                ..PassResult::unchanged(Statistics::default())
            }),
            Err(e) => {
                *m = original;
                Err(PassError::Failed {
                    pass: "convert-tensor-addressing",
                    message: e,
                })
            }
        }
    }
}
