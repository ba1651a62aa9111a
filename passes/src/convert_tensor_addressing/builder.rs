//! Appending instructions to a block, with the constants and types the conversion needs.

use spirv::Op;
use spvopt_ir::{BlockId, Id, Inst, InstId, Interner, Module};

use crate::cfg_edit::move_block_before;

pub struct Builder<'a> {
    pub m: &'a mut Module,
    pub types: &'a mut Interner,
    pub cur: BlockId,
    /// When set, instructions go before this one instead of at the end of `cur`.
    pub before: Option<InstId>,
}

impl Builder<'_> {
    fn put(&mut self, inst: Inst) {
        match self.before {
            Some(at) => self.m.insert_before(at, inst),
            None => self.m.append_inst(self.cur, inst),
        };
    }
    pub fn val(&mut self, op: Op, ty: Id, ops: &[u32]) -> Id {
        let r = self.m.fresh_id();
        self.put(Inst::new(op, Some(ty), Some(r), ops));
        r
    }
    /// An instruction defining the given (existing) result id.
    pub fn with_result(&mut self, op: Op, ty: Id, result: Id, ops: &[u32]) {
        self.put(Inst::new(op, Some(ty), Some(result), ops));
    }
    pub fn void(&mut self, op: Op, ops: &[u32]) {
        self.put(Inst::new(op, None, None, ops));
    }
    pub fn u32t(&mut self) -> Id {
        self.types.int(self.m, 32)
    }
    pub fn u64t(&mut self) -> Id {
        self.types.int(self.m, 64)
    }
    pub fn boolt(&mut self) -> Id {
        self.types.bool(self.m)
    }
    pub fn c32(&mut self, v: u32) -> Id {
        self.types.u32_const(self.m, v)
    }
    pub fn c64(&mut self, v: u64) -> Id {
        self.types.u64_const(self.m, v)
    }
    pub fn new_block_after(&mut self, after: BlockId) -> BlockId {
        let l = self.m.fresh_id();
        self.m.insert_block_after(after, l)
    }

    /// 64-bit binary op.
    pub fn op64(&mut self, op: Op, a: Id, b: Id) -> Id {
        let t = self.u64t();
        self.val(op, t, &[a.word(), b.word()])
    }
    pub fn cmp(&mut self, op: Op, a: Id, b: Id) -> Id {
        let t = self.boolt();
        self.val(op, t, &[a.word(), b.word()])
    }
    pub fn and(&mut self, a: Id, b: Id) -> Id {
        self.cmp(Op::LogicalAnd, a, b)
    }
    pub fn select(&mut self, ty: Id, c: Id, a: Id, b: Id) -> Id {
        self.val(Op::Select, ty, &[c.word(), a.word(), b.word()])
    }
    /// A 32-bit unsigned value zero-extended to 64 bits.
    pub fn zext64(&mut self, v: Id) -> Id {
        let t = self.u64t();
        self.val(Op::UConvert, t, &[v.word()])
    }
    /// A 32-bit signed value sign-extended to 64 bits.
    pub fn sext64(&mut self, v: Id) -> Id {
        let t = self.u64t();
        self.val(Op::SConvert, t, &[v.word()])
    }
    /// `x` with 0 replaced by 1 (a divisor the specification leaves undefined at 0; the
    /// replacement keeps the generated code free of division by zero).
    pub fn nonzero64(&mut self, x: Id) -> Id {
        let (zero, one, t) = (self.c64(0), self.c64(1), self.u64t());
        let z = self.cmp(Op::IEqual, x, zero);
        self.select(t, z, one, x)
    }

    /// Emits `for k in 0..count { body(k) }` starting from the current (unterminated) block;
    /// the loop exits to `exit` (a block label that follows). `body` starts in the loop's body
    /// block and may add blocks; it leaves the builder in an unterminated block. Every
    /// invocation runs the same trip count, so control reconverges at `exit`.
    pub fn counted_loop(
        &mut self,
        count: u32,
        exit: BlockId,
        body: impl FnOnce(&mut Builder, Id) -> Result<(), String>,
    ) -> Result<(), String> {
        let exit_label = self.m.block_label(exit);
        let from = self.cur;
        let from_label = self.m.block_label(from);
        let header = self.new_block_after(from);
        let header_label = self.m.block_label(header);
        self.void(Op::Branch, &[header_label.word()]);
        let body_block = self.new_block_after(header);
        let cont = self.new_block_after(body_block);
        let (body_label, cont_label) = (self.m.block_label(body_block), self.m.block_label(cont));
        let (u32t, boolt) = (self.u32t(), self.boolt());
        let (zero, one, total) = (self.c32(0), self.c32(1), self.c32(count));
        let k = self.m.fresh_id();
        let k_next = self.m.fresh_id();
        self.cur = header;
        self.m.append_inst(
            header,
            Inst::new(
                Op::Phi,
                Some(u32t),
                Some(k),
                &[
                    zero.word(),
                    from_label.word(),
                    k_next.word(),
                    cont_label.word(),
                ],
            ),
        );
        let more = self.val(Op::ULessThan, boolt, &[k.word(), total.word()]);
        self.void(Op::LoopMerge, &[exit_label.word(), cont_label.word(), 0]);
        self.void(
            Op::BranchConditional,
            &[more.word(), body_label.word(), exit_label.word()],
        );
        self.cur = body_block;
        body(self, k)?;
        self.void(Op::Branch, &[cont_label.word()]);
        self.cur = cont;
        self.m.append_inst(
            cont,
            Inst::new(Op::IAdd, Some(u32t), Some(k_next), &[k.word(), one.word()]),
        );
        self.void(Op::Branch, &[header_label.word()]);
        move_block_before(self.m, cont, exit);
        Ok(())
    }

    /// Emits `if cond { then() }`: returns (the block `cond` was tested in, the block `then`
    /// ended in); the builder continues in the merge block.
    pub fn if_then(
        &mut self,
        cond: Id,
        then: impl FnOnce(&mut Builder) -> Result<(), String>,
    ) -> Result<(BlockId, BlockId), String> {
        let from = self.cur;
        let access = self.new_block_after(from);
        let merge = self.new_block_after(access);
        let (access_label, merge_label) = (self.m.block_label(access), self.m.block_label(merge));
        self.void(Op::SelectionMerge, &[merge_label.word(), 0]);
        self.void(
            Op::BranchConditional,
            &[cond.word(), access_label.word(), merge_label.word()],
        );
        self.cur = access;
        then(self)?;
        let end = self.cur;
        self.void(Op::Branch, &[merge_label.word()]);
        self.cur = merge;
        Ok((from, end))
    }
}
