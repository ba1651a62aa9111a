//! `spv-ab bisect`: the first pass of a pipeline after which a kernel computes something else.
//!
//! The pipeline runs pass by pass on the kernel (implicit raise/lower steps included, as
//! spv-opt runs them); after each pass that changed the module, the module runs on spv-sim
//! with the kernel's launch and its buffers are compared with the original's. The first pass
//! whose output differs is reported with the unified diff of its disassembly (the smallest
//! before/after pair the pipeline offers). Then, inside that pass, the rewrite counter every
//! pass honours (`max-changes`, [`spvopt_passes::Changes`]) is binary-searched for the single
//! rewrite N such that the pass stopped after N-1 rewrites keeps the results and stopped
//! after N does not; the diff of those two modules is the minimal before/after pair.

use std::path::PathBuf;

use serde::Serialize;
use spvopt_analysis::Target;
use spvopt_ir::Module;
use spvopt_passes::manager::{run_pass, PassRecord};
use spvopt_passes::{run_pipeline, Hooks, Pipeline};
use spvopt_sim::{Launch, RunOutput};

use super::{first_difference, launch_for, load_kernel, parse_pipeline, Options};

/// What bisection found.
#[derive(Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "finding", rename_all = "snake_case")]
pub enum Finding {
    /// Every step's output computes what the original computes.
    NoDifference { steps: usize },
    /// Step `index` (pass `pass`) is the first after which the buffers differ.
    FirstBadPass {
        index: usize,
        pass: String,
        difference: String,
        /// The unified diff of the whole pass.
        diff: String,
        /// The single rewrite of that pass that changes the results, or why it was not found.
        transformation: Result<Transformation, String>,
    },
}

/// The one rewrite of a pass that changes a kernel's results.
#[derive(Debug, PartialEq, Eq, Serialize)]
pub struct Transformation {
    /// The rewrite's number (from 1): the pass stopped after `number - 1` rewrites keeps the
    /// results, stopped after `number` it does not.
    pub number: u64,
    /// The rewrites the pass makes without a limit.
    pub of: u64,
    /// How the buffers differ after it.
    pub difference: String,
    /// The unified diff of the module after `number - 1` and after `number` rewrites.
    pub diff: String,
    /// The pass as a pipeline step that stops right after it (`name(…,max-changes=N)`).
    pub step: String,
}

/// Bisects `pipeline` on `module` with `launch`.
pub fn bisect(
    module: &spvopt_ir::Module,
    pipeline: &Pipeline,
    target: &Target,
    launch: &Launch,
) -> Result<Finding, String> {
    let reference =
        spvopt_sim::run(module, launch).map_err(|e| format!("original on spv-sim: {e}"))?;
    // Every module after a pass, in order: the hook sees each one, implicit steps included.
    let mut snapshots: Vec<(String, spvopt_ir::Module)> = Vec::new();
    let mut hook =
        |name: &str, m: &spvopt_ir::Module| snapshots.push((name.to_string(), m.clone()));
    let mut hooks = Hooks {
        after_pass: Some(&mut hook),
        ..Hooks::default()
    };
    let mut work = module.clone();
    let report =
        run_pipeline(pipeline, &mut work, target, &mut hooks).map_err(|e| e.to_string())?;
    let steps = snapshots.len();
    let mut previous = module.clone();
    for (index, (pass, m)) in snapshots.into_iter().enumerate() {
        if m.to_words() == previous.to_words() {
            continue;
        }
        let out = spvopt_sim::run(&m, launch)
            .map_err(|e| format!("after pass {index} ({pass}) on spv-sim: {e}"))?;
        if let Some(difference) = first_difference(&reference, &out) {
            let diff = unified_diff(&previous, &m, "before", &format!("after {pass}"));
            let transformation =
                bad_transformation(&previous, &report.passes[index], target, launch, &reference);
            return Ok(Finding::FirstBadPass {
                index,
                pass,
                difference,
                diff,
                transformation,
            });
        }
        previous = m;
    }
    Ok(Finding::NoDifference { steps })
}

fn disassemble(m: &spvopt_ir::Module) -> String {
    spvopt_ir::text::disassemble(&m.to_words()).unwrap_or_else(|e| format!("; {e}\n"))
}

fn unified_diff(before: &Module, after: &Module, old: &str, new: &str) -> String {
    let (before, after) = (disassemble(before), disassemble(after));
    similar::TextDiff::from_lines(&before, &after)
        .unified_diff()
        .context_radius(3)
        .header(old, new)
        .to_string()
}

/// Binary search of the pass of `record` (run on `before`) for the first rewrite after which
/// the simulator's buffers differ from `reference`. Assumes, like LLVM's `-opt-bisect-limit`,
/// that once a prefix of rewrites changes the results, longer ones do too; the rewrite found
/// is in any case one whose prefix keeps the results and whose prefix plus it does not.
pub fn bad_transformation(
    before: &Module,
    record: &PassRecord,
    target: &Target,
    launch: &Launch,
    reference: &RunOutput,
) -> Result<Transformation, String> {
    let name = record.name;
    let after = |n: u64| -> Result<Module, String> {
        let mut m = before.clone();
        run_pass(record.info, &record.options, Some(n), &mut m, target)
            .map_err(|e| format!("{name} with max-changes={n}: {e}"))?;
        Ok(m)
    };
    // `Some(difference)` when the module's results differ (a failing run differs too).
    let differs = |m: &Module| match spvopt_sim::run(m, launch) {
        Ok(out) => first_difference(reference, &out),
        Err(e) => Some(format!("spv-sim: {e}")),
    };
    let total = record.changes;
    if total == 0 {
        return Err(format!("{name} counted no rewrites"));
    }
    let (mut good, mut bad) = (0u64, total);
    let mut bad_module = after(total)?;
    let mut difference = differs(&bad_module).ok_or_else(|| {
        format!("{name} run again on its own ({total} rewrites) keeps the results")
    })?;
    while bad - good > 1 {
        let mid = good + (bad - good) / 2;
        let m = after(mid)?;
        match differs(&m) {
            Some(d) => {
                (bad, bad_module, difference) = (mid, m, d);
            }
            None => good = mid,
        }
    }
    let good_module = after(good)?;
    let mut options: Vec<String> = record
        .options
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    options.push(format!("max-changes={bad}"));
    Ok(Transformation {
        number: bad,
        of: total,
        difference,
        diff: unified_diff(
            &good_module,
            &bad_module,
            &format!("{name} after {good} rewrites"),
            &format!("{name} after {bad} rewrites"),
        ),
        step: format!("{name}({})", options.join(",")),
    })
}

impl Finding {
    /// The finding as spv-ab prints it: the first bad pass, the single rewrite inside it and
    /// its minimal diff (or, when no single rewrite was found, why, and the whole pass's diff).
    pub fn text(&self) -> String {
        match self {
            Finding::NoDifference { steps } => {
                format!("no difference: all {steps} steps keep the original's results\n")
            }
            Finding::FirstBadPass {
                index,
                pass,
                difference,
                diff,
                transformation,
            } => {
                let mut s = format!("first bad pass: step {index} `{pass}`: {difference}\n");
                match transformation {
                    Ok(t) => {
                        s.push_str(&format!(
                            "first bad transformation: rewrite {} of {} of `{pass}` ({}; \
                             reproduce with step `{}`)\n",
                            t.number, t.of, t.difference, t.step
                        ));
                        s.push_str(&t.diff);
                    }
                    Err(why) => {
                        s.push_str(&format!(
                            "no single transformation found ({why}); the whole pass:\n"
                        ));
                        s.push_str(diff);
                    }
                }
                s
            }
        }
    }
}

/// `spv-ab bisect --pipeline P [--target T] [--launch L] KERNEL`; returns the exit code (0: no
/// pass changes the results, 1: a pass does, 2: usage or run error).
pub fn main(args: &[String]) -> i32 {
    match run(args) {
        Ok(Finding::NoDifference { steps }) => {
            println!("no difference: all {steps} steps keep the original's results");
            0
        }
        Ok(f @ Finding::FirstBadPass { .. }) => {
            print!("{}", f.text());
            1
        }
        Err(e) => {
            eprintln!("spv-ab bisect: error: {e}");
            2
        }
    }
}

fn run(args: &[String]) -> Result<Finding, String> {
    let mut pipeline = None;
    let mut opts = Options::default();
    let mut kernel: Option<PathBuf> = None;
    let mut i = 0;
    while i < args.len() {
        let value = |i: &mut usize| {
            *i += 1;
            args.get(*i)
                .cloned()
                .ok_or_else(|| format!("{} needs a value", args[*i - 1]))
        };
        match args[i].as_str() {
            "--pipeline" => pipeline = Some(value(&mut i)?),
            "--target" => opts.target = Some(value(&mut i)?),
            "--launch" => opts.launch = Some(PathBuf::from(value(&mut i)?)),
            "--launches" => opts.launches = Some(PathBuf::from(value(&mut i)?)),
            a if a.starts_with('-') => return Err(format!("unknown option {a}")),
            a => kernel = Some(PathBuf::from(a)),
        }
        i += 1;
    }
    let pipeline = parse_pipeline(&pipeline.ok_or("give --pipeline PIPELINE")?)?;
    let kernel = kernel.ok_or("give a KERNEL")?;
    let target = match &opts.target {
        Some(t) => Target::by_name(t).map_err(|e| e.to_string())?,
        None => Target::default(),
    };
    let launch_path = launch_for(&kernel, &opts)
        .ok_or_else(|| format!("{}: no launch (give --launch)", kernel.display()))?;
    let launch = Launch::from_file(&launch_path).map_err(|e| e.to_string())?;
    bisect(&load_kernel(&kernel)?, &pipeline, &target, &launch)
}
