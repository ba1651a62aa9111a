//! The constant evaluator of [`Constants`]: module-level constants (scalars, nulls,
//! composites, spec constants with their overrides, `OpSpecConstantOp`) and one instruction of
//! integer / boolean arithmetic, comparison, conversion, select or composite operands that
//! have all folded. Integer values are bit patterns masked to the type width; division by
//! zero, shifts by the width or more and unknown opcodes do not fold.

use spirv::Op;
use spvopt_ir::opcode_class::{op_class, OpClass};
use spvopt_ir::{Id, Inst, Module};

use super::{bounds, sign_extend, ConstValue, Constants};
use crate::decorations::Decorations;
use crate::known_bits::width_mask;
use crate::operands::op_of;
use crate::types::{int_width, is_bool};

impl Constants {
    fn scalar_of_type(m: &Module, ty: Id, bits: u64) -> Option<ConstValue> {
        let t = m.def_inst(ty)?;
        let width = t.operand_word(0)?;
        if t.is(Op::TypeInt) {
            Some(ConstValue::Int {
                width,
                bits: bits & width_mask(width),
            })
        } else if t.is(Op::TypeFloat) {
            Some(ConstValue::Float {
                width,
                bits: bits & width_mask(width),
            })
        } else {
            None
        }
    }

    fn null_of_type(m: &Module, ty: Id, depth: u32) -> Option<ConstValue> {
        let t = m.def_inst(ty)?;
        Some(match op_of(t)? {
            Op::TypeBool => ConstValue::Bool(false),
            Op::TypeInt | Op::TypeFloat => Constants::scalar_of_type(m, ty, 0)?,
            Op::TypeVector if depth < 4 => {
                let n = t.operand_word(1)?;
                if n > 64 {
                    return Some(ConstValue::Null);
                }
                let e = Constants::null_of_type(m, t.operand_id(0)?, depth + 1)?;
                // Vectors of vectors (invalid, but they load) multiply sizes: refuse here what
                // the bounds would refuse once built.
                if e.bounded_size()?.saturating_mul(n as usize) >= bounds::MAX_COMPOSITE_NODES {
                    return None;
                }
                ConstValue::Composite(vec![e; n as usize])
            }
            _ => ConstValue::Null,
        })
    }

    fn literal_bits(words: &[u32]) -> Option<u64> {
        match words {
            [lo] => Some(u64::from(*lo)),
            [lo, hi] => Some(u64::from(*lo) | u64::from(*hi) << 32),
            _ => None,
        }
    }

    pub(super) fn fold_global(
        &self,
        m: &Module,
        dec: &Decorations,
        inst: &Inst,
        r: Id,
        overrides: &std::collections::HashMap<u32, u64>,
    ) -> Option<ConstValue> {
        let ty = inst.result_type()?;
        let over = || dec.spec_id(r).and_then(|s| overrides.get(&s).copied());
        match op_of(inst)? {
            Op::ConstantTrue => Some(ConstValue::Bool(true)),
            Op::ConstantFalse => Some(ConstValue::Bool(false)),
            Op::SpecConstantTrue => Some(ConstValue::Bool(over().is_none_or(|v| v != 0))),
            Op::SpecConstantFalse => Some(ConstValue::Bool(over().is_some_and(|v| v != 0))),
            Op::Constant => {
                Constants::scalar_of_type(m, ty, Constants::literal_bits(inst.operands())?)
            }
            Op::SpecConstant => {
                let bits = match over() {
                    Some(v) => v,
                    None => Constants::literal_bits(inst.operands())?,
                };
                Constants::scalar_of_type(m, ty, bits)
            }
            Op::ConstantNull => Constants::null_of_type(m, ty, 0),
            Op::ConstantComposite | Op::SpecConstantComposite => {
                let parts: Option<Vec<ConstValue>> = inst
                    .operands()
                    .iter()
                    .map(|&w| Id::new(w).and_then(|p| self.value(p)).cloned())
                    .collect();
                Some(ConstValue::Composite(parts?))
            }
            Op::SpecConstantOp => {
                let ops = inst.operands();
                let opcode = u16::try_from(*ops.first()?).ok()?;
                let op = Op::from_u32(u32::from(opcode))?;
                self.fold_op(m, op, ty, &ops[1..], &|o| self.values.get(&o).cloned())
            }
            _ => None,
        }
    }

    /// Folds `op` with operand words `ops` (ids, and literals where the opcode has them).
    pub(super) fn fold_op(
        &self,
        m: &Module,
        op: Op,
        ty: Id,
        ops: &[u32],
        get: &dyn Fn(Id) -> Option<ConstValue>,
    ) -> Option<ConstValue> {
        let args: Vec<Option<ConstValue>> = match op {
            Op::CompositeExtract => vec![Id::new(*ops.first()?).and_then(get)],
            Op::CompositeInsert => ops
                .iter()
                .take(2)
                .map(|&w| Id::new(w).and_then(get))
                .collect(),
            _ => ops.iter().map(|&w| Id::new(w).and_then(get)).collect(),
        };
        let arg = |k: usize| -> Option<&ConstValue> { args.get(k)?.as_ref() };
        match op {
            Op::CompositeExtract => {
                let mut v = arg(0)?;
                for &idx in &ops[1..] {
                    match v {
                        ConstValue::Composite(c) => v = c.get(idx as usize)?,
                        _ => return None,
                    }
                }
                return Some(v.clone());
            }
            Op::CompositeInsert => {
                let obj = arg(0)?.clone();
                let mut comp = arg(1)?.clone();
                let mut slot = &mut comp;
                for &idx in &ops[2..] {
                    match slot {
                        ConstValue::Composite(c) => slot = c.get_mut(idx as usize)?,
                        _ => return None,
                    }
                }
                *slot = obj;
                return Some(comp);
            }
            Op::CompositeConstruct => {
                let parts: Option<Vec<ConstValue>> =
                    (0..ops.len()).map(|k| arg(k).cloned()).collect();
                return Some(ConstValue::Composite(parts?));
            }
            Op::CopyObject => return arg(0).cloned(),
            Op::Select => {
                let c = arg(0)?.as_bool()?;
                return if c { arg(1).cloned() } else { arg(2).cloned() };
            }
            _ => {}
        }
        if is_bool(m, ty) {
            return fold_bool(op, &|k| arg(k));
        }
        let w = int_width(m, ty)?;
        if w > 64 {
            return None;
        }
        let mask = width_mask(w);
        let int = |k: usize| -> Option<(u64, u32)> {
            match *arg(k)? {
                ConstValue::Int { width, bits } => Some((bits, width)),
                _ => None,
            }
        };
        let (a, aw) = int(0)?;
        let sa = sign_extend(a, aw);
        let bits = match op {
            Op::SNegate => a.wrapping_neg(),
            Op::Not => !a,
            Op::UConvert => a,
            Op::SConvert => sa as u64,
            Op::Bitcast => {
                if aw != w {
                    return None;
                }
                a
            }
            _ => {
                let (b, bw) = int(1)?;
                let sb = sign_extend(b, bw);
                match op {
                    Op::IAdd => a.wrapping_add(b),
                    Op::ISub => a.wrapping_sub(b),
                    Op::IMul => a.wrapping_mul(b),
                    Op::UDiv => a.checked_div(b)?,
                    Op::SDiv => sa.checked_div(sb)? as u64,
                    Op::UMod => a.checked_rem(b)?,
                    Op::SRem => sa.checked_rem(sb)? as u64,
                    Op::SMod => {
                        let r = sa.checked_rem(sb)?;
                        (if r != 0 && (r < 0) != (sb < 0) {
                            r.wrapping_add(sb)
                        } else {
                            r
                        }) as u64
                    }
                    Op::ShiftLeftLogical => {
                        if b >= u64::from(w) {
                            return None;
                        }
                        a << b
                    }
                    Op::ShiftRightLogical => {
                        if b >= u64::from(w) {
                            return None;
                        }
                        (a & mask) >> b
                    }
                    Op::ShiftRightArithmetic => {
                        if b >= u64::from(w) {
                            return None;
                        }
                        (sign_extend(a, w) >> b) as u64
                    }
                    Op::BitwiseAnd => a & b,
                    Op::BitwiseOr => a | b,
                    Op::BitwiseXor => a ^ b,
                    _ => return None,
                }
            }
        };
        Some(ConstValue::Int {
            width: w,
            bits: bits & mask,
        })
    }
}

/// The opcodes the folder evaluates: integer arithmetic, bitwise, integer width changes,
/// integer comparisons, boolean logic, and moving values through composites.
pub(super) fn is_foldable(op: Op) -> bool {
    use Op::*;
    op_class(op).intersects(
        OpClass::INTEGER_ARITHMETIC
            | OpClass::BITWISE
            | OpClass::INTEGER_CONVERSION
            | OpClass::INTEGER_COMPARISON
            | OpClass::LOGICAL,
    ) || matches!(
        op,
        Bitcast | CopyObject | Select | CompositeExtract | CompositeInsert | CompositeConstruct
    )
}

fn fold_bool<'a>(op: Op, arg: &dyn Fn(usize) -> Option<&'a ConstValue>) -> Option<ConstValue> {
    use Op::*;
    let b = |k: usize| arg(k)?.as_bool();
    let ints = || -> Option<(u64, u64, i64, i64)> {
        match (arg(0)?.clone(), arg(1)?.clone()) {
            (ConstValue::Int { width: wa, bits: a }, ConstValue::Int { width: wb, bits: c }) => {
                Some((a, c, sign_extend(a, wa), sign_extend(c, wb)))
            }
            _ => None,
        }
    };
    let v = match op {
        LogicalNot => !b(0)?,
        LogicalAnd => b(0)? && b(1)?,
        LogicalOr => b(0)? || b(1)?,
        LogicalEqual => b(0)? == b(1)?,
        LogicalNotEqual => b(0)? != b(1)?,
        _ => {
            let (a, c, sa, sc) = ints()?;
            match op {
                IEqual => a == c,
                INotEqual => a != c,
                UGreaterThan => a > c,
                SGreaterThan => sa > sc,
                UGreaterThanEqual => a >= c,
                SGreaterThanEqual => sa >= sc,
                ULessThan => a < c,
                SLessThan => sa < sc,
                ULessThanEqual => a <= c,
                SLessThanEqual => sa <= sc,
                _ => return None,
            }
        }
    };
    Some(ConstValue::Bool(v))
}
