//! The output check: a run whose input validated must write a module that validates too.
//!
//! What: [`check_output`] validates the optimized module once (spirv-val with the deviations
//! [`super::validate_tolerating`] accepts in inputs, since a pass keeps what it does not touch).
//! Only when that fails is the pipeline run again, on a fresh load of the input, with validation
//! after every pass that changes the module, to name the pass whose output first fails: the run
//! is deterministic (`tests/tests/determinism.rs`), so the second run makes the same modules.
//! Cost: one validator run per optimized module; the rerun only for an invalid output.
//! Used by `spv-opt` (by default), [`crate::Optimizer::with_output_validation`] and the C API.

use spvopt_analysis::Target;
use spvopt_ir::text::{self, TargetEnv};
use spvopt_ir::Module;

use crate::manager::{run_pipeline, Hooks, Pipeline};
use crate::pass::PassError;

/// An optimized module that does not validate although its input did.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{}output does not validate: {message}", match pass { Some(p) => format!("after pass {p}: "), None => String::new() })]
pub struct InvalidOutput {
    /// The first pass whose output does not validate, when the rerun found it.
    pub pass: Option<String>,
    /// spirv-val's message (of that pass's output, else of the final output).
    pub message: String,
}

impl InvalidOutput {
    /// As a pass error ([`PassError::Validation`]); an unnamed pass is `pipeline`.
    pub fn into_pass_error(self) -> PassError {
        PassError::Validation {
            pass: self.pass.unwrap_or_else(|| "pipeline".to_string()),
            message: self.message,
        }
    }
}

/// Validates `output` (the result of `pipeline` for `target` on a module that validated) in
/// `env`, or when `None` in the universal environment of the output's version. When it does
/// not validate and `input` gives the input module again, the pipeline is rerun on it with
/// validation after each pass, and the first pass whose output fails is named.
pub fn check_output(
    output: &Module,
    env: Option<TargetEnv>,
    pipeline: &Pipeline,
    target: &Target,
    input: impl FnOnce() -> Option<Module>,
) -> Result<(), InvalidOutput> {
    let env_of =
        |m: &Module| env.unwrap_or_else(|| text::universal_env_for_version(m.header.version));
    let Err(message) = super::validate_tolerating(output, env_of(output)) else {
        return Ok(());
    };
    let unblamed = InvalidOutput {
        pass: None,
        message: message.clone(),
    };
    let Some(mut m) = input() else {
        return Err(unblamed);
    };
    let validate = |m: &Module| super::validate_tolerating(m, env_of(m)).map(|_| ());
    let mut hooks = Hooks {
        validate: Some(&validate),
        ..Hooks::default()
    };
    match run_pipeline(pipeline, &mut m, target, &mut hooks) {
        Err(PassError::Validation { pass, message }) => Err(InvalidOutput {
            pass: Some(pass),
            message,
        }),
        _ => Err(unblamed),
    }
}
