//! The bounds of a planned 2D block load: the surface height and width its elements' masks
//! state (row and column bounds, uniform conditions kept as a select), or, for a dimension no
//! mask bounds, what bounds it anyway (a `% M` remainder the lane map took as its dividend,
//! a loop's trip count), with the run-time checks each needs (see `plan.rs`).

use std::ops::Range;
use std::rc::Rc;

use spvopt_analysis::fxhash::{FxHashMap, FxHashSet};

use spirv::Op;
use spvopt_analysis::lane_map::{Coef, LaneValue, Poly};
use spvopt_ir::{Id, Module};

use super::{Element, OperandReject, Planner};
use spvopt_analysis::block_io::layout::Layout;

/// A work-group-uniform condition by value: a comparison's opcode and its operand polynomials,
/// else the condition's id (compared structurally: the same pure instruction of the same
/// operands, recursively).
enum UniformKey {
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
type MaskKey = (Id, bool, [Option<(Id, bool)>; 2]);

/// One conjunct of a mask.
#[derive(Clone, Copy, Debug)]
enum Conjunct {
    /// A work-group-uniform condition.
    Uniform(Id),
    /// `a < b` (signed), with the comparison's id.
    Less(Id, Id, Id),
    /// `a ≥ 0`, with the comparison's id.
    NonNeg(Id, Id),
}

/// A mask conjunct of one element: for `a < b`, the bounds it puts on the row and the column
/// (`b - a + Yr`, `b - a + Xc`), for `a ≥ 0`, `a - Yr` and `a - Xc`; and `a`.
type BoundTerms = (Rc<Poly>, Rc<Poly>, Rc<Poly>);

/// Whether two shared polynomials are equal (the same allocation, or equal terms).
fn same_poly(a: &Rc<Poly>, b: &Rc<Poly>) -> bool {
    Rc::ptr_eq(a, b) || a.same_as(b)
}

/// The bounds of a planned block (see `Planner::bounds`).
pub(super) struct Bounds {
    /// Rows (64-bit).
    pub height: Poly,
    /// Columns in elements (64-bit).
    pub width: Poly,
    /// Work-group-uniform mask conjuncts.
    pub uniform: Vec<(Id, bool)>,
    /// The multiple of elements the column bound must be (checked at run time).
    pub multiple: u32,
    /// Atoms of the column origin checked ≥ 0 at run time.
    pub nonneg_checks: Vec<Id>,
    /// `(a, b)`: `a ≥ b` checked at run time.
    pub at_least: Vec<(Poly, Poly)>,
    /// The lane map's remainder assumptions a dimension's bound comes from: (remainder,
    /// dimension: 0 rows, 1 columns).
    pub assumed: Vec<(Id, usize)>,
}

/// A conjunct at one invocation (see `Planner::bounds`): `a`, `b - a` (for `a < b`), and the
/// index of the symbolic part (every term but the constant) of `b - a` (`a` for `a ≥ 0`)
/// among the conjunct's distinct ones, with its constant (`None` when the constant is a
/// per-invocation table: then the bounds are computed whole).
struct LaneTerms {
    av: Rc<Poly>,
    d: Option<Poly>,
    sym: Option<usize>,
    cst: i64,
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
struct BoundMemo {
    /// Per conjunct: the distinct symbolic parts of its `lhs`.
    syms: FxHashMap<Id, Vec<Poly>>,
    #[allow(clippy::type_complexity)]
    /// (conjunct, symbolic part, subgroup, dimension, width) -> `lhs ± v` without constant.
    bases: FxHashMap<(Id, usize, usize, u8, u32), Option<Poly>>,
    #[allow(clippy::type_complexity)]
    /// (conjunct, symbolic part, subgroup, dimension, width, constant) -> the bound.
    bounds: FxHashMap<(Id, usize, usize, u8, u32, i64), Rc<Poly>>,
}

impl BoundMemo {
    /// `lhs`'s symbolic part (its index among conjunct `cmp`'s) and constant.
    fn split(&mut self, cmp: Id, lhs: &Poly) -> (Option<usize>, i64) {
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
    fn bound(&mut self, cmp: Id, lt: &LaneTerms, at: (usize, u8), v: &Poly) -> Option<Rc<Poly>> {
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
        let key = (cmp, sym, at.0, at.1, v.width, c);
        if let Some(b) = self.bounds.get(&key) {
            return Some(b.clone());
        }
        let base = self
            .bases
            .entry((cmp, sym, at.0, at.1, v.width))
            .or_insert_with(|| {
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

impl Planner<'_> {
    /// The surface bounds the masks state (see the module documentation).
    pub(super) fn bounds(
        &self,
        lay: &Layout,
        place: &[(usize, usize, i64, i64)],
        elems: &[Vec<Option<Element>>],
        ys: &[Poly],
        xs: &[Poly],
    ) -> Result<Bounds, OperandReject> {
        let sg = lay.subgroup_size as usize;
        let n = self.lanes.lanes;
        let mut uniform: Vec<(Id, bool)> = Vec::new();
        let mut uniform_set: Option<Vec<UniformKey>> = None;
        let mut nonneg_uniform: Vec<Poly> = Vec::new();
        // Per masked element: its `a < b` conjuncts as (bound on Yr, bound on Xc, a) and its
        // `a ≥ 0` conjuncts as (a - Yr, a - Xc, a), as ranges of `less` and `nonneg` (the
        // polynomials shared: elements of one conjunct value and row or column have the same).
        let mut less: Vec<BoundTerms> = Vec::new();
        // Per entry of `less`: the element's column `Xc` (its vector's first column must be
        // a multiple of the vector, not only the mask operand `a`).
        let mut less_col: Vec<Rc<Poly>> = Vec::new();
        let mut col_cache: FxHashMap<(usize, i64, u32), Rc<Poly>> = FxHashMap::default();
        let mut nonneg: Vec<BoundTerms> = Vec::new();
        let mut per_elem: Vec<(Range<usize>, Range<usize>)> = Vec::new();
        let mut cache: FxHashMap<Id, Vec<Conjunct>> = FxHashMap::default();
        // Per mask (condition, polarity, further conditions): its conjuncts.
        let mut mask_cache: FxHashMap<MaskKey, Rc<[Conjunct]>> = FxHashMap::default();
        // Per conjunct and invocation: `a`, `b - a`, and which of the conjunct's distinct
        // symbolic parts of `b - a` (`a` for `a ≥ 0`) it is, with its constant (the bounds
        // depend on those only).
        let mut lane_cache: FxHashMap<(Id, u32), LaneTerms> = FxHashMap::default();
        let mut memo = BoundMemo::default();
        // `Yr` (`Xc`) at a width: per subgroup, dimension, row (column) and width.
        let mut along_cache: FxHashMap<(usize, u8, i64, u32), Poly> = FxHashMap::default();
        let mut masked = 0usize;
        let mut unmasked: Vec<(usize, i64, i64, u32)> = Vec::new();
        for (s, (y, x)) in ys.iter().zip(xs).enumerate() {
            for &(l, k, row, col) in place {
                let Some(el) = elems[s * sg + l][k].as_ref() else {
                    continue;
                };
                let Some((cond, polarity, w)) = el.mask else {
                    unmasked.push((s, row, col, el.writer));
                    continue;
                };
                // The mask's conjuncts and its uniform conditions depend on the mask alone:
                // worked out at its first element (in element order, so the first reason to
                // reject is the same as element by element), the rest share them.
                let key = (cond, polarity, el.also);
                let conjuncts = match mask_cache.get(&key) {
                    Some(c) => c.clone(),
                    None => {
                        let c = self.mask_conjuncts(
                            (cond, polarity),
                            &el.also,
                            &mut cache,
                            &mut uniform_set,
                            &mut uniform,
                            &mut nonneg_uniform,
                        )?;
                        mask_cache.insert(key, c.clone());
                        c
                    }
                };
                masked += 1;
                let starts = (less.len(), nonneg.len());
                for &c in conjuncts.iter() {
                    let (cmp, a, b, is_less) = match c {
                        Conjunct::Uniform(_) => continue,
                        Conjunct::Less(cmp, a, b) => (cmp, a, Some(b), true),
                        Conjunct::NonNeg(cmp, a) => (cmp, a, None, false),
                    };
                    // `a` and `b - a` at invocation `w`, once per conjunct and invocation.
                    let lt = match lane_cache.entry((cmp, w)) {
                        std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
                        std::collections::hash_map::Entry::Vacant(e) => {
                            let av = Rc::new(self.poly_of(a)?.at_lane(w as usize));
                            let d = match b {
                                Some(b) => Some(
                                    self.poly_of(b)?
                                        .at_lane(w as usize)
                                        .sub(&av)
                                        .ok_or(OperandReject::MaskNotABound)?,
                                ),
                                None => None,
                            };
                            let (sym, cst) = memo.split(cmp, d.as_ref().unwrap_or(&av));
                            e.insert(LaneTerms { av, d, sym, cst })
                        }
                    };
                    let (av, wd) = (&lt.av, lt.av.width);
                    // Narrow masks wrap where the lane map's polynomials do not (the 32-bit
                    // ones cannot within a surface under 2^31 bytes, which the check demands).
                    if wd < 32 {
                        return Err(OperandReject::NarrowMask);
                    }
                    // For `a < b`: the bound on Yr (b - a + Yr) and on Xc (b - a + Xc); for
                    // `a ≥ 0`: a - Yr and a - Xc; `Yr` (`Xc`) once per subgroup, row (column)
                    // and width, the bounds once per value (`BoundMemo`).
                    let mut along = |dim: u8, k: i64| -> Result<Rc<Poly>, OperandReject> {
                        let v = match along_cache.entry((s, dim, k, wd)) {
                            std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
                            std::collections::hash_map::Entry::Vacant(e) => {
                                let origin = if dim == 0 { y } else { x };
                                e.insert(
                                    origin
                                        .add_constant(k)
                                        .ok_or(OperandReject::MaskNotABound)?
                                        .with_width(wd),
                                )
                            }
                        };
                        memo.bound(cmp, lt, (s, dim), v)
                            .ok_or(OperandReject::MaskNotABound)
                    };
                    let rv = along(0, row)?;
                    let cv = along(1, col)?;
                    let av = av.clone();
                    if is_less {
                        less.push((rv, cv, av));
                        let xc = match col_cache.entry((s, col, wd)) {
                            std::collections::hash_map::Entry::Occupied(e) => e.get().clone(),
                            std::collections::hash_map::Entry::Vacant(e) => {
                                let v = along_cache
                                    .get(&(s, 1, col, wd))
                                    .cloned()
                                    .ok_or(OperandReject::MaskNotABound)?;
                                e.insert(Rc::new(v)).clone()
                            }
                        };
                        less_col.push(xc);
                    } else {
                        nonneg.push((rv, cv, av));
                    }
                }
                per_elem.push((starts.0..less.len(), starts.1..nonneg.len()));
            }
        }
        let mut row_bound: Option<Poly> = None;
        let mut col_bound: Option<Poly> = None;
        let mut guards: Vec<(Poly, Poly)> = Vec::new();
        let mut assumed: Vec<(Id, usize)> = Vec::new();
        if !unmasked.is_empty() && masked > 0 {
            // Masked and unmasked elements in one operand.
            return Err(OperandReject::MixedMasks);
        }
        let mut row_lower = false;
        let mut multiple = 1u32;
        // The row bound: a bound on Yr every element's mask states.
        let mut cands: Vec<Rc<Poly>> = per_elem
            .first()
            .map(|e| less[e.0.clone()].iter().map(|c| c.0.clone()).collect())
            .unwrap_or_default();
        for e in &per_elem[1.min(per_elem.len())..] {
            cands.retain(|r| less[e.0.clone()].iter().any(|c| same_poly(&c.0, r)));
        }
        let mut chosen = None;
        // Per shared column bound: its offset from the first and its atom's trailing zeros.
        let mut offsets: FxHashMap<*const Poly, Option<i64>> = FxHashMap::default();
        let mut zeros: FxHashMap<*const Poly, u32> = FxHashMap::default();
        for rb in cands
            .iter()
            .chain(std::iter::once(&Rc::new(Poly::constant(i64::MIN, 64, n))))
        {
            let is_none = rb.as_constant() == Some(i64::MIN);
            // Every other `a < b` is a column bound: Bc + t with 0 ≤ t < V.
            let mut cols: Vec<(Rc<Poly>, Rc<Poly>, Rc<Poly>)> = Vec::new();
            let mut ok = true;
            for e in &per_elem {
                for ((rv, cv, a), xc) in less[e.0.clone()].iter().zip(&less_col[e.0.clone()]) {
                    if !is_none && same_poly(rv, rb) {
                        continue;
                    }
                    if cols.len() > 4096 {
                        ok = false;
                    }
                    cols.push((cv.clone(), a.clone(), xc.clone()));
                }
            }
            if !ok {
                continue;
            }
            if cols.is_empty() {
                chosen = Some(((!is_none).then(|| (**rb).clone()), None, 1u32));
                break;
            }
            let first = cols[0].0.clone();
            offsets.clear();
            let offs: Option<Vec<i64>> = cols
                .iter()
                .map(|(c, _, _)| {
                    *offsets
                        .entry(Rc::as_ptr(c))
                        .or_insert_with(|| c.constant_offset_at(&first, 0))
                })
                .collect();
            let Some(offs) = offs else { continue };
            let (lo, hi) = (
                *offs.iter().min().unwrap_or(&0),
                *offs.iter().max().unwrap_or(&0),
            );
            if hi - lo >= 64 {
                continue;
            }
            let v = ((hi - lo + 1) as u64).next_power_of_two() as u32;
            if v > 1
                && cols.iter().any(|(_, a, _)| {
                    let tz = *zeros
                        .entry(Rc::as_ptr(a))
                        .or_insert_with(|| self.lanes.trailing_zeros(a));
                    tz < v.trailing_zeros()
                })
            {
                return Err(OperandReject::Misaligned);
            }
            // The vector's first element (the least bound, offset `lo`) must sit at a column
            // that is a multiple of V too: the mask `a < b` tests the vector's `a`, the block
            // bound `B = b + (c0 - a)` its first column `c0`; with `a`, `c0` and `B` multiples
            // of V, `a < b` iff `c0 + t < B` for every `t < V`. A vector read at `a + 2` under
            // the mask of `a` is not bounded by it (columns `b .. b+1` of the original are
            // read, the block would return 0 there).
            if v > 1
                && cols.iter().zip(&offs).any(|((_, _, xc), &o)| {
                    o == lo && {
                        let tz = *zeros
                            .entry(Rc::as_ptr(xc))
                            .or_insert_with(|| self.lanes.trailing_zeros(xc));
                        tz < v.trailing_zeros()
                    }
                })
            {
                return Err(OperandReject::VectorOffsetFromMask);
            }
            // The vector at c0 is loaded iff c0 < B; element c0 + t is in bounds iff c0 + t < B:
            // the same when c0 and B are multiples of V (B is checked at run time).
            let bc = first.add_constant(lo).ok_or(OperandReject::MaskNotABound)?;
            chosen = Some(((!is_none).then(|| (**rb).clone()), Some(bc), v));
            break;
        }
        if masked > 0 {
            let Some((rb, cb, v)) = chosen else {
                return Err(OperandReject::MaskNotABound);
            };
            row_bound = rb;
            col_bound = cb;
            multiple = multiple.max(v);
        }
        // `a ≥ 0` conjuncts: the row (a = Yr) or the vector's first column (a = Xc - t, the
        // vector start a multiple of the vector's span, so a ≥ 0 iff Xc ≥ 0).
        let mut col_lower_all = !per_elem.is_empty();
        for e in &per_elem {
            let mut has_col_lower = false;
            for (dr, dc, a) in &nonneg[e.1.clone()] {
                if dr.terms().is_empty() {
                    row_lower = true;
                } else if let Some(t) = dc.as_constant().filter(|t| (-63..=0).contains(t)) {
                    let v = ((1 - t) as u64).next_power_of_two();
                    if self.lanes.trailing_zeros(a) < v.trailing_zeros() {
                        return Err(OperandReject::Misaligned);
                    }
                    has_col_lower = true;
                } else {
                    return Err(OperandReject::MaskNotABound);
                }
            }
            col_lower_all &= has_col_lower;
        }
        let col_lower = col_lower_all;
        let _ = &per_elem;
        // A dimension no mask bounds: the kernel reads those elements whenever it reads the
        // element at all, so every one must be inside the surface: a remainder the lane map took
        // as its dividend (`offs % M` < M) or a value growing with a loop counter of known trip
        // count.
        if row_bound.is_none() || col_bound.is_none() {
            let mut all: Vec<(usize, i64, i64, u32)> = unmasked.clone();
            for (s, _) in ys.iter().enumerate() {
                for &(l, k, row, col) in place {
                    if let Some(Element {
                        mask: Some((_, _, w)),
                        ..
                    }) = elems[s * sg + l][k].as_ref()
                    {
                        all.push((s, row, col, *w));
                    }
                }
            }
            for dim in 0..2 {
                if (dim == 0 && row_bound.is_some()) || (dim == 1 && col_bound.is_some()) {
                    continue;
                }
                let (b, g, v, from) = self.implied_bound(dim, &all, ys, xs)?;
                guards.extend(g);
                assumed.extend(from.into_iter().map(|r| (r, dim)));
                if dim == 1 {
                    multiple = multiple.max(v);
                }
                if dim == 0 {
                    row_bound = Some(b);
                } else {
                    col_bound = Some(b);
                }
            }
        }
        // Rows below 0 need no mask: with the column in 0..width ≤ pitch their address is
        // below the base, which the kernel may not read. Columns below 0 (in a row ≥ 1) are
        // in the buffer, so the masks must exclude them or they must not occur: the origin's
        // symbolic part is a sum of non-negative terms (an atom a mask requires ≥ 0, a loop
        // counter that only grows, or an atom checked ≥ 0 at run time) and the rest ≥ 0.
        let mut nonneg_checks: Vec<Id> = Vec::new();
        if !col_lower {
            for x in xs {
                let cst = x.constant_part();
                if (0..n).any(|l| cst.at(l) < 0) {
                    return Err(OperandReject::NoBound);
                }
                for (mono, c) in x.terms() {
                    if mono.is_empty() {
                        continue;
                    }
                    let Coef::Same(c) = c else {
                        return Err(OperandReject::NoBound);
                    };
                    let [a] = mono.as_slice() else {
                        return Err(OperandReject::NoBound);
                    };
                    if *c < 0 {
                        return Err(OperandReject::NoBound);
                    }
                    let atom = Poly::atom(*a, 64, n);
                    let by_mask = nonneg_uniform
                        .iter()
                        .any(|v| v.with_width(64).same_as(&atom));
                    if by_mask || self.lanes.is_nonneg_counter(self.m, *a) {
                        continue;
                    }
                    if !nonneg_checks.contains(a) {
                        nonneg_checks.push(*a);
                    }
                }
            }
        }
        let (Some(rb), Some(cb)) = (row_bound, col_bound) else {
            return Err(OperandReject::NoBound);
        };
        let _ = row_lower;
        Ok(Bounds {
            height: rb.with_width(64),
            width: cb.with_width(64),
            uniform,
            multiple,
            nonneg_checks,
            at_least: guards,
            assumed,
        })
    }

    /// A bound every element's row (`dim` 0) or column (1) is below (see `bounds`), with the
    /// run-time checks it needs and the multiple of elements the bound must be (checked at
    /// run time).
    #[allow(clippy::type_complexity)]
    fn implied_bound(
        &self,
        dim: usize,
        elems: &[(usize, i64, i64, u32)],
        ys: &[Poly],
        xs: &[Poly],
    ) -> Result<(Poly, Option<(Poly, Poly)>, u32, Vec<Id>), OperandReject> {
        let mut bound: Option<Poly> = None;
        let mut from: Vec<Id> = Vec::new();
        let mut span = 0i64;
        let mut min_tz = u32::MAX;
        let mut via_counter: Vec<(Poly, i64)> = Vec::new();
        // (Once per subgroup and row or column: the same value gives the same entry.)
        let mut counted: FxHashSet<(usize, i64)> = FxHashSet::default();
        let mut along: FxHashMap<(usize, i64), Poly> = FxHashMap::default();
        // What `assumed_bound` gives per subgroup, row (column) and invocation.
        let mut tz: FxHashMap<(usize, u32), u32> = FxHashMap::default();
        #[allow(clippy::type_complexity)]
        let mut assumed: FxHashMap<(usize, i64, u32), Option<(Poly, i64, u32, Id)>> =
            FxHashMap::default();
        for &(s, row, col, w) in elems {
            let k = if dim == 0 { row } else { col };
            let v = match along.entry((s, k)) {
                std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
                std::collections::hash_map::Entry::Vacant(e) => {
                    let origin = if dim == 0 { &ys[s] } else { &xs[s] };
                    e.insert(origin.add_constant(k).ok_or(OperandReject::NoBound)?)
                }
            };
            let by_assumption = assumed
                .entry((s, k, w))
                .or_insert_with(|| self.assumed_bound(v, w, &mut tz));
            if let Some((b, t, tz, r)) = by_assumption {
                let (t, tz, r) = (*t, *tz, *r);
                match &bound {
                    Some(x) if !x.same_as(b) => return Err(OperandReject::MixedMasks),
                    // The same bound: keeping it is taking this one.
                    Some(_) => {}
                    None => bound = Some(b.clone()),
                }
                if !from.contains(&r) {
                    from.push(r);
                }
                // Element `a + t` of a vector read at column `a` (`a < b`): below `b` when
                // `a` and `b` are multiples of the vector's span.
                span = span.max(t + 1);
                min_tz = min_tz.min(tz);
                if dim == 0 && t != 0 {
                    return Err(OperandReject::NoBound);
                }
                continue;
            }
            if counted.insert((s, k)) {
                via_counter.push((v.with_constant_part(Coef::Same(0)), v.constant_part().at(0)));
            }
        }
        let multiple = (span.max(1) as u64).next_power_of_two() as u32;
        if span > 1 && multiple.trailing_zeros() > min_tz {
            return Err(OperandReject::Misaligned);
        }
        if via_counter.is_empty() {
            return bound
                .map(|b| (b, None, multiple, from))
                .ok_or(OperandReject::NoBound);
        }
        if bound.is_some() {
            return Err(OperandReject::MixedMasks);
        }
        let sym = via_counter[0].0.clone();
        if via_counter.iter().any(|(p, _)| !p.same_as(&sym)) {
            return Err(OperandReject::NoBound);
        }
        let max_c = via_counter.iter().map(|(_, c)| *c).max().unwrap_or(0);
        let (b, g) = self
            .counter_bound(&sym, max_c)
            .ok_or(OperandReject::NoBound)?;
        Ok((b, Some(g), 1, Vec::new()))
    }

    /// `(b, t, z)` when `v` (a row or column of invocation `w`'s element, 64-bit) is `a + t`
    /// (`0 ≤ t < 64`) for a remainder's dividend `a` the lane map took under `0 ≤ a < b`; `z`:
    /// the trailing zero bits `a` is known to have.
    /// The assumption with the smallest `t` is taken (each is sound on its own).
    /// (`tz`: the trailing zeros of `a` per assumption and invocation, filled as needed; only
    /// the taken assumption's are computed.)
    fn assumed_bound(
        &self,
        v: &Poly,
        w: u32,
        tz: &mut FxHashMap<(usize, u32), u32>,
    ) -> Option<(Poly, i64, u32, Id)> {
        // The first assumption of the least `t` (what `min_by_key` takes).
        let mut best: Option<(usize, i64)> = None;
        for (i, (_, a, _)) in self.lanes.assumptions.iter().enumerate() {
            let Some(t) = v.constant_offset_at(a, w as usize) else {
                continue;
            };
            if (0..64).contains(&t) && best.is_none_or(|(_, bt)| t < bt) {
                best = Some((i, t));
            }
        }
        let (i, t) = best?;
        let (r, a, b) = &self.lanes.assumptions[i];
        let z = *tz
            .entry((i, w))
            .or_insert_with(|| self.lanes.trailing_zeros(&a.at_lane(w as usize)));
        Some((b.with_width(64), t, z, *r))
    }

    /// For `sym + c` with `sym = u·q` (u > 0 constant, q a counter of its loop starting at a
    /// constant ≥ 0 and running while `q + 1 ≠ T` or `q + sq < T`): every value is below
    /// `u·T + (c + 1 - u)`, given `T ≥ q0 + 1` (returned as a check: (T, q0 + 1)).
    fn counter_bound(&self, sym: &Poly, c: i64) -> Option<(Poly, (Poly, Poly))> {
        let [(mono, Coef::Same(u))] = sym.terms() else {
            return None;
        };
        let [q] = mono.as_slice() else { return None };
        if *u <= 0 || !self.lanes.is_nonneg_counter(self.m, *q) {
            return None;
        }
        let (_, q0, sq) = self.lanes.inductions.iter().find(|(p, _, _)| p == q)?;
        let (q0, sq) = (q0.as_constant()?, sq.as_constant()?);
        let phi = self.m.def_inst(*q)?;
        let header = self.m.inst_block(self.m.def(*q)?)?;
        // The back-edge value and the latch's exit test.
        let mut next = None;
        for pair in phi.operands().chunks(2) {
            let (v, label) = (Id::new(pair[0])?, Id::new(pair[1])?);
            let pred = self.m.def(label).and_then(|l| self.m.inst_block(l))?;
            if let Some(t) = self.m.block_terminator(pred) {
                let term = self.m.inst(t);
                if term.is(Op::BranchConditional)
                    && term.operands()[1..].contains(&self.m.block_label(header).word())
                {
                    next = Some((v, term.to_owned()));
                }
            }
        }
        let (v, term) = next?;
        let cond = self.m.def_inst(term.operand_id(0)?)?;
        let (x, t) = (cond.operand_id(0)?, cond.operand_id(1)?);
        if x != v {
            return None;
        }
        let stays_on_true = term.operand_id(1)? == self.m.block_label(header);
        let ok = match cond.op()? {
            Op::IEqual => !stays_on_true && sq == 1,
            Op::INotEqual => stays_on_true && sq == 1,
            Op::SLessThan => stays_on_true && sq > 0,
            _ => false,
        };
        if !ok {
            return None;
        }
        let tp = self.poly_of(t).ok()?;
        if !tp.is_lane_invariant() {
            return None;
        }
        let tp = tp.with_width(64);
        let bound = tp.scale(*u).add_constant(c + 1 - u)?;
        Some((bound, (tp, Poly::constant(q0 + 1, 64, self.lanes.lanes))))
    }

    fn poly_of(&self, id: Id) -> Result<Poly, OperandReject> {
        if let Some(p) = self.lanes.poly(id) {
            return Ok(p.clone());
        }
        let v = self
            .m
            .const_int_value(id)
            .ok_or(OperandReject::MaskNotABound)?;
        let w = self
            .m
            .type_of(id)
            .and_then(|t| spvopt_analysis::types::int_width(self.m, t))
            .ok_or(OperandReject::MaskNotABound)?;
        Ok(Poly::constant(
            spvopt_analysis::lane_map::sext(v as i64, w),
            w,
            self.lanes.lanes,
        ))
    }

    /// The conjuncts of one mask (its condition and the further ones of a nested mask), the
    /// work-group-uniform ones checked against the first mask's (`uniform_set`) and recorded
    /// in `uniform` and `nonneg_uniform`.
    fn mask_conjuncts(
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

    /// `v` when `cond` is the uniform `v > -1` or `v ≥ 0`.
    fn nonneg_operand(&self, cond: Id) -> Option<Poly> {
        let inst = self.m.def_inst(cond)?;
        let (a, b) = (inst.operand_id(0)?, inst.operand_id(1)?);
        let c = |id| self.poly_of(id).ok().and_then(|p| p.as_constant());
        match inst.op()? {
            Op::SGreaterThan if c(b) == Some(-1) => self.poly_of(a).ok(),
            Op::SGreaterThanEqual if c(b) == Some(0) => self.poly_of(a).ok(),
            Op::SLessThan if c(a) == Some(-1) => self.poly_of(b).ok(),
            Op::SLessThanEqual if c(a) == Some(0) => self.poly_of(b).ok(),
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
            _ => Err(OperandReject::MaskNotABound),
        }
    }
}
