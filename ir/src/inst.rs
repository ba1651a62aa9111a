//! One SPIR-V instruction, as it sits in memory: a head word and its operand words.
//!
//! [`Inst`] is an unsized view (`#[repr(C)] { head: u32, words: [u32] }`): a module keeps all
//! its instructions in one pooled word buffer (`Module`'s pool, the binary's words with each
//! first word replaced by the head) and hands out `&Inst` into it, so loading copies words
//! and allocates nothing per instruction, and reading an operand is one indexed load.
//! [`InstBuf`] is the owned form, used to build instructions before they go into a module
//! (`Inst::new` returns one; `inst.to_owned()` copies one out).
//!
//! The head holds the opcode (low 16 bits) and whether the first words are a result type and
//! a result id (bits 16 and 17): what the grammar says for the opcode, or what the builder
//! said. The word count is the length of `words` plus one.

use std::borrow::Borrow;
use std::fmt;
use std::ops::{Deref, DerefMut};

use smallvec::SmallVec;

use crate::grammar;
use crate::id::Id;

/// Owned operand words, inline up to this many (head included).
pub type Words = SmallVec<[u32; 8]>;

/// One instruction. `words` holds everything after the word-count/opcode word, exactly as in
/// the binary: result type id (if any), result id (if any), then the operands.
#[repr(C)]
pub struct Inst {
    head: u32,
    /// The words after the opcode word: result type, result, operands.
    pub words: [u32],
}

const HAS_TYPE: u32 = 1 << 16;
const HAS_RESULT: u32 = 1 << 17;

/// The head word of an instruction of `opcode`, with the grammar's result type / result flags.
#[inline]
pub(crate) fn head_of(opcode: u16) -> u32 {
    let (t, r) = grammar::inst_desc(opcode)
        .map(|d| (d.has_result_type(), d.has_result()))
        .unwrap_or((false, false));
    head_with(opcode, t, r)
}

#[inline]
fn head_with(opcode: u16, has_type: bool, has_result: bool) -> u32 {
    u32::from(opcode)
        | (if has_type { HAS_TYPE } else { 0 })
        | (if has_result { HAS_RESULT } else { 0 })
}

impl Inst {
    /// Builds an instruction from its parts.
    #[allow(clippy::new_ret_no_self)]
    pub fn new(
        op: spirv::Op,
        result_type: Option<Id>,
        result: Option<Id>,
        operands: &[u32],
    ) -> InstBuf {
        let mut words = Words::with_capacity(operands.len() + 3);
        words.push(head_with(
            op as u16,
            result_type.is_some(),
            result.is_some(),
        ));
        if let Some(t) = result_type {
            words.push(t.word());
        }
        if let Some(r) = result {
            words.push(r.word());
        }
        words.extend_from_slice(operands);
        InstBuf { words }
    }

    /// Builds an instruction from a raw opcode and its words (everything after the first word),
    /// reading from the grammar whether it has a result type and result id.
    pub fn from_raw(opcode: u16, words: &[u32]) -> InstBuf {
        let mut buf = Words::with_capacity(words.len() + 1);
        buf.push(head_of(opcode));
        buf.extend_from_slice(words);
        InstBuf { words: buf }
    }

    /// The instruction whose head is `words[0]` and whose words are the rest.
    ///
    /// # Panics
    /// If `words` is empty.
    #[inline]
    pub(crate) fn from_slice(words: &[u32]) -> &Inst {
        assert!(!words.is_empty(), "an instruction has a head word");
        // SAFETY: `Inst` is `repr(C)` with a `u32` head and a `[u32]` tail, so it has the
        // layout of `words.len()` consecutive `u32`s, alignment 4; the fat pointer's metadata
        // is the tail length (`words.len() - 1`), which stays inside the borrowed slice.
        unsafe {
            &*(std::ptr::slice_from_raw_parts(words.as_ptr(), words.len() - 1) as *const Inst)
        }
    }

    /// Mutable form of [`Inst::from_slice`].
    #[inline]
    pub(crate) fn from_slice_mut(words: &mut [u32]) -> &mut Inst {
        assert!(!words.is_empty(), "an instruction has a head word");
        // SAFETY: as in `from_slice`; the slice is borrowed uniquely for the result's lifetime.
        unsafe {
            &mut *(std::ptr::slice_from_raw_parts_mut(words.as_mut_ptr(), words.len() - 1)
                as *mut Inst)
        }
    }

    /// The instruction of `len` words (head included, at least 1) at `ptr`.
    ///
    /// # Safety
    /// `ptr` must point to `len` initialised `u32`s that stay valid and unchanged (and not
    /// mutably borrowed elsewhere) for `'a`.
    #[inline(always)]
    pub(crate) unsafe fn from_raw_parts<'a>(ptr: *const u32, len: usize) -> &'a Inst {
        debug_assert!(len >= 1);
        // SAFETY: as in `from_slice`, given the caller's promise.
        unsafe { &*(std::ptr::slice_from_raw_parts(ptr, len - 1) as *const Inst) }
    }

    /// The head word and the words, as one slice (the pooled form).
    pub(crate) fn as_slice(&self) -> &[u32] {
        // SAFETY: the inverse of `from_slice`: `self` is `1 + words.len()` consecutive u32s.
        unsafe { std::slice::from_raw_parts(&self.head as *const u32, self.words.len() + 1) }
    }

    /// The raw opcode number.
    #[inline]
    pub fn opcode(&self) -> u16 {
        self.head as u16
    }

    /// The opcode, if the `spirv` crate knows it (a table lookup).
    #[inline]
    pub fn op(&self) -> Option<spirv::Op> {
        op_of(self.opcode())
    }

    /// Whether this is `op`.
    #[inline]
    pub fn is(&self, op: spirv::Op) -> bool {
        self.opcode() == op as u16
    }

    /// The opcode's name (`OpIAdd`), or `Op<number>` for opcodes the grammar does not know.
    pub fn name(&self) -> std::borrow::Cow<'static, str> {
        opcode_display(self.opcode())
    }

    /// Whether the first word of `words` is a result type id (per the grammar).
    #[inline]
    pub fn has_result_type(&self) -> bool {
        self.head & HAS_TYPE != 0
    }

    /// Whether `words` holds a result id (after the result type, if any).
    #[inline]
    pub fn has_result(&self) -> bool {
        self.head & HAS_RESULT != 0
    }

    /// The result type id.
    #[inline]
    pub fn result_type(&self) -> Option<Id> {
        if self.has_result_type() {
            self.words.first().copied().and_then(Id::new)
        } else {
            None
        }
    }

    /// The result id.
    #[inline]
    pub fn result_id(&self) -> Option<Id> {
        if self.has_result() {
            let i = usize::from(self.has_result_type());
            self.words.get(i).copied().and_then(Id::new)
        } else {
            None
        }
    }

    /// Index of the first operand word after the result type and result id.
    #[inline]
    pub fn operand_start(&self) -> usize {
        usize::from(self.has_result_type()) + usize::from(self.has_result())
    }

    /// The operand words after the result type and result id.
    #[inline]
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
    #[inline]
    pub fn operand_id(&self, i: usize) -> Option<Id> {
        self.operands().get(i).copied().and_then(Id::new)
    }

    /// Operand word `i` (after type and result) as a literal.
    #[inline]
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
    #[inline]
    pub fn word_count(&self) -> usize {
        self.words.len() + 1
    }

    /// The first word of the binary encoding (word count and opcode).
    #[inline]
    pub fn first_word(&self) -> u32 {
        ((self.word_count() as u32) << 16) | u32::from(self.opcode())
    }
}

impl fmt::Debug for Inst {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Inst")
            .field("opcode", &self.opcode())
            .field("has_type", &self.has_result_type())
            .field("has_result", &self.has_result())
            .field("words", &&self.words)
            .finish()
    }
}

impl PartialEq for Inst {
    fn eq(&self, other: &Inst) -> bool {
        self.head == other.head && self.words == other.words
    }
}

impl Eq for Inst {}

impl std::hash::Hash for Inst {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.head.hash(state);
        self.words.hash(state);
    }
}

impl AsRef<Inst> for Inst {
    fn as_ref(&self) -> &Inst {
        self
    }
}

impl ToOwned for Inst {
    type Owned = InstBuf;
    fn to_owned(&self) -> InstBuf {
        InstBuf {
            words: Words::from_slice(self.as_slice()),
        }
    }
}

/// An owned instruction (head word and words in one small vector), for building instructions
/// before they are placed in a module. Dereferences to [`Inst`].
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct InstBuf {
    /// Head word first, then the instruction's words.
    words: Words,
}

impl InstBuf {
    /// Keeps the first `len` words after the head.
    pub fn truncate(&mut self, len: usize) {
        self.words.truncate(len + 1);
    }

    /// Replaces the words after the head (result type, result, operands) by `words`.
    pub fn set_words(&mut self, words: &[u32]) {
        self.words.truncate(1);
        self.words.extend_from_slice(words);
    }
}

impl Deref for InstBuf {
    type Target = Inst;
    fn deref(&self) -> &Inst {
        Inst::from_slice(&self.words)
    }
}

impl DerefMut for InstBuf {
    fn deref_mut(&mut self) -> &mut Inst {
        Inst::from_slice_mut(&mut self.words)
    }
}

impl AsRef<Inst> for InstBuf {
    fn as_ref(&self) -> &Inst {
        self
    }
}

impl Borrow<Inst> for InstBuf {
    fn borrow(&self) -> &Inst {
        self
    }
}

impl fmt::Debug for InstBuf {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
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
#[inline]
pub fn op_of(opcode: u16) -> Option<spirv::Op> {
    const SIZE: usize = 8192;
    static TABLE: [std::sync::OnceLock<Option<spirv::Op>>; SIZE] =
        [const { std::sync::OnceLock::new() }; SIZE];
    match TABLE.get(opcode as usize) {
        Some(slot) => *slot.get_or_init(|| spirv::Op::from_u32(u32::from(opcode))),
        None => spirv::Op::from_u32(u32::from(opcode)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn built_instruction_reads_back_its_parts() {
        let i = Inst::new(spirv::Op::IAdd, Id::new(3), Id::new(7), &[5, 6]);
        assert_eq!(i.opcode(), spirv::Op::IAdd as u16);
        assert_eq!(i.result_type(), Id::new(3));
        assert_eq!(i.result_id(), Id::new(7));
        assert_eq!(i.operands(), &[5, 6]);
        assert_eq!(i.word_count(), 5);
        assert_eq!(i.first_word(), (5 << 16) | spirv::Op::IAdd as u32);
        let copy: InstBuf = (*i).to_owned();
        assert_eq!(copy, i);
    }

    #[test]
    fn view_over_a_slice_has_the_tail_as_words() {
        let pool = [head_of(spirv::Op::Store as u16), 11, 12];
        let i = Inst::from_slice(&pool);
        assert!(i.is(spirv::Op::Store));
        assert!(!i.has_result());
        assert_eq!(&i.words, &[11, 12]);
        assert_eq!(i.as_slice(), &pool);
    }
}
