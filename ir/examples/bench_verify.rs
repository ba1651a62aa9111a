//! Cost of the structural invariants: best-of-N time of `load_bytes` (which runs `verify`) and
//! of `verify` alone on a loaded module.
//! `cargo run --release -p spvopt-ir --example bench_verify -- MODULE.spv [REPS]`

use std::time::{Duration, Instant};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let path = args.get(1).expect("usage: bench_verify MODULE.spv [REPS]");
    let reps: usize = args
        .get(2)
        .map_or(5, |r| r.parse().expect("REPS is a number"));
    let bytes = std::fs::read(path).expect("reading the module");
    let (mut load, mut verify) = (Duration::MAX, Duration::MAX);
    let mut instructions = 0;
    for _ in 0..reps {
        let t = Instant::now();
        let m = spvopt_ir::load_bytes(&bytes).expect("the module loads");
        load = load.min(t.elapsed());
        let t = Instant::now();
        spvopt_ir::verify(&m).expect("a loaded module verifies");
        verify = verify.min(t.elapsed());
        instructions = m.instruction_count();
    }
    println!(
        "{instructions} instructions: load (verify included) {:.1} us, verify alone {:.1} us ({:.0}% of the load)",
        load.as_secs_f64() * 1e6,
        verify.as_secs_f64() * 1e6,
        100.0 * verify.as_secs_f64() / load.as_secs_f64()
    );
}
