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
use memo::{BoundMemo, LaneTerms};

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
/// (a - Yr, a - Xc, a), as ranges of `less` and `nonneg` (the polynomials shared: elements of
/// one conjunct value and row or column have the same); per entry of `less` the element's
/// column `Xc` (its vector's first column must be a multiple of the vector, not only the mask
/// operand `a`); the uniform conjuncts; and the unmasked elements (subgroup, row, column,
/// writer).
#[derive(Default)]
struct MaskTerms {
    uniform: Vec<(Id, bool)>,
    uniform_set: Option<Vec<UniformKey>>,
    nonneg_uniform: Vec<Poly>,
    less: Vec<BoundTerms>,
    less_col: Vec<Rc<Poly>>,
    nonneg: Vec<BoundTerms>,
    per_elem: Vec<(Range<usize>, Range<usize>)>,
    masked: usize,
    unmasked: Vec<(usize, i64, i64, u32)>,
}

/// The memo tables of `Planner::mask_terms`.
#[derive(Default)]
struct TermCaches {
    /// Per condition: its conjuncts.
    cache: FxHashMap<Id, Vec<Conjunct>>,
    /// Per mask (condition, polarity, further conditions): its conjuncts.
    mask_cache: FxHashMap<MaskKey, Rc<[Conjunct]>>,
    /// Per conjunct and invocation: `a`, `b - a`, and which of the conjunct's distinct
    /// symbolic parts of `b - a` (`a` for `a ≥ 0`) it is, with its constant (the bounds
    /// depend on those only).
    lane_cache: FxHashMap<(Id, u32), LaneTerms>,
    memo: BoundMemo,
    /// `Yr` (`Xc`) at a width: per subgroup, dimension, row (column) and width.
    along_cache: FxHashMap<(usize, u8, i64, u32), Poly>,
    /// `Xc` shared: per subgroup, column and width.
    col_cache: FxHashMap<(usize, i64, u32), Rc<Poly>>,
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
            let Some(st) = self.stated_bounds(&t)? else {
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
        let lt = match c.lane_cache.entry((cmp, w)) {
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
                // Narrow masks wrap where the lane map's polynomials do not (the 32-bit
                // ones cannot within a surface under 2^31 bytes, which the check demands):
                // once per conjunct and invocation, as the width is `a`'s.
                self.require(Obligation::MaskWidth { width: av.width })?;
                let (sym, cst) = c.memo.split(cmp, d.as_ref().unwrap_or(&av));
                e.insert(LaneTerms { av, d, sym, cst })
            }
        };
        let (av, wd) = (&lt.av, lt.av.width);
        // For `a < b`: the bound on Yr (b - a + Yr) and on Xc (b - a + Xc); for
        // `a ≥ 0`: a - Yr and a - Xc; `Yr` (`Xc`) once per subgroup, row (column)
        // and width, the bounds once per value (`BoundMemo`).
        let mut along = |dim: u8, k: i64| -> Result<Rc<Poly>, OperandReject> {
            let v = match c.along_cache.entry((s, dim, k, wd)) {
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
            c.memo
                .bound(cmp, lt, (s, dim), v)
                .ok_or(OperandReject::MaskNotABound)
        };
        let rv = along(0, row)?;
        let cv = along(1, col)?;
        let av = av.clone();
        if is_less {
            t.less.push((rv, cv, av));
            let xc = match c.col_cache.entry((s, col, wd)) {
                std::collections::hash_map::Entry::Occupied(e) => e.get().clone(),
                std::collections::hash_map::Entry::Vacant(e) => {
                    let v = c
                        .along_cache
                        .get(&(s, 1, col, wd))
                        .cloned()
                        .ok_or(OperandReject::MaskNotABound)?;
                    e.insert(Rc::new(v)).clone()
                }
            };
            t.less_col.push(xc);
        } else {
            t.nonneg.push((rv, cv, av));
        }
        Ok(())
    }

    /// The row and column bounds the `a < b` conjuncts state (the row bound one every
    /// element's mask states, every other a column bound `Bc + t`, `0 ≤ t < V`), and the vector
    /// span `V` the column bound must be a multiple of; `None` when no choice fits.
    fn stated_bounds(&self, t: &MaskTerms) -> Result<Option<Stated>, OperandReject> {
        let n = self.lanes.lanes;
        let mut cands: Vec<Rc<Poly>> = t
            .per_elem
            .first()
            .map(|e| t.less[e.0.clone()].iter().map(|c| c.0.clone()).collect())
            .unwrap_or_default();
        for e in &t.per_elem[1.min(t.per_elem.len())..] {
            cands.retain(|r| t.less[e.0.clone()].iter().any(|c| same_poly(&c.0, r)));
        }
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
            for e in &t.per_elem {
                for ((rv, cv, a), xc) in t.less[e.0.clone()].iter().zip(&t.less_col[e.0.clone()]) {
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
                return Ok(Some(Stated {
                    row: (!is_none).then(|| (**rb).clone()),
                    col: None,
                    multiple: 1,
                }));
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
            // The mask operands `a` must be multiples of V: the least aligned one decides.
            let mut least = |polys: &mut dyn Iterator<Item = &Rc<Poly>>| {
                polys
                    .map(|p| {
                        let tz = *zeros
                            .entry(Rc::as_ptr(p))
                            .or_insert_with(|| self.lanes.trailing_zeros(p));
                        (tz, p)
                    })
                    .min_by_key(|(tz, _)| *tz)
                    .map(|(_, p)| (**p).clone())
            };
            if v > 1 {
                if let Some(a) = least(&mut cols.iter().map(|c| &c.1)) {
                    self.require(Obligation::ColumnAligned {
                        origins: vec![a],
                        zeros: v.trailing_zeros(),
                    })?;
                }
            }
            // The vector's first element (the least bound, offset `lo`) must sit at a column
            // that is a multiple of V too: the mask `a < b` tests the vector's `a`, the block
            // bound `B = b + (c0 - a)` its first column `c0`; with `a`, `c0` and `B` multiples
            // of V, `a < b` iff `c0 + t < B` for every `t < V`. A vector read at `a + 2` under
            // the mask of `a` is not bounded by it (columns `b .. b+1` of the original are
            // read, the block would return 0 there).
            if v > 1 {
                let mut firsts = cols
                    .iter()
                    .zip(&offs)
                    .filter(|(_, &o)| o == lo)
                    .map(|(c, _)| &c.2);
                if let Some(column) = least(&mut firsts) {
                    self.require(Obligation::VectorFirstColumn {
                        column,
                        zeros: v.trailing_zeros(),
                    })?;
                }
            }
            // The vector at c0 is loaded iff c0 < B; element c0 + t is in bounds iff c0 + t < B:
            // the same when c0 and B are multiples of V (B is checked at run time).
            let bc = first.add_constant(lo).ok_or(OperandReject::MaskNotABound)?;
            return Ok(Some(Stated {
                row: (!is_none).then(|| (**rb).clone()),
                col: Some(bc),
                multiple: v,
            }));
        }
        Ok(None)
    }

    /// Whether every masked element's conjuncts include a lower bound of its vector's first
    /// column (then no column origin needs a run-time `≥ 0` check).
    fn column_lower_bounded(&self, t: &MaskTerms) -> Result<bool, OperandReject> {
        // `a ≥ 0` conjuncts: the row (a = Yr) or the vector's first column (a = Xc - t, the
        // vector start a multiple of the vector's span, so a ≥ 0 iff Xc ≥ 0).
        let mut col_lower_all = !t.per_elem.is_empty();
        for e in &t.per_elem {
            let mut has_col_lower = false;
            for (dr, dc, a) in &t.nonneg[e.1.clone()] {
                if dr.terms().is_empty() {
                    // A row's `a ≥ 0` (rows below 0 need no mask, see `column_origin_checks`).
                } else if let Some(t) = dc.as_constant().filter(|t| (-63..=0).contains(t)) {
                    let v = ((1 - t) as u64).next_power_of_two();
                    self.require(Obligation::ColumnAligned {
                        origins: vec![(**a).clone()],
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
