//! The pass contract: a pass transforms a module for a target and says what it changed.

use std::fmt;

use spvopt_analysis::{Analyses, AnalysisSet, Target};
use spvopt_ir::Module;

/// Named counters a pass reports (`fused: 6`), in a stable order, warnings (messages with
/// a location about things the pass left for later, e.g. MMA shapes a target lacks; the CLI
/// prints them on stderr) and notes (why each item was or was not transformed; in `--stats`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Statistics(
    pub Vec<(&'static str, u64)>,
    pub Vec<String>,
    /// Notes: per-item explanations of a pass' decisions (`--stats` JSON `notes`).
    pub Vec<String>,
);

impl Statistics {
    /// Records a note (an explanation of one decision, e.g. why a load was not prefetched).
    pub fn note(&mut self, message: String) {
        self.2.push(message);
    }
    /// The notes recorded.
    pub fn notes(&self) -> &[String] {
        &self.2
    }
    /// Records a warning.
    pub fn warn(&mut self, message: String) {
        self.1.push(message);
    }
    /// The warnings recorded.
    pub fn warnings(&self) -> &[String] {
        &self.1
    }
    /// Adds `n` to counter `name` (created at 0 when missing).
    pub fn add(&mut self, name: &'static str, n: u64) {
        match self.0.iter_mut().find(|(k, _)| *k == name) {
            Some((_, v)) => *v += n,
            None => self.0.push((name, n)),
        }
    }
    /// Value of counter `name` (0 when absent).
    pub fn get(&self, name: &str) -> u64 {
        self.0
            .iter()
            .find(|(k, _)| *k == name)
            .map_or(0, |(_, v)| *v)
    }
    /// The sum of all counters.
    pub fn total(&self) -> u64 {
        self.0.iter().map(|(_, v)| v).sum()
    }
}

impl fmt::Display for Statistics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, (k, v)) in self.0.iter().enumerate() {
            if i > 0 {
                write!(f, ", ")?;
            }
            write!(f, "{k}: {v}")?;
        }
        Ok(())
    }
}

/// Options given to a pass constructor: `(key, value)` pairs.
pub type PassOptions = Vec<(String, String)>;

/// What a pass did.
#[derive(Clone, Debug, Default)]
pub struct PassResult {
    /// Whether the module changed. A pass reporting `false` must have left it byte-identical.
    pub changed: bool,
    /// Analyses still valid after the change (ignored when nothing changed).
    pub preserved: AnalysisSet,
    pub stats: Statistics,
}

impl PassResult {
    /// Nothing changed.
    pub fn unchanged(stats: Statistics) -> PassResult {
        PassResult {
            changed: false,
            preserved: AnalysisSet::ALL,
            stats,
        }
    }
}

/// A pass failed: the module cannot be transformed as asked (the module given to the pass may
/// be partially modified; the pass manager discards it).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PassError {
    #[error("{pass}: {message}")]
    Failed { pass: &'static str, message: String },
    #[error("unknown pass \"{0}\" (see --list-passes)")]
    UnknownPass(String),
    #[error("pass {pass}: bad option {option}: {message}")]
    BadOption {
        pass: String,
        option: String,
        message: String,
    },
    #[error("bad pipeline \"{pipeline}\": {message}")]
    BadPipeline { pipeline: String, message: String },
    #[error("after pass {pass}: output does not validate: {message}")]
    Validation { pass: String, message: String },
    /// The pass produced a module that breaks the structural invariants
    /// ([`spvopt_ir::verify`]): a bug in the pass; the module is not written.
    #[error("pass {pass} produced a malformed module: {message}")]
    Malformed { pass: String, message: String },
}

/// A transformation of a module.
pub trait Pass {
    /// The registry name (= CLI flag without `--`).
    fn name(&self) -> &'static str;
    /// Runs the pass.
    fn run(
        &mut self,
        m: &mut Module,
        analyses: &mut Analyses,
        target: &Target,
    ) -> Result<PassResult, PassError>;
}
