//! The dominator-tree algorithm shared by `dominators.rs` and `post_dominators.rs`.
//!
//! Cooper, Harvey & Kennedy, "A Simple, Fast Dominance Algorithm" (2001): iterate
//! `idom(b) = intersect(processed preds of b)` over the nodes in reverse post-order until
//! nothing changes, where `intersect` walks the two candidates up the current tree by RPO
//! number. It converges in d(G)+3 passes (d = loop connectedness, small in practice), each
//! linear in the edges. Nodes here are local indices `0..n` numbered in reverse post-order
//! of the graph being analysed, node 0 being the root.
//!
//! The finished tree is numbered by an iterative depth-first walk (pre- and post-order
//! numbers), so "a dominates b" is two comparisons: `pre[a] <= pre[b] && post[b] <= post[a]`.

pub(crate) const UNDEF: u32 = u32::MAX;

/// A graph over local nodes `0..n` in reverse post-order, given by predecessor lists (CSR).
pub(crate) struct LocalGraph {
    pub n: usize,
    pub pred_start: Vec<u32>,
    pub preds: Vec<u32>,
}

impl LocalGraph {
    fn preds(&self, b: usize) -> &[u32] {
        &self.preds[self.pred_start[b] as usize..self.pred_start[b + 1] as usize]
    }
}

/// Immediate dominators (`idom[0] == 0`; nodes not reached from the root get [`UNDEF`]).
pub(crate) fn immediate_dominators(g: &LocalGraph) -> Vec<u32> {
    let mut idom = vec![UNDEF; g.n];
    if g.n == 0 {
        return idom;
    }
    idom[0] = 0;
    let mut changed = true;
    while changed {
        changed = false;
        for b in 1..g.n {
            let mut new = UNDEF;
            for &p in g.preds(b) {
                if idom[p as usize] == UNDEF {
                    continue;
                }
                new = if new == UNDEF {
                    p
                } else {
                    intersect(&idom, p, new)
                };
            }
            if new != idom[b] {
                idom[b] = new;
                changed = true;
            }
        }
    }
    idom
}

fn intersect(idom: &[u32], mut a: u32, mut b: u32) -> u32 {
    while a != b {
        while a > b {
            a = idom[a as usize];
        }
        while b > a {
            b = idom[b as usize];
        }
    }
    a
}

/// Pre/post numbers of a tree given by parent links (`idom`).
pub(crate) struct TreeNumbers {
    pub pre: Vec<u32>,
    pub post: Vec<u32>,
}

pub(crate) fn number_tree(idom: &[u32]) -> TreeNumbers {
    let n = idom.len();
    let mut child_start = vec![0u32; n + 1];
    for (b, &p) in idom.iter().enumerate() {
        if b != 0 && p != UNDEF {
            child_start[p as usize + 1] += 1;
        }
    }
    for k in 1..=n {
        child_start[k] += child_start[k - 1];
    }
    let mut fill = child_start.clone();
    let mut children = vec![0u32; child_start[n] as usize];
    for (b, &p) in idom.iter().enumerate() {
        if b != 0 && p != UNDEF {
            children[fill[p as usize] as usize] = b as u32;
            fill[p as usize] += 1;
        }
    }
    let mut pre = vec![UNDEF; n];
    let mut post = vec![UNDEF; n];
    if n == 0 {
        return TreeNumbers { pre, post };
    }
    let (mut pc, mut qc) = (0u32, 0u32);
    let mut stack: Vec<(u32, u32)> = vec![(0, child_start[0])];
    pre[0] = pc;
    pc += 1;
    while let Some(top) = stack.last_mut() {
        let (b, next) = *top;
        if next < child_start[b as usize + 1] {
            top.1 += 1;
            let c = children[next as usize];
            pre[c as usize] = pc;
            pc += 1;
            stack.push((c, child_start[c as usize]));
        } else {
            post[b as usize] = qc;
            qc += 1;
            stack.pop();
        }
    }
    TreeNumbers { pre, post }
}
