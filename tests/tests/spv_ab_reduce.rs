//! `spv-ab reduce`: shrinking real Triton GEMMs (~1,400 instructions) that a test-only
//! miscompiling pass breaks to small modules that still show the difference (re-checked here
//! on the written output with spv-sim, independently of the reducer's own predicate), that
//! validate, and that come out byte-identical from two runs; `--command` on a shell script,
//! `--pass-fails` on a test-only panicking pass, an interrupted run, and bad input.
//! Run with `--nocapture` for the figures (time is printed, never asserted).

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use spvopt_analysis::{Analyses, AnalysisSet, Target};
use spvopt_ir::spirv::Op;
use spvopt_ir::text;
use spvopt_ir::{Inst, Module};
use spvopt_passes::manager::PipelineStep;
use spvopt_passes::{Changes, Pass, PassError, PassInfo, PassResult, Pipeline, Statistics};
use spvopt_tools::ab::reduce::{self, Candidate, Oracle, Predicate, ReduceError, Settings};

fn corpus(rel: &str) -> PathBuf {
    spvopt_tests::corpus_dir().join(rel)
}

const GEMM: &str = "triton/gemm_fp16_blockptr_128x128x32_w8__pvc";
const GEMM_TRANS_B: &str = "triton/gemm_fp16_blockptr_transB_128x128x32_w8__pvc";
const GEMM_NO_2D: &str = "triton/gemm_fp16_blockptr_128x128x32_w8__pvc_no2d";
const SOFTMAX: &str = "triton/nodbg/softmax_fp32_1024_w4_sg16__pvc";

fn input(kernel: &str) -> Candidate {
    let name = Path::new(kernel).file_name().unwrap().to_str().unwrap();
    reduce::load_input(
        &corpus(&format!("{kernel}.spv")),
        Some(&corpus(&format!("triton/launches/{name}.launch.json"))),
    )
    .unwrap()
}

/// A test-only pass: a function that rewrites the module (asking `Changes` before each
/// rewrite) and says whether it did.
struct FnPass(&'static str, fn(&mut Module, &mut Changes) -> bool);

impl Pass for FnPass {
    fn name(&self) -> &'static str {
        self.0
    }
    fn run(
        &mut self,
        m: &mut Module,
        _: &mut Analyses,
        _: &Target,
        changes: &mut Changes,
    ) -> Result<PassResult, PassError> {
        Ok(PassResult {
            changed: (self.1)(m, changes),
            preserved: AnalysisSet::NONE,
            stats: Statistics::default(),
        })
    }
}

/// Miscompiles (test only): negates the result of the first `OpFConvert` (in the GEMMs, the
/// conversion of an accumulator element to the stored f16).
fn negate_first_convert(m: &mut Module, changes: &mut Changes) -> bool {
    let first = m.all_insts().find(|&i| m.inst(i).is(Op::FConvert));
    let Some(i) = first.filter(|_| changes.allow()) else {
        return false;
    };
    let (ty, r) = (
        m.inst(i).result_type().unwrap(),
        m.inst(i).result_id().unwrap(),
    );
    let negated = m.fresh_id();
    m.replace_all_uses(r, negated);
    m.insert_after(
        i,
        Inst::new(Op::FNegate, Some(ty), Some(negated), &[r.word()]),
    );
    true
}

/// Miscompiles (test only): swaps the operands of the first `OpFSub`.
fn swap_first_fsub(m: &mut Module, changes: &mut Changes) -> bool {
    let first = m.all_insts().find(|&i| m.inst(i).is(Op::FSub));
    let Some(i) = first.filter(|_| changes.allow()) else {
        return false;
    };
    m.inst_mut(i).operands_mut().swap(0, 1);
    true
}

/// Crashes (test only): panics on any module with an `OpSRem`.
fn panic_on_srem(m: &mut Module, _: &mut Changes) -> bool {
    if m.all_insts().any(|i| m.inst(i).is(Op::SRem)) {
        panic!("test pass: OpSRem");
    }
    false
}

static NEGATE_FIRST_CONVERT: PassInfo = PassInfo {
    name: "negate-first-convert",
    description: "test only: miscompiles the first OpFConvert",
    options: &[],
    construct: |_| {
        Ok(Box::new(FnPass(
            "negate-first-convert",
            negate_first_convert,
        )))
    },
};

static SWAP_FIRST_FSUB: PassInfo = PassInfo {
    name: "swap-first-fsub",
    description: "test only: miscompiles the first OpFSub",
    options: &[],
    construct: |_| Ok(Box::new(FnPass("swap-first-fsub", swap_first_fsub))),
};

static PANIC_ON_SREM: PassInfo = PassInfo {
    name: "panic-on-srem",
    description: "test only: panics on OpSRem",
    options: &[],
    construct: |_| Ok(Box::new(FnPass("panic-on-srem", panic_on_srem))),
};

fn pipeline_of(info: &'static PassInfo) -> Pipeline {
    Pipeline {
        steps: vec![PipelineStep {
            info,
            options: Vec::new(),
        }],
    }
}

fn run_reduce(c: &Candidate, predicate: Predicate) -> reduce::Outcome {
    let oracle = Oracle::prepare(predicate, c).unwrap();
    reduce::reduce(c.clone(), &oracle, &Settings::default())
}

fn valid(m: &Module) -> bool {
    let env = text::universal_env_for_version(m.header.version);
    spvopt_passes::validate::validate_module(m, env).is_ok()
}

/// Checks the written output shows the miscompile: spv-sim on the output and on the pass's
/// output of it, with the written launch, give different buffers.
fn still_differs(dir: &Path, info: &'static PassInfo) -> bool {
    let bytes = std::fs::read(dir.join("small.spv")).unwrap();
    let m = spvopt_ir::load_bytes(&bytes).unwrap();
    let launch = spvopt_sim::Launch::from_file(&dir.join("small.launch.json")).unwrap();
    let mut broken = m.clone();
    spvopt_passes::run_pipeline(
        &pipeline_of(info),
        &mut broken,
        &Target::default(),
        &mut Default::default(),
    )
    .unwrap();
    let a = spvopt_sim::run(&m, &launch).unwrap();
    let b = spvopt_sim::run(&broken, &launch).unwrap();
    a.buffers != b.buffers
}

fn reduce_gemm(kernel: &str) {
    let c = input(kernel);
    let before = c.size().instructions;
    let out = run_reduce(
        &c,
        Predicate::Differs {
            pipeline: pipeline_of(&NEGATE_FIRST_CONVERT),
            target: Target::default(),
        },
    );
    eprintln!(
        "reduce --differs negate-first-convert {kernel}: {before} -> {} instructions in {:.1} s \
         ({} steps, {} candidates, {} threads)",
        out.after.instructions,
        out.seconds,
        out.log.len(),
        out.candidates,
        std::thread::available_parallelism().map_or(1, |n| n.get())
    );
    for l in &out.log {
        eprintln!("  {l}");
    }
    eprintln!(
        "{}",
        text::disassemble(&out.best.module.to_words()).unwrap()
    );
    assert!(before > 1400, "{before}");
    assert!(
        out.after.instructions <= 60,
        "{} instructions",
        out.after.instructions
    );
    assert!(!out.interrupted);
    assert!(valid(&out.best.module));
    let dir = tempfile::tempdir().unwrap();
    let small = dir.path().join("small.spv");
    reduce::write_outputs(
        &out.best,
        small.to_str().unwrap(),
        dir.path().join("small.launch.json").to_str().unwrap(),
    )
    .unwrap();
    assert!(still_differs(dir.path(), &NEGATE_FIRST_CONVERT));
}

#[test]
fn differs_reduces_the_fp16_block_pointer_gemm() {
    reduce_gemm(GEMM);
}

#[test]
fn differs_reduces_the_fp16_trans_b_gemm() {
    reduce_gemm(GEMM_TRANS_B);
}

/// A larger input (the GEMM staging its tiles through local memory: 4,400 instructions).
#[test]
fn differs_reduces_the_fp16_gemm_without_2d_block_io() {
    reduce_gemm(GEMM_NO_2D);
}

#[test]
fn two_runs_give_identical_bytes_whatever_the_thread_count() {
    let c = input(SOFTMAX);
    let predicate = || Predicate::Differs {
        pipeline: pipeline_of(&SWAP_FIRST_FSUB),
        target: Target::default(),
    };
    let oracle = Oracle::prepare(predicate(), &c).unwrap();
    let one = reduce::reduce(
        c.clone(),
        &oracle,
        &Settings {
            jobs: Some(1),
            ..Settings::default()
        },
    );
    let all = run_reduce(&c, predicate());
    eprintln!(
        "softmax swap-first-fsub: {} -> {} instructions in {:.1} s (1 thread), {:.1} s (all)",
        one.before.instructions, one.after.instructions, one.seconds, all.seconds
    );
    assert_eq!(one.best.module.to_bytes(), all.best.module.to_bytes());
    assert_eq!(
        one.best.launch.as_ref().unwrap().json,
        all.best.launch.as_ref().unwrap().json
    );
    assert!(one.after.instructions < one.before.instructions / 4);
    assert!(valid(&one.best.module));
}

#[test]
fn command_reduces_a_module_a_script_fails_on() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("fails.sh");
    // "Crashes" on any module that still mentions the MMA builtin.
    std::fs::write(
        &script,
        "#!/bin/sh\nif LC_ALL=C grep -a -q intel_sub_group_f16_f16_matrix_mad \"$1\"; then\n  \
         echo 'internal compiler error: mad' >&2; exit 3\nfi\nexit 0\n",
    )
    .unwrap();
    let kernel = corpus(&format!("{GEMM}.spv"));
    let before = std::fs::read(&kernel).unwrap();
    let small = dir.path().join("small.spv");
    let log = dir.path().join("steps.log");
    let args: Vec<String> = [
        kernel.to_str().unwrap(),
        "--command",
        &format!("sh {} {{}}", script.display()),
        "--pattern",
        "internal compiler error: m[a-z]+",
        "-o",
        small.to_str().unwrap(),
        "--log",
        log.to_str().unwrap(),
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let start = std::time::Instant::now();
    assert_eq!(reduce::run_cli(&args).unwrap(), 0);
    let out = spvopt_ir::load_bytes(&std::fs::read(&small).unwrap()).unwrap();
    let n = out.instruction_count();
    eprintln!(
        "reduce --command on {GEMM}: -> {n} instructions in {:.1} s",
        start.elapsed().as_secs_f64()
    );
    assert!(n <= 20, "{n}");
    assert!(valid(&out));
    let bytes = std::fs::read(&small).unwrap();
    assert!(bytes
        .windows(34)
        .any(|w| w == b"intel_sub_group_f16_f16_matrix_mad"));
    assert!(!std::fs::read_to_string(&log).unwrap().is_empty());
    assert_eq!(std::fs::read(&kernel).unwrap(), before, "input untouched");
}

#[test]
fn pass_fails_reduces_to_the_instruction_the_pass_panics_on() {
    let c = reduce::load_input(&corpus(&format!("{GEMM}.spv")), None).unwrap();
    let out = run_reduce(
        &c,
        Predicate::PassFails {
            pipeline: pipeline_of(&PANIC_ON_SREM),
            target: Target::default(),
        },
    );
    let m = &out.best.module;
    eprintln!(
        "reduce --pass-fails panic-on-srem: {} -> {} instructions in {:.1} s\n{}",
        out.before.instructions,
        out.after.instructions,
        out.seconds,
        text::disassemble(&m.to_words()).unwrap()
    );
    assert!(m.all_insts().any(|i| m.inst(i).is(Op::SRem)));
    assert!(out.after.instructions <= 35, "{}", out.after.instructions);
    assert!(valid(m));
}

#[test]
fn an_interrupted_run_returns_the_best_so_far() {
    let c = input(SOFTMAX);
    let oracle = Oracle::prepare(
        Predicate::Differs {
            pipeline: pipeline_of(&SWAP_FIRST_FSUB),
            target: Target::default(),
        },
        &c,
    )
    .unwrap();
    let stop = AtomicBool::new(false);
    let seen = AtomicUsize::new(0);
    let on_improvement = |_: &Candidate| {
        if seen.fetch_add(1, Ordering::SeqCst) + 1 == 3 {
            stop.store(true, Ordering::SeqCst);
        }
    };
    let out = reduce::reduce(
        c.clone(),
        &oracle,
        &Settings {
            stop: Some(&stop),
            on_improvement: Some(&on_improvement),
            ..Settings::default()
        },
    );
    assert!(out.interrupted);
    assert_eq!(out.log.len(), 3);
    assert!(out.after < out.before);
    assert!(valid(&out.best.module));
    assert!(oracle.interesting(&out.best));
}

#[test]
fn bad_input_is_one_error_line_and_the_input_is_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let kernel = corpus(&format!("{GEMM}.spv"));
    let launch = corpus(&format!(
        "triton/launches/{}.launch.json",
        Path::new(GEMM).file_name().unwrap().to_str().unwrap()
    ));
    let garbage = dir.path().join("garbage.spv");
    std::fs::write(&garbage, b"\x03\x02\x23\x07not a module").unwrap();
    let out = dir.path().join("out.spv");
    let (k, l, g, o) = (
        kernel.to_str().unwrap(),
        launch.to_str().unwrap(),
        garbage.to_str().unwrap(),
        out.to_str().unwrap(),
    );
    let before = std::fs::read(&kernel).unwrap();
    let py = "/nonexistent/python";
    // (the error's variant, the arguments)
    let cases: Vec<(&str, Vec<&str>)> = vec![
        ("Usage", vec![k, "-o", o]),
        ("Usage", vec![k, "--differs", "dce"]),
        ("Usage", vec![k, "--differs", "dce", "-o", k]),
        ("Usage", vec![k, "--differs", "no-such-pass", "-o", o]),
        (
            "Usage",
            vec![k, "--command", "false", "--pattern", "(", "-o", o],
        ),
        ("NeedsLaunch", vec![k, "--differs", "dce", "-o", o]),
        (
            "NotInteresting",
            vec![k, "--launch", l, "--differs", "dce", "-o", o],
        ),
        ("NotInteresting", vec![k, "--pass-fails", "dce", "-o", o]),
        ("NotInteresting", vec![k, "--command", "true {}", "-o", o]),
        ("Input", vec![g, "--pass-fails", "dce", "-o", o]),
        (
            "Device",
            vec![
                k,
                "--launch",
                l,
                "--device-differs",
                "--python",
                py,
                "-o",
                o,
            ],
        ),
        (
            "Launch",
            vec![k, "--launch", "/no.json", "--differs", "dce", "-o", o],
        ),
    ];
    for (expected, args) in cases {
        let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        let e: ReduceError = reduce::run_cli(&args).expect_err(&format!("{args:?}"));
        let text = e.to_string();
        assert!(format!("{e:?}").starts_with(expected), "{args:?}: {e:?}");
        assert!(!text.contains('\n') && !text.is_empty(), "{args:?}: {text}");
        assert_eq!(reduce::main(&args), 1);
    }
    assert_eq!(std::fs::read(&kernel).unwrap(), before);
}
