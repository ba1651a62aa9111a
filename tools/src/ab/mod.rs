//! `spv-ab`: A/B testing of two pass pipelines over many kernels.
//!
//! For each kernel (a `.spv`/`.spvasm` file, or every one under a folder): optimize it with
//! pipeline A and pipeline B, run the original, A and B on spv-sim with the kernel's launch
//! (`NAME.launch.json` beside it, in `--launches DIR`, or `--launch L.json` for all), check that
//! all three leave every buffer bit-identical, and collect static statistics (instructions, 2D
//! block ops by shape, MMAs by shape, prefetches) and the simulator's counters (2D messages and
//! bytes, prefetch coverage, MMA ops, instructions executed). Kernels run in parallel (rayon);
//! the report lists them in the order given. `spv-ab bisect` finds the first pass of a
//! pipeline after which a kernel's results differ and the single rewrite inside that pass
//! (see [`bisect`]); `--bisect` does it for every kernel that differs. `--device opencl[:N]`
//! also runs the original, A and B on an OpenCL device, checks them against spv-sim and times
//! them (see [`device`]). `spv-ab reduce` shrinks a module to a small one that still shows a
//! problem (see [`reduce`]).
//!
//! Exit code: 0 when every kernel with a launch is proven equivalent (and, with `--device`,
//! every run on the device agrees with spv-sim), 1 when one differs or fails, 2 for a usage
//! error.

pub mod bisect;
mod cli;
pub mod device;
pub mod igc_view;
pub mod reduce;
pub mod report;
mod stats;

use std::path::{Path, PathBuf};

use rayon::prelude::*;
use serde::Serialize;
use spvopt_analysis::Target;
use spvopt_ir::Module;
use spvopt_passes::{run_pipeline, Hooks, Pipeline};
use spvopt_sim::{Launch, RunOutput};

use crate::io;
pub use cli::{main, parse_options, Options, USAGE};
use device::DeviceRun;
pub use stats::{sim_stats, static_stats, SimStats, StaticStats};

/// One variant of a kernel: the original, A or B.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Variant {
    pub static_stats: StaticStats,
    pub sim: Option<SimStats>,
    /// Why this variant could not be produced or run.
    pub error: Option<String>,
    /// Its run on the `--device` (absent without `--device`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub device: Option<DeviceRun>,
    /// IGC's ISA of it (absent without `--compiler`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub isa: Option<igc_view::IgcView>,
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
    /// With `--bisect`, on a kernel whose A or B differs: where that pipeline breaks it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bisect: Option<KernelBisect>,
}

/// `--bisect` on a kernel that differs.
#[derive(Clone, Debug, Serialize)]
pub struct KernelBisect {
    /// `A` or `B`: the pipeline bisected (A when both differ).
    pub pipeline: String,
    /// The finding ([`bisect::Finding`]'s text), or why bisection failed.
    pub finding: Result<String, String>,
}

/// The whole comparison.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    pub a: String,
    pub b: String,
    pub target: String,
    /// The `--device` the variants ran on (absent without `--device`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub device: Option<String>,
    pub kernels: Vec<KernelReport>,
}

impl Report {
    /// Whether every kernel with a launch was proven equivalent and none failed, and every
    /// run on the device gave spv-sim's results.
    pub fn all_equivalent(&self) -> bool {
        self.kernels.iter().all(|k| {
            matches!(
                k.verdict,
                Verdict::Equivalent | Verdict::Within(_) | Verdict::NoLaunch
            ) && [&k.original, &k.a, &k.b]
                .iter()
                .all(|v| v.device.as_ref().is_none_or(|d| d.agrees != Some(false)))
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
    Pipeline::parse(&normalized.join(",")).map_err(|e| spvopt_passes::registry::error_text(&e))
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

/// `m` with `--subgroup-size N` declared on its kernels that declare none (`m` without it).
fn declare_subgroup_size(m: Module, opts: &Options, target: &Target) -> Result<Module, String> {
    let Some(n) = &opts.subgroup_size else {
        return Ok(m);
    };
    let mut p = Pipeline::new();
    p.declare_subgroup_size(n)
        .map_err(|e| format!("--subgroup-size {n}: {e}"))?;
    optimize(&m, &p, target)
}

/// Runs `pipeline` on a copy of `m`.
pub fn optimize(m: &Module, pipeline: &Pipeline, target: &Target) -> Result<Module, String> {
    let mut out = m.clone();
    run_pipeline(pipeline, &mut out, target, &mut Hooks::default()).map_err(|e| e.to_string())?;
    Ok(out)
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

/// One kernel as compared, with what the `--device` runs and `--bisect` need.
pub struct Evaluated {
    pub report: KernelReport,
    /// The original, A and B (`None` where it could not be produced).
    pub modules: [Option<Module>; 3],
    /// Their runs on spv-sim.
    pub runs: [Option<RunOutput>; 3],
    pub launch: Option<Launch>,
    /// Element type of each kernel parameter (for ulp comparisons).
    pub elems: Vec<Option<spvopt_sim::compare::Elem>>,
}

/// Compares A and B on one kernel.
pub fn compare_kernel(
    path: &Path,
    opts: &Options,
    a: &Pipeline,
    b: &Pipeline,
    target: &Target,
) -> KernelReport {
    evaluate_kernel(path, opts, a, b, target).report
}

/// Compares A and B on one kernel, keeping the modules and runs.
pub fn evaluate_kernel(
    path: &Path,
    opts: &Options,
    a: &Pipeline,
    b: &Pipeline,
    target: &Target,
) -> Evaluated {
    let launch_path = launch_for(path, opts);
    let mut ev = Evaluated {
        report: KernelReport {
            kernel: path.display().to_string(),
            launch: launch_path.as_ref().map(|p| p.display().to_string()),
            original: Variant::default(),
            a: Variant::default(),
            b: Variant::default(),
            verdict: Verdict::NoLaunch,
            bisect: None,
        },
        modules: [None, None, None],
        runs: [None, None, None],
        launch: None,
        elems: Vec::new(),
    };
    let report = &mut ev.report;
    let original = match load_kernel(path).and_then(|m| declare_subgroup_size(m, opts, target)) {
        Ok(m) => m,
        Err(e) => {
            report.verdict = Verdict::Error(e);
            return ev;
        }
    };
    let launch = match launch_path.as_deref().map(Launch::from_file) {
        Some(Ok(l)) => Some(l),
        Some(Err(e)) => {
            report.verdict = Verdict::Error(format!("launch: {e}"));
            return ev;
        }
        None => None,
    };
    let mut runs: Vec<Option<RunOutput>> = Vec::new();
    let mut failure: Option<String> = None;
    for (k, (which, variant, pipeline)) in [
        ("original", &mut report.original, None),
        ("A", &mut report.a, Some(a)),
        ("B", &mut report.b, Some(b)),
    ]
    .into_iter()
    .enumerate()
    {
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
        if opts.compiler.is_some() {
            let has_mma = !variant.static_stats.mma.is_empty();
            variant.isa = Some(igc_view::compile(
                &module,
                target,
                has_mma,
                opts.build_options.as_deref(),
            ));
        }
        ev.modules[k] = Some(module);
        let Some(l) = &launch else {
            runs.push(None);
            continue;
        };
        let module = ev.modules[k].as_ref().expect("just stored");
        match spvopt_sim::run(module, l) {
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
        ev.elems = launch
            .as_ref()
            .map(|l| spvopt_sim::compare::param_elem_types(&original, &l.kernel))
            .unwrap_or_default();
        match (
            compare_runs(o, ra, &ev.elems, opts.ulp),
            compare_runs(o, rb, &ev.elems, opts.ulp),
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
    let [o, ra, rb] = <[Option<RunOutput>; 3]>::try_from(runs).unwrap_or_default();
    ev.runs = [o, ra, rb];
    ev.launch = launch;
    ev
}

/// `--bisect`: bisects the pipeline (A, else B) that made a kernel differ.
pub fn bisect_kernel(ev: &Evaluated, a: &Pipeline, b: &Pipeline, target: &Target) -> KernelBisect {
    let Verdict::Differs(d) = &ev.report.verdict else {
        unreachable!("only kernels that differ are bisected")
    };
    let (name, pipeline) = if d.starts_with("A vs") {
        ("A", a)
    } else {
        ("B", b)
    };
    let finding = match (&ev.modules[0], &ev.launch) {
        (Some(m), Some(l)) => bisect::bisect(m, pipeline, target, l).map(|f| f.text()),
        _ => Err("no original module or launch".into()),
    };
    KernelBisect {
        pipeline: name.into(),
        finding,
    }
}

/// Runs the comparison (the `spv-ab` command without `bisect`).
pub fn compare(opts: &Options) -> Result<Report, String> {
    let a = parse_pipeline(&opts.a).map_err(|e| format!("--a: {e}"))?;
    let b = parse_pipeline(&opts.b).map_err(|e| format!("--b: {e}"))?;
    let target = match &opts.target {
        Some(t) => Target::by_name(t).map_err(|e| e.to_string())?,
        None => Target::default(),
    };
    if opts.subgroup_size.is_some() {
        // A bad value (or one the target lacks) is a usage error, not an error per kernel.
        declare_subgroup_size(Module::new(0x0001_0400), opts, &target)?;
    }
    let kernels = find_kernels(&opts.kernels)?;
    if kernels.is_empty() {
        return Err("no kernels (.spv / .spvasm) found".into());
    }
    // The device first: without it, nothing else is worth doing.
    let runner = match opts.device {
        Some(index) => Some(device::Runner::start(
            index,
            opts.python.as_deref(),
            opts.device_max_bytes,
        )?),
        None => None,
    };
    let progress = report::Progress::new(kernels.len() as u64);
    let work = || {
        kernels
            .par_iter()
            .enumerate()
            .map(|(k, path)| {
                let mut ev = evaluate_kernel(path, opts, &a, &b, &target);
                if opts.bisect && matches!(ev.report.verdict, Verdict::Differs(_)) {
                    ev.report.bisect = Some(bisect_kernel(&ev, &a, &b, &target));
                }
                // The device runs get files; the modules and buffers go now.
                let staged = match &runner {
                    Some(r) => r.stage(k, &mut ev),
                    None => Vec::new(),
                };
                progress.tick();
                (ev.report, staged)
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
    let (mut reports, staged): (Vec<KernelReport>, Vec<Vec<device::Staged>>) =
        results.into_iter().unzip();
    // Device runs one at a time, after the simulator's work: timings are not shared with it.
    if let Some(r) = &runner {
        r.run(&mut reports, staged.into_iter().flatten().collect(), opts)?;
    }
    Ok(Report {
        a: opts.a.clone(),
        b: opts.b.clone(),
        target: target.name.clone(),
        device: runner.map(|r| r.description()),
        kernels: reports,
    })
}
