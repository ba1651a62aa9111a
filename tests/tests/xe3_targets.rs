//! `-O --target ptl` (Panther Lake, Xe3) and `--target cri` (Crescent Island, Xe3P) on the
//! corpus GEMMs (Triton's builtin-call form and the native form): every output validates by
//! default and gives the original's results on spv-sim for the corpus README launches (run
//! with the target's 2D block base alignment: 4 bytes on cri, 64 elsewhere).

use spvopt_analysis::Target;
use spvopt_passes::{run_pipeline, Pipeline};
use spvopt_tests::corpus_launches::{readme_launches, same_results, GEMMS};

#[test]
fn o_on_ptl_and_cri_validates_and_keeps_the_results() {
    let pipeline = Pipeline::parse("O").unwrap();
    let mut checked = 0;
    for target in [Target::ptl(), Target::cri()] {
        for g in GEMMS.iter() {
            for dir in ["triton", "triton/native"] {
                let Ok(bytes) = std::fs::read(spvopt_tests::corpus_dir().join(dir).join(g.file))
                else {
                    continue;
                };
                let what = format!("-O --target {} on {dir}/{}", target.name, g.file);
                let original = spvopt_ir::load_bytes(&bytes).unwrap();
                let mut out = original.clone();
                run_pipeline(
                    &pipeline,
                    &mut out,
                    &target,
                    &mut spvopt_tests::checked_hooks(),
                )
                .unwrap_or_else(|e| panic!("{what}: {e}"));
                spvopt_passes::validate::validate_module(
                    &out,
                    spvopt_ir::text::TargetEnv::Universal_1_4,
                )
                .unwrap_or_else(|e| panic!("{what}: output does not validate: {e}"));
                for mut l in readme_launches(g) {
                    l.block_base_alignment = u64::from(target.block_base_alignment());
                    same_results(&original, &out, &l).unwrap_or_else(|e| panic!("{what}: {e}"));
                }
                checked += 1;
            }
        }
    }
    assert!(checked >= 16, "{checked} kernels checked");
}
