//! SPV_INTEL_predicated_io end to end on `tests/fixtures/predicated_io/predicated_io.spvasm`
//! (a masked copy written from the extension's specification; its expected outputs come from
//! `gen_expected.py`, which computes them from the kernel's definition, not from an executor):
//! it assembles, loads, round-trips byte for byte, disassembles, validates by default,
//! simulates to the expected bytes (the default value and no memory access where the
//! predicate is false), and keeps those bytes through `-O` on every target (`cpu`: lowered to
//! branches and plain accesses, the capability and extension gone).

use std::path::{Path, PathBuf};

use spvopt_ir::opcode_class::{OP_PREDICATED_LOAD_INTEL, OP_PREDICATED_STORE_INTEL};
use spvopt_ir::text::{self, TargetEnv};
use spvopt_ir::Module;
use spvopt_passes::validate::validate_module;

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/predicated_io")
}

fn words() -> Vec<u32> {
    let source = std::fs::read_to_string(dir().join("predicated_io.spvasm")).unwrap();
    text::assemble(&source, TargetEnv::Universal_1_4).unwrap()
}

fn launch() -> spvopt_sim::Launch {
    spvopt_sim::Launch::from_file(&dir().join("predicated_io.launch.json")).unwrap()
}

/// The predicated loads and stores in `m`.
fn predicated(m: &Module) -> (usize, usize) {
    let count = |op| m.all_insts().filter(|&i| m.inst(i).opcode() == op).count();
    (
        count(OP_PREDICATED_LOAD_INTEL),
        count(OP_PREDICATED_STORE_INTEL),
    )
}

/// Runs `m` with the fixture's launch and compares buffers 1-3 with the expected files.
fn check_outputs(m: &Module, what: &str) {
    let r = spvopt_sim::run(m, &launch()).unwrap_or_else(|e| panic!("{what}: {e}"));
    for arg in 1..=3usize {
        let expected =
            std::fs::read(dir().join(format!("predicated_io.expected_{arg}.bin"))).unwrap();
        let got = r
            .buffers
            .iter()
            .find(|(i, _)| *i == arg)
            .map(|(_, b)| b.clone())
            .unwrap_or_else(|| panic!("{what}: no buffer arg{arg}"));
        assert_eq!(got, expected, "{what}: buffer arg{arg}");
    }
}

#[test]
fn loads_round_trips_and_disassembles() {
    let w = words();
    let m = spvopt_ir::load_words(&w).unwrap();
    assert_eq!(predicated(&m), (2, 1));
    assert_eq!(
        m.to_words(),
        w,
        "an unchanged module emits byte-identically"
    );
    let dis = text::disassemble(&m.to_words()).unwrap();
    for line in [
        "OpCapability PredicatedIOINTEL",
        "OpExtension \"SPV_INTEL_predicated_io\"",
        "%v = OpPredicatedLoadINTEL %uint ",
        "%w = OpPredicatedLoadINTEL %v2uint ",
    ] {
        assert!(dis.contains(line), "missing `{line}` in:\n{dis}");
    }
    let store = dis
        .lines()
        .find(|l| l.contains("OpPredicatedStoreINTEL"))
        .unwrap_or_else(|| panic!("no OpPredicatedStoreINTEL in:\n{dis}"));
    assert!(store.trim_end().ends_with("Aligned 4"), "{store}");
    let w = dis.lines().find(|l| l.contains("%w = ")).unwrap();
    assert!(w.trim_end().ends_with("Aligned 8"), "{w}");
}

#[test]
fn validates_by_default() {
    let m = spvopt_ir::load_words(&words()).unwrap();
    assert_eq!(
        validate_module(&m, TargetEnv::Universal_1_4),
        Ok(Vec::new())
    );
}

#[test]
fn a_wrongly_typed_default_value_does_not_validate() {
    let source = std::fs::read_to_string(dir().join("predicated_io.spvasm"))
        .unwrap()
        .replace(
            "%v = OpPredicatedLoadINTEL %uint %p_src %in %uint_dead",
            "%v = OpPredicatedLoadINTEL %uint %p_src %in %ulong_0",
        );
    let w = text::assemble(&source, TargetEnv::Universal_1_4).unwrap();
    let m = spvopt_ir::load_words(&w).unwrap();
    let e = validate_module(&m, TargetEnv::Universal_1_4).unwrap_err();
    assert!(e.contains("OpPredicatedLoadINTEL"), "{e}");
}

#[test]
fn simulates_to_the_expected_bytes() {
    let m = spvopt_ir::load_words(&words()).unwrap();
    check_outputs(&m, "input");
}

#[test]
fn a_true_predicate_checks_bounds() {
    // n = 16: work-items 12..15 now load src[12..16), past the 48-byte buffer.
    let m = spvopt_ir::load_words(&words()).unwrap();
    let mut l = launch();
    l.args[4] = spvopt_sim::Arg::Scalar {
        ty: "u32".into(),
        bytes: 16u32.to_le_bytes().to_vec(),
    };
    let e = spvopt_sim::run(&m, &l).unwrap_err().to_string();
    assert!(e.contains("OpPredicatedLoadINTEL"), "{e}");
}

#[test]
fn keeps_its_results_through_o_on_every_target() {
    for (target, m) in spvopt_tests::optimized_for_every_target(&words()) {
        let out = m.to_words();
        let m = spvopt_ir::load_words(&out).unwrap();
        let dis = text::disassemble(&out).unwrap();
        if target.features.predicated_io {
            assert_eq!(predicated(&m), (2, 1), "{}", target.name);
            assert!(dis.contains("OpExtension \"SPV_INTEL_predicated_io\""));
        } else {
            assert_eq!(predicated(&m), (0, 0), "{}: lowered", target.name);
            assert!(
                !dis.contains("PredicatedIOINTEL") && !dis.contains("SPV_INTEL_predicated_io"),
                "{}: the capability and extension go with the last predicated access:\n{dis}",
                target.name
            );
        }
        check_outputs(&m, &target.name);
    }
}

/// Triton's 2026 masked GEMM (the staged GEMM of `raise_block_io_positive_predicated`: masked
/// tile loads and the C stores as `OpPredicatedLoadINTEL`/`StoreINTEL`): under `-O` for pvc,
/// raise-block-io turns the predicated tile loads into 2D block loads, which insert-prefetches
/// then prefetches in the K loop, and the results are unchanged. On their own,
/// fuse-block-loads and insert-prefetches leave predicated loads alone (they work on block IO).
#[test]
fn triton_2026_masked_gemm_reaches_prefetch_through_raise_block_io() {
    use spvopt_passes::registry::OPTIMIZE_PIPELINE;
    use spvopt_passes::{run_pipeline, Pipeline};
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/passes/raise_block_io_positive_predicated.spvasm");
    let source = std::fs::read_to_string(&path).unwrap();
    let input =
        spvopt_ir::load_words(&text::assemble(&source, TargetEnv::Universal_1_4).unwrap()).unwrap();
    let target = spvopt_analysis::Target::by_name("pvc").unwrap();
    let run = |pipeline: &str| {
        let mut m = spvopt_ir::load_words(&input.to_words()).unwrap();
        let report = run_pipeline(
            &Pipeline::parse(pipeline).unwrap(),
            &mut m,
            &target,
            &mut spvopt_tests::checked_hooks(),
        )
        .unwrap();
        let stat = |pass: &str, key: &str| -> u64 {
            report
                .passes
                .iter()
                .filter(|p| p.name == pass)
                .map(|p| p.stats.get(key))
                .sum()
        };
        (
            stat("raise-block-io", "raised_load") + stat("raise-block-io", "raised_load_transform"),
            stat("insert-prefetches", "loads_prefetched"),
            m,
        )
    };
    let (raised, prefetched, optimized) = run(OPTIMIZE_PIPELINE);
    assert!(predicated(&input).0 > 0, "the input has predicated loads");
    assert_eq!(raised, 2, "A and B become 2D block loads");
    assert_eq!(
        prefetched, 2,
        "both raised loads are prefetched in the K loop"
    );
    let launch = spvopt_sim::Launch::from_file(&path.with_extension("launch.json")).unwrap();
    let before = spvopt_sim::run(&input, &launch).unwrap();
    let after = spvopt_sim::run(&optimized, &launch).unwrap();
    assert_eq!(before.buffers, after.buffers);
    // Alone, the block-IO passes have nothing to take.
    let (_, alone, m) = run("fuse-block-loads,insert-prefetches");
    assert_eq!(alone, 0);
    assert_eq!(m.to_words(), input.to_words());
}
