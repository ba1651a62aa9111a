//! The epilogue's element map and tiles: where every staged element goes in global memory
//! (per staging store, writer invocation and component), and how the elements group into
//! 2D block store tiles that `plan.rs` matches.

use std::collections::HashMap;
use std::rc::Rc;

use spvopt_analysis::block_io::layout::Layout;
use spvopt_analysis::block_io::BlockKind;
use spvopt_analysis::lane_map::Coef;
use spvopt_ir::{Id, InstId};

use super::super::plan::{address_fits, Planner, StoreElement};
use super::super::staging::{Staging, Writer};
use super::{Context, LoadedBytes, StoreRefusal, StoreReject, Tile, TileRows};

/// The global stores of an epilogue with what was found about them.
pub(super) struct GlobalStores<'s> {
    pub stores: &'s [InstId],
    /// Per store, the Workgroup load and byte behind each byte it writes.
    pub bytes: Vec<LoadedBytes>,
    /// Per store, its mask (`None`: unmasked).
    pub masks: Vec<Option<Id>>,
}

/// Where every staged element goes.
pub(super) struct Destinations {
    /// The staging stores, in order.
    stores: Vec<InstId>,
    /// Position of each staging store in `stores`.
    index_of: HashMap<InstId, usize>,
    /// Per staging store, its number of elements (components).
    comps: Vec<u32>,
    /// Per staging store, writer invocation and component: the global element it reaches.
    dest: Vec<Vec<Vec<Option<StoreElement>>>>,
}

impl Destinations {
    /// The global element of staging store `s`'s component `k` written by invocation `inv`.
    fn of(&self, s: InstId, inv: usize, k: u32) -> Option<StoreElement> {
        self.dest[self.index_of[&s]][inv][k as usize].clone()
    }
}

impl Context<'_> {
    /// Where every staged element goes: (staging store, writer lane, component) -> (address,
    /// mask); every byte a global store writes must come whole from one writer's element, and
    /// every staged element reach exactly one global element.
    pub(super) fn destinations(
        &self,
        globals: &GlobalStores<'_>,
        staging: &Staging,
        staging_stores: &[InstId],
        e: u32,
    ) -> Result<Destinations, StoreRefusal> {
        let m = self.m;
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
        let mut dest: Vec<Vec<Vec<Option<StoreElement>>>> = comps
            .iter()
            .map(|&c| vec![vec![None; c as usize]; n])
            .collect();
        for (gi, &g) in globals.stores.iter().enumerate() {
            let ptr = m.inst(g).operand_id(0).expect("a pointer");
            let gp = self
                .lanes
                .poly(ptr)
                .ok_or((StoreReject::NoLayout, Some(g)))?;
            let bytes = &globals.bytes[gi];
            if !(bytes.len() as u32).is_multiple_of(e) {
                return Err((StoreReject::ElementSize, Some(g)));
            }
            for r in 0..n {
                let at_r = Rc::new(gp.at_lane(r));
                for (j, element) in bytes.chunks_exact(e as usize).enumerate() {
                    let w = self.writer_of(staging, element, r)?;
                    let offset = i64::from(j as u32 * e);
                    if !address_fits(&at_r, offset) {
                        return Err((StoreReject::NoLayout, Some(g)));
                    }
                    let slot =
                        &mut dest[index_of[&w.store]][w.lane as usize][(w.byte / e) as usize];
                    if slot.is_some() {
                        return Err((StoreReject::ReadTwice, Some(w.store)));
                    }
                    let mask = globals.masks[gi].map(|c| (c, true, r as u32));
                    *slot = Some((at_r.clone(), offset, mask, r as u32));
                }
            }
        }
        for (k, per_lane) in dest.iter().enumerate() {
            if per_lane.iter().any(|c| c.iter().any(|d| d.is_none())) {
                return Err((StoreReject::NotStored, Some(staging_stores[k])));
            }
        }
        Ok(Destinations {
            stores: staging_stores.to_vec(),
            index_of,
            comps,
            dest,
        })
    }

    /// The staging writer of the element whose bytes (load, byte), in order, are `element`,
    /// as invocation `r` loads it: one writer must have stored its bytes, in order, starting
    /// at an element boundary.
    fn writer_of(
        &self,
        staging: &Staging,
        element: &[(InstId, u32)],
        r: usize,
    ) -> Result<Writer, StoreRefusal> {
        let e = element.len() as u32;
        let (ld, bl) = element[0];
        let lp = self
            .m
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
            let (ldt, blt) = element[t as usize];
            let ok = ldt == ld
                && blt == bl + t
                && staging.writer(root, at + i64::from(t)).is_some_and(|x| {
                    x.store == w.store && x.lane == w.lane && x.byte == w.byte + t
                });
            if !ok {
                return Err((StoreReject::NoWriter, Some(ld)));
            }
        }
        Ok(w)
    }

    /// Each tile: a 2D block store of width = subgroup size, one element per lane and row,
    /// planned like a load by `plan.rs`.
    pub(super) fn tile_plans(
        &self,
        staging: &Staging,
        dest: &Destinations,
        e: u32,
    ) -> Result<Vec<Tile>, StoreRefusal> {
        let rows = self.tiles(dest, e)?;
        let n = self.lanes.lanes;
        let sg = self.lanes.subgroup_size as u32;
        let planner = Planner {
            m: self.m,
            lanes: self.lanes,
            staging: Some(staging),
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
            let elems: Vec<Vec<Option<StoreElement>>> = (0..n)
                .map(|inv| tile.iter().map(|&(s, k)| dest.of(s, inv, k)).collect())
                .collect();
            let plan = planner
                .plan_store(&lay, elems)
                .map_err(|_| (StoreReject::NoLayout, Some(tile[0].0)))?;
            tiles.push(Tile { rows: tile, plan });
        }
        Ok(tiles)
    }

    /// The staged elements of invocation 0 grouped into tiles: per tile, its rows' (store,
    /// component), top to bottom. Rows are told apart by the address's one symbolic term
    /// beyond the first element's (`pitch·rows`), columns by its constant part.
    fn tiles(&self, dest: &Destinations, e: u32) -> Result<Vec<TileRows>, StoreRefusal> {
        let stores = &dest.stores;
        let fail = |s: InstId| (StoreReject::NoTiles, Some(s));
        let addr = |k: usize, c: u32| {
            let (base, offset, _, _) = dest.dest[k][0][c as usize].as_ref().expect("checked");
            base.add_constant(*offset).expect("checked by address_fits")
        };
        let origin = addr(0, 0);
        // (store, component, row term coefficient, column bytes)
        let mut at: Vec<(InstId, u32, i64, i64)> = Vec::new();
        let mut pitch_mono = None;
        for (k, &s) in stores.iter().enumerate() {
            for c in 0..dest.comps[k] {
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
