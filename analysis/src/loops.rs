//! Natural loops of every function, found from the CFG and dominators (no `OpLoopMerge`
//! needed: Triton's loops are single blocks branching to themselves without one).
//!
//! A back edge is an edge `t → h` where `h` dominates `t`; `h` is a loop header and the loop is
//! every block that reaches `t` without passing `h`. Headers are processed innermost first (in
//! decreasing RPO order: an inner header comes after the header of any loop containing it), and
//! the backward walk from the latches jumps over already-found inner loops through a union-find
//! of "outermost loop found so far", which makes them children of the current loop. Every block
//! is claimed once and every edge walked a bounded number of times: near-linear (LLVM's
//! `LoopInfo` algorithm). Retreating edges into a block that does not dominate their source
//! (irreducible control flow) form no loop; analyses treat values there conservatively.
//!
//! The loop forest is numbered in pre-order so "loop L contains block b" is an interval test,
//! and the blocks of each loop (nested ones included) are one contiguous slice.

use spvopt_ir::{BlockId, FuncId, Module};

use crate::cache::{Analyses, Analysis, AnalysisSet};
use crate::cfg::Cfg;
use crate::dominators::Dominators;

const NONE: u32 = u32::MAX;

/// A loop, by index in [`Loops`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LoopId(pub u32);

impl LoopId {
    /// The loop's index in the table of every loop of the module (and in per-loop tables).
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// One natural loop.
#[derive(Clone, Debug)]
pub struct LoopData {
    /// The loop header (target of the back edges, dominates the loop).
    pub header: BlockId,
    /// Sources of the back edges (blocks in the loop branching to the header).
    pub latches: Vec<BlockId>,
    /// The innermost loop containing this one.
    pub parent: Option<LoopId>,
    /// 1 for outermost loops.
    pub depth: u32,
    /// The function the loop is in.
    pub func: FuncId,
    pre: u32,
    size: u32,
}

/// The loop forest of every function.
#[derive(Clone, Debug, Default)]
pub struct Loops {
    loops: Vec<LoopData>,
    innermost: Vec<u32>,
    /// Loop ids in pre-order of the loop forest.
    preorder: Vec<LoopId>,
    /// Blocks grouped by the pre-order number of their innermost loop.
    block_start: Vec<u32>,
    blocks: Vec<BlockId>,
}

impl Loops {
    /// Finds the loops of every function.
    pub fn build(m: &Module, cfg: &Cfg, dom: &Dominators) -> Loops {
        let slots = cfg.block_slots();
        let mut loops: Vec<LoopData> = Vec::new();
        let mut innermost = vec![NONE; slots];
        // Union-find: outermost loop found so far containing a loop.
        let mut rep: Vec<u32> = Vec::new();
        fn find(rep: &mut [u32], mut l: u32) -> u32 {
            let mut root = l;
            while rep[root as usize] != root {
                root = rep[root as usize];
            }
            while rep[l as usize] != root {
                let next = rep[l as usize];
                rep[l as usize] = root;
                l = next;
            }
            root
        }
        let mut work: Vec<BlockId> = Vec::new();
        for f in m.function_ids() {
            let rpo = cfg.rpo(f);
            for &h in rpo.iter().rev() {
                let latches: Vec<BlockId> = cfg
                    .preds(h)
                    .iter()
                    .copied()
                    .filter(|&p| cfg.is_reachable(p) && dom.dominates(h, p))
                    .collect();
                if latches.is_empty() {
                    continue;
                }
                let l = loops.len() as u32;
                loops.push(LoopData {
                    header: h,
                    latches: latches.clone(),
                    parent: None,
                    depth: 0,
                    func: f,
                    pre: 0,
                    size: 0,
                });
                rep.push(l);
                work.clear();
                work.extend(latches.iter().copied().filter(|&p| p != h));
                while let Some(b) = work.pop() {
                    let inner = innermost[b.index()];
                    if inner == NONE {
                        innermost[b.index()] = l;
                        work.extend(
                            cfg.preds(b)
                                .iter()
                                .copied()
                                .filter(|&p| p != h && cfg.is_reachable(p) && dom.dominates(h, p)),
                        );
                    } else {
                        let outer = find(&mut rep, inner);
                        if outer == l {
                            continue;
                        }
                        loops[outer as usize].parent = Some(LoopId(l));
                        rep[outer as usize] = l;
                        let sub_header = loops[outer as usize].header;
                        work.extend(
                            cfg.preds(sub_header)
                                .iter()
                                .copied()
                                .filter(|&p| p != h && cfg.is_reachable(p) && dom.dominates(h, p)),
                        );
                    }
                }
                // The header belongs to its own loop unless an inner loop already claimed it
                // (impossible: inner headers are strictly dominated by `h`).
                if innermost[h.index()] == NONE {
                    innermost[h.index()] = l;
                }
            }
        }
        // Depths: parents were created after their children.
        for k in (0..loops.len()).rev() {
            loops[k].depth = match loops[k].parent {
                Some(p) => loops[p.index()].depth + 1,
                None => 1,
            };
        }
        // Pre-order numbering of the forest.
        let n = loops.len();
        let mut child_start = vec![0u32; n + 1];
        for lp in &loops {
            if let Some(p) = lp.parent {
                child_start[p.index() + 1] += 1;
            }
        }
        for k in 1..=n {
            child_start[k] += child_start[k - 1];
        }
        let mut fill = child_start.clone();
        let mut children = vec![0u32; child_start[n] as usize];
        for (k, lp) in loops.iter().enumerate() {
            if let Some(p) = lp.parent {
                children[fill[p.index()] as usize] = k as u32;
                fill[p.index()] += 1;
            }
        }
        let mut preorder = Vec::with_capacity(n);
        let mut counter = 0u32;
        for root in (0..n).rev() {
            if loops[root].parent.is_some() {
                continue;
            }
            let mut stack: Vec<(u32, u32)> = vec![(root as u32, child_start[root])];
            loops[root].pre = counter;
            preorder.push(LoopId(root as u32));
            counter += 1;
            while let Some(top) = stack.last_mut() {
                let (l, next) = *top;
                if next < child_start[l as usize + 1] {
                    top.1 += 1;
                    let c = children[next as usize];
                    loops[c as usize].pre = counter;
                    preorder.push(LoopId(c));
                    counter += 1;
                    stack.push((c, child_start[c as usize]));
                } else {
                    loops[l as usize].size = counter - loops[l as usize].pre;
                    stack.pop();
                }
            }
        }
        // Blocks grouped by the pre-order number of their innermost loop.
        let mut block_start = vec![0u32; n + 1];
        let all_blocks = || m.function_ids().flat_map(|f| cfg.rpo(f).iter().copied());
        for b in all_blocks() {
            let l = innermost[b.index()];
            if l != NONE {
                block_start[loops[l as usize].pre as usize + 1] += 1;
            }
        }
        for k in 1..=n {
            block_start[k] += block_start[k - 1];
        }
        let mut fill = block_start.clone();
        let mut blocks: Vec<Option<BlockId>> = vec![None; block_start[n] as usize];
        for b in all_blocks() {
            let l = innermost[b.index()];
            if l != NONE {
                let p = loops[l as usize].pre as usize;
                blocks[fill[p] as usize] = Some(b);
                fill[p] += 1;
            }
        }
        Loops {
            loops,
            innermost,
            preorder,
            block_start,
            blocks: blocks.into_iter().flatten().collect(),
        }
    }

    /// Number of loops.
    pub fn len(&self) -> usize {
        self.loops.len()
    }

    /// Whether there are no loops.
    pub fn is_empty(&self) -> bool {
        self.loops.is_empty()
    }

    /// All loop ids.
    pub fn ids(&self) -> impl Iterator<Item = LoopId> + '_ {
        (0..self.loops.len() as u32).map(LoopId)
    }

    /// Loop ids in pre-order of the loop forest (outer loops before the loops they contain).
    pub fn preorder(&self) -> &[LoopId] {
        &self.preorder
    }

    /// The loop `l`.
    pub fn get(&self, l: LoopId) -> Option<&LoopData> {
        self.loops.get(l.index())
    }

    /// The header of loop `l`.
    pub fn header(&self, l: LoopId) -> Option<BlockId> {
        self.get(l).map(|d| d.header)
    }

    /// The innermost loop containing block `b`.
    pub fn innermost(&self, b: BlockId) -> Option<LoopId> {
        let l = *self.innermost.get(b.index())?;
        (l != NONE).then_some(LoopId(l))
    }

    /// The loop whose header is `b`.
    pub fn loop_of_header(&self, b: BlockId) -> Option<LoopId> {
        self.innermost(b)
            .filter(|&l| self.loops[l.index()].header == b)
    }

    /// Loop depth of block `b` (0 outside loops).
    pub fn depth(&self, b: BlockId) -> u32 {
        self.innermost(b).map_or(0, |l| self.loops[l.index()].depth)
    }

    /// Whether loop `outer` contains loop `inner` (a loop contains itself).
    pub fn loop_contains_loop(&self, outer: LoopId, inner: LoopId) -> bool {
        match (self.get(outer), self.get(inner)) {
            (Some(o), Some(i)) => o.pre <= i.pre && i.pre < o.pre + o.size,
            _ => false,
        }
    }

    /// Whether loop `l` contains block `b`.
    pub fn contains(&self, l: LoopId, b: BlockId) -> bool {
        self.innermost(b)
            .is_some_and(|i| self.loop_contains_loop(l, i))
    }

    /// The blocks of loop `l`, nested loops included.
    pub fn blocks(&self, l: LoopId) -> &[BlockId] {
        let Some(d) = self.get(l) else { return &[] };
        let s = self.block_start[d.pre as usize] as usize;
        let e = self.block_start[(d.pre + d.size) as usize] as usize;
        &self.blocks[s..e]
    }

    /// The loops enclosing block `b`, innermost first.
    pub fn enclosing(&self, b: BlockId) -> impl Iterator<Item = LoopId> + '_ {
        std::iter::successors(self.innermost(b), move |l| self.loops[l.index()].parent)
    }

    /// Blocks outside `l` that are successors of blocks inside it.
    pub fn exit_blocks(&self, l: LoopId, cfg: &Cfg) -> Vec<BlockId> {
        let mut out = Vec::new();
        for &b in self.blocks(l) {
            for &s in cfg.succs(b) {
                if !self.contains(l, s) && !out.contains(&s) {
                    out.push(s);
                }
            }
        }
        out
    }

    /// The unique predecessor of the header outside the loop, if there is exactly one.
    pub fn preheader(&self, l: LoopId, cfg: &Cfg) -> Option<BlockId> {
        let h = self.header(l)?;
        let mut outside = cfg.preds(h).iter().filter(|&&p| !self.contains(l, p));
        let first = *outside.next()?;
        outside.next().is_none().then_some(first)
    }
}

impl Analysis for Loops {
    const KIND: AnalysisSet = AnalysisSet::LOOPS;
    const DEPENDS_ON: AnalysisSet = AnalysisSet(AnalysisSet::CFG.0 | AnalysisSet::DOMINATORS.0);
    fn compute(m: &Module, analyses: &mut Analyses) -> Self {
        let cfg = analyses.get::<Cfg>(m);
        let dom = analyses.get::<Dominators>(m);
        Loops::build(m, &cfg, &dom)
    }
    /// The same loops, told apart by their headers (loop ids are positions): for each, the
    /// same latches, blocks, parent's header, depth and function.
    fn same_facts(&self, fresh: &Self) -> bool {
        type Facts = (Vec<BlockId>, Vec<BlockId>, Option<BlockId>, u32, FuncId);
        let facts = |ls: &Loops| -> Vec<(BlockId, Facts)> {
            let mut v: Vec<(BlockId, Facts)> = ls
                .ids()
                .filter_map(|l| {
                    let d = ls.get(l)?;
                    let mut latches = d.latches.clone();
                    latches.sort_unstable();
                    let mut blocks = ls.blocks(l).to_vec();
                    blocks.sort_unstable();
                    let parent = d.parent.and_then(|p| ls.header(p));
                    Some((d.header, (latches, blocks, parent, d.depth, d.func)))
                })
                .collect();
            v.sort_unstable_by_key(|e| e.0);
            v
        };
        facts(self) == facts(fresh)
    }
}
