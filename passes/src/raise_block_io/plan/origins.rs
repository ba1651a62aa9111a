//! The block origins' obligation: a 2D block operation takes its row and column origin as
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
//! two run-time comparisons (`at_least`) against the range the other terms leave
//! (`pid·128 + c` for a row origin); when the terms that are not (a loop counter's multiple,
//! tutorial 03's `q·32`) leave too wide a range, the raised copy computes that origin in 64 bits
//! and saturates it to `[-2^30, 2^30]` before taking 32 bits (`saturate`): exact inside, and
//! outside every surface beyond, as the original's masks are. Evaluating in 64 bits is exact:
//! the lane map's 64-bit polynomials are the kernel's own arithmetic modulo 2^64. (An origin
//! with per-invocation coefficients, which the planner never makes, is rejected:
//! `rejected_origin_out_of_range`.)

use spvopt_analysis::lane_map::{Coef, Poly};
use spvopt_ir::{FuncId, Id};

use super::{OperandReject, Planner};
use crate::raise_block_io::emit;

/// The least origin whose 32-bit truncation is exact.
pub const ORIGIN_LO: i128 = -(1 << 31);
/// The greatest origin whose 32-bit truncation is exact or outside every surface.
pub const ORIGIN_HI: i128 = (1 << 32) - (1 << 25);
/// What a saturated origin is clamped to: exact inside, outside every surface (≤ 2^24) beyond,
/// and far from wrapping when the block's extent is added.
pub const SATURATE_AT: i64 = 1 << 30;

/// How a plan's origins meet their obligation (see the module documentation).
pub(super) struct OriginDischarge {
    /// `(a, b)`: `a ≥ b` at run time.
    pub checks: Vec<(Poly, Poly)>,
    /// Whether the row (0) and column (1) origins are saturated in the raised copy.
    pub saturate: [bool; 2],
}

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

impl Planner<'_> {
    /// Discharges the origin obligation of a plan's origins `ys`, `xs` (see the module
    /// documentation): `Ok` with the run-time comparisons `(a, b)`, `a ≥ b`, it needs (none
    /// when proven), or the rejection.
    pub(super) fn origin_checks(
        &self,
        f: FuncId,
        ys: &[Poly],
        xs: &[Poly],
        nonneg_checked: &[Id],
    ) -> Result<OriginDischarge, OperandReject> {
        let n = self.lanes.lanes;
        // Per distinct checked part: the tightest bounds over the origins that share it.
        let mut bounds: Vec<(Poly, i128, i128)> = Vec::new();
        let mut saturate = [false; 2];
        // Whether an atom can be computed before the body: once per atom, not per subgroup.
        let mut copyable: spvopt_analysis::fxhash::FxHashMap<Id, bool> = Default::default();
        for (k, origin) in ys.iter().chain(xs).enumerate() {
            let dim = usize::from(k >= ys.len());
            // Ranges: `None` when interval arithmetic overflows (not proven, not wrong).
            let mut fixed = Some(Range::point(0));
            let mut checked = Poly::constant(0, 64, n);
            let mut checked_range = Some(Range::point(0));
            for (mono, c) in origin.terms() {
                let Coef::Same(c) = c else {
                    return Err(OperandReject::OriginOutOfRange);
                };
                let r = mono.iter().try_fold(Range::point(i128::from(*c)), |r, &a| {
                    r.mul(self.atom_range(a, nonneg_checked))
                });
                let at_entry = !mono.is_empty()
                    && mono.iter().all(|&a| {
                        *copyable
                            .entry(a)
                            .or_insert_with(|| emit::copyable(self.m, f, a))
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
            let whole = fixed.zip(checked_range).and_then(|(a, b)| a.add(b));
            if whole.is_some_and(|w| w.within(ORIGIN_LO, ORIGIN_HI)) {
                continue;
            }
            // The polynomials are the kernel's 64-bit arithmetic (exact modulo 2^64), so the
            // checked part evaluated in 64 bits at run time is the value the origin has. The
            // check: ORIGIN_LO - fixed.lo ≤ checked ≤ ORIGIN_HI - fixed.hi, when the other
            // terms' range leaves room; else the origin is saturated where it is used.
            let room = fixed
                .filter(|f| f.within(ORIGIN_LO, ORIGIN_HI))
                .map(|f| (ORIGIN_LO - f.lo, ORIGIN_HI - f.hi))
                .filter(|(lo, hi)| lo <= hi);
            let Some((lo, hi)) = room.filter(|_| !checked.terms().is_empty()) else {
                saturate[dim] = true;
                continue;
            };
            match bounds.iter_mut().find(|(p, _, _)| p.same_as(&checked)) {
                Some((_, l, h)) => {
                    *l = (*l).max(lo);
                    *h = (*h).min(hi);
                }
                None => bounds.push((checked, lo, hi)),
            }
        }
        let mut checks: Vec<(Poly, Poly)> = Vec::new();
        for (checked, lo, hi) in bounds {
            let (Ok(lo), Ok(hi)) = (i64::try_from(lo), i64::try_from(hi)) else {
                return Err(OperandReject::OriginOutOfRange);
            };
            if lo > hi {
                return Err(OperandReject::OriginOutOfRange);
            }
            checks.push((checked.clone(), Poly::constant(lo, 64, n)));
            checks.push((Poly::constant(hi, 64, n), checked));
        }
        Ok(OriginDischarge { checks, saturate })
    }

    /// The values atom `a` can take: its integer width, read sign-extended (a pointer or an
    /// unknown type: 64 bits); from 0 when it is a loop counter that never goes below 0 or is
    /// checked `≥ 0` at run time.
    fn atom_range(&self, a: Id, nonneg_checked: &[Id]) -> Range {
        let width = self
            .m
            .type_of(a)
            .and_then(|t| spvopt_analysis::types::int_width(self.m, t))
            .unwrap_or(64)
            .clamp(1, 64);
        let hi = (1i128 << (width - 1)) - 1;
        let nonneg = nonneg_checked.contains(&a) || self.lanes.is_nonneg_counter(self.m, a);
        Range {
            lo: if nonneg { 0 } else { -(1i128 << (width - 1)) },
            hi,
        }
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
