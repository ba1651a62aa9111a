//! Statements and control flow: the statement chooser, divergent `if`s on the subgroup-local
//! id (per-invocation code, a phi at the merge), uniform `if`s, loops (structured or
//! bottom-tested, constant or argument-dependent trip counts, nested) and writes to `st`.

use spirv::{Op, StorageClass};

use crate::{Gen, Kind, Loaded, LoopCtx, LoopParts, ST_REGION};

impl Gen<'_> {
    /// One statement in uniform control flow at nesting `depth`.
    pub(crate) fn statement(&mut self, depth: u32) {
        let choice = self.c.below(20);
        match choice {
            0..=5 => {
                let kind = self.c.pick(&[
                    Kind::Load,
                    Kind::Load,
                    Kind::Load,
                    Kind::Transform,
                    Kind::Transpose,
                ]);
                self.block_load(kind);
            }
            6 | 7 => self.prefetch(),
            8 | 9 => self.store(),
            10 | 11 => self.mma(),
            12 | 13 => self.divergent_if(depth),
            14 if depth < 3 => self.uniform_if(depth),
            15 | 16 if depth < 2 => self.counted_loop(depth),
            17 if depth < 2 => self.gemm_loop(),
            18 => self.block_read_1d(),
            19 if self.c.chance(50) => self.write_st(),
            _ => {
                let v = self.divergent_value();
                self.observe_u32(v);
            }
        }
    }

    /// Writes a per-invocation value into a byte of a loaded array.
    pub(crate) fn modify_loaded(&mut self, l: Loaded) {
        let u = self.t.u32_;
        let v = self.divergent_value();
        let v = match l.elem_bytes {
            4 => v,
            _ => self.op(Op::UConvert, l.elem, &[v]),
        };
        let n = l.bytes / l.elem_bytes;
        let j = self.c.below(n as usize) as u32;
        let p = self.s.pointer(StorageClass::Function, l.elem);
        let jc = self.u32c(j);
        let q = self.op(Op::InBoundsAccessChain, p, &[l.var, jc]);
        self.void_op(Op::Store, &[q, v]);
        let _ = u;
    }

    pub(crate) fn divergent_if(&mut self, depth: u32) {
        let target = if !self.scope.is_empty() && self.c.chance(50) {
            let i = self.c.below(self.scope.len());
            Some(self.scope[i])
        } else {
            None
        };
        self.divergent_if_with(depth, target);
        if let Some(l) = target {
            if self.c.chance(70) {
                self.observe_loaded(l);
            }
        }
    }

    /// `if (lid < k)` / `if (lid & 1)`: per-invocation code only, a phi at the merge.
    pub(crate) fn divergent_if_with(&mut self, depth: u32, target: Option<Loaded>) {
        self.summary.divergent_ifs += 1;
        let u = self.t.u32_;
        let b = self.t.bool_;
        let cond = if self.c.chance(60) {
            let k = 1 + self.c.below(self.sg as usize - 1) as u32;
            let kc = self.u32c(k);
            self.op(Op::ULessThan, b, &[self.lid, kc])
        } else {
            let one = self.u32c(1);
            let zero = self.u32c(0);
            let a = self.op(Op::BitwiseAnd, u, &[self.lid, one]);
            self.op(Op::IEqual, b, &[a, zero])
        };
        let (then_l, else_l, merge) = (self.s.id(), self.s.id(), self.s.id());
        let has_else = self.c.chance(50);
        let structured = self.c.chance(60);
        if structured {
            self.void_op(Op::SelectionMerge, &[merge, 0]);
        }
        let from = self.label;
        self.void_op(
            Op::BranchConditional,
            &[cond, then_l, if has_else { else_l } else { merge }],
        );
        self.label(then_l);
        let v1 = self.divergent_arm(depth, target);
        let then_end = self.label;
        self.branch(merge);
        let (v2, else_end) = if has_else {
            self.label(else_l);
            let v = self.divergent_arm(depth, None);
            let end = self.label;
            self.branch(merge);
            (v, end)
        } else {
            (self.u32c(0xFFFF), from)
        };
        self.label(merge);
        let phi = self.op(Op::Phi, u, &[v1, then_end, v2, else_end]);
        self.observe_u32(phi);
    }

    /// Per-invocation statements of a divergent arm; returns a value for the merge's phi.
    pub(crate) fn divergent_arm(&mut self, depth: u32, target: Option<Loaded>) -> u32 {
        if let Some(l) = target {
            self.modify_loaded(l);
        }
        let n = self.c.below(3);
        for _ in 0..n {
            match self.c.below(5) {
                0 if depth < 3 => self.divergent_if_with(depth + 1, None),
                4 => self.write_st(),
                1 if !self.scope.is_empty() => {
                    let i = self.c.below(self.scope.len());
                    let l = self.scope[i];
                    self.modify_loaded(l);
                }
                _ => {
                    let v = self.divergent_value();
                    self.observe_u32(v);
                }
            }
        }
        self.divergent_value()
    }

    /// A per-invocation store of a u32 into the subgroup's region of st (which block loads of
    /// the st surface read: aliasing for fuse-block-loads and insert-prefetches).
    pub(crate) fn write_st(&mut self) {
        self.summary.st_writes += 1;
        let u = self.t.u32_;
        let v = self.divergent_value();
        let k = self.c.below((ST_REGION / 4 - 2 * self.sg) as usize) as u32;
        let kc = self.u32c(k);
        let idx = self.op(Op::IAdd, u, &[self.lid, kc]);
        let pt = self.t.p_cw_u32;
        let base = self.op(Op::Bitcast, pt, &[self.st_base]);
        let p = self.op(Op::InBoundsPtrAccessChain, pt, &[base, idx]);
        self.void_op(Op::Store, &[p, v]);
    }

    /// `if` on a uniform value: any statements inside.
    pub(crate) fn uniform_if(&mut self, depth: u32) {
        self.summary.uniform_ifs += 1;
        let b = self.t.bool_;
        let cond = match self.c.below(3) {
            0 => {
                let v = self.c.below(256) as u32;
                let k = self.u32c(v);
                self.op(Op::UGreaterThan, b, &[self.args[3], k])
            }
            1 => {
                let z = self.u32c(0);
                self.op(Op::IEqual, b, &[self.sgid, z])
            }
            _ => {
                let z = self.u32c(0);
                self.op(Op::INotEqual, b, &[self.wg, z])
            }
        };
        let (then_l, else_l, merge) = (self.s.id(), self.s.id(), self.s.id());
        let has_else = self.c.chance(40);
        if self.c.chance(60) {
            self.void_op(Op::SelectionMerge, &[merge, 0]);
        }
        self.void_op(
            Op::BranchConditional,
            &[cond, then_l, if has_else { else_l } else { merge }],
        );
        let mark = self.scope.len();
        self.label(then_l);
        self.arm(depth);
        self.scope.truncate(mark);
        self.branch(merge);
        if has_else {
            self.label(else_l);
            self.arm(depth);
            self.scope.truncate(mark);
            self.branch(merge);
        }
        self.label(merge);
    }

    pub(crate) fn arm(&mut self, depth: u32) {
        let n = 1 + self.c.below(3) as u32;
        for _ in 0..n.min(self.budget + 1) {
            self.budget = self.budget.saturating_sub(1);
            self.statement(depth + 1);
        }
    }

    /// Starts a loop of `trip` (id) iterations at most `max` (`do_while`: at least one,
    /// tested at the bottom); returns (counter, next counter id, header, exit, continue target).
    pub(crate) fn loop_header(
        &mut self,
        max: u32,
        extra_phis: &[(u32, u32, u32, u32)],
    ) -> LoopParts {
        self.summary.loops += 1;
        let u = self.t.u32_;
        let trip = if self.c.chance(30) {
            // 1..=max from the uniform argument n
            let m = self.u32c(max);
            let r = self.op(Op::UMod, u, &[self.args[3], m]);
            let one = self.u32c(1);
            self.op(Op::IAdd, u, &[r, one])
        } else {
            let t = 1 + self.c.below(max as usize) as u32;
            self.u32c(t)
        };
        let structured = self.c.chance(60);
        let (header, body, cont, exit) = (self.s.id(), self.s.id(), self.s.id(), self.s.id());
        let (counter, next) = (self.s.id(), self.s.id());
        let pre = self.label;
        self.branch(header);
        self.label(header);
        let zero = self.u32c(0);
        let latch = if structured { cont } else { header };
        let _ = latch;
        // the counter's latch is patched below for unstructured loops (the body's last block)
        let counter_phi_at = self.s.phi(u, counter, &[(zero, pre), (next, 0)]);
        let mut phi_at = Vec::new();
        for &(ty, id, init, _) in extra_phis {
            phi_at.push(self.s.phi(ty, id, &[(init, pre), (0, 0)]));
        }
        let outer = self.loops.last().copied();
        let iter = match outer {
            None => counter,
            Some(o) => {
                let mc = self.u32c(max);
                let m = self.op(Op::IMul, u, &[o.iter, mc]);
                self.op(Op::IAdd, u, &[m, counter])
            }
        };
        let iters = outer.map_or(1, |o| o.iters) * max;
        if structured {
            let b = self.t.bool_;
            let more = self.op(Op::ULessThan, b, &[counter, trip]);
            self.void_op(Op::LoopMerge, &[exit, cont, 0]);
            self.void_op(Op::BranchConditional, &[more, body, exit]);
            self.label(body);
        }
        self.loops.push(LoopCtx {
            counter,
            iter,
            iters,
        });
        LoopParts {
            structured,
            header,
            cont,
            exit,
            counter,
            next,
            trip,
            counter_phi_at,
            phi_at,
        }
    }

    /// Closes a loop; `latch_values` are the extra phis' values from the latch.
    pub(crate) fn loop_end(&mut self, p: LoopParts, latch_values: &[u32]) {
        let u = self.t.u32_;
        let one = self.u32c(1);
        self.loops.pop();
        if p.structured {
            self.branch(p.cont);
            self.label(p.cont);
            self.s.op(Op::IAdd, u, p.next, &[p.counter, one]);
            self.branch(p.header);
        } else {
            self.s.op(Op::IAdd, u, p.next, &[p.counter, one]);
            let b = self.t.bool_;
            let more = self.op(Op::ULessThan, b, &[p.next, p.trip]);
            self.void_op(Op::BranchConditional, &[more, p.header, p.exit]);
        }
        let latch = self.label;
        // patch the phis' latch block (and values)
        self.s.set_incoming(p.counter_phi_at, 1, p.next, latch);
        for (k, &at) in p.phi_at.iter().enumerate() {
            self.s.set_incoming(at, 1, latch_values[k], latch);
        }
        self.label(p.exit);
    }

    pub(crate) fn counted_loop(&mut self, depth: u32) {
        let max = 1 + self.c.below(4) as u32;
        let parts = self.loop_header(max, &[]);
        let mark = self.scope.len();
        self.arm(depth);
        self.scope.truncate(mark);
        self.loop_end(parts, &[]);
    }
}
