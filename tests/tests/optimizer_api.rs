//! The reusable [`Optimizer`] (what a driver's JIT holds): the same bytes as `optimize_words`
//! (the CLI's path) on every Triton kernel for single passes and `-O`, the same bytes when one
//! optimizer serves 4 threads at once, errors at construction for unknown passes or options, and
//! typed errors (never panics) for broken input.

use spvopt_analysis::Target;
use spvopt_passes::{optimize_words, Optimizer};

fn triton_kernels() -> Vec<(String, Vec<u32>)> {
    spvopt_tests::corpus_files()
        .into_iter()
        .filter(|f| f.display().to_string().contains("/triton/"))
        .map(|f| {
            let bytes = std::fs::read(&f).unwrap();
            let words = bytes
                .chunks_exact(4)
                .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect();
            (f.display().to_string(), words)
        })
        .collect()
}

#[test]
fn optimizer_gives_the_bytes_of_optimize_words() {
    let target = Target::by_name("pvc").unwrap();
    let kernels = triton_kernels();
    assert!(kernels.len() >= 14, "{} kernels", kernels.len());
    for pipeline in [
        "O",
        "fuse-block-loads",
        "insert-prefetches",
        "strip-debug,dce",
        "",
    ] {
        let optimizer = Optimizer::new(target.clone(), pipeline).unwrap();
        for (name, words) in &kernels {
            let (want, _) = optimize_words(words, pipeline, &target)
                .unwrap_or_else(|e| panic!("{name} {pipeline}: {e}"));
            let got = optimizer
                .run(words)
                .unwrap_or_else(|e| panic!("{name} {pipeline}: {e}"));
            assert!(got.words == want, "{name} {pipeline}: different bytes");
            // Reused: the second run on the same optimizer is the same.
            assert!(
                optimizer.run(words).unwrap().words == want,
                "{name} {pipeline}: rerun"
            );
        }
    }
}

#[test]
fn flags_mean_what_they_mean_on_the_command_line() {
    let target = Target::by_name("pvc").unwrap();
    let (_, words) = triton_kernels().into_iter().next().unwrap();
    let a = Optimizer::new(
        target.clone(),
        "-O --insert-prefetches --prefetch-distance=2",
    )
    .unwrap()
    .run(&words)
    .unwrap();
    let b = Optimizer::new(target.clone(), "O,insert-prefetches(prefetch-distance=2)")
        .unwrap()
        .run(&words)
        .unwrap();
    assert!(a.words == b.words);
    // `--max-changes=N` as in `spv-opt`: the same as the pipeline option on every pass.
    let c = Optimizer::new(target.clone(), "--fuse-block-loads --dce --max-changes=1")
        .unwrap()
        .run(&words)
        .unwrap();
    let d = Optimizer::new(
        target.clone(),
        "fuse-block-loads(max-changes=1),dce(max-changes=1)",
    )
    .unwrap()
    .run(&words)
    .unwrap();
    assert!(c.words == d.words);
    // (The raise/lower of builtin-call input around native-form passes is not limited.)
    let changes: Vec<(&str, u64)> = c
        .report
        .passes
        .iter()
        .filter(|p| matches!(p.name, "fuse-block-loads" | "dce"))
        .map(|p| (p.name, p.changes))
        .collect();
    assert!(
        changes.len() == 2 && changes.iter().all(|&(_, n)| n <= 1),
        "{changes:?}"
    );
    // -O runs insert-prefetches: its options apply.
    assert!(Optimizer::new(target.clone(), "-O --prefetch-distance=2").is_ok());
    for bad in [
        "--no-such-pass",
        "--fuse-block-loads --max-changes=many",
        "--fuse-block-loads --prefetch-distance=2",
        "fuse-block-loads(x=1)",
        "-X",
    ] {
        assert!(
            Optimizer::new(target.clone(), bad).is_err(),
            "{bad} accepted"
        );
    }
}

#[test]
fn one_optimizer_serves_threads_at_once() {
    let target = Target::by_name("pvc").unwrap();
    let optimizer = Optimizer::new(target, "-O").unwrap();
    let kernels = triton_kernels();
    let want: Vec<Vec<u32>> = kernels
        .iter()
        .map(|(_, w)| optimizer.run(w).unwrap().words)
        .collect();
    std::thread::scope(|s| {
        for t in 0..4 {
            let (optimizer, kernels, want) = (&optimizer, &kernels, &want);
            s.spawn(move || {
                for (i, (name, w)) in kernels.iter().enumerate().skip(t % 2) {
                    assert!(
                        optimizer.run(w).unwrap().words == want[i],
                        "{name}: thread {t}"
                    );
                }
            });
        }
    });
}

#[test]
fn broken_input_is_a_typed_error() {
    let optimizer = Optimizer::new(Target::by_name("pvc").unwrap(), "-O").unwrap();
    let (_, words) = triton_kernels().into_iter().next().unwrap();
    for cut in [0, 1, 4, 20, words.len() / 2] {
        assert!(optimizer.run(&words[..cut]).is_err(), "cut at {cut}");
    }
    let mut bad = words.clone();
    bad[0] = 0xdead_beef;
    assert!(optimizer.run(&bad).is_err());
}
