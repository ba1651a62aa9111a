//! A small FileCheck: `; CHECK:`, `; CHECK-NEXT:`, `; CHECK-NOT:`, `; CHECK-DAG:` lines matched
//! against text, substring matching with `{{regex-free}}` plain patterns. Enough for pass
//! fixtures in the style of LLVM/spirv-opt tests.

/// One check directive.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Check {
    /// Pattern on some later line.
    Plain(String),
    /// Pattern on the line right after the previous match.
    Next(String),
    /// Pattern on no line between the previous match and the next one.
    Not(String),
    /// Pattern anywhere after the previous ordered match (order among DAGs free).
    Dag(String),
}

/// Extracts the check directives of a fixture.
pub fn parse_checks(source: &str) -> Vec<Check> {
    check_lines(source).into_iter().map(|(_, c)| c).collect()
}

/// The check directives of `source` with the index of the source line each is on.
fn check_lines(source: &str) -> Vec<(usize, Check)> {
    let mut out = Vec::new();
    for (n, line) in source.lines().enumerate() {
        let t = line.trim_start();
        let Some(rest) = t.strip_prefix(';') else {
            continue;
        };
        let rest = rest.trim_start();
        let (kind, pat) = if let Some(p) = rest.strip_prefix("CHECK-NEXT:") {
            ("next", p)
        } else if let Some(p) = rest.strip_prefix("CHECK-NOT:") {
            ("not", p)
        } else if let Some(p) = rest.strip_prefix("CHECK-DAG:") {
            ("dag", p)
        } else if let Some(p) = rest.strip_prefix("CHECK:") {
            ("plain", p)
        } else {
            continue;
        };
        let pat = pat.trim().to_string();
        out.push((
            n,
            match kind {
                "next" => Check::Next(pat),
                "not" => Check::Not(pat),
                "dag" => Check::Dag(pat),
                _ => Check::Plain(pat),
            },
        ));
    }
    out
}

fn normalize(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn line_matches(line: &str, pat: &str) -> bool {
    normalize(line).contains(&normalize(pat))
}

/// The matching state between directives, shared by [`run_checks`] and [`bless_checks`].
struct Matcher<'a> {
    lines: Vec<&'a str>,
    /// Next line a CHECK / CHECK-DAG searches from.
    pos: usize,
    /// Line of the last positive match (CHECK-NEXT's anchor).
    last_match: Option<usize>,
    /// CHECK-NOTs waiting for the next CHECK / CHECK-DAG: (index of the check, pattern).
    pending_not: Vec<(usize, &'a str)>,
    /// Lines the CHECK-DAGs since the last CHECK matched.
    dag_used: Vec<usize>,
}

impl<'a> Matcher<'a> {
    fn new(text: &'a str) -> Matcher<'a> {
        Matcher {
            lines: text.lines().collect(),
            pos: 0,
            last_match: None,
            pending_not: Vec::new(),
            dag_used: Vec::new(),
        }
    }

    /// The first line at or after the search start of positive check `c` (CHECK-NEXT: the
    /// line after the last match) for which `ok` holds; `Err` when CHECK-NEXT has no anchor.
    fn first_line(&self, c: &Check, ok: impl Fn(&str) -> bool) -> Result<Option<usize>, String> {
        if let Check::Next(_) = c {
            let Some(l) = self.last_match else {
                return Err("CHECK-NEXT without a previous CHECK".into());
            };
            return Ok((l + 1..self.lines.len()).find(|&i| ok(self.lines[i])));
        }
        let is_dag = matches!(c, Check::Dag(_));
        Ok((self.pos..self.lines.len())
            .find(|&i| ok(self.lines[i]) && !(is_dag && self.dag_used.contains(&i))))
    }

    /// The line positive check `c` matches, or why it matches none.
    fn find(&self, c: &Check) -> Result<usize, String> {
        match c {
            Check::Plain(p) | Check::Dag(p) => self
                .first_line(c, |l| line_matches(l, p))?
                .ok_or_else(|| format!("CHECK: \"{p}\" not found after line {}", self.pos)),
            Check::Next(p) => {
                let l = self
                    .last_match
                    .ok_or("CHECK-NEXT without a previous CHECK")?;
                let i = l + 1;
                if i >= self.lines.len() || !line_matches(self.lines[i], p) {
                    return Err(format!(
                        "CHECK-NEXT: \"{p}\" not on line {i} (found: {})",
                        self.lines.get(i).unwrap_or(&"<end>")
                    ));
                }
                Ok(i)
            }
            Check::Not(_) => unreachable!("CHECK-NOT has no line of its own"),
        }
    }

    /// The pending CHECK-NOTs found on a line of `range`: (index of the check, line).
    fn violations(&self, range: std::ops::Range<usize>) -> Vec<(usize, usize)> {
        self.pending_not
            .iter()
            .filter_map(|&(k, n)| {
                range
                    .clone()
                    .find(|&j| line_matches(self.lines[j], n))
                    .map(|j| (k, j))
            })
            .collect()
    }

    /// Takes the match of positive check `c` on line `i`; returns the CHECK-NOTs it closes
    /// that were violated (a CHECK-NEXT closes none: they wait for the next CHECK).
    fn advance(&mut self, c: &Check, i: usize) -> Vec<(usize, usize)> {
        let mut found = Vec::new();
        match c {
            Check::Next(_) => self.pos = i + 1,
            Check::Dag(_) | Check::Plain(_) => {
                found = self.violations(self.pos..i);
                self.pending_not.clear();
                if matches!(c, Check::Dag(_)) {
                    self.dag_used.push(i);
                } else {
                    self.pos = i + 1;
                    self.dag_used.clear();
                }
            }
            Check::Not(_) => unreachable!("CHECK-NOT has no line of its own"),
        }
        self.last_match = Some(i);
        found
    }

    /// The CHECK-NOTs after the last positive check that were violated.
    fn end(&self) -> Vec<(usize, usize)> {
        self.violations(self.pos..self.lines.len())
    }

    fn not_message(&self, checks: &[Check], (k, j): (usize, usize)) -> String {
        let Check::Not(n) = &checks[k] else {
            unreachable!("violations are CHECK-NOTs")
        };
        format!("CHECK-NOT: \"{n}\" found on line {j}: {}", self.lines[j])
    }
}

/// Runs `checks` over `text`; `Err` explains the first failing directive.
pub fn run_checks(checks: &[Check], text: &str) -> Result<(), String> {
    let mut m = Matcher::new(text);
    for (k, c) in checks.iter().enumerate() {
        if let Check::Not(p) = c {
            m.pending_not.push((k, p));
            continue;
        }
        let i = m.find(c)?;
        if let Some(&v) = m.advance(c, i).first() {
            return Err(m.not_message(checks, v));
        }
    }
    match m.end().first() {
        Some(&v) => Err(m.not_message(checks, v)),
        None => Ok(()),
    }
}

/// What blessing does to one check line.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Edit {
    Keep,
    /// New directive (`CHECK`, `CHECK-NEXT`, `CHECK-DAG`) and pattern.
    Replace(&'static str, String),
    Delete,
}

/// The token of `pattern` a replacement line must have: its first `Op…` word (the opcode),
/// else its first word.
fn bless_key(pattern: &str) -> &str {
    let mut words = pattern.split_whitespace();
    let first = words.clone().next().unwrap_or("");
    words.find(|w| w.starts_with("Op")).unwrap_or(first)
}

/// Rewrites the check lines of `source` so that they pass on `text` (the output), when they
/// do not; `Ok(None)` when they already pass (the fixture is left alone). The scheme, one
/// pass over the checks in order with the matcher of [`run_checks`]:
/// - a CHECK / CHECK-NEXT / CHECK-DAG that matches is kept as written;
/// - one that fails is replaced by the first output line at or after where it searched (a
///   CHECK-NEXT: after the previous match) having the check's key, its first `Op…` word (else
///   its first word), as a word (a non-`Op` key: anywhere in the line). The new pattern is that
///   whole line, whitespace-normalised; the directive stays, except that a CHECK-NEXT whose
///   line is not the next one becomes a CHECK. With no such line the check line is deleted
///   (the instruction is gone);
/// - a CHECK-NOT whose text is now found is deleted;
/// - every other line (comments, `RUN`, `TARGET`, the module) is kept byte for byte.
///
/// Rewriting is repeated (at most three rounds) until the checks pass; `Err` if they still
/// do not, or if a fixture without checks would need them.
pub fn bless_checks(source: &str, text: &str) -> Result<Option<String>, String> {
    if run_checks(&parse_checks(source), text).is_ok() {
        return Ok(None);
    }
    let mut current = source.to_string();
    for _ in 0..3 {
        current = bless_round(&current, text);
        if run_checks(&parse_checks(&current), text).is_ok() {
            return Ok(Some(current));
        }
    }
    Err(format!(
        "blessing could not make the checks pass: {}",
        run_checks(&parse_checks(&current), text).unwrap_err()
    ))
}

/// One round of [`bless_checks`]' rewriting.
fn bless_round(source: &str, text: &str) -> String {
    let located = check_lines(source);
    let checks: Vec<Check> = located.iter().map(|(_, c)| c.clone()).collect();
    let mut edits = vec![Edit::Keep; checks.len()];
    let mut m = Matcher::new(text);
    for (k, c) in checks.iter().enumerate() {
        let (directive, pattern) = match c {
            Check::Not(p) => {
                m.pending_not.push((k, p));
                continue;
            }
            Check::Plain(p) => ("CHECK", p),
            Check::Next(p) => ("CHECK-NEXT", p),
            Check::Dag(p) => ("CHECK-DAG", p),
        };
        let (taken, i) = match m.find(c) {
            Ok(i) => (c.clone(), i),
            Err(_) => {
                let key = bless_key(pattern);
                let has_key = |l: &str| {
                    l.split_whitespace().any(|w| w == key)
                        || (!key.starts_with("Op") && l.contains(key))
                };
                let Ok(Some(i)) = m.first_line(c, has_key) else {
                    edits[k] = Edit::Delete;
                    continue;
                };
                let line = normalize(m.lines[i]);
                let directive = match c {
                    Check::Next(_) if Some(i) != m.last_match.map(|l| l + 1) => "CHECK",
                    _ => directive,
                };
                edits[k] = Edit::Replace(directive, line.clone());
                let taken = match directive {
                    "CHECK-NEXT" => Check::Next(line),
                    "CHECK-DAG" => Check::Dag(line),
                    _ => Check::Plain(line),
                };
                (taken, i)
            }
        };
        for (kn, _) in m.advance(&taken, i) {
            edits[kn] = Edit::Delete;
        }
    }
    for (kn, _) in m.end() {
        edits[kn] = Edit::Delete;
    }
    let edit_of_line: std::collections::HashMap<usize, &Edit> = located
        .iter()
        .zip(&edits)
        .map(|((n, _), e)| (*n, e))
        .collect();
    let mut out = String::with_capacity(source.len());
    for (n, line) in source.split_inclusive('\n').enumerate() {
        match edit_of_line.get(&n) {
            None | Some(Edit::Keep) => out.push_str(line),
            Some(Edit::Delete) => {}
            Some(Edit::Replace(directive, pattern)) => {
                let indent = &line[..line.len() - line.trim_start().len()];
                let ending = &line[line.trim_end_matches(['\n', '\r']).len()..];
                out.push_str(&format!("{indent}; {directive}: {pattern}{ending}"));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checks_match_in_order() {
        let text = "a\nb x\nc\nd\n";
        let ok = parse_checks("; CHECK: b\n; CHECK-NEXT: c\n; CHECK-NOT: a\n; CHECK: d");
        assert_eq!(run_checks(&ok, text), Ok(()));
        let bad = parse_checks("; CHECK: c\n; CHECK: b");
        assert!(run_checks(&bad, text).is_err());
        let not = parse_checks("; CHECK: a\n; CHECK-NOT: c\n; CHECK: d");
        assert!(run_checks(&not, text).is_err());
        let next = parse_checks("; CHECK: a\n; CHECK-NEXT: c");
        assert!(run_checks(&next, text).is_err());
    }

    const OUTPUT: &str =
        "%a = OpLoad %u %p\n%b = OpIAdd %u %a %a\n%c = OpIMul %u %b %b\nOpStore %p %c\nOpReturn\n";

    #[test]
    fn passing_checks_are_not_blessed() {
        let src = "; RUN: dce\n; CHECK: OpIAdd\n; CHECK-NEXT: OpIMul\n; CHECK-NOT: OpISub\nOpNop\n";
        assert_eq!(bless_checks(src, OUTPUT), Ok(None));
    }

    /// `src` blessed against `OUTPUT`; the blessed checks must pass.
    fn blessed(src: &str) -> String {
        let b = bless_checks(src, OUTPUT)
            .unwrap()
            .expect("the checks failed before");
        assert_eq!(run_checks(&parse_checks(&b), OUTPUT), Ok(()), "{b}");
        b
    }

    #[test]
    fn bless_rules() {
        // (rule, fixture, blessed fixture)
        let cases = [
            (
                "a wrong CHECK becomes the line with its opcode; every other line stays",
                "; comment\n; RUN: dce\n  ; CHECK: OpLoad\n; CHECK: %b = OpIAdd %u %x %x\n; CHECK: OpStore\nOpNop\n",
                "; comment\n; RUN: dce\n  ; CHECK: OpLoad\n; CHECK: %b = OpIAdd %u %a %a\n; CHECK: OpStore\nOpNop\n",
            ),
            (
                "a CHECK-NEXT whose opcode moved down becomes a CHECK; a violated CHECK-NOT and a \
                 check whose opcode is gone are deleted; CRLF endings stay",
                "; CHECK: OpLoad\r\n; CHECK-NEXT: OpIMul %u %b %b\r\n; CHECK-NOT: OpStore\r\n; CHECK: OpFMul\r\n; CHECK: OpReturn\r\n",
                "; CHECK: OpLoad\r\n; CHECK: %c = OpIMul %u %b %b\r\n; CHECK: OpReturn\r\n",
            ),
            (
                "a CHECK-DAG searches from the last CHECK, skipping lines other DAGs took",
                "; CHECK-DAG: OpIMul\n; CHECK-DAG: %b = OpIAdd %u %z\n; CHECK: OpStore\n",
                "; CHECK-DAG: OpIMul\n; CHECK-DAG: %b = OpIAdd %u %a %a\n; CHECK: OpStore\n",
            ),
        ];
        for (rule, src, want) in cases {
            assert_eq!(blessed(src), want, "{rule}");
        }
    }
}
