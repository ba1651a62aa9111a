//! Uniformity: which values are dynamically uniform within a subgroup (the same in every
//! invocation of the subgroup that executes the instruction).
//!
//! Divergence is a monotone property found by a worklist fixed point that starts from
//! "everything uniform" and only ever adds divergence, per value and per vector component
//! (bit k of a mask: component k may differ; scalars use all bits). Sources of divergence:
//! - built-ins: `SubgroupLocalInvocationId`, `LocalInvocationIndex`, `GlobalLinearId`, the
//!   subgroup masks and any built-in we do not know; the components of
//!   `GlobalInvocationId`/`LocalInvocationId` that may differ within a subgroup: subgroups are
//!   consecutive linear local ids, so `y` is uniform when the work-group's x size is a multiple
//!   of the subgroup size, `z` when `x*y` is, and a dimension of size 1 always (both sizes
//!   declared by every entry point reaching the reading function: `LocalSize`, `SubgroupSize`;
//!   [`KernelFacts::local_id_subgroup_uniform`], per function: two kernels of one module may
//!   differ). `WorkgroupId`,
//!   `NumWorkgroups`, `SubgroupId`, `SubgroupSize`, `NumSubgroups`, `SubgroupMaxSize`,
//!   `WorkgroupSize`, `GlobalSize`, `GlobalOffset`, … are uniform. Built-ins are `Input`
//!   variables decorated `BuiltIn` or imported as `__spirv_BuiltIn<Name>`;
//! - loads through divergent pointers, loads of Function/Private variables whose contents are
//!   divergent (written with a divergent value or pointer, written under divergent control,
//!   written by a 2D block load/atomic/copy, or whose address escapes), loads through pointers
//!   of unknown root that may point to private memory, non-built-in `Input` variables;
//! - results of atomics, subgroup shuffles/scans/block reads, MMA, unknown calls, integer
//!   conversions of private addresses;
//! - sync dependence: when a branch condition is divergent, phis in blocks where paths from its
//!   two sides meet (within the region before its immediate post-dominator, and at the
//!   post-dominator) become divergent, stores in the region make their variable divergent, and
//!   returns in it make the function's result divergent. If the branch leaves a loop, the loop
//!   has a divergent exit: phis in its exit blocks and every value defined in it and used
//!   outside become divergent (invocations leave at different iterations);
//! - interprocedurally: a parameter is divergent when some call passes a divergent argument
//!   (parameters of entry points are uniform: kernel arguments; a non-entry function nobody
//!   calls has divergent parameters), a call result when the callee may return a divergent
//!   value. A function exported through `LinkageAttributes` (Triton's kernel function) is
//!   assumed to be called only from this module: kernel modules are final, nothing links
//!   against them.
//!
//! Uniform by construction: constants, `OpUndef` (any value may be chosen, so the same one
//! may), `OpVariable` pointers, results of subgroup/work-group broadcasts, reductions and
//! votes (`OpGroupNonUniformBroadcast[First]`, `…All/Any/AllEqual/Ballot`, `Reduce`
//! arithmetic, `OpGroupBroadcast`, `OpGroup*` reductions, `OpSubgroupFirstInvocationKHR`,
//! `OpSubgroupReadInvocationKHR`, …) at Subgroup or Workgroup scope, and the OpenCL work-item
//! queries and subgroup collectives called as imported builtins.
//! Everything else is divergent as soon as an operand is (component-wise for vector
//! arithmetic and composite instructions).
//!
//! Cost: every function-body instruction's operands are decoded once (functions callers-first,
//! blocks in reverse post-order) into a flat table, and its users indexed (CSR); masks are one
//! word per id. Instructions are then evaluated in that order, and when a value gains
//! divergence its users already evaluated are re-evaluated at once (a loop-header phi right
//! after its back-edge value changes, so code after the loop is evaluated once, with final
//! values). An instruction whose result is divergent in every component already (and that is
//! no call) is never re-evaluated: nothing it does can change. Masks only grow (at most 64 bits
//! per value), so the total work is linear in the uses. Divergent-region walks are bounded by
//! a budget per function; past it the function's phis, stores and loops are all treated as
//! divergent.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::fxhash::{FxHashMap as HashMap, FxHashSet as HashSet};

use spirv::{Op, StorageClass};
use spvopt_ir::{BlockId, FuncId, Id, InstId, Module, Section};

use crate::block_io::block_io;
use crate::builtins::{
    builtin_of_variable, builtin_uniformity, debug_names, entry_point_functions, BuiltinUniformity,
    CalleeKind, Callees,
};
use crate::cache::{Analyses, Analysis, AnalysisSet};
use crate::call_graph::CallGraph;
use crate::cfg::Cfg;
use crate::decorations::Decorations;
use crate::dominators::Dominators;
use crate::kernel_facts::KernelFacts;
use crate::loops::{LoopId, Loops};
use crate::operands::for_each_value_operand;
use crate::operands::op_of;
use crate::post_dominators::PostDominators;
use crate::provenance::{Provenance, Root};
use crate::types::{pointer_of, size_of, vector_of};
use spvopt_ir::opcode_class::{
    op_class, OpClass, OP_PREDICATED_LOAD_INTEL, OP_PREDICATED_STORE_INTEL,
};

mod control;
mod values;

const ALL: u64 = u64::MAX;

/// Solver states of an instruction.
const NOT_EVALUATED: u8 = 0;
const EVALUATED: u8 = 1;
const QUEUED: u8 = 2;
/// Evaluated, and evaluating it again cannot change anything: its result is divergent in
/// every component already and it is not a call (whose arguments flow into parameters); its
/// other effects (private variables written by atomics, copies, 2D block loads) do not depend
/// on masks and were applied when it was first evaluated. Such an instruction is never queued
/// again (most re-evaluations in a loop whose values diverge were of those).
const FINAL: u8 = 3;

/// Per-value subgroup uniformity.
#[derive(Clone, Debug, Default)]
pub struct Uniformity {
    div: DivTable,
    divergent_branches: HashSet<BlockId>,
    divergent_control: HashSet<BlockId>,
    divergent_exit_loops: HashSet<LoopId>,
    divergent_variables: HashSet<Id>,
}

impl Analysis for Uniformity {
    const KIND: AnalysisSet = AnalysisSet::UNIFORMITY;
    const DEPENDS_ON: AnalysisSet = AnalysisSet(
        AnalysisSet::CFG.0
            | AnalysisSet::DOMINATORS.0
            | AnalysisSet::LOOPS.0
            | AnalysisSet::INDUCTION.0
            | AnalysisSet::ALIAS.0
            | AnalysisSet::DECORATIONS.0
            | AnalysisSet::KERNEL_FACTS.0,
    );
    fn compute(m: &Module, analyses: &mut Analyses) -> Self {
        let cfg = analyses.get::<Cfg>(m);
        let dom = analyses.get::<Dominators>(m);
        let pdom = analyses.get::<PostDominators>(m);
        let loops = analyses.get::<Loops>(m);
        let prov = analyses.get::<Provenance>(m);
        let dec = analyses.get::<Decorations>(m);
        let callees = analyses.get::<Callees>(m);
        let facts = analyses.get::<KernelFacts>(m);
        let s = Solver::new(m, &cfg, &dom, &pdom, &loops, &prov, &dec, &callees, &facts);
        Uniformity::solve(s)
    }
    /// The same divergence of every id (ids only one of them has are uniform there) and the
    /// same divergent branches, control, loop exits and variables.
    fn same_facts(&self, fresh: &Self) -> bool {
        crate::cache::same_table(&self.div.kind, &fresh.div.kind, &UNIFORM)
            && self.div.partial == fresh.div.partial
            && self.divergent_branches == fresh.divergent_branches
            && self.divergent_control == fresh.divergent_control
            && self.divergent_exit_loops == fresh.divergent_exit_loops
            && self.divergent_variables == fresh.divergent_variables
    }
}

impl Uniformity {
    /// Whether `id` is dynamically uniform in the subgroup (all components).
    pub fn is_uniform(&self, id: Id) -> bool {
        self.divergent_mask(id) == 0
    }

    /// Bit k set: component k of `id` may differ between invocations (all bits for a
    /// divergent scalar; bit 63 stands for components 63 and above).
    pub fn divergent_mask(&self, id: Id) -> u64 {
        self.div.get(id)
    }

    /// Whether component `k` of the vector `id` is uniform.
    pub fn is_component_uniform(&self, id: Id, k: u32) -> bool {
        self.divergent_mask(id) & bit(k) == 0
    }

    /// Whether the terminator of `b` branches on a divergent condition.
    pub fn is_divergent_branch(&self, b: BlockId) -> bool {
        self.divergent_branches.contains(&b)
    }

    /// Whether `b` may be executed by only part of the subgroup (it lies in the region of a
    /// divergent branch, before that branch's immediate post-dominator).
    pub fn is_divergent_control(&self, b: BlockId) -> bool {
        self.divergent_control.contains(&b)
    }

    /// Whether invocations may leave loop `l` in different iterations.
    pub fn has_divergent_exit(&self, l: LoopId) -> bool {
        self.divergent_exit_loops.contains(&l)
    }

    /// Whether the Function/Private variable `var` may hold different values in different
    /// invocations.
    pub fn is_divergent_variable(&self, var: Id) -> bool {
        self.divergent_variables.contains(&var)
    }

    fn solve(mut s: Solver<'_>) -> Uniformity {
        s.run();
        Uniformity {
            div: DivTable::from_masks(&s.div),
            divergent_branches: s.divergent_branches,
            divergent_control: s.divergent_control,
            divergent_exit_loops: s.divergent_exit_loops,
            divergent_variables: s.divergent_vars,
        }
    }
}

/// Divergence masks by id: one byte per id (uniform / all components divergent / partial),
/// with the partial masks of vectors in a side table sorted by id (binary search).
#[derive(Clone, Debug, Default)]
struct DivTable {
    kind: Vec<u8>,
    partial: Vec<(Id, u64)>,
}

const UNIFORM: u8 = 0;
const PARTIAL: u8 = 1;
const DIVERGENT: u8 = 2;

impl DivTable {
    fn new(bound: usize) -> DivTable {
        DivTable {
            kind: vec![UNIFORM; bound],
            partial: Vec::new(),
        }
    }

    /// The table of the solver's dense masks (index: id).
    fn from_masks(masks: &[u64]) -> DivTable {
        let mut t = DivTable::new(masks.len());
        for (k, &mask) in masks.iter().enumerate() {
            if mask == 0 {
                continue;
            }
            if mask == ALL {
                t.kind[k] = DIVERGENT;
            } else if let Some(id) = Id::new(k as u32) {
                t.kind[k] = PARTIAL;
                t.partial.push((id, mask));
            }
        }
        t
    }

    fn get(&self, id: Id) -> u64 {
        match self.kind.get(id.index()) {
            Some(&UNIFORM) => 0,
            Some(&PARTIAL) => self
                .partial
                .binary_search_by_key(&id, |&(x, _)| x)
                .map_or(ALL, |k| self.partial[k].1),
            _ => ALL,
        }
    }
}

fn bit(k: u32) -> u64 {
    1u64 << k.min(63)
}

struct Solver<'a> {
    m: &'a Module,
    cfg: &'a Cfg,
    dom: &'a Dominators,
    pdom: &'a PostDominators,
    loops: &'a Loops,
    prov: &'a Provenance,
    callees: &'a Callees,
    /// Divergence mask per id (dense: one word per id while solving; the result keeps one
    /// byte per id, [`DivTable`]).
    div: Vec<u64>,
    /// Per instruction (arena index): its position in `insts` (evaluation order), whose
    /// operands `op_start`/`op_ids` hold decoded; `u32::MAX` for instructions not in a
    /// function body.
    pos: Vec<u32>,
    /// Instructions with an operand id past the bound (malformed input): left out of the
    /// decoded operands, seen (divergent) when re-evaluated, which decodes them again.
    past_bound: HashSet<InstId>,
    // Users (CSR by id) of every value, among function-body instructions.
    user_start: Vec<u32>,
    users: Vec<InstId>,
    /// Instructions to re-evaluate, by position (`pos`): taken in program order, so a value
    /// is re-evaluated after everything it depends on that is queued too (a chain of
    /// `OpCompositeInsert`s over eight phis that all change runs once, not eight times).
    worklist: BinaryHeap<Reverse<u32>>,
    /// Per instruction: [`NOT_EVALUATED`], [`EVALUATED`], [`QUEUED`] for re-evaluation, or
    /// [`FINAL`].
    state: Vec<u8>,
    builtin_masks: HashMap<Id, u64>,
    /// `GlobalInvocationId`/`LocalInvocationId`-like variables (component count).
    divergent_x: HashMap<Id, u32>,
    /// Per function (by index): the components of those built-ins that may differ.
    yz_divergent: Vec<u64>,
    params: Vec<Vec<Id>>,
    calls_to: HashMap<FuncId, Vec<InstId>>,
    func_of_id: HashMap<Id, FuncId>,
    returns_divergent: HashSet<FuncId>,
    loads_of_var: HashMap<Id, Vec<InstId>>,
    divergent_vars: HashSet<Id>,
    divergent_branches: HashSet<BlockId>,
    divergent_control: HashSet<BlockId>,
    divergent_exit_loops: HashSet<LoopId>,
    /// Remaining region-walk budget per function.
    budget: Vec<i64>,
    exhausted: HashSet<FuncId>,
    block_stamp: Vec<u32>,
    stamp: u32,
    /// Function-body instructions, their value operands (flat), and each one's position.
    insts: Vec<InstId>,
    op_start: Vec<u32>,
    op_ids: Vec<Id>,
    /// Operands of the instruction being evaluated: a range of `op_ids` (decoded once), or
    /// `scratch` (range start `u32::MAX`) for an instruction with an operand past the bound.
    ops_range: (u32, u32),
    scratch: Vec<Id>,
    region_buf: Vec<BlockId>,
    stack_buf: Vec<BlockId>,
}

impl<'a> Solver<'a> {
    #[allow(clippy::too_many_arguments)] // the analyses it reads, each by reference
    fn new(
        m: &'a Module,
        cfg: &'a Cfg,
        dom: &'a Dominators,
        pdom: &'a PostDominators,
        loops: &'a Loops,
        prov: &'a Provenance,
        dec: &Decorations,
        callees: &'a Callees,
        facts: &KernelFacts,
    ) -> Solver<'a> {
        let bound = m.id_capacity(); // max defined id + 1: never the untrusted header bound
        let arena = m.arena_len();
        let mut s = Solver {
            m,
            cfg,
            dom,
            pdom,
            loops,
            prov,
            callees,
            div: vec![0; bound],
            pos: vec![u32::MAX; arena],
            past_bound: HashSet::default(),
            user_start: Vec::new(),
            users: Vec::new(),
            worklist: BinaryHeap::new(),
            state: vec![0; arena],
            builtin_masks: HashMap::default(),
            divergent_x: HashMap::default(),
            yz_divergent: Vec::new(),
            params: Vec::new(),
            calls_to: HashMap::default(),
            func_of_id: HashMap::default(),
            returns_divergent: HashSet::default(),
            loads_of_var: HashMap::default(),
            divergent_vars: HashSet::default(),
            divergent_branches: HashSet::default(),
            divergent_control: HashSet::default(),
            divergent_exit_loops: HashSet::default(),
            budget: Vec::new(),
            exhausted: HashSet::default(),
            block_stamp: vec![0; cfg.block_slots()],
            stamp: 0,
            insts: Vec::new(),
            op_start: Vec::new(),
            op_ids: Vec::new(),
            ops_range: (u32::MAX, 0),
            scratch: Vec::new(),
            region_buf: Vec::new(),
            stack_buf: Vec::new(),
        };
        s.init_builtins(dec, facts);
        s.init_structure();
        s
    }

    fn init_builtins(&mut self, dec: &Decorations, facts: &KernelFacts) {
        let m = self.m;
        let input = StorageClass::Input as u32;
        // Input variables without a BuiltIn decoration or linkage name may be named by OpName.
        let undecorated: HashSet<Id> = m
            .section_insts(Section::Global)
            .filter(|(_, i)| i.is(Op::Variable) && i.operand_word(0) == Some(input))
            .filter_map(|(_, i)| i.result_id())
            .filter(|&v| dec.builtin(v).is_none() && dec.linkage(v).is_none())
            .collect();
        let names = if undecorated.is_empty() {
            HashMap::default()
        } else {
            debug_names(m, &|id| undecorated.contains(&id))
        };
        for (_, inst) in m.section_insts(Section::Global) {
            if !inst.is(Op::Variable) || inst.operand_word(0) != Some(input) {
                continue;
            }
            let Some(v) = inst.result_id() else { continue };
            let comps = inst
                .result_type()
                .and_then(|t| pointer_of(m, t))
                .and_then(|(_, p)| vector_of(m, p))
                .map_or(1, |(_, n)| n);
            let mask = match builtin_of_variable(dec, &names, v).map(builtin_uniformity) {
                Some(BuiltinUniformity::Uniform) => 0,
                Some(BuiltinUniformity::DivergentX) if comps > 1 => {
                    // x differs; y and z only when the work-group of the reading function's
                    // kernels is not 1 wide there (decided per function at the load).
                    self.divergent_x.insert(v, comps);
                    ALL
                }
                _ => ALL,
            };
            self.builtin_masks.insert(v, mask);
        }
        if !self.divergent_x.is_empty() {
            // Per function: components of a `GlobalInvocationId`/`LocalInvocationId` that may
            // differ, from the work-group size bound of every kernel reaching the function.
            self.yz_divergent = m
                .function_ids()
                .map(|f| {
                    (0..3)
                        .filter(|&d| !facts.local_id_subgroup_uniform(f, d))
                        .fold(0, |mask, d| mask | bit(d as u32))
                })
                .collect();
        }
    }

    /// The divergence mask of a load of the whole built-in variable `v` in instruction `i`.
    fn builtin_mask(&self, v: Id, i: InstId) -> Option<u64> {
        let bm = *self.builtin_masks.get(&v)?;
        let Some(&comps) = self.divergent_x.get(&v) else {
            return Some(bm);
        };
        let mask = self
            .func_of(i)
            .and_then(|f| self.yz_divergent.get(f.index()))
            .copied()
            .unwrap_or(ALL);
        Some(if mask == 0b111 && comps <= 3 {
            ALL
        } else {
            mask
        })
    }

    fn init_structure(&mut self) {
        let m = self.m;
        let entries: HashSet<Id> = entry_point_functions(m).into_iter().collect();
        let nf = m.functions.len();
        self.params = vec![Vec::new(); nf];
        self.budget = vec![0; nf];
        for f in m.function_ids() {
            if let Some(r) = m.function_result(f) {
                self.func_of_id.insert(r, f);
            }
            self.params[f.index()] = m
                .function(f)
                .header
                .iter()
                .filter(|&&p| m.inst(p).is(Op::FunctionParameter))
                .filter_map(|&p| m.inst(p).result_id())
                .collect();
        }
        // Calls (recorded by provenance), loads of private variables, region budgets.
        let mut nblocks_edges = vec![0i64; nf];
        for f in m.function_ids() {
            for &b in self.cfg.rpo(f) {
                nblocks_edges[f.index()] += 1 + self.cfg.succs(b).len() as i64;
            }
        }
        for &i in self.prov.call_sites() {
            let inst = m.inst(i);
            if let Some(&callee) = inst.operand_id(0).and_then(|c| self.func_of_id.get(&c)) {
                self.calls_to.entry(callee).or_default().push(i);
            }
        }
        for &i in self.prov.loads() {
            if let Some(Root::Variable(v)) = m.inst(i).operand_id(0).map(|p| self.prov.root(p)) {
                if self.is_private_var(v) {
                    self.loads_of_var.entry(v).or_default().push(i);
                }
            }
        }
        for (k, b) in nblocks_edges.iter().enumerate() {
            self.budget[k] = 8 * b + 4096;
        }
        // Parameters of functions nobody in the module calls (and that are not entry points)
        // may receive anything.
        for f in m.function_ids() {
            let is_entry = m.function_result(f).is_some_and(|r| entries.contains(&r));
            let has_body = !m.function(f).blocks.is_empty();
            if !is_entry && has_body && !self.calls_to.contains_key(&f) {
                let params = self.params[f.index()].clone();
                for p in params {
                    self.force(p, ALL);
                }
            }
        }
        // Escaped Function/Private variables hold anything.
        let escaped: Vec<Id> = self.prov.escaped_variables().collect();
        for v in escaped {
            if self.is_private_var(v) {
                self.make_var_divergent(v);
            }
        }
    }

    fn is_private_var(&self, v: Id) -> bool {
        let sc = self.prov.variable_storage(v);
        sc == Some(StorageClass::Function as u32) || sc == Some(StorageClass::Private as u32)
    }

    #[inline]
    fn mask(&self, id: Id) -> u64 {
        self.div.get(id.index()).copied().unwrap_or(ALL)
    }

    /// Adds `mask` to `id`'s divergence; whether anything changed (ids past the table are
    /// divergent already).
    #[inline]
    fn add(&mut self, id: Id, mask: u64) -> bool {
        match self.div.get_mut(id.index()) {
            Some(d) if *d | mask != *d => {
                *d |= mask;
                true
            }
            _ => false,
        }
    }

    fn users_of(&self, id: Id) -> &[InstId] {
        let i = id.index();
        if i + 1 >= self.user_start.len() {
            return &[];
        }
        &self.users[self.user_start[i] as usize..self.user_start[i + 1] as usize]
    }

    /// Queues `i` for re-evaluation (instructions not evaluated yet will see the change when
    /// the initial sweep reaches them).
    fn push(&mut self, i: InstId) {
        if let Some(st) = self.state.get_mut(i.index()) {
            if *st == EVALUATED {
                *st = QUEUED;
                self.worklist.push(Reverse(self.pos[i.index()]));
            }
        }
    }

    /// Adds divergence bits to `id`; queues its users when something changed.
    fn force(&mut self, id: Id, mask: u64) {
        if !self.add(id, mask) {
            return;
        }
        self.push_users(id);
    }

    fn push_users(&mut self, id: Id) {
        let start = self.user_start.get(id.index()).copied().unwrap_or(0) as usize;
        let end = self.user_start.get(id.index() + 1).copied().unwrap_or(0) as usize;
        for k in start..end.min(self.users.len()) {
            let u = self.users[k];
            self.push(u);
        }
    }

    fn make_var_divergent(&mut self, v: Id) {
        if !self.divergent_vars.insert(v) {
            return;
        }
        if let Some(loads) = self.loads_of_var.get(&v).cloned() {
            for l in loads {
                self.push(l);
            }
        }
    }

    fn run(&mut self) {
        let m = self.m;
        // Entry-point parameters and everything else start uniform. Decode every function-body
        // instruction's operands once, in evaluation order (callers before callees, so
        // parameters are final before their functions are evaluated; blocks in reverse
        // post-order), and index the users (CSR by id). Then evaluate in that order; whenever
        // a value gains divergence, its users evaluated already are queued and re-evaluated
        // at the end of the block, in program order (a loop-header phi right after the block
        // that changes its back-edge value, so the code after the loop sees final values and
        // is evaluated once). Masks only grow and every
        // evaluation is monotone in them, so any order reaches the same (least) fixed point.
        let bound = self.div.len();
        let mut counts = vec![0u32; bound + 1];
        let approx = m.arena_len();
        self.insts.reserve(approx);
        self.op_start.reserve(approx + 1);
        self.op_ids.reserve(approx * 2);
        self.op_start.push(0);
        let mut block_ends: Vec<usize> = Vec::new();
        for f in self.callers_first_order() {
            for &b in self.cfg.rpo(f) {
                for i in m.block_insts(b) {
                    self.insts.push(i);
                    let op_ids = &mut self.op_ids;
                    let mut past_bound = false;
                    for_each_value_operand(m, i, |id| {
                        if id.index() < bound {
                            counts[id.index() + 1] += 1;
                            op_ids.push(id);
                        } else {
                            past_bound = true;
                        }
                    });
                    self.op_start.push(self.op_ids.len() as u32);
                    if let Some(x) = self.pos.get_mut(i.index()) {
                        *x = (self.insts.len() - 1) as u32;
                    }
                    if past_bound {
                        self.past_bound.insert(i);
                    }
                }
                block_ends.push(self.insts.len());
            }
        }
        for k in 1..=bound {
            counts[k] += counts[k - 1];
        }
        let mut fill = counts.clone();
        let mut users: Vec<InstId> = match self.insts.first() {
            // Any instruction id serves as filler; every slot is overwritten.
            Some(&any) => vec![any; counts[bound] as usize],
            None => Vec::new(),
        };
        for (p, &i) in self.insts.iter().enumerate() {
            let (a, b) = (self.op_start[p] as usize, self.op_start[p + 1] as usize);
            for id in &self.op_ids[a..b] {
                users[fill[id.index()] as usize] = i;
                fill[id.index()] += 1;
            }
        }
        self.user_start = counts;
        self.users = users;
        let mut p = 0;
        for end in block_ends {
            while p < end {
                let i = self.insts[p];
                if let Some(st) = self.state.get_mut(i.index()) {
                    *st = EVALUATED;
                }
                self.ops_range = (self.op_start[p], self.op_start[p + 1]);
                self.evaluate(i);
                p += 1;
            }
            // At the end of each block, what changed in it (or before) is re-evaluated.
            self.drain();
        }
    }

    /// Re-evaluates the queued instructions (and what their changes queue).
    fn drain(&mut self) {
        let m = self.m;
        while let Some(Reverse(p)) = self.worklist.pop() {
            let p = p as usize;
            let i = self.insts[p];
            if let Some(st) = self.state.get_mut(i.index()) {
                *st = EVALUATED;
            }
            // Re-evaluations read the operands decoded before (every queued instruction was
            // evaluated, so decoded).
            match self.past_bound.contains(&i) {
                false => {
                    self.ops_range = (self.op_start[p], self.op_start[p + 1]);
                }
                true => {
                    let mut scratch = std::mem::take(&mut self.scratch);
                    scratch.clear();
                    for_each_value_operand(m, i, |x| scratch.push(x));
                    self.scratch = scratch;
                    self.ops_range = (u32::MAX, 0);
                }
            }
            self.evaluate(i);
        }
    }

    /// Every function, callers before callees (the call graph's strongly connected
    /// components in topological order, `CallGraph::callers_first`).
    fn callers_first_order(&self) -> Vec<FuncId> {
        CallGraph::from_calls(self.m, self.prov.call_sites().iter().copied()).callers_first()
    }

    fn func_of(&self, i: InstId) -> Option<FuncId> {
        self.m.inst_block(i).map(|b| self.m.block(b).func)
    }
}
