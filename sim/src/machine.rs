//! The interpreter's state: the machine (program, memory, launch geometry, counters), subgroups
//! with their call frames and reconvergence stacks, and how operands are read and results written
//! per invocation. The SIMT loop is in `exec.rs`, launching a kernel in `run.rs`.

use std::collections::{BTreeMap, HashSet};

use serde::Serialize;
use spvopt_ir::spirv;

use crate::error::SimError;
use crate::memory::Memory;
use crate::program::{Loc, Program, Ty, TyInfo};
use crate::traffic::{Access, MemClass, PtrClass};
use crate::values::*;

/// Addresses of built-in variables: slot `k` at `BUILTIN_BASE + 64 k`.
pub const BUILTIN_BASE: u64 = 0x200;
pub(crate) const BUILTIN_SLOT: u64 = 64;

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
    /// Ordinary memory traffic (loads, stores, atomics, 1D block reads/writes) per storage
    /// class: messages (one per subgroup per executed instruction), bytes, distinct 64-byte
    /// lines per message; see `traffic.rs`.
    pub memory: crate::traffic::MemoryTraffic,
}

/// Result of a run: final bytes of every buffer argument (by parameter index) and counters.
#[derive(Debug, Clone)]
pub struct RunOutput {
    pub buffers: Vec<(usize, Vec<u8>)>,
    pub counters: Counters,
}

#[derive(Debug, Clone, Copy)]
pub(crate) struct Entry {
    pub(crate) block: u32,
    pub(crate) pc: u32,
    pub(crate) rpc: u32,
    pub(crate) mask: u64,
}

pub(crate) struct Frame {
    pub(crate) func: usize,
    pub(crate) data: Vec<u8>,
    pub(crate) fs: usize,
    pub(crate) stack: Vec<Entry>,
    pub(crate) returned: u64,
    pub(crate) ret: Vec<u8>,
    pub(crate) ret_size: usize,
    pub(crate) call_res: u32,
}

pub(crate) struct Sg {
    pub(crate) frames: Vec<Frame>,
    /// Invocations in this subgroup.
    pub n: usize,
    pub(crate) lg: Vec<u8>,
    pub(crate) lgs: usize,
    /// Linear local id of invocation 0.
    pub lin0: usize,
    pub index: u32,
    pub(crate) steps: u64,
    /// Arrived at a split barrier (`OpControlBarrierArriveEXT`) and not yet waited on it.
    pub(crate) split_arrived: bool,
}

pub(crate) enum Flow {
    Next,
    Call,
    Barrier,
}

pub(crate) enum Status {
    Done,
    Barrier(usize, u32, u32),
}

/// Where an error happened.
pub(crate) struct Where {
    pub(crate) func: usize,
    pub(crate) at: spvopt_ir::InstId,
    pub(crate) lane: usize,
}

pub(crate) struct Machine<'p> {
    pub p: &'p Program,
    pub m: &'p spvopt_ir::Module,
    pub mem: Memory,
    pub consts: Vec<u8>,
    pub counters: Counters,
    pub sgsize: u32,
    pub(crate) local: [u64; 3],
    pub(crate) num_groups: [u64; 3],
    pub(crate) wg: [u64; 3],
    pub(crate) wg_invocs: usize,
    pub(crate) nsg: u32,
    pub(crate) builtin_slots: Vec<(u32, usize, usize)>,
    /// Per Function variable: base address per linear local id.
    pub(crate) func_var_addr: Vec<Vec<u64>>,
    pub(crate) private_addr: Vec<Vec<u64>>,
    pub(crate) max_steps: u64,
    /// How 2D block loads/stores deal rows wider than the subgroup's dwords.
    pub block_layout: crate::block_io_2d::BlockLayout,
    /// What 2D block IO needs of its base address (launch `"block_base_alignment"`).
    pub block_base_alignment: u64,
    pub prefetched: HashSet<u64>,
    /// The 2D block address payloads created so far (`collective/payload.rs`).
    pub(crate) payloads: Vec<crate::block_payload_state::Payload>,
    pub(crate) err_lane: Option<usize>,
    pub(crate) scratch: Vec<u8>,
    /// The memory message being collected (reused).
    pub(crate) msg: crate::traffic::Message,
    /// Bytes of value frames live in the current work-group (all subgroups, all call
    /// levels), bounded by [`MAX_FRAME_BYTES`].
    pub(crate) frame_bytes: usize,
}

/// The most bytes of values (SSA results, parameters) a work-group may hold at once, over
/// all its subgroups and call levels. A frame's size comes from the module's types (an array
/// type of 2^30 elements costs one instruction), so without a bound a small module could ask
/// for any amount of host memory; real kernels need a few MiB.
pub(crate) const MAX_FRAME_BYTES: usize = 1 << 30;

impl Machine<'_> {
    /// Accounts `bytes` more of value frames (a subgroup starting or a call), or the error
    /// that the work-group's frames would pass [`MAX_FRAME_BYTES`].
    pub(crate) fn reserve_frame(&mut self, fs: usize, lanes: usize) -> Result<usize, SimError> {
        let bytes = fs.saturating_mul(lanes);
        match self.frame_bytes.checked_add(bytes) {
            Some(total) if total <= MAX_FRAME_BYTES => {
                self.frame_bytes = total;
                Ok(bytes)
            }
            _ => Err(SimError::BadAlloc {
                size: bytes as u64,
                align: 8,
                reason: "the work-group's values would pass the simulator's 1 GiB limit",
            }),
        }
    }
}

pub(crate) fn uerr(msg: impl Into<String>) -> SimError {
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
    #[inline]
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

    #[inline]
    pub(crate) fn val_u64(&self, sg: &Sg, id: u32, lane: usize) -> u64 {
        let b = self.val(sg, id, lane);
        let mut v = [0u8; 8];
        let n = b.len().min(8);
        v[..n].copy_from_slice(&b[..n]);
        u64::from_le_bytes(v)
    }

    /// Writes a result for one lane.
    #[inline]
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

    #[inline]
    pub(crate) fn const_u64(&self, id: u32) -> Result<u64, SimError> {
        let b = self.p.const_bytes(id)?;
        let mut v = [0u8; 8];
        let n = b.len().min(8);
        v[..n].copy_from_slice(&b[..n]);
        Ok(u64::from_le_bytes(v))
    }

    /// Local id (x, y, z) of linear local id `lin`.
    pub(crate) fn local_id(&self, lin: usize) -> [u64; 3] {
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

    pub(crate) fn builtin_value(&self, sg: &Sg, lane: usize, builtin: u32) -> [u64; 3] {
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

    /// How accesses through pointer `ptr` count as memory traffic (by its type's storage class).
    #[inline]
    pub(crate) fn ptr_class(&self, ptr: u32) -> PtrClass {
        let t = self.p.vty.get(ptr as usize).copied().unwrap_or(0);
        match self.p.types.get(t as usize).and_then(|t| t.as_ref()) {
            Some(TyInfo {
                ty: Ty::Pointer { storage, .. },
                ..
            }) => PtrClass::of_storage(*storage),
            _ => PtrClass::ByTarget,
        }
    }

    /// Adds one invocation's access of `len` bytes at `addr` to the message being collected.
    #[inline]
    pub(crate) fn note(&mut self, class: PtrClass, addr: u64, len: usize) {
        let c = match class {
            PtrClass::Fixed(c) => c,
            PtrClass::ByTarget => MemClass::of_alloc(self.mem.info(addr).map(|i| i.kind)),
            PtrClass::Uncounted => return,
        };
        self.msg.add(c, addr, len as u64);
    }

    /// Counts the collected message as one `access` message (per class it touched).
    #[inline]
    pub(crate) fn send(&mut self, access: Access) {
        self.msg.finish(access, &mut self.counters.memory);
    }

    pub(crate) fn write_mem(&mut self, addr: u64, data: &[u8]) -> Result<(), SimError> {
        let end = BUILTIN_BASE + BUILTIN_SLOT * self.builtin_slots.len() as u64;
        if (BUILTIN_BASE..end).contains(&addr) {
            return Err(uerr("store to a built-in Input variable"));
        }
        self.mem.write(addr, data)
    }

    /// Element alignment an access through a pointer of type `ptr_ty` needs.
    pub(crate) fn natural_align(&self, ty: u32) -> u64 {
        match self.p.ty(ty).map(|t| &t.ty) {
            Ok(Ty::Vector { elem, .. }) => self.p.ty(*elem).map(|t| t.size).unwrap_or(1) as u64,
            Ok(Ty::Int { width, .. }) | Ok(Ty::Float { width, .. }) => *width as u64 / 8,
            Ok(Ty::Pointer { .. }) => self.p.ptr_bytes as u64,
            Ok(Ty::Struct { .. }) | Ok(Ty::Array { .. }) => 1,
            _ => 1,
        }
    }
}
