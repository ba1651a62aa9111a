//! The enum operands of an instruction (storage classes, decorations, memory access bits, …)
//! without walking the grammar for every instruction: [`for_each_enum`] reports exactly what
//! [`Module::walk_enums`] reports, in the same order.
//!
//! What: most opcodes with enum operands have a simple layout, read from the grammar once per
//! opcode (`EnumLayout`, on the opcode's first use): a prefix of single-word operands
//! (result type, result, ids, literals, enums whose enumerants take no parameters), then
//! either operands that can hold no enum (ids, literals, strings, in any arrangement) or one
//! last enum operand whose enumerants take single-word parameters (`OpDecorate`'s decoration,
//! `OpLoad`'s memory access, `OpLoopMerge`'s loop control); a value enum's parameters may be
//! enums without parameters of their own (`BuiltIn`, `FuncParamAttr`). Such an instruction's
//! enums are read at their positions; anything else (ext-inst operands, parameters that are
//! strings or enums with parameters, a bit enum's enum parameters, words that do not fit the
//! layout) goes to the grammar walk.
//! Why correct: on the layouts taken, the walk reports the prefix's enums at the prefix's
//! positions, then the last operand's enumerants (each set bit of a bit enum, lowest first),
//! then a value enumerant's enum parameters in order, stopping after an unknown enumerant. The
//! fast path requires the words to fit the layout exactly, so malformed instructions (where
//! the walk would stop early) take the walk.
//! Each enumerant's parameter layout and grammar requirements come from a table per enum kind
//! (built on the kind's first use), by value: [`for_each_enum_requirement`] gives the
//! requirements without searching the grammar.
//! Cost: a table lookup per instruction, then a few per enum operand.

use std::sync::OnceLock;

use spvopt_ir::grammar::{
    enum_kind, enum_requirements, inst_desc, Enumerant, OperandKind, Quantifier, Requirements,
};
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
    /// are single words (checked per enumerant when read, see [`fits_tail`]).
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

/// What the fast path needs of one enumerant, computed once per enum kind and process.
#[derive(Clone, Copy)]
struct Info {
    /// Words of its parameters when they are single words (ids, literals, enums without
    /// parameters of their own), else [`NOT_PLAIN`].
    plain_words: u8,
    /// Whether some of those parameters are enums (reported after the enumerant).
    param_enums: bool,
    /// Its parameters.
    params: &'static [(OperandKind, Quantifier)],
    /// Its grammar requirements.
    requirements: Option<&'static Requirements>,
}

const NOT_PLAIN: u8 = u8::MAX;
/// Values of a value enum below this are found by index; the few above (vendor enumerants of
/// `Decoration`, `StorageClass`, `Capability`, … reach about 6,200) by a binary search of a
/// short list. A dense table up to the largest value would be written whole on first use
/// (12 KB per kind: fresh memory a process's first call pays for).
const DENSE_LIMIT: u32 = 1 << 10;
const UNKNOWN: u16 = u16::MAX;

/// One enum kind's enumerants: their [`Info`] (in the grammar's order) and where each value
/// is: by index below [`DENSE_LIMIT`] (bit enums: by bit position), in `high` (sorted by
/// value) above.
struct KindTable {
    info: Box<[Info]>,
    index_of: Box<[u16]>,
    high: Box<[(u32, u16)]>,
}

fn build_table(k: u16) -> KindTable {
    let kind = enum_kind(k);
    let info: Box<[Info]> = kind
        .enumerants
        .iter()
        // (By value, as the walk finds it: the grammar's search picks among aliases.)
        .map(|e| {
            info_by_search(k, e.value).unwrap_or(Info {
                plain_words: NOT_PLAIN,
                param_enums: false,
                params: &[],
                requirements: None,
            })
        })
        .collect();
    let indexable = kind.enumerants.len() < usize::from(UNKNOWN);
    let slots = match (indexable, kind.bits) {
        (false, _) => 0,
        (true, true) => 32,
        (true, false) => kind
            .enumerants
            .iter()
            .map(|e| e.value)
            .filter(|&v| v < DENSE_LIMIT)
            .max()
            .map_or(0, |v| v as usize + 1),
    };
    let mut index_of = vec![UNKNOWN; slots].into_boxed_slice();
    let mut high: Vec<(u32, u16)> = Vec::new();
    for (n, e) in kind.enumerants.iter().enumerate() {
        if !indexable {
            break;
        }
        let slot = if kind.bits {
            (e.value.count_ones() == 1).then(|| e.value.trailing_zeros() as usize)
        } else if e.value < DENSE_LIMIT {
            Some(e.value as usize)
        } else {
            // (Sorted by value in the grammar; a later alias of one value replaces the
            // earlier, as in the dense table.)
            match high.last_mut() {
                Some(last) if last.0 == e.value => last.1 = n as u16,
                _ => high.push((e.value, n as u16)),
            }
            None
        };
        if let Some(x) = slot.and_then(|x| index_of.get_mut(x)) {
            *x = n as u16;
        }
    }
    KindTable {
        info,
        index_of,
        high: high.into_boxed_slice(),
    }
}

/// The [`Info`] of enumerant `value` of kind `k` (for a bit enum, `value` is one bit); `None`
/// for an unknown one.
#[inline]
fn info(k: u16, value: u32) -> Option<Info> {
    const KINDS: usize = 128;
    static TABLES: [OnceLock<KindTable>; KINDS] = [const { OnceLock::new() }; KINDS];
    let Some(slot) = TABLES.get(usize::from(k)) else {
        return info_by_search(k, value);
    };
    let table = slot.get_or_init(|| build_table(k));
    let key = if enum_kind(k).bits {
        value.trailing_zeros() as usize
    } else {
        value as usize
    };
    if table.index_of.is_empty() && table.high.is_empty() {
        return info_by_search(k, value);
    }
    let n = match table.index_of.get(key) {
        Some(&n) => n,
        None if !enum_kind(k).bits => table
            .high
            .binary_search_by_key(&value, |&(v, _)| v)
            .map_or(UNKNOWN, |i| table.high[i].1),
        None => UNKNOWN,
    };
    match n {
        n if n != UNKNOWN && enum_kind(k).enumerants[usize::from(n)].value == value => {
            Some(table.info[usize::from(n)])
        }
        _ => None,
    }
}

/// [`info`] without a table (kinds past the table, value enums with large values).
fn info_by_search(k: u16, value: u32) -> Option<Info> {
    let e = enum_kind(k).get(value)?;
    Some(Info {
        plain_words: plain_param_words(e).map_or(NOT_PLAIN, |n| n.min(254) as u8),
        param_enums: e.params.iter().any(|&(k, _)| may_hold_enum(k)),
        params: e.params,
        requirements: enum_requirements(k, value),
    })
}

/// Words of an enumerant's parameters, when they are single words (enums among them without
/// parameters of their own).
fn plain_param_words(e: &Enumerant) -> Option<usize> {
    e.params
        .iter()
        .all(|&(k, q)| q == Quantifier::One && is_single_word(k))
        .then_some(e.params.len())
}

/// Whether the last enum operand `value` of kind `k` (at the end of an instruction whose
/// words after it number `after`) has the fast form: every enumerant's parameters single
/// words (for a bit enum: none of them an enum), exactly `after` words in all. An unknown
/// enumerant is allowed when nothing follows it (the walk reports it and stops): a value
/// enum's unknown value, a bit enum's unknown highest bit.
fn fits_tail(k: u16, value: u32, after: usize) -> bool {
    if !enum_kind(k).bits {
        return match info(k, value) {
            Some(e) => e.plain_words != NOT_PLAIN && usize::from(e.plain_words) == after,
            None => after == 0,
        };
    }
    let mut words = 0;
    let mut bits = value;
    while bits != 0 {
        let bit = bits & bits.wrapping_neg();
        bits &= bits - 1;
        match info(k, bit) {
            Some(e) if e.plain_words != NOT_PLAIN && !e.param_enums => {
                words += usize::from(e.plain_words)
            }
            Some(_) => return false,
            None => return bits == 0 && words == after,
        }
    }
    words == after
}

/// Calls `on_enum(kind, value)` for every enum operand of `inst` (every set bit of a bit
/// enum), as [`Module::walk_enums`] does.
pub fn for_each_enum(m: &Module, inst: &Inst, mut on_enum: impl FnMut(u16, u32)) {
    scan(m, inst, |k, v, _| on_enum(k, v));
}

/// Calls `f` with the grammar requirements of every enum operand of `inst` that has some, in
/// the order of [`for_each_enum`] (what `enum_requirements` gives for each report).
pub fn for_each_enum_requirement(
    m: &Module,
    inst: &Inst,
    mut f: impl FnMut(&'static Requirements),
) {
    scan(m, inst, |_, _, r| {
        if let Some(r) = r {
            f(r)
        }
    });
}

/// [`for_each_enum`], also passing each enumerant's requirements.
fn scan(m: &Module, inst: &Inst, mut on_enum: impl FnMut(u16, u32, Option<&'static Requirements>)) {
    let words = &inst.words;
    let (len, enums, count, tail) = match layout(inst.opcode()) {
        EnumLayout::Nothing => return,
        EnumLayout::Prefix {
            len,
            enums,
            count,
            tail,
        } if words.len() >= usize::from(len) => (usize::from(len), enums, count, tail),
        _ => return walk(m, inst, on_enum),
    };
    if let Tail::Enum(k) = tail {
        if let Some(&value) = words.get(len) {
            if !fits_tail(k, value, words.len() - len - 1) {
                return walk(m, inst, on_enum);
            }
        }
    }
    for &(pos, k) in &enums[..usize::from(count)] {
        if !report(k, words[usize::from(pos)], &mut on_enum) {
            return;
        }
    }
    // The last operand fits its layout (checked above): every value or bit is reported, then
    // a value's parameters that are enums.
    if let Tail::Enum(k) = tail {
        if let Some(&value) = words.get(len) {
            if !report(k, value, &mut on_enum) || enum_kind(k).bits {
                return;
            }
            let Some(e) = info(k, value).filter(|e| e.param_enums) else {
                return;
            };
            for (n, &(pk, _)) in e.params.iter().enumerate() {
                if let OperandKind::ValueEnum(pk) | OperandKind::BitEnum(pk) = pk {
                    if !report(pk, words[len + 1 + n], &mut on_enum) {
                        return;
                    }
                }
            }
        }
    }
}

/// [`scan`] through the grammar walk.
#[inline(never)]
fn walk(m: &Module, inst: &Inst, mut on_enum: impl FnMut(u16, u32, Option<&'static Requirements>)) {
    let _ = m.walk_enums(inst, |k, v| on_enum(k, v, enum_requirements(k, v)));
}

/// Reports one enum operand as the walk does (a bit enum bit by bit, lowest first); `false`
/// after an unknown enumerant (where the walk stops).
fn report(
    k: u16,
    value: u32,
    on_enum: &mut impl FnMut(u16, u32, Option<&'static Requirements>),
) -> bool {
    if !enum_kind(k).bits {
        let e = info(k, value);
        on_enum(k, value, e.and_then(|e| e.requirements));
        return e.is_some();
    }
    let mut bits = value;
    while bits != 0 {
        let bit = bits & bits.wrapping_neg();
        bits &= bits - 1;
        let e = info(k, bit);
        on_enum(k, bit, e.and_then(|e| e.requirements));
        if e.is_none() {
            return false;
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use spvopt_ir::grammar::enum_kind_index;

    /// The tables give what the grammar's search gives, for every enumerant and for values
    /// next to them.
    #[test]
    fn tables_agree_with_the_search() {
        for name in [
            "Decoration",
            "StorageClass",
            "ExecutionMode",
            "MemoryAccess",
            "LoopControl",
            "FunctionControl",
            "Capability",
            "BuiltIn",
        ] {
            let k = enum_kind_index(name).expect("grammar has the kind");
            let kind = enum_kind(k);
            for e in kind.enumerants {
                let near = [e.value, e.value.wrapping_add(1), e.value.wrapping_sub(1)];
                for v in near {
                    if kind.bits && v.count_ones() != 1 {
                        continue;
                    }
                    let (a, b) = (info(k, v), info_by_search(k, v));
                    assert_eq!(a.is_some(), b.is_some(), "{name} {v}");
                    if let (Some(a), Some(b)) = (a, b) {
                        assert_eq!(a.plain_words, b.plain_words, "{name} {v}");
                        assert_eq!(
                            a.requirements.map(|r| r as *const Requirements),
                            b.requirements.map(|r| r as *const Requirements),
                            "{name} {v}"
                        );
                    }
                }
            }
        }
    }
}
