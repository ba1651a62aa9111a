//! The per-element bound polynomials of `Planner::bounds`, computed once per value: a
//! conjunct's terms at one invocation (`LaneTerms`), and the bounds `lhs ± v` built from them
//! (`BoundMemo`) as [`BoundRef`]s into a table of the distinct polynomials (`PolyTable`), so
//! that an element's bound is two integers, compared without looking at polynomials.

use std::hash::{Hash, Hasher};

use smallvec::SmallVec;
use spvopt_analysis::fxhash::{FxHashMap, FxHasher};
use spvopt_analysis::lane_map::{sext, Coef, Poly};
use spvopt_ir::Id;

/// A conjunct at one invocation (see `Planner::bounds`): `a`, `b - a` (for `a < b`), and the
/// index of the symbolic part (every term but the constant) of `b - a` (`a` for `a ≥ 0`)
/// among the conjunct's distinct ones, with its constant (`None` when the constant is a
/// per-invocation table: then the bounds are computed whole).
pub(super) struct LaneTerms {
    pub(super) av: Poly,
    pub(super) d: Option<Poly>,
    pub(super) sym: Option<usize>,
    pub(super) cst: i64,
}

/// A polynomial of a [`PolyTable`] by value: entry `id` plus the constant `c`. Canonical, so
/// that two are equal exactly when their polynomials are: an entry is either without a
/// constant term and lane-invariant in its constant (`c` the polynomial's constant,
/// sign-extended at its width), or has a per-invocation constant (`c` 0); entries are
/// distinct by value.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub(super) struct BoundRef {
    id: u32,
    c: i64,
}

/// Distinct polynomials (see [`BoundRef`]).
#[derive(Default)]
pub(super) struct PolyTable {
    polys: Vec<Poly>,
    /// Per hash of a polynomial's value: the entries of that hash.
    by_hash: FxHashMap<u64, SmallVec<[u32; 2]>>,
}

/// A hash of a polynomial's value: of what [`Poly::same_as`] compares (terms are canonical).
fn value_hash(p: &Poly) -> u64 {
    let mut h = FxHasher::default();
    (p.width, p.lanes).hash(&mut h);
    for (m, c) in p.terms() {
        m.as_slice().hash(&mut h);
        match c {
            Coef::Same(v) => (0u8, *v).hash(&mut h),
            Coef::Lanes(t) => (1u8, &t[..]).hash(&mut h),
        }
    }
    h.finish()
}

impl PolyTable {
    /// The entry equal to `p`, added when there is none.
    fn intern(&mut self, p: Poly) -> u32 {
        let Self { polys, by_hash } = self;
        let ids = by_hash.entry(value_hash(&p)).or_default();
        if let Some(&i) = ids.iter().find(|&&i| polys[i as usize].same_as(&p)) {
            return i;
        }
        let i = polys.len() as u32;
        polys.push(p);
        ids.push(i);
        i
    }

    /// `v` as a reference (canonical: see [`BoundRef`]).
    fn reference(&mut self, v: Poly) -> BoundRef {
        match v.constant_part() {
            Coef::Same(c) => BoundRef {
                id: self.intern(v.with_constant_part(Coef::Same(0))),
                c,
            },
            Coef::Lanes(_) => BoundRef {
                id: self.intern(v),
                c: 0,
            },
        }
    }

    /// The polynomial `r` stands for.
    pub(super) fn poly(&self, r: BoundRef) -> Poly {
        self.polys[r.id as usize]
            .add_constant(r.c)
            .expect("a reference is made only when the sum fits")
    }

    /// Whether `r` is the polynomial 0 (has no terms).
    pub(super) fn is_zero(&self, r: BoundRef) -> bool {
        r.c == 0 && self.polys[r.id as usize].terms().is_empty()
    }

    /// `r`'s constant when it is the same number for every invocation (`Poly::as_constant`).
    pub(super) fn as_constant(&self, r: BoundRef) -> Option<i64> {
        let p = &self.polys[r.id as usize];
        if r.c == 0 {
            p.as_constant()
        } else {
            // An entry with `c ≠ 0` has no constant term.
            p.terms().is_empty().then_some(r.c)
        }
    }

    /// `r - first` at `first`'s width when it is a constant (`Poly::constant_offset_at` at
    /// invocation 0). Of one lane-invariant entry the difference of the constants (the
    /// non-constant terms cancel; the entry has no constant term); else computed.
    pub(super) fn constant_offset(
        &self,
        r: BoundRef,
        first: BoundRef,
        first_poly: &Poly,
    ) -> Option<i64> {
        let p = &self.polys[r.id as usize];
        if r.id == first.id && p.is_lane_invariant() {
            return Some(sext(r.c.wrapping_sub(first.c), p.width));
        }
        self.poly(r).constant_offset_at(first_poly, 0)
    }
}

/// The bounds `lhs + v` (`a < b`, `lhs = b - a`) and `lhs - v` (`a ≥ 0`, `lhs = a`) of
/// `Planner::bounds`, for `v` the row `Yr` or column `Xc` of an element at the mask's width.
/// Exact: the terms of a sum are the merge of the operands' non-constant terms (which do not
/// depend on the row, the column or the invocation's constant) plus the sum of the
/// constants, so the non-constant part is computed once per (conjunct, symbolic part of
/// `lhs`, subgroup, dimension, width) and each bound is it with its constant added (which
/// fits in `MAX_TERMS` exactly when the whole sum does: `Poly::add_constant_fits`).
#[derive(Default)]
pub(super) struct BoundMemo {
    /// Per conjunct: the distinct symbolic parts of its `lhs`.
    syms: FxHashMap<Id, Vec<Poly>>,
    /// `lhs ± v` without constant (its table entry), per what it depends on (`None`: too
    /// many terms).
    bases: FxHashMap<BaseKey, Option<u32>>,
    /// The bounds' polynomials.
    pub(super) table: PolyTable,
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

/// The row (column) `v = origin + k` at width `wd` (`origin.add_constant(k).with_width(wd)`).
pub(super) struct Along<'p> {
    pub(super) origin: &'p Poly,
    pub(super) k: i64,
    pub(super) wd: u32,
}

impl Along<'_> {
    /// `v`, when it is a polynomial (at most `MAX_TERMS` terms).
    fn poly(&self) -> Option<Poly> {
        Some(self.origin.add_constant(self.k)?.with_width(self.wd))
    }

    /// `v`'s constant when it is one number for every invocation: the origin's plus `k` at
    /// the origin's width (what `add_constant` adds), truncated to `wd` when narrower (what
    /// `with_width` does to it).
    fn constant(&self) -> Option<i64> {
        let Coef::Same(oc) = self.origin.constant_part() else {
            return None;
        };
        let w = self.origin.width;
        let c = sext(oc.wrapping_add(sext(self.k, w)), w);
        Some(if self.wd < w { sext(c, self.wd) } else { c })
    }
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
    /// `v` or the bound has too many terms).
    pub(super) fn bound(
        &mut self,
        cmp: Id,
        lt: &LaneTerms,
        at: (usize, u8),
        v: Along,
    ) -> Option<BoundRef> {
        if !v.origin.add_constant_fits(v.k) {
            return None;
        }
        let lhs = lt.d.as_ref().unwrap_or(&lt.av);
        let less = lt.d.is_some();
        let (Some(sym), Some(cv)) = (lt.sym, v.constant()) else {
            let v = v.poly()?;
            let whole = if less { lhs.add(&v) } else { lhs.sub(&v) };
            return Some(self.table.reference(whole?));
        };
        let c = if less {
            lt.cst.wrapping_add(cv)
        } else {
            lt.cst.wrapping_sub(cv)
        };
        let c = sext(c, lhs.width);
        let base_key = BaseKey {
            conjunct: cmp,
            sym,
            subgroup: at.0,
            dim: at.1,
            width: v.wd,
        };
        let id = match self.bases.get(&base_key) {
            Some(id) => *id,
            None => {
                let vs = v.poly()?.with_constant_part(Coef::Same(0));
                let ls = &self.syms[&cmp][sym];
                let base = if less { ls.add(&vs) } else { ls.sub(&vs) };
                let id = base.map(|b| self.table.intern(b));
                self.bases.insert(base_key, id);
                id
            }
        }?;
        // The base has no constant term: the bound is it plus `c`, canonical.
        self.table.polys[id as usize]
            .add_constant_fits(c)
            .then_some(BoundRef { id, c })
    }
}
