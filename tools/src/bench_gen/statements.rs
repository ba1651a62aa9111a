//! The statements of a generated function: arithmetic, conversions, `OpenCL.std` calls, loads and
//! stores, selects, variables, calls, diamonds and loops, each under an instruction budget.

use super::*;

impl Gen {
    /// Statements until fewer than [`MAX_LEAF`] instructions are left before `end`.
    pub(super) fn body(&mut self, f: &mut Func, end: usize) {
        loop {
            let remaining = end.saturating_sub(self.count);
            if remaining < MAX_LEAF {
                break;
            }
            self.statement(f, 0, remaining);
        }
    }

    /// One statement of at most `budget` (>= [`MAX_LEAF`]) instructions at control depth `depth`.
    pub(super) fn statement(&mut self, f: &mut Func, depth: usize, budget: usize) {
        let before = self.count;
        let constructs_allowed = depth < 2 && budget >= MIN_CONSTRUCT;
        let roll = self.rng.below(100);
        if constructs_allowed && roll < 8 {
            self.diamond(f, depth, budget);
            debug_assert!(self.count - before <= budget);
            return;
        }
        if constructs_allowed && roll < 10 && f.loop_counters.len() < 2 {
            self.loop_(f, depth, budget);
            debug_assert!(self.count - before <= budget);
            return;
        }
        if self.rng.percent(20) {
            self.line_info();
        }
        let total: usize = LEAVES.iter().map(|l| l.1).sum();
        let mut r = self.rng.below(total);
        let mut leaf = Leaf::IntArith;
        for &(kind, weight) in &LEAVES {
            if r < weight {
                leaf = kind;
                break;
            }
            r -= weight;
        }
        match leaf {
            Leaf::IntArith => self.int_arith(f, true),
            Leaf::FloatArith => self.float_arith(f, true),
            Leaf::ExtInst => self.ext_inst(f),
            Leaf::Convert => self.convert(f),
            Leaf::Load => self.load(f),
            Leaf::Store => self.store(f),
            Leaf::Select => self.select(f),
            Leaf::Dead => {
                if self.rng.percent(50) {
                    self.int_arith(f, false)
                } else {
                    self.float_arith(f, false)
                }
            }
            Leaf::Variable => self.variable(f),
            Leaf::Call => {
                if f.is_kernel && self.rng.percent(50) {
                    if let Some(k) = self.helper_called.iter().position(|c| !c) {
                        self.call_helper(f, k);
                        return;
                    }
                }
                if !f.callees.is_empty() {
                    let k = f.callees.start + self.rng.below(f.callees.len());
                    self.call_helper(f, k);
                } else {
                    self.float_arith(f, true);
                }
            }
            Leaf::NoLine => {
                self.code(op::NO_LINE, &[]);
            }
        }
        debug_assert!(self.count - before <= MAX_LEAF);
    }

    pub(super) fn line_info(&mut self) {
        self.line += 1 + self.rng.below(3) as u32;
        let column = 1 + self.rng.below(40) as u32;
        self.code(op::LINE, &[self.file, self.line, column]);
    }

    pub(super) fn int_arith(&mut self, f: &mut Func, live: bool) {
        let ty = if self.rng.percent(80) {
            Ty::U32
        } else {
            Ty::U64
        };
        let a = self.pick(f, ty);
        let (opcode, b, name): (u32, u32, &[u8]) = match self.rng.below(10) {
            0 | 1 => (op::I_ADD, self.operand(f, ty), b"add"),
            2 => (op::I_SUB, self.operand(f, ty), b"sub"),
            3 => (op::I_MUL, self.operand(f, ty), b"mul"),
            4 => (op::BITWISE_AND, self.operand(f, ty), b"and"),
            5 => (op::BITWISE_OR, self.operand(f, ty), b"or"),
            6 => (op::BITWISE_XOR, self.operand(f, ty), b"xor"),
            7 => {
                let s = 1 + self.rng.below(8) as u32;
                let c = self.typed_small(ty, s);
                (op::SHIFT_LEFT_LOGICAL, c, b"shl")
            }
            8 => {
                let s = 1 + self.rng.below(8) as u32;
                let c = self.typed_small(ty, s);
                (op::SHIFT_RIGHT_LOGICAL, c, b"shr")
            }
            _ => {
                let d = 1 + self.rng.below(16) as u32;
                let c = self.typed_small(ty, d);
                if self.rng.percent(50) {
                    (op::U_DIV, c, b"div")
                } else {
                    (op::U_MOD, c, b"rem")
                }
            }
        };
        let id = self.id();
        self.code(opcode, &[self.t.of(ty), id, a, b]);
        self.maybe_name(id, name);
        if live {
            f.push(ty, id);
        }
    }

    pub(super) fn typed_small(&mut self, ty: Ty, value: u32) -> u32 {
        if ty == Ty::U64 {
            self.cu64(value)
        } else {
            self.cu32(value)
        }
    }

    pub(super) fn float_arith(&mut self, f: &mut Func, live: bool) {
        let a = self.pick(f, Ty::F32);
        let id = self.id();
        let f32_ = self.t.f32_;
        let name: &[u8] = match self.rng.below(9) {
            0 | 1 => {
                let b = self.operand(f, Ty::F32);
                self.code(op::F_ADD, &[f32_, id, a, b]);
                b"add"
            }
            2 => {
                let b = self.operand(f, Ty::F32);
                self.code(op::F_SUB, &[f32_, id, a, b]);
                b"sub"
            }
            3..=5 => {
                let b = self.operand(f, Ty::F32);
                self.code(op::F_MUL, &[f32_, id, a, b]);
                b"mul"
            }
            6 | 7 => {
                let k = self.rng.below(32);
                let c = self.cf32(k);
                self.code(op::F_DIV, &[f32_, id, a, c]);
                b"div"
            }
            _ => {
                self.code(op::F_NEGATE, &[f32_, id, a]);
                b"neg"
            }
        };
        if self.rng.percent(5) {
            self.decorate(&[
                id,
                en::DECORATION_FP_FAST_MATH_MODE,
                en::FP_FAST_MATH_NOT_NAN_NOT_INF,
            ]);
        }
        self.maybe_name(id, name);
        if live {
            f.push(Ty::F32, id);
        }
    }

    pub(super) fn ext_inst(&mut self, f: &mut Func) {
        let id = self.id();
        let ext = self.ext_cl;
        let (f32_, u32_) = (self.t.f32_, self.t.u32_);
        let (ty, name): (Ty, &[u8]) = match self.rng.below(8) {
            0 | 1 => {
                let (a, b, c) = (
                    self.pick(f, Ty::F32),
                    self.operand(f, Ty::F32),
                    self.pick(f, Ty::F32),
                );
                self.code(op::EXT_INST, &[f32_, id, ext, en::CL_FMA, a, b, c]);
                (Ty::F32, b"fma")
            }
            2 => {
                let (a, b) = (self.pick(f, Ty::F32), self.operand(f, Ty::F32));
                self.code(op::EXT_INST, &[f32_, id, ext, en::CL_FMIN, a, b]);
                (Ty::F32, b"fmin")
            }
            3 => {
                let (a, b) = (self.pick(f, Ty::F32), self.operand(f, Ty::F32));
                self.code(op::EXT_INST, &[f32_, id, ext, en::CL_FMAX, a, b]);
                (Ty::F32, b"fmax")
            }
            4 => {
                let a = self.pick(f, Ty::F32);
                self.code(op::EXT_INST, &[f32_, id, ext, en::CL_SQRT, a]);
                (Ty::F32, b"sqrt")
            }
            5 => {
                let a = self.pick(f, Ty::F32);
                self.code(op::EXT_INST, &[f32_, id, ext, en::CL_FABS, a]);
                (Ty::F32, b"fabs")
            }
            6 => {
                let (a, b) = (self.pick(f, Ty::U32), self.operand(f, Ty::U32));
                self.code(op::EXT_INST, &[u32_, id, ext, en::CL_U_MIN, a, b]);
                (Ty::U32, b"umin")
            }
            _ => {
                let (a, b) = (self.pick(f, Ty::U32), self.operand(f, Ty::U32));
                self.code(op::EXT_INST, &[u32_, id, ext, en::CL_U_MAX, a, b]);
                (Ty::U32, b"umax")
            }
        };
        self.maybe_name(id, name);
        f.push(ty, id);
    }

    pub(super) fn convert(&mut self, f: &mut Func) {
        let id = self.id();
        let (from, to, opcode) = match self.rng.below(5) {
            0 | 1 => (Ty::U32, Ty::F32, op::CONVERT_U_TO_F),
            2 => (Ty::F32, Ty::U32, op::CONVERT_F_TO_U),
            3 => (Ty::U32, Ty::U64, op::U_CONVERT),
            _ => {
                if self.rng.percent(50) {
                    (Ty::U64, Ty::U32, op::U_CONVERT)
                } else {
                    (Ty::F32, Ty::U32, op::BITCAST)
                }
            }
        };
        let a = self.pick(f, from);
        self.code(opcode, &[self.t.of(to), id, a]);
        self.maybe_name(id, b"conv");
        f.push(to, id);
    }

    /// A `ulong` element index derived from the base index (invocation id).
    pub(super) fn index(&mut self, f: &mut Func) -> u32 {
        let u64_ = self.t.u64_;
        match self.rng.below(4) {
            0 => f.base,
            1 => {
                let (id, k) = (self.id(), self.rng.below(17) as u32);
                let c = self.cu64(k);
                self.code(op::I_ADD, &[u64_, id, f.base, c]);
                id
            }
            2 if !f.loop_counters.is_empty() => {
                let counter = *f.loop_counters.last().unwrap_or(&0);
                let (wide, id) = (self.id(), self.id());
                self.code(op::U_CONVERT, &[u64_, wide, counter]);
                self.code(op::I_ADD, &[u64_, id, f.base, wide]);
                self.maybe_name(id, b"idxprom");
                id
            }
            _ => {
                let v = self.pick(f, Ty::U32);
                let mask = self.cu32(255);
                let (masked, wide, id) = (self.id(), self.id(), self.id());
                self.code(op::BITWISE_AND, &[self.t.u32_, masked, v, mask]);
                self.code(op::U_CONVERT, &[u64_, wide, masked]);
                self.code(op::I_ADD, &[u64_, id, f.base, wide]);
                self.maybe_name(id, b"idxprom");
                id
            }
        }
    }

    pub(super) fn load(&mut self, f: &mut Func) {
        let index = self.index(f);
        let buf = f.bufs[self.rng.below(2)];
        let (ptr, id) = (self.id(), self.id());
        self.code(
            op::PTR_ACCESS_CHAIN,
            &[self.t.ptr_global_f32, ptr, buf, index],
        );
        self.code(
            op::LOAD,
            &[self.t.f32_, id, ptr, en::MEMORY_ACCESS_ALIGNED, 4],
        );
        self.maybe_name(ptr, b"arrayidx");
        self.maybe_name(id, b"ld");
        f.push(Ty::F32, id);
    }

    pub(super) fn store(&mut self, f: &mut Func) {
        let index = self.index(f);
        let value = self.pick(f, Ty::F32);
        let ptr = self.id();
        self.code(
            op::PTR_ACCESS_CHAIN,
            &[self.t.ptr_global_f32, ptr, f.bufs[2], index],
        );
        self.code(op::STORE, &[ptr, value, en::MEMORY_ACCESS_ALIGNED, 4]);
        self.maybe_name(ptr, b"arrayidx");
    }

    /// A `bool` computed from available values.
    pub(super) fn condition(&mut self, f: &mut Func) -> u32 {
        let (bool_, id) = (self.t.bool_, self.id());
        match self.rng.below(4) {
            0 => {
                let (a, b) = (self.pick(f, Ty::F32), self.operand(f, Ty::F32));
                self.code(op::F_ORD_LESS_THAN, &[bool_, id, a, b]);
            }
            1 => {
                let (a, b) = (self.pick(f, Ty::F32), self.operand(f, Ty::F32));
                self.code(op::F_ORD_GREATER_THAN, &[bool_, id, a, b]);
            }
            2 => {
                let a = self.pick(f, Ty::U32);
                let b = if self.rng.percent(50) {
                    f.n
                } else {
                    self.operand(f, Ty::U32)
                };
                let opcode = if self.rng.percent(50) {
                    op::U_LESS_THAN
                } else {
                    op::U_GREATER_THAN
                };
                self.code(opcode, &[bool_, id, a, b]);
            }
            _ => {
                let a = self.pick(f, Ty::U32);
                let (one, zero, bit) = (self.cu32(1), self.cu32(0), self.id());
                self.code(op::BITWISE_AND, &[self.t.u32_, bit, a, one]);
                self.code(op::I_EQUAL, &[bool_, id, bit, zero]);
            }
        }
        self.maybe_name(id, b"cmp");
        id
    }

    pub(super) fn select(&mut self, f: &mut Func) {
        let cond = self.condition(f);
        let ty = if self.rng.percent(70) {
            Ty::F32
        } else {
            Ty::U32
        };
        let (a, b, id) = (self.pick(f, ty), self.operand(f, ty), self.id());
        self.code(op::SELECT, &[self.t.of(ty), id, cond, a, b]);
        self.maybe_name(id, b"cond");
        f.push(ty, id);
    }

    pub(super) fn variable(&mut self, f: &mut Func) {
        let var = f.vars[self.rng.below(2)];
        if self.rng.percent(50) {
            let value = self.pick(f, Ty::F32);
            self.code(op::STORE, &[var, value, en::MEMORY_ACCESS_ALIGNED, 4]);
        } else {
            let id = self.id();
            self.code(
                op::LOAD,
                &[self.t.f32_, id, var, en::MEMORY_ACCESS_ALIGNED, 4],
            );
            self.maybe_name(id, b"val");
            f.push(Ty::F32, id);
        }
    }

    pub(super) fn call_helper(&mut self, f: &mut Func, k: usize) {
        if !self.helper_called[k] {
            self.helper_called[k] = true;
            self.uncalled -= 1;
        }
        let index = self.index(f);
        let x = self.pick(f, Ty::F32);
        let id = self.id();
        let callee = self.helpers[k];
        let [a, b, out] = f.bufs;
        self.code(
            op::FUNCTION_CALL,
            &[self.t.f32_, id, callee, a, b, out, index, x, f.n],
        );
        self.maybe_name(id, b"call");
        f.push(Ty::F32, id);
    }

    /// Statements filling a block (arm or loop body): up to `max_statements`, within `budget`.
    pub(super) fn block_statements(
        &mut self,
        f: &mut Func,
        depth: usize,
        max_statements: usize,
        budget: usize,
    ) {
        let start = self.count;
        let n = 1 + self.rng.below(max_statements);
        for _ in 0..n {
            let left = budget.saturating_sub(self.count - start);
            if left < MAX_LEAF {
                break;
            }
            self.statement(f, depth, left);
        }
    }

    pub(super) fn arm_limit(depth: usize) -> usize {
        if depth == 0 {
            6
        } else {
            3
        }
    }

    /// if (cond) { ... } [else { ... }] with a merge block starting with `OpPhi`.
    pub(super) fn diamond(&mut self, f: &mut Func, depth: usize, budget: usize) {
        let arm_budget = (budget - CONSTRUCT_OVERHEAD) / 2;
        self.line_info();
        let cond = self.condition(f);
        let (then_label, merge) = (self.id(), self.id());
        let has_else = self.rng.percent(70);
        let else_label = if has_else { self.id() } else { merge };
        self.code(op::SELECTION_MERGE, &[merge, en::SELECTION_CONTROL_NONE]);
        self.code(op::BRANCH_CONDITIONAL, &[cond, then_label, else_label]);
        let before_block = f.block;

        let marks = f.marks();
        self.label(f, then_label, b"if.then");
        self.block_statements(f, depth + 1, Self::arm_limit(depth), arm_budget);
        let (then_f, then_u, then_end) = (self.pick(f, Ty::F32), self.pick(f, Ty::U32), f.block);
        f.truncate(marks);
        self.code(op::BRANCH, &[merge]);

        let (else_f, else_u, else_end) = if has_else {
            self.label(f, else_label, b"if.else");
            self.block_statements(f, depth + 1, Self::arm_limit(depth), arm_budget);
            let result = (self.pick(f, Ty::F32), self.pick(f, Ty::U32), f.block);
            f.truncate(marks);
            self.code(op::BRANCH, &[merge]);
            result
        } else {
            (self.pick(f, Ty::F32), self.pick(f, Ty::U32), before_block)
        };

        self.label(f, merge, b"if.end");
        let phi = self.id();
        self.code(
            op::PHI,
            &[self.t.f32_, phi, then_f, then_end, else_f, else_end],
        );
        self.maybe_name(phi, b"phi");
        f.push(Ty::F32, phi);
        if self.rng.percent(40) {
            let phi = self.id();
            self.code(
                op::PHI,
                &[self.t.u32_, phi, then_u, then_end, else_u, else_end],
            );
            self.maybe_name(phi, b"phi");
            f.push(Ty::U32, phi);
        }
    }

    /// for (uint i = 0; i < TRIP; i++) acc += ...; with the header's `OpPhi`s, a continue block
    /// and the back edge. `acc` stays available after the loop.
    pub(super) fn loop_(&mut self, f: &mut Func, depth: usize, budget: usize) {
        let body_budget = budget - CONSTRUCT_OVERHEAD;
        self.line_info();
        let (header, body, latch, merge) = (self.id(), self.id(), self.id(), self.id());
        let (counter, next_counter, acc, next_acc, cmp) =
            (self.id(), self.id(), self.id(), self.id(), self.id());
        let init = self.pick(f, Ty::F32);
        let trip = 2 + self.rng.below(7) as u32;
        let (zero, one, trip) = (self.cu32(0), self.cu32(1), self.cu32(trip));
        let preheader = f.block;
        self.code(op::BRANCH, &[header]);

        self.label(f, header, b"for.cond");
        let (u32_, f32_) = (self.t.u32_, self.t.f32_);
        self.code(
            op::PHI,
            &[u32_, counter, zero, preheader, next_counter, latch],
        );
        self.code(op::PHI, &[f32_, acc, init, preheader, next_acc, latch]);
        self.code(op::U_LESS_THAN, &[self.t.bool_, cmp, counter, trip]);
        let control = if self.rng.percent(20) {
            en::LOOP_CONTROL_UNROLL
        } else {
            en::LOOP_CONTROL_NONE
        };
        self.code(op::LOOP_MERGE, &[merge, latch, control]);
        self.code(op::BRANCH_CONDITIONAL, &[cmp, body, merge]);
        self.name_numbered(counter, b"i");
        self.name_numbered(acc, b"acc");
        // The header dominates the merge block: `acc` is usable after the loop.
        f.push(Ty::F32, acc);

        let marks = f.marks();
        f.push(Ty::U32, counter);
        f.loop_counters.push(counter);
        self.label(f, body, b"for.body");
        self.block_statements(f, depth + 1, Self::arm_limit(depth).max(4), body_budget);
        let value = self.pick(f, Ty::F32);
        self.code(op::F_ADD, &[f32_, next_acc, acc, value]);
        self.code(op::BRANCH, &[latch]);
        f.loop_counters.pop();
        f.truncate(marks);

        self.label(f, latch, b"for.inc");
        self.code(op::I_ADD, &[u32_, next_counter, counter, one]);
        self.code(op::BRANCH, &[header]);

        self.label(f, merge, b"for.end");
    }
}
