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
    /// What is wrong.
    pub kind: LoadErrorKind,
}

/// What is wrong with a binary.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LoadErrorKind {
    /// The input has no bytes.
    Empty,
    /// The byte count (here) is not a multiple of 4.
    NotWholeWords(usize),
    /// Fewer bytes (here) than the 20 of a SPIR-V header.
    TruncatedHeader(usize),
    /// The first word (here) is not the SPIR-V magic number in either byte order.
    BadMagic(u32),
    /// An instruction's word count is 0 (it would never advance).
    ZeroWordCount,
    /// An instruction's word count runs past the end of the module.
    PastEnd {
        /// The instruction's word count.
        word_count: usize,
        /// Words left in the module from the instruction on.
        remaining: usize,
    },
    /// An operand or result is id 0.
    IdZero,
    /// An id at or above the header's id bound.
    IdOutOfBound {
        /// The id.
        id: u32,
        /// The header's bound.
        bound: u32,
    },
    /// An id (here) is the result of two instructions.
    DuplicateDefinition(u32),
    /// An id (here) is used but no instruction defines it.
    UndefinedId(u32),
    /// The operands do not fit the opcode's grammar (the message says how).
    Operands(String),
    /// `OpExtInstImport` of a set (here) the grammar tables do not have.
    UnknownExtInstSet(String),
    /// An instruction outside its section of the logical layout (the message names it).
    OutOfOrder(String),
    /// A function-body instruction before the function's first `OpLabel`.
    OutsideBlock,
    /// A function-body instruction outside any `OpFunction`.
    OutsideFunction,
    /// The module ends inside a function (no `OpFunctionEnd`).
    UnterminatedFunction,
    /// An `OpFunction` inside a function.
    NestedFunction,
    /// An id above the limit for the module's size (dense per-id tables).
    IdTooLargeForSize {
        /// The id.
        id: u32,
        /// The largest id accepted for a module of this size.
        limit: u32,
        /// The module's size in words.
        words: usize,
    },
    /// A result id the module's definition table does not know (a pass bypassed it).
    UnregisteredId(u32),
    /// A function-local id used outside its function.
    ForeignLocalId {
        /// The id and its name.
        id: IdDesc,
        /// Result id of the function defining it.
        defined_in: u32,
        /// Result id of the function using it; `None`: used at module level.
        used_in: Option<u32>,
    },
    /// A use before the definition where SPIR-V allows no forward reference.
    UsedBeforeDefinition(IdDesc),
    /// An operand of the wrong kind (a non-type as a type, a non-function as callee, ...).
    WrongOperandKind {
        /// The operand's id and its name.
        id: IdDesc,
        /// What the operand must be (e.g. "a type").
        expected: &'static str,
        /// What it is (its opcode).
        found: String,
    },
}

/// An id and its `OpName`, if any: displayed as `%12 ("acc")`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IdDesc {
    /// The id.
    pub id: u32,
    /// Its `OpName`, if the module has one.
    pub name: Option<String>,
}

impl IdDesc {
    /// The id `word` of `m` with its `OpName` (a scan of the debug section: for errors only).
    pub fn of(m: &crate::Module, word: u32) -> IdDesc {
        let name = m
            .section_insts(crate::Section::Debug)
            .find(|(_, i)| i.is(spirv::Op::Name) && i.words.first() == Some(&word))
            .and_then(|(_, i)| crate::grammar::decode_string(&i.words[1..]).map(str::to_string));
        IdDesc { id: word, name }
    }
}

impl fmt::Display for IdDesc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "%{}", self.id)?;
        if let Some(n) = &self.name {
            write!(f, " ({n:?})")?;
        }
        Ok(())
    }
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
            DuplicateDefinition(id) => write!(f, "id %{id} is defined twice"),
            UndefinedId(id) => write!(f, "id %{id} is used but never defined"),
            Operands(m) => write!(f, "{m}"),
            UnknownExtInstSet(n) => write!(f, "unknown extended instruction set \"{n}\""),
            OutOfOrder(s) => write!(f, "instruction out of the logical layout order ({s})"),
            OutsideBlock => write!(f, "instruction outside a basic block"),
            OutsideFunction => write!(f, "function-body instruction outside a function"),
            UnterminatedFunction => write!(f, "module ends inside a function (no OpFunctionEnd)"),
            NestedFunction => write!(f, "OpFunction inside a function (missing OpFunctionEnd)"),
            IdTooLargeForSize { id, limit, words } => write!(
                f,
                "id %{id} is above {limit}, the largest id spv-opt accepts in a module of {words} \
                 words (ids index dense tables; renumber them, e.g. spirv-opt --compact-ids)"
            ),
            UnregisteredId(id) => write!(f, "result id %{id} is missing from the definition table"),
            ForeignLocalId {
                id,
                defined_in,
                used_in,
            } => {
                write!(f, "id {id} is local to function %{defined_in} but used ")?;
                match used_in {
                    Some(g) => write!(f, "in function %{g}"),
                    None => write!(f, "at module level"),
                }
            }
            UsedBeforeDefinition(id) => write!(f, "id {id} is used before its definition"),
            WrongOperandKind {
                id,
                expected,
                found,
            } => write!(f, "operand {id} must be {expected}, but is {found}"),
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
