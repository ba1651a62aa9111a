//! A single pass on raw compiler output (Triton's builtin calls, with and without line info)
//! does what it does on the native form: the pass manager raises the calls before a pass that
//! works on native ops and lowers them back at the end, so the output keeps the builtin form;
//! when nothing changed, the output is the input byte for byte. Every result is
//! simulator-identical to the original on the corpus README launches, and validates.

use std::collections::BTreeMap;

use spvopt_analysis::Target;
use spvopt_ir::spirv::Op;
use spvopt_ir::Module;
use spvopt_passes::{run_pipeline, Pipeline, RunReport};
use spvopt_tests::corpus_launches::{readme_launches, same_results, GEMMS};

fn run(m: &Module, pipeline: &str) -> (Module, RunReport) {
    let mut out = m.clone();
    let report = run_pipeline(
        &Pipeline::parse(pipeline).unwrap(),
        &mut out,
        &Target::by_name("pvc").unwrap(),
        &mut spvopt_tests::checked_hooks(),
    )
    .unwrap_or_else(|e| panic!("{pipeline}: {e}"));
    (out, report)
}

fn native_ops(m: &Module) -> usize {
    m.all_insts()
        .filter(|&i| {
            matches!(
                m.inst(i).op(),
                Some(
                    Op::Subgroup2DBlockLoadINTEL
                        | Op::Subgroup2DBlockLoadTransformINTEL
                        | Op::Subgroup2DBlockLoadTransposeINTEL
                        | Op::Subgroup2DBlockStoreINTEL
                        | Op::Subgroup2DBlockPrefetchINTEL
                        | Op::SubgroupMatrixMultiplyAccumulateINTEL
                )
            )
        })
        .count()
}

/// Calls to 2D block / MMA builtins, by the builtin's base name.
fn builtin_calls(m: &Module) -> BTreeMap<String, usize> {
    let names = spvopt_analysis::builtins::debug_names(m, &|_| true);
    let linkage: BTreeMap<u32, String> = spvopt_passes::builtin_mangling::linkages(m)
        .into_iter()
        .map(|l| (l.target.word(), l.name))
        .collect();
    let mut out = BTreeMap::new();
    for i in m.all_insts() {
        let inst = m.inst(i);
        if !inst.is(Op::FunctionCall) {
            continue;
        }
        let Some(callee) = inst.operand_id(0) else {
            continue;
        };
        let name = linkage
            .get(&callee.word())
            .cloned()
            .or_else(|| names.get(&callee).cloned())
            .unwrap_or_default();
        let base = spvopt_analysis::builtins::itanium_base_name(&name).to_string();
        if base.contains("intel_sub_group_2d_block") || base.contains("matrix_mad") {
            *out.entry(base).or_insert(0) += 1;
        }
    }
    out
}

#[test]
fn single_passes_on_builtin_calls_keep_the_form_and_the_results() {
    let mut checked = 0;
    for g in GEMMS.iter() {
        let launches = readme_launches(g);
        for dir in ["triton", "triton/nodbg"] {
            let path = spvopt_tests::corpus_dir().join(dir).join(g.file);
            let Ok(bytes) = std::fs::read(&path) else {
                continue;
            };
            let original = spvopt_ir::load_bytes(&bytes).unwrap();
            let calls = builtin_calls(&original);
            if calls.is_empty() {
                continue; // no 2D block IO / MMA (the no2d and pointer GEMMs)
            }
            assert_eq!(native_ops(&original), 0, "{dir}/{}", g.file);
            for pipeline in [
                "split-block-loads",
                "fuse-block-loads",
                "insert-prefetches",
                "legalize",
            ] {
                let what = format!("{pipeline} on {dir}/{}", g.file);
                let (out, report) = run(&original, pipeline);
                let names: Vec<(&str, bool)> = report
                    .passes
                    .iter()
                    .map(|p| (p.name, p.implicit.is_some()))
                    .collect();
                assert_eq!(names[0], ("raise-builtins", true), "{what}: {names:?}");
                if report.changed() {
                    assert_eq!(
                        names.last(),
                        Some(&("lower-builtins", true)),
                        "{what}: {names:?}"
                    );
                    assert_eq!(native_ops(&out), 0, "{what}: the builtin form is kept");
                } else {
                    assert_eq!(
                        out.to_words(),
                        original.to_words(),
                        "{what}: unchanged = same bytes"
                    );
                }
                spvopt_passes::validate::validate_module(
                    &out,
                    spvopt_ir::text::TargetEnv::Universal_1_4,
                )
                .unwrap_or_else(|e| panic!("{what}: output does not validate: {e}"));
                let (again, report2) = run(&out, pipeline);
                if pipeline != "split-block-loads" && pipeline != "insert-prefetches" {
                    assert!(
                        !report2.changed() && again.to_words() == out.to_words(),
                        "{what}: idempotent"
                    );
                }
                for l in &launches {
                    same_results(&original, &out, l).unwrap_or_else(|e| panic!("{what}: {e}"));
                }
            }
            // Split then fuse gives back the builtin calls Triton wrote.
            let (split, report) = run(&original, "split-block-loads");
            let (refused, _) = run(&split, "fuse-block-loads");
            if report.changed() {
                assert_ne!(
                    builtin_calls(&split),
                    calls,
                    "{}: split changed the calls",
                    g.file
                );
            }
            assert_eq!(
                builtin_calls(&refused),
                calls,
                "{dir}/{}: split+fuse",
                g.file
            );
            // The pass sees what it sees on the native form.
            let native = spvopt_tests::corpus_dir()
                .join("triton/native")
                .join(g.file);
            if let Ok(nb) = std::fs::read(&native) {
                let native = spvopt_ir::load_bytes(&nb).unwrap();
                let (_, on_native) = run(&native, "split-block-loads");
                assert_eq!(
                    report.passes[1].stats.0, on_native.passes[0].stats.0,
                    "{dir}/{}: split statistics on builtin and native form",
                    g.file
                );
            }
            checked += 1;
        }
    }
    assert!(checked >= 6, "checked {checked} builtin-form kernels");
}

/// A pipeline that chooses the form itself (explicit raise-builtins, as -O does) gets no
/// implicit steps: the output is native.
#[test]
fn explicit_raise_means_no_implicit_steps() {
    let path = spvopt_tests::corpus_dir()
        .join("triton")
        .join(GEMMS[0].file);
    let original = spvopt_ir::load_bytes(&std::fs::read(path).unwrap()).unwrap();
    let (out, report) = run(&original, "raise-builtins,fuse-block-loads");
    assert!(report.passes.iter().all(|p| p.implicit.is_none()));
    assert!(native_ops(&out) > 0);
}
