//! Runs one pipeline on one kernel many times in-process (for `perf record`): the warm path of
//! a driver's JIT (an `Optimizer` prepared once).
//!
//! `cargo run --release -p spvopt-passes --example jit_loop -- KERNEL.spv PIPELINE [TARGET] [REPS]`

use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 2 {
        eprintln!("usage: jit_loop KERNEL.spv PIPELINE [TARGET] [REPS]");
        std::process::exit(2);
    }
    let bytes = std::fs::read(&args[0]).expect("read kernel");
    let words: Vec<u32> = bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    let target = spvopt_analysis::Target::by_name(args.get(2).map_or("pvc", |s| s.as_str()))
        .expect("target");
    let reps: usize = args.get(3).and_then(|r| r.parse().ok()).unwrap_or(2000);
    let optimizer = spvopt_passes::Optimizer::new(target, &args[1]).expect("pipeline");
    let start = Instant::now();
    for _ in 0..reps {
        let out = optimizer.run(&words).expect("optimize");
        std::hint::black_box(out);
    }
    println!(
        "{} x {}: {:.1} us per call",
        reps,
        args[1],
        start.elapsed().as_secs_f64() * 1e6 / reps as f64
    );
}
