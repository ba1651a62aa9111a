//! Control-flow graph of every function: successors, predecessors, reverse post-order.
//!
//! Successors come from each block's terminator: `OpBranch` (1), `OpBranchConditional` (2) and
//! `OpSwitch` (default + cases); `OpReturn`, `OpReturnValue`, `OpUnreachable`, `OpKill`,
//! `OpTerminateInvocation` and anything else have none. A target that is not a block of the
//! same function (malformed input) is ignored, and duplicate targets count once. Loop merge
//! instructions are not needed: loops are found from the graph (see `loops.rs`).
//!
//! Edges are stored once in flat arrays (CSR) indexed by `BlockId`, so building is two linear
//! passes; reverse post-order comes from an iterative depth-first search from the entry block
//! (the function's first block). Blocks not reached from the entry are "unreachable": they
//! have no RPO number and the dominator analyses ignore them.

use spirv::Op;
use spvopt_ir::{BlockId, FuncId, Id, Module};

use crate::cache::{Analyses, Analysis, AnalysisSet};
use crate::operands::op_of;

const NONE: u32 = u32::MAX;

/// Per-function facts of the CFG.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FunctionCfg {
    /// The first block, where execution starts (`None` for declarations).
    pub entry: Option<BlockId>,
    /// Reachable blocks in reverse post-order (entry first).
    pub rpo: Vec<BlockId>,
}

/// The CFG of every function in a module.
#[derive(Clone, Debug, Default)]
pub struct Cfg {
    func_of: Vec<u32>,
    succ_start: Vec<u32>,
    succs: Vec<BlockId>,
    pred_start: Vec<u32>,
    preds: Vec<BlockId>,
    rpo_number: Vec<u32>,
    funcs: Vec<FunctionCfg>,
    func_ids: Vec<FuncId>,
}

/// The block whose label is `label`, if it is a block of function `f`.
pub fn block_of_label(m: &Module, label: Id, f: FuncId) -> Option<BlockId> {
    let def = m.def(label)?;
    if !m.inst(def).is(Op::Label) {
        return None;
    }
    let b = m.inst_block(def)?;
    (m.block(b).func == f).then_some(b)
}

/// Calls `f` with each distinct successor of block `b` (read from its terminator).
pub fn for_each_successor(m: &Module, b: BlockId, mut f: impl FnMut(BlockId)) {
    let Some(term) = m.block_terminator(b) else {
        return;
    };
    let func = m.block(b).func;
    let inst = m.inst(term);
    let mut seen: smallvec::SmallVec<[BlockId; 4]> = smallvec::SmallVec::new();
    let mut push = |label: Option<Id>| {
        if let Some(t) = label.and_then(|l| block_of_label(m, l, func)) {
            if !seen.contains(&t) {
                seen.push(t);
                f(t);
            }
        }
    };
    match op_of(inst) {
        Some(Op::Branch) => push(inst.operand_id(0)),
        Some(Op::BranchConditional) => {
            push(inst.operand_id(1));
            push(inst.operand_id(2));
        }
        Some(Op::Switch) => {
            let mut first = true;
            m.for_each_used_id(term, |id| {
                if first {
                    first = false; // the selector
                } else {
                    push(Some(id));
                }
            });
        }
        _ => {}
    }
}

impl Cfg {
    /// Builds the CFG of every function of `m`.
    pub fn build(m: &Module) -> Cfg {
        let nb = m.block_arena_len();
        let mut block_ids: Vec<Option<BlockId>> = vec![None; nb];
        let func_ids: Vec<FuncId> = m.function_ids().collect();
        let mut func_of = vec![NONE; nb];
        for (k, &f) in func_ids.iter().enumerate() {
            for &b in &m.function(f).blocks {
                if let Some(slot) = block_ids.get_mut(b.index()) {
                    *slot = Some(b);
                    func_of[b.index()] = k as u32;
                }
            }
        }
        // Successors in block-index order: CSR directly.
        let mut succ_start = Vec::with_capacity(nb + 1);
        let mut succs = Vec::new();
        succ_start.push(0u32);
        for slot in &block_ids {
            if let Some(b) = *slot {
                for_each_successor(m, b, |s| succs.push(s));
            }
            succ_start.push(succs.len() as u32);
        }
        // Predecessors: count, then fill.
        let mut pred_start = vec![0u32; nb + 1];
        for &s in &succs {
            pred_start[s.index() + 1] += 1;
        }
        for k in 1..=nb {
            pred_start[k] += pred_start[k - 1];
        }
        let mut fill = pred_start.clone();
        let mut preds: Vec<Option<BlockId>> = vec![None; succs.len()];
        for (bi, slot) in block_ids.iter().enumerate() {
            let Some(b) = *slot else { continue };
            for k in succ_start[bi]..succ_start[bi + 1] {
                let s = succs[k as usize];
                preds[fill[s.index()] as usize] = Some(b);
                fill[s.index()] += 1;
            }
        }
        let preds: Vec<BlockId> = preds.into_iter().flatten().collect();
        let mut cfg = Cfg {
            func_of,
            succ_start,
            succs,
            pred_start,
            preds,
            rpo_number: vec![NONE; nb],
            funcs: Vec::with_capacity(func_ids.len()),
            func_ids,
        };
        let mut visited = vec![false; nb];
        for k in 0..cfg.func_ids.len() {
            let f = cfg.func_ids[k];
            let entry = m.function(f).blocks.first().copied();
            let rpo = entry
                .map(|e| cfg.compute_rpo(e, &mut visited))
                .unwrap_or_default();
            for (n, b) in rpo.iter().enumerate() {
                cfg.rpo_number[b.index()] = n as u32;
            }
            cfg.funcs.push(FunctionCfg { entry, rpo });
        }
        cfg
    }

    fn compute_rpo(&self, entry: BlockId, visited: &mut [bool]) -> Vec<BlockId> {
        let mut post = Vec::new();
        if entry.index() >= self.func_of.len() {
            return post;
        }
        let mut stack: Vec<(BlockId, u32)> = vec![(entry, self.succ_start[entry.index()])];
        visited[entry.index()] = true;
        while let Some(top) = stack.last_mut() {
            let (b, next) = *top;
            if next < self.succ_start[b.index() + 1] {
                top.1 += 1;
                let s = self.succs[next as usize];
                if !visited[s.index()] {
                    visited[s.index()] = true;
                    stack.push((s, self.succ_start[s.index()]));
                }
            } else {
                post.push(b);
                stack.pop();
            }
        }
        post.reverse();
        post
    }

    /// Successors of `b`.
    pub fn succs(&self, b: BlockId) -> &[BlockId] {
        let i = b.index();
        if i + 1 >= self.succ_start.len() {
            return &[];
        }
        &self.succs[self.succ_start[i] as usize..self.succ_start[i + 1] as usize]
    }

    /// Predecessors of `b` (including unreachable ones).
    pub fn preds(&self, b: BlockId) -> &[BlockId] {
        let i = b.index();
        if i + 1 >= self.pred_start.len() {
            return &[];
        }
        &self.preds[self.pred_start[i] as usize..self.pred_start[i + 1] as usize]
    }

    /// Per-function facts.
    pub fn function(&self, f: FuncId) -> Option<&FunctionCfg> {
        self.funcs.get(f.index())
    }

    /// Reachable blocks of `f` in reverse post-order.
    pub fn rpo(&self, f: FuncId) -> &[BlockId] {
        self.funcs.get(f.index()).map_or(&[], |x| &x.rpo[..])
    }

    /// The entry block of `f`.
    pub fn entry(&self, f: FuncId) -> Option<BlockId> {
        self.funcs.get(f.index()).and_then(|x| x.entry)
    }

    /// Position of `b` in its function's reverse post-order; `None` if unreachable.
    pub fn rpo_number(&self, b: BlockId) -> Option<u32> {
        self.rpo_number
            .get(b.index())
            .copied()
            .filter(|&n| n != NONE)
    }

    /// Whether `b` is reached from its function's entry.
    pub fn is_reachable(&self, b: BlockId) -> bool {
        self.rpo_number(b).is_some()
    }

    /// The function `b` belongs to (when the CFG was built).
    pub fn function_of(&self, b: BlockId) -> Option<FuncId> {
        let f = *self.func_of.get(b.index())?;
        if f == NONE {
            return None;
        }
        self.func_ids.get(f as usize).copied()
    }

    /// Number of block slots (the module's block arena length when built).
    pub fn block_slots(&self) -> usize {
        self.func_of.len()
    }
}

impl Analysis for Cfg {
    const KIND: AnalysisSet = AnalysisSet::CFG;
    fn compute(m: &Module, _: &mut Analyses) -> Self {
        Cfg::build(m)
    }
    /// The same functions, entries and reverse post-orders, and for every block the same
    /// function, successors (in order: a branch's targets are ordered) and predecessors (in
    /// any order: they follow the layout).
    fn same_facts(&self, fresh: &Self) -> bool {
        let slots = self.func_of.len().max(fresh.func_of.len());
        let edges = |c: &Cfg, b: usize, preds: bool| -> Vec<BlockId> {
            let (start, list) = if preds {
                (&c.pred_start, &c.preds)
            } else {
                (&c.succ_start, &c.succs)
            };
            let mut v = match (start.get(b), start.get(b + 1)) {
                (Some(&s), Some(&e)) => list[s as usize..e as usize].to_vec(),
                _ => Vec::new(),
            };
            if preds {
                v.sort_unstable();
            }
            v
        };
        self.funcs == fresh.funcs
            && self.func_ids == fresh.func_ids
            && crate::cache::same_table(&self.func_of, &fresh.func_of, &NONE)
            && (0..slots).all(|b| {
                edges(self, b, false) == edges(fresh, b, false)
                    && edges(self, b, true) == edges(fresh, b, true)
            })
    }
}
