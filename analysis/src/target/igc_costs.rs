//! What Intel's compiler makes of each 2D block load and prefetch shape, per device: how many
//! `send` messages (`load_block2d`, to a register or to `null`) and how many registers they
//! write back (`rd:N` in the disassembly), or that it rejects the shape outright.
//!
//! Measured, not inferred: `igc_costs_probe.py` (next to this file) generates one kernel per
//! shape the device's table accepts (SIMD16, run-time surface and coordinates), compiles the
//! module with ocloc at 256 GRF and counts each kernel's sends; [`IGC_COSTS_SOURCE`] names the
//! compiler. The shape tables (`profiles.rs`) say what the specification and IGC's front end
//! allow; these rows say what the back end then does. Facts the rows record (IGC 2.40.14):
//! every accepted load, transform, transpose and prefetch shape is one message on `pvc` and
//! `bmg` (a transposed `32b 32r8x1c` too: one message, 16 registers); 44 load shapes with
//! Block Count > 1 and less than 16 bytes per block row, and the small 64-bit loads and
//! transposes, are rejected ("not supported due to hardware constraints") although the front
//! end's table lists them.
//!
//! Fusion and prefetch decisions ask [`Target::igc_block_cost`]: a fused shape IGC rejects is
//! not made, and a fusion that does not reduce the messages gains nothing. Devices without
//! measured rows answer `None` (callers then fall back to the shape tables alone).

use super::Target;
use crate::block_kind::BlockKind;

mod data;

/// Which compiler the rows were measured with, and how.
pub const IGC_COSTS_SOURCE: &str = "measured 2026-12-02 with ocloc 26.27.039122 + IGC (libigc2) \
2.40.14, -cl-intel-256-GRF-per-thread, SIMD16, one kernel per shape \
(analysis/src/target/igc_costs_probe.py)";

/// What IGC makes of one 2D block shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlockCost {
    /// The operation (loads and prefetches are measured).
    pub op: BlockKind,
    /// Element size in bytes.
    pub elem: u32,
    /// Block width (elements).
    pub width: u32,
    /// Block height (rows).
    pub height: u32,
    /// Block count.
    pub count: u32,
    /// `send` messages IGC issues for it; 0 when IGC rejects the shape.
    pub messages: u32,
    /// Registers the messages write back (0 for prefetches and rejected shapes).
    pub registers: u32,
}

impl BlockCost {
    /// Whether IGC refuses to compile the shape.
    pub fn rejected(&self) -> bool {
        self.messages == 0
    }
}

/// A compiled row.
pub(super) const fn c(
    op: BlockKind,
    elem: u32,
    width: u32,
    height: u32,
    count: u32,
    messages: u32,
    registers: u32,
) -> BlockCost {
    BlockCost {
        op,
        elem,
        width,
        height,
        count,
        messages,
        registers,
    }
}

/// A rejected row.
pub(super) const fn x(op: BlockKind, elem: u32, width: u32, height: u32, count: u32) -> BlockCost {
    c(op, elem, width, height, count, 0, 0)
}

impl Target {
    /// The measured rows of this device (empty when none were measured). The profile is the
    /// data layer: the rows belong to a profile the way its shape tables do.
    pub fn igc_block_costs(&self) -> &'static [BlockCost] {
        match self.name.as_str() {
            "pvc" => data::PVC,
            "bmg" => data::BMG,
            _ => &[],
        }
    }

    /// What IGC makes of this load or prefetch shape on this device, when measured.
    pub fn igc_block_cost(
        &self,
        op: BlockKind,
        elem: u32,
        w: u32,
        h: u32,
        count: u32,
    ) -> Option<BlockCost> {
        self.igc_block_costs()
            .iter()
            .find(|r| {
                r.op == op && r.elem == elem && r.width == w && r.height == h && r.count == count
            })
            .copied()
    }

    /// Whether IGC is measured to reject this shape (a shape not measured is not rejected).
    pub fn igc_rejects_block(&self, op: BlockKind, elem: u32, w: u32, h: u32, count: u32) -> bool {
        self.igc_block_cost(op, elem, w, h, count)
            .is_some_and(|r| r.rejected())
    }

    /// Messages IGC issues for this shape: the measured count, else 1 for a shape the tables
    /// support (the hardware's one message), else `None`.
    pub fn igc_messages(
        &self,
        op: BlockKind,
        elem: u32,
        w: u32,
        h: u32,
        count: u32,
    ) -> Option<u32> {
        match self.igc_block_cost(op, elem, w, h, count) {
            Some(r) if r.rejected() => None,
            Some(r) => Some(r.messages),
            None => self.supports_2d_block(op, elem, w, h, count).then_some(1),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_measured_row_is_a_shape_the_tables_accept() {
        for t in [Target::pvc(), Target::bmg()] {
            assert!(!t.igc_block_costs().is_empty());
            for r in t.igc_block_costs() {
                assert!(
                    t.supports_2d_block(r.op, r.elem, r.width, r.height, r.count),
                    "{}: {r:?}",
                    t.name
                );
            }
        }
    }

    #[test]
    fn rejected_shapes_are_not_offered_and_plain_gemm_shapes_are_one_message() {
        let t = Target::pvc();
        assert!(t.igc_rejects_block(BlockKind::Load, 1, 4, 1, 2));
        assert_eq!(t.igc_messages(BlockKind::Load, 1, 4, 1, 2), None);
        let big = t
            .igc_block_cost(BlockKind::Load, 2, 16, 32, 2)
            .expect("measured");
        assert_eq!((big.messages, big.registers), (1, 31));
        assert_eq!(
            t.igc_messages(BlockKind::LoadTransform, 2, 16, 32, 2),
            Some(1)
        );
        assert!(Target::by_name("dg2")
            .expect("profile")
            .igc_block_costs()
            .is_empty());
    }
}
