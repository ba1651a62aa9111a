//! The reductions `spv-ab reduce` tries: what each can remove or shrink in a candidate
//! ([`opportunities`]) and how a set of them is applied to a copy ([`apply`]).
//!
//! Each edit keeps the module well formed by construction where that is cheap (a removed
//! value's uses get a constant of its type or a parameter of the same pointer type; a folded
//! branch drops the phi entries of the edge it removes; a removed parameter changes the
//! function type and drops the launch's argument) and leaves the rest to the validity check
//! every candidate must pass: an edit that breaks a rule is simply not accepted. No edit
//! needs to preserve behaviour: the predicate decides whether the candidate still shows the
//! problem. Opportunities name instructions by arena index and ids of the candidate they were
//! listed on; a copy (`Module::clone`) keeps both, and an opportunity whose target is gone by
//! the time it is applied (an earlier one of the same chunk removed it) is skipped.

use serde_json::Value;
use spvopt_ir::spirv::Op;
use spvopt_ir::{FuncId, Id, Inst, InstId, Interner, Module, Section};

use super::inline::inline_call;
use super::state::{
    clean_up, entry_points, function_of, params, remove_phi_entries, scalar_value, successors,
    Candidate,
};

/// The kinds of reduction, in the order one round tries them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reduction {
    Launch,
    EntryPoints,
    Functions,
    Inline,
    Branches,
    Instructions,
    Operands,
    Parameters,
    Debug,
    Decorations,
    ExecutionModes,
    Capabilities,
    Constants,
    Buffers,
}

impl Reduction {
    pub const ALL: [Reduction; 14] = [
        Reduction::Launch,
        Reduction::EntryPoints,
        Reduction::Branches,
        Reduction::Inline,
        Reduction::Functions,
        Reduction::Instructions,
        Reduction::Operands,
        Reduction::Parameters,
        Reduction::Debug,
        Reduction::Decorations,
        Reduction::ExecutionModes,
        Reduction::Capabilities,
        Reduction::Constants,
        Reduction::Buffers,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Reduction::Launch => "launch size",
            Reduction::EntryPoints => "entry points",
            Reduction::Functions => "functions",
            Reduction::Inline => "inline calls",
            Reduction::Branches => "fold branches",
            Reduction::Instructions => "instructions",
            Reduction::Operands => "instructions replaced by an operand",
            Reduction::Parameters => "kernel parameters",
            Reduction::Debug => "debug info and names",
            Reduction::Decorations => "decorations",
            Reduction::ExecutionModes => "execution modes",
            Reduction::Capabilities => "capabilities and extensions",
            Reduction::Constants => "constants",
            Reduction::Buffers => "buffers and scalar arguments",
        }
    }
}

/// One thing a reduction can change.
#[derive(Clone, Debug)]
pub enum Opportunity {
    OneWorkGroup,
    HalveGroups(usize),
    HalveLocal(usize),
    /// Halve launch argument `arg`'s size (buffer, local) or value (integer scalar).
    HalveArg(usize),
    RemoveEntryPoint(InstId),
    /// Remove `Id` from the interface of entry point `InstId`.
    RemoveInterface(InstId, Id),
    RemoveFunction(Id),
    Inline(InstId),
    FoldBranch {
        terminator: InstId,
        keep: Id,
    },
    RemoveInst(InstId),
    /// Replace the uses of the instruction's result by its operand `Id` (same type), then
    /// remove it.
    Bypass(InstId, Id),
    RemoveParam(Id),
    StripDebug,
    RemoveGlobal(InstId),
    SetConstant {
        inst: InstId,
        words: Vec<u32>,
    },
}

/// What `kind` could change in `c` (`kernel`: the launched kernel's name, when there is a
/// launch), in the order they are tried.
pub fn opportunities(kind: Reduction, c: &Candidate, kernel: Option<&str>) -> Vec<Opportunity> {
    let m = &c.module;
    let body = || {
        m.function_ids()
            .flat_map(move |f| m.function(f).blocks.clone())
            .flat_map(move |b| m.block_insts(b).collect::<Vec<_>>())
    };
    match kind {
        Reduction::Launch => launch_sizes(c),
        Reduction::Buffers => (0..c.launch.as_ref().map_or(0, |l| l.args().len()))
            .filter(|&a| halved_arg(c.launch.as_ref().map(|l| &l.args()[a])).is_some())
            .map(Opportunity::HalveArg)
            .collect(),
        Reduction::EntryPoints => {
            let eps = entry_points(m);
            let mut v: Vec<Opportunity> = eps
                .iter()
                .filter(|(_, name, _)| kernel.is_none_or(|k| k != name))
                .map(|(i, _, _)| Opportunity::RemoveEntryPoint(*i))
                .collect();
            for (i, _, _) in eps {
                v.extend(
                    interface(m, i)
                        .into_iter()
                        .map(|id| Opportunity::RemoveInterface(i, id)),
                );
            }
            v
        }
        Reduction::Functions => {
            let eps: Vec<Id> = entry_points(m).into_iter().map(|e| e.2).collect();
            m.function_ids()
                .filter_map(|f| m.function_result(f))
                .filter(|r| !eps.contains(r))
                .map(Opportunity::RemoveFunction)
                .collect()
        }
        Reduction::Inline => body()
            .filter(|&i| {
                m.inst(i).is(Op::FunctionCall)
                    && m.inst(i)
                        .operand_id(0)
                        .and_then(|f| function_of(m, f))
                        .is_some_and(|f| !m.function(f).blocks.is_empty())
            })
            .map(Opportunity::Inline)
            .collect(),
        Reduction::Branches => {
            let mut out = Vec::new();
            for i in body() {
                let inst = m.inst(i);
                let b = m.inst_block(i).expect("a body instruction");
                if inst.is(Op::BranchConditional) || inst.is(Op::Switch) {
                    let mut targets = successors(m, b);
                    targets.dedup();
                    // The last target first: a loop's exit is usually the false edge.
                    for keep in targets.into_iter().rev() {
                        out.push(Opportunity::FoldBranch {
                            terminator: i,
                            keep,
                        });
                    }
                }
            }
            out
        }
        Reduction::Instructions => {
            let mut v: Vec<Opportunity> = body()
                .filter(|&i| removable(m.inst(i)))
                .map(Opportunity::RemoveInst)
                .collect();
            v.reverse(); // uses before their definitions: a removed use frees its operands
            v
        }
        Reduction::Operands => {
            let mut v = Vec::new();
            for i in body().collect::<Vec<_>>().into_iter().rev() {
                let inst = m.inst(i);
                if inst.is(Op::Phi) || !removable(inst) {
                    continue;
                }
                let Some(ty) = inst.result_type() else {
                    continue;
                };
                let mut seen = Vec::new();
                m.for_each_used_id(i, |id| {
                    if id != ty && m.type_of(id) == Some(ty) && !seen.contains(&id) {
                        seen.push(id);
                    }
                });
                v.extend(seen.into_iter().map(|id| Opportunity::Bypass(i, id)));
            }
            v
        }
        Reduction::Parameters => param_functions(c, kernel)
            .into_iter()
            .flat_map(|f| params(m, f))
            .filter_map(|p| m.inst(p).result_id())
            .map(Opportunity::RemoveParam)
            .collect(),
        Reduction::Debug => {
            let mut v = vec![Opportunity::StripDebug];
            // Module-level debug ext insts, users before what they use.
            v.extend(
                m.section(Section::Global)
                    .iter()
                    .rev()
                    .filter(|&&i| m.inst(i).is(Op::ExtInst))
                    .map(|&i| Opportunity::RemoveGlobal(i)),
            );
            v.extend(globals(m, Section::Debug));
            v
        }
        Reduction::Decorations => globals(m, Section::Annotation),
        Reduction::ExecutionModes => globals(m, Section::ExecutionMode),
        Reduction::Capabilities => {
            let mut v = globals(m, Section::Extension);
            v.extend(globals(m, Section::Capability));
            v
        }
        Reduction::Constants => constants(m),
    }
}

/// The functions whose parameters may go: the launched kernel when there is a launch (its
/// arguments go with them), else every function with a body that nothing calls.
fn param_functions(c: &Candidate, kernel: Option<&str>) -> Vec<FuncId> {
    let m = &c.module;
    let called: Vec<Id> = m
        .all_insts()
        .filter(|&i| m.inst(i).is(Op::FunctionCall))
        .filter_map(|i| m.inst(i).operand_id(0))
        .collect();
    let uncalled = |f: &FuncId| m.function_result(*f).is_some_and(|r| !called.contains(&r));
    if c.launch.is_some() {
        return c
            .kernel_function(kernel)
            .into_iter()
            .filter(uncalled)
            .collect();
    }
    m.function_ids()
        .filter(|&f| !m.function(f).blocks.is_empty())
        .filter(uncalled)
        .collect()
}

fn globals(m: &Module, s: Section) -> Vec<Opportunity> {
    m.section(s)
        .iter()
        .map(|&i| Opportunity::RemoveGlobal(i))
        .collect()
}

/// Function-body instructions an [`Opportunity::RemoveInst`] may take.
fn removable(inst: &Inst) -> bool {
    !matches!(
        inst.op(),
        Some(
            Op::Label
                | Op::Branch
                | Op::BranchConditional
                | Op::Switch
                | Op::Return
                | Op::ReturnValue
                | Op::Unreachable
                | Op::LoopMerge
                | Op::SelectionMerge
        )
    )
}

fn launch_sizes(c: &Candidate) -> Vec<Opportunity> {
    let Some(l) = &c.launch else {
        return Vec::new();
    };
    let (g, loc) = (l.sizes("global_size"), l.sizes("local_size"));
    let mut v = Vec::new();
    if g != loc {
        v.push(Opportunity::OneWorkGroup);
    }
    for d in 0..3 {
        if g[d] / loc[d].max(1) > 1 {
            v.push(Opportunity::HalveGroups(d));
        }
        if loc[d] > 1 && loc[d].is_multiple_of(2) {
            v.push(Opportunity::HalveLocal(d));
        }
    }
    v
}

/// The argument with its size or value halved, if it can be.
fn halved_arg(a: Option<&Value>) -> Option<Value> {
    let a = a?;
    for key in ["buffer_random", "buffer_zeros", "local"] {
        if let Some(n) = a.get(key).and_then(Value::as_u64) {
            if n < 16 {
                return None;
            }
            let mut out = a.clone();
            out[key] = Value::from(n / 2 / 8 * 8);
            return Some(out);
        }
    }
    let v = scalar_value(a)?;
    (v > 0).then(|| {
        let mut out = a.clone();
        out["value"] = Value::from(v / 2);
        out
    })
}

/// Integer constants above 1 shrink to 0, 1 and half; float constants to 0.
fn constants(m: &Module) -> Vec<Opportunity> {
    let mut v = Vec::new();
    for &i in m.section(Section::Global) {
        let inst = m.inst(i);
        if !inst.is(Op::Constant) {
            continue;
        }
        let Some(ty) = inst.result_type().and_then(|t| m.def_inst(t)) else {
            continue;
        };
        let words = inst.operands().to_vec();
        if words.iter().all(|&w| w == 0) {
            continue;
        }
        let zero = vec![0; words.len()];
        if ty.is(Op::TypeFloat) {
            v.push(Opportunity::SetConstant {
                inst: i,
                words: zero,
            });
            continue;
        }
        let value = words
            .iter()
            .rev()
            .fold(0u64, |acc, &w| (acc << 32) | u64::from(w));
        let as_words =
            |x: u64| -> Vec<u32> { (0..words.len()).map(|k| (x >> (32 * k)) as u32).collect() };
        let mut values = vec![0u64];
        if value > 1 {
            values.push(1);
            if value > 3 && value < (1 << 40) {
                values.push(value / 2);
            }
        }
        for x in values {
            v.push(Opportunity::SetConstant {
                inst: i,
                words: as_words(x),
            });
        }
    }
    v
}

/// A copy of `c` with `ops` applied and cleaned up (`None`: nothing applied).
pub fn apply(c: &Candidate, ops: &[Opportunity], kernel: Option<&str>) -> Option<Candidate> {
    let mut out = c.clone();
    let mut applied = false;
    let removals: Vec<(InstId, Option<Id>)> = ops
        .iter()
        .filter_map(|o| match o {
            Opportunity::RemoveInst(i) => Some((*i, None)),
            Opportunity::Bypass(i, v) => Some((*i, Some(*v))),
            _ => None,
        })
        .collect();
    if !removals.is_empty() {
        applied |= remove_insts(&mut out.module, &removals);
    }
    for op in ops {
        applied |= apply_one(&mut out, op, kernel);
    }
    if !applied {
        return None;
    }
    clean_up(&mut out.module);
    Some(out)
}

fn live(m: &Module, i: InstId) -> bool {
    m.inst_block(i).is_some()
}

fn apply_one(c: &mut Candidate, op: &Opportunity, kernel: Option<&str>) -> bool {
    let m = &mut c.module;
    match op {
        Opportunity::RemoveInst(_) | Opportunity::Bypass(..) => false, // done together, before
        Opportunity::RemoveInterface(e, id) => {
            let before = interface(m, *e);
            if !before.contains(id) {
                return false;
            }
            let inst = m.inst(*e);
            let keep = inst.words.len() - before.len();
            let mut words: Vec<u32> = inst.words[..keep].to_vec();
            words.extend(before.iter().filter(|&x| x != id).map(|x| x.word()));
            m.set_inst_words(*e, &words);
            true
        }
        Opportunity::OneWorkGroup | Opportunity::HalveGroups(_) | Opportunity::HalveLocal(_) => {
            let Some(l) = &mut c.launch else {
                return false;
            };
            let (mut g, mut loc) = (l.sizes("global_size"), l.sizes("local_size"));
            match *op {
                Opportunity::OneWorkGroup => g = loc,
                Opportunity::HalveGroups(d) => g[d] = loc[d] * (g[d] / loc[d].max(1) / 2).max(1),
                Opportunity::HalveLocal(d) if loc[d].is_multiple_of(2) => {
                    loc[d] /= 2;
                    g[d] = (g[d] / 2).max(loc[d]);
                }
                _ => return false,
            }
            l.set_sizes("global_size", g);
            l.set_sizes("local_size", loc);
            true
        }
        Opportunity::HalveArg(a) => {
            let Some(l) = &mut c.launch else {
                return false;
            };
            let Some(new) = halved_arg(l.args().get(*a)) else {
                return false;
            };
            match l.args_mut() {
                Some(args) => {
                    args[*a] = new;
                    true
                }
                None => false,
            }
        }
        Opportunity::RemoveEntryPoint(i) => {
            let before = m.section(Section::EntryPoint).len();
            m.retain_section(Section::EntryPoint, |_, x| x != *i);
            before != m.section(Section::EntryPoint).len()
        }
        Opportunity::RemoveFunction(id) => remove_function(m, *id),
        Opportunity::Inline(call) => live(m, *call) && inline_call(m, *call),
        Opportunity::FoldBranch { terminator, keep } => fold_branch(m, *terminator, *keep),
        Opportunity::RemoveParam(p) => remove_param(c, *p, kernel),
        Opportunity::StripDebug => {
            let before = m.instruction_count();
            let mut analyses = spvopt_analysis::Analyses::new();
            let _ = spvopt_passes::Pass::run(
                &mut spvopt_passes::strip_debug::StripDebug,
                m,
                &mut analyses,
                &spvopt_analysis::Target::default(),
                &mut spvopt_passes::Changes::unlimited(),
            );
            m.instruction_count() != before
        }
        Opportunity::RemoveGlobal(i) => {
            let Some(s) = Section::ALL.into_iter().find(|&s| m.section(s).contains(i)) else {
                return false;
            };
            let before = m.section(s).len();
            m.retain_section(s, |_, x| x != *i);
            before != m.section(s).len()
        }
        Opportunity::SetConstant { inst, words } => {
            let start = m.inst(*inst).operand_start();
            let inst = m.inst_mut(*inst);
            if inst.words.len() != start + words.len() {
                return false;
            }
            inst.words[start..].copy_from_slice(words);
            true
        }
    }
}

/// A value to use instead of `value` (of type `ty`) in function `f`: another parameter of the
/// same pointer type, else the type's null constant (`None` when the type has none).
fn stand_in(m: &mut Module, interner: &mut Interner, f: FuncId, value: Id, ty: Id) -> Option<Id> {
    let t = m.def_inst(ty)?;
    if t.is(Op::TypePointer) {
        let other = m.function(f).header.iter().find_map(|&p| {
            let inst = m.inst(p);
            let r = inst.result_id()?;
            (inst.is(Op::FunctionParameter) && inst.result_type() == Some(ty) && r != value)
                .then_some(r)
        });
        if other.is_some() {
            return other;
        }
    }
    let nullable = matches!(
        t.op(),
        Some(
            Op::TypeInt
                | Op::TypeFloat
                | Op::TypeBool
                | Op::TypeVector
                | Op::TypeArray
                | Op::TypeStruct
                | Op::TypePointer
                | Op::TypeEvent
        )
    );
    nullable.then(|| interner.null_const(m, ty))
}

/// The interface ids of entry point `e`.
fn interface(m: &Module, e: InstId) -> Vec<Id> {
    let ops = m.inst(e).operands();
    let name_words = spvopt_ir::grammar::decode_string(ops.get(2..).unwrap_or(&[]))
        .map_or(0, |s| s.len() / 4 + 1);
    ops.iter()
        .skip(2 + name_words)
        .filter_map(|&w| Id::new(w))
        .collect()
}

/// Removes the live instructions of `insts`; the uses of their results get the given
/// replacement (followed through the replacements of the same call) or a stand-in.
fn remove_insts(m: &mut Module, insts: &[(InstId, Option<Id>)]) -> bool {
    let mut interner = Interner::default();
    let mut map: std::collections::HashMap<Id, Id> = Default::default();
    let mut gone = Vec::new();
    for &(i, replacement) in insts {
        if !live(m, i) {
            continue;
        }
        let inst = m.inst(i);
        let (result, ty) = (inst.result_id(), inst.result_type());
        let f = m.block(m.inst_block(i).expect("live")).func;
        if let (Some(r), Some(v)) = (result, replacement) {
            map.insert(r, v);
        } else if let (Some(r), Some(ty)) = (result, ty) {
            match stand_in(m, &mut interner, f, r, ty) {
                Some(v) => {
                    map.insert(r, v);
                }
                None if !m.def_inst(ty).is_some_and(|t| t.is(Op::TypeVoid)) => continue,
                None => {}
            }
        }
        gone.push(i);
    }
    if gone.is_empty() {
        return false;
    }
    if !map.is_empty() {
        let resolve = |mut x: Id| {
            for _ in 0..=map.len() {
                match map.get(&x) {
                    Some(&y) => x = y,
                    None => break,
                }
            }
            x
        };
        for i in m.all_insts().collect::<Vec<_>>() {
            m.map_used_ids(i, resolve);
        }
    }
    for i in gone {
        m.erase(i);
    }
    true
}

/// Replaces a conditional branch or switch by a branch to `keep`.
fn fold_branch(m: &mut Module, terminator: InstId, keep: Id) -> bool {
    if !live(m, terminator) {
        return false;
    }
    let b = m.inst_block(terminator).expect("live");
    let targets = successors(m, b);
    if !targets.contains(&keep) || m.inst(terminator).is(Op::Branch) {
        return false;
    }
    if let Some(p) = m.prev_inst(terminator) {
        if m.inst(p).is(Op::SelectionMerge) {
            m.erase(p);
        }
    }
    m.insert_before(
        terminator,
        Inst::new(Op::Branch, None, None, &[keep.word()]),
    );
    m.erase(terminator);
    let f = m.block(b).func;
    let label = m.block_label(b);
    for t in targets.into_iter().filter(|&t| t != keep) {
        let tb = m
            .function(f)
            .blocks
            .iter()
            .copied()
            .find(|&x| m.block_label(x) == t);
        if let Some(tb) = tb {
            remove_phi_entries(m, tb, label);
        }
    }
    true
}

/// Removes a function that is not an entry point; its calls go (their results get null
/// constants).
fn remove_function(m: &mut Module, id: Id) -> bool {
    let Some(f) = function_of(m, id) else {
        return false;
    };
    let calls: Vec<InstId> = m
        .all_insts()
        .filter(|&i| m.inst(i).is(Op::FunctionCall) && m.inst(i).operand_id(0) == Some(id))
        .filter(|&i| m.inst_block(i).is_some_and(|b| m.block(b).func != f))
        .collect();
    let calls: Vec<(InstId, Option<Id>)> = calls.into_iter().map(|i| (i, None)).collect();
    if !calls.is_empty() && !remove_insts(m, &calls) {
        return false;
    }
    if m.all_insts().any(|i| {
        m.inst(i).is(Op::FunctionCall)
            && m.inst(i).operand_id(0) == Some(id)
            && m.inst_block(i).is_some_and(|b| m.block(b).func != f)
    }) {
        return false;
    }
    let f = function_of(m, id).expect("still there");
    m.remove_function(f);
    true
}

/// Removes parameter `p` of the launched kernel (or, without a launch, of an entry point
/// function nothing calls): its uses get a stand-in, the function type loses it, and so does
/// the launch.
fn remove_param(c: &mut Candidate, p: Id, kernel: Option<&str>) -> bool {
    let Some(&f) = param_functions(c, kernel).iter().find(|&&f| {
        c.module
            .function(f)
            .header
            .iter()
            .any(|&i| c.module.inst(i).result_id() == Some(p))
    }) else {
        return false;
    };
    let m = &mut c.module;
    let Some(k) = m
        .function(f)
        .header
        .iter()
        .position(|&i| m.inst(i).result_id() == Some(p))
    else {
        return false;
    };
    let inst_id = m.function(f).header[k];
    let index = m.function(f).header[..k]
        .iter()
        .filter(|&&i| m.inst(i).is(Op::FunctionParameter))
        .count();
    let Some(ty) = m.inst(inst_id).result_type() else {
        return false;
    };
    let mut interner = Interner::default();
    let launch_value = c
        .launch
        .as_ref()
        .and_then(|l| l.args().get(index))
        .and_then(|a| scalar_constant(m, &mut interner, ty, a));
    let Some(v) = launch_value.or_else(|| stand_in(m, &mut interner, f, p, ty)) else {
        return false;
    };
    m.replace_all_uses(p, v);
    m.functions[f.index()].header.remove(k);
    m.erase(inst_id);
    let def = m.function(f).def;
    let ret = m.inst(def).result_type();
    let params: Vec<Id> = params(m, f)
        .into_iter()
        .filter_map(|i| m.inst(i).result_type())
        .collect();
    let Some(ret) = ret else { return false };
    let fty = interner.function_type(m, ret, &params);
    if let Some(w) = m.inst_mut(def).operands_mut().get_mut(1) {
        *w = fty.word();
    }
    if let Some(l) = &mut c.launch {
        match l.args_mut() {
            Some(args) if index < args.len() => {
                args.remove(index);
            }
            _ => return false,
        }
    }
    if index < c.arg_origin.len() {
        c.arg_origin.remove(index);
    }
    true
}

/// The constant of type `ty` holding the value of a scalar launch argument `a` (a kernel
/// parameter passed by value becomes the constant it was launched with).
fn scalar_constant(m: &mut Module, interner: &mut Interner, ty: Id, a: &Value) -> Option<Id> {
    let t = m.def_inst(ty)?;
    let bits = t.operand_word(0)? as usize;
    if !(t.is(Op::TypeInt) || t.is(Op::TypeFloat)) || !bits.is_multiple_of(32) {
        return None;
    }
    let bytes =
        spvopt_sim::launch::scalar_bytes(a.get("scalar")?.as_str()?, a.get("value")?).ok()?;
    if bytes.len() * 8 != bits {
        return None;
    }
    let words: Vec<u32> = bytes
        .chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    Some(interner.intern(m, Op::Constant, Some(ty), &words))
}

/// A short description of `op` on `m` for the log.
pub fn describe(m: &Module, op: &Opportunity) -> String {
    let inst_text = |i: InstId| {
        let inst = m.inst(i);
        match inst.result_id() {
            Some(r) => format!("%{} = {}", r.word(), inst.name()),
            None => match inst.operand_id(0) {
                Some(a) if !inst.is(Op::Capability) => format!("{} %{}", inst.name(), a.word()),
                _ => inst.name().into_owned(),
            },
        }
    };
    match op {
        Opportunity::OneWorkGroup => "launch: one work-group".into(),
        Opportunity::HalveGroups(d) => format!("launch: half the work-groups in dimension {d}"),
        Opportunity::HalveLocal(d) => format!("launch: half the local size in dimension {d}"),
        Opportunity::HalveArg(a) => format!("launch: argument {a} halved"),
        Opportunity::RemoveEntryPoint(i) => {
            let name = entry_points(m).into_iter().find(|e| e.0 == *i).map(|e| e.1);
            format!("entry point \"{}\"", name.unwrap_or_default())
        }
        Opportunity::RemoveFunction(id) => format!("function %{}", id.word()),
        Opportunity::Inline(i) => format!("inlined call {}", inst_text(*i)),
        Opportunity::FoldBranch { terminator, keep } => {
            format!("{} folded to %{}", inst_text(*terminator), keep.word())
        }
        Opportunity::RemoveInst(i) => inst_text(*i),
        Opportunity::Bypass(i, v) => format!("{} (by %{})", inst_text(*i), v.word()),
        Opportunity::RemoveInterface(_, id) => format!("interface %{}", id.word()),
        Opportunity::RemoveParam(p) => format!("parameter %{}", p.word()),
        Opportunity::StripDebug => "all debug info".into(),
        Opportunity::RemoveGlobal(i) => inst_text(*i),
        Opportunity::SetConstant { inst, words } => {
            format!("{} set to {:?}", inst_text(*inst), words)
        }
    }
}
