//! Tiles staged through shared local memory in one loop iteration: which invocation wrote
//! each Workgroup byte a load reads.
//!
//! The pattern (Triton's no-2D and tensor-of-pointers GEMMs): in the loop body, every
//! invocation stores values to Workgroup memory, a work-group barrier follows, then invocations
//! load from Workgroup memory what (other) invocations stored. The staging is understood when:
//! - every Workgroup store and load in the loop is executed on every iteration (its block
//!   dominates the loop's latch) and addresses one root (a Workgroup parameter or variable) at
//!   an offset the lane map knows per invocation (a table, no symbolic part);
//! - one barrier (work-group execution scope, Workgroup memory semantics with acquire/release
//!   ordering) comes after every Workgroup store of the loop and before the loads that are
//!   forwarded, with no Workgroup store between it and the end of the iteration;
//! - no byte is stored twice in the iteration (by two invocations or two stores).
//!
//! Then the value an invocation loads after the barrier is exactly what its unique writer
//! stored in the same iteration (the barrier orders them; nothing else writes the byte before
//! the load), which [`Staging::writer`] gives.

use spirv::{MemorySemantics, Op, Scope, StorageClass};
use spvopt_analysis::lane_map::{Coef, LaneMap, Poly};
use spvopt_analysis::loops::LoopId;
use spvopt_analysis::types::{pointer_of, size_of};
use spvopt_analysis::{decorations::Decorations, Dominators, Loops};
use spvopt_ir::opcode_class::{load_store, AccessDirection};
use spvopt_ir::{BlockId, Id, InstId, Module};

use crate::util::{is_debug_inst, is_side_effect_free};

mod outside;

pub use outside::loads_outside_are_rewritten;

/// Why a loop's staging is not understood (one per loop, the first found).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StagingReject {
    NoLatch,
    ConditionalAccess(InstId),
    UnknownAddress(InstId),
    SeveralRoots(InstId),
    NoBarrier,
    TooLarge,
    WrittenTwice(InstId),
    GlobalWrite(InstId),
    SplitBarrier(InstId),
}

impl StagingReject {
    /// The statistics key and a short reason.
    pub fn reason(&self) -> (&'static str, &'static str) {
        match self {
            StagingReject::NoLatch => ("rejected_loop_shape", "the loop has no single latch"),
            StagingReject::ConditionalAccess(_) => (
                "rejected_conditional_staging",
                "a Workgroup access is not executed on every iteration",
            ),
            StagingReject::UnknownAddress(_) => (
                "rejected_unknown_address",
                "a Workgroup address is not a known function of the local id",
            ),
            StagingReject::SeveralRoots(_) => (
                "rejected_unknown_address",
                "Workgroup accesses of the loop use several roots",
            ),
            StagingReject::NoBarrier => (
                "rejected_no_barrier",
                "no work-group barrier separates the stores from the loads",
            ),
            StagingReject::TooLarge => {
                ("rejected_unknown_address", "the staged region is too large")
            }
            StagingReject::WrittenTwice(_) => (
                "rejected_overlapping_stores",
                "a Workgroup byte is stored twice in one iteration",
            ),
            StagingReject::GlobalWrite(_) => (
                "rejected_global_write",
                "the loop writes global memory (or calls a function)",
            ),
            StagingReject::SplitBarrier(_) => (
                "rejected_split_barrier",
                "the loop synchronises with a split barrier (arrive/wait), which the pass does \
                 not follow",
            ),
        }
    }

    /// The instruction the reason is about, if any.
    pub fn at(&self) -> Option<InstId> {
        match self {
            StagingReject::ConditionalAccess(i)
            | StagingReject::UnknownAddress(i)
            | StagingReject::SeveralRoots(i)
            | StagingReject::WrittenTwice(i)
            | StagingReject::GlobalWrite(i)
            | StagingReject::SplitBarrier(i) => Some(*i),
            _ => None,
        }
    }
}

/// One byte's writer: the store, the writing invocation, the byte of the stored value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Writer {
    pub store: InstId,
    pub lane: u32,
    pub byte: u32,
}

/// The staging of one loop (see the module documentation).
pub struct Staging {
    /// The Workgroup roots (parameters or variables) the staging addresses.
    pub roots: Vec<Id>,
    /// The Workgroup stores of the loop.
    pub stores: Vec<InstId>,
    /// The Workgroup loads of the loop after the barrier.
    pub loads: Vec<InstId>,
    /// The barriers of the loop.
    pub barriers: Vec<InstId>,
    /// The barrier after the stores.
    pub barrier: InstId,
    /// Per root: the lowest offset written and the writer of each byte from there.
    regions: Vec<(i64, Vec<Option<Writer>>)>,
}

/// Largest staged region (bytes).
const MAX_REGION: i64 = 1 << 20;

fn storage_class(m: &Module, ptr: Id) -> Option<u32> {
    pointer_of(m, m.type_of(ptr)?).map(|(sc, _)| sc)
}

/// Whether `i` is a work-group barrier that orders Workgroup memory (acquire/release).
pub fn is_barrier(m: &Module, i: InstId) -> bool {
    let inst = m.inst(i);
    if !inst.is(Op::ControlBarrier) {
        return false;
    }
    let c = |k| inst.operand_id(k).and_then(|id| m.const_int_value(id));
    let (Some(exec), Some(sem)) = (c(0), c(2)) else {
        return false;
    };
    let sem = sem as u32;
    exec == Scope::Workgroup as u64
        && sem & MemorySemantics::WORKGROUP_MEMORY.bits() != 0
        && sem
            & (MemorySemantics::ACQUIRE_RELEASE.bits()
                | MemorySemantics::SEQUENTIALLY_CONSISTENT.bits())
            != 0
}

/// What the staging scan makes of one instruction of the loop.
enum LoopInst {
    /// Neither a barrier nor a Workgroup access (and no global write).
    Other,
    /// A work-group barrier that orders Workgroup memory.
    Barrier,
    /// A Workgroup load or store through `ptr`.
    Access { ptr: Id, store: bool },
}

/// Classifies loop instruction `i`; `Err` if the loop writes global memory, synchronises
/// with a split barrier or reads Workgroup memory in a way the pass does not follow.
fn classify(m: &Module, i: InstId) -> Result<LoopInst, StagingReject> {
    let inst = m.inst(i);
    let Some(op) = inst.op() else {
        // Opcodes the `spirv` crate does not name (grammar rev 7): a predicated
        // global read is fine; a predicated write or Workgroup read is not understood.
        if let Some(ls) = load_store(inst.opcode()) {
            let wg = inst
                .operand_id(ls.pointer)
                .and_then(|p| storage_class(m, p))
                == Some(StorageClass::Workgroup as u32);
            return match ls.direction {
                AccessDirection::Write => Err(StagingReject::GlobalWrite(i)),
                AccessDirection::Read if wg => Err(StagingReject::UnknownAddress(i)),
                AccessDirection::Read => Ok(LoopInst::Other),
            };
        }
        if is_side_effect_free(m, inst) || is_debug_inst(m, inst) {
            return Ok(LoopInst::Other);
        }
        return Err(StagingReject::GlobalWrite(i));
    };
    if matches!(
        op,
        Op::ControlBarrierArriveINTEL | Op::ControlBarrierWaitINTEL
    ) {
        return Err(StagingReject::SplitBarrier(i));
    }
    let ptr = match op {
        Op::Load | Op::Store => inst.operand_id(0),
        _ => None,
    };
    let wg = ptr.and_then(|p| storage_class(m, p)) == Some(StorageClass::Workgroup as u32);
    let global_write = match op {
        Op::Store => !wg,
        Op::Load
        | Op::ControlBarrier
        | Op::MemoryBarrier
        | Op::SubgroupMatrixMultiplyAccumulateINTEL
        | Op::Subgroup2DBlockLoadINTEL
        | Op::Subgroup2DBlockLoadTransformINTEL
        | Op::Subgroup2DBlockLoadTransposeINTEL
        | Op::Subgroup2DBlockPrefetchINTEL
        | Op::SubgroupBlockPrefetchINTEL
        | Op::Branch
        | Op::BranchConditional
        | Op::Switch
        | Op::LoopMerge
        | Op::SelectionMerge
        | Op::Phi
        | Op::Line
        | Op::NoLine => false,
        _ => !is_side_effect_free(m, inst) && !is_debug_inst(m, inst),
    };
    if global_write {
        return Err(StagingReject::GlobalWrite(i));
    }
    if is_barrier(m, i) {
        return Ok(LoopInst::Barrier);
    }
    match ptr {
        Some(ptr) if wg => Ok(LoopInst::Access {
            ptr,
            store: op == Op::Store,
        }),
        _ => Ok(LoopInst::Other),
    }
}

/// The depth of block `b` in the dominator tree below `header`.
fn depth_below(dom: &Dominators, header: BlockId, b: BlockId) -> u32 {
    let mut d = 0u32;
    let mut x = b;
    while x != header {
        match dom.idom(x) {
            Some(p) => x = p,
            None => break,
        }
        d += 1;
    }
    d
}

/// The Workgroup accesses and barriers of a loop.
#[derive(Default)]
struct LoopAccesses {
    stores: Vec<InstId>,
    loads: Vec<InstId>,
    barriers: Vec<InstId>,
    /// Where each access and barrier is: (dominator-tree depth below the header, index in its
    /// block); every one dominates the latch, so this orders them.
    order: Vec<(InstId, (u32, u32))>,
    /// The Workgroup roots the accesses address (at most 8).
    roots: Vec<Id>,
}

impl LoopAccesses {
    /// The Workgroup accesses and barriers of loop `l` with latch `latch`; each must be
    /// executed on every iteration and address one root at an offset the lane map knows.
    fn scan(
        m: &Module,
        loops: &Loops,
        dom: &Dominators,
        lanes: &LaneMap,
        l: LoopId,
        header: BlockId,
        latch: BlockId,
    ) -> Result<LoopAccesses, StagingReject> {
        let mut acc = LoopAccesses::default();
        for &b in loops.blocks(l) {
            for (k, i) in m.block_insts(b).enumerate() {
                let kind = classify(m, i)?;
                if matches!(kind, LoopInst::Other) {
                    continue;
                }
                if !dom.dominates(b, latch) {
                    return Err(StagingReject::ConditionalAccess(i));
                }
                acc.order.push((i, (depth_below(dom, header, b), k as u32)));
                let LoopInst::Access { ptr, store } = kind else {
                    acc.barriers.push(i);
                    continue;
                };
                let Some(r) = lanes.poly(ptr).and_then(workgroup_root) else {
                    return Err(StagingReject::UnknownAddress(i));
                };
                if !acc.roots.contains(&r) {
                    if acc.roots.len() >= 8 {
                        return Err(StagingReject::SeveralRoots(i));
                    }
                    acc.roots.push(r);
                }
                if store {
                    acc.stores.push(i);
                } else {
                    acc.loads.push(i);
                }
            }
        }
        Ok(acc)
    }

    /// The position of access or barrier `i` (see `order`).
    fn pos(&self, i: InstId) -> Option<(u32, u32)> {
        self.order.iter().find(|(x, _)| *x == i).map(|(_, p)| *p)
    }

    /// The first barrier after every store; the loads before it are dropped (they are not
    /// forwarded).
    fn split_at_barrier(&mut self) -> Result<InstId, StagingReject> {
        let last_store = self.stores.iter().filter_map(|&s| self.pos(s)).max();
        let barrier = self
            .barriers
            .iter()
            .copied()
            .filter(|&b| last_store.is_none_or(|s| self.pos(b) > Some(s)))
            .min_by_key(|&b| self.pos(b));
        let Some(barrier) = barrier else {
            return Err(StagingReject::NoBarrier);
        };
        let bpos = self.pos(barrier);
        let loads = std::mem::take(&mut self.loads);
        self.loads = loads.into_iter().filter(|&i| self.pos(i) > bpos).collect();
        Ok(barrier)
    }
}

impl Staging {
    /// The staging of loop `l`, or why it is not understood.
    pub fn build(
        m: &Module,
        dec: &Decorations,
        loops: &Loops,
        dom: &Dominators,
        lanes: &LaneMap,
        l: LoopId,
    ) -> Result<Staging, StagingReject> {
        let Some(data) = loops.get(l) else {
            return Err(StagingReject::NoLatch);
        };
        let [latch] = data.latches[..] else {
            return Err(StagingReject::NoLatch);
        };
        let mut acc = LoopAccesses::scan(m, loops, dom, lanes, l, data.header, latch)?;
        let barrier = acc.split_at_barrier()?;
        let LoopAccesses {
            stores,
            loads,
            barriers,
            roots,
            ..
        } = acc;
        Staging::with_writers(m, dec, lanes, roots, stores, loads, barriers, barrier)
    }

    /// The staging of these accesses: `stores` write (each byte at most once) what `loads`
    /// read after `barrier`; `roots` are the Workgroup roots their addresses use.
    #[allow(clippy::too_many_arguments)]
    pub fn with_writers(
        m: &Module,
        dec: &Decorations,
        lanes: &LaneMap,
        roots: Vec<Id>,
        stores: Vec<InstId>,
        loads: Vec<InstId>,
        barriers: Vec<InstId>,
        barrier: InstId,
    ) -> Result<Staging, StagingReject> {
        // Writers of every byte, per root.
        let mut regions = Vec::new();
        for &root in &roots {
            let mut lo = i64::MAX;
            let mut hi = i64::MIN;
            let mut spans = Vec::new();
            for &s in &stores {
                let inst = m.inst(s);
                let ptr = inst.operand_id(0).expect("store pointer");
                let p = lanes.poly(ptr).expect("checked above");
                if !p.mentions(root) {
                    continue;
                }
                let val = inst.operand_id(1).expect("store value");
                let Some(size) = m.type_of(val).and_then(|t| size_of(m, dec, t)) else {
                    return Err(StagingReject::UnknownAddress(s));
                };
                // Sizes come from the module's types: bounded before any table is sized.
                if size as i64 > MAX_REGION || size == 0 {
                    return Err(StagingReject::TooLarge);
                }
                let off = p.constant_part();
                for w in 0..lanes.lanes {
                    let a = off.at(w);
                    lo = lo.min(a);
                    hi = hi.max(a.saturating_add(size as i64));
                }
                spans.push((s, off, size as i64));
            }
            if spans.is_empty() {
                regions.push((0, Vec::new()));
                continue;
            }
            if hi.saturating_sub(lo) > MAX_REGION {
                return Err(StagingReject::TooLarge);
            }
            let mut writers: Vec<Option<Writer>> = vec![None; (hi - lo) as usize];
            for (s, off, size) in spans {
                for w in 0..lanes.lanes {
                    let a = off.at(w) - lo;
                    for b in 0..size {
                        let slot = &mut writers[(a + b) as usize];
                        if slot.is_some() {
                            return Err(StagingReject::WrittenTwice(s));
                        }
                        *slot = Some(Writer {
                            store: s,
                            lane: w as u32,
                            byte: b as u32,
                        });
                    }
                }
            }
            regions.push((lo, writers));
        }
        if stores.is_empty() {
            return Err(StagingReject::NoBarrier);
        }
        Ok(Staging {
            roots,
            stores,
            loads,
            barriers,
            barrier,
            regions,
        })
    }

    /// The writer of Workgroup byte `offset` of `root`, if one store of the iteration
    /// writes it.
    pub fn writer(&self, root: Id, offset: i64) -> Option<Writer> {
        let r = self.roots.iter().position(|&x| x == root)?;
        let (lo, writers) = &self.regions[r];
        let k = offset.checked_sub(*lo)?;
        if k < 0 {
            return None;
        }
        writers.get(k as usize).copied().flatten()
    }

    /// The root a Workgroup pointer's polynomial addresses (its one atom).
    pub fn root_of(&self, p: &spvopt_analysis::lane_map::Poly) -> Option<Id> {
        self.roots.iter().copied().find(|&r| p.mentions(r))
    }

    /// Whether `load` is one of the loads after the barrier.
    pub fn is_forwardable(&self, load: InstId) -> bool {
        self.loads.contains(&load)
    }
}

/// The root of a Workgroup address: its one atom (coefficient 1), the rest a table.
pub fn workgroup_root(p: &Poly) -> Option<Id> {
    let mut root = None;
    for (mono, c) in p.terms() {
        match mono.as_slice() {
            [] => {}
            [a] if matches!(c, Coef::Same(1)) && root.is_none() => root = Some(*a),
            _ => return None,
        }
    }
    root
}
