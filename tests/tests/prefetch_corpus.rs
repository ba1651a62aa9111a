//! `insert-prefetches` on the Triton GEMMs (native form): `strip-prefetches` then
//! `insert-prefetches` is simulator-identical to the original and its prefetch coverage
//! (simulator counter: 2D-load lines an earlier prefetch of the work-group touched) is at least
//! that of Triton's own prefetches, on launches with K ≥ 4 tiles; the pass leaves the
//! (already prefetched) originals unchanged and is idempotent.

use spvopt_analysis::Target;
use spvopt_passes::{run_pipeline, Pipeline, RunReport};
use spvopt_sim::Launch;
use spvopt_tests::corpus_launches::{gemm_launch, same_results, CorpusKernel, GEMMS};

fn run(m: &spvopt_ir::Module, pipeline: &str) -> (spvopt_ir::Module, RunReport) {
    let mut out = spvopt_ir::load_words(&m.to_words()).unwrap();
    let target = Target::by_name("pvc").unwrap();
    let report = run_pipeline(
        &Pipeline::parse(pipeline).unwrap(),
        &mut out,
        &target,
        &mut spvopt_tests::checked_hooks(),
    )
    .unwrap_or_else(|e| panic!("{pipeline}: {e}"));
    (out, report)
}

/// The README's aligned and ragged launches with K stretched to at least 4 K-tiles.
fn long_k_launches(g: &CorpusKernel) -> Vec<Launch> {
    if g.tile_m == 8 {
        // K tile 64.
        vec![gemm_launch(g, 16, 512, 256), gemm_launch(g, 12, 520, 264)]
    } else {
        // K tile 32.
        vec![gemm_launch(g, 128, 128, 128), gemm_launch(g, 100, 104, 136)]
    }
}

fn stat(r: &RunReport, pass: &str, key: &str) -> u64 {
    r.passes
        .iter()
        .filter(|p| p.name == pass)
        .map(|p| p.stats.get(key))
        .sum()
}

#[test]
fn strip_then_insert_matches_triton_coverage() {
    let mut checked = 0;
    for g in GEMMS.iter() {
        let path = spvopt_tests::corpus_dir()
            .join("triton/native")
            .join(g.file);
        let Ok(bytes) = std::fs::read(&path) else {
            continue;
        };
        let original = spvopt_ir::load_bytes(&bytes).unwrap();
        let name = g.file;
        // Only kernels with 2D block loads in a loop are in scope.
        let (_, probe) = run(&original, "strip-prefetches,insert-prefetches");
        if stat(&probe, "insert-prefetches", "loads_considered") == 0 {
            continue;
        }

        // Unchanged on Triton's already-prefetched output.
        let (same, report) = run(&original, "insert-prefetches");
        assert!(
            !report.changed() && same.to_words() == original.to_words(),
            "{name}: insert-prefetches changed Triton's output: {:?}",
            report
                .passes
                .iter()
                .map(|p| p.stats.to_string())
                .collect::<Vec<_>>()
        );
        assert!(
            stat(&report, "insert-prefetches", "skipped_already_prefetched") > 0,
            "{name}: expected loads recognised as already prefetched"
        );

        let (stripped, _) = run(&original, "strip-prefetches");
        let (ours, report) = run(&stripped, "insert-prefetches");
        assert!(report.changed(), "{name}: nothing inserted");
        assert!(
            stat(&report, "insert-prefetches", "prefetches_inserted") > 0
                && stat(&report, "insert-prefetches", "prologue_prefetches") > 0,
            "{name}: {:?}",
            report
                .passes
                .iter()
                .map(|p| p.stats.to_string())
                .collect::<Vec<_>>()
        );
        // Idempotent.
        let (again, report) = run(&ours, "insert-prefetches");
        assert!(
            !report.changed() && again.to_words() == ours.to_words(),
            "{name}: second run changed the module: {:?}",
            report
                .passes
                .iter()
                .map(|p| p.stats.to_string())
                .collect::<Vec<_>>()
        );

        for l in long_k_launches(g) {
            same_results(&original, &ours, &l).unwrap_or_else(|e| panic!("{name}: {e}"));
            let a = spvopt_sim::run(&original, &l).unwrap().counters;
            let b = spvopt_sim::run(&ours, &l).unwrap().counters;
            assert!(a.lines_loaded_2d > 0 && a.lines_loaded_2d == b.lines_loaded_2d);
            assert!(
                b.prefetch_coverage >= a.prefetch_coverage,
                "{name}: coverage {} (ours) < {} (Triton)",
                b.prefetch_coverage,
                a.prefetch_coverage
            );
            eprintln!(
                "{name} global {:?}: coverage Triton {:.3} ({} prefetches), ours {:.3} ({} prefetches)",
                l.global_size,
                a.prefetch_coverage,
                a.prefetches,
                b.prefetch_coverage,
                b.prefetches
            );
        }
        checked += 1;
    }
    assert!(
        checked >= 3,
        "expected the three 2D-block GEMMs, checked {checked}"
    );
}

/// The `insert_prefetches_*` pass fixtures alone (also run by `pass_fixtures`), for a quick
/// targeted run.
#[test]
fn insert_prefetches_fixtures() {
    let fixtures: Vec<_> = spvopt_tests::fixtures_in("passes")
        .into_iter()
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("insert_prefetches_"))
        })
        .collect();
    assert!(!fixtures.is_empty(), "found {} fixtures", fixtures.len());
    let failures: Vec<String> = fixtures
        .iter()
        .filter_map(|f| {
            spvopt_tests::run_fixture(f)
                .err()
                .map(|e| format!("{}: {e}", f.display()))
        })
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// `prefetch-cooperative` on the stripped native GEMMs: simulator-identical to the original,
/// never more prefetch messages than without the option, coverage reported. Most of Triton's
/// loads give each subgroup its own slice (coordinates add `SubgroupId`-derived offsets): the
/// pass cannot prove a shared tile and reports `cooperative_not_applied_subgroup_dependent`.
/// Where it splits (the 8×512 GEMM's A tile, shared by its 32 subgroups), every subgroup still
/// issues one (smaller) message, since the pass adds no control flow to idle the surplus
/// subgroups: the prefetched bytes drop, the message count does not, and the coverage stays
/// at least Triton's.
#[test]
fn cooperative_strip_then_insert_on_gemms() {
    let mut checked = 0;
    for g in GEMMS.iter() {
        let path = spvopt_tests::corpus_dir()
            .join("triton/native")
            .join(g.file);
        let Ok(bytes) = std::fs::read(&path) else {
            continue;
        };
        let original = spvopt_ir::load_bytes(&bytes).unwrap();
        let name = g.file;
        let (stripped, _) = run(&original, "strip-prefetches");
        let (plain, probe) = run(&stripped, "insert-prefetches");
        if stat(&probe, "insert-prefetches", "loads_prefetched") == 0 {
            continue;
        }
        let (coop, report) = run(&stripped, "insert-prefetches(prefetch-cooperative=true)");
        let split = stat(&report, "insert-prefetches", "cooperative_loads");
        let not_applied = stat(&report, "insert-prefetches", "cooperative_not_applied");
        assert_eq!(
            split + not_applied,
            stat(&report, "insert-prefetches", "loads_prefetched"),
            "{name}: every 2D plan is either split or reported"
        );
        eprintln!(
            "{name}: cooperative split {split} loads, not applied {not_applied} (subgroup \
             dependent {}, dependent control {}, unknown subgroup count {}, unsplittable {})",
            stat(
                &report,
                "insert-prefetches",
                "cooperative_not_applied_subgroup_dependent"
            ),
            stat(
                &report,
                "insert-prefetches",
                "cooperative_not_applied_subgroup_dependent_control"
            ),
            stat(
                &report,
                "insert-prefetches",
                "cooperative_not_applied_unknown_subgroup_count"
            ),
            stat(
                &report,
                "insert-prefetches",
                "cooperative_not_applied_unsplittable"
            ),
        );
        // Idempotent.
        let (again, r2) = run(&coop, "insert-prefetches(prefetch-cooperative=true)");
        assert!(
            !r2.changed() && again.to_words() == coop.to_words(),
            "{name}: second cooperative run changed the module"
        );
        for l in long_k_launches(g) {
            same_results(&original, &coop, &l).unwrap_or_else(|e| panic!("{name}: {e}"));
            let t = spvopt_sim::run(&original, &l).unwrap().counters;
            let a = spvopt_sim::run(&plain, &l).unwrap().counters;
            let b = spvopt_sim::run(&coop, &l).unwrap().counters;
            assert_eq!(a.lines_loaded_2d, b.lines_loaded_2d);
            assert!(
                b.prefetches <= a.prefetches,
                "{name}: cooperative {} > plain {} prefetches",
                b.prefetches,
                a.prefetches
            );
            if split > 0 {
                assert!(
                    b.prefetched_bytes < a.prefetched_bytes,
                    "{name}: no fewer prefetched bytes"
                );
                assert!(
                    b.prefetch_coverage >= t.prefetch_coverage,
                    "{name}: cooperative coverage {} < Triton {}",
                    b.prefetch_coverage,
                    t.prefetch_coverage
                );
            } else {
                assert_eq!(coop.to_words(), plain.to_words());
            }
            eprintln!(
                "{name} global {:?}: prefetches / bytes / coverage: Triton {} / {} / {:.3}; \
                 ours {} / {} / {:.3}; ours cooperative {} / {} / {:.3}",
                l.global_size,
                t.prefetches,
                t.prefetched_bytes,
                t.prefetch_coverage,
                a.prefetches,
                a.prefetched_bytes,
                a.prefetch_coverage,
                b.prefetches,
                b.prefetched_bytes,
                b.prefetch_coverage
            );
        }
        checked += 1;
    }
    assert!(
        checked >= 3,
        "expected the three 2D-block GEMMs, checked {checked}"
    );
}
