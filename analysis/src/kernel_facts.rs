//! Kernel facts: what the execution modes of each entry point say (subgroup size, work-group
//! size, subgroups per work-group), per entry point and, through the call graph, per function.
//!
//! An OpenCL program is one module with many kernels, each with its own execution modes
//! (`intel_reqd_sub_group_size(16)` → `SubgroupSize 16`, `reqd_work_group_size` → `LocalSize`).
//! A fact of a function is the join of the facts of the entry points that reach it (call graph
//! from each `OpEntryPoint`):
//! - [`Fact::Known`]`(v)`: every entry point reaching the function declares `v`;
//! - [`Fact::Conflicting`]: two entry points reaching it declare different values (also: one
//!   entry point declaring two different values);
//! - [`Fact::Unknown`]: some entry point reaching it declares nothing (the driver chooses), the
//!   value is a non-constant id (`ExecutionModeId` with a spec constant), or no entry point
//!   reaches the function.
//!
//! Sources: `OpExecutionMode`/`OpExecutionModeId` `SubgroupSize` (subgroup size),
//! `LocalSize`/`LocalSizeId` (exact work-group size), `MaxWorkgroupSizeINTEL` (an upper bound),
//! `SubgroupsPerWorkgroup`/`SubgroupsPerWorkgroupId`. Every pass that needs one of these
//! (legalize, fuse-block-loads, split-block-loads, insert-prefetches, the uniformity analysis)
//! and the simulator read them here, so they agree. A function reached by kernels that
//! disagree is handled conservatively for that function only; the other functions keep their
//! facts.
//!
//! Cost: one scan of the execution modes and the function bodies (call edges), then a worklist
//! over the call graph where each function's summary only grows (a first value, then a
//! conflict or "undeclared" flag), so every call edge is visited a bounded number of times.

use crate::fxhash::FxHashMap as HashMap;

use spirv::{ExecutionMode, ExecutionModel, Op};
use spvopt_ir::grammar::decode_string;
use spvopt_ir::{FuncId, Id, InstId, Module, Section};

use crate::cache::{Analyses, Analysis, AnalysisSet};

/// What the entry points reaching a function agree on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Fact<T> {
    /// Every entry point reaching the function declares this value.
    Known(T),
    /// Entry points reaching the function declare different values.
    Conflicting,
    /// Some entry point reaching it declares nothing (or a non-constant value), or none reaches it.
    Unknown,
}

impl<T: Copy> Fact<T> {
    /// The value when known.
    pub fn known(self) -> Option<T> {
        match self {
            Fact::Known(v) => Some(v),
            _ => None,
        }
    }
}

/// Join of the declarations of a set of entry points (a semilattice: the first value seen, a
/// conflict flag, an "undeclared" flag; `reached` is false for the empty set).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Summary<T> {
    reached: bool,
    value: Option<T>,
    conflict: bool,
    undeclared: bool,
}

impl<T> Default for Summary<T> {
    fn default() -> Self {
        Summary {
            reached: false,
            value: None,
            conflict: false,
            undeclared: false,
        }
    }
}

impl<T: Copy + PartialEq> Summary<T> {
    fn of(decl: Fact<T>) -> Summary<T> {
        let mut s = Summary {
            reached: true,
            ..Summary::default()
        };
        match decl {
            Fact::Known(v) => s.value = Some(v),
            Fact::Conflicting => s.conflict = true,
            Fact::Unknown => s.undeclared = true,
        }
        s
    }

    /// Joins `o` into `self`; whether `self` changed.
    fn join(&mut self, o: &Summary<T>) -> bool {
        let before = *self;
        self.reached |= o.reached;
        self.conflict |= o.conflict;
        self.undeclared |= o.undeclared;
        match (self.value, o.value) {
            (None, v) => self.value = v,
            (Some(a), Some(b)) if a != b => self.conflict = true,
            _ => {}
        }
        *self != before
    }

    fn fact(&self) -> Fact<T> {
        if self.conflict {
            Fact::Conflicting
        } else if self.undeclared || !self.reached {
            Fact::Unknown
        } else {
            self.value.map_or(Fact::Unknown, Fact::Known)
        }
    }
}

/// The execution-mode facts of one entry point.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EntryFacts {
    /// The entry point's name (`OpEntryPoint` literal).
    pub name: String,
    /// The entry function's result id.
    pub function_id: Id,
    /// The entry function.
    pub function: Option<FuncId>,
    /// `SubgroupSize`.
    pub subgroup_size: Fact<u32>,
    /// `LocalSize` / `LocalSizeId`: the exact work-group size.
    pub local_size: Fact<[u32; 3]>,
    /// `MaxWorkgroupSizeINTEL`: an upper bound of the work-group size.
    pub max_workgroup_size: Fact<[u32; 3]>,
    /// `SubgroupsPerWorkgroup` / `SubgroupsPerWorkgroupId`.
    pub subgroups_per_workgroup: Fact<u32>,
}

impl EntryFacts {
    /// An upper bound of the work-group size: `LocalSize`, else `MaxWorkgroupSizeINTEL`.
    pub fn workgroup_size_bound(&self) -> Fact<[u32; 3]> {
        match self.local_size {
            Fact::Known(s) => Fact::Known(s),
            _ => self.max_workgroup_size,
        }
    }
}

/// Per-function summaries.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct FunctionSummary {
    subgroup_size: Summary<u32>,
    local_size: Summary<[u32; 3]>,
    bound: [Summary<u32>; 3],
    subgroups: Summary<u32>,
}

impl FunctionSummary {
    fn join(&mut self, o: &FunctionSummary) -> bool {
        let mut c = self.subgroup_size.join(&o.subgroup_size);
        c |= self.local_size.join(&o.local_size);
        for d in 0..3 {
            c |= self.bound[d].join(&o.bound[d]);
        }
        c |= self.subgroups.join(&o.subgroups);
        c
    }
}

/// Kernel facts of a module, per entry point and per function.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct KernelFacts {
    entries: Vec<EntryFacts>,
    functions: Vec<FunctionSummary>,
}

impl Analysis for KernelFacts {
    const KIND: AnalysisSet = AnalysisSet::KERNEL_FACTS;
    fn compute(m: &Module, _: &mut Analyses) -> Self {
        KernelFacts::build(m)
    }
    fn same_facts(&self, fresh: &Self) -> bool {
        self == fresh
    }
}

/// Declarations of one entry function, as read from the execution modes.
#[derive(Default)]
struct Declared {
    subgroup_size: Summary<u32>,
    local_size: Summary<[u32; 3]>,
    max_size: Summary<[u32; 3]>,
    subgroups: Summary<u32>,
}

fn declared_fact<T: Copy + PartialEq>(s: &Summary<T>) -> Fact<T> {
    if s.reached {
        s.fact()
    } else {
        Fact::Unknown
    }
}

impl KernelFacts {
    /// Reads the execution modes and propagates them through the call graph.
    pub fn build(m: &Module) -> KernelFacts {
        let mut declared: HashMap<Id, Declared> = HashMap::default();
        for (_, inst) in m.section_insts(Section::ExecutionMode) {
            let by_id = inst.is(Op::ExecutionModeId);
            if !inst.is(Op::ExecutionMode) && !by_id {
                continue;
            }
            let ops = inst.operands();
            let (Some(f), Some(&mode)) = (inst.operand_id(0), ops.get(1)) else {
                continue;
            };
            // A literal, or (ExecutionModeId) an integer constant; `None`: not a constant.
            let value = |k: usize| -> Option<Option<u32>> {
                let w = *ops.get(2 + k)?;
                Some(if by_id {
                    Id::new(w)
                        .and_then(|id| m.const_int_value(id))
                        .and_then(|v| u32::try_from(v).ok())
                } else {
                    Some(w)
                })
            };
            let to_fact = |v: Option<u32>| v.map_or(Fact::Unknown, Fact::Known);
            let three = || -> Option<Fact<[u32; 3]>> {
                let (x, y, z) = (value(0)?, value(1)?, value(2)?);
                Some(match (x, y, z) {
                    (Some(x), Some(y), Some(z)) => Fact::Known([x, y, z]),
                    _ => Fact::Unknown,
                })
            };
            let d = declared.entry(f).or_default();
            let m32 = |e: ExecutionMode| e as u32;
            if mode == m32(ExecutionMode::SubgroupSize) {
                if let Some(v) = value(0) {
                    d.subgroup_size.join(&Summary::of(to_fact(v)));
                }
            } else if mode == m32(ExecutionMode::LocalSize)
                || mode == m32(ExecutionMode::LocalSizeId)
            {
                if let Some(v) = three() {
                    d.local_size.join(&Summary::of(v));
                }
            } else if mode == m32(ExecutionMode::MaxWorkgroupSizeINTEL) {
                if let Some(v) = three() {
                    d.max_size.join(&Summary::of(v));
                }
            } else if mode == m32(ExecutionMode::SubgroupsPerWorkgroup)
                || mode == m32(ExecutionMode::SubgroupsPerWorkgroupId)
            {
                if let Some(v) = value(0) {
                    d.subgroups.join(&Summary::of(to_fact(v)));
                }
            }
        }
        let mut by_result: HashMap<Id, FuncId> = HashMap::default();
        for f in m.function_ids() {
            if let Some(r) = m.function_result(f) {
                by_result.insert(r, f);
            }
        }
        let mut entries = Vec::new();
        for (_, inst) in m.section_insts(Section::EntryPoint) {
            if !inst.is(Op::EntryPoint)
                || inst.operand_word(0) != Some(ExecutionModel::Kernel as u32)
            {
                continue;
            }
            let Some(fid) = inst.operand_id(1) else {
                continue;
            };
            let name = inst
                .operands()
                .get(2..)
                .and_then(decode_string)
                .unwrap_or("")
                .to_string();
            let d = declared.remove(&fid).unwrap_or_default();
            // Several OpEntryPoint for one function: each gets the function's modes.
            let e = EntryFacts {
                name,
                function_id: fid,
                function: by_result.get(&fid).copied(),
                subgroup_size: declared_fact(&d.subgroup_size),
                local_size: declared_fact(&d.local_size),
                max_workgroup_size: declared_fact(&d.max_size),
                subgroups_per_workgroup: declared_fact(&d.subgroups),
            };
            declared.insert(fid, d);
            entries.push(e);
        }
        let n = m.function_ids().count();
        let mut functions = vec![FunctionSummary::default(); n];
        let mut work: Vec<FuncId> = Vec::new();
        for e in &entries {
            let Some(f) = e.function else { continue };
            let bound = e.workgroup_size_bound();
            let dim = |d: usize| match bound {
                Fact::Known(s) => Fact::Known(s[d]),
                Fact::Conflicting => Fact::Conflicting,
                Fact::Unknown => Fact::Unknown,
            };
            let s = FunctionSummary {
                subgroup_size: Summary::of(e.subgroup_size),
                local_size: Summary::of(e.local_size),
                bound: [
                    Summary::of(dim(0)),
                    Summary::of(dim(1)),
                    Summary::of(dim(2)),
                ],
                subgroups: Summary::of(e.subgroups_per_workgroup),
            };
            functions[f.index()].join(&s);
            work.push(f);
        }
        // Call edges (callee FuncIds per caller), once.
        let mut callees: Vec<Vec<FuncId>> = vec![Vec::new(); n];
        for f in m.function_ids() {
            for &b in &m.function(f).blocks {
                for i in m.block_insts(b) {
                    let inst = m.inst(i);
                    if !inst.is(Op::FunctionCall) {
                        continue;
                    }
                    if let Some(&c) = inst.operand_id(0).and_then(|c| by_result.get(&c)) {
                        if !callees[f.index()].contains(&c) {
                            callees[f.index()].push(c);
                        }
                    }
                }
            }
        }
        while let Some(f) = work.pop() {
            let s = functions[f.index()].clone();
            for &c in &callees[f.index()] {
                if functions[c.index()].join(&s) {
                    work.push(c);
                }
            }
        }
        KernelFacts { entries, functions }
    }

    /// The kernel entry points, in `OpEntryPoint` order.
    pub fn entries(&self) -> &[EntryFacts] {
        &self.entries
    }

    /// The entry point named `name`.
    pub fn entry_by_name(&self, name: &str) -> Option<&EntryFacts> {
        self.entries.iter().find(|e| e.name == name)
    }

    /// The entry point whose function has result id `id` (the first, if several).
    pub fn entry_by_function_id(&self, id: Id) -> Option<&EntryFacts> {
        self.entries.iter().find(|e| e.function_id == id)
    }

    fn summary(&self, f: FuncId) -> Option<&FunctionSummary> {
        self.functions.get(f.index())
    }

    /// The subgroup size of function `f`: what every entry point reaching it declares.
    pub fn subgroup_size(&self, f: FuncId) -> Fact<u32> {
        self.summary(f)
            .map_or(Fact::Unknown, |s| s.subgroup_size.fact())
    }

    /// The subgroup size of the function containing instruction `i`.
    pub fn subgroup_size_at(&self, m: &Module, i: InstId) -> Fact<u32> {
        match m.inst_block(i) {
            Some(b) => self.subgroup_size(m.block(b).func),
            None => Fact::Unknown,
        }
    }

    /// The exact work-group size (`LocalSize`) of function `f`.
    pub fn local_size(&self, f: FuncId) -> Fact<[u32; 3]> {
        self.summary(f)
            .map_or(Fact::Unknown, |s| s.local_size.fact())
    }

    /// An upper bound of the work-group size in dimension `d` (0..3) of function `f`
    /// (`LocalSize`, else `MaxWorkgroupSizeINTEL`, of every entry point reaching it).
    pub fn workgroup_size_bound_dim(&self, f: FuncId, d: usize) -> Fact<u32> {
        self.summary(f)
            .and_then(|s| s.bound.get(d))
            .map_or(Fact::Unknown, Summary::fact)
    }

    /// Whether component `d` (0..3) of `LocalInvocationId`, and so of `GlobalInvocationId`
    /// (the work-group's id and offset are uniform), is the same in every invocation of a
    /// subgroup of function `f`. Subgroups are formed from consecutive linear local ids
    /// (`x + X*(y + Y*z)`: Intel's GPU drivers, and `spv-sim`), so a subgroup of `S`
    /// invocations lies within one row when the work-group's `X` is a multiple of `S`, and
    /// within one `xy` plane when `X*Y` is: then `y`, or `z`, is subgroup-uniform. It needs
    /// the exact work-group size (`LocalSize`, `reqd_work_group_size`) and the subgroup size
    /// (`SubgroupSize`, `intel_reqd_sub_group_size`) of every kernel reaching `f`; without them
    /// only a dimension whose size (or `MaxWorkgroupSizeINTEL` bound) is 1 is uniform.
    pub fn local_id_subgroup_uniform(&self, f: FuncId, d: usize) -> bool {
        if d >= 3 {
            return false;
        }
        if self.workgroup_size_bound_dim(f, d) == Fact::Known(1) {
            return true;
        }
        let (Fact::Known(size), Fact::Known(sg)) = (self.local_size(f), self.subgroup_size(f))
        else {
            return false;
        };
        if sg == 0 || size.contains(&0) {
            return false;
        }
        let below: u64 = size[..d].iter().map(|&s| u64::from(s)).product();
        below.is_multiple_of(u64::from(sg))
    }

    /// An upper bound of the work-group size of function `f` (all three dimensions known).
    pub fn workgroup_size_bound(&self, f: FuncId) -> Fact<[u32; 3]> {
        let dims = [0, 1, 2].map(|d| self.workgroup_size_bound_dim(f, d));
        if dims.contains(&Fact::Conflicting) {
            return Fact::Conflicting;
        }
        match dims {
            [Fact::Known(x), Fact::Known(y), Fact::Known(z)] => Fact::Known([x, y, z]),
            _ => Fact::Unknown,
        }
    }

    /// The number of subgroups per work-group of function `f`: `SubgroupsPerWorkgroup`, else
    /// the work-group size bound's product divided by the subgroup size (when it divides).
    pub fn subgroups_per_workgroup(&self, f: FuncId) -> Fact<u32> {
        let Some(s) = self.summary(f) else {
            return Fact::Unknown;
        };
        if let Fact::Known(n) = s.subgroups.fact() {
            return Fact::Known(n);
        }
        let (bound, sg) = (self.workgroup_size_bound(f), self.subgroup_size(f));
        match (bound, sg) {
            (Fact::Known(b), Fact::Known(sg)) if sg > 0 => {
                let total = b.iter().try_fold(1u64, |a, &d| a.checked_mul(u64::from(d)));
                match total {
                    Some(t) if t % u64::from(sg) == 0 => {
                        u32::try_from(t / u64::from(sg)).map_or(Fact::Unknown, Fact::Known)
                    }
                    _ => Fact::Unknown,
                }
            }
            (Fact::Conflicting, _) | (_, Fact::Conflicting) => Fact::Conflicting,
            _ => Fact::Unknown,
        }
    }

    /// Whether some entry point reaches `f` (directly or through calls).
    pub fn is_reached(&self, f: FuncId) -> bool {
        self.summary(f).is_some_and(|s| s.subgroup_size.reached)
    }

    /// The subgroup size every kernel of the module declares, if they all declare the same one
    /// (the whole-module view; passes should ask per function).
    pub fn module_subgroup_size(&self) -> Option<u32> {
        let mut all = Summary::default();
        for e in &self.entries {
            all.join(&Summary::of(e.subgroup_size));
        }
        all.fact().known()
    }

    /// The work-group size bound every kernel of the module declares, if they all agree.
    pub fn module_workgroup_size_bound(&self) -> Option<[u32; 3]> {
        let mut all = Summary::default();
        for e in &self.entries {
            all.join(&Summary::of(e.workgroup_size_bound()));
        }
        all.fact().known()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn assemble(src: &str) -> Module {
        let words = spvopt_ir::text::assemble(src, spvopt_ir::text::TargetEnv::Universal_1_4)
            .expect("assembles");
        spvopt_ir::load_words(&words).expect("loads")
    }

    fn facts(src: &str) -> (Module, KernelFacts) {
        let m = assemble(src);
        let f = KernelFacts::build(&m);
        (m, f)
    }

    fn func(m: &Module, name: &str) -> FuncId {
        let names = crate::builtins::debug_names(m, &|_| true);
        m.function_ids()
            .find(|&f| {
                m.function_result(f)
                    .and_then(|r| names.get(&r))
                    .is_some_and(|n| n == name)
            })
            .expect("function")
    }

    const TWO: &str = r#"
               OpCapability Addresses
               OpCapability Kernel
               OpCapability SubgroupDispatch
               OpMemoryModel Physical64 OpenCL
               OpEntryPoint Kernel %k8 "k8"
               OpEntryPoint Kernel %k16 "k16"
               OpEntryPoint Kernel %kn "kn"
               OpExecutionMode %k8 SubgroupSize 8
               OpExecutionMode %k8 LocalSize 64 1 1
               OpExecutionMode %k16 SubgroupSize 16
               OpExecutionMode %k16 LocalSize 64 1 1
               OpName %k8 "k8"
               OpName %k16 "k16"
               OpName %kn "kn"
               OpName %shared "shared"
               OpName %only16 "only16"
               OpName %leaf "leaf"
               OpName %dead "dead"
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
       %leaf = OpFunction %void None %fn
         %l0 = OpLabel
               OpReturn
               OpFunctionEnd
     %shared = OpFunction %void None %fn
         %s0 = OpLabel
         %c1 = OpFunctionCall %void %leaf
               OpReturn
               OpFunctionEnd
     %only16 = OpFunction %void None %fn
         %o0 = OpLabel
         %c2 = OpFunctionCall %void %leaf
               OpReturn
               OpFunctionEnd
       %dead = OpFunction %void None %fn
         %d0 = OpLabel
               OpReturn
               OpFunctionEnd
         %k8 = OpFunction %void None %fn
         %a0 = OpLabel
         %c3 = OpFunctionCall %void %shared
               OpReturn
               OpFunctionEnd
        %k16 = OpFunction %void None %fn
         %b0 = OpLabel
         %c4 = OpFunctionCall %void %shared
         %c5 = OpFunctionCall %void %only16
               OpReturn
               OpFunctionEnd
         %kn = OpFunction %void None %fn
         %n0 = OpLabel
               OpReturn
               OpFunctionEnd
"#;

    #[test]
    fn per_entry_and_per_function() {
        let (m, f) = facts(TWO);
        assert_eq!(f.entries().len(), 3);
        assert_eq!(f.entry_by_name("k8").unwrap().subgroup_size, Fact::Known(8));
        assert_eq!(
            f.entry_by_name("k16").unwrap().subgroup_size,
            Fact::Known(16)
        );
        assert_eq!(f.entry_by_name("kn").unwrap().subgroup_size, Fact::Unknown);
        assert_eq!(f.subgroup_size(func(&m, "k8")), Fact::Known(8));
        assert_eq!(f.subgroup_size(func(&m, "k16")), Fact::Known(16));
        assert_eq!(f.subgroup_size(func(&m, "only16")), Fact::Known(16));
        assert_eq!(f.subgroup_size(func(&m, "shared")), Fact::Conflicting);
        // leaf: reached from k8 (via shared) and k16 (via both).
        assert_eq!(f.subgroup_size(func(&m, "leaf")), Fact::Conflicting);
        assert_eq!(f.subgroup_size(func(&m, "dead")), Fact::Unknown);
        assert!(!f.is_reached(func(&m, "dead")));
        assert_eq!(f.subgroup_size(func(&m, "kn")), Fact::Unknown);
        // The work-group size agrees across k8 and k16: known in the shared helper.
        assert_eq!(f.local_size(func(&m, "shared")), Fact::Known([64, 1, 1]));
        assert_eq!(f.subgroups_per_workgroup(func(&m, "k8")), Fact::Known(8));
        assert_eq!(f.subgroups_per_workgroup(func(&m, "k16")), Fact::Known(4));
        assert_eq!(
            f.subgroups_per_workgroup(func(&m, "shared")),
            Fact::Conflicting
        );
        assert_eq!(f.module_subgroup_size(), None);
    }

    #[test]
    fn undeclared_entry_makes_shared_functions_unknown() {
        let src = TWO.replace(
            "%kn = OpFunction %void None %fn\n         %n0 = OpLabel\n",
            "%kn = OpFunction %void None %fn\n         %n0 = OpLabel\n         %c6 = OpFunctionCall %void %only16\n",
        );
        let (m, f) = facts(&src);
        assert_eq!(f.subgroup_size(func(&m, "only16")), Fact::Unknown);
        assert_eq!(f.subgroup_size(func(&m, "k16")), Fact::Known(16));
    }

    #[test]
    fn module_wide_view_and_id_forms() {
        let src = r#"
               OpCapability Addresses
               OpCapability Kernel
               OpCapability SubgroupDispatch
               OpMemoryModel Physical64 OpenCL
               OpEntryPoint Kernel %k "k"
               OpExecutionMode %k SubgroupSize 32
               OpExecutionModeId %k LocalSizeId %u128 %u1 %u1
               OpExecutionModeId %k SubgroupsPerWorkgroupId %u2
       %void = OpTypeVoid
       %uint = OpTypeInt 32 0
       %u128 = OpConstant %uint 128
         %u1 = OpConstant %uint 1
         %u2 = OpConstant %uint 2
         %fn = OpTypeFunction %void
          %k = OpFunction %void None %fn
         %a0 = OpLabel
               OpReturn
               OpFunctionEnd
"#;
        let m = assemble(src);
        let f = KernelFacts::build(&m);
        let k = m.function_ids().next().unwrap();
        assert_eq!(f.module_subgroup_size(), Some(32));
        assert_eq!(f.local_size(k), Fact::Known([128, 1, 1]));
        // Declared SubgroupsPerWorkgroup wins over 128/32 = 4.
        assert_eq!(f.subgroups_per_workgroup(k), Fact::Known(2));
        assert_eq!(f.module_workgroup_size_bound(), Some([128, 1, 1]));
    }

    #[test]
    fn conflicting_declarations_of_one_entry() {
        let mut s = Summary::of(Fact::Known(8u32));
        assert!(s.join(&Summary::of(Fact::Known(16))));
        assert_eq!(s.fact(), Fact::Conflicting);
        assert!(!s.join(&Summary::of(Fact::Known(8))));
        let mut u = Summary::of(Fact::Known(8u32));
        u.join(&Summary::of(Fact::Unknown));
        assert_eq!(u.fact(), Fact::Unknown);
        assert_eq!(Summary::<u32>::default().fact(), Fact::Unknown);
    }
}
