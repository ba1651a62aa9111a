//! `lower-block-payloads`: replaces IGC's 2D block address payload builtins (what
//! `hoist-block-payloads` emits, and what sycl-tla's CuTe atoms call) by the native
//! `OpSubgroup2DBlock{Load,LoadTransform,LoadTranspose,Prefetch,Store}INTEL` ops, for consumers
//! other than IGC and for A/B measurements.
//!
//! What: every payload (the result of a `createBlock2DAddressPayload` or
//! `copyBlock2DAddressPayload` call) becomes six Function variables in its function's entry
//! block (base, width − 1, height − 1, pitch − 1, x, y); a create or copy stores its fields,
//! `set…` stores one, `add…` adds to one, and a `block_{read,write}_ap_*` call loads them and
//! executes the native op of the name's kind and shape on base (`OpConvertUToPtr` to a
//! CrossWorkgroup byte pointer, decorated with the call's cache controls as
//! `CacheControlLoadINTEL` when they are not the default), width + 1, height + 1, pitch + 1
//! and `(x + immX, y + immY)`; a read's data comes through a Function variable of the call's
//! type into the call's result id, a write's goes into one. The declarations the module no
//! longer calls are removed with their decorations and names.
//!
//! When: always, for every call (one rewrite, `--max-changes`, is one payload with its copies
//! and every call on them); a payload whose use the pass cannot follow (a payload that
//! goes through an `OpPhi`, `OpSelect`, a store or a call of something else, an access whose
//! shape differs from the payload's, or a non-constant block shape or cache control) is an
//! error with its location, since leaving the builtins for a consumer that does not know them
//! would leave unresolved calls.
//!
//! Why correct: the variables hold, at every point of every execution, exactly the fields of
//! the payload (each builtin that changes a field stores it; nothing else writes the
//! variables, which are new), so each native op gets the surface, shape and coordinate the
//! payload operation denotes (`spvopt_analysis::block_payload`). The payload is uniform, so
//! are the values stored; the ops run where the calls ran, with the whole subgroup.

use std::collections::HashMap;

use spirv::{Capability, Op, StorageClass};
use spvopt_analysis::block_io::BlockKind;
use spvopt_analysis::block_payload::{lsc_load_cache_levels, PayloadBuiltin, PayloadField};
use spvopt_analysis::{Analyses, AnalysisSet, Target};
use spvopt_ir::{DefUse, Id, Inst, InstId, Interner, Module, Section};

use crate::builtin_mangling::{block_opcode, extra_block_capability, EXT_2D_BLOCK_IO};
use crate::diagnostic::{Diagnostic, Location};
use crate::edit::block_payload_imports::{
    emit, imported_payload_builtins, minus_or_plus_one, CACHE_CONTROL_LOAD,
};
use crate::edit::capabilities::{ensure_capability, ensure_extension};
use crate::pass::{Changes, Pass, PassError, PassResult, Statistics};

const PASS: &str = "lower-block-payloads";
const EXT_CACHE_CONTROLS: &str = "SPV_INTEL_cache_controls";
/// The variables of one payload, in [`PayloadField::ALL`] order.
type Vars = [Id; 6];

pub struct LowerBlockPayloads;

fn field_index(f: PayloadField) -> usize {
    PayloadField::ALL.iter().position(|&x| x == f).unwrap_or(0)
}

/// One call of a payload builtin.
struct Call {
    at: InstId,
    b: PayloadBuiltin,
}

fn error(m: &Module, at: InstId, msg: impl Into<String>) -> PassError {
    PassError::failed(
        PASS,
        vec![Diagnostic::error(Some(Location::of(m, at)), msg)],
    )
}

fn call_args(m: &Module, at: InstId) -> Vec<Id> {
    m.inst(at).operands()[1..]
        .iter()
        .filter_map(|&w| Id::new(w))
        .collect()
}

/// Checks every payload's uses (and that each access has its payload's block shape) and
/// returns, per call, the family it belongs to: the create its payload descends from through
/// copies.
fn check(
    m: &Module,
    calls: &[Call],
    by_inst: &HashMap<InstId, usize>,
    du: &DefUse,
) -> Result<Vec<Id>, PassError> {
    let mut shapes: HashMap<Id, [u32; 3]> = HashMap::new();
    // Per payload, the create it descends from (through copies): one family, lowered together.
    let mut roots: HashMap<Id, Id> = HashMap::new();
    let mut family = Vec::with_capacity(calls.len());
    // Calls are in module order and a payload's definition dominates its uses, so a copy's
    // source is seen before the copy.
    for c in calls {
        let args = call_args(m, c.at);
        if args.len() != c.b.arg_count() {
            return Err(error(
                m,
                c.at,
                format!("{}: expected {} arguments", c.b.name(), c.b.arg_count()),
            ));
        }
        let src_shape = |k: usize| -> Result<[u32; 3], PassError> {
            shapes.get(&args[k]).copied().ok_or_else(|| {
                error(
                    m,
                    c.at,
                    "the payload argument is not the result of a createBlock2DAddressPayload \
                     or copyBlock2DAddressPayload call",
                )
            })
        };
        let shape = match c.b {
            PayloadBuiltin::Create => {
                let s: Option<Vec<u32>> = args[6..9]
                    .iter()
                    .map(|&v| m.const_int_value(v).and_then(|x| u32::try_from(x).ok()))
                    .collect();
                let s =
                    s.ok_or_else(|| error(m, c.at, "the payload's block shape is not constant"))?;
                Some([s[0], s[1], s[2]])
            }
            PayloadBuiltin::Copy => Some(src_shape(0)?),
            PayloadBuiltin::Set(_) | PayloadBuiltin::Add(_) => {
                src_shape(0)?;
                None
            }
            PayloadBuiltin::Access(a) => {
                let s = src_shape(0)?;
                if s != [a.width, a.height, a.count] {
                    return Err(error(
                        m,
                        c.at,
                        format!(
                            "the payload was created for blocks {}x{}x{}, the call is for {}x{}x{}",
                            s[0], s[1], s[2], a.width, a.height, a.count
                        ),
                    ));
                }
                let cache = if a.kind == BlockKind::Store {
                    args[4]
                } else {
                    args[3]
                };
                if m.const_int_value(cache)
                    .and_then(|v| lsc_load_cache_levels(v as u32))
                    .is_none()
                {
                    return Err(error(
                        m,
                        c.at,
                        "the cache controls are not a known constant",
                    ));
                }
                None
            }
        };
        let r = m
            .inst(c.at)
            .result_id()
            .ok_or_else(|| error(m, c.at, "no result"))?;
        let root = match c.b {
            PayloadBuiltin::Create => r,
            _ => roots
                .get(&args[0])
                .copied()
                .ok_or_else(|| error(m, c.at, "the payload argument is no payload"))?,
        };
        family.push(root);
        if let Some(s) = shape {
            roots.insert(r, root);
            // Names and decorations of the payload go with it; every use in a function body
            // must be a payload builtin's first argument.
            for &u in du.users(r).iter().filter(|&&u| m.inst_block(u).is_some()) {
                let ok = by_inst.get(&u).is_some_and(|&k| {
                    let ua = call_args(m, calls[k].at);
                    ua.first() == Some(&r) && !ua[1..].contains(&r)
                });
                if !ok {
                    return Err(error(
                        m,
                        u,
                        "a payload is used other than as the first argument of a payload builtin",
                    ));
                }
            }
            shapes.insert(r, s);
        }
    }
    Ok(family)
}

struct Lowering {
    types: Interner,
    vars: HashMap<Id, Vars>,
}

impl Lowering {
    /// A new Function variable of type `ty` at the start of the entry block of the function
    /// holding `at`.
    fn variable(&mut self, m: &mut Module, at: InstId, ty: Id) -> Option<Id> {
        let func = m.block(m.inst_block(at)?).func;
        let ptr = self.types.pointer(m, StorageClass::Function, ty);
        let var = m.fresh_id();
        let inst = Inst::new(
            Op::Variable,
            Some(ptr),
            Some(var),
            &[StorageClass::Function as u32],
        );
        let entry = *m.function(func).blocks.first()?;
        match m.block_insts(entry).find(|&i| !m.inst(i).is(Op::Variable)) {
            Some(i) => m.insert_before(i, inst),
            None => m.append_inst(entry, inst),
        };
        Some(var)
    }

    fn new_payload(&mut self, m: &mut Module, at: InstId, base_ty: Id) -> Option<Vars> {
        let u32_ty = self.types.int(m, 32);
        let mut v = [self.variable(m, at, base_ty)?; 6];
        for slot in v.iter_mut().skip(1) {
            *slot = self.variable(m, at, u32_ty)?;
        }
        Some(v)
    }

    fn load(&mut self, m: &mut Module, at: InstId, var: Id) -> Id {
        let ty = m
            .def_inst(var)
            .and_then(|d| d.result_type())
            .and_then(|p| m.def_inst(p))
            .and_then(|p| p.operand_id(1));
        let ty = ty.unwrap_or_else(|| self.types.int(m, 32));
        emit(m, at, Op::Load, ty, &[var.word()])
    }

    fn store(m: &mut Module, at: InstId, var: Id, v: Id) {
        m.insert_before(
            at,
            Inst::new(Op::Store, None, None, &[var.word(), v.word()]),
        );
    }

    fn lower(&mut self, m: &mut Module, c: &Call) -> Option<()> {
        let args = call_args(m, c.at);
        let at = c.at;
        let res = m.inst(at).result_id()?;
        let ret_ty = m.inst(at).result_type()?;
        match c.b {
            PayloadBuiltin::Create => {
                let base_ty = m.type_of(args[0])?;
                let v = self.new_payload(m, at, base_ty)?;
                for (k, &var) in v.iter().enumerate() {
                    Self::store(m, at, var, args[k]);
                }
                self.vars.insert(res, v);
            }
            PayloadBuiltin::Copy => {
                let src = self.vars.get(&args[0]).copied()?;
                let base_ty = m
                    .type_of(src[0])
                    .and_then(|p| m.def_inst(p)?.operand_id(1))?;
                let v = self.new_payload(m, at, base_ty)?;
                for k in 0..6 {
                    let x = self.load(m, at, src[k]);
                    Self::store(m, at, v[k], x);
                }
                self.vars.insert(res, v);
            }
            PayloadBuiltin::Set(f) => {
                let var = self.vars.get(&args[0])?[field_index(f)];
                Self::store(m, at, var, args[1]);
            }
            PayloadBuiltin::Add(f) => {
                let var = self.vars.get(&args[0])?[field_index(f)];
                let old = self.load(m, at, var);
                let ty = m.type_of(old)?;
                let new = emit(m, at, Op::IAdd, ty, &[old.word(), args[1].word()]);
                Self::store(m, at, var, new);
            }
            PayloadBuiltin::Access(a) => {
                let v = self.vars.get(&args[0]).copied()?;
                let f: Vec<Id> = v.iter().map(|&var| self.load(m, at, var)).collect();
                let u32_ty = self.types.int(m, 32);
                let u8_ty = self.types.int(m, 8);
                let ptr_ty = self.types.pointer(m, StorageClass::CrossWorkgroup, u8_ty);
                let base = emit(m, at, Op::ConvertUToPtr, ptr_ty, &[f[0].word()]);
                let (cache, value) = if a.kind == BlockKind::Store {
                    (args[4], Some(args[3]))
                } else {
                    (args[3], None)
                };
                let levels = lsc_load_cache_levels(m.const_int_value(cache)? as u32)?;
                if let Some((l1, l3)) = levels {
                    // L3 Cached is the default and left implicit, as insert-prefetches does
                    // (spirv-val takes one CacheControlLoadINTEL per id).
                    let l3 = (l3 != 1).then_some((1, l3));
                    for (level, control) in std::iter::once((0, l1)).chain(l3) {
                        m.push_to_section(
                            Section::Annotation,
                            Inst::new(
                                Op::Decorate,
                                None,
                                None,
                                &[base.word(), CACHE_CONTROL_LOAD, level, control],
                            ),
                        );
                    }
                    ensure_capability(m, Capability::CacheControlsINTEL);
                    ensure_extension(m, EXT_CACHE_CONTROLS);
                }
                let w = minus_or_plus_one(m, &mut self.types, at, f[1], true);
                let h = minus_or_plus_one(m, &mut self.types, at, f[2], true);
                let p = minus_or_plus_one(m, &mut self.types, at, f[3], true);
                let x = emit(m, at, Op::IAdd, u32_ty, &[f[4].word(), args[1].word()]);
                let y = emit(m, at, Op::IAdd, u32_ty, &[f[5].word(), args[2].word()]);
                let v2 = self.types.vector(m, u32_ty, 2);
                let coord = emit(m, at, Op::CompositeConstruct, v2, &[x.word(), y.word()]);
                let shape = [a.element_bits / 8, a.width, a.height, a.count]
                    .map(|s| self.types.u32_const(m, s).word());
                let surface = [base.word(), w.word(), h.word(), p.word(), coord.word()];
                let op = block_opcode(a.kind);
                let mut words: Vec<u32> = shape.to_vec();
                match a.kind {
                    BlockKind::Prefetch => words.extend(surface),
                    BlockKind::Store => {
                        let ty = m.type_of(value?)?;
                        let var = self.variable(m, at, ty)?;
                        Self::store(m, at, var, value?);
                        words.push(var.word());
                        words.extend(surface);
                    }
                    _ => {
                        let var = self.variable(m, at, ret_ty)?;
                        words.extend(surface);
                        words.push(var.word());
                        m.insert_before(at, Inst::new(op, None, None, &words));
                        // The data, into the call's own result id.
                        m.replace_inst(
                            at,
                            Inst::new(Op::Load, Some(ret_ty), Some(res), &[var.word()]),
                        );
                        self.capabilities(m, a.kind);
                        return Some(());
                    }
                }
                m.insert_before(at, Inst::new(op, None, None, &words));
                self.capabilities(m, a.kind);
            }
        }
        m.erase(at);
        Some(())
    }

    fn capabilities(&mut self, m: &mut Module, kind: BlockKind) {
        ensure_capability(m, Capability::Subgroup2DBlockIOINTEL);
        if let Some(c) = extra_block_capability(kind) {
            ensure_capability(m, c);
        }
        ensure_capability(m, Capability::Int8);
        ensure_extension(m, EXT_2D_BLOCK_IO);
    }
}

/// Removes the imported functions in `fns` with their decorations and names.
fn remove_declarations(m: &mut Module, fns: &[Id]) -> u64 {
    let mut gone: Vec<Id> = Vec::new();
    let mut idx: Vec<usize> = Vec::new();
    for (k, f) in m.function_ids().enumerate() {
        let func = m.function(f);
        let Some(r) = m.inst(func.def).result_id() else {
            continue;
        };
        if func.blocks.is_empty() && fns.contains(&r) {
            idx.push(k);
            gone.push(r);
            gone.extend(func.header.iter().filter_map(|&p| m.inst(p).result_id()));
        }
    }
    for &k in idx.iter().rev() {
        let f = m.function_ids().nth(k);
        if let Some(f) = f {
            m.remove_function(f);
        }
    }
    for s in [Section::Annotation, Section::Debug] {
        m.retain_section(s, |m, i| {
            let inst = m.inst(i);
            !(matches!(inst.op(), Some(Op::Decorate | Op::Name))
                && inst.operand_id(0).is_some_and(|t| gone.contains(&t)))
        });
    }
    idx.len() as u64
}

impl Pass for LowerBlockPayloads {
    fn name(&self) -> &'static str {
        PASS
    }

    fn run(
        &mut self,
        m: &mut Module,
        analyses: &mut Analyses,
        _: &Target,
        changes: &mut Changes,
    ) -> Result<PassResult, PassError> {
        let mut stats = Statistics::default();
        let imports = imported_payload_builtins(m);
        if imports.is_empty() {
            return Ok(PassResult::unchanged(stats));
        }
        let by_fn: HashMap<Id, PayloadBuiltin> = imports.iter().map(|(f, b, _)| (*f, *b)).collect();
        let mut calls = Vec::new();
        for f in m.function_ids() {
            for &b in &m.function(f).blocks {
                for i in m.block_insts(b) {
                    let inst = m.inst(i);
                    if inst.is(Op::FunctionCall) {
                        if let Some(&b) = inst.operand_id(0).and_then(|c| by_fn.get(&c)) {
                            calls.push(Call { at: i, b });
                        }
                    }
                }
            }
        }
        if calls.is_empty() {
            // Unused declarations only: `dce` keeps imports; nothing to lower.
            return Ok(PassResult::unchanged(stats));
        }
        let by_inst: HashMap<InstId, usize> =
            calls.iter().enumerate().map(|(k, c)| (c.at, k)).collect();
        let du = analyses.get::<DefUse>(m);
        let family = check(m, &calls, &by_inst, &du)?;
        // One rewrite (`--max-changes`) is one family: a payload, its copies and every call on
        // them (a partly lowered family would read fields no variable holds).
        let mut allowed: HashMap<Id, bool> = HashMap::new();
        for &f in &family {
            allowed.entry(f).or_insert_with(|| changes.allow());
        }
        let mut lw = Lowering {
            types: Interner::default(),
            vars: HashMap::new(),
        };
        let mut kept_callees: Vec<Id> = Vec::new();
        for (c, f) in calls.iter().zip(&family) {
            if !allowed[f] {
                kept_callees.extend(m.inst(c.at).operand_id(0));
                stats.add("skipped_max_changes", 1);
                continue;
            }
            lw.lower(m, c)
                .ok_or_else(|| error(m, c.at, "cannot lower this payload builtin"))?;
            stats.add(
                match c.b {
                    PayloadBuiltin::Create | PayloadBuiltin::Copy => "payloads_lowered",
                    PayloadBuiltin::Set(_) | PayloadBuiltin::Add(_) => "updates_lowered",
                    PayloadBuiltin::Access(_) => "accesses_lowered",
                },
                1,
            );
        }
        if allowed.values().all(|&ok| !ok) {
            return Ok(PassResult::unchanged(stats));
        }
        let fns: Vec<Id> = imports
            .iter()
            .map(|(f, _, _)| *f)
            .filter(|f| !kept_callees.contains(f))
            .collect();
        stats.add("declarations_removed", remove_declarations(m, &fns));
        // Removed declarations renumber the functions: nothing is preserved.
        Ok(PassResult {
            changed: true,
            preserved: AnalysisSet::NONE,
            stats,
        })
    }
}
