//! Why `raise-block-io` does not raise an MMA operand: one reason per rejected candidate, with
//! its statistics key and sentence (shared by the planner and the obligations' discharge).

/// Why an operand is not raised.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OperandReject {
    NotStaged,
    NoWriter,
    NotGlobal,
    NoLayout,
    NotAPitch,
    MaskNotABound,
    NoBound,
    MixedMasks,
    Misaligned,
    VectorOffsetFromMask,
    OriginOutOfRange,
    NarrowMask,
    OverBudget,
    NarrowWidening,
    UnprovableAssumption,
    ObligationFalse,
}

impl OperandReject {
    /// Statistics key and reason.
    pub fn reason(self) -> (&'static str, &'static str) {
        match self {
            OperandReject::NotStaged => (
                "rejected_not_staged",
                "the operand is not assembled from Workgroup loads of the staging",
            ),
            OperandReject::NoWriter => (
                "rejected_no_writer",
                "a Workgroup byte the operand reads is not stored in the iteration",
            ),
            OperandReject::NotGlobal => (
                "rejected_not_global",
                "a staged value does not come from a global load",
            ),
            OperandReject::NoLayout => (
                "rejected_no_layout",
                "no 2D block load of the target deals the elements in the operand's order",
            ),
            OperandReject::NotAPitch => (
                "rejected_not_a_pitch",
                "the row stride is not one uniform term or the origin does not split into rows and columns",
            ),
            OperandReject::MaskNotABound => (
                "rejected_mask_not_a_bound",
                "a mask conjunct is not a row or column bound",
            ),
            OperandReject::NoBound => (
                "rejected_no_bound",
                "the elements are not masked by both a row and a column bound",
            ),
            OperandReject::MixedMasks => (
                "rejected_mixed_masks",
                "the elements' masks disagree on the bounds",
            ),
            OperandReject::Misaligned => (
                "rejected_misaligned",
                "the column origin is not a multiple of the element pairs the target needs",
            ),
            OperandReject::OriginOutOfRange => (
                "rejected_origin_out_of_range",
                "a block origin may not fit the block operation's 32-bit coordinate and cannot be checked before the body",
            ),
            OperandReject::OverBudget => (
                "rejected_over_budget",
                "the operand is larger than any MMA operand a device takes",
            ),
            OperandReject::NarrowMask => (
                "rejected_narrow_mask",
                "a mask compares values narrower than 32 bits: the lane map cannot show they do not wrap",
            ),
            OperandReject::NarrowWidening => (
                "rejected_narrow_widening",
                "an index computed in fewer than 32 bits is widened: the lane map cannot show it does not wrap",
            ),
            OperandReject::UnprovableAssumption => (
                "rejected_unprovable_assumption",
                "a remainder's range cannot be checked before the kernel body",
            ),
            OperandReject::ObligationFalse => (
                "rejected_obligation_false",
                "a condition the block IO needs (a surface legal for 2D block IO, a bound that is a multiple of the vector, a trip count) is false for every launch",
            ),
            OperandReject::VectorOffsetFromMask => (
                "rejected_vector_offset_from_mask",
                "a masked vector's first column is not a multiple of the vector: its mask is not the vector's column bound",
            ),
        }
    }
}
