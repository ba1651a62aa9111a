//! Post-dominator tree of every function.
//!
//! Block `a` post-dominates `b` when every path from `b` to the function's exit passes through
//! `a`. This is the dominator tree of the reversed CFG rooted at a virtual exit node whose
//! predecessors (in the forward graph) are the blocks without successors (`OpReturn`,
//! `OpUnreachable`, `OpKill`, …). Blocks that cannot reach any exit (infinite loops) would be
//! left out; as in LLVM, we connect such a region to the virtual exit through its last block in
//! reverse post-order and continue, so every reachable block is in the tree. This only makes
//! the tree shallower (an extra exit edge never creates a post-dominance that does not hold on
//! real paths to real exits), which keeps the uses of the tree (uniformity's divergence
//! regions) conservative.
//!
//! Cooper–Harvey–Kennedy over the reversed graph in its own reverse post-order (`dom_tree.rs`).

use spvopt_ir::{BlockId, Module};

use crate::cache::{Analyses, Analysis, AnalysisSet};
use crate::cfg::Cfg;
use crate::dom_tree::{immediate_dominators, LocalGraph, UNDEF};
use crate::dominators::BlockTree;

/// The post-dominator trees of all functions.
#[derive(Clone, Debug, Default)]
pub struct PostDominators {
    tree: BlockTree,
}

impl PostDominators {
    /// Computes the post-dominator trees from the CFG.
    pub fn build(m: &Module, cfg: &Cfg) -> PostDominators {
        let slots = cfg.block_slots();
        let mut tree = BlockTree::new(slots);
        // Local number (in the reversed graph's RPO) of each block; scratch shared by functions.
        let mut local = vec![UNDEF; slots];
        let mut is_exit = vec![false; slots];
        for f in m.function_ids() {
            let rpo = cfg.rpo(f);
            if rpo.is_empty() {
                continue;
            }
            // Depth-first search of the reversed graph from the virtual exit.
            let mut post: Vec<BlockId> = Vec::with_capacity(rpo.len());
            let mut visited_count = 0usize;
            let dfs = |start: BlockId, local: &mut Vec<u32>, post: &mut Vec<BlockId>| {
                // `local` doubles as the visited mark (UNDEF - 1 = on stack or done).
                let mut stack: Vec<(BlockId, usize)> = vec![(start, 0)];
                local[start.index()] = UNDEF - 1;
                let mut count = 1;
                while let Some(top) = stack.last_mut() {
                    let (b, next) = *top;
                    let preds = cfg.preds(b);
                    if next < preds.len() {
                        top.1 += 1;
                        let p = preds[next];
                        if cfg.is_reachable(p) && local[p.index()] == UNDEF {
                            local[p.index()] = UNDEF - 1;
                            count += 1;
                            stack.push((p, 0));
                        }
                    } else {
                        post.push(b);
                        stack.pop();
                    }
                }
                count
            };
            let mut exit_roots: Vec<BlockId> = Vec::new();
            for &b in rpo {
                if cfg.succs(b).is_empty() {
                    exit_roots.push(b);
                }
            }
            for &e in &exit_roots {
                if local[e.index()] == UNDEF {
                    visited_count += dfs(e, &mut local, &mut post);
                }
            }
            // Regions that never reach an exit: connect their last block (in forward RPO).
            let mut k = rpo.len();
            while visited_count < rpo.len() && k > 0 {
                k -= 1;
                let b = rpo[k];
                if local[b.index()] == UNDEF {
                    exit_roots.push(b);
                    visited_count += dfs(b, &mut local, &mut post);
                }
            }
            for &e in &exit_roots {
                is_exit[e.index()] = true;
            }
            // Reverse post-order of the reversed graph: virtual exit is node 0.
            let n = post.len() + 1;
            let mut nodes: Vec<Option<BlockId>> = Vec::with_capacity(n);
            nodes.push(None);
            for (k, &b) in post.iter().rev().enumerate() {
                local[b.index()] = (k + 1) as u32;
                nodes.push(Some(b));
            }
            let mut graph = LocalGraph {
                n,
                pred_start: Vec::with_capacity(n + 1),
                preds: Vec::new(),
            };
            graph.pred_start.push(0);
            graph.pred_start.push(0);
            for &b in post.iter().rev() {
                if is_exit[b.index()] {
                    graph.preds.push(0);
                }
                for &s in cfg.succs(b) {
                    let l = local[s.index()];
                    if l != UNDEF && l != UNDEF - 1 {
                        graph.preds.push(l);
                    }
                }
                graph.pred_start.push(graph.preds.len() as u32);
            }
            let idom = immediate_dominators(&graph);
            tree.add_function(f, &nodes, &idom);
            for &b in &post {
                local[b.index()] = UNDEF;
            }
            for &e in &exit_roots {
                is_exit[e.index()] = false;
            }
        }
        let all: Vec<BlockId> = m
            .function_ids()
            .flat_map(|f| cfg.rpo(f).iter().copied())
            .collect();
        tree.finish(&all);
        PostDominators { tree }
    }

    /// The immediate post-dominator of `b`; `None` when it is the virtual exit (or `b` is
    /// unreachable).
    pub fn ipdom(&self, b: BlockId) -> Option<BlockId> {
        self.tree.parent(b)
    }

    /// Whether `a` post-dominates `b` (every block post-dominates itself).
    pub fn post_dominates(&self, a: BlockId, b: BlockId) -> bool {
        self.tree.is_ancestor(a, b)
    }

    /// The tree itself.
    pub fn tree(&self) -> &BlockTree {
        &self.tree
    }
}

impl Analysis for PostDominators {
    const KIND: AnalysisSet = AnalysisSet::DOMINATORS;
    const DEPENDS_ON: AnalysisSet = AnalysisSet::CFG;
    fn compute(m: &Module, analyses: &mut Analyses) -> Self {
        let cfg = analyses.get::<Cfg>(m);
        PostDominators::build(m, &cfg)
    }
    fn same_facts(&self, fresh: &Self) -> bool {
        self.tree.same_tree(&fresh.tree)
    }
}
