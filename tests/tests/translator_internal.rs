//! What the LLVM/SPIR-V translator keeps internal and current producers emit
//! (`spvopt_ir::grammar::internal`): `BFloat16ArithmeticINTEL` arithmetic on bfloat16 values
//! (`tests/fixtures/translator_internal/bf16_arithmetic.spvasm`) and `OpFSigmoidINTEL`
//! (`sigmoid.spvasm`). Each loads, round-trips byte for byte, disassembles with the names in
//! comments and assembles back to the same words, validates with one warning (and the bfloat16
//! arithmetic without its capability is an error), simulates to values computed here
//! independently (bfloat16 rounded from f32 bits, not IEEE half), and keeps its results and its
//! capability through `-O` on every target (but mtl for bfloat16, whose IGC rejects
//! SPV_KHR_bfloat16: a located error there).

use std::path::{Path, PathBuf};

use spvopt_ir::text::{self, TargetEnv};
use spvopt_passes::validate::validate_module;

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/translator_internal")
}

fn source(name: &str) -> String {
    std::fs::read_to_string(dir().join(format!("{name}.spvasm"))).unwrap()
}

fn words(name: &str) -> Vec<u32> {
    text::assemble(&source(name), TargetEnv::Universal_1_4).unwrap()
}

fn run(m: &spvopt_ir::Module, name: &str) -> Vec<Vec<u8>> {
    let launch = spvopt_sim::Launch::from_file(&dir().join(format!("{name}.launch.json"))).unwrap();
    let r = spvopt_sim::run(m, &launch).unwrap_or_else(|e| panic!("{name}: {e}"));
    r.buffers.into_iter().map(|(_, b)| b).collect()
}

fn bf16(b: &[u8]) -> f32 {
    f32::from_bits((u16::from_le_bytes([b[0], b[1]]) as u32) << 16)
}

/// f32 → bfloat16, round to nearest even, on the bits (independent of the simulator's code).
fn round_bf16(x: f32) -> f32 {
    let u = x.to_bits();
    let r = u.wrapping_add(0x7fff + ((u >> 16) & 1)) & 0xffff_0000;
    f32::from_bits(r)
}

/// The bfloat16 kernel's expected outputs from its inputs: c = (a + b) * b rounded after each
/// operation, f = float(c).
fn check_bf16(bufs: &[Vec<u8>], what: &str) {
    let get = |k: usize, i: usize| bf16(&bufs[k][2 * i..2 * i + 2]);
    for i in 0..8 {
        let (a, b) = (get(0, i), get(1, i));
        let c = round_bf16(round_bf16(a + b) * b);
        assert_eq!(get(2, i), c, "{what}: c[{i}] for a = {a}, b = {b}");
        let f = f32::from_le_bytes(bufs[3][4 * i..4 * i + 4].try_into().unwrap());
        assert_eq!(f, c, "{what}: f[{i}]");
    }
    // Read as IEEE half the same bits give other numbers: the check above is not vacuous.
    let half = |k: usize, i: usize| {
        let bits = u16::from_le_bytes([bufs[k][2 * i], bufs[k][2 * i + 1]]);
        spvopt_sim::numeric::f16_to_f32(bits)
    };
    assert!((0..8).any(|i| half(2, i) != get(2, i)), "{what}");
}

fn check_sigmoid(bufs: &[Vec<u8>], what: &str) {
    let sig = |x: f64| 1.0 / (1.0 + (-x).exp());
    for i in 0..8 {
        let a = f32::from_le_bytes(bufs[0][4 * i..4 * i + 4].try_into().unwrap());
        let b = f32::from_le_bytes(bufs[1][4 * i..4 * i + 4].try_into().unwrap());
        assert_eq!(b, sig(a as f64) as f32, "{what}: b[{i}]");
        let h = |k: usize| {
            spvopt_sim::numeric::f16_to_f32(u16::from_le_bytes([
                bufs[k][2 * i],
                bufs[k][2 * i + 1],
            ]))
        };
        let (c, d) = (h(2), h(3));
        assert!(
            (d as f64 - sig(c as f64)).abs() <= 1.0 / 2048.0,
            "{what}: d[{i}] = {d} for c = {c}"
        );
        assert!(d > 0.0 && d < 1.0, "{what}: d[{i}] = {d}");
    }
}

#[test]
fn load_round_trip_and_print_by_name() {
    for (name, names) in [
        (
            "bf16_arithmetic",
            &["; OpCapability BFloat16ArithmeticINTEL"][..],
        ),
        (
            "sigmoid",
            &["; OpCapability SigmoidINTEL", "; OpFSigmoidINTEL"][..],
        ),
    ] {
        let w = words(name);
        let m = spvopt_ir::load_words(&w).unwrap();
        assert_eq!(m.to_words(), w, "{name}");
        let dis = text::disassemble(&w).unwrap();
        for n in names {
            assert!(dis.contains(n), "{name}: {n} missing in\n{dis}");
        }
        assert_eq!(
            text::assemble(&dis, TargetEnv::Universal_1_4).unwrap(),
            w,
            "{name}"
        );
    }
}

#[test]
fn validate_with_one_warning_and_bf16_arithmetic_needs_its_capability() {
    for name in ["bf16_arithmetic", "sigmoid"] {
        let m = spvopt_ir::load_words(&words(name)).unwrap();
        let warnings = validate_module(&m, TargetEnv::Universal_1_4)
            .unwrap_or_else(|e| panic!("{name}: {e:?}"));
        assert_eq!(warnings.len(), 1, "{name}: {warnings:?}");
        assert!(
            warnings[0].contains("kept internal by the LLVM/SPIR-V translator"),
            "{name}: {}",
            warnings[0]
        );
    }
    let without = source("bf16_arithmetic").replace("OpUnknown(17, 2) 6226", "");
    let m = spvopt_ir::load_words(&text::assemble(&without, TargetEnv::Universal_1_4).unwrap())
        .unwrap();
    let e = validate_module(&m, TargetEnv::Universal_1_4).unwrap_err();
    assert!(
        format!("{e:?}").contains("doesn't support BFloat16 type"),
        "{e:?}"
    );
    // Another error beside the internal capability and the arithmetic it allows is still
    // found (a float stored through a bfloat16 pointer).
    let broken =
        source("bf16_arithmetic").replace("OpStore %pf %wf Aligned 4", "OpStore %pc %wf Aligned 4");
    let m =
        spvopt_ir::load_words(&text::assemble(&broken, TargetEnv::Universal_1_4).unwrap()).unwrap();
    assert!(validate_module(&m, TargetEnv::Universal_1_4).is_err());
}

#[test]
fn simulate_to_independently_computed_values() {
    let m = spvopt_ir::load_words(&words("bf16_arithmetic")).unwrap();
    check_bf16(&run(&m, "bf16_arithmetic"), "input");
    let m = spvopt_ir::load_words(&words("sigmoid")).unwrap();
    check_sigmoid(&run(&m, "sigmoid"), "input");
}

/// `-O` of the fixture for every target, each output validated; a target whose IGC rejects
/// an extension the module uses (mtl: SPV_KHR_bfloat16, measured in
/// `analysis/src/target/igc_extensions`) gets legalize's located error instead.
fn optimized(name: &str) -> Vec<(spvopt_analysis::Target, spvopt_ir::Module)> {
    let pipeline = spvopt_passes::Pipeline::parse("O").unwrap();
    let mut out = Vec::new();
    for target in spvopt_analysis::Target::all() {
        let mut m = spvopt_ir::load_words(&words(name)).unwrap();
        let r = spvopt_passes::run_pipeline(
            &pipeline,
            &mut m,
            &target,
            &mut spvopt_tests::checked_hooks(),
        );
        let bf16_rejected = name == "bf16_arithmetic"
            && target.igc_accepts_extension("SPV_KHR_bfloat16") == Some(false);
        if bf16_rejected {
            let e = r.expect_err(&target.name).to_string();
            assert!(e.contains("SPV_KHR_bfloat16"), "{}: {e}", target.name);
            continue;
        }
        r.unwrap_or_else(|e| panic!("{name} {}: {e}", target.name));
        validate_module(&m, TargetEnv::Universal_1_4)
            .unwrap_or_else(|e| panic!("{name} {}: {e:?}", target.name));
        out.push((target, m));
    }
    out
}

#[test]
fn keep_results_and_capabilities_through_o_on_every_target() {
    for (name, capability) in [("bf16_arithmetic", 6226), ("sigmoid", 6167)] {
        let outputs = optimized(name);
        assert!(outputs.len() >= 7, "{name}: {} targets", outputs.len());
        for (target, m) in outputs {
            let what = format!("{name} -O --target {}", target.name);
            let bufs = run(&m, name);
            if name == "sigmoid" {
                check_sigmoid(&bufs, &what);
            } else {
                check_bf16(&bufs, &what);
            }
            let w = m.to_words();
            assert!(
                text::has_translator_internal_capabilities(&w),
                "{what}: capability {capability} gone"
            );
        }
    }
}
