//! The analyses `fuse-block-loads` asks for only when a decision needs them (alias,
//! uniformity and the dominator trees, see [`OnDemand`]).

use std::cell::{OnceCell, RefCell};
use std::rc::Rc;

use spvopt_analysis::alias::Alias;
use spvopt_analysis::uniformity::Uniformity;
use spvopt_analysis::{Analyses, Dominators, PostDominators};
use spvopt_ir::Module;

/// The analyses only some decisions need (alias for "may something between write their
/// region", uniformity for "is the control of two blocks uniform"), taken from the cache on
/// first use: a module whose 2D block operations have no possible partner (no two loads of one
/// surface and shape side by side, no repeated load) never computes them. The cache's contract is kept:
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
