//! `spv-ab`: A/B testing of two pass pipelines over many kernels.
//!
//! For each kernel (a `.spv`/`.spvasm` file, or every one under a folder): optimize it with
//! pipeline A and pipeline B, run the original, A and B on spv-sim with the kernel's launch
//! (`NAME.launch.json` beside it, in `--launches DIR`, or `--launch L.json` for all), check that
//! all three leave every buffer bit-identical, and collect static statistics (instructions, 2D
//! block ops by shape, MMAs by shape, prefetches) and the simulator's counters (2D messages and
//! bytes, prefetch coverage, MMA ops, instructions executed). Kernels run in parallel (rayon);
//! the report lists them in the order given. `spv-ab bisect` finds the first pass of a
//! pipeline after which a kernel's results differ (see [`bisect`]).
//!
//! Exit code: 0 when every kernel with a launch is proven equivalent, 1 when one differs or
//! fails, 2 for a usage error.

pub mod bisect;
pub mod report;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use serde::Serialize;
use spvopt_analysis::Target;
use spvopt_ir::Module;
use spvopt_passes::block_io::{block_instructions, BlockKind, BlockOperands};
use spvopt_passes::{run_pipeline, Hooks, Pipeline};
use spvopt_sim::{Launch, RunOutput};

use crate::io;

pub const USAGE: &str = "\
spv-ab — compare two pass pipelines over many kernels, proving equivalence on spv-sim

USAGE:
    spv-ab --a PIPELINE --b PIPELINE [OPTIONS] KERNELS...
    spv-ab bisect --pipeline PIPELINE [--target T] [--launch L.json] KERNEL

KERNELS are .spv / .spvasm files or folders (searched recursively). A kernel's launch
(spv-sim's launch JSON, see sim/README.md) is NAME.launch.json beside it, or in --launches DIR,
or --launch L.json for every kernel; a kernel without one is optimized and measured statically
but not proven equivalent (reported as `no launch`).
PIPELINE is a pipeline string as in spv-opt --passes (\"-O\" or \"O\" for -O), e.g.
    --a -O --b \"-O,insert-prefetches(prefetch-distance=2)\"

OPTIONS:
    --target NAME       target device profile (default generic)
    --launch L.json     the launch for every kernel
    --launches DIR      where NAME.launch.json files are
    --json FILE         write the whole report as JSON (`-` for stdout)
    --html FILE         write a self-contained HTML report with bar charts
    --ulp N             floating-point buffers (element type from the kernel's parameter
                        types) may differ by N units in the last place: verdict `within N ulp`
    --jobs N            kernels in parallel (default: all cores)
    --quiet             no table on stdout
    --help

bisect: runs PIPELINE on KERNEL pass by pass and reports the first pass after which the
simulator's buffers differ from the original's, with the disassembly diff of that pass.
Exit codes: 0 equivalent, 1 a kernel differs or failed, 2 usage error.
";

/// Command-line options of the comparison.
#[derive(Clone, Debug, Default)]
pub struct Options {
    pub a: String,
    pub b: String,
    pub target: Option<String>,
    pub launch: Option<PathBuf>,
    pub launches: Option<PathBuf>,
    pub json: Option<String>,
    pub html: Option<String>,
    pub jobs: Option<usize>,
    /// Tolerance for floating-point buffers, in units in the last place (0: bit-identical).
    pub ulp: u64,
    pub quiet: bool,
    pub kernels: Vec<PathBuf>,
}

/// Static statistics of one module.
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct StaticStats {
    pub instructions: usize,
    /// 2D block operations by kind and shape (`load 2b 32r16x2c`).
    pub block2d: BTreeMap<String, u64>,
    /// MMAs by K, rows and operand mask (`k16 m8 mask 0x3000`).
    pub mma: BTreeMap<String, u64>,
    /// 2D block prefetches plus 1D buffer prefetches.
    pub prefetches: u64,
}

/// What the simulator counted in one run (a summary of `spvopt_sim::Counters`).
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct SimStats {
    pub instructions: u64,
    pub block2d_messages: u64,
    pub block2d_bytes: u64,
    pub prefetches: u64,
    pub prefetch_coverage: f64,
    pub mma_ops: u64,
}

/// One variant of a kernel: the original, A or B.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Variant {
    pub static_stats: StaticStats,
    pub sim: Option<SimStats>,
    /// Why this variant could not be produced or run.
    pub error: Option<String>,
}

/// The verdict on a kernel.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// A, B and the original leave every buffer bit-identical.
    Equivalent,
    /// Buffers differ only within `--ulp` (which variant, how much).
    Within(String),
    /// Some buffer differs: which variant and where.
    Differs(String),
    /// No launch: statistics only.
    NoLaunch,
    /// Loading, optimizing or simulating failed.
    Error(String),
}

/// The A/B result of one kernel.
#[derive(Clone, Debug, Serialize)]
pub struct KernelReport {
    pub kernel: String,
    pub launch: Option<String>,
    pub original: Variant,
    pub a: Variant,
    pub b: Variant,
    pub verdict: Verdict,
}

/// The whole comparison.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    pub a: String,
    pub b: String,
    pub target: String,
    pub kernels: Vec<KernelReport>,
}

impl Report {
    /// Whether every kernel with a launch was proven equivalent and none failed.
    pub fn all_equivalent(&self) -> bool {
        self.kernels.iter().all(|k| {
            matches!(
                k.verdict,
                Verdict::Equivalent | Verdict::Within(_) | Verdict::NoLaunch
            )
        })
    }
}

/// `-O` / `O` spelled as spv-opt spells it on the command line, turned into a pipeline.
pub fn parse_pipeline(text: &str) -> Result<Pipeline, String> {
    let normalized: Vec<String> = split_top_level(text)
        .into_iter()
        .map(|p| {
            let p = p.trim();
            match p.strip_prefix("--") {
                Some(rest) => rest.to_string(),
                None if p == "-O" => "O".to_string(),
                None => p.to_string(),
            }
        })
        .collect();
    Pipeline::parse(&normalized.join(",")).map_err(|e| e.to_string())
}

/// Splits at commas outside parentheses.
fn split_top_level(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut depth, mut start) = (0i32, 0);
    for (i, c) in text.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                out.push(&text[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(&text[start..]);
    out
}

/// Every kernel file under the given paths, in the order given (folders sorted).
pub fn find_kernels(paths: &[PathBuf]) -> Result<Vec<PathBuf>, String> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), String> {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
            .map_err(|e| format!("{}: {e}", dir.display()))?
            .flatten()
            .map(|e| e.path())
            .collect();
        entries.sort();
        for p in entries {
            if p.is_dir() {
                walk(&p, out)?;
            } else if is_kernel_file(&p) {
                out.push(p);
            }
        }
        Ok(())
    }
    let mut out = Vec::new();
    for p in paths {
        if p.is_dir() {
            walk(p, &mut out)?;
        } else if p.exists() {
            out.push(p.clone());
        } else {
            return Err(format!("{}: no such file or folder", p.display()));
        }
    }
    Ok(out)
}

fn is_kernel_file(p: &Path) -> bool {
    let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
    name.ends_with(".spv") || name.ends_with(".spvasm")
}

/// The launch file of `kernel`: `--launch`, else `NAME.launch.json` in `--launches`, else beside
/// it, else `launch.json` beside it (the tensor-hw case layout).
pub fn launch_for(kernel: &Path, opts: &Options) -> Option<PathBuf> {
    if let Some(l) = &opts.launch {
        return Some(l.clone());
    }
    let name = kernel.file_name()?.to_str()?;
    let stem = name
        .strip_suffix(".spvasm")
        .or_else(|| name.strip_suffix(".spv"))
        .unwrap_or(name);
    let file = format!("{stem}.launch.json");
    let dir = kernel.parent().unwrap_or(Path::new("."));
    [
        opts.launches.as_ref().map(|d| d.join(&file)),
        Some(dir.join(&file)),
        Some(dir.join("launch.json")),
    ]
    .into_iter()
    .flatten()
    .find(|p| p.is_file())
}

/// Loads a kernel file (binary or text).
pub fn load_kernel(path: &Path) -> Result<Module, String> {
    let name = path.display().to_string();
    let bytes = io::to_binary(io::read_input(&name)?, &name, None)?;
    spvopt_ir::load_bytes(&bytes).map_err(|e| format!("{name}: {e}"))
}

/// Runs `pipeline` on a copy of `m`.
pub fn optimize(m: &Module, pipeline: &Pipeline, target: &Target) -> Result<Module, String> {
    let mut out = m.clone();
    run_pipeline(pipeline, &mut out, target, &mut Hooks::default()).map_err(|e| e.to_string())?;
    Ok(out)
}

/// Static statistics; builtin calls are counted as the native ops they stand for.
pub fn static_stats(m: &Module) -> StaticStats {
    let mut native = m.clone();
    let raise = spvopt_passes::lookup("raise-builtins").expect("registered");
    if let Ok(mut pass) = (raise.construct)(&Vec::new()) {
        // On failure the statistics count the module as it is (builtin calls uncounted).
        if pass
            .run(
                &mut native,
                &mut spvopt_analysis::Analyses::new(),
                &Target::default(),
            )
            .is_err()
        {
            native = m.clone();
        }
    }
    let m = &native;
    let mut s = StaticStats {
        instructions: m.instruction_count(),
        ..Default::default()
    };
    for i in block_instructions(m) {
        let Some(ops) = BlockOperands::read(m.inst(i)) else {
            continue;
        };
        if ops.kind == BlockKind::Prefetch {
            s.prefetches += 1;
        }
        let key = match ops.shape(m) {
            Some(sh) => format!(
                "{:?} {}b {}r{}x{}c",
                ops.kind,
                sh.element_size * 8,
                sh.height,
                sh.width,
                sh.count
            )
            .to_lowercase(),
            None => format!("{:?} non-constant shape", ops.kind).to_lowercase(),
        };
        *s.block2d.entry(key).or_insert(0) += 1;
    }
    for i in m.all_insts() {
        let inst = m.inst(i);
        if inst.is(spvopt_ir::spirv::Op::SubgroupBlockPrefetchINTEL) {
            s.prefetches += 1;
        } else if inst.is(spvopt_ir::spirv::Op::SubgroupMatrixMultiplyAccumulateINTEL) {
            let k = inst
                .operand_id(0)
                .and_then(|k| m.const_int_value(k))
                .map_or("?".into(), |k| k.to_string());
            let rows = inst
                .result_type()
                .and_then(|t| m.def_inst(t))
                .map_or(1, |t| {
                    if t.is(spvopt_ir::spirv::Op::TypeVector) {
                        t.operand_word(1).unwrap_or(1)
                    } else {
                        1
                    }
                });
            let mask = inst.operand_word(4).unwrap_or(0);
            *s.mma
                .entry(format!("k{k} m{rows} mask {mask:#x}"))
                .or_insert(0) += 1;
        }
    }
    s
}

/// The counters summary of a simulator run.
pub fn sim_stats(out: &RunOutput) -> SimStats {
    let c = &out.counters;
    SimStats {
        instructions: c.instructions,
        block2d_messages: c
            .block2d
            .iter()
            .filter(|(k, _)| !k.starts_with("prefetch"))
            .map(|(_, v)| v.ops)
            .sum(),
        block2d_bytes: c
            .block2d
            .iter()
            .filter(|(k, _)| !k.starts_with("prefetch"))
            .map(|(_, v)| v.bytes)
            .sum(),
        prefetches: c.prefetches,
        prefetch_coverage: c.prefetch_coverage,
        mma_ops: c.mma.values().sum(),
    }
}

/// How two runs' buffers compare with a tolerance of `ulp` units in the last place for
/// floating-point buffers (`elems`: element type per parameter index).
enum Comparison {
    Identical,
    Within(String),
    Differs(String),
}

fn compare_runs(
    a: &RunOutput,
    b: &RunOutput,
    elems: &[Option<spvopt_sim::compare::Elem>],
    ulp: u64,
) -> Comparison {
    if ulp == 0 {
        return first_difference(a, b).map_or(Comparison::Identical, Comparison::Differs);
    }
    let mut within = Vec::new();
    for ((ia, da), (_, db)) in a.buffers.iter().zip(&b.buffers) {
        let elem = elems.get(*ia).copied().flatten();
        let c = spvopt_sim::compare::compare_buffers(da, db, elem, ulp, None, 1);
        match c.verdict() {
            spvopt_sim::compare::Verdict::Identical => {}
            spvopt_sim::compare::Verdict::Within => within.push(format!(
                "arg{ia}: {} elements within {ulp} ulp (max {})",
                c.differing, c.max_ulp
            )),
            spvopt_sim::compare::Verdict::Different => {
                let first = c.listed.first().map_or(String::new(), |d| {
                    format!(", first at element {}: {} vs {}", d.index, d.a, d.b)
                });
                return Comparison::Differs(format!(
                    "arg{ia}: {} elements beyond {ulp} ulp (as {}){first}",
                    c.beyond,
                    elem.map_or("bytes".into(), |e| e.name())
                ));
            }
        }
    }
    if within.is_empty() {
        Comparison::Identical
    } else {
        Comparison::Within(within.join("; "))
    }
}

/// The first difference between two runs' buffers, if any.
pub fn first_difference(a: &RunOutput, b: &RunOutput) -> Option<String> {
    if a.buffers.len() != b.buffers.len() {
        return Some("different buffer sets".into());
    }
    for ((ia, da), (_, db)) in a.buffers.iter().zip(&b.buffers) {
        if da != db {
            let at = da.iter().zip(db).position(|(x, y)| x != y).unwrap_or(0);
            let n = da.iter().zip(db).filter(|(x, y)| x != y).count();
            return Some(format!("arg{ia}: {n} bytes differ, first at byte {at}"));
        }
    }
    None
}

/// Compares A and B on one kernel.
pub fn compare_kernel(
    path: &Path,
    opts: &Options,
    a: &Pipeline,
    b: &Pipeline,
    target: &Target,
) -> KernelReport {
    let launch_path = launch_for(path, opts);
    let mut report = KernelReport {
        kernel: path.display().to_string(),
        launch: launch_path.as_ref().map(|p| p.display().to_string()),
        original: Variant::default(),
        a: Variant::default(),
        b: Variant::default(),
        verdict: Verdict::NoLaunch,
    };
    let original = match load_kernel(path) {
        Ok(m) => m,
        Err(e) => {
            report.verdict = Verdict::Error(e);
            return report;
        }
    };
    let launch = match launch_path.as_deref().map(Launch::from_file) {
        Some(Ok(l)) => Some(l),
        Some(Err(e)) => {
            report.verdict = Verdict::Error(format!("launch: {e}"));
            return report;
        }
        None => None,
    };
    let mut runs: Vec<Option<RunOutput>> = Vec::new();
    let mut failure: Option<String> = None;
    for (which, variant, pipeline) in [
        ("original", &mut report.original, None),
        ("A", &mut report.a, Some(a)),
        ("B", &mut report.b, Some(b)),
    ] {
        let module = match pipeline {
            None => Ok(original.clone()),
            Some(p) => optimize(&original, p, target),
        };
        let module = match module {
            Ok(m) => m,
            Err(e) => {
                variant.error = Some(e.clone());
                failure.get_or_insert(format!("{which}: {e}"));
                runs.push(None);
                continue;
            }
        };
        variant.static_stats = static_stats(&module);
        let Some(l) = &launch else {
            runs.push(None);
            continue;
        };
        match spvopt_sim::run(&module, l) {
            Ok(out) => {
                variant.sim = Some(sim_stats(&out));
                runs.push(Some(out));
            }
            Err(e) => {
                variant.error = Some(e.to_string());
                failure.get_or_insert(format!("{which} on spv-sim: {e}"));
                runs.push(None);
            }
        }
    }
    report.verdict = if let Some(f) = failure {
        Verdict::Error(f)
    } else if launch.is_none() {
        Verdict::NoLaunch
    } else {
        let (o, ra, rb) = (&runs[0], &runs[1], &runs[2]);
        let (Some(o), Some(ra), Some(rb)) = (o, ra, rb) else {
            unreachable!("every variant ran: no failure was recorded")
        };
        let elems = launch
            .as_ref()
            .map(|l| spvopt_sim::compare::param_elem_types(&original, &l.kernel))
            .unwrap_or_default();
        match (
            compare_runs(o, ra, &elems, opts.ulp),
            compare_runs(o, rb, &elems, opts.ulp),
        ) {
            (Comparison::Differs(d), _) => Verdict::Differs(format!("A vs original: {d}")),
            (_, Comparison::Differs(d)) => Verdict::Differs(format!("B vs original: {d}")),
            (Comparison::Identical, Comparison::Identical) => Verdict::Equivalent,
            (wa, wb) => {
                let text = |w: Comparison, which: &str| match w {
                    Comparison::Within(t) => Some(format!("{which}: {t}")),
                    _ => None,
                };
                let parts: Vec<String> = [text(wa, "A"), text(wb, "B")]
                    .into_iter()
                    .flatten()
                    .collect();
                Verdict::Within(parts.join("; "))
            }
        }
    };
    report
}

/// Runs the comparison (the `spv-ab` command without `bisect`).
pub fn compare(opts: &Options) -> Result<Report, String> {
    let a = parse_pipeline(&opts.a).map_err(|e| format!("--a: {e}"))?;
    let b = parse_pipeline(&opts.b).map_err(|e| format!("--b: {e}"))?;
    let target = match &opts.target {
        Some(t) => Target::by_name(t).map_err(|e| e.to_string())?,
        None => Target::default(),
    };
    let kernels = find_kernels(&opts.kernels)?;
    if kernels.is_empty() {
        return Err("no kernels (.spv / .spvasm) found".into());
    }
    let progress = report::Progress::new(kernels.len() as u64);
    let work = || {
        kernels
            .par_iter()
            .map(|k| {
                let r = compare_kernel(k, opts, &a, &b, &target);
                progress.tick();
                r
            })
            .collect::<Vec<_>>()
    };
    let results = match opts.jobs {
        Some(n) => rayon::ThreadPoolBuilder::new()
            .num_threads(n.max(1))
            .build()
            .map_err(|e| e.to_string())?
            .install(work),
        None => work(),
    };
    progress.finish();
    Ok(Report {
        a: opts.a.clone(),
        b: opts.b.clone(),
        target: target.name.clone(),
        kernels: results,
    })
}

fn take(args: &[String], i: &mut usize, flag: &str) -> Result<String, String> {
    *i += 1;
    args.get(*i)
        .cloned()
        .ok_or_else(|| format!("{flag} needs a value"))
}

/// Parses the comparison's arguments (`None` for `--help`).
pub fn parse_options(args: &[String]) -> Result<Option<Options>, String> {
    let mut o = Options::default();
    let (mut have_a, mut have_b) = (false, false);
    let mut i = 0;
    while i < args.len() {
        let arg = args[i].as_str();
        let (flag, inline) = match arg.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f, Some(v.to_string())),
            _ => (arg, None),
        };
        let value = |i: &mut usize| match &inline {
            Some(v) => Ok(v.clone()),
            None => take(args, i, flag),
        };
        match flag {
            "-h" | "--help" => return Ok(None),
            "--a" => {
                o.a = value(&mut i)?;
                have_a = true;
            }
            "--b" => {
                o.b = value(&mut i)?;
                have_b = true;
            }
            "--target" => o.target = Some(value(&mut i)?),
            "--launch" => o.launch = Some(PathBuf::from(value(&mut i)?)),
            "--launches" => o.launches = Some(PathBuf::from(value(&mut i)?)),
            "--json" => o.json = Some(value(&mut i)?),
            "--html" => o.html = Some(value(&mut i)?),
            "--jobs" => {
                let v = value(&mut i)?;
                o.jobs = Some(v.parse().map_err(|_| format!("--jobs: bad number {v}"))?);
            }
            "--quiet" => o.quiet = true,
            "--ulp" => {
                let v = value(&mut i)?;
                o.ulp = v.parse().map_err(|_| format!("--ulp: bad number {v}"))?;
            }
            _ if arg.starts_with('-') && arg.len() > 1 => {
                return Err(format!("unknown option {arg} (see --help)"))
            }
            _ => o.kernels.push(PathBuf::from(arg)),
        }
        i += 1;
    }
    if !have_a || !have_b {
        return Err("give both --a PIPELINE and --b PIPELINE (see --help)".into());
    }
    if o.kernels.is_empty() {
        return Err("no kernels given (see --help)".into());
    }
    Ok(Some(o))
}

/// Runs spv-ab with `args` (without the program name); returns the exit code.
pub fn main(args: &[String]) -> i32 {
    if args.first().map(String::as_str) == Some("bisect") {
        return bisect::main(&args[1..]);
    }
    let opts = match parse_options(args) {
        Ok(Some(o)) => o,
        Ok(None) => {
            print!("{USAGE}");
            return 0;
        }
        Err(e) => {
            eprintln!("spv-ab: error: {e}");
            return 2;
        }
    };
    let report = match compare(&opts) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("spv-ab: error: {e}");
            return 2;
        }
    };
    if let Err(e) = report::write_all(&report, &opts) {
        eprintln!("spv-ab: error: {e}");
        return 2;
    }
    if report.all_equivalent() {
        0
    } else {
        1
    }
}
