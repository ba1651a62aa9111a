//! Appending instructions to a block, with the constants and types the conversion needs.

use spirv::{Op, StorageClass};
use spvopt_analysis::fxhash::FxHashMap;
use spvopt_ir::{BlockId, FuncId, Id, Inst, InstBuf, InstId, Interner, Module};

use super::error::ConvertError::{self, Malformed};
use crate::edit::cfg::{move_block_before, SplitBlock};

/// `LoopControl DontUnroll`.
const LOOP_DONT_UNROLL: u32 = 0x2;

pub struct Builder<'a> {
    pub m: &'a mut Module,
    pub types: &'a mut Interner,
    pub cur: BlockId,
    /// When set, instructions go before this one instead of at the end of `cur`.
    pub before: Option<InstId>,
    /// 64-bit values already truncated to 32 bits in a block (one `OpUConvert` per value and
    /// block, so the result dominates its uses there).
    pub truncated: FxHashMap<(BlockId, Id), Id>,
}

impl<'a> Builder<'a> {
    /// A builder inserting before instruction `at`, in its block.
    pub fn before(
        m: &'a mut Module,
        types: &'a mut Interner,
        at: InstId,
    ) -> Result<Builder<'a>, ConvertError> {
        let cur = m.inst_block(at).ok_or(Malformed("not in a block"))?;
        Ok(Builder {
            m,
            types,
            cur,
            before: Some(at),
            truncated: Default::default(),
        })
    }

    fn put(&mut self, inst: InstBuf) {
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

    /// The value of a constant integer (zero-extended) or boolean.
    pub fn known(&self, v: Id) -> Option<u64> {
        let i = self.m.def_inst(v)?;
        match i.op()? {
            Op::ConstantTrue => Some(1),
            Op::ConstantFalse => Some(0),
            _ => self.m.const_int_value(v),
        }
    }
    fn bool_const(&mut self, b: bool) -> Id {
        self.types.bool_const(self.m, b)
    }

    /// 64-bit binary op, folded when both operands are constants (or by x·1, x+0, x/1).
    pub fn op64(&mut self, op: Op, a: Id, b: Id) -> Id {
        let (ka, kb) = (self.known(a), self.known(b));
        if let (Some(x), Some(y)) = (ka, kb) {
            let v = match op {
                Op::IAdd => Some(x.wrapping_add(y)),
                Op::ISub => Some(x.wrapping_sub(y)),
                Op::IMul => Some(x.wrapping_mul(y)),
                Op::UDiv if y != 0 => Some(x / y),
                Op::UMod if y != 0 => Some(x % y),
                Op::SDiv if y != 0 => Some((x as i64).wrapping_div(y as i64) as u64),
                Op::SMod if y != 0 => {
                    Some((x as i64).rem_euclid((y as i64).abs()) as u64).filter(|_| (y as i64) > 0)
                }
                Op::BitwiseAnd => Some(x & y),
                _ => None,
            };
            if let Some(v) = v {
                return self.c64(v);
            }
        }
        match (op, ka, kb) {
            (Op::IAdd, Some(0), _) => return b,
            (Op::IAdd | Op::ISub, _, Some(0)) => return a,
            (Op::IMul, Some(1), _) => return b,
            (Op::IMul | Op::UDiv | Op::SDiv, _, Some(1)) => return a,
            (Op::IMul, Some(0), _) | (Op::IMul, _, Some(0)) => return self.c64(0),
            _ => {}
        }
        let t = self.u64t();
        self.val(op, t, &[a.word(), b.word()])
    }
    /// Comparison or logical op, folded on constants.
    pub fn cmp(&mut self, op: Op, a: Id, b: Id) -> Id {
        let (ka, kb) = (self.known(a), self.known(b));
        if let (Some(x), Some(y)) = (ka, kb) {
            let (sx, sy) = (x as i64, y as i64);
            let v = match op {
                Op::IEqual => Some(x == y),
                Op::INotEqual => Some(x != y),
                Op::ULessThan => Some(x < y),
                Op::ULessThanEqual => Some(x <= y),
                Op::UGreaterThan => Some(x > y),
                Op::UGreaterThanEqual => Some(x >= y),
                Op::SLessThan => Some(sx < sy),
                Op::SLessThanEqual => Some(sx <= sy),
                Op::SGreaterThan => Some(sx > sy),
                Op::SGreaterThanEqual => Some(sx >= sy),
                Op::LogicalAnd => Some(x != 0 && y != 0),
                Op::LogicalOr => Some(x != 0 || y != 0),
                _ => None,
            };
            if let Some(v) = v {
                return self.bool_const(v);
            }
        }
        match (op, ka, kb) {
            (Op::LogicalAnd, Some(1), _) | (Op::LogicalOr, Some(0), _) => return b,
            (Op::LogicalAnd, _, Some(1)) | (Op::LogicalOr, _, Some(0)) => return a,
            (Op::LogicalAnd, Some(0), _) | (Op::LogicalAnd, _, Some(0)) => {
                return self.bool_const(false)
            }
            (Op::LogicalOr, Some(1), _) | (Op::LogicalOr, _, Some(1)) => {
                return self.bool_const(true)
            }
            _ => {}
        }
        let t = self.boolt();
        self.val(op, t, &[a.word(), b.word()])
    }
    pub fn and(&mut self, a: Id, b: Id) -> Id {
        self.cmp(Op::LogicalAnd, a, b)
    }
    pub fn not(&mut self, a: Id) -> Id {
        if let Some(x) = self.known(a) {
            return self.bool_const(x == 0);
        }
        let t = self.boolt();
        self.val(Op::LogicalNot, t, &[a.word()])
    }
    pub fn select(&mut self, ty: Id, c: Id, a: Id, b: Id) -> Id {
        match self.known(c) {
            Some(0) => b,
            Some(_) => a,
            None if a == b => a,
            None => self.val(Op::Select, ty, &[c.word(), a.word(), b.word()]),
        }
    }
    /// A 64-bit value truncated to 32 bits (folded on constants, one conversion per value in
    /// the current block; with `before` set the block is the insertion point's).
    pub fn trunc32(&mut self, v: Id) -> Id {
        if let Some(x) = self.known(v) {
            return self.c32(x as u32);
        }
        if let Some(&t) = self.truncated.get(&(self.cur, v)) {
            return t;
        }
        let u32t = self.u32t();
        let t = self.val(Op::UConvert, u32t, &[v.word()]);
        self.truncated.insert((self.cur, v), t);
        t
    }

    /// A 32-bit unsigned value zero-extended to 64 bits.
    pub fn zext64(&mut self, v: Id) -> Id {
        if let Some(x) = self.known(v) {
            return self.c64(x);
        }
        let t = self.u64t();
        self.val(Op::UConvert, t, &[v.word()])
    }
    /// A 32-bit signed value sign-extended to 64 bits.
    pub fn sext64(&mut self, v: Id) -> Id {
        if let Some(x) = self.known(v) {
            return self.c64(x as u32 as i32 as i64 as u64);
        }
        let t = self.u64t();
        self.val(Op::SConvert, t, &[v.word()])
    }
    /// `x` with 0 replaced by 1 (a divisor the specification leaves undefined at 0; the
    /// replacement keeps the generated code free of division by zero).
    pub fn nonzero64(&mut self, x: Id) -> Id {
        if let Some(v) = self.known(x) {
            return self.c64(v.max(1));
        }
        let (zero, one, t) = (self.c64(0), self.c64(1), self.u64t());
        let z = self.cmp(Op::IEqual, x, zero);
        self.select(t, z, one, x)
    }

    /// Emits `for k in 0..count { body(k) }` (marked DontUnroll) starting from the current
    /// (unterminated) block;
    /// the loop exits to `exit` (a block label that follows). `body` starts in the loop's body
    /// block and may add blocks; it leaves the builder in an unterminated block. Every
    /// invocation runs the same trip count, so control reconverges at `exit`.
    pub fn counted_loop(
        &mut self,
        count: u32,
        exit: BlockId,
        body: impl FnOnce(&mut Builder, Id) -> Result<(), ConvertError>,
    ) -> Result<(), ConvertError> {
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
        // DontUnroll: the loop is the cold exact path; unrolled by IGC, its copies made the
        // kernels' ISA 6x and IGC's compile 10x longer (tensor-hw bg_f16_64x48x80 and gemm_i8_ss
        // on pvc, docs/measurements.md).
        self.void(
            Op::LoopMerge,
            &[exit_label.word(), cont_label.word(), LOOP_DONT_UNROLL],
        );
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

    /// After [`crate::edit::cfg::split_block_after`] cut a loop header (`split.before`), whose
    /// `OpLoopMerge` went with the tail: puts the merge back and continues in a new block of its
    /// own (a loop header cannot also head the selections and loops the caller emits). Nothing
    /// when `split.before` was not a loop header.
    pub fn leave_loop_header(&mut self, split: &SplitBlock) {
        if split.loop_merge.is_none() {
            return;
        }
        let pre = self.new_block_after(split.before);
        let pre_l = self.m.block_label(pre);
        split.keep_loop_header(self.m);
        self.void(Op::Branch, &[pre_l.word()]);
        self.cur = pre;
    }

    /// Emits `if cond { then() }`: returns (the block `cond` was tested in, the block `then`
    /// ended in); the builder continues in the merge block.
    pub fn if_then(
        &mut self,
        cond: Id,
        then: impl FnOnce(&mut Builder) -> Result<(), ConvertError>,
    ) -> Result<(BlockId, BlockId), ConvertError> {
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

/// A new Function variable of pointer type `ty` at the start of function `func`'s entry block.
fn function_variable_in(m: &mut Module, func: FuncId, ty: Id) -> Id {
    let var = m.fresh_id();
    let inst = Inst::new(
        Op::Variable,
        Some(ty),
        Some(var),
        &[StorageClass::Function as u32],
    );
    let Some(&entry) = m.function(func).blocks.first() else {
        return var;
    };
    match m.block_insts(entry).find(|&i| !m.inst(i).is(Op::Variable)) {
        Some(i) => m.insert_before(i, inst),
        None => m.append_inst(entry, inst),
    };
    var
}

/// A new Function variable of pointer type `ty` in the function the builder emits into.
pub fn function_variable(b: &mut Builder, ty: Id) -> Id {
    let func = b.m.block(b.cur).func;
    function_variable_in(b.m, func, ty)
}
