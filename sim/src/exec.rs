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
//! inactive. Subgroups of up to 64 invocations are supported.
//!
//! Memory: global buffers, local memory, Function/Private variables (one allocation per
//! variable and invocation, so out-of-bounds accesses are caught per variable) and module
//! constants live in one [`Memory`]; built-in Input variables are addresses below the first
//! allocation that loads resolve per invocation.

use std::collections::{BTreeMap, HashSet};

use serde::Serialize;
use spvopt_analysis::Fact;
use spvopt_ir::spirv::{self, Op};

use crate::error::SimError;
use crate::launch::{Arg, Launch};
use crate::memory::{AllocKind, Memory};
use crate::ops;
use crate::program::{DInst, Loc, Program, Term, Ty, EXIT};
use crate::values::*;

/// Addresses of built-in variables: slot `k` at `BUILTIN_BASE + 64 k`.
pub const BUILTIN_BASE: u64 = 0x200;
const BUILTIN_SLOT: u64 = 64;

/// Number of 2D block operations and bytes of one kind and shape.
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct OpCount {
    pub ops: u64,
    pub bytes: u64,
}

/// What a run counts (for cost models).
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct Counters {
    /// Instructions executed, summed over invocations.
    pub instructions: u64,
    /// Work-group barriers passed (once per work-group and barrier).
    pub barriers: u64,
    /// 2D block operations by kind and shape ("load 16b 32r16x2c").
    pub block2d: BTreeMap<String, OpCount>,
    /// MMA operations by shape and type ("m8n16k16 A f16 B f16 C f32 R f32").
    pub mma: BTreeMap<String, u64>,
    /// 2D and 1D block prefetches executed and bytes they cover.
    pub prefetches: u64,
    pub prefetched_bytes: u64,
    /// 64-byte lines read by 2D block loads, and how many of them an earlier prefetch of the
    /// same work-group had touched; `prefetch_coverage` = covered / loaded (0 when none).
    pub lines_loaded_2d: u64,
    pub lines_prefetched_before_load: u64,
    pub prefetch_coverage: f64,
    /// 1D subgroup block reads / writes.
    pub block_reads_1d: u64,
    pub block_writes_1d: u64,
    pub work_groups: u64,
    pub subgroups: u64,
}

/// Result of a run: final bytes of every buffer argument (by parameter index) and counters.
#[derive(Debug, Clone)]
pub struct RunOutput {
    pub buffers: Vec<(usize, Vec<u8>)>,
    pub counters: Counters,
}

#[derive(Debug, Clone, Copy)]
struct Entry {
    block: u32,
    pc: u32,
    rpc: u32,
    mask: u64,
}

struct Frame {
    func: usize,
    data: Vec<u8>,
    fs: usize,
    stack: Vec<Entry>,
    returned: u64,
    ret: Vec<u8>,
    ret_size: usize,
    call_res: u32,
}

pub(crate) struct Sg {
    frames: Vec<Frame>,
    /// Invocations in this subgroup.
    pub n: usize,
    lg: Vec<u8>,
    lgs: usize,
    /// Linear local id of invocation 0.
    pub lin0: usize,
    pub index: u32,
    steps: u64,
}

enum Flow {
    Next,
    Call,
    Barrier,
}

enum Status {
    Done,
    Barrier(usize, u32, u32),
}

/// Where an error happened.
struct Where {
    func: usize,
    at: spvopt_ir::InstId,
    lane: usize,
}

pub(crate) struct Machine<'p> {
    pub p: &'p Program,
    pub m: &'p spvopt_ir::Module,
    pub mem: Memory,
    pub consts: Vec<u8>,
    pub counters: Counters,
    pub sgsize: u32,
    local: [u64; 3],
    num_groups: [u64; 3],
    wg: [u64; 3],
    wg_invocs: usize,
    nsg: u32,
    builtin_slots: Vec<(u32, usize, usize)>,
    /// Per Function variable: base address per linear local id.
    func_var_addr: Vec<Vec<u64>>,
    private_addr: Vec<Vec<u64>>,
    max_steps: u64,
    /// How 2D block loads/stores deal rows wider than the subgroup's dwords.
    pub block_layout: crate::block_io_2d::BlockLayout,
    pub prefetched: HashSet<u64>,
    err_lane: Option<usize>,
    scratch: Vec<u8>,
}

fn uerr(msg: impl Into<String>) -> SimError {
    SimError::Undefined(msg.into())
}

/// Iterates the set bits of a mask.
#[inline]
pub(crate) fn lanes(mask: u64) -> impl Iterator<Item = usize> {
    let mut m = mask;
    std::iter::from_fn(move || {
        if m == 0 {
            None
        } else {
            let i = m.trailing_zeros() as usize;
            m &= m - 1;
            Some(i)
        }
    })
}

pub(crate) fn full_mask(n: usize) -> u64 {
    if n >= 64 {
        u64::MAX
    } else {
        (1u64 << n) - 1
    }
}

/// Reads an operand's bytes for one lane.
#[inline]
#[allow(clippy::too_many_arguments)]
pub(crate) fn operand<'a>(
    locs: &[Loc],
    consts: &'a [u8],
    data: &'a [u8],
    fs: usize,
    lg: &'a [u8],
    lgs: usize,
    id: u32,
    lane: usize,
) -> &'a [u8] {
    let l = match locs.get(id as usize) {
        Some(l) => *l,
        None => return &[],
    };
    let (buf, start) = match l.kind {
        1 => (consts, l.off as usize),
        2 => (data, lane * fs + l.off as usize),
        3 => (lg, lane * lgs + l.off as usize),
        _ => return &[],
    };
    buf.get(start..start + l.size as usize).unwrap_or(&[])
}

impl<'p> Machine<'p> {
    /// Bytes of operand `id` for `lane` of the subgroup's current frame.
    pub(crate) fn val<'a>(&'a self, sg: &'a Sg, id: u32, lane: usize) -> &'a [u8] {
        let f = match sg.frames.last() {
            Some(f) => f,
            None => return &[],
        };
        operand(
            &self.p.locs,
            &self.consts,
            &f.data,
            f.fs,
            &sg.lg,
            sg.lgs,
            id,
            lane,
        )
    }

    pub(crate) fn val_u64(&self, sg: &Sg, id: u32, lane: usize) -> u64 {
        let b = self.val(sg, id, lane);
        let mut v = [0u8; 8];
        let n = b.len().min(8);
        v[..n].copy_from_slice(&b[..n]);
        u64::from_le_bytes(v)
    }

    /// Writes a result for one lane.
    pub(crate) fn set(&self, sg: &mut Sg, id: u32, lane: usize, bytes: &[u8]) {
        let l = self.p.locs.get(id as usize).copied().unwrap_or_default();
        if l.kind != 2 {
            return;
        }
        if let Some(f) = sg.frames.last_mut() {
            let start = lane * f.fs + l.off as usize;
            let n = (l.size as usize).min(bytes.len());
            if let Some(d) = f.data.get_mut(start..start + n) {
                d.copy_from_slice(&bytes[..n]);
            }
        }
    }

    pub(crate) fn local_size(&self) -> [u64; 3] {
        self.local
    }

    pub(crate) fn const_u64(&self, id: u32) -> Result<u64, SimError> {
        let b = self.p.const_bytes(id)?;
        let mut v = [0u8; 8];
        let n = b.len().min(8);
        v[..n].copy_from_slice(&b[..n]);
        Ok(u64::from_le_bytes(v))
    }

    /// Local id (x, y, z) of linear local id `lin`.
    fn local_id(&self, lin: usize) -> [u64; 3] {
        let l = lin as u64;
        [
            l % self.local[0],
            (l / self.local[0]) % self.local[1],
            l / (self.local[0] * self.local[1]),
        ]
    }

    /// Global id of `lane` in `sg`.
    pub(crate) fn global_id(&self, sg: &Sg, lane: usize) -> [u64; 3] {
        let l = self.local_id(sg.lin0 + lane);
        [
            self.wg[0] * self.local[0] + l[0],
            self.wg[1] * self.local[1] + l[1],
            self.wg[2] * self.local[2] + l[2],
        ]
    }

    fn builtin_value(&self, sg: &Sg, lane: usize, builtin: u32) -> [u64; 3] {
        use spirv::BuiltIn as B;
        let lid = self.local_id(sg.lin0 + lane);
        let b = builtin;
        let sz = |x: [u64; 3]| x;
        match b {
            x if x == B::GlobalInvocationId as u32 => self.global_id(sg, lane),
            x if x == B::LocalInvocationId as u32 => lid,
            x if x == B::WorkgroupId as u32 => self.wg,
            x if x == B::NumWorkgroups as u32 => self.num_groups,
            x if x == B::WorkgroupSize as u32 || x == B::EnqueuedWorkgroupSize as u32 => {
                sz(self.local)
            }
            x if x == B::GlobalSize as u32 => [
                self.local[0] * self.num_groups[0],
                self.local[1] * self.num_groups[1],
                self.local[2] * self.num_groups[2],
            ],
            x if x == B::GlobalOffset as u32 => [0, 0, 0],
            x if x == B::SubgroupLocalInvocationId as u32 => [lane as u64, 0, 0],
            x if x == B::SubgroupId as u32 => [sg.index as u64, 0, 0],
            x if x == B::SubgroupSize as u32 => [sg.n as u64, 0, 0],
            x if x == B::SubgroupMaxSize as u32 => [self.sgsize as u64, 0, 0],
            x if x == B::NumSubgroups as u32 || x == B::NumEnqueuedSubgroups as u32 => {
                [self.nsg as u64, 0, 0]
            }
            x if x == B::LocalInvocationIndex as u32 => [(sg.lin0 + lane) as u64, 0, 0],
            x if x == B::GlobalLinearId as u32 => {
                let g = self.global_id(sg, lane);
                let gs = [
                    self.local[0] * self.num_groups[0],
                    self.local[1] * self.num_groups[1],
                ];
                [g[2] * gs[1] * gs[0] + g[1] * gs[0] + g[0], 0, 0]
            }
            x if x == B::WorkDim as u32 => {
                let d = if self.local[2] * self.num_groups[2] > 1 {
                    3
                } else if self.local[1] * self.num_groups[1] > 1 {
                    2
                } else {
                    1
                };
                [d, 0, 0]
            }
            _ => [0, 0, 0],
        }
    }

    /// Reads memory for one lane (built-in variables included).
    pub(crate) fn read_mem(
        &self,
        sg: &Sg,
        lane: usize,
        addr: u64,
        out: &mut [u8],
    ) -> Result<(), SimError> {
        let end = BUILTIN_BASE + BUILTIN_SLOT * self.builtin_slots.len() as u64;
        if (BUILTIN_BASE..end).contains(&addr) {
            let slot = ((addr - BUILTIN_BASE) / BUILTIN_SLOT) as usize;
            let off = ((addr - BUILTIN_BASE) % BUILTIN_SLOT) as usize;
            let (b, es, n) = self.builtin_slots[slot];
            let v = self.builtin_value(sg, lane, b);
            let mut buf = [0u8; 64];
            for (i, x) in v.iter().take(n).enumerate() {
                wr(&mut buf, es, i, *x);
            }
            let src = buf
                .get(off..off + out.len())
                .filter(|_| off + out.len() <= es * n)
                .ok_or_else(|| uerr(format!("out-of-bounds read of a built-in at {addr:#x}")))?;
            out.copy_from_slice(src);
            return Ok(());
        }
        self.mem.read(addr, out)
    }

    pub(crate) fn write_mem(&mut self, addr: u64, data: &[u8]) -> Result<(), SimError> {
        let end = BUILTIN_BASE + BUILTIN_SLOT * self.builtin_slots.len() as u64;
        if (BUILTIN_BASE..end).contains(&addr) {
            return Err(uerr("store to a built-in Input variable"));
        }
        self.mem.write(addr, data)
    }

    /// Element alignment an access through a pointer of type `ptr_ty` needs.
    fn natural_align(&self, ty: u32) -> u64 {
        match self.p.ty(ty).map(|t| &t.ty) {
            Ok(Ty::Vector { elem, .. }) => self.p.ty(*elem).map(|t| t.size).unwrap_or(1) as u64,
            Ok(Ty::Int { width, .. }) | Ok(Ty::Float { width }) => *width as u64 / 8,
            Ok(Ty::Pointer { .. }) => self.p.ptr_bytes as u64,
            Ok(Ty::Struct { .. }) | Ok(Ty::Array { .. }) => 1,
            _ => 1,
        }
    }

    // ---- the SIMT loop ------------------------------------------------------------------

    fn run_sg(&mut self, sg: &mut Sg) -> Result<Status, (SimError, Where)> {
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
            if let Some(inst) = blk.insts.get(top.pc as usize) {
                if sg.steps > self.max_steps {
                    return Err((
                        SimError::Budget(self.max_steps),
                        Where {
                            func: fi,
                            at: inst.at,
                            lane: mask.trailing_zeros() as usize,
                        },
                    ));
                }
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
    fn edge(&self, sg: &mut Sg, fi: usize, from: u32, to: u32, mask: u64) -> Result<(), SimError> {
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

    fn terminate(&mut self, sg: &mut Sg, fi: usize, top: Entry, mask: u64) -> Result<(), SimError> {
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

    fn exec(&mut self, sg: &mut Sg, inst: &DInst, mask: u64) -> Result<Flow, SimError> {
        let p = self.p;
        match inst.op {
            Op::Load => {
                let size = p.locs[inst.res as usize].size as usize;
                let align = self.access_align(inst, 1, inst.ty);
                let mut buf = vec![0u8; size];
                for lane in lanes(mask) {
                    self.err_lane = Some(lane);
                    let addr = self.val_u64(sg, inst.w[0], lane);
                    self.check_align(addr, align, "OpLoad")?;
                    self.read_mem(sg, lane, addr, &mut buf)?;
                    self.set(sg, inst.res, lane, &buf);
                }
            }
            Op::Store => {
                let vty = p.vty.get(inst.w[1] as usize).copied().unwrap_or(0);
                let align = self.access_align(inst, 2, vty);
                for lane in lanes(mask) {
                    self.err_lane = Some(lane);
                    let addr = self.val_u64(sg, inst.w[0], lane);
                    self.check_align(addr, align, "OpStore")?;
                    let v = self.val(sg, inst.w[1], lane).to_vec();
                    self.write_mem(addr, &v)?;
                }
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
                    }
                }
            }
            Op::CopyMemory | Op::CopyMemorySized => {
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
                }
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

    /// Alignment required by a load/store: the `Aligned` memory operand if present, else the
    /// component size of the accessed type.
    fn access_align(&self, inst: &DInst, mem_operand_at: usize, ty: u32) -> u64 {
        if let Some(&flags) = inst.w.get(mem_operand_at) {
            if flags & spirv::MemoryAccess::ALIGNED.bits() != 0 {
                // Volatile (1) has no operand; Aligned (2) comes first
                if let Some(&a) = inst.w.get(mem_operand_at + 1) {
                    if a.is_power_of_two() {
                        return a as u64;
                    }
                }
            }
        }
        self.natural_align(ty)
    }

    fn check_align(&self, addr: u64, align: u64, what: &'static str) -> Result<(), SimError> {
        crate::memory::check_aligned(addr, align, what)
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

    fn call(&mut self, sg: &mut Sg, inst: &DInst, mask: u64) -> Result<Flow, SimError> {
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
        let mut data = vec![0u8; fs * sg.n];
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

    fn atomic(&mut self, sg: &mut Sg, inst: &DInst, mask: u64) -> Result<(), SimError> {
        let p = self.p;
        let ptr_ty = p.vty.get(inst.w[0] as usize).copied().unwrap_or(0);
        let pointee = match p.ty(ptr_ty)?.ty {
            Ty::Pointer { pointee, .. } => pointee,
            _ => return Err(SimError::Module("atomic on a non-pointer".into())),
        };
        let c = ops::comp(p, pointee)?;
        let bits = c.bits;
        let size = c.bytes;
        for lane in lanes(mask) {
            self.err_lane = Some(lane);
            let addr = self.val_u64(sg, inst.w[0], lane);
            crate::memory::check_aligned(addr, size as u64, "atomic")?;
            let mut buf = [0u8; 8];
            self.read_mem(sg, lane, addr, &mut buf[..size])?;
            let old = u64::from_le_bytes(buf);
            let v = |i: usize| self.val_u64(sg, inst.w[i], lane);
            let new = match inst.op {
                Op::AtomicLoad => None,
                Op::AtomicStore => Some(v(3)),
                Op::AtomicExchange => Some(v(3)),
                Op::AtomicCompareExchange | Op::AtomicCompareExchangeWeak => {
                    if mask_bits(old, bits) == mask_bits(v(5), bits) {
                        Some(v(4))
                    } else {
                        None
                    }
                }
                Op::AtomicIIncrement => Some(old.wrapping_add(1)),
                Op::AtomicIDecrement => Some(old.wrapping_sub(1)),
                Op::AtomicIAdd => Some(old.wrapping_add(v(3))),
                Op::AtomicISub => Some(old.wrapping_sub(v(3))),
                Op::AtomicSMin => Some(if sext(old, bits) <= sext(v(3), bits) {
                    old
                } else {
                    v(3)
                }),
                Op::AtomicSMax => Some(if sext(old, bits) >= sext(v(3), bits) {
                    old
                } else {
                    v(3)
                }),
                Op::AtomicUMin => Some(mask_bits(old, bits).min(mask_bits(v(3), bits))),
                Op::AtomicUMax => Some(mask_bits(old, bits).max(mask_bits(v(3), bits))),
                Op::AtomicAnd => Some(old & v(3)),
                Op::AtomicOr => Some(old | v(3)),
                Op::AtomicXor => Some(old ^ v(3)),
                Op::AtomicFAddEXT => Some(ops::float_bin(Op::FAdd, old, v(3), bits)),
                Op::AtomicFMinEXT | Op::AtomicFMaxEXT => {
                    let (a, b) = (f_get(old, bits), f_get(v(3), bits));
                    let take_b = if inst.op == Op::AtomicFMinEXT {
                        b < a || a.is_nan()
                    } else {
                        b > a || a.is_nan()
                    };
                    Some(if take_b { v(3) } else { old })
                }
                _ => None,
            };
            if let Some(nv) = new {
                self.write_mem(addr, &nv.to_le_bytes()[..size])?;
            }
            if inst.res != 0 {
                self.set(sg, inst.res, lane, &old.to_le_bytes()[..size]);
            }
        }
        Ok(())
    }

    fn ext_memory(&mut self, sg: &mut Sg, inst: &DInst, mask: u64) -> Result<(), SimError> {
        let p = self.p;
        let args: Vec<u32> = inst.w[2..].to_vec();
        let rty = inst.ty;
        let (rc, rn) = ops::vcomp(p, rty).unwrap_or((
            ops::Comp {
                kind: ops::Kind::Other,
                bits: 0,
                bytes: 0,
                signed: false,
            },
            0,
        ));
        let name = inst.ext;
        for lane in lanes(mask) {
            self.err_lane = Some(lane);
            match name {
                "vloadn" | "vload_half" | "vload_halfn" | "vloada_halfn" => {
                    let off = self.val_u64(sg, args[0], lane);
                    let ptr = self.val_u64(sg, args[1], lane);
                    let n = if name == "vload_half" {
                        1
                    } else {
                        inst.w.get(4).copied().unwrap_or(rn as u32) as usize
                    };
                    let half = name != "vloadn";
                    let es = if half { 2 } else { rc.bytes };
                    let stride = if name == "vloada_halfn" && n == 3 {
                        4
                    } else {
                        n
                    };
                    let addr = ptr.wrapping_add(off.wrapping_mul((stride * es) as u64));
                    crate::memory::check_aligned(addr, es as u64, "vload")?;
                    let mut buf = vec![0u8; n * es];
                    self.read_mem(sg, lane, addr, &mut buf)?;
                    let mut out = vec![0u8; rn.max(1) * rc.bytes];
                    for i in 0..n {
                        let v = rd(&buf, es, i);
                        let v = if half {
                            f_put(f_get(v, 16), rc.bits)
                        } else {
                            v
                        };
                        wr(&mut out, rc.bytes, i, v);
                    }
                    self.set(sg, inst.res, lane, &out);
                }
                "vstoren" | "vstore_half" | "vstore_half_r" | "vstore_halfn" | "vstore_halfn_r"
                | "vstorea_halfn" | "vstorea_halfn_r" => {
                    let data_id = args[0];
                    let off = self.val_u64(sg, args[1], lane);
                    let ptr = self.val_u64(sg, args[2], lane);
                    let dty = p.vty.get(data_id as usize).copied().unwrap_or(0);
                    let (dc, dn) = ops::vcomp(p, dty)?;
                    let half = name != "vstoren";
                    let mode = if name.ends_with("_r") {
                        inst.w.get(5).copied().unwrap_or(0)
                    } else {
                        0
                    };
                    let es = if half { 2 } else { dc.bytes };
                    let stride = if name.starts_with("vstorea") && dn == 3 {
                        4
                    } else {
                        dn
                    };
                    let addr = ptr.wrapping_add(off.wrapping_mul((stride * es) as u64));
                    crate::memory::check_aligned(addr, es as u64, "vstore")?;
                    let src = self.val(sg, data_id, lane).to_vec();
                    let mut buf = vec![0u8; dn * es];
                    for i in 0..dn {
                        let v = rd(&src, dc.bytes, i);
                        let v = if half {
                            let x = f_get(v, dc.bits);
                            let nearest = f_put(x, 16);
                            if x.is_nan() {
                                nearest
                            } else {
                                round_with_mode(nearest, 16, mode, |c| {
                                    c.partial_cmp(&x).unwrap_or(std::cmp::Ordering::Equal)
                                })
                            }
                        } else {
                            v
                        };
                        wr(&mut buf, es, i, v);
                    }
                    self.write_mem(addr, &buf)?;
                }
                "modf" | "fract" | "frexp" | "remquo" | "sincos" | "lgamma_r" => {
                    let last = *args.last().ok_or_else(|| SimError::Module("ext".into()))?;
                    let ptr = self.val_u64(sg, last, lane);
                    let pty = p.vty.get(last as usize).copied().unwrap_or(0);
                    let pointee = match p.ty(pty)?.ty {
                        Ty::Pointer { pointee, .. } => pointee,
                        _ => 0,
                    };
                    let (pc, _) = ops::vcomp(p, pointee)?;
                    let x = self.val(sg, args[0], lane).to_vec();
                    let y = args
                        .get(1)
                        .filter(|_| args.len() > 2)
                        .map(|&a| self.val(sg, a, lane).to_vec())
                        .unwrap_or_default();
                    let mut out = vec![0u8; rn.max(1) * rc.bytes];
                    let mut side = vec![0u8; rn.max(1) * pc.bytes];
                    for i in 0..rn.max(1) {
                        let a = f_get(rd(&x, rc.bytes, i), rc.bits);
                        let (r, s): (f64, u64) = match name {
                            "modf" => {
                                let ip = a.trunc();
                                let fp = if a.is_infinite() {
                                    0.0f64.copysign(a)
                                } else {
                                    (a - ip).copysign(a)
                                };
                                (fp, f_put(ip, pc.bits))
                            }
                            "fract" => {
                                let fl = a.floor();
                                let fr = if a.is_nan() {
                                    a
                                } else if a.is_infinite() {
                                    0.0f64.copysign(a)
                                } else {
                                    // fmin(x - floor(x), 0x1.fffffep-1f)
                                    let lim =
                                        f_get(f_step(f_put(1.0, rc.bits), rc.bits, false), rc.bits);
                                    (a - fl).min(lim)
                                };
                                (fr, f_put(fl, pc.bits))
                            }
                            "frexp" => {
                                if a == 0.0 || a.is_nan() || a.is_infinite() {
                                    (a, 0)
                                } else {
                                    let mut e = a.abs().log2().floor() as i64 + 1;
                                    let mut m = a / 2f64.powi(e as i32);
                                    if m.abs() >= 1.0 {
                                        m /= 2.0;
                                        e += 1;
                                    } else if m.abs() < 0.5 {
                                        m *= 2.0;
                                        e -= 1;
                                    }
                                    (m, mask_bits(e as u64, pc.bits))
                                }
                            }
                            "sincos" => (a.sin(), f_put(a.cos(), pc.bits)),
                            "remquo" => {
                                let b = f_get(rd(&y, rc.bytes, i), rc.bits);
                                let q = (a / b).round_ties_even();
                                let r = a - q * b;
                                let qi = (q.abs() as i64 & 0x7f) * if q < 0.0 { -1 } else { 1 };
                                (r, mask_bits(qi as u64, pc.bits))
                            }
                            _ => return Err(SimError::Unsupported("lgamma_r".into())),
                        };
                        wr(&mut out, rc.bytes, i, f_put(r, rc.bits));
                        wr(&mut side, pc.bytes, i, s);
                    }
                    let side_len = p.ty(pointee)?.size as usize;
                    self.write_mem(ptr, &side[..side_len.min(side.len())])?;
                    self.set(sg, inst.res, lane, &out);
                }
                _ => {
                    return Err(SimError::Unsupported(format!(
                        "OpenCL.std {name} is not implemented by the simulator"
                    )))
                }
            }
        }
        Ok(())
    }
}

fn mask_bits(v: u64, bits: u32) -> u64 {
    crate::values::mask(v, bits)
}

fn is_memory_ext(name: &str) -> bool {
    matches!(
        name,
        "vloadn"
            | "vstoren"
            | "vload_half"
            | "vload_halfn"
            | "vloada_halfn"
            | "vstore_half"
            | "vstore_half_r"
            | "vstore_halfn"
            | "vstore_halfn_r"
            | "vstorea_halfn"
            | "vstorea_halfn_r"
            | "modf"
            | "fract"
            | "frexp"
            | "remquo"
            | "sincos"
            | "lgamma_r"
    )
}

/// Runs the kernel `launch.kernel` of module `m`.
pub fn run(m: &spvopt_ir::Module, launch: &Launch) -> Result<RunOutput, SimError> {
    // entry point and subgroup size
    let probe = Program::decode(m, 16)?;
    let entry_id = probe
        .entries
        .iter()
        .find(|(n, _)| *n == launch.kernel)
        .map(|e| e.1)
        .ok_or_else(|| SimError::Launch(format!("no entry point named `{}`", launch.kernel)))?;
    // The entry point's own SubgroupSize (KernelFacts: the analysis every pass uses), else the
    // launch's, else 16.
    let facts = spvopt_analysis::KernelFacts::build(m);
    let declared = facts
        .entry_by_name(&launch.kernel)
        .map_or(Fact::Unknown, |e| e.subgroup_size);
    let sgsize = match declared {
        Fact::Known(n) => n,
        Fact::Conflicting => {
            return Err(SimError::Module(format!(
                "kernel `{}` declares two different SubgroupSize execution modes",
                launch.kernel
            )))
        }
        Fact::Unknown => launch.subgroup_size.unwrap_or(16),
    };
    if sgsize == 0 || sgsize > 64 {
        return Err(SimError::Launch(format!(
            "subgroup size {sgsize} is outside the simulator's range 1..=64"
        )));
    }
    let p = if sgsize == 16 {
        probe
    } else {
        Program::decode(m, sgsize)?
    };
    let fi = *p
        .func_of_id
        .get(&entry_id)
        .ok_or_else(|| SimError::Module("entry point function missing".into()))?;
    let entry = &p.funcs[fi];
    if entry.params.len() != launch.args.len() {
        return Err(SimError::Launch(format!(
            "kernel `{}` has {} parameters, the launch gives {} arguments",
            launch.kernel,
            entry.params.len(),
            launch.args.len()
        )));
    }
    let local = launch.local_size;
    let num_groups = [
        launch.global_size[0] / local[0],
        launch.global_size[1] / local[1],
        launch.global_size[2] / local[2],
    ];
    let wg_invocs = (local[0] * local[1] * local[2]) as usize;
    if wg_invocs > 4096 {
        return Err(SimError::Launch(format!(
            "work-group of {wg_invocs} invocations exceeds the simulator's limit 4096"
        )));
    }
    let nsg = wg_invocs.div_ceil(sgsize as usize) as u32;
    let mut mach = Machine {
        p: &p,
        m,
        mem: Memory::new(),
        consts: p.consts.clone(),
        counters: Counters::default(),
        sgsize,
        local,
        num_groups,
        wg: [0; 3],
        wg_invocs,
        nsg,
        builtin_slots: Vec::new(),
        func_var_addr: Vec::new(),
        private_addr: Vec::new(),
        max_steps: launch.max_steps,
        block_layout: launch.block_layout,
        prefetched: HashSet::new(),
        err_lane: None,
        scratch: Vec::new(),
    };
    // arguments
    let mut arg_values: Vec<Vec<u8>> = Vec::new();
    let mut buffers = Vec::new();
    let mut locals = Vec::new();
    for (i, (a, &param)) in launch.args.iter().zip(&entry.params).enumerate() {
        let pty = p.vty.get(param as usize).copied().unwrap_or(0);
        let psize = p.ty(pty)?.size as usize;
        let is_ptr = matches!(p.ty(pty)?.ty, Ty::Pointer { .. });
        let v = match a {
            Arg::Buffer { bytes, .. } => {
                if !is_ptr {
                    return Err(SimError::Launch(format!(
                        "arg {i}: a buffer for a non-pointer parameter"
                    )));
                }
                let base = mach.mem.alloc_init(
                    bytes,
                    crate::memory::DEFAULT_GLOBAL_ALIGN,
                    AllocKind::Global { arg: i },
                    format!("arg{i}"),
                )?;
                buffers.push((i, base));
                base.to_le_bytes()[..psize.min(8)].to_vec()
            }
            Arg::Local(n) => {
                if !is_ptr {
                    return Err(SimError::Launch(format!(
                        "arg {i}: local memory for a non-pointer parameter"
                    )));
                }
                let base = mach.mem.alloc(
                    *n,
                    4096,
                    AllocKind::Local { group: 0 },
                    format!("local arg{i}"),
                )?;
                locals.push((base, *n));
                base.to_le_bytes()[..psize.min(8)].to_vec()
            }
            Arg::Scalar { bytes, ty } => {
                if bytes.len() != psize {
                    return Err(SimError::Launch(format!(
                        "arg {i}: scalar {ty} has {} bytes, the parameter {}",
                        bytes.len(),
                        psize
                    )));
                }
                bytes.clone()
            }
        };
        arg_values.push(v);
    }
    // module-scope variables
    for g in &p.globals {
        let size = p.ty(g.pointee)?.size as u64;
        let addr_slot = p.locs[g.id as usize];
        let set_const = |mach: &mut Machine, addr: u64| {
            if addr_slot.kind == 1 {
                let o = addr_slot.off as usize;
                let n = addr_slot.size as usize;
                mach.consts[o..o + n].copy_from_slice(&addr.to_le_bytes()[..n]);
            }
        };
        if let Some(b) = g.builtin {
            let (c, n) = ops::vcomp(&p, g.pointee)?;
            let k = mach.builtin_slots.len() as u64;
            mach.builtin_slots.push((b, c.bytes, n));
            set_const(&mut mach, BUILTIN_BASE + BUILTIN_SLOT * k);
            continue;
        }
        let init = match g.init {
            Some(i) => p.const_bytes(i).map(|b| b.to_vec()).unwrap_or_default(),
            None => Vec::new(),
        };
        let sc = g.storage;
        if sc == spirv::StorageClass::Private as u32 {
            let mut addrs = Vec::new();
            for lin in 0..wg_invocs {
                let a = mach.mem.alloc(
                    size,
                    64,
                    AllocKind::Private,
                    format!("{} (invocation {lin})", p.name_of(g.id)),
                )?;
                addrs.push(a);
            }
            mach.private_addr.push(addrs);
            continue;
        }
        let kind = if sc == spirv::StorageClass::Workgroup as u32 {
            AllocKind::Local { group: 0 }
        } else {
            AllocKind::Constant
        };
        let a = mach.mem.alloc(size.max(1), 64, kind, p.name_of(g.id))?;
        if !init.is_empty() {
            mach.mem.write(a, &init[..init.len().min(size as usize)])?;
        }
        set_const(&mut mach, a);
    }
    // Function variables: one allocation per variable and invocation
    for (idx, &t) in p.func_var_types.iter().enumerate() {
        let size = p.ty(t)?.size.max(1) as u64;
        let mut addrs = Vec::with_capacity(wg_invocs);
        for lin in 0..wg_invocs {
            addrs.push(mach.mem.alloc(
                size,
                256,
                AllocKind::Private,
                format!("Function variable #{idx} (invocation {lin})"),
            )?);
        }
        mach.func_var_addr.push(addrs);
    }
    // private initializers are written per work-group below
    let private_inits: Vec<(usize, Vec<u8>)> = p
        .globals
        .iter()
        .filter(|g| g.storage == spirv::StorageClass::Private as u32 && g.builtin.is_none())
        .enumerate()
        .filter_map(|(k, g)| {
            g.init
                .and_then(|i| p.const_bytes(i).ok())
                .map(|b| (k, b.to_vec()))
        })
        .collect();

    let entry_fs = entry.frame_size as usize;
    for gz in 0..num_groups[2] {
        for gy in 0..num_groups[1] {
            for gx in 0..num_groups[0] {
                mach.wg = [gx, gy, gz];
                mach.counters.work_groups += 1;
                mach.prefetched.clear();
                for (k, init) in &private_inits {
                    for lin in 0..wg_invocs {
                        let a = mach.private_addr[*k][lin];
                        mach.mem.write(a, init)?;
                    }
                }
                mach.run_work_group(fi, entry_fs, &arg_values)?;
            }
        }
    }
    let c = &mut mach.counters;
    c.prefetch_coverage = if c.lines_loaded_2d > 0 {
        c.lines_prefetched_before_load as f64 / c.lines_loaded_2d as f64
    } else {
        0.0
    };
    let mut out = Vec::new();
    for (i, base) in buffers {
        out.push((i, mach.mem.bytes_of(base)?.to_vec()));
    }
    Ok(RunOutput {
        buffers: out,
        counters: mach.counters,
    })
}

impl<'p> Machine<'p> {
    fn run_work_group(&mut self, fi: usize, fs: usize, args: &[Vec<u8>]) -> Result<(), SimError> {
        let p = self.p;
        let entry = &p.funcs[fi];
        let sgs_n = self.sgsize as usize;
        let mut sgs: Vec<Sg> = Vec::new();
        for s in 0..self.nsg as usize {
            let lin0 = s * sgs_n;
            let n = sgs_n.min(self.wg_invocs - lin0);
            let mut data = vec![0u8; fs * n];
            for lane in 0..n {
                for (i, &param) in entry.params.iter().enumerate() {
                    let l = p.locs[param as usize];
                    let start = lane * fs + l.off as usize;
                    let v = &args[i];
                    let k = v.len().min(l.size as usize);
                    data[start..start + k].copy_from_slice(&v[..k]);
                }
            }
            let lgs = p.lane_globals as usize * 8;
            let mut lg = vec![0u8; lgs * n];
            for lane in 0..n {
                for (k, addrs) in self.private_addr.iter().enumerate() {
                    let a = addrs[lin0 + lane];
                    lg[lane * lgs + k * 8..lane * lgs + k * 8 + 8]
                        .copy_from_slice(&a.to_le_bytes());
                }
            }
            sgs.push(Sg {
                frames: vec![Frame {
                    func: fi,
                    data,
                    fs,
                    stack: vec![Entry {
                        block: 0,
                        pc: 0,
                        rpc: EXIT,
                        mask: full_mask(n),
                    }],
                    returned: 0,
                    ret: Vec::new(),
                    ret_size: 0,
                    call_res: 0,
                }],
                n,
                lg,
                lgs,
                lin0,
                index: s as u32,
                steps: 0,
            });
            self.counters.subgroups += 1;
        }
        loop {
            let mut statuses = Vec::with_capacity(sgs.len());
            for sg in sgs.iter_mut() {
                let st = match self.run_sg(sg) {
                    Ok(s) => s,
                    Err((e, w)) => return Err(self.locate(e, w, sg)),
                };
                statuses.push(st);
            }
            let waiting: Vec<(usize, u32, u32)> = statuses
                .iter()
                .filter_map(|s| match s {
                    Status::Barrier(f, b, pc) => Some((*f, *b, *pc)),
                    Status::Done => None,
                })
                .collect();
            if waiting.is_empty() {
                return Ok(());
            }
            let first = waiting[0];
            let inst = &p.funcs[first.0].blocks[first.1 as usize].insts[first.2 as usize];
            if waiting.len() != sgs.len() || waiting.iter().any(|w| *w != first) {
                let e = uerr(format!(
                    "work-group barrier or collective not reached by every subgroup ({} of {} wait at it)",
                    waiting.iter().filter(|w| **w == first).count(),
                    sgs.len()
                ));
                let sg = &sgs[0];
                return Err(self.locate(
                    e,
                    Where {
                        func: first.0,
                        at: inst.at,
                        lane: 0,
                    },
                    sg,
                ));
            }
            if inst.op == Op::ControlBarrier {
                self.counters.barriers += 1;
            } else if let Err(e) = self.wg_collective(&mut sgs, inst) {
                let sg = &sgs[0];
                return Err(self.locate(
                    e,
                    Where {
                        func: first.0,
                        at: inst.at,
                        lane: 0,
                    },
                    sg,
                ));
            }
            for sg in sgs.iter_mut() {
                if let Some(e) = sg.frames.last_mut().and_then(|f| f.stack.last_mut()) {
                    e.pc += 1;
                }
            }
        }
    }

    fn locate(&self, e: SimError, w: Where, sg: &Sg) -> SimError {
        let func = &self.p.funcs[w.func];
        let inst = self.m.inst(w.at);
        let what = match inst.result_id() {
            Some(r) => format!("{} = {}", self.p.name_of(r.word()), inst.name()),
            None => inst.name().to_string(),
        };
        let lane = w.lane.min(sg.n.saturating_sub(1));
        let g = self.global_id(sg, lane);
        SimError::At {
            func: func.name.clone(),
            inst: what,
            invocation: g,
            error: Box::new(e),
        }
    }
}
