//! Uniformity: which values are dynamically uniform within a subgroup (the same in every
//! invocation of the subgroup that executes the instruction).
//!
//! Divergence is a monotone property found by a worklist fixed point that starts from
//! "everything uniform" and only ever adds divergence, per value and per vector component
//! (bit k of a mask: component k may differ; scalars use all bits). Sources of divergence:
//! - built-ins: `SubgroupLocalInvocationId`, `LocalInvocationIndex`, `GlobalLinearId`, the
//!   subgroup masks and any built-in we do not know; `GlobalInvocationId`/`LocalInvocationId`
//!   component 0, and components 1/2 too unless every entry point reaching the reading function
//!   declares a work-group size (`LocalSize`/`MaxWorkgroupSizeINTEL`) of 1 in that dimension
//!   ([`KernelFacts`], per function: two kernels of one module may differ). `WorkgroupId`,
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
//! Cost: one pass evaluates every instruction (functions callers-first, blocks in reverse
//! post-order, so most values are final when first computed) and decodes its operands once;
//! users are then indexed (CSR) and a worklist re-evaluates only what changed after its users
//! ran (loop-header phis, forced facts such as sync dependence, call results). Masks only grow
//! (at most 64 bits per value), so the total work is linear in the uses. Divergent-region walks
//! are bounded by a budget per function; past it the function's phis, stores and loops are all
//! treated as divergent.

use crate::fxhash::{FxHashMap as HashMap, FxHashSet as HashSet};

use spirv::{Op, StorageClass};
use spvopt_ir::{BlockId, FuncId, Id, InstId, Module, Section};

use crate::block_io::block_io;
use crate::builtins::{
    builtin_of_variable, builtin_uniformity, debug_names, entry_point_functions, BuiltinUniformity,
    CalleeKind, Callees,
};
use crate::cache::{Analyses, Analysis, AnalysisSet};
use crate::cfg::Cfg;
use crate::decorations::Decorations;
use crate::dominators::Dominators;
use crate::kernel_facts::{Fact, KernelFacts};
use crate::loops::{LoopId, Loops};
use crate::operands::for_each_value_operand;
use crate::operands::op_of;
use crate::post_dominators::PostDominators;
use crate::provenance::{Provenance, Root};
use crate::types::{pointer_of, size_of, vector_of};
use spvopt_ir::opcode_class::{op_class, OpClass};

const ALL: u64 = u64::MAX;

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
            | AnalysisSet::ALIAS.0,
    );
    fn compute(m: &Module, analyses: &mut Analyses) -> Self {
        let cfg = analyses.get::<Cfg>(m);
        let dom = analyses.get::<Dominators>(m);
        let pdom = analyses.get::<PostDominators>(m);
        let loops = analyses.get::<Loops>(m);
        let prov = analyses.get::<Provenance>(m);
        Uniformity::build(m, &cfg, &dom, &pdom, &loops, &prov)
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

    /// Computes uniformity for module `m`.
    pub fn build(
        m: &Module,
        cfg: &Cfg,
        dom: &Dominators,
        pdom: &PostDominators,
        loops: &Loops,
        prov: &Provenance,
    ) -> Uniformity {
        let mut s = Solver::new(m, cfg, dom, pdom, loops, prov);
        s.run();
        Uniformity {
            div: s.div,
            divergent_branches: s.divergent_branches,
            divergent_control: s.divergent_control,
            divergent_exit_loops: s.divergent_exit_loops,
            divergent_variables: s.divergent_vars,
        }
    }
}

/// Divergence masks by id: one byte per id (uniform / all components divergent / partial),
/// with the rare partial masks of vectors in a side table.
#[derive(Clone, Debug, Default)]
struct DivTable {
    kind: Vec<u8>,
    partial: HashMap<Id, u64>,
}

const UNIFORM: u8 = 0;
const PARTIAL: u8 = 1;
const DIVERGENT: u8 = 2;

impl DivTable {
    fn new(bound: usize) -> DivTable {
        DivTable {
            kind: vec![UNIFORM; bound],
            partial: HashMap::default(),
        }
    }

    fn len(&self) -> usize {
        self.kind.len()
    }

    fn get(&self, id: Id) -> u64 {
        match self.kind.get(id.index()) {
            Some(&UNIFORM) => 0,
            Some(&PARTIAL) => self.partial.get(&id).copied().unwrap_or(ALL),
            _ => ALL,
        }
    }

    /// Adds `mask` to `id`'s divergence; whether anything changed.
    fn add(&mut self, id: Id, mask: u64) -> bool {
        let old = self.get(id);
        let new = old | mask;
        if new == old || id.index() >= self.kind.len() {
            return false;
        }
        if new == ALL {
            self.kind[id.index()] = DIVERGENT;
            self.partial.remove(&id);
        } else {
            self.kind[id.index()] = PARTIAL;
            self.partial.insert(id, new);
        }
        true
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
    callees: Callees,
    div: DivTable,
    // Users (CSR by id) of every value, among function-body instructions.
    user_start: Vec<u32>,
    users: Vec<InstId>,
    worklist: Vec<InstId>,
    /// Per instruction: 0 not evaluated yet, 1 evaluated, 2 queued for re-evaluation.
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
    func_ids: Vec<FuncId>,
    block_stamp: Vec<u32>,
    stamp: u32,
    /// Function-body instructions, their value operands (flat), and each one's position.
    insts: Vec<InstId>,
    param_func: HashMap<Id, FuncId>,
    func_started: Vec<bool>,
    first_pass: bool,
    /// Set once the first pass evaluates its first instruction.
    started: bool,
    current: Option<Id>,
    late: Vec<Id>,
    pending_loop_exits: Vec<LoopId>,
    op_start: Vec<u32>,
    op_ids: Vec<Id>,
    /// Operands of the instruction being evaluated: a range of `op_ids` in the first pass,
    /// `scratch` afterwards (range start `u32::MAX`).
    ops_range: (u32, u32),
    scratch: Vec<Id>,
    region_buf: Vec<BlockId>,
    stack_buf: Vec<BlockId>,
}

impl<'a> Solver<'a> {
    fn new(
        m: &'a Module,
        cfg: &'a Cfg,
        dom: &'a Dominators,
        pdom: &'a PostDominators,
        loops: &'a Loops,
        prov: &'a Provenance,
    ) -> Solver<'a> {
        let dec = Decorations::build(m);
        let callees = Callees::build(m, &dec);
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
            div: DivTable::new(bound),
            user_start: Vec::new(),
            users: Vec::new(),
            worklist: Vec::new(),
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
            func_ids: m.function_ids().collect(),
            block_stamp: vec![0; cfg.block_slots()],
            stamp: 0,
            insts: Vec::new(),
            param_func: HashMap::default(),
            func_started: vec![false; m.functions.len()],
            first_pass: true,
            started: false,
            current: None,
            late: Vec::new(),
            pending_loop_exits: Vec::new(),
            op_start: Vec::new(),
            op_ids: Vec::new(),
            ops_range: (u32::MAX, 0),
            scratch: Vec::new(),
            region_buf: Vec::new(),
            stack_buf: Vec::new(),
        };
        s.init_builtins(&dec);
        s.init_structure();
        s
    }

    fn init_builtins(&mut self, dec: &Decorations) {
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
            let facts = KernelFacts::build(m);
            self.yz_divergent = m
                .function_ids()
                .map(|f| {
                    let mut mask = bit(0);
                    for d in 1..3 {
                        if facts.workgroup_size_bound_dim(f, d) != Fact::Known(1) {
                            mask |= bit(d as u32);
                        }
                    }
                    mask
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
            for &p in &self.params[f.index()] {
                self.param_func.insert(p, f);
            }
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

    fn mask(&self, id: Id) -> u64 {
        self.div.get(id)
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
            if *st == 1 {
                *st = 2;
                self.worklist.push(i);
            }
        }
    }

    /// Adds divergence bits to `id`; queues its users when something changed.
    fn force(&mut self, id: Id, mask: u64) {
        if !self.div.add(id, mask) {
            return;
        }
        if self.first_pass {
            // Users are not indexed yet. An instruction's own result only has later users
            // (phis are re-evaluated after the pass); anything else is revisited then.
            if self.current != Some(id) && self.may_have_evaluated_users(id) {
                self.late.push(id);
            }
            return;
        }
        self.push_users(id);
    }

    /// During the first pass: whether some user of `id` (other than a phi, which is revisited
    /// anyway) may have been evaluated already. Users come after their definition in the
    /// traversal, so only values whose definition was evaluated (or parameters of a function
    /// already started) qualify.
    fn may_have_evaluated_users(&self, id: Id) -> bool {
        if !self.started {
            return false;
        }
        let Some(d) = self.m.def(id) else {
            return true;
        };
        if let Some(&f) = self.param_func.get(&id) {
            return self.func_started.get(f.index()).copied().unwrap_or(true);
        }
        self.state.get(d.index()).is_none_or(|&s| s != 0)
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
        // Entry-point parameters and everything else start uniform. First pass: callers
        // before callees (so parameters are final before their functions are evaluated),
        // blocks in reverse post-order; decode each instruction's operands once and evaluate
        // it. Then build the users lists and re-evaluate what the first pass may have seen too
        // early: users of values forced after their users ran, and loop-header phis.
        let bound = self.div.len();
        let mut counts = vec![0u32; bound + 1];
        let approx = m.arena_len();
        self.insts.reserve(approx);
        self.op_start.reserve(approx + 1);
        self.op_ids.reserve(approx * 2);
        self.op_start.push(0);
        let mut phis: Vec<InstId> = Vec::new();
        for f in self.callers_first_order() {
            if let Some(x) = self.func_started.get_mut(f.index()) {
                *x = true;
            }
            for &b in self.cfg.rpo(f) {
                for i in m.block_insts(b) {
                    self.insts.push(i);
                    let op_ids = &mut self.op_ids;
                    for_each_value_operand(m, i, |id| {
                        if id.index() < bound {
                            counts[id.index() + 1] += 1;
                            op_ids.push(id);
                        }
                    });
                    self.op_start.push(self.op_ids.len() as u32);
                    let inst = m.inst(i);
                    if inst.is(Op::Phi) {
                        phis.push(i);
                    }
                    if let Some(st) = self.state.get_mut(i.index()) {
                        *st = 1;
                    }
                    self.started = true;
                    self.current = inst.result_id();
                    let p = self.insts.len() - 1;
                    self.ops_range = (self.op_start[p], self.op_start[p + 1]);
                    self.evaluate(i);
                    self.current = None;
                }
            }
        }
        // Users (CSR by id) from the decoded operands.
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
        self.first_pass = false;
        for l in std::mem::take(&mut self.pending_loop_exits) {
            self.force_live_outs(l);
        }
        for id in std::mem::take(&mut self.late) {
            self.push_users(id);
        }
        for p in phis {
            self.push(p);
        }
        while let Some(i) = self.worklist.pop() {
            if let Some(st) = self.state.get_mut(i.index()) {
                *st = 1;
            }
            // Re-evaluations decode their operands again (few; the flat copy is indexed by
            // first-pass position only).
            let mut scratch = std::mem::take(&mut self.scratch);
            scratch.clear();
            for_each_value_operand(m, i, |x| scratch.push(x));
            self.scratch = scratch;
            self.ops_range = (u32::MAX, 0);
            self.evaluate(i);
        }
    }

    /// Functions in reverse post-order of the call graph from the entry points (then any
    /// function not reached).
    fn callers_first_order(&self) -> Vec<FuncId> {
        let m = self.m;
        let nf = self.func_ids.len();
        let mut callees_of: Vec<Vec<FuncId>> = vec![Vec::new(); nf];
        for (&callee, calls) in &self.calls_to {
            for &c in calls {
                if let Some(caller) = self.func_of(c) {
                    if !callees_of[caller.index()].contains(&callee) {
                        callees_of[caller.index()].push(callee);
                    }
                }
            }
        }
        let entries: HashSet<Id> = entry_point_functions(m).into_iter().collect();
        let roots = self
            .func_ids
            .iter()
            .copied()
            .filter(|&f| m.function_result(f).is_some_and(|r| entries.contains(&r)))
            .chain(self.func_ids.iter().copied());
        let mut visited = vec![false; nf];
        let mut post: Vec<FuncId> = Vec::with_capacity(nf);
        for root in roots {
            if visited[root.index()] {
                continue;
            }
            visited[root.index()] = true;
            let mut stack: Vec<(FuncId, usize)> = vec![(root, 0)];
            while let Some(top) = stack.last_mut() {
                let (f, k) = *top;
                if let Some(&c) = callees_of[f.index()].get(k) {
                    top.1 += 1;
                    if !visited[c.index()] {
                        visited[c.index()] = true;
                        stack.push((c, 0));
                    }
                } else {
                    post.push(f);
                    stack.pop();
                }
            }
        }
        post.reverse();
        post
    }

    fn func_of(&self, i: InstId) -> Option<FuncId> {
        self.m.inst_block(i).map(|b| self.m.block(b).func)
    }

    fn evaluate(&mut self, i: InstId) {
        let m = self.m;
        let inst = m.inst(i);
        let op = op_of(inst);
        // Instructions without results that matter.
        match op {
            Some(Op::BranchConditional) | Some(Op::Switch) => {
                if let Some(c) = inst.operand_id(0) {
                    if self.mask(c) != 0 {
                        if let Some(b) = m.inst_block(i) {
                            self.divergent_branch(b);
                        }
                    }
                }
                return;
            }
            Some(Op::Store) => {
                let (Some(p), Some(v)) = (inst.operand_id(0), inst.operand_id(1)) else {
                    return;
                };
                if let Root::Variable(var) = self.prov.root(p) {
                    let in_divergent = m
                        .inst_block(i)
                        .is_some_and(|b| self.divergent_control.contains(&b));
                    if self.is_private_var(var)
                        && (self.mask(p) != 0 || self.mask(v) != 0 || in_divergent)
                    {
                        self.make_var_divergent(var);
                    }
                }
                return;
            }
            Some(Op::ReturnValue) => {
                let divergent = inst.operand_id(0).is_some_and(|v| self.mask(v) != 0)
                    || m.inst_block(i)
                        .is_some_and(|b| self.divergent_control.contains(&b));
                if divergent {
                    if let Some(f) = self.func_of(i) {
                        self.return_divergent(f);
                    }
                }
                return;
            }
            _ => {}
        }
        // Writes into private memory by other instructions.
        self.private_writes(i);
        if inst.is(Op::FunctionCall) {
            self.call_arguments(i);
        }
        let Some(r) = inst.result_id() else { return };
        if inst.result_type().is_none() {
            return;
        }
        let mut mask = self.result_mask(i);
        if mask != 0 && mask != ALL {
            // Keep partial masks to the components the type has.
            let n = inst
                .result_type()
                .and_then(|t| vector_of(m, t))
                .map_or(1, |(_, n)| n);
            let full = if n >= 64 { ALL } else { (1u64 << n) - 1 };
            mask &= full;
            if mask == full {
                mask = ALL;
            }
        }
        self.force(r, mask);
    }

    /// Variables written by instructions other than `OpStore`.
    fn private_writes(&mut self, i: InstId) {
        let m = self.m;
        let inst = m.inst(i);
        let target = match op_of(inst) {
            Some(op)
                if matches!(op, Op::CopyMemory | Op::CopyMemorySized | Op::AtomicStore)
                    || op_class(op).intersects(OpClass::ATOMIC_RMW) =>
            {
                inst.operand_id(0)
            }
            Some(
                Op::Subgroup2DBlockLoadINTEL
                | Op::Subgroup2DBlockLoadTransformINTEL
                | Op::Subgroup2DBlockLoadTransposeINTEL,
            ) => inst.operand_id(9),
            Some(Op::FunctionCall) => match block_io(m, &self.callees, i) {
                Some(b) if b.kind.reads_region() => b.private,
                _ => None,
            },
            _ => None,
        };
        if let Some(p) = target {
            if let Root::Variable(var) = self.prov.root(p) {
                if self.is_private_var(var) {
                    self.make_var_divergent(var);
                }
            }
        }
    }

    fn call_arguments(&mut self, i: InstId) {
        let m = self.m;
        let inst = m.inst(i);
        let Some(&callee) = inst.operand_id(0).and_then(|c| self.func_of_id.get(&c)) else {
            return;
        };
        let params = self.params.get(callee.index()).cloned().unwrap_or_default();
        for (k, &w) in inst.operands().iter().skip(1).enumerate() {
            let (Some(arg), Some(&p)) = (Id::new(w), params.get(k)) else {
                continue;
            };
            let am = self.mask(arg);
            if am != 0 {
                self.force(p, am);
            }
        }
    }

    fn return_divergent(&mut self, f: FuncId) {
        if !self.returns_divergent.insert(f) {
            return;
        }
        if let Some(calls) = self.calls_to.get(&f).cloned() {
            for c in calls {
                if let Some(r) = self.m.inst(c).result_id() {
                    self.force(r, ALL);
                }
            }
        }
    }

    /// The divergence of `i`'s result from its operands.
    fn result_mask(&self, i: InstId) -> u64 {
        let m = self.m;
        let inst = m.inst(i);
        let Some(op) = op_of(inst) else {
            return self.any_operand();
        };
        let ops = inst.operands();
        let id = |k: usize| inst.operand_id(k);
        let mk = |k: usize| id(k).map_or(ALL, |x| self.mask(x));
        let uniform_scope = |k: usize| {
            id(k).and_then(|s| m.const_int_value(s)).is_some_and(|s| {
                s == spirv::Scope::Subgroup as u64 || s == spirv::Scope::Workgroup as u64
            })
        };
        match op {
            Op::Undef | Op::Variable | Op::ConstantNull | Op::Constant => 0,
            Op::FunctionParameter => 0,
            Op::Phi => {
                let mut acc = 0;
                for pair in ops.chunks(2) {
                    acc |= Id::new(pair[0]).map_or(ALL, |x| self.mask(x));
                }
                acc
            }
            Op::Select => {
                if mk(0) != 0 {
                    ALL
                } else {
                    mk(1) | mk(2)
                }
            }
            Op::CopyObject => mk(0),
            Op::CompositeExtract => {
                let c = mk(0);
                match ops.len() {
                    2 => {
                        if c & bit(ops[1]) != 0 {
                            ALL
                        } else {
                            0
                        }
                    }
                    _ => {
                        if c != 0 {
                            ALL
                        } else {
                            0
                        }
                    }
                }
            }
            Op::CompositeInsert => {
                let (o, c) = (mk(0), mk(1));
                match ops.len() {
                    3 => {
                        let b = bit(ops[2]);
                        let kept = if ops[2] < 63 { c & !b } else { c };
                        kept | if o != 0 { b } else { 0 }
                    }
                    _ => {
                        if o != 0 {
                            c | ops.get(2).map_or(ALL, |&k| bit(k))
                        } else {
                            c
                        }
                    }
                }
            }
            Op::CompositeConstruct => {
                let mut acc = 0u64;
                let mut pos = 0u32;
                for &w in ops {
                    let Some(x) = Id::new(w) else { return ALL };
                    let xm = self.mask(x);
                    let n = m
                        .type_of(x)
                        .and_then(|t| vector_of(m, t))
                        .map_or(1, |(_, n)| n);
                    if n == 1 {
                        if xm != 0 {
                            acc |= bit(pos);
                        }
                    } else if xm != 0 {
                        for k in 0..n {
                            if xm & bit(k) != 0 {
                                acc |= bit(pos + k);
                            }
                        }
                    }
                    pos = pos.saturating_add(n);
                }
                acc
            }
            Op::VectorShuffle => {
                let (a, b) = (mk(0), mk(1));
                let na = id(0)
                    .and_then(|x| m.type_of(x))
                    .and_then(|t| vector_of(m, t))
                    .map_or(0, |(_, n)| n);
                let mut acc = 0u64;
                for (k, &sel) in ops.iter().skip(2).enumerate() {
                    let d = if sel == u32::MAX {
                        false
                    } else if sel < na {
                        a & bit(sel) != 0
                    } else {
                        b & bit(sel - na) != 0
                    };
                    if d {
                        acc |= bit(k as u32);
                    }
                }
                acc
            }
            Op::Load => self.load_mask(i),
            Op::ConvertPtrToU => {
                let p = id(0);
                let private = p.is_some_and(|p| match self.prov.root(p) {
                    Root::Variable(v) => self.is_private_var(v),
                    _ => false,
                });
                if private || mk(0) != 0 {
                    ALL
                } else {
                    0
                }
            }
            Op::FunctionCall => self.call_mask(i),
            // Collectives with a subgroup-uniform result.
            Op::GroupNonUniformBroadcast
            | Op::GroupNonUniformBroadcastFirst
            | Op::GroupNonUniformAll
            | Op::GroupNonUniformAny
            | Op::GroupNonUniformAllEqual
            | Op::GroupNonUniformBallot
            | Op::GroupBroadcast
            | Op::GroupAll
            | Op::GroupAny => {
                if uniform_scope(0) {
                    0
                } else {
                    ALL
                }
            }
            Op::SubgroupFirstInvocationKHR
            | Op::SubgroupAllKHR
            | Op::SubgroupAnyKHR
            | Op::SubgroupAllEqualKHR
            | Op::SubgroupBallotKHR
            | Op::SubgroupReadInvocationKHR => 0,
            Op::GroupNonUniformIAdd
            | Op::GroupNonUniformFAdd
            | Op::GroupNonUniformIMul
            | Op::GroupNonUniformFMul
            | Op::GroupNonUniformSMin
            | Op::GroupNonUniformUMin
            | Op::GroupNonUniformFMin
            | Op::GroupNonUniformSMax
            | Op::GroupNonUniformUMax
            | Op::GroupNonUniformFMax
            | Op::GroupNonUniformBitwiseAnd
            | Op::GroupNonUniformBitwiseOr
            | Op::GroupNonUniformBitwiseXor
            | Op::GroupNonUniformLogicalAnd
            | Op::GroupNonUniformLogicalOr
            | Op::GroupNonUniformLogicalXor
            | Op::GroupNonUniformBallotBitCount
            | Op::GroupIAdd
            | Op::GroupFAdd
            | Op::GroupFMin
            | Op::GroupUMin
            | Op::GroupSMin
            | Op::GroupFMax
            | Op::GroupUMax
            | Op::GroupSMax => {
                let reduce = ops.get(1) == Some(&(spirv::GroupOperation::Reduce as u32));
                if reduce && uniform_scope(0) {
                    0
                } else {
                    ALL
                }
            }
            op if op == Op::AtomicLoad || op_class(op).intersects(OpClass::ATOMIC_RMW) => ALL,
            Op::GroupNonUniformElect
            | Op::GroupNonUniformShuffle
            | Op::GroupNonUniformShuffleXor
            | Op::GroupNonUniformShuffleUp
            | Op::GroupNonUniformShuffleDown
            | Op::GroupNonUniformQuadBroadcast
            | Op::GroupNonUniformQuadSwap
            | Op::SubgroupShuffleINTEL
            | Op::SubgroupShuffleDownINTEL
            | Op::SubgroupShuffleUpINTEL
            | Op::SubgroupShuffleXorINTEL
            | Op::SubgroupBlockReadINTEL
            | Op::SubgroupImageBlockReadINTEL
            | Op::SubgroupMatrixMultiplyAccumulateINTEL
            | Op::ReadClockKHR => ALL,
            _ if componentwise(op) => {
                let mut acc = 0u64;
                for &x in self.value_operands() {
                    acc |= self.mask(x);
                }
                if acc == 0 {
                    return 0;
                }
                let Some(ty) = inst.result_type() else {
                    return ALL;
                };
                let Some((_, n)) = vector_of(m, ty) else {
                    return ALL;
                };
                // Component k of the result depends on component k of each operand only when
                // every operand is a vector of the same size.
                let all_vectors = self.value_operands().iter().all(|&x| {
                    m.type_of(x)
                        .and_then(|t| vector_of(m, t))
                        .is_some_and(|(_, xn)| xn == n)
                });
                if all_vectors {
                    acc
                } else {
                    ALL
                }
            }
            _ => self.any_operand(),
        }
    }

    /// The value operands of the instruction being evaluated (decoded once per evaluation).
    fn value_operands(&self) -> &[Id] {
        let (a, b) = self.ops_range;
        if a == u32::MAX {
            &self.scratch
        } else {
            &self.op_ids[a as usize..b as usize]
        }
    }

    fn any_operand(&self) -> u64 {
        if self.value_operands().iter().any(|&x| self.mask(x) != 0) {
            ALL
        } else {
            0
        }
    }

    fn load_mask(&self, i: InstId) -> u64 {
        let m = self.m;
        let Some(p) = m.inst(i).operand_id(0) else {
            return ALL;
        };
        if self.mask(p) != 0 {
            return ALL;
        }
        let Some(info) = self.prov.info(p) else {
            return ALL;
        };
        match info.root {
            Root::Variable(v) => {
                if let Some(bm) = self.builtin_mask(v, i) {
                    // Whole variable, or one component selected by a constant offset.
                    let var_ty = m.type_of(v).and_then(|t| pointer_of(m, t)).map(|(_, t)| t);
                    let ptr_pointee = m.type_of(p).and_then(|t| pointer_of(m, t)).map(|(_, t)| t);
                    if var_ty.is_some() && var_ty == ptr_pointee {
                        return bm;
                    }
                    let comp_size = var_ty
                        .and_then(|t| vector_of(m, t))
                        .and_then(|(e, _)| size_of(m, &Decorations::default(), e));
                    if let (Some(off), Some(cs)) = (
                        info.offset.as_ref().and_then(|o| o.as_constant()),
                        comp_size.filter(|&c| c > 0),
                    ) {
                        let k = (off as u64 / cs) as u32;
                        return if bm & bit(k) != 0 { ALL } else { 0 };
                    }
                    return if bm != 0 { ALL } else { 0 };
                }
                let sc = self.prov.variable_storage(v);
                if self.is_private_var(v) {
                    if self.divergent_vars.contains(&v) || self.prov.is_escaped(v) {
                        ALL
                    } else {
                        0
                    }
                } else if sc == Some(StorageClass::Input as u32) {
                    ALL
                } else {
                    0
                }
            }
            Root::Null => 0,
            Root::Param { .. } | Root::Unknown => {
                let sc = info.storage;
                let may_be_private = sc == Some(StorageClass::Function as u32)
                    || sc == Some(StorageClass::Private as u32)
                    || sc == Some(StorageClass::Generic as u32)
                    || sc == Some(StorageClass::Input as u32)
                    || sc.is_none();
                if may_be_private {
                    ALL
                } else {
                    0
                }
            }
        }
    }

    fn call_mask(&self, i: InstId) -> u64 {
        let m = self.m;
        let inst = m.inst(i);
        let Some(callee) = inst.operand_id(0) else {
            return ALL;
        };
        if let Some(&f) = self.func_of_id.get(&callee) {
            if !m.function(f).blocks.is_empty() {
                return if self.returns_divergent.contains(&f) {
                    ALL
                } else {
                    0
                };
            }
        }
        let args_divergent = inst
            .operands()
            .iter()
            .skip(1)
            .any(|&w| Id::new(w).is_none_or(|x| self.mask(x) != 0));
        match self.callees.get(callee).map(|c| &c.kind) {
            Some(CalleeKind::UniformQuery) => {
                if args_divergent {
                    ALL
                } else {
                    0
                }
            }
            Some(CalleeKind::UniformCollective) => 0,
            // 2D block builtins return nothing (their data goes through memory).
            Some(CalleeKind::BlockIo { .. }) => 0,
            _ => ALL,
        }
    }

    // ---- sync dependence ------------------------------------------------------------

    fn divergent_branch(&mut self, b: BlockId) {
        if !self.divergent_branches.insert(b) {
            return;
        }
        self.divergent_branch_inner(b);
    }

    fn divergent_branch_inner(&mut self, b: BlockId) {
        let Some(f) = self.cfg.function_of(b) else {
            return;
        };
        if self.exhausted.contains(&f) {
            return;
        }
        let stop = self.pdom.ipdom(b);
        // Blocks reached from b's successors before its immediate post-dominator, not
        // following back edges of loops that contain b.
        self.stamp += 1;
        let stamp = self.stamp;
        let mut region = std::mem::take(&mut self.region_buf);
        let mut stack = std::mem::take(&mut self.stack_buf);
        region.clear();
        stack.clear();
        stack.push(b);
        let mut work: i64 = 0;
        while let Some(x) = stack.pop() {
            if x != b {
                region.push(x);
            }
            for &s in self.cfg.succs(x) {
                work += 1;
                if Some(s) == stop || s == b || self.block_stamp[s.index()] == stamp {
                    continue;
                }
                let back_edge_of_enclosing = self.dom.dominates(s, x)
                    && self
                        .loops
                        .loop_of_header(s)
                        .is_some_and(|l| self.loops.contains(l, b));
                if back_edge_of_enclosing {
                    continue;
                }
                self.block_stamp[s.index()] = stamp;
                stack.push(s);
            }
        }
        work += region.len() as i64;
        self.budget[f.index()] -= work;
        if self.budget[f.index()] < 0 {
            self.region_buf = region;
            self.stack_buf = stack;
            self.give_up(f);
            return;
        }
        // Joins: blocks in the region or the post-dominator with two or more predecessors
        // that are b or in the region (back edges into them excluded).
        let mut joins: Vec<BlockId> = Vec::new();
        for &x in region.iter().chain(stop.iter()) {
            let n = self
                .cfg
                .preds(x)
                .iter()
                .filter(|&&p| {
                    (p == b || self.block_stamp[p.index()] == stamp) && !self.dom.dominates(x, p)
                })
                .count();
            if n >= 2 {
                joins.push(x);
            }
        }
        for j in joins {
            self.force_phis(j);
        }
        for &x in &region {
            self.mark_divergent_control(x);
        }
        self.region_buf = region;
        self.stack_buf = stack;
        // Divergent loop exits.
        let exits_loops: Vec<LoopId> = self
            .loops
            .enclosing(b)
            .filter(|&l| {
                self.cfg
                    .succs(b)
                    .iter()
                    .any(|&s| !self.loops.contains(l, s))
            })
            .collect();
        for l in exits_loops {
            self.divergent_loop_exit(l);
        }
    }

    fn force_phis(&mut self, j: BlockId) {
        let m = self.m;
        let phis: Vec<Id> = m
            .block_insts(j)
            .take_while(|&i| m.inst(i).is(Op::Phi))
            .filter_map(|i| m.inst(i).result_id())
            .collect();
        for p in phis {
            self.force(p, ALL);
        }
    }

    fn mark_divergent_control(&mut self, x: BlockId) {
        if !self.divergent_control.insert(x) {
            return;
        }
        let m = self.m;
        // Stores and returns already evaluated must be revisited; later ones will see the
        // mark when the first pass reaches them.
        let evaluated = m
            .block_first(x)
            .is_none_or(|i| self.state.get(i.index()).is_none_or(|&s| s != 0));
        if !evaluated {
            return;
        }
        let todo: Vec<InstId> = m
            .block_insts(x)
            .filter(|&i| {
                let inst = m.inst(i);
                inst.is(Op::Store) || inst.is(Op::ReturnValue)
            })
            .collect();
        for i in todo {
            self.push(i);
        }
    }

    fn divergent_loop_exit(&mut self, l: LoopId) {
        if !self.divergent_exit_loops.insert(l) {
            return;
        }
        for e in self.loops.exit_blocks(l, self.cfg) {
            self.force_phis(e);
        }
        if self.first_pass {
            // Users are indexed after the first pass; finish then.
            self.pending_loop_exits.push(l);
            return;
        }
        self.force_live_outs(l);
    }

    /// Forces divergent every value defined in loop `l` and used outside it.
    fn force_live_outs(&mut self, l: LoopId) {
        let m = self.m;
        let blocks: Vec<BlockId> = self.loops.blocks(l).to_vec();
        let mut live_out: Vec<Id> = Vec::new();
        for &b in &blocks {
            for i in m.block_insts(b) {
                let Some(r) = m.inst(i).result_id() else {
                    continue;
                };
                let outside = self.users_of(r).iter().any(|&u| {
                    m.inst_block(u)
                        .is_some_and(|ub| !self.loops.contains(l, ub))
                });
                if outside {
                    live_out.push(r);
                }
            }
        }
        for r in live_out {
            self.force(r, ALL);
        }
    }

    /// Too much divergent control flow in `f` for the budget: treat all of it as divergent.
    fn give_up(&mut self, f: FuncId) {
        if !self.exhausted.insert(f) {
            return;
        }
        let rpo: Vec<BlockId> = self.cfg.rpo(f).to_vec();
        for &b in &rpo {
            self.force_phis(b);
            self.mark_divergent_control(b);
        }
        for &b in &rpo {
            if let Some(l) = self.loops.loop_of_header(b) {
                self.divergent_loop_exit(l);
            }
        }
    }
}

/// Component k of the result depends only on component k of each operand.
fn componentwise(op: Op) -> bool {
    op_class(op).intersects(OpClass::COMPONENTWISE)
}
