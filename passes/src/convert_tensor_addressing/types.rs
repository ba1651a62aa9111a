//! The conversion's plan for the module's types: each cooperative-matrix type's deal and
//! per-invocation type, each tensor layout/view type's dimension count, clamp mode and array.

use spirv::Op;
use spvopt_analysis::fxhash::FxHashMap as HashMap;
use spvopt_ir::{Id, InstBuf, InstId, Interner, Module, Section};

use super::distribution::{Distribution, MatrixUse};
use super::error::{PlanError, TypeProblem};
use super::model::Matrix;
use super::tensor_values::{layout_words, view_words};
use crate::diagnostic::Location;

/// A tensor layout or view type and its lowered array type.
#[derive(Clone, Copy, Debug)]
pub(super) enum TensorType {
    Layout { dims: u32, clamp: Option<u32> },
    View { dims: u32 },
}

pub(super) fn const_u32(m: &Module, id: Id) -> Option<u32> {
    let i = m.def_inst(id)?;
    (i.is(Op::Constant)).then(|| i.operand_word(0)).flatten()
}

pub(super) fn const_bool(m: &Module, id: Id) -> Option<bool> {
    match m.def_inst(id)?.op()? {
        Op::ConstantTrue => Some(true),
        Op::ConstantFalse => Some(false),
        _ => None,
    }
}

/// Component kind of a matrix component type: (bits, float, bf16).
pub(super) fn component_kind(m: &Module, t: Id) -> Option<(u32, bool, bool)> {
    let i = m.def_inst(t)?;
    match i.op()? {
        Op::TypeInt => Some((i.operand_word(0)?, false, false)),
        // FP Encoding BFloat16KHR is 0.
        Op::TypeFloat => Some((i.operand_word(0)?, true, i.operand_word(1) == Some(0))),
        _ => None,
    }
}

/// Everything the conversion decided about the module's types.
pub(super) struct Plan {
    pub matrices: HashMap<Id, Matrix>,
    pub tensors: HashMap<Id, (TensorType, Id)>,
}

pub(super) fn plan(m: &mut Module, types: &mut Interner, sg: u32) -> Result<Plan, PlanError> {
    let mut matrices = HashMap::default();
    let mut tensors = HashMap::default();
    let global: Vec<(InstId, InstBuf)> = m
        .section_insts(Section::Global)
        .map(|(i, x)| (i, x.to_owned()))
        .collect();
    for (at, t) in global {
        let Some(id) = t.result_id() else { continue };
        let fail = |m: &Module, problem: TypeProblem| PlanError {
            at: Location::of(m, at),
            problem,
        };
        match t.op() {
            Some(Op::TypeCooperativeMatrixKHR) => {
                let w = |k: usize| t.operand_id(k).and_then(|x| const_u32(m, x));
                let (Some(comp), Some(scope), Some(rows), Some(cols), Some(use_)) =
                    (t.operand_id(0), w(1), w(2), w(3), w(4))
                else {
                    return Err(fail(m, TypeProblem::SpecConstantShape));
                };
                if scope != spirv::Scope::Subgroup as u32 {
                    return Err(fail(m, TypeProblem::NotSubgroupScope(scope)));
                }
                let use_ = MatrixUse::from_word(u64::from(use_))
                    .ok_or_else(|| fail(m, TypeProblem::UnknownUse(use_)))?;
                let (bits, is_float, _) = component_kind(m, comp)
                    .filter(|&(b, _, _)| matches!(b, 8 | 16 | 32 | 64))
                    .ok_or_else(|| fail(m, TypeProblem::UnsupportedComponent))?;
                let dist = Distribution::choose(use_, bits, rows, cols, sg)
                    .map_err(|e| fail(m, e.into()))?;
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
                    .ok_or_else(|| fail(m, TypeProblem::LayoutDim))?;
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
                    .ok_or_else(|| fail(m, TypeProblem::ViewDim))?;
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
