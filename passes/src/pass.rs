//! The pass contract: a pass transforms a module for a target and says what it changed.

use std::fmt;

use spvopt_analysis::{Analyses, AnalysisSet, Target};
use spvopt_ir::Module;

use crate::diagnostic::render::Renderer;
use crate::diagnostic::{Diagnostic, Location};

/// What a pass reports besides the module: named counters (`fused: 6`) in a stable order,
/// warnings (typed [`Diagnostic`]s about things the pass left for later, e.g. MMA shapes a target
/// lacks; the CLI prints them on stderr, grouped by message) and notes (why each item was or was
/// not transformed; in `--stats`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Statistics {
    /// The counters, in the order they were first added.
    pub counters: Vec<(&'static str, u64)>,
    /// The warnings, in the order they were recorded.
    pub warnings: Vec<Diagnostic>,
    /// Per-item explanations of the pass's decisions (`--stats` JSON `notes`).
    pub notes: Vec<String>,
}

impl Statistics {
    /// Records a note (an explanation of one decision, e.g. why a load was not prefetched).
    pub fn note(&mut self, message: String) {
        self.notes.push(message);
    }
    /// The notes recorded.
    pub fn notes(&self) -> &[String] {
        &self.notes
    }
    /// Records a warning about the module as a whole.
    pub fn warn(&mut self, message: String) {
        self.warnings.push(Diagnostic::warning(None, message));
    }
    /// Records a warning about the instruction at `at`.
    pub fn warn_at(&mut self, at: Location, message: String) {
        self.warnings.push(Diagnostic::warning(Some(at), message));
    }
    /// The warnings recorded.
    pub fn warnings(&self) -> &[Diagnostic] {
        &self.warnings
    }
    /// Adds `n` to counter `name` (created at 0 when missing).
    pub fn add(&mut self, name: &'static str, n: u64) {
        match self.counters.iter_mut().find(|(k, _)| *k == name) {
            Some((_, v)) => *v += n,
            None => self.counters.push((name, n)),
        }
    }
    /// Value of counter `name` (0 when absent).
    pub fn get(&self, name: &str) -> u64 {
        self.counters
            .iter()
            .find(|(k, _)| *k == name)
            .map_or(0, |(_, v)| *v)
    }
    /// The sum of all counters.
    pub fn total(&self) -> u64 {
        self.counters.iter().map(|(_, v)| v).sum()
    }
}

impl fmt::Display for Statistics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, (k, v)) in self.counters.iter().enumerate() {
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
    /// The pass cannot transform the module: its errors as diagnostics (level `Error`, each
    /// located where the pass knows the instruction), and, when there are several of one
    /// kind, a summary of them (`"2 problem(s) cannot be fixed for target pvc"`). One line:
    /// `PASS: SUMMARY: D1; D2` ([`Renderer::failure`]).
    #[error("{pass}: {}", Renderer::PLAIN.failure(.summary.as_deref(), .diagnostics))]
    Failed {
        pass: &'static str,
        summary: Option<String>,
        diagnostics: Vec<Diagnostic>,
    },
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
    /// ([`spvopt_ir::verify()`]): a bug in the pass; the module is not written.
    #[error("pass {pass} produced a malformed module: {message}")]
    Malformed { pass: String, message: String },
}

impl PassError {
    /// Pass `pass` failed with `diagnostics` (no summary).
    pub fn failed(pass: &'static str, diagnostics: Vec<Diagnostic>) -> PassError {
        PassError::Failed {
            pass,
            summary: None,
            diagnostics,
        }
    }

    /// Pass `pass` failed for one reason about the module as a whole (no location).
    pub fn failed_because(pass: &'static str, message: impl Into<String>) -> PassError {
        PassError::failed(pass, vec![Diagnostic::error(None, message)])
    }

    /// The error's diagnostics: a failed pass's own, otherwise one error (unlocated) saying
    /// what [`Display`](fmt::Display) says.
    pub fn diagnostics(&self) -> Vec<Diagnostic> {
        match self {
            PassError::Failed { diagnostics, .. } => diagnostics.clone(),
            other => vec![Diagnostic::error(None, other.to_string())],
        }
    }

    /// The one line [`Display`](fmt::Display) gives, with ids shown as `r` shows them: the
    /// locations of a failed pass's diagnostics from their structure, free text scanned.
    pub fn render(&self, r: &Renderer<'_>) -> String {
        match self {
            PassError::Failed {
                pass,
                summary,
                diagnostics,
            } => format!("{pass}: {}", r.failure(summary.as_deref(), diagnostics)),
            other => r.message(&other.to_string()),
        }
    }

    /// The error as JSON diagnostics, one object each (`--diagnostics-format json`): a failed
    /// pass's diagnostics with `pass` and `summary` ([`Renderer::failure_json`]); any other
    /// error one unlocated object with the whole line as its message.
    pub fn to_json(&self, r: &Renderer<'_>) -> Vec<serde_json::Value> {
        match self {
            PassError::Failed {
                pass,
                summary,
                diagnostics,
            } if !diagnostics.is_empty() => diagnostics
                .iter()
                .map(|d| r.failure_json(pass, summary.as_deref(), d))
                .collect(),
            other => vec![r.json(&Diagnostic::error(None, other.to_string()))],
        }
    }
}

/// The rewrite counter every pass honours (like LLVM's `-debug-counter` /
/// `-opt-bisect-limit`): a pass asks [`Changes::allow`] before each rewrite (what one rewrite
/// is, each pass's top comment says; docs/guide.md has the table) and makes it only when
/// allowed. With a limit of N a pass stops after N rewrites and leaves a valid module: the
/// clean-up a rewrite needs (declarations, capabilities, unused imports) belongs to it. With
/// a limit of 0 the module is left byte-identical. The number made is reported per pass
/// (`changes` in `-v`, `--stats`), and `spv-ab bisect` searches it for the single rewrite that
/// changes a kernel's results.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Changes {
    limit: Option<u64>,
    made: u64,
}

impl Changes {
    /// No limit.
    pub fn unlimited() -> Changes {
        Changes::default()
    }
    /// At most `limit` rewrites (`None`: no limit).
    pub fn limited(limit: Option<u64>) -> Changes {
        Changes { limit, made: 0 }
    }
    /// Asks for one more rewrite: `true` (and counted) when the limit allows it.
    pub fn allow(&mut self) -> bool {
        if self.limit.is_some_and(|l| self.made >= l) {
            return false;
        }
        self.made += 1;
        true
    }
    /// Asks for up to `wanted` rewrites at once; returns how many are allowed (all counted).
    pub fn allow_up_to(&mut self, wanted: usize) -> usize {
        let room = self.limit.map_or(wanted as u64, |l| {
            l.saturating_sub(self.made).min(wanted as u64)
        });
        self.made += room;
        room as usize
    }
    /// Asks for `n` rewrites that only make sense together: all allowed (and counted), or none.
    pub fn allow_all(&mut self, n: u64) -> bool {
        if self.limit.is_some_and(|l| self.made + n > l) {
            return false;
        }
        self.made += n;
        true
    }
    /// Gives back one allowed rewrite the pass could not make after all (nothing changed).
    pub fn undo(&mut self) {
        self.made = self.made.saturating_sub(1);
    }
    /// Whether another rewrite would be allowed (without asking for it).
    pub fn can_change(&self) -> bool {
        self.limit.is_none_or(|l| self.made < l)
    }
    /// The rewrites made so far.
    pub fn made(&self) -> u64 {
        self.made
    }
    /// The limit (`None`: unlimited).
    pub fn limit(&self) -> Option<u64> {
        self.limit
    }
}

/// A transformation of a module.
pub trait Pass {
    /// The registry name (= CLI flag without `--`).
    fn name(&self) -> &'static str;
    /// Runs the pass, asking `changes` before each rewrite (see [`Changes`]).
    fn run(
        &mut self,
        m: &mut Module,
        analyses: &mut Analyses,
        target: &Target,
        changes: &mut Changes,
    ) -> Result<PassResult, PassError>;
}
