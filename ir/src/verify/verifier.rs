//! The full check of one instruction ([`Verifier`]): every use defined, in scope, before it
//! (or a forward reference SPIR-V allows, reachability included), a type where a type is
//! wanted, and the operand kinds passes depend on; the error names the instruction and id.

use spirv::Op;

use super::{
    is_type_decl, needs_kind_check, site_err, uses_ok, walk, Def, Site, UseRule, GLOBAL, NONE,
};
use crate::error::{IdDesc, LoadError, LoadErrorKind};
use crate::grammar::{self, SlotKind};
use crate::id::{BlockId, Id};
use crate::module::{Module, Section};

pub(super) struct Verifier<'a> {
    pub(super) m: &'a Module,
    pub(super) defs: Vec<Def>,
    /// Ids declared by `OpTypeForwardPointer` (sorted after the first walk).
    pub(super) forward_pointers: Vec<u32>,
    /// Per block (arena index), lazily per function: reachable from the function's entry?
    pub(super) reachable: Vec<u8>,
}

impl Verifier<'_> {
    pub(super) fn define(&mut self) -> Result<(), LoadError> {
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

    pub(super) fn check_inst(&mut self, site: Site) -> Result<(), LoadError> {
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
    pub(super) fn phi_ok(&self, site: Site) -> bool {
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
    pub(super) fn check_inst_fully(&mut self, site: Site) -> Result<(), LoadError> {
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
    pub(super) fn check_operand_kinds(&mut self, site: Site) -> Result<(), LoadErrorKind> {
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
