//! Work-group-uniform mask conditions the 2D block operation implies: the conditions of an
//! operand's masks that are the same in every invocation (Triton's `pid_m·128 ≥ 0`, `k ≥ 0`,
//! `(k | pid_n·128) ≥ 0` origin tests) are kept by the rewrite as one select of the loaded value
//! with 0 (a store: the block moved below the surface). A condition `v ≥ 0` needs no select when,
//! whenever it is false, the whole block lies before row 0 or before column 0: the load then
//! returns 0 for every element and the store writes nothing (the 2D block IO spec's out-of-bounds
//! behaviour), which is what the select would have given.
//!
//! When it applies: `v` is a 32-bit value whose polynomial `Σ c·m` (over the lane map's atoms) is
//! a multiple of `2^t` for every value of the atoms, and on one axis every subgroup's origin is
//! `v + d` with a constant `d ≥ 0` and `d + extent ≤ 2^t` (`extent`: the block's rows, or its
//! columns in operand elements), `t ≤ 30`. An OR `a | b ≥ 0` is `a ≥ 0 ∧ b ≥ 0` (the sign bit of
//! an OR is the OR of the sign bits): each part must be implied, on either axis.
//!
//! Why it is exact: let `S = Σ c·m` as an integer (atoms at their values; the plan's obligations
//! make the 64-bit origin polynomial the exact origin `Y = S + d`). The condition is false when
//! `S mod 2^32` is negative. If `S` is in the 32-bit range, `S < 0`, so `S ≤ -2^t` (a multiple)
//! and `Y ≤ d - 2^t ≤ -extent`: every row (column) of the block is below 0. If the origin is
//! emitted unsaturated, the check proved `Y` fits 32 bits, so `S = Y - d ≥ -2^31 - d`, and
//! `S < -2^31` would make `S mod 2^32 = S + 2^32 ≥ 2^31 - d ≥ 0` (the condition true); `S > 2^31`
//! cannot be (then `Y > 2^31`). If the origin is saturated (clamped to `±2^30`), an `S` beyond the
//! 32-bit range gives `|Y| > 2^30` (as `d + extent ≤ 2^30`), clamped to `±2^30`: outside every
//! surface (at most `2^24` rows and bytes). In every case the block operation touches no element,
//! and an out-of-bounds load element is 0, an out-of-bounds store element is dropped.

use spirv::Op;
use spvopt_analysis::lane_map::Poly;
use spvopt_ir::Id;

use super::Planner;

/// The largest `t` a condition's alignment counts for (the saturation bound `2^30`).
const MAX_ALIGNMENT_BITS: u32 = 30;

/// How deep an OR tree of a condition's operand is taken apart.
const MAX_OR_DEPTH: u32 = 4;

/// A planned block as the implication reads it: per subgroup the row and column origins, and
/// the rows and columns (operand elements) it spans from its origin.
pub(super) struct BlockSpan<'a> {
    pub ys: &'a [Poly],
    pub xs: &'a [Poly],
    pub rows: i64,
    pub cols: i64,
}

impl Planner<'_> {
    /// `uniform` split into the conditions the select must keep and the ones the block
    /// implies (see the module documentation).
    pub(super) fn implied_conditions(
        &self,
        block: &BlockSpan,
        uniform: Vec<(Id, bool)>,
    ) -> (Vec<(Id, bool)>, Vec<Id>) {
        let mut kept = Vec::new();
        let mut implied = Vec::new();
        for (c, polarity) in uniform {
            let parts = if polarity { self.nonneg_parts(c) } else { None };
            match parts {
                Some(parts) if parts.iter().all(|p| self.block_before_zero(block, p)) => {
                    implied.push(c)
                }
                _ => kept.push((c, polarity)),
            }
        }
        (kept, implied)
    }

    /// The values `v_i` when `cond` is `v ≥ 0` (`v > -1`, `0 ≤ v`, `-1 < v`) and `v` is the OR
    /// of the `v_i`; `None` for any other condition.
    fn nonneg_parts(&self, cond: Id) -> Option<Vec<Poly>> {
        if self.m.def_inst(cond)?.operands().len() != 2 {
            return None;
        }
        let v = self.nonneg_tested(cond)?;
        let mut parts = Vec::new();
        self.or_parts(v, MAX_OR_DEPTH, &mut parts)?;
        Some(parts)
    }

    /// The polynomials of the operands of the OR tree `v` (32-bit values only).
    fn or_parts(&self, v: Id, depth: u32, out: &mut Vec<Poly>) -> Option<()> {
        let inst = self.m.def_inst(v)?;
        if depth > 0 && inst.is(Op::BitwiseOr) && inst.operands().len() == 2 {
            let (a, b) = (inst.operand_id(0)?, inst.operand_id(1)?);
            let same_type = |x: Id| self.m.type_of(x) == inst.result_type();
            if same_type(a) && same_type(b) {
                self.or_parts(a, depth - 1, out)?;
                return self.or_parts(b, depth - 1, out);
            }
        }
        let p = self.lanes.poly(v)?;
        (p.width == 32 && p.is_lane_invariant() && !p.terms().is_empty()).then_some(())?;
        out.push(p.clone());
        Some(())
    }

    /// Whether a negative `v` puts the whole block before row 0 or before column 0 in every
    /// subgroup (see the module documentation).
    fn block_before_zero(&self, block: &BlockSpan, v: &Poly) -> bool {
        let t = self.lanes.trailing_zeros(v).min(MAX_ALIGNMENT_BITS);
        let wide = v.with_width(64);
        let before = |origins: &[Poly], extent: i64| {
            !origins.is_empty()
                && origins.iter().all(|o| {
                    o.sub(&wide)
                        .and_then(|d| d.as_constant())
                        .is_some_and(|d| d >= 0 && d.saturating_add(extent) <= 1i64 << t)
                })
        };
        before(block.ys, block.rows) || before(block.xs, block.cols)
    }
}
