//! The pass manager: pipelines from strings, running passes in order with the analysis cache,
//! timing, per-pass statistics, optional validation and printing after each pass.
//!
//! Pipeline syntax: comma-separated pass names, each optionally with options in parentheses:
//! `"strip-debug,dce"`, `"insert-prefetches(prefetch-distance=3),dce"`. `-O` is the name `O`.

use std::time::{Duration, Instant};

use spvopt_analysis::{Analyses, Target};
use spvopt_ir::Module;

use crate::pass::{PassError, Statistics};
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
        for (k, _) in &options {
            if !info.options.iter().any(|o| o.key == k) {
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

    /// The pass names, in order.
    pub fn names(&self) -> Vec<&'static str> {
        self.steps.iter().map(|s| s.info.name).collect()
    }
}

/// What one pass did in a run.
#[derive(Clone, Debug)]
pub struct PassRecord {
    pub name: &'static str,
    pub changed: bool,
    pub stats: Statistics,
    pub duration: Duration,
    pub instructions_after: usize,
}

/// What a pipeline run did.
#[derive(Clone, Debug, Default)]
pub struct RunReport {
    pub instructions_before: usize,
    pub passes: Vec<PassRecord>,
}

impl RunReport {
    /// Whether any pass changed the module.
    pub fn changed(&self) -> bool {
        self.passes.iter().any(|p| p.changed)
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
                serde_json::json!({
                    "name": p.name,
                    "changed": p.changed,
                    "time_us": p.duration.as_micros() as u64,
                    "instructions_after": p.instructions_after,
                    "stats": stats,
                })
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
        let mut s = String::from("pass                          time(us)  changed  statistics\n");
        let mut total = Duration::ZERO;
        for p in &self.passes {
            total += p.duration;
            s.push_str(&format!(
                "{:<28} {:>10}  {:<7}  {}\n",
                p.name,
                p.duration.as_micros(),
                p.changed,
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
}

/// Runs `pipeline` on `m` for `target`. On error the module may be partially transformed;
/// callers that must not expose that work on a copy (the CLI writes nothing on error).
pub fn run_pipeline(
    pipeline: &Pipeline,
    m: &mut Module,
    target: &Target,
    hooks: &mut Hooks<'_>,
) -> Result<RunReport, PassError> {
    let mut analyses = Analyses::new();
    let mut report = RunReport {
        instructions_before: m.instruction_count(),
        passes: Vec::new(),
    };
    for step in &pipeline.steps {
        let mut pass = (step.info.construct)(&step.options)?;
        let start = Instant::now();
        let result = pass.run(m, &mut analyses, target)?;
        let duration = start.elapsed();
        if result.changed {
            analyses.invalidate_except(result.preserved);
            // The invariants every later pass and the emitter rely on (linear; see README).
            spvopt_ir::verify(m).map_err(|e| PassError::Malformed {
                pass: step.info.name.to_string(),
                message: e.to_string(),
            })?;
        }
        if let Some(f) = hooks.after_pass.as_mut() {
            f(step.info.name, m);
        }
        if result.changed {
            if let Some(v) = hooks.validate {
                v(m).map_err(|message| PassError::Validation {
                    pass: step.info.name.to_string(),
                    message,
                })?;
            }
        }
        report.passes.push(PassRecord {
            name: step.info.name,
            changed: result.changed,
            stats: result.stats,
            duration,
            instructions_after: m.instruction_count(),
        });
    }
    // Every module we hand back loads again: ids a pass left sparse (e.g. dce removing most of
    // a module) are renumbered to fit the loader's size-based id limit.
    m.compact_ids_if_sparse();
    Ok(report)
}
