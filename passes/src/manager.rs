//! The pass manager: pipelines from strings, running passes in order with the analysis cache,
//! timing, per-pass statistics, optional validation and printing after each pass.
//!
//! Pipeline syntax: comma-separated pass names, each optionally with options in parentheses:
//! `"strip-debug,dce"`, `"insert-prefetches(prefetch-distance=3),dce"`. `-O` is the name `O`.
//! Every pass also takes `max-changes=N` (`"dce(max-changes=3)"`): it stops after N rewrites
//! (see [`Changes`]); the CLI's `--max-changes=N` sets it on every pass of the pipeline.

use std::time::{Duration, Instant};

use spvopt_analysis::{Analyses, Target};
use spvopt_ir::Module;

use crate::pass::{Changes, PassError, Statistics};
use crate::registry::{self, PassInfo, PassOptions};

/// One pass with its options.
#[derive(Debug)]
pub struct PipelineStep {
    pub info: &'static PassInfo,
    pub options: PassOptions,
}

/// An ordered list of passes.
#[derive(Debug, Default)]
pub struct Pipeline {
    pub steps: Vec<PipelineStep>,
}

impl Pipeline {
    /// An empty pipeline.
    pub fn new() -> Pipeline {
        Pipeline::default()
    }

    /// Parses a pipeline string (see the module docs); `O` expands to the `-O` pipeline.
    pub fn parse(text: &str) -> Result<Pipeline, PassError> {
        let mut p = Pipeline::new();
        p.extend_from_str(text)?;
        Ok(p)
    }

    /// Appends the passes of a pipeline string.
    pub fn extend_from_str(&mut self, text: &str) -> Result<(), PassError> {
        let bad = |message: &str| PassError::BadPipeline {
            pipeline: text.to_string(),
            message: message.to_string(),
        };
        let mut rest = text.trim();
        while !rest.is_empty() {
            let end = rest.find([',', '(']).unwrap_or(rest.len());
            let name = rest[..end].trim();
            rest = &rest[end..];
            let mut options = PassOptions::new();
            if let Some(r) = rest.strip_prefix('(') {
                let close = r.find(')').ok_or_else(|| bad("missing ')'"))?;
                for kv in r[..close]
                    .split(',')
                    .map(str::trim)
                    .filter(|s| !s.is_empty())
                {
                    let (k, v) = kv.split_once('=').unwrap_or((kv, ""));
                    options.push((k.trim().to_string(), v.trim().to_string()));
                }
                rest = &r[close + 1..];
            }
            rest = rest.trim_start();
            if let Some(r) = rest.strip_prefix(',') {
                rest = r.trim_start();
            } else if !rest.is_empty() {
                return Err(bad("expected ',' between passes"));
            }
            if name.is_empty() {
                return Err(bad("empty pass name"));
            }
            if name == "O" {
                if !options.is_empty() {
                    return Err(bad("-O takes no options"));
                }
                self.extend_from_str(registry::OPTIMIZE_PIPELINE)?;
            } else {
                self.push(name, options)?;
            }
        }
        Ok(())
    }

    /// Appends pass `name` with `options`.
    pub fn push(&mut self, name: &str, options: PassOptions) -> Result<(), PassError> {
        let info =
            registry::lookup(name).ok_or_else(|| PassError::UnknownPass(name.to_string()))?;
        for (k, v) in &options {
            if k == MAX_CHANGES {
                parse_max_changes(name, v)?;
            } else if !info.options.iter().any(|o| o.key == k) {
                return Err(PassError::BadOption {
                    pass: name.to_string(),
                    option: k.clone(),
                    message: "unknown option".into(),
                });
            }
        }
        self.steps.push(PipelineStep { info, options });
        Ok(())
    }

    /// Sets option `key` on every step whose pass declares it (CLI `--key=value`).
    pub fn set_option(&mut self, key: &str, value: &str) {
        for s in &mut self.steps {
            if s.info.options.iter().any(|o| o.key == key) {
                s.options.retain(|(k, _)| k != key);
                s.options.push((key.to_string(), value.to_string()));
            }
        }
    }

    /// Declares subgroup size `n` on the kernels that declare none before any other pass
    /// (the CLIs' `--subgroup-size N`): puts `declare-subgroup-size` first, or sets the option
    /// of the one the pipeline has.
    pub fn declare_subgroup_size(&mut self, n: &str) -> Result<(), PassError> {
        let key = crate::declare_subgroup_size::OPTION;
        let options: PassOptions = vec![(key.to_string(), n.to_string())];
        // Checks the value now, not at run time.
        crate::declare_subgroup_size::DeclareSubgroupSize::from_options(&options)?;
        if self
            .steps
            .iter()
            .any(|s| s.info.name == "declare-subgroup-size")
        {
            self.set_option(key, n);
        } else {
            let info = registry::lookup("declare-subgroup-size")
                .ok_or_else(|| PassError::UnknownPass("declare-subgroup-size".into()))?;
            self.steps.insert(0, PipelineStep { info, options });
        }
        Ok(())
    }

    /// Limits every step to `n` rewrites (CLI `--max-changes=N`); a step's own
    /// `max-changes` option is replaced.
    pub fn set_max_changes(&mut self, n: u64) {
        for s in &mut self.steps {
            s.options.retain(|(k, _)| k != MAX_CHANGES);
            s.options.push((MAX_CHANGES.to_string(), n.to_string()));
        }
    }

    /// The pass names, in order.
    pub fn names(&self) -> Vec<&'static str> {
        self.steps.iter().map(|s| s.info.name).collect()
    }
}

/// The option every pass takes: stop after N rewrites.
pub const MAX_CHANGES: &str = "max-changes";

fn parse_max_changes(pass: &str, v: &str) -> Result<u64, PassError> {
    v.parse().map_err(|_| PassError::BadOption {
        pass: pass.to_string(),
        option: MAX_CHANGES.to_string(),
        message: format!("expected a number of rewrites, got \"{v}\""),
    })
}

/// Splits a step's options into its `max-changes` limit and the pass's own options.
pub fn split_max_changes(
    pass: &str,
    options: &PassOptions,
) -> Result<(Option<u64>, PassOptions), PassError> {
    let mut limit = None;
    let mut rest = PassOptions::new();
    for (k, v) in options {
        if k == MAX_CHANGES {
            limit = Some(parse_max_changes(pass, v)?);
        } else {
            rest.push((k.clone(), v.clone()));
        }
    }
    Ok((limit, rest))
}

/// What one pass did in a run.
#[derive(Clone, Debug)]
pub struct PassRecord {
    pub name: &'static str,
    /// The pass that ran and its options (without `max-changes`): enough to run it again.
    pub info: &'static PassInfo,
    pub options: PassOptions,
    pub changed: bool,
    /// Rewrites the pass made (see [`Changes`]).
    pub changes: u64,
    /// The `max-changes` limit it ran with.
    pub max_changes: Option<u64>,
    pub stats: Statistics,
    pub duration: Duration,
    pub instructions_before: usize,
    pub instructions_after: usize,
    /// `Some(reason)` for a step the pass manager added itself (raising builtin calls before a
    /// pass that needs native ops, lowering them back at the end), e.g.
    /// `"fuse-block-loads works on native 2D block / MMA ops"`.
    pub implicit: Option<String>,
    /// An implicit `raise-builtins` that was undone (no later pass changed anything, so the
    /// input is given back as it was): the record reports no change, its counters moved into a
    /// note.
    pub undone: bool,
}

impl PassRecord {
    /// This pass's warnings grouped by message (first-seen order).
    pub fn warning_groups(&self) -> Vec<WarningGroup> {
        let mut groups: Vec<WarningGroup> = Vec::new();
        let mut index: std::collections::HashMap<&str, usize> = Default::default();
        for w in self.stats.warnings() {
            let (loc, msg) = split_location(w);
            match index.get(msg) {
                Some(&g) => groups[g].count += 1,
                None => {
                    index.insert(msg, groups.len());
                    groups.push(WarningGroup {
                        pass: self.name,
                        message: msg.to_string(),
                        count: 1,
                        first_location: loc.to_string(),
                    });
                }
            }
        }
        groups
    }

    /// One line of what the pass did (`-v`): changed or not, instruction counts, statistics.
    pub fn summary(&self) -> String {
        let mut s = format!(
            "{}: {}, {} -> {} instructions, {} changes",
            self.name,
            if self.changed { "changed" } else { "unchanged" },
            self.instructions_before,
            self.instructions_after,
            self.changes
        );
        if let Some(limit) = self.max_changes {
            s.push_str(&format!(" (max-changes={limit})"));
        }
        if !self.stats.0.is_empty() {
            s.push_str(&format!(" ({})", self.stats));
        }
        if let Some(why) = &self.implicit {
            s.push_str(&format!(" [implicit: {why}]"));
        }
        s
    }
}

/// What a pipeline run did.
#[derive(Clone, Debug, Default)]
pub struct RunReport {
    pub instructions_before: usize,
    pub passes: Vec<PassRecord>,
}

/// Warnings of one pass that say the same thing at different places: "32 x MMA … (first at …)".
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WarningGroup {
    pub pass: &'static str,
    /// The message without its location.
    pub message: String,
    pub count: usize,
    /// Location of the first occurrence (empty when the warnings carry none).
    pub first_location: String,
}

impl WarningGroup {
    /// The group as one line: the message, with the count and first location when repeated.
    pub fn line(&self) -> String {
        match (self.count, self.first_location.is_empty()) {
            (1, true) => format!("{}: {}", self.pass, self.message),
            (1, false) => format!("{}: {}: {}", self.pass, self.first_location, self.message),
            (n, true) => format!("{}: {n} x {}", self.pass, self.message),
            (n, false) => format!(
                "{}: {n} x {} (first at {})",
                self.pass, self.message, self.first_location
            ),
        }
    }
}

/// Splits a warning `"LOCATION: message"` (the form passes use) into its location and message;
/// a warning without a location prefix (`"OpX … in function …: "`) keeps all of its text.
fn split_location(w: &str) -> (&str, &str) {
    match w.split_once(": ") {
        Some((loc, msg)) if loc.starts_with("Op") || loc.contains(" in function ") => (loc, msg),
        _ => ("", w),
    }
}

impl RunReport {
    /// Whether any pass changed the module.
    pub fn changed(&self) -> bool {
        self.passes.iter().any(|p| p.changed)
    }

    /// Every pass's warnings, grouped per pass by message (first-seen order).
    pub fn warning_groups(&self) -> Vec<WarningGroup> {
        self.passes
            .iter()
            .flat_map(PassRecord::warning_groups)
            .collect()
    }

    /// The report as JSON (the `--stats FILE.json` format).
    pub fn to_json(&self) -> serde_json::Value {
        let passes: Vec<serde_json::Value> = self
            .passes
            .iter()
            .map(|p| {
                let stats: serde_json::Map<String, serde_json::Value> = p
                    .stats
                    .0
                    .iter()
                    .map(|(k, v)| (k.to_string(), serde_json::Value::from(*v)))
                    .collect();
                let warnings: Vec<serde_json::Value> = p
                    .warning_groups()
                    .into_iter()
                    .map(|g| {
                        serde_json::json!({
                            "message": g.message,
                            "count": g.count,
                            "first_location": g.first_location,
                        })
                    })
                    .collect();
                let mut v = serde_json::json!({
                    "name": p.name,
                    "changed": p.changed,
                    "changes": p.changes,
                    "time_us": p.duration.as_micros() as u64,
                    "instructions_before": p.instructions_before,
                    "instructions_after": p.instructions_after,
                    "stats": stats,
                    "warnings": warnings,
                });
                if let Some(limit) = p.max_changes {
                    v["max_changes"] = serde_json::Value::from(limit);
                }
                if let Some(why) = &p.implicit {
                    v["implicit"] = serde_json::Value::from(why.clone());
                }
                if p.undone {
                    v["undone"] = serde_json::Value::from(true);
                }
                if !p.stats.notes().is_empty() {
                    v["notes"] = serde_json::Value::from(p.stats.notes().to_vec());
                }
                v
            })
            .collect();
        serde_json::json!({
            "instructions_before": self.instructions_before,
            "instructions_after": self.passes.last().map_or(self.instructions_before, |p| p.instructions_after),
            "passes": passes,
        })
    }

    /// The `--time-report` table.
    pub fn time_table(&self) -> String {
        let mut s =
            String::from("pass                          time(us)  changed  changes  statistics\n");
        let mut total = Duration::ZERO;
        for p in &self.passes {
            total += p.duration;
            s.push_str(&format!(
                "{:<28} {:>10}  {:<7}  {:>7}  {}\n",
                p.name,
                p.duration.as_micros(),
                p.changed,
                p.changes,
                p.stats
            ));
        }
        s.push_str(&format!("{:<28} {:>10}\n", "total", total.as_micros()));
        s
    }
}

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
