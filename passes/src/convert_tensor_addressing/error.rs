//! Why the conversion cannot express an instruction (or why a tensor access takes the
//! per-element path): one variant per failure, carrying the values the message names. The
//! text of each is the message the pass reports (a diagnostic naming the instruction, or a
//! `fallback` note); it is rendered where the error leaves the conversion (`located`,
//! `Decision::Fallback`), never earlier.

use spirv::Op;

use super::distribution::DealError;
use crate::diagnostic::Location;
use crate::edit::outline::OutlineError;

/// An instruction the conversion cannot express.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub(super) enum ConvertError {
    /// An operand, type or result the instruction needs is absent or not of the kind it must
    /// be (a module that does not validate, or a broken invariant of the conversion's own
    /// rewrites): what it is.
    #[error("{0}")]
    Malformed(&'static str),
    #[error("the TensorView operand is not a tensor view")]
    NotTensorView,
    #[error("the TensorLayout operand is not a tensor layout")]
    NotTensorLayout,
    #[error("the view's permutation {permutation:?} is not a permutation of 0..{dims}")]
    NotAPermutation { permutation: Vec<u32>, dims: u32 },
    #[error("the memory layout is not a constant (RowMajorKHR / ColumnMajorKHR)")]
    KhrLayoutNotConstant,
    /// A joint_matrix memory layout operand that is not a constant.
    #[error("the memory layout is not a constant")]
    LayoutNotConstant,
    #[error("memory layout {0} is not RowMajor or ColumnMajor")]
    UnknownLayout(u32),
    #[error("the PackedINTEL memory layout is not converted (RowMajor and ColumnMajor are)")]
    PackedLayout,
    #[error("A/B element type has no subgroup MMA form")]
    NoMmaElementType,
    #[error("A and B element types differ")]
    AbElementTypesDiffer,
    #[error("MulAdd: {0}")]
    MulAdd(#[from] MulAddError),
    #[error("index out of the invocation's {slots} components")]
    SlotOutOfRange { slots: u32 },
    #[error("decode functions (block-quantised loads) are not supported")]
    DecodeFunction,
    #[error("the layout's clamp mode is not a constant (specialize first)")]
    ClampModeNotConstant,
    #[error(
        "a view of {view_dims} dimensions without its own dimensions used with a layout of \
         {layout_dims}"
    )]
    ViewDimensions { view_dims: u32, layout_dims: u32 },
    #[error("{0:?} on a cooperative matrix is not supported")]
    UnsupportedOp(Op),
    #[error(
        "{0:?} between matrices of different per-invocation layouts (different use or element \
         width) is not supported"
    )]
    MixedDeals(Op),
    #[error("a joint_matrix instruction the conversion does not express")]
    UnknownJointMatrix,
    #[error("the matrix operand is not a cooperative matrix")]
    NotCooperativeMatrix,
    #[error("Index is not a 32-bit integer")]
    IndexNotU32,
    #[error("Rows is not a constant")]
    RowsNotConstant,
    #[error("Columns is not a constant")]
    ColumnsNotConstant,
    #[error("the pointer is not CrossWorkgroup")]
    NotCrossWorkgroup,
    #[error("the pointee is not a scalar of 1, 2, 4 or 8 bytes")]
    NotBlockElement,
    #[error("an operand that must be an integer of at most 64 bits is not")]
    NotInteger64,
    #[error("{op:?} has {got} operands, expected {expected}")]
    OperandCount { op: Op, got: usize, expected: usize },
    #[error("{0:?} is not a tensor layout/view instruction")]
    NotTensorSetter(Op),
    #[error("a member of a tile group takes no block path")]
    TileMemberWithoutBlockPath,
    /// The per-element loop could not be made a function.
    #[error("{0}")]
    Outline(#[from] OutlineError),
}

/// Why a `OpCooperativeMatrixMulAddKHR` has no chain of subgroup MMA atoms (`mul_add`).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub(super) enum MulAddError {
    #[error("saturating accumulation has no subgroup MMA form")]
    Saturating,
    #[error("A ({rows}x{k}, {bits}-bit) is not in the MMA layout for subgroup size {sg}")]
    ANotMmaLayout {
        rows: u32,
        k: u32,
        bits: u32,
        sg: u32,
    },
    #[error(
        "B ({k}x{n}) or C ({rows}x{n}) is not one column per invocation (N must be a multiple \
         of the subgroup size {sg})"
    )]
    NotColumnPerInvocation { rows: u32, k: u32, n: u32, sg: u32 },
    #[error("K = {k} is not a multiple of the MMA K of {k_atom} for {bits}-bit elements")]
    KNotAtomMultiple { k: u32, k_atom: u32, bits: u32 },
    #[error("M = {rows} cannot be cut into MMA atoms of 2..8 rows")]
    MNotAtoms { rows: u32 },
}

/// A type of the module the conversion has no plan for (`types::plan`), and where it is.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{at}: {problem}")]
pub(super) struct PlanError {
    pub at: Location,
    pub problem: TypeProblem,
}

/// What is wrong with a cooperative-matrix or tensor type.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub(super) enum TypeProblem {
    #[error(
        "cooperative matrix type with spec-constant or missing operands (specialize the module \
         first)"
    )]
    SpecConstantShape,
    #[error("only Subgroup-scope cooperative matrices can be dealt to invocations (scope {0})")]
    NotSubgroupScope(u32),
    #[error("unknown matrix use {0}")]
    UnknownUse(u32),
    #[error("unsupported matrix component type")]
    UnsupportedComponent,
    #[error("{0}")]
    Deal(#[from] DealError),
    /// The tensor layout type's dimension count is not a constant.
    #[error("tensor layout Dim")]
    LayoutDim,
    /// The tensor view type's dimension count is not a constant.
    #[error("tensor view Dim")]
    ViewDim,
}
