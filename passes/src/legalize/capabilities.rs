//! Declares exactly the capabilities and extensions the module uses (for the ones this pass
//! can decide).
//!
//! What: for the *managed* capabilities — Int8/Int16/Int64/Float64 (integer/float types of
//! that width), Vector16 (8- or 16-component vectors), VectorAnyINTEL (other component counts
//! above 4), Subgroup2DBlockIOINTEL / …TransformINTEL / …TransposeINTEL (the 2D block ops),
//! SubgroupMatrixMultiplyAccumulateINTEL, SubgroupBufferPrefetchINTEL,
//! BFloat16ConversionINTEL, CacheControlsINTEL (cache-control decorations) and Linkage
//! (LinkageAttributes or body-less functions) — a missing one is added and an unused one is
//! removed. Float16 (when neither Float16 nor Float16Buffer covers a 16-bit float type),
//! SubgroupDispatch (SubgroupSize execution mode) and KernelAttributesINTEL (its execution
//! modes) are only added. Every other capability is left as declared: without a per-operand
//! capability table we cannot prove it unused. The managed extensions
//! (SPV_INTEL_2d_block_io, …_subgroup_matrix_multiply_accumulate, …_subgroup_buffer_prefetch,
//! …_cache_controls, …_vector_compute, …_bfloat16_conversion, …_kernel_attributes) are
//! declared exactly when one of the capabilities they provide is.
//! The SPIR-V version is left as is: nothing this pass adds needs a newer one.
//! Why correct: capabilities and extensions only declare what the module uses; each managed
//! one is derived from the instructions, types, decorations and execution modes that need it.
//! Cost: one walk over the module.

use spirv::{Capability as C, Op};
use spvopt_ir::grammar::{decode_string, encode_string};
use spvopt_ir::{Inst, Module, Section};

use crate::pass::Statistics;

/// Capabilities added and removed to match use.
const EXACT: &[u32] = &[
    C::Int8 as u32,
    C::Int16 as u32,
    C::Int64 as u32,
    C::Float64 as u32,
    C::Vector16 as u32,
    C::VectorAnyINTEL as u32,
    C::Subgroup2DBlockIOINTEL as u32,
    C::Subgroup2DBlockTransformINTEL as u32,
    C::Subgroup2DBlockTransposeINTEL as u32,
    C::SubgroupMatrixMultiplyAccumulateINTEL as u32,
    C::SubgroupBufferPrefetchINTEL as u32,
    C::BFloat16ConversionINTEL as u32,
    C::CacheControlsINTEL as u32,
    C::Linkage as u32,
];

/// Managed extensions and the capabilities that need them.
const EXTENSIONS: &[(&str, &[u32])] = &[
    (
        "SPV_INTEL_2d_block_io",
        &[
            C::Subgroup2DBlockIOINTEL as u32,
            C::Subgroup2DBlockTransformINTEL as u32,
            C::Subgroup2DBlockTransposeINTEL as u32,
        ],
    ),
    (
        "SPV_INTEL_subgroup_matrix_multiply_accumulate",
        &[C::SubgroupMatrixMultiplyAccumulateINTEL as u32],
    ),
    (
        "SPV_INTEL_subgroup_buffer_prefetch",
        &[C::SubgroupBufferPrefetchINTEL as u32],
    ),
    ("SPV_INTEL_cache_controls", &[C::CacheControlsINTEL as u32]),
    (
        "SPV_INTEL_vector_compute",
        &[C::VectorComputeINTEL as u32, C::VectorAnyINTEL as u32],
    ),
    (
        "SPV_INTEL_bfloat16_conversion",
        &[C::BFloat16ConversionINTEL as u32],
    ),
    (
        "SPV_INTEL_kernel_attributes",
        &[
            C::KernelAttributesINTEL as u32,
            C::FPGAKernelAttributesINTEL as u32,
            C::FPGAKernelAttributesv2INTEL as u32,
        ],
    ),
];

/// What the module uses, as capability numbers, plus the add-only ones.
fn used_capabilities(m: &Module, declared: &[u32]) -> (Vec<u32>, Vec<u32>) {
    let mut used: Vec<u32> = Vec::new();
    let mut add_only: Vec<u32> = Vec::new();
    let use_cap = |v: &mut Vec<u32>, c: C| {
        if !v.contains(&(c as u32)) {
            v.push(c as u32);
        }
    };
    let mut float16 = false;
    for (_, inst) in m.section_insts(Section::Global) {
        match inst.op() {
            Some(Op::TypeInt) => match inst.operand_word(0) {
                Some(8) => use_cap(&mut used, C::Int8),
                Some(16) => use_cap(&mut used, C::Int16),
                Some(64) => use_cap(&mut used, C::Int64),
                _ => {}
            },
            Some(Op::TypeFloat) => match inst.operand_word(0) {
                Some(16) => float16 = true,
                Some(64) => use_cap(&mut used, C::Float64),
                _ => {}
            },
            Some(Op::TypeVector) => match inst.operand_word(1) {
                Some(8 | 16) => use_cap(&mut used, C::Vector16),
                Some(2..=4) => {}
                Some(_) => use_cap(&mut used, C::VectorAnyINTEL),
                _ => {}
            },
            _ => {}
        }
    }
    if float16
        && !declared.contains(&(C::Float16 as u32))
        && !declared.contains(&(C::Float16Buffer as u32))
    {
        use_cap(&mut add_only, C::Float16);
    }
    for (_, inst) in m.section_insts(Section::Annotation) {
        let deco = if inst.is(Op::Decorate) || inst.is(Op::DecorateId) {
            inst.operand_word(1)
        } else if inst.is(Op::MemberDecorate) {
            inst.operand_word(2)
        } else {
            None
        };
        match deco {
            Some(d) if d == spirv::Decoration::LinkageAttributes as u32 => {
                use_cap(&mut used, C::Linkage)
            }
            Some(d)
                if d == spirv::Decoration::CacheControlLoadINTEL as u32
                    || d == spirv::Decoration::CacheControlStoreINTEL as u32 =>
            {
                use_cap(&mut used, C::CacheControlsINTEL)
            }
            _ => {}
        }
    }
    for (_, inst) in m.section_insts(Section::ExecutionMode) {
        let mode = inst.operand_word(1);
        use spirv::ExecutionMode as E;
        match mode {
            Some(x) if x == E::SubgroupSize as u32 => use_cap(&mut add_only, C::SubgroupDispatch),
            Some(x)
                if x == E::MaxWorkgroupSizeINTEL as u32
                    || x == E::MaxWorkDimINTEL as u32
                    || x == E::NoGlobalOffsetINTEL as u32
                    || x == E::NumSIMDWorkitemsINTEL as u32 =>
            {
                use_cap(&mut add_only, C::KernelAttributesINTEL)
            }
            _ => {}
        }
    }
    for f in m.function_ids() {
        let func = m.function(f);
        if func.blocks.is_empty() {
            use_cap(&mut used, C::Linkage);
        }
        for &b in &func.blocks {
            for i in m.block_insts(b) {
                match m.inst(i).op() {
                    Some(Op::Subgroup2DBlockLoadINTEL)
                    | Some(Op::Subgroup2DBlockPrefetchINTEL)
                    | Some(Op::Subgroup2DBlockStoreINTEL) => {
                        use_cap(&mut used, C::Subgroup2DBlockIOINTEL)
                    }
                    Some(Op::Subgroup2DBlockLoadTransformINTEL) => {
                        use_cap(&mut used, C::Subgroup2DBlockIOINTEL);
                        use_cap(&mut used, C::Subgroup2DBlockTransformINTEL)
                    }
                    Some(Op::Subgroup2DBlockLoadTransposeINTEL) => {
                        use_cap(&mut used, C::Subgroup2DBlockIOINTEL);
                        use_cap(&mut used, C::Subgroup2DBlockTransposeINTEL)
                    }
                    Some(Op::SubgroupMatrixMultiplyAccumulateINTEL) => {
                        use_cap(&mut used, C::SubgroupMatrixMultiplyAccumulateINTEL)
                    }
                    Some(Op::SubgroupBlockPrefetchINTEL) => {
                        use_cap(&mut used, C::SubgroupBufferPrefetchINTEL)
                    }
                    Some(Op::ConvertFToBF16INTEL) | Some(Op::ConvertBF16ToFINTEL) => {
                        use_cap(&mut used, C::BFloat16ConversionINTEL)
                    }
                    _ => {}
                }
            }
        }
    }
    (used, add_only)
}

/// Adds and removes capabilities and extensions; counts `capabilities_added/removed`,
/// `extensions_added/removed`.
pub fn run(m: &mut Module, stats: &mut Statistics) {
    let declared: Vec<u32> = m
        .section_insts(Section::Capability)
        .filter_map(|(_, i)| i.operand_word(0))
        .collect();
    let (used, add_only) = used_capabilities(m, &declared);
    let mut removed = 0;
    m.retain_section(Section::Capability, |m, i| {
        let c = m.inst(i).operand_word(0).unwrap_or(0);
        let keep = !EXACT.contains(&c) || used.contains(&c);
        if !keep {
            removed += 1;
        }
        keep
    });
    stats.add("capabilities_removed", removed);
    let mut added = 0;
    for &c in used.iter().chain(&add_only) {
        let present = m
            .section_insts(Section::Capability)
            .any(|(_, i)| i.operand_word(0) == Some(c));
        if !present {
            m.push_to_section(
                Section::Capability,
                Inst::new(Op::Capability, None, None, &[c]),
            );
            added += 1;
        }
    }
    stats.add("capabilities_added", added);
    let now: Vec<u32> = m
        .section_insts(Section::Capability)
        .filter_map(|(_, i)| i.operand_word(0))
        .collect();
    let needed = |name: &str| {
        EXTENSIONS
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, caps)| caps.iter().any(|c| now.contains(c)))
    };
    let mut removed = 0;
    m.retain_section(Section::Extension, |m, i| {
        let name = decode_string(m.inst(i).operands()).unwrap_or("");
        let keep = needed(name) != Some(false);
        if !keep {
            removed += 1;
        }
        keep
    });
    stats.add("extensions_removed", removed);
    let mut added = 0;
    for (name, _) in EXTENSIONS {
        if needed(name) != Some(true) {
            continue;
        }
        let present = m
            .section_insts(Section::Extension)
            .any(|(_, i)| decode_string(i.operands()) == Some(*name));
        if !present {
            m.push_to_section(
                Section::Extension,
                Inst::new(Op::Extension, None, None, &encode_string(name)),
            );
            added += 1;
        }
    }
    stats.add("extensions_added", added);
}
