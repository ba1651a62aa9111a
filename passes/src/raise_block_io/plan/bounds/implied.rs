//! The bound of a dimension no mask bounds (see `Planner::bounds`): every row (column) the
//! kernel reads must be inside the surface, proven from a remainder the lane map took as its
//! dividend (`a % M < M`), from a loop counter of known trip count, or, for rows (columns)
//! computed from kernel arguments and work-group ids, the extent the work-group reads (an
//! unmasked load: its elements are all real, and the surface is made to hold just them).

use spirv::Op;
use spvopt_analysis::fxhash::{FxHashMap, FxHashSet};
use spvopt_analysis::lane_map::{sext, Coef, Poly};
use spvopt_ir::Id;

use super::super::{OperandReject, Planner};

/// The bound `Planner::implied_bound` found for one dimension.
pub(super) struct ImpliedBound {
    /// Every element's row (column) is below it (64-bit).
    pub(super) bound: Poly,
    /// `(a, b)`: `a ≥ b` to check at run time (a loop's trip count against its first value).
    pub(super) at_least: Option<(Poly, Poly)>,
    /// The multiple of elements the bound must be (checked at run time).
    pub(super) multiple: u32,
    /// The lane map's remainders the bound comes from.
    pub(super) from: Vec<Id>,
}

/// A remainder assumption that bounds a row or column (see `Planner::assumed_bound`).
struct AssumedBound {
    /// The assumption's index in the lane map's `assumptions`.
    index: usize,
    /// `t` of the row or column `a + t`.
    offset: i64,
    /// The trailing zero bits `a` is known to have.
    trailing_zeros: u32,
    /// The remainder the assumption is about.
    remainder: Id,
}

/// An assumption (its index) whose dividend differs from an origin by a constant, and that
/// constant (see [`AssumedMemo`]).
type OriginOffset = (usize, Option<i64>);

/// What `Planner::implied_bound` memoizes for one dimension.
///
/// `offsets`, per subgroup `s` and invocation `w`: the assumptions `0 ≤ a < b` whose dividend
/// `a` at `w` differs from the subgroup's origin `O` by a constant, with that constant `d0`
/// (`None`: the origin is narrower than `a`, the difference is taken element by element). It
/// depends on `(s, w)` only, and is exact: a row (column) `O + k` has `O`'s non-constant
/// terms, so `(O + k) - a(w)` is a constant exactly when `O - a(w)` is, and then (`O` at least
/// as wide as `a`, the difference taken at `a`'s width) it is `d0 + k` at `a`'s width.
/// `trailing_zeros`, per assumption and invocation: the trailing zeros of `a` there.
/// `bounds`, per assumption: its `b` at 64 bits.
#[derive(Default)]
struct AssumedMemo {
    offsets: FxHashMap<(usize, u32), Vec<OriginOffset>>,
    trailing_zeros: FxHashMap<(usize, u32), u32>,
    bounds: FxHashMap<usize, Poly>,
}

impl Planner<'_> {
    /// A bound every element's row (`dim` 0) or column (1) is below (see `bounds`), with the
    /// run-time checks it needs and the multiple of elements the bound must be (checked at
    /// run time).
    pub(super) fn implied_bound(
        &self,
        dim: usize,
        elems: &[(usize, i64, i64, u32)],
        ys: &[Poly],
        xs: &[Poly],
    ) -> Result<ImpliedBound, OperandReject> {
        let origins = if dim == 0 { ys } else { xs };
        // The assumption taken first and its bound.
        let mut bound: Option<(usize, Poly)> = None;
        let mut from: Vec<Id> = Vec::new();
        let mut span = 0i64;
        let mut min_tz = u32::MAX;
        let mut via_counter: Vec<(Poly, i64)> = Vec::new();
        // (Once per subgroup and row or column: the same value gives the same entry.)
        let mut counted: FxHashSet<(usize, i64)> = FxHashSet::default();
        let mut memo = AssumedMemo::default();
        for &(s, row, col, w) in elems {
            let k = if dim == 0 { row } else { col };
            let origin = &origins[s];
            // The row (column) `origin + k` must be a polynomial.
            if !origin.add_constant_fits(k) {
                return Err(OperandReject::NoBound);
            }
            if let Some(AssumedBound {
                index: i,
                offset: t,
                trailing_zeros: tz,
                remainder: r,
            }) = self.assumed_bound((s, origin), k, w, &mut memo)
            {
                let b = memo
                    .bounds
                    .entry(i)
                    .or_insert_with(|| self.lanes.assumptions[i].2.with_width(64));
                match &bound {
                    // The same assumption has the same bound.
                    Some((bi, x)) if *bi != i && !x.same_as(b) => {
                        return Err(OperandReject::MixedMasks)
                    }
                    // The same bound: keeping it is taking this one.
                    Some(_) => {}
                    None => bound = Some((i, b.clone())),
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
                let v = origin.add_constant(k).ok_or(OperandReject::NoBound)?;
                via_counter.push((v.with_constant_part(Coef::Same(0)), v.constant_part().at(0)));
            }
        }
        let bound = bound.map(|(_, b)| b);
        let multiple = (span.max(1) as u64).next_power_of_two() as u32;
        if span > 1 && multiple.trailing_zeros() > min_tz {
            return Err(OperandReject::Misaligned);
        }
        if via_counter.is_empty() {
            return bound
                .map(|bound| ImpliedBound {
                    bound,
                    at_least: None,
                    multiple,
                    from,
                })
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
        let min_c = via_counter.iter().map(|(_, c)| *c).min().unwrap_or(0);
        let (b, g) = self
            .counter_bound(&sym, max_c)
            .or_else(|| self.extent_bound(&sym, min_c, max_c))
            .ok_or(OperandReject::NoBound)?;
        Ok(ImpliedBound {
            bound: b,
            at_least: Some(g),
            multiple: 1,
            from: Vec::new(),
        })
    }

    /// For rows (columns) `sym + c`, `min_c ≤ c ≤ max_c`, whose symbolic part the run-time
    /// check can compute before the body (kernel arguments, work-group ids): the extent the
    /// work-group reads, `sym + max_c + 1`, given `sym + min_c ≥ 0` (returned as a check). The
    /// kernel reads every one of those rows unconditionally, so each is real memory; a surface
    /// that ends after the last of them and starts at row 0 holds them all (rows below 0 are
    /// excluded by the check), and the block load reads each exactly. The check before the
    /// body runs in every work-group, so the extent is that work-group's own.
    fn extent_bound(&self, sym: &Poly, min_c: i64, max_c: i64) -> Option<(Poly, (Poly, Poly))> {
        let at_entry = sym.terms().iter().all(|(mono, c)| {
            matches!(c, Coef::Same(_))
                && mono
                    .iter()
                    .all(|&a| super::super::super::emit::copyable(self.m, self.tracer.func, a))
        });
        if !at_entry {
            return None;
        }
        let sym = sym.with_width(64);
        let bound = sym.add_constant(max_c.checked_add(1)?)?;
        let first = sym.add_constant(min_c)?;
        Some((bound, (first, Poly::constant(0, 64, self.lanes.lanes))))
    }

    /// The assumption, `t` and `z` when the row or column `v = origin + k` of invocation `w`'s
    /// element (`at`: its subgroup and origin) is `a + t` (`0 ≤ t < 64`) for a remainder's
    /// dividend `a` the lane map took under `0 ≤ a < b`; `z`: the trailing zero bits `a` is
    /// known to have. The assumption with the smallest `t` is taken (each is sound on its
    /// own), the first of them on a tie. (`memo`: see [`AssumedMemo`]; only the taken
    /// assumption's trailing zeros are computed.)
    fn assumed_bound(
        &self,
        at: (usize, &Poly),
        k: i64,
        w: u32,
        memo: &mut AssumedMemo,
    ) -> Option<AssumedBound> {
        let (s, origin) = at;
        let assumptions = &self.lanes.assumptions;
        let offsets = memo.offsets.entry((s, w)).or_insert_with(|| {
            let mut found = Vec::new();
            for (i, (_, a, _)) in assumptions.iter().enumerate() {
                if origin.width < a.width {
                    found.push((i, None));
                } else if let Some(d0) = origin.constant_offset_at(a, w as usize) {
                    found.push((i, Some(d0)));
                }
            }
            found
        });
        // The first assumption of the least `t` (what `min_by_key` takes).
        let mut best: Option<(usize, i64)> = None;
        for &(i, d0) in offsets.iter() {
            let a = &assumptions[i].1;
            let t = match d0 {
                Some(d0) => sext(d0.wrapping_add(k), a.width),
                None => {
                    let v = origin.add_constant(k)?;
                    let Some(t) = v.constant_offset_at(a, w as usize) else {
                        continue;
                    };
                    t
                }
            };
            if (0..64).contains(&t) && best.is_none_or(|(_, bt)| t < bt) {
                best = Some((i, t));
            }
        }
        let (i, t) = best?;
        let (r, a, _) = &assumptions[i];
        let z = *memo
            .trailing_zeros
            .entry((i, w))
            .or_insert_with(|| self.lanes.trailing_zeros(&a.at_lane(w as usize)));
        Some(AssumedBound {
            index: i,
            offset: t,
            trailing_zeros: z,
            remainder: *r,
        })
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
}
