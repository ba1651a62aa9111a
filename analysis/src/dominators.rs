//! Dominator tree of every function.
//!
//! Block `a` dominates `b` when every path from the function's entry to `b` passes through
//! `a`. Computed per function over the reachable blocks in reverse post-order with the
//! Cooper–Harvey–Kennedy iteration (`dom_tree.rs`); the tree is then numbered so queries are
//! O(1). Unreachable blocks have no immediate dominator and dominate nothing (and are
//! dominated by nothing), which is what passes want: they never move code into or out of them
//! on dominance grounds.

use spvopt_ir::{BlockId, FuncId, Module};

use crate::cache::{Analyses, Analysis, AnalysisSet};
use crate::cfg::Cfg;
use crate::dom_tree::{immediate_dominators, number_tree, LocalGraph, UNDEF};

/// A tree over blocks with O(1) ancestor queries (the dominator or post-dominator tree).
#[derive(Clone, Debug, Default)]
pub struct BlockTree {
    parent: Vec<Option<BlockId>>,
    pre: Vec<u32>,
    post: Vec<u32>,
    func: Vec<u32>,
    child_start: Vec<u32>,
    children: Vec<BlockId>,
}

impl BlockTree {
    /// Whether `other` is the same tree: every block has the same parent and function (the
    /// pre/post numbers and child lists derive from those and from the order of computation).
    pub(crate) fn same_tree(&self, other: &BlockTree) -> bool {
        crate::cache::same_table(&self.parent, &other.parent, &None)
            && crate::cache::same_table(&self.func, &other.func, &UNDEF)
    }

    pub(crate) fn new(slots: usize) -> BlockTree {
        BlockTree {
            parent: vec![None; slots],
            pre: vec![UNDEF; slots],
            post: vec![UNDEF; slots],
            func: vec![UNDEF; slots],
            child_start: Vec::new(),
            children: Vec::new(),
        }
    }

    /// Records one function's tree: `nodes[k]` is local node `k` (None for a virtual node),
    /// `parent` the local parent links (UNDEF for root/unreached).
    pub(crate) fn add_function(&mut self, f: FuncId, nodes: &[Option<BlockId>], parent: &[u32]) {
        let t = number_tree(parent);
        for (k, node) in nodes.iter().enumerate() {
            let Some(b) = *node else { continue };
            if t.pre[k] == UNDEF {
                continue;
            }
            let i = b.index();
            self.pre[i] = t.pre[k];
            self.post[i] = t.post[k];
            self.func[i] = f.index() as u32;
            let p = parent[k];
            self.parent[i] = if k == 0 || p == UNDEF {
                None
            } else {
                nodes[p as usize]
            };
        }
    }

    /// Builds the children lists once every function is added.
    pub(crate) fn finish(&mut self, all_blocks: &[BlockId]) {
        let n = self.parent.len();
        let mut start = vec![0u32; n + 1];
        for &b in all_blocks {
            if let Some(p) = self.parent[b.index()] {
                start[p.index() + 1] += 1;
            }
        }
        for k in 1..=n {
            start[k] += start[k - 1];
        }
        let mut fill = start.clone();
        let mut children: Vec<Option<BlockId>> = vec![None; start[n] as usize];
        for &b in all_blocks {
            if let Some(p) = self.parent[b.index()] {
                children[fill[p.index()] as usize] = Some(b);
                fill[p.index()] += 1;
            }
        }
        self.child_start = start;
        self.children = children.into_iter().flatten().collect();
    }

    /// The parent of `b` in the tree (immediate (post-)dominator); `None` for roots, blocks
    /// whose parent is a virtual node, and unreachable blocks.
    pub fn parent(&self, b: BlockId) -> Option<BlockId> {
        self.parent.get(b.index()).copied().flatten()
    }

    /// Whether `b` is in the tree.
    pub fn contains(&self, b: BlockId) -> bool {
        self.pre.get(b.index()).is_some_and(|&p| p != UNDEF)
    }

    /// Whether `a` is an ancestor of `b` or `b` itself.
    pub fn is_ancestor(&self, a: BlockId, b: BlockId) -> bool {
        let (ai, bi) = (a.index(), b.index());
        if ai >= self.pre.len() || bi >= self.pre.len() {
            return false;
        }
        self.pre[ai] != UNDEF
            && self.pre[bi] != UNDEF
            && self.func[ai] == self.func[bi]
            && self.pre[ai] <= self.pre[bi]
            && self.post[bi] <= self.post[ai]
    }

    /// The children of `b`.
    pub fn children(&self, b: BlockId) -> &[BlockId] {
        let i = b.index();
        if i + 1 >= self.child_start.len() {
            return &[];
        }
        &self.children[self.child_start[i] as usize..self.child_start[i + 1] as usize]
    }

    /// The pre-order number of `b` in its function's tree.
    pub fn preorder(&self, b: BlockId) -> Option<u32> {
        self.pre.get(b.index()).copied().filter(|&p| p != UNDEF)
    }
}

/// The dominator trees of all functions.
#[derive(Clone, Debug, Default)]
pub struct Dominators {
    tree: BlockTree,
}

impl Dominators {
    /// Computes the dominator trees from the CFG.
    pub fn build(m: &Module, cfg: &Cfg) -> Dominators {
        let mut tree = BlockTree::new(cfg.block_slots());
        let mut graph = LocalGraph {
            n: 0,
            pred_start: Vec::new(),
            preds: Vec::new(),
        };
        for f in m.function_ids() {
            let rpo = cfg.rpo(f);
            graph.n = rpo.len();
            graph.pred_start.clear();
            graph.preds.clear();
            graph.pred_start.push(0);
            for &b in rpo {
                for &p in cfg.preds(b) {
                    if let Some(n) = cfg.rpo_number(p) {
                        graph.preds.push(n);
                    }
                }
                graph.pred_start.push(graph.preds.len() as u32);
            }
            let idom = immediate_dominators(&graph);
            let nodes: Vec<Option<BlockId>> = rpo.iter().map(|&b| Some(b)).collect();
            tree.add_function(f, &nodes, &idom);
        }
        let all: Vec<BlockId> = m
            .function_ids()
            .flat_map(|f| cfg.rpo(f).iter().copied())
            .collect();
        tree.finish(&all);
        Dominators { tree }
    }

    /// The immediate dominator of `b` (`None` for entry blocks and unreachable blocks).
    pub fn idom(&self, b: BlockId) -> Option<BlockId> {
        self.tree.parent(b)
    }

    /// Whether `a` dominates `b` (every block dominates itself).
    pub fn dominates(&self, a: BlockId, b: BlockId) -> bool {
        self.tree.is_ancestor(a, b)
    }

    /// Whether `a` dominates `b` and differs from it.
    pub fn strictly_dominates(&self, a: BlockId, b: BlockId) -> bool {
        a != b && self.dominates(a, b)
    }

    /// The blocks `b` immediately dominates.
    pub fn children(&self, b: BlockId) -> &[BlockId] {
        self.tree.children(b)
    }

    /// The tree itself.
    pub fn tree(&self) -> &BlockTree {
        &self.tree
    }
}

impl Analysis for Dominators {
    const KIND: AnalysisSet = AnalysisSet::DOMINATORS;
    const DEPENDS_ON: AnalysisSet = AnalysisSet::CFG;
    fn compute(m: &Module, analyses: &mut Analyses) -> Self {
        let cfg = analyses.get::<Cfg>(m);
        Dominators::build(m, &cfg)
    }
    fn same_facts(&self, fresh: &Self) -> bool {
        self.tree.same_tree(&fresh.tree)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// entry → a → b → c: each block's immediate dominator is the one before it.
    const CHAIN: &str = "
               OpCapability Addresses
               OpCapability Kernel
               OpMemoryModel Physical64 OpenCL
               OpEntryPoint Kernel %f \"f\"
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
          %f = OpFunction %void None %fn
      %entry = OpLabel
               OpBranch %a
          %a = OpLabel
               OpBranch %b
          %b = OpLabel
               OpBranch %c
          %c = OpLabel
               OpReturn
               OpFunctionEnd
";

    #[test]
    fn a_swapped_parent_is_a_different_tree_which_sorted_debug_lines_do_not_see() {
        let words =
            spvopt_ir::text::assemble(CHAIN, spvopt_ir::text::TargetEnv::Universal_1_4).unwrap();
        let m = spvopt_ir::load_words(&words).unwrap();
        let mut analyses = Analyses::new();
        let dom = analyses.get::<Dominators>(&m);
        let fresh = Dominators::compute(&m, &mut Analyses::new());
        assert!(dom.same_facts(&fresh));
        // Swap the parents of two blocks that have different ones.
        let mut swapped = (*dom).clone();
        let with_parent: Vec<usize> = (0..swapped.tree.parent.len())
            .filter(|&b| swapped.tree.parent[b].is_some())
            .collect();
        let (x, y) = (with_parent[1], with_parent[2]);
        assert_ne!(swapped.tree.parent[x], swapped.tree.parent[y]);
        swapped.tree.parent.swap(x, y);
        assert!(!swapped.same_facts(&fresh), "a swapped parent is caught");
        // What the check compared before: the same sorted lines.
        assert_eq!(swapped.fingerprint(), fresh.fingerprint());
    }
}
