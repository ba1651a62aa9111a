//! Determinism: the same input, pipeline and target give identical output bytes across runs
//! and thread counts. Each pipeline runs twice in this thread and four times concurrently in
//! other threads (every run builds its own hash maps, whose iteration order is randomized per
//! instance, so an output that depended on it would differ here).

use spvopt_analysis::Target;

const FILES: [&str; 4] = [
    "triton/gemm_fp16_blockptr_128x128x32_w8__pvc.spv",
    "triton/native/gemm_fp16_blockptr_8x512x64_w32__pvc.spv",
    "triton/nodbg/softmax_fp32_1024_w4_sg16__pvc.spv",
    "tensor/kernel_k3_tile_transpose_view_clip_crossworkgroup.spv",
];

const PIPELINES: [&str; 6] = [
    "O",
    "raise-builtins,lower-builtins",
    "raise-builtins,insert-prefetches(prefetch-cooperative=true),fuse-block-loads,dce",
    "raise-builtins,split-block-loads,fuse-block-loads",
    "raise-builtins,legalize,dce",
    "strip-debug,dce",
];

fn run(words: &[u32], pipeline: &str, target: &str) -> Result<Vec<u32>, String> {
    spvopt_passes::optimize_words(words, pipeline, &Target::named(target))
        .map(|(w, _)| w)
        .map_err(|e| e.to_string())
}

#[test]
fn same_output_across_runs_and_threads() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus");
    let mut compared = 0;
    for f in FILES {
        let bytes = std::fs::read(root.join(f)).unwrap();
        let words = spvopt_ir::load_bytes(&bytes).unwrap().to_words();
        for pipeline in PIPELINES {
            for target in ["pvc", "dg2"] {
                let first = run(&words, pipeline, target);
                assert_eq!(
                    first,
                    run(&words, pipeline, target),
                    "{f} {pipeline} {target}"
                );
                let threaded: Vec<Result<Vec<u32>, String>> = std::thread::scope(|s| {
                    let handles: Vec<_> = (0..4)
                        .map(|_| s.spawn(|| run(&words, pipeline, target)))
                        .collect();
                    handles.into_iter().map(|h| h.join().unwrap()).collect()
                });
                for t in threaded {
                    assert_eq!(first, t, "{f} {pipeline} {target}: thread output differs");
                }
                compared += usize::from(first.is_ok());
            }
        }
    }
    assert!(compared >= 30, "only {compared} runs succeeded");
}
