//! Clean-up after the conversion: values nothing reads any more, type declarations the type
//! replacement made identical, and setter operands of other 32-bit integer types.

use spirv::Op;
use spvopt_analysis::fxhash::{FxHashMap as HashMap, FxHashSet as HashSet};
use spvopt_ir::entity::SecondaryMap;
use spvopt_ir::{Id, Inst, InstId, Module, Section};

use crate::util::is_side_effect_free;

/// Removes pure instructions, types and constants whose results are unused, starting from
/// `seeds` and following their operands (layout chains the loads no longer read, conditions
/// that folded, the constants only a removed type named). Linear in the module.
pub(super) fn remove_dead(m: &mut Module, seeds: Vec<Id>) {
    // Uses per id (ids the module never defines read as used: nothing to remove there).
    let mut uses: SecondaryMap<Id, u32> = SecondaryMap::with_capacity(m.id_capacity(), 0);
    uses.resize(m.id_capacity());
    for i in m.all_insts() {
        m.for_each_used_id(i, |id| {
            if id.index() < m.id_capacity() {
                uses[id] += 1;
            }
        });
    }
    let mut dead_globals: HashSet<Id> = HashSet::default();
    let mut work = seeds;
    while let Some(v) = work.pop() {
        if v.index() >= uses.len() || uses[v] != 0 || dead_globals.contains(&v) {
            continue;
        }
        let Some(i) = m.def(v) else { continue };
        let inst = m.inst(i);
        let in_body = m.inst_block(i).is_some();
        let removable = if in_body {
            is_side_effect_free(m, inst)
        } else {
            is_global_type_or_constant(inst)
        };
        if !removable {
            continue;
        }
        let mut operands = Vec::new();
        m.for_each_used_id(i, |id| operands.push(id));
        if in_body {
            m.erase(i);
        } else {
            dead_globals.insert(v);
        }
        for o in operands {
            if o.index() < uses.len() {
                let n = &mut uses[o];
                *n = n.saturating_sub(1);
                if *n == 0 {
                    work.push(o);
                }
            }
        }
    }
    if !dead_globals.is_empty() {
        m.retain_section(Section::Global, |m, i| {
            m.inst(i)
                .result_id()
                .is_none_or(|r| !dead_globals.contains(&r))
        });
    }
}

/// Types and constants (not variables, not undefs that may be named) of the global section.
fn is_global_type_or_constant(inst: &Inst) -> bool {
    use Op::*;
    matches!(
        inst.op(),
        Some(
            TypeInt
                | TypeFloat
                | TypeBool
                | TypeVector
                | TypeArray
                | TypePointer
                | Constant
                | ConstantTrue
                | ConstantFalse
                | ConstantComposite
                | ConstantNull
                | Undef
        )
    )
}

/// Drops duplicate type/constant declarations the type replacement created (e.g. a pointer to
/// the new vector type next to an existing identical one). The section is in definition order.
pub(super) fn merge_duplicate_types(m: &mut Module) -> HashMap<Id, Id> {
    let mut seen: HashMap<(u16, Vec<u32>), Id> = HashMap::default();
    let mut merged: HashMap<Id, Id> = HashMap::default();
    let list: Vec<InstId> = m.section(Section::Global).to_vec();
    for i in list {
        if !merged.is_empty() {
            m.map_used_ids(i, |x| merged.get(&x).copied().unwrap_or(x));
        }
        let inst = m.inst(i);
        let Some(r) = inst.result_id() else { continue };
        let op = inst.op();
        let dedupable = matches!(
            op,
            Some(
                Op::TypeVoid
                    | Op::TypeBool
                    | Op::TypeInt
                    | Op::TypeFloat
                    | Op::TypeVector
                    | Op::TypePointer
                    | Op::TypeFunction
                    | Op::Constant
                    | Op::ConstantTrue
                    | Op::ConstantFalse
                    | Op::ConstantComposite
                    | Op::ConstantNull
            )
        );
        if !dedupable {
            continue;
        }
        let mut key = Vec::with_capacity(inst.words.len());
        key.push(inst.result_type().map_or(0, |t| t.word()));
        key.extend_from_slice(inst.operands());
        match seen.get(&(inst.opcode(), key.clone())) {
            Some(&first) => {
                merged.insert(r, first);
            }
            None => {
                seen.insert((inst.opcode(), key), r);
            }
        }
    }
    if !merged.is_empty() {
        m.retain_section(Section::Global, |m, i| {
            m.inst(i)
                .result_id()
                .is_none_or(|r| !merged.contains_key(&r))
        });
        for i in m.all_insts().collect::<Vec<_>>() {
            m.map_used_ids(i, |x| merged.get(&x).copied().unwrap_or(x));
        }
    }
    merged
}

/// Bitcasts 32-bit integer setter operands of another integer type to u32.
pub(super) fn bitcast_setter_operands(m: &mut Module, at: InstId, u32t: Id) {
    let ops: Vec<u32> = m.inst(at).operands().to_vec();
    for (k, &w) in ops.iter().enumerate().skip(1) {
        let Some(v) = Id::new(w) else { continue };
        let Some(t) = m.type_of(v) else { continue };
        if t == u32t {
            continue;
        }
        let c = m.fresh_id();
        m.insert_before(at, Inst::new(Op::Bitcast, Some(u32t), Some(c), &[v.word()]));
        m.inst_mut(at).operands_mut()[k] = c.word();
    }
}
