//! Pointer provenance: for every pointer value, the root it derives from (a function
//! parameter, a variable, null, or unknown), its byte offset from that root when it can be
//! expressed (an [`AffineExpr`], so constant offsets and `base + 64*i` alike), and its storage
//! class; plus which variables' addresses escape and which parameters are `NoAlias`.
//!
//! - Roots: `OpVariable` (module or function scope) is its own root; a pointer
//!   `OpFunctionParameter` is "parameter k of function f" (kernel arguments are the parameters
//!   of entry points; Triton's kernel function is called from a wrapper with them); null and
//!   undef pointers are `Null`; pointers loaded from memory, made from integers
//!   (`OpConvertUToPtr`) or returned by calls are `Unknown`.
//! - Derivation keeps the root: `OpAccessChain`/`OpInBoundsAccessChain` (member offsets and
//!   element sizes from `types.rs`), `OpPtrAccessChain`/`OpInBoundsPtrAccessChain` (element ×
//!   size of the pointee, or the pointer type's `ArrayStride`), `OpBitcast`, `OpCopyObject`,
//!   generic casts. Indices contribute their affine form from the induction analysis; a
//!   non-affine index or an unsized type keeps the root but loses the offset.
//! - `OpPhi`/`OpSelect` keep a root shared by all inputs (loop back edges are followed through
//!   derivations to the phi itself, so `p = phi(base, p + 16)` keeps `base`'s root); inputs
//!   with different roots give `Unknown`, and those roots count as escaped.
//! - A variable escapes when a pointer derived from it is stored as data, converted to an
//!   integer, returned, mixed with other roots, passed to a function other than a known
//!   builtin (2D block IO, MMA, work-item queries), or used by an instruction we do not know.
//!   Loads, stores, atomics and copies through it, and the private pointer of 2D block
//!   operations, do not make it escape.
//!
//! One visit per instruction (phi back-edge walks have a fixed budget).

use crate::fxhash::{FxHashMap as HashMap, FxHashSet as HashSet};

use spirv::{Op, StorageClass};
use spvopt_ir::{FuncId, Id, Inst, InstId, Module, Section};

use crate::affine::AffineExpr;
use crate::block_io::block_io;
use crate::builtins::{entry_point_functions, CalleeKind, Callees};
use crate::cache::{Analyses, Analysis, AnalysisSet};
use crate::cfg::Cfg;
use crate::decorations::Decorations;
use crate::induction::Induction;
use crate::operands::op_of;
use crate::types::{member_offset, pointer_of, size_of, vector_of};
use crate::value_slice::ValueSlice;
use spvopt_ir::opcode_class::{
    op_class, OpClass, OP_PREDICATED_LOAD_INTEL, OP_PREDICATED_STORE_INTEL,
};

const PHI_WALK_BUDGET: u32 = 32;

/// Where a pointer comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Root {
    /// Parameter `index` (result id `id`) of function `func`.
    Param {
        /// The function.
        func: FuncId,
        /// Position among its parameters.
        index: u32,
        /// The `OpFunctionParameter`'s result id.
        id: Id,
    },
    /// An `OpVariable`.
    Variable(Id),
    /// A null (or undefined) pointer.
    Null,
    /// Anything else.
    Unknown,
}

/// What is known about one pointer value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PointerInfo {
    /// Where the pointer comes from.
    pub root: Root,
    /// Byte offset from the root.
    pub offset: Option<AffineExpr>,
    /// The pointer type's storage class.
    pub storage: Option<u32>,
}

/// Provenance of every pointer value in a module.
#[derive(Clone, Debug, Default)]
pub struct Provenance {
    index: Vec<u32>,
    infos: Vec<PointerInfo>,
    escaped: HashSet<Id>,
    noalias: HashSet<Id>,
    variable_storage: HashMap<Id, u32>,
    entry_functions: HashSet<FuncId>,
    calls: Vec<InstId>,
    loads: Vec<InstId>,
    /// Whether `escaped` is the result of the escape analysis (else every variable counts as
    /// escaped: [`Provenance::build_for`]).
    escapes_analysed: bool,
}

impl Analysis for Provenance {
    const KIND: AnalysisSet = AnalysisSet::ALIAS;
    const DEPENDS_ON: AnalysisSet = AnalysisSet(
        AnalysisSet::CFG.0
            | AnalysisSet::DOMINATORS.0
            | AnalysisSet::LOOPS.0
            | AnalysisSet::INDUCTION.0
            | AnalysisSet::DECORATIONS.0,
    );
    fn compute(m: &Module, analyses: &mut Analyses) -> Self {
        let cfg = analyses.get::<Cfg>(m);
        let ind = analyses.get::<Induction>(m);
        let dec = analyses.get::<Decorations>(m);
        let callees = analyses.get::<Callees>(m);
        Provenance::build_with(m, &cfg, &ind, &dec, &callees)
    }
}

impl Provenance {
    /// Computes provenance for every pointer of `m`.
    pub fn build(m: &Module, cfg: &Cfg, ind: &Induction) -> Provenance {
        let dec = Decorations::build(m);
        Provenance::build_with(m, cfg, ind, &dec, &Callees::build(m, &dec))
    }

    /// [`Provenance::build`] with the module's decorations and [`Callees`] already at hand
    /// (the cache's).
    pub fn build_with(
        m: &Module,
        cfg: &Cfg,
        ind: &Induction,
        dec: &Decorations,
        callees: &Callees,
    ) -> Provenance {
        Provenance::build_over(m, cfg, ind, dec, callees, None)
    }

    /// Provenance of the pointers of `slice` alone (with `ind` computed for at least the
    /// slice, e.g. [`Induction::build_for`] of it): their [`PointerInfo`]s are exactly
    /// [`Provenance::build_with`]'s (each is computed from its operands', which the slice
    /// holds); other values have none. Escapes are not analysed (that needs every use of every
    /// pointer): every variable counts as escaped, so [`Provenance::roots_may_alias`] is
    /// conservative for non-escaped private variables, and no calls or loads are recorded.
    pub fn build_for(
        m: &Module,
        cfg: &Cfg,
        ind: &Induction,
        dec: &Decorations,
        slice: &ValueSlice,
    ) -> Provenance {
        Provenance::build_over(m, cfg, ind, dec, &Callees::default(), Some(slice))
    }

    /// Visits the definitions of `only` (all, with escapes, when `None`) in reverse
    /// post-order.
    fn build_over(
        m: &Module,
        cfg: &Cfg,
        ind: &Induction,
        dec: &Decorations,
        callees: &Callees,
        only: Option<&ValueSlice>,
    ) -> Provenance {
        let wanted = |r: Id| only.is_none_or(|s| s.contains(r));
        let bound = m.id_capacity(); // max defined id + 1: never the untrusted header bound
        let mut p = Provenance {
            index: vec![0; bound],
            escapes_analysed: only.is_none(),
            ..Provenance::default()
        };
        let entries: HashSet<Id> = entry_point_functions(m).into_iter().collect();
        for (_, inst) in m.section_insts(Section::Global) {
            let (Some(r), Some(ty)) = (inst.result_id(), inst.result_type()) else {
                continue;
            };
            if !wanted(r) {
                continue;
            }
            let Some((sc, _)) = pointer_of(m, ty) else {
                continue;
            };
            let root = match op_of(inst) {
                Some(Op::Variable) => {
                    p.variable_storage.insert(r, sc);
                    Root::Variable(r)
                }
                Some(Op::ConstantNull | Op::Undef) => Root::Null,
                _ => Root::Unknown,
            };
            p.set(r, root, Some(AffineExpr::constant(0)), Some(sc));
        }
        for f in m.function_ids() {
            let func = m.function(f);
            if m.function_result(f).is_some_and(|r| entries.contains(&r)) {
                p.entry_functions.insert(f);
            }
            let mut k = 0u32;
            for &pi in &func.header {
                let inst = m.inst(pi);
                if !inst.is(Op::FunctionParameter) {
                    continue;
                }
                if let (Some(r), Some(ty)) = (inst.result_id(), inst.result_type()) {
                    if let Some((sc, _)) = pointer_of(m, ty).filter(|_| wanted(r)) {
                        p.set(
                            r,
                            Root::Param {
                                func: f,
                                index: k,
                                id: r,
                            },
                            Some(AffineExpr::constant(0)),
                            Some(sc),
                        );
                        if dec.is_noalias(r) {
                            p.noalias.insert(r);
                        }
                    }
                }
                k += 1;
            }
            // One pass: in reverse post-order every pointer operand other than a phi input
            // (handled by `merge`) is visited before its uses, so escapes are seen in time.
            for &b in cfg.rpo(f) {
                if only.is_some_and(|s| !s.has_definitions_in(b)) {
                    continue;
                }
                for i in m.block_insts(b) {
                    let inst = m.inst(i);
                    if let Some(s) = only {
                        if s.defines(i) {
                            p.visit(m, dec, ind, i, op_of(inst));
                        }
                        continue;
                    }
                    // (The opcode table is read once per instruction.)
                    let op = op_of(inst);
                    p.visit(m, dec, ind, i, op);
                    p.visit_escapes(m, callees, i, op);
                }
            }
        }
        p
    }

    fn set(&mut self, id: Id, root: Root, offset: Option<AffineExpr>, storage: Option<u32>) {
        if let Some(slot) = self.index.get_mut(id.index()) {
            self.infos.push(PointerInfo {
                root,
                offset,
                storage,
            });
            *slot = self.infos.len() as u32;
        }
    }

    fn visit(&mut self, m: &Module, dec: &Decorations, ind: &Induction, i: InstId, op: Option<Op>) {
        let inst = m.inst(i);
        if op.is_some_and(never_makes_pointers) {
            return;
        }
        let (Some(r), Some(ty)) = (inst.result_id(), inst.result_type()) else {
            return;
        };
        let Some((sc, _)) = pointer_of(m, ty) else {
            return;
        };
        let base = |k: usize| inst.operand_id(k).and_then(|x| self.info(x)).cloned();
        let info = match op {
            Some(Op::Variable) => {
                self.variable_storage.insert(r, sc);
                Some(PointerInfo {
                    root: Root::Variable(r),
                    offset: Some(AffineExpr::constant(0)),
                    storage: Some(sc),
                })
            }
            Some(
                Op::AccessChain
                | Op::InBoundsAccessChain
                | Op::PtrAccessChain
                | Op::InBoundsPtrAccessChain,
            ) => base(0).map(|bi| {
                let off = bi
                    .offset
                    .as_ref()
                    .and_then(|o| o.add(&chain_offset(m, dec, ind, inst)?));
                PointerInfo {
                    root: bi.root,
                    offset: off,
                    storage: Some(sc),
                }
            }),
            Some(
                Op::Bitcast
                | Op::CopyObject
                | Op::PtrCastToGeneric
                | Op::GenericCastToPtr
                | Op::GenericCastToPtrExplicit,
            ) => base(0).map(|bi| PointerInfo {
                storage: Some(sc),
                ..bi
            }),
            Some(Op::Phi) => {
                let ids: Vec<Id> = inst
                    .operands()
                    .chunks(2)
                    .filter_map(|c| Id::new(c[0]))
                    .collect();
                Some(self.merge(m, r, &ids, sc))
            }
            Some(Op::Select) => {
                let ids: Vec<Id> = [inst.operand_id(1), inst.operand_id(2)]
                    .into_iter()
                    .flatten()
                    .collect();
                Some(self.merge(m, r, &ids, sc))
            }
            _ => None,
        };
        let info = info.unwrap_or(PointerInfo {
            root: Root::Unknown,
            offset: None,
            storage: Some(sc),
        });
        self.set(r, info.root, info.offset, info.storage);
    }

    /// Merges the inputs of a phi/select `r`.
    fn merge(&mut self, m: &Module, r: Id, inputs: &[Id], sc: u32) -> PointerInfo {
        let mut root: Option<Root> = None;
        let mut offset: Option<Option<AffineExpr>> = None;
        let mut conflict = false;
        let mut roots_seen: Vec<Root> = Vec::new();
        for &x in inputs {
            let (xr, xo) = match self.info(x) {
                Some(i) => (i.root, i.offset.clone()),
                None => match self.walk_to_root(m, x, r) {
                    Some(root) => (root, None),
                    None => {
                        // Derived from the phi itself: same root, varying offset.
                        offset = Some(None);
                        continue;
                    }
                },
            };
            if !roots_seen.contains(&xr) {
                roots_seen.push(xr);
            }
            match root {
                None => root = Some(xr),
                Some(rt) if rt == xr => {}
                Some(_) => conflict = true,
            }
            offset = Some(match offset {
                None => xo,
                Some(prev) if prev == xo => prev,
                Some(_) => None,
            });
        }
        if conflict {
            for rt in roots_seen {
                if let Root::Variable(v) = rt {
                    self.escaped.insert(v);
                }
            }
            return PointerInfo {
                root: Root::Unknown,
                offset: None,
                storage: Some(sc),
            };
        }
        PointerInfo {
            root: root.unwrap_or(Root::Unknown),
            offset: offset.flatten(),
            storage: Some(sc),
        }
    }

    /// The root of a pointer not visited yet (a loop back edge), following derivations back
    /// to a visited pointer; `None` when they lead to `phi` itself.
    fn walk_to_root(&self, m: &Module, mut x: Id, phi: Id) -> Option<Root> {
        for _ in 0..PHI_WALK_BUDGET {
            if x == phi {
                return None;
            }
            if let Some(i) = self.info(x) {
                return Some(i.root);
            }
            let Some(inst) = m.def_inst(x) else {
                return Some(Root::Unknown);
            };
            match op_of(inst).filter(|&op| derives_pointer(op)) {
                Some(_) => match inst.operand_id(0) {
                    Some(next) => x = next,
                    None => return Some(Root::Unknown),
                },
                None => return Some(Root::Unknown),
            }
        }
        Some(Root::Unknown)
    }

    fn visit_escapes(&mut self, m: &Module, callees: &Callees, i: InstId, op: Option<Op>) {
        let inst = m.inst(i);
        // Predicated loads and stores: a load (its result may also be the default value, which
        // escapes) and a store (the stored object escapes).
        match inst.opcode() {
            OP_PREDICATED_LOAD_INTEL => {
                self.loads.push(i);
                if let Some(v) = inst.operand_id(2) {
                    self.escape(v);
                }
                return;
            }
            OP_PREDICATED_STORE_INTEL => {
                if let Some(v) = inst.operand_id(1) {
                    self.escape(v);
                }
                return;
            }
            _ => {}
        }
        let Some(op) = op else {
            self.escape_all_pointer_operands(m, i);
            return;
        };
        if op == Op::Load {
            self.loads.push(i);
            return;
        }
        match op {
            Op::Load
            | Op::AccessChain
            | Op::InBoundsAccessChain
            | Op::PtrAccessChain
            | Op::InBoundsPtrAccessChain
            | Op::Bitcast
            | Op::CopyObject
            | Op::PtrCastToGeneric
            | Op::GenericCastToPtr
            | Op::GenericCastToPtrExplicit
            | Op::Phi
            | Op::Select
            | Op::CopyMemory
            | Op::CopyMemorySized
            | Op::Variable
            | Op::Subgroup2DBlockLoadINTEL
            | Op::Subgroup2DBlockLoadTransformINTEL
            | Op::Subgroup2DBlockLoadTransposeINTEL
            | Op::Subgroup2DBlockPrefetchINTEL
            | Op::Subgroup2DBlockStoreINTEL
            | Op::SubgroupBlockReadINTEL
            | Op::SubgroupBlockWriteINTEL
            | Op::SubgroupBlockPrefetchINTEL
            | Op::Branch
            | Op::BranchConditional
            | Op::Return
            | Op::Unreachable
            | Op::LoopMerge
            | Op::SelectionMerge
            | Op::Line
            | Op::NoLine => {}
            op if matches!(op, Op::AtomicLoad | Op::AtomicStore)
                || op_class(op).intersects(OpClass::ATOMIC_RMW) => {}
            Op::Store => {
                if let Some(v) = inst.operand_id(1) {
                    self.escape(v);
                }
            }
            Op::FunctionCall => {
                self.calls.push(i);
                let known = callees
                    .of_call(inst)
                    .is_some_and(|c| c.kind != CalleeKind::Unknown);
                if known || block_io(m, callees, i).is_some() {
                    return;
                }
                for &w in inst.operands().iter().skip(1) {
                    if let Some(v) = Id::new(w) {
                        self.escape(v);
                    }
                }
            }
            Op::CompositeInsert | Op::CompositeConstruct => {
                let n = if op == Op::CompositeInsert {
                    2
                } else {
                    usize::MAX
                };
                for &w in inst.operands().iter().take(n) {
                    if let Some(v) = Id::new(w) {
                        self.escape(v);
                    }
                }
            }
            _ if never_takes_pointers(op) => {}
            _ => self.escape_all_pointer_operands(m, i),
        }
    }

    fn escape_all_pointer_operands(&mut self, m: &Module, i: InstId) {
        let mut ids: smallvec::SmallVec<[Id; 8]> = smallvec::SmallVec::new();
        crate::operands::for_each_value_operand(m, i, |id| ids.push(id));
        for id in ids {
            self.escape(id);
        }
    }

    fn escape(&mut self, v: Id) {
        if let Some(Root::Variable(var)) = self.info(v).map(|i| i.root) {
            self.escaped.insert(var);
        }
    }

    // ---- queries --------------------------------------------------------------------

    /// What is known about the pointer `p`.
    pub fn info(&self, p: Id) -> Option<&PointerInfo> {
        let k = *self.index.get(p.index())?;
        (k != 0).then(|| &self.infos[k as usize - 1])
    }

    /// The root of pointer `p` (`Unknown` for non-pointers and unknown ids).
    pub fn root(&self, p: Id) -> Root {
        self.info(p).map_or(Root::Unknown, |i| i.root)
    }

    /// Every reachable `OpFunctionCall`, in reverse post-order of each function (recorded here
    /// because escape analysis looks at calls anyway; uniformity uses it for the call graph).
    pub fn call_sites(&self) -> &[InstId] {
        &self.calls
    }

    /// Every reachable `OpLoad` and `OpPredicatedLoadINTEL`, in the same order.
    pub fn loads(&self) -> &[InstId] {
        &self.loads
    }

    /// Whether the address of variable `var` escapes (see the module documentation).
    pub fn is_escaped(&self, var: Id) -> bool {
        !self.escapes_analysed || self.escaped.contains(&var)
    }

    /// The variables whose address escapes (none recorded by [`Provenance::build_for`], which
    /// does not analyse escapes).
    pub fn escaped_variables(&self) -> impl Iterator<Item = Id> + '_ {
        self.escaped.iter().copied()
    }

    /// Whether the parameter `param` is decorated `NoAlias`/`Restrict`.
    pub fn is_noalias(&self, param: Id) -> bool {
        self.noalias.contains(&param)
    }

    /// The storage class of variable `var`.
    pub fn variable_storage(&self, var: Id) -> Option<u32> {
        self.variable_storage.get(&var).copied()
    }

    /// Whether memory reached from roots `a` and `b` (with storage classes `sa`, `sb`) may
    /// overlap. Conservative: `true` unless the roots are provably distinct objects.
    pub fn roots_may_alias(&self, a: &PointerInfo, b: &PointerInfo) -> bool {
        let generic = StorageClass::Generic as u32;
        if let (Some(sa), Some(sb)) = (a.storage, b.storage) {
            if sa != sb && sa != generic && sb != generic {
                return false;
            }
        }
        match (a.root, b.root) {
            (Root::Null, _) | (_, Root::Null) => false,
            (Root::Variable(x), Root::Variable(y)) => x == y,
            (Root::Variable(v), other) | (other, Root::Variable(v)) => {
                let sc = self.variable_storage(v);
                let private = sc == Some(StorageClass::Function as u32)
                    || sc == Some(StorageClass::Private as u32);
                if private && !self.is_escaped(v) {
                    return false;
                }
                if sc == Some(StorageClass::Workgroup as u32) {
                    if let Root::Param { func, .. } = other {
                        // Module-scope local memory is not a kernel argument's allocation.
                        return !self.entry_functions.contains(&func);
                    }
                }
                true
            }
            (
                Root::Param {
                    func: fa,
                    index: ia,
                    id: pa,
                },
                Root::Param {
                    func: fb,
                    index: ib,
                    id: pb,
                },
            ) => {
                if fa != fb {
                    return true;
                }
                if ia == ib {
                    return true;
                }
                !(self.is_noalias(pa) || self.is_noalias(pb))
            }
            _ => true,
        }
    }
}

/// The byte offset an access chain adds to its base.
fn chain_offset(m: &Module, dec: &Decorations, ind: &Induction, inst: &Inst) -> Option<AffineExpr> {
    let base = inst.operand_id(0)?;
    let base_ty = m.type_of(base)?;
    let (_, mut ty) = pointer_of(m, base_ty)?;
    let ops = inst.operands();
    let mut off = AffineExpr::constant(0);
    let index_form = |w: u32| -> Option<AffineExpr> { ind.form(Id::new(w)?) };
    let mut rest = &ops[1..];
    if inst.is(Op::PtrAccessChain) || inst.is(Op::InBoundsPtrAccessChain) {
        let (&first, tail) = rest.split_first()?;
        let stride = match dec.array_stride(base_ty) {
            Some(s) => u64::from(s),
            None => size_of(m, dec, ty)?,
        };
        off = off.add(&index_form(first)?.scale(stride as i64))?;
        rest = tail;
    }
    for &w in rest {
        let t = m.def_inst(ty)?;
        match op_of(t)? {
            Op::TypeStruct => {
                let k = ind.form(Id::new(w)?)?.as_constant()?;
                let k = u32::try_from(k).ok()?;
                off = off.add(&AffineExpr::constant(member_offset(m, dec, ty, k)? as i64))?;
                ty = Id::new(*t.operands().get(k as usize)?)?;
            }
            Op::TypeArray | Op::TypeRuntimeArray => {
                let elem = t.operand_id(0)?;
                let stride = match dec.array_stride(ty) {
                    Some(s) => u64::from(s),
                    None => size_of(m, dec, elem)?,
                };
                off = off.add(&index_form(w)?.scale(stride as i64))?;
                ty = elem;
            }
            Op::TypeVector => {
                let (elem, _) = vector_of(m, ty)?;
                let es = size_of(m, dec, elem)?;
                off = off.add(&index_form(w)?.scale(es as i64))?;
                ty = elem;
            }
            _ => return None,
        }
    }
    Some(off)
}

/// Opcodes whose result points into the object operand 0 points into: access chains, and
/// pointer copies and casts (`Bitcast`, `CopyObject`, generic casts).
pub fn derives_pointer(op: Op) -> bool {
    op_class(op).intersects(OpClass::ACCESS_CHAIN)
        || matches!(
            op,
            Op::Bitcast
                | Op::CopyObject
                | Op::PtrCastToGeneric
                | Op::GenericCastToPtr
                | Op::GenericCastToPtrExplicit
        )
}

/// Opcodes whose result is never a pointer (arithmetic, comparisons, number conversions).
fn never_makes_pointers(op: Op) -> bool {
    never_takes_pointers(op) && op != Op::ConvertUToPtr && op != Op::Switch
        || matches!(
            op,
            Op::ConvertPtrToU | Op::Store | Op::Branch | Op::BranchConditional
        )
}

/// Opcodes whose operands are never pointers (arithmetic, comparisons, conversions of
/// numbers, composites of numbers).
fn never_takes_pointers(op: Op) -> bool {
    use Op::*;
    op_class(op).intersects(
        OpClass::INTEGER_ARITHMETIC
            | OpClass::FLOAT_ARITHMETIC
            | OpClass::BITWISE
            | OpClass::NUMERIC_CONVERSION
            | OpClass::INTEGER_COMPARISON
            | OpClass::FLOAT_COMPARISON
            | OpClass::LOGICAL
            | OpClass::FLOAT_TEST,
    ) || matches!(
        op,
        CompositeExtract
            | VectorShuffle
            | VectorExtractDynamic
            | VectorInsertDynamic
            | Dot
            | VectorTimesScalar
            | Any
            | All
            | BitCount
            | SubgroupMatrixMultiplyAccumulateINTEL
            | ControlBarrier
            | MemoryBarrier
            | ConvertUToPtr
            | Switch
    )
}
