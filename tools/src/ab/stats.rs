//! Static statistics of a module and the summary of a simulator run's counters.

use std::collections::BTreeMap;

use serde::Serialize;
use spvopt_analysis::block_io::{block_instructions, BlockKind, BlockOperands};
use spvopt_analysis::Target;
use spvopt_ir::Module;
use spvopt_sim::{MemoryTraffic, RunOutput};

/// Static statistics of one module.
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct StaticStats {
    pub instructions: usize,
    /// 2D block operations by kind and shape (`load 2b 32r16x2c`).
    pub block2d: BTreeMap<String, u64>,
    /// MMAs by K, rows and operand mask (`k16 m8 mask 0x3000`).
    pub mma: BTreeMap<String, u64>,
    /// 2D block prefetches plus 1D buffer prefetches.
    pub prefetches: u64,
    /// The subgroup size every kernel declares (N of the MMA shapes), if one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub subgroup_size: Option<u32>,
}

/// An MMA key of [`StaticStats::mma`] (`k16 m8 mask 0x3000`) in words: `m8n16k16 bf16`
/// (M rows, N = the subgroup size, K; the A/B element type from the operand mask of
/// SPV_INTEL_subgroup_matrix_multiply_accumulate; `n?` when the size is not declared).
pub fn mma_in_words(key: &str, subgroup_size: Option<u32>) -> String {
    let field = |prefix: &str| {
        key.split_whitespace()
            .find_map(|w| w.strip_prefix(prefix))
            .unwrap_or("?")
            .to_string()
    };
    let mask = key
        .split_once("mask ")
        .and_then(|(_, m)| u32::from_str_radix(m.trim_start_matches("0x"), 16).ok());
    let n = subgroup_size.map_or("?".to_string(), |n| n.to_string());
    let element = |packed_f16: u32, packed_bf16: u32, tf32: u32, i8: u32, i4: u32, signed: u32| {
        mask.map(|m| {
            if m & packed_f16 != 0 {
                "f16"
            } else if m & packed_bf16 != 0 {
                "bf16"
            } else if m & tf32 != 0 {
                "tf32"
            } else if m & i8 != 0 {
                if m & signed != 0 {
                    "s8"
                } else {
                    "u8"
                }
            } else if m & i4 != 0 {
                if m & signed != 0 {
                    "s4"
                } else {
                    "u4"
                }
            } else {
                "int"
            }
        })
        .unwrap_or("?")
    };
    // MatrixA/B…INTEL bits: packed f16 0x400/0x800, packed bf16 0x1000/0x2000, tf32
    // 0x100/0x200, packed int8 0x10/0x20, packed int4 0x40/0x80, signed 0x1/0x2.
    let a = element(0x400, 0x1000, 0x100, 0x10, 0x40, 0x1);
    let b = element(0x800, 0x2000, 0x200, 0x20, 0x80, 0x2);
    let types = if a == b {
        a.to_string()
    } else {
        format!("{a}x{b}")
    };
    let mut words = format!("m{}n{n}k{} {types}", field("m"), field("k"));
    if mask.is_some_and(|m| m & 0x8 != 0) {
        words.push_str(" -> bf16");
    }
    words
}

/// What the simulator counted in one run (a summary of `spvopt_sim::Counters`).
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct SimStats {
    pub instructions: u64,
    pub block2d_messages: u64,
    pub block2d_bytes: u64,
    pub prefetches: u64,
    pub prefetch_coverage: f64,
    pub mma_ops: u64,
    /// Ordinary memory messages (loads, stores, atomics, 1D block reads/writes; one per
    /// subgroup per executed instruction) over every storage class, and the distinct 64-byte
    /// lines they touch (summed over messages); `memory` has them per storage class.
    pub memory_messages: u64,
    pub memory_lines: u64,
    pub memory: MemoryTraffic,
}

/// Static statistics; builtin calls are counted as the native ops they stand for.
pub fn static_stats(m: &Module) -> StaticStats {
    let mut native = m.clone();
    let raise = spvopt_passes::lookup("raise-builtins").expect("registered");
    if let Ok(mut pass) = (raise.construct)(&Vec::new()) {
        // On failure the statistics count the module as it is (builtin calls uncounted).
        if pass
            .run(
                &mut native,
                &mut spvopt_analysis::Analyses::new(),
                &Target::default(),
                &mut spvopt_passes::Changes::unlimited(),
            )
            .is_err()
        {
            native = m.clone();
        }
    }
    let m = &native;
    let mut s = StaticStats {
        instructions: m.instruction_count(),
        subgroup_size: spvopt_analysis::KernelFacts::build(m).module_subgroup_size(),
        ..Default::default()
    };
    for i in block_instructions(m) {
        let Some(ops) = BlockOperands::read(m.inst(i)) else {
            continue;
        };
        if ops.kind == BlockKind::Prefetch {
            s.prefetches += 1;
        }
        let key = match ops.shape(m) {
            Some(sh) => format!(
                "{:?} {}b {}r{}x{}c",
                ops.kind,
                sh.element_size * 8,
                sh.height,
                sh.width,
                sh.count
            )
            .to_lowercase(),
            None => format!("{:?} non-constant shape", ops.kind).to_lowercase(),
        };
        *s.block2d.entry(key).or_insert(0) += 1;
    }
    for i in m.all_insts() {
        let inst = m.inst(i);
        if inst.is(spvopt_ir::spirv::Op::SubgroupBlockPrefetchINTEL) {
            s.prefetches += 1;
        } else if inst.is(spvopt_ir::spirv::Op::SubgroupMatrixMultiplyAccumulateINTEL) {
            let k = inst
                .operand_id(0)
                .and_then(|k| m.const_int_value(k))
                .map_or("?".into(), |k| k.to_string());
            let rows = inst
                .result_type()
                .and_then(|t| m.def_inst(t))
                .map_or(1, |t| {
                    if t.is(spvopt_ir::spirv::Op::TypeVector) {
                        t.operand_word(1).unwrap_or(1)
                    } else {
                        1
                    }
                });
            let mask = inst.operand_word(4).unwrap_or(0);
            *s.mma
                .entry(format!("k{k} m{rows} mask {mask:#x}"))
                .or_insert(0) += 1;
        }
    }
    s
}

/// The counters summary of a simulator run.
pub fn sim_stats(out: &RunOutput) -> SimStats {
    let c = &out.counters;
    SimStats {
        instructions: c.instructions,
        block2d_messages: c
            .block2d
            .iter()
            .filter(|(k, _)| !k.starts_with("prefetch"))
            .map(|(_, v)| v.ops)
            .sum(),
        block2d_bytes: c
            .block2d
            .iter()
            .filter(|(k, _)| !k.starts_with("prefetch"))
            .map(|(_, v)| v.bytes)
            .sum(),
        prefetches: c.prefetches,
        prefetch_coverage: c.prefetch_coverage,
        mma_ops: c.mma.values().sum(),
        memory_messages: c.memory.total().all().messages,
        memory_lines: c.memory.total().all().lines,
        memory: c.memory,
    }
}

#[cfg(test)]
mod tests {
    use super::mma_in_words;

    #[test]
    fn mma_shapes_in_words() {
        assert_eq!(
            mma_in_words("k16 m8 mask 0x3000", Some(16)),
            "m8n16k16 bf16"
        );
        assert_eq!(mma_in_words("k16 m8 mask 0xc00", Some(16)), "m8n16k16 f16");
        assert_eq!(mma_in_words("k32 m4 mask 0x33", Some(8)), "m4n8k32 s8");
        assert_eq!(mma_in_words("k8 m8 mask 0x300", None), "m8n?k8 tf32");
        assert_eq!(
            mma_in_words("k16 m8 mask 0x300c", Some(16)),
            "m8n16k16 bf16 -> bf16"
        );
    }
}
