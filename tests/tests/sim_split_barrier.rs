//! SPV_EXT_split_barrier on spv-sim with `tests/fixtures/sim/split_barrier.spvasm` (two
//! subgroups exchange values through Workgroup memory across an arrive/wait pair; expected
//! values from the fixture's header): it assembles, validates, round-trips, simulates to the
//! expected bytes, keeps them through `-O` on every target, and misuse (wait without arrive,
//! arrive twice, a subgroup skipping the pair) is a located error.

use std::path::{Path, PathBuf};

use spvopt_ir::text::{self, TargetEnv};
use spvopt_ir::Module;
use spvopt_passes::validate::validate_module;

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/sim")
}

fn source() -> String {
    std::fs::read_to_string(dir().join("split_barrier.spvasm")).unwrap()
}

fn module(src: &str) -> Module {
    spvopt_ir::load_words(&text::assemble(src, TargetEnv::Universal_1_4).unwrap()).unwrap()
}

fn launch() -> spvopt_sim::Launch {
    spvopt_sim::Launch::from_file(&dir().join("split_barrier.launch.json")).unwrap()
}

fn expected() -> (Vec<u8>, Vec<u8>) {
    let out: Vec<u8> = (0u32..64)
        .flat_map(|g| (3 * ((g % 32) ^ 16) + 1).to_le_bytes())
        .collect();
    let out2: Vec<u8> = (0u32..64).flat_map(|g| g.to_le_bytes()).collect();
    (out, out2)
}

fn check(m: &Module, what: &str) {
    let r = spvopt_sim::run(m, &launch()).unwrap_or_else(|e| panic!("{what}: {e}"));
    let (out, out2) = expected();
    assert_eq!(r.buffers[0], (0, out), "{what}: out");
    assert_eq!(r.buffers[1], (1, out2), "{what}: out2");
}

#[test]
fn loads_validates_round_trips_and_simulates() {
    let w = text::assemble(&source(), TargetEnv::Universal_1_4).unwrap();
    let m = spvopt_ir::load_words(&w).unwrap();
    assert_eq!(m.to_words(), w);
    assert_eq!(
        validate_module(&m, TargetEnv::Universal_1_4),
        Ok(Vec::new())
    );
    let dis = text::disassemble(&w).unwrap();
    assert!(
        dis.contains("OpControlBarrierArriveEXT %uint_2 %uint_2 %uint_260"),
        "{dis}"
    );
    assert!(dis.contains("OpControlBarrierWaitEXT %uint_2 %uint_2 %uint_258"));
    check(&m, "input");
}

#[test]
fn keeps_its_results_through_o_on_every_target() {
    for (target, m) in spvopt_tests::optimized_for_every_target(&module(&source()).to_words()) {
        check(&m, &target.name);
    }
}

fn error_of(src: &str) -> String {
    spvopt_sim::run(&module(src), &launch())
        .unwrap_err()
        .to_string()
}

#[test]
fn wait_without_arrive_is_an_error() {
    let src = source().replace(
        "               OpControlBarrierArriveEXT %uint_2 %uint_2 %sem_rel\n",
        "",
    );
    let e = error_of(&src);
    assert!(
        e.contains("OpControlBarrierWaitEXT without a preceding OpControlBarrierArriveEXT"),
        "{e}"
    );
}

#[test]
fn arriving_twice_is_an_error() {
    let src = source().replace(
        "OpControlBarrierWaitEXT %uint_2 %uint_2 %sem_acq",
        "OpControlBarrierArriveEXT %uint_2 %uint_2 %sem_acq",
    );
    let e = error_of(&src);
    assert!(
        e.contains("OpControlBarrierArriveEXT again before an OpControlBarrierWaitEXT"),
        "{e}"
    );
}

#[test]
fn a_subgroup_that_skips_the_barrier_is_an_error() {
    // Subgroup 1 (local ids 16..31) returns before arriving.
    let src = source()
        .replace(
            "      %p_own = OpAccessChain %ptr_wu32 %slm %l\n",
            "      %first = OpULessThan %bool %l %uint_16\n\
                        OpSelectionMerge %cont None\n\
                        OpBranchConditional %first %cont %early\n\
              %early = OpLabel\n\
                        OpReturn\n\
               %cont = OpLabel\n\
              %p_own = OpAccessChain %ptr_wu32 %slm %l\n",
        )
        .replace(
            "       %uint = OpTypeInt 32 0\n",
            "       %uint = OpTypeInt 32 0\n       %bool = OpTypeBool\n",
        );
    let e = error_of(&src);
    assert!(e.contains("not reached by every subgroup"), "{e}");
}
