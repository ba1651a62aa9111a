//! Analyses only where needed (issue 30): `fuse-block-loads` and `insert-prefetches` take
//! footprints from `BlockGeometry` and ask the cache for `Alias` and `Uniformity` only when a
//! decision needs them. Checked here: on Triton's GEMM (no load with a partner, every load
//! prefetched already) neither is computed; where a decision needs them (split loads to fuse
//! again need alias, stripped prefetches to insert again need the uniformity of their step)
//! they are. The operands of a 2D block load are uniform by the extension's rule (issue 42):
//! uniformity is asked only about control (fusion across blocks) and prefetch steps.

use std::path::{Path, PathBuf};

use spvopt_analysis::uniformity::Uniformity;
use spvopt_analysis::{Alias, Analyses, Target};
use spvopt_ir::Module;
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

    // Loads split in two: the halves are adjacent, their fusion needs alias ("nothing
    // between writes the region"; the operands of a 2D block load are uniform by
    // SPV_INTEL_2d_block_io, uniform control across blocks is asked of the analysis).
    let mut m = load(GEMM);
    let split = run("split-block-loads", &mut m, &mut Analyses::new());
    assert!(split.changed, "{}", split.stats);
    let mut a = Analyses::new();
    let r = run("fuse-block-loads", &mut m, &mut a);
    assert!(r.stats.get("loads_fused") > 0, "{}", r.stats);
    // The pass drops what its column phase's changes invalidate before its vertical phase
    // plans on the result, and its result declares only the CFG analyses preserved: Alias
    // (asked for by the column phase) is computed again, from the vertical phase's module, when
    // that phase asks too, and no cached analysis describes an older module.
    assert!(r.changed);
    assert!(
        a.stale(&m).is_empty(),
        "stale after fuse-block-loads: {:?}",
        a.stale(&m)
    );
}
