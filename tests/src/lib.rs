//! Shared test helpers: corpus discovery, a FileCheck-like matcher, and the pass-fixture runner.
//! The integration tests are in `tests/tests/` (one module per concern, one test binary:
//! `tests/tests/main.rs`); the pass fixtures are the `pass_fixtures` test target
//! (`tests/filetests/pass_fixtures.rs`: one trial per fixture, `SPVOPT_BLESS=1` to bless).
//!
//! A pass fixture is a `.spvasm` file with directives in comments:
//! - `; RUN: PIPELINE` — the pass pipeline to run (e.g. `strip-debug,dce`);
//! - `; TARGET-ENV: spv1.4` — assembly/validation environment (default spv1.4);
//! - `; TARGET: pvc` — target device;
//! - `; EXPECT: unchanged` — the pipeline must report no change and leave the module
//!   byte-identical (negative fixtures);
//! - `; CHECK…:` lines matched against the disassembly of the output.
//!
//! Every fixture also checks: the output validates (with spirv-val's rules; with the deviations
//! `spvopt_passes::validate` tolerates only when the input itself needs them), a second run
//! changes nothing (idempotence), and a run reporting "unchanged" left the module
//! byte-identical. When a launch file `NAME.launch.json` (spv-sim's format) sits beside
//! `NAME.spvasm`, the input and the output are both run on the simulator with it and every
//! buffer must come out bit-identical.

pub mod corpus_launches;
pub mod filecheck;

use std::path::{Path, PathBuf};

use spvopt_analysis::Target;
use spvopt_ir::text::{self, TargetEnv};
use spvopt_passes::{run_pipeline, Hooks, Pipeline};

/// Pass-manager hooks for tests: every pass that changes the module has the analyses it declares
/// preserved computed again and compared (`Hooks::check_preserved`), so a wrong claim fails the
/// test that runs it.
pub fn checked_hooks<'a>() -> Hooks<'a> {
    Hooks {
        check_preserved: true,
        ..Hooks::default()
    }
}

/// The test corpus inside the repository (`tests/corpus`: real compiler output, see its README).
pub fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus")
}

/// Every `.spv` file under `dir`, sorted.
pub fn spv_files_under(dir: &Path) -> Vec<PathBuf> {
    files_under(dir, "spv")
}

/// Every file with extension `ext` under `dir` (recursively), sorted.
pub fn files_under(dir: &Path, ext: &str) -> Vec<PathBuf> {
    fn walk(dir: &Path, ext: &str, out: &mut Vec<PathBuf>) {
        let Ok(rd) = std::fs::read_dir(dir) else {
            return;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, ext, out);
            } else if p.extension().is_some_and(|x| x == ext) {
                out.push(p);
            }
        }
    }
    let mut v = Vec::new();
    walk(dir, ext, &mut v);
    v.sort();
    v
}

/// Every corpus module (`tests/corpus/**/*.spv`); panics if the corpus is missing.
pub fn corpus_files() -> Vec<PathBuf> {
    let v = spv_files_under(&corpus_dir());
    assert!(!v.is_empty(), "no corpus under {}", corpus_dir().display());
    v
}

/// Directive value `; NAME: value` in a fixture.
pub fn directive<'a>(source: &'a str, name: &str) -> Option<&'a str> {
    source.lines().find_map(|l| {
        l.trim_start()
            .strip_prefix(';')
            .map(str::trim_start)
            .and_then(|r| r.strip_prefix(name))
            .and_then(|r| r.strip_prefix(':'))
            .map(str::trim)
    })
}

/// A pass fixture after its pipeline ran and every check but the CHECK lines passed.
pub struct FixtureRun {
    /// The fixture's text.
    pub source: String,
    /// The disassembly of the pipeline's output (what the CHECK lines match).
    pub output: String,
    /// Whether the fixture says `; EXPECT: unchanged` (then it needs no CHECK lines).
    pub expect_unchanged: bool,
}

impl FixtureRun {
    /// The fixture's CHECK lines matched against the output.
    pub fn check(&self) -> Result<(), String> {
        let checks = filecheck::parse_checks(&self.source);
        if checks.is_empty() && !self.expect_unchanged {
            return Err("fixture has no CHECK lines".into());
        }
        filecheck::run_checks(&checks, &self.output)
            .map_err(|e| format!("{e}\n--- output ---\n{}", self.output))
    }
}

/// Runs one pass fixture; `Err` says what failed.
pub fn run_fixture(path: &Path) -> Result<(), String> {
    run_fixture_pipeline(path)?.check()
}

/// What [`bless_fixture`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Blessed {
    /// The fixture passed: its file was not touched.
    Passed,
    /// Its CHECK lines failed and were rewritten (see [`filecheck::bless_checks`]); it passes now.
    Rewritten,
}

/// Runs one pass fixture and, when only its CHECK lines fail, rewrites them from the current
/// output ([`filecheck::bless_checks`]) and writes the file back. Every other failure
/// (validation, idempotence, simulator, `EXPECT: unchanged`, no CHECK lines) is returned as
/// `Err` and the file is left alone.
pub fn bless_fixture(path: &Path) -> Result<Blessed, String> {
    let run = run_fixture_pipeline(path)?;
    if filecheck::parse_checks(&run.source).is_empty() && !run.expect_unchanged {
        return Err("fixture has no CHECK lines: nothing to bless".into());
    }
    match filecheck::bless_checks(&run.source, &run.output)? {
        None => Ok(Blessed::Passed),
        Some(text) => {
            std::fs::write(path, text).map_err(|e| format!("writing {}: {e}", path.display()))?;
            run_fixture(path)?;
            Ok(Blessed::Rewritten)
        }
    }
}

/// Runs a pass fixture's pipeline and every check except its CHECK lines: the output
/// validates, a second run changes nothing, "unchanged" means byte-identical, `EXPECT:
/// unchanged`, and the simulator equivalence of a launch file.
pub fn run_fixture_pipeline(path: &Path) -> Result<FixtureRun, String> {
    let source = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let pipeline_text = directive(&source, "RUN").ok_or("fixture has no ; RUN: line")?;
    let env: TargetEnv = match directive(&source, "TARGET-ENV") {
        Some(e) => text::parse_target_env(e).map_err(|e| e.to_string())?,
        None => TargetEnv::Universal_1_4,
    };
    let target = match directive(&source, "TARGET") {
        Some(name) => Target::by_name(name).map_err(|e| format!("; TARGET: {e}"))?,
        None => Target::default(),
    };
    let expect_unchanged = directive(&source, "EXPECT") == Some("unchanged");
    let words = text::assemble(&source, env).map_err(|e| e.to_string())?;
    let mut m = spvopt_ir::load_words(&words).map_err(|e| e.to_string())?;
    let before = m.to_words();
    let pipeline = Pipeline::parse(pipeline_text).map_err(|e| e.to_string())?;
    let report = run_pipeline(&pipeline, &mut m, &target, &mut checked_hooks())
        .map_err(|e| e.to_string())?;
    let after = m.to_words();
    if !report.changed() && after != before {
        return Err("pipeline reported no change but the module changed".into());
    }
    if expect_unchanged && (report.changed() || after != before) {
        return Err(format!(
            "expected no change, got: {:?}",
            report
                .passes
                .iter()
                .map(|p| (p.name, p.stats.to_string()))
                .collect::<Vec<_>>()
        ));
    }
    // The output validates as strictly as the input: spirv-val's rules, or, for input only our
    // validation accepts (DPC++ joint_matrix's translator-internal instructions, which a
    // negative fixture keeps), with the deviations `spvopt_passes::validate` tolerates.
    if text::validate(&before, env).is_ok() {
        text::validate(&after, env).map_err(|e| format!("output does not validate: {e}"))?;
    } else {
        spvopt_passes::validate::validate_module(&m, env)
            .map_err(|e| format!("output does not validate (tolerated deviations): {e}"))?;
    }
    // Idempotence.
    let mut again = spvopt_ir::load_words(&after).map_err(|e| e.to_string())?;
    let report2 = run_pipeline(&pipeline, &mut again, &target, &mut checked_hooks())
        .map_err(|e| e.to_string())?;
    if report2.changed() || again.to_words() != after {
        return Err(format!(
            "not idempotent: second run changed the module ({:?})",
            report2
                .passes
                .iter()
                .map(|p| (p.name, p.stats.to_string()))
                .collect::<Vec<_>>()
        ));
    }
    check_stats(&source, &report)?;
    let launches = fixture_launches(path);
    if !launches.is_empty() {
        let before_m = spvopt_ir::load_words(&before).map_err(|e| e.to_string())?;
        for launch_path in &launches {
            sim_equivalent(&before_m, &m, launch_path).map_err(|e| {
                let name = launch_path
                    .file_name()
                    .unwrap_or_default()
                    .to_string_lossy();
                format!("{name}: {e}")
            })?;
        }
    }
    let output = text::disassemble(&after).map_err(|e| e.to_string())?;
    Ok(FixtureRun {
        source,
        output,
        expect_unchanged,
    })
}

/// The fixture's `; STATS: PASS KEY=N` lines (one statistic each; `KEY` alone: at least 1)
/// against the statistics the first run's passes reported: a negative fixture names why its
/// candidates were rejected, a positive one what it raised.
fn check_stats(source: &str, report: &spvopt_passes::RunReport) -> Result<(), String> {
    for line in source.lines() {
        let Some(rest) = line
            .trim_start()
            .strip_prefix(';')
            .map(str::trim_start)
            .and_then(|r| r.strip_prefix("STATS:"))
        else {
            continue;
        };
        let mut words = rest.split_whitespace();
        let (Some(pass), Some(stat), None) = (words.next(), words.next(), words.next()) else {
            return Err(format!(
                "; STATS: expects `PASS KEY[=N]`, got `{}`",
                rest.trim()
            ));
        };
        let (key, want) = match stat.split_once('=') {
            Some((k, n)) => (
                k,
                Some(
                    n.parse::<u64>()
                        .map_err(|_| format!("; STATS: `{n}` is not a count"))?,
                ),
            ),
            None => (stat, None),
        };
        let got: u64 = report
            .passes
            .iter()
            .filter(|p| p.name == pass)
            .map(|p| p.stats.get(key))
            .sum();
        let ok = match want {
            Some(n) => got == n,
            None => got > 0,
        };
        if !ok {
            let all: Vec<String> = report
                .passes
                .iter()
                .filter(|p| p.name == pass)
                .map(|p| p.stats.to_string())
                .collect();
            return Err(format!(
                "; STATS: {pass} {stat}: the pass reported {key}={got} ({})",
                all.join("; ")
            ));
        }
    }
    Ok(())
}

/// The launches of fixture `path` (`NAME.spvasm`): `NAME.launch.json` and every
/// `NAME.launch.TAG.json` beside it (more sizes of the same kernel), sorted.
pub fn fixture_launches(path: &Path) -> Vec<PathBuf> {
    let mut v = Vec::new();
    let main = path.with_extension("launch.json");
    if main.exists() {
        v.push(main);
    }
    let (Some(dir), Some(stem)) = (path.parent(), path.file_stem().and_then(|s| s.to_str())) else {
        return v;
    };
    let prefix = format!("{stem}.launch.");
    let mut more: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| rd.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    more.retain(|p| {
        p.file_name().and_then(|n| n.to_str()).is_some_and(|n| {
            n.strip_prefix(&prefix)
                .and_then(|t| t.strip_suffix(".json"))
                .is_some_and(|tag| !tag.is_empty())
        })
    });
    more.sort();
    v.extend(more);
    v
}

/// Every fixture under `tests/fixtures/<dir>`.
pub fn fixtures_in(dir: &str) -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(dir);
    let mut v: Vec<PathBuf> = std::fs::read_dir(&root)
        .map(|rd| rd.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    v.retain(|p| p.extension().is_some_and(|x| x == "spvasm"));
    v.sort();
    v
}

/// Runs `pipeline` for `target` on a copy of `m` with [`checked_hooks`]; panics on an error
/// (the test's failure message names the pipeline).
pub fn run_checked(
    m: &spvopt_ir::Module,
    pipeline: &str,
    target: &str,
) -> (spvopt_ir::Module, spvopt_passes::RunReport) {
    let mut out = spvopt_ir::load_words(&m.to_words()).expect("the module reloads");
    let report = run_pipeline(
        &Pipeline::parse(pipeline).unwrap_or_else(|e| panic!("{pipeline}: {e}")),
        &mut out,
        &Target::by_name(target).unwrap_or_else(|e| panic!("{target}: {e}")),
        &mut checked_hooks(),
    )
    .unwrap_or_else(|e| panic!("{pipeline} --target {target}: {e}"));
    (out, report)
}

/// Statistic `key` of every run of pass `pass` in `r`, summed.
pub fn pass_stat(r: &spvopt_passes::RunReport, pass: &str, key: &str) -> u64 {
    r.passes
        .iter()
        .filter(|p| p.name == pass)
        .map(|p| p.stats.get(key))
        .sum()
}

/// Runs `before` and `after` on the simulator with the launch in `launch_path` and requires
/// every buffer to be bit-identical (what `spv-sim compare` checks).
pub fn sim_equivalent(
    before: &spvopt_ir::Module,
    after: &spvopt_ir::Module,
    launch_path: &Path,
) -> Result<(), String> {
    let launch = spvopt_sim::Launch::from_file(launch_path).map_err(|e| format!("launch: {e}"))?;
    let a = spvopt_sim::run(before, &launch).map_err(|e| format!("simulating the input: {e}"))?;
    let b = spvopt_sim::run(after, &launch).map_err(|e| format!("simulating the output: {e}"))?;
    if a.buffers.len() != b.buffers.len() {
        return Err("simulator: different buffer sets".into());
    }
    for ((ia, da), (ib, db)) in a.buffers.iter().zip(&b.buffers) {
        if ia != ib || da != db {
            let first = da.iter().zip(db).position(|(x, y)| x != y).unwrap_or(0);
            return Err(format!(
                "simulator: buffer arg{ia} differs after the pass (first difference at byte {first})"
            ));
        }
    }
    Ok(())
}

/// What Intel's SPIR-V consumers (the LLVM/SPIR-V translator inside the OpenCL CPU runtime and
/// the GPU drivers) cannot read although SPIR-V allows it, found in `m` after `legalize`: a
/// version above 1.4 (`CL_DEVICE_IL_VERSION` lists 1.0-1.4), and vector `OpCompositeConstruct`s
/// with vector constituents (read as an invalid `insertelement`: "Invalid insert element
/// record"). Empty when the module is readable.
pub fn intel_reader_problems(m: &spvopt_ir::Module) -> Vec<String> {
    use spirv::Op;
    let mut problems = Vec::new();
    if m.header.version > 0x0001_0400 {
        problems.push(format!("SPIR-V version {:#x} above 1.4", m.header.version));
    }
    let is_vector = |id: u32| {
        spvopt_ir::Id::new(id)
            .and_then(|i| m.def_inst(i))
            .is_some_and(|t| t.is(Op::TypeVector))
    };
    for i in m.all_insts() {
        let inst = m.inst(i);
        if !inst.is(Op::CompositeConstruct)
            || !inst.result_type().is_some_and(|t| is_vector(t.word()))
        {
            continue;
        }
        let vector_part = inst.operands().iter().any(|&w| {
            spvopt_ir::Id::new(w)
                .and_then(|p| m.type_of(p))
                .is_some_and(|t| is_vector(t.word()))
        });
        if vector_part {
            problems.push(format!(
                "%{} = OpCompositeConstruct of a vector from vectors",
                inst.result_id().map_or(0, |r| r.word())
            ));
        }
    }
    problems
}

/// A kernel of `n` copies of an SG16 f16 MMA (M 8, K 16), each feeding the next
/// (the accumulator chain of `lower_mma_output_is_linear_in_mmas` and the `lower_mma_bench` example).
pub fn mma_chain_module(n: usize) -> Vec<u32> {
    let mut s = String::from(
        "OpCapability Addresses\nOpCapability Kernel\nOpCapability Int16\n\
         OpCapability SubgroupMatrixMultiplyAccumulateINTEL\n\
         OpExtension \"SPV_INTEL_subgroup_matrix_multiply_accumulate\"\n\
         OpMemoryModel Physical64 OpenCL\nOpEntryPoint Kernel %main \"main\"\n\
         OpExecutionMode %main SubgroupSize 16\n%void = OpTypeVoid\n%uint = OpTypeInt 32 0\n\
         %ushort = OpTypeInt 16 0\n%float = OpTypeFloat 32\n%v8ushort = OpTypeVector %ushort 8\n\
         %v8uint = OpTypeVector %uint 8\n%v8float = OpTypeVector %float 8\n\
         %uint_16 = OpConstant %uint 16\n%a = OpConstantNull %v8ushort\n%b = OpConstantNull %v8uint\n\
         %c0 = OpConstantNull %v8float\n%fnty = OpTypeFunction %void\n\
         %main = OpFunction %void None %fnty\n%entry = OpLabel\n",
    );
    let mut prev = "%c0".to_string();
    for i in 0..n {
        s += &format!(
            "%r{i} = OpSubgroupMatrixMultiplyAccumulateINTEL %v8float %uint_16 %a %b {prev} \
             MatrixAPackedFloat16INTEL|MatrixBPackedFloat16INTEL\n"
        );
        prev = format!("%r{i}");
    }
    s += "OpReturn\nOpFunctionEnd\n";
    text::assemble(&s, TargetEnv::Universal_1_4).unwrap()
}

/// Runs `pass` alone on clones of `input` `reps` times (at least once) and returns the best time
/// and the last output (for the benchmark examples in `tests/examples/`).
pub fn best_pass_time(
    pass: &mut dyn spvopt_passes::pass::Pass,
    input: &spvopt_ir::Module,
    target: &Target,
    reps: usize,
) -> (std::time::Duration, spvopt_ir::Module) {
    let mut best = std::time::Duration::MAX;
    let mut out = None;
    for _ in 0..reps.max(1) {
        let mut m = input.clone();
        let t = std::time::Instant::now();
        pass.run(
            &mut m,
            &mut spvopt_analysis::Analyses::new(),
            target,
            &mut spvopt_passes::Changes::unlimited(),
        )
        .unwrap_or_else(|e| panic!("{}: {e}", pass.name()));
        best = best.min(t.elapsed());
        out = Some(m);
    }
    (best, out.expect("at least one run"))
}

/// `-O` of `words` for every target, each output checked by `validate` (its error names what
/// failed): the module per target. Panics naming the target when the pipeline fails or the
/// output does not validate.
fn optimized_for_every_target_with<E: std::fmt::Display>(
    words: &[u32],
    validate: impl Fn(&spvopt_ir::Module) -> Result<(), E>,
) -> Vec<(Target, spvopt_ir::Module)> {
    let pipeline = Pipeline::parse("O").expect("-O parses");
    Target::all()
        .into_iter()
        .map(|target| {
            let mut m = spvopt_ir::load_words(words).expect("the input loads");
            run_pipeline(&pipeline, &mut m, &target, &mut checked_hooks())
                .unwrap_or_else(|e| panic!("{}: {e}", target.name));
            validate(&m)
                .unwrap_or_else(|e| panic!("{}: output does not validate: {e}", target.name));
            (target, m)
        })
        .collect()
}

/// `-O` of `words` for every target, each output validated by default validation (SPIR-V 1.4
/// rules, the deviations `spvopt_passes::validate` tolerates warned about, as `spv-opt` does).
pub fn optimized_for_every_target_tolerating(words: &[u32]) -> Vec<(Target, spvopt_ir::Module)> {
    optimized_for_every_target_with(words, |m| {
        spvopt_passes::validate::validate_module(m, TargetEnv::Universal_1_4).map(|_| ())
    })
}

/// [`optimized_for_every_target_tolerating`] with spirv-val's rules alone (no tolerated
/// deviation).
pub fn optimized_for_every_target(words: &[u32]) -> Vec<(Target, spvopt_ir::Module)> {
    optimized_for_every_target_with(words, |m| {
        text::validate(&m.to_words(), TargetEnv::Universal_1_4)
    })
}
