//! CFG surgery shared by passes that expand one instruction into loops or diamonds.

use spirv::Op;
use spvopt_ir::{BlockId, Id, InstId, Module};

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
        let phis: Vec<InstId> = m
            .block_insts(b)
            .take_while(|&x| m.inst(x).is(Op::Phi) || m.inst(x).is(Op::Line))
            .filter(|&x| m.inst(x).is(Op::Phi))
            .collect();
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
