//! `spv-bench jit`: in-process latency of single passes and `-O`, as a driver's JIT sees it.
//!
//! For every kernel and pipeline: the **first call** of a fresh process (measured in a child
//! process, `spv-bench --jit-first KERNEL PIPELINE TARGET`: one-time table initialisation and
//! cold caches included) and **warm** calls (the same [`Optimizer`] run again on the same
//! words in this process: median and minimum). The `load+emit` row is an empty pipeline: load
//! (with the structural check), emit — the floor under every pass. Validation is off, as in a
//! driver. Figures, not assertions: the machine's load shows in them.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::json;
use spvopt_analysis::Target;
use spvopt_passes::Optimizer;

/// The pipelines measured, as (row label, pipeline string).
pub const PIPELINES: [(&str, &str); 6] = [
    ("load+emit", ""),
    ("strip-debug", "strip-debug"),
    ("fuse-block-loads", "fuse-block-loads"),
    ("insert-prefetches", "insert-prefetches"),
    ("legalize", "legalize"),
    ("-O", "O"),
];

/// One measured row.
#[derive(Clone, Debug)]
pub struct JitRow {
    pub kernel: String,
    pub words: usize,
    pub pipeline: &'static str,
    pub first_us: f64,
    pub warm_median_us: f64,
    pub warm_min_us: f64,
}

/// Reads a SPIR-V binary as little-endian words (what the corpus holds).
pub fn read_words(path: &Path) -> Result<Vec<u32>, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    if bytes.len() % 4 != 0 {
        return Err(format!("{}: not a whole number of words", path.display()));
    }
    Ok(bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect())
}

/// The corpus kernels in the repository (`tests/corpus/triton`, its `native/` and `nodbg/`
/// forms, and `examples/`), sorted.
pub fn default_kernels() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut v = Vec::new();
    for dir in [
        "tests/corpus/triton",
        "tests/corpus/triton/native",
        "tests/corpus/triton/nodbg",
        "examples",
    ] {
        if let Ok(rd) = std::fs::read_dir(root.join(dir)) {
            v.extend(
                rd.filter_map(|e| e.ok().map(|e| e.path()))
                    .filter(|p| p.extension().is_some_and(|x| x == "spv")),
            );
        }
    }
    v.sort();
    v
}

/// The child side: one call of `pipeline` on `kernel` in this (fresh) process; prints the
/// microseconds.
pub fn first_call(kernel: &Path, pipeline: &str, target: &str) -> Result<f64, String> {
    let words = read_words(kernel)?;
    let target = Target::by_name(target).map_err(|e| e.to_string())?;
    let start = Instant::now();
    let optimizer = Optimizer::new(target, pipeline).map_err(|e| e.to_string())?;
    optimizer.run(&words).map_err(|e| e.to_string())?;
    Ok(start.elapsed().as_secs_f64() * 1e6)
}

/// Measures every kernel × pipeline: first call in a child process of `exe`, `reps` warm calls
/// here.
pub fn measure(
    exe: &Path,
    kernels: &[PathBuf],
    target: &str,
    reps: usize,
) -> Result<Vec<JitRow>, String> {
    let t = Target::by_name(target).map_err(|e| e.to_string())?;
    let mut rows = Vec::new();
    for k in kernels {
        let words = read_words(k)?;
        let name = k
            .strip_prefix(Path::new(env!("CARGO_MANIFEST_DIR")).join(".."))
            .unwrap_or(k)
            .display()
            .to_string();
        for (label, pipeline) in PIPELINES {
            let out = Command::new(exe)
                .arg("--jit-first")
                .arg(k)
                .arg(pipeline)
                .arg(target)
                .output()
                .map_err(|e| format!("running {}: {e}", exe.display()))?;
            if !out.status.success() {
                // A pipeline the kernel cannot take (e.g. an MMA the target lacks): reported.
                let why = String::from_utf8_lossy(&out.stderr).trim().to_string();
                eprintln!("spv-bench: {name} {label}: skipped ({why})");
                continue;
            }
            let first_us: f64 = String::from_utf8_lossy(&out.stdout)
                .trim()
                .parse()
                .map_err(|_| format!("{name} {label}: the child printed no time"))?;
            let optimizer = Optimizer::new(t.clone(), pipeline).map_err(|e| e.to_string())?;
            let mut warm: Vec<Duration> = Vec::with_capacity(reps);
            for _ in 0..reps.max(1) {
                let start = Instant::now();
                let out = optimizer
                    .run(&words)
                    .map_err(|e| format!("{name} {label}: {e}"))?;
                warm.push(start.elapsed());
                std::hint::black_box(out);
            }
            warm.sort();
            rows.push(JitRow {
                kernel: name.clone(),
                words: words.len(),
                pipeline: label,
                first_us,
                warm_median_us: warm[warm.len() / 2].as_secs_f64() * 1e6,
                warm_min_us: warm[0].as_secs_f64() * 1e6,
            });
        }
    }
    Ok(rows)
}

/// The table `spv-bench jit` prints.
pub fn table(rows: &[JitRow]) -> String {
    let mut s = format!(
        "{:<64} {:>6} {:<18} {:>10} {:>11} {:>9}\n",
        "kernel", "words", "pipeline", "first(us)", "median(us)", "min(us)"
    );
    for r in rows {
        s.push_str(&format!(
            "{:<64} {:>6} {:<18} {:>10.1} {:>11.1} {:>9.1}\n",
            r.kernel, r.words, r.pipeline, r.first_us, r.warm_median_us, r.warm_min_us
        ));
    }
    s
}

/// The rows as JSON.
pub fn to_json(rows: &[JitRow], target: &str, reps: usize) -> serde_json::Value {
    json!({
        "target": target,
        "warm_calls": reps,
        "rows": rows.iter().map(|r| json!({
            "kernel": r.kernel,
            "words": r.words,
            "pipeline": r.pipeline,
            "first_us": r.first_us,
            "warm_median_us": r.warm_median_us,
            "warm_min_us": r.warm_min_us,
        })).collect::<Vec<_>>(),
    })
}
