//! Errors of the simulator's semantic core: undefined behaviour a kernel commits and launches or
//! operands the simulator cannot give a meaning to.
//!
//! Every message is one line. Variants name the rule they enforce; where the rule comes from a
//! specification the Display text says which limit was broken, so a failing simulation reads like
//! a diagnosis ("OpSubgroup2DBlockLoadINTEL: base address 0x10020 is not 64-byte aligned").
//! Sources: `SPV_INTEL_2d_block_io` "Restrictions", `SPV_INTEL_subgroups` and the Level Zero SPIR-V
//! environment (block read/write alignment), `SPV_INTEL_subgroup_matrix_multiply_accumulate`
//! ("Matrix Multiply Accumulate Operands", "Mapping Matrix Data to Invocations").

use std::fmt;

use thiserror::Error;

/// Anything the semantic core refuses: undefined behaviour, bad launches, unsupported operands.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SimError {
    /// An access through a pointer into the first page (a null pointer plus a small offset).
    #[error("null pointer access: {size} bytes at address {addr:#x}")]
    NullAccess { addr: u64, size: u64 },

    /// An access that is not inside any allocation and not near one.
    #[error("unmapped access: {size} bytes at address {addr:#x} are outside every allocation")]
    Unmapped { addr: u64, size: u64 },

    /// An access that starts inside (or in the guard gap next to) an allocation and does not fit.
    #[error(
        "out-of-bounds access: {size} bytes at address {addr:#x} leave allocation `{name}` \
         [{base:#x}, {end:#x})",
        end = base.saturating_add(*len)
    )]
    OutOfBounds {
        addr: u64,
        size: u64,
        name: String,
        base: u64,
        len: u64,
    },

    /// An address that breaks an alignment rule.
    #[error("misaligned access: {what}: address {addr:#x} is not {align}-byte aligned")]
    Misaligned {
        addr: u64,
        align: u64,
        what: &'static str,
    },

    /// The simulator could not create an allocation.
    #[error("cannot allocate {size} bytes (alignment {align}): {reason}")]
    BadAlloc {
        size: u64,
        align: u64,
        reason: &'static str,
    },

    /// A base address that does not name a live allocation.
    #[error("no allocation starts at address {base:#x}")]
    UnknownAllocation { base: u64 },

    /// A subgroup shape an instruction does not allow.
    #[error("{op}: subgroup of size {size} (max size {max_size}): {issue}")]
    Subgroup {
        op: &'static str,
        size: u32,
        max_size: u32,
        issue: SubgroupIssue,
    },

    /// A 2D block IO operand outside the limits of `SPV_INTEL_2d_block_io`.
    #[error("{op}: {limit}")]
    Block2d {
        op: &'static str,
        limit: Block2dLimit,
    },

    /// A 1D subgroup block operand outside its limits.
    #[error("{op}: {issue}")]
    BlockIo1d { op: &'static str, issue: String },

    /// Per-invocation data of the wrong length (a caller passed a value of the wrong type).
    #[error("{what}: invocation {invocation} supplies {got} bytes, expected {expected}")]
    DataSize {
        what: &'static str,
        invocation: usize,
        expected: usize,
        got: usize,
    },

    /// Per-invocation data for the wrong number of invocations.
    #[error("{what}: data for {got} invocations, expected {expected}")]
    InvocationCount {
        what: &'static str,
        expected: usize,
        got: usize,
    },

    /// `OpSubgroupMatrixMultiplyAccumulateINTEL` operands the simulator cannot interpret.
    #[error("OpSubgroupMatrixMultiplyAccumulateINTEL: {0}")]
    Mma(MmaIssue),

    /// A module the interpreter cannot execute (malformed or outside what it decodes).
    #[error("bad module: {0}")]
    Module(String),

    /// A launch description that does not fit the kernel.
    #[error("bad launch: {0}")]
    Launch(String),

    /// An instruction or form the simulator does not implement.
    #[error("unsupported: {0}")]
    Unsupported(String),

    /// Undefined behaviour the kernel commits (other than the memory faults above).
    #[error("undefined behaviour: {0}")]
    Undefined(String),

    /// A subgroup executed more instructions than the budget allows.
    #[error("step budget exceeded ({0} instructions per subgroup)")]
    Budget(u64),

    /// An error located at an instruction of a function, in one invocation.
    #[error(
        "{error} (in function {func}, at {inst}, invocation ({}, {}, {}))",
        invocation[0], invocation[1], invocation[2]
    )]
    At {
        func: String,
        inst: String,
        invocation: [u64; 3],
        error: Box<SimError>,
    },
}

/// Why a subgroup shape is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SubgroupIssue {
    /// Size or max size zero.
    Empty,
    /// SubgroupMaxSize is not a power of two.
    MaxSizeNotPowerOfTwo,
    /// SubgroupSize differs from SubgroupMaxSize (a partial subgroup).
    Partial,
    /// Larger than the simulator supports (`subgroup::MAX_SUBGROUP_SIZE`).
    TooLarge,
    /// SubgroupSize above SubgroupMaxSize.
    SizeAboveMax,
}

impl fmt::Display for SubgroupIssue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            SubgroupIssue::Empty => "the subgroup is empty",
            SubgroupIssue::MaxSizeNotPowerOfTwo => "SubgroupMaxSize is not a power of two",
            SubgroupIssue::Partial => {
                "SubgroupSize differs from SubgroupMaxSize (partial subgroup)"
            }
            SubgroupIssue::TooLarge => "larger than the simulator supports",
            SubgroupIssue::SizeAboveMax => "SubgroupSize exceeds SubgroupMaxSize",
        })
    }
}

/// A broken limit of `SPV_INTEL_2d_block_io` ("Restrictions") or of the simulator itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Block2dLimit {
    /// "The Element Size must be 1, 2, 4, or 8 bytes."
    ElementSize { element_size: u32 },
    /// "The Block Width must be a multiple of four for 1-byte elements, or of two for 2-byte."
    BlockWidthMultiple {
        block_width: u32,
        element_size: u32,
        multiple: u32,
    },
    /// A Block Width, Block Height or Block Count of zero (the spec gives such a block no meaning).
    ZeroBlockDimension {
        block_width: u32,
        block_height: u32,
        block_count: u32,
    },
    /// UB unless "the first component of Coordinate is a multiple of four for 1-byte elements,
    /// or a multiple of two for 2-byte elements".
    CoordinateX {
        x: i64,
        element_size: u32,
        multiple: u32,
    },
    /// UB unless "the per-subgroup source or destination base address is cache-line aligned".
    BaseAlignment { base: u64, alignment: u64 },
    /// UB unless "the per-invocation source or destination address is aligned to a multiple of
    /// the Element Size" (the Function-storage Dst/Src pointer).
    InvocationPointerAlignment { addr: u64, element_size: u32 },
    /// UB unless "the Memory Width is >= 64 bytes and <= 2^24 bytes".
    MemoryWidth { memory_width: i64 },
    /// UB unless "the Memory Height is greater than zero and <= 2^24 rows".
    MemoryHeight { memory_height: i64 },
    /// UB unless "the Memory Pitch is >= the Memory Width" ...
    PitchBelowWidth {
        memory_pitch: i64,
        memory_width: i64,
    },
    /// ... "and a multiple of 8 bytes".
    PitchMultiple { memory_pitch: i64 },
    /// The VNNI transform packs 1- or 2-byte elements only; other sizes have no defined layout.
    TransformElementSize { element_size: u32 },
    /// The padded block is larger than the simulator supports (`block_io_2d::MAX_BLOCK_BYTES`).
    TooLarge { bytes: u64 },
}

impl fmt::Display for Block2dLimit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Block2dLimit::ElementSize { element_size } => {
                write!(f, "Element Size {element_size} is not 1, 2, 4 or 8 bytes")
            }
            Block2dLimit::BlockWidthMultiple {
                block_width,
                element_size,
                multiple,
            } => write!(
                f,
                "Block Width {block_width} is not a multiple of {multiple} for \
                 {element_size}-byte elements"
            ),
            Block2dLimit::ZeroBlockDimension {
                block_width,
                block_height,
                block_count,
            } => write!(
                f,
                "zero block dimension (Block Width {block_width}, Block Height {block_height}, \
                 Block Count {block_count})"
            ),
            Block2dLimit::CoordinateX {
                x,
                element_size,
                multiple,
            } => write!(
                f,
                "Coordinate x {x} is not a multiple of {multiple} for {element_size}-byte elements"
            ),
            Block2dLimit::BaseAlignment { base, alignment } => {
                if alignment == 64 {
                    write!(
                        f,
                        "base address {base:#x} is not 64-byte (cache-line) aligned"
                    )
                } else {
                    write!(f, "base address {base:#x} is not {alignment}-byte aligned")
                }
            }
            Block2dLimit::InvocationPointerAlignment { addr, element_size } => write!(
                f,
                "per-invocation pointer {addr:#x} is not aligned to the Element Size \
                 {element_size}"
            ),
            Block2dLimit::MemoryWidth { memory_width } => {
                write!(f, "Memory Width {memory_width} is outside [64, 2^24] bytes")
            }
            Block2dLimit::MemoryHeight { memory_height } => {
                write!(f, "Memory Height {memory_height} is outside [1, 2^24] rows")
            }
            Block2dLimit::PitchBelowWidth {
                memory_pitch,
                memory_width,
            } => write!(
                f,
                "Memory Pitch {memory_pitch} is less than the Memory Width {memory_width}"
            ),
            Block2dLimit::PitchMultiple { memory_pitch } => {
                write!(
                    f,
                    "Memory Pitch {memory_pitch} is not a multiple of 8 bytes"
                )
            }
            Block2dLimit::TransformElementSize { element_size } => write!(
                f,
                "the VNNI transform is defined for 1- and 2-byte elements, not {element_size}-byte"
            ),
            Block2dLimit::TooLarge { bytes } => write!(
                f,
                "padded block data of {bytes} bytes exceeds the simulator's limit"
            ),
        }
    }
}

/// Which matrix operand of the MMA instruction an issue concerns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MmaMatrix {
    A,
    B,
    C,
    Result,
}

impl fmt::Display for MmaMatrix {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            MmaMatrix::A => "Matrix A",
            MmaMatrix::B => "Matrix B",
            MmaMatrix::C => "Matrix C",
            MmaMatrix::Result => "Result",
        })
    }
}

/// Why `OpSubgroupMatrixMultiplyAccumulateINTEL` operands cannot be interpreted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MmaIssue {
    /// Operand bits outside the spec's table (0x1..=0x2000).
    UnknownOperandBits { bits: u32 },
    /// More than one element interpretation (packed int8/int4, TF32, packed fp16/bf16) for one matrix.
    ConflictingInterpretations { matrix: MmaMatrix, bits: u32 },
    /// An interpretation bit whose component type cannot carry it (e.g. TF32 on a 16-bit type).
    InterpretationComponent {
        matrix: MmaMatrix,
        flag: &'static str,
        component: String,
    },
    /// A component type the simulator does not know (e.g. a 12-bit integer).
    ComponentType {
        matrix: MmaMatrix,
        component: String,
    },
    /// Integer and floating-point operands mixed (e.g. int8 A with fp16 B, or int A/B with float C).
    MixedDomains { detail: &'static str },
    /// K Dim, M or N zero.
    ZeroDimension { m: u32, n: u32, k: u32 },
    /// Neither of K and N divides the other, so Matrix A cannot be distributed.
    KAndSubgroupSize { k: u32, n: u32 },
    /// An operand whose total size does not match what M, N, K and its element type require.
    OperandBits {
        matrix: MmaMatrix,
        expected_bits: u64,
        got_bits: u64,
    },
    /// An operand whose component count does not match M (C and Result carry one row per component).
    ComponentCount {
        matrix: MmaMatrix,
        expected: u32,
        got: u32,
    },
}

impl fmt::Display for MmaIssue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MmaIssue::UnknownOperandBits { bits } => write!(
                f,
                "Matrix Multiply Accumulate Operands bits {bits:#x} are not in the spec's table"
            ),
            MmaIssue::ConflictingInterpretations { matrix, bits } => write!(
                f,
                "{matrix} has more than one element interpretation (operand bits {bits:#x})"
            ),
            MmaIssue::InterpretationComponent {
                matrix,
                flag,
                component,
            } => write!(
                f,
                "{matrix}: {flag} cannot apply to components of type {component}"
            ),
            MmaIssue::ComponentType { matrix, component } => {
                write!(f, "{matrix}: unsupported component type {component}")
            }
            MmaIssue::MixedDomains { detail } => {
                write!(f, "unsupported type combination: {detail}")
            }
            MmaIssue::ZeroDimension { m, n, k } => {
                write!(f, "zero dimension (M {m}, N {n}, K {k})")
            }
            MmaIssue::KAndSubgroupSize { k, n } => write!(
                f,
                "K Dim {k} and subgroup size {n}: neither divides the other, Matrix A has no layout"
            ),
            MmaIssue::OperandBits {
                matrix,
                expected_bits,
                got_bits,
            } => write!(
                f,
                "{matrix} carries {got_bits} bits per invocation, the shape needs {expected_bits}"
            ),
            MmaIssue::ComponentCount {
                matrix,
                expected,
                got,
            } => write!(f, "{matrix} has {got} components, M is {expected}"),
        }
    }
}
