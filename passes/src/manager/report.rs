//! What a run did: one [`PassRecord`] per pass (statistics, time, instruction counts, warnings)
//! and the [`RunReport`] of the pipeline, with the renderings the CLI and the C API print
//! (summary lines, grouped warnings, per-pass times). Warnings are rendered by
//! [`crate::diagnostic::render`], as everything a person reads about a diagnostic.

use std::time::Duration;

use crate::diagnostic::render::{self, Renderer};
use crate::diagnostic::{Diagnostic, Location};
use crate::pass::Statistics;
use crate::registry::{PassInfo, PassOptions};

/// What one pass did in a run.
#[derive(Clone, Debug)]
pub struct PassRecord {
    pub name: &'static str,
    /// The pass that ran and its options (without `max-changes`): enough to run it again.
    pub info: &'static PassInfo,
    pub options: PassOptions,
    pub changed: bool,
    /// Rewrites the pass made (see [`crate::pass::Changes`]).
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
            match index.get(w.message.as_str()) {
                Some(&g) => groups[g].count += 1,
                None => {
                    index.insert(&w.message, groups.len());
                    groups.push(WarningGroup {
                        pass: self.name,
                        message: w.message.clone(),
                        count: 1,
                        first_location: w
                            .at
                            .as_ref()
                            .map(|at| Renderer::PLAIN.location(at))
                            .unwrap_or_default(),
                        first_at: w.at.clone(),
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
        if !self.stats.counters.is_empty() {
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
    /// Location of the first occurrence, as text (empty when the warnings carry none):
    /// `first_at` as the renderer writes it (kept for the `--stats` JSON key of that name).
    pub first_location: String,
    /// Location of the first occurrence.
    pub first_at: Option<Location>,
}

impl WarningGroup {
    /// The group as one line: the message, with the count and first location when repeated.
    pub fn line(&self) -> String {
        self.line_with(&Renderer::PLAIN)
    }

    /// [`WarningGroup::line`] with ids shown as `r` shows them (e.g. with their names).
    pub fn line_with(&self, r: &Renderer<'_>) -> String {
        r.group_line(self.pass, &self.message, self.count, self.first_at.as_ref())
    }

    /// The group as one diagnostic (JSON, the C API): the message with the count when repeated,
    /// at the first location.
    pub fn diagnostic(&self) -> Diagnostic {
        render::group_diagnostic(&self.message, self.count, self.first_at.as_ref())
    }

    /// The group as one `--diagnostics-format json` object: [`WarningGroup::diagnostic`] with
    /// `pass` and `count`.
    pub fn to_json(&self, r: &Renderer<'_>) -> serde_json::Value {
        r.group_json(self.pass, &self.message, self.count, self.first_at.as_ref())
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
                    .counters
                    .iter()
                    .map(|(k, v)| (k.to_string(), serde_json::Value::from(*v)))
                    .collect();
                let warnings: Vec<serde_json::Value> = p
                    .warning_groups()
                    .into_iter()
                    .map(|g| {
                        Renderer::PLAIN.group_stats_json(&g.message, g.count, g.first_at.as_ref())
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

#[cfg(test)]
mod tests {
    use super::*;
    use spvopt_ir::Id;

    /// `first_location` (a published field and `--stats` key) is `first_at` as the renderer
    /// writes it; the line, the JSON and the diagnostic of a group come from the same values.
    #[test]
    fn groups_render_from_their_first_location() {
        let at = Location {
            opcode: Some("OpLoad".into()),
            result: Id::new(12),
            function: Id::new(7),
            block: Id::new(9),
        };
        let mut stats = Statistics::default();
        stats.warn_at(at.clone(), "slow".into());
        stats.warn("slow".into());
        stats.warn("odd".into());
        let record = PassRecord {
            name: "dce",
            info: crate::registry::lookup("dce").expect("dce is registered"),
            options: PassOptions::new(),
            changed: false,
            changes: 0,
            max_changes: None,
            stats,
            duration: Duration::ZERO,
            instructions_before: 1,
            instructions_after: 1,
            implicit: None,
            undone: false,
        };
        let groups = record.warning_groups();
        assert_eq!(groups.len(), 2);
        let g = &groups[0];
        assert_eq!(g.count, 2);
        assert_eq!(g.first_at.as_ref(), Some(&at));
        assert_eq!(g.first_location, Renderer::PLAIN.location(&at));
        assert_eq!(g.first_location, "OpLoad %12 in function %7, block %9");
        assert_eq!(
            g.line(),
            "dce: 2 x slow (first at OpLoad %12 in function %7, block %9)"
        );
        assert_eq!(groups[1].first_location, "");
        assert_eq!(groups[1].line(), "dce: odd");
        let json = RunReport {
            instructions_before: 1,
            passes: vec![record],
        }
        .to_json();
        let w = &json["passes"][0]["warnings"][0];
        assert_eq!(w["first_location"], g.first_location.as_str());
        assert_eq!(w["first_at"], at.to_json());
        assert_eq!(w["count"], 2);
        assert_eq!(g.diagnostic().message, "2 x slow");
        assert_eq!(g.to_json(&Renderer::PLAIN)["pass"], "dce");
    }
}
