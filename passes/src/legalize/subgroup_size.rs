//! Kernels that require a subgroup size the target lacks (`SubgroupSize 8` from
//! `intel_reqd_sub_group_size(8)` on pvc, bmg, lnl, ptl, cri, which dispatch 16 and 32 only).
//!
//! What: for each `OpEntryPoint Kernel` whose `OpExecutionMode … SubgroupSize N` names a size
//! not in the target's subgroup sizes, the kernel is re-declared with the target's smallest size
//! ≥ N (else its largest) when it is proven **size-agnostic**; otherwise it is an error located
//! at the execution mode, naming the entry point, the mode, the target and the first reason.
//! IGC rejects such a kernel outright ("required subgroup size 8, which is unsupported on this
//! platform"), so there is no legal output that keeps the size.
//!
//! The rule (conservative; every function reached from the kernel through `OpFunctionCall` is
//! looked at, whatever is not known to be size-agnostic refuses):
//! - no collective instruction (the grammar's Group / Non-Uniform classes, and every
//!   `OpSubgroup*` / `OpGroup*` opcode: shuffles, block reads/writes and prefetches, 2D block
//!   IO, MMA, reductions, broadcasts, ballots) unless its execution scope is the constant
//!   `Workgroup` (work-group collectives do not see the subgroups);
//! - no scope operand (execution or memory, e.g. of a barrier or an atomic) that is
//!   `Subgroup` or not a constant;
//! - no cooperative / joint matrix type or instruction (their layout is per subgroup);
//! - no use of a subgroup built-in variable (`SubgroupSize`, `SubgroupMaxSize`, `NumSubgroups`,
//!   `NumEnqueuedSubgroups`, `SubgroupId`, `SubgroupLocalInvocationId`, the `Subgroup*Mask`s)
//!   in a reached function: their values change with the size;
//! - no call to an imported function other than the size-agnostic OpenCL work-item queries and
//!   work-group barriers ([`AGNOSTIC_IMPORTS`]), no function-pointer call;
//! - the kernel has one `SubgroupSize` (an `OpExecutionMode`, not an `…Id`) and no
//!   `SubgroupsPerWorkgroup(Id)` (which ties the work-group size to the subgroup size).
//!
//! Why correct: a kernel none of whose instructions observes how invocations are grouped into
//! subgroups computes, in each invocation, a function of its own inputs, its work-item ids and
//! memory, synchronised only at work-group scope; grouping the same invocations into subgroups
//! of 16 instead of 8 changes none of these, so every execution of the re-declared kernel is an
//! execution the original allowed. (`SubgroupDispatch`, which the mode needs, stays declared.)
//! `--check-env` reports the same findings ([`check`]): the re-declarable ones and the errors.
//! One rewrite (`--max-changes`): one kernel's re-declaration.
//! Cost: nothing unless a kernel declares a size the target lacks; then one walk of the
//! functions that kernel reaches.

use std::collections::HashSet;

use spirv::{BuiltIn, ExecutionMode, ExecutionModel, Op};
use spvopt_analysis::builtins::{builtin_of_variable, debug_names, itanium_base_name, Callees};
use spvopt_analysis::decorations::Decorations;
use spvopt_analysis::Target;
use spvopt_ir::grammar::decode_string;
use spvopt_ir::opcode_class::{op_class, scope_operands, OpClass};
use spvopt_ir::{FuncId, Id, InstId, Module, Section};

use crate::diagnostic::Diagnostic;
use crate::pass::{Changes, Statistics};

/// Imported OpenCL functions whose results do not depend on the subgroup size (base names).
pub const AGNOSTIC_IMPORTS: &[&str] = &[
    "get_global_id",
    "get_local_id",
    "get_group_id",
    "get_num_groups",
    "get_local_size",
    "get_enqueued_local_size",
    "get_global_size",
    "get_global_offset",
    "get_work_dim",
    "get_global_linear_id",
    "get_local_linear_id",
    "barrier",
    "work_group_barrier",
];

const SUBGROUP_BUILTINS: &[BuiltIn] = &[
    BuiltIn::SubgroupSize,
    BuiltIn::SubgroupMaxSize,
    BuiltIn::NumSubgroups,
    BuiltIn::NumEnqueuedSubgroups,
    BuiltIn::SubgroupId,
    BuiltIn::SubgroupLocalInvocationId,
    BuiltIn::SubgroupEqMask,
    BuiltIn::SubgroupGeMask,
    BuiltIn::SubgroupGtMask,
    BuiltIn::SubgroupLeMask,
    BuiltIn::SubgroupLtMask,
];

const SCOPE_WORKGROUP: u32 = 2;

/// One kernel whose declared size the target lacks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    /// The entry point's name.
    pub kernel: String,
    /// The `OpExecutionMode … SubgroupSize N` instruction.
    pub mode: InstId,
    /// N.
    pub declared: u32,
    /// The size it is re-declared with (`Ok`), or why it cannot be (`Err`).
    pub outcome: Result<u32, SizeDependence>,
}

/// Why a kernel cannot be re-declared with another subgroup size: it may observe the size.
/// The text completes "the kernel cannot be re-declared because it …".
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SizeDependence {
    #[error(
        "declares SubgroupSize twice, through OpExecutionModeId, or with SubgroupsPerWorkgroup"
    )]
    UnusualModes,
    #[error("uses a cooperative or joint matrix type")]
    MatrixTypes,
    /// An instruction the kernel reaches (its opcode name and result id).
    #[error("{what} ({opcode}{})", .result.map(|r| format!(" %{}", r.word())).unwrap_or_default())]
    Inst {
        what: SizeObservation,
        opcode: String,
        result: Option<Id>,
    },
}

/// How an instruction may observe the subgroup size.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SizeObservation {
    #[error("uses a subgroup operation")]
    SubgroupOperation,
    #[error("uses Subgroup scope")]
    SubgroupScope,
    #[error("uses a scope that is not a constant")]
    NonConstantScope,
    #[error("uses a cooperative or joint matrix")]
    Matrix,
    #[error("calls through a function pointer")]
    FunctionPointer,
    /// A call of an import not known to be size-agnostic (its name).
    #[error("calls the imported function \"{0}\"")]
    ImportedCall(String),
    /// A read of a subgroup built-in variable.
    #[error("reads a subgroup built-in (%{})", .0.word())]
    SubgroupBuiltIn(Id),
}

/// The kernels of `m` whose `SubgroupSize` `target` lacks, each with its outcome. Does not
/// change the module.
pub fn findings(m: &Module, target: &Target) -> Vec<Finding> {
    let sizes = target.subgroup_sizes();
    if sizes.is_empty() {
        return Vec::new();
    }
    let modes: Vec<(InstId, Id, u32)> = m
        .section_insts(Section::ExecutionMode)
        .filter(|(_, i)| i.is(Op::ExecutionMode))
        .filter(|(_, i)| i.operand_word(1) == Some(ExecutionMode::SubgroupSize as u32))
        .filter_map(|(at, i)| Some((at, i.operand_id(0)?, i.operand_word(2)?)))
        .filter(|&(_, _, n)| !sizes.contains(&n))
        .collect();
    if modes.is_empty() {
        return Vec::new();
    }
    let ctx = Context::new(m);
    let mut out = Vec::new();
    for (at, f, n) in modes {
        let Some(kernel) = kernel_name(m, f) else {
            continue;
        };
        let outcome = match ctx.why_size_dependent(m, f) {
            Some(reason) => Err(reason),
            None => Ok(replacement(sizes, n)),
        };
        out.push(Finding {
            kernel,
            mode: at,
            declared: n,
            outcome,
        });
    }
    out
}

/// The size a size-agnostic kernel declaring `n` gets: the smallest of `sizes` ≥ n, else the
/// largest.
fn replacement(sizes: &[u32], n: u32) -> u32 {
    let above = sizes.iter().copied().filter(|&s| s >= n).min();
    above.unwrap_or_else(|| sizes.iter().copied().max().unwrap_or(n))
}

fn kernel_name(m: &Module, f: Id) -> Option<String> {
    m.section_insts(Section::EntryPoint)
        .filter(|(_, i)| i.operand_word(0) == Some(ExecutionModel::Kernel as u32))
        .find(|(_, i)| i.operand_id(1) == Some(f))
        .and_then(|(_, i)| i.operands().get(2..).and_then(decode_string))
        .map(str::to_string)
}

/// The error text of a finding that cannot be re-declared (`None` for one that can).
pub fn error_text(f: &Finding, target: &Target) -> Option<String> {
    let reason = f.outcome.as_ref().err()?;
    let list: Vec<String> = target.subgroup_sizes().iter().map(u32::to_string).collect();
    Some(format!(
        "kernel \"{}\": OpExecutionMode SubgroupSize {} is not supported by target {} (subgroup \
         sizes {}), and the kernel cannot be re-declared because it {reason}",
        f.kernel,
        f.declared,
        target.name,
        list.join(", ")
    ))
}

/// `--check-env`: every finding as a located error (re-declarable ones say so).
pub fn check(m: &Module, target: &Target) -> Vec<Diagnostic> {
    findings(m, target)
        .iter()
        .map(|f| {
            let text = error_text(f, target).unwrap_or_else(|| {
                format!(
                    "kernel \"{}\": OpExecutionMode SubgroupSize {} is not supported by target \
                     {}; the kernel is size-agnostic, legalize re-declares it SubgroupSize {}",
                    f.kernel,
                    f.declared,
                    target.name,
                    f.outcome.as_ref().copied().unwrap_or(f.declared)
                )
            });
            Diagnostic::error_at(m, f.mode, text)
        })
        .collect()
}

/// Re-declares the size-agnostic kernels (`subgroup_size_redeclared`); the others go to
/// `errors`.
pub fn run(
    m: &mut Module,
    target: &Target,
    stats: &mut Statistics,
    errors: &mut Vec<Diagnostic>,
    changes: &mut Changes,
) {
    for f in findings(m, target) {
        match f.outcome {
            Ok(size) => {
                if !changes.allow() {
                    break;
                }
                let mut words = m.inst(f.mode).operands().to_vec();
                words[2] = size;
                let inst = spvopt_ir::Inst::new(Op::ExecutionMode, None, None, &words);
                m.replace_inst(f.mode, inst);
                stats.add("subgroup_size_redeclared", 1);
            }
            Err(_) => {
                let text = error_text(&f, target).unwrap_or_default();
                errors.push(Diagnostic::error_at(m, f.mode, text));
            }
        }
    }
}

/// What the size-dependence rule needs of the module, computed once.
struct Context {
    subgroup_builtin_vars: HashSet<Id>,
    callees: Callees,
    /// Kernels with a second `SubgroupSize`, an `…Id` one, or `SubgroupsPerWorkgroup(Id)`.
    odd_modes: HashSet<Id>,
}

impl Context {
    fn new(m: &Module) -> Context {
        let dec = Decorations::build(m);
        let vars: Vec<Id> = m
            .section_insts(Section::Global)
            .filter(|(_, i)| i.is(Op::Variable))
            .filter_map(|(_, i)| i.result_id())
            .collect();
        let wanted: HashSet<Id> = vars.iter().copied().collect();
        let names = debug_names(m, &|id| wanted.contains(&id));
        let subgroup_builtin_vars = vars
            .into_iter()
            .filter(|&v| {
                builtin_of_variable(&dec, &names, v).is_some_and(|b| SUBGROUP_BUILTINS.contains(&b))
            })
            .collect();
        let mut seen = HashSet::new();
        let mut odd_modes = HashSet::new();
        for (_, i) in m.section_insts(Section::ExecutionMode) {
            let (Some(f), Some(mode)) = (i.operand_id(0), i.operand_word(1)) else {
                continue;
            };
            let size = mode == ExecutionMode::SubgroupSize as u32;
            let per_wg = mode == ExecutionMode::SubgroupsPerWorkgroup as u32
                || mode == ExecutionMode::SubgroupsPerWorkgroupId as u32;
            if per_wg || (size && (i.is(Op::ExecutionModeId) || !seen.insert(f))) {
                odd_modes.insert(f);
            }
        }
        Context {
            subgroup_builtin_vars,
            callees: Callees::build(m, &dec),
            odd_modes,
        }
    }

    /// Why the kernel whose function is `entry` may depend on its subgroup size (`None`: it
    /// is proven not to).
    fn why_size_dependent(&self, m: &Module, entry: Id) -> Option<SizeDependence> {
        if self.odd_modes.contains(&entry) {
            return Some(SizeDependence::UnusualModes);
        }
        let by_result = spvopt_analysis::builtins::function_by_result(m);
        let start = *by_result.get(&entry)?;
        let mut stack: Vec<FuncId> = vec![start];
        let mut visited: HashSet<FuncId> = HashSet::from([start]);
        while let Some(f) = stack.pop() {
            for &b in &m.function(f).blocks {
                for i in m.block_insts(b) {
                    if let Some(reason) = self.why_inst(m, i) {
                        return Some(reason);
                    }
                    let inst = m.inst(i);
                    if inst.is(Op::FunctionCall) {
                        let callee = inst.operand_id(0).and_then(|c| by_result.get(&c));
                        if let Some(&g) = callee {
                            if visited.insert(g) {
                                stack.push(g);
                            }
                        }
                    }
                }
            }
        }
        if self.uses_matrix_types(m) {
            return Some(SizeDependence::MatrixTypes);
        }
        None
    }

    /// Why instruction `i` may observe the subgroup size.
    fn why_inst(&self, m: &Module, i: InstId) -> Option<SizeDependence> {
        let inst = m.inst(i);
        let name = inst.name();
        let at = |what: SizeObservation| SizeDependence::Inst {
            what,
            opcode: name.to_string(),
            result: inst.result_id(),
        };
        let scopes = scope_operands(inst.opcode());
        let scope = |pos: Option<usize>| pos.map(|p| constant_u32(m, inst.operand_id(p)));
        let collective = inst
            .op()
            .is_some_and(|op| op_class(op).intersects(OpClass::COLLECTIVE))
            || name.starts_with("OpSubgroup")
            || name.starts_with("OpGroup");
        if collective && scope(scopes.execution) != Some(Some(SCOPE_WORKGROUP)) {
            return Some(at(SizeObservation::SubgroupOperation));
        }
        for pos in [scopes.execution, scopes.memory] {
            match scope(pos) {
                Some(Some(3)) => return Some(at(SizeObservation::SubgroupScope)),
                Some(None) => return Some(at(SizeObservation::NonConstantScope)),
                _ => {}
            }
        }
        if name.contains("CooperativeMatrix") || name.contains("JointMatrix") {
            return Some(at(SizeObservation::Matrix));
        }
        if name.contains("FunctionPointer") {
            return Some(at(SizeObservation::FunctionPointer));
        }
        if inst.is(Op::FunctionCall) {
            if let Some(c) = self.callees.of_call(inst) {
                if !AGNOSTIC_IMPORTS.contains(&itanium_base_name(&c.name)) {
                    return Some(at(SizeObservation::ImportedCall(c.name.clone())));
                }
            }
        }
        let mut builtin = None;
        m.for_each_used_id(i, |id| {
            if self.subgroup_builtin_vars.contains(&id) {
                builtin = Some(id);
            }
        });
        builtin.map(|v| at(SizeObservation::SubgroupBuiltIn(v)))
    }

    fn uses_matrix_types(&self, m: &Module) -> bool {
        m.section_insts(Section::Global).any(|(_, i)| {
            let n = i.name();
            n.contains("CooperativeMatrix") || n.contains("JointMatrix")
        })
    }
}

/// The value of a 32-bit integer `OpConstant`, `None` for anything else.
fn constant_u32(m: &Module, id: Option<Id>) -> Option<u32> {
    let def = m.def_inst(id?)?;
    if !def.is(Op::Constant) {
        return None;
    }
    def.operand_word(0)
}
