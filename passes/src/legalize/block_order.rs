//! Blocks are reordered so that every block comes after the blocks that dominate it.
//!
//! What: in each function whose layout puts a block before one of its dominators (the LLVM/SPIR-V
//! translator does: a value defined in a block that appears later than a block using it, which
//! spirv-val rejects as "has not been defined"), the reachable blocks are laid out in reverse
//! post-order from the entry block, and the unreachable ones follow in their original order.
//! Functions already in a dominance-compatible order are left byte-identical.
//! Why correct: the block layout has no meaning for execution (control flow is given by the
//! branch targets, and phis name their predecessors by label); reverse post-order places every
//! block after its dominators, which is the SPIR-V rule ("blocks appear before all blocks they
//! dominate"), and keeps the entry block first. Merge blocks and continue targets are dominated
//! by their headers, so they still follow them.
//! Cost: one CFG and dominator tree for the module, one pass over each function's blocks.

use spvopt_analysis::{Cfg, Dominators};
use spvopt_ir::{BlockId, Module};

use crate::pass::{Changes, Statistics};

/// Whether the layout lists some reachable block before its immediate dominator (if every
/// block follows its immediate dominator, by induction it follows all its dominators).
fn needs_reorder(m: &Module, dom: &Dominators, blocks: &[BlockId]) -> bool {
    let mut position = vec![usize::MAX; m.block_arena_len()];
    for (k, &b) in blocks.iter().enumerate() {
        position[b.index()] = k;
    }
    blocks
        .iter()
        .enumerate()
        .any(|(k, &b)| dom.idom(b).is_some_and(|d| position[d.index()] > k))
}

/// Reorders the functions that need it; counts `reordered_functions`.
pub fn run(m: &mut Module, stats: &mut Statistics, changes: &mut Changes) {
    let cfg = Cfg::build(m);
    let dom = Dominators::build(m, &cfg);
    for f in m.function_ids().collect::<Vec<_>>() {
        let blocks = m.function(f).blocks.clone();
        if blocks.len() < 2 || !needs_reorder(m, &dom, &blocks) {
            continue;
        }
        let rpo = cfg.rpo(f);
        let mut order: Vec<BlockId> = rpo.to_vec();
        order.extend(blocks.iter().copied().filter(|b| !cfg.is_reachable(*b)));
        if order.len() == blocks.len() && order.first() == blocks.first() && changes.allow() {
            m.functions[f.index()].blocks = order;
            stats.add("reordered_functions", 1);
        }
    }
}
