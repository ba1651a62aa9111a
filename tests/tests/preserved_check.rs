//! The pass manager checks what a pass declares preserved (issue 31): after a pass that changed
//! the module, every analysis still cached is computed again and compared. A pass that edits
//! the kernel's `SubgroupSize` after reading the kernel facts, and claims every analysis
//! preserved, is caught (a `Malformed` error naming the pass and `KernelFacts`); the same pass
//! declaring nothing preserved passes, and so does the check turned off.

use spvopt_analysis::{Analyses, AnalysisSet, KernelFacts, Target};
use spvopt_ir::text::{self, TargetEnv};
use spvopt_ir::{Module, Section};
use spvopt_passes::manager::PipelineStep;
use spvopt_passes::registry::{PassInfo, PassOptions};
use spvopt_passes::{
    run_pipeline, Changes, Hooks, Pass, PassError, PassResult, Pipeline, Statistics,
};

const KERNEL: &str = "
OpCapability Addresses
OpCapability Kernel
OpCapability SubgroupDispatch
OpMemoryModel Physical64 OpenCL
OpEntryPoint Kernel %main \"main\"
OpExecutionMode %main SubgroupSize 16
%void = OpTypeVoid
%fn = OpTypeFunction %void
%main = OpFunction %void None %fn
%entry = OpLabel
OpReturn
OpFunctionEnd
";

/// Doubles the kernel's `SubgroupSize` after reading the kernel facts; claims `preserved`.
struct ResizeSubgroup {
    preserved: AnalysisSet,
}

impl Pass for ResizeSubgroup {
    fn name(&self) -> &'static str {
        "resize-subgroup"
    }
    fn run(
        &mut self,
        m: &mut Module,
        analyses: &mut Analyses,
        _: &Target,
        changes: &mut Changes,
    ) -> Result<PassResult, PassError> {
        let facts = analyses.get::<KernelFacts>(m);
        assert_eq!(facts.module_subgroup_size(), Some(16));
        assert!(changes.allow());
        let modes: Vec<_> = m.section(Section::ExecutionMode).to_vec();
        for i in modes {
            let mut words = m.inst(i).operands().to_vec();
            if words[1] == spirv::ExecutionMode::SubgroupSize as u32 {
                words[2] = 32;
                m.replace_inst(
                    i,
                    spvopt_ir::Inst::new(spirv::Op::ExecutionMode, None, None, &words),
                );
            }
        }
        Ok(PassResult {
            changed: true,
            preserved: self.preserved,
            stats: Statistics::default(),
        })
    }
}

fn lying(_: &PassOptions) -> Result<Box<dyn Pass>, PassError> {
    Ok(Box::new(ResizeSubgroup {
        preserved: AnalysisSet::ALL,
    }))
}

fn honest(_: &PassOptions) -> Result<Box<dyn Pass>, PassError> {
    Ok(Box::new(ResizeSubgroup {
        preserved: AnalysisSet::NONE,
    }))
}

static LYING: PassInfo = PassInfo {
    name: "resize-subgroup",
    description: "test pass",
    options: &[],
    construct: lying,
};

static HONEST: PassInfo = PassInfo {
    name: "resize-subgroup",
    description: "test pass",
    options: &[],
    construct: honest,
};

fn run(info: &'static PassInfo, hooks: &mut Hooks<'_>) -> Result<(), PassError> {
    let mut m =
        spvopt_ir::load_words(&text::assemble(KERNEL, TargetEnv::Universal_1_4).unwrap()).unwrap();
    let pipeline = Pipeline {
        steps: vec![PipelineStep {
            info,
            options: PassOptions::new(),
        }],
    };
    run_pipeline(&pipeline, &mut m, &Target::generic(), hooks).map(|_| ())
}

#[test]
fn a_wrong_preserved_claim_is_caught() {
    match run(&LYING, &mut spvopt_tests::checked_hooks()) {
        Err(PassError::Malformed { pass, message }) => {
            assert_eq!(pass, "resize-subgroup");
            assert!(message.contains("KernelFacts"), "{message}");
        }
        other => panic!("expected the check to fail, got {other:?}"),
    }
    run(&HONEST, &mut spvopt_tests::checked_hooks()).unwrap();
    if !cfg!(debug_assertions) && std::env::var_os("SPVOPT_CHECK_PRESERVED").is_none() {
        run(&LYING, &mut Hooks::default()).unwrap();
    }
}
