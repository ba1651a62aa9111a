//! `spvopt_passes::edit::enum_operands::for_each_enum` (the per-opcode layouts `legalize`'s
//! capability declarations read enum operands with) reports exactly what the grammar walk
//! (`Module::walk_enums`) reports, in order, and `for_each_enum_requirement` the grammar's
//! requirements of those reports: on every instruction of the corpus and the
//! fixtures, and on hand-made instructions that do not fit their layout (unknown bits, missing
//! or extra parameter words, enumerants whose parameters are enums or strings).

use spvopt_ir::grammar::{enum_requirements, Requirements};
use spvopt_ir::spirv::Op;
use spvopt_ir::{Inst, InstId, Module};
use spvopt_passes::edit::enum_operands::{for_each_enum, for_each_enum_requirement};

fn reports_agree(m: &Module, i: InstId) -> Result<(), String> {
    let inst = m.inst(i);
    let mut walked = Vec::new();
    let _ = m.walk_enums(inst, |k, v| walked.push((k, v)));
    let mut fast = Vec::new();
    for_each_enum(m, inst, |k, v| fast.push((k, v)));
    let walked_requirements: Vec<*const Requirements> = walked
        .iter()
        .filter_map(|&(k, v)| enum_requirements(k, v))
        .map(|r| r as *const Requirements)
        .collect();
    let mut requirements = Vec::new();
    for_each_enum_requirement(m, inst, |r| requirements.push(r as *const Requirements));
    if walked == fast && walked_requirements == requirements {
        Ok(())
    } else {
        Err(format!(
            "{} {:?}: walk {walked:?}, layout {fast:?}",
            inst.name(),
            &inst.words
        ))
    }
}

fn check_module(name: &str, m: &Module) -> usize {
    let mut n = 0;
    m.for_each_inst_in_order(|i| {
        reports_agree(m, i).unwrap_or_else(|e| panic!("{name}: {e}"));
        n += 1;
    });
    n
}

#[test]
fn same_reports_as_the_walk_on_corpus_and_fixtures() {
    let root = spvopt_tests::corpus_dir();
    let repo = root.parent().expect("tests/").to_path_buf();
    let mut modules = 0;
    let mut insts = 0;
    for path in spvopt_tests::spv_files_under(&root) {
        let Ok(m) = spvopt_ir::load_bytes(&std::fs::read(&path).unwrap()) else {
            continue;
        };
        insts += check_module(&path.display().to_string(), &m);
        modules += 1;
    }
    for path in spvopt_tests::files_under(&repo, "spvasm") {
        let text = std::fs::read_to_string(&path).unwrap();
        let env = spvopt_ir::text::TargetEnv::Universal_1_4;
        let Ok(words) = spvopt_ir::text::assemble(&text, env) else {
            continue;
        };
        let Ok(m) = spvopt_ir::load_words(&words) else {
            continue;
        };
        insts += check_module(&path.display().to_string(), &m);
        modules += 1;
    }
    assert!(modules >= 100, "only {modules} modules");
    assert!(insts >= 10_000, "only {insts} instructions");
}

const MODULE: &str = "OpCapability Addresses\nOpCapability Kernel\nOpCapability Linkage\n\
OpMemoryModel Physical64 OpenCL\nOpEntryPoint Kernel %main \"main\"\n\
OpExecutionMode %main LocalSize 1 1 1\nOpDecorate %g Alignment 4\n\
%void = OpTypeVoid\n%uint = OpTypeInt 32 0\n\
%ptr = OpTypePointer CrossWorkgroup %uint\n%fn = OpTypeFunction %void\n\
%g = OpVariable %ptr CrossWorkgroup\n\
%main = OpFunction %void None %fn\n%l = OpLabel\n%x = OpLoad %uint %g Aligned 4\n\
OpStore %g %x Volatile\nOpLoopMerge %l %l None\nOpReturn\nOpFunctionEnd\n";

/// The module, and its first instruction of `op`.
fn module_with(op: Op) -> (Module, InstId) {
    let words =
        spvopt_ir::text::assemble(MODULE, spvopt_ir::text::TargetEnv::Universal_1_4).unwrap();
    let m = spvopt_ir::load_words(&words).unwrap();
    let mut found = None;
    m.for_each_inst_in_order(|i| {
        if found.is_none() && m.inst(i).is(op) {
            found = Some(i);
        }
    });
    (m.clone(), found.expect("the opcode is in the module"))
}

#[test]
fn same_reports_as_the_walk_on_instructions_off_their_layout() {
    // (opcode, words after the opcode word); the ids refer to the module above (%g is 4,
    // %uint 2, %x in the function).
    let aligned = 0x2;
    let volatile = 0x1;
    let nontemporal = 0x4;
    let unknown_bit = 0x8000_0000;
    let cases: Vec<(Op, Vec<u32>)> = vec![
        // Memory access: several bits, parameters present, missing, extra; unknown bits.
        (Op::Load, vec![2, 50, 4, aligned | volatile, 4]),
        (Op::Load, vec![2, 50, 4, aligned | nontemporal, 4]),
        (Op::Load, vec![2, 50, 4, aligned | nontemporal]),
        (Op::Load, vec![2, 50, 4, aligned | nontemporal, 4, 9]),
        (Op::Load, vec![2, 50, 4, volatile | unknown_bit]),
        (Op::Load, vec![2, 50, 4, unknown_bit | aligned, 4]),
        (Op::Load, vec![2, 50, 4, 0x4000 | volatile]),
        (Op::Load, vec![2, 50, 4, 0]),
        (Op::Load, vec![2, 50]),
        (Op::Store, vec![4, 4, volatile | aligned, 16]),
        // Decorations: plain, an enum parameter (BuiltIn), a string and an enum
        // (LinkageAttributes), an unknown decoration, missing and extra words.
        (Op::Decorate, vec![4, 44, 4]),
        (Op::Decorate, vec![4, 11, 28]),
        (Op::Decorate, vec![4, 11, 0x7fff_0000]),
        (Op::Decorate, vec![4, 11]),
        (Op::Decorate, vec![4, 11, 28, 1]),
        (Op::Decorate, vec![4, 38, 4]),
        (Op::Decorate, vec![4, 39, 0]),
        (Op::Decorate, vec![4, 41, 0x6f6f66, 1]),
        (Op::Decorate, vec![4, 0x7fff_0000, 1, 2]),
        (Op::Decorate, vec![4, 44]),
        (Op::Decorate, vec![4, 44, 4, 5]),
        (Op::Decorate, vec![4]),
        // Prefix enums: storage classes, an unknown one, a short instruction.
        (Op::Variable, vec![3, 51, 5]),
        (Op::Variable, vec![3, 51, 0x7fff_fff0]),
        (Op::Variable, vec![3, 51, 5, 4]),
        (Op::TypePointer, vec![52, 7, 2]),
        (Op::TypePointer, vec![52]),
        (Op::MemoryModel, vec![2, 2]),
        (Op::MemoryModel, vec![0x7fff_ffff, 2]),
        // Loop control with parameters (DependencyLength), execution modes.
        (Op::LoopMerge, vec![5, 5, 0x8, 4]),
        (Op::LoopMerge, vec![5, 5, 0x8 | 0x1]),
        (Op::ExecutionMode, vec![6, 17, 1, 1, 1]),
        (Op::ExecutionMode, vec![6, 35, 16]),
    ];
    for (op, words) in cases {
        let (mut m, at) = module_with(op);
        m.replace_inst(at, Inst::from_raw(op as u16, &words));
        reports_agree(&m, at).unwrap_or_else(|e| panic!("{op:?} {words:?}: {e}"));
    }
}
