//! CFG surgery shared by passes that expand one instruction into loops or diamonds, and the
//! clean-up of branches a pass left empty.

use std::collections::{HashMap, HashSet};

use spirv::Op;
use spvopt_ir::{BlockId, FuncId, Id, Inst, InstId, Module};

use crate::util::is_debug_inst;

/// A block cut in two by [`split_block_after`].
pub struct SplitBlock {
    /// The original block, now ending right after the instruction the cut was made at; the
    /// caller appends the instructions that lead to `after` (and then the branch).
    pub before: BlockId,
    /// The new block holding everything that followed, placed right after `before`.
    pub after: BlockId,
    pub after_label: Id,
    /// The `OpLoopMerge` of `before` when it was a loop header: it now sits in `after` and must
    /// go back to `before` (with [`SplitBlock::keep_loop_header`]) before `before`'s branch.
    pub loop_merge: Option<InstId>,
}

/// Moves every instruction after `at` into a new block placed after `at`'s block. Phis that
/// named the old block as a predecessor now name the new one (it holds the terminator now). A
/// continue target naming the old block (a one-block loop) names the new one.
pub fn split_block_after(m: &mut Module, at: InstId) -> Option<SplitBlock> {
    let before = m.inst_block(at)?;
    let before_label = m.block_label(before);
    let after_label = m.fresh_id();
    let after = m.insert_block_after(before, after_label);
    let mut tail = Vec::new();
    let mut i = m.next_inst(at);
    while let Some(x) = i {
        tail.push(x);
        i = m.next_inst(x);
    }
    for x in tail {
        m.move_to_end(x, after);
    }
    // Only the successors' phis can name the old block: those of the moved terminator.
    // (Every operand of the terminator that names a block: branch targets, switch labels.)
    let mut successors: Vec<Id> = Vec::new();
    if let Some(t) = m.block_terminator(after) {
        successors = m
            .inst(t)
            .operands()
            .iter()
            .filter_map(|&w| Id::new(w))
            .filter(|&id| m.def_inst(id).is_some_and(|d| d.is(Op::Label)))
            .collect();
    }
    successors.sort_unstable();
    successors.dedup();
    for label in successors {
        let Some(b) = m.def(label).and_then(|l| m.inst_block(l)) else {
            continue;
        };
        let phis: Vec<InstId> = m.block_phis(b).collect();
        for p in phis {
            let ops = m.inst_mut(p).operands_mut();
            for k in (1..ops.len()).step_by(2) {
                if ops[k] == before_label.word() {
                    ops[k] = after_label.word();
                }
            }
        }
    }
    let loop_merge = m.block_insts(after).find(|&x| m.inst(x).is(Op::LoopMerge));
    if let Some(lm) = loop_merge {
        let ops = m.inst_mut(lm).operands_mut();
        if ops[1] == before_label.word() {
            ops[1] = after_label.word();
        }
    }
    Some(SplitBlock {
        before,
        after,
        after_label,
        loop_merge,
    })
}

impl SplitBlock {
    /// A loop header stays the header: its `OpLoopMerge` moves back to the end of `before`
    /// (call right before appending `before`'s branch).
    pub fn keep_loop_header(&self, m: &mut Module) {
        if let Some(lm) = self.loop_merge {
            m.move_to_end(lm, self.before);
        }
    }
}

/// Moves block `b` to just before block `next` in its function's block order.
pub fn move_block_before(m: &mut Module, b: BlockId, next: BlockId) {
    let func = m.block(b).func;
    let blocks = &mut m.functions[func.index()].blocks;
    blocks.retain(|&x| x != b);
    let pos = blocks
        .iter()
        .position(|&x| x == next)
        .unwrap_or(blocks.len());
    blocks.insert(pos, b);
}

/// Removes the branches left empty in function `f` and joins straight-line blocks, so a pass
/// that deleted what a branch guarded (a masked load it replaced) leaves no control flow for
/// it behind. Returns the number of branches and blocks removed.
///
/// - `OpBranchConditional %c %T %F` where `%T` holds only `OpBranch %F`, has no other
///   predecessor and no merge instruction names it becomes `OpBranch %F` (likewise with the
///   roles swapped, and when both targets are one block), provided every phi of `%F` takes the
///   same value from `%T` as from this block (the branch then makes no difference), and the
///   block is not a loop header (its `OpLoopMerge` names the construct). An `OpSelectionMerge`
///   of the block goes with the branch.
/// - A block ending in `OpBranch %X` where `%X` has no other predecessor and no phi, is not
///   the block itself, is named by no merge instruction and the block has no merge
///   instruction, takes `%X`'s instructions; phis that named `%X` as a predecessor name the
///   block.
///
/// Why correct: the removed block executes nothing but a branch, and every phi reads the same
/// value whichever edge is taken; a joined block executes exactly the instructions of the two
/// in the same order. Cost: linear in the function's size (plus one pass over its phis per
/// removed block's successor).
pub fn fold_empty_branches(m: &mut Module, f: FuncId) -> usize {
    let mut removed = 0;
    let blocks = m.function(f).blocks.clone();
    let mut by_label: HashMap<Id, BlockId> = HashMap::new();
    let mut named_by_merge: HashSet<Id> = HashSet::new();
    let mut preds: HashMap<BlockId, Vec<BlockId>> = HashMap::new();
    for &b in &blocks {
        by_label.insert(m.block_label(b), b);
    }
    for &b in &blocks {
        for i in m.block_insts(b) {
            let inst = m.inst(i);
            if inst.is(Op::LoopMerge) || inst.is(Op::SelectionMerge) {
                named_by_merge.extend(inst.operands().iter().take(2).filter_map(|&w| Id::new(w)));
            }
        }
        for s in successors(m, b) {
            if let Some(&sb) = by_label.get(&s) {
                let p = preds.entry(sb).or_default();
                if !p.contains(&b) {
                    p.push(b);
                }
            }
        }
    }
    let mut gone: HashSet<BlockId> = HashSet::new();
    // Empty branches.
    for &b in &blocks {
        let Some(term) = m.block_terminator(b) else {
            continue;
        };
        if !m.inst(term).is(Op::BranchConditional) || has_loop_merge(m, term) {
            continue;
        }
        let ops = m.inst(term).operands().to_vec();
        let (Some(t), Some(e)) = (Id::new(ops[1]), Id::new(ops[2])) else {
            continue;
        };
        let mut target = None;
        if t == e {
            target = Some((t, None));
        } else {
            for (fwd, other) in [(t, e), (e, t)] {
                let (Some(&fb), Some(&ob)) = (by_label.get(&fwd), by_label.get(&other)) else {
                    continue;
                };
                if fb == b
                    || gone.contains(&fb)
                    || named_by_merge.contains(&fwd)
                    || preds.get(&fb).map_or(0, Vec::len) != 1
                    || !only_branch_to(m, fb, other)
                    || !phis_agree(m, ob, fwd, m.block_label(b))
                {
                    continue;
                }
                target = Some((other, Some((fb, ob))));
                break;
            }
        }
        let Some((other, fwd)) = target else { continue };
        if let Some(p) = m
            .prev_inst(term)
            .filter(|&p| m.inst(p).is(Op::SelectionMerge))
        {
            m.erase(p);
        }
        m.replace_inst(term, Inst::new(Op::Branch, None, None, &[other.word()]));
        if let Some((fb, ob)) = fwd {
            drop_phi_entries(m, ob, m.block_label(fb));
            if let Some(p) = preds.get_mut(&ob) {
                p.retain(|&x| x != fb);
            }
            gone.insert(fb);
            m.remove_block(fb);
        }
        removed += 1;
    }
    // Straight-line joins.
    for &b in &blocks {
        if gone.contains(&b) {
            continue;
        }
        while let Some(term) = m.block_terminator(b) {
            if !m.inst(term).is(Op::Branch)
                || m.prev_inst(term).is_some_and(|p| {
                    m.inst(p).is(Op::LoopMerge) || m.inst(p).is(Op::SelectionMerge)
                })
            {
                break;
            }
            let Some(x) = m.inst(term).operand_id(0) else {
                break;
            };
            let Some(&xb) = by_label.get(&x) else { break };
            if xb == b
                || gone.contains(&xb)
                || named_by_merge.contains(&x)
                || preds.get(&xb).map_or(0, Vec::len) != 1
                || m.block_insts(xb).any(|i| m.inst(i).is(Op::Phi))
            {
                break;
            }
            m.erase(term);
            let insts: Vec<InstId> = m.block_insts(xb).collect();
            for i in insts {
                m.move_to_end(i, b);
            }
            let label_b = m.block_label(b);
            for s in successors(m, b) {
                if let Some(&sb) = by_label.get(&s) {
                    rename_phi_parent(m, sb, x, label_b);
                    if let Some(p) = preds.get_mut(&sb) {
                        for q in p.iter_mut() {
                            if *q == xb {
                                *q = b;
                            }
                        }
                    }
                }
            }
            gone.insert(xb);
            m.remove_block(xb);
            removed += 1;
        }
    }
    removed
}

/// The labels block `b`'s terminator branches to.
fn successors(m: &Module, b: BlockId) -> Vec<Id> {
    let Some(t) = m.block_terminator(b) else {
        return Vec::new();
    };
    let inst = m.inst(t);
    let ops = inst.operands();
    match inst.op() {
        Some(Op::Branch) => ops.first().and_then(|&w| Id::new(w)).into_iter().collect(),
        Some(Op::BranchConditional) => ops[1..3.min(ops.len())]
            .iter()
            .filter_map(|&w| Id::new(w))
            .collect(),
        // Selector, default, then (literal, label) pairs.
        Some(Op::Switch) => {
            let literal_words = inst
                .operand_id(0)
                .and_then(|s| m.type_of(s))
                .and_then(|t| m.literal_words_of_type(t))
                .unwrap_or(1) as usize;
            let mut out: Vec<Id> = ops.get(1).and_then(|&w| Id::new(w)).into_iter().collect();
            let mut k = 2 + literal_words;
            while k < ops.len() {
                out.extend(Id::new(ops[k]));
                k += literal_words + 1;
            }
            out
        }
        _ => Vec::new(),
    }
}

fn has_loop_merge(m: &Module, term: InstId) -> bool {
    m.prev_inst(term)
        .is_some_and(|p| m.inst(p).is(Op::LoopMerge))
}

/// Whether block `b` holds nothing but `OpBranch %to` (and debug information).
fn only_branch_to(m: &Module, b: BlockId, to: Id) -> bool {
    let Some(t) = m.block_terminator(b) else {
        return false;
    };
    m.inst(t).is(Op::Branch)
        && m.inst(t).operand_id(0) == Some(to)
        && m.block_insts(b)
            .filter(|&i| i != t)
            .all(|i| is_debug_inst(m, m.inst(i)))
}

/// Whether every phi of block `b` takes the same value from predecessor `p` as from `q`.
fn phis_agree(m: &Module, b: BlockId, p: Id, q: Id) -> bool {
    m.block_phis(b).all(|i| {
        let ops = m.inst(i).operands();
        let from = |l: Id| {
            ops.chunks(2)
                .find(|c| c.len() == 2 && c[1] == l.word())
                .map(|c| c[0])
        };
        from(p) == from(q)
    })
}

fn drop_phi_entries(m: &mut Module, b: BlockId, parent: Id) {
    let phis: Vec<InstId> = m
        .block_insts(b)
        .filter(|&i| m.inst(i).is(Op::Phi))
        .collect();
    for i in phis {
        let inst = m.inst(i);
        let ops: Vec<u32> = inst
            .operands()
            .chunks(2)
            .filter(|c| c.get(1) != Some(&parent.word()))
            .flatten()
            .copied()
            .collect();
        let (t, r) = (inst.result_type(), inst.result_id());
        m.replace_inst(i, Inst::new(Op::Phi, t, r, &ops));
    }
}

fn rename_phi_parent(m: &mut Module, b: BlockId, from: Id, to: Id) {
    let phis: Vec<InstId> = m
        .block_insts(b)
        .filter(|&i| m.inst(i).is(Op::Phi))
        .collect();
    for i in phis {
        for pair in m.inst_mut(i).operands_mut().chunks_mut(2) {
            if pair.len() == 2 && pair[1] == from.word() {
                pair[1] = to.word();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use spvopt_ir::text::{assemble, disassemble, TargetEnv};

    /// Folds the kernel of `text`, its ids named after themselves where the module defines
    /// them (so the disassembly reads like the input).
    fn fold(text: &str) -> (usize, String) {
        let names: String = [
            "c", "x", "y", "p", "q", "entry", "then", "merge", "then2", "merge2",
        ]
        .iter()
        .chain(&["a", "b", "shared"])
        .filter(|n| text.contains(&format!("%{n} = ")))
        .map(|n| format!("OpName %{n} \"{n}\"\n"))
        .collect();
        let text = text.replacen(
            "%void = OpTypeVoid",
            &format!("{names}%void = OpTypeVoid"),
            1,
        );
        let words = assemble(&text, TargetEnv::Universal_1_2).unwrap();
        let mut m = spvopt_ir::load_words(&words).unwrap();
        let f = m.function_ids().next().unwrap();
        let n = fold_empty_branches(&mut m, f);
        (n, disassemble(&m.to_words()).unwrap())
    }

    const HEAD: &str =
        "OpCapability Addresses\nOpCapability Kernel\nOpMemoryModel Physical64 OpenCL\n\
        OpEntryPoint Kernel %k \"k\"\n\
        %void = OpTypeVoid\n%bool = OpTypeBool\n%uint = OpTypeInt 32 0\n\
        %fn = OpTypeFunction %void %uint\n%c0 = OpConstant %uint 0\n%c1 = OpConstant %uint 1\n\
        %k = OpFunction %void None %fn\n%x = OpFunctionParameter %uint\n%entry = OpLabel\n\
        %c = OpULessThan %bool %x %c1\n";

    /// A split block's successor whose phis follow a `DebugScope` and an `OpLine` (the
    /// LLVM/SPIR-V translator's order) has every phi renamed to the new predecessor, and so
    /// does a phi after an `OpNoLine` (issue 46).
    #[test]
    fn split_renames_phis_behind_debug_scopes_and_lines() {
        let text = "OpCapability Addresses\nOpCapability Kernel\n\
            %dbg = OpExtInstImport \"OpenCL.DebugInfo.100\"\n\
            OpMemoryModel Physical64 OpenCL\nOpEntryPoint Kernel %k \"k\"\n\
            %file = OpString \"k.cl\"\nOpName %entry \"entry\"\n\
            %void = OpTypeVoid\n%uint = OpTypeInt 32 0\n%fn = OpTypeFunction %void %uint\n\
            %src = OpExtInst %void %dbg DebugSource %file\n\
            %cu = OpExtInst %void %dbg DebugCompilationUnit 65536 0 %src Unknown\n\
            %k = OpFunction %void None %fn\n%x = OpFunctionParameter %uint\n\
            %entry = OpLabel\n%y = OpIAdd %uint %x %x\n%z = OpIAdd %uint %y %x\n\
            OpBranch %next\n%next = OpLabel\n%s = OpExtInst %void %dbg DebugScope %cu\n\
            OpLine %file 1 1\n%p = OpPhi %uint %y %entry\nOpNoLine\n\
            %q = OpPhi %uint %z %entry\nOpReturn\nOpFunctionEnd\n";
        let words = assemble(text, TargetEnv::Universal_1_2).unwrap();
        let mut m = spvopt_ir::load_words(&words).unwrap();
        let f = m.function_ids().next().unwrap();
        let entry = m.function(f).blocks[0];
        let at = m.block_insts(entry).next().unwrap();
        let split = split_block_after(&mut m, at).unwrap();
        let after = split.after_label.word();
        let succ = *m.function(f).blocks.last().unwrap();
        let phis: Vec<InstId> = m.block_phis(succ).collect();
        assert_eq!(phis.len(), 2);
        for p in phis {
            assert_eq!(
                m.inst(p).operands()[1],
                after,
                "{}",
                disassemble(&m.to_words()).unwrap()
            );
        }
    }

    /// A branch around an empty block whose phis agree goes, and the blocks join; a branch
    /// whose join phi tells the edges apart stays.
    #[test]
    fn empty_branches_go_unless_a_phi_tells_the_edges_apart() {
        let text = format!(
            "{HEAD}OpBranchConditional %c %then %merge\n%then = OpLabel\nOpBranch %merge\n\
             %merge = OpLabel\n%y = OpIAdd %uint %c1 %x\n\
             OpBranchConditional %c %then2 %merge2\n%then2 = OpLabel\nOpBranch %merge2\n\
             %merge2 = OpLabel\n%q = OpPhi %uint %c0 %then2 %y %merge\nOpReturn\nOpFunctionEnd\n"
        );
        let (n, out) = fold(&text);
        // One branch folded, one block joined.
        assert_eq!(n, 2, "{out}");
        assert!(!out.contains("%then = OpLabel"), "{out}");
        assert!(!out.contains("%merge = OpLabel"), "{out}");
        assert!(out.contains("%y = OpIAdd %uint %uint_1 %x"), "{out}");
        assert!(
            out.contains("OpBranchConditional %c %then2 %merge2"),
            "{out}"
        );
        assert!(
            out.contains("%q = OpPhi %uint %uint_0 %then2 %y %entry"),
            "{out}"
        );
    }

    /// A phi that takes one value from both edges keeps that value from the one edge left;
    /// the block with the phi is not joined.
    #[test]
    fn agreeing_phis_lose_the_removed_edge() {
        let text = format!(
            "{HEAD}OpBranchConditional %c %then %merge\n%then = OpLabel\nOpBranch %merge\n\
             %merge = OpLabel\n%p = OpPhi %uint %c1 %then %c1 %entry\n%y = OpIAdd %uint %p %x\n\
             OpReturn\nOpFunctionEnd\n"
        );
        let (n, out) = fold(&text);
        assert_eq!(n, 1, "{out}");
        assert!(out.contains("OpBranch %merge"), "{out}");
        assert!(out.contains("%p = OpPhi %uint %uint_1 %entry\n"), "{out}");
    }

    /// A block named by a merge instruction, or a target with other predecessors, stays.
    #[test]
    fn merge_targets_and_shared_blocks_stay() {
        let text = format!(
            "{HEAD}OpSelectionMerge %merge None\nOpBranchConditional %c %then %merge\n\
             %then = OpLabel\nOpBranch %merge\n%merge = OpLabel\nOpBranchConditional %c %a %b\n\
             %a = OpLabel\nOpBranch %shared\n%b = OpLabel\nOpBranch %shared\n\
             %shared = OpLabel\nOpReturn\nOpFunctionEnd\n"
        );
        let (n, out) = fold(&text);
        // The selection's branch folds (its merge instruction goes with it); %merge, named by
        // that merge instruction, is not joined; %a / %b both forward to %shared, which has two
        // predecessors: kept.
        assert!(!out.contains("OpSelectionMerge"), "{out}");
        assert!(out.contains("%merge = OpLabel"), "{out}");
        assert!(out.contains("OpBranchConditional %c %a %b"), "{out}");
        assert!(out.contains("%shared = OpLabel"), "{out}");
        assert_eq!(n, 1, "{out}");
    }
}
