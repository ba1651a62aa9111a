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

/// FNV-1a, 64 bits: a digest with a fixed definition (std's hashers may change between Rust
/// releases), so the committed digests mean the same everywhere.
fn fnv1a(bytes: impl IntoIterator<Item = u8>) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// Across platforms and toolchains: the output of `-O` on every corpus kernel for every target
/// (and of every pipeline above on the four files) must have the digest committed in
/// `tests/determinism/digests.txt`, written on this project's x86-64 Linux machine. A
/// different OS, CPU or Rust release giving other bytes fails here. When a change to a pass
/// changes outputs on purpose, regenerate the file with `SPVOPT_UPDATE_DIGESTS=1 cargo test
/// --release -p spvopt-tests --test integration determinism::` and review the diff.
#[test]
fn output_digests_match_the_committed_ones() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus");
    let mut runs: Vec<(String, String)> = Vec::new();
    for path in spvopt_tests::corpus_files() {
        let rel = path.strip_prefix(&root).unwrap().display().to_string();
        let words = spvopt_ir::load_bytes(&std::fs::read(&path).unwrap())
            .unwrap()
            .to_words();
        let pipelines: &[&str] = if FILES.contains(&rel.as_str()) {
            &PIPELINES
        } else {
            &["O"]
        };
        for &pipeline in pipelines {
            for target in Target::all() {
                runs.push((
                    format!("{rel} {} {pipeline}", target.name),
                    match run(&words, pipeline, &target.name) {
                        Ok(w) => format!("{:016x}", fnv1a(w.iter().flat_map(|x| x.to_le_bytes()))),
                        Err(e) => format!("error {:016x}", fnv1a(e.bytes())),
                    },
                ));
            }
        }
    }
    let text: String = runs.iter().map(|(k, v)| format!("{k} {v}\n")).collect();
    let file = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("determinism/digests.txt");
    if std::env::var_os("SPVOPT_UPDATE_DIGESTS").is_some() {
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(&file, &text).unwrap();
        return;
    }
    let committed = std::fs::read_to_string(&file).unwrap_or_default();
    let differing: Vec<&str> = text
        .lines()
        .filter(|l| !committed.lines().any(|c| c == *l))
        .collect();
    assert!(
        differing.is_empty() && committed.lines().count() == text.lines().count(),
        "{} of {} outputs differ from {} (regenerate on purpose only, see this test's doc):\n{}",
        differing.len(),
        runs.len(),
        file.display(),
        differing.join("\n")
    );
}
