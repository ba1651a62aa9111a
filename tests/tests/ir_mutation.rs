//! The mutation API: insertion before/after, erase, replace-all-uses through def-use, fresh ids
//! with bound update, interning of types and constants — and that the result validates.

use spvopt_ir::spirv::Op;
use spvopt_ir::text::{self, TargetEnv};
use spvopt_ir::{DefUse, Inst, Interner, Section};

const KERNEL: &str = r#"
               OpCapability Addresses
               OpCapability Kernel
               OpMemoryModel Physical64 OpenCL
               OpEntryPoint Kernel %main "main"
       %void = OpTypeVoid
       %uint = OpTypeInt 32 0
     %uint_3 = OpConstant %uint 3
%ptr = OpTypePointer CrossWorkgroup %uint
       %fnty = OpTypeFunction %void %ptr
       %main = OpFunction %void None %fnty
        %out = OpFunctionParameter %ptr
      %entry = OpLabel
          %v = OpLoad %uint %out Aligned 4
          %w = OpIAdd %uint %v %uint_3
               OpStore %out %w Aligned 4
               OpReturn
               OpFunctionEnd
"#;

#[test]
fn insert_replace_erase_and_validate() {
    let words = text::assemble(KERNEL, TargetEnv::Universal_1_4).unwrap();
    let mut m = spvopt_ir::load_words(&words).unwrap();
    let bound = m.header.bound;
    let mut types = Interner::default();
    let uint = types.int(&mut m, 32);
    assert_eq!(m.inst(m.def(uint).unwrap()).opcode(), Op::TypeInt as u16);
    let globals_before = m.section(Section::Global).len();
    let c3 = types.u32_const(&mut m, 3);
    assert_eq!(
        m.section(Section::Global).len(),
        globals_before,
        "existing constant reused"
    );
    let c5 = types.u32_const(&mut m, 5);
    assert!(c5.word() >= bound, "new constant has a fresh id");
    assert!(m.header.bound > c5.word());
    assert_eq!(m.const_int_value(c5), Some(5));
    assert_eq!(m.const_int_value(c3), Some(3));

    // Find %w = OpIAdd and insert %x = OpIMul %w %5 after it; replace uses of %w by %x.
    let main = m.function_ids().next().unwrap();
    let entry = m.function(main).blocks[0];
    let add = m
        .block_insts(entry)
        .find(|&i| m.inst(i).is(Op::IAdd))
        .unwrap();
    let w = m.inst(add).result_id().unwrap();
    let du = DefUse::build(&m);
    assert_eq!(du.use_count(w), 1);
    let x = m.fresh_id();
    let mul = m.insert_after(
        add,
        Inst::new(Op::IMul, Some(uint), Some(x), &[w.word(), c5.word()]),
    );
    du.replace_all_uses(&mut m, w, x);
    // The multiply itself must still use %w.
    m.map_used_ids(mul, |id| if id == x { w } else { id });
    // Insert a dead copy before the add and erase it again.
    let tmp = m.fresh_id();
    let copy = m.insert_before(
        add,
        Inst::new(Op::CopyObject, Some(uint), Some(tmp), &[w.word()]),
    );
    assert_eq!(m.prev_inst(add), Some(copy));
    m.erase(copy);
    assert_eq!(m.def(tmp), None);
    let out = m.to_words();
    text::validate(&out, TargetEnv::Universal_1_4).unwrap();
    let dis = text::disassemble(&out).unwrap();
    assert!(dis.contains("OpIMul"), "{dis}");
    let reloaded = spvopt_ir::load_words(&out).unwrap();
    let du2 = DefUse::build(&reloaded);
    let store = reloaded
        .all_insts()
        .find(|&i| reloaded.inst(i).is(Op::Store))
        .unwrap();
    assert!(
        du2.users(x).contains(&store),
        "the store now stores the product"
    );
}

#[test]
fn new_function_and_blocks_from_scratch_validate() {
    let mut m = spvopt_ir::Module::new(0x0001_0400);
    m.push_to_section(
        Section::Capability,
        Inst::new(
            Op::Capability,
            None,
            None,
            &[spvopt_ir::spirv::Capability::Addresses as u32],
        ),
    );
    m.push_to_section(
        Section::Capability,
        Inst::new(
            Op::Capability,
            None,
            None,
            &[spvopt_ir::spirv::Capability::Kernel as u32],
        ),
    );
    m.push_to_section(
        Section::MemoryModel,
        Inst::new(Op::MemoryModel, None, None, &[2, 2]),
    );
    let mut t = Interner::default();
    let void = t.void(&mut m);
    let fnty = t.function_type(&mut m, void, &[]);
    let f = m.fresh_id();
    let func = m.add_function(
        Inst::new(Op::Function, Some(void), Some(f), &[0, fnty.word()]),
        vec![],
    );
    let mut ep = vec![spvopt_ir::spirv::ExecutionModel::Kernel as u32, f.word()];
    ep.extend(spvopt_ir::grammar::encode_string("k"));
    m.push_to_section(
        Section::EntryPoint,
        Inst::new(Op::EntryPoint, None, None, &ep),
    );
    let l1 = m.fresh_id();
    let l2 = m.fresh_id();
    let b1 = m.append_block(func, l1);
    let b2 = m.append_block(func, l2);
    m.append_inst(b1, Inst::new(Op::Branch, None, None, &[l2.word()]));
    m.append_inst(b2, Inst::new(Op::Return, None, None, &[]));
    let words = m.to_words();
    text::validate(&words, TargetEnv::Universal_1_4).unwrap();
    assert_eq!(spvopt_ir::load_words(&words).unwrap().to_words(), words);
}
