//! What the loader needs to know about an opcode, in one table entry: the head word it gets
//! in the pool, where its used ids are when its operands are plain words (the grammar's fast
//! shape, which also stands for the structural check of those operands), and the module-level
//! section it belongs to. One lookup per instruction instead of one per question.

use crate::grammar::{self, FastTail};
use crate::inst::head_of;
use crate::module::Section;
use crate::opcode_table::PerOpcode;

/// No fast shape: the loader walks the grammar.
pub(super) const NOT_FAST: u8 = 3;
/// The fixed prefix is followed by exactly one string (checked by `grammar::is_exact_string`).
pub(super) const STRING: u8 = 4;
/// The fixed prefix is followed by a value enum and its parameters (`FastTail::Enum`).
const ENUM: u8 = 5;
/// The fixed prefix is followed by an optional bit enum and its bits' parameters
/// (`FastTail::Bits`).
const BITS: u8 = 6;
const NO_SECTION: u8 = 0xff;

/// The loader's facts about one opcode.
#[derive(Clone, Copy)]
pub(super) struct LoadDesc {
    /// The head word (opcode and result type / result flags).
    pub head: u32,
    /// Bit i: word i of the fixed prefix is a used id.
    pub use_mask: u32,
    /// Words in the fixed prefix.
    pub fixed: u8,
    /// `FastTail` as 0 (nothing), 1 (ids), 2 (literals), [`STRING`], `ENUM`, `BITS`, or
    /// [`NOT_FAST`].
    pub tail: u8,
    /// The enum kind of an `ENUM` or `BITS` tail.
    enum_kind: u16,
    /// `Section` index of a module-level opcode, or none.
    section: u8,
    /// The grammar knows the opcode.
    pub known: bool,
    /// A known opcode that goes in a block as is: no module-level section, and none of the
    /// instructions that open or close a function or block (`OpFunction`,
    /// `OpFunctionParameter`, `OpLabel`, `OpFunctionEnd`).
    pub plain_body: bool,
}

impl LoadDesc {
    /// The module-level section of the opcode (`Section::of_opcode`).
    #[inline]
    pub fn section(&self) -> Option<Section> {
        Section::ALL.get(usize::from(self.section)).copied()
    }

    /// Whether the fast shape covers an instruction whose words after the first are `words`,
    /// and if so, which words after the fixed prefix are used ids besides an ids tail (bit k:
    /// word `fixed + k`; only enum tails have such words).
    #[inline(always)]
    pub fn fit(&self, words: &[u32]) -> Option<u32> {
        let fixed = usize::from(self.fixed);
        let len = words.len();
        let fits = match self.tail {
            NOT_FAST => false,
            STRING => len > fixed && grammar::is_exact_string(&words[fixed..]),
            0 => len == fixed,
            ENUM => return self.enum_tail(words, false),
            BITS if len == fixed => true,
            BITS => return self.enum_tail(words, true),
            _ => len >= fixed,
        };
        fits.then_some(0)
    }

    #[cold]
    fn enum_tail(&self, words: &[u32], bits: bool) -> Option<u32> {
        let fixed = usize::from(self.fixed);
        if words.len() <= fixed {
            return None;
        }
        grammar::enum_tail_uses(self.enum_kind, bits, &words[fixed..])
    }

    /// The entry of an opcode the grammar does not know.
    fn unknown(opcode: u16) -> LoadDesc {
        LoadDesc {
            head: head_of(opcode),
            use_mask: 0,
            fixed: 0,
            tail: NOT_FAST,
            enum_kind: 0,
            section: Section::of_opcode(opcode).map_or(NO_SECTION, |s| s as u8),
            known: false,
            plain_body: false,
        }
    }

    fn of(opcode: u16) -> LoadDesc {
        let mut d = LoadDesc::unknown(opcode);
        d.known = grammar::inst_desc(opcode).is_some();
        use spirv::Op;
        d.plain_body = d.known
            && d.section == NO_SECTION
            && ![
                Op::Function,
                Op::FunctionParameter,
                Op::Label,
                Op::FunctionEnd,
            ]
            .iter()
            .any(|&o| o as u16 == opcode);
        if let Some(shape) = grammar::fast_shape(opcode) {
            d.use_mask = shape.use_mask;
            d.fixed = shape.fixed;
            d.tail = match shape.tail {
                FastTail::Nothing => 0,
                FastTail::Ids => 1,
                FastTail::Literals => 2,
                FastTail::Enum(k) => {
                    d.enum_kind = k;
                    ENUM
                }
                FastTail::Bits(k) => {
                    d.enum_kind = k;
                    BITS
                }
            };
        } else if let Some((use_mask, fixed)) = grammar::string_tail_shape(opcode) {
            d.use_mask = use_mask;
            d.fixed = fixed;
            d.tail = STRING;
        }
        d
    }
}

/// The entry of `opcode` (computed on its first use).
#[inline]
pub(super) fn load_desc(opcode: u16) -> LoadDesc {
    static TABLE: PerOpcode<LoadDesc> = PerOpcode::new();
    TABLE.get(opcode, LoadDesc::of)
}
