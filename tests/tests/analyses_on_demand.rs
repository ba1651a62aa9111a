//! Analyses only where needed (issue 30): `fuse-block-loads` and `insert-prefetches` take
//! footprints from `BlockGeometry` and ask the cache for `Alias` and `Uniformity` only when a
//! decision needs them. Checked here: on Triton's GEMM (no load with a partner, every load
//! prefetched already) neither is computed; where a decision needs them (split loads to fuse
//! again, stripped prefetches to insert again) they are; and on every corpus kernel
//! `fuse-block-loads` decides exactly as when it filters every group by uniformity, so the
//! shortcut changes no decision.

use std::path::{Path, PathBuf};

use spvopt_analysis::uniformity::Uniformity;
use spvopt_analysis::{Alias, Analyses, Target};
use spvopt_ir::Module;
use spvopt_passes::fuse_block_loads::with_every_group_checked;
use spvopt_passes::{lookup, Changes, PassResult};

const GEMM: &str = "triton/native/gemm_fp16_blockptr_128x128x32_w8__pvc.spv";

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus")
}

fn load(rel: &str) -> Module {
    let bytes = std::fs::read(corpus().join(rel)).expect("read corpus file");
    spvopt_ir::load_bytes(&bytes).expect("load corpus file")
}

fn run(name: &str, m: &mut Module, a: &mut Analyses) -> PassResult {
    let info = lookup(name).expect("registered pass");
    let mut pass = (info.construct)(&Vec::new()).expect("default options");
    pass.run(m, a, &Target::named("pvc"), &mut Changes::unlimited())
        .unwrap_or_else(|e| panic!("{name}: {e}"))
}

#[test]
fn triton_gemm_computes_neither_alias_nor_uniformity() {
    let mut m = load(GEMM);
    let before = m.to_words();
    let mut a = Analyses::new();
    let r = run("fuse-block-loads", &mut m, &mut a);
    assert!(!r.changed);
    assert_eq!(r.stats.get("loads_before"), 3);
    assert_eq!(r.stats.get("load_outcome_kept_no_partner"), 3);
    assert!(!a.is_cached::<Alias>() && !a.is_cached::<Uniformity>());
    let r = run("insert-prefetches", &mut m, &mut a);
    assert!(!r.changed);
    assert_eq!(r.stats.get("skipped_already_prefetched"), 3);
    assert!(!a.is_cached::<Alias>() && !a.is_cached::<Uniformity>());
    assert_eq!(m.to_words(), before);
}

#[test]
fn decisions_that_need_uniformity_still_get_it() {
    // Prefetches stripped: the loads need prefetches, whose operands must be uniform.
    let mut m = load(GEMM);
    run("strip-prefetches", &mut m, &mut Analyses::new());
    let mut a = Analyses::new();
    let r = run("insert-prefetches", &mut m, &mut a);
    assert!(
        r.changed && r.stats.get("loads_prefetched") == 3,
        "{}",
        r.stats
    );
    assert!(a.is_cached::<Uniformity>());

    // Loads split in two: the halves are adjacent, their fusion needs uniformity and alias.
    let mut m = load(GEMM);
    let split = run("split-block-loads", &mut m, &mut Analyses::new());
    assert!(split.changed, "{}", split.stats);
    let mut a = Analyses::new();
    let r = run("fuse-block-loads", &mut m, &mut a);
    assert!(r.stats.get("loads_fused") > 0, "{}", r.stats);
    assert!(a.is_cached::<Uniformity>() && a.is_cached::<Alias>());
}

/// `fuse-block-loads` decides the same with its shortcut (uniformity asked only for a group
/// with a column-adjacent pair) as when every group of two or more is filtered by uniformity
/// first (`with_every_group_checked`, the way before issue 30), on every corpus kernel, raised
/// to native form, as is and after splitting its loads (so that fusion has candidates): the
/// same output and the same fusions. (`insert-prefetches` only reordered pure checks and the
/// cross-block search of `fuse-block-loads` only swapped two filters; a rejection there never
/// depended on another.)
#[test]
fn the_adjacency_shortcut_changes_no_decision_on_the_corpus() {
    let mut files: Vec<PathBuf> = Vec::new();
    let mut dirs = vec![corpus()];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).expect("corpus dir").flatten() {
            let p = e.path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|x| x == "spv") {
                files.push(p);
            }
        }
    }
    files.sort();
    assert!(files.len() >= 20, "corpus: {} files", files.len());
    let mut compared = 0;
    let mut fused = 0;
    for f in &files {
        let bytes = std::fs::read(f).expect("read");
        let Ok(mut base) = spvopt_ir::load_bytes(&bytes) else {
            continue;
        };
        run("raise-builtins", &mut base, &mut Analyses::new());
        let mut split = base.clone();
        run("split-block-loads", &mut split, &mut Analyses::new());
        for start in [&base, &split] {
            let mut shortcut = start.clone();
            let r_short = run("fuse-block-loads", &mut shortcut, &mut Analyses::new());
            let mut every = start.clone();
            let r_every = with_every_group_checked(|| {
                run("fuse-block-loads", &mut every, &mut Analyses::new())
            });
            let name = f.display();
            assert_eq!(
                shortcut.to_words(),
                every.to_words(),
                "{name}: output differs"
            );
            for c in ["loads_fused", "prefetches_fused", "loads_reused"] {
                assert_eq!(r_short.stats.get(c), r_every.stats.get(c), "{name}: {c}");
            }
            fused += r_short.stats.get("loads_fused");
            compared += 1;
        }
    }
    assert!(compared >= 40, "only {compared} runs compared");
    assert!(
        fused > 0,
        "no fusion in the corpus: the comparison says nothing"
    );
}
