//! Sync dependence: divergent branches make the phis at their joins, the blocks they control
//! and the values that leave loops with divergent exits divergent.

use super::*;

impl<'a> Solver<'a> {
    pub(super) fn divergent_branch(&mut self, b: BlockId) {
        if !self.divergent_branches.insert(b) {
            return;
        }
        self.divergent_branch_inner(b);
    }

    pub(super) fn divergent_branch_inner(&mut self, b: BlockId) {
        let Some(f) = self.cfg.function_of(b) else {
            return;
        };
        if self.exhausted.contains(&f) {
            return;
        }
        let stop = self.pdom.ipdom(b);
        // Blocks reached from b's successors before its immediate post-dominator, not
        // following back edges of loops that contain b.
        self.stamp += 1;
        let stamp = self.stamp;
        let mut region = std::mem::take(&mut self.region_buf);
        let mut stack = std::mem::take(&mut self.stack_buf);
        region.clear();
        stack.clear();
        stack.push(b);
        let mut work: i64 = 0;
        while let Some(x) = stack.pop() {
            if x != b {
                region.push(x);
            }
            for &s in self.cfg.succs(x) {
                work += 1;
                if Some(s) == stop || s == b || self.block_stamp[s.index()] == stamp {
                    continue;
                }
                let back_edge_of_enclosing = self.dom.dominates(s, x)
                    && self
                        .loops
                        .loop_of_header(s)
                        .is_some_and(|l| self.loops.contains(l, b));
                if back_edge_of_enclosing {
                    continue;
                }
                self.block_stamp[s.index()] = stamp;
                stack.push(s);
            }
        }
        work += region.len() as i64;
        self.budget[f.index()] -= work;
        if self.budget[f.index()] < 0 {
            self.region_buf = region;
            self.stack_buf = stack;
            self.give_up(f);
            return;
        }
        // Joins: blocks in the region or the post-dominator with two or more predecessors
        // that are b or in the region (back edges into them excluded).
        let mut joins: Vec<BlockId> = Vec::new();
        for &x in region.iter().chain(stop.iter()) {
            let n = self
                .cfg
                .preds(x)
                .iter()
                .filter(|&&p| {
                    (p == b || self.block_stamp[p.index()] == stamp) && !self.dom.dominates(x, p)
                })
                .count();
            if n >= 2 {
                joins.push(x);
            }
        }
        for j in joins {
            self.force_phis(j);
        }
        for &x in &region {
            self.mark_divergent_control(x);
        }
        self.region_buf = region;
        self.stack_buf = stack;
        // Divergent loop exits.
        let exits_loops: Vec<LoopId> = self
            .loops
            .enclosing(b)
            .filter(|&l| {
                self.cfg
                    .succs(b)
                    .iter()
                    .any(|&s| !self.loops.contains(l, s))
            })
            .collect();
        for l in exits_loops {
            self.divergent_loop_exit(l);
        }
    }

    pub(super) fn force_phis(&mut self, j: BlockId) {
        let m = self.m;
        let phis: Vec<Id> = m
            .block_phis(j)
            .filter_map(|i| m.inst(i).result_id())
            .collect();
        for p in phis {
            self.force(p, ALL);
        }
    }

    pub(super) fn mark_divergent_control(&mut self, x: BlockId) {
        if !self.divergent_control.insert(x) {
            return;
        }
        let m = self.m;
        // Stores and returns already evaluated must be revisited; later ones will see the
        // mark when they are evaluated.
        let evaluated = m.block_first(x).is_none_or(|i| {
            self.state
                .get(i.index())
                .is_none_or(|&s| s != NOT_EVALUATED)
        });
        if !evaluated {
            return;
        }
        let todo: Vec<InstId> = m
            .block_insts(x)
            .filter(|&i| {
                let inst = m.inst(i);
                inst.is(Op::Store)
                    || inst.opcode() == OP_PREDICATED_STORE_INTEL
                    || inst.is(Op::ReturnValue)
            })
            .collect();
        for i in todo {
            self.push(i);
        }
    }

    pub(super) fn divergent_loop_exit(&mut self, l: LoopId) {
        if !self.divergent_exit_loops.insert(l) {
            return;
        }
        for e in self.loops.exit_blocks(l, self.cfg) {
            self.force_phis(e);
        }
        self.force_live_outs(l);
    }

    /// Forces divergent every value defined in loop `l` and used outside it.
    pub(super) fn force_live_outs(&mut self, l: LoopId) {
        let m = self.m;
        let blocks: Vec<BlockId> = self.loops.blocks(l).to_vec();
        let mut live_out: Vec<Id> = Vec::new();
        for &b in &blocks {
            for i in m.block_insts(b) {
                let Some(r) = m.inst(i).result_id() else {
                    continue;
                };
                let outside = self.users_of(r).iter().any(|&u| {
                    m.inst_block(u)
                        .is_some_and(|ub| !self.loops.contains(l, ub))
                });
                if outside {
                    live_out.push(r);
                }
            }
        }
        for r in live_out {
            self.force(r, ALL);
        }
    }

    /// Too much divergent control flow in `f` for the budget: treat all of it as divergent.
    pub(super) fn give_up(&mut self, f: FuncId) {
        if !self.exhausted.insert(f) {
            return;
        }
        let rpo: Vec<BlockId> = self.cfg.rpo(f).to_vec();
        for &b in &rpo {
            self.force_phis(b);
            self.mark_divergent_control(b);
        }
        for &b in &rpo {
            if let Some(l) = self.loops.loop_of_header(b) {
                self.divergent_loop_exit(l);
            }
        }
    }
}
