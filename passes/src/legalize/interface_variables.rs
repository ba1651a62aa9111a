//! Every global variable a kernel uses is listed in its `OpEntryPoint` interface.
//!
//! What: for each entry point, the global variables its function and the functions it calls
//! (transitively) use are collected; those missing from the entry point's interface list are
//! appended. From SPIR-V 1.4 the interface must list every global variable the entry point
//! uses (the LLVM/SPIR-V translator emits 1.4 modules that list only the built-ins, leaving out
//! e.g. `UniformConstant` tables); before 1.4 only `Input`/`Output` variables are listed.
//! Why correct: the interface list declares which global variables the entry point may access;
//! it does not change what the code does, and listing a variable the entry point uses is what
//! the specification requires.
//! Cost: a check of the interface lists against the globals (when every entry point lists
//! every global, that is all); else one pass over the function bodies, then a walk of each
//! entry point's call tree.

use spirv::{Op, StorageClass};
use spvopt_analysis::fxhash::{FxHashMap as HashMap, FxHashSet as HashSet};
use spvopt_analysis::operands::for_each_value_operand;
use spvopt_ir::entity::EntitySet;
use spvopt_ir::{Id, Inst, InstId, Module, Section};

use crate::edit::variables::interface_start;
use crate::pass::{Changes, Statistics};

/// Global variables per entry point that its interface lacks.
fn missing(m: &Module) -> Vec<(InstId, Vec<Id>)> {
    let all_globals = m.header.version >= 0x0001_0400;
    let globals: HashSet<Id> = m
        .section_insts(Section::Global)
        .filter(|(_, i)| i.is(Op::Variable))
        .filter(|(_, i)| {
            all_globals
                || matches!(
                    i.operand_word(0),
                    Some(x) if x == StorageClass::Input as u32 || x == StorageClass::Output as u32
                )
        })
        .filter_map(|(_, i)| i.result_id())
        .collect();
    if globals.is_empty() {
        return Vec::new();
    }
    // Only globals an interface does not list can be missing from it: when every entry point
    // lists them all (a module legalized before), nothing is, without reading the bodies.
    let lists_all = |ops: &[u32]| {
        let listed: HashSet<u32> = ops[interface_start(ops)..].iter().copied().collect();
        globals.iter().all(|g| listed.contains(&g.word()))
    };
    if m.section_insts(Section::EntryPoint)
        .filter(|(_, inst)| inst.is(Op::EntryPoint))
        .all(|(_, inst)| lists_all(inst.operands()))
    {
        return Vec::new();
    }
    // The same set, dense (one flag per id): looked up for every operand of every function.
    let mut is_global: EntitySet<Id> = EntitySet::with_capacity(m.id_capacity());
    for &g in &globals {
        is_global.insert(g);
    }
    // Per function (by result id): the globals it uses and the functions it calls.
    let mut uses: HashMap<Id, (Vec<Id>, Vec<Id>)> = HashMap::default();
    for f in m.function_ids() {
        let Some(fid) = m.function_result(f) else {
            continue;
        };
        let mut vars = Vec::new();
        let mut callees = Vec::new();
        for &b in &m.function(f).blocks {
            for i in m.block_insts(b) {
                if m.inst(i).is(Op::FunctionCall) {
                    callees.extend(m.inst(i).operand_id(0));
                }
                // Value operands: the only other used id, the result type, is never a
                // variable.
                for_each_value_operand(m, i, |id| {
                    if is_global.contains(id) {
                        vars.push(id);
                    }
                });
            }
        }
        uses.insert(fid, (vars, callees));
    }
    let mut out = Vec::new();
    for (e, inst) in m.section_insts(Section::EntryPoint) {
        if !inst.is(Op::EntryPoint) {
            continue;
        }
        let ops = inst.operands();
        let listed: HashSet<u32> = ops[interface_start(ops)..].iter().copied().collect();
        let Some(root) = inst.operand_id(1) else {
            continue;
        };
        let mut seen: HashSet<Id> = HashSet::default();
        let mut stack = vec![root];
        let mut need: Vec<Id> = Vec::new();
        let mut added: HashSet<Id> = HashSet::default();
        while let Some(f) = stack.pop() {
            if !seen.insert(f) {
                continue;
            }
            if let Some((vars, callees)) = uses.get(&f) {
                for &v in vars {
                    if !listed.contains(&v.word()) && added.insert(v) {
                        need.push(v);
                    }
                }
                stack.extend_from_slice(callees);
            }
        }
        if !need.is_empty() {
            out.push((e, need));
        }
    }
    out
}

/// Whether some entry point's interface lacks a global variable it uses.
pub fn has_missing(m: &Module) -> bool {
    !missing(m).is_empty()
}

/// Appends the missing variables; counts `interface_variables_added`.
pub fn run(m: &mut Module, stats: &mut Statistics, changes: &mut Changes) {
    for (e, vars) in missing(m) {
        if !changes.allow() {
            break;
        }
        let mut words = m.inst(e).operands().to_vec();
        words.extend(vars.iter().map(|v| v.word()));
        stats.add("interface_variables_added", vars.len() as u64);
        m.replace_inst(e, Inst::new(Op::EntryPoint, None, None, &words));
    }
}
