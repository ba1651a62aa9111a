//! The output check (issue 46): the output of a valid input must validate, and an invalid one
//! is an error naming the pass that made it so (`spvopt_passes::validate::check_output`, used by
//! `spv-opt` by default, `Optimizer::with_output_validation` and the C API).

use spvopt_analysis::{Analyses, AnalysisSet, Target};
use spvopt_ir::spirv::Op;
use spvopt_ir::Module;
use spvopt_passes::manager::PipelineStep;
use spvopt_passes::validate::check_output;
use spvopt_passes::{
    Changes, OptimizeError, Optimizer, Pass, PassError, PassInfo, PassResult, Pipeline, Statistics,
};

const SOFTMAX: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/corpus/triton/nodbg/softmax_fp32_1024_w4_sg16__pvc.spv"
);

fn words() -> Vec<u32> {
    let bytes = std::fs::read(SOFTMAX).unwrap();
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// A broken pass (test only): the first `OpPhi` names its own block as the first incoming
/// block, which is not a predecessor (what `split_block_after` did behind a DebugScope). The
/// structural invariants hold (a label of the same function); spirv-val rejects it.
struct MisparentPhi;

impl Pass for MisparentPhi {
    fn name(&self) -> &'static str {
        "misparent-phi"
    }
    fn run(
        &mut self,
        m: &mut Module,
        _: &mut Analyses,
        _: &Target,
        changes: &mut Changes,
    ) -> Result<PassResult, PassError> {
        let phi = m
            .all_insts()
            .find(|&i| m.inst(i).is(Op::Phi))
            .filter(|_| changes.allow());
        if let Some(phi) = phi {
            let own = m.block_label(m.inst_block(phi).unwrap()).word();
            m.inst_mut(phi).operands_mut()[1] = own;
        }
        Ok(PassResult {
            changed: phi.is_some(),
            preserved: AnalysisSet::NONE,
            stats: Statistics::default(),
        })
    }
}

static MISPARENT_PHI: PassInfo = PassInfo {
    name: "misparent-phi",
    description: "test only: makes an OpPhi name a block that is not a predecessor",
    options: &[],
    construct: |_| Ok(Box::new(MisparentPhi)),
};

/// `strip-debug`, the broken pass, then `dce`: the pass to blame sits between two others.
fn broken_pipeline() -> Pipeline {
    let mut p = Pipeline::parse("strip-debug,dce").unwrap();
    p.steps.insert(
        1,
        PipelineStep {
            info: &MISPARENT_PHI,
            options: Vec::new(),
        },
    );
    p
}

#[test]
fn an_invalid_output_is_an_error_naming_the_pass() {
    let pvc = Target::by_name("pvc").unwrap();
    let optimizer = Optimizer::from_pipeline(pvc, broken_pipeline()).with_output_validation(None);
    match optimizer.run(&words()) {
        Err(OptimizeError::Pass(PassError::Validation { pass, message })) => {
            assert_eq!(pass, "misparent-phi");
            assert!(message.contains("is not a predecessor"), "{message}");
        }
        other => panic!("expected a validation error naming the pass, got {other:?}"),
    }
}

#[test]
fn without_output_validation_the_optimizer_returns_what_the_passes_made() {
    let pvc = Target::by_name("pvc").unwrap();
    let out = Optimizer::from_pipeline(pvc, broken_pipeline())
        .run(&words())
        .expect("no output check asked for");
    assert!(spvopt_ir::load_words(&out.words).is_ok());
}

#[test]
fn check_output_names_no_pass_without_the_input_and_passes_a_valid_output() {
    let pvc = Target::by_name("pvc").unwrap();
    let pipeline = broken_pipeline();
    let mut m = spvopt_ir::load_words(&words()).unwrap();
    spvopt_passes::manager::run_pipeline(&pipeline, &mut m, &pvc, &mut Default::default()).unwrap();
    let e = check_output(&m, None, &pipeline, &pvc, || None).unwrap_err();
    assert_eq!(e.pass, None);
    assert!(
        e.to_string().starts_with("output does not validate: "),
        "{e}"
    );

    let good = Pipeline::parse("O").unwrap();
    let mut m = spvopt_ir::load_words(&words()).unwrap();
    spvopt_passes::manager::run_pipeline(&good, &mut m, &pvc, &mut Default::default()).unwrap();
    assert_eq!(check_output(&m, None, &good, &pvc, || None), Ok(()));
}
