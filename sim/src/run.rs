//! Launching a kernel: decoding the module, setting up buffers, local memory and built-ins,
//! then running the work-groups one after another and collecting the results and counters.

use std::collections::HashSet;

use spvopt_analysis::Fact;
use spvopt_ir::spirv::{self, Op};

use crate::error::SimError;
use crate::launch::{Arg, Launch};
use crate::memory::{AllocKind, Memory};
use crate::ops;
use crate::program::{Program, Ty, EXIT};

use crate::machine::*;

/// Runs the kernel `launch.kernel` of module `m`.
pub fn run(m: &spvopt_ir::Module, launch: &Launch) -> Result<RunOutput, SimError> {
    run_with_progress(m, launch, &mut |_, _| {})
}

/// [`run`], calling `progress(done, total)` after each work-group (`total`: the launch's
/// number of work-groups), e.g. for a progress bar.
pub fn run_with_progress(
    m: &spvopt_ir::Module,
    launch: &Launch,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<RunOutput, SimError> {
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
    check_work_group_size(facts.entry_by_name(&launch.kernel), launch)?;
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
        block_base_alignment: launch.block_base_alignment,
        prefetched: HashSet::new(),
        payloads: Vec::new(),
        err_lane: None,
        scratch: Vec::new(),
        msg: Default::default(),
        frame_bytes: 0,
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
    let total_groups = num_groups[0] * num_groups[1] * num_groups[2];
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
                progress(mach.counters.work_groups, total_groups);
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
    pub(crate) fn run_work_group(
        &mut self,
        fi: usize,
        fs: usize,
        args: &[Vec<u8>],
    ) -> Result<(), SimError> {
        let p = self.p;
        let entry = &p.funcs[fi];
        let sgs_n = self.sgsize as usize;
        let mut sgs: Vec<Sg> = Vec::new();
        self.frame_bytes = 0;
        for s in 0..self.nsg as usize {
            let lin0 = s * sgs_n;
            let n = sgs_n.min(self.wg_invocs - lin0);
            let mut data = vec![0u8; self.reserve_frame(fs, n)?];
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
                split_arrived: false,
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
            if matches!(
                inst.op,
                Op::ControlBarrier | Op::ControlBarrierArriveINTEL | Op::ControlBarrierWaitINTEL
            ) {
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

    pub(crate) fn locate(&self, e: SimError, w: Where, sg: &Sg) -> SimError {
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

/// Refuses a launch whose local size contradicts the kernel's declared work-group size, as a
/// driver does (`CL_INVALID_WORK_GROUP_SIZE`): `LocalSize` (`reqd_work_group_size`) must be the
/// launch's local size exactly, `MaxWorkgroupSizeINTEL` bounds it per dimension. Passes rely on
/// these declarations (the uniformity of `y`/`z` ids, subgroup counts), so the oracle must not
/// run a launch no device would.
fn check_work_group_size(
    entry: Option<&spvopt_analysis::kernel_facts::EntryFacts>,
    launch: &Launch,
) -> Result<(), SimError> {
    let Some(e) = entry else { return Ok(()) };
    let l = launch.local_size;
    let dims = |s: [u32; 3]| format!("{} {} {}", s[0], s[1], s[2]);
    match e.local_size {
        Fact::Known(s) if s.map(u64::from) != l => {
            return Err(SimError::Launch(format!(
                "kernel `{}` declares LocalSize {} (reqd_work_group_size), the launch's \
                 local_size is {l:?}: a driver refuses it (CL_INVALID_WORK_GROUP_SIZE)",
                e.name,
                dims(s)
            )))
        }
        Fact::Conflicting => {
            return Err(SimError::Module(format!(
                "kernel `{}` declares two different LocalSize execution modes",
                e.name
            )))
        }
        _ => {}
    }
    if let Fact::Known(b) = e.max_workgroup_size {
        if (0..3).any(|d| l[d] > u64::from(b[d])) {
            return Err(SimError::Launch(format!(
                "kernel `{}` declares MaxWorkgroupSizeINTEL {}, the launch's local_size is \
                 {l:?}: a driver refuses it (CL_INVALID_WORK_GROUP_SIZE)",
                e.name,
                dims(b)
            )));
        }
    }
    Ok(())
}
