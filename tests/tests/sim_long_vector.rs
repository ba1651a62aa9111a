//! SPV_EXT_long_vector with `tests/fixtures/sim/long_vector.spvasm` (a 5-component
//! `OpTypeVectorIdEXT` built, added to, shuffled and stored; expected values from the fixture's
//! header): it assembles, validates, round-trips, disassembles, simulates to the expected bytes
//! and keeps them through `-O` on every target; targets without `LongVectorEXT` (`cpu`) get
//! `VectorAnyINTEL` vectors, the others keep the module's form.

use std::path::{Path, PathBuf};

use spvopt_ir::text::{self, TargetEnv};
use spvopt_ir::Module;
use spvopt_passes::validate::validate_module;

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/sim")
}

fn words() -> Vec<u32> {
    let src = std::fs::read_to_string(dir().join("long_vector.spvasm")).unwrap();
    text::assemble(&src, TargetEnv::Universal_1_4).unwrap()
}

fn check(m: &Module, what: &str) {
    let launch = spvopt_sim::Launch::from_file(&dir().join("long_vector.launch.json")).unwrap();
    let r = spvopt_sim::run(m, &launch).unwrap_or_else(|e| panic!("{what}: {e}"));
    let expected: Vec<u8> = (0u32..16)
        .flat_map(|g| (0u32..5).map(move |k| g + (4 - k) + 10 * (5 - k)))
        .flat_map(u32::to_le_bytes)
        .collect();
    assert_eq!(r.buffers[0], (0, expected), "{what}");
}

#[test]
fn loads_validates_round_trips_and_simulates() {
    let w = words();
    let m = spvopt_ir::load_words(&w).unwrap();
    assert_eq!(m.to_words(), w);
    assert_eq!(
        validate_module(&m, TargetEnv::Universal_1_4),
        Ok(Vec::new())
    );
    let dis = text::disassemble(&w).unwrap();
    assert!(dis.contains("OpTypeVectorIdEXT %uint %uint_5"), "{dis}");
    check(&m, "input");
}

#[test]
fn keeps_its_results_through_o_on_every_target() {
    for (target, m) in spvopt_tests::optimized_for_every_target(&words()) {
        check(&m, &target.name);
        let dis = text::disassemble(&m.to_words()).unwrap();
        let (long, any) = (
            dis.contains("OpCapability LongVectorEXT") && dis.contains("OpTypeVectorIdEXT"),
            dis.contains("OpCapability VectorAnyINTEL") && dis.contains("OpTypeVector %uint 5"),
        );
        assert_eq!(
            (long, any),
            (
                target.features.long_vector_ext,
                !target.features.long_vector_ext
            ),
            "{}:\n{dis}",
            target.name
        );
    }
}

#[test]
fn a_count_that_is_not_a_constant_is_a_located_error_on_cpu() {
    let src = std::fs::read_to_string(dir().join("long_vector.spvasm"))
        .unwrap()
        .replace(
            "     %uint_5 = OpConstant %uint 5",
            "     %uint_5 = OpSpecConstant %uint 5",
        );
    let mut m =
        spvopt_ir::load_words(&text::assemble(&src, TargetEnv::Universal_1_4).unwrap()).unwrap();
    let pipeline = spvopt_passes::Pipeline::parse("legalize").unwrap();
    let cpu = spvopt_analysis::Target::cpu();
    let e =
        spvopt_passes::run_pipeline(&pipeline, &mut m, &cpu, &mut spvopt_tests::checked_hooks())
            .unwrap_err()
            .to_string();
    assert!(
        e.contains("OpTypeVectorIdEXT") && e.contains("not a constant"),
        "{e}"
    );
    // Targets that take LongVectorEXT keep it as it is.
    let mut m =
        spvopt_ir::load_words(&text::assemble(&src, TargetEnv::Universal_1_4).unwrap()).unwrap();
    spvopt_passes::run_pipeline(
        &pipeline,
        &mut m,
        &spvopt_analysis::Target::pvc(),
        &mut spvopt_tests::checked_hooks(),
    )
    .unwrap();
}
