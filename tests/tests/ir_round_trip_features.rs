//! Round trip of the constructs the IR must carry untouched: unknown opcodes, OpExtInst with
//! OpenCL.DebugInfo.100, OpLine, decorations with strings, OpSwitch with 64-bit literals,
//! 64-bit constants, VectorAnyINTEL long vectors.

use spvopt_ir::text::{self, TargetEnv};

const MODULE: &str = r#"
               OpCapability Addresses
               OpCapability Kernel
               OpCapability Int64
               OpCapability Linkage
               OpCapability VectorAnyINTEL
               OpExtension "SPV_INTEL_vector_compute"
        %dbg = OpExtInstImport "OpenCL.DebugInfo.100"
        %ocl = OpExtInstImport "OpenCL.std"
               OpMemoryModel Physical64 OpenCL
               OpEntryPoint Kernel %main "main"
               OpExecutionMode %main SubgroupSize 16
       %file = OpString "kernel.cl"
               OpSource OpenCL_C 200000 %file
               OpName %main "main"
               OpDecorate %helper LinkageAttributes "helper_with_a_long_name_for_padding" Export
               OpDecorateString %main UserSemantic "a string decoration"
       %void = OpTypeVoid
      %ulong = OpTypeInt 64 0
       %uint = OpTypeInt 32 0
     %double = OpTypeFloat 64
   %v64uint = OpTypeVector %uint 64
  %ulong_big = OpConstant %ulong 0x123456789abcdef0
 %double_pi = OpConstant %double 3.14159265358979
    %uint_1 = OpConstant %uint 1
       %fnty = OpTypeFunction %void
     %helpty = OpTypeFunction %ulong %ulong
        %src = OpExtInst %void %dbg DebugSource %file
         %cu = OpExtInst %void %dbg DebugCompilationUnit 65536 4 %src OpenCL_C
     %helper = OpFunction %ulong None %helpty
          %x = OpFunctionParameter %ulong
         %hb = OpLabel
               OpLine %file 10 2
               OpSelectionMerge %merge None
               OpSwitch %x %default 0x100000000 %case1 0xfffffffffffffff0 %case2
      %case1 = OpLabel
               OpBranch %merge
      %case2 = OpLabel
               OpBranch %merge
    %default = OpLabel
               OpBranch %merge
      %merge = OpLabel
          %r = OpPhi %ulong %ulong_big %case1 %x %case2 %x %default
          %s = OpExtInst %ulong %ocl u_max %r %x
               OpNoLine
               OpReturnValue %s
               OpFunctionEnd
       %main = OpFunction %void None %fnty
      %entry = OpLabel
          %v = OpCompositeConstruct %v64uint %uint_1 %uint_1 %uint_1 %uint_1 %uint_1 %uint_1 %uint_1 %uint_1 %uint_1 %uint_1 %uint_1 %uint_1 %uint_1 %uint_1 %uint_1 %uint_1 %uint_1 %uint_1 %uint_1 %uint_1 %uint_1 %uint_1 %uint_1 %uint_1 %uint_1 %uint_1 %uint_1 %uint_1 %uint_1 %uint_1 %uint_1 %uint_1 %uint_1 %uint_1 %uint_1 %uint_1 %uint_1 %uint_1 %uint_1 %uint_1 %uint_1 %uint_1 %uint_1 %uint_1 %uint_1 %uint_1 %uint_1 %uint_1 %uint_1 %uint_1 %uint_1 %uint_1 %uint_1 %uint_1 %uint_1 %uint_1 %uint_1 %uint_1 %uint_1 %uint_1 %uint_1 %uint_1 %uint_1 %uint_1
               OpReturn
               OpFunctionEnd
"#;

fn words() -> Vec<u32> {
    text::assemble(MODULE, TargetEnv::Universal_1_4).expect("assembles")
}

#[test]
fn feature_module_round_trips() {
    let w = words();
    let m = spvopt_ir::load_words(&w).unwrap();
    assert_eq!(m.to_words(), w);
    // The 64-bit switch literals are literals, not ids: the walker saw 2-word literals.
    let sw = m
        .all_insts()
        .find(|&i| m.inst(i).is(spvopt_ir::spirv::Op::Switch))
        .unwrap();
    let mut ids = Vec::new();
    m.for_each_used_id(sw, |id| ids.push(id));
    assert_eq!(
        ids.len(),
        4,
        "selector, default and two case labels: {ids:?}"
    );
    let big = m.all_insts().find(|&i| {
        m.inst(i)
            .result_id()
            .is_some_and(|r| m.const_int_value(r) == Some(0x1234_5678_9abc_def0))
    });
    assert!(big.is_some(), "64-bit constant value is read back");
}

#[test]
fn unknown_opcodes_are_kept_by_word_count() {
    let mut w = words();
    // Insert an unknown instruction (opcode 0x7ff0, 4 words) right after the first OpLabel of
    // the kernel and one in the global section (after the memory model).
    let mut pos = 5;
    let mut label_at = None;
    let mut mm_at = None;
    while pos < w.len() {
        let op = w[pos] & 0xffff;
        let wc = (w[pos] >> 16) as usize;
        if op == spvopt_ir::spirv::Op::Label as u32 && label_at.is_none() {
            label_at = Some(pos + wc);
        }
        if op == spvopt_ir::spirv::Op::MemoryModel as u32 {
            mm_at = Some(pos + wc);
        }
        pos += wc;
    }
    let unknown = [4u32 << 16 | 0x7ff0, 0xdead_beef, 7, 0];
    let l = label_at.unwrap();
    w.splice(l..l, unknown);
    let g = mm_at.unwrap();
    w.splice(g..g, [2u32 << 16 | 0x7ff1, 42]);
    let m = spvopt_ir::load_words(&w).unwrap();
    assert_eq!(m.to_words(), w, "unknown opcodes round-trip in place");
}

#[test]
fn debug_info_and_strings_survive_and_are_understood() {
    let m = spvopt_ir::load_words(&words()).unwrap();
    let names: Vec<String> = m
        .section(spvopt_ir::Section::Annotation)
        .iter()
        .filter_map(|&i| {
            let inst = m.inst(i);
            if inst.is(spvopt_ir::spirv::Op::Decorate) {
                spvopt_ir::grammar::decode_string(&inst.operands()[2..]).map(String::from)
            } else {
                None
            }
        })
        .collect();
    assert_eq!(
        names,
        vec!["helper_with_a_long_name_for_padding".to_string()]
    );
    // DebugCompilationUnit uses %src (an id) and literals.
    let cu = m
        .section(spvopt_ir::Section::Global)
        .iter()
        .copied()
        .find(|&i| {
            m.inst(i).is(spvopt_ir::spirv::Op::ExtInst) && m.inst(i).operand_word(1) == Some(1)
        })
        .unwrap();
    let mut ids = Vec::new();
    m.for_each_used_id(cu, |id| ids.push(id));
    assert_eq!(ids.len(), 3, "result type, set, DebugSource: {ids:?}");
}
