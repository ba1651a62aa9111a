//! Uniformity of the `y`/`z` local and global ids from the declared work-group and subgroup
//! sizes (issue 42): subgroups are consecutive linear local ids, so `y` is subgroup-uniform when
//! the x size is a multiple of the subgroup size, `z` when `x*y` is, a dimension of size 1
//! always, and nothing is assumed without both sizes declared exactly.

use spvopt_analysis::kernel_facts::KernelFacts;
use spvopt_analysis::uniformity::Uniformity;
use spvopt_analysis::Analyses;
use spvopt_ir::spirv::Op;
use spvopt_ir::{Id, Module};

/// A kernel with `modes` that extracts x, y and z of `LocalInvocationId` and of
/// `GlobalInvocationId` (`%lx %ly %lz %gx %gy %gz`) and stores them.
fn kernel(modes: &str) -> Module {
    let text = format!(
        r#"
               OpCapability Addresses
               OpCapability Kernel
               OpCapability Int64
               OpCapability SubgroupDispatch
               OpMemoryModel Physical64 OpenCL
               OpEntryPoint Kernel %main "main" %lid_var %gid_var
{modes}
               OpDecorate %lid_var BuiltIn LocalInvocationId
               OpDecorate %lid_var Constant
               OpDecorate %gid_var BuiltIn GlobalInvocationId
               OpDecorate %gid_var Constant
       %void = OpTypeVoid
      %ulong = OpTypeInt 64 0
    %v3ulong = OpTypeVector %ulong 3
%ptr_in_v3ulong = OpTypePointer Input %v3ulong
%ptr_cw_ulong = OpTypePointer CrossWorkgroup %ulong
    %lid_var = OpVariable %ptr_in_v3ulong Input
    %gid_var = OpVariable %ptr_in_v3ulong Input
       %fnty = OpTypeFunction %void %ptr_cw_ulong
       %main = OpFunction %void None %fnty
        %out = OpFunctionParameter %ptr_cw_ulong
      %entry = OpLabel
       %lid3 = OpLoad %v3ulong %lid_var
         %lx = OpCompositeExtract %ulong %lid3 0
         %ly = OpCompositeExtract %ulong %lid3 1
         %lz = OpCompositeExtract %ulong %lid3 2
       %gid3 = OpLoad %v3ulong %gid_var
         %gx = OpCompositeExtract %ulong %gid3 0
         %gy = OpCompositeExtract %ulong %gid3 1
         %gz = OpCompositeExtract %ulong %gid3 2
        %sum = OpIAdd %ulong %lx %ly
       %sum2 = OpIAdd %ulong %sum %lz
       %sum3 = OpIAdd %ulong %sum2 %gx
       %sum4 = OpIAdd %ulong %sum3 %gy
       %sum5 = OpIAdd %ulong %sum4 %gz
               OpStore %out %sum5
               OpReturn
               OpFunctionEnd
"#
    );
    let words = spvopt_ir::text::assemble(&text, spvopt_ir::text::TargetEnv::Universal_1_4)
        .unwrap_or_else(|e| panic!("does not assemble: {e}"));
    spvopt_ir::load_words(&words).unwrap_or_else(|e| panic!("does not load: {e}"))
}

/// The results of the six `OpCompositeExtract`s, in order (lx ly lz gx gy gz).
fn extracts(m: &Module) -> Vec<Id> {
    let f = m.function_ids().next().unwrap();
    let b = m.function(f).blocks[0];
    m.block_insts(b)
        .filter(|&i| m.inst(i).is(Op::CompositeExtract))
        .filter_map(|i| m.inst(i).result_id())
        .collect()
}

/// Which of x, y, z are uniform, for the local and the global id (they must agree).
fn uniform_dims(modes: &str) -> [bool; 3] {
    let m = kernel(modes);
    let uni = Analyses::new().get::<Uniformity>(&m);
    let ids = extracts(&m);
    assert_eq!(ids.len(), 6);
    let local = [0, 1, 2].map(|d| uni.is_uniform(ids[d]));
    let global = [0, 1, 2].map(|d| uni.is_uniform(ids[3 + d]));
    assert_eq!(local, global, "{modes}");
    let facts = KernelFacts::build(&m);
    let f = m.function_ids().next().unwrap();
    assert_eq!(
        [0, 1, 2].map(|d| facts.local_id_subgroup_uniform(f, d)),
        local,
        "{modes}"
    );
    local
}

fn modes(local: [u32; 3], sg: Option<u32>) -> String {
    let mut s = format!(
        "               OpExecutionMode %main LocalSize {} {} {}\n",
        local[0], local[1], local[2]
    );
    if let Some(sg) = sg {
        s += &format!("               OpExecutionMode %main SubgroupSize {sg}\n");
    }
    s
}

#[test]
fn y_and_z_are_uniform_when_x_is_a_multiple_of_the_subgroup_size() {
    assert_eq!(
        uniform_dims(&modes([16, 4, 1], Some(16))),
        [false, true, true]
    );
    assert_eq!(
        uniform_dims(&modes([32, 8, 2], Some(16))),
        [false, true, true]
    );
    assert_eq!(
        uniform_dims(&modes([16, 4, 4], Some(8))),
        [false, true, true]
    );
}

#[test]
fn z_is_uniform_when_x_times_y_is_a_multiple() {
    assert_eq!(
        uniform_dims(&modes([8, 4, 2], Some(16))),
        [false, false, true]
    );
    assert_eq!(
        uniform_dims(&modes([4, 4, 4], Some(16))),
        [false, false, true]
    );
}

#[test]
fn otherwise_only_dimensions_of_size_one_are_uniform() {
    assert_eq!(
        uniform_dims(&modes([8, 1, 4], Some(16))),
        [false, true, false]
    );
    assert_eq!(
        uniform_dims(&modes([24, 4, 1], Some(16))),
        [false, false, true]
    );
    assert_eq!(
        uniform_dims(&modes([1, 64, 1], Some(16))),
        [true, false, true]
    );
    // Subgroups of one invocation: everything is uniform.
    assert_eq!(uniform_dims(&modes([3, 5, 7], Some(1))), [true, true, true]);
}

#[test]
fn nothing_is_assumed_without_both_sizes() {
    // No SubgroupSize: the driver chooses it (8, 16 or 32 on Intel GPUs).
    assert_eq!(
        uniform_dims(&modes([16, 4, 2], None)),
        [false, false, false]
    );
    // No LocalSize: any work-group shape.
    let sg_only = "               OpExecutionMode %main SubgroupSize 16\n";
    assert_eq!(uniform_dims(sg_only), [false, false, false]);
}
