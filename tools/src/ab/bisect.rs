//! `spv-ab bisect`: the first pass of a pipeline after which a kernel computes something else.
//!
//! The pipeline runs pass by pass on the kernel (implicit raise/lower steps included, as
//! spv-opt runs them); after each pass that changed the module, the module runs on spv-sim
//! with the kernel's launch and its buffers are compared with the original's. The first pass
//! whose output differs is reported with the unified diff of its disassembly (the smallest
//! before/after pair the pipeline offers). Bisecting inside a pass (stopping it after N
//! rewrites) needs every pass to honour a rewrite counter, which they do not yet.

use std::path::PathBuf;

use spvopt_analysis::Target;
use spvopt_passes::{run_pipeline, Hooks, Pipeline};
use spvopt_sim::Launch;

use super::{first_difference, launch_for, load_kernel, parse_pipeline, Options};

/// What bisection found.
#[derive(Debug, PartialEq, Eq)]
pub enum Finding {
    /// Every step's output computes what the original computes.
    NoDifference { steps: usize },
    /// Step `index` (pass `pass`) is the first after which the buffers differ.
    FirstBadPass {
        index: usize,
        pass: String,
        difference: String,
        diff: String,
    },
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
            let before = disassemble(&previous);
            let after = disassemble(&m);
            let diff = similar::TextDiff::from_lines(&before, &after)
                .unified_diff()
                .context_radius(3)
                .header("before", &format!("after {pass}"))
                .to_string();
            return Ok(Finding::FirstBadPass {
                index,
                pass,
                difference,
                diff,
            });
        }
        previous = m;
    }
    Ok(Finding::NoDifference { steps })
}

fn disassemble(m: &spvopt_ir::Module) -> String {
    spvopt_ir::text::disassemble(&m.to_words()).unwrap_or_else(|e| format!("; {e}\n"))
}

/// `spv-ab bisect --pipeline P [--target T] [--launch L] KERNEL`; returns the exit code (0: no
/// pass changes the results, 1: a pass does, 2: usage or run error).
pub fn main(args: &[String]) -> i32 {
    match run(args) {
        Ok(Finding::NoDifference { steps }) => {
            println!("no difference: all {steps} steps keep the original's results");
            0
        }
        Ok(Finding::FirstBadPass {
            index,
            pass,
            difference,
            diff,
        }) => {
            println!("first bad pass: step {index} `{pass}`: {difference}");
            print!("{diff}");
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
