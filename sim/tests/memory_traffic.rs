//! Ordinary memory traffic counters (`Counters::memory`, `traffic.rs`): small kernels whose
//! messages, bytes and 64-byte lines per storage class are worked out by hand here, and the
//! Triton corpus GEMM that stages tiles through local memory against its 2D block twin.
//!
//! Layout facts the expectations use: buffer arguments are 4096-byte aligned, module-scope
//! Workgroup variables 64-byte aligned, and every Function variable of every invocation is a
//! separate 256-byte-aligned allocation (`run.rs`).

use std::path::PathBuf;

use spvopt_ir::text;
use spvopt_sim::{AccessCount, Arg, ClassTraffic, Launch, MemoryTraffic, RunOutput};

fn assemble(src: &str) -> spvopt_ir::Module {
    let env = text::parse_target_env("spv1.4").unwrap();
    let words = text::assemble(src, env).expect("assembles");
    spvopt_ir::load_words(&words).expect("loads")
}

fn buf(bytes: Vec<u8>) -> Arg {
    Arg::Buffer {
        bytes,
        ty: None,
        ulp: None,
    }
}

fn u32s(v: u32) -> Arg {
    Arg::Scalar {
        ty: "u32".into(),
        bytes: v.to_le_bytes().to_vec(),
    }
}

fn floats(v: impl Iterator<Item = f32>) -> Vec<u8> {
    v.flat_map(f32::to_le_bytes).collect()
}

fn run(src: &str, global: u64, local: u64, args: Vec<Arg>) -> RunOutput {
    let mut l = Launch::new("main", [global, 1, 1], [local, 1, 1], args);
    l.subgroup_size = Some(16);
    spvopt_sim::run(&assemble(src), &l).expect("runs")
}

fn count(messages: u64, bytes: u64, lines: u64) -> AccessCount {
    AccessCount {
        messages,
        bytes,
        lines,
    }
}

const HEADER: &str = "
               OpCapability Addresses
               OpCapability Kernel
               OpCapability Int64
               OpCapability GenericPointer
               OpCapability SubgroupBufferBlockIOINTEL
               OpExtension \"SPV_INTEL_subgroups\"
               OpMemoryModel Physical64 OpenCL
               OpEntryPoint Kernel %main \"main\" %gid_var %lid_var %sgl_var
               OpDecorate %gid_var BuiltIn GlobalInvocationId
               OpDecorate %gid_var Constant
               OpDecorate %lid_var BuiltIn LocalInvocationId
               OpDecorate %lid_var Constant
               OpDecorate %sgl_var BuiltIn SubgroupLocalInvocationId
               OpDecorate %sgl_var Constant
       %void = OpTypeVoid
       %bool = OpTypeBool
       %uint = OpTypeInt 32 0
      %ulong = OpTypeInt 64 0
      %float = OpTypeFloat 32
    %v3ulong = OpTypeVector %ulong 3
     %uint_0 = OpConstant %uint 0
     %uint_1 = OpConstant %uint 1
     %uint_2 = OpConstant %uint 2
    %uint_32 = OpConstant %uint 32
   %uint_272 = OpConstant %uint 272
   %ulong_31 = OpConstant %ulong 31
    %float_0 = OpConstant %float 0
     %ptr_in = OpTypePointer Input %v3ulong
  %ptr_in_u = OpTypePointer Input %uint
    %gid_var = OpVariable %ptr_in Input
    %lid_var = OpVariable %ptr_in Input
    %sgl_var = OpVariable %ptr_in_u Input
         %pf = OpTypePointer CrossWorkgroup %float
         %pu = OpTypePointer CrossWorkgroup %uint
        %arr = OpTypeArray %float %uint_32
        %pwa = OpTypePointer Workgroup %arr
        %pwf = OpTypePointer Workgroup %float
        %pgf = OpTypePointer Generic %float
        %pfu = OpTypePointer Function %uint
        %lds = OpVariable %pwa Workgroup
";

/// `dst[gid] = src[gid * stride]`.
const STRIDED_COPY: &str = "
       %fnty = OpTypeFunction %void %pf %pf %uint
       %main = OpFunction %void None %fnty
        %src = OpFunctionParameter %pf
        %dst = OpFunctionParameter %pf
     %stride = OpFunctionParameter %uint
      %entry = OpLabel
       %gidv = OpLoad %v3ulong %gid_var
        %gid = OpCompositeExtract %ulong %gidv 0
        %s64 = OpUConvert %ulong %stride
          %i = OpIMul %ulong %gid %s64
          %p = OpInBoundsPtrAccessChain %pf %src %i
          %x = OpLoad %float %p Aligned 4
          %q = OpInBoundsPtrAccessChain %pf %dst %gid
               OpStore %q %x Aligned 4
               OpReturn
               OpFunctionEnd
";

fn strided(stride: u32, groups: u64) -> MemoryTraffic {
    let n = 16 * groups;
    let src = floats((0..n * 32).map(|i| i as f32));
    let out = run(
        &format!("{HEADER}{STRIDED_COPY}"),
        n,
        16,
        vec![buf(src), buf(vec![0; 4 * n as usize]), u32s(stride)],
    );
    let dst = &out.buffers[1].1;
    for g in 0..n as usize {
        let v = f32::from_le_bytes(dst[4 * g..4 * g + 4].try_into().unwrap());
        assert_eq!(v, (g * stride as usize) as f32);
    }
    out.counters.memory
}

#[test]
fn sixteen_consecutive_floats_are_one_message_of_one_line() {
    let m = strided(1, 1);
    assert_eq!(m.global.load, count(1, 64, 1));
    assert_eq!(m.global.store, count(1, 64, 1));
    assert_eq!(m.global.atomic, AccessCount::default());
    // the built-in variable loads are not memory traffic
    for other in [m.local, m.private, m.constant, m.generic] {
        assert_eq!(other, ClassTraffic::default());
    }
}

#[test]
fn strided_loads_touch_one_line_per_distinct_64_bytes() {
    // 64-byte stride: every invocation its own line; 8 bytes: two invocations a line;
    // stride 0: all invocations read one float (16 x 4 bytes, one line).
    for (stride, lines) in [(16, 16), (32, 16), (2, 2), (0, 1)] {
        assert_eq!(
            strided(stride, 1).global.load,
            count(1, 64, lines),
            "{stride}"
        );
    }
}

#[test]
fn every_subgroup_of_every_work_group_sends_its_own_message() {
    let m = strided(1, 3);
    assert_eq!(m.global.load, count(3, 192, 3));
    assert_eq!(m.global.store, count(3, 192, 3));
}

/// Two subgroups: `lds[lid] = src[lid]`, barrier, `dst[lid] = lds[31 - lid]` read through a
/// Generic pointer (counted as local: the address is in local memory).
const THROUGH_LOCAL: &str = "
       %fnty = OpTypeFunction %void %pf %pf
       %main = OpFunction %void None %fnty
        %src = OpFunctionParameter %pf
        %dst = OpFunctionParameter %pf
      %entry = OpLabel
       %lidv = OpLoad %v3ulong %lid_var
        %lid = OpCompositeExtract %ulong %lidv 0
          %p = OpInBoundsPtrAccessChain %pf %src %lid
          %x = OpLoad %float %p Aligned 4
          %w = OpInBoundsAccessChain %pwf %lds %lid
               OpStore %w %x Aligned 4
               OpControlBarrier %uint_2 %uint_2 %uint_272
          %r = OpISub %ulong %ulong_31 %lid
         %w2 = OpInBoundsAccessChain %pwf %lds %r
          %g = OpPtrCastToGeneric %pgf %w2
          %y = OpLoad %float %g Aligned 4
          %q = OpInBoundsPtrAccessChain %pf %dst %lid
               OpStore %q %y Aligned 4
               OpReturn
               OpFunctionEnd
";

#[test]
fn workgroup_store_barrier_load() {
    let src = floats((0..32).map(|i| i as f32));
    let out = run(
        &format!("{HEADER}{THROUGH_LOCAL}"),
        32,
        32,
        vec![buf(src), buf(vec![0; 128])],
    );
    let want = floats((0..32).map(|i| (31 - i) as f32));
    assert_eq!(out.buffers[1].1, want);
    let c = &out.counters;
    assert_eq!((c.barriers, c.subgroups), (1, 2));
    let m = c.memory;
    // each subgroup's 16 floats are one 64-byte line (lds is 64-byte aligned, 128 bytes)
    assert_eq!(m.local.store, count(2, 128, 2));
    assert_eq!(m.local.load, count(2, 128, 2));
    assert_eq!(m.global.load, count(2, 128, 2));
    assert_eq!(m.global.store, count(2, 128, 2));
    assert_eq!(m.generic, ClassTraffic::default());
    assert_eq!(m.total().all().messages, 8);
}

/// Even invocations copy `src[i]`, odd ones store 0 (two paths: two store messages); after
/// reconvergence every invocation stores its id to a Function variable, loads it back and adds
/// it to `counter[0]` atomically.
const DIVERGENT: &str = "
       %fnty = OpTypeFunction %void %pf %pf %pu
       %main = OpFunction %void None %fnty
        %src = OpFunctionParameter %pf
        %dst = OpFunctionParameter %pf
    %counter = OpFunctionParameter %pu
      %entry = OpLabel
          %v = OpVariable %pfu Function
        %sgl = OpLoad %uint %sgl_var
        %odd = OpBitwiseAnd %uint %sgl %uint_1
       %even = OpIEqual %bool %odd %uint_0
          %q = OpInBoundsPtrAccessChain %pf %dst %sgl
               OpSelectionMerge %merge None
               OpBranchConditional %even %then %else
       %then = OpLabel
          %p = OpInBoundsPtrAccessChain %pf %src %sgl
          %x = OpLoad %float %p Aligned 4
               OpStore %q %x Aligned 4
               OpBranch %merge
       %else = OpLabel
               OpStore %q %float_0 Aligned 4
               OpBranch %merge
      %merge = OpLabel
               OpStore %v %sgl Aligned 4
          %l = OpLoad %uint %v Aligned 4
        %old = OpAtomicIAdd %uint %counter %uint_1 %uint_0 %l
               OpReturn
               OpFunctionEnd
";

#[test]
fn a_partially_active_subgroup_sends_one_message_per_path() {
    let src = floats((0..16).map(|i| 1.0 + i as f32));
    let out = run(
        &format!("{HEADER}{DIVERGENT}"),
        16,
        16,
        vec![buf(src), buf(vec![0; 64]), buf(vec![0; 4])],
    );
    let dst = &out.buffers[1].1;
    for i in 0..16 {
        let v = f32::from_le_bytes(dst[4 * i..4 * i + 4].try_into().unwrap());
        assert_eq!(v, if i % 2 == 0 { 1.0 + i as f32 } else { 0.0 });
    }
    assert_eq!(out.buffers[2].1, 120u32.to_le_bytes());
    let m = out.counters.memory;
    // 8 even invocations read 32 bytes of the first line
    assert_eq!(m.global.load, count(1, 32, 1));
    // one store message on each path, each within the first line
    assert_eq!(m.global.store, count(2, 64, 2));
    // 16 invocations add to one uint: one message, one line
    assert_eq!(m.global.atomic, count(1, 64, 1));
    // every invocation's Function variable is its own allocation: 16 lines
    assert_eq!(m.private.store, count(1, 64, 16));
    assert_eq!(m.private.load, count(1, 64, 16));
    assert_eq!(m.private.atomic, AccessCount::default());
}

/// `OpSubgroupBlockReadINTEL` of a uint per invocation from src and
/// `OpSubgroupBlockWriteINTEL` of it to dst: one 64-byte message each.
const BLOCK_1D: &str = "
       %fnty = OpTypeFunction %void %pu %pu
       %main = OpFunction %void None %fnty
        %src = OpFunctionParameter %pu
        %dst = OpFunctionParameter %pu
      %entry = OpLabel
          %a = OpSubgroupBlockReadINTEL %uint %src
               OpSubgroupBlockWriteINTEL %dst %a
               OpReturn
               OpFunctionEnd
";

#[test]
fn one_d_block_reads_and_writes_are_one_message_each() {
    let src: Vec<u8> = (0..64).collect();
    let out = run(
        &format!("{HEADER}{BLOCK_1D}"),
        16,
        16,
        vec![buf(src.clone()), buf(vec![0; 64])],
    );
    assert_eq!(out.buffers[1].1, src);
    let c = &out.counters;
    assert_eq!((c.block_reads_1d, c.block_writes_1d), (1, 1));
    assert_eq!(c.memory.global.load, count(1, 64, 1));
    assert_eq!(c.memory.global.store, count(1, 64, 1));
    assert_eq!(c.memory.total().all().messages, 2);
}

#[test]
fn counters_json_has_the_memory_fields() {
    let out = run(
        &format!("{HEADER}{STRIDED_COPY}"),
        16,
        16,
        vec![buf(vec![0; 64]), buf(vec![0; 64]), u32s(1)],
    );
    let v = serde_json::to_value(&out.counters).unwrap();
    let g = &v["memory"]["global"]["load"];
    assert_eq!(
        (g["messages"].as_u64(), g["lines"].as_u64()),
        (Some(1), Some(1))
    );
    for class in ["global", "local", "private", "constant", "generic"] {
        for kind in ["load", "store", "atomic"] {
            assert!(v["memory"][class][kind]["bytes"].is_u64(), "{class} {kind}");
        }
    }
    // the fields that were there before are still there
    for k in [
        "instructions",
        "barriers",
        "block2d",
        "lines_loaded_2d",
        "block_reads_1d",
    ] {
        assert!(v.get(k).is_some(), "{k}");
    }
}

fn corpus(path: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/corpus/triton")
        .join(path)
}

fn run_corpus(module: &str, launch: &str) -> RunOutput {
    let bytes = std::fs::read(corpus(module)).expect("corpus kernel");
    let m = spvopt_ir::load_bytes(&bytes).expect("loads");
    let l = Launch::from_file(&corpus(&format!("launches/{launch}.launch.json"))).expect("launch");
    spvopt_sim::run(&m, &l).expect("runs")
}

#[test]
fn staged_gemm_has_local_traffic_and_its_2d_twin_none() {
    let staged = run_corpus(
        "gemm_fp16_blockptr_128x128x32_w8__pvc_no2d.spv",
        "gemm_fp16_blockptr_128x128x32_w8__pvc_no2d",
    );
    let m = staged.counters.memory;
    assert!(
        m.local.store.messages > 0 && m.local.load.messages > 0,
        "{m:?}"
    );
    assert!(
        m.local.load.lines > 0 && m.global.load.messages > 0,
        "{m:?}"
    );
    assert!(staged.counters.block2d.is_empty());
    for twin in [
        "gemm_fp16_blockptr_128x128x32_w8__pvc.spv",
        "native/gemm_fp16_blockptr_128x128x32_w8__pvc.spv",
    ] {
        let out = run_corpus(twin, "gemm_fp16_blockptr_128x128x32_w8__pvc");
        let m = out.counters.memory;
        assert_eq!(m.local, ClassTraffic::default(), "{twin}");
        assert!(!out.counters.block2d.is_empty(), "{twin}");
    }
}
