//! Inputs the fuzz targets found problems with (`tests/fuzz_regressions/<target>/`),
//! each with the pipeline and target it was found on: the pipeline ends with an output that
//! reloads or a one-line error, and the pass takes the path that fixed it. As in the fuzz
//! targets, any single allocation above 1 GiB aborts this test binary, so a finding that was an
//! unbounded allocation fails here without its fix.

use std::alloc::{GlobalAlloc, Layout, System};

use spvopt_analysis::Target;

/// The system allocator, aborting on a single allocation above 1 GiB (the fuzz targets' budget,
/// `fuzz/src/lib.rs`; the fuzz crate is not a dependency of the tests).
struct LimitedAlloc;

const MAX_ALLOCATION: usize = 1 << 30;

fn check(size: usize) {
    if size > MAX_ALLOCATION {
        // No allocation while reporting: a fixed message to stderr, then abort.
        let _ = std::io::Write::write_all(
            &mut std::io::stderr(),
            b"fuzz_regressions: single allocation above 1 GiB\n",
        );
        std::process::abort();
    }
}

// SAFETY: forwards to `System` unchanged after the size check.
unsafe impl GlobalAlloc for LimitedAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        check(layout.size());
        System.alloc(layout)
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        check(layout.size());
        System.alloc_zeroed(layout)
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        check(new_size);
        System.realloc(ptr, layout, new_size)
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout)
    }
}

#[global_allocator]
static ALLOCATOR: LimitedAlloc = LimitedAlloc;

#[test]
fn split_block_loads_with_an_overflowing_block_count_is_skipped() {
    // Found by `pipeline` (selector bytes 12, 24): a Block Count whose byte offsets overflow
    // u32 made `b * per_block` panic in debug builds (wrap silently in release).
    let result = run_regression(
        "split_block_count_overflow.spv",
        "split-block-loads,fuse-block-loads",
        "pvc",
    );
    let (out, report) = result.expect("the pipeline succeeds");
    spvopt_ir::load_words(&out).expect("the output reloads");
    assert!(
        report.passes[0].stats.get("skipped_bad_shape") >= 1,
        "{}",
        report.passes[0].stats
    );
}

#[test]
fn a_value_type_of_hundreds_of_mib_is_refused_not_allocated() {
    // Found by `sim` (launch bytes 08 08 00 00 00 00 01 c0: 8 invocations, subgroup size 16):
    // a built-in variable of type <67108867 x i64> (512 MiB per value) made the simulator
    // allocate the value frame of 8 invocations (4 GiB) before running anything. Types are
    // now bounded (16 MiB), and so are frames per invocation (16 MiB) and per work-group
    // (1 GiB): a one-line error, here about the type.
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz_regressions/sim/huge_value_frame.spv");
    let bytes = std::fs::read(path).unwrap();
    let m = spvopt_ir::load_bytes(&bytes).expect("the regression input loads");
    let buffer = || spvopt_sim::Arg::Buffer {
        bytes: vec![0; 4096],
        ty: None,
        ulp: None,
    };
    let scalar = || spvopt_sim::Arg::Scalar {
        ty: "u32".into(),
        bytes: vec![8, 0, 0, 0],
    };
    let args = vec![
        buffer(),
        buffer(),
        buffer(),
        scalar(),
        scalar(),
        scalar(),
        scalar(),
    ];
    let mut launch = spvopt_sim::Launch::new("main", [8, 1, 1], [8, 1, 1], args);
    launch.subgroup_size = Some(16);
    launch.max_steps = 20_000;
    let err = spvopt_sim::run(&m, &launch).expect_err("the frame is refused");
    let msg = err.to_string();
    assert!(
        msg.contains("above the simulator's limit") && !msg.contains('\n'),
        "{msg}"
    );
}

/// Runs `pipeline` on the regression module `file` for `target`; returns the outcome.
fn run_regression(
    file: &str,
    pipeline: &str,
    target: &str,
) -> Result<(Vec<u32>, spvopt_passes::RunReport), String> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz_regressions/pipeline")
        .join(file);
    let bytes = std::fs::read(path).unwrap();
    let m = spvopt_ir::load_bytes(&bytes).expect("the regression input loads");
    spvopt_passes::optimize_words(&m.to_words(), pipeline, &Target::named(target))
        .map_err(|e| e.to_string())
}

#[test]
fn an_mma_with_hundreds_of_millions_of_rows_is_refused() {
    // Found by `pipeline` (`-O` on cpu): a Result vector of 721,420,296 components is a
    // consistent MMA shape; emulating it sized a table by M (a 2.9 GB allocation) and would
    // have emitted instructions per row. lower-mma now decodes M <= 32 and K <= 256 only.
    let err = run_regression("mma_huge_m.spv", "O", "cpu").expect_err("refused");
    assert!(
        err.contains("beyond what lower-mma handles") && !err.contains('\n'),
        "{err}"
    );
}

#[test]
fn a_prefetch_rectangle_of_billions_of_pieces_is_not_built() {
    // Found by `pipeline` (insert-prefetches,fuse-block-loads,dce on lnl): a load whose
    // rectangle needs billions of prefetch pieces; they were all built (growing a vector past
    // 1 GiB) before the "at most 16" check. The count is checked first now.
    let (out, report) = run_regression(
        "prefetch_huge_rectangle.spv",
        "insert-prefetches,fuse-block-loads,dce",
        "lnl",
    )
    .expect("the pipeline succeeds");
    spvopt_ir::load_words(&out).expect("the output reloads");
    let stats = &report.passes[0].stats;
    // Four loads: two prefetched, the two huge ones left alone as unsupported shapes.
    assert_eq!(stats.get("loads_considered"), 4, "{stats}");
    assert_eq!(stats.get("skipped_unsupported_shape"), 2, "{stats}");
}

#[test]
fn split_block_loads_leaves_a_huge_block_count_alone() {
    // Found by `pipeline` (split-block-loads,fuse-block-loads on bmg): a Block Count in the
    // millions that does not overflow the byte offsets; splitting it emitted instructions per
    // block (the instruction arena passed 1 GiB). Counts above 16 are `skipped_bad_shape`.
    let (out, report) = run_regression(
        "split_huge_block_count.spv",
        "split-block-loads,fuse-block-loads",
        "bmg",
    )
    .expect("the pipeline succeeds");
    assert!(out.len() < 10_000, "{} words", out.len());
    assert!(
        report.passes[0].stats.get("skipped_bad_shape") >= 1,
        "{}",
        report.passes[0].stats
    );
}

/// What each `sim` finding (`fuzz_regressions/sim/*.bin`: the 8 launch bytes, then the
/// module) must end in now: a fragment of its one-line error.
const SIM_FINDINGS: &[(&str, &str)] = &[
    // Type sizes that overflowed u32 (vectors / cooperative matrices of billions of
    // components, struct offsets from hostile decorations: panics with overflow checks,
    // wrapped sizes without) and constant tables sized by such types: types above 16 MiB are
    // refused.
    ("crash-4daf7f25", "above the simulator's limit"),
    ("crash-5ad2132a", "above the simulator's limit"),
    ("crash-7ba62ce9", "above the simulator's limit"),
    ("crash-82c8a133", "above the simulator's limit"),
    ("crash-8c3cddf9", "above the simulator's limit"),
    ("crash-997b038a", "above the simulator's limit"),
    ("crash-d33f61e5", "above the simulator's limit"),
    ("crash-dd7289e5", "above the simulator's limit"),
    ("crash-e6242e1c", "above the simulator's limit"),
    ("crash-e78e4b22", "above the simulator's limit"),
    // A hostile Element Size overflowed the statistics key (`size * 8`) before the check that
    // reports it; the runs end at the check now.
    (
        "crash-29164d5d",
        "Element Size 2298478593 is not 1, 2, 4 or 8 bytes",
    ),
    (
        "crash-ceebd1ed",
        "Element Size 1592639710 is not 1, 2, 4 or 8 bytes",
    ),
    // Sign extension of a zero-width value (`v << 64`) on the way to these errors.
    (
        "crash-4a985aad",
        "SubgroupSize differs from SubgroupMaxSize (partial subgroup)",
    ),
    (
        "crash-51145b7e",
        "Memory Width 0 is outside [64, 2^24] bytes",
    ),
    // An OpenCL.std integer function on a zero-width operand: `bits - 1` underflowed.
    ("crash-511ec100", "exp2 is not implemented by the simulator"),
    // Composites of zero-sized components: within the type size limit, but billions of parts
    // taken apart one by one (a parts table above 1 GiB). Vectors and arrays of more than 2^20
    // parts are refused.
    ("crash-61aafb01", "parts, above the simulator's limit"),
    ("crash-8fe9f1f8", "parts, above the simulator's limit"),
    // A cooperative matrix of millions of elements: one load walked all of them (3.4 s).
    // Matrices above 256 x 256 elements are refused.
    ("timeout-9ba6edec", "a cooperative matrix of"),
    // A tensor-layout instruction with a tensor-view result and no operands indexed its
    // first operand unchecked.
    ("crash-b667ac27", "missing operand 0"),
    // Writing a component wider than 8 bytes sliced past the 8 bytes of its value.
    (
        "crash-18739c03",
        "misaligned access: OpStore: address 0x2 is not 4-byte aligned",
    ),
    // Loops of blocks holding only a branch: terminators did not count against the step
    // budget, so the run never ended.
    ("timeout-7557a9f5", "step budget exceeded"),
    ("timeout-c9b16187", "step budget exceeded"),
    ("timeout-fd1d26b3", "step budget exceeded"),
    // Reported at 1 s on the loaded machine; 0.06 s alone: ends at the step budget.
    ("timeout-e8ce2301", "step budget exceeded"),
];

#[test]
fn sim_findings_end_in_the_one_line_errors_that_fixed_them() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz_regressions/sim");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "bin"))
        .collect();
    files.sort();
    let mut seen = 0;
    for f in files {
        let data = std::fs::read(&f).unwrap();
        let (sel, module) = data.split_at(8);
        let m = spvopt_ir::load_bytes(module).expect("the regression input loads");
        let launch = spvopt_sim::fuzz_launch::launch_for(&m, sel.try_into().unwrap())
            .expect("the fuzz target built a launch for it");
        let stem = f.file_stem().unwrap().to_string_lossy().into_owned();
        let expected = SIM_FINDINGS
            .iter()
            .find(|(s, _)| *s == stem)
            .unwrap_or_else(|| {
                let got = spvopt_sim::run(&m, &launch).err().map(|e| e.to_string());
                panic!("{stem}: add what it must end in to SIM_FINDINGS (now: {got:?})")
            })
            .1;
        let msg = spvopt_sim::run(&m, &launch)
            .expect_err("refused")
            .to_string();
        assert!(
            msg.contains(expected) && !msg.contains('\n'),
            "{stem}: {msg}"
        );
        seen += 1;
    }
    assert_eq!(
        seen,
        SIM_FINDINGS.len(),
        "every listed finding has its file"
    );
}

#[test]
fn legalize_leaves_a_vector_of_a_billion_components_built_from_two_alone() {
    // Found by `pipeline` (legalize,dce on pvc): an OpCompositeConstruct of a vector type with
    // about a billion components from two vector operands; rebuilding it from scalars reserved
    // a vector per component (above 1 GiB) and would have emitted an instruction per component.
    // Results above 1,024 components, or whose constituents do not add up, are left alone.
    // (Run for dg2: the kernel requires SubgroupSize 8 and reads a subgroup built-in, an error
    // for pvc since legalize checks subgroup sizes; vector_constituents is the same everywhere.)
    let (out, report) =
        run_regression("vector_constituents_huge.spv", "legalize,dce", "dg2").expect("succeeds");
    spvopt_ir::load_words(&out).expect("the output reloads");
    let legalize = report.passes.iter().find(|p| p.name == "legalize").unwrap();
    let stats = &legalize.stats;
    assert_eq!(stats.get("vector_constituents_left_too_wide"), 1, "{stats}");
}

#[test]
fn legalize_does_not_report_a_construct_it_left_as_a_change() {
    // Found by `pipeline` (-O on pvc; debug builds check legalize's change report against the
    // words): a vector construct left alone (too wide) still counted as a rewrite.
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz_regressions/pipeline/vector_constituents_change_report.spv");
    let m = spvopt_ir::load_bytes(&std::fs::read(path).unwrap()).expect("loads");
    let words = m.to_words();
    let (out, report) =
        spvopt_passes::optimize_words(&words, "legalize", &Target::named("pvc")).expect("succeeds");
    let legalize = report.passes.iter().find(|p| p.name == "legalize").unwrap();
    assert_eq!(legalize.stats.get("vector_constituents_left_too_wide"), 1);
    assert_eq!(legalize.changed, out != words, "{}", legalize.stats);
}

#[test]
fn the_induction_analysis_does_not_track_vectors_of_a_billion_components() {
    // Found by `pipeline` (insert-prefetches(prefetch-cooperative=true),strip-prefetches on
    // generic): the induction analysis reserved an entry per component of a hostile integer
    // vector type (above 1 GiB). Vectors above 256 components are not tracked.
    let (out, _) = run_regression(
        "induction_huge_vector.spv",
        "insert-prefetches(prefetch-cooperative=true),strip-prefetches",
        "generic",
    )
    .expect("succeeds");
    spvopt_ir::load_words(&out).expect("the output reloads");
}

#[test]
fn a_1d_block_read_of_billions_of_bytes_is_not_prefetched() {
    // Found by `pipeline` (insert-prefetches(prefetch-cooperative=true),strip-prefetches on
    // generic): a 1D subgroup block read whose result vector has so many components that its
    // byte count overflowed u32 (a panic with overflow checks; in release it wrapped to a
    // number that could pass as a prefetch size: in this input, edited from the finding,
    // 4 bytes x 0x40000010 components wrap to 64). Such reads are unsupported shapes now.
    let (out, report) = run_regression(
        "prefetch_1d_huge_vector.spv",
        "insert-prefetches(prefetch-cooperative=true),strip-prefetches",
        "generic",
    )
    .expect("the pipeline succeeds");
    spvopt_ir::load_words(&out).expect("the output reloads");
    let stats = &report.passes[0].stats;
    assert!(stats.get("skipped_unsupported_shape") >= 1, "{stats}");
}

#[test]
fn a_cycle_of_in_loop_values_from_the_fuzzer_is_not_hoisted() {
    // The silent SIGSEGV of the `pipeline` target (2026-11-25; two runs died with no input
    // saved). Found again by the pre-fix code with the alternate-stack handler; libFuzzer then
    // deadlocked in malloc (the overflow hit inside malloc) and the input was read out of the
    // hung process with gdb. insert-prefetches' prologue planning recursed without end around
    // a cycle of in-loop values; the walk is iterative and stops at cycles now.
    let (out, _) = run_regression(
        "prefetch_hoist_cycle.spv",
        "strip-debug,raise-builtins,legalize,insert-prefetches,fuse-block-loads,dce",
        "pvc",
    )
    .expect("the pipeline succeeds");
    spvopt_ir::load_words(&out).expect("the output reloads");
}
