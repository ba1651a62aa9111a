//! Diagnostics as values: what a pass (or the pass manager) has to tell a person about the
//! module, with where it is, as cranelift's `VerifierError { location, context, message }` and
//! naga's `WithSpan` do. Passes record warnings as [`Diagnostic`]s in their [`Statistics`]
//! (crate::pass::Statistics); the pass manager groups them by message without reading text
//! back ([`crate::manager::WarningGroup`]), and one rendering serves the terminal
//! ([`Diagnostic`]'s `Display`: `LOCATION: message`), the `--stats` JSON and
//! `--diagnostics-format json` ([`Diagnostic::to_json`]), and the C API's message callback.

use std::fmt;

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
    /// unknown parts left out.
    pub fn to_json(&self) -> serde_json::Value {
        let mut v = serde_json::Map::new();
        if let Some(op) = &self.opcode {
            v.insert("opcode".into(), op.clone().into());
        }
        for (key, id) in [
            ("result", self.result),
            ("function", self.function),
            ("block", self.block),
        ] {
            if let Some(id) = id {
                v.insert(key.into(), id.word().into());
            }
        }
        serde_json::Value::Object(v)
    }
}

/// `OpX %result in function %f, block %b`, or `OpX at module scope`.
impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let opcode = self.opcode.as_deref().unwrap_or("instruction");
        match self.result {
            Some(r) => write!(f, "{opcode} %{}", r.word())?,
            None => write!(f, "{opcode}")?,
        }
        match self.block {
            Some(b) => {
                let func = self
                    .function
                    .map_or_else(|| "?".to_string(), |id| format!("%{}", id.word()));
                write!(f, " in function {func}, block %{}", b.word())
            }
            None => write!(f, " at module scope"),
        }
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

    /// The diagnostic as JSON: `{"level": "warning", "message": …, "at": {…}}` (`at` only when
    /// known, with the rendered `location` text beside it).
    pub fn to_json(&self) -> serde_json::Value {
        let mut v = serde_json::json!({
            "level": self.level.as_str(),
            "message": self.message,
        });
        if let Some(at) = &self.at {
            v["at"] = at.to_json();
            v["location"] = at.to_string().into();
        }
        v
    }
}

/// `LOCATION: message`, or the message alone.
impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.at {
            Some(at) => write!(f, "{at}: {}", self.message),
            None => write!(f, "{}", self.message),
        }
    }
}
