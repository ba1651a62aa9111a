//! Diagnostics as values: what a pass (or the pass manager) has to tell a person about the
//! module, with where it is, as cranelift's `VerifierError { location, context, message }` and
//! naga's `WithSpan` do. Passes record warnings as [`Diagnostic`]s in their [`crate::pass::Statistics`]
//! (crate::pass::Statistics), and a failing pass returns its errors as diagnostics
//! ([`crate::PassError::Failed`]); the pass manager groups warnings by message without reading
//! text back ([`crate::manager::WarningGroup`]). One rendering module, [`render`], makes every
//! text and JSON form: the terminal (`Display`: `LOCATION: message`), the `--stats` JSON,
//! `--diagnostics-format json` and both C API callbacks (the text one and the structured one).

use std::fmt;

pub mod render;

use render::Renderer;

use spvopt_ir::{Id, InstId, Module};

/// How serious a diagnostic is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Level {
    /// The module could not be transformed as asked.
    Error,
    /// Something the pass left as it was that the user should know about (e.g. an MMA shape
    /// the target lacks and no pass lowers).
    Warning,
    /// An explanation of one decision.
    Note,
}

impl Level {
    /// `error`, `warning` or `note`.
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Error => "error",
            Level::Warning => "warning",
            Level::Note => "note",
        }
    }
}

/// Where in a module a diagnostic points: an instruction (its opcode name and result id), the
/// function and the block holding it; any of them may be unknown.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Location {
    /// The instruction's opcode name (`OpFunctionCall`); `None` for a place that is not one
    /// instruction.
    pub opcode: Option<String>,
    /// The instruction's result id, when it has one.
    pub result: Option<Id>,
    /// The result id of the function holding it (`None` at module scope).
    pub function: Option<Id>,
    /// The label of the block holding it (`None` at module scope).
    pub block: Option<Id>,
}

impl Location {
    /// Where instruction `i` of `m` is.
    pub fn of(m: &Module, i: InstId) -> Location {
        let inst = m.inst(i);
        let (function, block) = match m.inst_block(i) {
            Some(b) => (m.function_result(m.block(b).func), Some(m.block_label(b))),
            None => (None, None),
        };
        Location {
            opcode: Some(inst.name().into_owned()),
            result: inst.result_id(),
            function,
            block,
        }
    }

    /// The location as JSON: `{"opcode": "OpX", "result": 12, "function": 3, "block": 9}` with
    /// unknown parts left out ([`Renderer::location_json`]).
    pub fn to_json(&self) -> serde_json::Value {
        Renderer::PLAIN.location_json(self)
    }
}

/// `OpX %result in function %f, block %b`, or `OpX at module scope` ([`Renderer::location`]).
impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&Renderer::PLAIN.location(self))
    }
}

/// One message for a person.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Diagnostic {
    pub level: Level,
    /// Where it points (`None`: the module as a whole).
    pub at: Option<Location>,
    /// What it says, without the location.
    pub message: String,
}

impl Diagnostic {
    /// A warning at `at`.
    pub fn warning(at: Option<Location>, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            level: Level::Warning,
            at,
            message: message.into(),
        }
    }

    /// An error at `at`.
    pub fn error(at: Option<Location>, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            level: Level::Error,
            at,
            message: message.into(),
        }
    }

    /// An error at instruction `i` of `m`.
    pub fn error_at(m: &Module, i: InstId, message: impl Into<String>) -> Diagnostic {
        Diagnostic::error(Some(Location::of(m, i)), message)
    }

    /// The diagnostic as JSON: `{"level": "warning", "message": …, "at": {…}}` (`at` only when
    /// known, with the rendered `location` text beside it; [`Renderer::json`]).
    pub fn to_json(&self) -> serde_json::Value {
        Renderer::PLAIN.json(self)
    }
}

/// `LOCATION: message`, or the message alone ([`Renderer::text`]).
impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&Renderer::PLAIN.text(self))
    }
}
