//! Our dense dominator code (`Dominators::build`: Cooper-Harvey-Kennedy over the CFG's RPO,
//! arrays indexed by block) against petgraph's `algo::dominators::simple_fast` (the same
//! algorithm over a `petgraph` graph), on the same modules; checks that both give the same
//! immediate dominators.
//!
//! `cargo run --release -p spvopt-analysis --example bench_dominators -- [ROUNDS] FILE.spv…`
//! (no file: every kernel of `tests/corpus/triton`)
//!
//! Prints per module: blocks, then the minimum over ROUNDS (default 20) of: ours (from the
//! built CFG), petgraph's algorithm alone (on graphs built beforehand), and petgraph's with
//! the conversion from our CFG to its graphs (what using it in place of ours would cost).

use std::path::PathBuf;
use std::time::{Duration, Instant};

use petgraph::algo::dominators::simple_fast;
use petgraph::graph::{DiGraph, NodeIndex};
use spvopt_analysis::{Cfg, Dominators};
use spvopt_ir::{BlockId, Module};

/// One function's CFG as a petgraph graph (reachable blocks, RPO numbering) and its entry.
struct PgFunction {
    graph: DiGraph<BlockId, ()>,
    entry: NodeIndex,
}

fn to_petgraph(m: &Module, cfg: &Cfg) -> Vec<PgFunction> {
    let mut out = Vec::new();
    for f in m.function_ids() {
        let rpo = cfg.rpo(f);
        if rpo.is_empty() {
            continue;
        }
        let mut graph = DiGraph::with_capacity(rpo.len(), rpo.len() * 2);
        for &b in rpo {
            graph.add_node(b);
        }
        for (k, &b) in rpo.iter().enumerate() {
            for &s in cfg.succs(b) {
                if let Some(n) = cfg.rpo_number(s) {
                    graph.add_edge(NodeIndex::new(k), NodeIndex::new(n as usize), ());
                }
            }
        }
        out.push(PgFunction {
            graph,
            entry: NodeIndex::new(0),
        });
    }
    out
}

fn min_time(rounds: usize, mut f: impl FnMut()) -> Duration {
    (0..rounds)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .min()
        .unwrap_or_default()
}

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let rounds = match args.first().and_then(|a| a.parse::<usize>().ok()) {
        Some(r) => {
            args.remove(0);
            r.max(1)
        }
        None => 20,
    };
    let mut files: Vec<PathBuf> = args.into_iter().map(PathBuf::from).collect();
    if files.is_empty() {
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/corpus/triton");
        files = std::fs::read_dir(&root)
            .expect("tests/corpus/triton")
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "spv"))
            .collect();
        files.sort();
    }
    println!(
        "{:<48} {:>8} {:>12} {:>14} {:>16}",
        "module", "blocks", "ours", "petgraph alg", "petgraph+convert"
    );
    let (mut sum_ours, mut sum_alg, mut sum_conv) =
        (Duration::ZERO, Duration::ZERO, Duration::ZERO);
    for path in &files {
        let bytes = std::fs::read(path).expect("readable module");
        let m = spvopt_ir::load_bytes(&bytes).expect("a module");
        let cfg = Cfg::build(&m);
        // Same answers first.
        let ours = Dominators::build(&m, &cfg);
        let pg = to_petgraph(&m, &cfg);
        let mut blocks = 0;
        for f in &pg {
            let d = simple_fast(&f.graph, f.entry);
            for n in f.graph.node_indices() {
                blocks += 1;
                let b = f.graph[n];
                let theirs = d.immediate_dominator(n).map(|i| f.graph[i]);
                assert_eq!(ours.idom(b), theirs, "{}: idom of a block", path.display());
            }
        }
        let t_ours = min_time(rounds, || {
            std::hint::black_box(Dominators::build(&m, &cfg));
        });
        let t_alg = min_time(rounds, || {
            for f in &pg {
                std::hint::black_box(simple_fast(&f.graph, f.entry));
            }
        });
        let t_conv = min_time(rounds, || {
            for f in to_petgraph(&m, &cfg) {
                std::hint::black_box(simple_fast(&f.graph, f.entry));
            }
        });
        sum_ours += t_ours;
        sum_alg += t_alg;
        sum_conv += t_conv;
        let name = path.file_name().unwrap_or_default().to_string_lossy();
        println!(
            "{:<48} {:>8} {:>10.1}µs {:>12.1}µs {:>14.1}µs",
            name,
            blocks,
            t_ours.as_secs_f64() * 1e6,
            t_alg.as_secs_f64() * 1e6,
            t_conv.as_secs_f64() * 1e6
        );
    }
    println!(
        "{:<48} {:>8} {:>10.1}µs {:>12.1}µs {:>14.1}µs  (petgraph/ours: {:.2}x, with conversion {:.2}x)",
        "total",
        "",
        sum_ours.as_secs_f64() * 1e6,
        sum_alg.as_secs_f64() * 1e6,
        sum_conv.as_secs_f64() * 1e6,
        sum_alg.as_secs_f64() / sum_ours.as_secs_f64().max(1e-12),
        sum_conv.as_secs_f64() / sum_ours.as_secs_f64().max(1e-12),
    );
}
