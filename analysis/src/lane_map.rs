//! The lane map: every integer, pointer and boolean value of one kernel function, evaluated for
//! every local invocation of a work-group at once, symbolically in what is the same for the
//! whole work-group.
//!
//! Each integer or pointer value becomes a [`Poly`]: `Σ_k T_k(lid) · m_k`, a sum of products of
//! *atoms* (work-group-uniform values the map does not expand: kernel parameters, the
//! work-group id, loop phis, results of divisions of uniform values, …) with one coefficient
//! per local invocation. Local ids, subgroup ids and lanes are tables; bit fields of them
//! (`(lid >> 4) & 3`, Triton's linear layouts) are computed exactly per invocation; a uniform
//! value shifted left and OR-ed with a small table becomes a sum when the bits are disjoint.
//! What does not fit (a non-uniform load, a product of degree > 3, a phi joining different
//! per-invocation values) is unknown. Booleans are known per invocation when both sides of the
//! comparison are tables, lane-invariant when both sides are.
//!
//! When it applies: a work-group of shape `(X, Y, Z)`, invocations numbered linearly
//! `i = x + X·(y + Y·z)` (so the local id of invocation `i` is `(i % X, (i / X) % Y, i / (X·Y))`,
//! SPIR-V's and OpenCL's linearisation, and subgroup `s` holds `i = s·S .. s·S + S - 1`: subgroups
//! are consecutive linear ids, as `KernelFacts::local_id_subgroup_uniform` and spv-sim assume).
//! The shape must be the work-group's real one: a declared `LocalSize` (`reqd_work_group_size`)
//! is; a caller that only knows an upper bound (`MaxWorkgroupSizeINTEL`) uses `(n, 1, 1)` and must
//! check the real size at run time before relying on the tables.
//!
//! Why it is exact: ring operations on polynomials are exact modulo 2^width; bit operations are
//! only evaluated where every operand is a table (per invocation, exactly) or where the
//! symbolic part is a multiple of a power of two larger than the table (`u·2^k | t` with
//! `0 ≤ t < 2^k` is `u·2^k + t`). A widening conversion of a value that is neither a table nor
//! lane-invariant is recorded in [`LaneMap::no_wrap`]: the polynomial at the new width is exact
//! only if the narrow value did not wrap, which the user of the map must establish.
//!
//! Cost: one walk over the function in reverse post-order per loop-header phi that turns out
//! not to be uniform (usually one or two walks), each value costing O(terms² · n).

use std::rc::Rc;

use crate::fxhash::FxHashMap as HashMap;
use spirv::{BuiltIn, Op};
use spvopt_ir::{BlockId, FuncId, Id, Module};

use crate::builtins::{builtin_of_variable, debug_names};
use crate::cfg::Cfg;
use crate::decorations::Decorations;
use crate::post_dominators::PostDominators;

mod fixpoint;
pub mod poly;
mod walk;

use fixpoint::{Facts, WalkEnv};

pub use poly::{sext, Coef, Mono, Poly};

/// What the map knows of a value.
#[derive(Clone, Debug)]
pub enum LaneValue {
    /// An integer (or a pointer, as its byte address: width 64).
    Int(Poly),
    /// A boolean known per invocation.
    Bool(Rc<[bool]>),
    /// A boolean that is the same in every invocation of the work-group.
    UniformBool,
    /// A built-in vector variable's loaded value (components are extracted later).
    Builtin(BuiltIn),
}

/// The lane map of one function (see the module documentation).
#[derive(Clone, Debug)]
pub struct LaneMap {
    /// Invocations of the work-group (`X·Y·Z` of [`LaneMap::shape`]).
    pub lanes: usize,
    /// The work-group's shape `(X, Y, Z)` the local-id tables assume.
    pub shape: [usize; 3],
    /// The subgroup size the tables of subgroup ids and lanes assume.
    pub subgroup_size: usize,
    values: HashMap<Id, LaneValue>,
    /// Widening conversions of lane-varying symbolic values: (conversion result, narrow
    /// operand, signed): exact only if the operand does not wrap at its width.
    pub no_wrap: Vec<(Id, Id, bool)>,
    /// Loop phis taken as atoms that are provably multiples of `2^k` (every value they take:
    /// the initial value and the step are).
    atom_tz: HashMap<Id, u32>,
    /// Loop phis taken as atoms: (phi, initial value, step per iteration) where the value on
    /// the back edge is the phi plus a lane-invariant step.
    pub inductions: Vec<(Id, Poly, Poly)>,
    /// Remainders taken as their dividend: (result, dividend a, divisor b), exact when
    /// `0 ≤ a < b` for every invocation, which the user of the map must establish (the
    /// dividend and divisor mention no loop phi, so it can be checked before the kernel body).
    pub assumptions: Vec<(Id, Poly, Poly)>,
    /// Widening conversions of lane-invariant values taken as the exact (wide) polynomial of
    /// their operand: (result, narrow operand, signed). Exact when the operand's value at its
    /// width is its polynomial's value (no wrap), which the user of the map must establish
    /// (like `assumptions`, the operand mentions no loop phi). Empty unless asked for
    /// ([`LaneMap::build`]).
    pub widenings: Vec<(Id, Poly, bool)>,
}

/// The built-in variables of the module (by variable).
fn builtin_variables(m: &Module, dec: &Decorations) -> HashMap<Id, BuiltIn> {
    let names = debug_names(m, &|_| true);
    let mut builtins = HashMap::default();
    for (_, inst) in m.section_insts(spvopt_ir::Section::Global) {
        if inst.is(Op::Variable) {
            if let Some(v) = inst.result_id() {
                if let Some(b) = builtin_of_variable(dec, &names, v) {
                    builtins.insert(v, b);
                }
            }
        }
    }
    builtins
}

impl LaneMap {
    /// The map of function `f` for a work-group of shape `shape` (`lanes = X·Y·Z` invocations)
    /// and subgroups of `subgroup_size`. With `exact_widenings`, a widening conversion of a
    /// lane-invariant polynomial (not a lone atom, mentioning no loop phi) is that polynomial
    /// at the new width under an assumption recorded in [`LaneMap::widenings`] instead of a new
    /// atom: strides scaled in 32 bits and then sign-extended for a pointer step stay
    /// multiples of the stride.
    #[allow(clippy::too_many_arguments)]
    pub fn build(
        m: &Module,
        f: FuncId,
        cfg: &Cfg,
        pdom: &PostDominators,
        dec: &Decorations,
        shape: [usize; 3],
        subgroup_size: usize,
        exact_widenings: bool,
    ) -> LaneMap {
        let env = WalkEnv {
            m,
            cfg,
            dec,
            lanes: shape.iter().product(),
            shape,
            sg: subgroup_size,
            builtins: builtin_variables(m, dec),
            joined: joined_blocks(m, f, cfg, pdom),
            exact_widenings,
        };
        let mut facts = Facts::default();
        loop {
            let mut w = facts.walker(&env);
            w.walk(f);
            let inductions = match fixpoint::settled(&w, &facts.subst) {
                Ok(inductions) => inductions,
                Err(revision) => {
                    drop(w);
                    facts.revise(revision);
                    continue;
                }
            };
            let assumptions = std::mem::take(&mut w.assumptions);
            let widenings = std::mem::take(&mut w.widenings);
            let derived = std::mem::take(&mut w.derived_tz);
            let (values, no_wrap) = (w.values, w.no_wrap);
            if facts.grow_alignment(&inductions) || facts.new_counters(m, &inductions) {
                continue;
            }
            let mut atom_tz = facts.atom_tz;
            for (a, tz) in derived {
                atom_tz.entry(a).or_insert(tz);
            }
            return LaneMap {
                lanes: env.lanes,
                shape,
                subgroup_size,
                values,
                no_wrap,
                atom_tz,
                inductions,
                assumptions,
                widenings,
            };
        }
    }

    /// What the map knows of `id`.
    pub fn value(&self, id: Id) -> Option<&LaneValue> {
        self.values.get(&id)
    }

    /// The polynomial of integer or pointer `id`.
    pub fn poly(&self, id: Id) -> Option<&Poly> {
        match self.values.get(&id)? {
            LaneValue::Int(p) => Some(p),
            _ => None,
        }
    }

    /// The exponent of the largest power of two every value of atom `a` is a multiple of.
    pub fn atom_trailing_zeros(&self, a: Id) -> u32 {
        self.atom_tz.get(&a).copied().unwrap_or(0)
    }

    /// [`Poly::trailing_zeros_with`] with the atoms' known alignment.
    pub fn trailing_zeros(&self, p: &Poly) -> u32 {
        p.trailing_zeros_with(|a| self.atom_trailing_zeros(a))
    }

    /// Whether atom `a` is a loop counter that never goes below 0: it starts at a constant
    /// ≥ 0 and grows by a positive constant with a `NoSignedWrap` addition.
    pub fn is_nonneg_counter(&self, m: &Module, a: Id) -> bool {
        let Some((_, init, step)) = self.inductions.iter().find(|(p, _, _)| *p == a) else {
            return false;
        };
        counter_never_negative(m, a, init, step)
    }

    /// Whether `id` was widened from a lane-varying symbolic value (see [`LaneMap::no_wrap`]).
    pub fn assumes_no_wrap(&self, id: Id) -> bool {
        self.no_wrap.iter().any(|(r, _, _)| *r == id)
    }
}

/// Whether loop phi `a` (initial value `init`, step `step`) is never negative: it starts at a
/// constant ≥ 0 and grows by a positive constant with a `NoSignedWrap` addition.
fn counter_never_negative(m: &Module, a: Id, init: &Poly, step: &Poly) -> bool {
    let (Some(i), Some(s)) = (init.as_constant(), step.as_constant()) else {
        return false;
    };
    if i < 0 || s <= 0 {
        return false;
    }
    // The increment (the phi's back-edge value) must not wrap.
    let Some(phi) = m.def_inst(a) else {
        return false;
    };
    let nsw = spirv::Decoration::NoSignedWrap as u32;
    phi.operands().chunks(2).any(|pair| {
        let Some(v) = Id::new(pair[0]) else {
            return false;
        };
        m.def_inst(v).is_some_and(|d| d.is(Op::IAdd))
            && m.section_insts(spvopt_ir::Section::Annotation)
                .any(|(_, d)| {
                    d.is(Op::Decorate)
                        && d.operand_id(0) == Some(v)
                        && d.operand_word(1) == Some(nsw)
                })
    })
}

/// Blocks where control that diverged inside the work-group may join (phis there may pick
/// different incoming values per invocation): for each branch whose condition is not known to
/// be uniform, the blocks reachable from it before its immediate post-dominator, and that
/// post-dominator. Conservative: every conditional branch and switch counts until proven
/// uniform by the walk (see `Walker::phi_value`).
fn joined_blocks(
    m: &Module,
    f: FuncId,
    cfg: &Cfg,
    pdom: &PostDominators,
) -> HashMap<BlockId, Vec<Id>> {
    // Map: joined block -> the branch conditions that may make its phis diverge.
    let mut out: HashMap<BlockId, Vec<Id>> = HashMap::default();
    for &b in cfg.rpo(f) {
        let Some(t) = m.block_terminator(b) else {
            continue;
        };
        let term = m.inst(t);
        let cond = match term.op() {
            Some(Op::BranchConditional) => term.operand_id(0),
            Some(Op::Switch) => term.operand_id(0),
            _ => None,
        };
        let Some(cond) = cond else { continue };
        let stop = pdom.ipdom(b);
        let mut stack: Vec<BlockId> = cfg.succs(b).to_vec();
        let mut seen: Vec<BlockId> = Vec::new();
        while let Some(x) = stack.pop() {
            if seen.contains(&x) {
                continue;
            }
            seen.push(x);
            out.entry(x).or_default().push(cond);
            if Some(x) == stop {
                continue;
            }
            stack.extend(cfg.succs(x).iter().copied());
            if seen.len() > 4096 {
                break;
            }
        }
    }
    out
}
