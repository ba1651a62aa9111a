//! The conversion of each instruction that defines or uses a cooperative matrix or a tensor
//! layout/view (see the pass's top comment for what each becomes).

use spirv::Op;
use spvopt_analysis::fxhash::{FxHashMap as HashMap, FxHashSet as HashSet};
use spvopt_analysis::tensor_layout::TensorState;
use spvopt_analysis::Target;
use spvopt_ir::opcode_class::{op_class, OpClass};
use spvopt_ir::{Id, Inst, InstId, Interner, Module};

use super::access_run;
use super::block_path;
use super::builder::Builder;
use super::element_access;
use super::error::ConvertError::{self, Malformed};
use super::joint_matrix::JointMatrix;
use super::model::{clamp, memory_operands, Addressing, Direction, Matrix, Path, View};
use super::mul_add::{self, AbKind};
use super::tensor_values::{self, Consts};
use super::types::{component_kind, const_bool, const_u32, Plan, TensorType};
use crate::edit::location;
use crate::pass::Statistics;

/// A tensor load/store, read before any conversion of its group.
struct TensorSpec {
    at: InstId,
    load: bool,
    dir: Direction,
    pointer: Id,
    mat: Matrix,
    addressing: Addressing,
    element_mask: u32,
    aligned: Option<u32>,
    clamp: u32,
    view_transposed: Option<bool>,
    structure_error: Option<&'static str>,
    uniform: bool,
    here: String,
}

pub(super) struct Converter<'a> {
    pub(super) plan: &'a Plan,
    pub(super) target: &'a Target,
    /// Tensor loads/stores whose pointer, layout and view are subgroup-uniform and whose block
    /// is reached by the whole subgroup (block-op operands may then be checked at run time).
    pub(super) uniform_accesses: HashSet<InstId>,
    pub(super) tensor_states: &'a HashMap<Id, TensorState>,
    pub(super) lane_var: Id,
    /// The kernels' subgroup size.
    pub(super) sg: u32,
    pub(super) stats: &'a mut Statistics,
    /// Results replaced by other values (applied with the type replacement).
    pub(super) replaced: HashMap<Id, Id>,
}

impl Converter<'_> {
    fn matrix_of(&self, m: &Module, v: Id) -> Option<Matrix> {
        self.plan.matrices.get(&m.type_of(v)?).copied()
    }

    fn view(&self, m: &Module, v: Id) -> Result<View, ConvertError> {
        let ty = m.type_of(v).ok_or(Malformed("view without type"))?;
        let t = m.def_inst(ty).ok_or(Malformed("view type"))?;
        let Some(&(TensorType::View { dims }, _)) = self.plan.tensors.get(&ty) else {
            return Err(ConvertError::NotTensorView);
        };
        let has_dims = t
            .operand_id(1)
            .and_then(|x| const_bool(m, x))
            .ok_or(Malformed(
                "the view's HasDimensions is not a boolean constant",
            ))?;
        let perm: Vec<u32> = (0..dims as usize)
            .map(|k| t.operand_id(2 + k).and_then(|x| const_u32(m, x)))
            .collect::<Option<_>>()
            .ok_or(Malformed("the view's permutation is not constant"))?;
        let mut sorted = perm.clone();
        sorted.sort_unstable();
        if !sorted.iter().copied().eq(0..dims) {
            return Err(ConvertError::NotAPermutation {
                permutation: perm,
                dims,
            });
        }
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

    pub(super) fn convert_inst(
        &mut self,
        m: &mut Module,
        types: &mut Interner,
        at: InstId,
        consts: &Consts,
    ) -> Result<(), ConvertError> {
        let inst = m.inst(at).to_owned();
        if spvopt_ir::grammar::internal::is_joint_matrix(inst.opcode()) {
            let mut jm = JointMatrix {
                plan: self.plan,
                target: self.target,
                sg: self.sg,
                lane_var: self.lane_var,
                uniform: &self.uniform_accesses,
                stats: self.stats,
            };
            return jm.convert(m, types, at);
        }
        let Some(op) = inst.op() else { return Ok(()) };
        let ops: Vec<u32> = inst.operands().to_vec();
        let id = |k: usize| ops.get(k).and_then(|&w| Id::new(w));
        let block = m.inst_block(at).ok_or(Malformed("not in a block"))?;
        match op {
            _ if spvopt_analysis::tensor_layout::is_tensor_op(Some(op)) => {
                let ty = inst.result_type().ok_or(Malformed("no type"))?;
                let &(tt, _) = self
                    .plan
                    .tensors
                    .get(&ty)
                    .ok_or(Malformed("tensor op with a non-tensor result type"))?;
                let dims = match tt {
                    TensorType::Layout { dims, .. } | TensorType::View { dims } => dims,
                };
                if op == Op::TensorLayoutSetDimensionNV {
                    self.warn_block_strides(m, at, &ops, dims);
                }
                // The instructions keep the tensor type until all types are replaced at the
                // end (the type tells the clamp mode and the view's permutation).
                tensor_values::lower_setter(m, at, ty, dims, consts)?;
            }
            Op::CooperativeMatrixLoadTensorNV | Op::CooperativeMatrixStoreTensorNV => {
                self.convert_tensor_group(m, types, &[at])?;
            }
            Op::CooperativeMatrixLoadKHR | Op::CooperativeMatrixStoreKHR => {
                let load = op == Op::CooperativeMatrixLoadKHR;
                let pointer = id(0).ok_or(Malformed("pointer"))?;
                let (object, rest) = if load { (None, 1) } else { (id(1), 2) };
                let layout = id(rest)
                    .and_then(|x| const_u32(m, x))
                    .ok_or(ConvertError::KhrLayoutNotConstant)?;
                if layout > 1 {
                    return Err(ConvertError::UnknownLayout(layout));
                }
                let stride = id(rest + 1);
                let mem = memory_operands(ops.get(rest + 2..).unwrap_or(&[])).element_mask;
                let (mat, dir) = if load {
                    let r = inst.result_id().ok_or(Malformed("no result"))?;
                    let ty = inst.result_type().ok_or(Malformed("no type"))?;
                    let mat = *self
                        .plan
                        .matrices
                        .get(&ty)
                        .ok_or(Malformed("not a matrix"))?;
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
                    let o = object.ok_or(Malformed("object"))?;
                    (
                        self.matrix_of(m, o).ok_or(Malformed("not a matrix"))?,
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
                let access = element_access::Access {
                    at,
                    dir,
                    pointer,
                    mat: &mat,
                    addressing: &addressing,
                    memory_access: mem,
                    block_request: None,
                };
                access_run::convert_one(m, types, self.lane_var, access)?;
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
                let (a, bv, c) = (
                    id(0).ok_or(Malformed("A"))?,
                    id(1).ok_or(Malformed("B"))?,
                    id(2).ok_or(Malformed("C"))?,
                );
                let khr = ops.get(3).copied().unwrap_or(0);
                let (ma, mb, mc) = (
                    self.matrix_of(m, a).ok_or(Malformed("A is not a matrix"))?,
                    self.matrix_of(m, bv)
                        .ok_or(Malformed("B is not a matrix"))?,
                    self.matrix_of(m, c).ok_or(Malformed("C is not a matrix"))?,
                );
                let ab = match component_kind(m, ma.component) {
                    Some((16, true, false)) => AbKind::F16,
                    Some((16, true, true)) => AbKind::Bf16,
                    Some((8, false, _)) => AbKind::Int8,
                    _ => return Err(ConvertError::NoMmaElementType),
                };
                if component_kind(m, mb.component) != component_kind(m, ma.component) {
                    return Err(ConvertError::AbElementTypesDiffer);
                }
                let result = inst.result_id().ok_or(Malformed("no result"))?;
                let mut b = Builder {
                    m,
                    types,
                    cur: block,
                    before: Some(at),
                    truncated: Default::default(),
                };
                let ty = inst.result_type().ok_or(Malformed("no type"))?;
                mul_add::emit(&mut b, (&ma, a), (&mb, bv), (&mc, c), ab, khr, (result, ty))?;
                m.erase(at);
                self.stats.add("mul_adds", 1);
            }
            Op::CooperativeMatrixLengthKHR => {
                let ty = id(0).ok_or(Malformed("type"))?;
                let mat = self
                    .plan
                    .matrices
                    .get(&ty)
                    .ok_or(Malformed("not a matrix type"))?;
                let ut = inst.result_type().ok_or(Malformed("no type"))?;
                let n = types.int_const(m, ut, u64::from(mat.dist.slots()));
                self.replaced
                    .insert(inst.result_id().ok_or(Malformed("no result"))?, n);
                m.erase(at);
            }
            Op::MatrixTimesScalar => {
                let Some(mat) = self.matrix_of(m, id(0).ok_or(Malformed("matrix"))?) else {
                    return Ok(());
                };
                let (mv, s) = (
                    id(0).ok_or(Malformed("matrix"))?,
                    id(1).ok_or(Malformed("scalar"))?,
                );
                let (r, ty) = (
                    inst.result_id().ok_or(Malformed("no result"))?,
                    inst.result_type().ok_or(Malformed("type"))?,
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
                m.replace_inst(at, new);
            }
            Op::CompositeConstruct => {
                let ty = inst.result_type().ok_or(Malformed("type"))?;
                let Some(mat) = self.plan.matrices.get(&ty) else {
                    return Ok(());
                };
                let r = inst.result_id().ok_or(Malformed("no result"))?;
                let x = id(0).ok_or(Malformed("constituent"))?;
                let slots = mat.dist.slots();
                m.replace_inst(
                    at,
                    if slots == 1 {
                        Inst::new(Op::CopyObject, Some(ty), Some(r), &[x.word()])
                    } else {
                        Inst::new(
                            Op::CompositeConstruct,
                            Some(ty),
                            Some(r),
                            &vec![x.word(); slots as usize],
                        )
                    },
                );
            }
            Op::CompositeExtract | Op::CompositeInsert => {
                let base = if op == Op::CompositeExtract {
                    id(0)
                } else {
                    id(1)
                }
                .ok_or(Malformed("composite"))?;
                let Some(mat) = self.matrix_of(m, base) else {
                    return Ok(());
                };
                let index = ops.get(if op == Op::CompositeExtract { 1 } else { 2 });
                if index.is_none_or(|&k| k >= mat.dist.slots()) {
                    return Err(ConvertError::SlotOutOfRange {
                        slots: mat.dist.slots(),
                    });
                }
                if mat.dist.slots() == 1 {
                    let r = inst.result_id().ok_or(Malformed("no result"))?;
                    let v = if op == Op::CompositeExtract {
                        base
                    } else {
                        id(0).ok_or(Malformed("object"))?
                    };
                    m.replace_inst(
                        at,
                        Inst::new(Op::CopyObject, inst.result_type(), Some(r), &[v.word()]),
                    );
                }
            }
            _ => self.check_generic(m, at, &inst)?,
        }
        Ok(())
    }

    /// What a tensor load/store is: operands, matrix, addressing, block-path facts.
    fn tensor_spec(&self, m: &Module, at: InstId) -> Result<TensorSpec, ConvertError> {
        let inst = m.inst(at).to_owned();
        let load = inst.is(Op::CooperativeMatrixLoadTensorNV);
        let ops: Vec<u32> = inst.operands().to_vec();
        let id = |k: usize| ops.get(k).and_then(|&w| Id::new(w));
        let (pointer, object, layout) = (
            id(0).ok_or(Malformed("pointer"))?,
            id(1).ok_or(Malformed("object"))?,
            id(2).ok_or(Malformed("layout"))?,
        );
        let mo = memory_operands(ops.get(3..).unwrap_or(&[]));
        let used = mo.words;
        let ta = ops.get(3 + used).copied().unwrap_or(0);
        if ta & !0x1 != 0 {
            return Err(ConvertError::DecodeFunction);
        }
        let view = if ta & 0x1 != 0 {
            let v = id(4 + used).ok_or(Malformed("TensorView operand"))?;
            Some(self.view(m, v)?)
        } else {
            None
        };
        let lt = m.type_of(layout).ok_or(Malformed("layout type"))?;
        let Some(&(TensorType::Layout { dims, clamp }, _)) = self.plan.tensors.get(&lt) else {
            return Err(ConvertError::NotTensorLayout);
        };
        let clamp = clamp
            .filter(|&c| c <= clamp::REPEAT_MIRRORED)
            .ok_or(ConvertError::ClampModeNotConstant)?;
        if let Some(v) = &view {
            if !v.has_dims && v.dims != dims {
                return Err(ConvertError::ViewDimensions {
                    view_dims: v.dims,
                    layout_dims: dims,
                });
            }
        }
        let mat = self
            .matrix_of(m, object)
            .ok_or(Malformed("the object is not a matrix"))?;
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
        let dir = if load {
            Direction::Load {
                result: inst.result_id().ok_or(Malformed("load without result"))?,
                ty: inst.result_type().ok_or(Malformed("load without type"))?,
                object,
            }
        } else {
            Direction::Store { object }
        };
        Ok(TensorSpec {
            at,
            load,
            dir,
            pointer,
            mat,
            addressing: Addressing::Tensor {
                layout,
                state,
                dims,
                clamp,
                view,
            },
            element_mask: mo.element_mask,
            aligned: mo.aligned,
            clamp,
            view_transposed,
            structure_error,
            uniform: self.uniform_accesses.contains(&at),
            here: location(m, at),
        })
    }

    /// Converts consecutive tensor loads/stores `ats` (nothing between them in their block)
    /// together (see `tile_group`), counting each by path.
    pub(super) fn convert_tensor_group(
        &mut self,
        m: &mut Module,
        types: &mut Interner,
        ats: &[InstId],
    ) -> Result<(), ConvertError> {
        let specs: Vec<TensorSpec> = ats
            .iter()
            .map(|&at| self.tensor_spec(m, at))
            .collect::<Result<_, _>>()?;
        let requests: Vec<block_path::Request> = specs
            .iter()
            .map(|s| block_path::Request {
                target: self.target,
                mat: &s.mat,
                use_: s.mat.use_,
                store: !s.load,
                clamp: s.clamp,
                view_transposed: s.view_transposed,
                structure_error: s.structure_error,
                aligned: s.aligned,
                uniform: s.uniform,
            })
            .collect();
        let accesses: Vec<element_access::Access> = specs
            .iter()
            .zip(&requests)
            .map(|(s, r)| element_access::Access {
                at: s.at,
                dir: s.dir,
                pointer: s.pointer,
                mat: &s.mat,
                addressing: &s.addressing,
                memory_access: s.element_mask,
                block_request: Some(r),
            })
            .collect();
        let block = m.inst_block(ats[0]).ok_or(Malformed("not in a block"))?;
        let mut b = Builder {
            m,
            types,
            cur: block,
            before: None,
            truncated: Default::default(),
        };
        let paths = access_run::convert(&mut b, self.lane_var, &accesses)?;
        for (s, path) in specs.iter().zip(paths) {
            let what = if s.load { "load" } else { "store" };
            self.stats.add(
                match (&path, s.load) {
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
                    .note(format!("{}: per-element tensor {what}: {why}", s.here));
            }
        }
        if ats.len() > 1 {
            self.stats.add("tile_groups", 1);
        }
        Ok(())
    }

    /// `OpTensorLayoutSetDimensionNV` computes `stride[d] = stride[d+1] · ceil(D[d+1] /
    /// blockSize[d+1])`; NVIDIA's driver uses floor (tests/corpus/tensor-hw/README.md). Where a
    /// block size does not divide its dimension, or may not (a run-time dimension), the
    /// converted kernel follows the specification and may differ from NVIDIA's results: warn.
    fn warn_block_strides(&mut self, m: &Module, at: InstId, ops: &[u32], dims: u32) {
        let Some(TensorState::Layout(input)) =
            Id::new(ops[0]).and_then(|l| self.tensor_states.get(&l))
        else {
            return;
        };
        for d in 1..dims as usize {
            let dim = ops
                .get(1 + d)
                .and_then(|&w| Id::new(w))
                .and_then(|v| const_u32(m, v));
            let why = match (input.block_size.get(d).and_then(|f| f.as_const()), dim) {
                (Some(b), _) if b <= 1 => continue,
                (Some(b), Some(x)) if i64::from(x) % b == 0 => continue,
                (Some(b), Some(x)) => format!("block size {b} does not divide dimension {d} ({x})"),
                (Some(b), None) => {
                    format!("block size {b} may not divide dimension {d} (a run-time value)")
                }
                (None, _) => format!(
                    "the block size of dimension {d} is a run-time value that may not divide \
                     the dimension"
                ),
            };
            self.stats.warn_at(
                crate::diagnostic::Location::of(m, at),
                format!(
                    "{why}: the implicit stride uses the specification's ceiling (NVIDIA's \
                     driver uses floor)"
                ),
            );
        }
    }

    /// An instruction that carries matrices component-wise must see one deal on all of them.
    fn check_generic(&self, m: &Module, _at: InstId, inst: &Inst) -> Result<(), ConvertError> {
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
        let op = inst.op().ok_or(Malformed("unknown opcode"))?;
        let componentwise = op_class(op).intersects(
            OpClass::INTEGER_ARITHMETIC | OpClass::FLOAT_ARITHMETIC | OpClass::NUMERIC_CONVERSION,
        ) || matches!(op, Phi | Select | CopyObject);
        let carried = matches!(
            op,
            Load | Store | Variable | Undef | FunctionCall | ReturnValue | FunctionParameter
        );
        if !componentwise && !carried {
            return Err(ConvertError::UnsupportedOp(op));
        }
        let dist = |x: &Matrix| (x.dist.deal, x.dist.slots(), x.dist.rows, x.dist.cols);
        if componentwise {
            let mut all = operand_mats.iter().chain(result_mat.iter());
            if let Some(first) = all.next() {
                if all.any(|x| dist(x) != dist(first)) {
                    return Err(ConvertError::MixedDeals(op));
                }
            }
        }
        Ok(())
    }
}
