//! Times loading a module and computing every analysis on it.
//!
//! `cargo run --release -p spvopt-analysis --example bench_analyses -- FILE.spv [ROUNDS]`
//!
//! Prints, per round, the load time, each analysis's time (in dependency order, each one
//! computed once through the cache) and the ratio of all analyses to the load; then the same
//! with the minimum of each figure over the rounds (the machine may be shared and noisy). A
//! final line times the queries a pass would make over every 2D block operation (affine
//! coordinates, folded shapes, uniform operands) once the analyses exist.

use std::time::{Duration, Instant};

use spvopt_analysis::alias::Alias;
use spvopt_analysis::block_io::block_io;
use spvopt_analysis::builtins::Callees;
use spvopt_analysis::constants::Constants;
use spvopt_analysis::decorations::Decorations;
use spvopt_analysis::provenance::Provenance;
use spvopt_analysis::uniformity::Uniformity;
use spvopt_analysis::{Analyses, Cfg, Dominators, Induction, Loops, PostDominators};

fn timed<T>(f: impl FnOnce() -> T) -> (T, Duration) {
    let t = Instant::now();
    let r = f();
    (r, t.elapsed())
}

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(path) = args.next() else {
        eprintln!("usage: bench_analyses FILE.spv [ROUNDS]");
        std::process::exit(2);
    };
    let rounds: usize = args.next().and_then(|r| r.parse().ok()).unwrap_or(3);
    let bytes = match std::fs::read(&path) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("cannot read {path}: {e}");
            std::process::exit(1);
        }
    };
    let mut best_load = Duration::MAX;
    let mut best: Vec<(&str, Duration)> = Vec::new();
    for round in 0..rounds {
        let (m, load) = timed(|| spvopt_ir::load_bytes(&bytes));
        let m = match m {
            Ok(m) => m,
            Err(e) => {
                eprintln!("cannot load {path}: {e}");
                std::process::exit(1);
            }
        };
        let mut a = Analyses::new();
        let mut parts: Vec<(&str, Duration)> = Vec::new();
        macro_rules! step {
            ($name:expr, $ty:ty) => {{
                let (_, d) = timed(|| a.get::<$ty>(&m));
                parts.push(($name, d));
            }};
        }
        step!("cfg", Cfg);
        step!("dominators", Dominators);
        step!("post-dominators", PostDominators);
        step!("loops", Loops);
        step!("induction", Induction);
        step!("constants", Constants);
        step!("provenance", Provenance);
        step!("uniformity", Uniformity);
        step!("alias", Alias);
        let total: Duration = parts.iter().map(|(_, d)| *d).sum();
        best_load = best_load.min(load);
        if best.is_empty() {
            best = parts.clone();
        }
        for (b, p) in best.iter_mut().zip(&parts) {
            b.1 = b.1.min(p.1);
        }
        println!(
            "round {round}: {} instructions; load {:.1} ms; analyses {:.1} ms ({:.2}x load)",
            m.instruction_count(),
            load.as_secs_f64() * 1e3,
            total.as_secs_f64() * 1e3,
            total.as_secs_f64() / load.as_secs_f64()
        );
        let detail: Vec<String> = parts
            .iter()
            .map(|(n, d)| format!("{n} {:.1}", d.as_secs_f64() * 1e3))
            .collect();
        println!("  ms: {}", detail.join(", "));
        if round + 1 == rounds {
            let total: Duration = best.iter().map(|(_, d)| *d).sum();
            println!(
                "min over {rounds} rounds: load {:.1} ms; analyses {:.1} ms ({:.2}x load)",
                best_load.as_secs_f64() * 1e3,
                total.as_secs_f64() * 1e3,
                total.as_secs_f64() / best_load.as_secs_f64()
            );
            let detail: Vec<String> = best
                .iter()
                .map(|(n, d)| format!("{n} {:.1}", d.as_secs_f64() * 1e3))
                .collect();
            println!("  ms: {}", detail.join(", "));
            let ((n, affine, shaped, uniform), q) = timed(|| {
                let dec = Decorations::build(&m);
                let callees = Callees::build(&m, &dec);
                let ind = a.get::<Induction>(&m);
                let loops = a.get::<Loops>(&m);
                let consts = a.get::<Constants>(&m);
                let uni = a.get::<Uniformity>(&m);
                let (mut n, mut affine, mut shaped, mut uniform) = (0, 0, 0, 0);
                for f in m.function_ids() {
                    for &b in &m.function(f).blocks {
                        for i in m.block_insts(b) {
                            let Some(op) = block_io(&m, &callees, i) else {
                                continue;
                            };
                            n += 1;
                            let in_loop = loops.innermost(b);
                            if in_loop
                                .is_some_and(|l| ind.vector_affine_in_loop(op.coord, l).is_some())
                            {
                                affine += 1;
                            }
                            if consts.block_shape(&op).is_some() {
                                shaped += 1;
                            }
                            if op.uniform_operands().all(|x| uni.is_uniform(x)) {
                                uniform += 1;
                            }
                        }
                    }
                }
                (n, affine, shaped, uniform)
            });
            println!(
                "  queries over {n} 2D block ops ({affine} affine in a loop, {shaped} with constant shape, {uniform} uniform): {:.2} ms",
                q.as_secs_f64() * 1e3
            );
        }
    }
}
