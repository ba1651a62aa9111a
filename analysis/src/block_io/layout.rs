//! How the data of one 2D block load or store is dealt to the invocations of a subgroup
//! (SPV_INTEL_2d_block_io, "Mapping Block Data to Invocations"; the simulator's default
//! "hardware" layout, sim/README.md "2D block layout"): for each invocation and value slot, the
//! (row, column) of the dealt block and the memory element(s) behind it. `legalize` lowers 2D
//! block IO with it and `raise-block-io` matches per-invocation accesses against it.
//!
//! The dealt block (SPV_INTEL_2d_block_io, "Mapping Block Data to Invocations"; the
//! simulator's default "hardware" layout, sim/README.md "2D block layout"): plain loads and
//! stores deal `rows = H` rows of `columns = Wp = next_pow2(W)` values of E bytes; transposed
//! loads deal `rows = W` rows of `columns = Hp = next_pow2(H)` (dealt (r, c) is element (c, r));
//! transformed (VNNI) loads deal `rows = ceil(H / P)` rows of `Wp` 32-bit values, `P = 4 / E`,
//! dealt (r, c) packing elements (r·P + j, c) into bits `8·E·j ..` for `j < P`. With subgroup
//! size SG and `u = max(1, 4 / value bytes)` values per dword "unit" (1 for 8-byte values):
//!
//! * scenario 2, `columns < SG`: the block read row-major is dealt round-robin:
//!   `flat = s·SG + lane`, `row = flat / columns`, `col = flat mod columns`
//!   (= `s·(SG/columns) + lane / columns`, `lane mod columns`); `V = ceil(rows·columns / SG)`;
//!   slots past the last row hold 0 (caught by the `row < H` test below).
//! * scenarios 1 and 3 with rows of at most SG units, `SG ≤ columns ≤ SG·u`: with
//!   `n = columns / SG` consecutive values per invocation and row: `row = s / n`,
//!   `col = lane·n + s mod n`; `V = rows · n`.
//! * wide rows, `columns > SG·u` (hardware layout: a row spans several SG-unit registers and
//!   invocation `lane` owns unit `lane` of each): `t = s mod n`, `row = s / n`,
//!   `col = (t / u)·SG·u + lane·u + t mod u`.
//!
//! Worked examples (SG = 16): a 2-byte 16x8 load (`columns = 16 = SG`, n = 1): lane 3 slot 5
//! holds (row 5, col 3). A 4-byte 8x4 load (`columns = 8 < SG`): lane 11 slot 1 has
//! flat = 27, (row 3, col 3). A 1-byte 32x8 load (`columns = 32 ≤ SG·u = 64`, n = 2): lane 5
//! slot 3 holds (row 1, col 11). The transposed-B GEMM's 4-byte 8x32 transposed load
//! (`rows = 8`, `columns = 32 > SG·u = 16`, n = 2, u = 1): lane 5 slot 3 has t = 1, dealt
//! (row 1, col 16 + 5 = 21), i.e. memory element (row 21, column 1) — columns `lane` and
//! `lane + 16`, as the register layout gives, where the spec's literal scenario 3 would give
//! columns 10 and 11.
//!
//! Why it is right: the formulas are the simulator's `Block2dLayout::position` (an independent
//! implementation, the oracle of the tests) and the spec's text for rows up to SG units.

use crate::block_io::BlockKind;

/// How a block's rows are dealt (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Deal {
    /// `columns < SG`: several rows per subgroup-wide slot.
    RowsPerSlot,
    /// `SG ≤ columns ≤ SG·u`: consecutive values of each row per invocation.
    Consecutive,
    /// `columns > SG·u`: unit-interleaved (hardware register layout).
    Interleaved,
}

/// The dealt block of one 2D load or store.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    /// Which 2D block operation.
    pub kind: BlockKind,
    /// Bytes of one element.
    pub element_size: u32,
    /// Block width in elements.
    pub width: u32,
    /// Block height in rows.
    pub height: u32,
    /// Blocks side by side.
    pub count: u32,
    /// The subgroup size the block is dealt over.
    pub subgroup_size: u32,
    /// Dealt rows: H; W for transposed loads; `ceil(H / P)` for transformed loads.
    pub rows: u32,
    /// Values per dealt row: `next_pow2(W)`; `next_pow2(H)` for transposed loads.
    pub columns: u32,
    /// Bytes of one dealt value (4 for transformed loads, else the element size).
    pub value_bytes: u32,
    /// Values per dword unit (1 for 8-byte values).
    pub unit: u32,
    /// Values per invocation per block.
    pub values_per_block: u32,
    /// Rows packed into one value (transformed loads), else 1.
    pub pack: u32,
    /// How the rows are dealt.
    pub deal: Deal,
}

/// Why a 2D block operation has no data layout ([`Layout::new`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LayoutError {
    /// An element size other than 1, 2, 4 or 8 bytes.
    #[error("element size {0} is not 1, 2, 4 or 8")]
    ElementSize(u32),
    /// A width, height or block count of 0 or above 1024.
    #[error("block {width}x{height} count {count} is out of range")]
    OutOfRange {
        /// Block width (elements).
        width: u32,
        /// Block height (rows).
        height: u32,
        /// Block count.
        count: u32,
    },
    /// A subgroup size that is 0 or not a power of two.
    #[error("subgroup size {0} is not a power of two")]
    SubgroupSize(u32),
    /// A transformed (VNNI) load of elements wider than 2 bytes.
    #[error("transformed load of {0}-byte elements")]
    TransformedElements(u32),
    /// A prefetch (it moves no data).
    #[error("prefetches have no data")]
    Prefetch,
}

impl Layout {
    /// The layout of `kind` with this constant shape, or why it is not a valid 2D block op.
    pub fn new(
        kind: BlockKind,
        (e, w, h, c): (u32, u32, u32, u32),
        sg: u32,
    ) -> Result<Layout, LayoutError> {
        if !matches!(e, 1 | 2 | 4 | 8) {
            return Err(LayoutError::ElementSize(e));
        }
        if w == 0 || h == 0 || c == 0 || w > 1024 || h > 1024 || c > 1024 {
            return Err(LayoutError::OutOfRange {
                width: w,
                height: h,
                count: c,
            });
        }
        if sg == 0 || !sg.is_power_of_two() {
            return Err(LayoutError::SubgroupSize(sg));
        }
        let (rows, columns, value_bytes, pack) = match kind {
            BlockKind::Load | BlockKind::Store => (h, w.next_power_of_two(), e, 1),
            BlockKind::LoadTranspose => (w, h.next_power_of_two(), e, 1),
            BlockKind::LoadTransform => {
                if e > 2 {
                    return Err(LayoutError::TransformedElements(e));
                }
                let p = 4 / e;
                (h.div_ceil(p), w.next_power_of_two(), 4, p)
            }
            BlockKind::Prefetch => return Err(LayoutError::Prefetch),
        };
        let unit = (4 / value_bytes).max(1);
        let (deal, values_per_block) = if columns < sg {
            (Deal::RowsPerSlot, (rows * columns).div_ceil(sg))
        } else if columns <= sg * unit {
            (Deal::Consecutive, rows * (columns / sg))
        } else {
            (Deal::Interleaved, rows * (columns / sg))
        };
        Ok(Layout {
            kind,
            element_size: e,
            width: w,
            height: h,
            count: c,
            subgroup_size: sg,
            rows,
            columns,
            value_bytes,
            unit,
            values_per_block,
            pack,
            deal,
        })
    }

    /// The (row, column) of the dealt block that `lane` holds in slot `s` (the formulas the
    /// emitted code computes; rows ≥ `rows` mean "no value").
    pub fn position(&self, lane: u32, s: u32) -> (u32, u32) {
        let sg = self.subgroup_size;
        match self.deal {
            Deal::RowsPerSlot => {
                let flat = s * sg + lane;
                (flat / self.columns, flat % self.columns)
            }
            Deal::Consecutive => {
                let n = self.columns / sg;
                (s / n, lane * n + s % n)
            }
            Deal::Interleaved => {
                let n = self.columns / sg;
                let t = s % n;
                let u = self.unit;
                (s / n, (t / u) * sg * u + lane * u + t % u)
            }
        }
    }

    /// The block element (row, column) behind packed part `j` of dealt value (r, c).
    pub fn element(&self, (r, c): (u32, u32), j: u32) -> (u32, u32) {
        match self.kind {
            BlockKind::LoadTranspose => (c, r),
            BlockKind::LoadTransform => (r * self.pack + j, c),
            _ => (r, c),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lay(kind: BlockKind, e: u32, w: u32, h: u32, sg: u32) -> Layout {
        Layout::new(kind, (e, w, h, 1), sg).unwrap()
    }

    #[test]
    fn spec_examples() {
        // Example 2: 2-wide, 4 rows, SG 4: invocation 2 holds (1,0) and (3,0).
        let l = lay(BlockKind::Load, 4, 2, 4, 4);
        assert_eq!(l.position(2, 0), (1, 0));
        assert_eq!(l.position(2, 1), (3, 0));
        // Example 3 with 2-byte elements: 8-wide, SG 4: invocation 1 holds (0,2),(0,3),(1,2),(1,3).
        let l = lay(BlockKind::Load, 2, 8, 2, 4);
        let got: Vec<_> = (0..4).map(|s| l.position(1, s)).collect();
        assert_eq!(got, [(0, 2), (0, 3), (1, 2), (1, 3)]);
        // Example 4: transpose 2x4, SG 4: invocation 2 holds elements (2,0), (2,1).
        let l = lay(BlockKind::LoadTranspose, 4, 2, 4, 4);
        assert_eq!(l.element(l.position(2, 0), 0), (2, 0));
        assert_eq!(l.element(l.position(2, 1), 0), (2, 1));
    }

    #[test]
    fn worked_examples_of_the_docs() {
        assert_eq!(lay(BlockKind::Load, 2, 16, 8, 16).position(3, 5), (5, 3));
        assert_eq!(lay(BlockKind::Load, 4, 8, 4, 16).position(11, 1), (3, 3));
        assert_eq!(lay(BlockKind::Load, 1, 32, 8, 16).position(5, 3), (1, 11));
        let t = lay(BlockKind::LoadTranspose, 4, 8, 32, 16);
        assert_eq!(t.deal, Deal::Interleaved);
        assert_eq!(t.position(5, 3), (1, 21));
        assert_eq!(t.element(t.position(5, 3), 0), (21, 1));
    }

    #[test]
    fn every_element_dealt_once() {
        for (kind, e, w, h, sg) in [
            (BlockKind::Load, 4, 8, 4, 16),
            (BlockKind::Load, 2, 32, 3, 16),
            (BlockKind::Load, 1, 4, 5, 8),
            (BlockKind::Load, 8, 32, 2, 16),
            (BlockKind::LoadTransform, 1, 12, 7, 16),
            (BlockKind::LoadTransform, 2, 32, 8, 16),
            (BlockKind::LoadTranspose, 4, 3, 5, 4),
            (BlockKind::LoadTranspose, 4, 8, 32, 16),
        ] {
            let l = lay(kind, e, w, h, sg);
            let mut seen = vec![0u32; (l.rows * l.columns) as usize];
            for lane in 0..sg {
                for s in 0..l.values_per_block {
                    let (r, c) = l.position(lane, s);
                    if r < l.rows {
                        seen[(r * l.columns + c) as usize] += 1;
                    }
                }
            }
            assert!(
                seen.iter().all(|&n| n == 1),
                "{kind:?} {e} {w}x{h}: {seen:?}"
            );
        }
    }
}
