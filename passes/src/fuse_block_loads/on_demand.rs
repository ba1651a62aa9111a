//! The analyses `fuse-block-loads` asks for only when a decision needs them (alias,
//! uniformity and the dominator trees, see [`OnDemand`]), and the test that lets it skip
//! uniformity for a group ([`FuseBlockLoads::may_form_run`]).

use spvopt_analysis::fxhash::FxHashSet as HashSet;
use std::cell::{Cell, OnceCell, RefCell};
use std::rc::Rc;

use spvopt_analysis::alias::Alias;
use spvopt_analysis::uniformity::Uniformity;
use spvopt_analysis::{Analyses, Dominators, PostDominators};
use spvopt_ir::Module;

use super::{Candidate, Ctx, FuseBlockLoads};

thread_local! {
    /// Test hook ([`with_every_group_checked`]): uniformity asked for every group of two or
    /// more candidates, adjacent or not.
    static EVERY_GROUP_CHECKED: Cell<bool> = const { Cell::new(false) };
}

/// Runs `f` (on this thread) with the pass filtering every group of two or more candidates by
/// uniformity before clustering, as it did before it looked for an adjacent pair first: for
/// the test that the shortcut changes no decision (`tests/tests/analyses_on_demand.rs`).
#[doc(hidden)]
pub fn with_every_group_checked<R>(f: impl FnOnce() -> R) -> R {
    let old = EVERY_GROUP_CHECKED.with(|c| c.replace(true));
    let r = f();
    EVERY_GROUP_CHECKED.with(|c| c.set(old));
    r
}

/// Whether the test hook [`with_every_group_checked`] is on (on this thread).
pub(super) fn every_group_checked() -> bool {
    EVERY_GROUP_CHECKED.with(|c| c.get())
}

/// The analyses only some decisions need (alias for "may something between write their
/// region", uniformity for "are all operands uniform"), taken from the cache on first use: a
/// module whose 2D block operations have no possible partner (no two loads of one surface and
/// shape side by side, no repeated load) never computes them. The cache's contract is kept:
/// they come from [`Analyses::get`] on the unmodified module (planning does not edit it).
pub(super) struct OnDemand<'a> {
    pub(super) m: &'a Module,
    pub(super) analyses: RefCell<&'a mut Analyses>,
    pub(super) alias: OnceCell<Rc<Alias>>,
    pub(super) uni: OnceCell<Rc<Uniformity>>,
    pub(super) dom: OnceCell<Rc<Dominators>>,
    pub(super) pdom: OnceCell<Rc<PostDominators>>,
}

impl OnDemand<'_> {
    pub(super) fn alias(&self) -> &Alias {
        self.alias
            .get_or_init(|| self.analyses.borrow_mut().get::<Alias>(self.m))
    }

    pub(super) fn uni(&self) -> &Uniformity {
        self.uni
            .get_or_init(|| self.analyses.borrow_mut().get::<Uniformity>(self.m))
    }

    /// The dominator tree (only merging across blocks asks).
    pub(super) fn dom(&self) -> &Dominators {
        self.dom
            .get_or_init(|| self.analyses.borrow_mut().get::<Dominators>(self.m))
    }

    /// The post-dominator tree (only merging across blocks asks).
    pub(super) fn pdom(&self) -> &PostDominators {
        self.pdom
            .get_or_init(|| self.analyses.borrow_mut().get::<PostDominators>(self.m))
    }
}

impl FuseBlockLoads {
    /// Whether [`FuseBlockLoads::runs`] could build a run of two or more out of some subset of
    /// `group`: whether, for some leader, two candidates placed in the leader's rows (the
    /// leader itself at 0) have one starting where the other ends. `runs` clusters the uniform
    /// candidates around leaders taken from them and joins a placed candidate to a run only
    /// when it starts where the previous one ends, with the same relations as here; so with
    /// no such pair here it builds no run whichever candidates are uniform, and the
    /// uniformity analysis need not be asked.
    pub(super) fn may_form_run(m: &Module, ctx: &Ctx<'_>, group: &[Candidate]) -> bool {
        let mut starts: HashSet<i64> = HashSet::default();
        let mut placed: Vec<(i64, u64)> = Vec::new();
        for leader in group {
            starts.clear();
            placed.clear();
            for c in group {
                let Some(dx) = ctx.dx_from(m, leader, c) else {
                    continue;
                };
                starts.insert(dx);
                placed.push((dx, c.footprint.row_bytes));
            }
            if placed.len() >= 2
                && placed
                    .iter()
                    .any(|&(dx, rb)| starts.contains(&dx.wrapping_add(rb as i64)))
            {
                return true;
            }
        }
        false
    }
}
