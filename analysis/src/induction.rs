//! Induction variables, loop invariance and affine forms of integer values.
//!
//! Every loop `L` gets a canonical counter `i` (the 0-based number of the current iteration:
//! the number of times the header was entered from inside the loop since it was entered from
//! outside). Every integer scalar, and each component of an integer vector of up to 4
//! components (the int2 coordinates of 2D block operations), gets an [`AffineExpr`] over
//! values and counters when one can be proven, e.g. `32*i + %5`.
//!
//! How (one pass over each function's blocks in reverse post-order, so operands are seen
//! before their uses except through loop-header phis):
//! - On reaching a loop header, its phis are classified first. A phi `p` with entry value
//!   `a` and back-edge value `q` is evaluated tentatively: `q` is rewritten in terms of `p`
//!   itself and of values defined outside the loop (a bounded walk over the loop body). If
//!   `q = p + s` with `s` loop-invariant, `p` is a basic induction variable `a + s·i`. If `q`
//!   does not mention `p` but is affine in `i` with coefficient `c` and `a = q(0) - c`, then
//!   `p` is `q` delayed by one iteration, i.e. `q - c` (Triton's `phi(0, phi(32, p+32))`
//!   chains). Phis whose back-edge value depends on another header phi are retried after it
//!   (a few rounds). Anything else is an opaque atom that varies in the loop.
//! - Other instructions use transfer functions: `+ - ·` and negation (products only while
//!   the result stays affine: `i*i` or `%a*%b` become atoms), shifts and divisions by constants
//!   (left shifts exactly, right shifts and divisions only when exact), `or`/`xor` of operands
//!   without common possibly-set bits (known bits, `known_bits.rs`, plus the trailing zeros the
//!   affine form guarantees) as `+`, `and` with a mask that keeps every possibly-set bit,
//!   conversions (`OpUConvert`/`OpSConvert`/`OpBitcast`/`OpCopyObject`), selects on constant
//!   conditions or with equal arms, non-header phis with equal inputs, and the composite
//!   instructions (`OpCompositeInsert/Construct/Extract`, `OpVectorShuffle`) per component.
//!   Values we cannot decompose are atoms (`%v`).
//! - Forms are exact modulo 2^width of the value; conversions to wider types and exact right
//!   shifts/divisions assume the narrower computation did not wrap (as LLVM's SCEV does for
//!   `nuw`/`nsw` address arithmetic) — a documented assumption, not a proof.
//!
//! Alongside, every value gets the innermost loop in which it may change ("varies in"): pure
//! instructions vary in the innermost loop any operand varies in, loads from read-only
//! built-in/`UniformConstant` memory likewise, `OpVariable` never, and everything else (other
//! loads, calls, phis) in the innermost loop containing it. An atom is invariant in `L` when it
//! does not vary in `L` or a loop inside it; this is what "uniform step"/"invariant base" checks
//! use, and it sees through the loads of `SubgroupId` that Triton repeats in every iteration.
//!
//! Cost: one visit per instruction with constant work (expressions have at most
//! `affine::MAX_TERMS` terms; tentative walks have a fixed node budget per phi).

use crate::fxhash::FxHashMap as HashMap;
use std::borrow::Cow;
use std::rc::Rc;

use smallvec::SmallVec;
use spirv::Op;
use spvopt_ir::opcode_class::{leading_id_operands, op_class, OpClass};
use spvopt_ir::{BlockId, Id, Inst, InstId, Module, Section};

use crate::affine::AffineExpr;
use crate::cache::{Analyses, Analysis, AnalysisSet};
use crate::cfg::Cfg;
use crate::known_bits::{width_mask, KnownBits};
use crate::loops::{LoopId, Loops};
use crate::operands::op_of;
use crate::types::{int_width, pointer_of};
use crate::value_slice::ValueSlice;

mod phis;

const NONE: u32 = u32::MAX;
/// Nodes a tentative evaluation of one back-edge value may visit.
const TENTATIVE_BUDGET: u32 = 48;
/// Rounds of header-phi classification (chains of delayed phis longer than this are atoms).
const HEADER_ROUNDS: usize = 4;

/// A loop-header phi whose value is `init + step·i`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InductionVariable {
    /// The header `OpPhi`.
    pub phi: Id,
    /// The loop it is the header phi of.
    pub loop_id: LoopId,
    /// Its value on entry (`i = 0`).
    pub init: AffineExpr,
    /// What it grows by per iteration.
    pub step: AffineExpr,
}

/// An expression split around one loop's counter: `step·i + base`, both invariant in the loop.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoopAffine {
    /// The coefficient of the counter `i`.
    pub step: AffineExpr,
    /// The rest, invariant in the loop.
    pub base: AffineExpr,
}

/// The form of one id, packed in 32 bits (low 2 bits: none / atom / scalar / vector; the rest:
/// index into the expression arena or the vector table).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Form(u32);

/// How a packed [`Form`] reads.
enum FormKind {
    None,
    /// The value itself (`%id`), without an arena entry.
    Atom,
    Scalar(u32),
    /// Components `start..start+len` of the arena; bit k of `known` says component k is known.
    Vector {
        start: u32,
        len: u8,
        known: u8,
    },
}

impl Form {
    const NONE: Form = Form(0);
    const ATOM: Form = Form(1);
    fn scalar(k: usize) -> Form {
        Form((k as u32) << 2 | 2)
    }
    fn vector(k: usize) -> Form {
        Form((k as u32) << 2 | 3)
    }
}

/// An owned form during transfer.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Val {
    Scalar(AffineExpr),
    Vector(SmallVec<[Option<AffineExpr>; 4]>),
}

#[allow(clippy::large_enum_variant)] // short-lived, never stored
enum Tentative {
    Known(Val),
    /// Depends on a header phi not classified yet.
    Unresolved,
}

/// Induction variables, affine forms and loop variance of a module's values.
#[derive(Clone, Debug)]
pub struct Induction {
    forms: Vec<Form>,
    arena: Vec<AffineExpr>,
    vectors: Vec<(u32, u8, u8)>,
    varies_in: Vec<u32>,
    known: KnownBits,
    ivs: Vec<InductionVariable>,
    iv_of: HashMap<Id, usize>,
    loops: Rc<Loops>,
}

impl Analysis for Induction {
    const KIND: AnalysisSet = AnalysisSet::INDUCTION;
    const DEPENDS_ON: AnalysisSet =
        AnalysisSet(AnalysisSet::CFG.0 | AnalysisSet::DOMINATORS.0 | AnalysisSet::LOOPS.0);
    fn compute(m: &Module, analyses: &mut Analyses) -> Self {
        let cfg = analyses.get::<Cfg>(m);
        let loops = analyses.get::<Loops>(m);
        Induction::build(m, &cfg, loops)
    }
}

impl Induction {
    /// Computes the analysis.
    pub fn build(m: &Module, cfg: &Cfg, loops: Rc<Loops>) -> Induction {
        Induction::build_over(m, cfg, loops, None)
    }

    /// The analysis for the values of `slice` alone: their forms, variance, known bits and
    /// induction variables are exactly [`Induction::build`]'s (each is computed from its
    /// operands', and the slice holds them); other values have no form and count as
    /// invariant, so ask only about values of the slice (and the values their forms mention,
    /// which are in it).
    pub fn build_for(m: &Module, cfg: &Cfg, loops: Rc<Loops>, slice: &ValueSlice) -> Induction {
        Induction::build_over(m, cfg, loops, Some(slice))
    }

    /// Visits the definitions of `only` (all when `None`) in reverse post-order.
    fn build_over(m: &Module, cfg: &Cfg, loops: Rc<Loops>, only: Option<&ValueSlice>) -> Induction {
        let wanted = |r: Id| only.is_none_or(|s| s.contains(r));
        let bound = m.id_capacity(); // max defined id + 1: never the untrusted header bound
        let mut ind = Induction {
            forms: vec![Form::NONE; bound],
            arena: Vec::new(),
            vectors: Vec::new(),
            varies_in: vec![NONE; bound],
            known: KnownBits::new(bound),
            ivs: Vec::new(),
            iv_of: HashMap::default(),
            loops,
        };
        for (_, inst) in m.section_insts(Section::Global) {
            if inst.result_id().is_some_and(wanted) {
                ind.visit_global(m, inst);
            }
        }
        for f in m.function_ids() {
            let func = m.function(f);
            for &p in &func.header {
                let inst = m.inst(p);
                if !inst.is(Op::FunctionParameter) {
                    continue;
                }
                if let (Some(r), Some(t)) = (inst.result_id(), inst.result_type()) {
                    if wanted(r) && int_width(m, t).is_some() {
                        ind.set_val(r, Some(Val::Scalar(AffineExpr::value(r))));
                    }
                }
            }
            for &b in cfg.rpo(f) {
                if only.is_some_and(|s| !s.has_definitions_in(b)) {
                    continue;
                }
                let header_of = ind.loops.loop_of_header(b);
                if let Some(l) = header_of {
                    ind.classify_header_phis(m, b, l, only);
                }
                let block_loop = ind.loops.innermost(b).map_or(NONE, |l| l.0);
                for i in m.block_insts(b) {
                    if only.is_some_and(|s| !s.defines(i)) {
                        continue;
                    }
                    let inst = m.inst(i);
                    let Some(r) = inst.result_id() else { continue };
                    if block_loop != NONE {
                        let v = ind.variance(m, inst, b, block_loop);
                        if let Some(slot) = ind.varies_in.get_mut(r.index()) {
                            *slot = v;
                        }
                    }
                    let Some(ty) = inst.result_type() else {
                        continue;
                    };
                    let Some((w, n)) = tracked_int_or_int_vector(m, ty) else {
                        continue;
                    };
                    if n == 1 {
                        ind.known.visit_int(m, inst, w);
                    }
                    if header_of.is_some() && inst.is(Op::Phi) {
                        continue; // classified above
                    }
                    ind.visit_body(m, i, r, w, n);
                }
            }
        }
        ind
    }

    // ---- storage --------------------------------------------------------------------

    fn set_val(&mut self, id: Id, v: Option<Val>) {
        if id.index() >= self.forms.len() {
            return;
        }
        let form = match v {
            None => Form::NONE,
            Some(Val::Scalar(e)) if is_atom_of(&e, id) => Form::ATOM,
            Some(Val::Scalar(e)) => {
                self.arena.push(e);
                Form::scalar(self.arena.len() - 1)
            }
            Some(Val::Vector(comps)) => {
                let mut known = 0u8;
                let start = self.arena.len() as u32;
                let len = comps.len() as u8;
                for (k, c) in comps.into_iter().enumerate() {
                    if c.is_some() {
                        known |= 1 << k;
                    }
                    self.arena.push(c.unwrap_or_default());
                }
                if known == 0 {
                    Form::NONE
                } else {
                    self.vectors.push((start, len, known));
                    Form::vector(self.vectors.len() - 1)
                }
            }
        };
        self.forms[id.index()] = form;
    }

    fn kind(&self, id: Id) -> FormKind {
        let Some(&Form(f)) = self.forms.get(id.index()) else {
            return FormKind::None;
        };
        let k = f >> 2;
        match f & 3 {
            1 => FormKind::Atom,
            2 => FormKind::Scalar(k),
            3 => match self.vectors.get(k as usize) {
                Some(&(start, len, known)) => FormKind::Vector { start, len, known },
                None => FormKind::None,
            },
            _ => FormKind::None,
        }
    }

    fn val(&self, id: Id) -> Option<Val> {
        match self.kind(id) {
            FormKind::None => None,
            FormKind::Atom => Some(Val::Scalar(AffineExpr::value(id))),
            FormKind::Scalar(k) => Some(Val::Scalar(self.arena[k as usize].clone())),
            FormKind::Vector { start, len, known } => Some(Val::Vector(
                (0..len as usize)
                    .map(|k| {
                        (known & (1 << k) != 0).then(|| self.arena[start as usize + k].clone())
                    })
                    .collect(),
            )),
        }
    }

    // ---- queries --------------------------------------------------------------------

    /// The affine form of the integer scalar `id`.
    pub fn form(&self, id: Id) -> Option<AffineExpr> {
        match self.kind(id) {
            FormKind::Atom => Some(AffineExpr::value(id)),
            FormKind::Scalar(k) => Some(self.arena[k as usize].clone()),
            _ => None,
        }
    }

    /// [`Induction::form`], borrowed from the arena when stored there.
    fn form_ref(&self, id: Id) -> Option<Cow<'_, AffineExpr>> {
        match self.kind(id) {
            FormKind::Atom => Some(Cow::Owned(AffineExpr::value(id))),
            FormKind::Scalar(k) => Some(Cow::Borrowed(&self.arena[k as usize])),
            _ => None,
        }
    }

    /// The affine forms of the components of the integer vector `id` (`None` for unknown
    /// components, e.g. ones taken from `OpUndef`).
    pub fn vector_form(&self, id: Id) -> Option<Vec<Option<AffineExpr>>> {
        match self.val(id)? {
            Val::Vector(c) => Some(c.into_vec()),
            Val::Scalar(_) => None,
        }
    }

    /// The innermost loop in which `id` may take different values (`None`: invariant in every
    /// loop).
    pub fn varies_in(&self, id: Id) -> Option<LoopId> {
        let v = *self.varies_in.get(id.index())?;
        (v != NONE).then_some(LoopId(v))
    }

    /// Whether the value `id` is the same in every iteration of loop `l` (while `l` runs).
    pub fn is_invariant_in(&self, id: Id, l: LoopId) -> bool {
        match self.varies_in(id) {
            None => true,
            Some(v) => !self.loops.loop_contains_loop(l, v),
        }
    }

    /// Whether every value and counter the expression mentions is invariant in loop `l`.
    pub fn expr_invariant_in(&self, e: &AffineExpr, l: LoopId) -> bool {
        e.terms().iter().all(|t| {
            t.monomial
                .value()
                .is_none_or(|v| self.is_invariant_in(v, l))
                && t.monomial
                    .counter()
                    .is_none_or(|c| !self.loops.loop_contains_loop(l, c))
        })
    }

    /// Splits `e` as `step·i + base` around loop `l`'s counter, with `step` and `base`
    /// invariant in `l`.
    pub fn split_in_loop(&self, e: &AffineExpr, l: LoopId) -> Option<LoopAffine> {
        let step = e.counter_coefficient(l);
        let base = e.at_counter_zero(l);
        (!step.has_counter()
            && self.expr_invariant_in(&step, l)
            && self.expr_invariant_in(&base, l))
        .then_some(LoopAffine { step, base })
    }

    /// The integer scalar `id` as `step·i + base` in loop `l`.
    pub fn affine_in_loop(&self, id: Id, l: LoopId) -> Option<LoopAffine> {
        self.split_in_loop(&self.form(id)?, l)
    }

    /// Each component of the integer vector `id` as `step·i + base` in loop `l` (all
    /// components must be known).
    pub fn vector_affine_in_loop(&self, id: Id, l: LoopId) -> Option<Vec<LoopAffine>> {
        self.vector_form(id)?
            .into_iter()
            .map(|c| self.split_in_loop(&c?, l))
            .collect()
    }

    /// The induction variables found (header phis of the form `init + step·i`).
    pub fn induction_variables(&self) -> &[InductionVariable] {
        &self.ivs
    }

    /// The induction variable defined by `phi`.
    pub fn induction_variable(&self, phi: Id) -> Option<&InductionVariable> {
        self.iv_of.get(&phi).map(|&k| &self.ivs[k])
    }

    /// Bits of the integer `id` known to be zero.
    pub fn known_zero_bits(&self, id: Id) -> u64 {
        self.known.known_zero(id)
    }

    /// The loops the forms' counters refer to.
    pub fn loops(&self) -> &Loops {
        &self.loops
    }

    // ---- the pass -------------------------------------------------------------------

    fn visit_global(&mut self, m: &Module, inst: &Inst) {
        let Some(r) = inst.result_id() else { return };
        let Some(ty) = inst.result_type() else { return };
        self.known.visit(m, inst);
        let Some((w, n)) = tracked_int_or_int_vector(m, ty) else {
            return;
        };
        let v = match op_of(inst) {
            Some(Op::Constant) if n == 1 => m.const_int_value(r).map(|c| {
                let mut e = AffineExpr::constant(c as i64);
                e.normalize(w);
                Val::Scalar(e)
            }),
            Some(Op::ConstantNull) => Some(if n == 1 {
                Val::Scalar(AffineExpr::constant(0))
            } else if n <= 4 {
                Val::Vector((0..n).map(|_| Some(AffineExpr::constant(0))).collect())
            } else {
                return;
            }),
            Some(Op::ConstantComposite) if (2..=4).contains(&n) => {
                let comps: SmallVec<[Option<AffineExpr>; 4]> = inst
                    .operands()
                    .iter()
                    .map(|&c| Id::new(c).and_then(|c| self.form(c)))
                    .collect();
                (comps.len() == n as usize).then_some(Val::Vector(comps))
            }
            Some(Op::SpecConstant | Op::SpecConstantOp) if n == 1 => {
                Some(Val::Scalar(AffineExpr::value(r)))
            }
            _ => None,
        };
        self.set_val(r, v);
    }

    fn visit_body(&mut self, m: &Module, i: InstId, r: Id, w: u32, n: u32) {
        let inst = m.inst(i);
        if n > 4 || w > 64 {
            return;
        }
        let v = self.transfer(m, inst, w, n, &|id| self.val(id), &|id| self.form_ref(id));
        let v = match v {
            Some(v) => Some(v),
            None if n == 1 => Some(Val::Scalar(AffineExpr::value(r))),
            None => None,
        };
        self.set_val(r, v);
    }

    /// The innermost loop in which the result of `inst` (in block `b`) may vary.
    fn variance(&self, m: &Module, inst: &Inst, b: BlockId, block_loop: u32) -> u32 {
        if block_loop == NONE {
            return NONE;
        }
        let op = op_of(inst);
        let read_only_load = op == Some(Op::Load)
            && inst
                .operand_id(0)
                .and_then(|p| m.type_of(p))
                .and_then(|t| pointer_of(m, t))
                .is_some_and(|(sc, _)| {
                    sc == spirv::StorageClass::Input as u32
                        || sc == spirv::StorageClass::UniformConstant as u32
                });
        if op == Some(Op::Variable) {
            return NONE;
        }
        let (skip, count) = if read_only_load {
            (0, 1)
        } else {
            match pure_leading_skip(op) {
                Some(x) => x,
                None => return block_loop,
            }
        };
        let ops = inst.operands();
        let mut deepest = NONE;
        let mut deepest_depth = 0;
        for &w in ops.iter().skip(skip).take(count) {
            let Some(id) = Id::new(w) else { continue };
            let v = self.varies_in.get(id.index()).copied().unwrap_or(NONE);
            if v == NONE {
                continue;
            }
            let l = LoopId(v);
            if !self.loops.contains(l, b) {
                return block_loop;
            }
            let d = self.loops.get(l).map_or(0, |x| x.depth);
            if d > deepest_depth {
                deepest = v;
                deepest_depth = d;
            }
        }
        deepest
    }

    /// The form of `inst`'s result (`n` components of `w` bits) from its operands' forms
    /// (`get`); `None` when no affine form is proven (scalars then become atoms).
    fn transfer<'a>(
        &self,
        m: &Module,
        inst: &Inst,
        w: u32,
        n: u32,
        get: &dyn Fn(Id) -> Option<Val>,
        get_scalar: &dyn Fn(Id) -> Option<Cow<'a, AffineExpr>>,
    ) -> Option<Val> {
        let op = op_of(inst)?;
        let opnd = |k: usize| inst.operand_id(k);
        // Operands' forms are borrowed (cloning a form of more than two terms allocates).
        let scalar = |k: usize| -> Option<Cow<'a, AffineExpr>> { get_scalar(opnd(k)?) };
        let vector = |k: usize| -> Option<SmallVec<[Option<AffineExpr>; 4]>> {
            match get(opnd(k)?)? {
                Val::Vector(c) => Some(c),
                Val::Scalar(_) => None,
            }
        };
        let finish = |mut e: AffineExpr| {
            e.normalize(w);
            Some(Val::Scalar(e))
        };
        // Instructions that work the same on scalars and vectors.
        match op {
            Op::CopyObject => return get(opnd(0)?),
            Op::Select => {
                let c = opnd(0)?;
                if let Some(ci) = m.def_inst(c) {
                    if ci.is(Op::ConstantTrue) {
                        return get(opnd(1)?);
                    }
                    if ci.is(Op::ConstantFalse) {
                        return get(opnd(2)?);
                    }
                }
                let (a, b) = (get(opnd(1)?)?, get(opnd(2)?)?);
                return (a == b).then_some(a);
            }
            Op::Phi => {
                let ops = inst.operands();
                let mut first: Option<Val> = None;
                for pair in ops.chunks(2) {
                    let v = get(Id::new(pair[0])?)?;
                    match &first {
                        None => first = Some(v),
                        Some(f) if *f == v => {}
                        Some(_) => return None,
                    }
                }
                return first;
            }
            _ => {}
        }
        if n == 1 {
            match op {
                Op::IAdd => finish(scalar(0)?.add(&*scalar(1)?)?),
                Op::ISub => finish(scalar(0)?.sub(&*scalar(1)?)?),
                Op::SNegate => finish(scalar(0)?.neg()),
                Op::IMul => finish(scalar(0)?.mul(&*scalar(1)?)?),
                Op::ShiftLeftLogical => {
                    let k = scalar(1)?.as_constant()?;
                    if !(0..i64::from(w)).contains(&k) {
                        return None;
                    }
                    finish(scalar(0)?.scale(1i64.wrapping_shl(k as u32)))
                }
                Op::ShiftRightLogical | Op::ShiftRightArithmetic => {
                    let k = scalar(1)?.as_constant()?;
                    if !(0..i64::from(w)).contains(&k) {
                        return None;
                    }
                    finish(scalar(0)?.exact_shr(k as u32)?)
                }
                Op::UDiv | Op::SDiv => {
                    let d = scalar(1)?.as_constant()?;
                    finish(scalar(0)?.exact_div(d)?)
                }
                Op::BitwiseOr | Op::BitwiseXor => {
                    let (a, b) = (scalar(0)?, scalar(1)?);
                    let (ia, ib) = (opnd(0)?, opnd(1)?);
                    if self.maybe_one(ia, &a, w) & self.maybe_one(ib, &b, w) == 0 {
                        finish(a.add(&b)?)
                    } else {
                        None
                    }
                }
                Op::BitwiseAnd => {
                    let (a, b) = (scalar(0)?, scalar(1)?);
                    let (ia, ib) = (opnd(0)?, opnd(1)?);
                    let mask = width_mask(w);
                    if let Some(c) = b.as_constant() {
                        if self.maybe_one(ia, &a, w) & !(c as u64) & mask == 0 {
                            return finish(a.into_owned());
                        }
                    }
                    if let Some(c) = a.as_constant() {
                        if self.maybe_one(ib, &b, w) & !(c as u64) & mask == 0 {
                            return finish(b.into_owned());
                        }
                    }
                    None
                }
                Op::UConvert | Op::SConvert => finish(scalar(0)?.into_owned()),
                Op::Bitcast => {
                    let src = opnd(0)?;
                    int_width(m, m.type_of(src)?)?;
                    finish(scalar(0)?.into_owned())
                }
                Op::CompositeExtract => {
                    let ops = inst.operands();
                    if ops.len() != 2 {
                        return None;
                    }
                    let comps = vector(0)?;
                    finish(comps.get(ops[1] as usize)?.clone()?)
                }
                Op::VectorExtractDynamic => {
                    let k = scalar(1)?.as_constant()?;
                    let comps = vector(0)?;
                    finish(comps.get(usize::try_from(k).ok()?)?.clone()?)
                }
                _ => None,
            }
        } else {
            let n = n as usize;
            let comps: SmallVec<[Option<AffineExpr>; 4]> = match op {
                Op::CompositeInsert => {
                    let ops = inst.operands();
                    if ops.len() != 3 {
                        return None;
                    }
                    let mut c = vector(1).unwrap_or_else(|| (0..n).map(|_| None).collect());
                    if c.len() != n {
                        return None;
                    }
                    let k = ops[2] as usize;
                    *c.get_mut(k)? = scalar(0).map(Cow::into_owned);
                    c
                }
                Op::CompositeConstruct => {
                    let mut c: SmallVec<[Option<AffineExpr>; 4]> = SmallVec::new();
                    for &word in inst.operands() {
                        match Id::new(word).and_then(get) {
                            Some(Val::Scalar(e)) => c.push(Some(e)),
                            Some(Val::Vector(v)) => c.extend(v),
                            None => {
                                // Unknown operand: as many unknown components as it has.
                                let cnt = Id::new(word)
                                    .and_then(|x| m.type_of(x))
                                    .and_then(|t| tracked_int_or_int_vector(m, t))
                                    .map_or(1, |(_, k)| k);
                                c.extend((0..cnt).map(|_| None));
                            }
                        }
                    }
                    c
                }
                Op::VectorShuffle => {
                    let ops = inst.operands();
                    let a = vector(0)?;
                    let b = vector(1)?;
                    ops.iter()
                        .skip(2)
                        .map(|&k| {
                            let k = k as usize;
                            if k < a.len() {
                                a[k].clone()
                            } else {
                                b.get(k - a.len()).cloned().flatten()
                            }
                        })
                        .collect()
                }
                Op::Bitcast => {
                    let src = opnd(0)?;
                    if m.type_of(src)? != inst.result_type()? {
                        return None;
                    }
                    vector(0)?
                }
                Op::UConvert | Op::SConvert => vector(0)?,
                Op::IAdd | Op::ISub | Op::IMul | Op::ShiftLeftLogical => {
                    let (a, b) = (vector(0)?, vector(1)?);
                    if a.len() != n || b.len() != n {
                        return None;
                    }
                    a.iter()
                        .zip(b.iter())
                        .map(|(x, y)| {
                            let (x, y) = (x.as_ref()?, y.as_ref()?);
                            let mut e = match op {
                                Op::IAdd => x.add(y)?,
                                Op::ISub => x.sub(y)?,
                                Op::IMul => x.mul(y)?,
                                _ => {
                                    let k = y.as_constant()?;
                                    if !(0..i64::from(w)).contains(&k) {
                                        return None;
                                    }
                                    x.scale(1i64.wrapping_shl(k as u32))
                                }
                            };
                            e.normalize(w);
                            Some(e)
                        })
                        .collect()
                }
                _ => return None,
            };
            (comps.len() == n).then_some(Val::Vector(comps))
        }
    }
}

fn is_atom_of(e: &AffineExpr, id: Id) -> bool {
    e.constant == 0
        && matches!(e.terms(), [t] if t.coeff == 1 && t.monomial == crate::affine::Monomial::new(Some(id), None))
}

/// For instructions whose result is a pure function of their operands: how many leading
/// operand words to skip and how many to read as value operands (the ids before the first
/// literal, from the grammar). `None` for everything else (memory reads, calls, phis, …).
fn pure_leading_skip(op: Option<Op>) -> Option<(usize, usize)> {
    let op = op?;
    op_class(op)
        .intersects(OpClass::PURE)
        .then(|| (0, leading_id_operands(op as u16)))
}

/// The widest integer vector whose components are tracked (wider ones are unknown: a hostile
/// type can have billions of components, and each tracked component costs memory).
const MAX_TRACKED_COMPONENTS: u32 = 256;

/// `(width, components)` of an integer or integer-vector type this analysis tracks.
pub(super) fn tracked_int_or_int_vector(m: &Module, ty: Id) -> Option<(u32, u32)> {
    crate::types::int_or_int_vector(m, ty).filter(|&(_, n)| n <= MAX_TRACKED_COMPONENTS)
}
