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
//! its own walk (`LoadChecks`, in `verify/load_checks.rs`); the full check of one instruction
//! is `verify/verifier.rs`.

use spirv::Op;

use crate::error::{LoadError, LoadErrorKind};
use crate::grammar::{self, SlotKind};
use crate::id::{BlockId, InstId};
use crate::module::{Module, Section};

mod load_checks;
mod verifier;

pub(crate) use load_checks::LoadChecks;
use verifier::Verifier;

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
