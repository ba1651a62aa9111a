//! Pipelines from strings: comma-separated pass names, each optionally with options in
//! parentheses (`"insert-prefetches(prefetch-distance=3),dce"`, `-O` as the name `O`), and the
//! `max-changes=N` option every pass takes.

use crate::pass::PassError;
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

    /// Checks every step's options as the pass manager will when it runs the step (each pass
    /// built from its options and dropped): an out-of-range or malformed value is an error
    /// before any module is read.
    pub fn check_options(&self) -> Result<(), PassError> {
        for s in &self.steps {
            let (_, options) = split_max_changes(s.info.name, &s.options)?;
            (s.info.construct)(&options)?;
        }
        Ok(())
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
