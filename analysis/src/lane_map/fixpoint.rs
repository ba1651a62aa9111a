//! The lane map's fixpoint over walks (see `lane_map.rs`): what one walk learns that the next
//! starts from (loop phis that are not uniform, substitutions of lane-varying loop phis,
//! alignments, counters that are never negative), and when a walk's result is final.

use crate::fxhash::FxHashMap as HashMap;
use spirv::BuiltIn;
use spvopt_ir::{BlockId, Id, Module};

use super::walk::Walker;
use super::{counter_never_negative, LaneValue, Poly};
use crate::cfg::Cfg;
use crate::decorations::Decorations;

/// What stays the same from walk to walk.
pub(super) struct WalkEnv<'a> {
    pub m: &'a Module,
    pub cfg: &'a Cfg,
    pub dec: &'a Decorations,
    pub lanes: usize,
    pub shape: [usize; 3],
    pub sg: usize,
    pub builtins: HashMap<Id, BuiltIn>,
    pub joined: HashMap<BlockId, Vec<Id>>,
    pub exact_widenings: bool,
}

/// What the walks have learnt so far; each walk starts from it.
#[derive(Default)]
pub(super) struct Facts {
    /// Loop phis that are not uniform (the walk takes them as unknown).
    pub not_uniform: Vec<Id>,
    /// Loop phis taken as atoms that are provably multiples of `2^k`.
    pub atom_tz: HashMap<Id, u32>,
    /// Lane-varying loop phis written as `init + (q - q0)·step/sq` over a uniform counter q,
    /// with the step per iteration each was derived with.
    pub subst: HashMap<Id, (Poly, Poly)>,
    /// Loop counters known never to be negative.
    pub nonneg: Vec<Id>,
}

/// Why a walk's result is not final, and what the next walk must know.
pub(super) enum Revision {
    /// Loop phis taken as atoms that get lane-varying values (or whose uniformity rests on a
    /// condition that is not uniform).
    NotUniform(Vec<Id>),
    /// Substituted phis that no longer advance by the step they were derived with.
    Stale(Vec<Id>),
    /// New lane-varying loop phis: their form over a uniform counter (`None`: none).
    Forms(Vec<(Id, Option<(Poly, Poly)>)>),
}

impl Facts {
    /// A walker that starts from these facts.
    pub fn walker<'a>(&'a self, env: &'a WalkEnv<'a>) -> Walker<'a> {
        Walker {
            m: env.m,
            cfg: env.cfg,
            dec: env.dec,
            lanes: env.lanes,
            shape: env.shape,
            sg: env.sg,
            builtins: &env.builtins,
            values: HashMap::default(),
            no_wrap: Vec::new(),
            forced_unknown: &self.not_uniform,
            joined: &env.joined,
            header_phis: Vec::new(),
            seen: Default::default(),
            atom_tz: &self.atom_tz,
            subst: &self.subst,
            placeholders: Vec::new(),
            assumptions: Vec::new(),
            exact_widenings: env.exact_widenings,
            widenings: Vec::new(),
            pending_conds: Vec::new(),
            derived_tz: HashMap::default(),
            nonneg: &self.nonneg,
        }
    }

    /// Learns what revision `r` says.
    pub fn revise(&mut self, r: Revision) {
        match r {
            Revision::NotUniform(bad) => self.not_uniform.extend(bad),
            Revision::Stale(stale) => {
                for phi in stale {
                    self.subst.remove(&phi);
                    self.not_uniform.push(phi);
                }
            }
            Revision::Forms(forms) => {
                for (phi, form) in forms {
                    match form {
                        Some(v) => {
                            self.subst.insert(phi, v);
                        }
                        None => self.not_uniform.push(phi),
                    }
                }
            }
        }
    }

    /// Alignment of loop phis: min(alignment of the initial value, of the step); whether
    /// one grew (then the walk is repeated).
    pub fn grow_alignment(&mut self, inductions: &[(Id, Poly, Poly)]) -> bool {
        let mut grew = false;
        for (phi, init, step) in inductions {
            let atom_tz = &self.atom_tz;
            let tz_of = |a: Id| atom_tz.get(&a).copied().unwrap_or(0);
            let tz = init
                .trailing_zeros_with(tz_of)
                .min(step.trailing_zeros_with(tz_of));
            if tz > tz_of(*phi) {
                self.atom_tz.insert(*phi, tz);
                grew = true;
            }
        }
        grew
    }

    /// Learns the induction counters that are never negative; whether there were new ones
    /// (then the walk is repeated).
    pub fn new_counters(&mut self, m: &Module, inductions: &[(Id, Poly, Poly)]) -> bool {
        let counters: Vec<Id> = inductions
            .iter()
            .filter(|(phi, init, step)| counter_never_negative(m, *phi, init, step))
            .map(|(phi, _, _)| *phi)
            .filter(|phi| !self.nonneg.contains(phi))
            .collect();
        let new = !counters.is_empty();
        self.nonneg.extend(counters);
        new
    }
}

/// The inductions of walk `w` when its loop phis are settled, else what the next walk must
/// know.
pub(super) fn settled(
    w: &Walker<'_>,
    subst: &HashMap<Id, (Poly, Poly)>,
) -> Result<Vec<(Id, Poly, Poly)>, Revision> {
    // A loop phi taken as an atom must get a lane-invariant value on every edge.
    let mut bad: Vec<Id> = w
        .header_phis
        .iter()
        .copied()
        .filter(|&phi| !w.phi_inputs_invariant(phi))
        .collect();
    for &(phi, c) in &w.pending_conds {
        let uniform = match w.bool_of(c) {
            Some(LaneValue::UniformBool) => true,
            Some(LaneValue::Bool(t)) => t.iter().all(|&v| v == t[0]),
            _ => false,
        };
        if !uniform && !bad.contains(&phi) {
            bad.push(phi);
        }
    }
    if !bad.is_empty() {
        return Err(Revision::NotUniform(bad));
    }
    // Substituted phis must still advance by the step they were derived with.
    let stale: Vec<Id> = subst
        .iter()
        .filter(|(&phi, (expr, step))| {
            let back = w.back_edge_value(phi);
            !back.is_some_and(|l| l.sub(expr).is_some_and(|d| d.same_as(step)))
        })
        .map(|(&phi, _)| phi)
        .collect();
    if !stale.is_empty() {
        return Err(Revision::Stale(stale));
    }
    let inductions = w.inductions();
    // New lane-varying loop phis: express them over a uniform counter of their loop.
    if !w.placeholders.is_empty() {
        let forms = w
            .placeholders
            .iter()
            .map(|(phi, init)| (*phi, w.counter_form(*phi, init, &inductions)))
            .collect();
        return Err(Revision::Forms(forms));
    }
    Ok(inductions)
}
