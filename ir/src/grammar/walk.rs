//! Walking one instruction's operand words with the grammar tables: [`walk_operands`] reports
//! every operand (where it starts, how many words, what it is) and checks the instruction's
//! structure on the way (strings terminated, no words past the grammar, known extended sets).

use super::*;
use crate::id::Id;

/// What the walker needs to know about the rest of the module.
pub trait WalkContext {
    /// The extended instruction set imported as `set`.
    fn ext_set(&self, set: Id) -> Option<ExtSet>;
    /// The number of words of a literal of the type of value `value` (OpSwitch selectors).
    fn literal_words_of_value(&self, value: Id) -> Option<u32>;
}

/// One operand found by [`walk_operands`]: where it starts (index into the instruction's operand
/// words, i.e. without the opcode word), how many words, and what it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OperandSlot {
    /// Index of the operand's first word among the instruction's operand words.
    pub index: usize,
    /// How many words it has.
    pub words: usize,
    /// What it is.
    pub kind: SlotKind,
}

/// The interpretation of one operand slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SlotKind {
    /// The result type id.
    ResultType,
    /// The result id.
    Result,
    /// An id operand.
    Id,
    /// A literal number or enumerant word.
    Literal,
    /// A literal string (NUL-terminated, padded to words).
    String,
    /// Words whose meaning the grammar does not give (unknown enumerant, unknown ext inst);
    /// kept verbatim.
    Opaque,
}

/// Why an instruction's words do not fit its grammar.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WalkError {
    /// The words end before a required operand.
    MissingOperand,
    /// A literal string without a NUL terminator.
    UnterminatedString,
    /// A literal string that is not UTF-8.
    InvalidUtf8,
    /// Words (here: how many) left after the last operand.
    ExtraWords(usize),
    /// `OpExtInst` of a set (the id here) whose grammar is not known.
    UnknownExtSet(u32),
    /// `OpSwitch` whose selector type is not an integer type of known width.
    UnknownSwitchSelectorType,
}

impl std::fmt::Display for WalkError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WalkError::MissingOperand => write!(f, "missing operand"),
            WalkError::UnterminatedString => write!(f, "string operand is not nul-terminated"),
            WalkError::InvalidUtf8 => write!(f, "string operand is not valid UTF-8"),
            WalkError::ExtraWords(n) => {
                write!(f, "{n} word(s) beyond the operands the grammar allows")
            }
            WalkError::UnknownExtSet(id) => {
                write!(
                    f,
                    "OpExtInst uses %{id}, which is not an OpExtInstImport of a known set"
                )
            }
            WalkError::UnknownSwitchSelectorType => {
                write!(f, "OpSwitch selector is not a value of integer type")
            }
        }
    }
}

struct Walker<'a, C, F, G> {
    words: &'a [u32],
    pos: usize,
    ctx: &'a C,
    f: F,
    /// Called with (enum kind index, value) for every enum operand (every set bit of a bit enum).
    on_enum: G,
    /// Words of the literal of OpConstant / OpSpecConstant: the rest of the instruction.
    opcode: u16,
}

impl<C: WalkContext, F: FnMut(OperandSlot), G: FnMut(u16, u32)> Walker<'_, C, F, G> {
    fn emit(&mut self, words: usize, kind: SlotKind) -> Result<(), WalkError> {
        if self.pos + words > self.words.len() {
            return Err(WalkError::MissingOperand);
        }
        (self.f)(OperandSlot {
            index: self.pos,
            words,
            kind,
        });
        self.pos += words;
        Ok(())
    }

    fn remaining(&self) -> usize {
        self.words.len() - self.pos
    }

    fn string(&mut self) -> Result<(), WalkError> {
        let start = self.pos;
        let mut end = start;
        loop {
            let Some(&w) = self.words.get(end) else {
                return Err(WalkError::UnterminatedString);
            };
            end += 1;
            if w.to_le_bytes().contains(&0) {
                break;
            }
        }
        let bytes = string_bytes(&self.words[start..end]);
        if std::str::from_utf8(bytes).is_err() {
            return Err(WalkError::InvalidUtf8);
        }
        self.emit(end - start, SlotKind::String)
    }

    fn operands(&mut self, ops: &'static [(OperandKind, Quantifier)]) -> Result<bool, WalkError> {
        for &(kind, quant) in ops {
            match quant {
                Quantifier::One => {
                    if !self.operand(kind)? {
                        return Ok(false);
                    }
                }
                Quantifier::Optional => {
                    if self.remaining() > 0 && !self.operand(kind)? {
                        return Ok(false);
                    }
                }
                Quantifier::Many => {
                    while self.remaining() > 0 {
                        if !self.operand(kind)? {
                            return Ok(false);
                        }
                    }
                }
            }
        }
        Ok(true)
    }

    /// Walks one logical operand. Returns `Ok(false)` when the rest of the instruction became
    /// opaque (unknown enumerant or ext inst), which ends the walk successfully.
    fn operand(&mut self, kind: OperandKind) -> Result<bool, WalkError> {
        match kind {
            OperandKind::ResultType => self.emit(1, SlotKind::ResultType)?,
            OperandKind::Result => self.emit(1, SlotKind::Result)?,
            OperandKind::Id => self.emit(1, SlotKind::Id)?,
            OperandKind::Literal => self.emit(1, SlotKind::Literal)?,
            OperandKind::String => self.string()?,
            OperandKind::ContextNumber => {
                // OpConstant / OpSpecConstant: the literal is the rest of the instruction.
                // OpSwitch's literals are handled by PairLiteralId.
                let n = self.remaining().max(1);
                self.emit(n, SlotKind::Literal)?;
            }
            OperandKind::ExtInstNumber => {
                // words[2] is the set id, words[3] the number (after result type and id).
                let set = self.words.get(self.pos.wrapping_sub(1)).copied();
                self.emit(1, SlotKind::Literal)?;
                let number = self.words[self.pos - 1];
                let set_id = set.and_then(Id::new);
                let ext = set_id.and_then(|s| self.ctx.ext_set(s));
                let Some(ext) = ext else {
                    return Err(WalkError::UnknownExtSet(set.unwrap_or(0)));
                };
                if ext == ExtSet::NonSemantic {
                    while self.remaining() > 0 {
                        self.emit(1, SlotKind::Id)?;
                    }
                    return Ok(true);
                }
                match ext.inst(number) {
                    Some(desc) => return self.operands(desc.operands),
                    None => {
                        self.opaque();
                        return Ok(false);
                    }
                }
            }
            OperandKind::SpecConstantOp => {
                // An opcode of OpSpecConstantOp itself (invalid SPIR-V, well formed for the
                // grammar) is followed by another opcode, and so on: read the run of them in a
                // loop, exactly as the grammar's recursion would, so a 65,535-word instruction
                // is not 65,535 nested calls (a stack overflow on hostile input).
                let op = loop {
                    self.emit(1, SlotKind::Literal)?;
                    let op = self.words[self.pos - 1];
                    if op != spirv::Op::SpecConstantOp as u32 {
                        break op;
                    }
                };
                let desc = u16::try_from(op).ok().and_then(inst_desc);
                match desc {
                    Some(d) => {
                        let ops = d.operands;
                        let skip = ops
                            .iter()
                            .take_while(|(k, _)| {
                                matches!(k, OperandKind::ResultType | OperandKind::Result)
                            })
                            .count();
                        return self.operands(&ops[skip..]);
                    }
                    None => {
                        self.opaque();
                        return Ok(false);
                    }
                }
            }
            OperandKind::PairLiteralId => {
                let width = if self.opcode == spirv::Op::Switch as u16 {
                    let selector = self.words.first().copied().and_then(Id::new);
                    selector
                        .and_then(|s| self.ctx.literal_words_of_value(s))
                        .ok_or(WalkError::UnknownSwitchSelectorType)? as usize
                } else {
                    1
                };
                self.emit(width, SlotKind::Literal)?;
                self.emit(1, SlotKind::Id)?;
            }
            OperandKind::PairIdLiteral => {
                self.emit(1, SlotKind::Id)?;
                self.emit(1, SlotKind::Literal)?;
            }
            OperandKind::PairIdId => {
                self.emit(1, SlotKind::Id)?;
                self.emit(1, SlotKind::Id)?;
            }
            OperandKind::ValueEnum(k) => {
                self.emit(1, SlotKind::Literal)?;
                let value = self.words[self.pos - 1];
                (self.on_enum)(k, value);
                match enum_kind(k).get(value) {
                    Some(e) => return self.operands(e.params),
                    None => {
                        self.opaque();
                        return Ok(false);
                    }
                }
            }
            OperandKind::BitEnum(k) => {
                self.emit(1, SlotKind::Literal)?;
                let mask = self.words[self.pos - 1];
                let kind = enum_kind(k);
                let mut bits = mask;
                while bits != 0 {
                    let bit = bits & bits.wrapping_neg();
                    bits &= bits - 1;
                    (self.on_enum)(k, bit);
                    match kind.get(bit) {
                        Some(e) => {
                            if !self.operands(e.params)? {
                                return Ok(false);
                            }
                        }
                        None => {
                            self.opaque();
                            return Ok(false);
                        }
                    }
                }
            }
        }
        Ok(true)
    }

    fn opaque(&mut self) {
        let n = self.remaining();
        if n > 0 {
            (self.f)(OperandSlot {
                index: self.pos,
                words: n,
                kind: SlotKind::Opaque,
            });
            self.pos += n;
        }
    }
}

/// Walks the operand words of one instruction (`words` excludes the word-count/opcode word) and
/// calls `f` for every operand slot, in order. Unknown opcodes report all words as opaque.
pub fn walk_operands<C: WalkContext>(
    opcode: u16,
    words: &[u32],
    ctx: &C,
    f: impl FnMut(OperandSlot),
) -> Result<(), WalkError> {
    walk_operands_with_enums(opcode, words, ctx, f, |_, _| {})
}

/// [`walk_operands`], also calling `on_enum(kind, value)` for every enum operand (kind is the
/// index for [`enum_kind`] / [`enum_requirements`]; a bit enum reports each set bit), before
/// the enumerant's parameters are walked.
pub fn walk_operands_with_enums<C: WalkContext>(
    opcode: u16,
    words: &[u32],
    ctx: &C,
    f: impl FnMut(OperandSlot),
    on_enum: impl FnMut(u16, u32),
) -> Result<(), WalkError> {
    let mut w = Walker {
        words,
        pos: 0,
        ctx,
        f,
        on_enum,
        opcode,
    };
    let Some(desc) = inst_desc(opcode) else {
        w.opaque();
        return Ok(());
    };
    if w.operands(desc.operands)? && w.remaining() > 0 {
        return Err(WalkError::ExtraWords(w.remaining()));
    }
    Ok(())
}
