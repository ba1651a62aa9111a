//! Triton's GenISA fallback form of 2D block IO (`llvm.genx.GenISA.LSC2DBlock{Read,Write,
//! Prefetch}.*` imports, IGC's argument layout) through `raise-builtins` and `-O`: the fixture
//! `tests/fixtures/passes/raise_builtins_genisa.spvasm` keeps its results on spv-sim (which
//! executes the GenISA calls) on every target; a shape the target's table lacks and no split
//! makes legal is a located error; calls that cannot be raised are kept with a located warning.

use std::path::{Path, PathBuf};

use spvopt_analysis::Target;
use spvopt_ir::text::{self, TargetEnv};
use spvopt_passes::{run_pipeline, Pipeline};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/passes")
        .join(name)
}

fn source(name: &str) -> String {
    std::fs::read_to_string(fixture(name)).unwrap()
}

fn module(src: &str) -> spvopt_ir::Module {
    spvopt_ir::load_words(&text::assemble(src, TargetEnv::Universal_1_4).unwrap()).unwrap()
}

fn genisa_calls(m: &spvopt_ir::Module) -> usize {
    let dis = text::disassemble(&m.to_words()).unwrap();
    dis.matches("OpFunctionCall").count()
}

#[test]
fn keeps_its_results_through_o_on_every_target() {
    let src = source("raise_builtins_genisa.spvasm");
    let words = text::assemble(&src, TargetEnv::Universal_1_4).unwrap();
    let input = spvopt_ir::load_words(&words).unwrap();
    assert_eq!(genisa_calls(&input), 4);
    let launch = fixture("raise_builtins_genisa.launch.json");
    let outputs = spvopt_tests::optimized_for_every_target(&words);
    assert_eq!(outputs.len(), Target::all().len());
    for (target, m) in outputs {
        assert_eq!(genisa_calls(&m), 0, "{}: every call raised", target.name);
        let dis = text::disassemble(&m.to_words()).unwrap();
        assert!(!dis.contains("GenISA"), "{}", target.name);
        assert_eq!(
            dis.contains("OpSubgroup2DBlockLoadINTEL"),
            target.has_2d_block_io(),
            "{}: native on 2D targets, lowered elsewhere",
            target.name
        );
        spvopt_tests::sim_equivalent(&input, &m, &launch)
            .unwrap_or_else(|e| panic!("{}: {e}", target.name));
    }
}

#[test]
fn a_shape_the_target_cannot_do_is_a_located_error() {
    // 16-bit 32x8 (64 bytes a row): IGC's table has it, the portable OpenCL table (generic)
    // has only width 16 for 2-byte elements, and no split along count or height reaches it.
    let src = source("raise_builtins_genisa.spvasm").replace(
        "%rdt %srci %wm1 %uint_15 %pm1 %uint_0 %uint_0 %uint_16 %uint_16 %uint_16 %uint_1 %false %true",
        "%rdt %srci %wm1 %uint_15 %pm1 %uint_0 %uint_0 %uint_16 %uint_32 %uint_8 %uint_1 %false %false",
    );
    assert!(src.contains("%uint_32 %uint_8 %uint_1 %false %false"));
    let pipeline = Pipeline::parse("raise-builtins,legalize").unwrap();
    let mut m = module(&src);
    let e = run_pipeline(
        &pipeline,
        &mut m,
        &Target::generic(),
        &mut spvopt_tests::checked_hooks(),
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("OpSubgroup2DBlockLoadINTEL"), "{e}");
    assert!(e.contains("in function %"), "{e}");
    assert!(!e.contains('\n'), "one line: {e}");
    // pvc's table has the shape: raised and legal.
    let mut m = module(&src);
    run_pipeline(
        &pipeline,
        &mut m,
        &Target::pvc(),
        &mut spvopt_tests::checked_hooks(),
    )
    .unwrap();
    assert_eq!(genisa_calls(&m), 0);
}

#[test]
fn calls_it_cannot_raise_are_kept_with_their_location() {
    let src = source("raise_builtins_genisa_negative_kept.spvasm");
    let mut m = module(&src);
    let before = m.to_words();
    let pipeline = Pipeline::parse("raise-builtins").unwrap();
    let report = run_pipeline(
        &pipeline,
        &mut m,
        &Target::pvc(),
        &mut spvopt_tests::checked_hooks(),
    )
    .unwrap();
    assert_eq!(m.to_words(), before);
    let p = &report.passes[0];
    for (stat, n) in [
        ("genisa_kept_non_constant_shape", 1),
        ("genisa_kept_transpose_and_transform", 1),
        ("genisa_kept_value_size", 1),
        ("genisa_kept_cache_controls", 1),
    ] {
        assert_eq!(p.stats.get(stat), n, "{stat}: {}", p.stats);
    }
    let w = p.stats.warnings();
    assert_eq!(w.len(), 4, "{w:?}");
    assert!(w.iter().all(|m| m.contains("OpFunctionCall %")
        && m.contains("in function %")
        && m.contains("kept")));
    assert!(
        w[2].contains("not what the block gives each invocation"),
        "{w:?}"
    );
    // Without a declared subgroup size the data layout is unknown: kept too.
    let src = source("raise_builtins_genisa.spvasm")
        .replace("OpExecutionMode %main SubgroupSize 16\n", "");
    let mut m = module(&src);
    let report = run_pipeline(
        &pipeline,
        &mut m,
        &Target::pvc(),
        &mut spvopt_tests::checked_hooks(),
    )
    .unwrap();
    let p = &report.passes[0];
    assert_eq!(
        p.stats.get("genisa_kept_subgroup_size_unknown"),
        3,
        "{}",
        p.stats
    );
    assert_eq!(
        p.stats.get("raised_genisa_prefetch"),
        1,
        "prefetches have no data"
    );
}

#[test]
fn the_simulator_checks_the_value_size() {
    // The v8i16 result of a 16-bit 16x16 read (32 bytes per invocation) is refused.
    let src = source("raise_builtins_genisa.spvasm").replace(
        "%rd %srci %wm1 %uint_7 %pm1 %uint_4 %uint_0 %uint_16 %uint_16 %uint_8",
        "%rd %srci %wm1 %uint_7 %pm1 %uint_4 %uint_0 %uint_16 %uint_16 %uint_16",
    );
    let m = module(&src);
    let launch =
        spvopt_sim::Launch::from_file(&fixture("raise_builtins_genisa.launch.json")).unwrap();
    let e = spvopt_sim::run(&m, &launch).unwrap_err().to_string();
    assert!(e.contains("LSC2DBlockRead") && e.contains("32"), "{e}");
}

#[test]
fn a_native_op_pass_alone_does_not_raise_them() {
    // The implicit raise before a pass on native ops (and the lowering back to OpenCL builtin
    // calls after it) is for OpenCL builtin calls only: GenISA calls would come back as
    // OpenCL builtins, which need not exist for their shapes.
    let src = source("raise_builtins_genisa.spvasm");
    let mut m = module(&src);
    let before = m.to_words();
    let pipeline = Pipeline::parse("fuse-block-loads").unwrap();
    let report = run_pipeline(
        &pipeline,
        &mut m,
        &Target::pvc(),
        &mut spvopt_tests::checked_hooks(),
    )
    .unwrap();
    assert!(
        report.passes.iter().all(|p| p.name == "fuse-block-loads"),
        "{:?}",
        report.passes.iter().map(|p| p.name).collect::<Vec<_>>()
    );
    assert_eq!(m.to_words(), before);
}
