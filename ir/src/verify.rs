//! Structural invariants every pass and analysis relies on, checked on a [`Module`].
//!
//! The loader runs [`verify`] on every module it loads (so no module that breaks them ever
//! reaches a pass, with or without spirv-val), and the pass manager runs it on every pass's
//! output. spirv-val's full validation stays optional; these are the checks our own code needs:
//!
//! - every used id is defined, once;
//! - ids are defined before they are used, except where SPIR-V allows forward references:
//!   entry points, execution modes, debug names and annotations (anything), function ids
//!   (calls, entry points), labels inside their function (branches, merges, `OpPhi` parents),
//!   `OpPhi` values, ids declared by `OpTypeForwardPointer`, debug / non-semantic `OpExtInst`,
//!   and uses inside blocks unreachable from the function's entry (spirv-val skips dominance
//!   there too);
//! - function-local ids (parameters, labels, body results) are used only inside their function
//!   (names and decorations may refer to them);
//! - operand types passes depend on: result types are types, `OpFunction`'s type is an
//!   `OpTypeFunction`, an `OpFunctionCall` callee and an `OpEntryPoint` function are
//!   `OpFunction`s, `OpPhi` parents and branch / merge targets are labels of the same function,
//!   `OpLoad` / `OpStore` pointers have pointer type.
//!
//! Cost: two walks over the instructions and one 16-byte entry per id below the highest defined
//! id (the module's size, never the header's bound); linear. Each use is first tried on a fast
//! path (a table of where an opcode's ids are, one lookup per use); only instructions it cannot
//! clear get the full check, which also builds the error. The loader does the same checks in
//! its own walk (`LoadChecks`).

use spirv::Op;

use crate::entity::EntitySet;
use crate::error::{IdDesc, LoadError, LoadErrorKind};
use crate::grammar::{self, SlotKind};
use crate::id::{BlockId, Id, InstId};
use crate::module::{Module, Section};

const NONE: u32 = u32::MAX;
/// Scope of module-level ids and instructions.
pub(crate) const GLOBAL: u32 = u32::MAX;

#[derive(Clone, Copy)]
pub(crate) struct Def {
    /// Position of the defining instruction in emission order (NONE: not defined).
    seq: u32,
    /// Function index of a function-local id, GLOBAL for module-level ids.
    scope: u32,
    /// Opcode of the defining instruction (0: not defined), kept here so that checking a use
    /// does not touch the defining instruction.
    op: u16,
    /// The defining instruction declares a type ([`is_type_decl`] of `op`, asked once per
    /// definition instead of once per use).
    is_type: bool,
}

impl Def {
    #[inline]
    fn new(seq: u32, scope: u32, op: u16) -> Def {
        Def {
            seq,
            scope,
            op,
            is_type: is_type_decl(op),
        }
    }
}

/// Where an instruction sits.
#[derive(Clone, Copy)]
pub(crate) struct Site {
    pub inst: InstId,
    /// Byte offset in the emitted module.
    pub offset: usize,
    /// Position in emission order.
    pub seq: u32,
    /// Function index, or [`GLOBAL`].
    pub scope: u32,
    pub section: Option<Section>,
    pub block: Option<BlockId>,
}

/// Checks the structural invariants (see the module docs). The error names the instruction
/// (byte offset in the emitted module, opcode), the id and its `OpName`, if any.
pub fn verify(m: &Module) -> Result<(), LoadError> {
    verify_with(m, true)
}

/// [`verify`] without its fast path: every use goes through the full check. The reference
/// the fast paths are tested against (`ir/tests/verify_equivalence.rs`).
#[doc(hidden)]
pub fn verify_reference(m: &Module) -> Result<(), LoadError> {
    verify_with(m, false)
}

fn verify_with(m: &Module, fast: bool) -> Result<(), LoadError> {
    let mut v = Verifier {
        m,
        defs: vec![UNDEFINED; m.id_capacity()],
        forward_pointers: Vec::new(),
        reachable: Vec::new(),
    };
    v.define()?;
    v.forward_pointers.sort_unstable();
    if fast {
        walk(m, |site| v.check_inst(site))
    } else {
        walk(m, |site| v.check_inst_fully(site))
    }
}

/// The common case of [`Verifier::check_use`] for every use of `inst` at `site`, without
/// building an error: each used id defined before (or anywhere, where forward references are
/// allowed), in scope, a type where a type is wanted. `false` sends the instruction to the
/// full check, which tells a legal forward reference from an error.
#[inline]
fn uses_ok(m: &Module, inst: &crate::Inst, site: &Site, defs: &[Def]) -> bool {
    let words: &[u32] = &inst.words;
    let rule = UseRule::new(site.scope, site.seq, site.section, inst.is(Op::Phi));
    let use_ok = |word: u32, is_type: bool| rule.ok(defs, word, is_type);
    let has_type = inst.has_result_type();
    let mut all_ok = true;
    let known = grammar::for_each_use_known(inst.opcode(), words, |k| {
        all_ok &= use_ok(words[k], has_type && k == 0);
    });
    if !known {
        let _ = m.walk(inst, |s| match s.kind {
            SlotKind::ResultType => all_ok &= use_ok(words[s.index], true),
            SlotKind::Id => all_ok &= use_ok(words[s.index], false),
            _ => {}
        });
    }
    all_ok
}

/// The common case of a use being fine where it is, for one instruction at one place: what
/// [`uses_ok`] asks of each use, and what the loader's fused walk asks as it checks each use
/// word's range (one rule, two callers).
#[derive(Clone, Copy)]
pub(crate) struct UseRule {
    scope: u32,
    seq: u32,
    /// In the debug or annotation section: names may refer to any id, of any scope.
    names: bool,
    /// Forward references to anything are legal here (names, entry points, execution modes).
    anywhere: bool,
    phi: bool,
}

impl UseRule {
    /// The rule for an instruction at position `seq` of emission order, in function `scope`
    /// (or [`GLOBAL`]) and module-level `section`.
    #[inline]
    pub(crate) fn new(scope: u32, seq: u32, section: Option<Section>, phi: bool) -> UseRule {
        let names = matches!(section, Some(Section::Debug | Section::Annotation));
        UseRule {
            scope,
            seq,
            names,
            anywhere: names
                || matches!(section, Some(Section::EntryPoint | Section::ExecutionMode)),
            phi,
        }
    }

    /// Whether the use of `word` (a type use if `is_type`) passes without the full check.
    #[inline]
    pub(crate) fn ok(&self, defs: &[Def], word: u32, is_type: bool) -> bool {
        let Some(d) = defs.get(word as usize) else {
            return false;
        };
        let same_scope = d.scope == self.scope;
        d.seq != NONE
            && (d.scope == GLOBAL || same_scope || self.names)
            && (!is_type || d.is_type)
            && (d.seq <= self.seq
                || self.anywhere
                // The cheap ones of `forward_ok`'s legal forward references.
                || d.op == Op::Function as u16
                || (same_scope && (self.phi || d.op == Op::Label as u16)))
    }
}

/// The structural check done while loading, in the loader's single walk: each instruction's
/// uses are checked against the definitions seen so far as it is placed; the few that need
/// the whole module (forward references, operand kinds of branches, calls, loads and stores)
/// are checked by [`LoadChecks::finish`]. Emission order is load order, so the first error
/// found is the one [`verify`] reports.
pub(crate) struct LoadChecks {
    defs: Vec<Def>,
    forward_pointers: Vec<u32>,
    /// The instructions [`LoadChecks::finish`] checks.
    waiting: Waiting,
}

/// The instructions waiting for [`LoadChecks::finish`]: a list of their sites in load order
/// while short (`true` for the whole check, `false` for the operand kinds only); past
/// [`WAITING_LIST_MAX`] entries, a bit per instruction in each of two sets, whose sites one
/// walk in emission order (which is load order) finds again at the end. A large module keeps
/// a fraction of a byte per instruction instead of 24 bytes per waiting one (most branches,
/// phis and names wait); a small one skips the walk.
enum Waiting {
    List(Vec<Recheck>),
    Bits {
        whole: EntitySet<InstId>,
        kinds: EntitySet<InstId>,
    },
}

/// Waiting instructions kept as a list (24 bytes each) before switching to bit sets.
const WAITING_LIST_MAX: usize = 4096;

impl Waiting {
    #[inline(always)]
    fn push(&mut self, site: Site, whole: bool) {
        match self {
            Waiting::List(list) if list.len() < WAITING_LIST_MAX => {
                list.push(Recheck::new(site, whole))
            }
            _ => self.push_past_list(site, whole),
        }
    }

    /// [`Waiting::push`] once the list is full (switching to the bit sets) or gone.
    #[inline(never)]
    fn push_past_list(&mut self, site: Site, whole: bool) {
        match self {
            Waiting::List(list) => {
                let (mut w, mut k) = (EntitySet::new(), EntitySet::new());
                for r in list.iter() {
                    if r.whole {
                        w.insert(r.inst);
                    } else {
                        k.insert(r.inst);
                    }
                }
                *self = Waiting::Bits { whole: w, kinds: k };
                self.push(site, whole);
            }
            Waiting::Bits { whole: w, kinds: k } => {
                if whole {
                    w.insert(site.inst);
                } else {
                    k.insert(site.inst);
                }
            }
        }
    }
}

impl LoadChecks {
    pub(crate) fn new(ids: usize, waiting_as_bits: bool) -> LoadChecks {
        LoadChecks {
            defs: Vec::with_capacity(ids),
            forward_pointers: Vec::new(),
            waiting: if waiting_as_bits {
                Waiting::Bits {
                    whole: EntitySet::new(),
                    kinds: EntitySet::new(),
                }
            } else {
                Waiting::List(Vec::new())
            },
        }
    }

    /// For an `OpLoad` / `OpStore` whose uses passed: whether its pointer operand is already
    /// known to have a pointer type, so that [`Verifier::check_operand_kinds`] (which checks
    /// only that for these two) has nothing left to find. A definition never changes once
    /// recorded, so what passes now passes at the end; anything else waits as before (this
    /// keeps the wait list of a large module short).
    #[inline]
    fn pointer_operand_ok_now(&self, m: &Module, inst: InstId, opcode: u16) -> bool {
        if opcode != Op::Load as u16 && opcode != Op::Store as u16 {
            return false;
        }
        let Some(p) = m.inst(inst).operand_id(0) else {
            return false;
        };
        let defined = |id: Id| self.defs.get(id.index()).is_some_and(|d| d.seq != NONE);
        if !defined(p) {
            return false;
        }
        let Some(ty) = m.def_inst(p).and_then(|d| d.result_type()) else {
            return false;
        };
        self.defs.get(ty.index()).is_some_and(|d| {
            d.seq != NONE
                && (d.op == Op::TypePointer as u16 || d.op == Op::TypeUntypedPointerKHR as u16)
        })
    }

    /// The definitions seen so far (for [`UseRule::ok`]).
    #[inline]
    pub(crate) fn defs(&self) -> &[Def] {
        &self.defs
    }

    /// `site.inst` (of `opcode`, defining `result`) has just been placed, and the loader found
    /// whether all its uses pass [`UseRule::ok`] (`uses_ok`, from its fused walk or from the
    /// use positions of its grammar walk): the instruction waits for [`LoadChecks::finish`]
    /// if they did not, or if its operand kinds need the whole module; then its result is
    /// recorded.
    #[inline(always)]
    pub(crate) fn record(
        &mut self,
        m: &Module,
        site: Site,
        opcode: u16,
        result: Option<Id>,
        forward_pointer: Option<u32>,
        uses_ok: bool,
    ) {
        if !uses_ok {
            self.waiting.push(site, true);
        } else if needs_kind_check(opcode) && !self.pointer_operand_ok_now(m, site.inst, opcode) {
            self.waiting.push(site, false);
        }
        if let Some(p) = forward_pointer {
            self.forward_pointers.push(p);
        }
        if let Some(r) = result {
            let i = r.word() as usize;
            if i >= self.defs.len() {
                self.defs.resize(i + 1, UNDEFINED);
            }
            self.defs[i] = Def::new(site.seq, site.scope, opcode);
        }
    }

    /// Checks what had to wait for the whole module.
    pub(crate) fn finish(mut self, m: &Module) -> Result<(), LoadError> {
        self.forward_pointers.sort_unstable();
        if self.defs.len() < m.id_capacity() {
            self.defs.resize(m.id_capacity(), UNDEFINED);
        }
        let mut v = Verifier {
            m,
            defs: self.defs,
            forward_pointers: self.forward_pointers,
            reachable: Vec::new(),
        };
        match self.waiting {
            Waiting::List(list) => {
                for r in list {
                    let (site, whole) = r.site();
                    if whole {
                        v.check_inst(site)?;
                    } else if m.inst(site.inst).is(Op::Phi) && v.phi_ok(site) {
                        // Its uses passed already; so do its parents.
                    } else {
                        v.check_operand_kinds(site)
                            .map_err(|kind| site_err(m, site, kind))?;
                    }
                }
                Ok(())
            }
            Waiting::Bits { whole, kinds } => walk(m, |site| {
                if whole.contains(site.inst) {
                    v.check_inst(site)
                } else if kinds.contains(site.inst) {
                    v.check_operand_kinds(site)
                        .map_err(|kind| site_err(m, site, kind))
                } else {
                    Ok(())
                }
            }),
        }
    }
}

/// A [`Site`] waiting for [`LoadChecks::finish`], packed (24 bytes instead of 40).
#[derive(Clone, Copy)]
struct Recheck {
    inst: InstId,
    /// Byte offset / 4.
    word: u32,
    seq: u32,
    scope: u32,
    block: Option<BlockId>,
    /// `Section as u8`, or `NO_SECTION`.
    section: u8,
    /// The whole check (`false`: the operand kinds only).
    whole: bool,
}

const NO_SECTION: u8 = u8::MAX;

impl Recheck {
    fn new(site: Site, whole: bool) -> Recheck {
        Recheck {
            inst: site.inst,
            word: (site.offset / 4) as u32,
            seq: site.seq,
            scope: site.scope,
            block: site.block,
            section: site.section.map_or(NO_SECTION, |s| s as u8),
            whole,
        }
    }

    fn site(self) -> (Site, bool) {
        (
            Site {
                inst: self.inst,
                offset: self.word as usize * 4,
                seq: self.seq,
                scope: self.scope,
                section: Section::ALL.get(usize::from(self.section)).copied(),
                block: self.block,
            },
            self.whole,
        )
    }
}

const UNDEFINED: Def = Def {
    seq: NONE,
    scope: GLOBAL,
    op: 0,
    is_type: false,
};

/// Calls `f` with every live instruction in emission order and where it sits.
fn walk(m: &Module, mut f: impl FnMut(Site) -> Result<(), LoadError>) -> Result<(), LoadError> {
    let mut offset = 20usize;
    let mut seq = 0u32;
    let mut visit = |inst: InstId,
                     scope: u32,
                     section: Option<Section>,
                     block: Option<BlockId>|
     -> Result<(), LoadError> {
        let site = Site {
            inst,
            offset,
            seq,
            scope,
            section,
            block,
        };
        offset += m.inst_len(inst) * 4;
        seq += 1;
        f(site)
    };
    for s in Section::ALL {
        for &i in m.section(s) {
            visit(i, GLOBAL, Some(s), None)?;
        }
    }
    for (n, func) in m.functions.iter().enumerate() {
        let n = n as u32;
        for &i in &func.prefix {
            visit(i, GLOBAL, None, None)?;
        }
        visit(func.def, GLOBAL, None, None)?;
        for &i in &func.header {
            visit(i, n, None, None)?;
        }
        for &b in &func.blocks {
            visit(m.block(b).label, n, None, Some(b))?;
            for i in m.block_insts(b) {
                visit(i, n, None, Some(b))?;
            }
        }
        visit(func.end, n, None, None)?;
    }
    for &i in &m.trailing {
        visit(i, GLOBAL, None, None)?;
    }
    Ok(())
}

struct Verifier<'a> {
    m: &'a Module,
    defs: Vec<Def>,
    /// Ids declared by `OpTypeForwardPointer` (sorted after the first walk).
    forward_pointers: Vec<u32>,
    /// Per block (arena index), lazily per function: reachable from the function's entry?
    reachable: Vec<u8>,
}

impl Verifier<'_> {
    fn define(&mut self) -> Result<(), LoadError> {
        let m = self.m;
        let defs = &mut self.defs;
        let fwd = &mut self.forward_pointers;
        walk(m, |site| {
            let inst = m.inst(site.inst);
            if inst.is(Op::TypeForwardPointer) {
                if let Some(p) = inst.operand_word(0) {
                    fwd.push(p);
                }
            }
            let Some(r) = inst.result_id() else {
                return Ok(());
            };
            // Module-level ids defined between functions (debug ext insts) are global.
            let Some(d) = defs.get_mut(r.index()) else {
                // Above the definition table: the module's def table does not know it.
                return Err(site_err(m, site, LoadErrorKind::UnregisteredId(r.word())));
            };
            if d.seq != NONE {
                return Err(site_err(
                    m,
                    site,
                    LoadErrorKind::DuplicateDefinition(r.word()),
                ));
            }
            *d = Def::new(site.seq, site.scope, inst.opcode());
            Ok(())
        })
    }

    fn check_inst(&mut self, site: Site) -> Result<(), LoadError> {
        let m = self.m;
        let inst = m.inst(site.inst);
        if inst.is(Op::Phi) && self.phi_ok(site) {
            return Ok(());
        }
        // Fast path: every use defined earlier, in scope, of the right kind. Anything else
        // (a legal forward reference, or an error) is decided by the full check below.
        let all_ok = uses_ok(m, inst, &site, &self.defs);
        if !all_ok {
            self.check_uses(site)?;
        }
        if needs_kind_check(inst.opcode()) {
            self.check_operand_kinds(site)
                .map_err(|kind| site_err(m, site, kind))?;
        }
        Ok(())
    }

    /// Whether the `OpPhi` at `site` passes every check (its uses by [`UseRule::ok`], its
    /// parents labels of its function) without the general machinery: phis are a fifth of a
    /// GEMM's instructions, and the loop header's wait for the end of the load (their values
    /// come from the back edge). `false` sends it to the full check, which finds the error or
    /// the legal exception.
    #[inline(always)]
    fn phi_ok(&self, site: Site) -> bool {
        let words: &[u32] = &self.m.inst(site.inst).words;
        let rule = UseRule::new(site.scope, site.seq, site.section, true);
        let defs = &self.defs[..];
        let Some(&ty) = words.first() else {
            return false;
        };
        if !rule.ok(defs, ty, true) {
            return false;
        }
        // (value, parent) pairs after the result type and result; a last value without its
        // parent is checked as a use only, as the general check does.
        let mut k = 2;
        while k < words.len() {
            if !rule.ok(defs, words[k], false) {
                return false;
            }
            if let Some(&p) = words.get(k + 1) {
                let label_here = defs
                    .get(p as usize)
                    .is_some_and(|d| d.op == Op::Label as u16 && d.scope == site.scope);
                if !label_here || !rule.ok(defs, p, false) {
                    return false;
                }
            }
            k += 2;
        }
        true
    }

    /// [`Verifier::check_inst`] without the fast path.
    fn check_inst_fully(&mut self, site: Site) -> Result<(), LoadError> {
        self.check_uses(site)?;
        self.check_operand_kinds(site)
            .map_err(|kind| site_err(self.m, site, kind))
    }

    /// Every use of one instruction through [`Verifier::check_use`]: the first error.
    #[cold]
    fn check_uses(&mut self, site: Site) -> Result<(), LoadError> {
        let m = self.m;
        let inst = m.inst(site.inst);
        let has_type = inst.has_result_type();
        let mut slots: smallvec::SmallVec<[(usize, bool); 16]> = smallvec::SmallVec::new();
        if !grammar::for_each_use_known(inst.opcode(), &inst.words, |k| {
            slots.push((k, has_type && k == 0))
        }) {
            let _ = m.walk(inst, |s| match s.kind {
                SlotKind::ResultType => slots.push((s.index, true)),
                SlotKind::Id => slots.push((s.index, false)),
                _ => {}
            });
        }
        for (k, is_type) in slots {
            self.check_use(site, inst.words[k], is_type)
                .map_err(|kind| site_err(m, site, kind))?;
        }
        Ok(())
    }

    /// Scope, order, and "is a type" for one used id.
    fn check_use(&mut self, site: Site, word: u32, is_type: bool) -> Result<(), LoadErrorKind> {
        let d = match Id::new(word).and_then(|id| self.defs.get(id.index())) {
            Some(d) if d.seq != NONE => *d,
            _ => return Err(LoadErrorKind::UndefinedId(word)),
        };
        let def_op = d.op;
        // Names and decorations may refer to anything, anywhere; entry points and execution
        // modes may refer forward.
        let names = matches!(site.section, Some(Section::Debug | Section::Annotation));
        let anywhere = names
            || matches!(
                site.section,
                Some(Section::EntryPoint | Section::ExecutionMode)
            );
        if d.scope != GLOBAL && d.scope != site.scope && !names {
            return Err(LoadErrorKind::ForeignLocalId {
                id: self.desc(word),
                defined_in: self.function_desc(d.scope),
                used_in: (site.scope != GLOBAL).then(|| self.function_desc(site.scope)),
            });
        }
        if is_type && !is_type_decl(def_op) {
            return Err(self.wrong_kind(word, "a type", def_op));
        }
        if d.seq > site.seq && !anywhere && !self.forward_ok(site, word, d, def_op) {
            return Err(LoadErrorKind::UsedBeforeDefinition(self.desc(word)));
        }
        Ok(())
    }

    fn forward_ok(&mut self, site: Site, word: u32, d: Def, def_op: u16) -> bool {
        let inst = self.m.inst(site.inst);
        def_op == Op::Function as u16
            || (def_op == Op::Label as u16 && d.scope == site.scope)
            || (inst.is(Op::Phi) && d.scope == site.scope)
            || self.forward_pointers.binary_search(&word).is_ok()
            || (inst.is(Op::ExtInst)
                && inst
                    .operand_id(0)
                    .and_then(|s| self.m.ext_set(s))
                    .is_some_and(grammar::ExtSet::is_debug_or_non_semantic))
            || site
                .block
                .is_some_and(|b| !self.is_reachable(site.scope, b))
            // A definition in a later block of the same function: SPIR-V wants blocks in
            // dominance order, but the Khronos LLVM/SPIR-V translator does not always emit
            // them so (tests/corpus/opencl-samples), and drivers accept it. The id is still
            // function-local and defined in this function; only a use before its definition
            // within one block stays an error.
            || (d.scope == site.scope
                && site.scope != GLOBAL
                && self.m.def(Id::new(word).expect("a defined id is not 0")).and_then(|i| self.m.inst_block(i))
                    != site.block)
    }

    /// Operand kinds the passes depend on.
    fn check_operand_kinds(&mut self, site: Site) -> Result<(), LoadErrorKind> {
        let inst = self.m.inst(site.inst);
        let ops = inst.operands();
        if !needs_kind_check(inst.opcode()) {
            return Ok(());
        }
        let Some(op) = inst.op() else { return Ok(()) };
        match op {
            Op::Function => self.expect(ops.get(1), Op::TypeFunction, "an OpTypeFunction"),
            Op::FunctionCall => self.expect(ops.first(), Op::Function, "an OpFunction"),
            Op::EntryPoint => self.expect(ops.get(1), Op::Function, "an OpFunction"),
            Op::Phi => {
                for parent in ops.iter().skip(1).step_by(2) {
                    self.expect_label(site, *parent)?;
                }
                Ok(())
            }
            Op::Branch | Op::LoopMerge => {
                let n = if op == Op::Branch { 1 } else { 2 };
                for t in ops.iter().take(n) {
                    self.expect_label(site, *t)?;
                }
                Ok(())
            }
            Op::SelectionMerge => self.expect_label(site, ops.first().copied().unwrap_or(0)),
            Op::BranchConditional => {
                for t in ops.iter().skip(1).take(2) {
                    self.expect_label(site, *t)?;
                }
                Ok(())
            }
            Op::Switch => {
                self.expect_label(site, ops.get(1).copied().unwrap_or(0))?;
                // Targets: every id operand after the selector and default is a label.
                let mut targets: smallvec::SmallVec<[u32; 16]> = smallvec::SmallVec::new();
                let _ = self.m.walk(inst, |s| {
                    if s.kind == SlotKind::Id && s.index >= 2 {
                        targets.push(inst.words[s.index]);
                    }
                });
                for t in targets {
                    self.expect_label(site, t)?;
                }
                Ok(())
            }
            Op::Load => self.expect_pointer(ops.first()),
            Op::Store => self.expect_pointer(ops.first()),
            _ => Ok(()),
        }
    }

    fn def_op(&self, word: u32) -> u16 {
        Id::new(word)
            .and_then(|id| self.defs.get(id.index()))
            .map_or(0, |d| d.op)
    }

    fn expect(&self, word: Option<&u32>, op: Op, what: &'static str) -> Result<(), LoadErrorKind> {
        let w = word.copied().unwrap_or(0);
        let found = self.def_op(w);
        if found == op as u16 {
            Ok(())
        } else {
            Err(self.wrong_kind(w, what, found))
        }
    }

    fn expect_label(&self, site: Site, word: u32) -> Result<(), LoadErrorKind> {
        self.expect(Some(&word), Op::Label, "a label of the same function")?;
        let scope = Id::new(word).map_or(GLOBAL, |id| self.defs[id.index()].scope);
        if scope == site.scope {
            Ok(())
        } else {
            Err(self.wrong_kind(word, "a label of the same function", Op::Label as u16))
        }
    }

    fn expect_pointer(&self, word: Option<&u32>) -> Result<(), LoadErrorKind> {
        let w = word.copied().unwrap_or(0);
        let ty = Id::new(w)
            .filter(|id| self.defs.get(id.index()).is_some_and(|d| d.seq != NONE))
            .and_then(|id| self.m.def(id))
            .and_then(|i| self.m.inst(i).result_type());
        let ty_op = ty.map_or(0, |t| self.def_op(t.word()));
        if ty_op == Op::TypePointer as u16 || ty_op == Op::TypeUntypedPointerKHR as u16 {
            Ok(())
        } else {
            Err(LoadErrorKind::WrongOperandKind {
                id: self.desc(w),
                expected: "a pointer",
                found: match ty {
                    Some(t) => format!("a value of type %{}", t.word()),
                    None => "not a value".into(),
                },
            })
        }
    }

    fn wrong_kind(&self, word: u32, expected: &'static str, found: u16) -> LoadErrorKind {
        LoadErrorKind::WrongOperandKind {
            id: self.desc(word),
            expected,
            found: if found == 0 {
                "not defined by an instruction".into()
            } else {
                format!("defined by {}", crate::inst::opcode_display(found))
            },
        }
    }

    fn desc(&self, word: u32) -> IdDesc {
        IdDesc::of(self.m, word)
    }

    fn function_desc(&self, scope: u32) -> u32 {
        let f = &self.m.functions[scope as usize];
        self.m.inst(f.def).result_id().map_or(0, Id::word)
    }

    /// Whether block `b` of function `f` is reachable from its entry (computed once per
    /// function, only when a forward reference needs it; linear in the function's blocks).
    fn is_reachable(&mut self, f: u32, b: BlockId) -> bool {
        if f == GLOBAL {
            return true;
        }
        let m = self.m;
        if self.reachable.is_empty() {
            self.reachable = vec![UNKNOWN; m.block_arena_len()];
        }
        if self.reachable[b.index()] == UNKNOWN {
            let blocks = &m.functions[f as usize].blocks;
            for &x in blocks {
                self.reachable[x.index()] = UNREACHABLE;
            }
            let mut stack: Vec<BlockId> = blocks.first().copied().into_iter().collect();
            while let Some(x) = stack.pop() {
                if std::mem::replace(&mut self.reachable[x.index()], REACHABLE) == REACHABLE {
                    continue;
                }
                let Some(t) = m.block_terminator(x) else {
                    continue;
                };
                let defs = &self.defs;
                m.for_each_used_id(t, |id| {
                    let Some(d) = defs.get(id.index()) else {
                        return;
                    };
                    if d.scope != f {
                        return;
                    }
                    let def = (d.seq != NONE).then(|| m.def(id)).flatten();
                    if let Some(i) = def.filter(|&i| m.inst(i).is(Op::Label)) {
                        if let Some(nb) = m.inst_block(i) {
                            stack.push(nb);
                        }
                    }
                });
            }
        }
        self.reachable[b.index()] == REACHABLE
    }
}

const UNKNOWN: u8 = 0;
const REACHABLE: u8 = 1;
const UNREACHABLE: u8 = 2;

/// Whether `op` declares a type (`OpType*` with a result; computed on the opcode's first use).
#[inline]
fn is_type_decl(op: u16) -> bool {
    static TABLE: crate::opcode_table::PerOpcode<bool> = crate::opcode_table::PerOpcode::new();
    TABLE.get(op, |op| {
        grammar::inst_desc(op).is_some_and(|d| d.name.starts_with("OpType") && d.has_result())
    })
}

/// Whether [`Verifier::check_operand_kinds`] has anything to check for `opcode`.
fn needs_kind_check(opcode: u16) -> bool {
    const fn table() -> [bool; 512] {
        let mut t = [false; 512];
        let ops = [
            Op::Function,
            Op::FunctionCall,
            Op::EntryPoint,
            Op::Phi,
            Op::Branch,
            Op::LoopMerge,
            Op::SelectionMerge,
            Op::BranchConditional,
            Op::Switch,
            Op::Load,
            Op::Store,
        ];
        let mut i = 0;
        while i < ops.len() {
            t[ops[i] as usize] = true;
            i += 1;
        }
        t
    }
    static TABLE: [bool; 512] = table();
    TABLE.get(usize::from(opcode)).copied().unwrap_or(false)
}

fn site_err(m: &Module, site: Site, kind: LoadErrorKind) -> LoadError {
    LoadError {
        offset: site.offset,
        instruction: Some(m.inst(site.inst).name().into_owned()),
        kind,
    }
}
