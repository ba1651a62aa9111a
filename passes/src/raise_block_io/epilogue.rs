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

use std::collections::HashMap;

use spirv::{Op, StorageClass};
use spvopt_analysis::block_io::BlockKind;
use spvopt_analysis::decorations::Decorations;
use spvopt_analysis::lane_map::{Coef, LaneMap};
use spvopt_analysis::types::{pointer_of, size_of};
use spvopt_analysis::{Cfg, Dominators, Loops, PostDominators, Target};
use spvopt_ir::opcode_class::{load_store, AccessDirection, OP_PREDICATED_STORE_INTEL};
use spvopt_ir::{BlockId, FuncId, Id, InstId, Module};

use super::plan::{address_fits, OperandPlan, Planner, StoreElement};
use super::staging::{is_barrier, Staging};
use super::trace::{ByteSource, Tracer};
use crate::util::{is_debug_inst, is_side_effect_free};
use spvopt_analysis::block_io::layout::Layout;

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

impl Context<'_> {
    /// The plan for the epilogue whose global stores are `stores` (the candidates), or why not.
    pub fn plan(&self, stores: &[InstId]) -> Result<EpiloguePlan, StoreRefusal> {
        let m = self.m;
        let first = *stores.first().ok_or((StoreReject::NoBarrier, None))?;
        // The Workgroup loads behind the stores, per store and byte.
        let mut sources: Vec<Vec<(InstId, u32)>> = Vec::with_capacity(stores.len());
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
        // The barrier B: the last barrier outside loops before every load behind the stores.
        let loads: Vec<InstId> = {
            let mut l: Vec<InstId> = sources.iter().flatten().map(|s| s.0).collect();
            l.sort_unstable();
            l.dedup();
            l
        };
        let before = |a: InstId, b: InstId| -> bool {
            let (ab, bb) = (m.inst_block(a), m.inst_block(b));
            match (ab, bb) {
                (Some(x), Some(y)) if x == y => index_in_block(m, a) < index_in_block(m, b),
                (Some(x), Some(y)) => self.dom.dominates(x, y),
                _ => false,
            }
        };
        let mut barrier: Option<InstId> = None;
        for &b in &m.function(self.tracer.func).blocks {
            if self.loops.innermost(b).is_some() {
                continue;
            }
            for i in m.block_insts(b) {
                if is_barrier(m, i) && loads.iter().all(|&l| before(i, l)) {
                    barrier = match barrier {
                        Some(x) if before(i, x) => Some(x),
                        _ => Some(i),
                    };
                }
            }
        }
        let barrier = barrier.ok_or((StoreReject::NoBarrier, Some(first)))?;
        let bb = m.inst_block(barrier).expect("barrier in a block");
        // The staging: Workgroup stores between the previous barrier of the block and B.
        let insts: Vec<InstId> = m.block_insts(bb).collect();
        let at = insts
            .iter()
            .position(|&i| i == barrier)
            .expect("in its block");
        let start = insts[..at]
            .iter()
            .rposition(|&i| is_barrier(m, i))
            .ok_or((StoreReject::NoBarrier, Some(barrier)))?;
        let mut staging_stores = Vec::new();
        for &i in &insts[start + 1..at] {
            let inst = m.inst(i);
            if load_store(inst.opcode()).is_some_and(|ls| ls.predicate.is_some()) {
                return Err((StoreReject::OtherMemory, Some(i)));
            }
            match inst.op() {
                Some(Op::Store) if inst.operand_id(0).is_some_and(|p| is_wg(m, p)) => {
                    staging_stores.push(i)
                }
                Some(Op::Load) => {}
                _ if is_side_effect_free(m, inst) || is_debug_inst(m, inst) => {}
                _ => return Err((StoreReject::OtherMemory, Some(i))),
            }
        }
        if staging_stores.is_empty() {
            return Err((StoreReject::NoBarrier, Some(barrier)));
        }
        // The tail: B's block after B and every block it dominates; nothing leaves it, no loop.
        let mut tail: Vec<BlockId> = Vec::new();
        for &b in &m.function(self.tracer.func).blocks {
            if b == bb || self.dom.dominates(bb, b) {
                if self.loops.innermost(b).is_some() {
                    return Err((StoreReject::NotTail, m.block_terminator(b)));
                }
                tail.push(b);
            }
        }
        for &b in &tail {
            for &s in self.cfg.succs(b) {
                if !tail.contains(&s) || s == bb {
                    return Err((StoreReject::NotTail, m.block_terminator(b)));
                }
            }
        }
        let mut staging_loads = Vec::new();
        for &b in &tail {
            for (k, i) in m.block_insts(b).enumerate() {
                if b == bb && k <= at {
                    continue;
                }
                let inst = m.inst(i);
                if stores.contains(&i) {
                    continue;
                }
                if let Some(ls) = load_store(inst.opcode()) {
                    let plain_wg_read = ls.direction == AccessDirection::Read
                        && ls.predicate.is_none()
                        && inst.operand_id(0).is_some_and(|p| is_wg(m, p));
                    if !plain_wg_read {
                        return Err((StoreReject::OtherMemory, Some(i)));
                    }
                    staging_loads.push(i);
                    continue;
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
                    ) => {}
                    _ if is_side_effect_free(m, inst) && !inst.is(Op::Load) => {}
                    _ if is_debug_inst(m, inst) => {}
                    _ => return Err((StoreReject::OtherMemory, Some(i))),
                }
            }
        }
        // Each store runs as often as B, or alone under its mask.
        let equivalent =
            |b: BlockId| (b == bb || self.dom.dominates(bb, b)) && self.pdom.post_dominates(b, bb);
        let mut masks: Vec<Option<Id>> = Vec::with_capacity(stores.len());
        for &g in stores {
            let gb = m.inst_block(g).ok_or((StoreReject::Guard, Some(g)))?;
            if !tail.contains(&gb) {
                return Err((StoreReject::NotTail, Some(g)));
            }
            // A predicated store's predicate is its mask.
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
        // The staging's writer map.
        let mut roots: Vec<Id> = Vec::new();
        for &i in staging_stores.iter().chain(&staging_loads) {
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
        let staging = Staging::with_writers(
            m,
            self.dec,
            self.lanes,
            roots,
            staging_stores.clone(),
            staging_loads.clone(),
            vec![barrier],
            barrier,
        )
        .map_err(|e| (StoreReject::NoWriter, e.at()))?;
        // The element: the staged values' component.
        let mut elem: Option<(Id, u32)> = None;
        for &s in &staging_stores {
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
        // Where every staged element goes: (store, writer lane, component) -> (address, mask).
        let n = self.lanes.lanes;
        let index_of: HashMap<InstId, usize> = staging_stores
            .iter()
            .enumerate()
            .map(|(k, &s)| (s, k))
            .collect();
        let comps: Vec<u32> = staging_stores
            .iter()
            .map(|&s| {
                let v = m.inst(s).operand_id(1).expect("a value");
                self.size(v).unwrap_or(0) / e
            })
            .collect();
        type Dest = StoreElement;
        let mut dest: Vec<Vec<Vec<Option<Dest>>>> = comps
            .iter()
            .map(|&c| vec![vec![None; c as usize]; n])
            .collect();
        for (gi, &g) in stores.iter().enumerate() {
            let ptr = m.inst(g).operand_id(0).expect("a pointer");
            let gp = self
                .lanes
                .poly(ptr)
                .ok_or((StoreReject::NoLayout, Some(g)))?;
            let bytes = &sources[gi];
            if !(bytes.len() as u32).is_multiple_of(e) {
                return Err((StoreReject::ElementSize, Some(g)));
            }
            for r in 0..n {
                let at_r = std::rc::Rc::new(gp.at_lane(r));
                for j in 0..bytes.len() / e as usize {
                    let (ld, bl) = bytes[j * e as usize];
                    let lp = m
                        .inst(ld)
                        .operand_id(0)
                        .and_then(|p| self.lanes.poly(p))
                        .ok_or((StoreReject::NoWriter, Some(ld)))?;
                    let root = staging
                        .root_of(lp)
                        .ok_or((StoreReject::NoWriter, Some(ld)))?;
                    let at = lp.constant_part().at(r) + i64::from(bl);
                    let w = staging
                        .writer(root, at)
                        .ok_or((StoreReject::NoWriter, Some(ld)))?;
                    if w.byte % e != 0 {
                        return Err((StoreReject::NoWriter, Some(ld)));
                    }
                    for t in 1..e {
                        let (ldt, blt) = bytes[j * e as usize + t as usize];
                        let ok = ldt == ld
                            && blt == bl + t
                            && staging.writer(root, at + i64::from(t)).is_some_and(|x| {
                                x.store == w.store && x.lane == w.lane && x.byte == w.byte + t
                            });
                        if !ok {
                            return Err((StoreReject::NoWriter, Some(ld)));
                        }
                    }
                    let offset = i64::from(j as u32 * e);
                    if !address_fits(&at_r, offset) {
                        return Err((StoreReject::NoLayout, Some(g)));
                    }
                    let slot =
                        &mut dest[index_of[&w.store]][w.lane as usize][(w.byte / e) as usize];
                    if slot.is_some() {
                        return Err((StoreReject::ReadTwice, Some(w.store)));
                    }
                    *slot = Some((
                        at_r.clone(),
                        offset,
                        masks[gi].map(|c| (c, true, r as u32)),
                        r as u32,
                    ));
                }
            }
        }
        for (k, per_lane) in dest.iter().enumerate() {
            if per_lane.iter().any(|c| c.iter().any(|d| d.is_none())) {
                return Err((StoreReject::NotStored, Some(staging_stores[k])));
            }
        }
        let rows = self.tiles(&staging_stores, &comps, &dest, e)?;
        // Each tile: a 2D block store of width = subgroup size, one element per lane and row.
        let sg = self.lanes.subgroup_size as u32;
        let planner = Planner {
            m,
            lanes: self.lanes,
            staging: Some(&staging),
            tracer: self.tracer,
            target: self.target,
            stored: Default::default(),
        };
        let mut tiles = Vec::new();
        for tile in rows {
            let h = tile.len() as u32;
            if !self.target.supports_2d_block(BlockKind::Store, e, sg, h, 1) {
                return Err((StoreReject::NoLayout, Some(tile[0].0)));
            }
            let lay = Layout::new(BlockKind::Store, (e, sg, h, 1), sg)
                .map_err(|_| (StoreReject::NoLayout, Some(tile[0].0)))?;
            let elems: Vec<Vec<Option<Dest>>> = (0..n)
                .map(|inv| {
                    tile.iter()
                        .map(|&(s, k)| dest[index_of[&s]][inv][k as usize].clone())
                        .collect()
                })
                .collect();
            let plan = planner
                .plan_store(&lay, elems)
                .map_err(|_| (StoreReject::NoLayout, Some(tile[0].0)))?;
            tiles.push(Tile { rows: tile, plan });
        }
        Ok(EpiloguePlan {
            barrier,
            staging_stores,
            staging_loads,
            global_stores: stores.to_vec(),
            element_type,
            tiles,
        })
    }

    fn size(&self, id: Id) -> Option<u32> {
        let ty = self.m.type_of(id)?;
        size_of(self.m, self.dec, ty).and_then(|s| u32::try_from(s).ok())
    }

    /// The staged elements of invocation 0 grouped into tiles: per tile, its rows' (store,
    /// component), top to bottom. Rows are told apart by the address's one symbolic term
    /// beyond the first element's (`pitch·rows`), columns by its constant part.
    fn tiles(
        &self,
        stores: &[InstId],
        comps: &[u32],
        dest: &[Vec<Vec<Option<StoreElement>>>],
        e: u32,
    ) -> Result<Vec<TileRows>, StoreRefusal> {
        let fail = |s: InstId| (StoreReject::NoTiles, Some(s));
        let addr = |k: usize, c: u32| {
            let (base, offset, _, _) = dest[k][0][c as usize].as_ref().expect("checked");
            base.add_constant(*offset).expect("checked by address_fits")
        };
        let origin = addr(0, 0);
        // (store, component, row term coefficient, column bytes)
        let mut at: Vec<(InstId, u32, i64, i64)> = Vec::new();
        let mut pitch_mono = None;
        for (k, &s) in stores.iter().enumerate() {
            for c in 0..comps[k] {
                let d = addr(k, c).sub(&origin).ok_or_else(|| fail(s))?;
                let mut row = 0i64;
                let mut col = 0i64;
                for (mono, coef) in d.terms() {
                    let Coef::Same(v) = coef else {
                        return Err(fail(s));
                    };
                    if mono.is_empty() {
                        col = *v;
                        continue;
                    }
                    match &pitch_mono {
                        None => pitch_mono = Some(mono.clone()),
                        Some(p) if p == mono => {}
                        Some(_) => return Err(fail(s)),
                    }
                    row = *v;
                }
                if col % i64::from(e) != 0 {
                    return Err(fail(s));
                }
                at.push((s, c, row, col / i64::from(e)));
            }
        }
        // Rows in units of the pitch: the gcd of the row coefficients.
        let g = at.iter().fold(0i64, |g, x| gcd(g, x.2.abs()));
        let g = g.max(1);
        let mut by_col: HashMap<i64, Vec<(i64, InstId, u32)>> = HashMap::new();
        for &(s, c, row, col) in &at {
            by_col.entry(col).or_default().push((row / g, s, c));
        }
        let mut cols: Vec<i64> = by_col.keys().copied().collect();
        cols.sort_unstable();
        let sg = self.lanes.subgroup_size as u32;
        // The tallest height every column splits into.
        'height: for h in [32u32, 16, 8, 4, 2, 1] {
            if !self.target.supports_2d_block(BlockKind::Store, e, sg, h, 1) {
                continue;
            }
            let mut tiles = Vec::new();
            for col in &cols {
                let mut rows = by_col[col].clone();
                rows.sort_unstable();
                if !rows.len().is_multiple_of(h as usize) {
                    continue 'height;
                }
                for chunk in rows.chunks(h as usize) {
                    if chunk
                        .iter()
                        .enumerate()
                        .any(|(i, r)| r.0 != chunk[0].0 + i as i64)
                    {
                        continue 'height;
                    }
                    tiles.push(chunk.iter().map(|r| (r.1, r.2)).collect::<Vec<_>>());
                }
            }
            return Ok(tiles);
        }
        Err(fail(stores[0]))
    }
}

fn gcd(a: i64, b: i64) -> i64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}
