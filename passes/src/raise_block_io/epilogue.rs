//! raise-block-io's store side: a result tile that a kernel writes to global memory through
//! shared local memory (Triton's no-2D and tensor-of-pointers GEMMs convert the accumulators,
//! store them to Workgroup memory, and after a barrier every invocation loads a vector of it
//! and stores that to global memory under a bounds mask) is stored with 2D block stores by the
//! invocations that hold it, right where they stored it to Workgroup memory.
//!
//! The pattern, outside loops, in one block: a barrier `B0`, Workgroup stores (the staging),
//! the barrier `B`; after `B`, in the rest of the function (blocks `B`'s block dominates, no
//! loop), Workgroup loads whose values (only moved: bitcasts, extracts, shuffles) are stored
//! to CrossWorkgroup memory, each global store either unconditional or alone in the then-block
//! of a branch on its mask (or an `OpPredicatedStoreINTEL`, its predicate the mask), in a block
//! as often executed as `B`.
//!
//! What is checked (a failed check rejects every store of the epilogue, counted under one
//! reason): the lane map knows every address per invocation; each byte a global store writes
//! was stored to Workgroup memory by exactly one invocation's staging store (the staging's
//! writer map), whole elements of the staging's element size, and every staged element reaches
//! exactly one global element; the rest of the function reads and writes no other memory and
//! calls nothing; the staged elements group into tiles of `H` rows of one element per lane
//! (the layout of a 2D block store of width = subgroup size) that `plan.rs` matches like a load
//! (`base + (Y(s) + row)·pitch + (X(s) + col)·E`, masks exactly the surface bounds).
//!
//! Why it is correct: the global memory after the kernel is the same. Every element the kernel
//! stored is the value its writer held, now stored by the writer itself to the same address;
//! an element the mask excluded is outside the block's surface, which a 2D block store leaves
//! untouched (SPV_INTEL_2d_block_io, "Out-of-Bounds Behavior"); nothing between the new and
//! the old place of the stores reads or writes global memory, and the new place executes
//! exactly when the old one did (`B` and the stores' blocks are control-equivalent, uniform
//! over the work-group).

mod tiles;

use spirv::{Op, StorageClass};
use spvopt_analysis::decorations::Decorations;
use spvopt_analysis::lane_map::LaneMap;
use spvopt_analysis::types::{pointer_of, size_of};
use spvopt_analysis::{Cfg, Dominators, Loops, PostDominators, Target};
use spvopt_ir::opcode_class::{load_store, AccessDirection, OP_PREDICATED_STORE_INTEL};
use spvopt_ir::{BlockId, FuncId, Id, InstId, Module};

use super::plan::OperandPlan;
use super::staging::{is_barrier, Staging};
use super::trace::{ByteSource, Tracer};
use crate::util::{is_debug_inst, is_side_effect_free};
use tiles::GlobalStores;

/// Why an epilogue's stores are not raised.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StoreReject {
    NoBarrier,
    NotTail,
    OtherMemory,
    Guard,
    NotForwarded,
    NoWriter,
    ReadTwice,
    NotStored,
    ElementSize,
    NoTiles,
    NoLayout,
}

impl StoreReject {
    /// Statistics key and reason.
    pub fn reason(self) -> (&'static str, &'static str) {
        match self {
            StoreReject::NoBarrier => (
                "store_rejected_no_barrier",
                "no barrier pair encloses the Workgroup stores in one block",
            ),
            StoreReject::NotTail => (
                "store_rejected_not_tail",
                "the code after the barrier is not the loop-free tail of the function",
            ),
            StoreReject::OtherMemory => (
                "store_rejected_other_memory",
                "the code after the barrier accesses other memory or calls a function",
            ),
            StoreReject::Guard => (
                "store_rejected_guard",
                "a global store is not executed as often as the barrier or only under its mask",
            ),
            StoreReject::NotForwarded => (
                "store_rejected_not_forwarded",
                "a stored value is not moved unchanged from Workgroup loads",
            ),
            StoreReject::NoWriter => (
                "store_rejected_no_writer",
                "a Workgroup byte a global store writes is not stored whole by one invocation",
            ),
            StoreReject::ReadTwice => (
                "store_rejected_read_twice",
                "a staged element reaches global memory twice",
            ),
            StoreReject::NotStored => (
                "store_rejected_not_stored",
                "a staged element never reaches global memory",
            ),
            StoreReject::ElementSize => (
                "store_rejected_element_size",
                "the staged elements have no common size a 2D block store takes",
            ),
            StoreReject::NoTiles => (
                "store_rejected_no_tiles",
                "the staged elements do not form whole rows of 2D block store tiles",
            ),
            StoreReject::NoLayout => (
                "store_rejected_no_layout",
                "no 2D block store of the target writes the tiles' elements to their addresses",
            ),
        }
    }
}

/// A reason an epilogue's stores are not raised, with the global store it is about (if any).
pub type StoreRefusal = (StoreReject, Option<InstId>);

/// The rows of one tile, top to bottom: per row, the staging store and component the lanes
/// hold there.
pub type TileRows = Vec<(InstId, u32)>;

/// One 2D block store: per row, the staging store and component the lanes hold there.
#[derive(Clone, Debug)]
pub struct Tile {
    pub rows: TileRows,
    pub plan: OperandPlan,
}

/// How an epilogue is stored with 2D block stores.
#[derive(Clone, Debug)]
pub struct EpiloguePlan {
    /// The barrier after the staging stores (the block stores go right before it).
    pub barrier: InstId,
    pub staging_stores: Vec<InstId>,
    pub staging_loads: Vec<InstId>,
    /// The global stores the block stores replace.
    pub global_stores: Vec<InstId>,
    /// The staged element type (the block's element).
    pub element_type: Id,
    pub tiles: Vec<Tile>,
}

/// The store-side statistics key of a load-side rejection key the plans share.
pub fn store_key(key: &'static str) -> &'static str {
    match key {
        "rejected_not_available" => "store_rejected_not_available",
        "rejected_surface_not_invariant" => "store_rejected_surface_not_invariant",
        _ => "store_rejected_other",
    }
}

fn storage_class(m: &Module, ptr: Id) -> Option<u32> {
    pointer_of(m, m.type_of(ptr)?).map(|(sc, _)| sc)
}

fn is_wg(m: &Module, ptr: Id) -> bool {
    storage_class(m, ptr) == Some(StorageClass::Workgroup as u32)
}

fn is_global(m: &Module, ptr: Id) -> bool {
    storage_class(m, ptr) == Some(StorageClass::CrossWorkgroup as u32)
}

/// The global stores outside loops whose value comes from a Workgroup load: the candidates.
pub fn candidates(m: &Module, tracer: &Tracer, loops: &Loops, f: FuncId) -> Vec<InstId> {
    let mut out = Vec::new();
    for &b in &m.function(f).blocks {
        if loops.innermost(b).is_some() {
            continue;
        }
        for i in m.block_insts(b) {
            let inst = m.inst(i);
            let store = inst.is(Op::Store) || inst.opcode() == OP_PREDICATED_STORE_INTEL;
            if !store || !inst.operand_id(0).is_some_and(|p| is_global(m, p)) {
                continue;
            }
            let Some(v) = inst.operand_id(1) else {
                continue;
            };
            if let Ok(ByteSource::Load { load, .. }) = tracer.trace(v, 0) {
                if m.inst(load).operand_id(0).is_some_and(|p| is_wg(m, p)) {
                    out.push(i);
                }
            }
        }
    }
    out
}

/// What planning needs.
pub struct Context<'a> {
    pub m: &'a Module,
    pub dec: &'a Decorations,
    pub cfg: &'a Cfg,
    pub dom: &'a Dominators,
    pub pdom: &'a PostDominators,
    pub loops: &'a Loops,
    pub lanes: &'a LaneMap,
    pub tracer: &'a Tracer<'a>,
    pub target: &'a Target,
}

/// Position of `i` in its block.
fn index_in_block(m: &Module, i: InstId) -> usize {
    let b = m.inst_block(i).expect("an instruction in a block");
    m.block_insts(b).position(|x| x == i).unwrap_or(0)
}

/// The bytes a global store writes, in order: the Workgroup load and byte each comes from.
type LoadedBytes = Vec<(InstId, u32)>;

/// The staging stores of an epilogue: the Workgroup stores between the block's previous
/// barrier and `B`.
struct StagingWindow {
    /// `B`'s block.
    block: BlockId,
    /// `B`'s position in its block.
    at: usize,
    stores: Vec<InstId>,
}

/// The loop-free rest of the function after `B`.
struct Tail {
    /// `B`'s block and every block it dominates.
    blocks: Vec<BlockId>,
    /// The Workgroup loads after `B` (the staging's loads).
    loads: Vec<InstId>,
}

impl Context<'_> {
    /// The plan for the epilogue whose global stores are `stores` (the candidates), or why not.
    pub fn plan(&self, stores: &[InstId]) -> Result<EpiloguePlan, StoreRefusal> {
        let first = *stores.first().ok_or((StoreReject::NoBarrier, None))?;
        let bytes = self.loaded_bytes(stores)?;
        let barrier = self.last_barrier_before(&bytes, first)?;
        let window = self.staging_window(barrier)?;
        let tail = self.tail(&window, stores)?;
        let masks = self.masks(stores, window.block, &tail.blocks)?;
        let staging = self.staging(barrier, &window.stores, &tail.loads)?;
        let (element_type, e) = self.element(&window.stores)?;
        let globals = GlobalStores {
            stores,
            bytes,
            masks,
        };
        let dest = self.destinations(&globals, &staging, &window.stores, e)?;
        let tiles = self.tile_plans(&staging, &dest, e)?;
        Ok(EpiloguePlan {
            barrier,
            staging_stores: window.stores,
            staging_loads: tail.loads,
            global_stores: stores.to_vec(),
            element_type,
            tiles,
        })
    }

    /// The Workgroup loads behind the stores, per store and byte.
    fn loaded_bytes(&self, stores: &[InstId]) -> Result<Vec<LoadedBytes>, StoreRefusal> {
        let m = self.m;
        let mut sources = Vec::with_capacity(stores.len());
        for &g in stores {
            let v = m
                .inst(g)
                .operand_id(1)
                .ok_or((StoreReject::NotForwarded, Some(g)))?;
            let size = self.size(v).ok_or((StoreReject::NotForwarded, Some(g)))?;
            let mut bytes = Vec::with_capacity(size as usize);
            for t in 0..size {
                match self.tracer.trace(v, t) {
                    Ok(ByteSource::Load { load, byte })
                        if m.inst(load).operand_id(0).is_some_and(|p| is_wg(m, p)) =>
                    {
                        bytes.push((load, byte))
                    }
                    _ => return Err((StoreReject::NotForwarded, Some(g))),
                }
            }
            sources.push(bytes);
        }
        Ok(sources)
    }

    /// Whether `a` runs before `b`: earlier in the same block, or in a dominating block.
    fn precedes(&self, a: InstId, b: InstId) -> bool {
        let m = self.m;
        match (m.inst_block(a), m.inst_block(b)) {
            (Some(x), Some(y)) if x == y => index_in_block(m, a) < index_in_block(m, b),
            (Some(x), Some(y)) => self.dom.dominates(x, y),
            _ => false,
        }
    }

    /// The barrier B: the last barrier outside loops before every load behind the stores.
    fn last_barrier_before(
        &self,
        sources: &[LoadedBytes],
        first: InstId,
    ) -> Result<InstId, StoreRefusal> {
        let m = self.m;
        let mut loads: Vec<InstId> = sources.iter().flatten().map(|s| s.0).collect();
        loads.sort_unstable();
        loads.dedup();
        let mut barrier: Option<InstId> = None;
        for &b in &m.function(self.tracer.func).blocks {
            if self.loops.innermost(b).is_some() {
                continue;
            }
            for i in m.block_insts(b) {
                if is_barrier(m, i) && loads.iter().all(|&l| self.precedes(i, l)) {
                    barrier = match barrier {
                        Some(x) if self.precedes(i, x) => Some(x),
                        _ => Some(i),
                    };
                }
            }
        }
        barrier.ok_or((StoreReject::NoBarrier, Some(first)))
    }

    /// The staging: Workgroup stores between the previous barrier of the block and B; the
    /// window holds nothing else with a side effect.
    fn staging_window(&self, barrier: InstId) -> Result<StagingWindow, StoreRefusal> {
        let m = self.m;
        let bb = m.inst_block(barrier).expect("barrier in a block");
        let insts: Vec<InstId> = m.block_insts(bb).collect();
        let at = insts
            .iter()
            .position(|&i| i == barrier)
            .expect("in its block");
        let start = insts[..at]
            .iter()
            .rposition(|&i| is_barrier(m, i))
            .ok_or((StoreReject::NoBarrier, Some(barrier)))?;
        let mut stores = Vec::new();
        for &i in &insts[start + 1..at] {
            let inst = m.inst(i);
            if load_store(inst.opcode()).is_some_and(|ls| ls.predicate.is_some()) {
                return Err((StoreReject::OtherMemory, Some(i)));
            }
            match inst.op() {
                Some(Op::Store) if inst.operand_id(0).is_some_and(|p| is_wg(m, p)) => {
                    stores.push(i)
                }
                Some(Op::Load) => {}
                _ if is_side_effect_free(m, inst) || is_debug_inst(m, inst) => {}
                _ => return Err((StoreReject::OtherMemory, Some(i))),
            }
        }
        if stores.is_empty() {
            return Err((StoreReject::NoBarrier, Some(barrier)));
        }
        Ok(StagingWindow {
            block: bb,
            at,
            stores,
        })
    }

    /// The tail: B's block after B and every block it dominates; nothing leaves it, no loop;
    /// it reads only Workgroup memory and writes only with the global `stores`.
    fn tail(&self, window: &StagingWindow, stores: &[InstId]) -> Result<Tail, StoreRefusal> {
        let m = self.m;
        let bb = window.block;
        let mut blocks: Vec<BlockId> = Vec::new();
        for &b in &m.function(self.tracer.func).blocks {
            if b == bb || self.dom.dominates(bb, b) {
                if self.loops.innermost(b).is_some() {
                    return Err((StoreReject::NotTail, m.block_terminator(b)));
                }
                blocks.push(b);
            }
        }
        for &b in &blocks {
            for &s in self.cfg.succs(b) {
                if !blocks.contains(&s) || s == bb {
                    return Err((StoreReject::NotTail, m.block_terminator(b)));
                }
            }
        }
        let mut loads = Vec::new();
        for &b in &blocks {
            for (k, i) in m.block_insts(b).enumerate() {
                if (b == bb && k <= window.at) || stores.contains(&i) {
                    continue;
                }
                if self.is_staging_load(i)? {
                    loads.push(i);
                }
            }
        }
        Ok(Tail { blocks, loads })
    }

    /// Whether tail instruction `i` is a Workgroup load; `Err` if it accesses other memory
    /// or has another side effect.
    fn is_staging_load(&self, i: InstId) -> Result<bool, StoreRefusal> {
        let m = self.m;
        let inst = m.inst(i);
        if let Some(ls) = load_store(inst.opcode()) {
            let plain_wg_read = ls.direction == AccessDirection::Read
                && ls.predicate.is_none()
                && inst.operand_id(0).is_some_and(|p| is_wg(m, p));
            if !plain_wg_read {
                return Err((StoreReject::OtherMemory, Some(i)));
            }
            return Ok(true);
        }
        match inst.op() {
            Some(
                Op::Branch
                | Op::BranchConditional
                | Op::SelectionMerge
                | Op::Return
                | Op::Phi
                | Op::Line
                | Op::NoLine,
            ) => Ok(false),
            _ if is_side_effect_free(m, inst) && !inst.is(Op::Load) => Ok(false),
            _ if is_debug_inst(m, inst) => Ok(false),
            _ => Err((StoreReject::OtherMemory, Some(i))),
        }
    }

    /// Each store's mask (`None`: unmasked): it runs as often as B (a predicated store's
    /// predicate is its mask), or alone in the then-block of a branch on its mask.
    fn masks(
        &self,
        stores: &[InstId],
        bb: BlockId,
        tail: &[BlockId],
    ) -> Result<Vec<Option<Id>>, StoreRefusal> {
        let m = self.m;
        let equivalent =
            |b: BlockId| (b == bb || self.dom.dominates(bb, b)) && self.pdom.post_dominates(b, bb);
        let mut masks: Vec<Option<Id>> = Vec::with_capacity(stores.len());
        for &g in stores {
            let gb = m.inst_block(g).ok_or((StoreReject::Guard, Some(g)))?;
            if !tail.contains(&gb) {
                return Err((StoreReject::NotTail, Some(g)));
            }
            let predicate = (m.inst(g).opcode() == OP_PREDICATED_STORE_INTEL)
                .then(|| m.inst(g).operand_id(2))
                .flatten();
            if equivalent(gb) {
                masks.push(predicate);
                continue;
            }
            if predicate.is_some() {
                return Err((StoreReject::Guard, Some(g)));
            }
            let [p] = self.cfg.preds(gb) else {
                return Err((StoreReject::Guard, Some(g)));
            };
            let term = m.block_terminator(*p).map(|t| m.inst(t));
            let label = m.block_label(gb);
            match term {
                Some(t)
                    if t.is(Op::BranchConditional)
                        && t.operand_id(1) == Some(label)
                        && t.operand_id(2) != Some(label)
                        && equivalent(*p) =>
                {
                    masks.push(t.operand_id(0));
                }
                _ => return Err((StoreReject::Guard, Some(g))),
            }
        }
        Ok(masks)
    }

    /// The staging's writer map over the Workgroup roots its stores and loads address.
    fn staging(
        &self,
        barrier: InstId,
        stores: &[InstId],
        loads: &[InstId],
    ) -> Result<Staging, StoreRefusal> {
        let m = self.m;
        let mut roots: Vec<Id> = Vec::new();
        for &i in stores.iter().chain(loads) {
            let ptr = m.inst(i).operand_id(0).expect("a pointer");
            let root = self
                .lanes
                .poly(ptr)
                .and_then(super::staging::workgroup_root)
                .ok_or((StoreReject::NoWriter, Some(i)))?;
            if !roots.contains(&root) {
                roots.push(root);
            }
        }
        Staging::with_writers(
            m,
            self.dec,
            self.lanes,
            roots,
            stores.to_vec(),
            loads.to_vec(),
            vec![barrier],
            barrier,
        )
        .map_err(|e| (StoreReject::NoWriter, e.at()))
    }

    /// The element: the staged values' common component type and its size in bytes
    /// (1, 2, 4 or 8).
    fn element(&self, stores: &[InstId]) -> Result<(Id, u32), StoreRefusal> {
        let m = self.m;
        let mut elem: Option<(Id, u32)> = None;
        for &s in stores {
            let v = m.inst(s).operand_id(1).expect("a value");
            let ty = m.type_of(v).ok_or((StoreReject::ElementSize, Some(s)))?;
            let comp = match m.def_inst(ty) {
                Some(t) if t.is(Op::TypeVector) => {
                    t.operand_id(0).ok_or((StoreReject::ElementSize, Some(s)))?
                }
                _ => ty,
            };
            let e = size_of(m, self.dec, comp).ok_or((StoreReject::ElementSize, Some(s)))? as u32;
            match elem {
                None => elem = Some((comp, e)),
                Some((c, _)) if c == comp => {}
                _ => return Err((StoreReject::ElementSize, Some(s))),
            }
        }
        let (element_type, e) = elem.ok_or((StoreReject::ElementSize, None))?;
        if !matches!(e, 1 | 2 | 4 | 8) {
            return Err((StoreReject::ElementSize, None));
        }
        Ok((element_type, e))
    }

    fn size(&self, id: Id) -> Option<u32> {
        let ty = self.m.type_of(id)?;
        size_of(self.m, self.dec, ty).and_then(|s| u32::try_from(s).ok())
    }
}
