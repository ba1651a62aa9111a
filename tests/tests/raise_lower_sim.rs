//! Simulator proof for raise-builtins, lower-builtins and legalize on the Triton corpus (builtin
//! form, with and without line info): the raised module calls no known builtin, and original,
//! raised, raised+lowered and (for dg2, without 2D block IO) raised+legalized modules give
//! bit-identical buffers on the corpus README launches.

use spvopt_analysis::Target;
use spvopt_passes::{run_pipeline, Pipeline};
use spvopt_tests::corpus_launches::{readme_launches, same_results, GEMMS};

fn run(m: &spvopt_ir::Module, pipeline: &str, target: &str) -> spvopt_ir::Module {
    let mut out = spvopt_ir::load_words(&m.to_words()).unwrap();
    let t = Target::by_name(target).unwrap();
    run_pipeline(
        &Pipeline::parse(pipeline).unwrap(),
        &mut out,
        &t,
        &mut spvopt_tests::checked_hooks(),
    )
    .unwrap_or_else(|e| panic!("{pipeline} for {target}: {e}"));
    out
}

/// Names of imported functions that are still called.
fn called_builtins(m: &spvopt_ir::Module) -> Vec<String> {
    use spvopt_ir::spirv::Op;
    let mut names = std::collections::HashMap::new();
    for &d in m.section(spvopt_ir::Section::Annotation) {
        let i = m.inst(d);
        if i.is(Op::Decorate)
            && i.operand_word(1) == Some(spvopt_ir::spirv::Decoration::LinkageAttributes as u32)
        {
            if let (Some(t), Some(n)) = (
                i.operand_id(0),
                spvopt_ir::grammar::decode_string(i.operands().get(2..).unwrap_or(&[])),
            ) {
                names.insert(t, n.to_string());
            }
        }
    }
    m.all_insts()
        .filter(|&i| m.inst(i).is(Op::FunctionCall))
        .filter_map(|i| m.inst(i).operand_id(0).and_then(|f| names.get(&f).cloned()))
        .filter(|n| n.contains("intel_sub_group_2d_block") || n.contains("matrix_mad"))
        .collect()
}

fn has_2d_block_ops(m: &spvopt_ir::Module) -> bool {
    !spvopt_analysis::block_io::block_instructions(m).is_empty()
}

#[test]
fn raised_lowered_and_dg2_legalized_builtin_corpus_is_simulator_identical() {
    let mut checked = 0;
    for g in GEMMS.iter() {
        let launches = readme_launches(g);
        for dir in ["triton", "triton/nodbg"] {
            let path = spvopt_tests::corpus_dir().join(dir).join(g.file);
            let Ok(bytes) = std::fs::read(&path) else {
                continue;
            };
            let original = spvopt_ir::load_bytes(&bytes).unwrap();
            let name = format!("{dir}/{}", g.file);
            let raised = run(&original, "raise-builtins", "pvc");
            assert!(
                called_builtins(&raised).is_empty(),
                "{name}: builtin calls left: {:?}",
                called_builtins(&raised)
            );
            let lowered = run(&raised, "lower-builtins", "pvc");
            assert!(
                !has_2d_block_ops(&lowered),
                "{name}: lower-builtins left native 2D block ops"
            );
            let dg2 = run(&original, "raise-builtins,legalize", "dg2");
            assert!(
                !has_2d_block_ops(&dg2),
                "{name}: dg2 output still has 2D block ops"
            );
            // The aligned launch for every variant; the ragged one too for the fully lowered module.
            for (k, l) in launches.iter().enumerate() {
                same_results(&original, &raised, l)
                    .unwrap_or_else(|e| panic!("{name} raised, launch {k}: {e}"));
                same_results(&original, &lowered, l)
                    .unwrap_or_else(|e| panic!("{name} raised+lowered, launch {k}: {e}"));
                same_results(&original, &dg2, l)
                    .unwrap_or_else(|e| panic!("{name} dg2 legalized, launch {k}: {e}"));
            }
            checked += 1;
        }
    }
    assert!(checked >= 8, "checked {checked} modules");
}
