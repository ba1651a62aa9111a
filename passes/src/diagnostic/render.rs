//! The one rendering of diagnostics: every text and JSON form of a [`Diagnostic`], its
//! [`Location`], a pass failure and a group of repeated warnings comes from here, for the
//! terminal (`spv-opt: warning: …`, `spv-opt: error: …`), the `--stats` JSON,
//! `--diagnostics-format json` and both C API callbacks.
//!
//! A [`Renderer`] shows ids bare (`%12`, [`Renderer::PLAIN`], the `Display` forms) or with
//! the module's `OpName`s (`%12 (matmul_kernel)`, [`Renderer::with_names`]). The ids of a
//! location are named from its structure; a message is free text, so ids written in it are
//! found by [`Names::annotate`].

use spvopt_ir::Id;

use super::{Diagnostic, Location};
use crate::messages::Names;

/// How ids are shown: bare, or followed by the name the module gives them.
#[derive(Clone, Copy, Debug)]
pub struct Renderer<'a> {
    names: Option<&'a Names>,
}

impl Renderer<'static> {
    /// Ids bare (`%12`).
    pub const PLAIN: Renderer<'static> = Renderer { names: None };
}

impl<'a> Renderer<'a> {
    /// Ids followed by their `OpName` where `names` has one: `%12 (matmul_kernel)`.
    pub fn with_names(names: &'a Names) -> Renderer<'a> {
        Renderer { names: Some(names) }
    }

    /// `%N`, with ` (name)` when named.
    fn id(&self, out: &mut String, id: Id) {
        out.push('%');
        out.push_str(&id.word().to_string());
        if let Some(name) = self.names.and_then(|n| n.get(id.word())) {
            out.push_str(" (");
            out.push_str(name);
            out.push(')');
        }
    }

    /// Free text (a message, a summary) with the ids written in it named.
    pub fn message(&self, text: &str) -> String {
        match self.names {
            Some(n) => n.annotate(text),
            None => text.to_string(),
        }
    }

    /// `OpX %result in function %f, block %b`, or `OpX at module scope`.
    pub fn location(&self, at: &Location) -> String {
        let mut s = at.opcode.as_deref().unwrap_or("instruction").to_string();
        if let Some(r) = at.result {
            s.push(' ');
            self.id(&mut s, r);
        }
        match at.block {
            Some(b) => {
                s.push_str(" in function ");
                match at.function {
                    Some(f) => self.id(&mut s, f),
                    None => s.push('?'),
                }
                s.push_str(", block ");
                self.id(&mut s, b);
            }
            None => s.push_str(" at module scope"),
        }
        s
    }

    /// `LOCATION: message`, or the message alone.
    pub fn text(&self, d: &Diagnostic) -> String {
        match &d.at {
            Some(at) => format!("{}: {}", self.location(at), self.message(&d.message)),
            None => self.message(&d.message),
        }
    }

    /// The ids of `at` as JSON: `{"opcode": "OpX", "result": 12, "function": 3, "block": 9}`
    /// with unknown parts left out.
    pub fn location_json(&self, at: &Location) -> serde_json::Value {
        let mut v = serde_json::Map::new();
        if let Some(op) = &at.opcode {
            v.insert("opcode".into(), op.clone().into());
        }
        for (key, id) in [
            ("result", at.result),
            ("function", at.function),
            ("block", at.block),
        ] {
            if let Some(id) = id {
                v.insert(key.into(), id.word().into());
            }
        }
        serde_json::Value::Object(v)
    }

    /// `{"level": "warning", "message": …, "at": {…}, "location": "…"}` (`at` and its text
    /// `location` only when known).
    pub fn json(&self, d: &Diagnostic) -> serde_json::Value {
        let mut v = serde_json::json!({
            "level": d.level.as_str(),
            "message": self.message(&d.message),
        });
        if let Some(at) = &d.at {
            v["at"] = self.location_json(at);
            v["location"] = self.location(at).into();
        }
        v
    }

    /// A pass failure as one line: `summary: D1; D2` (each `D` as [`Renderer::text`]), or the
    /// diagnostics alone when there is no summary.
    pub fn failure(&self, summary: Option<&str>, diagnostics: &[Diagnostic]) -> String {
        let list: Vec<String> = diagnostics.iter().map(|d| self.text(d)).collect();
        match summary {
            Some(s) if list.is_empty() => self.message(s),
            Some(s) => format!("{}: {}", self.message(s), list.join("; ")),
            None => list.join("; "),
        }
    }

    /// One diagnostic of a failed pass as JSON: [`Renderer::json`] with `pass` and, when the
    /// failure has one, its `summary`.
    pub fn failure_json(
        &self,
        pass: &str,
        summary: Option<&str>,
        d: &Diagnostic,
    ) -> serde_json::Value {
        let mut v = self.json(d);
        v["pass"] = pass.into();
        if let Some(s) = summary {
            v["summary"] = self.message(s).into();
        }
        v
    }

    /// `count` warnings of `pass` saying `message`, the first at `first_at`, as one line:
    /// `pass: LOCATION: message` once, `pass: N x message (first at LOCATION)` when repeated.
    pub fn group_line(
        &self,
        pass: &str,
        message: &str,
        count: usize,
        first_at: Option<&Location>,
    ) -> String {
        let message = self.message(message);
        match (count, first_at) {
            (1, None) => format!("{pass}: {message}"),
            (1, Some(at)) => format!("{pass}: {}: {message}", self.location(at)),
            (n, None) => format!("{pass}: {n} x {message}"),
            (n, Some(at)) => format!("{pass}: {n} x {message} (first at {})", self.location(at)),
        }
    }

    /// The same group as a diagnostic in JSON (`--diagnostics-format json`): [`Renderer::json`]
    /// of the message with the count when repeated, at the first location, with `pass` and
    /// `count`.
    pub fn group_json(
        &self,
        pass: &str,
        message: &str,
        count: usize,
        first_at: Option<&Location>,
    ) -> serde_json::Value {
        let mut v = self.json(&group_diagnostic(message, count, first_at));
        v["pass"] = pass.into();
        v["count"] = count.into();
        v
    }

    /// The same group in the `--stats` JSON: `{"level": "warning", "message", "count",
    /// "first_location": text ("" when unknown), "first_at": {…} (when known)}`.
    pub fn group_stats_json(
        &self,
        message: &str,
        count: usize,
        first_at: Option<&Location>,
    ) -> serde_json::Value {
        let mut v = serde_json::json!({
            "level": "warning",
            "message": self.message(message),
            "count": count,
            "first_location": first_at.map(|at| self.location(at)).unwrap_or_default(),
        });
        if let Some(at) = first_at {
            v["first_at"] = self.location_json(at);
        }
        v
    }
}

/// A group of `count` warnings saying `message` as one warning: the message with the count when
/// repeated (`3 x …`), at the first location.
pub fn group_diagnostic(message: &str, count: usize, first_at: Option<&Location>) -> Diagnostic {
    let message = match count {
        1 => message.to_string(),
        n => format!("{n} x {message}"),
    };
    Diagnostic::warning(first_at.cloned(), message)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at() -> Location {
        Location {
            opcode: Some("OpLoad".into()),
            result: Id::new(12),
            function: Id::new(7),
            block: Id::new(9),
        }
    }

    #[test]
    fn plain_and_named_renderings_agree_but_for_names() {
        let mut names = Names::default();
        names.insert(7, "kernel".into());
        names.insert(5, "x".into());
        let d = Diagnostic::error(Some(at()), "reads %5");
        assert_eq!(
            Renderer::PLAIN.text(&d),
            "OpLoad %12 in function %7, block %9: reads %5"
        );
        let named = Renderer::with_names(&names);
        assert_eq!(
            named.text(&d),
            "OpLoad %12 in function %7 (kernel), block %9: reads %5 (x)"
        );
        // The structured rendering names exactly what scanning the plain text names.
        assert_eq!(named.text(&d), names.annotate(&Renderer::PLAIN.text(&d)));
        let v = named.json(&d);
        assert_eq!(v["level"], "error");
        assert_eq!(v["at"]["function"], 7);
        assert_eq!(
            v["location"],
            "OpLoad %12 in function %7 (kernel), block %9"
        );
    }

    #[test]
    fn module_scope_and_unknown_parts() {
        let global = Location {
            opcode: Some("OpTypeInt".into()),
            result: Id::new(3),
            function: None,
            block: None,
        };
        assert_eq!(
            Renderer::PLAIN.location(&global),
            "OpTypeInt %3 at module scope"
        );
        let odd = Location {
            block: Id::new(4),
            ..Location::default()
        };
        assert_eq!(
            Renderer::PLAIN.location(&odd),
            "instruction in function ?, block %4"
        );
        assert_eq!(
            Renderer::PLAIN.location_json(&odd),
            serde_json::json!({"block": 4})
        );
    }

    #[test]
    fn failures_and_groups() {
        let ds = [
            Diagnostic::error(Some(at()), "first"),
            Diagnostic::error(None, "second"),
        ];
        let r = Renderer::PLAIN;
        assert_eq!(
            r.failure(Some("2 problem(s)"), &ds),
            "2 problem(s): OpLoad %12 in function %7, block %9: first; second"
        );
        assert_eq!(r.failure(None, &ds[1..]), "second");
        assert_eq!(r.failure(Some("alone"), &[]), "alone");
        let j = r.failure_json("legalize", Some("2 problem(s)"), &ds[0]);
        assert_eq!(j["pass"], "legalize");
        assert_eq!(j["summary"], "2 problem(s)");
        assert_eq!(j["message"], "first");
        assert_eq!(
            r.group_line("p", "m", 3, Some(&at())),
            "p: 3 x m (first at OpLoad %12 in function %7, block %9)"
        );
        assert_eq!(r.group_line("p", "m", 1, None), "p: m");
        let g = r.group_json("p", "m", 3, Some(&at()));
        assert_eq!(g["message"], "3 x m");
        assert_eq!(g["count"], 3);
        let s = r.group_stats_json("m", 2, None);
        assert_eq!(s["first_location"], "");
        assert!(s.get("first_at").is_none());
    }
}
