//! The lane map walk's value rules for conversions, selects, comparisons and logical
//! operations (see `walk.rs`).

use spirv::Op;
use spvopt_ir::{Id, Inst};

use super::super::{Coef, LaneValue, Poly};
use super::{compare, width_mask, Walker};

impl Walker<'_> {
    /// `UConvert` / `SConvert` (`signed`) of `a` (operand `operand`) to width `w`, result `r`:
    /// a table converts per invocation; a lane-invariant value is a sign-extended atom, the
    /// exact wide polynomial under a recorded widening, or a new atom; anything else keeps its
    /// polynomial, exact only if it does not wrap (recorded in `no_wrap` when widened).
    pub(super) fn convert(
        &mut self,
        a: &Poly,
        operand: Id,
        signed: bool,
        r: Id,
        w: u32,
    ) -> Option<LaneValue> {
        let int = |v: Poly| Some(LaneValue::Int(v));
        if let Some(t) = self.table_of(a) {
            let from = a.width;
            let t = t
                .into_iter()
                .map(|v| if signed { v } else { v & width_mask(from) })
                .collect();
            return int(self.lanes_poly(t, w));
        }
        if a.is_lane_invariant() {
            // A sign-extended atom is the atom (atoms are read sign-extended); anything
            // else becomes a new atom with the operand's alignment.
            if w > a.width {
                if let [(m, Coef::Same(1))] = a.terms() {
                    // Zero-extending is sign-extending for a counter that is never < 0.
                    if m.len() == 1 && (signed || self.nonneg.contains(&m[0])) {
                        return int(a.with_width(w));
                    }
                }
                let lone_atom = matches!(a.terms(), [(m, Coef::Same(1))] if m.len() == 1);
                if self.exact_widenings
                    && !lone_atom
                    && !a.terms().is_empty()
                    && self.free_of_phis(a)
                {
                    self.widenings.push((r, a.clone(), signed));
                    return int(a.with_width(w));
                }
            }
            let tz = a.trailing_zeros_with(|x| self.atom_tz_of(x));
            if tz > 0 {
                self.derived_tz.insert(r, tz.min(w));
            }
            return int(Poly::atom(r, w, self.lanes));
        }
        if w > a.width {
            self.no_wrap.push((r, operand, signed));
        }
        int(a.with_width(w))
    }

    /// `OpSelect` (result `r`, width `w` if an integer): a condition the same in every
    /// invocation picks a side; a per-invocation one picks per invocation between tables; a
    /// uniform one of integers is a uniform atom.
    pub(super) fn select(&self, inst: &Inst, r: Id, w: Option<u32>) -> Option<LaneValue> {
        let int = |v: Option<Poly>| v.map(LaneValue::Int);
        let c = self.bool_of(inst.operand_id(0)?)?;
        let (x, y) = (inst.operand_id(1)?, inst.operand_id(2)?);
        match c {
            LaneValue::Bool(t) if t.iter().all(|&v| v) => {
                self.values.get(&x).cloned().or_else(|| int(self.poly(x)))
            }
            LaneValue::Bool(t) if t.iter().all(|&v| !v) => {
                self.values.get(&y).cloned().or_else(|| int(self.poly(y)))
            }
            LaneValue::Bool(t) => {
                let (a, c) = (self.poly(x)?, self.poly(y)?);
                let (ta, tc) = (self.table_of(&a)?, self.table_of(&c)?);
                let v = (0..self.lanes)
                    .map(|l| if t[l] { ta[l] } else { tc[l] })
                    .collect();
                int(Some(self.lanes_poly(v, w?)))
            }
            _ => {
                let (a, c) = (self.poly(x)?, self.poly(y)?);
                int(self.uniform_atom(&[&a, &c], r, w?))
            }
        }
    }

    /// Integer comparison `op` of `x` and `y`: per invocation when both are tables, else
    /// uniform when both are lane-invariant.
    pub(super) fn comparison(&self, op: Op, x: Id, y: Id) -> Option<LaneValue> {
        let (a, c) = (self.poly(x)?, self.poly(y)?);
        if let (Some(ta), Some(tc)) = (self.table_of(&a), self.table_of(&c)) {
            let wd = a.width;
            let t = (0..self.lanes)
                .map(|l| compare(op, ta[l], tc[l], wd))
                .collect::<Vec<bool>>();
            return Some(LaneValue::Bool(t.into()));
        }
        (a.is_lane_invariant() && c.is_lane_invariant()).then_some(LaneValue::UniformBool)
    }

    /// `LogicalAnd` / `Or` / `Equal` / `NotEqual` (`op`) of `x` and `y`: per invocation when
    /// both are known per invocation, else uniform when both are the same everywhere.
    pub(super) fn logical(&self, op: Op, x: Id, y: Id) -> Option<LaneValue> {
        let (a, c) = (self.bool_of(x)?, self.bool_of(y)?);
        match (a, c) {
            (LaneValue::Bool(p), LaneValue::Bool(q)) => {
                let t = (0..self.lanes)
                    .map(|l| match op {
                        Op::LogicalAnd => p[l] && q[l],
                        Op::LogicalOr => p[l] || q[l],
                        Op::LogicalEqual => p[l] == q[l],
                        _ => p[l] != q[l],
                    })
                    .collect::<Vec<bool>>();
                Some(LaneValue::Bool(t.into()))
            }
            (
                LaneValue::UniformBool | LaneValue::Bool(_),
                LaneValue::UniformBool | LaneValue::Bool(_),
            ) => {
                let inv = |v: &Option<LaneValue>| match v {
                    Some(LaneValue::Bool(t)) => t.iter().all(|&x| x == t[0]),
                    _ => true,
                };
                (inv(&self.bool_of(x)) && inv(&self.bool_of(y))).then_some(LaneValue::UniformBool)
            }
            _ => None,
        }
    }
}
