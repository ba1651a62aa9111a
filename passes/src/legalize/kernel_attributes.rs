//! `SPV_INTEL_kernel_attributes` execution modes are dropped for targets that do not take them.
//!
//! What: on a target whose driver rejects the `KernelAttributesINTEL` capability (the `cpu`
//! profile: Intel's OpenCL CPU runtime fails the build with "requires unsupported capability
//! 5892"), the execution modes `MaxWorkgroupSizeINTEL`, `MaxWorkDimINTEL` and
//! `NoGlobalOffsetINTEL` (Triton emits the first) are removed; the capability and extension then
//! go with `legalize`'s capability step.
//! Why correct: these modes are promises the compiler may use for optimization (a bound on the
//! work-group size or dimensions, a zero global offset); the launch still honours them, and
//! without them the compiled kernel handles every launch the promises allowed.
//! Cost: one pass over the execution modes.

use spirv::{ExecutionMode, Op};
use spvopt_analysis::Target;
use spvopt_ir::{Module, Section};

use crate::pass::{Changes, Statistics};

const MODES: [ExecutionMode; 3] = [
    ExecutionMode::MaxWorkgroupSizeINTEL,
    ExecutionMode::MaxWorkDimINTEL,
    ExecutionMode::NoGlobalOffsetINTEL,
];

/// Drops the modes on targets without kernel attributes; counts `dropped_kernel_attributes`.
pub fn run(m: &mut Module, target: &Target, stats: &mut Statistics, changes: &mut Changes) {
    if target.features.kernel_attributes {
        return;
    }
    let mut dropped = 0u64;
    m.retain_section(Section::ExecutionMode, |m, i| {
        let inst = m.inst(i);
        let is_attribute = (inst.is(Op::ExecutionMode) || inst.is(Op::ExecutionModeId))
            && inst
                .operand_word(1)
                .is_some_and(|w| MODES.iter().any(|&x| x as u32 == w))
            && changes.allow();
        if is_attribute {
            dropped += 1;
        }
        !is_attribute
    });
    if dropped > 0 {
        stats.add("dropped_kernel_attributes", dropped);
    }
}
