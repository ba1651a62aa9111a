//! 1,000 corrupted variants of corpus files (truncations, flipped words, huge word counts,
//! bad header fields) given to `spv-opt --skip-validation` with every pass alone and `-O`, on
//! every target (variant n: pipeline n mod P, target n/P mod 6): every run exits 0 (the
//! corruption happened to leave a loadable module, e.g. a changed constant) with an output that
//! reloads (so it passes `spvopt_ir::verify`), or 1 with a one-line `spv-opt: error:` message —
//! never a panic, a signal or a hang. Structural corruptions (truncation inside an instruction,
//! word count 0 or past the end) must give 1. Every run's peak RSS (wait4) must stay below the
//! memory budget 64 MiB + 40 × input size.

use std::io::Read;
use std::process::{Command, Stdio};

/// Runs `spv-opt ARGS`; returns exit code, stderr and the child's peak RSS in bytes. Measured
/// by `/usr/bin/time` when present: it fork()s spv-opt from its own small process, so the
/// figure is spv-opt's alone. A child spawned straight from this (large, multi-threaded) test
/// process shares its address space until exec, and Linux counts that in the child's
/// `ru_maxrss`; without `/usr/bin/time` we use that (an upper bound) via `wait4`.
// The child is reaped by `libc::wait4` (for its rusage), not by `Child::wait`.
#[allow(clippy::zombie_processes)]
fn run_measured(args: &[&std::ffi::OsStr], n: usize) -> (Option<i32>, String, u64) {
    let time = std::path::Path::new("/usr/bin/time");
    let rss_file = std::env::temp_dir().join(format!("spvopt-rss-{}-{n}", std::process::id()));
    let mut cmd = if time.exists() {
        let mut c = Command::new(time);
        c.arg("-f").arg("%M").arg("-o").arg(&rss_file);
        c.arg(env!("CARGO_BIN_EXE_spv-opt"));
        c
    } else {
        Command::new(env!("CARGO_BIN_EXE_spv-opt"))
    };
    let mut child = cmd
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    let mut status = 0;
    // SAFETY: plain libc call on our own child's pid with valid out-pointers; std's `Child`
    // is not waited on afterwards.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let pid = child.id() as libc::pid_t;
    let r = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(r, pid, "wait4 failed");
    let code = if libc::WIFEXITED(status) {
        Some(libc::WEXITSTATUS(status))
    } else {
        None
    };
    // ru_maxrss and %M are in KiB on Linux.
    let kib = match std::fs::read_to_string(&rss_file) {
        Ok(t) => {
            let _ = std::fs::remove_file(&rss_file);
            // `time` prints "Command exited with non-zero status N" before %M when N != 0.
            let last = t.lines().last().unwrap_or("").trim().to_string();
            last.parse::<u64>().expect("/usr/bin/time printed %M")
        }
        Err(_) => usage.ru_maxrss as u64,
    };
    (code, err, kib * 1024)
}

/// Every pass alone, then `-O`.
fn pipelines() -> Vec<Vec<String>> {
    let mut v: Vec<Vec<String>> = spvopt_passes::REGISTRY
        .iter()
        .map(|p| vec![format!("--{}", p.name)])
        .collect();
    v.push(vec!["-O".to_string()]);
    v
}

/// Every target profile.
fn targets() -> Vec<String> {
    spvopt_analysis::Target::all()
        .into_iter()
        .map(|t| t.name.clone())
        .collect()
}
const MIB: u64 = 1024 * 1024;

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

#[test]
fn corrupted_inputs_through_every_pipeline_and_target() {
    let files = [
        "triton/nodbg/softmax_fp32_1024_w4_sg16__pvc.spv",
        "triton/gemm_fp16_blockptr_128x128x32_w8__pvc.spv",
        "triton/native/gemm_bf16_ptr_128x128x32_w8__pvc.spv",
        "tensor/kernel_k1_tile_copy_crossworkgroup.spv",
    ];
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/corpus");
    let tmp = tempfile::Builder::new()
        .prefix("spvopt-corrupt-")
        .tempdir()
        .unwrap();
    let dir = tmp.path();
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let (mut ok, mut failed, mut structural) = (0, 0, 0);
    let (mut max_rss, mut max_share) = (0u64, 0f64);
    let pipelines = pipelines();
    let targets = targets();
    assert!(targets.len() >= 7, "targets: {targets:?}");
    for n in 0..1000 {
        let orig = std::fs::read(root.join(files[n % files.len()])).unwrap();
        let mut b = orig.clone();
        let words = b.len() / 4;
        let kind = n % 5;
        let must_fail = match kind {
            0 => {
                // truncate to a non-multiple of 4 or mid-module
                let cut = rng.below(b.len());
                b.truncate(cut);
                !cut.is_multiple_of(4) || cut < 20
            }
            1 => {
                // flip a random word
                let w = 5 + rng.below(words - 5);
                let v = rng.next() as u32;
                b[w * 4..w * 4 + 4].copy_from_slice(&v.to_le_bytes());
                false
            }
            2 => {
                // huge word count on an instruction's first word: find the first words by walking
                let mut pos = 5;
                let target = rng.below(200);
                for _ in 0..target {
                    let wc = u32::from_le_bytes(b[pos * 4..pos * 4 + 4].try_into().unwrap()) >> 16;
                    if pos + wc as usize >= words {
                        break;
                    }
                    pos += wc as usize;
                }
                let op = u32::from_le_bytes(b[pos * 4..pos * 4 + 4].try_into().unwrap()) & 0xffff;
                let wc = 0xffffu32 - rng.below(16) as u32;
                b[pos * 4..pos * 4 + 4].copy_from_slice(&(wc << 16 | op).to_le_bytes());
                pos + wc as usize > words
            }
            3 => {
                // word count 0 on some instruction
                let mut pos = 5;
                let target = rng.below(300);
                for _ in 0..target {
                    let wc = u32::from_le_bytes(b[pos * 4..pos * 4 + 4].try_into().unwrap()) >> 16;
                    if pos + wc as usize >= words {
                        break;
                    }
                    pos += wc as usize;
                }
                let op = u32::from_le_bytes(b[pos * 4..pos * 4 + 4].try_into().unwrap()) & 0xffff;
                b[pos * 4..pos * 4 + 4].copy_from_slice(&op.to_le_bytes());
                true
            }
            _ => {
                // header: magic, bound or version
                match rng.below(3) {
                    0 => {
                        b[0] ^= 0x5a;
                        true
                    }
                    1 => {
                        b[12..16].copy_from_slice(&(rng.below(4) as u32).to_le_bytes());
                        true
                    }
                    _ => {
                        let w = rng.next() as u32;
                        b[12..16].copy_from_slice(&w.to_le_bytes());
                        false
                    }
                }
            }
        };
        let input = dir.join(format!("c{n}.spv"));
        std::fs::write(&input, &b).unwrap();
        let out = dir.join(format!("c{n}.out.spv"));
        let pipeline = &pipelines[n % pipelines.len()];
        let target = &targets[(n / pipelines.len()) % targets.len()];
        let os = std::ffi::OsStr::new;
        let mut args: Vec<&std::ffi::OsStr> = vec![os("--skip-validation")];
        args.extend(pipeline.iter().map(|p| os(p.as_str())));
        args.extend([os("--target"), os(target.as_str()), input.as_os_str()]);
        args.extend([os("-o"), out.as_os_str()]);
        let (code, err, rss) = run_measured(&args, n);
        let budget = 64 * MIB + 40 * b.len() as u64;
        if rss >= budget {
            let keep = std::env::temp_dir().join(format!("spvopt-over-budget-{n}.spv"));
            std::fs::write(&keep, &b).unwrap();
            panic!(
                "variant {n} {pipeline:?} {target}: peak RSS {rss} >= budget {budget} (input: {})",
                keep.display()
            );
        }
        max_rss = max_rss.max(rss);
        max_share = max_share.max(rss as f64 / budget as f64);
        match code {
            Some(0) => {
                assert!(!must_fail, "variant {n} (kind {kind}) should have failed");
                let written = std::fs::read(&out).unwrap();
                if let Err(e) = spvopt_ir::load_bytes(&written) {
                    panic!("variant {n} {pipeline:?} {target}: output does not load: {e}");
                }
                ok += 1;
            }
            Some(1) => {
                assert!(err.starts_with("spv-opt: error:"), "variant {n}: {err}");
                let errors = err
                    .lines()
                    .filter(|l| l.starts_with("spv-opt: error:"))
                    .count();
                assert_eq!(errors, 1, "variant {n}: {err}");
                assert!(
                    err.lines()
                        .all(|l| l.starts_with("spv-opt: error:")
                            || l.starts_with("spv-opt: warning:")),
                    "variant {n}: {err}"
                );
                assert!(!out.exists(), "variant {n}: output written despite error");
                failed += 1;
                if must_fail {
                    structural += 1;
                }
            }
            other => {
                panic!("variant {n} {pipeline:?} {target} (kind {kind}): exit {other:?}: {err}")
            }
        }
        let _ = std::fs::remove_file(&input);
        let _ = std::fs::remove_file(&out);
    }
    eprintln!(
        "1000 variants over {} pipelines x {} targets: {failed} rejected with exit 1 \
         ({structural} structural), {ok} written and reloaded; peak RSS max {:.1} MiB, \
         at most {:.0}% of the budget 64 MiB + 40 x input",
        pipelines.len(),
        targets.len(),
        max_rss as f64 / MIB as f64,
        max_share * 100.0
    );
    assert!(
        failed >= 600,
        "most corruptions must be rejected, got {failed}"
    );
}

/// Passes on damaged modules that still load: operand words replaced by small values (other
/// valid ids, often) make modules the passes were not written for. Every pipeline must end with
/// exit 0 or a one-line error (exit 1) — never a panic or a hang.
#[test]
fn passes_never_panic_on_damaged_modules_that_load() {
    let files = [
        "triton/gemm_fp16_blockptr_128x128x32_w8__pvc.spv",
        "triton/native/gemm_fp16_blockptr_transB_128x128x32_w8__pvc.spv",
        "triton/native/gemm_fp16_blockptr_8x512x64_w32__pvc.spv",
        "triton/nodbg/softmax_fp32_1024_w4_sg32__pvc.spv",
        "tensor/kernel_k3_tile_transpose_view_clip_crossworkgroup.spv",
    ];
    let pipelines: [&[&str]; 3] = [
        &["-O", "--target", "pvc"],
        &["--target", "dg2", "--raise-builtins", "--legalize"],
        &[
            "--target",
            "pvc",
            "--split-block-loads",
            "--fuse-block-loads",
            "--insert-prefetches",
            "--strip-prefetches",
            "--lower-builtins",
            "--dce",
        ],
    ];
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/corpus");
    let tmp = tempfile::Builder::new()
        .prefix("spvopt-damaged-")
        .tempdir()
        .unwrap();
    let dir = tmp.path();
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let (mut loaded, mut runs) = (0, 0);
    for n in 0..400 {
        let mut b = std::fs::read(root.join(files[n % files.len()])).unwrap();
        let words = b.len() / 4;
        for _ in 0..1 + rng.below(3) {
            let w = 5 + rng.below(words - 5);
            let v = 1 + rng.below(600) as u32;
            b[w * 4..w * 4 + 4].copy_from_slice(&v.to_le_bytes());
        }
        if spvopt_ir::load_bytes(&b).is_err() {
            continue;
        }
        loaded += 1;
        let input = dir.join(format!("d{n}.spv"));
        std::fs::write(&input, &b).unwrap();
        let out = dir.join(format!("d{n}.out.spv"));
        for p in pipelines {
            let o = Command::new(env!("CARGO_BIN_EXE_spv-opt"))
                .arg("--skip-validation")
                .args(p)
                .arg(&input)
                .arg("-o")
                .arg(&out)
                .output()
                .unwrap();
            runs += 1;
            let err = String::from_utf8_lossy(&o.stderr);
            match o.status.code() {
                Some(0) => {}
                Some(1) => {
                    // Exactly one error line; anything else on stderr is a warning line.
                    let lines: Vec<&str> = err.lines().collect();
                    let errors = lines
                        .iter()
                        .filter(|l| l.starts_with("spv-opt: error:"))
                        .count();
                    assert_eq!(errors, 1, "variant {n} {p:?}: {err}");
                    assert!(
                        lines.iter().all(|l| l.starts_with("spv-opt: error:")
                            || l.starts_with("spv-opt: warning:")),
                        "variant {n} {p:?}: {err}"
                    );
                }
                other => panic!("variant {n} {p:?}: exit {other:?}: {err}"),
            }
        }
    }
    eprintln!("{loaded} damaged modules loaded; {runs} pipeline runs, no panic");
    assert!(
        loaded >= 20,
        "too few damaged modules loaded ({loaded}) to exercise the passes"
    );
}
