//! How the elements of one Subgroup-scope cooperative matrix are dealt to the invocations of
//! the subgroup once it is per-invocation data.
//!
//! A matrix of R x C elements becomes, in every invocation, a vector of `slots = R·C / SG`
//! components of the matrix's component type (a scalar when `slots` is 1). Two deals:
//!
//! * **Columns** with packing `P` (the layouts of `SPV_INTEL_subgroup_matrix_multiply_accumulate`
//!   and of `SPV_INTEL_2d_block_io` loads): the columns are cut into groups of `SG·P`;
//!   invocation `lane` holds columns `g·SG·P + lane·P .. + P-1` of every row of group `g`,
//!   slot `g·R·P + r·P + (c mod P)`. With `P = 1` an invocation holds one column per group, rows
//!   in consecutive slots: the MMA's C / Result layout, the B layout before VNNI packing (a
//!   bitcast of the column to 32-bit values *is* the VNNI packing: lower rows in lower bits),
//!   and A's layout when `K = SG` (16-bit elements, SG 16). `P = 2` is A's layout for 8-bit
//!   elements on SG 16 (and 16-bit on SG 8): two adjacent columns per row, lower column in the
//!   lower bits once bitcast to 16-bit values. Needs `C mod (SG·P) = 0`.
//! * **Flat**, for every other shape: element `e = r·C + c` (row-major) is in invocation
//!   `e mod SG`, slot `e / SG`. Needs `R·C mod SG = 0`.
//!
//! Which deal a matrix gets depends only on its type (use, component width, shape) and the
//! subgroup size, so every value of one type has the same deal and element-wise operations,
//! phis and conversions between types of the same deal stay per-component.

/// `OpTypeCooperativeMatrixKHR`'s Use operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MatrixUse {
    A,
    B,
    Accumulator,
}

impl MatrixUse {
    pub fn from_word(w: u64) -> Option<MatrixUse> {
        match w {
            0 => Some(MatrixUse::A),
            1 => Some(MatrixUse::B),
            2 => Some(MatrixUse::Accumulator),
            _ => None,
        }
    }
}

/// The deal of one matrix type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Deal {
    Columns { pack: u32 },
    Flat,
}

/// A matrix type's shape and deal.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Distribution {
    pub rows: u32,
    pub cols: u32,
    pub sg: u32,
    pub deal: Deal,
}

/// Largest matrix converted (256 x 256): keeps the code for one instruction bounded (a MulAdd
/// of such matrices is at most 8192 MMA atoms).
pub const MAX_ELEMENTS: u64 = 65536;

/// Bytes of K in one MMA atom: every DPAS systolic step consumes 32 bytes of A per row
/// (K = 16 for 16-bit, 32 for 8-bit elements) on SIMD8 and SIMD16 parts alike.
pub const MMA_K_BYTES: u32 = 32;

/// Why a matrix has no deal ([`Distribution::choose`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DealError {
    /// A dimension (or the subgroup size) is 0.
    #[error("a {rows}x{cols} matrix has no elements to deal")]
    Empty { rows: u32, cols: u32 },
    /// More than [`MAX_ELEMENTS`] elements.
    #[error(
        "a {rows}x{cols} matrix is larger than the {MAX_ELEMENTS} elements the conversion handles"
    )]
    TooLarge { rows: u32, cols: u32 },
    /// The element count is not a multiple of the subgroup size.
    #[error("a {rows}x{cols} matrix cannot be dealt evenly to a subgroup of {sg} invocations")]
    Uneven { rows: u32, cols: u32, sg: u32 },
}

impl Distribution {
    /// The deal for a `rows` x `cols` matrix of `use_` with `bits`-bit components on subgroup
    /// size `sg`, or why there is none.
    pub fn choose(
        use_: MatrixUse,
        bits: u32,
        rows: u32,
        cols: u32,
        sg: u32,
    ) -> Result<Distribution, DealError> {
        if rows == 0 || cols == 0 || sg == 0 {
            return Err(DealError::Empty { rows, cols });
        }
        if u64::from(rows) * u64::from(cols) > MAX_ELEMENTS {
            return Err(DealError::TooLarge { rows, cols });
        }
        // A's MMA layout packs K_atom / SG adjacent columns per invocation.
        let pack = match use_ {
            // (A mutated module can declare any subgroup size and component width: no overflow.)
            MatrixUse::A
                if bits
                    .checked_mul(sg)
                    .is_some_and(|bs| bs > 0 && (MMA_K_BYTES * 8).is_multiple_of(bs)) =>
            {
                (MMA_K_BYTES * 8 / (bits * sg)).max(1)
            }
            _ => 1,
        };
        let deal = if cols.is_multiple_of(sg * pack) {
            Deal::Columns { pack }
        } else if (u64::from(rows) * u64::from(cols)).is_multiple_of(u64::from(sg)) {
            Deal::Flat
        } else {
            return Err(DealError::Uneven { rows, cols, sg });
        };
        Ok(Distribution {
            rows,
            cols,
            sg,
            deal,
        })
    }

    /// Components per invocation.
    pub fn slots(&self) -> u32 {
        ((u64::from(self.rows) * u64::from(self.cols)) / u64::from(self.sg)) as u32
    }

    /// The (row, column) that invocation `lane` holds in `slot`.
    pub fn position(&self, lane: u32, slot: u32) -> (u32, u32) {
        match self.deal {
            Deal::Columns { pack } => {
                let per_group = self.rows * pack;
                let (g, w) = (slot / per_group, slot % per_group);
                (w / pack, g * self.sg * pack + lane * pack + w % pack)
            }
            Deal::Flat => {
                let e = slot * self.sg + lane;
                (e / self.cols, e % self.cols)
            }
        }
    }

    /// The slot of element (row, col) inside the invocation that holds it.
    pub fn slot_of(&self, row: u32, col: u32) -> u32 {
        match self.deal {
            Deal::Columns { pack } => {
                let g = col / (self.sg * pack);
                g * self.rows * pack + row * pack + col % pack
            }
            Deal::Flat => (row * self.cols + col) / self.sg,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every element is dealt exactly once, and `slot_of` inverts `position`.
    #[test]
    fn deals_are_bijections() {
        for (u, bits, r, c, sg) in [
            (MatrixUse::A, 16, 16, 16, 16),
            (MatrixUse::A, 8, 16, 32, 16),
            (MatrixUse::A, 16, 8, 32, 8),
            (MatrixUse::B, 16, 16, 8, 16),
            (MatrixUse::B, 8, 32, 16, 16),
            (MatrixUse::Accumulator, 32, 16, 48, 16),
            (MatrixUse::A, 32, 8, 8, 16),
        ] {
            let d = Distribution::choose(u, bits, r, c, sg).unwrap();
            let mut seen = vec![false; (r * c) as usize];
            for lane in 0..sg {
                for s in 0..d.slots() {
                    let (row, col) = d.position(lane, s);
                    assert!(row < r && col < c, "{d:?} lane {lane} slot {s}");
                    assert!(!std::mem::replace(
                        &mut seen[(row * c + col) as usize],
                        true
                    ));
                    assert_eq!(d.slot_of(row, col), s);
                }
            }
            assert!(seen.iter().all(|&x| x));
        }
    }

    #[test]
    fn mma_layouts() {
        // f16 A on SG 16: one column per invocation, rows in slots (SPV_INTEL_subgroup_matrix
        // _multiply_accumulate "N equal to K").
        let a = Distribution::choose(MatrixUse::A, 16, 8, 16, 16).unwrap();
        assert_eq!(a.deal, Deal::Columns { pack: 1 });
        assert_eq!(a.position(3, 5), (5, 3));
        // i8 A on SG 16: two adjacent columns per row ("N less than K").
        let a8 = Distribution::choose(MatrixUse::A, 8, 8, 32, 16).unwrap();
        assert_eq!(a8.deal, Deal::Columns { pack: 2 });
        assert_eq!(a8.position(3, 5), (2, 7));
        // B 16x8 on SG 16 cannot be one column per invocation.
        let b = Distribution::choose(MatrixUse::B, 16, 16, 8, 16).unwrap();
        assert_eq!(b.deal, Deal::Flat);
        assert!(Distribution::choose(MatrixUse::B, 16, 3, 5, 16).is_err());
    }
}
