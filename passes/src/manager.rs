//! The pass manager: pipelines from strings, running passes in order with the analysis cache,
//! timing, per-pass statistics, optional validation and printing after each pass.
//!
//! Pipeline syntax: comma-separated pass names, each optionally with options in parentheses:
//! `"strip-debug,dce"`, `"insert-prefetches(prefetch-distance=3),dce"`. `-O` is the name `O`.
//! Every pass also takes `max-changes=N` (`"dce(max-changes=3)"`): it stops after N rewrites
//! (see [`Changes`]); the CLI's `--max-changes=N` sets it on every pass of the pipeline.

use std::time::Instant;

use spvopt_analysis::{Analyses, Target};
use spvopt_ir::Module;

use crate::pass::{Changes, PassError};
use crate::registry::{self, PassInfo, PassOptions};

mod pipeline;
mod report;

pub use pipeline::{split_max_changes, Pipeline, PipelineStep, MAX_CHANGES};
pub use report::{PassRecord, RunReport, WarningGroup};

/// Called after each pass with its name and the module.
pub type AfterPassHook<'a> = &'a mut dyn FnMut(&str, &Module);
/// Validates a module; `Err` carries the message.
pub type ValidateHook<'a> = &'a dyn Fn(&Module) -> Result<(), String>;

/// Callbacks around passes.
#[derive(Default)]
pub struct Hooks<'a> {
    /// Called after each pass (`--print-all`).
    pub after_pass: Option<AfterPassHook<'a>>,
    /// Validates the module after each pass that changed it (`--validate-after-each`).
    pub validate: Option<ValidateHook<'a>>,
    /// Check the structural invariants ([`spvopt_ir::verify()`]) once, on the pipeline's output,
    /// instead of after every pass that changed the module (the default, `false`). The output
    /// is checked either way; a failure then names every pass that changed the module rather
    /// than the one that broke it. For JIT callers ([`crate::Optimizer`]), where each check costs
    /// about half a load.
    pub verify_output_only: bool,
    /// After each pass that changed the module, compute every analysis it declared preserved
    /// again and compare ([`Analyses::stale`]); a mismatch is a [`PassError::Malformed`] naming
    /// the pass and the analyses. Also on in debug builds and with `SPVOPT_CHECK_PRESERVED=1`.
    pub check_preserved: bool,
}

/// Whether the preserved-analyses check runs even when the hooks do not ask for it.
fn check_preserved_by_default() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    cfg!(debug_assertions)
        || *ON.get_or_init(|| {
            std::env::var_os("SPVOPT_CHECK_PRESERVED").is_some_and(|v| v != "0" && !v.is_empty())
        })
}

/// Runs `pipeline` on `m` for `target`. On error the module may be partially transformed;
/// callers that must not expose that work on a copy (the CLI writes nothing on error).
///
/// Builtin-call input: passes in [`registry::NATIVE_FORM_PASSES`] work on the native
/// `OpSubgroup2DBlock*INTEL` / `OpSubgroupMatrixMultiplyAccumulateINTEL` ops. When such a pass
/// meets a module that imports the OpenCL builtins instead (Triton's and clang's output), and
/// the pipeline does not choose the form itself (no explicit `raise-builtins` or
/// `lower-builtins`), the manager runs `raise-builtins` before it and `lower-builtins` at the
/// end, so a pass on raw compiler output does its job and the output keeps the form it was
/// given. If no pass changed anything after the raise, the original module is restored
/// byte-identically. Both steps appear in the report with `implicit` set.
pub fn run_pipeline(
    pipeline: &Pipeline,
    m: &mut Module,
    target: &Target,
    hooks: &mut Hooks<'_>,
) -> Result<RunReport, PassError> {
    let mut analyses = Analyses::new();
    // The module's instruction count, kept from pass to pass (counting walks the module).
    let mut count = m.instruction_count();
    let mut report = RunReport {
        instructions_before: count,
        passes: Vec::new(),
    };
    let form_is_explicit = pipeline
        .steps
        .iter()
        .any(|s| matches!(s.info.name, "raise-builtins" | "lower-builtins"));
    // The module before an implicit raise, and the index of that raise in the report.
    let mut before_raise: Option<(Module, usize)> = None;
    for step in &pipeline.steps {
        if !form_is_explicit
            && before_raise.is_none()
            && registry::needs_native_form(step.info.name)
            && crate::raise_builtins::imports_builtins(m)
        {
            let snapshot = m.clone();
            let raise = registry::lookup("raise-builtins").expect("raise-builtins is registered");
            let why = format!(
                "{} works on native 2D block / MMA ops; builtin calls raised",
                step.info.name
            );
            let record = run_step(
                raise,
                &PassOptions::new(),
                Some(why),
                count,
                m,
                &mut analyses,
                target,
                hooks,
            )?;
            let changed = record.changed;
            count = record.instructions_after;
            report.passes.push(record);
            if changed {
                before_raise = Some((snapshot, report.passes.len() - 1));
            }
        }
        let record = run_step(
            step.info,
            &step.options,
            None,
            count,
            m,
            &mut analyses,
            target,
            hooks,
        )?;
        count = record.instructions_after;
        report.passes.push(record);
    }
    if let Some((original, raised_at)) = before_raise {
        if report.passes[raised_at + 1..].iter().any(|p| p.changed) {
            let lower = registry::lookup("lower-builtins").expect("lower-builtins is registered");
            let why = "the input used builtin calls; native ops lowered back".to_string();
            let record = run_step(
                lower,
                &PassOptions::new(),
                Some(why),
                count,
                m,
                &mut analyses,
                target,
                hooks,
            )?;
            report.passes.push(record);
        } else {
            // Nothing but the raise changed the module: give back the input as it was, and
            // make the report describe that module: the raise changed nothing, and the later
            // passes (which changed nothing) saw the input's instruction count.
            *m = original;
            let r = &mut report.passes[raised_at];
            let original_count = r.instructions_before;
            r.changed = false;
            r.changes = 0;
            r.undone = true;
            if !r.stats.0.is_empty() {
                let undone = format!("undone, not in the output: {}", r.stats);
                r.stats.0.clear();
                r.stats.note(undone);
            }
            if let Some(why) = r.implicit.as_mut() {
                why.push_str("; undone: no later pass changed anything");
            }
            for p in &mut report.passes[raised_at..] {
                p.instructions_before = original_count;
                p.instructions_after = original_count;
            }
        }
    }
    if hooks.verify_output_only && report.changed() {
        spvopt_ir::verify(m).map_err(|e| PassError::Malformed {
            pass: report
                .passes
                .iter()
                .filter(|p| p.changed)
                .map(|p| p.name)
                .collect::<Vec<_>>()
                .join(" or "),
            message: e.to_string(),
        })?;
    }
    // Every module we hand back loads again: ids a pass left sparse (e.g. dce removing most of
    // a module) are renumbered to fit the loader's size-based id limit. An unchanged module
    // loaded, so it loads again as it is.
    if report.changed() {
        m.compact_ids_if_sparse();
    }
    Ok(report)
}

/// Runs pass `info` once on `m` on its own (fresh analyses, no implicit steps, no hooks) with
/// at most `max_changes` rewrites: `spv-ab bisect` replays one step of a pipeline this way.
pub fn run_pass(
    info: &'static PassInfo,
    options: &PassOptions,
    max_changes: Option<u64>,
    m: &mut Module,
    target: &Target,
) -> Result<PassRecord, PassError> {
    let (_, mut options) = split_max_changes(info.name, options)?;
    if let Some(n) = max_changes {
        options.push((MAX_CHANGES.to_string(), n.to_string()));
    }
    let mut analyses = Analyses::new();
    let count = m.instruction_count();
    run_step(
        info,
        &options,
        None,
        count,
        m,
        &mut analyses,
        target,
        &mut Hooks::default(),
    )
}

/// Runs one pass and its hooks. `instructions_before` is the module's instruction count, which
/// the caller keeps from pass to pass (counting walks the whole module).
#[allow(clippy::too_many_arguments)] // the run's state, passed through; no struct would be read elsewhere
fn run_step(
    info: &'static PassInfo,
    options: &PassOptions,
    implicit: Option<String>,
    instructions_before: usize,
    m: &mut Module,
    analyses: &mut Analyses,
    target: &Target,
    hooks: &mut Hooks<'_>,
) -> Result<PassRecord, PassError> {
    let (max_changes, options) = split_max_changes(info.name, options)?;
    let mut pass = (info.construct)(&options)?;
    let mut changes = Changes::limited(max_changes);
    let start = Instant::now();
    let result = pass.run(m, analyses, target, &mut changes)?;
    let duration = start.elapsed();
    if result.changed && changes.made() == 0 {
        // The contract of `Changes`: every change is a counted rewrite, so max-changes=0
        // leaves the module as it was.
        return Err(PassError::Malformed {
            pass: info.name.to_string(),
            message: "changed the module without counting a rewrite".into(),
        });
    }
    if result.changed {
        analyses.invalidate_except(result.preserved);
        if hooks.check_preserved || check_preserved_by_default() {
            let stale = analyses.stale(m);
            if !stale.is_empty() {
                return Err(PassError::Malformed {
                    pass: info.name.to_string(),
                    message: format!(
                        "declared preserved, but no longer describes the module: {}",
                        stale.join(", ")
                    ),
                });
            }
        }
    }
    if result.changed && !hooks.verify_output_only {
        // The invariants every later pass and the emitter rely on (linear; see docs/testing.md).
        spvopt_ir::verify(m).map_err(|e| PassError::Malformed {
            pass: info.name.to_string(),
            message: e.to_string(),
        })?;
    }
    if let Some(f) = hooks.after_pass.as_mut() {
        match implicit {
            Some(_) => f(&format!("{} (implicit)", info.name), m),
            None => f(info.name, m),
        }
    }
    if result.changed {
        if let Some(v) = hooks.validate {
            v(m).map_err(|message| PassError::Validation {
                pass: info.name.to_string(),
                message,
            })?;
        }
    }
    Ok(PassRecord {
        name: info.name,
        info,
        options,
        changed: result.changed,
        changes: changes.made(),
        max_changes,
        stats: result.stats,
        duration,
        instructions_before,
        // Counting walks the module: only when the pass changed it.
        instructions_after: if result.changed {
            m.instruction_count()
        } else {
            instructions_before
        },
        implicit,
        undone: false,
    })
}
