//! `declare-subgroup-size`: gives every kernel that declares no subgroup size the
//! `OpExecutionMode %kernel SubgroupSize N` of the `subgroup-size=N` option.
//!
//! What: for each `OpEntryPoint Kernel` without a `SubgroupSize` execution mode, one
//! `OpExecutionMode … SubgroupSize N`; `OpCapability SubgroupDispatch` (which the mode requires)
//! when it is missing, and the SPIR-V version raised to 1.1 (where that capability starts) when
//! it is below. Kernels that declare a size keep theirs (even a different one: counted as
//! `kernels_keeping_their_size`). Without the option the pass changes nothing (so running every
//! registered pass alone stays meaningful); the CLIs' `--subgroup-size N` puts it first in the
//! pipeline with the option set.
//! When: input whose subgroup size is chosen at dispatch (OpenCL C without
//! `intel_reqd_sub_group_size`, hand-written cooperative-matrix kernels) for passes that need
//! one: `convert-tensor-addressing` maps Subgroup-scope cooperative matrices onto invocations
//! and fails without it; `legalize`, `lower-mma` and `fuse-block-loads` decide more with it.
//! N must be one of `--target`'s subgroup sizes (an error otherwise).
//! One rewrite (`--max-changes`): the declaration on one kernel, in entry-point order.
//! Why correct: a kernel without `SubgroupSize` may be dispatched with any size the device
//! supports; declaring one of those sizes picks one of the executions the module already
//! allowed, and every later pass then compiles for that size, which the output pins.

use spirv::{Capability, ExecutionMode, ExecutionModel, Op};
use spvopt_analysis::{Analyses, AnalysisSet, Target};
use spvopt_ir::{Id, Inst, Module, Section};

use crate::edit::capabilities::ensure_capability;
use crate::pass::{Changes, Pass, PassError, PassOptions, PassResult, Statistics};

/// The option's key (also the CLIs' `--subgroup-size N`).
pub const OPTION: &str = "subgroup-size";

/// SPIR-V 1.1, where `SubgroupDispatch` (and so `SubgroupSize`) starts.
const VERSION_1_1: u32 = 0x0001_0100;

pub struct DeclareSubgroupSize {
    size: Option<u32>,
}

impl DeclareSubgroupSize {
    /// From the pass options: `subgroup-size=N` (N a power of two from 1 to 128), or `none`.
    pub fn from_options(opts: &PassOptions) -> Result<DeclareSubgroupSize, PassError> {
        let mut size = None;
        for (k, v) in opts {
            if k != OPTION {
                return Err(PassError::BadOption {
                    pass: "declare-subgroup-size".into(),
                    option: k.clone(),
                    message: "unknown option".into(),
                });
            }
            size = match v.as_str() {
                "none" | "" => None,
                v => Some(
                    v.parse::<u32>()
                        .ok()
                        .filter(|n| n.is_power_of_two() && *n <= 128)
                        .ok_or_else(|| PassError::BadOption {
                            pass: "declare-subgroup-size".into(),
                            option: OPTION.into(),
                            message: format!("expected a power of two from 1 to 128, got \"{v}\""),
                        })?,
                ),
            };
        }
        Ok(DeclareSubgroupSize { size })
    }
}

/// The functions of the `Kernel` entry points, in entry-point order, with whether each
/// declares a `SubgroupSize` already.
fn kernels(m: &Module) -> Vec<(Id, bool)> {
    let declared: Vec<Id> = m
        .section_insts(Section::ExecutionMode)
        .filter(|(_, i)| i.operand_word(1) == Some(ExecutionMode::SubgroupSize as u32))
        .filter_map(|(_, i)| i.operand_id(0))
        .collect();
    let mut out: Vec<(Id, bool)> = Vec::new();
    for (_, i) in m.section_insts(Section::EntryPoint) {
        if i.operand_word(0) != Some(ExecutionModel::Kernel as u32) {
            continue;
        }
        if let Some(f) = i.operand_id(1) {
            if !out.iter().any(|&(g, _)| g == f) {
                out.push((f, declared.contains(&f)));
            }
        }
    }
    out
}

impl Pass for DeclareSubgroupSize {
    fn name(&self) -> &'static str {
        "declare-subgroup-size"
    }

    fn run(
        &mut self,
        m: &mut Module,
        _: &mut Analyses,
        target: &Target,
        changes: &mut Changes,
    ) -> Result<PassResult, PassError> {
        let mut stats = Statistics::default();
        let Some(n) = self.size else {
            return Ok(PassResult::unchanged(stats));
        };
        let sizes = target.subgroup_sizes();
        if !sizes.contains(&n) {
            let list: Vec<String> = sizes.iter().map(u32::to_string).collect();
            return Err(PassError::failed_because(
                "declare-subgroup-size",
                format!(
                    "subgroup size {n} is not one of target {}'s ({})",
                    target.name,
                    list.join(", ")
                ),
            ));
        }
        for (f, has_size) in kernels(m) {
            if has_size {
                stats.add("kernels_keeping_their_size", 1);
                continue;
            }
            if !changes.allow() {
                break;
            }
            m.push_to_section(
                Section::ExecutionMode,
                Inst::new(
                    Op::ExecutionMode,
                    None,
                    None,
                    &[f.word(), ExecutionMode::SubgroupSize as u32, n],
                ),
            );
            stats.add("kernels_declared", 1);
        }
        let changed = stats.get("kernels_declared") > 0;
        if changed {
            if ensure_capability(m, Capability::SubgroupDispatch) {
                stats.add("capabilities_added", 1);
            }
            if m.header.version < VERSION_1_1 {
                m.header.version = VERSION_1_1;
                stats.add("version_raised_to_1_1", 1);
            }
        }
        Ok(PassResult {
            changed,
            preserved: AnalysisSet::CFG | AnalysisSet::DOMINATORS | AnalysisSet::LOOPS,
            stats,
        })
    }
}
