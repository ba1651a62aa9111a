//! Errors of loading a SPIR-V binary: what is wrong and where (byte offset, instruction).

use std::fmt;

/// A module could not be loaded. Displayed as one line naming the byte offset, the instruction
/// (when known) and the problem.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoadError {
    /// Byte offset of the instruction (or header word) concerned.
    pub offset: usize,
    /// Opcode name of the instruction concerned, if any.
    pub instruction: Option<String>,
    pub kind: LoadErrorKind,
}

/// What is wrong with a binary.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LoadErrorKind {
    Empty,
    NotWholeWords(usize),
    TruncatedHeader(usize),
    BadMagic(u32),
    ZeroWordCount,
    PastEnd { word_count: usize, remaining: usize },
    IdZero,
    IdOutOfBound { id: u32, bound: u32 },
    IdTooLarge(u32),
    DuplicateDefinition(u32),
    UndefinedId(u32),
    Operands(String),
    UnknownExtInstSet(String),
    OutOfOrder(String),
    OutsideBlock,
    OutsideFunction,
    UnterminatedFunction,
    NestedFunction,
}

impl fmt::Display for LoadErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use LoadErrorKind::*;
        match self {
            Empty => write!(f, "empty input: no SPIR-V header"),
            NotWholeWords(n) => write!(f, "size {n} bytes is not a multiple of 4 (truncated?)"),
            TruncatedHeader(n) => write!(f, "truncated header: {n} bytes, a SPIR-V header has 20"),
            BadMagic(m) => write!(f, "wrong magic number {m:#010x} (expected 0x07230203)"),
            ZeroWordCount => write!(f, "word count 0"),
            PastEnd {
                word_count,
                remaining,
            } => write!(
                f,
                "word count {word_count} runs past the end of the module ({remaining} word(s) left)"
            ),
            IdZero => write!(f, "id 0 is not a valid id"),
            IdOutOfBound { id, bound } => write!(f, "id %{id} is not below the id bound {bound}"),
            IdTooLarge(id) => write!(
                f,
                "id %{id} exceeds the supported maximum {} (SPIR-V's universal id bound limit is 4194303)",
                crate::loader::MAX_ID
            ),
            DuplicateDefinition(id) => write!(f, "id %{id} is defined twice"),
            UndefinedId(id) => write!(f, "id %{id} is used but never defined"),
            Operands(m) => write!(f, "{m}"),
            UnknownExtInstSet(n) => write!(f, "unknown extended instruction set \"{n}\""),
            OutOfOrder(s) => write!(f, "instruction out of the logical layout order ({s})"),
            OutsideBlock => write!(f, "instruction outside a basic block"),
            OutsideFunction => write!(f, "function-body instruction outside a function"),
            UnterminatedFunction => write!(f, "module ends inside a function (no OpFunctionEnd)"),
            NestedFunction => write!(f, "OpFunction inside a function (missing OpFunctionEnd)"),
        }
    }
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "byte offset {}", self.offset)?;
        if let Some(i) = &self.instruction {
            write!(f, " ({i})")?;
        }
        write!(f, ": {}", self.kind)
    }
}

impl std::error::Error for LoadError {}
