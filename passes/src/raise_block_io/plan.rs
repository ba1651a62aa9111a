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

use std::collections::HashMap;

use spirv::{Op, StorageClass};
use spvopt_analysis::block_io::BlockKind;
use spvopt_analysis::lane_map::{Coef, LaneMap, LaneValue, Mono, Poly};
use spvopt_analysis::types::pointer_of;
use spvopt_analysis::Target;
use spvopt_ir::{Id, InstId, Module};

use super::staging::Staging;
use super::trace::{ByteSource, Tracer};
use crate::legalize::lower_block_io::Layout;

/// Why an operand is not raised.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OperandReject {
    NotStaged,
    NoWriter,
    NotGlobal,
    NoLayout,
    NotAPitch,
    MaskNotABound,
    NoBound,
    MixedMasks,
    Misaligned,
}

impl OperandReject {
    /// Statistics key and reason.
    pub fn reason(self) -> (&'static str, &'static str) {
        match self {
            OperandReject::NotStaged => (
                "rejected_not_staged",
                "the operand is not assembled from Workgroup loads of the staging",
            ),
            OperandReject::NoWriter => (
                "rejected_no_writer",
                "a Workgroup byte the operand reads is not stored in the iteration",
            ),
            OperandReject::NotGlobal => (
                "rejected_not_global",
                "a staged value does not come from a global load",
            ),
            OperandReject::NoLayout => (
                "rejected_no_layout",
                "no 2D block load of the target deals the elements in the operand's order",
            ),
            OperandReject::NotAPitch => (
                "rejected_not_a_pitch",
                "the row stride is not one uniform term or the origin does not split into rows and columns",
            ),
            OperandReject::MaskNotABound => (
                "rejected_mask_not_a_bound",
                "a mask conjunct is not a row or column bound",
            ),
            OperandReject::NoBound => (
                "rejected_no_bound",
                "the elements are not masked by both a row and a column bound",
            ),
            OperandReject::MixedMasks => (
                "rejected_mixed_masks",
                "the elements' masks disagree on the bounds",
            ),
            OperandReject::Misaligned => (
                "rejected_misaligned",
                "the column origin is not a multiple of the element pairs the target needs",
            ),
        }
    }
}

/// One staged element behind an operand position of one invocation.
#[derive(Clone, Debug)]
struct Element {
    /// Byte address (64-bit, lane-invariant polynomial: this invocation's).
    addr: Poly,
    /// The global load's condition, its polarity and the writing invocation.
    mask: Option<(Id, bool, u32)>,
    /// The invocation whose load read the element.
    writer: u32,
}

/// How one MMA operand is loaded with a 2D block load.
#[derive(Clone, Debug)]
pub struct OperandPlan {
    pub kind: BlockKind,
    /// Element size, width, height, count.
    pub shape: (u32, u32, u32, u32),
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
    /// The column bound must be a multiple of this many elements (checked at run time).
    pub width_multiple: u32,
    /// Atoms of the column origin that must be ≥ 0 (checked at run time).
    pub nonneg_checks: Vec<Id>,
    /// `(a, b)`: `a ≥ b` must hold (checked at run time; loop trip counts).
    pub at_least: Vec<(Poly, Poly)>,
}

/// The planner of one loop.
pub struct Planner<'a> {
    pub m: &'a Module,
    pub lanes: &'a LaneMap,
    pub staging: &'a Staging,
    pub tracer: &'a Tracer<'a>,
    pub target: &'a Target,
    /// Traced sources of stored bytes, by (store, byte).
    pub stored: HashMap<(InstId, u32), ByteSource>,
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
            .ok_or(OperandReject::NotStaged)? as u32;
        let n = size / e;
        // Where each operand element is read from Workgroup memory (same for every invocation).
        let mut reads = Vec::with_capacity(n as usize);
        for k in 0..n {
            let first = self
                .tracer
                .trace(x, k * e)
                .map_err(|_| OperandReject::NotStaged)?;
            match first {
                ByteSource::Undef => reads.push(None),
                ByteSource::Load { load, byte } if self.staging.is_forwardable(load) => {
                    for j in 1..e {
                        let b = self
                            .tracer
                            .trace(x, k * e + j)
                            .map_err(|_| OperandReject::NotStaged)?;
                        if b != (ByteSource::Load {
                            load,
                            byte: byte + j,
                        }) {
                            return Err(OperandReject::NotStaged);
                        }
                    }
                    reads.push(Some((load, byte)));
                }
                _ => return Err(OperandReject::NotStaged),
            }
        }
        let mut out = Vec::with_capacity(self.lanes.lanes);
        for r in 0..self.lanes.lanes {
            let mut row = Vec::with_capacity(n as usize);
            for read in &reads {
                let Some((load, byte)) = *read else {
                    row.push(None);
                    continue;
                };
                let ptr = load_pointer(self.m, load).ok_or(OperandReject::NotStaged)?;
                let pp = self.lanes.poly(ptr).ok_or(OperandReject::NotStaged)?;
                let root = self.staging.root_of(pp).ok_or(OperandReject::NoWriter)?;
                let off = pp.constant_part();
                let at = off.at(r) + i64::from(byte);
                let w = self
                    .staging
                    .writer(root, at)
                    .ok_or(OperandReject::NoWriter)?;
                for j in 1..e {
                    let wj = self
                        .staging
                        .writer(root, at + i64::from(j))
                        .ok_or(OperandReject::NoWriter)?;
                    if wj.store != w.store || wj.lane != w.lane || wj.byte != w.byte + j {
                        return Err(OperandReject::NoWriter);
                    }
                }
                let src = self.stored_source(w.store, w.byte)?;
                for j in 1..e {
                    let sj = self.stored_source(w.store, w.byte + j)?;
                    let consistent = match (src, sj) {
                        (
                            ByteSource::Load { load: a, byte: b },
                            ByteSource::Load { load: c, byte: d },
                        ) => a == c && d == b + j,
                        (
                            ByteSource::Masked {
                                load: a,
                                byte: b,
                                cond: c1,
                                polarity: p1,
                            },
                            ByteSource::Masked {
                                load: c,
                                byte: d,
                                cond: c2,
                                polarity: p2,
                            },
                        ) => a == c && d == b + j && c1 == c2 && p1 == p2,
                        _ => false,
                    };
                    if !consistent {
                        return Err(OperandReject::NotGlobal);
                    }
                }
                let (gl, gb, mask) = match src {
                    ByteSource::Load { load, byte } => (load, byte, None),
                    ByteSource::Masked {
                        load,
                        byte,
                        cond,
                        polarity,
                    } => (load, byte, Some((cond, polarity, w.lane))),
                    _ => return Err(OperandReject::NotGlobal),
                };
                let gptr = load_pointer(self.m, gl).ok_or(OperandReject::NotGlobal)?;
                if !is_global(self.m, gptr) {
                    return Err(OperandReject::NotGlobal);
                }
                let Some(gp) = self.lanes.poly(gptr) else {
                    return Err(OperandReject::NotGlobal);
                };
                let addr = gp
                    .at_lane(w.lane as usize)
                    .add(&Poly::constant(i64::from(gb), 64, self.lanes.lanes))
                    .ok_or(OperandReject::NotGlobal)?;
                row.push(Some(Element {
                    addr,
                    mask,
                    writer: w.lane,
                }));
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
            for w in [8u32, 16, 32, 64] {
                for h in 1..=32u32 {
                    if !self.target.supports_2d_load(kind, e, w, h, 1) {
                        continue;
                    }
                    let Ok(lay) = Layout::new(kind, (e, w, h, 1), sg) else {
                        continue;
                    };
                    if lay.values_per_block * lay.value_bytes != bytes {
                        continue;
                    }
                    match self.try_layout(&lay, &elems) {
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
        Err(last)
    }

    fn try_layout(
        &self,
        lay: &Layout,
        elems: &[Vec<Option<Element>>],
    ) -> Result<OperandPlan, OperandReject> {
        let e = lay.element_size;
        let sg = lay.subgroup_size as usize;
        let per_value = lay.value_bytes / e;
        let lanes = self.lanes.lanes;
        let n_sub = lanes / sg;
        // (lane, operand element) -> (row, col) of the block.
        let mut place = Vec::new();
        for l in 0..sg as u32 {
            for v in 0..lay.values_per_block {
                for j in 0..per_value {
                    let (row, col) = lay.element(lay.position(l, v), j);
                    if row >= lay.height || col >= lay.width {
                        return Err(OperandReject::NoLayout);
                    }
                    place.push((
                        l as usize,
                        (v * per_value + j) as usize,
                        row as i64,
                        col as i64,
                    ));
                }
            }
        }
        let n = lanes;
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
            let p00 = at(s, l00, e00).ok_or(OperandReject::NoLayout)?.addr.clone();
            if lay.height > 1 {
                let (l10, e10) = find(1, 0).ok_or(OperandReject::NoLayout)?;
                let p10 = &at(s, l10, e10).ok_or(OperandReject::NoLayout)?.addr;
                let d = p10.sub(&p00).ok_or(OperandReject::NoLayout)?;
                match &pitch {
                    None => pitch = Some(d),
                    Some(p) if p.same_as(&d) => {}
                    Some(_) => return Err(OperandReject::NoLayout),
                }
            }
            let pit = pitch.clone().unwrap_or_else(|| Poly::constant(0, 64, n));
            for &(l, k, row, col) in &place {
                let Some(el) = at(s, l, k) else { continue };
                let want = p00
                    .add(&pit.scale(row))
                    .and_then(|p| p.add(&Poly::constant(col * i64::from(e), 64, n)))
                    .ok_or(OperandReject::NoLayout)?;
                if !want.same_as(&el.addr) {
                    return Err(OperandReject::NoLayout);
                }
            }
            origins.push(p00);
        }
        let pitch = pitch.ok_or(OperandReject::NotAPitch)?;
        // base + Y·pitch + X·E.
        let [(pm, Coef::Same(pc))] = pitch.terms() else {
            return Err(OperandReject::NotAPitch);
        };
        if pm.is_empty() || *pc <= 0 {
            return Err(OperandReject::NotAPitch);
        }
        let mut base = None;
        let mut ys = Vec::new();
        let mut xs = Vec::new();
        for o in &origins {
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
                if let Some(rest) = divide(mono, pm) {
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
        // The target's column alignment of the origin (2D block IO: x even for 2-byte, a
        // multiple of 4 for 1-byte elements).
        let need = match e {
            1 => 2,
            2 => 1,
            _ => 0,
        };
        if xs.iter().any(|x| self.lanes.trailing_zeros(x) < need) {
            return Err(OperandReject::Misaligned);
        }
        let (height, width_elems, uniform_conds, multiple, nonneg_checks, at_least) =
            self.bounds(lay, &place, elems, &ys, &xs)?;
        Ok(OperandPlan {
            kind: lay.kind,
            shape: (e, lay.width, lay.height, 1),
            base,
            pitch,
            height,
            width: width_elems.scale(i64::from(e)),
            y: ys,
            x: xs,
            uniform_conds,
            width_multiple: multiple,
            nonneg_checks,
            at_least,
        })
    }

    /// The surface bounds the masks state (see the module documentation): (rows, columns in
    /// elements, uniform conditions, the multiple the column bound must be).
    #[allow(clippy::type_complexity)]
    fn bounds(
        &self,
        lay: &Layout,
        place: &[(usize, usize, i64, i64)],
        elems: &[Vec<Option<Element>>],
        ys: &[Poly],
        xs: &[Poly],
    ) -> Result<(Poly, Poly, Vec<(Id, bool)>, u32, Vec<Id>, Vec<(Poly, Poly)>), OperandReject> {
        let sg = lay.subgroup_size as usize;
        let n = self.lanes.lanes;
        let mut uniform: Vec<(Id, bool)> = Vec::new();
        let mut nonneg_uniform: Vec<Poly> = Vec::new();
        // Per masked element: its `a < b` conjuncts as (bound on Yr, bound on Xc, a) and its
        // `a ≥ 0` conjuncts as (a - Yr, a - Xc, a).
        #[allow(clippy::type_complexity)]
        let mut per_elem: Vec<(Vec<(Poly, Poly, Poly)>, Vec<(Poly, Poly, Poly)>)> = Vec::new();
        let mut cache: HashMap<Id, Vec<Conjunct>> = HashMap::new();
        let mut masked = 0usize;
        let mut unmasked: Vec<(usize, i64, i64, u32)> = Vec::new();
        for (s, (y, x)) in ys.iter().zip(xs).enumerate() {
            for &(l, k, row, col) in place {
                let Some(el) = elems[s * sg + l][k].as_ref() else {
                    continue;
                };
                let Some((cond, polarity, w)) = el.mask else {
                    unmasked.push((s, row, col, el.writer));
                    continue;
                };
                if !polarity {
                    return Err(OperandReject::MaskNotABound);
                }
                masked += 1;
                per_elem.push((Vec::new(), Vec::new()));
                if let std::collections::hash_map::Entry::Vacant(slot) = cache.entry(cond) {
                    let mut v = Vec::new();
                    self.conjuncts(cond, &mut v)?;
                    slot.insert(v);
                }
                for &c in &cache[&cond] {
                    let (cmp, a, b, less) = match c {
                        Conjunct::Uniform(id) => {
                            if !uniform.contains(&(id, true)) {
                                uniform.push((id, true));
                            }
                            if let Some(v) = self.nonneg_operand(id) {
                                if !nonneg_uniform.iter().any(|p| p.same_as(&v)) {
                                    nonneg_uniform.push(v);
                                }
                            }
                            continue;
                        }
                        Conjunct::Less(cmp, a, b) => (cmp, a, Some(b), true),
                        Conjunct::NonNeg(cmp, a) => (cmp, a, None, false),
                    };
                    let av = self.poly_of(a)?.at_lane(w as usize);
                    let wd = av.width;
                    let yr = y
                        .add(&Poly::constant(row, 64, n))
                        .ok_or(OperandReject::MaskNotABound)?
                        .with_width(wd);
                    let xc = x
                        .add(&Poly::constant(col, 64, n))
                        .ok_or(OperandReject::MaskNotABound)?
                        .with_width(wd);
                    // For `a < b`: the bound on Yr (b - a + Yr) and on Xc (b - a + Xc); for
                    // `a ≥ 0`: a - Yr and a - Xc.
                    let (rv, cv) = match b {
                        Some(b) => {
                            let bv = self.poly_of(b)?.at_lane(w as usize);
                            let d = bv.sub(&av).ok_or(OperandReject::MaskNotABound)?;
                            (
                                d.add(&yr).ok_or(OperandReject::MaskNotABound)?,
                                d.add(&xc).ok_or(OperandReject::MaskNotABound)?,
                            )
                        }
                        None => (
                            av.sub(&yr).ok_or(OperandReject::MaskNotABound)?,
                            av.sub(&xc).ok_or(OperandReject::MaskNotABound)?,
                        ),
                    };
                    let entry = per_elem.last_mut().expect("pushed for this element");
                    if less {
                        entry.0.push((rv, cv, av));
                    } else {
                        entry.1.push((rv, cv, av));
                    }
                    let _ = cmp;
                }
            }
        }
        let mut row_bound: Option<Poly> = None;
        let mut col_bound: Option<Poly> = None;
        let mut guards: Vec<(Poly, Poly)> = Vec::new();
        if !unmasked.is_empty() && masked > 0 {
            // Masked and unmasked elements in one operand.
            return Err(OperandReject::MixedMasks);
        }
        let mut row_lower = false;
        let mut multiple = 1u32;
        // The row bound: a bound on Yr every element's mask states.
        let mut cands: Vec<Poly> = per_elem
            .first()
            .map(|e| e.0.iter().map(|c| c.0.clone()).collect())
            .unwrap_or_default();
        for e in &per_elem[1.min(per_elem.len())..] {
            cands.retain(|r| e.0.iter().any(|c| c.0.same_as(r)));
        }
        let mut chosen = None;
        for rb in cands
            .iter()
            .chain(std::iter::once(&Poly::constant(i64::MIN, 64, n)))
        {
            let is_none = rb.as_constant() == Some(i64::MIN);
            // Every other `a < b` is a column bound: Bc + t with 0 ≤ t < V.
            let mut cols: Vec<(Poly, Poly)> = Vec::new();
            let mut ok = true;
            for e in &per_elem {
                for (rv, cv, a) in &e.0 {
                    if !is_none && rv.same_as(rb) {
                        continue;
                    }
                    if cols.len() > 4096 {
                        ok = false;
                    }
                    cols.push((cv.clone(), a.clone()));
                }
            }
            if !ok {
                continue;
            }
            if cols.is_empty() {
                chosen = Some(((!is_none).then(|| rb.clone()), None, 1u32));
                break;
            }
            let first = cols[0].0.clone();
            let offs: Option<Vec<i64>> = cols
                .iter()
                .map(|(c, _)| c.sub(&first).and_then(|d| d.as_constant()))
                .collect();
            let Some(offs) = offs else { continue };
            let (lo, hi) = (
                *offs.iter().min().unwrap_or(&0),
                *offs.iter().max().unwrap_or(&0),
            );
            if hi - lo >= 64 {
                continue;
            }
            let v = ((hi - lo + 1) as u64).next_power_of_two() as u32;
            if v > 1
                && cols
                    .iter()
                    .any(|(_, a)| self.lanes.trailing_zeros(a) < v.trailing_zeros())
            {
                return Err(OperandReject::Misaligned);
            }
            // The vector at c0 is loaded iff c0 < B; element c0 + t is in bounds iff c0 + t < B:
            // the same when c0 and B are multiples of V (B is checked at run time).
            let bc = first
                .add(&Poly::constant(lo, first.width, n))
                .ok_or(OperandReject::MaskNotABound)?;
            chosen = Some(((!is_none).then(|| rb.clone()), Some(bc), v));
            break;
        }
        if masked > 0 {
            let Some((rb, cb, v)) = chosen else {
                return Err(OperandReject::MaskNotABound);
            };
            row_bound = rb;
            col_bound = cb;
            multiple = multiple.max(v);
        }
        // `a ≥ 0` conjuncts: the row (a = Yr) or the vector's first column (a = Xc - t, the
        // vector start a multiple of the vector's span, so a ≥ 0 iff Xc ≥ 0).
        let mut col_lower_all = !per_elem.is_empty();
        for e in &per_elem {
            let mut has_col_lower = false;
            for (dr, dc, a) in &e.1 {
                if dr.terms().is_empty() {
                    row_lower = true;
                } else if let Some(t) = dc.as_constant().filter(|t| (-63..=0).contains(t)) {
                    let v = ((1 - t) as u64).next_power_of_two();
                    if self.lanes.trailing_zeros(a) < v.trailing_zeros() {
                        return Err(OperandReject::Misaligned);
                    }
                    has_col_lower = true;
                } else {
                    return Err(OperandReject::MaskNotABound);
                }
            }
            col_lower_all &= has_col_lower;
        }
        let col_lower = col_lower_all;
        let _ = &per_elem;
        // A dimension no mask bounds: the kernel reads those elements whenever it reads the
        // element at all, so every one must be inside the surface: a remainder the lane map took
        // as its dividend (`offs % M` < M) or a value growing with a loop counter of known trip
        // count.
        if row_bound.is_none() || col_bound.is_none() {
            let mut all: Vec<(usize, i64, i64, u32)> = unmasked.clone();
            for (s, _) in ys.iter().enumerate() {
                for &(l, k, row, col) in place {
                    if let Some(Element {
                        mask: Some((_, _, w)),
                        ..
                    }) = elems[s * sg + l][k].as_ref()
                    {
                        all.push((s, row, col, *w));
                    }
                }
            }
            for dim in 0..2 {
                if (dim == 0 && row_bound.is_some()) || (dim == 1 && col_bound.is_some()) {
                    continue;
                }
                let (b, g, v) = self.implied_bound(dim, &all, ys, xs)?;
                guards.extend(g);
                if dim == 1 {
                    multiple = multiple.max(v);
                }
                if dim == 0 {
                    row_bound = Some(b);
                } else {
                    col_bound = Some(b);
                }
            }
        }
        // Rows below 0 need no mask: with the column in 0..width ≤ pitch their address is
        // below the base, which the kernel may not read. Columns below 0 (in a row ≥ 1) are
        // in the buffer, so the masks must exclude them or they must not occur: the origin's
        // symbolic part is a sum of non-negative terms (an atom a mask requires ≥ 0, a loop
        // counter that only grows, or an atom checked ≥ 0 at run time) and the rest ≥ 0.
        let mut nonneg_checks: Vec<Id> = Vec::new();
        if !col_lower {
            for x in xs {
                let cst = x.constant_part();
                if (0..n).any(|l| cst.at(l) < 0) {
                    return Err(OperandReject::NoBound);
                }
                for (mono, c) in x.terms() {
                    if mono.is_empty() {
                        continue;
                    }
                    let Coef::Same(c) = c else {
                        return Err(OperandReject::NoBound);
                    };
                    let [a] = mono.as_slice() else {
                        return Err(OperandReject::NoBound);
                    };
                    if *c < 0 {
                        return Err(OperandReject::NoBound);
                    }
                    let atom = Poly::atom(*a, 64, n);
                    let by_mask = nonneg_uniform
                        .iter()
                        .any(|v| v.with_width(64).same_as(&atom));
                    if by_mask || self.lanes.is_nonneg_counter(self.m, *a) {
                        continue;
                    }
                    if !nonneg_checks.contains(a) {
                        nonneg_checks.push(*a);
                    }
                }
            }
        }
        let (Some(rb), Some(cb)) = (row_bound, col_bound) else {
            return Err(OperandReject::NoBound);
        };
        let _ = row_lower;
        Ok((
            rb.with_width(64),
            cb.with_width(64),
            uniform,
            multiple,
            nonneg_checks,
            guards,
        ))
    }

    /// A bound every element's row (`dim` 0) or column (1) is below (see `bounds`), with the
    /// run-time checks it needs and the multiple of elements the bound must be (checked at
    /// run time).
    #[allow(clippy::type_complexity)]
    fn implied_bound(
        &self,
        dim: usize,
        elems: &[(usize, i64, i64, u32)],
        ys: &[Poly],
        xs: &[Poly],
    ) -> Result<(Poly, Option<(Poly, Poly)>, u32), OperandReject> {
        let n = self.lanes.lanes;
        let mut bound: Option<Poly> = None;
        let mut span = 0i64;
        let mut min_tz = u32::MAX;
        let mut via_counter: Vec<(Poly, i64)> = Vec::new();
        for &(s, row, col, w) in elems {
            let v = if dim == 0 {
                ys[s].add(&Poly::constant(row, 64, n))
            } else {
                xs[s].add(&Poly::constant(col, 64, n))
            }
            .ok_or(OperandReject::NoBound)?;
            if let Some((b, t, tz)) = self.assumed_bound(&v, w) {
                if bound.as_ref().is_some_and(|x| !x.same_as(&b)) {
                    return Err(OperandReject::MixedMasks);
                }
                bound = Some(b);
                // Element `a + t` of a vector read at column `a` (`a < b`): below `b` when
                // `a` and `b` are multiples of the vector's span.
                span = span.max(t + 1);
                min_tz = min_tz.min(tz);
                if dim == 0 && t != 0 {
                    return Err(OperandReject::NoBound);
                }
                continue;
            }
            via_counter.push((v.with_constant_part(Coef::Same(0)), v.constant_part().at(0)));
        }
        let multiple = (span.max(1) as u64).next_power_of_two() as u32;
        if span > 1 && multiple.trailing_zeros() > min_tz {
            return Err(OperandReject::Misaligned);
        }
        if via_counter.is_empty() {
            return bound
                .map(|b| (b, None, multiple))
                .ok_or(OperandReject::NoBound);
        }
        if bound.is_some() {
            return Err(OperandReject::MixedMasks);
        }
        let sym = via_counter[0].0.clone();
        if via_counter.iter().any(|(p, _)| !p.same_as(&sym)) {
            return Err(OperandReject::NoBound);
        }
        let max_c = via_counter.iter().map(|(_, c)| *c).max().unwrap_or(0);
        let (b, g) = self
            .counter_bound(&sym, max_c)
            .ok_or(OperandReject::NoBound)?;
        Ok((b, Some(g), 1))
    }

    /// `(b, t, z)` when `v` (a row or column of invocation `w`'s element, 64-bit) is `a + t`
    /// (`0 ≤ t < 64`) for a remainder's dividend `a` the lane map took under `0 ≤ a < b`; `z`:
    /// the trailing zero bits `a` is known to have.
    /// The assumption with the smallest `t` is taken (each is sound on its own).
    fn assumed_bound(&self, v: &Poly, w: u32) -> Option<(Poly, i64, u32)> {
        self.lanes
            .assumptions
            .iter()
            .filter_map(|(_, a, b)| {
                let av = a.at_lane(w as usize);
                let t = v.with_width(av.width).sub(&av)?.as_constant()?;
                (0..64)
                    .contains(&t)
                    .then(|| (b.with_width(64), t, self.lanes.trailing_zeros(&av)))
            })
            .min_by_key(|(_, t, _)| *t)
    }

    /// For `sym + c` with `sym = u·q` (u > 0 constant, q a counter of its loop starting at a
    /// constant ≥ 0 and running while `q + 1 ≠ T` or `q + sq < T`): every value is below
    /// `u·T + (c + 1 - u)`, given `T ≥ q0 + 1` (returned as a check: (T, q0 + 1)).
    fn counter_bound(&self, sym: &Poly, c: i64) -> Option<(Poly, (Poly, Poly))> {
        let [(mono, Coef::Same(u))] = sym.terms() else {
            return None;
        };
        let [q] = mono.as_slice() else { return None };
        if *u <= 0 || !self.lanes.is_nonneg_counter(self.m, *q) {
            return None;
        }
        let (_, q0, sq) = self.lanes.inductions.iter().find(|(p, _, _)| p == q)?;
        let (q0, sq) = (q0.as_constant()?, sq.as_constant()?);
        let phi = self.m.def_inst(*q)?;
        let header = self.m.inst_block(self.m.def(*q)?)?;
        // The back-edge value and the latch's exit test.
        let mut next = None;
        for pair in phi.operands().chunks(2) {
            let (v, label) = (Id::new(pair[0])?, Id::new(pair[1])?);
            let pred = self.m.def(label).and_then(|l| self.m.inst_block(l))?;
            if let Some(t) = self.m.block_terminator(pred) {
                let term = self.m.inst(t);
                if term.is(Op::BranchConditional)
                    && term.operands()[1..].contains(&self.m.block_label(header).word())
                {
                    next = Some((v, term.clone()));
                }
            }
        }
        let (v, term) = next?;
        let cond = self.m.def_inst(term.operand_id(0)?)?;
        let (x, t) = (cond.operand_id(0)?, cond.operand_id(1)?);
        if x != v {
            return None;
        }
        let stays_on_true = term.operand_id(1)? == self.m.block_label(header);
        let ok = match cond.op()? {
            Op::IEqual => !stays_on_true && sq == 1,
            Op::INotEqual => stays_on_true && sq == 1,
            Op::SLessThan => stays_on_true && sq > 0,
            _ => false,
        };
        if !ok {
            return None;
        }
        let tp = self.poly_of(t).ok()?;
        if !tp.is_lane_invariant() {
            return None;
        }
        let tp = tp.with_width(64);
        let bound = tp
            .scale(*u)
            .add(&Poly::constant(c + 1 - u, 64, self.lanes.lanes))?;
        Some((bound, (tp, Poly::constant(q0 + 1, 64, self.lanes.lanes))))
    }

    fn poly_of(&self, id: Id) -> Result<Poly, OperandReject> {
        if let Some(p) = self.lanes.poly(id) {
            return Ok(p.clone());
        }
        let v = self
            .m
            .const_int_value(id)
            .ok_or(OperandReject::MaskNotABound)?;
        let w = self
            .m
            .type_of(id)
            .and_then(|t| spvopt_analysis::types::int_width(self.m, t))
            .ok_or(OperandReject::MaskNotABound)?;
        Ok(Poly::constant(
            spvopt_analysis::lane_map::sext(v as i64, w),
            w,
            self.lanes.lanes,
        ))
    }

    /// `v` when `cond` is the uniform `v > -1` or `v ≥ 0`.
    fn nonneg_operand(&self, cond: Id) -> Option<Poly> {
        let inst = self.m.def_inst(cond)?;
        let (a, b) = (inst.operand_id(0)?, inst.operand_id(1)?);
        let c = |id| self.poly_of(id).ok().and_then(|p| p.as_constant());
        match inst.op()? {
            Op::SGreaterThan if c(b) == Some(-1) => self.poly_of(a).ok(),
            Op::SGreaterThanEqual if c(b) == Some(0) => self.poly_of(a).ok(),
            Op::SLessThan if c(a) == Some(-1) => self.poly_of(b).ok(),
            Op::SLessThanEqual if c(a) == Some(0) => self.poly_of(b).ok(),
            _ => None,
        }
    }

    /// The conjuncts of `cond` (a tree of `OpLogicalAnd`).
    fn conjuncts(&self, cond: Id, out: &mut Vec<Conjunct>) -> Result<(), OperandReject> {
        if matches!(self.lanes.value(cond), Some(LaneValue::UniformBool)) {
            out.push(Conjunct::Uniform(cond));
            return Ok(());
        }
        if let Some(LaneValue::Bool(t)) = self.lanes.value(cond) {
            if t.iter().all(|&v| v) {
                return Ok(());
            }
        }
        let inst = self.m.def_inst(cond).ok_or(OperandReject::MaskNotABound)?;
        if inst.is(Op::Select) {
            // `select(c, x, false)` is `c && x` (what clang emits for `&&`).
            let (c, x, f) = (
                inst.operand_id(0).ok_or(OperandReject::MaskNotABound)?,
                inst.operand_id(1).ok_or(OperandReject::MaskNotABound)?,
                inst.operand_id(2).ok_or(OperandReject::MaskNotABound)?,
            );
            if !self.m.def_inst(f).is_some_and(|d| d.is(Op::ConstantFalse)) {
                return Err(OperandReject::MaskNotABound);
            }
            self.conjuncts(c, out)?;
            return self.conjuncts(x, out);
        }
        let (a, b) = (
            inst.operand_id(0).ok_or(OperandReject::MaskNotABound)?,
            inst.operand_id(1).ok_or(OperandReject::MaskNotABound)?,
        );
        let c = |id| self.poly_of(id).ok().and_then(|p| p.as_constant());
        match inst.op().ok_or(OperandReject::MaskNotABound)? {
            Op::LogicalAnd => {
                self.conjuncts(a, out)?;
                self.conjuncts(b, out)
            }
            Op::SLessThan if c(a) == Some(-1) => {
                out.push(Conjunct::NonNeg(cond, b));
                Ok(())
            }
            Op::SLessThan => {
                out.push(Conjunct::Less(cond, a, b));
                Ok(())
            }
            Op::SGreaterThan if c(b) == Some(-1) => {
                out.push(Conjunct::NonNeg(cond, a));
                Ok(())
            }
            Op::SGreaterThanEqual if c(b) == Some(0) => {
                out.push(Conjunct::NonNeg(cond, a));
                Ok(())
            }
            Op::SGreaterThan => {
                out.push(Conjunct::Less(cond, b, a));
                Ok(())
            }
            _ => Err(OperandReject::MaskNotABound),
        }
    }
}

/// One conjunct of a mask.
#[derive(Clone, Copy, Debug)]
enum Conjunct {
    /// A work-group-uniform condition.
    Uniform(Id),
    /// `a < b` (signed), with the comparison's id.
    Less(Id, Id, Id),
    /// `a ≥ 0`, with the comparison's id.
    NonNeg(Id, Id),
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
