//! The analysis cache the pass manager hands to passes.
//!
//! Analyses are computed on first request and shared as `Rc`s, so a pass can hold a result
//! while it mutates the module. After a pass that changed the module, the pass manager calls
//! [`Analyses::invalidate_except`] with what the pass preserved; a pass that changed nothing
//! invalidates nothing.
//!
//! "Preserved" is a claim a pass makes; [`Analyses::stale`] checks it (SPIRV-Tools'
//! `Pass::IsConsistent` does the same after each pass in debug builds): every analysis still
//! cached is computed again from scratch on the module as it is now, and compared with the
//! cached one by [`Analysis::same_facts`]: by equality of the facts (SPIRV-Tools compares with
//! `operator==`) for the CFG, dominator and post-dominator trees, loops, def-use chains,
//! uniformity, constants, kernel facts, decorations and callees, where a swapped dominator
//! parent or a moved use is a difference; provenance and induction (arenas whose layout
//! follows the order of computation) still compare their sorted `Debug` lines
//! ([`Analysis::fingerprint`]), which do not see every swap. The pass manager runs the check after every pass
//! that changed the module in debug builds, when `Hooks::check_preserved` is set (the tests set
//! it) or when `SPVOPT_CHECK_PRESERVED=1` is in the environment.

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::rc::Rc;

use spvopt_ir::Module;

/// A set of analysis kinds (bit set).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct AnalysisSet(pub u32);

impl AnalysisSet {
    /// No analysis: what a pass that changes everything preserves.
    pub const NONE: AnalysisSet = AnalysisSet(0);
    /// Def-use chains (`spvopt_ir::DefUse`).
    pub const DEF_USE: AnalysisSet = AnalysisSet(1 << 0);
    /// Control-flow graphs (`Cfg`).
    pub const CFG: AnalysisSet = AnalysisSet(1 << 1);
    /// Dominator and post-dominator trees.
    pub const DOMINATORS: AnalysisSet = AnalysisSet(1 << 2);
    /// Natural loops and their nesting (`Loops`).
    pub const LOOPS: AnalysisSet = AnalysisSet(1 << 3);
    /// Induction variables of loops (`Induction`).
    pub const INDUCTION: AnalysisSet = AnalysisSet(1 << 4);
    /// Which values are uniform across a subgroup or work-group (`Uniformity`).
    pub const UNIFORMITY: AnalysisSet = AnalysisSet(1 << 5);
    /// Folded integer constants (`Constants`).
    pub const CONSTANTS: AnalysisSet = AnalysisSet(1 << 6);
    /// Pointer provenance and may-alias facts (`Alias`, `Provenance`).
    pub const ALIAS: AnalysisSet = AnalysisSet(1 << 7);
    /// The entry point's facts: subgroup size, work-group size, built-ins (`KernelFacts`).
    pub const KERNEL_FACTS: AnalysisSet = AnalysisSet(1 << 8);
    /// Decorations, and the imported functions named and classified (`Callees`, which reads
    /// linkage names and `OpName`s): a pass that adds or removes decorations, names or
    /// functions does not preserve it.
    pub const DECORATIONS: AnalysisSet = AnalysisSet(1 << 9);
    /// Every analysis: what a pass that changes nothing preserves.
    pub const ALL: AnalysisSet = AnalysisSet(u32::MAX);

    /// Whether every analysis of `other` is in this set.
    pub fn contains(self, other: AnalysisSet) -> bool {
        self.0 & other.0 == other.0
    }
    /// Both sets' analyses.
    pub const fn union(self, other: AnalysisSet) -> AnalysisSet {
        AnalysisSet(self.0 | other.0)
    }
    /// This set minus `other`.
    pub const fn without(self, other: AnalysisSet) -> AnalysisSet {
        AnalysisSet(self.0 & !other.0)
    }
}

impl std::ops::BitOr for AnalysisSet {
    type Output = AnalysisSet;
    fn bitor(self, rhs: AnalysisSet) -> AnalysisSet {
        self.union(rhs)
    }
}

/// An analysis the cache can compute. `KIND` is the bit that says when it must be recomputed;
/// an analysis built on others (loops on dominators) lists them in `DEPENDS_ON` so that it is
/// dropped with them.
pub trait Analysis: Any + Sized + std::fmt::Debug {
    /// This analysis' bit: the cache drops it when a pass does not preserve that bit.
    const KIND: AnalysisSet;
    /// The analyses this one is computed from (dropped with any of them).
    const DEPENDS_ON: AnalysisSet = AnalysisSet::NONE;
    /// Computes the analysis of `m`, getting the analyses it builds on from `analyses`.
    fn compute(m: &Module, analyses: &mut Analyses) -> Self;
    /// Whether `self` (cached) says what `fresh` (computed again on the module as it is now)
    /// says: what [`Analyses::stale`] asks. Analyses override it with an exact comparison of
    /// their facts; the default compares [`Analysis::fingerprint`]s.
    fn same_facts(&self, fresh: &Self) -> bool {
        self.fingerprint() == fresh.fingerprint()
    }
    /// A coarse comparison key for analyses without an exact [`Analysis::same_facts`]: the
    /// lines of the pretty `Debug` rendering, sorted, so that hash maps filled in another
    /// order compare equal (and, since lines lose their context, some real differences do
    /// too); an analysis whose `Debug` shows more than its facts overrides it.
    fn fingerprint(&self) -> Vec<String> {
        let mut lines: Vec<String> = format!("{self:#?}").lines().map(str::to_owned).collect();
        lines.sort_unstable();
        lines
    }
}

/// Whether two id- or slot-indexed tables hold the same facts: equal where both have entries,
/// and the longer one's extra entries (ids or blocks the other module did not have) all
/// `empty`.
pub fn same_table<T: PartialEq>(a: &[T], b: &[T], empty: &T) -> bool {
    let n = a.len().min(b.len());
    a[..n] == b[..n] && a[n..].iter().chain(&b[n..]).all(|x| x == empty)
}

/// One cached result, with how to check it against a fresh computation.
struct Entry {
    kinds: AnalysisSet,
    value: Rc<dyn Any>,
    name: &'static str,
    /// Whether the cached value (first argument) still says what a fresh computation on the
    /// module says.
    still_valid: fn(&dyn Any, &Module) -> bool,
}

fn still_valid<A: Analysis>(cached: &dyn Any, m: &Module) -> bool {
    let Some(cached) = cached.downcast_ref::<A>() else {
        return false;
    };
    let fresh = A::compute(m, &mut Analyses::new());
    cached.same_facts(&fresh)
}

/// Cache of computed analyses.
#[derive(Default)]
pub struct Analyses {
    cache: HashMap<TypeId, Entry>,
    /// How many times each analysis was computed (for tests and `--time-report`).
    pub computed: u64,
    /// Per computation under way (innermost last): the kinds of the analyses it requested.
    requesting: Vec<AnalysisSet>,
    /// Analyses whose computation requested kinds beyond their `KIND | DEPENDS_ON`, with
    /// those kinds (see [`Analyses::undeclared_dependencies`]).
    undeclared: Vec<(&'static str, AnalysisSet)>,
}

impl Analyses {
    /// An empty cache.
    pub fn new() -> Analyses {
        Analyses::default()
    }

    /// The analysis `A` of module `m`, computed on first request.
    ///
    /// What `A`'s computation requests from the cache is recorded: the cached `A` is dropped
    /// when any of it is (its kinds are `KIND | DEPENDS_ON` and those of everything it read,
    /// transitively), so an analysis cannot outlive one it was built from even where its
    /// `DEPENDS_ON` forgets it; and the forgotten kinds are kept for
    /// [`Analyses::undeclared_dependencies`].
    pub fn get<A: Analysis>(&mut self, m: &Module) -> Rc<A> {
        if let Some(e) = self.cache.get(&TypeId::of::<A>()) {
            if let Ok(a) = Rc::clone(&e.value).downcast::<A>() {
                let kinds = e.kinds;
                if let Some(outer) = self.requesting.last_mut() {
                    *outer = *outer | kinds;
                }
                return a;
            }
        }
        self.requesting.push(AnalysisSet::NONE);
        let a = Rc::new(A::compute(m, self));
        let read = self.requesting.pop().unwrap_or_default();
        self.computed += 1;
        let declared = A::KIND | A::DEPENDS_ON;
        if read.without(declared) != AnalysisSet::NONE {
            self.undeclared
                .push((short_type_name::<A>(), read.without(declared)));
        }
        let kinds = declared | read;
        if let Some(outer) = self.requesting.last_mut() {
            *outer = *outer | kinds;
        }
        self.cache.insert(
            TypeId::of::<A>(),
            Entry {
                kinds,
                value: Rc::clone(&a) as Rc<dyn Any>,
                name: short_type_name::<A>(),
                still_valid: still_valid::<A>,
            },
        );
        a
    }

    /// The cached analyses that no longer describe `m`: each is computed again from scratch
    /// and compared by [`Analysis::same_facts`] (sorted names; empty when all hold). Costs a
    /// full recomputation of everything cached: a check for tests and debug builds.
    pub fn stale(&self, m: &Module) -> Vec<&'static str> {
        let mut out: Vec<&'static str> = self
            .cache
            .values()
            .filter(|e| !(e.still_valid)(e.value.as_ref(), m))
            .map(|e| e.name)
            .collect();
        out.sort_unstable();
        out
    }

    /// The analyses computed through this cache whose computation read (directly or through
    /// the analyses it requested) kinds its `DEPENDS_ON` does not declare, with those kinds:
    /// empty when every declaration is complete (a test computes every analysis on the corpus
    /// and checks this).
    pub fn undeclared_dependencies(&self) -> &[(&'static str, AnalysisSet)] {
        &self.undeclared
    }

    /// Whether `A` is currently cached.
    pub fn is_cached<A: Analysis>(&self) -> bool {
        self.cache.contains_key(&TypeId::of::<A>())
    }

    /// Drops every cached analysis that is not (entirely) in `preserved`.
    pub fn invalidate_except(&mut self, preserved: AnalysisSet) {
        self.cache.retain(|_, e| preserved.contains(e.kinds));
    }

    /// Drops everything.
    pub fn clear(&mut self) {
        self.cache.clear();
    }
}

/// `spvopt_analysis::uniformity::Uniformity` → `Uniformity`.
fn short_type_name<A>() -> &'static str {
    let full = std::any::type_name::<A>();
    full.rsplit("::").next().unwrap_or(full)
}

/// Def-use chains are an analysis too.
impl Analysis for spvopt_ir::DefUse {
    const KIND: AnalysisSet = AnalysisSet::DEF_USE;
    fn compute(m: &Module, _: &mut Analyses) -> Self {
        spvopt_ir::DefUse::build(m)
    }
    /// The same users of every id, in any order (a use list follows the module's order).
    fn same_facts(&self, fresh: &Self) -> bool {
        self.same_uses(fresh)
    }
}
