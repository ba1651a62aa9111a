//! [`Optimizer`]: a target, a pipeline and options, prepared once and run on many modules, as
//! a driver's JIT does per kernel (the C API in `capi/` wraps it).
//!
//! Preparing parses the pipeline and checks its passes and options; each [`Optimizer::run`]
//! then only loads, (optionally) validates, runs the passes and emits. `run` takes `&self`:
//! one optimizer may serve several threads at once, and nothing is global.
//!
//! The structural invariants ([`spvopt_ir::verify()`]) are checked when the input is loaded and
//! once on the output (not after every pass, which the CLI and the tests do): a module that
//! breaks them is never returned.

use spvopt_analysis::Target;
use spvopt_ir::Module;

use crate::manager::{run_pipeline, Hooks, Pipeline, RunReport};
use crate::pass::PassError;
use crate::OptimizeError;

/// A prepared optimization: target, pipeline, options. Cheap to run many times.
///
/// ```
/// use spvopt_analysis::Target;
/// use spvopt_passes::Optimizer;
///
/// let optimizer = Optimizer::new(Target::by_name("pvc").unwrap(), "-O").unwrap();
/// # let path = concat!(env!("CARGO_MANIFEST_DIR"),
/// #     "/../tests/corpus/triton/native/gemm_fp16_blockptr_128x128x32_w8__pvc.spv");
/// let bytes = std::fs::read(path).unwrap();
/// let words: Vec<u32> = bytes
///     .chunks_exact(4)
///     .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
///     .collect();
/// let out = optimizer.run(&words).unwrap();
/// assert_eq!(out.words[0], 0x0723_0203); // SPIR-V magic
/// assert!(out.report.passes.iter().any(|p| p.name == "fuse-block-loads"));
/// // The same optimizer, another module (here: a broken one) — a typed error, never a panic.
/// assert!(optimizer.run(&words[..10]).is_err());
/// ```
#[derive(Debug)]
pub struct Optimizer {
    target: Target,
    pipeline: Pipeline,
    #[cfg(feature = "validate")]
    validation: Option<Option<spvopt_ir::text::TargetEnv>>,
    #[cfg(feature = "validate")]
    output_validation: Option<Option<spvopt_ir::text::TargetEnv>>,
}

/// What [`Optimizer::run`] returns: the optimized words and what each pass did.
#[derive(Debug)]
pub struct Optimized {
    pub words: Vec<u32>,
    pub report: RunReport,
    /// Validation warnings about the input (deviations real compiler output carries and the
    /// passes handle, e.g. Function variables outside the entry block); empty without
    /// validation.
    pub warnings: Vec<String>,
}

impl Optimizer {
    /// An optimizer running `pipeline` for `target`. The pipeline is a pipeline string
    /// (`"strip-debug,dce"`, `"O,insert-prefetches(prefetch-distance=2)"`) or CLI-style flags
    /// separated by spaces (`"-O --insert-prefetches --prefetch-distance=2"`, `--max-changes=N`
    /// and `--subgroup-size=N` as in `spv-opt`); an unknown pass
    /// or option is an error here, not at run time. Validation of the input is off (as in
    /// drivers); see [`Optimizer::with_validation`].
    pub fn new(target: Target, pipeline: &str) -> Result<Optimizer, PassError> {
        Ok(Optimizer {
            target,
            pipeline: parse_flags_or_pipeline(pipeline)?,
            #[cfg(feature = "validate")]
            validation: None,
            #[cfg(feature = "validate")]
            output_validation: None,
        })
    }

    /// An optimizer for a prepared [`Pipeline`].
    pub fn from_pipeline(target: Target, pipeline: Pipeline) -> Optimizer {
        Optimizer {
            target,
            pipeline,
            #[cfg(feature = "validate")]
            validation: None,
            #[cfg(feature = "validate")]
            output_validation: None,
        }
    }

    /// Validates every input with SPIRV-Tools' validator before optimizing (like spirv-opt),
    /// in `env`, or when `None` in the universal environment of the module's version.
    #[cfg(feature = "validate")]
    pub fn with_validation(mut self, env: Option<spvopt_ir::text::TargetEnv>) -> Optimizer {
        self.validation = Some(env);
        self
    }

    /// Validates the output of every run whose input validates in `env` (when `None`: the
    /// universal environment of each module's version), as `spv-opt` does by default: an output
    /// that does not is an error, [`PassError::Validation`] naming the first pass whose output
    /// fails (found by running the pipeline again with validation after each pass; only then).
    /// An input that does not validate is an error only with [`Optimizer::with_validation`];
    /// without it such an input's output is not checked. Costs one validator run per module.
    #[cfg(feature = "validate")]
    pub fn with_output_validation(mut self, env: Option<spvopt_ir::text::TargetEnv>) -> Optimizer {
        self.output_validation = Some(env);
        self
    }

    /// The target device profile.
    pub fn target(&self) -> &Target {
        &self.target
    }

    /// The passes, in order.
    pub fn pipeline(&self) -> &Pipeline {
        &self.pipeline
    }

    /// Optimizes `words`. The input is never modified; on error nothing is returned but the
    /// error (what and where).
    pub fn run(&self, words: &[u32]) -> Result<Optimized, OptimizeError> {
        let mut m = spvopt_ir::load_words(words)?;
        let warnings = self.validate(&m)?;
        let check_output = self.wants_output_check(&m);
        let report = self.run_module(&mut m)?;
        if check_output {
            self.check_output(&m, words)?;
        }
        Ok(Optimized {
            words: m.to_words(),
            report,
            warnings,
        })
    }

    /// Runs the pipeline on a loaded module in place (on error the module may be partly
    /// transformed: work on a copy when that matters).
    pub fn run_module(&self, m: &mut Module) -> Result<RunReport, PassError> {
        let mut hooks = Hooks {
            verify_output_only: true,
            ..Hooks::default()
        };
        run_pipeline(&self.pipeline, m, &self.target, &mut hooks)
    }

    #[cfg(feature = "validate")]
    fn validate(&self, m: &Module) -> Result<Vec<String>, OptimizeError> {
        let Some(env) = self.validation else {
            return Ok(Vec::new());
        };
        let env =
            env.unwrap_or_else(|| spvopt_ir::text::universal_env_for_version(m.header.version));
        crate::validate::validate_module(m, env).map_err(OptimizeError::Invalid)
    }

    #[cfg(not(feature = "validate"))]
    fn validate(&self, _: &Module) -> Result<Vec<String>, OptimizeError> {
        Ok(Vec::new())
    }

    /// Whether the output of a run on `input` is to be validated: output validation is on and
    /// the input validates (already checked when input validation is on too).
    #[cfg(feature = "validate")]
    fn wants_output_check(&self, input: &Module) -> bool {
        let Some(env) = self.output_validation else {
            return false;
        };
        self.validation.is_some() || {
            let env = env.unwrap_or_else(|| {
                spvopt_ir::text::universal_env_for_version(input.header.version)
            });
            crate::validate::validate_tolerating(input, env).is_ok()
        }
    }

    #[cfg(not(feature = "validate"))]
    fn wants_output_check(&self, _: &Module) -> bool {
        false
    }

    #[cfg(feature = "validate")]
    fn check_output(&self, output: &Module, input: &[u32]) -> Result<(), OptimizeError> {
        let env = self.output_validation.flatten();
        crate::validate::check_output(output, env, &self.pipeline, &self.target, || {
            spvopt_ir::load_words(input).ok()
        })
        .map_err(|e| OptimizeError::Pass(e.into_pass_error()))
    }

    #[cfg(not(feature = "validate"))]
    fn check_output(&self, _: &Module, _: &[u32]) -> Result<(), OptimizeError> {
        Ok(())
    }
}

/// A pipeline string, or flags as on the command line (`-O`, `--PASS`, `--key=value`).
fn parse_flags_or_pipeline(text: &str) -> Result<Pipeline, PassError> {
    let text = text.trim();
    if !text.starts_with('-') {
        return Pipeline::parse(text);
    }
    let mut p = Pipeline::new();
    let mut options: Vec<(&str, &str)> = Vec::new();
    let mut max_changes: Option<u64> = None;
    let mut subgroup_size: Option<&str> = None;
    for flag in text.split_whitespace() {
        let bad = || PassError::BadPipeline {
            pipeline: text.to_string(),
            message: format!("{flag} is not -O, --PASS or --key=value"),
        };
        if flag == "-O" {
            p.extend_from_str("O")?;
            continue;
        }
        let body = flag.strip_prefix("--").ok_or_else(bad)?;
        match body.split_once('=') {
            Some(("max-changes", v)) => {
                max_changes = Some(v.parse().map_err(|_| PassError::BadPipeline {
                    pipeline: text.to_string(),
                    message: format!("{flag}: not a number of rewrites"),
                })?)
            }
            Some(("subgroup-size", v)) => subgroup_size = Some(v),
            Some((k, v)) => options.push((k, v)),
            None => p.push(body, Default::default())?,
        }
    }
    for (k, v) in options {
        if !p
            .steps
            .iter()
            .any(|s| s.info.options.iter().any(|o| o.key == k))
        {
            return Err(PassError::BadPipeline {
                pipeline: text.to_string(),
                message: format!("--{k} given but no pass in the pipeline takes it"),
            });
        }
        p.set_option(k, v);
    }
    if let Some(n) = subgroup_size {
        p.declare_subgroup_size(n)?;
    }
    if let Some(n) = max_changes {
        p.set_max_changes(n);
    }
    Ok(p)
}
