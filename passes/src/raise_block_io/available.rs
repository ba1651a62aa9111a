//! raise-block-io: whether a planned block operation can be emitted at a given point (every
//! value its coordinates need available there or recomputable from available values, its base
//! a kernel parameter, its surface a function of the kernel's arguments for the run-time check).

use spirv::Op;
use spvopt_analysis::lane_map::Poly;
use spvopt_analysis::Dominators;
use spvopt_ir::{FuncId, Id, InstId, Module};

use super::emit;
use super::obligation::Obligation;
use super::plan::OperandPlan;

/// Why a plan's block operation cannot go right before `at` (in `f`), if it cannot: an atom of
/// its coordinates is neither available there nor recomputable from available values, a
/// condition is not available, its base is not a parameter, or its surface is not a function
/// of the kernel's arguments (the run-time check computes it before the body).
pub fn unavailable(
    m: &Module,
    dom: &Dominators,
    f: FuncId,
    at: InstId,
    p: &OperandPlan,
    recompute_conds: bool,
) -> Option<(&'static str, String)> {
    let at_block = m.inst_block(at)?;
    let available = |a: Id| -> bool {
        let Some(d) = m.def(a) else { return true };
        match m.inst_block(d) {
            None => true,
            Some(b) if b == at_block => {
                let mut i = m.prev_inst(at);
                while let Some(x) = i {
                    if x == d {
                        return true;
                    }
                    i = m.prev_inst(x);
                }
                false
            }
            Some(b) => dom.dominates(b, at_block),
        }
    };
    // An atom computed where the data is not visible (in a masked block) is recomputed at the
    // insertion point when it is a pure function of available values.
    let recomputable = |a: Id| -> bool {
        let mut stack = vec![a];
        let mut steps = 0;
        while let Some(v) = stack.pop() {
            steps += 1;
            if steps > 64 {
                return false;
            }
            if available(v) {
                continue;
            }
            let Some(d) = m.def(v) else { return false };
            let inst = m.inst(d);
            if inst.is(Op::Phi) || !crate::util::is_side_effect_free(m, inst) || inst.is(Op::Load) {
                return false;
            }
            m.for_each_used_id(d, |u| {
                if m.def(u).and_then(|x| m.inst_block(x)).is_some() {
                    stack.push(u);
                }
            });
        }
        true
    };
    let atoms_of = |polys: &[&Poly]| -> Vec<Id> {
        let mut v = Vec::new();
        for poly in polys {
            for (mono, _) in poly.terms() {
                v.extend(mono.iter().copied());
            }
        }
        v
    };
    let mut coords: Vec<&Poly> = p.x.iter().chain(&p.y).collect();
    coords.extend([&p.pitch, &p.width, &p.height]);
    let params: Vec<Id> = m.parameter_ids(f);
    if !atoms_of(&coords).iter().all(|&a| recomputable(a))
        || !p.uniform_conds.iter().all(|c| {
            if recompute_conds {
                recomputable(c.0)
            } else {
                available(c.0)
            }
        })
        || !params.contains(&p.base)
    {
        return Some((
            "rejected_not_available",
            "a value its address needs is not available where the data is".into(),
        ));
    }
    // What the run-time check reads: the surface and every obligation left to it.
    let mut surface: Vec<&Poly> = vec![&p.pitch, &p.width, &p.height];
    surface.extend(p.obligations.iter().flat_map(|o| o.polys()));
    let nonneg = p.obligations.iter().filter_map(|o| match o {
        Obligation::NonNegative { atom } => Some(*atom),
        _ => None,
    });
    let mut bad: Vec<String> = Vec::new();
    for a in atoms_of(&surface).into_iter().chain(nonneg) {
        if !emit::copyable(m, f, a) && !bad.contains(&format!("%{}", a.word())) {
            bad.push(format!("%{}", a.word()));
        }
    }
    if !bad.is_empty() {
        return Some((
            "rejected_surface_not_invariant",
            format!(
                "the surface (width, height, pitch) is not a function of kernel arguments ({})",
                bad.join(", ")
            ),
        ));
    }
    None
}
