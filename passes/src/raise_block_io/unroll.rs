//! Staging written as a strided loop (`for (int i = lid; i < 256; i += 64) tile[i] = ...`), the
//! usual hand-written form, unrolled so that the staging analysis sees straight-line staging.
//!
//! When: a loop nested in another loop of a kernel function whose work-group shape is declared
//! (the lane map's tables are the real invocations), with Workgroup stores in it, one latch that
//! is its only exit, a header entered from one preheader, and an induction `i = phi(init, i + s)`
//! (init a per-invocation table of the lane map, `s` a constant) whose exit test compares `i` or
//! `i + s` with a constant. The loop may be guarded by a branch around it whose condition the
//! lane map knows to be true in every invocation (clang's `lid < 256`).
//!
//! Why it is exact: each invocation's trip count is computed from its own initial value with the
//! exit test's arithmetic (at its width); the loop is unrolled only when every invocation runs it
//! the same number of times `T ≥ 1`, so T copies of the body executed in sequence (copy `j`'s
//! phis taking copy `j - 1`'s back-edge values, the first copy's their initial values) do what
//! the loop did in every invocation; a guard true in every invocation is a branch that always
//! goes one way. Above [`MAX_TRIPS`] iterations or [`MAX_COPIED`] copied instructions per
//! function the loop is left alone (`rejected_unroll_over_budget`).
//!
//! The caller unrolls a copy of the module and keeps it only if the pass then raises something.

use std::collections::HashMap;

use spirv::{Op, StorageClass};
use spvopt_analysis::lane_map::{sext, Coef, LaneMap, LaneValue};
use spvopt_analysis::loops::LoopId;
use spvopt_analysis::types::{int_width, pointer_of};
use spvopt_analysis::{Cfg, Loops};
use spvopt_ir::{BlockId, FuncId, Id, Inst, InstId, Module};

/// Most iterations unrolled per loop.
pub const MAX_TRIPS: usize = 64;
/// Most instructions copied per function.
pub const MAX_COPIED: usize = 8192;

/// What happened to the strided staging loops of a function.
#[derive(Default, Debug)]
pub struct Unrolled {
    /// Loops unrolled.
    pub loops: u64,
    /// Loops of the right shape left alone because of the budget.
    pub over_budget: u64,
}

/// A loop found unrollable: its blocks (in function order), latch, exit, trip count, guard.
struct Plan {
    blocks: Vec<BlockId>,
    header: BlockId,
    latch: BlockId,
    exit: BlockId,
    preheader: BlockId,
    trips: usize,
    /// The block whose conditional branch guards the loop, and the taken target.
    guard: Option<(BlockId, Id)>,
}

/// Unrolls the strided staging loops of function `f` (see the module documentation).
pub fn unroll_function(
    m: &mut Module,
    cfg: &Cfg,
    loops: &Loops,
    lanes: &LaneMap,
    f: FuncId,
) -> Unrolled {
    let mut out = Unrolled::default();
    let mut plans = Vec::new();
    let mut copied = 0usize;
    for l in loops.ids() {
        let Some(d) = loops.get(l) else { continue };
        if d.func != f || d.depth < 2 {
            continue;
        }
        match plan(m, cfg, loops, lanes, l) {
            Some(p) => {
                let size: usize = p.blocks.iter().map(|&b| m.block_insts(b).count()).sum();
                let add = size.saturating_mul(p.trips - 1);
                if p.trips > MAX_TRIPS || copied + add > MAX_COPIED {
                    out.over_budget += 1;
                    continue;
                }
                copied += add;
                plans.push(p);
            }
            None => continue,
        }
    }
    for p in plans {
        unroll(m, &p);
        out.loops += 1;
    }
    if out.loops > 0 {
        // The copies follow the loop, but the loop's exit may come before it in the layout
        // and is now dominated by the last copy: lay the blocks out in reverse post-order
        // (every block after its dominators, the entry first; as legalize's block_order).
        let cfg = Cfg::build(m);
        let blocks = m.function(f).blocks.clone();
        let mut order: Vec<BlockId> = cfg.rpo(f).to_vec();
        order.extend(blocks.iter().copied().filter(|b| !cfg.is_reachable(*b)));
        if order.len() == blocks.len() && order.first() == blocks.first() {
            m.functions[f.index()].blocks = order;
        }
    }
    out
}

fn plan(m: &Module, cfg: &Cfg, loops: &Loops, lanes: &LaneMap, l: LoopId) -> Option<Plan> {
    let d = loops.get(l)?;
    let header = d.header;
    let [latch] = d.latches[..] else {
        return None;
    };
    let blocks: Vec<BlockId> = m
        .function(d.func)
        .blocks
        .iter()
        .copied()
        .filter(|&b| loops.blocks(l).contains(&b))
        .collect();
    // Innermost (no loop inside), with a Workgroup store, no structured merges.
    let mut stores = false;
    for &b in &blocks {
        if loops.innermost(b) != Some(l) || loops.loop_of_header(b).is_some_and(|x| x != l) {
            return None;
        }
        for i in m.block_insts(b) {
            let inst = m.inst(i);
            if matches!(inst.op(), Some(Op::LoopMerge | Op::SelectionMerge)) {
                return None;
            }
            if inst.is(Op::Store) {
                let sc = inst
                    .operand_id(0)
                    .and_then(|p| m.type_of(p))
                    .and_then(|t| pointer_of(m, t));
                stores |= sc.is_some_and(|(sc, _)| sc == StorageClass::Workgroup as u32);
            }
        }
        // Only the latch leaves the loop.
        if b != latch && cfg.succs(b).iter().any(|s| !blocks.contains(s)) {
            return None;
        }
    }
    if !stores {
        return None;
    }
    let outside: Vec<BlockId> = cfg
        .preds(header)
        .iter()
        .copied()
        .filter(|p| !blocks.contains(p))
        .collect();
    let [preheader] = outside[..] else {
        return None;
    };
    let term = m.inst(m.block_terminator(latch)?);
    if !term.is(Op::BranchConditional) {
        return None;
    }
    let (cond, t, e) = (
        term.operand_id(0)?,
        term.operand_id(1)?,
        term.operand_id(2)?,
    );
    let hl = m.block_label(header);
    let (continue_if, exit_label) = match (t == hl, e == hl) {
        (true, false) => (true, e),
        (false, true) => (false, t),
        _ => return None,
    };
    let exit = cfg
        .succs(latch)
        .iter()
        .copied()
        .find(|&s| m.block_label(s) == exit_label)?;
    let trips = trip_count(m, lanes, header, preheader, latch, cond, continue_if)?;
    // The guard: a branch before the preheader, or the preheader's own branch (header or
    // exit), always taken towards the loop.
    let guard = if cfg.succs(preheader) == [header] {
        guard_of(m, cfg, lanes, preheader, exit)
    } else {
        Some(always_taken(m, lanes, preheader, header, exit)?)
    };
    // Another way into the exit than the latch and an always-taken guard: the exit's phis
    // would mix the loop's values with paths that skip it; left alone.
    let others = cfg
        .preds(exit)
        .iter()
        .any(|&b| b != latch && guard.is_none_or(|(g, _)| g != b));
    if others && m.block_phis(exit).next().is_some() {
        return None;
    }
    Some(Plan {
        blocks,
        header,
        latch,
        exit,
        preheader,
        trips,
        guard,
    })
}

/// The trip count every invocation has, if they all have the same one (≥ 1).
fn trip_count(
    m: &Module,
    lanes: &LaneMap,
    header: BlockId,
    preheader: BlockId,
    latch: BlockId,
    cond: Id,
    continue_if: bool,
) -> Option<usize> {
    let c = m.def_inst(cond)?;
    let op = c.op()?;
    let (x, k) = (c.operand_id(0)?, c.operand_id(1)?);
    let bound = m.const_int_value(k)? as i64;
    let w = int_width(m, m.type_of(x)?)?;
    let (pl, ll) = (m.block_label(preheader), m.block_label(latch));
    // The induction: a header phi `i = phi(init, next)` with `next = i + s`, x is i or next.
    for p in m.block_phis(header) {
        let phi = m.inst(p);
        let i = phi.result_id()?;
        let ops = phi.operands();
        let incoming = |from: Id| {
            ops.chunks(2)
                .find(|c| c.len() == 2 && c[1] == from.word())
                .and_then(|c| Id::new(c[0]))
        };
        let (Some(init), Some(next)) = (incoming(pl), incoming(ll)) else {
            continue;
        };
        let n = m.def_inst(next)?;
        if !n.is(Op::IAdd) {
            continue;
        }
        let step = match (n.operand_id(0), n.operand_id(1)) {
            (Some(a), Some(s)) if a == i => m.const_int_value(s),
            (Some(s), Some(a)) if a == i => m.const_int_value(s),
            _ => None,
        };
        let Some(step) = step else { continue };
        let step = sext(step as i64, w);
        let tested_next = if x == i {
            false
        } else if x == next {
            true
        } else {
            continue;
        };
        let Some(LaneValue::Int(init)) = lanes.value(init) else {
            return None;
        };
        let table: Vec<i64> = match init.as_table()? {
            Coef::Same(v) => vec![v; lanes.lanes],
            Coef::Lanes(t) => t.to_vec(),
        };
        let mut trips = None;
        for v0 in table {
            let t = lane_trips(op, v0, step, bound, w, tested_next, continue_if)?;
            if trips.is_some_and(|x| x != t) {
                return None;
            }
            trips = Some(t);
        }
        return trips;
    }
    None
}

/// Iterations of `do { i += step } while (cmp(x, bound) == continue_if)` from `v0` in one
/// invocation (at most [`MAX_TRIPS`] + 1 evaluated).
fn lane_trips(
    op: Op,
    v0: i64,
    step: i64,
    bound: i64,
    w: u32,
    tested_next: bool,
    continue_if: bool,
) -> Option<usize> {
    let mask = if w >= 64 { u64::MAX } else { (1u64 << w) - 1 };
    let mut v = v0;
    for t in 1..=MAX_TRIPS + 1 {
        let x = if tested_next {
            sext(v.wrapping_add(step), w)
        } else {
            v
        };
        let b = sext(bound, w);
        let holds = match op {
            Op::SLessThan => x < b,
            Op::SLessThanEqual => x <= b,
            Op::SGreaterThan => x > b,
            Op::SGreaterThanEqual => x >= b,
            Op::ULessThan => (x as u64 & mask) < (b as u64 & mask),
            Op::ULessThanEqual => (x as u64 & mask) <= (b as u64 & mask),
            Op::INotEqual => x != b,
            _ => return None,
        };
        if holds != continue_if {
            return Some(t);
        }
        v = sext(v.wrapping_add(step), w);
    }
    Some(MAX_TRIPS + 1)
}

/// The block whose conditional branch leads to `preheader` or around the loop to `exit`, when
/// its condition takes the loop's side in every invocation.
fn guard_of(
    m: &Module,
    cfg: &Cfg,
    lanes: &LaneMap,
    preheader: BlockId,
    exit: BlockId,
) -> Option<(BlockId, Id)> {
    let [g] = cfg.preds(preheader)[..] else {
        return None;
    };
    always_taken(m, lanes, g, preheader, exit)
}

/// `g`, when its conditional branch goes to `to` or `exit` and its condition takes `to` in
/// every invocation: `(g, to's label)`.
fn always_taken(
    m: &Module,
    lanes: &LaneMap,
    g: BlockId,
    to: BlockId,
    exit: BlockId,
) -> Option<(BlockId, Id)> {
    let term = m.inst(m.block_terminator(g)?);
    if !term.is(Op::BranchConditional) {
        return None;
    }
    let (c, t, e) = (
        term.operand_id(0)?,
        term.operand_id(1)?,
        term.operand_id(2)?,
    );
    let (pl, el) = (m.block_label(to), m.block_label(exit));
    let want = match (t == pl && e == el, e == pl && t == el) {
        (true, _) => true,
        (_, true) => false,
        _ => return None,
    };
    match lanes.value(c)? {
        LaneValue::Bool(v) if v.iter().all(|&b| b == want) => Some((g, pl)),
        _ => None,
    }
}

/// Copies the loop's body `trips - 1` times after it and chains the copies.
fn unroll(m: &mut Module, p: &Plan) {
    let header_phis: Vec<InstId> = m.block_phis(p.header).collect();
    let (pl, ll) = (m.block_label(p.preheader), m.block_label(p.latch));
    let incoming = |m: &Module, phi: InstId, from: Id| -> Id {
        let ops = m.inst(phi).operands();
        ops.chunks(2)
            .find(|c| c[1] == from.word())
            .and_then(|c| Id::new(c[0]))
            .expect("checked: the phi has both edges")
    };
    // Copy j's value of each original id defined in the loop (copy 0: the original).
    let mut prev: HashMap<Id, Id> = HashMap::new();
    for &ph in &header_phis {
        let r = m.inst(ph).result_id().expect("phi result");
        prev.insert(r, incoming(m, ph, pl));
    }
    // Copy 0: the header's phis become their initial values.
    let originals: Vec<(BlockId, Vec<InstId>)> = p
        .blocks
        .iter()
        .map(|&b| (b, m.block_insts(b).collect()))
        .collect();
    let mut last_latch = p.latch;
    let mut after = *p.blocks.last().expect("a loop has blocks");
    let mut cur: HashMap<Id, Id> = HashMap::new();
    let mut new_blocks: Vec<BlockId> = Vec::new();
    for j in 1..p.trips {
        // Back-edge values of copy j - 1 feed copy j's phis.
        let mut map: HashMap<Id, Id> = HashMap::new();
        for &ph in &header_phis {
            let r = m.inst(ph).result_id().expect("phi result");
            let back = incoming(m, ph, ll);
            let v = if j == 1 {
                back
            } else {
                *cur.get(&back).unwrap_or(&back)
            };
            map.insert(r, v);
        }
        for (b, insts) in &originals {
            map.insert(m.block_label(*b), m.fresh_id());
            for &i in insts {
                if let Some(r) = m.inst(i).result_id() {
                    if !header_phis.contains(&i) {
                        map.insert(r, m.fresh_id());
                    }
                }
            }
        }
        let mut new_latch = None;
        for (b, insts) in &originals {
            let nb = m.insert_block_after(after, map[&m.block_label(*b)]);
            after = nb;
            new_blocks.push(nb);
            for &i in insts {
                if header_phis.contains(&i) {
                    continue;
                }
                let mut buf = m.inst(i).to_owned();
                if let Some(r) = buf.result_id() {
                    buf.set_result_id(map[&r]);
                }
                let new = m.append_inst(nb, &buf);
                m.map_used_ids(new, |id| *map.get(&id).unwrap_or(&id));
            }
            if *b == p.latch {
                new_latch = Some(nb);
            }
        }
        // Copy j - 1's latch goes on to copy j.
        let to = map[&m.block_label(p.header)];
        set_branch(m, last_latch, to);
        last_latch = new_latch.expect("the latch is a loop block");
        cur = map;
    }
    // The last copy leaves for the exit; the exit's phis take the last copy's values.
    let exit_label = m.block_label(p.exit);
    set_branch(m, last_latch, exit_label);
    retarget_exit_phis(m, p, last_latch, &cur);
    if p.trips > 1 {
        redirect_outside_uses(m, p, &originals, &new_blocks, &cur);
    }
    // Copy 0's phis: their initial values (the phis go; uses after the loop were moved to
    // the last copy's values above).
    for &ph in &header_phis {
        let r = m.inst(ph).result_id().expect("phi result");
        let init = prev[&r];
        m.replace_all_uses(r, init);
        m.erase(ph);
    }
    if let Some((g, taken)) = p.guard {
        set_branch(m, g, taken);
    }
}

/// The exit's phis: the edge from the latch now comes from the last copy's latch with its
/// values; the always-taken guard's edge is gone.
fn retarget_exit_phis(m: &mut Module, p: &Plan, last_latch: BlockId, cur: &HashMap<Id, Id>) {
    let new_ll = m.block_label(last_latch);
    let ll = m.block_label(p.latch);
    let exit_phis: Vec<InstId> = m.block_phis(p.exit).collect();
    let guard_label = p.guard.map(|(g, _)| m.block_label(g));
    for ph in exit_phis {
        let inst = m.inst(ph);
        let ops: Vec<u32> = inst.operands().to_vec();
        let (Some(rt), Some(r)) = (inst.result_type(), inst.result_id()) else {
            continue;
        };
        let mut w = vec![rt.word(), r.word()];
        for c in ops.chunks(2) {
            if Some(c[1]) == guard_label.map(|x| x.word()) {
                continue;
            }
            if c[1] == ll.word() {
                let v = Id::new(c[0]).map(|v| *cur.get(&v).unwrap_or(&v));
                w.extend([v.map_or(c[0], |v| v.word()), new_ll.word()]);
            } else {
                w.extend_from_slice(c);
            }
        }
        m.set_inst_words(ph, &w);
    }
}

/// Uses of the loop's values after it (outside the loop and its copies): the last copy's.
fn redirect_outside_uses(
    m: &mut Module,
    p: &Plan,
    originals: &[(BlockId, Vec<InstId>)],
    new_blocks: &[BlockId],
    cur: &HashMap<Id, Id>,
) {
    let loop_insts: std::collections::HashSet<InstId> = originals
        .iter()
        .flat_map(|(_, v)| v.iter().copied())
        .collect();
    let outside: Vec<InstId> = m
        .function(m.block(p.header).func)
        .blocks
        .iter()
        .filter(|b| !p.blocks.contains(b) && !new_blocks.contains(b))
        .flat_map(|&b| m.block_insts(b).collect::<Vec<_>>())
        .filter(|&i| !m.inst(i).is(Op::Phi) || m.inst_block(i) != Some(p.exit))
        .collect();
    for i in outside {
        let mut uses = Vec::new();
        m.for_each_used_id(i, |id| uses.push(id));
        let from_loop = |id: &Id| m.def(*id).is_some_and(|d| loop_insts.contains(&d));
        if uses.iter().any(from_loop) {
            let moved: HashMap<Id, Id> = uses
                .iter()
                .filter(|id| from_loop(id))
                .filter_map(|id| cur.get(id).map(|v| (*id, *v)))
                .collect();
            m.map_used_ids(i, |id| *moved.get(&id).unwrap_or(&id));
        }
    }
}

/// Makes `b`'s terminator an unconditional branch to `to`.
fn set_branch(m: &mut Module, b: BlockId, to: Id) {
    let t = m.block_terminator(b).expect("a block has a terminator");
    m.replace_inst(t, Inst::new(Op::Branch, None, None, &[to.word()]));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trip_counts_follow_each_invocations_start() {
        // `for (i = lid; i < 256; i += 64)`, rotated: the latch tests `i < 192`.
        for lid in [0, 17, 63] {
            assert_eq!(
                lane_trips(Op::SLessThan, lid, 64, 192, 32, false, true),
                Some(4)
            );
        }
        // The same test on the incremented value, `i + 64 < 256`.
        assert_eq!(
            lane_trips(Op::SLessThan, 63, 64, 256, 32, true, true),
            Some(4)
        );
        // A bound that is not a multiple of the step: invocations differ.
        assert_eq!(
            lane_trips(Op::SLessThan, 60, 64, 248 - 64, 32, false, true),
            Some(3)
        );
        assert_eq!(
            lane_trips(Op::SLessThan, 0, 64, 248 - 64, 32, false, true),
            Some(4)
        );
        // Exit when the condition holds (the header is the false target).
        assert_eq!(
            lane_trips(Op::SGreaterThanEqual, 0, 64, 192, 32, false, false),
            Some(4)
        );
    }

    #[test]
    fn trip_counts_stop_past_the_budget() {
        // A loop that never exits in 32 bits is cut at the budget (then rejected by the caller).
        assert_eq!(
            lane_trips(Op::INotEqual, 0, 2, 7, 32, false, true),
            Some(MAX_TRIPS + 1)
        );
        // Unsupported comparisons are not evaluated.
        assert_eq!(lane_trips(Op::IEqual, 0, 1, 7, 32, false, true), None);
    }

    #[test]
    fn comparisons_use_the_operands_width() {
        // i8: 120 + 16 wraps to -120, which is still < 127.
        assert_eq!(
            lane_trips(Op::SLessThan, 120, 16, 127, 8, true, true),
            Some(MAX_TRIPS + 1)
        );
        // Unsigned: -1 is the largest value.
        assert_eq!(
            lane_trips(Op::ULessThan, 0, 64, -1, 32, false, true),
            Some(MAX_TRIPS + 1)
        );
    }
}
