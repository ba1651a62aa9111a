//! Fast iteration over the value operands (ids after the result type and result id) of an
//! instruction.
//!
//! `Module::for_each_used_id` walks the full grammar for every instruction, which dominates
//! the cost of analyses that look at every operand of a million-instruction module. Most
//! opcodes have a fixed shape: some leading `<id>` operands, optionally followed by a
//! repeated `<id>` (all remaining words are ids) or by plain literals only. That shape is read
//! from the grammar once per opcode and cached; instructions whose opcode has any other shape
//! (enums that may carry id parameters, ext-inst sets, strings) fall back to the grammar walk
//! when they have words beyond their leading ids, so results are always the same as the walk's.

use spvopt_ir::grammar::{enum_kind, inst_desc, OperandKind, Quantifier};
use spvopt_ir::opcode_table::PerOpcode;
use spvopt_ir::{Id, InstId, Module};

#[derive(Clone, Copy, PartialEq, Eq)]
enum Shape {
    /// Every word after the result is an id.
    AllIds,
    /// `n` leading ids, then no ids (literals, strings, enums without id parameters).
    IdsThenLiterals(u8),
    /// `n` leading ids, then an optional memory-access mask: no more ids unless the mask has a
    /// bit whose parameters are ids (given as the second field).
    IdsThenMemoryAccess(u8, u32),
    /// `OpVariable`: storage class, then an optional initializer id.
    Variable,
    /// `n` leading ids, then one last value enum operand (enum kind index) that may carry
    /// parameters (`OpDecorate`, `OpExecutionMode`): no more ids unless the enumerant's
    /// parameters may hold some (then, or for an unknown enumerant, the grammar walk).
    IdsThenValueEnum(u8, u16),
    /// `n` leading ids, then operands that need the grammar walk.
    IdsThenWalk(u8),
    /// Unknown opcode: walk.
    Walk,
}

fn has_id(params: &[(OperandKind, Quantifier)], depth: u32) -> bool {
    params.iter().any(|(k, _)| kind_has_id(*k, depth))
}

/// Whether an operand of kind `k` may contain id words.
fn kind_has_id(k: OperandKind, depth: u32) -> bool {
    match k {
        OperandKind::Literal | OperandKind::String | OperandKind::ContextNumber => false,
        OperandKind::ValueEnum(e) | OperandKind::BitEnum(e) => {
            depth > 4
                || enum_kind(e)
                    .enumerants
                    .iter()
                    .any(|en| has_id(en.params, depth + 1))
        }
        _ => true,
    }
}

fn shape_of(opcode: u16) -> Shape {
    if opcode == spirv::Op::Variable as u16 {
        return Shape::Variable;
    }
    let Some(desc) = inst_desc(opcode) else {
        return Shape::Walk;
    };
    let skip = desc
        .operands
        .iter()
        .take_while(|(k, _)| matches!(k, OperandKind::ResultType | OperandKind::Result))
        .count();
    let ops = &desc.operands[skip..];
    let mut n: u32 = 0;
    let mut k = 0;
    while k < ops.len() {
        let (kind, q) = ops[k];
        let is_id = matches!(kind, OperandKind::Id | OperandKind::PairIdId);
        if is_id && q == Quantifier::One {
            n += if kind == OperandKind::PairIdId { 2 } else { 1 };
            k += 1;
            continue;
        }
        if is_id && k + 1 == ops.len() {
            return Shape::AllIds;
        }
        break;
    }
    let n8 = u8::try_from(n).unwrap_or(u8::MAX);
    let rest = &ops[k..];
    if rest.is_empty() || !has_id(rest, 0) {
        return Shape::IdsThenLiterals(n8);
    }
    if let [(OperandKind::BitEnum(e), Quantifier::Optional)] = rest {
        let kind = enum_kind(*e);
        if kind.name == "MemoryAccess" {
            let id_bits = kind
                .enumerants
                .iter()
                .filter(|en| has_id(en.params, 1))
                .fold(0u32, |acc, en| acc | en.value);
            return Shape::IdsThenMemoryAccess(n8, id_bits);
        }
    }
    if let [(OperandKind::ValueEnum(e), Quantifier::One)] = rest {
        return Shape::IdsThenValueEnum(n8, *e);
    }
    Shape::IdsThenWalk(n8)
}

/// The shape of `opcode` (computed on the opcode's first use: a fresh process pays only for
/// the opcodes its module has).
#[inline]
fn shape(opcode: u16) -> Shape {
    static SHAPES: PerOpcode<Shape> = PerOpcode::new();
    SHAPES.get(opcode, shape_of)
}

/// Calls `f` with every id operand of instruction `i` after its result type and result id (the
/// same ids `Module::for_each_used_id` reports, minus the result type).
pub fn for_each_value_operand(m: &Module, i: InstId, mut f: impl FnMut(Id)) {
    let inst = m.inst(i);
    let ops = inst.operands();
    if inst.opcode() == spirv::Op::ExtInst as u16 {
        return ext_inst_value_operands(m, i, f);
    }
    let shape = shape(inst.opcode());
    let (skip, leading) = match shape {
        Shape::AllIds => (0, ops.len()),
        Shape::IdsThenLiterals(n) => (0, (n as usize).min(ops.len())),
        Shape::Variable => (1.min(ops.len()), ops.len()),
        Shape::IdsThenMemoryAccess(n, id_bits)
            if ops.get(n as usize).is_none_or(|&mask| mask & id_bits == 0) =>
        {
            (0, (n as usize).min(ops.len()))
        }
        Shape::IdsThenWalk(n) if ops.len() <= n as usize => (0, ops.len()),
        Shape::IdsThenValueEnum(n, e)
            if ops
                .get(n as usize)
                .is_none_or(|&v| enum_kind(e).get(v).is_some_and(|en| !has_id(en.params, 1))) =>
        {
            (0, (n as usize).min(ops.len()))
        }
        Shape::IdsThenMemoryAccess(..)
        | Shape::IdsThenValueEnum(..)
        | Shape::IdsThenWalk(_)
        | Shape::Walk => {
            return value_operands_by_walk(m, i, f);
        }
    };
    for &w in &ops[skip..leading] {
        if let Some(id) = Id::new(w) {
            f(id);
        }
    }
}

/// [`for_each_value_operand`] of an `OpExtInst` (out of line, as the walk).
#[inline(never)]
fn ext_inst_value_operands(m: &Module, i: InstId, mut f: impl FnMut(Id)) {
    let ops = m.inst(i).operands();
    if !ext_inst_all_ids(m, ops) {
        return value_operands_by_walk(m, i, f);
    }
    // Set id, instruction number, then only ids.
    for (k, &w) in ops.iter().enumerate() {
        if k == 1 {
            continue;
        }
        if let Some(id) = Id::new(w) {
            f(id);
        }
    }
}

/// [`for_each_value_operand`] through the grammar walk (kept out of line: the table shapes
/// above cover nearly every instruction).
#[inline(never)]
fn value_operands_by_walk(m: &Module, i: InstId, mut f: impl FnMut(Id)) {
    let rt = m.inst(i).result_type();
    let mut skipped_type = rt.is_none();
    m.for_each_used_id(i, |id| {
        if !skipped_type && Some(id) == rt {
            skipped_type = true;
            return;
        }
        f(id)
    });
}

/// Whether every operand of the extended instruction with operand words `ops` (set id,
/// number, operands…) is an id.
fn ext_inst_all_ids(m: &Module, ops: &[u32]) -> bool {
    let (Some(set), Some(&number)) = (ops.first().and_then(|&w| Id::new(w)), ops.get(1)) else {
        return false;
    };
    let Some(desc) = m.ext_set(set).and_then(|e| e.inst(number)) else {
        return false;
    };
    desc.operands
        .iter()
        .all(|(k, _)| matches!(k, OperandKind::Id))
}

/// The opcode of `inst` as a [`spirv::Op`] (the IR's table lookup).
pub fn op_of(inst: &spvopt_ir::Inst) -> Option<spirv::Op> {
    inst.op()
}
