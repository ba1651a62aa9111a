//! Loader errors: each kind of malformed input gives its error with a byte offset and the
//! instruction, as one line.

use spvopt_ir::LoadErrorKind as K;

fn base() -> Vec<u32> {
    spvopt_ir::text::assemble(
        "OpCapability Addresses\nOpCapability Kernel\n%ocl = OpExtInstImport \"OpenCL.std\"\nOpMemoryModel Physical64 OpenCL\nOpEntryPoint Kernel %1 \"main\"\n%2 = OpTypeVoid\n%3 = OpTypeFunction %2\n%1 = OpFunction %2 None %3\n%4 = OpLabel\nOpReturn\nOpFunctionEnd\n",
        spvopt_ir::text::TargetEnv::Universal_1_4,
    )
    .unwrap()
}

fn bytes(w: &[u32]) -> Vec<u8> {
    w.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn kind(b: &[u8]) -> K {
    let e = spvopt_ir::load_bytes(b).unwrap_err();
    let msg = e.to_string();
    assert!(msg.starts_with("byte offset "), "{msg}");
    assert_eq!(msg.lines().count(), 1);
    e.kind
}

/// Word index of the first instruction with `opcode`.
fn find(w: &[u32], opcode: spvopt_ir::spirv::Op) -> usize {
    let mut p = 5;
    while w[p] & 0xffff != opcode as u32 {
        p += (w[p] >> 16) as usize;
    }
    p
}

#[test]
fn each_error_kind() {
    let w = base();
    assert_eq!(kind(&[]), K::Empty);
    assert!(matches!(kind(&bytes(&w)[..12]), K::TruncatedHeader(12)));
    assert!(matches!(
        kind(&bytes(&w)[..bytes(&w).len() - 2]),
        K::NotWholeWords(_)
    ));
    let mut bad = w.clone();
    bad[0] = 0x1234_5678;
    assert!(matches!(kind(&bytes(&bad)), K::BadMagic(0x1234_5678)));
    let mut zero = w.clone();
    let p = find(&w, spvopt_ir::spirv::Op::TypeVoid);
    zero[p] &= 0xffff;
    assert_eq!(kind(&bytes(&zero)), K::ZeroWordCount);
    let e = spvopt_ir::load_bytes(&bytes(&zero)).unwrap_err();
    assert_eq!(e.offset, p * 4);
    assert_eq!(e.instruction.as_deref(), Some("OpTypeVoid"));
    let mut past = w.clone();
    let p = find(&w, spvopt_ir::spirv::Op::Return);
    past[p] = 50 << 16 | (past[p] & 0xffff);
    assert!(matches!(
        kind(&bytes(&past)),
        K::PastEnd { word_count: 50, .. }
    ));
    let mut bound = w.clone();
    bound[3] = 3;
    assert!(matches!(
        kind(&bytes(&bound)),
        K::IdOutOfBound { bound: 3, .. }
    ));
    let mut truncated_module = w.clone();
    truncated_module.truncate(find(&w, spvopt_ir::spirv::Op::FunctionEnd));
    assert_eq!(kind(&bytes(&truncated_module)), K::UnterminatedFunction);
}

#[test]
fn unknown_ext_inst_set_and_bad_string() {
    let w = base();
    let p = find(&w, spvopt_ir::spirv::Op::ExtInstImport);
    let mut unknown = w.clone();
    // "OpenCL.std" -> "OpenCX.std"
    let name_word = p + 2;
    unknown[name_word + 1] = u32::from_le_bytes(*b"CX.s");
    assert!(matches!(kind(&bytes(&unknown)), K::UnknownExtInstSet(_)));
    // A string without its nul terminator: shorten the instruction by its last word.
    let mut bad_string = w.clone();
    let wc = (w[p] >> 16) as usize;
    bad_string.remove(p + wc - 1);
    bad_string[p] = ((wc as u32 - 1) << 16) | (w[p] & 0xffff);
    assert!(matches!(kind(&bytes(&bad_string)), K::Operands(m) if m.contains("nul-terminated")));
    // Invalid UTF-8.
    let mut utf = w.clone();
    utf[name_word] = u32::from_le_bytes([0xff, 0xfe, b'C', b'L']);
    assert!(matches!(kind(&bytes(&utf)), K::Operands(m) if m.contains("UTF-8")));
}

#[test]
fn undefined_and_duplicate_ids() {
    let w = base();
    let mut undefined = w.clone();
    let p = find(&w, spvopt_ir::spirv::Op::EntryPoint);
    undefined[p + 2] = 9; // entry point names %9, never defined (bound is larger)
    undefined[3] = 20;
    assert_eq!(kind(&bytes(&undefined)), K::UndefinedId(9));
    let mut dup = w.clone();
    let p = find(&w, spvopt_ir::spirv::Op::TypeFunction);
    dup[p + 1] = 2; // %2 = OpTypeFunction: %2 is already OpTypeVoid
    assert_eq!(kind(&bytes(&dup)), K::DuplicateDefinition(2));
}
