//! The per-element bound polynomials of `Planner::bounds`, computed once per value: a
//! conjunct's terms at one invocation (`LaneTerms`) and the bounds `lhs ± v` built from them
//! (`BoundMemo`).

use std::rc::Rc;

use spvopt_analysis::fxhash::FxHashMap;
use spvopt_analysis::lane_map::{Coef, Poly};
use spvopt_ir::Id;

/// A conjunct at one invocation (see `Planner::bounds`): `a`, `b - a` (for `a < b`), and the
/// index of the symbolic part (every term but the constant) of `b - a` (`a` for `a ≥ 0`)
/// among the conjunct's distinct ones, with its constant (`None` when the constant is a
/// per-invocation table: then the bounds are computed whole).
pub(super) struct LaneTerms {
    pub(super) av: Rc<Poly>,
    pub(super) d: Option<Poly>,
    pub(super) sym: Option<usize>,
    pub(super) cst: i64,
}

/// The bounds `lhs + v` (`a < b`, `lhs = b - a`) and `lhs - v` (`a ≥ 0`, `lhs = a`) of
/// `Planner::bounds`, for `v` the row `Yr` or column `Xc` of an element at the mask's width.
/// Exact: the terms of a sum are the merge of the operands' non-constant terms (which do not
/// depend on the row, the column or the invocation's constant) plus the sum of the
/// constants, so the non-constant part is computed once per (conjunct, symbolic part of
/// `lhs`, subgroup, dimension, width) and each bound is it with its constant added
/// (`Poly::add_constant`, which fails past `MAX_TERMS` exactly when the whole sum does). Equal
/// bounds are one shared polynomial (every use compares them by value).
#[derive(Default)]
pub(super) struct BoundMemo {
    /// Per conjunct: the distinct symbolic parts of its `lhs`.
    syms: FxHashMap<Id, Vec<Poly>>,
    /// `lhs ± v` without constant, per what it depends on.
    bases: FxHashMap<BaseKey, Option<Poly>>,
    /// The bound, per what its non-constant part depends on and its constant.
    bounds: FxHashMap<(BaseKey, i64), Rc<Poly>>,
}

/// What the non-constant part of a bound `lhs ± v` depends on (see [`BoundMemo`]).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
struct BaseKey {
    /// The conjunct (its comparison's id).
    conjunct: Id,
    /// The index of `lhs`'s symbolic part among the conjunct's.
    sym: usize,
    /// The subgroup of `v`.
    subgroup: usize,
    /// The dimension of `v`: 0 rows, 1 columns.
    dim: u8,
    /// The width of `v` (the mask's).
    width: u32,
}

impl BoundMemo {
    /// `lhs`'s symbolic part (its index among conjunct `cmp`'s) and constant.
    pub(super) fn split(&mut self, cmp: Id, lhs: &Poly) -> (Option<usize>, i64) {
        let Coef::Same(c) = lhs.constant_part() else {
            return (None, 0);
        };
        let sym = lhs.with_constant_part(Coef::Same(0));
        let seen = self.syms.entry(cmp).or_default();
        let i = match seen.iter().position(|p| p.same_as(&sym)) {
            Some(i) => i,
            None => {
                seen.push(sym);
                seen.len() - 1
            }
        };
        (Some(i), c)
    }

    /// `b - a + v` (`a < b`) or `a - v` (`a ≥ 0`) for conjunct `cmp` at one invocation (`lt`),
    /// `v` of subgroup and dimension `at`: what the polynomial arithmetic gives (`None` when
    /// it has too many terms).
    pub(super) fn bound(
        &mut self,
        cmp: Id,
        lt: &LaneTerms,
        at: (usize, u8),
        v: &Poly,
    ) -> Option<Rc<Poly>> {
        let lhs = lt.d.as_ref().unwrap_or(&lt.av);
        let less = lt.d.is_some();
        let (Some(sym), Coef::Same(cv)) = (lt.sym, v.constant_part()) else {
            let whole = if less { lhs.add(v) } else { lhs.sub(v) };
            return whole.map(Rc::new);
        };
        let c = if less {
            lt.cst.wrapping_add(cv)
        } else {
            lt.cst.wrapping_sub(cv)
        };
        let c = spvopt_analysis::lane_map::sext(c, lhs.width);
        let base_key = BaseKey {
            conjunct: cmp,
            sym,
            subgroup: at.0,
            dim: at.1,
            width: v.width,
        };
        let key = (base_key, c);
        if let Some(b) = self.bounds.get(&key) {
            return Some(b.clone());
        }
        let base = self.bases.entry(base_key).or_insert_with(|| {
            let vs = v.with_constant_part(Coef::Same(0));
            let ls = &self.syms[&cmp][sym];
            if less {
                ls.add(&vs)
            } else {
                ls.sub(&vs)
            }
        });
        let b = Rc::new(base.as_ref()?.add_constant(c)?);
        self.bounds.insert(key, b.clone());
        Some(b)
    }
}
