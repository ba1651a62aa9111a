//! Inputs the `pipeline` fuzz target found problems with (`tests/fuzz_regressions/pipeline/`),
//! each with the pipeline and target it was found on: the pipeline ends with an output that
//! reloads or a one-line error, and the pass takes the path that fixed it.

use spvopt_analysis::Target;

#[test]
fn split_block_loads_with_an_overflowing_block_count_is_skipped() {
    // Found by `pipeline` (selector bytes 12, 24): a Block Count whose byte offsets overflow
    // u32 made `b * per_block` panic in debug builds (wrap silently in release).
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz_regressions/pipeline/split_block_count_overflow.spv");
    let bytes = std::fs::read(path).unwrap();
    let m = spvopt_ir::load_bytes(&bytes).expect("the regression input loads");
    let result = spvopt_passes::optimize_words(
        &m.to_words(),
        "split-block-loads,fuse-block-loads",
        &Target::named("pvc"),
    );
    let (out, report) = result.expect("the pipeline succeeds");
    spvopt_ir::load_words(&out).expect("the output reloads");
    assert!(
        report.passes[0].stats.get("skipped_bad_shape") >= 1,
        "{}",
        report.passes[0].stats
    );
}
