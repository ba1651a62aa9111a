//! Clean-up of raise-block-io's copy of a kernel: the block loads' coordinates are built per
//! load from the same few uniform values (subgroup-id bits, surface sizes), inside the K loop.
//! Two classic steps make that code what a compiler would have written:
//!
//! - **Loop-invariant code motion**: a pure instruction of a loop block that runs on every
//!   iteration (it dominates every latch) whose operands are all defined outside the loop (or
//!   were hoisted before it) moves to the end of the loop's preheader (the header's immediate
//!   dominator when it branches unconditionally to the header and is outside the loop).
//! - **Common subexpressions** (dominator-scoped value numbering): a pure instruction equal to
//!   one that dominates it (same opcode, result type and operands) is replaced by it.
//!
//! "Pure" is narrower than DCE's "removable if unused": no loads except from `Input` variables
//! (built-ins: they never change during the kernel), no extended instructions (OpenCL.std's
//! `vload*` read memory), no phis or variables, and for value numbering no result that carries
//! a decoration (`NoSignedWrap` and friends make two equal-looking instructions differ).
//!
//! Why correct: a hoisted instruction computes the same value in the preheader as in the loop
//! (its operands do not change in the loop), and it runs only when the loop is entered, where
//! the loop block it came from would have run too (that block dominates every latch, so every
//! iteration, including the first, runs it). A replaced instruction computes exactly what the
//! dominating one computed. Pure instructions have no effect besides their result, and SPIR-V
//! gives them no trap (a division by zero is an undefined value, not undefined behaviour).
//! Cost: linear in the function (one loop forest, one dominator walk, one pass mapping uses).

use std::collections::{HashMap, HashSet};

use spirv::{Op, StorageClass};
use spvopt_analysis::cfg::Cfg;
use spvopt_analysis::dominators::Dominators;
use spvopt_analysis::loops::Loops;
use spvopt_analysis::types::pointer_of;
use spvopt_ir::{BlockId, FuncId, Id, InstId, Module, Section};

use crate::util::is_side_effect_free;

/// What [`tidy`] did.
#[derive(Default, Debug, Clone, Copy)]
pub struct Tidied {
    pub hoisted: u64,
    pub merged: u64,
}

/// Hoists loop-invariant pure instructions of function `f` and merges equal ones.
pub fn tidy(m: &mut Module, f: FuncId) -> Tidied {
    let mut done = Tidied::default();
    let cfg = Cfg::build(m);
    let dom = Dominators::build(m, &cfg);
    let loops = Loops::build(m, &cfg, &dom);
    // Outer loops first: what leaves an inner loop may leave the outer one on its turn.
    for &l in loops.preorder().iter().rev() {
        let Some(data) = loops.get(l) else { continue };
        if data.func != f {
            continue;
        }
        let header = data.header;
        let Some(pre) = dom.idom(header) else {
            continue;
        };
        let in_loop: HashSet<BlockId> = loops.blocks(l).iter().copied().collect();
        if in_loop.contains(&pre) || !branches_only_to(m, pre, header) {
            continue;
        }
        let Some(pre_term) = m.block_terminator(pre) else {
            continue;
        };
        let every_iteration: Vec<BlockId> = cfg
            .rpo(f)
            .iter()
            .copied()
            .filter(|b| in_loop.contains(b) && data.latches.iter().all(|&t| dom.dominates(*b, t)))
            .collect();
        let mut hoisted_ids: HashSet<Id> = HashSet::new();
        for b in every_iteration {
            let insts: Vec<InstId> = m.block_insts(b).collect();
            for i in insts {
                if !is_pure(m, i) {
                    continue;
                }
                let mut invariant = true;
                m.for_each_used_id(i, |id| {
                    let inside = m
                        .def(id)
                        .and_then(|d| m.inst_block(d))
                        .is_some_and(|db| in_loop.contains(&db));
                    if inside && !hoisted_ids.contains(&id) {
                        invariant = false;
                    }
                });
                if invariant {
                    if let Some(r) = m.inst(i).result_id() {
                        hoisted_ids.insert(r);
                    }
                    m.move_before(i, pre_term);
                    done.hoisted += 1;
                }
            }
        }
    }
    done.merged = value_number(m, f);
    done
}

/// Dominator-scoped value numbering of `f`'s pure, undecorated instructions.
fn value_number(m: &mut Module, f: FuncId) -> u64 {
    let cfg = Cfg::build(m);
    let dom = Dominators::build(m, &cfg);
    let Some(entry) = cfg.entry(f) else { return 0 };
    let decorated: HashSet<u32> = m
        .section_insts(Section::Annotation)
        .filter_map(|(_, inst)| inst.operand_word(0))
        .collect();
    let mut table: HashMap<(u16, Vec<u32>), Id> = HashMap::new();
    let mut repl: HashMap<Id, Id> = HashMap::new();
    let mut erased: Vec<InstId> = Vec::new();
    // (block, undo log length at entry); children pushed after the block is numbered.
    let mut undo: Vec<(u16, Vec<u32>)> = Vec::new();
    let mut stack: Vec<(BlockId, bool, usize)> = vec![(entry, false, 0)];
    while let Some((b, leaving, mark)) = stack.pop() {
        if leaving {
            for key in undo.drain(mark..) {
                table.remove(&key);
            }
            continue;
        }
        let mark = undo.len();
        stack.push((b, true, mark));
        let insts: Vec<InstId> = m.block_insts(b).collect();
        for i in insts {
            m.map_used_ids(i, |id| repl.get(&id).copied().unwrap_or(id));
            if !is_pure(m, i) {
                continue;
            }
            let inst = m.inst(i);
            let Some(r) = inst.result_id() else { continue };
            if decorated.contains(&r.word()) {
                continue;
            }
            let mut key_words = Vec::with_capacity(inst.operands().len() + 1);
            key_words.push(inst.result_type().map_or(0, Id::word));
            key_words.extend_from_slice(inst.operands());
            let key = (inst.opcode(), key_words);
            match table.get(&key) {
                Some(&earlier) => {
                    repl.insert(r, earlier);
                    erased.push(i);
                }
                None => {
                    table.insert(key.clone(), r);
                    undo.push(key);
                }
            }
        }
        for &c in dom.children(b) {
            stack.push((c, false, 0));
        }
    }
    if repl.is_empty() {
        return 0;
    }
    // Phis read values from back edges, numbered after them: map every use once more.
    let blocks = m.function(f).blocks.clone();
    for b in blocks {
        let insts: Vec<InstId> = m.block_insts(b).collect();
        for i in insts {
            m.map_used_ids(i, |id| repl.get(&id).copied().unwrap_or(id));
        }
    }
    let gone: HashSet<u32> = repl.keys().map(|r| r.word()).collect();
    for &i in &erased {
        m.erase(i);
    }
    m.retain_section(Section::Debug, |m, i| {
        let inst = m.inst(i);
        !((inst.is(Op::Name) || inst.is(Op::MemberName))
            && inst.operand_word(0).is_some_and(|t| gone.contains(&t)))
    });
    erased.len() as u64
}

/// Whether block `b` ends in `OpBranch %to` (no merge instruction before it).
fn branches_only_to(m: &Module, b: BlockId, to: BlockId) -> bool {
    let Some(t) = m.block_terminator(b) else {
        return false;
    };
    m.inst(t).is(Op::Branch)
        && m.inst(t).operand_id(0) == Some(m.block_label(to))
        && !m
            .prev_inst(t)
            .is_some_and(|p| m.inst(p).is(Op::LoopMerge) || m.inst(p).is(Op::SelectionMerge))
}

/// Whether instruction `i` may be moved or merged (see the file comment).
fn is_pure(m: &Module, i: InstId) -> bool {
    let inst = m.inst(i);
    if !is_side_effect_free(m, inst) {
        return false;
    }
    match inst.op() {
        Some(Op::Phi | Op::Variable | Op::ExtInst) | None => false,
        Some(Op::Load) => inst
            .operand_id(0)
            .and_then(|p| m.type_of(p))
            .and_then(|t| pointer_of(m, t))
            .is_some_and(|(sc, _)| sc == StorageClass::Input as u32),
        Some(_) => spvopt_ir::opcode_class::load_store(inst.opcode()).is_none(),
    }
}
