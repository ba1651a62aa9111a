//! The bounds of a planned 2D block load: the surface height and width its elements' masks
//! state (row and column bounds, uniform conditions kept as a select), or, for a dimension no
//! mask bounds, what bounds it anyway (a `% M` remainder the lane map took as its dividend,
//! a loop's trip count), with the run-time checks each needs (see `plan.rs`). The masks are
//! taken apart in `bounds/masks.rs`, the per-element bound polynomials are memoized in
//! `bounds/memo.rs`, and the bounds no mask states are proven in `bounds/implied.rs`.

use std::ops::Range;
use std::rc::Rc;

use spvopt_analysis::block_io::layout::Layout;
use spvopt_analysis::fxhash::FxHashMap;
use spvopt_analysis::lane_map::{Coef, Poly};
use spvopt_ir::Id;

use super::{Element, OperandReject, Planner};
use crate::raise_block_io::obligation::Obligation;

mod implied;
mod masks;
mod memo;

use implied::ImpliedBound;
use masks::{Conjunct, MaskKey, UniformKey};
use memo::{Along, BoundMemo, BoundRef, LaneTerms};

/// A mask conjunct of one element: for `a < b`, the bounds it puts on the row and the column
/// (`b - a + Yr`, `b - a + Xc`), for `a ≥ 0`, `a - Yr` and `a - Xc` (in the memo's table);
/// and `a` (the index of the conjunct's terms at the element's invocation).
type BoundTerms = (BoundRef, BoundRef, u32);

/// A column bound of `Planner::stated_bounds`: the bound, the mask operand `a` (as in
/// [`BoundTerms`]) and the element's column.
type ColumnBound = (BoundRef, u32, ColumnAt);

/// The column `Xc` of an element at the mask's width (`X + col` of subgroup `s`, at `width`).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
struct ColumnAt {
    s: usize,
    col: i64,
    width: u32,
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

/// A planned block's elements as `bounds` reads them: per subgroup `s`, lane `l` and operand
/// element `k` (`place`: lane, element, row, column), `elems[s·sg + l][k]`; and the origins.
struct BlockElems<'e> {
    sg: usize,
    place: &'e [(usize, usize, i64, i64)],
    elems: &'e [Vec<Option<Element>>],
    ys: &'e [Poly],
    xs: &'e [Poly],
}

/// What the masks of a block's elements state (`Planner::mask_terms`): per masked element its
/// `a < b` conjuncts as (bound on Yr, bound on Xc, a) and its `a ≥ 0` conjuncts as
/// (a - Yr, a - Xc, a), as ranges of `less` and `nonneg` (the bounds by value in
/// `caches.memo.table`, `a` in `caches.lane_terms`); per entry of `less` the element's column
/// `Xc` (its vector's first column must be a multiple of the vector, not only the mask operand
/// `a`); the uniform conjuncts; and the unmasked elements (subgroup, row, column, writer).
#[derive(Default)]
struct MaskTerms {
    uniform: Vec<(Id, bool)>,
    uniform_set: Option<Vec<UniformKey>>,
    nonneg_uniform: Vec<Poly>,
    less: Vec<BoundTerms>,
    less_col: Vec<ColumnAt>,
    nonneg: Vec<BoundTerms>,
    per_elem: Vec<(Range<usize>, Range<usize>)>,
    masked: usize,
    unmasked: Vec<(usize, i64, i64, u32)>,
    caches: TermCaches,
}

impl MaskTerms {
    /// `a` of a conjunct term (see [`BoundTerms`]).
    fn a(&self, lane: u32) -> &Poly {
        &self.caches.lane_terms[lane as usize].av
    }
}

/// The memo tables of `Planner::mask_terms`.
#[derive(Default)]
struct TermCaches {
    /// Per condition: its conjuncts.
    cache: FxHashMap<Id, Vec<Conjunct>>,
    /// Per mask (condition, polarity, further conditions): its conjuncts.
    mask_cache: FxHashMap<MaskKey, Rc<[Conjunct]>>,
    /// Per conjunct and invocation: the index in `lane_terms` of `a`, `b - a`, and which of
    /// the conjunct's distinct symbolic parts of `b - a` (`a` for `a ≥ 0`) it is, with its
    /// constant (the bounds depend on those only).
    lane_cache: FxHashMap<(Id, u32), u32>,
    lane_terms: Vec<LaneTerms>,
    memo: BoundMemo,
}

/// One masked element of a block: its subgroup and origins, its row and column in the block,
/// the invocation its mask is evaluated in.
#[derive(Clone, Copy)]
struct MaskedElement<'e> {
    s: usize,
    y: &'e Poly,
    x: &'e Poly,
    row: i64,
    col: i64,
    w: u32,
}

/// The trailing zeros `Planner::vector_aligned` compares, per mask operand `a` (its index in
/// `lane_terms`) and per element column (each depends on that value only).
#[derive(Default)]
struct AlignMemo {
    a: FxHashMap<u32, u32>,
    column: FxHashMap<ColumnAt, u32>,
}

/// The bounds the masks state: rows, columns and the vector span the column bound must be a
/// multiple of.
struct Stated {
    row: Option<Poly>,
    col: Option<Poly>,
    multiple: u32,
}

/// The bounds of a block found so far: rows and columns, the column multiple, the run-time
/// comparisons and the remainders they come from.
struct Found {
    row: Option<Poly>,
    col: Option<Poly>,
    multiple: u32,
    at_least: Vec<(Poly, Poly)>,
    assumed: Vec<(Id, usize)>,
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
        let b = BlockElems {
            sg: lay.subgroup_size as usize,
            place,
            elems,
            ys,
            xs,
        };
        let t = self.mask_terms(&b)?;
        if !t.unmasked.is_empty() && t.masked > 0 {
            // Masked and unmasked elements in one operand.
            return Err(OperandReject::MixedMasks);
        }
        let mut found = Found {
            row: None,
            col: None,
            multiple: 1,
            at_least: Vec::new(),
            assumed: Vec::new(),
        };
        if t.masked > 0 {
            let Some(st) = self.stated_bounds(&t, b.xs)? else {
                return Err(OperandReject::MaskNotABound);
            };
            (found.row, found.col, found.multiple) = (st.row, st.col, st.multiple.max(1));
        }
        let col_lower = self.column_lower_bounded(&t)?;
        if found.row.is_none() || found.col.is_none() {
            self.unstated_bounds(&b, &t.unmasked, &mut found)?;
        }
        let nonneg_checks = if col_lower {
            Vec::new()
        } else {
            self.column_origin_checks(b.xs, &t.nonneg_uniform)?
        };
        let (Some(rb), Some(cb)) = (found.row, found.col) else {
            return Err(OperandReject::NoBound);
        };
        Ok(Bounds {
            height: rb.with_width(64),
            width: cb.with_width(64),
            uniform: t.uniform,
            multiple: found.multiple,
            nonneg_checks,
            at_least: found.at_least,
            assumed: found.assumed,
        })
    }

    /// What the masks of the block's elements state, element by element (see [`MaskTerms`]).
    fn mask_terms(&self, b: &BlockElems) -> Result<MaskTerms, OperandReject> {
        let mut t = MaskTerms::default();
        let mut c = TermCaches::default();
        for (s, (y, x)) in b.ys.iter().zip(b.xs).enumerate() {
            for &(l, k, row, col) in b.place {
                let Some(el) = b.elems[s * b.sg + l][k].as_ref() else {
                    continue;
                };
                let Some((cond, polarity, w)) = el.mask else {
                    t.unmasked.push((s, row, col, el.writer));
                    continue;
                };
                // The mask's conjuncts and its uniform conditions depend on the mask alone:
                // worked out at its first element (in element order, so the first reason to
                // reject is the same as element by element), the rest share them.
                let key = (cond, polarity, el.also);
                let conjuncts = match c.mask_cache.get(&key) {
                    Some(cj) => cj.clone(),
                    None => {
                        let cj = self.mask_conjuncts(
                            (cond, polarity),
                            &el.also,
                            &mut c.cache,
                            &mut t.uniform_set,
                            &mut t.uniform,
                            &mut t.nonneg_uniform,
                        )?;
                        c.mask_cache.insert(key, cj.clone());
                        cj
                    }
                };
                t.masked += 1;
                let starts = (t.less.len(), t.nonneg.len());
                let at = MaskedElement {
                    s,
                    y,
                    x,
                    row,
                    col,
                    w,
                };
                for &cj in conjuncts.iter() {
                    self.conjunct_terms(&mut c, &mut t, at, cj)?;
                }
                t.per_elem
                    .push((starts.0..t.less.len(), starts.1..t.nonneg.len()));
            }
        }
        t.caches = c;
        Ok(t)
    }

    /// The bound terms one conjunct `c` of a masked element states (into `t`).
    fn conjunct_terms(
        &self,
        c: &mut TermCaches,
        t: &mut MaskTerms,
        at: MaskedElement,
        cj: Conjunct,
    ) -> Result<(), OperandReject> {
        let MaskedElement {
            s,
            y,
            x,
            row,
            col,
            w,
        } = at;
        let (cmp, a, b, is_less) = match cj {
            Conjunct::Uniform(_) => return Ok(()),
            Conjunct::Less(cmp, a, b) => (cmp, a, Some(b), true),
            Conjunct::NonNeg(cmp, a) => (cmp, a, None, false),
        };
        // `a` and `b - a` at invocation `w`, once per conjunct and invocation.
        let TermCaches {
            lane_cache,
            lane_terms,
            memo,
            ..
        } = c;
        let lane = match lane_cache.entry((cmp, w)) {
            std::collections::hash_map::Entry::Occupied(e) => *e.get(),
            std::collections::hash_map::Entry::Vacant(e) => {
                let av = self.poly_of(a)?.at_lane(w as usize);
                let d = match b {
                    Some(b) => Some(
                        self.poly_of(b)?
                            .at_lane(w as usize)
                            .sub(&av)
                            .ok_or(OperandReject::MaskNotABound)?,
                    ),
                    None => None,
                };
                // Narrow masks wrap where the lane map's polynomials do not (the 32-bit
                // ones cannot within a surface under 2^31 bytes, which the check demands):
                // once per conjunct and invocation, as the width is `a`'s.
                self.require(Obligation::MaskWidth { width: av.width })?;
                let (sym, cst) = memo.split(cmp, d.as_ref().unwrap_or(&av));
                lane_terms.push(LaneTerms { av, d, sym, cst });
                *e.insert((lane_terms.len() - 1) as u32)
            }
        };
        let lt = &lane_terms[lane as usize];
        let wd = lt.av.width;
        // For `a < b`: the bound on Yr (b - a + Yr) and on Xc (b - a + Xc); for
        // `a ≥ 0`: a - Yr and a - Xc; the bounds once per value (`BoundMemo`).
        let mut along = |dim: u8, origin: &Poly, k: i64| {
            memo.bound(cmp, lt, (s, dim), Along { origin, k, wd })
                .ok_or(OperandReject::MaskNotABound)
        };
        let rv = along(0, y, row)?;
        let cv = along(1, x, col)?;
        if is_less {
            t.less.push((rv, cv, lane));
            t.less_col.push(ColumnAt { s, col, width: wd });
        } else {
            t.nonneg.push((rv, cv, lane));
        }
        Ok(())
    }

    /// The row and column bounds the `a < b` conjuncts state (the row bound one every
    /// element's mask states, every other a column bound `Bc + t`, `0 ≤ t < V`), and the vector
    /// span `V` the column bound must be a multiple of; `None` when no choice fits. (`xs`: the
    /// column origins.)
    fn stated_bounds(&self, t: &MaskTerms, xs: &[Poly]) -> Result<Option<Stated>, OperandReject> {
        let table = &t.caches.memo.table;
        let mut cands: Vec<BoundRef> = t
            .per_elem
            .first()
            .map(|e| t.less[e.0.clone()].iter().map(|c| c.0).collect())
            .unwrap_or_default();
        for e in &t.per_elem[1.min(t.per_elem.len())..] {
            cands.retain(|r| t.less[e.0.clone()].iter().any(|c| c.0 == *r));
        }
        // Per column bound: its offset from the first (by value: the offset depends on
        // nothing else).
        let mut offsets: FxHashMap<BoundRef, Option<i64>> = FxHashMap::default();
        let mut zeros = AlignMemo::default();
        // `None`: no row bound (every `a < b` a column bound).
        for rb in cands.iter().map(Some).chain(std::iter::once(None)) {
            let is_none = rb.is_none_or(|&r| table.as_constant(r) == Some(i64::MIN));
            // Every other `a < b` is a column bound: Bc + t with 0 ≤ t < V.
            let mut cols: Vec<ColumnBound> = Vec::new();
            let mut ok = true;
            for e in &t.per_elem {
                for (&(rv, cv, a), &xc) in t.less[e.0.clone()].iter().zip(&t.less_col[e.0.clone()])
                {
                    if !is_none && rb == Some(&rv) {
                        continue;
                    }
                    if cols.len() > 4096 {
                        ok = false;
                    }
                    cols.push((cv, a, xc));
                }
            }
            if !ok {
                continue;
            }
            let row = || rb.filter(|_| !is_none).map(|&r| table.poly(r));
            if cols.is_empty() {
                return Ok(Some(Stated {
                    row: row(),
                    col: None,
                    multiple: 1,
                }));
            }
            let first = cols[0].0;
            let first_poly = table.poly(first);
            offsets.clear();
            let offs: Option<Vec<i64>> = cols
                .iter()
                .map(|(c, _, _)| {
                    *offsets
                        .entry(*c)
                        .or_insert_with(|| table.constant_offset(*c, first, &first_poly))
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
            if v > 1 {
                self.vector_aligned(t, xs, (&cols, &offs, lo), v, &mut zeros)?;
            }
            // The vector at c0 is loaded iff c0 < B; element c0 + t is in bounds iff c0 + t < B:
            // the same when c0 and B are multiples of V (B is checked at run time).
            let bc = first_poly
                .add_constant(lo)
                .ok_or(OperandReject::MaskNotABound)?;
            return Ok(Some(Stated {
                row: row(),
                col: Some(bc),
                multiple: v,
            }));
        }
        Ok(None)
    }

    /// The alignment a vector span `V > 1` needs of the column bounds `cols` (column bound,
    /// mask operand `a`, the element's column; `offs`: each bound's offset from the first,
    /// `lo` the least): the mask operands `a` must be multiples of V, and so must the vector's
    /// first column.
    fn vector_aligned(
        &self,
        t: &MaskTerms,
        xs: &[Poly],
        (cols, offs, lo): (&[ColumnBound], &[i64], i64),
        v: u32,
        zeros: &mut AlignMemo,
    ) -> Result<(), OperandReject> {
        // The least aligned one decides (the first of them).
        let least_a = cols
            .iter()
            .map(|c| {
                let tz = *zeros
                    .a
                    .entry(c.1)
                    .or_insert_with(|| self.lanes.trailing_zeros(t.a(c.1)));
                (tz, c.1)
            })
            .min_by_key(|(tz, _)| *tz)
            .map(|(_, a)| t.a(a).clone());
        if let Some(a) = least_a {
            self.require(Obligation::ColumnAligned {
                origins: vec![a],
                zeros: v.trailing_zeros(),
            })?;
        }
        // The vector's first element (the least bound, offset `lo`) must sit at a column
        // that is a multiple of V too: the mask `a < b` tests the vector's `a`, the block
        // bound `B = b + (c0 - a)` its first column `c0`; with `a`, `c0` and `B` multiples
        // of V, `a < b` iff `c0 + t < B` for every `t < V`. A vector read at `a + 2` under
        // the mask of `a` is not bounded by it (columns `b .. b+1` of the original are
        // read, the block would return 0 there).
        let column_at = |c: &ColumnAt| {
            xs[c.s]
                .add_constant(c.col)
                .expect("the column was a polynomial when its bounds were made")
                .with_width(c.width)
        };
        let least_first = cols
            .iter()
            .zip(offs)
            .filter(|(_, &o)| o == lo)
            .map(|(c, _)| {
                let tz = *zeros
                    .column
                    .entry(c.2)
                    .or_insert_with(|| self.lanes.trailing_zeros(&column_at(&c.2)));
                (tz, c.2)
            })
            .min_by_key(|(tz, _)| *tz)
            .map(|(_, c)| column_at(&c));
        if let Some(column) = least_first {
            self.require(Obligation::VectorFirstColumn {
                column,
                zeros: v.trailing_zeros(),
            })?;
        }
        Ok(())
    }

    /// Whether every masked element's conjuncts include a lower bound of its vector's first
    /// column (then no column origin needs a run-time `≥ 0` check).
    fn column_lower_bounded(&self, t: &MaskTerms) -> Result<bool, OperandReject> {
        let table = &t.caches.memo.table;
        // `a ≥ 0` conjuncts: the row (a = Yr) or the vector's first column (a = Xc - t, the
        // vector start a multiple of the vector's span, so a ≥ 0 iff Xc ≥ 0).
        let mut col_lower_all = !t.per_elem.is_empty();
        for e in &t.per_elem {
            let mut has_col_lower = false;
            for &(dr, dc, a) in &t.nonneg[e.1.clone()] {
                if table.is_zero(dr) {
                    // A row's `a ≥ 0` (rows below 0 need no mask, see `column_origin_checks`).
                } else if let Some(c) = table.as_constant(dc).filter(|c| (-63..=0).contains(c)) {
                    let v = ((1 - c) as u64).next_power_of_two();
                    self.require(Obligation::ColumnAligned {
                        origins: vec![t.a(a).clone()],
                        zeros: v.trailing_zeros(),
                    })?;
                    has_col_lower = true;
                } else {
                    return Err(OperandReject::MaskNotABound);
                }
            }
            col_lower_all &= has_col_lower;
        }
        Ok(col_lower_all)
    }

    /// The bounds of the dimensions no mask bounds (into `found`).
    fn unstated_bounds(
        &self,
        b: &BlockElems,
        unmasked: &[(usize, i64, i64, u32)],
        found: &mut Found,
    ) -> Result<(), OperandReject> {
        // A dimension no mask bounds: the kernel reads those elements whenever it reads the
        // element at all, so every one must be inside the surface: a remainder the lane map took
        // as its dividend (`offs % M` < M) or a value growing with a loop counter of known trip
        // count.
        let mut all: Vec<(usize, i64, i64, u32)> = unmasked.to_vec();
        for (s, _) in b.ys.iter().enumerate() {
            for &(l, k, row, col) in b.place {
                if let Some(Element {
                    mask: Some((_, _, w)),
                    ..
                }) = b.elems[s * b.sg + l][k].as_ref()
                {
                    all.push((s, row, col, *w));
                }
            }
        }
        for dim in 0..2 {
            if (dim == 0 && found.row.is_some()) || (dim == 1 && found.col.is_some()) {
                continue;
            }
            let ImpliedBound {
                bound,
                at_least: g,
                multiple: v,
                from,
            } = self.implied_bound(dim, &all, b.ys, b.xs)?;
            found.at_least.extend(g);
            found.assumed.extend(from.into_iter().map(|r| (r, dim)));
            if dim == 1 {
                found.multiple = found.multiple.max(v);
            }
            if dim == 0 {
                found.row = Some(bound);
            } else {
                found.col = Some(bound);
            }
        }
        Ok(())
    }

    /// The atoms of the column origins `xs` to check `≥ 0` at run time when no mask bounds
    /// the columns below (`nonneg_uniform`: values a uniform mask conjunct requires `≥ 0`).
    fn column_origin_checks(
        &self,
        xs: &[Poly],
        nonneg_uniform: &[Poly],
    ) -> Result<Vec<Id>, OperandReject> {
        // Rows below 0 need no mask: with the column in 0..width ≤ pitch their address is
        // below the base, which the kernel may not read. Columns below 0 (in a row ≥ 1) are
        // in the buffer, so the masks must exclude them or they must not occur: the origin's
        // symbolic part is a sum of non-negative terms (an atom a mask requires ≥ 0, a loop
        // counter that only grows, or an atom checked ≥ 0 at run time) and the rest ≥ 0.
        let n = self.lanes.lanes;
        let mut nonneg_checks: Vec<Id> = Vec::new();
        {
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
        Ok(nonneg_checks)
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
}
