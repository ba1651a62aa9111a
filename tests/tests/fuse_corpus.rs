//! `fuse-block-loads` on the Triton corpus (native form, and builtin form raised first):
//! split-then-fuse gives back the original number and shapes of 2D block operations; fusing the
//! originals is idempotent; every result is simulator-identical to the original on the corpus
//! README launches.

use std::collections::BTreeMap;

use spvopt_analysis::block_io::{block_instructions, BlockOperands};
use spvopt_analysis::Target;
use spvopt_passes::{run_pipeline, Pipeline};
use spvopt_tests::corpus_launches::{readme_launches, same_results, GEMMS};

fn run(m: &spvopt_ir::Module, pipeline: &str) -> (spvopt_ir::Module, bool) {
    let mut out = spvopt_ir::load_words(&m.to_words()).unwrap();
    let target = Target::by_name("pvc").unwrap();
    let report = run_pipeline(
        &Pipeline::parse(pipeline).unwrap(),
        &mut out,
        &target,
        &mut spvopt_tests::checked_hooks(),
    )
    .unwrap_or_else(|e| panic!("{pipeline}: {e}"));
    (out, report.changed())
}

/// (kind, element size, width, height, count) → number of such operations.
fn shapes(m: &spvopt_ir::Module) -> BTreeMap<(u8, u32, u32, u32, u32), u32> {
    let mut v = BTreeMap::new();
    for i in block_instructions(m) {
        let o = BlockOperands::read(m.inst(i)).unwrap();
        let s = o.shape(m).unwrap();
        *v.entry((o.kind as u8, s.element_size, s.width, s.height, s.count))
            .or_insert(0) += 1;
    }
    v
}

fn check(name: &str, original: &spvopt_ir::Module, launches: &[spvopt_sim::Launch]) {
    let (split, _) = run(original, "split-block-loads");
    let (refused, _) = run(&split, "fuse-block-loads");
    assert_eq!(
        shapes(&refused),
        shapes(original),
        "{name}: split then fuse restores the 2D block operations"
    );
    let (fused, _) = run(original, "fuse-block-loads");
    let (again, changed) = run(&fused, "fuse-block-loads");
    assert!(
        !changed && again.to_words() == fused.to_words(),
        "{name}: fuse is idempotent"
    );
    for l in launches {
        same_results(original, &refused, l).unwrap_or_else(|e| panic!("{name} split+fuse: {e}"));
        same_results(original, &fused, l).unwrap_or_else(|e| panic!("{name} fuse: {e}"));
        same_results(original, &split, l).unwrap_or_else(|e| panic!("{name} split: {e}"));
    }
}

#[test]
fn fuse_on_native_and_raised_corpus() {
    for g in GEMMS.iter() {
        let launches = readme_launches(g);
        let native_path = spvopt_tests::corpus_dir()
            .join("triton/native")
            .join(g.file);
        if native_path.exists() {
            let m = spvopt_ir::load_bytes(&std::fs::read(&native_path).unwrap()).unwrap();
            check(&format!("native/{}", g.file), &m, &launches);
        }
        let builtin = spvopt_ir::load_bytes(
            &std::fs::read(spvopt_tests::corpus_dir().join("triton").join(g.file)).unwrap(),
        )
        .unwrap();
        let (raised, _) = run(&builtin, "raise-builtins");
        check(&format!("raised {}", g.file), &raised, &launches);
    }
}

/// Every load `fuse-block-loads` considers ends with exactly one outcome: the `load_outcome_*`
/// statistics (fused, reused, or kept with one reason) sum to `loads_before`, on every corpus
/// module (native, builtin form, split first, the OpenCL samples, the converted tensor GEMM) and
/// every fuse fixture, and the fused / reused counts agree with `loads_fused` / `loads_reused`.
#[test]
fn every_considered_load_has_one_outcome() {
    let target = Target::by_name("pvc").unwrap();
    let mut modules: Vec<(String, Vec<u32>)> = Vec::new();
    for f in spvopt_tests::corpus_files() {
        let bytes = std::fs::read(&f).unwrap();
        let words: Vec<u32> = bytes
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        modules.push((f.display().to_string(), words));
    }
    for f in spvopt_tests::fixtures_in("passes") {
        let name = f.file_name().unwrap().to_string_lossy().to_string();
        if !name.starts_with("fuse_block_loads") {
            continue;
        }
        let src = std::fs::read_to_string(&f).unwrap();
        let env = spvopt_ir::text::parse_target_env("spv1.4").unwrap();
        modules.push((name, spvopt_ir::text::assemble(&src, env).unwrap()));
    }
    let mut checked = 0;
    let mut fused_total = 0;
    for (name, words) in modules {
        for pipeline in [
            "fuse-block-loads",
            "raise-builtins,split-block-loads,fuse-block-loads",
        ] {
            let Ok((_, report)) = spvopt_passes::optimize_words(&words, pipeline, &target) else {
                continue;
            };
            let Some(p) = report.passes.iter().find(|p| p.name == "fuse-block-loads") else {
                continue;
            };
            let s = &p.stats;
            let outcomes: u64 =
                s.0.iter()
                    .filter(|(k, _)| k.starts_with("load_outcome_"))
                    .map(|(_, v)| *v)
                    .sum();
            assert_eq!(
                outcomes,
                s.get("loads_before"),
                "{name} ({pipeline}): outcomes do not account for every load: {s}"
            );
            assert_eq!(
                s.get("load_outcome_fused"),
                s.get("loads_fused"),
                "{name}: {s}"
            );
            assert_eq!(
                s.get("load_outcome_reused"),
                s.get("loads_reused"),
                "{name}: {s}"
            );
            checked += 1;
            fused_total += s.get("load_outcome_fused");
        }
    }
    assert!(checked >= 40, "{checked} runs");
    assert!(fused_total > 0);
}
