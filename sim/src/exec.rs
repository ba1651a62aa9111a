//! The interpreter: one kernel over an NDRange.
//!
//! Work-groups run one after another. A work-group's subgroups are formed from consecutive
//! linear local ids (the last one may be partial, as OpenCL defines). Each subgroup executes
//! SIMT-style: all its invocations step through a block's instructions together under an
//! active mask; at a divergent branch the subgroup splits and the parts reconverge at the
//! branch block's immediate post-dominator (a reconvergence stack per function frame, as in
//! GPGPU-Sim), so collectives see exactly the invocations that reach them together. A subgroup
//! runs until a work-group barrier (or work-group collective), then the next subgroup runs;
//! when every subgroup waits at the same barrier they are released. Collectives that need the
//! whole subgroup (block IO, MMA, Intel shuffles, barriers) report an error when part of it is
//! inactive. Subgroups of up to 64 invocations are supported. One subgroup executing a memory
//! instruction under its active mask is one message of the memory traffic counters
//! (`traffic.rs`: per storage class, messages, bytes and 64-byte lines).
//!
//! Memory: global buffers, local memory, Function/Private variables (one allocation per
//! variable and invocation, so out-of-bounds accesses are caught per variable) and module
//! constants live in one [`Memory`](crate::memory::Memory); built-in Input variables are addresses below the first
//! allocation that loads resolve per invocation.

use spvopt_ir::spirv::{self, Op};

use crate::error::SimError;
use crate::ops;
use crate::program::{DInst, Term, Ty, EXIT};
use crate::traffic::{Access, MemClass, PtrClass};

use smallvec::{smallvec, SmallVec};

use crate::machine::*;

mod memory;
pub(crate) use memory::{is_memory_ext, mask_bits};

impl<'p> Machine<'p> {
    // ---- the SIMT loop ------------------------------------------------------------------

    pub(crate) fn run_sg(&mut self, sg: &mut Sg) -> Result<Status, (SimError, Where)> {
        let p = self.p;
        loop {
            let Some(frame) = sg.frames.last_mut() else {
                return Ok(Status::Done);
            };
            let Some(top) = frame.stack.last().copied() else {
                // function finished
                let Some(done) = sg.frames.pop() else {
                    return Ok(Status::Done);
                };
                self.frame_bytes = self.frame_bytes.saturating_sub(done.data.len());
                let Some(caller) = sg.frames.last_mut() else {
                    return Ok(Status::Done);
                };
                if done.ret_size > 0 {
                    let l = p
                        .locs
                        .get(done.call_res as usize)
                        .copied()
                        .unwrap_or_default();
                    for lane in 0..sg.n {
                        let src = &done.ret[lane * done.ret_size..(lane + 1) * done.ret_size];
                        let start = lane * caller.fs + l.off as usize;
                        if let Some(d) = caller.data.get_mut(start..start + done.ret_size) {
                            if l.kind == 2 && done.returned >> lane & 1 == 1 {
                                d.copy_from_slice(src);
                            }
                        }
                    }
                }
                if let Some(e) = caller.stack.last_mut() {
                    e.pc += 1;
                }
                continue;
            };
            let mask = top.mask & !frame.returned;
            if top.block == EXIT || top.block == top.rpc || mask == 0 {
                frame.stack.pop();
                continue;
            }
            let fi = frame.func;
            let func = &p.funcs[fi];
            let Some(blk) = func.blocks.get(top.block as usize) else {
                return Err((
                    SimError::Module("branch to a missing block".into()),
                    Where {
                        func: fi,
                        at: func
                            .blocks
                            .first()
                            .map(|b| b.term_at)
                            .unwrap_or(spvopt_ir::InstId::from_index(0)),
                        lane: mask.trailing_zeros() as usize,
                    },
                ));
            };
            sg.steps += 1;
            self.counters.instructions += mask.count_ones() as u64;
            // Terminators count too: a block that only branches to itself must end the run.
            if sg.steps > self.max_steps {
                let at = blk.insts.get(top.pc as usize).map_or(blk.term_at, |i| i.at);
                return Err((
                    SimError::Budget(self.max_steps),
                    Where {
                        func: fi,
                        at,
                        lane: mask.trailing_zeros() as usize,
                    },
                ));
            }
            if let Some(inst) = blk.insts.get(top.pc as usize) {
                self.err_lane = None;
                match self.exec(sg, inst, mask) {
                    Ok(Flow::Next) => {
                        if let Some(e) = sg.frames.last_mut().and_then(|f| f.stack.last_mut()) {
                            e.pc += 1;
                        }
                    }
                    Ok(Flow::Call) => {}
                    Ok(Flow::Barrier) => return Ok(Status::Barrier(fi, top.block, top.pc)),
                    Err(e) => {
                        let lane = self.err_lane.unwrap_or(mask.trailing_zeros() as usize);
                        return Err((
                            e,
                            Where {
                                func: fi,
                                at: inst.at,
                                lane,
                            },
                        ));
                    }
                }
            } else {
                let at = blk.term_at;
                self.err_lane = None;
                if let Err(e) = self.terminate(sg, fi, top, mask) {
                    let lane = self.err_lane.unwrap_or(mask.trailing_zeros() as usize);
                    return Err((e, Where { func: fi, at, lane }));
                }
            }
        }
    }

    /// Evaluates the phis of block `to` for lanes `mask` arriving from block `from`.
    pub(crate) fn edge(
        &self,
        sg: &mut Sg,
        fi: usize,
        from: u32,
        to: u32,
        mask: u64,
    ) -> Result<(), SimError> {
        let func = &self.p.funcs[fi];
        let tb = &func.blocks[to as usize];
        if tb.phis.is_empty() {
            return Ok(());
        }
        let from_label = func.blocks[from as usize].label;
        let mut vals: Vec<(u32, Vec<u8>)> = Vec::with_capacity(tb.phis.len());
        for (res, pairs) in &tb.phis {
            let v = pairs
                .iter()
                .find(|(l, _)| *l == from_label)
                .map(|(_, v)| *v)
                .ok_or_else(|| {
                    SimError::Module(format!(
                        "OpPhi %{res} has no value for predecessor %{from_label}"
                    ))
                })?;
            let size = self.p.locs.get(*res as usize).map(|l| l.size).unwrap_or(0) as usize;
            let mut buf = vec![0u8; size * sg.n];
            for lane in lanes(mask) {
                let src = self.val(sg, v, lane);
                let n = size.min(src.len());
                buf[lane * size..lane * size + n].copy_from_slice(&src[..n]);
            }
            vals.push((*res, buf));
        }
        for (res, buf) in vals {
            let size = buf.len() / sg.n.max(1);
            for lane in lanes(mask) {
                self.set(sg, res, lane, &buf[lane * size..(lane + 1) * size]);
            }
        }
        Ok(())
    }

    pub(crate) fn terminate(
        &mut self,
        sg: &mut Sg,
        fi: usize,
        top: Entry,
        mask: u64,
    ) -> Result<(), SimError> {
        let p = self.p;
        let blk = &p.funcs[fi].blocks[top.block as usize];
        let cur = top.block;
        let mut targets: Vec<(u32, u64)> = Vec::new();
        match &blk.term {
            Term::Branch(t) => targets.push((*t, mask)),
            Term::CondBranch(c, t, f) => {
                let mut mt = 0u64;
                for lane in lanes(mask) {
                    if self.val(sg, *c, lane).first().copied().unwrap_or(0) != 0 {
                        mt |= 1 << lane;
                    }
                }
                if mt != 0 {
                    targets.push((*t, mt));
                }
                if mask & !mt != 0 {
                    targets.push((*f, mask & !mt));
                }
            }
            Term::Switch {
                selector,
                default,
                cases,
            } => {
                let bits = (self.val(sg, *selector, 0).len() * 8) as u32;
                for lane in lanes(mask) {
                    let v = mask_bits(self.val_u64(sg, *selector, lane), bits);
                    let t = cases
                        .iter()
                        .find(|(c, _)| mask_bits(*c, bits) == v)
                        .map(|c| c.1)
                        .unwrap_or(*default);
                    match targets.iter_mut().find(|x| x.0 == t) {
                        Some(x) => x.1 |= 1 << lane,
                        None => targets.push((t, 1 << lane)),
                    }
                }
            }
            Term::Return | Term::ReturnValue(_) | Term::Kill => {
                if let Term::ReturnValue(v) = blk.term {
                    let f = sg.frames.last().map(|f| f.ret_size).unwrap_or(0);
                    let mut vals = Vec::new();
                    for lane in lanes(mask) {
                        vals.push((lane, self.val(sg, v, lane).to_vec()));
                    }
                    if let Some(fr) = sg.frames.last_mut() {
                        for (lane, b) in vals {
                            let n = f.min(b.len());
                            fr.ret[lane * f..lane * f + n].copy_from_slice(&b[..n]);
                        }
                    }
                }
                if let Some(fr) = sg.frames.last_mut() {
                    fr.returned |= mask;
                    if let Some(e) = fr.stack.last_mut() {
                        e.block = EXIT;
                    }
                }
                return Ok(());
            }
            Term::Unreachable => return Err(uerr("OpUnreachable executed")),
        }
        for &(t, m) in &targets {
            self.edge(sg, fi, cur, t, m)?;
        }
        let Some(fr) = sg.frames.last_mut() else {
            return Ok(());
        };
        let Some(e) = fr.stack.last_mut() else {
            return Ok(());
        };
        if targets.len() == 1 {
            e.block = targets[0].0;
            e.pc = 0;
        } else {
            let r = blk.ipdom;
            e.block = r;
            e.pc = 0;
            for &(t, m) in targets.iter().rev() {
                fr.stack.push(Entry {
                    block: t,
                    pc: 0,
                    rpc: r,
                    mask: m,
                });
            }
        }
        Ok(())
    }

    // ---- instructions -------------------------------------------------------------------

    pub(crate) fn exec(&mut self, sg: &mut Sg, inst: &DInst, mask: u64) -> Result<Flow, SimError> {
        let p = self.p;
        match inst.op {
            Op::Load if inst.predicated => {
                // Pointer, predicate, default value, memory operands. Lanes whose predicate is
                // false take the default value and touch no memory (no bounds or alignment
                // check).
                let size = p.locs[inst.res as usize].size as usize;
                let align = self.access_align(inst, 3, inst.ty);
                let mut buf = vec![0u8; size];
                for lane in lanes(mask) {
                    self.err_lane = Some(lane);
                    if self.val(sg, inst.w[1], lane).first().copied().unwrap_or(0) != 0 {
                        let addr = self.val_u64(sg, inst.w[0], lane);
                        self.check_align(addr, align, "OpPredicatedLoadINTEL")?;
                        self.read_mem(sg, lane, addr, &mut buf)?;
                    } else {
                        let d = self.val(sg, inst.w[2], lane);
                        let n = d.len().min(size);
                        buf[..n].copy_from_slice(&d[..n]);
                        buf[n..].fill(0);
                    }
                    self.set(sg, inst.res, lane, &buf);
                }
            }
            Op::Store if inst.predicated => {
                // Pointer, object, predicate, memory operands: lanes whose predicate is false
                // store nothing.
                let vty = p.vty.get(inst.w[1] as usize).copied().unwrap_or(0);
                let align = self.access_align(inst, 3, vty);
                for lane in lanes(mask) {
                    self.err_lane = Some(lane);
                    if self.val(sg, inst.w[2], lane).first().copied().unwrap_or(0) == 0 {
                        continue;
                    }
                    let addr = self.val_u64(sg, inst.w[0], lane);
                    self.check_align(addr, align, "OpPredicatedStoreINTEL")?;
                    let v = self.val(sg, inst.w[1], lane).to_vec();
                    self.write_mem(addr, &v)?;
                }
            }
            Op::Load => {
                let size = p.locs[inst.res as usize].size as usize;
                let align = self.access_align(inst, 1, inst.ty);
                let class = self.ptr_class(inst.w[0]);
                let mut buf: SmallVec<[u8; 64]> = smallvec![0u8; size];
                for lane in lanes(mask) {
                    self.err_lane = Some(lane);
                    let addr = self.val_u64(sg, inst.w[0], lane);
                    self.check_align(addr, align, "OpLoad")?;
                    self.read_mem(sg, lane, addr, &mut buf)?;
                    self.set(sg, inst.res, lane, &buf);
                    self.note(class, addr, size);
                }
                self.send(Access::Load);
            }
            Op::Store => {
                let vty = p.vty.get(inst.w[1] as usize).copied().unwrap_or(0);
                let align = self.access_align(inst, 2, vty);
                let class = self.ptr_class(inst.w[0]);
                for lane in lanes(mask) {
                    self.err_lane = Some(lane);
                    let addr = self.val_u64(sg, inst.w[0], lane);
                    self.check_align(addr, align, "OpStore")?;
                    let v: SmallVec<[u8; 64]> = SmallVec::from_slice(self.val(sg, inst.w[1], lane));
                    self.write_mem(addr, &v)?;
                    self.note(class, addr, v.len());
                }
                self.send(Access::Store);
            }
            Op::Variable => {
                let idx = p.func_vars.get(&inst.res).copied().unwrap_or(0);
                let pointee = p.func_var_types.get(idx).copied().unwrap_or(0);
                let size = p.ty(pointee)?.size as usize;
                for lane in lanes(mask) {
                    let addr = self
                        .func_var_addr
                        .get(idx)
                        .and_then(|v| v.get(sg.lin0 + lane))
                        .copied()
                        .unwrap_or(0);
                    self.set(sg, inst.res, lane, &addr.to_le_bytes());
                    if let Some(&init) = inst.w.get(1) {
                        let v = self.val(sg, init, lane).to_vec();
                        let n = v.len().min(size);
                        self.write_mem(addr, &v[..n])?;
                        self.note(PtrClass::Fixed(MemClass::Private), addr, n);
                    }
                }
                self.send(Access::Store);
            }
            Op::CopyMemory | Op::CopyMemorySized => {
                let (dst_class, src_class) = (self.ptr_class(inst.w[0]), self.ptr_class(inst.w[1]));
                let mut copied = Vec::new();
                for lane in lanes(mask) {
                    self.err_lane = Some(lane);
                    let dst = self.val_u64(sg, inst.w[0], lane);
                    let src = self.val_u64(sg, inst.w[1], lane);
                    let size = if inst.op == Op::CopyMemorySized {
                        self.val_u64(sg, inst.w[2], lane) as usize
                    } else {
                        let t = p.vty.get(inst.w[1] as usize).copied().unwrap_or(0);
                        match p.ty(t)?.ty {
                            Ty::Pointer { pointee, .. } => p.ty(pointee)?.size as usize,
                            _ => 0,
                        }
                    };
                    if size > 1 << 30 {
                        return Err(uerr(format!("copy of {size} bytes")));
                    }
                    let mut buf = vec![0u8; size];
                    self.read_mem(sg, lane, src, &mut buf)?;
                    self.write_mem(dst, &buf)?;
                    copied.push((src, dst, size));
                }
                for &(src, _, size) in &copied {
                    self.note(src_class, src, size);
                }
                self.send(Access::Load);
                for &(_, dst, size) in &copied {
                    self.note(dst_class, dst, size);
                }
                self.send(Access::Store);
            }
            Op::FunctionCall => return self.call(sg, inst, mask),
            Op::ControlBarrier => {
                let scope = self.const_u64(inst.w[0])?;
                if scope == spirv::Scope::Invocation as u64 {
                    return Ok(Flow::Next);
                }
                self.require_full(sg, mask, "OpControlBarrier")?;
                if scope == spirv::Scope::Subgroup as u64 {
                    return Ok(Flow::Next);
                }
                return Ok(Flow::Barrier);
            }
            Op::ControlBarrierArriveINTEL | Op::ControlBarrierWaitINTEL => {
                // SPV_EXT_split_barrier (the INTEL opcodes are the same): every invocation of
                // the Execution scope executes the same dynamic instance of each. Arrive and
                // wait alternate, starting with arrive. Both are work-group synchronisation
                // points here: blocking at an arrive until the whole work-group arrived is one
                // schedule the hardware may take (everyone must arrive before any wait ends).
                let arrive = inst.op == Op::ControlBarrierArriveINTEL;
                if arrive && sg.split_arrived {
                    return Err(uerr(
                        "OpControlBarrierArriveEXT again before an OpControlBarrierWaitEXT",
                    ));
                }
                if !arrive && !sg.split_arrived {
                    return Err(uerr(
                        "OpControlBarrierWaitEXT without a preceding OpControlBarrierArriveEXT",
                    ));
                }
                sg.split_arrived = arrive;
                let scope = self.const_u64(inst.w[0])?;
                if scope == spirv::Scope::Invocation as u64 {
                    return Ok(Flow::Next);
                }
                self.require_full(
                    sg,
                    mask,
                    if arrive {
                        "OpControlBarrierArriveEXT"
                    } else {
                        "OpControlBarrierWaitEXT"
                    },
                )?;
                if scope == spirv::Scope::Subgroup as u64 {
                    return Ok(Flow::Next);
                }
                return Ok(Flow::Barrier);
            }
            Op::Nop if inst.internal == spvopt_ir::grammar::internal::OP_FSIGMOID_INTEL => {
                self.sigmoid(sg, inst, mask)?
            }
            Op::Nop if inst.internal != 0 => self.joint_matrix(sg, inst, mask)?,
            Op::MemoryBarrier | Op::Nop => {}
            Op::AtomicLoad
            | Op::AtomicStore
            | Op::AtomicExchange
            | Op::AtomicCompareExchange
            | Op::AtomicCompareExchangeWeak
            | Op::AtomicIIncrement
            | Op::AtomicIDecrement
            | Op::AtomicIAdd
            | Op::AtomicISub
            | Op::AtomicSMin
            | Op::AtomicUMin
            | Op::AtomicSMax
            | Op::AtomicUMax
            | Op::AtomicAnd
            | Op::AtomicOr
            | Op::AtomicXor
            | Op::AtomicFAddEXT
            | Op::AtomicFMinEXT
            | Op::AtomicFMaxEXT => self.atomic(sg, inst, mask)?,
            Op::ExtInst if is_memory_ext(inst.ext) => self.ext_memory(sg, inst, mask)?,
            _ if crate::coop_matrix::is_coop_op(p, inst) => self.coop(sg, inst, mask)?,
            op if crate::tensor_addressing::is_tensor_op(op) => self.tensor_op(sg, inst, mask)?,
            op if crate::collective::is_collective(op) => {
                return self.collective(sg, inst, mask).map(|wg| {
                    if wg {
                        Flow::Barrier
                    } else {
                        Flow::Next
                    }
                })
            }
            _ => {
                let rs = p.locs.get(inst.res as usize).map(|l| l.size).unwrap_or(0) as usize;
                let n = sg.n;
                let mut out = std::mem::take(&mut self.scratch);
                out.clear();
                out.resize(rs * n, 0);
                {
                    let f = sg.frames.last().ok_or_else(|| uerr("no frame"))?;
                    let (locs, consts, data, fs, lg, lgs) = (
                        &p.locs,
                        &self.consts[..],
                        &f.data[..],
                        f.fs,
                        &sg.lg[..],
                        sg.lgs,
                    );
                    let ty_of = |id: u32| p.vty.get(id as usize).copied().unwrap_or(0);
                    for lane in lanes(mask) {
                        self.err_lane = Some(lane);
                        let get = |id: u32| operand(locs, consts, data, fs, lg, lgs, id, lane);
                        let done =
                            ops::pure(p, inst, &get, &ty_of, &mut out[lane * rs..(lane + 1) * rs])?;
                        if !done {
                            if inst.op == Op::ExtInst {
                                return Err(SimError::Unsupported(format!(
                                    "OpenCL.std {} is not implemented by the simulator",
                                    inst.ext
                                )));
                            }
                            return Err(ops::not_implemented(inst));
                        }
                    }
                }
                if rs > 0 {
                    let l = p.locs[inst.res as usize];
                    if let Some(f) = sg.frames.last_mut() {
                        for lane in lanes(mask) {
                            let start = lane * f.fs + l.off as usize;
                            f.data[start..start + rs]
                                .copy_from_slice(&out[lane * rs..(lane + 1) * rs]);
                        }
                    }
                }
                self.scratch = out;
            }
        }
        Ok(Flow::Next)
    }

    pub(crate) fn require_full(&self, sg: &Sg, mask: u64, what: &str) -> Result<(), SimError> {
        if mask != full_mask(sg.n) {
            let missing = full_mask(sg.n) & !mask;
            return Err(uerr(format!(
                "{what} not reached by the whole subgroup (invocations {:?} are elsewhere)",
                lanes(missing).collect::<Vec<_>>()
            )));
        }
        Ok(())
    }

    pub(crate) fn call(&mut self, sg: &mut Sg, inst: &DInst, mask: u64) -> Result<Flow, SimError> {
        let p = self.p;
        let callee = *p
            .func_of_id
            .get(&inst.w[0])
            .ok_or_else(|| SimError::Module(format!("call of unknown function %{}", inst.w[0])))?;
        let f = &p.funcs[callee];
        if f.blocks.is_empty() {
            let name = f.import.clone().unwrap_or_else(|| f.name.clone());
            self.builtin_call(sg, inst, mask, callee, &name)?;
            return Ok(Flow::Next);
        }
        if sg.frames.len() > 256 {
            return Err(uerr("call depth above 256 (recursion is not allowed)"));
        }
        let fs = f.frame_size as usize;
        let mut data = vec![0u8; self.reserve_frame(fs, sg.n)?];
        for lane in lanes(mask) {
            for (i, &param) in f.params.iter().enumerate() {
                let l = p.locs[param as usize];
                let src = self.val(sg, inst.w[1 + i], lane);
                let n = (l.size as usize).min(src.len());
                let start = lane * fs + l.off as usize;
                data[start..start + n].copy_from_slice(&src[..n]);
            }
        }
        let ret_size = p.ty(f.ret_ty).map(|t| t.size).unwrap_or(0) as usize;
        sg.frames.push(Frame {
            func: callee,
            data,
            fs,
            stack: vec![Entry {
                block: 0,
                pc: 0,
                rpc: EXIT,
                mask,
            }],
            returned: 0,
            ret: vec![0u8; ret_size * sg.n],
            ret_size,
            call_res: inst.res,
        });
        Ok(Flow::Call)
    }
}
