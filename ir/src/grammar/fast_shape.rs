//! Finding an instruction's used ids without walking its grammar: per opcode, a fixed prefix of
//! single-word operands and an optional all-ids or all-literals tail ([`FastShape`]), computed
//! once from the grammar and kept in per-opcode tables.

use super::*;
use crate::opcode_table::PerOpcode;

/// The operand layout of an opcode when it is simple enough to find ids without walking:
/// a fixed prefix of single-word operands (which of them are used ids is a bit mask) and an
/// optional tail that is all ids or all literals.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FastShape {
    /// Bit i set: word i of the fixed prefix is a used id (result type or id operand).
    pub use_mask: u32,
    /// Number of words in the fixed prefix.
    pub fixed: u8,
    /// What follows the prefix.
    pub tail: FastTail,
}

/// The words after a [`FastShape`]'s fixed prefix.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FastTail {
    /// Nothing may follow: the fast shape applies only when the instruction has exactly the
    /// prefix's length.
    Nothing,
    /// Every remaining word is a used id (OpPhi pairs, call arguments, composite parts).
    Ids,
    /// Every remaining word is a literal.
    Literals,
    /// The last operand is a value enum (index for [`enum_kind`]) whose enumerants carry
    /// parameters (`OpDecorate`'s decoration, `OpExecutionMode`'s mode): fast when the
    /// enumerant is known and its parameters are single words filling the instruction
    /// exactly ([`enum_tail_uses`]).
    Enum(u16),
    /// The last operand is an optional bit enum (`OpLoad`'s memory access, a multiply-
    /// accumulate's operands mask): fast when absent, or when every set bit is known and the
    /// bits' parameters are single words filling the instruction exactly ([`enum_tail_uses`]).
    Bits(u16),
}

/// For the words of an enum operand that ends an instruction (`words[0]` the enum's value or
/// bit mask, the enumerants' parameters after it): bit k set for each parameter word k that
/// is a used id, if every enumerant is known and its parameters are single words that fill
/// `words` exactly (what the grammar walk then finds). `None` otherwise (the caller walks).
#[inline]
pub fn enum_tail_uses(kind: u16, bits: bool, words: &[u32]) -> Option<u32> {
    let (&value, _) = words.split_first()?;
    let kind = enum_kind(kind);
    let mut uses = 0u32;
    let mut pos = 1usize;
    let mut take = |params: &[(OperandKind, Quantifier)]| -> Option<()> {
        for &(p, q) in params {
            if q != Quantifier::One || pos >= 32 {
                return None;
            }
            if single_word_kind(p)? {
                uses |= 1 << pos;
            }
            pos += 1;
        }
        Some(())
    };
    if bits {
        let mut rest = value;
        while rest != 0 {
            let bit = rest & rest.wrapping_neg();
            rest &= rest - 1;
            take(kind.get(bit)?.params)?;
        }
    } else {
        take(kind.get(value)?.params)?;
    }
    (pos == words.len()).then_some(uses)
}

fn single_word_kind(kind: OperandKind) -> Option<bool> {
    // Some(true): an id use; Some(false): a literal or the result id; None: not one plain word.
    match kind {
        OperandKind::ResultType | OperandKind::Id => Some(true),
        OperandKind::Result | OperandKind::Literal => Some(false),
        OperandKind::ValueEnum(k) | OperandKind::BitEnum(k) => enum_kind(k)
            .enumerants
            .iter()
            .all(|e| e.params.is_empty())
            .then_some(false),
        _ => None,
    }
}

fn compute_fast_shape(desc: &InstDesc) -> Option<FastShape> {
    let mut use_mask = 0u32;
    let mut fixed = 0u8;
    let mut tail = FastTail::Nothing;
    for (n, &(kind, quant)) in desc.operands.iter().enumerate() {
        let last = n + 1 == desc.operands.len();
        match quant {
            Quantifier::One => {
                let Some(is_use) = single_word_kind(kind) else {
                    return match kind {
                        OperandKind::ValueEnum(k) if last => Some(FastShape {
                            use_mask,
                            fixed,
                            tail: FastTail::Enum(k),
                        }),
                        // `OpConstant`'s value: at least one literal word, all the rest.
                        OperandKind::ContextNumber if last && fixed < 32 => Some(FastShape {
                            use_mask,
                            fixed: fixed + 1,
                            tail: FastTail::Literals,
                        }),
                        _ => None,
                    };
                };
                if fixed >= 32 {
                    return None;
                }
                if is_use {
                    use_mask |= 1 << fixed;
                }
                fixed += 1;
            }
            Quantifier::Optional | Quantifier::Many => {
                if !last {
                    // An optional operand followed by more: only the exact-length case is fast.
                    return None;
                }
                tail = match kind {
                    OperandKind::Id | OperandKind::PairIdId => FastTail::Ids,
                    OperandKind::Literal => FastTail::Literals,
                    OperandKind::BitEnum(k) if quant == Quantifier::Optional => FastTail::Bits(k),
                    // Other optional tails (memory operands, loop controls, …): fast only
                    // when absent.
                    _ => FastTail::Nothing,
                };
            }
        }
    }
    Some(FastShape {
        use_mask,
        fixed,
        tail,
    })
}

/// For an opcode whose operands are single words and then one string, last (`OpName`,
/// `OpMemberName`, `OpString`, `OpExtension`, `OpExtInstImport`, …): which prefix words are
/// used ids (bit mask) and how many words the prefix has. With a well-formed string tail
/// (see [`is_exact_string`]) the grammar walk has nothing else to find.
pub fn string_tail_shape(opcode: u16) -> Option<(u32, u8)> {
    let desc = inst_desc(opcode)?;
    let (last, prefix) = desc.operands.split_last()?;
    if *last != (OperandKind::String, Quantifier::One) || prefix.len() >= 32 {
        return None;
    }
    let mut use_mask = 0u32;
    for (n, &(kind, quant)) in prefix.iter().enumerate() {
        if quant != Quantifier::One {
            return None;
        }
        if single_word_kind(kind)? {
            use_mask |= 1 << n;
        }
    }
    Some((use_mask, prefix.len() as u8))
}

/// Whether `words` are exactly one nul-terminated UTF-8 string (what the grammar walk accepts
/// for a string operand that ends the instruction).
#[inline]
pub fn is_exact_string(words: &[u32]) -> bool {
    let Some((&last, init)) = words.split_last() else {
        return false;
    };
    !init.iter().any(|w| w.to_le_bytes().contains(&0))
        && last.to_le_bytes().contains(&0)
        && std::str::from_utf8(string_bytes(words)).is_ok()
}

/// Whether words of this operand kind (with every enumerant's parameters) can never hold an
/// id.
fn never_holds_id(kind: OperandKind) -> bool {
    match kind {
        OperandKind::Literal | OperandKind::String | OperandKind::ContextNumber => true,
        OperandKind::ValueEnum(k) | OperandKind::BitEnum(k) => enum_kind(k)
            .enumerants
            .iter()
            .all(|e| e.params.iter().all(|&(p, _)| never_holds_id(p))),
        _ => false,
    }
}

/// Like [`compute_fast_shape`], for finding ids in an instruction already known to be well
/// formed: a tail of any structure that can hold no id (strings, enums with literal
/// parameters, context-dependent numbers) ends the shape as [`FastTail::Literals`].
fn compute_use_shape(desc: &InstDesc) -> Option<FastShape> {
    let mut use_mask = 0u32;
    let mut fixed = 0u8;
    for (n, &(kind, quant)) in desc.operands.iter().enumerate() {
        let last = n + 1 == desc.operands.len();
        let plain = match quant {
            Quantifier::One => single_word_kind(kind),
            _ => None,
        };
        match plain {
            Some(is_use) if fixed < 32 => {
                if is_use {
                    use_mask |= 1 << fixed;
                }
                fixed += 1;
            }
            _ => {
                let rest = &desc.operands[n..];
                let tail = if rest.iter().all(|&(k, _)| never_holds_id(k)) {
                    FastTail::Literals
                } else if let (true, Quantifier::One, OperandKind::ValueEnum(k)) =
                    (last, quant, kind)
                {
                    FastTail::Enum(k)
                } else if let (true, Quantifier::Optional, OperandKind::BitEnum(k)) =
                    (last, quant, kind)
                {
                    FastTail::Bits(k)
                } else if last
                    && quant != Quantifier::One
                    && matches!(kind, OperandKind::Id | OperandKind::PairIdId)
                {
                    FastTail::Ids
                } else {
                    return None;
                };
                return Some(FastShape {
                    use_mask,
                    fixed,
                    tail,
                });
            }
        }
    }
    Some(FastShape {
        use_mask,
        fixed,
        tail: FastTail::Nothing,
    })
}

/// Calls `f(word_index)` for every used-id word of an instruction whose operands are known
/// to be well formed (a loaded module), covering more opcodes than [`for_each_use_fast`]
/// (which also stands for a structural check). Returns `false` (calling nothing) when the
/// caller must walk the grammar.
#[inline]
pub fn for_each_use_known(opcode: u16, words: &[u32], f: impl FnMut(usize)) -> bool {
    static TABLE: PerOpcode<Option<FastShape>> = PerOpcode::new();
    match TABLE.get(opcode, |op| inst_desc(op).and_then(compute_use_shape)) {
        Some(shape) => visit_shape(shape, words, f),
        None => false,
    }
}

/// Whether [`walk_operands_with_enums`] can report any enum operand for `opcode`: `false`
/// when none of its operands is an enum (or an operand whose grammar comes from elsewhere:
/// ext-inst sets, `OpSpecConstantOp`). Unknown opcodes answer `true`. A table lookup.
pub fn may_have_enum_operands(opcode: u16) -> bool {
    static TABLE: PerOpcode<bool> = PerOpcode::new();
    TABLE.get(opcode, |op| {
        inst_desc(op).is_none_or(|d| {
            d.operands.iter().any(|&(k, _)| {
                matches!(
                    k,
                    OperandKind::ValueEnum(_)
                        | OperandKind::BitEnum(_)
                        | OperandKind::ExtInstNumber
                        | OperandKind::SpecConstantOp
                )
            })
        })
    })
}

/// One past the highest opcode the grammar knows: per-opcode tables need no more entries
/// (every opcode at or above it is unknown).
pub fn opcode_table_len() -> usize {
    tables::OPCODE_INDEX.len()
}

/// The fast shape of `opcode`, if it has one (computed on the opcode's first use).
pub fn fast_shape(opcode: u16) -> Option<FastShape> {
    static TABLE: PerOpcode<Option<FastShape>> = PerOpcode::new();
    TABLE.get(opcode, |op| inst_desc(op).and_then(compute_fast_shape))
}

/// Calls `f(word_index)` for every used-id word (result type and id operands) of an
/// instruction. Returns `false` (calling nothing) when the fast path does not apply and the
/// caller must walk the grammar.
#[inline]
pub fn for_each_use_fast(opcode: u16, words: &[u32], f: impl FnMut(usize)) -> bool {
    match fast_shape(opcode) {
        Some(shape) => visit_shape(shape, words, f),
        None => false,
    }
}

/// Calls `f` for every use word of `shape` in `words`; `false` when `words` does not fit it.
#[inline]
fn visit_shape(shape: FastShape, words: &[u32], mut f: impl FnMut(usize)) -> bool {
    let fixed = shape.fixed as usize;
    let ids_tail = match shape.tail {
        FastTail::Nothing if words.len() == fixed => false,
        FastTail::Ids if words.len() >= fixed => true,
        FastTail::Literals if words.len() >= fixed => false,
        FastTail::Enum(_) | FastTail::Bits(_) => return visit_enum_tail(shape, words, f),
        _ => return false,
    };
    for_each_bit(shape.use_mask, 0, &mut f);
    if ids_tail {
        for i in fixed..words.len() {
            f(i);
        }
    }
    true
}

/// [`visit_shape`] for a shape that ends with an enum ([`FastTail::Enum`], [`FastTail::Bits`]).
#[inline(never)]
fn visit_enum_tail(shape: FastShape, words: &[u32], mut f: impl FnMut(usize)) -> bool {
    let fixed = shape.fixed as usize;
    if words.len() < fixed {
        return false;
    }
    let tail_uses = match shape.tail {
        FastTail::Bits(_) if words.len() == fixed => Some(0),
        FastTail::Bits(k) => enum_tail_uses(k, true, &words[fixed..]),
        FastTail::Enum(k) => enum_tail_uses(k, false, &words[fixed..]),
        _ => None,
    };
    let Some(tail_uses) = tail_uses else {
        return false;
    };
    for_each_bit(shape.use_mask, 0, &mut f);
    for_each_bit(tail_uses, fixed, &mut f);
    true
}

/// Calls `f(offset + k)` for every set bit k of `mask`, lowest first.
#[inline]
fn for_each_bit(mut mask: u32, offset: usize, f: &mut impl FnMut(usize)) {
    while mask != 0 {
        f(offset + mask.trailing_zeros() as usize);
        mask &= mask - 1;
    }
}
