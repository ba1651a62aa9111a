//! `strip-debug` and `dce` over every corpus module: the output reloads, validates when the
//! input did, a second run changes nothing, and "unchanged" means byte-identical.

use spvopt_analysis::Target;
use spvopt_ir::text;
use spvopt_passes::{run_pipeline, Pipeline};

fn run(words: &[u32], pipeline: &str) -> (Vec<u32>, bool) {
    let mut m = spvopt_ir::load_words(words).expect("loads");
    let p = Pipeline::parse(pipeline).unwrap();
    let report = run_pipeline(
        &p,
        &mut m,
        &Target::default(),
        &mut spvopt_tests::checked_hooks(),
    )
    .expect("pipeline runs");
    (m.to_words(), report.changed())
}

#[test]
fn strip_debug_dce_on_corpus() {
    let mut validated = 0;
    for path in spvopt_tests::corpus_files() {
        let bytes = std::fs::read(&path).unwrap();
        let m = spvopt_ir::load_bytes(&bytes).unwrap();
        let words = m.to_words();
        let env = text::universal_env_for_version(m.header.version);
        let input_valid = text::validate(&words, env).is_ok();
        for pipeline in ["strip-debug", "dce", "strip-debug,dce"] {
            let (out, changed) = run(&words, pipeline);
            if !changed {
                assert_eq!(
                    out,
                    words,
                    "{}: {pipeline} reported unchanged but changed",
                    path.display()
                );
            }
            let reloaded = spvopt_ir::load_words(&out).unwrap_or_else(|e| {
                panic!("{}: {pipeline} output does not reload: {e}", path.display())
            });
            assert_eq!(reloaded.to_words(), out);
            if input_valid {
                text::validate(&out, env).unwrap_or_else(|e| {
                    panic!("{}: {pipeline} output invalid: {e}", path.display())
                });
                validated += 1;
            }
            let (again, changed_again) = run(&out, pipeline);
            assert!(
                !changed_again,
                "{}: {pipeline} is not idempotent",
                path.display()
            );
            assert_eq!(again, out);
        }
    }
    eprintln!("validated {validated} outputs with spirv-val (inputs spirv-val rejects are checked by reload only)");
}

#[test]
fn strip_debug_removes_all_debug_from_triton_modules() {
    for path in spvopt_tests::corpus_files() {
        let bytes = std::fs::read(&path).unwrap();
        let words = spvopt_ir::load_bytes(&bytes).unwrap().to_words();
        let (out, _) = run(&words, "strip-debug");
        let m = spvopt_ir::load_words(&out).unwrap();
        for i in m.all_insts() {
            let inst = m.inst(i);
            use spvopt_ir::spirv::Op;
            assert!(
                !matches!(
                    inst.op(),
                    Some(
                        Op::Line
                            | Op::NoLine
                            | Op::Name
                            | Op::String
                            | Op::Source
                            | Op::ModuleProcessed
                    )
                ),
                "{}: {} left",
                path.display(),
                inst.name()
            );
        }
        assert!(m
            .section(spvopt_ir::Section::ExtInstImport)
            .iter()
            .all(|&i| {
                spvopt_ir::grammar::decode_string(m.inst(i).operands())
                    != Some("OpenCL.DebugInfo.100")
            }));
    }
}
