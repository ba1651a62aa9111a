//! Structural invariants (`spvopt_ir::verify`), enforced by the loader on every module and by
//! the pass manager on every pass's output: each violation is one typed, one-line error that
//! names the instruction (byte offset, opcode) and the id with its OpName.

use spvopt_analysis::{Analyses, Target};
use spvopt_ir::{LoadError, LoadErrorKind as K, Module};
use spvopt_passes::manager::PipelineStep;
use spvopt_passes::registry::PassInfo;
use spvopt_passes::{run_pipeline, Pass, PassError, PassResult, Pipeline, Statistics};

const HEAD: &str = "OpCapability Addresses\nOpCapability Kernel\nOpCapability Linkage\n\
OpMemoryModel Physical64 OpenCL\nOpEntryPoint Kernel %main \"main\"\n";

const TYPES: &str = "%void = OpTypeVoid\n%uint = OpTypeInt 32 0\n%bool = OpTypeBool\n\
%ptr = OpTypePointer CrossWorkgroup %uint\n%fn = OpTypeFunction %void\n\
%fn_ptr = OpTypeFunction %void %ptr\n%c1 = OpConstant %uint 1\n%true = OpConstantTrue %bool\n";

fn asm(text: &str) -> Vec<u8> {
    spvopt_ir::text::assemble(text, spvopt_ir::text::TargetEnv::Universal_1_4)
        .unwrap_or_else(|e| panic!("assembling the test module: {e}"))
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .collect()
}

fn load_err(text: &str) -> LoadError {
    let e = spvopt_ir::load_bytes(&asm(text)).expect_err("the module must be rejected");
    let msg = e.to_string();
    assert!(msg.starts_with("byte offset "), "{msg}");
    assert_eq!(msg.lines().count(), 1, "{msg}");
    e
}

fn module(names: &str, body: &str) -> String {
    format!("{HEAD}{names}{TYPES}{body}")
}

/// The fuzzer's case: a parameter of an imported declaration used in another function.
#[test]
fn parameter_of_another_function_is_rejected() {
    let text = module(
        "OpName %p \"ext_param\"\nOpDecorate %ext LinkageAttributes \"ext\" Import\n",
        "%ext = OpFunction %void None %fn_ptr\n%p = OpFunctionParameter %ptr\nOpFunctionEnd\n\
         %main = OpFunction %void None %fn\n%l = OpLabel\nOpStore %p %c1\nOpReturn\nOpFunctionEnd\n",
    );
    let e = load_err(&text);
    assert_eq!(e.instruction.as_deref(), Some("OpStore"));
    match &e.kind {
        K::ForeignLocalId {
            id,
            defined_in,
            used_in,
        } => {
            assert_eq!(id.name.as_deref(), Some("ext_param"));
            assert_ne!(Some(defined_in), used_in.as_ref());
        }
        k => panic!("wrong kind {k:?}"),
    }
    assert!(e.to_string().contains("\"ext_param\""), "{e}");
    // The byte offset is the OpStore's.
    let bytes = asm(&text);
    let w = e.offset / 4;
    let word = u32::from_le_bytes(bytes[w * 4..w * 4 + 4].try_into().unwrap());
    assert_eq!(word & 0xffff, spvopt_ir::spirv::Op::Store as u32);
}

#[test]
fn label_of_another_function_is_rejected() {
    let text = module(
        "",
        "%f = OpFunction %void None %fn\n%fl = OpLabel\nOpReturn\nOpFunctionEnd\n\
         %main = OpFunction %void None %fn\n%l = OpLabel\nOpBranch %fl\nOpFunctionEnd\n",
    );
    assert!(matches!(load_err(&text).kind, K::ForeignLocalId { .. }));
}

#[test]
fn use_before_definition_is_rejected_but_not_in_phis_or_unreachable_blocks() {
    let bad = module(
        "OpName %x \"x\"\n",
        "%main = OpFunction %void None %fn\n%l = OpLabel\n%y = OpIAdd %uint %x %c1\n\
         %x = OpIAdd %uint %c1 %c1\nOpReturn\nOpFunctionEnd\n",
    );
    let e = load_err(&bad);
    assert_eq!(
        e.kind,
        K::UsedBeforeDefinition(spvopt_ir::IdDesc {
            id: match e.kind {
                K::UsedBeforeDefinition(ref d) => d.id,
                _ => 0,
            },
            name: Some("x".into())
        })
    );
    assert_eq!(e.instruction.as_deref(), Some("OpIAdd"));
    // A loop: the phi takes a value defined later; an unreachable block uses a later value.
    let ok = module(
        "",
        "%main = OpFunction %void None %fn\n%entry = OpLabel\nOpBranch %loop\n\
         %dead = OpLabel\n%u = OpIAdd %uint %next %c1\nOpBranch %loop\n\
         %loop = OpLabel\n%i = OpPhi %uint %c1 %entry %next %loop %c1 %dead\n\
         %next = OpIAdd %uint %i %c1\nOpLoopMerge %exit %loop None\n\
         OpBranchConditional %true %loop %exit\n%exit = OpLabel\nOpReturn\nOpFunctionEnd\n",
    );
    spvopt_ir::load_bytes(&asm(&ok)).expect("phis and unreachable blocks may refer forward");
}

#[test]
fn module_level_forward_reference_is_rejected_except_forward_pointers() {
    let bad = format!(
        "{HEAD}%p2 = OpTypePointer CrossWorkgroup %uint2\n%uint2 = OpTypeInt 32 0\n{TYPES}\
         %main = OpFunction %void None %fn\n%l = OpLabel\nOpReturn\nOpFunctionEnd\n"
    );
    assert!(matches!(load_err(&bad).kind, K::UsedBeforeDefinition(_)));
    let ok = format!(
        "{HEAD}OpTypeForwardPointer %sp CrossWorkgroup\n%u32 = OpTypeInt 32 0\n\
         %s = OpTypeStruct %u32 %sp\n%sp = OpTypePointer CrossWorkgroup %s\n{TYPES}\
         %main = OpFunction %void None %fn\n%l = OpLabel\nOpReturn\nOpFunctionEnd\n"
    );
    spvopt_ir::load_bytes(&asm(&ok)).expect("forward pointers may be used before definition");
}

fn wrong_kind(text: &str, expected: &str) {
    let e = load_err(text);
    match &e.kind {
        K::WrongOperandKind { expected: x, .. } => assert_eq!(*x, expected, "{e}"),
        k => panic!("wrong kind {k:?}: {e}"),
    }
}

#[test]
fn operand_kinds_passes_rely_on() {
    let f = |body: &str| {
        module(
            "",
            &format!(
                "%main = OpFunction %void None %fn\n%l = OpLabel\n{body}OpReturn\nOpFunctionEnd\n"
            ),
        )
    };
    // A constant as a result type.
    wrong_kind(&f("%x = OpIAdd %c1 %c1 %c1\n"), "a type");
    // Calling a label.
    wrong_kind(&f("%x = OpFunctionCall %void %l\n"), "an OpFunction");
    // Loading through an integer.
    wrong_kind(&f("%x = OpLoad %uint %c1\n"), "a pointer");
    wrong_kind(&f("OpStore %c1 %c1\n"), "a pointer");
    // A phi whose parent is a constant.
    wrong_kind(
        &f("OpBranch %m\n%m = OpLabel\n%x = OpPhi %uint %c1 %c1\n"),
        "a label of the same function",
    );
    // A branch to a constant.
    let text = module(
        "",
        "%main = OpFunction %void None %fn\n%l = OpLabel\nOpBranch %c1\nOpFunctionEnd\n",
    );
    wrong_kind(&text, "a label of the same function");
    // OpFunction with a non-function type; entry point naming a constant.
    let text = module(
        "",
        "%main = OpFunction %void None %uint\n%l = OpLabel\nOpReturn\nOpFunctionEnd\n",
    );
    wrong_kind(&text, "an OpTypeFunction");
    let text = format!(
        "OpCapability Addresses\nOpCapability Kernel\nOpMemoryModel Physical64 OpenCL\n\
         OpEntryPoint Kernel %c1 \"main\"\n{TYPES}"
    );
    wrong_kind(&text, "an OpFunction");
}

#[test]
fn ids_are_limited_by_module_size_not_by_the_header_bound() {
    let small = module(
        "",
        "%main = OpFunction %void None %fn\n%l = OpLabel\nOpReturn\nOpFunctionEnd\n",
    );
    let mut words: Vec<u32> = asm(&small)
        .chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    // A huge bound with small ids loads; tables are sized by the ids.
    words[3] = 0x00ff_ffff;
    let m = spvopt_ir::load_words(&words).expect("a huge bound alone is fine");
    assert!(m.id_capacity() < 64, "{}", m.id_capacity());
    assert_eq!(m.to_words(), words, "the bound round-trips");
    // An id far above what the module's size needs is rejected.
    let label = (5..words.len())
        .find(|&p| words[p] & 0xffff == spvopt_ir::spirv::Op::Label as u32)
        .unwrap();
    words[label + 1] = 5_000_000;
    let e = spvopt_ir::load_words(&words).unwrap_err();
    assert!(
        matches!(e.kind, K::IdTooLargeForSize { id: 5_000_000, .. }),
        "{e}"
    );
    assert_eq!(e.offset, label * 4);
}

/// A deliberately broken pass: it deletes the callee's definition (what raise-builtins did
/// to a declaration whose parameter another function used).
struct DropFunctions;
impl Pass for DropFunctions {
    fn name(&self) -> &'static str {
        "drop-functions"
    }
    fn run(
        &mut self,
        m: &mut Module,
        _: &mut Analyses,
        _: &Target,
        changes: &mut spvopt_passes::Changes,
    ) -> Result<PassResult, PassError> {
        let f = m.function_ids().next().unwrap();
        assert!(changes.allow());
        m.remove_function(f);
        Ok(PassResult {
            changed: true,
            ..PassResult::unchanged(Statistics::default())
        })
    }
}

static BROKEN: PassInfo = PassInfo {
    name: "drop-functions",
    description: "test: removes the first function",
    options: &[],
    construct: |_| Ok(Box::new(DropFunctions)),
};

#[test]
fn pass_manager_names_a_pass_that_breaks_the_invariants() {
    let text = module(
        "",
        "%main = OpFunction %void None %fn\n%l = OpLabel\nOpReturn\nOpFunctionEnd\n",
    );
    let mut m = spvopt_ir::load_bytes(&asm(&text)).unwrap();
    let mut p = Pipeline::new();
    p.steps.push(PipelineStep {
        info: &BROKEN,
        options: Vec::new(),
    });
    let e = run_pipeline(
        &p,
        &mut m,
        &Target::default(),
        &mut spvopt_tests::checked_hooks(),
    )
    .unwrap_err();
    assert!(
        matches!(&e, PassError::Malformed { pass, .. } if pass == "drop-functions"),
        "{e}"
    );
    let msg = e.to_string();
    assert_eq!(msg.lines().count(), 1);
    assert!(
        msg.contains("OpEntryPoint") && msg.contains("never defined"),
        "{msg}"
    );
}

/// Every corpus module loads (so passes the invariants), and so does every pass's output on
/// it (the pass manager checks after each pass; reloading checks the emitted words too).
#[test]
fn corpus_and_pipeline_outputs_satisfy_the_invariants() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus");
    let mut files = Vec::new();
    let mut stack = vec![root];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "spv") {
                files.push(p);
            }
        }
    }
    files.sort();
    assert!(files.len() > 20, "{}", files.len());
    for f in &files {
        let bytes = std::fs::read(f).unwrap();
        let m = spvopt_ir::load_bytes(&bytes).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        spvopt_ir::verify(&m).unwrap();
        for pipeline in ["O", "raise-builtins,lower-builtins", "strip-debug,dce"] {
            let words = m.to_words();
            if let Ok((out, _)) =
                spvopt_passes::optimize_words(&words, pipeline, &Target::default())
            {
                spvopt_ir::load_words(&out)
                    .unwrap_or_else(|e| panic!("{} {pipeline}: {e}", f.display()));
            }
        }
    }
}

/// dce removing most of a module leaves its kernel's ids far above what the output's size
/// admits: the pass manager renumbers them so the output loads again.
#[test]
fn sparse_ids_left_by_dce_are_compacted() {
    let mut dead = String::from("%dead = OpFunction %void None %fn\n%dl = OpLabel\n");
    for k in 0..70_000 {
        dead.push_str(&format!("%d{k} = OpIAdd %uint %c1 %c1\n"));
    }
    dead.push_str("OpReturn\nOpFunctionEnd\n");
    let text = module(
        "",
        &format!(
            "{dead}%main = OpFunction %void None %fn\n%l = OpLabel\n\
             %x = OpIAdd %uint %c1 %c1\nOpReturn\nOpFunctionEnd\n"
        ),
    );
    let input = asm(&text);
    let m = spvopt_ir::load_bytes(&input).unwrap();
    assert!(m.id_capacity() > 70_000);
    let words = m.to_words();
    let (out, _) = spvopt_passes::optimize_words(&words, "dce", &Target::default()).unwrap();
    assert!(out.len() < 200, "{}", out.len());
    let reloaded = spvopt_ir::load_words(&out).expect("compacted output loads");
    assert!(reloaded.id_capacity() < 20, "{}", reloaded.id_capacity());
    assert_eq!(
        out[3] as usize,
        reloaded.id_capacity(),
        "bound = highest id + 1"
    );
    // Without compaction the same ids would be rejected at this size.
    assert!(m.id_capacity() > spvopt_ir::loader::id_limit(out.len()) as usize);
    // A module whose ids fit is written with its ids unchanged.
    let (same, _) = spvopt_passes::optimize_words(&out, "dce", &Target::default()).unwrap();
    assert_eq!(same, out);
}
