//! Time of `lower-mma` on chains of N SG16 f16 MMAs (M 8, K 16) emulated for mtl, which has no
//! MMA hardware: the pass is linear when the time per MMA stays flat as N grows.
//!
//! `cargo run --release -p spvopt-tests --example lower_mma_bench [COUNTS] [REPS]`
//! COUNTS: comma-separated MMA counts (default 250,1000,4000); REPS: runs per count, the best is
//! reported (default 5). The modules come from `spvopt_tests::mma_chain_module`.

use spvopt_analysis::Target;
use spvopt_passes::lower_mma::LowerMma;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let counts: Vec<usize> = args
        .first()
        .map(|s| s.split(',').filter_map(|x| x.parse().ok()).collect())
        .unwrap_or_else(|| vec![250, 1000, 4000]);
    let reps: usize = args.get(1).and_then(|r| r.parse().ok()).unwrap_or(5);
    let target = Target::mtl();
    println!(
        "{:>6} {:>10} {:>12} {:>12} {:>12}",
        "MMAs", "in instrs", "out instrs", "best (ms)", "us / MMA"
    );
    let mut first: Option<f64> = None;
    for n in counts {
        let input = spvopt_ir::load_words(&spvopt_tests::mma_chain_module(n)).expect("loads");
        let (best, out) = spvopt_tests::best_pass_time(&mut LowerMma, &input, &target, reps);
        let out_n = out.instruction_count();
        let per = best.as_secs_f64() * 1e6 / n as f64;
        let ratio = first.map_or(String::new(), |f| {
            format!("  ({:.2}x the first count)", per / f)
        });
        first.get_or_insert(per);
        println!(
            "{n:>6} {:>10} {out_n:>12} {:>12.1} {per:>12.1}{ratio}",
            input.instruction_count(),
            best.as_secs_f64() * 1e3
        );
    }
}
