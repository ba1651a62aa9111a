//! The block origins' obligation (`Obligation::OriginFits`, discharged here for `obligation.rs`): a 2D block operation takes its row and column origin as
//! 32-bit integers, while the origins `Y(s)`, `X(s)` the planner finds are exact 64-bit
//! polynomials (`long` offsets, 64-bit index arithmetic). The rewrite emits them truncated to
//! 32 bits, which is exact when the true origin `v` fits, and harmless when `v` is so far
//! outside every legal surface that its truncation is too:
//!
//! - `v ∈ [-2^31, 2^31 - 64]`: the truncation is `v` (and `v` plus the block's extent, at most
//!   64 elements, does not wrap);
//! - `v ∈ (2^31 - 64, 2^32 - 2^25]`: `v` is beyond any surface (width and height ≤ 2^24), so
//!   the original reads nothing there (masked: the masks are the block's bounds; a dimension
//!   bounded otherwise never gets there), and the truncation, `v - 2^32 ≤ -2^25` or above
//!   2^24, is outside the surface too: the block returns 0 exactly as the masks did.
//!
//! So the obligation is `v ∈ [ORIGIN_LO, ORIGIN_HI]` for every subgroup's origin. It is
//! discharged here, in one place: each term's range follows from its atoms' widths (atoms are
//! read sign-extended; loop counters that only grow and atoms checked `≥ 0` are non-negative);
//! when that range is inside, nothing is needed (Triton's column origins `k + c`); otherwise the
//! terms whose atoms the run-time check can compute (kernel arguments, work-group ids) become
//! two run-time comparisons (`Obligation::AtLeast`) against the range the other terms leave
//! (`pid·128 + c` for a row origin); when the terms that are not (a loop counter's multiple,
//! tutorial 03's `q·32`) leave too wide a range, the raised copy computes that origin in 64 bits
//! and saturates it to `[-2^30, 2^30]` before taking 32 bits (`saturate`): exact inside, and
//! outside every surface beyond, as the original's masks are. Evaluating in 64 bits is exact:
//! the lane map's 64-bit polynomials are the kernel's own arithmetic modulo 2^64. (An origin
//! with per-invocation coefficients, which the planner never makes, is rejected:
//! `rejected_origin_out_of_range`.)

use spvopt_analysis::fxhash::FxHashMap;
use spvopt_analysis::lane_map::{Coef, Poly};
use spvopt_ir::Id;

use super::{Discharge, Facts, Obligation};
use crate::raise_block_io::emit;
use crate::raise_block_io::reject::OperandReject;

/// The least origin whose 32-bit truncation is exact.
pub const ORIGIN_LO: i128 = -(1 << 31);
/// The greatest origin whose 32-bit truncation is exact or outside every surface.
pub const ORIGIN_HI: i128 = (1 << 32) - (1 << 25);
/// What a saturated origin is clamped to: exact inside, outside every surface (≤ 2^24) beyond,
/// and far from wrapping when the block's extent is added.
pub const SATURATE_AT: i64 = 1 << 30;

/// A closed interval of integers (`i128` bounds: products of up to two 64-bit atoms fit).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Range {
    lo: i128,
    hi: i128,
}

impl Range {
    fn point(v: i128) -> Range {
        Range { lo: v, hi: v }
    }

    fn add(self, o: Range) -> Option<Range> {
        Some(Range {
            lo: self.lo.checked_add(o.lo)?,
            hi: self.hi.checked_add(o.hi)?,
        })
    }

    fn mul(self, o: Range) -> Option<Range> {
        let c = [
            self.lo.checked_mul(o.lo)?,
            self.lo.checked_mul(o.hi)?,
            self.hi.checked_mul(o.lo)?,
            self.hi.checked_mul(o.hi)?,
        ];
        Some(Range {
            lo: *c.iter().min()?,
            hi: *c.iter().max()?,
        })
    }

    fn within(self, lo: i128, hi: i128) -> bool {
        self.lo >= lo && self.hi <= hi
    }
}

/// One origin's split: the range of the terms the check cannot compute (`None`: interval
/// arithmetic overflowed), and the terms it can, with their range.
struct Split {
    fixed: Option<Range>,
    checked: Poly,
    checked_range: Option<Range>,
}

/// Splits `origin` into the terms the run-time check can compute and the rest.
fn split(
    facts: &Facts,
    origin: &Poly,
    nonneg: &[Id],
    copyable: &mut FxHashMap<Id, bool>,
) -> Result<Split, OperandReject> {
    let n = facts.lanes.lanes;
    let mut fixed = Some(Range::point(0));
    let mut checked = Poly::constant(0, 64, n);
    let mut checked_range = Some(Range::point(0));
    for (mono, c) in origin.terms() {
        let Coef::Same(c) = c else {
            return Err(OperandReject::OriginOutOfRange);
        };
        let r = mono.iter().try_fold(Range::point(i128::from(*c)), |r, &a| {
            r.mul(atom_range(facts, a, nonneg))
        });
        let at_entry = !mono.is_empty()
            && mono.iter().all(|&a| {
                *copyable
                    .entry(a)
                    .or_insert_with(|| emit::copyable(facts.m, facts.func, a))
            });
        if at_entry {
            let term = mono
                .iter()
                .try_fold(Poly::constant(*c, 64, n), |p, &a| {
                    p.mul(&Poly::atom(a, 64, n))
                })
                .ok_or(OperandReject::OriginOutOfRange)?;
            checked = checked.add(&term).ok_or(OperandReject::OriginOutOfRange)?;
            checked_range = checked_range.zip(r).and_then(|(a, b)| a.add(b));
        } else {
            fixed = fixed.zip(r).and_then(|(a, b)| a.add(b));
        }
    }
    Ok(Split {
        fixed,
        checked,
        checked_range,
    })
}

/// Discharges the obligation that the block origins `origins` of one dimension fit (see the
/// module documentation): proven, reduced to `AtLeast` comparisons of their checkable terms
/// (the tightest bounds over the origins that share those terms), saturated, or rejected.
pub fn discharge(facts: &Facts, origins: &[Poly], nonneg: &[Id]) -> Discharge {
    match try_discharge(facts, origins, nonneg) {
        Ok(d) => d,
        Err(r) => Discharge::Rejected(r),
    }
}

fn try_discharge(
    facts: &Facts,
    origins: &[Poly],
    nonneg: &[Id],
) -> Result<Discharge, OperandReject> {
    let n = facts.lanes.lanes;
    // Per distinct checked part: the tightest bounds over the origins that share it.
    let mut bounds: Vec<(Poly, i128, i128)> = Vec::new();
    // Whether an atom can be computed before the body: once per atom, not per subgroup.
    let mut copyable: FxHashMap<Id, bool> = FxHashMap::default();
    for origin in origins {
        let Split {
            fixed,
            checked,
            checked_range,
        } = split(facts, origin, nonneg, &mut copyable)?;
        let whole = fixed.zip(checked_range).and_then(|(a, b)| a.add(b));
        if whole.is_some_and(|w| w.within(ORIGIN_LO, ORIGIN_HI)) {
            continue;
        }
        // The polynomials are the kernel's 64-bit arithmetic (exact modulo 2^64), so the
        // checked part evaluated in 64 bits at run time is the value the origin has. The
        // check: ORIGIN_LO - fixed.lo ≤ checked ≤ ORIGIN_HI - fixed.hi, when the other
        // terms' range leaves room; else the origins are saturated where they are used
        // (exact for any value, so no origin of the dimension needs a check then).
        let room = fixed
            .filter(|f| f.within(ORIGIN_LO, ORIGIN_HI))
            .map(|f| (ORIGIN_LO - f.lo, ORIGIN_HI - f.hi))
            .filter(|(lo, hi)| lo <= hi);
        let Some((lo, hi)) = room.filter(|_| !checked.terms().is_empty()) else {
            return Ok(Discharge::Saturated);
        };
        match bounds.iter_mut().find(|(p, _, _)| p.same_as(&checked)) {
            Some((_, l, h)) => {
                *l = (*l).max(lo);
                *h = (*h).min(hi);
            }
            None => bounds.push((checked, lo, hi)),
        }
    }
    if bounds.is_empty() {
        return Ok(Discharge::Proven);
    }
    let mut checks = Vec::new();
    for (checked, lo, hi) in bounds {
        let (Ok(lo), Ok(hi)) = (i64::try_from(lo), i64::try_from(hi)) else {
            return Err(OperandReject::OriginOutOfRange);
        };
        if lo > hi {
            return Err(OperandReject::OriginOutOfRange);
        }
        checks.push(Obligation::AtLeast {
            lhs: checked.clone(),
            rhs: Poly::constant(lo, 64, n),
        });
        checks.push(Obligation::AtLeast {
            lhs: Poly::constant(hi, 64, n),
            rhs: checked,
        });
    }
    Ok(Discharge::Reduced(checks))
}

/// The values atom `a` can take: its integer width, read sign-extended (a pointer or an
/// unknown type: 64 bits); from 0 when it is a loop counter that never goes below 0 or is
/// checked `≥ 0` at run time.
fn atom_range(facts: &Facts, a: Id, nonneg: &[Id]) -> Range {
    let width = facts
        .m
        .type_of(a)
        .and_then(|t| spvopt_analysis::types::int_width(facts.m, t))
        .unwrap_or(64)
        .clamp(1, 64);
    let hi = (1i128 << (width - 1)) - 1;
    let nonneg = nonneg.contains(&a) || facts.lanes.is_nonneg_counter(facts.m, a);
    Range {
        lo: if nonneg { 0 } else { -(1i128 << (width - 1)) },
        hi,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_multiply_by_their_corners_and_refuse_overflow() {
        let a = Range { lo: -2, hi: 3 };
        let b = Range { lo: 4, hi: 5 };
        assert_eq!(a.mul(b), Some(Range { lo: -10, hi: 15 }));
        let big = Range {
            lo: -(1 << 100),
            hi: 1 << 100,
        };
        assert_eq!(big.mul(big), None);
        assert!(Range::point(ORIGIN_HI).within(ORIGIN_LO, ORIGIN_HI));
        assert!(!Range::point(1 << 32).within(ORIGIN_LO, ORIGIN_HI));
    }
}
