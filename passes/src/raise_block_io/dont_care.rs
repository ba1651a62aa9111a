//! raise-block-io: the `% M` remainders whose upper bound needs no run-time check, because the
//! rows (columns) it would exclude only reach result rows (columns) the kernel never stores.
//!
//! Triton's tensor-of-pointers GEMM (tutorial 03) reads A at rows `(pid·BM + r) % M` and B at
//! columns `(pid·BN + c) % N`. The lane map takes each remainder as its dividend under
//! `0 ≤ a < M`, checked at run time; in an edge tile that check fails and the whole work-group
//! runs the unchanged body. There the raised block load differs from the original only in rows
//! `a ≥ M` (zeros instead of the wrapped rows). Those rows do not matter when:
//! - every MMA that reads the raised A (B) operands has raised A and B operands and its result
//!   flows only into MMAs of the same tile (as their accumulator), phis, per-component
//!   conversions, component extracts and inserts, and the epilogue's staging stores (so a
//!   value's row `i` only ever reaches row `i`: an MMA's result row `i` depends on its A row `i`
//!   and its accumulator row `i` alone, and column `j` on B's column `j` and the accumulator's);
//! - each staged element lands in the epilogue's 2D block store at the same global row (column)
//!   the A row (B column) it came from was read at, and the store's surface has the A (B)
//!   surface's height (width): rows `≥ M` are outside it, and a 2D block store writes nothing
//!   outside its surface;
//! - the remainder is dead in the raised copy (its only uses were the gathers' addresses), so
//!   no other value depends on taking it as its dividend (checked by the rewrite);
//! - the bound is not used by any other plan (e.g. the epilogue's).
//!
//! The lower bound (`0 ≤ a`) is still checked: a negative row would be a different element.

use std::cell::RefCell;
use std::collections::HashMap;

use spirv::Op;
use spvopt_analysis::block_io::BlockKind;
use spvopt_analysis::fxhash::FxHashMap;
use spvopt_analysis::lane_map::Poly;
use spvopt_ir::{FuncId, Id, InstId, Module};

use super::epilogue::EpiloguePlan;
use super::plan::OperandPlan;
use super::Slot;
use spvopt_analysis::block_io::layout::Layout;

/// How a value carries rows of an MMA tile (the MMA whose plans define the tile).
#[derive(Clone, Debug, PartialEq, Eq)]
enum Taint {
    /// A vector whose component `k` may carry row `parts[k]` (`None`: no row of the tile).
    Parts(InstId, Vec<Option<u32>>),
    /// A scalar that may carry row `i`.
    Row(InstId, u32),
}

/// The instructions the taint follows (`eval` computes their result's taint).
fn follows(inst: &spvopt_ir::Inst) -> bool {
    matches!(
        inst.op(),
        Some(
            Op::Phi
                | Op::CompositeExtract
                | Op::CompositeInsert
                | Op::FConvert
                | Op::SConvert
                | Op::UConvert
                | Op::ConvertFToS
                | Op::ConvertFToU
                | Op::ConvertSToF
                | Op::ConvertUToF
                | Op::ConvertFToBF16INTEL
                | Op::ConvertBF16ToFINTEL
                | Op::CopyObject
        )
    )
}

/// The taint of `inst`'s result from its operands' taints (`Ok(None)`: untainted), or `None`
/// when an instruction mixes rows in a way this analysis does not follow.
fn eval(
    m: &Module,
    taint: &HashMap<Id, Taint>,
    inst: &spvopt_ir::Inst,
    same_tile: &dyn Fn(InstId, InstId) -> bool,
) -> Option<Option<Taint>> {
    let op = inst.op()?;
    let get = |k: usize| inst.operand_id(k).and_then(|id| taint.get(&id));
    match op {
        Op::Phi => {
            let mut acc: Option<Taint> = None;
            for pair in inst.operands().chunks(2) {
                let Some(t) = spvopt_ir::Id::new(pair[0]).and_then(|id| taint.get(&id)) else {
                    continue;
                };
                acc = Some(match acc {
                    None => t.clone(),
                    Some(a) => merge(&a, t, same_tile)?,
                });
            }
            Some(acc)
        }
        Op::CompositeExtract => {
            let (Some(Taint::Parts(s, parts)), 2) = (get(0), inst.operands().len()) else {
                return if get(0).is_some() { None } else { Some(None) };
            };
            let k = inst.operand_word(1)? as usize;
            Some(parts.get(k)?.map(|i| Taint::Row(*s, i)))
        }
        Op::CompositeInsert => {
            if inst.operands().len() != 3 {
                return None;
            }
            let k = inst.operand_word(2)? as usize;
            let n = m
                .def_inst(inst.result_type()?)
                .filter(|t| t.is(Op::TypeVector))
                .and_then(|t| t.operand_word(1))?;
            let (obj, comp) = (get(0), get(1));
            let (s, mut parts) = match comp {
                Some(Taint::Parts(s, p)) => (Some(*s), p.clone()),
                Some(Taint::Row(..)) => return None,
                None => (None, vec![None; n as usize]),
            };
            let s = match obj {
                Some(Taint::Row(so, i)) => {
                    if s.is_some_and(|s| !same_tile(s, *so)) {
                        return None;
                    }
                    *parts.get_mut(k)? = Some(*i);
                    Some(s.unwrap_or(*so))
                }
                Some(Taint::Parts(..)) => return None,
                None => {
                    *parts.get_mut(k)? = None;
                    s
                }
            };
            Some(s.map(|s| Taint::Parts(s, parts)))
        }
        _ if follows(inst) => Some(get(0).cloned()),
        _ => None,
    }
}

/// Two taints of one value merged (rows must agree where both carry one), ignoring tiles.
fn merge_rows(a: &Taint, b: &Taint) -> Option<Taint> {
    match (a, b) {
        (Taint::Row(s, i), Taint::Row(_, j)) if i == j => Some(Taint::Row(*s, *i)),
        (Taint::Parts(s, p), Taint::Parts(_, q)) if p.len() == q.len() => {
            let mut out = p.clone();
            for (o, x) in out.iter_mut().zip(q) {
                match (*o, *x) {
                    (_, None) => {}
                    (None, Some(j)) => *o = Some(j),
                    (Some(i), Some(j)) if i == j => {}
                    _ => return None,
                }
            }
            Some(Taint::Parts(*s, out))
        }
        _ => None,
    }
}

/// [`merge_rows`] of values of the same tile.
fn merge(a: &Taint, b: &Taint, same_tile: &dyn Fn(InstId, InstId) -> bool) -> Option<Taint> {
    let (x, y) = match (a, b) {
        (Taint::Row(x, _), Taint::Row(y, _)) | (Taint::Parts(x, _), Taint::Parts(y, _)) => (*x, *y),
        _ => return None,
    };
    if !same_tile(x, y) {
        return None;
    }
    merge_rows(a, b)
}

/// The A (index 0) and B (index 1) plans of one MMA of the raised loops.
type MmaPlans<'p> = [Option<&'p OperandPlan>; 2];

/// The remainders the raised loops' plans assume, by the dimension they bound.
struct Assumed<'p> {
    /// The A and B plans of every MMA of the raised loops.
    mmas: HashMap<InstId, MmaPlans<'p>>,
    /// Remainders that bound A's rows.
    rows: Vec<Id>,
    /// Remainders that bound B's columns.
    cols: Vec<Id>,
}

/// The MMAs' plans and the remainders that are candidates: A row and B column bounds no
/// other plan (another dimension, or the epilogue's) assumes.
fn assumed<'p>(loops: &[&'p [(Id, OperandPlan, Vec<Slot>)]], ep: &EpiloguePlan) -> Assumed<'p> {
    let mut mmas: HashMap<InstId, MmaPlans<'p>> = HashMap::new();
    let mut rows: Vec<Id> = Vec::new();
    let mut cols: Vec<Id> = Vec::new();
    let mut bad: Vec<Id> = Vec::new();
    for plans in loops {
        for (_, plan, uses) in plans.iter() {
            for s in uses {
                mmas.entry(s.mma).or_default()[s.index - 1] = Some(plan);
                for &(r, dim) in &plan.assumed {
                    match (s.index, dim) {
                        (1, 0) => rows.push(r),
                        (2, 1) => cols.push(r),
                        _ => bad.push(r),
                    }
                }
            }
        }
    }
    for t in &ep.tiles {
        bad.extend(t.plan.assumed.iter().map(|a| a.0));
    }
    for v in [&mut rows, &mut cols] {
        v.retain(|r| !bad.contains(r));
        v.sort_unstable();
        v.dedup();
    }
    Assumed { mmas, rows, cols }
}

/// Whether every MMA has A a plain load whose operand element k is row k / (elements per
/// row), rows = result components (4-byte), and B a load whose lane l holds column l.
fn mma_layouts_follow_rows(
    m: &Module,
    mmas: &HashMap<InstId, MmaPlans<'_>>,
    sg: u32,
) -> Option<()> {
    for (&mma, [a, b]) in mmas {
        let (a, b) = ((*a)?, (*b)?);
        if a.kind != BlockKind::Load || a.pack != 1 || b.pack != 1 {
            return None;
        }
        if !matches!(b.kind, BlockKind::Load | BlockKind::LoadTransform) || b.shape.1 != sg {
            return None;
        }
        let inst = m.inst(mma);
        let rt = m.def_inst(inst.result_type()?)?;
        if !rt.is(Op::TypeVector) || rt.operand_word(1)? != a.shape.2 {
            return None;
        }
        let comp = m.def_inst(rt.operand_id(0)?)?;
        if comp.operand_word(0)? != 32 {
            return None;
        }
        let lay = Layout::new(a.kind, a.shape, sg).ok()?;
        if lay.width != sg {
            return None;
        }
        for v in 0..lay.values_per_block {
            if lay.position(0, v).0 != v / (lay.values_per_block / lay.height) {
                return None;
            }
        }
    }
    Some(())
}

/// The taint analysis of one function: how the raised MMAs' results carry their tiles' rows.
struct Rows<'a, 'p> {
    m: &'a Module,
    ep: &'a EpiloguePlan,
    mmas: &'a HashMap<InstId, MmaPlans<'p>>,
    /// Users of every id of the function.
    users: FxHashMap<Id, Vec<InstId>>,
    /// [`Rows::same_tile`] of the pairs asked so far (the fixpoint asks the same pairs over
    /// and over; each answer compares several polynomials).
    same: RefCell<FxHashMap<(InstId, InstId), bool>>,
}

impl Rows<'_, '_> {
    /// Whether MMAs `x` and `y` compute the same tile: the same A rows and B columns of the
    /// same surfaces.
    fn same_tile(&self, x: InstId, y: InstId) -> bool {
        if let Some(&same) = self.same.borrow().get(&(x, y)) {
            return same;
        }
        let same = self.compare_tiles(x, y);
        self.same.borrow_mut().insert((x, y), same);
        same
    }

    /// [`Rows::same_tile`], computed.
    fn compare_tiles(&self, x: InstId, y: InstId) -> bool {
        let ([Some(a1), Some(b1)], [Some(a2), Some(b2)]) = (self.mmas[&x], self.mmas[&y]) else {
            return false;
        };
        let same = |p: &[Poly], q: &[Poly]| {
            p.len() == q.len() && p.iter().zip(q).all(|(x, y)| x.same_as(y))
        };
        same(&a1.y, &a2.y)
            && a1.height.same_as(&a2.height)
            && same(&b1.x, &b2.x)
            && b1.width.same_as(&b2.width)
            && a1.shape.0 == a2.shape.0
            && b1.shape.0 == b2.shape.0
    }

    /// The users of `v`.
    fn users_of(&self, v: Id) -> &[InstId] {
        self.users.get(&v).map(Vec::as_slice).unwrap_or(&[])
    }

    /// The taints, to a fixpoint: a value's taint only grows (components gain rows); `None`
    /// when a value mixes rows in a way this analysis does not follow.
    fn taints(&self) -> Option<HashMap<Id, Taint>> {
        let m = self.m;
        let same_tile = |x: InstId, y: InstId| self.same_tile(x, y);
        let mut taint: HashMap<Id, Taint> = HashMap::new();
        let mut work: Vec<InstId> = Vec::new();
        for &mma in self.mmas.keys() {
            let r = m.inst(mma).result_id()?;
            let n = m
                .def_inst(m.inst(mma).result_type()?)
                .and_then(|t| t.operand_word(1))?;
            taint.insert(r, Taint::Parts(mma, (0..n).map(Some).collect()));
            work.extend_from_slice(self.users_of(r));
        }
        let mut steps = 0usize;
        while let Some(u) = work.pop() {
            steps += 1;
            if steps > 1 << 18 {
                return None;
            }
            let inst = m.inst(u);
            let Some(r) = inst.result_id() else { continue };
            if self.mmas.contains_key(&u) {
                continue;
            }
            let Some(t) = eval(m, &taint, inst, &same_tile)? else {
                continue;
            };
            let merged = match taint.get(&r) {
                Some(old) => merge(old, &t, &same_tile)?,
                None => t,
            };
            if taint.get(&r) != Some(&merged) {
                taint.insert(r, merged);
                work.extend_from_slice(self.users_of(r));
            }
        }
        Some(taint)
    }

    /// Whether tainted value `v` (taint `t`) ends only as an accumulator of MMAs of its tile,
    /// in the epilogue's staging stores at its rows, or in the instructions `eval` follows.
    fn ends_well(&self, v: Id, t: &Taint) -> Option<()> {
        for &u in self.users_of(v) {
            let inst = self.m.inst(u);
            let is = |k: usize| inst.operand_id(k) == Some(v);
            match inst.op()? {
                Op::SubgroupMatrixMultiplyAccumulateINTEL => {
                    let Taint::Parts(s, parts) = t else {
                        return None;
                    };
                    let own_rows = parts
                        .iter()
                        .enumerate()
                        .all(|(k, p)| p.is_none_or(|i| i as usize == k));
                    if !self.mmas.contains_key(&u)
                        || !is(3)
                        || is(1)
                        || is(2)
                        || !own_rows
                        || !self.same_tile(*s, u)
                    {
                        return None;
                    }
                }
                Op::Store => {
                    if is(0) || !is(1) {
                        return None;
                    }
                    match t {
                        Taint::Row(s, i) => lands_on_its_row(self.ep, self.mmas, u, 0, *i, *s)?,
                        Taint::Parts(s, parts) => {
                            for (k, p) in parts.iter().enumerate() {
                                if let Some(i) = p {
                                    lands_on_its_row(self.ep, self.mmas, u, k as u32, *i, *s)?;
                                }
                            }
                        }
                    }
                }
                _ => {
                    if !follows(inst) {
                        return None;
                    }
                }
            }
        }
        Some(())
    }
}

/// Users of every id of function `f`.
fn users(m: &Module, f: FuncId) -> FxHashMap<Id, Vec<InstId>> {
    let mut users: FxHashMap<Id, Vec<InstId>> = FxHashMap::default();
    for &blk in &m.function(f).blocks {
        for i in m.block_insts(blk) {
            m.for_each_used_id(i, |u| users.entry(u).or_default().push(i));
        }
    }
    users
}

/// The remainders (lane map assumptions) whose upper bound may go unchecked when they are dead
/// in the raised copy (see the module documentation).
pub fn relaxable(
    m: &Module,
    f: FuncId,
    loops: &[&[(Id, OperandPlan, Vec<Slot>)]],
    ep: Option<&EpiloguePlan>,
    sg: u32,
) -> Vec<Id> {
    let Some(ep) = ep else { return Vec::new() };
    let Assumed { mmas, rows, cols } = assumed(loops, ep);
    if rows.is_empty() && cols.is_empty() {
        return Vec::new();
    }
    let ok = || -> Option<()> {
        mma_layouts_follow_rows(m, &mmas, sg)?;
        let analysis = Rows {
            m,
            ep,
            mmas: &mmas,
            users: users(m, f),
            same: RefCell::default(),
        };
        let taint = analysis.taints()?;
        for (&v, t) in &taint {
            analysis.ends_well(v, t)?;
        }
        Some(())
    };
    if ok().is_none() {
        return Vec::new();
    }
    let mut out = rows;
    out.extend(cols);
    out.sort_unstable();
    out.dedup();
    out
}

/// Whether staged element (`store`, `k`) — row `i` of the tile of `mma` — is stored by the
/// epilogue at that row and the tile's columns, inside a surface no larger than A's and B's.
fn lands_on_its_row(
    ep: &EpiloguePlan,
    mmas: &HashMap<InstId, [Option<&OperandPlan>; 2]>,
    store: InstId,
    k: u32,
    i: u32,
    mma: InstId,
) -> Option<()> {
    let [Some(a), Some(b)] = mmas.get(&mma)? else {
        return None;
    };
    let (tile, r) = ep.tiles.iter().find_map(|t| {
        t.rows
            .iter()
            .position(|&x| x == (store, k))
            .map(|r| (t, r as i64))
    })?;
    let c = &tile.plan;
    if c.y.len() != a.y.len() || c.x.len() != b.x.len() || c.pack != 1 {
        return None;
    }
    for (cy, ay) in c.y.iter().zip(&a.y) {
        let d = cy.sub(ay)?.as_constant()?;
        if d + r != i64::from(i) {
            return None;
        }
    }
    for (cx, bx) in c.x.iter().zip(&b.x) {
        if !cx.same_as(bx) {
            return None;
        }
    }
    // Surfaces: C's height is A's; C's width in elements is B's.
    let (ec, eb) = (i64::from(c.shape.0), i64::from(b.shape.0));
    if !c.height.same_as(&a.height) || !c.width.scale(eb).same_as(&b.width.scale(ec)) {
        return None;
    }
    Some(())
}
