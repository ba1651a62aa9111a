//! Per-call latency of the C API as a driver's JIT sees it: one optimizer per pipeline
//! (validation off, as in a driver), the first call of the process and the median / minimum of
//! warm calls, on the native Triton GEMM.
//!
//! `cargo run --release -p spvopt-capi --example jit_latency [KERNEL.spv] [REPS]`

use std::ffi::CString;
use std::time::{Duration, Instant};

use spvopt::*;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let path = args.first().cloned().unwrap_or_else(|| {
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../tests/corpus/triton/native/gemm_fp16_blockptr_128x128x32_w8__pvc.spv"
        )
        .into()
    });
    let reps: usize = args.get(1).and_then(|r| r.parse().ok()).unwrap_or(200);
    let bytes = std::fs::read(&path).expect("read kernel");
    let words: Vec<u32> = bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    println!(
        "{path}: {} words, {reps} warm calls per pipeline",
        words.len()
    );
    println!(
        "{:<22} {:>14} {:>14} {:>14}",
        "pipeline", "first (us)", "median (us)", "min (us)"
    );
    for flag in [
        "--strip-debug",
        "--fuse-block-loads",
        "--insert-prefetches",
        "--legalize",
        "-O",
    ] {
        let target = CString::new("pvc").unwrap();
        let flag_c = CString::new(flag).unwrap();
        let mut opt = std::ptr::null_mut();
        // SAFETY: valid strings and out pointers; the optimizer is destroyed below.
        unsafe {
            assert_eq!(
                spvopt_optimizer_create(target.as_ptr(), &mut opt),
                SpvoptResult::SPVOPT_SUCCESS
            );
            assert_eq!(
                spvopt_optimizer_register_pass_from_flag(opt, flag_c.as_ptr()),
                SpvoptResult::SPVOPT_SUCCESS
            );
            spvopt_optimizer_set_validation(opt, 0);
        }
        let call = || {
            let mut out = std::ptr::null_mut();
            let start = Instant::now();
            // SAFETY: `words` is live for the call; `out` is freed right after.
            let r = unsafe {
                spvopt_optimizer_run(
                    opt,
                    words.as_ptr(),
                    words.len(),
                    &mut out,
                    std::ptr::null_mut(),
                )
            };
            let t = start.elapsed();
            assert_eq!(r, SpvoptResult::SPVOPT_SUCCESS);
            // SAFETY: returned by run.
            unsafe { spvopt_binary_destroy(out) };
            t
        };
        let first = call();
        let mut warm: Vec<Duration> = (0..reps).map(|_| call()).collect();
        warm.sort();
        println!(
            "{flag:<22} {:>14.1} {:>14.1} {:>14.1}",
            first.as_secs_f64() * 1e6,
            warm[warm.len() / 2].as_secs_f64() * 1e6,
            warm[0].as_secs_f64() * 1e6
        );
        // SAFETY: created above, not used afterwards.
        unsafe { spvopt_optimizer_destroy(opt) };
    }
}
