//! The enum operands of an instruction (storage classes, decorations, memory access bits, …)
//! without walking the grammar for every instruction: [`for_each_enum`] reports exactly what
//! [`Module::walk_enums`] reports, in the same order.
//!
//! What: most opcodes with enum operands have a simple layout, read from the grammar once per
//! opcode ([`EnumLayout`], on the opcode's first use): a prefix of single-word operands
//! (result type, result, ids, literals, enums whose enumerants take no parameters), then
//! either operands that can hold no enum (ids, literals, strings, in any arrangement) or one
//! last enum operand whose enumerants take single-word parameters (`OpDecorate`'s decoration,
//! `OpLoad`'s memory access, `OpLoopMerge`'s loop control). Such an instruction's enums are
//! read at their positions; anything else (ext-inst operands, enumerant parameters that are
//! enums or strings, words that do not fit the layout) goes to the grammar walk.
//! Why correct: on the layouts taken, the walk reports the prefix's enums at the prefix's
//! positions and then the last operand's enumerants (each set bit of a bit enum, lowest first),
//! stopping after an unknown enumerant; their parameters hold no enum. The fast path requires
//! the words to fit the layout exactly, so malformed instructions (where the walk would stop
//! early) take the walk.
//! Cost: a table lookup per instruction, then one load per enum operand.

use spvopt_ir::grammar::{enum_kind, inst_desc, EnumKind, Enumerant, OperandKind, Quantifier};
use spvopt_ir::opcode_table::PerOpcode;
use spvopt_ir::{Inst, Module};

/// Enum operands a prefix may hold (more: the opcode is walked).
const MAX_PREFIX_ENUMS: usize = 4;

/// How to find one opcode's enum operands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum EnumLayout {
    /// No operand can be an enum (or the grammar does not know the opcode).
    Nothing,
    /// `len` single-word operands, enums at `enums[..count]` (word index, enum kind), then
    /// `tail`.
    Prefix {
        len: u8,
        enums: [(u8, u16); MAX_PREFIX_ENUMS],
        count: u8,
        tail: Tail,
    },
    /// Anything else: walk the grammar.
    Walk,
}

/// What follows the prefix of an [`EnumLayout::Prefix`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Tail {
    /// Operands that can hold no enum (possibly none).
    NoEnums,
    /// One last enum operand (`?` or exactly once) of this kind, whose enumerants' parameters
    /// are single words that are not enums (checked per enumerant when read).
    Enum(u16),
}

/// Whether an operand of `kind` can make the walk report an enum.
fn may_hold_enum(kind: OperandKind) -> bool {
    matches!(
        kind,
        OperandKind::ValueEnum(_)
            | OperandKind::BitEnum(_)
            | OperandKind::ExtInstNumber
            | OperandKind::SpecConstantOp
    )
}

/// Whether `kind` is always exactly one word.
fn is_single_word(kind: OperandKind) -> bool {
    match kind {
        OperandKind::ResultType | OperandKind::Result | OperandKind::Id | OperandKind::Literal => {
            true
        }
        OperandKind::ValueEnum(k) | OperandKind::BitEnum(k) => {
            enum_kind(k).enumerants.iter().all(|e| e.params.is_empty())
        }
        _ => false,
    }
}

fn layout_of(opcode: u16) -> EnumLayout {
    let Some(desc) = inst_desc(opcode) else {
        return EnumLayout::Nothing;
    };
    if !desc.operands.iter().any(|&(k, _)| may_hold_enum(k)) {
        return EnumLayout::Nothing;
    }
    let mut enums = [(0u8, 0u16); MAX_PREFIX_ENUMS];
    let mut count = 0usize;
    let mut len = 0usize;
    for (n, &(kind, quant)) in desc.operands.iter().enumerate() {
        if quant == Quantifier::One && is_single_word(kind) && len < usize::from(u8::MAX) {
            if let OperandKind::ValueEnum(k) | OperandKind::BitEnum(k) = kind {
                if count == MAX_PREFIX_ENUMS {
                    return EnumLayout::Walk;
                }
                enums[count] = (len as u8, k);
                count += 1;
            }
            len += 1;
            continue;
        }
        let rest = &desc.operands[n..];
        let tail = if !rest.iter().any(|&(k, _)| may_hold_enum(k)) {
            Tail::NoEnums
        } else {
            match rest {
                [(OperandKind::ValueEnum(k) | OperandKind::BitEnum(k), _)] => Tail::Enum(*k),
                _ => return EnumLayout::Walk,
            }
        };
        return EnumLayout::Prefix {
            len: len as u8,
            enums,
            count: count as u8,
            tail,
        };
    }
    EnumLayout::Prefix {
        len: len as u8,
        enums,
        count: count as u8,
        tail: Tail::NoEnums,
    }
}

#[inline]
fn layout(opcode: u16) -> EnumLayout {
    static TABLE: PerOpcode<EnumLayout> = PerOpcode::new();
    TABLE.get(opcode, layout_of)
}

/// Words of an enumerant's parameters, when they are single words that are not enums.
fn plain_param_words(e: &Enumerant) -> Option<usize> {
    e.params
        .iter()
        .all(|&(k, q)| q == Quantifier::One && is_single_word(k) && !may_hold_enum(k))
        .then_some(e.params.len())
}

/// Whether the last enum operand `value` of `kind` (at the end of an instruction whose words
/// after it number `after`) has the fast form: every enumerant plain, with exactly `after`
/// parameter words in all. An unknown enumerant is allowed when nothing follows it (the walk
/// reports it and stops): a value enum's unknown value, a bit enum's unknown highest bit.
fn fits_tail(kind: &EnumKind, value: u32, after: usize) -> bool {
    if !kind.bits {
        return match kind.get(value) {
            Some(e) => plain_param_words(e) == Some(after),
            None => after == 0,
        };
    }
    let mut words = 0;
    let mut bits = value;
    while bits != 0 {
        let bit = bits & bits.wrapping_neg();
        bits &= bits - 1;
        match kind.get(bit) {
            Some(e) => match plain_param_words(e) {
                Some(n) => words += n,
                None => return false,
            },
            None => return bits == 0 && words == after,
        }
    }
    words == after
}

/// Calls `on_enum(kind, value)` for every enum operand of `inst` (every set bit of a bit
/// enum), as [`Module::walk_enums`] does.
pub fn for_each_enum(m: &Module, inst: &Inst, mut on_enum: impl FnMut(u16, u32)) {
    let words = &inst.words;
    let (len, enums, count, tail) = match layout(inst.opcode()) {
        EnumLayout::Nothing => return,
        EnumLayout::Prefix {
            len,
            enums,
            count,
            tail,
        } if words.len() >= usize::from(len) => (usize::from(len), enums, count, tail),
        _ => {
            let _ = m.walk_enums(inst, on_enum);
            return;
        }
    };
    if let Tail::Enum(k) = tail {
        if let Some(&value) = words.get(len) {
            if !fits_tail(enum_kind(k), value, words.len() - len - 1) {
                let _ = m.walk_enums(inst, on_enum);
                return;
            }
        }
    }
    for &(pos, k) in &enums[..usize::from(count)] {
        if !report(enum_kind(k), k, words[usize::from(pos)], &mut on_enum) {
            return;
        }
    }
    // The last operand fits its layout (checked above): every value or bit is reported.
    if let Tail::Enum(k) = tail {
        if let Some(&value) = words.get(len) {
            if enum_kind(k).bits {
                for_each_bit(value, |bit| on_enum(k, bit));
            } else {
                on_enum(k, value);
            }
        }
    }
}

/// Calls `f` with every set bit of `mask`, lowest first.
#[inline]
fn for_each_bit(mask: u32, mut f: impl FnMut(u32)) {
    let mut bits = mask;
    while bits != 0 {
        let bit = bits & bits.wrapping_neg();
        bits &= bits - 1;
        f(bit);
    }
}

/// Reports one enum operand as the walk does (a bit enum bit by bit, lowest first); `false`
/// after an unknown enumerant (where the walk stops).
fn report(kind: &EnumKind, k: u16, value: u32, on_enum: &mut impl FnMut(u16, u32)) -> bool {
    if !kind.bits {
        on_enum(k, value);
        return kind.get(value).is_some();
    }
    let mut bits = value;
    while bits != 0 {
        let bit = bits & bits.wrapping_neg();
        bits &= bits - 1;
        on_enum(k, bit);
        if kind.get(bit).is_none() {
            return false;
        }
    }
    true
}
