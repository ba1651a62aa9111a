//! `legalize` raises the SPIR-V version to what the module's features need (never lowers it).

use spvopt_analysis::Target;
use spvopt_ir::text::{self, TargetEnv};
use spvopt_ir::Module;
use spvopt_passes::{run_pipeline, Pipeline};

const SUBGROUP_SIZE_KERNEL: &str = r#"
               OpCapability Addresses
               OpCapability Kernel
               OpCapability SubgroupDispatch
               OpMemoryModel Physical64 OpenCL
               OpEntryPoint Kernel %main "main"
               OpExecutionMode %main SubgroupSize 16
       %void = OpTypeVoid
       %fnty = OpTypeFunction %void
       %main = OpFunction %void None %fnty
      %entry = OpLabel
               OpReturn
               OpFunctionEnd
"#;

fn legalize(env: TargetEnv) -> Module {
    let words = text::assemble(SUBGROUP_SIZE_KERNEL, env).expect("assembles");
    let mut m = spvopt_ir::load_words(&words).expect("loads");
    let p = Pipeline::parse("legalize").unwrap();
    run_pipeline(
        &p,
        &mut m,
        &Target::pvc(),
        &mut spvopt_tests::checked_hooks(),
    )
    .expect("legalizes");
    m
}

#[test]
fn subgroup_size_raises_version_1_0_to_1_1() {
    // SubgroupSize and SubgroupDispatch are SPIR-V 1.1 features.
    assert_eq!(
        legalize(TargetEnv::Universal_1_0).header.version,
        0x0001_0100
    );
}

#[test]
fn newer_version_is_not_lowered() {
    assert_eq!(
        legalize(TargetEnv::Universal_1_3).header.version,
        0x0001_0300
    );
}
