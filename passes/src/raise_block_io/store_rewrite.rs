//! raise-block-io's rewrite of an epilogue (see `epilogue.rs` for when and why): in the copy of
//! the kernel function, each planned tile is stored with a 2D block store right before the
//! epilogue's barrier, from the values the invocations staged; the global stores it replaces go,
//! and the staging with them when nothing else reads it.

use std::collections::HashMap;

use spirv::{Op, StorageClass};
use spvopt_analysis::Dominators;
use spvopt_ir::{FuncId, Id, InstId, Interner, Module};

use super::emit::{function_variable, recompute_in_clone, remove_dead, subgroup_bits, Builder};
use super::epilogue::{EpiloguePlan, Tile};
use crate::edit::location;
use crate::pass::Statistics;

/// The value component `k` of `v` holds: `v` itself for a scalar, else the object of the
/// `OpCompositeInsert` that set it (looked through), else an extract emitted by `b`.
fn component(b: &mut Builder, v: Id, k: u32, elem: Id) -> Id {
    let is_vec = |m: &Module, x: Id| {
        m.type_of(x)
            .and_then(|t| m.def_inst(t))
            .is_some_and(|t| t.is(Op::TypeVector))
    };
    if !is_vec(b.m, v) {
        return v;
    }
    let mut x = v;
    while let Some(d) = b.m.def_inst(x).filter(|d| d.is(Op::CompositeInsert)) {
        let (Some(obj), Some(comp), Some(idx), None) = (
            d.operand_id(0),
            d.operand_id(1),
            d.operand_word(2),
            d.operand_word(3),
        ) else {
            break;
        };
        if idx == k {
            return obj;
        }
        x = comp;
    }
    b.op(Op::CompositeExtract, elem, &[x.word(), k])
}

/// The epilogue's tiles stored with 2D block stores in the copy right before its barrier;
/// the global stores they replace go, and the staging with them when nothing else reads it.
#[allow(clippy::too_many_arguments)]
pub(super) fn store_epilogue(
    m: &mut Module,
    types: &mut Interner,
    dom: &Dominators,
    ep: &EpiloguePlan,
    (lanes, sg): (u32, u32),
    sg_var: Id,
    map: &HashMap<Id, Id>,
    corr: &HashMap<InstId, InstId>,
    fast: FuncId,
    stats: &mut Statistics,
) -> Result<(), String> {
    let mut b = Builder {
        m: &mut *m,
        types: &mut *types,
        at: corr[&ep.barrier],
        atom_map: map.clone(),
        count: 0,
        memo: None,
    };
    let u32t = b.int(32);
    let bits = subgroup_bits(&mut b, sg_var, (lanes / sg) as usize)?;
    recompute_atoms(&mut b, dom, ep, corr);
    let v2 = b.types.vector(b.m, u32t, 2);
    let bt = b.types.bool(b.m);
    let types = TileTypes { u32t, v2, bt };
    for t in &ep.tiles {
        store_tile(&mut b, t, ep.element_type, &bits, types, map, fast)?;
        stats.add("block_stores", 1);
        if !t.plan.implied_conds.is_empty() {
            stats.add(
                "store_mask_conditions_implied",
                t.plan.implied_conds.len() as u64,
            );
        }
    }
    stats.add("store_raised", ep.global_stores.len() as u64);
    stats.note(format!(
        "{}: {} global store(s) of staged data raised: {} 2D block store(s) {}b {}r{}x1c",
        location(m, ep.global_stores[0]),
        ep.global_stores.len(),
        ep.tiles.len(),
        ep.tiles.first().map_or(0, |t| t.plan.shape.0 * 8),
        ep.tiles.first().map_or(0, |t| t.plan.shape.2),
        ep.tiles.first().map_or(0, |t| t.plan.shape.1),
    ));
    remove_replaced(m, ep, corr, fast, stats);
    Ok(())
}

/// Recomputes in the copy, before the barrier, every atom of the tiles' polynomials and
/// every uniform mask condition (where the clone does not hold it there yet).
fn recompute_atoms(
    b: &mut Builder,
    dom: &Dominators,
    ep: &EpiloguePlan,
    corr: &HashMap<InstId, InstId>,
) {
    for t in &ep.tiles {
        for poly in
            t.plan
                .x
                .iter()
                .chain(&t.plan.y)
                .chain([&t.plan.pitch, &t.plan.width, &t.plan.height])
        {
            for (mono, _) in poly.terms() {
                for &a in mono {
                    recompute_in_clone(b, dom, ep.barrier, a, corr);
                }
            }
        }
        for &(c, _) in &t.plan.uniform_conds {
            recompute_in_clone(b, dom, ep.barrier, c, corr);
        }
    }
}

/// The types every tile's store uses: 32-bit integer, its 2-vector (the coordinate), bool.
#[derive(Clone, Copy)]
struct TileTypes {
    u32t: Id,
    v2: Id,
    bt: Id,
}

/// Emits tile `t`'s 2D block store: its coordinate, its data (the staged components of
/// element type `elem`, through a Function variable) and the store itself.
fn store_tile(
    b: &mut Builder,
    t: &Tile,
    elem: Id,
    bits: &[Id],
    types: TileTypes,
    map: &HashMap<Id, Id>,
    fast: FuncId,
) -> Result<(), String> {
    let mapped = |id: Id| map.get(&id).copied().unwrap_or(id);
    let plan = &t.plan;
    let (e, w, h, c) = plan.shape;
    let xv = b
        .origin(&plan.x, bits, plan.saturate[1])
        .ok_or("column origin does not fit the subgroups")?;
    let mut yv = b
        .origin(&plan.y, bits, plan.saturate[0])
        .ok_or("row origin does not fit the subgroups")?;
    let wv = b.poly(&plan.width, 32).ok_or("width")?;
    let hv = b.poly(&plan.height, 32).ok_or("height")?;
    let pv = b.poly(&plan.pitch, 32).ok_or("pitch")?;
    if !plan.uniform_conds.is_empty() {
        // A work-group-uniform mask: when false, the block starts below the surface (every
        // row out of bounds, so nothing is written).
        let mut cond: Option<Id> = None;
        for &(cid, _) in &plan.uniform_conds {
            let cid = b.atom_map.get(&cid).copied().unwrap_or(cid);
            cond = Some(match cond {
                None => cid,
                Some(a) => b.op(Op::LogicalAnd, types.bt, &[a.word(), cid.word()]),
            });
        }
        let cond = cond.expect("a condition");
        yv = b.op(Op::Select, types.u32t, &[cond.word(), yv.word(), hv.word()]);
    }
    let coord = b.op(Op::CompositeConstruct, types.v2, &[xv.word(), yv.word()]);
    let mut parts = Vec::with_capacity(t.rows.len());
    for &(s, k) in &t.rows {
        let v = b.m.inst(s).operand_id(1).ok_or("a staged value")?;
        let v = mapped(v);
        parts.push(component(b, v, k, elem).word());
    }
    let (data, ty) = if parts.len() == 1 {
        (Id::new(parts[0]).expect("an id"), elem)
    } else {
        let vt = b.types.vector(b.m, elem, parts.len() as u32);
        (b.op(Op::CompositeConstruct, vt, &parts), vt)
    };
    let var = function_variable(b, fast, ty)?;
    b.void(Op::Store, &[var.word(), data.word()]);
    let u8t = b.int(8);
    let bptr = b.types.pointer(b.m, StorageClass::Function, u8t);
    let src = b.op(Op::Bitcast, bptr, &[var.word()]);
    let ek = b.konst(32, i64::from(e));
    let wk = b.konst(32, i64::from(w));
    let hk = b.konst(32, i64::from(h));
    let ck = b.konst(32, i64::from(c));
    let base = mapped(plan.base);
    b.void(
        Op::Subgroup2DBlockStoreINTEL,
        &[
            ek.word(),
            wk.word(),
            hk.word(),
            ck.word(),
            src.word(),
            base.word(),
            wv.word(),
            hv.word(),
            pv.word(),
            coord.word(),
        ],
    );
    Ok(())
}

/// Erases the global stores the block stores replace in the copy, then the staging stores
/// and the barrier unless some staging load is still used.
fn remove_replaced(
    m: &mut Module,
    ep: &EpiloguePlan,
    corr: &HashMap<InstId, InstId>,
    fast: FuncId,
    stats: &mut Statistics,
) {
    for g in &ep.global_stores {
        m.erase(corr[g]);
    }
    remove_dead(m, fast);
    let loads_left = ep
        .staging_loads
        .iter()
        .any(|l| m.inst_block(corr[l]).is_some());
    if loads_left {
        stats.note(format!(
            "{}: the staging of the stores stays: some of its Workgroup loads are still used",
            location(m, ep.barrier)
        ));
        return;
    }
    for s in &ep.staging_stores {
        m.erase(corr[s]);
    }
    m.erase(corr[&ep.barrier]);
    stats.add("staging_stores_removed", ep.staging_stores.len() as u64);
    stats.add("barriers_removed", 1);
    remove_dead(m, fast);
}
