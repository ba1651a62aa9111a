//! The OpenCL sample corpus (`tests/corpus/opencl-samples`, issue 18): modules with many kernels,
//! one of them without `SubgroupSize`. `-O --target pvc` must decide per kernel: no MMA reported
//! unsupported (pvc runs all of them: bf16 K=16, i8 K=32, tf32 K=8 at subgroup size 16), no
//! fusion candidate rejected for an unknown subgroup size; and every launch (from the samples'
//! host code) gives the same buffers before and after on spv-sim, with C equal to A·B.

use std::path::{Path, PathBuf};

use spvopt_analysis::kernel_facts::{Fact, KernelFacts};
use spvopt_analysis::Target;
use spvopt_ir::Module;
use spvopt_passes::registry::OPTIMIZE_PIPELINE;
use spvopt_passes::{run_pipeline, Pipeline, RunReport};
use spvopt_sim::{Arg, Launch};

fn dir() -> PathBuf {
    spvopt_tests::corpus_dir().join("opencl-samples")
}

const MODULES: [&str; 3] = ["bf16", "i8", "tf32"];

fn module(v: &str) -> Module {
    let bytes = std::fs::read(dir().join(format!("matrix_kernels_{v}.spv"))).unwrap();
    spvopt_ir::load_bytes(&bytes).unwrap()
}

fn optimize(m: &Module, target: &str) -> (Module, RunReport) {
    let mut out = spvopt_ir::load_words(&m.to_words()).unwrap();
    let report = run_pipeline(
        &Pipeline::parse(OPTIMIZE_PIPELINE).unwrap(),
        &mut out,
        &Target::by_name(target).unwrap(),
        &mut spvopt_tests::checked_hooks(),
    )
    .unwrap_or_else(|e| panic!("-O --target {target}: {e}"));
    (out, report)
}

fn stat(r: &RunReport, pass: &str, name: &str) -> u64 {
    r.passes
        .iter()
        .filter(|p| p.name == pass)
        .map(|p| p.stats.get(name))
        .sum()
}

#[test]
fn every_kernel_has_its_own_facts() {
    for v in MODULES {
        let m = module(v);
        let f = KernelFacts::build(&m);
        let naive = f.entries().iter().filter(|e| e.name.ends_with("_naive"));
        for e in naive {
            assert_eq!(e.subgroup_size, Fact::Unknown, "{v}: {}", e.name);
        }
        let dpas: Vec<_> = f
            .entries()
            .iter()
            .filter(|e| !e.name.ends_with("_naive"))
            .collect();
        assert!(dpas.len() >= 16, "{v}: {} DPAS kernels", dpas.len());
        for e in dpas {
            assert_eq!(e.subgroup_size, Fact::Known(16), "{v}: {}", e.name);
            assert_eq!(
                f.subgroup_size(e.function.unwrap()),
                Fact::Known(16),
                "{v}: {}",
                e.name
            );
        }
        // The whole-module view has no single subgroup size (what every pass used to ask).
        assert_eq!(f.module_subgroup_size(), None, "{v}");
    }
}

#[test]
fn o_pvc_decides_per_kernel() {
    for v in MODULES {
        let m = module(v);
        let (_, r) = optimize(&m, "pvc");
        let mmas = stat(&r, "raise-builtins", "raised_mma");
        assert!(
            mmas > 0,
            "{v}: raise-builtins raised no MMA: {:?}",
            r.passes[0].stats
        );
        assert_eq!(
            stat(&r, "legalize", "mma_unsupported"),
            0,
            "{v}: {:?}",
            r.passes
                .iter()
                .flat_map(|p| p.stats.warnings())
                .collect::<Vec<_>>()
        );
        for reason in [
            "rejected_unknown_subgroup_size",
            "rejected_conflicting_subgroup_size",
        ] {
            assert_eq!(stat(&r, "fuse-block-loads", reason), 0, "{v}: {reason}");
        }
        // Only the exported copies of inlined helpers (no kernel calls them) have no subgroup
        // size (exported: dce keeps them).
        if v != "i8" {
            assert!(
                stat(
                    &r,
                    "fuse-block-loads",
                    "rejected_no_kernel_reaches_function"
                ) > 0
            );
        }
    }
}

/// Element type of the sample's matrices.
#[derive(Clone, Copy, Debug)]
enum Elem {
    Bf16,
    I8,
    F32,
}

fn elem_of(kernel: &str) -> Elem {
    if kernel.starts_with("bfloat16") {
        Elem::Bf16
    } else if kernel.starts_with("i8") {
        Elem::I8
    } else {
        Elem::F32
    }
}

fn values(bytes: &[u8], e: Elem) -> Vec<f64> {
    match e {
        Elem::Bf16 => bytes
            .chunks_exact(2)
            .map(|c| {
                f64::from(f32::from_bits(
                    u32::from(u16::from_le_bytes([c[0], c[1]])) << 16,
                ))
            })
            .collect(),
        Elem::I8 => bytes.iter().map(|&b| f64::from(b as i8)).collect(),
        Elem::F32 => bytes
            .chunks_exact(4)
            .map(|c| f64::from(f32::from_le_bytes([c[0], c[1], c[2], c[3]])))
            .collect(),
    }
}

fn buffer(l: &Launch, i: usize) -> &[u8] {
    match &l.args[i] {
        Arg::Buffer { bytes, .. } => bytes,
        a => panic!("argument {i} is not a buffer: {a:?}"),
    }
}

/// Checks C (argument 0 of `out`) against A·B (square matrices, `n` = sqrt of A's elements).
fn check_reference(kernel: &str, l: &Launch, c: &[u8]) {
    let e = elem_of(kernel);
    let a = values(buffer(l, 1), e);
    let b = values(buffer(l, 2), e);
    let n = (a.len() as f64).sqrt() as usize;
    assert_eq!(n * n, a.len());
    for row in 0..n {
        for col in 0..n {
            let want: f64 = (0..n).map(|k| a[row * n + k] * b[k * n + col]).sum();
            let at = 4 * (row * n + col);
            let word = [c[at], c[at + 1], c[at + 2], c[at + 3]];
            match e {
                Elem::I8 => {
                    let got = i32::from_le_bytes(word);
                    assert_eq!(f64::from(got), want, "{kernel}: C[{row}][{col}]");
                }
                _ => {
                    let got = f64::from(f32::from_le_bytes(word));
                    // The sample's check_results: 1e-4 absolute + 1% of the value. tf32 rounds
                    // its inputs to 10 mantissa bits: 2^-10 relative per product.
                    let tol = 1e-4
                        + 0.01 * want.abs()
                        + if matches!(e, Elem::F32) {
                            (0..n)
                                .map(|k| (a[row * n + k] * b[k * n + col]).abs())
                                .sum::<f64>()
                                * 2f64.powi(-9)
                        } else {
                            0.0
                        };
                    assert!(
                        (got - want).abs() <= tol,
                        "{kernel}: C[{row}][{col}] = {got}, reference {want}"
                    );
                }
            }
        }
    }
}

fn launches() -> Vec<(String, PathBuf)> {
    let mut v: Vec<(String, PathBuf)> = std::fs::read_dir(dir().join("launches"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.to_string_lossy().ends_with(".launch.json"))
        .map(|p| {
            let name = p
                .file_name()
                .unwrap()
                .to_string_lossy()
                .replace(".launch.json", "");
            (name, p)
        })
        .collect();
    v.sort();
    v
}

fn module_of(kernel: &str) -> &'static str {
    match elem_of(kernel) {
        Elem::Bf16 => "bf16",
        Elem::I8 => "i8",
        Elem::F32 => "tf32",
    }
}

#[test]
fn launches_give_the_same_results_before_and_after_o_pvc_and_match_the_reference() {
    let optimized: Vec<(Module, Module)> = MODULES
        .iter()
        .map(|v| {
            let m = module(v);
            let (o, _) = optimize(&m, "pvc");
            (m, o)
        })
        .collect();
    let ls = launches();
    assert!(ls.len() >= 6, "{} launches", ls.len());
    for (kernel, path) in ls {
        let l = Launch::from_file(Path::new(&path)).unwrap();
        assert_eq!(l.kernel, kernel);
        let k = MODULES
            .iter()
            .position(|v| *v == module_of(&kernel))
            .unwrap();
        let (before, after) = &optimized[k];
        let rb = spvopt_sim::run(before, &l).unwrap_or_else(|e| panic!("{kernel} before: {e}"));
        let ra = spvopt_sim::run(after, &l).unwrap_or_else(|e| panic!("{kernel} after -O: {e}"));
        assert_eq!(
            rb.buffers, ra.buffers,
            "{kernel}: -O --target pvc changed the results"
        );
        let c = &rb.buffers.iter().find(|(i, _)| *i == 0).unwrap().1;
        check_reference(&kernel, &l, c);
    }
}

/// insert-prefetches explains every load it considers (one note each); on the bf16 module the
/// tiled kernels already prefetch one iteration ahead, and every 2D load of such a loop is
/// counted as covered by its existing prefetch: new 2D prefetches go only to loops without one.
#[test]
fn insert_prefetches_accounts_for_every_load() {
    let m = module("bf16");
    let mut out = spvopt_ir::load_words(&m.to_words()).unwrap();
    let r = run_pipeline(
        &Pipeline::parse("raise-builtins,insert-prefetches").unwrap(),
        &mut out,
        &Target::by_name("pvc").unwrap(),
        &mut spvopt_tests::checked_hooks(),
    )
    .unwrap();
    let p = r
        .passes
        .iter()
        .find(|p| p.name == "insert-prefetches")
        .unwrap();
    let notes = p.stats.notes();
    assert_eq!(notes.len() as u64, p.stats.get("loads_considered"));
    let covered = notes
        .iter()
        .filter(|n| n.contains("skipped_already_prefetched: covered by the existing prefetch"))
        .count() as u64;
    assert_eq!(covered, p.stats.get("skipped_already_prefetched"));
    assert!(covered > 0);
    for n in notes.iter().filter(|n| n.contains("OpSubgroup2DBlockLoad")) {
        if n.contains(": prefetched: ") {
            assert!(n.ends_with("the loop has no 2D prefetch"), "{n}");
        }
    }
    let json = r.to_json();
    assert!(json["passes"][1]["notes"]
        .as_array()
        .is_some_and(|a| a.len() == notes.len()));
}

/// `-O --target dg2` / `--target mtl` (no 2D block IO; MMA emulated or split) on every sample
/// module: no 2D block or MMA instruction the device lacks is left — including those in
/// exported helpers no kernel calls, lowered for subgroup size 16, the only size 2D block IO is
/// defined for — and every launch gives the same bytes as the module as compiled.
#[test]
fn o_dg2_and_mtl_lower_everything_and_keep_the_results() {
    let ls = launches();
    for target in ["dg2", "mtl"] {
        for v in MODULES {
            let m = module(v);
            let (o, _) = optimize(&m, target);
            let dis = spvopt_ir::text::disassemble(&o.to_words()).unwrap();
            assert!(
                !dis.contains("OpSubgroup2DBlock"),
                "{v} {target}: 2D block IO left"
            );
            for (kernel, path) in ls.iter().filter(|(k, _)| module_of(k) == v) {
                let l = Launch::from_file(Path::new(path)).unwrap();
                let rb = spvopt_sim::run(&m, &l).unwrap_or_else(|e| panic!("{kernel}: {e}"));
                let ra = spvopt_sim::run(&o, &l)
                    .unwrap_or_else(|e| panic!("{kernel} after -O {target}: {e}"));
                assert_eq!(
                    rb.buffers, ra.buffers,
                    "{kernel}: -O --target {target} changed the results"
                );
            }
        }
    }
}

/// The sample modules are the LLVM/SPIR-V translator's real output: blocks before their
/// dominators, repeated `NoSignedWrap`, variables after other instructions in the entry block,
/// 1.4 interfaces listing only built-ins. Default validation accepts them with one warning per
/// deviation (spirv-val judges the rest), and the `-O` output validates with no deviation left.
#[test]
fn sample_modules_validate_by_default_and_o_output_is_clean() {
    let env = spvopt_ir::text::parse_target_env("spv1.4").unwrap();
    for v in MODULES {
        let m = module(v);
        let warnings = spvopt_passes::validate::validate_module(&m, env)
            .unwrap_or_else(|e| panic!("{v}: input rejected: {e}"));
        assert!(
            !warnings.is_empty(),
            "{v}: expected the translator's deviations"
        );
        for target in ["pvc", "dg2", "mtl"] {
            let (o, _) = optimize(&m, target);
            let after = spvopt_passes::validate::validate_module(&o, env)
                .unwrap_or_else(|e| panic!("{v} -O {target}: output rejected: {e}"));
            let layout: Vec<&String> = after
                .iter()
                .filter(|w| !w.starts_with("debug information"))
                .collect();
            assert!(layout.is_empty(), "{v} -O {target}: {layout:?}");
        }
    }
}

/// A use its definition does not dominate is still rejected: only a block layout that
/// reordering fixes is tolerated. Here `%x` is defined in one arm of a branch (laid out last)
/// and used in the merge block: no order makes that valid.
#[test]
fn a_real_use_before_definition_stays_an_error() {
    let src = "OpCapability Addresses\nOpCapability Kernel\nOpMemoryModel Physical64 OpenCL\n\
               OpEntryPoint Kernel %main \"main\"\n%uint = OpTypeInt 32 0\n%bool = OpTypeBool\n\
               %t = OpConstantTrue %bool\n%one = OpConstant %uint 1\n%void = OpTypeVoid\n\
               %fnty = OpTypeFunction %void\n%main = OpFunction %void None %fnty\n\
               %entry = OpLabel\nOpSelectionMerge %merge None\n\
               OpBranchConditional %t %arm %merge\n\
               %merge = OpLabel\n%y = OpIAdd %uint %x %one\nOpReturn\n\
               %arm = OpLabel\n%x = OpIAdd %uint %one %one\nOpBranch %merge\nOpFunctionEnd\n";
    let env = spvopt_ir::text::parse_target_env("spv1.4").unwrap();
    let words = spvopt_ir::text::assemble(src, env).unwrap();
    let m = spvopt_ir::load_words(&words).expect("the loader allows later-block definitions");
    let e = spvopt_passes::validate::validate_module(&m, env).unwrap_err();
    assert!(e.contains("%x") || e.contains("defined"), "{e}");
}
