//! Alias queries: which memory an instruction may write, which memory a load or a 2D block
//! load/prefetch reads, the 2D footprint of block operations, and
//! [`Alias::may_write_read_region`] — "may this instruction write memory that this load reads?".
//!
//! Regions are either byte ranges (`root + offset`, `size` bytes) or 2D block footprints: base
//! pointer, pitch, and the rectangle `[x·esize, (x + W·count)·esize)` bytes ×
//! `[y, y + H)` rows. The hardware clips a block to the declared width × height (elements
//! outside are not read/written) and the width may not exceed the pitch, so each row of a
//! footprint stays inside its own pitch-sized row of memory: two footprints with the same base
//! and pitch are disjoint when their byte-column ranges or their row ranges are disjoint.
//!
//! Soundness rules (anything not proven is "may alias"):
//! - different roots are compared with [`Provenance::roots_may_alias`] (distinct variables,
//!   non-escaped private variables, different storage classes, `NoAlias`/`Restrict`
//!   parameters);
//! - offsets and coordinates are compared by subtracting their affine forms; the difference
//!   must be a constant. The forms of two different instructions denote the same values only
//!   for values computed once: for the general query every value and counter they mention must
//!   be invariant in all loops (and offsets of scalar accesses must be subgroup-uniform, since
//!   another invocation's store counts as well); [`Alias::may_write_read_region_in_same_iteration`]
//!   lets loop counters and in-loop values cancel when both instructions run in the same
//!   iteration of their common innermost loop (e.g. straight-line code in one loop body);
//! - calls to functions we do not know, and instructions we do not know, may write anything.

use std::rc::Rc;

use spirv::Op;
use spvopt_ir::{Id, InstId, Module};

use crate::affine::AffineExpr;
use crate::block_io::{block_io, BlockIo, BlockKind};
use crate::builtins::{CalleeKind, Callees};
use crate::cache::{Analyses, Analysis, AnalysisSet};
use crate::cfg::Cfg;
use crate::constants::Constants;
use crate::decorations::Decorations;
use crate::induction::Induction;
use crate::loops::{LoopId, Loops};
use crate::operands::op_of;
use crate::provenance::{PointerInfo, Provenance};
use crate::types::{pointer_of, size_of};
use crate::uniformity::Uniformity;
use crate::value_slice::ValueSlice;
use spvopt_ir::opcode_class::{load_store, op_class, AccessDirection, OpClass};

/// The memory a 2D block operation touches.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlockFootprint {
    /// Which 2D block operation.
    pub kind: BlockKind,
    /// The base pointer's provenance.
    pub base: PointerInfo,
    /// Bytes between rows (affine form of the pitch operand).
    pub pitch: Option<AffineExpr>,
    /// First byte of each block row within its memory row (`coord.x · element size`).
    pub x_bytes: AffineExpr,
    /// First row (`coord.y`).
    pub y: AffineExpr,
    /// Bytes per block row (`W · count · element size`).
    pub row_bytes: u64,
    /// Rows (`H`).
    pub rows: u64,
}

/// How two footprints relate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BlockRelation {
    /// Nothing could be proven.
    Unknown,
    /// Same base and pitch; `b` starts `dx_bytes` right and `dy_rows` below `a`, and they share
    /// no byte.
    Disjoint {
        /// Bytes from `a`'s first column to `b`'s.
        dx_bytes: i64,
        /// Rows from `a`'s first row to `b`'s.
        dy_rows: i64,
    },
    /// Same base and pitch, and they overlap.
    Overlapping {
        /// Bytes from `a`'s first column to `b`'s.
        dx_bytes: i64,
        /// Rows from `a`'s first row to `b`'s.
        dy_rows: i64,
    },
    /// Provably different objects.
    DistinctObjects,
}

impl BlockRelation {
    /// How many bytes right of `a`'s first column `b` starts, when both start in the same row
    /// of the same surface (disjoint or overlapping); `None` otherwise.
    pub fn dx_in_same_rows(self) -> Option<i64> {
        match self {
            BlockRelation::Disjoint {
                dx_bytes,
                dy_rows: 0,
            }
            | BlockRelation::Overlapping {
                dx_bytes,
                dy_rows: 0,
            } => Some(dx_bytes),
            _ => None,
        }
    }

    /// Whether the two footprints share no byte.
    pub fn is_disjoint(self) -> bool {
        matches!(
            self,
            BlockRelation::Disjoint { .. } | BlockRelation::DistinctObjects
        )
    }

    /// `b` continues `a` horizontally: same rows, starting where `a`'s rows end.
    pub fn is_right_neighbour(self, a: &BlockFootprint, b: &BlockFootprint) -> bool {
        matches!(self, BlockRelation::Disjoint { dx_bytes, dy_rows: 0 }
            if u64::try_from(dx_bytes) == Ok(a.row_bytes) && a.rows == b.rows)
    }

    /// `b` continues `a` vertically: same columns, starting on the row after `a`'s last.
    pub fn is_below_neighbour(self, a: &BlockFootprint, b: &BlockFootprint) -> bool {
        matches!(self, BlockRelation::Disjoint { dx_bytes: 0, dy_rows }
            if u64::try_from(dy_rows) == Ok(a.rows) && a.row_bytes == b.row_bytes)
    }
}

/// A region of memory an access touches.
#[derive(Clone, Debug)]
enum Region {
    Bytes {
        base: PointerInfo,
        /// Bytes accessed from `base` (unknown: to the end of the object).
        size: Option<u64>,
    },
    Block(BlockFootprint),
}

/// What an instruction writes (or reads).
#[derive(Clone, Debug)]
enum Access {
    Nothing,
    Anything,
    Regions(Vec<Region>),
}

/// Alias analysis over provenance, induction, constants and uniformity.
pub struct Alias {
    geo: BlockGeometry,
    uni: Rc<Uniformity>,
    dec: Rc<Decorations>,
}

/// The geometry of 2D block operations: their footprints and how two footprints relate
/// ([`Alias::block_footprint`], [`Alias::block_relation_in_same_iteration`] without the rest
/// of [`Alias`]). Built from provenance, induction, constants and callees alone: no
/// uniformity, which only the may-write queries need (offsets of scalar accesses must be
/// uniform). A pass that first looks for candidates (loads with an adjacent partner, loads
/// not yet prefetched) asks for this, and for [`Alias`] and [`Uniformity`] only when it has
/// some. The answers are the same as [`Alias`]'s (which delegates here), except that
/// [`BlockGeometry::block_relation`] does not tell a non-escaped private variable from other
/// objects (`Unknown` where [`Alias`] says `DistinctObjects`; both mean "not adjacent").
///
/// From the cache ([`BlockGeometry::from_cache`]) it is computed for the values the 2D and 1D
/// block operations read and what those are computed from
/// ([`ValueSlice::of_block_operations`]): provenance and induction of that slice alone
/// ([`Provenance::build_for`], [`Induction::build_for`]), not of the whole module (unless the
/// whole module's are cached). Ask its [`BlockGeometry::provenance`] and
/// [`BlockGeometry::induction`] only about those values.
#[derive(Clone)]
pub struct BlockGeometry {
    prov: Rc<Provenance>,
    ind: Rc<Induction>,
    consts: Rc<Constants>,
    callees: Rc<Callees>,
}

impl std::fmt::Debug for BlockGeometry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BlockGeometry").finish_non_exhaustive()
    }
}

/// Cached like the analyses it is built from; its facts are its provenance's and induction's.
impl Analysis for BlockGeometry {
    const KIND: AnalysisSet = AnalysisSet::ALIAS;
    /// What its provenance is computed from, its induction, and the constants it reads.
    const DEPENDS_ON: AnalysisSet = <Provenance as Analysis>::DEPENDS_ON
        .union(AnalysisSet::INDUCTION)
        .union(AnalysisSet::CONSTANTS);
    fn fingerprint(&self) -> Vec<String> {
        let mut lines: Vec<String> = format!("{:#?}\n{:#?}", self.prov, self.ind)
            .lines()
            .map(str::to_owned)
            .collect();
        lines.sort_unstable();
        lines
    }
    fn compute(m: &Module, analyses: &mut Analyses) -> Self {
        let cfg = analyses.get::<Cfg>(m);
        let loops = analyses.get::<Loops>(m);
        let dec = analyses.get::<Decorations>(m);
        let callees = analyses.get::<Callees>(m);
        let consts = analyses.get::<Constants>(m);
        let slice = ValueSlice::of_block_operations(m, &callees);
        let ind = Rc::new(Induction::build_for(m, &cfg, loops, &slice));
        let prov = Rc::new(Provenance::build_for(m, &cfg, &ind, &dec, &slice));
        BlockGeometry {
            prov,
            ind,
            consts,
            callees,
        }
    }
}

impl BlockGeometry {
    /// The geometry of the block operations of `m`, from the cache (computed there on first
    /// request, with the analyses it needs). When the whole module's provenance and induction
    /// are cached already (an earlier pass asked for alias or uniformity), it is made of them:
    /// the same facts for the values block operations read, at no cost.
    pub fn from_cache(m: &Module, analyses: &mut Analyses) -> BlockGeometry {
        if analyses.is_cached::<Provenance>() && analyses.is_cached::<Induction>() {
            return BlockGeometry {
                prov: analyses.get::<Provenance>(m),
                ind: analyses.get::<Induction>(m),
                consts: analyses.get::<Constants>(m),
                callees: analyses.get::<Callees>(m),
            };
        }
        (*analyses.get::<BlockGeometry>(m)).clone()
    }

    /// The provenance of the pointers block operations read (see [`BlockGeometry`]).
    pub fn provenance(&self) -> &Provenance {
        &self.prov
    }

    /// Affine forms, loop variance and induction variables of the values block operations
    /// read (see [`BlockGeometry`]).
    pub fn induction(&self) -> &Induction {
        &self.ind
    }

    /// The 2D block operation `i` performs, if any.
    pub fn block_io(&self, m: &Module, i: InstId) -> Option<BlockIo> {
        block_io(m, &self.callees, i)
    }

    /// The footprint of the 2D block operation `i` (shape folded to constants, coordinate
    /// with an affine form).
    pub fn block_footprint(&self, m: &Module, i: InstId) -> Option<BlockFootprint> {
        let b = self.block_io(m, i)?;
        let [esize, w, h, count] = self.consts.block_shape(&b)?;
        let base = self.prov.info(b.base)?.clone();
        let coord = self.ind.vector_form(b.coord)?;
        let x = coord.first()?.clone()?;
        let y = coord.get(1)?.clone()?;
        Some(BlockFootprint {
            kind: b.kind,
            base,
            pitch: self.ind.form(b.mem_pitch),
            x_bytes: x.scale(i64::from(esize)),
            y,
            row_bytes: u64::from(w)
                .checked_mul(u64::from(count))?
                .checked_mul(u64::from(esize))?,
            rows: u64::from(h),
        })
    }

    /// How footprint `b` relates to footprint `a`, comparing forms as valid for any dynamic
    /// instances of the two operations.
    pub fn block_relation(&self, a: &BlockFootprint, b: &BlockFootprint) -> BlockRelation {
        self.relation(a, b, Context::AllInstances)
    }

    /// Like [`BlockGeometry::block_relation`], for operations `ia` and `ib` that execute in
    /// the same iteration of their common innermost loop (loop counters and in-loop values
    /// cancel).
    pub fn block_relation_in_same_iteration(
        &self,
        m: &Module,
        ia: InstId,
        a: &BlockFootprint,
        ib: InstId,
        b: &BlockFootprint,
    ) -> BlockRelation {
        match self.same_iteration_context(m, ia, ib) {
            Some(ctx) => self.relation(a, b, ctx),
            None => self.relation(a, b, Context::AllInstances),
        }
    }

    fn same_iteration_context(&self, m: &Module, a: InstId, b: InstId) -> Option<Context> {
        let (ba, bb) = (m.inst_block(a)?, m.inst_block(b)?);
        let loops = self.ind.loops();
        let (la, lb) = (loops.innermost(ba), loops.innermost(bb));
        (la == lb).then_some(Context::SameIteration(la))
    }

    fn relation(&self, a: &BlockFootprint, b: &BlockFootprint, ctx: Context) -> BlockRelation {
        if !self.prov.roots_may_alias(&a.base, &b.base) {
            return BlockRelation::DistinctObjects;
        }
        if a.base.root != b.base.root {
            return BlockRelation::Unknown;
        }
        let (Some(oa), Some(ob)) = (&a.base.offset, &b.base.offset) else {
            return BlockRelation::Unknown;
        };
        if self.constant_difference(ob, oa, ctx) != Some(0) {
            return BlockRelation::Unknown;
        }
        let (Some(pa), Some(pb)) = (&a.pitch, &b.pitch) else {
            return BlockRelation::Unknown;
        };
        if self.constant_difference(pb, pa, ctx) != Some(0) {
            return BlockRelation::Unknown;
        }
        let (Some(dx), Some(dy)) = (
            self.constant_difference(&b.x_bytes, &a.x_bytes, ctx),
            self.constant_difference(&b.y, &a.y, ctx),
        ) else {
            return BlockRelation::Unknown;
        };
        let size = |v: u64| i64::try_from(v).unwrap_or(i64::MAX);
        let x_disjoint = dx >= size(a.row_bytes) || dx.saturating_add(size(b.row_bytes)) <= 0;
        let y_disjoint = dy >= size(a.rows) || dy.saturating_add(size(b.rows)) <= 0;
        if x_disjoint || y_disjoint {
            BlockRelation::Disjoint {
                dx_bytes: dx,
                dy_rows: dy,
            }
        } else {
            BlockRelation::Overlapping {
                dx_bytes: dx,
                dy_rows: dy,
            }
        }
    }

    /// `b - a` when it is a constant and both forms may be compared in `ctx`.
    fn constant_difference(&self, b: &AffineExpr, a: &AffineExpr, ctx: Context) -> Option<i64> {
        if !self.comparable(a, ctx) || !self.comparable(b, ctx) {
            return None;
        }
        b.sub(a)?.as_constant()
    }

    fn comparable(&self, e: &AffineExpr, ctx: Context) -> bool {
        let loops = self.ind.loops();
        e.terms().iter().all(|t| {
            let value_ok = t.monomial.value().is_none_or(|v| match ctx {
                Context::AllInstances => self.ind.varies_in(v).is_none(),
                Context::SameIteration(common) => match self.ind.varies_in(v) {
                    None => true,
                    Some(l) => common.is_some_and(|c| loops.loop_contains_loop(l, c)),
                },
            });
            let counter_ok = t.monomial.counter().is_none_or(|l| match ctx {
                Context::AllInstances => false,
                Context::SameIteration(common) => {
                    common.is_some_and(|c| loops.loop_contains_loop(l, c))
                }
            });
            value_ok && counter_ok
        })
    }
}

/// Alias answers queries from the analyses it holds (each cached, and checked, on its own).
impl std::fmt::Debug for Alias {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Alias").finish_non_exhaustive()
    }
}

impl Analysis for Alias {
    const KIND: AnalysisSet = AnalysisSet::ALIAS;
    const DEPENDS_ON: AnalysisSet = AnalysisSet(
        AnalysisSet::CFG.0
            | AnalysisSet::DOMINATORS.0
            | AnalysisSet::LOOPS.0
            | AnalysisSet::INDUCTION.0
            | AnalysisSet::UNIFORMITY.0
            | AnalysisSet::CONSTANTS.0
            | AnalysisSet::DECORATIONS.0
            | AnalysisSet::KERNEL_FACTS.0,
    );
    /// Nothing of its own: its facts are the held analyses', each compared on its own.
    fn fingerprint(&self) -> Vec<String> {
        Vec::new()
    }
    fn compute(m: &Module, analyses: &mut Analyses) -> Self {
        let prov = analyses.get::<Provenance>(m);
        let ind = analyses.get::<Induction>(m);
        let consts = analyses.get::<Constants>(m);
        let uni = analyses.get::<Uniformity>(m);
        let dec = analyses.get::<Decorations>(m);
        let callees = analyses.get::<Callees>(m);
        Alias::with_facts(prov, ind, consts, uni, dec, callees)
    }
}

/// Which loop-variant values may cancel when comparing two instructions.
#[derive(Clone, Copy)]
enum Context {
    /// Any dynamic instances: only loop-invariant values and no counters.
    AllInstances,
    /// The same iteration of `common` (the innermost loop containing both), or no loop.
    SameIteration(Option<LoopId>),
}

impl Alias {
    /// Builds the analysis from its inputs.
    pub fn new(
        m: &Module,
        prov: Rc<Provenance>,
        ind: Rc<Induction>,
        consts: Rc<Constants>,
        uni: Rc<Uniformity>,
    ) -> Alias {
        let dec = Decorations::build(m);
        let callees = Callees::build(m, &dec);
        Alias::with_facts(prov, ind, consts, uni, Rc::new(dec), Rc::new(callees))
    }

    /// [`Alias::new`] with the module's decorations and callees already at hand (the cache's).
    pub fn with_facts(
        prov: Rc<Provenance>,
        ind: Rc<Induction>,
        consts: Rc<Constants>,
        uni: Rc<Uniformity>,
        dec: Rc<Decorations>,
        callees: Rc<Callees>,
    ) -> Alias {
        Alias {
            geo: BlockGeometry {
                prov,
                ind,
                consts,
                callees,
            },
            uni,
            dec,
        }
    }

    /// The footprints and relations of 2D block operations (what needs no uniformity).
    pub fn geometry(&self) -> &BlockGeometry {
        &self.geo
    }

    /// The provenance of every pointer.
    pub fn provenance(&self) -> &Provenance {
        &self.geo.prov
    }

    /// The 2D block operation `i` performs, if any.
    pub fn block_io(&self, m: &Module, i: InstId) -> Option<BlockIo> {
        self.geo.block_io(m, i)
    }

    /// The footprint of the 2D block operation `i` (shape folded to constants, coordinate
    /// with an affine form).
    pub fn block_footprint(&self, m: &Module, i: InstId) -> Option<BlockFootprint> {
        self.geo.block_footprint(m, i)
    }

    /// How footprint `b` relates to footprint `a`, comparing forms as valid for any dynamic
    /// instances of the two operations.
    pub fn block_relation(&self, a: &BlockFootprint, b: &BlockFootprint) -> BlockRelation {
        self.geo.block_relation(a, b)
    }

    /// Like [`Alias::block_relation`], for operations `ia` and `ib` that execute in the same
    /// iteration of their common innermost loop (loop counters and in-loop values cancel).
    pub fn block_relation_in_same_iteration(
        &self,
        m: &Module,
        ia: InstId,
        a: &BlockFootprint,
        ib: InstId,
        b: &BlockFootprint,
    ) -> BlockRelation {
        self.geo.block_relation_in_same_iteration(m, ia, a, ib, b)
    }

    /// May `store` (any instruction) write memory that `load` (a 2D block load/prefetch, or an
    /// `OpLoad`; anything else counts as reading everything) reads, in any of their dynamic
    /// instances and invocations?
    pub fn may_write_read_region(&self, m: &Module, store: InstId, load: InstId) -> bool {
        self.may_write_read(m, store, load, Context::AllInstances)
    }

    /// Like [`Alias::may_write_read_region`], for two instructions that execute in the same
    /// iteration of every loop containing them (the caller guarantees it, e.g. both are in one
    /// block or the store is between the two loads being merged). Falls back to the general
    /// query when they are not in the same innermost loop.
    pub fn may_write_read_region_in_same_iteration(
        &self,
        m: &Module,
        store: InstId,
        load: InstId,
    ) -> bool {
        let ctx = self
            .geo
            .same_iteration_context(m, store, load)
            .unwrap_or(Context::AllInstances);
        self.may_write_read(m, store, load, ctx)
    }

    /// Whether `i` may write memory at all.
    pub fn may_write(&self, m: &Module, i: InstId) -> bool {
        !matches!(self.writes(m, i), Access::Nothing)
    }

    fn may_write_read(&self, m: &Module, store: InstId, load: InstId, ctx: Context) -> bool {
        let writes = match self.writes(m, store) {
            Access::Nothing => return false,
            Access::Anything => return true,
            Access::Regions(r) => r,
        };
        let reads = match self.reads(m, load) {
            Access::Nothing => return false,
            Access::Anything => return true,
            Access::Regions(r) => r,
        };
        writes
            .iter()
            .any(|w| reads.iter().any(|r| self.regions_may_overlap(w, r, ctx)))
    }

    fn bytes(&self, m: &Module, ptr: Id) -> Region {
        let base = self.geo.prov.info(ptr).cloned().unwrap_or(PointerInfo {
            root: crate::provenance::Root::Unknown,
            offset: None,
            storage: None,
        });
        let size = m
            .type_of(ptr)
            .and_then(|t| pointer_of(m, t))
            .and_then(|(_, pointee)| size_of(m, &self.dec, pointee));
        // Offsets that differ between invocations are not comparable across invocations.
        let base = match &base.offset {
            Some(o) if !self.expr_uniform(o) => PointerInfo {
                offset: None,
                ..base
            },
            _ => base,
        };
        Region::Bytes { base, size }
    }

    fn block_region(&self, m: &Module, i: InstId, b: &BlockIo) -> Region {
        match self.block_footprint(m, i) {
            Some(f) => Region::Block(f),
            None => Region::Bytes {
                base: self.geo.prov.info(b.base).cloned().unwrap_or(PointerInfo {
                    root: crate::provenance::Root::Unknown,
                    offset: None,
                    storage: None,
                }),
                size: None,
            },
        }
    }

    fn writes(&self, m: &Module, i: InstId) -> Access {
        let inst = m.inst(i);
        let one = |r: Region| Access::Regions(vec![r]);
        if let Some(b) = self.block_io(m, i) {
            return match b.kind {
                BlockKind::Prefetch => Access::Nothing,
                BlockKind::Store => one(self.block_region(m, i, &b)),
                _ => match b.private {
                    Some(p) => one(self.bytes(m, p).into_unsized()),
                    None => Access::Anything,
                },
            };
        }
        // Plain and predicated loads and stores (a predicated access may access nothing; it
        // is counted as accessing its pointee, as the plain one).
        if let Some(ls) = load_store(inst.opcode()) {
            return match (ls.direction, inst.operand_id(ls.pointer)) {
                (AccessDirection::Read, _) => Access::Nothing,
                (AccessDirection::Write, Some(p)) => one(self.bytes(m, p)),
                (AccessDirection::Write, None) => Access::Anything,
            };
        }
        let Some(op) = op_of(inst) else {
            return Access::Anything;
        };
        match op {
            op if matches!(op, Op::AtomicStore) || op_class(op).intersects(OpClass::ATOMIC_RMW) => {
                match inst.operand_id(0) {
                    Some(p) => one(self.bytes(m, p)),
                    None => Access::Anything,
                }
            }
            Op::CopyMemory | Op::CopyMemorySized | Op::SubgroupBlockWriteINTEL => {
                match inst.operand_id(0) {
                    Some(p) => one(self.bytes(m, p).into_unsized()),
                    None => Access::Anything,
                }
            }
            Op::FunctionCall => match self.geo.callees.of_call(inst).map(|c| &c.kind) {
                Some(
                    CalleeKind::MatrixMad { .. }
                    | CalleeKind::UniformQuery
                    | CalleeKind::UniformCollective,
                ) => Access::Nothing,
                _ => Access::Anything,
            },
            Op::ExtInst | Op::ImageWrite | Op::SubgroupImageBlockWriteINTEL => Access::Anything,
            _ => Access::Nothing,
        }
    }

    fn reads(&self, m: &Module, i: InstId) -> Access {
        let one = |r: Region| Access::Regions(vec![r]);
        if let Some(b) = self.block_io(m, i) {
            if b.kind.reads_region() {
                return one(self.block_region(m, i, &b));
            }
            return Access::Anything;
        }
        let inst = m.inst(i);
        let plain_read =
            load_store(inst.opcode()).is_some_and(|ls| ls.direction == AccessDirection::Read);
        if plain_read || inst.is(Op::AtomicLoad) {
            if let Some(p) = inst.operand_id(0) {
                return one(self.bytes(m, p));
            }
        }
        Access::Anything
    }

    fn regions_may_overlap(&self, a: &Region, b: &Region, ctx: Context) -> bool {
        let (ba, bb) = (a.base(), b.base());
        if !self.geo.prov.roots_may_alias(ba, bb) {
            return false;
        }
        if ba.root != bb.root {
            return true;
        }
        match (a, b) {
            (Region::Block(fa), Region::Block(fb)) => !self.geo.relation(fa, fb, ctx).is_disjoint(),
            (Region::Bytes { base: pa, size: sa }, Region::Bytes { base: pb, size: sb }) => {
                let (Some(oa), Some(ob), Some(sa), Some(sb)) = (&pa.offset, &pb.offset, sa, sb)
                else {
                    return true;
                };
                match self.geo.constant_difference(ob, oa, ctx) {
                    // b starts d bytes after a.
                    Some(d) => {
                        let (sa, sb) = (
                            i64::try_from(*sa).unwrap_or(i64::MAX),
                            i64::try_from(*sb).unwrap_or(i64::MAX),
                        );
                        !(d >= sa || d.saturating_add(sb) <= 0)
                    }
                    None => true,
                }
            }
            _ => true,
        }
    }

    fn expr_uniform(&self, e: &AffineExpr) -> bool {
        e.terms()
            .iter()
            .all(|t| t.monomial.value().is_none_or(|v| self.uni.is_uniform(v)))
    }
}

impl Region {
    fn base(&self) -> &PointerInfo {
        match self {
            Region::Bytes { base, .. } => base,
            Region::Block(f) => &f.base,
        }
    }

    /// The same region with an unknown size (whole object from its offset on).
    fn into_unsized(self) -> Region {
        match self {
            Region::Block(f) => Region::Bytes {
                base: f.base,
                size: None,
            },
            Region::Bytes { base, .. } => Region::Bytes { base, size: None },
        }
    }
}
