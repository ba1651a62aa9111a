//! `-O --target cpu` (Intel's OpenCL CPU runtime) on every Triton kernel, without the runtime:
//! no 2D block IO, subgroup MMA, prefetch or kernel-attribute instruction is left, nothing
//! Intel's SPIR-V reader mistranslates is (`intel_reader_problems`), the output validates, and spv-sim gives the same buffers as on the kernel as compiled (integers and
//! floats bit for bit: the MMA emulation follows the simulator's MMA model). The runs on the
//! real runtime are `tests/cpu_target/run_all.py`, which `.ci/run` executes.

use spvopt_analysis::Target;

#[test]
fn o_cpu_leaves_only_what_the_cpu_runtime_runs() {
    let target = Target::by_name("cpu").unwrap();
    let env = spvopt_ir::text::parse_target_env("spv1.4").unwrap();
    let (mut checked, mut with_launch) = (0, 0);
    for f in spvopt_tests::corpus_files() {
        let path = f.display().to_string();
        if !path.contains("/triton/") {
            continue;
        }
        let bytes = std::fs::read(&f).unwrap();
        let words: Vec<u32> = bytes
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        let (out, _) = spvopt_passes::optimize_words(
            &words,
            spvopt_passes::registry::OPTIMIZE_PIPELINE,
            &target,
        )
        .unwrap_or_else(|e| panic!("{path}: {e}"));
        let dis = spvopt_ir::text::disassemble(&out).unwrap();
        for banned in [
            "OpSubgroup2DBlock",
            "OpSubgroupMatrixMultiplyAccumulateINTEL",
            "OpSubgroupBlockPrefetchINTEL",
            "KernelAttributesINTEL",
            "MaxWorkgroupSizeINTEL",
        ] {
            assert!(!dis.contains(banned), "{path}: {banned} left");
        }
        let m = spvopt_ir::load_words(&out).unwrap();
        let unreadable = spvopt_tests::intel_reader_problems(&m);
        assert!(unreadable.is_empty(), "{path}: {unreadable:?}");
        spvopt_passes::validate::validate_module(&m, env)
            .unwrap_or_else(|e| panic!("{path}: output does not validate: {e}"));
        let original = spvopt_ir::load_words(&words).unwrap();
        for l in launches_for(&f) {
            let a = spvopt_sim::run(&original, &l).unwrap();
            let b = spvopt_sim::run(&m, &l).unwrap();
            assert_eq!(
                a.buffers, b.buffers,
                "{path}: -O --target cpu changed the results"
            );
        }
        checked += 1;
        with_launch += usize::from(!launches_for(&f).is_empty());
    }
    assert!(checked >= 14, "{checked} Triton kernels");
    assert!(
        with_launch >= 14,
        "{with_launch} Triton kernels with a launch"
    );
}

/// The launch of a Triton kernel (`tests/corpus/triton/launches/NAME.launch.json`, shared by
/// its line-info and native forms).
fn launches_for(f: &std::path::Path) -> Vec<spvopt_sim::Launch> {
    let name = f.file_stem().unwrap().to_string_lossy().to_string();
    let l = spvopt_tests::corpus_dir()
        .join("triton/launches")
        .join(format!("{name}.launch.json"));
    match spvopt_sim::Launch::from_file(&l) {
        Ok(l) => vec![l],
        Err(_) => Vec::new(),
    }
}
