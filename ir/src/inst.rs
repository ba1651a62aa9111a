//! One SPIR-V instruction: opcode and operand words, kept inline.

use smallvec::SmallVec;

use crate::grammar;
use crate::id::Id;

/// Operand words of an instruction, stored inline up to this many.
pub type Words = SmallVec<[u32; 6]>;

/// One instruction. `words` holds everything after the word-count/opcode word, exactly as in
/// the binary: result type id (if any), result id (if any), then the operands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Inst {
    opcode: u16,
    flags: u8,
    /// The words after the opcode word: result type, result, operands.
    pub words: Words,
}

const HAS_TYPE: u8 = 1;
const HAS_RESULT: u8 = 2;

impl Inst {
    /// Builds an instruction from its parts.
    pub fn new(
        op: spirv::Op,
        result_type: Option<Id>,
        result: Option<Id>,
        operands: &[u32],
    ) -> Inst {
        let mut words = Words::with_capacity(operands.len() + 2);
        let mut flags = 0;
        if let Some(t) = result_type {
            words.push(t.word());
            flags |= HAS_TYPE;
        }
        if let Some(r) = result {
            words.push(r.word());
            flags |= HAS_RESULT;
        }
        words.extend_from_slice(operands);
        Inst {
            opcode: op as u16,
            flags,
            words,
        }
    }

    /// Builds an instruction from a raw opcode and its words (everything after the first word),
    /// reading from the grammar whether it has a result type and result id.
    pub fn from_raw(opcode: u16, words: &[u32]) -> Inst {
        let (t, r) = grammar::inst_desc(opcode)
            .map(|d| (d.has_result_type(), d.has_result()))
            .unwrap_or((false, false));
        let flags = (if t { HAS_TYPE } else { 0 }) | (if r { HAS_RESULT } else { 0 });
        Inst {
            opcode,
            flags,
            words: Words::from_slice(words),
        }
    }

    /// The raw opcode number.
    pub fn opcode(&self) -> u16 {
        self.opcode
    }

    /// The opcode, if the `spirv` crate knows it (a table lookup).
    pub fn op(&self) -> Option<spirv::Op> {
        op_of(self.opcode)
    }

    /// Whether this is `op`.
    pub fn is(&self, op: spirv::Op) -> bool {
        self.opcode == op as u16
    }

    /// The opcode's name (`OpIAdd`), or `Op<number>` for opcodes the grammar does not know.
    pub fn name(&self) -> std::borrow::Cow<'static, str> {
        opcode_display(self.opcode)
    }

    /// Whether the first word of `words` is a result type id (per the grammar).
    pub fn has_result_type(&self) -> bool {
        self.flags & HAS_TYPE != 0
    }

    /// Whether `words` holds a result id (after the result type, if any).
    pub fn has_result(&self) -> bool {
        self.flags & HAS_RESULT != 0
    }

    /// The result type id.
    pub fn result_type(&self) -> Option<Id> {
        if self.has_result_type() {
            self.words.first().copied().and_then(Id::new)
        } else {
            None
        }
    }

    /// The result id.
    pub fn result_id(&self) -> Option<Id> {
        if self.has_result() {
            let i = usize::from(self.has_result_type());
            self.words.get(i).copied().and_then(Id::new)
        } else {
            None
        }
    }

    /// Index of the first operand word after the result type and result id.
    pub fn operand_start(&self) -> usize {
        usize::from(self.has_result_type()) + usize::from(self.has_result())
    }

    /// The operand words after the result type and result id.
    pub fn operands(&self) -> &[u32] {
        let s = self.operand_start().min(self.words.len());
        &self.words[s..]
    }

    /// Mutable operand words after the result type and result id.
    pub fn operands_mut(&mut self) -> &mut [u32] {
        let s = self.operand_start().min(self.words.len());
        &mut self.words[s..]
    }

    /// Operand word `i` (after type and result) read as an id.
    pub fn operand_id(&self, i: usize) -> Option<Id> {
        self.operands().get(i).copied().and_then(Id::new)
    }

    /// Operand word `i` (after type and result) as a literal.
    pub fn operand_word(&self, i: usize) -> Option<u32> {
        self.operands().get(i).copied()
    }

    /// Sets the result id (the instruction must have one).
    pub fn set_result_id(&mut self, id: Id) {
        if self.has_result() {
            let i = usize::from(self.has_result_type());
            self.words[i] = id.word();
        }
    }

    /// Sets the result type id (the instruction must have one).
    pub fn set_result_type(&mut self, id: Id) {
        if self.has_result_type() {
            self.words[0] = id.word();
        }
    }

    /// Number of words in the binary encoding, first word included.
    pub fn word_count(&self) -> usize {
        self.words.len() + 1
    }
}

/// The name of an opcode or `Op<number>` when unknown.
pub fn opcode_display(opcode: u16) -> std::borrow::Cow<'static, str> {
    match grammar::opcode_name(opcode) {
        Some(n) => std::borrow::Cow::Borrowed(n),
        None => std::borrow::Cow::Owned(format!("Op<{opcode}>")),
    }
}

/// `spirv::Op` of a raw opcode through a table filled lazily, one opcode at a time
/// (`Op::from_u32` is a large match and passes ask for every instruction; filling the whole
/// table up front cost a tenth of a process's first `-O` call).
pub fn op_of(opcode: u16) -> Option<spirv::Op> {
    const SIZE: usize = 8192;
    static TABLE: [std::sync::OnceLock<Option<spirv::Op>>; SIZE] =
        [const { std::sync::OnceLock::new() }; SIZE];
    match TABLE.get(opcode as usize) {
        Some(slot) => *slot.get_or_init(|| spirv::Op::from_u32(u32::from(opcode))),
        None => spirv::Op::from_u32(u32::from(opcode)),
    }
}
