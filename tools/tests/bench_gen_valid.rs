//! The benchmark kernel generator makes modules of the requested size, deterministically, that
//! SPIRV-Tools' validator accepts (the one compiled into `spvopt-ir`, so nothing is skipped).
//!
//! Validation uses `--target-env opencl2.2`: the modules are SPIR-V 1.2, and spirv-val's
//! `opencl1.2` / `opencl2.0` / `opencl2.1` environments accept only SPIR-V 1.0 binaries.

use spvopt_tools::bench_gen::{count_instructions, generate_kernel};

const SIZES: [usize; 2] = [10_000, 100_000];
const SPIRV_VAL_ENV: &str = "opencl2.2";

/// Opcodes the module must contain (SPIR-V spec numbers).
const OP_NAME: u32 = 5;
const OP_LINE: u32 = 8;
const OP_EXT_INST: u32 = 12;
const OP_FUNCTION: u32 = 54;
const OP_FUNCTION_CALL: u32 = 57;
const OP_LOAD: u32 = 61;
const OP_STORE: u32 = 62;
const OP_PTR_ACCESS_CHAIN: u32 = 67;
const OP_DECORATE: u32 = 71;
const OP_PHI: u32 = 245;
const OP_LOOP_MERGE: u32 = 246;
const OP_SELECTION_MERGE: u32 = 247;

fn opcode_count(words: &[u32], opcode: u32) -> usize {
    let mut at = 5;
    let mut n = 0;
    while at < words.len() {
        let word_count = (words[at] >> 16) as usize;
        assert!(word_count > 0, "zero word count at word {at}");
        if words[at] & 0xffff == opcode {
            n += 1;
        }
        at += word_count;
    }
    assert_eq!(at, words.len(), "last instruction runs past the end");
    n
}

#[test]
fn instruction_count_is_within_one_percent_of_target() {
    for target in SIZES {
        let words = generate_kernel(target, 1);
        let count = count_instructions(&words);
        let diff = count.abs_diff(target);
        assert!(
            diff * 100 <= target,
            "target {target}: generated {count} instructions (off by {diff})"
        );
        assert_eq!(words[0], 0x0723_0203, "magic");
        assert_eq!(words[1], 0x0001_0200, "SPIR-V 1.2");
    }
}

#[test]
fn generation_is_deterministic_per_seed() {
    for target in SIZES {
        let first = generate_kernel(target, 42);
        let second = generate_kernel(target, 42);
        assert!(
            first == second,
            "target {target}: same seed gave different modules"
        );
        let other = generate_kernel(target, 43);
        assert!(
            first != other,
            "target {target}: different seeds gave the same module"
        );
    }
}

#[test]
fn modules_have_the_advertised_structure() {
    let words = generate_kernel(10_000, 7);
    for (opcode, what) in [
        (OP_NAME, "OpName"),
        (OP_LINE, "OpLine"),
        (OP_DECORATE, "OpDecorate"),
        (OP_EXT_INST, "OpExtInst"),
        (OP_FUNCTION_CALL, "OpFunctionCall"),
        (OP_LOAD, "OpLoad"),
        (OP_STORE, "OpStore"),
        (OP_PTR_ACCESS_CHAIN, "OpPtrAccessChain"),
        (OP_PHI, "OpPhi"),
        (OP_LOOP_MERGE, "OpLoopMerge"),
        (OP_SELECTION_MERGE, "OpSelectionMerge"),
    ] {
        assert!(opcode_count(&words, opcode) > 0, "no {what} in the module");
    }
    assert!(
        opcode_count(&words, OP_FUNCTION) >= 3,
        "expected a kernel and helpers"
    );
}

#[test]
fn modules_pass_spirv_val() {
    // SPIRV-Tools' validator compiled into spvopt-ir (no spirv-val on PATH needed).
    let env = spvopt_ir::text::parse_target_env(SPIRV_VAL_ENV).unwrap();
    for target in SIZES {
        let words = generate_kernel(target, 3);
        spvopt_ir::text::validate(&words, env).unwrap_or_else(|e| {
            panic!("spirv-val --target-env {SPIRV_VAL_ENV} rejected the {target}-instruction module: {e}")
        });
    }
}
