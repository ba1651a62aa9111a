//! The 2D block load that produces an MMA operand assembled from staged (or gathered) global
//! elements: per invocation and operand element, the global address and mask behind it
//! (through the staging's writer map), matched against the data layouts of 2D block loads.
//!
//! A layout matches when, in every subgroup `s`, the element the load would deal to lane `l`
//! at operand position `e` — block element (row, col) — is the one the kernel assembles there:
//! `address(s, l, e) = base + (Y(s) + row)·pitch + (X(s) + col)·E` with `base` a CrossWorkgroup
//! pointer atom, `pitch` one lane-invariant term, `Y(s)`, `X(s)` lane-invariant polynomials.
//! Masks (the condition of Triton's masked loads) must be exactly the block's bounds: each
//! conjunct is a row bound (`Yr < b`, `Yr ≥ 0`), a column bound of the loaded vector (`c0 < b`,
//! `c0 ≥ 0` where the vector starts at column `c0 ≡ 0 mod V`; exact when the bound is a
//! multiple of `V`, checked at run time) or a work-group-uniform condition (kept as a select).

use spirv::StorageClass;
use spvopt_analysis::block_io::BlockKind;
use spvopt_analysis::fxhash::FxHashMap;
use spvopt_analysis::lane_map::{Coef, LaneMap, Mono, Poly};
use spvopt_analysis::types::pointer_of;
use spvopt_analysis::Target;
use spvopt_ir::{Id, InstId, Module};
use std::rc::Rc;

use super::obligation::{discharge, discharge_all, Discharge, Facts, Obligation};
use super::staging::Staging;
use super::trace::{ByteSource, Tracer};

mod bounds;
mod implied_masks;
pub use super::obligation::SATURATE_AT;
pub use super::reject::OperandReject;
use spvopt_analysis::block_io::layout::Layout;

/// The largest MMA operand (bytes per invocation) the planner takes: four times what any
/// device's MMA reads (8 rows of 32 bytes over a subgroup of 8: 32 bytes).
const MAX_OPERAND_BYTES: u64 = 128;

/// One staged element behind an operand position of one invocation.
#[derive(Clone, Debug)]
struct Element {
    /// Byte address (64-bit, lane-invariant polynomial: this invocation's), as a polynomial
    /// shared by the elements of one load and invocation plus this element's byte offset
    /// (`Element::address`; the sum is checked to have at most `MAX_TERMS` terms).
    base: Rc<Poly>,
    offset: i64,
    /// The global load's condition, its polarity and the writing invocation.
    mask: Option<(Id, bool, u32)>,
    /// Further conditions of a mask nested over several branches (at the same invocation).
    also: [Option<(Id, bool)>; 2],
    /// The invocation whose load read the element.
    writer: u32,
}

impl Element {
    fn new(
        base: Rc<Poly>,
        offset: i64,
        mask: Option<(Id, bool, u32)>,
        also: [Option<(Id, bool)>; 2],
        writer: u32,
    ) -> Option<Element> {
        // `base + offset` must be a polynomial (at most `MAX_TERMS` terms).
        if !address_fits(&base, offset) {
            return None;
        }
        Some(Element {
            base,
            offset,
            mask,
            also,
            writer,
        })
    }

    /// The byte address.
    fn address(&self) -> Poly {
        self.base
            .add_constant(self.offset)
            .expect("checked by Element::new")
    }

    /// Whether the address is `start + c` (`Poly::is_sum_with_constant` of the address): the
    /// same as the base being `start + (c - offset)`, both sums being polynomials (the
    /// address is one, and equal polynomials have the same terms).
    fn is_at(&self, start: &Poly, c: i64) -> bool {
        self.base
            .is_sum_with_constant(start, c.wrapping_sub(self.offset))
    }
}

/// An element a 2D block store writes: its global byte address as a polynomial (shared) plus
/// a byte offset (the sum has at most `MAX_TERMS` terms of a polynomial: [`address_fits`]), its mask
/// (condition, polarity, the invocation it is evaluated in) and the invocation whose address
/// it is.
pub type StoreElement = (Rc<Poly>, i64, Option<(Id, bool, u32)>, u32);

/// Whether `base + offset` is a polynomial (`Poly::add_constant` gives one).
pub fn address_fits(base: &Poly, offset: i64) -> bool {
    base.add_constant_fits(offset)
}

/// How one MMA operand is loaded with a 2D block load.
#[derive(Clone, Debug)]
pub struct OperandPlan {
    pub kind: BlockKind,
    /// Element size, width, height, count.
    pub shape: (u32, u32, u32, u32),
    /// Operand elements per block element: 1, or 2 (4) for 16-bit (8-bit) elements read in
    /// pairs (quads) by a 32-bit transposed load (the x origin is in operand elements).
    pub pack: u32,
    /// The CrossWorkgroup base pointer.
    pub base: Id,
    /// Bytes between rows (lane-invariant, 64-bit).
    pub pitch: Poly,
    /// Surface rows and width in bytes (64-bit polynomials).
    pub height: Poly,
    pub width: Poly,
    /// Origin per subgroup: rows and columns (elements).
    pub y: Vec<Poly>,
    pub x: Vec<Poly>,
    /// Work-group-uniform mask conjuncts (the value is 0 when one is false).
    pub uniform_conds: Vec<(Id, bool)>,
    /// Work-group-uniform mask conjuncts the block operation implies (`plan/implied_masks.rs`):
    /// taken out of `uniform_conds`, no select needed.
    pub implied_conds: Vec<Id>,
    /// What the run-time check must establish for this block (`obligation.rs`): the
    /// obligations left after discharging the rest, distinct, in order.
    pub obligations: Vec<Obligation>,
    /// The lane map's remainder assumptions a bound comes from: (remainder, 0 rows / 1 columns).
    pub assumed: Vec<(Id, usize)>,
    /// Whether the row (0) and column (1) origin are computed in 64 bits and saturated to
    /// `±2^30` before the block operation takes 32 bits (`obligation/origins.rs`).
    pub saturate: [bool; 2],
}

/// The planner of one loop.
pub struct Planner<'a> {
    pub m: &'a Module,
    pub lanes: &'a LaneMap,
    /// The loop's staging; `None` for operands gathered straight from global memory.
    pub staging: Option<&'a Staging>,
    pub tracer: &'a Tracer<'a>,
    pub target: &'a Target,
    /// Traced sources of stored bytes, by (store, byte).
    pub stored: FxHashMap<(InstId, u32), ByteSource>,
}

fn load_pointer(m: &Module, load: InstId) -> Option<Id> {
    m.inst(load).operand_id(0)
}

fn is_global(m: &Module, ptr: Id) -> bool {
    m.type_of(ptr)
        .and_then(|t| pointer_of(m, t))
        .is_some_and(|(sc, _)| sc == StorageClass::CrossWorkgroup as u32)
}

impl Planner<'_> {
    /// The elements behind operand `x` (element size `e`): per invocation, per operand element.
    fn elements(&mut self, x: Id, e: u32) -> Result<Vec<Vec<Option<Element>>>, OperandReject> {
        let size = self
            .m
            .type_of(x)
            .and_then(|t| spvopt_analysis::types::size_of(self.m, self.tracer.dec, t))
            .ok_or(OperandReject::NotStaged)?;
        // The operand's size comes from the module: bounded before anything is sized from it
        // (an MMA operand of any device is at most 64 bytes per invocation).
        if !matches!(e, 1 | 2 | 4 | 8) || size > MAX_OPERAND_BYTES || size % u64::from(e) != 0 {
            return Err(OperandReject::OverBudget);
        }
        let n = size as u32 / e;
        // Where each operand element is read: from Workgroup memory (the staging), or
        // straight from a global load (a gather); the same for every invocation.
        let mut reads = Vec::with_capacity(n as usize);
        let mut direct: Vec<Option<ByteSource>> = vec![None; n as usize];
        for k in 0..n {
            let first = self
                .tracer
                .trace(x, k * e)
                .map_err(|_| OperandReject::NotStaged)?;
            let bytes_follow = |first: ByteSource, this: &Self| -> Result<(), OperandReject> {
                for j in 1..e {
                    let b = this
                        .tracer
                        .trace(x, k * e + j)
                        .map_err(|_| OperandReject::NotStaged)?;
                    let next = first.shifted(j).unwrap_or(first);
                    if b != next {
                        return Err(OperandReject::NotStaged);
                    }
                }
                Ok(())
            };
            match first {
                ByteSource::Undef => reads.push(None),
                ByteSource::Load { load, byte }
                    if self.staging.is_some_and(|st| st.is_forwardable(load)) =>
                {
                    bytes_follow(first, self)?;
                    reads.push(Some((load, byte)));
                }
                ByteSource::Load { load, .. } | ByteSource::Masked { load, .. }
                    if load_pointer(self.m, load).is_some_and(|p| is_global(self.m, p)) =>
                {
                    bytes_follow(first, self)?;
                    direct[k as usize] = Some(first);
                    reads.push(None);
                }
                _ => return Err(OperandReject::NotStaged),
            }
        }
        if direct.iter().any(Option::is_some) {
            return self.gathered(&direct);
        }
        let mut out = Vec::with_capacity(self.lanes.lanes);
        // A global load's address at one invocation, once.
        let mut lane_addr: FxHashMap<(InstId, u32), Rc<Poly>> = FxHashMap::default();
        // Per read: the staging, the root and the offsets of its Workgroup address, which do
        // not depend on the invocation (found at the read's first use, the first invocation,
        // so that the first reason to reject is the same as invocation by invocation).
        let mut staged: Vec<Option<(&Staging, Id, Coef)>> = vec![None; reads.len()];
        for r in 0..self.lanes.lanes {
            let mut row = Vec::with_capacity(n as usize);
            for (read, known) in reads.iter().zip(staged.iter_mut()) {
                let Some((load, byte)) = *read else {
                    row.push(None);
                    continue;
                };
                let (st, root, off) = match known {
                    Some(k) => k,
                    None => {
                        let ptr = load_pointer(self.m, load).ok_or(OperandReject::NotStaged)?;
                        let pp = self.lanes.poly(ptr).ok_or(OperandReject::NotStaged)?;
                        let st = self.staging.ok_or(OperandReject::NoWriter)?;
                        let root = st.root_of(pp).ok_or(OperandReject::NoWriter)?;
                        known.insert((st, root, pp.constant_part()))
                    }
                };
                let (st, root) = (*st, *root);
                let at = off.at(r) + i64::from(byte);
                let w = st.writer(root, at).ok_or(OperandReject::NoWriter)?;
                for j in 1..e {
                    let wj = st
                        .writer(root, at + i64::from(j))
                        .ok_or(OperandReject::NoWriter)?;
                    if wj.store != w.store || wj.lane != w.lane || wj.byte != w.byte + j {
                        return Err(OperandReject::NoWriter);
                    }
                }
                let src = self.stored_source(w.store, w.byte)?;
                for j in 1..e {
                    let sj = self.stored_source(w.store, w.byte + j)?;
                    let consistent = src.shifted(j) == Some(sj);
                    if !consistent {
                        return Err(OperandReject::NotGlobal);
                    }
                }
                let (gl, gb, mask, also) = match src {
                    ByteSource::Load { load, byte } => (load, byte, None, [None, None]),
                    ByteSource::Masked {
                        load,
                        byte,
                        cond,
                        polarity,
                        also,
                    } => (load, byte, Some((cond, polarity, w.lane)), also),
                    _ => return Err(OperandReject::NotGlobal),
                };
                let gptr = load_pointer(self.m, gl).ok_or(OperandReject::NotGlobal)?;
                if !is_global(self.m, gptr) {
                    return Err(OperandReject::NotGlobal);
                }
                let Some(gp) = self.lanes.poly(gptr) else {
                    return Err(OperandReject::NotGlobal);
                };
                let at_lane = match lane_addr.entry((gl, w.lane)) {
                    std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
                    std::collections::hash_map::Entry::Vacant(e) => {
                        e.insert(Rc::new(gp.at_lane(w.lane as usize)))
                    }
                };
                let el = Element::new(at_lane.clone(), i64::from(gb), mask, also, w.lane)
                    .ok_or(OperandReject::NotGlobal)?;
                row.push(Some(el));
            }
            out.push(row);
        }
        Ok(out)
    }

    /// The elements of an operand every invocation gathers itself: element `k` of invocation
    /// `r` is what `direct[k]`'s global load reads at `r` (under its mask at `r`).
    fn gathered(
        &self,
        direct: &[Option<ByteSource>],
    ) -> Result<Vec<Vec<Option<Element>>>, OperandReject> {
        let n = self.lanes.lanes;
        let mut at_lane: FxHashMap<(InstId, usize), Rc<Poly>> = FxHashMap::default();
        let mut out = Vec::with_capacity(n);
        for r in 0..n {
            let mut row = Vec::with_capacity(direct.len());
            for d in direct {
                let (load, byte, mask, also) = match *d {
                    None => {
                        row.push(None);
                        continue;
                    }
                    Some(ByteSource::Load { load, byte }) => (load, byte, None, [None, None]),
                    Some(ByteSource::Masked {
                        load,
                        byte,
                        cond,
                        polarity,
                        also,
                    }) => (load, byte, Some((cond, polarity, r as u32)), also),
                    Some(_) => return Err(OperandReject::NotGlobal),
                };
                let gptr = load_pointer(self.m, load).ok_or(OperandReject::NotGlobal)?;
                let gp = self.lanes.poly(gptr).ok_or(OperandReject::NotGlobal)?;
                let base = at_lane
                    .entry((load, r))
                    .or_insert_with(|| Rc::new(gp.at_lane(r)));
                let el = Element::new(base.clone(), i64::from(byte), mask, also, r as u32)
                    .ok_or(OperandReject::NotGlobal)?;
                row.push(Some(el));
            }
            out.push(row);
        }
        Ok(out)
    }

    fn stored_source(&mut self, store: InstId, byte: u32) -> Result<ByteSource, OperandReject> {
        if let Some(s) = self.stored.get(&(store, byte)) {
            return Ok(*s);
        }
        let val = self
            .m
            .inst(store)
            .operand_id(1)
            .ok_or(OperandReject::NotGlobal)?;
        let s = self
            .tracer
            .trace(val, byte)
            .map_err(|_| OperandReject::NotGlobal)?;
        self.stored.insert((store, byte), s);
        Ok(s)
    }

    /// The plan for operand `x` of element size `e`, trying `kinds` in order.
    pub fn plan(
        &mut self,
        x: Id,
        e: u32,
        kinds: &[BlockKind],
    ) -> Result<OperandPlan, OperandReject> {
        let elems = self.elements(x, e)?;
        let bytes = elems.first().map_or(0, |r| r.len() as u32) * e;
        let sg = self.lanes.subgroup_size as u32;
        let mut last = OperandReject::NoLayout;
        for &kind in kinds {
            // 2D block IO transposes only 32- and 64-bit elements: 16-bit (8-bit) operands
            // whose pairs (quads) are adjacent in memory are read as 32-bit elements (what
            // Triton's 2D builds do for a transposed B: read_transpose_32b).
            let packs: &[u32] = if kind == BlockKind::LoadTranspose && e < 4 {
                &[1, 4 / e]
            } else {
                &[1]
            };
            for &pack in packs {
                for w in [8u32, 16, 32, 64] {
                    for h in 1..=32u32 {
                        let be = e * pack;
                        if !self.target.supports_2d_load(kind, be, w, h, 1) {
                            continue;
                        }
                        let Ok(lay) = Layout::new(kind, (be, w, h, 1), sg) else {
                            continue;
                        };
                        if lay.values_per_block * lay.value_bytes != bytes {
                            continue;
                        }
                        match self.try_layout(&lay, &elems, pack) {
                            Ok(p) => return Ok(p),
                            Err(r) => {
                                if r != OperandReject::NoLayout {
                                    last = r;
                                }
                            }
                        }
                    }
                }
            }
        }
        Err(last)
    }

    /// The plan of a 2D block store whose element `v` in invocation `i` is `elems[i][v]`
    /// (see [`StoreElement`]).
    pub fn plan_store(
        &self,
        lay: &Layout,
        elems: Vec<Vec<Option<StoreElement>>>,
    ) -> Result<OperandPlan, OperandReject> {
        let elems: Vec<Vec<Option<Element>>> = elems
            .into_iter()
            .map(|row| {
                row.into_iter()
                    .map(|x| {
                        x.and_then(|(base, offset, mask, writer)| {
                            Element::new(base, offset, mask, [None, None], writer)
                        })
                    })
                    .collect()
            })
            .collect();
        self.try_layout(lay, &elems, 1)
    }

    /// Matches `elems` (operand elements of `lay.element_size / pack` bytes) against `lay`;
    /// with `pack` > 1 each block element is `pack` adjacent operand elements (block column
    /// `c` is operand column `pack·c + j`).
    fn try_layout(
        &self,
        lay: &Layout,
        elems: &[Vec<Option<Element>>],
        pack: u32,
    ) -> Result<OperandPlan, OperandReject> {
        let e = lay.element_size / pack;
        let place = placement(lay, pack)?;
        let (pitch, origins) = self.pitch_and_origins(lay, &place, elems, e)?;
        let SplitOrigins { base, ys, xs } = self.split_origins(&pitch, &origins, e)?;
        // The target's column alignment of the origin (2D block IO: x even for 2-byte, a
        // multiple of 4 for 1-byte elements).
        let need = match e {
            1 => 2,
            2 => 1,
            _ => 0,
        }
        .max(pack.trailing_zeros());
        self.require(Obligation::ColumnAligned {
            origins: xs.clone(),
            zeros: need,
        })?;
        let bd = self.bounds(lay, &place, elems, &ys, &xs)?;
        let span = implied_masks::BlockSpan {
            ys: &ys,
            xs: &xs,
            rows: place.iter().map(|p| p.2 + 1).max().unwrap_or(0),
            cols: place.iter().map(|p| p.3 + 1).max().unwrap_or(0),
        };
        let (uniform_conds, implied_conds) = self.implied_conditions(&span, bd.uniform);
        let width = bd.width.scale(i64::from(e));
        let obligations = surface_obligations(
            SurfaceOf {
                base,
                align: self.target.block_base_alignment().max(1),
                width: &width,
                pitch: &pitch,
                height: &bd.height,
                multiple_bytes: bd.multiple * lay.element_size / pack,
            },
            bd.at_least,
            [ys.clone(), xs.clone()],
            bd.nonneg_checks,
        );
        let (obligations, saturate) = discharge_all(&self.facts(), obligations)?;
        Ok(OperandPlan {
            kind: lay.kind,
            shape: (lay.element_size, lay.width, lay.height, 1),
            pack,
            base,
            pitch,
            height: bd.height,
            width,
            y: ys,
            x: xs,
            uniform_conds,
            implied_conds,
            obligations,
            saturate,
            assumed: bd.assumed,
        })
    }

    /// The rows' stride and each subgroup's origin (the address of block element (0, 0)):
    /// every element's address must be its row's start plus its column's bytes (`e` bytes per
    /// operand element).
    fn pitch_and_origins(
        &self,
        lay: &Layout,
        place: &[(usize, usize, i64, i64)],
        elems: &[Vec<Option<Element>>],
        e: u32,
    ) -> Result<(Poly, Vec<Poly>), OperandReject> {
        let sg = lay.subgroup_size as usize;
        let n_sub = self.lanes.lanes / sg;
        let n = self.lanes.lanes;
        let find = |r: i64, c: i64| {
            place
                .iter()
                .find(|p| p.2 == r && p.3 == c)
                .map(|p| (p.0, p.1))
        };
        let (l00, e00) = find(0, 0).ok_or(OperandReject::NoLayout)?;
        let at = |s: usize, l: usize, k: usize| elems[s * sg + l][k].as_ref();
        let mut pitch: Option<Poly> = None;
        let mut origins = Vec::with_capacity(n_sub);
        for s in 0..n_sub {
            let p00 = at(s, l00, e00).ok_or(OperandReject::NoLayout)?.address();
            if lay.height > 1 {
                let (l10, e10) = find(1, 0).ok_or(OperandReject::NoLayout)?;
                let p10 = &at(s, l10, e10).ok_or(OperandReject::NoLayout)?.address();
                let d = p10.sub(&p00).ok_or(OperandReject::NoLayout)?;
                match &pitch {
                    None => pitch = Some(d),
                    Some(p) if p.same_as(&d) => {}
                    Some(_) => return Err(OperandReject::NoLayout),
                }
            }
            let pit = pitch.clone().unwrap_or_else(|| Poly::constant(0, 64, n));
            // Each element's address is its row's start plus the column's bytes; the rows'
            // starts once per subgroup (rows are below the block height).
            let mut row_starts: Vec<Option<Poly>> = vec![None; lay.height as usize];
            for &(l, k, row, col) in place {
                let Some(el) = at(s, l, k) else { continue };
                let start = match &mut row_starts[row as usize] {
                    Some(p) => p,
                    slot => slot.insert(p00.add(&pit.scale(row)).ok_or(OperandReject::NoLayout)?),
                };
                if !el.is_at(start, col * i64::from(e)) {
                    return Err(OperandReject::NoLayout);
                }
            }
            origins.push(p00);
        }
        let pitch = pitch.ok_or(OperandReject::NotAPitch)?;
        Ok((pitch, origins))
    }

    /// The origins as `base + Y·pitch + X·E`: the CrossWorkgroup base and per subgroup the
    /// row `Y` and column `X` (operand elements of `e` bytes).
    fn split_origins(
        &self,
        pitch: &Poly,
        origins: &[Poly],
        e: u32,
    ) -> Result<SplitOrigins, OperandReject> {
        let n = self.lanes.lanes;
        // base + Y·pitch + X·E.
        let [(pm, Coef::Same(pc))] = pitch.terms() else {
            return Err(OperandReject::NotAPitch);
        };
        if *pc <= 0 {
            return Err(OperandReject::NotAPitch);
        }
        // A pitch known when the kernel is compiled (hand-written sizes): a term is a row's
        // when its coefficient is a multiple of it, a column's otherwise; a constant is split
        // into whole rows and the columns left (`0 ≤ col < pitch`). The split only decides
        // which masks the bounds must match (`bounds`, which rejects a split the masks do not
        // state); the address `base + Y·pitch + X·E` is the origin's either way.
        let constant_pitch = pm.is_empty();
        let mut base = None;
        let mut ys = Vec::new();
        let mut xs = Vec::new();
        for o in origins {
            let mut y = Poly::constant(0, 64, n);
            let mut x = Poly::constant(0, 64, n);
            for (mono, c) in o.terms() {
                let Coef::Same(c) = c else {
                    return Err(OperandReject::NotAPitch);
                };
                if mono.len() == 1 && *c == 1 && is_global(self.m, mono[0]) {
                    if *base.get_or_insert(mono[0]) != mono[0] {
                        return Err(OperandReject::NotAPitch);
                    }
                    continue;
                }
                if constant_pitch && mono.is_empty() {
                    let (rows, cols) = (c.div_euclid(*pc), c.rem_euclid(*pc));
                    if cols % i64::from(e) != 0 {
                        return Err(OperandReject::NotAPitch);
                    }
                    y = y.add_constant(rows).ok_or(OperandReject::NotAPitch)?;
                    x = x
                        .add_constant(cols / i64::from(e))
                        .ok_or(OperandReject::NotAPitch)?;
                    continue;
                }
                let row_term = if constant_pitch {
                    (c % pc == 0).then(|| mono.clone())
                } else {
                    divide(mono, pm)
                };
                if let Some(rest) = row_term {
                    if c % pc != 0 {
                        return Err(OperandReject::NotAPitch);
                    }
                    y = y
                        .add(&monomial(rest, c / pc, n))
                        .ok_or(OperandReject::NotAPitch)?;
                } else {
                    if c % i64::from(e) != 0 {
                        return Err(OperandReject::NotAPitch);
                    }
                    x = x
                        .add(&monomial(mono.clone(), c / i64::from(e), n))
                        .ok_or(OperandReject::NotAPitch)?;
                }
            }
            ys.push(y);
            xs.push(x);
        }
        let base = base.ok_or(OperandReject::NotAPitch)?;
        Ok(SplitOrigins { base, ys, xs })
    }

    /// What discharging reads.
    pub(super) fn facts(&self) -> Facts<'_> {
        Facts {
            m: self.m,
            dec: self.tracer.dec,
            lanes: self.lanes,
            func: self.tracer.func,
        }
    }

    /// An obligation that must hold without a run-time check (proven, or the rejection).
    pub(super) fn require(&self, ob: Obligation) -> Result<(), OperandReject> {
        match discharge(&ob, &self.facts()) {
            Discharge::Proven => Ok(()),
            Discharge::Rejected(r) => Err(r),
            Discharge::RunTime | Discharge::Reduced(_) | Discharge::Saturated => {
                Err(OperandReject::NoLayout)
            }
        }
    }
}

/// A planned block's surface, as the run-time check sees it.
struct SurfaceOf<'p> {
    base: Id,
    /// The target's base alignment (bytes).
    align: u32,
    /// Surface width, pitch (bytes) and height (rows), 64-bit.
    width: &'p Poly,
    pitch: &'p Poly,
    height: &'p Poly,
    /// The column bound must be a multiple of this many bytes (1: none).
    multiple_bytes: u32,
}

/// A planned block's obligations, in the order the run-time check evaluates them: the
/// surface's legality, its column bound multiple, the trip counts `at_least` (`a ≥ b`), the
/// origins' range (`origins`: rows, columns) and the column-origin atoms `nonneg` must be ≥ 0.
fn surface_obligations(
    s: SurfaceOf,
    at_least: Vec<(Poly, Poly)>,
    origins: [Vec<Poly>; 2],
    nonneg: Vec<Id>,
) -> Vec<Obligation> {
    let mut obs = vec![
        Obligation::BaseAligned {
            base: s.base,
            align: s.align,
        },
        Obligation::SurfaceWidth {
            width: s.width.clone(),
        },
        Obligation::SurfacePitch {
            pitch: s.pitch.clone(),
            width: s.width.clone(),
        },
        Obligation::SurfaceHeight {
            height: s.height.clone(),
        },
        Obligation::SurfaceSize {
            height: s.height.clone(),
            pitch: s.pitch.clone(),
        },
    ];
    if s.multiple_bytes > 1 {
        obs.push(Obligation::ColumnBoundMultiple {
            width: s.width.clone(),
            bytes: s.multiple_bytes,
        });
    }
    obs.extend(
        at_least
            .into_iter()
            .map(|(lhs, rhs)| Obligation::AtLeast { lhs, rhs }),
    );
    for (dim, origins) in origins.into_iter().enumerate() {
        obs.push(Obligation::OriginFits {
            dim,
            origins,
            nonneg: nonneg.clone(),
        });
    }
    obs.extend(
        nonneg
            .into_iter()
            .map(|atom| Obligation::NonNegative { atom }),
    );
    obs
}

/// Block origins as `base + Y·pitch + X·E`: the base pointer, rows and columns per subgroup.
struct SplitOrigins {
    base: Id,
    ys: Vec<Poly>,
    xs: Vec<Poly>,
}

/// Where the layout puts each (lane, operand element): its block row and column, in operand
/// elements (`pack` operand elements per block element), as (lane, element, row, column).
fn placement(lay: &Layout, pack: u32) -> Result<Vec<(usize, usize, i64, i64)>, OperandReject> {
    let sg = lay.subgroup_size as usize;
    let per_value = lay.value_bytes / lay.element_size;
    // (lane, operand element) -> (row, col) of the block, in operand elements.
    let mut place = Vec::new();
    for l in 0..sg as u32 {
        for v in 0..lay.values_per_block {
            for j in 0..per_value {
                let (row, col) = lay.element(lay.position(l, v), j);
                if row >= lay.height || col >= lay.width {
                    return Err(OperandReject::NoLayout);
                }
                for q in 0..pack {
                    place.push((
                        l as usize,
                        ((v * per_value + j) * pack + q) as usize,
                        row as i64,
                        (col * pack + q) as i64,
                    ));
                }
            }
        }
    }
    Ok(place)
}

/// `mono / div` as a monomial, when `div`'s atoms are all in `mono`.
fn divide(mono: &Mono, div: &Mono) -> Option<Mono> {
    let mut rest = mono.clone();
    for a in div {
        let i = rest.iter().position(|x| x == a)?;
        rest.remove(i);
    }
    Some(rest)
}

fn monomial(m: Mono, c: i64, lanes: usize) -> Poly {
    let mut p = Poly::constant(c, 64, lanes);
    for a in m {
        p = p
            .mul(&Poly::atom(a, 64, lanes))
            .expect("a monomial of degree ≤ 3");
    }
    p
}
