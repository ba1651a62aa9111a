//! DPC++ joint_matrix's translator-internal instructions (opcodes 6193-6195, 6440, 6448, 6449;
//! not in SPIRV-Headers) on `tests/fixtures/joint_matrix/joint_matrix.spvasm`, written from
//! their specification (intel/llvm `SPV_INTEL_joint_matrix.asciidoc` rev 16); its expected
//! outputs come from `gen_expected.py`, which computes them from the kernel's definition. It
//! loads with every result id known, round-trips binary -> text -> binary byte for byte,
//! validates by default with one warning (spirv-val cannot judge them; the rest of the module
//! still is), simulates to the expected bytes (checked load and store in and out of bounds,
//! checked construct, element coordinates, prefetch), and `-O` converts them on every target
//! (convert-tensor-addressing, every one counted by the path it took) to the same bytes.

use std::path::{Path, PathBuf};

use spvopt_ir::grammar::internal::{self, is_translator_internal};
use spvopt_ir::text::{self, TargetEnv};
use spvopt_ir::Module;
use spvopt_passes::validate::validate_module;

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/joint_matrix")
}

fn source() -> String {
    std::fs::read_to_string(dir().join("joint_matrix.spvasm")).unwrap()
}

fn words_of(src: &str) -> Vec<u32> {
    text::assemble(src, TargetEnv::Universal_1_4).unwrap()
}

fn launch() -> spvopt_sim::Launch {
    spvopt_sim::Launch::from_file(&dir().join("joint_matrix.launch.json")).unwrap()
}

fn internal_ops(m: &Module) -> Vec<u16> {
    m.all_insts()
        .map(|i| m.inst(i).opcode())
        .filter(|&o| is_translator_internal(o))
        .collect()
}

/// Runs `m` and compares buffers 1-3 with the expected files.
fn check_outputs(m: &Module, what: &str) {
    let r = spvopt_sim::run(m, &launch()).unwrap_or_else(|e| panic!("{what}: {e}"));
    for (i, bytes) in &r.buffers {
        if *i == 0 {
            continue;
        }
        let want = std::fs::read(dir().join(format!("joint_matrix.expected_{i}.bin"))).unwrap();
        assert_eq!(bytes, &want, "{what}: arg{i}");
    }
}

#[test]
fn loads_with_their_results_known() {
    let m = spvopt_ir::load_words(&words_of(&source())).unwrap();
    assert_eq!(internal_ops(&m), [6449, 6193, 6194, 6195, 6440, 6440]);
    let load = m
        .all_insts()
        .find(|&i| m.inst(i).opcode() == internal::OP_COOPERATIVE_MATRIX_LOAD_CHECKED_INTEL)
        .unwrap();
    let inst = m.inst(load);
    assert_eq!(inst.name(), "OpCooperativeMatrixLoadCheckedINTEL");
    let (ty, res) = (inst.result_type().unwrap(), inst.result_id().unwrap());
    assert!(m
        .def_inst(ty)
        .unwrap()
        .is(spirv::Op::TypeCooperativeMatrixKHR));
    // The checked store uses the loaded matrix as its Object operand.
    let store = m
        .all_insts()
        .find(|&i| m.inst(i).opcode() == internal::OP_COOPERATIVE_MATRIX_STORE_CHECKED_INTEL)
        .unwrap();
    assert_eq!(m.inst(store).operand_id(3), Some(res));
}

#[test]
fn round_trips_through_text_byte_for_byte() {
    let words = words_of(&source());
    let m = spvopt_ir::load_words(&words).unwrap();
    assert_eq!(m.to_words(), words, "binary round trip");
    let dis = text::disassemble(&words).unwrap();
    assert!(dis.contains("OpUnknown(6193, 10) %"), "{dis}");
    assert!(
        dis.contains("; OpCooperativeMatrixLoadCheckedINTEL"),
        "{dis}"
    );
    assert!(dis.contains("; OpCooperativeMatrixPrefetchINTEL"), "{dis}");
    let again = words_of(&dis);
    assert_eq!(again, words, "binary -> text -> binary");
    assert_eq!(text::disassemble(&again).unwrap(), dis);
}

#[test]
fn validates_by_default_with_one_warning() {
    let m = spvopt_ir::load_words(&words_of(&source())).unwrap();
    let w = validate_module(&m, TargetEnv::Universal_1_4).unwrap();
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(
        w[0].contains("joint_matrix") && w[0].contains("6192"),
        "{w:?}"
    );
    // Everything else is still judged: a real error next to them is reported.
    let broken = source().replace("OpStore %p0 %c0 Aligned 8", "OpStore %p0 %u0 Aligned 8");
    let m = spvopt_ir::load_words(&words_of(&broken)).unwrap();
    let e = validate_module(&m, TargetEnv::Universal_1_4).unwrap_err();
    assert!(e.contains("OpStore"), "{e}");
    // A module without them gets no such warning: the deviation needs the instructions.
    let other =
        std::fs::read_to_string(dir().join("../predicated_io/predicated_io.spvasm")).unwrap();
    let plain = spvopt_ir::load_words(&words_of(&other)).unwrap();
    assert!(validate_module(&plain, TargetEnv::Universal_1_4)
        .unwrap()
        .iter()
        .all(|w| !w.contains("joint_matrix")));
}

#[test]
fn simulates_to_the_expected_bytes() {
    let m = spvopt_ir::load_words(&words_of(&source())).unwrap();
    check_outputs(&m, "input");
}

#[test]
fn out_of_bounds_elements_are_not_read() {
    // Height 12 instead of 10: rows 10 and 11 are now in bounds and read past the 960-byte
    // source buffer (10 rows of 24 u32): the simulator reports it. With 10 they are zeros.
    let src = source().replace(
        "OpUnknown(6193, 10) %mat %A %src %u4 %u8 %u0 %u10 %u20 %u24",
        "OpUnknown(6193, 10) %mat %A %src %u4 %u8 %u0 %u12 %u20 %u24",
    );
    assert_ne!(src, source());
    let m = spvopt_ir::load_words(&words_of(&src)).unwrap();
    let e = spvopt_sim::run(&m, &launch()).unwrap_err().to_string();
    assert!(e.contains("OpCooperativeMatrixLoadCheckedINTEL"), "{e}");
}

#[test]
fn an_element_index_past_the_length_is_reported() {
    // Length is 8 x 16 / 16 = 8: index 8 names no element of the invocation.
    let src = source().replace(
        "OpUnknown(6440, 5) %v2uint %c7 %A %u7",
        "OpUnknown(6440, 5) %v2uint %c7 %A %u8",
    );
    assert_ne!(src, source());
    let m = spvopt_ir::load_words(&words_of(&src)).unwrap();
    let e = spvopt_sim::run(&m, &launch()).unwrap_err().to_string();
    assert!(e.contains("Index 8"), "{e}");
}

#[test]
fn o_converts_them_on_every_target_to_the_same_results() {
    let words = words_of(&source());
    for (target, m) in spvopt_tests::optimized_for_every_target(&words) {
        assert!(internal_ops(&m).is_empty(), "{}", target.name);
        let dis = text::disassemble(&m.to_words()).unwrap();
        for gone in [
            "6192",
            "6411",
            "6435",
            "SPV_INTEL_joint_matrix",
            "Cooperative",
        ] {
            assert!(!dis.contains(gone), "{}: {gone} left:\n{dis}", target.name);
        }
        check_outputs(&m, &target.name);
    }
}

#[test]
fn every_instruction_is_counted_by_its_path() {
    let mut m = spvopt_ir::load_words(&words_of(&source())).unwrap();
    let pipeline = spvopt_passes::Pipeline::parse("convert-tensor-addressing").unwrap();
    let target = spvopt_analysis::Target::by_name("pvc").unwrap();
    let report = spvopt_passes::run_pipeline(
        &pipeline,
        &mut m,
        &target,
        &mut spvopt_tests::checked_hooks(),
    )
    .unwrap();
    let stats = &report.passes[0].stats;
    let count = |names: &[&str]| names.iter().map(|n| stats.get(n)).sum::<u64>();
    // The fixture's prefetch, checked load, checked store, construct and two coordinates.
    assert_eq!(
        count(&[
            "block_prefetches",
            "runtime_checked_prefetches",
            "dropped_prefetches"
        ]),
        1,
        "{stats}"
    );
    let loads = [
        "block_checked_loads",
        "runtime_checked_checked_loads",
        "fallback_checked_loads",
    ];
    let stores = [
        "block_checked_stores",
        "runtime_checked_checked_stores",
        "fallback_checked_stores",
    ];
    assert_eq!(count(&loads), 1, "{stats}");
    assert_eq!(count(&stores), 1, "{stats}");
    assert_eq!(stats.get("checked_constructs"), 1, "{stats}");
    assert_eq!(stats.get("element_coords"), 2, "{stats}");
    // Base alignment unknown (a kernel argument): the load and the prefetch are checked at run
    // time; the store's 48-byte surface is under the 2D block minimum.
    assert_eq!(stats.get("runtime_checked_checked_loads"), 1, "{stats}");
    assert_eq!(stats.get("runtime_checked_prefetches"), 1, "{stats}");
    assert_eq!(stats.get("fallback_checked_stores"), 1, "{stats}");
    assert!(internal_ops(&m).is_empty());
    check_outputs(&m, "convert-tensor-addressing");
}

#[test]
fn a_packed_layout_is_a_located_error() {
    // PackedINTEL (2) on the checked load: not converted; the error names the instruction.
    let src = source().replace(
        "OpUnknown(6193, 10) %mat %A %src %u4 %u8 %u0 %u10 %u20 %u24",
        "OpUnknown(6193, 10) %mat %A %src %u4 %u8 %u2 %u10 %u20 %u24",
    );
    assert_ne!(src, source());
    let mut m = spvopt_ir::load_words(&words_of(&src)).unwrap();
    let pipeline = spvopt_passes::Pipeline::parse("convert-tensor-addressing").unwrap();
    let e = spvopt_passes::run_pipeline(
        &pipeline,
        &mut m,
        &spvopt_analysis::Target::by_name("pvc").unwrap(),
        &mut spvopt_tests::checked_hooks(),
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("OpCooperativeMatrixLoadCheckedINTEL") && e.contains("PackedINTEL"),
        "{e}"
    );
    assert!(!e.contains('\n'), "{e}");
}
