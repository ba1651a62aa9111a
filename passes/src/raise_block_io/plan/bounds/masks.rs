//! Triton's masks taken apart for `Planner::bounds`: a mask's conjuncts (`a < b`, `a ≥ 0`
//! and work-group-uniform conditions, through `OpLogicalAnd` trees and `select(c, x, false)`),
//! and uniform conditions compared by value so that every element of an operand can be
//! required to have the same ones.

use std::rc::Rc;

use spirv::Op;
use spvopt_analysis::fxhash::FxHashMap;
use spvopt_analysis::lane_map::{LaneValue, Poly};
use spvopt_ir::{Id, Module};

use super::super::{OperandReject, Planner};

/// A work-group-uniform condition by value: a comparison's opcode and its operand polynomials,
/// else the condition's id (compared structurally: the same pure instruction of the same
/// operands, recursively).
pub(super) enum UniformKey {
    Compare(u16, Box<(Poly, Poly)>),
    Id(Id),
}

impl UniformKey {
    fn same(&self, other: &UniformKey, m: &Module) -> bool {
        match (self, other) {
            (UniformKey::Compare(o1, x), UniformKey::Compare(o2, y)) => {
                o1 == o2 && x.0.same_as(&y.0) && x.1.same_as(&y.1)
            }
            (UniformKey::Id(x), UniformKey::Id(y)) => same_value(m, *x, *y, 8),
            _ => false,
        }
    }
}

/// Whether `a` and `b` are the same value: the same id, or the same side-effect-free
/// instruction (opcode, type, operands) of operands that are (to `depth` levels).
fn same_value(m: &Module, a: Id, b: Id, depth: u32) -> bool {
    if a == b {
        return true;
    }
    if depth == 0 {
        return false;
    }
    let (Some(x), Some(y)) = (m.def_inst(a), m.def_inst(b)) else {
        return false;
    };
    let pure = |i: &spvopt_ir::Inst| {
        crate::util::is_side_effect_free(m, i) && !i.is(Op::Load) && !i.is(Op::Phi)
    };
    if x.opcode() != y.opcode() || x.result_type() != y.result_type() || !pure(x) || !pure(y) {
        return false;
    }
    let (ox, oy) = (x.operands(), y.operands());
    ox.len() == oy.len()
        && ox.iter().zip(oy).all(|(&u, &v)| {
            u == v
                || match (Id::new(u), Id::new(v)) {
                    (Some(u), Some(v)) => {
                        m.def(u).is_some() && m.def(v).is_some() && same_value(m, u, v, depth - 1)
                    }
                    _ => false,
                }
        })
}

/// A mask: its condition, polarity and the further conditions of a nested mask.
pub(super) type MaskKey = (Id, bool, [Option<(Id, bool)>; 2]);

/// One conjunct of a mask.
#[derive(Clone, Copy, Debug)]
pub(super) enum Conjunct {
    /// A work-group-uniform condition.
    Uniform(Id),
    /// `a < b` (signed), with the comparison's id.
    Less(Id, Id, Id),
    /// `a ≥ 0`, with the comparison's id (or `a`'s, for the half of an unsigned comparison).
    NonNeg(Id, Id),
}

impl Planner<'_> {
    /// The conjuncts of one mask (its condition and the further ones of a nested mask), the
    /// work-group-uniform ones checked against the first mask's (`uniform_set`) and recorded
    /// in `uniform` and `nonneg_uniform`.
    pub(super) fn mask_conjuncts(
        &self,
        first: (Id, bool),
        also: &[Option<(Id, bool)>; 2],
        cache: &mut FxHashMap<Id, Vec<Conjunct>>,
        uniform_set: &mut Option<Vec<UniformKey>>,
        uniform: &mut Vec<(Id, bool)>,
        nonneg_uniform: &mut Vec<Poly>,
    ) -> Result<Rc<[Conjunct]>, OperandReject> {
        // Every condition of the mask (nested masks have several), each true.
        let conds: Vec<(Id, bool)> = std::iter::once(first)
            .chain(also.iter().flatten().copied())
            .collect();
        if conds.iter().any(|c| !c.1) {
            return Err(OperandReject::MaskNotABound);
        }
        let mut conjuncts: Vec<Conjunct> = Vec::new();
        for &(cond, _) in &conds {
            if let std::collections::hash_map::Entry::Vacant(slot) = cache.entry(cond) {
                let mut v = Vec::new();
                self.conjuncts(cond, &mut v)?;
                slot.insert(v);
            }
            conjuncts.extend(cache[&cond].iter().copied());
        }
        // The work-group-uniform conjuncts become one select of the whole operand, so every
        // element must have the same ones (a K tail masking some pairs only is not a select
        // of the operand). Conditions are compared by value: an opcode and its operands'
        // polynomials. `v ≥ 0` tests (Triton's origin checks on group ids and loop counters)
        // are exempt: one select of all of them.
        let mut own_uniform: Vec<UniformKey> = Vec::new();
        for c in &conjuncts {
            let Conjunct::Uniform(id) = *c else { continue };
            if self.nonneg_operand(id).is_some() {
                continue;
            }
            let k = self.uniform_key(id);
            if !own_uniform.iter().any(|x| x.same(&k, self.m)) {
                own_uniform.push(k);
            }
        }
        match uniform_set {
            None => *uniform_set = Some(own_uniform),
            Some(first)
                if first.len() == own_uniform.len()
                    && first
                        .iter()
                        .all(|x| own_uniform.iter().any(|y| y.same(x, self.m))) => {}
            Some(_) => return Err(OperandReject::MixedMasks),
        }
        for c in &conjuncts {
            let Conjunct::Uniform(id) = *c else { continue };
            if !uniform.contains(&(id, true)) {
                uniform.push((id, true));
            }
            if let Some(v) = self.nonneg_operand(id) {
                if !nonneg_uniform.iter().any(|p| p.same_as(&v)) {
                    nonneg_uniform.push(v);
                }
            }
        }
        Ok(conjuncts.into())
    }

    /// `cond` by value (see [`UniformKey`]).
    fn uniform_key(&self, cond: Id) -> UniformKey {
        let by_value = self.m.def_inst(cond).and_then(|inst| {
            let (a, b) = (inst.operand_id(0)?, inst.operand_id(1)?);
            let compare = matches!(
                inst.op()?,
                Op::SLessThan
                    | Op::SLessThanEqual
                    | Op::SGreaterThan
                    | Op::SGreaterThanEqual
                    | Op::IEqual
                    | Op::INotEqual
            );
            (compare && inst.operands().len() == 2).then_some(())?;
            Some(UniformKey::Compare(
                inst.opcode(),
                Box::new((self.poly_of(a).ok()?, self.poly_of(b).ok()?)),
            ))
        });
        by_value.unwrap_or(UniformKey::Id(cond))
    }

    /// `v`'s polynomial when `cond` is the uniform `v > -1` or `v ≥ 0`.
    fn nonneg_operand(&self, cond: Id) -> Option<Poly> {
        self.poly_of(self.nonneg_tested(cond)?).ok()
    }

    /// `v` when `cond` is `v > -1`, `v ≥ 0`, `-1 < v` or `0 ≤ v` (signed).
    pub(in crate::raise_block_io::plan) fn nonneg_tested(&self, cond: Id) -> Option<Id> {
        let inst = self.m.def_inst(cond)?;
        let (a, b) = (inst.operand_id(0)?, inst.operand_id(1)?);
        let c = |id| self.poly_of(id).ok().and_then(|p| p.as_constant());
        match inst.op()? {
            Op::SGreaterThan if c(b) == Some(-1) => Some(a),
            Op::SGreaterThanEqual if c(b) == Some(0) => Some(a),
            Op::SLessThan if c(a) == Some(-1) => Some(b),
            Op::SLessThanEqual if c(a) == Some(0) => Some(b),
            _ => None,
        }
    }

    /// The conjuncts of `cond` (a tree of `OpLogicalAnd`).
    fn conjuncts(&self, cond: Id, out: &mut Vec<Conjunct>) -> Result<(), OperandReject> {
        if matches!(self.lanes.value(cond), Some(LaneValue::UniformBool)) {
            out.push(Conjunct::Uniform(cond));
            return Ok(());
        }
        if let Some(LaneValue::Bool(t)) = self.lanes.value(cond) {
            if t.iter().all(|&v| v) {
                return Ok(());
            }
        }
        let inst = self.m.def_inst(cond).ok_or(OperandReject::MaskNotABound)?;
        if inst.is(Op::Select) {
            // `select(c, x, false)` is `c && x` (what clang emits for `&&`).
            let (c, x, f) = (
                inst.operand_id(0).ok_or(OperandReject::MaskNotABound)?,
                inst.operand_id(1).ok_or(OperandReject::MaskNotABound)?,
                inst.operand_id(2).ok_or(OperandReject::MaskNotABound)?,
            );
            if !self.m.def_inst(f).is_some_and(|d| d.is(Op::ConstantFalse)) {
                return Err(OperandReject::MaskNotABound);
            }
            self.conjuncts(c, out)?;
            return self.conjuncts(x, out);
        }
        let (a, b) = (
            inst.operand_id(0).ok_or(OperandReject::MaskNotABound)?,
            inst.operand_id(1).ok_or(OperandReject::MaskNotABound)?,
        );
        let c = |id| self.poly_of(id).ok().and_then(|p| p.as_constant());
        match inst.op().ok_or(OperandReject::MaskNotABound)? {
            Op::LogicalAnd => {
                self.conjuncts(a, out)?;
                self.conjuncts(b, out)
            }
            Op::SLessThan if c(a) == Some(-1) => {
                out.push(Conjunct::NonNeg(cond, b));
                Ok(())
            }
            Op::SLessThan => {
                out.push(Conjunct::Less(cond, a, b));
                Ok(())
            }
            Op::SGreaterThan if c(b) == Some(-1) => {
                out.push(Conjunct::NonNeg(cond, a));
                Ok(())
            }
            Op::SGreaterThanEqual if c(b) == Some(0) => {
                out.push(Conjunct::NonNeg(cond, a));
                Ok(())
            }
            Op::SGreaterThan => {
                out.push(Conjunct::Less(cond, b, a));
                Ok(())
            }
            // `a <u b` for a constant `0 ≤ b < 2^(w-1)` is `a ≥ 0 && a < b` (signed): a
            // negative `a` is at least 2^(w-1) unsigned (what compilers emit for a bound of a
            // value they know is non-negative). The `a ≥ 0` conjunct is keyed by `a` itself:
            // what the bounds cache for it depends on `a` alone.
            Op::ULessThan if c(b).is_some_and(|v| v >= 0) => {
                out.push(Conjunct::NonNeg(a, a));
                out.push(Conjunct::Less(cond, a, b));
                Ok(())
            }
            Op::UGreaterThan if c(a).is_some_and(|v| v >= 0) => {
                out.push(Conjunct::NonNeg(b, b));
                out.push(Conjunct::Less(cond, b, a));
                Ok(())
            }
            _ => Err(OperandReject::MaskNotABound),
        }
    }
}
