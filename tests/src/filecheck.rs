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
    let mut out = Vec::new();
    for line in source.lines() {
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
        out.push(match kind {
            "next" => Check::Next(pat),
            "not" => Check::Not(pat),
            "dag" => Check::Dag(pat),
            _ => Check::Plain(pat),
        });
    }
    out
}

fn normalize(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn line_matches(line: &str, pat: &str) -> bool {
    normalize(line).contains(&normalize(pat))
}

/// Runs `checks` over `text`; `Err` explains the first failing directive.
pub fn run_checks(checks: &[Check], text: &str) -> Result<(), String> {
    let lines: Vec<&str> = text.lines().collect();
    let mut pos = 0usize; // next line to search from
    let mut last_match: Option<usize> = None;
    let mut pending_not: Vec<&str> = Vec::new();
    let mut dag_used: Vec<usize> = Vec::new();
    for c in checks {
        match c {
            Check::Not(p) => pending_not.push(p),
            Check::Plain(p) | Check::Dag(p) => {
                let is_dag = matches!(c, Check::Dag(_));
                let found = (pos..lines.len())
                    .find(|&i| line_matches(lines[i], p) && !(is_dag && dag_used.contains(&i)));
                let Some(i) = found else {
                    return Err(format!("CHECK: \"{p}\" not found after line {pos}"));
                };
                for n in &pending_not {
                    if let Some(j) = (pos..i).find(|&j| line_matches(lines[j], n)) {
                        return Err(format!(
                            "CHECK-NOT: \"{n}\" found on line {j}: {}",
                            lines[j]
                        ));
                    }
                }
                pending_not.clear();
                if is_dag {
                    dag_used.push(i);
                } else {
                    pos = i + 1;
                    dag_used.clear();
                }
                last_match = Some(i);
            }
            Check::Next(p) => {
                let Some(l) = last_match else {
                    return Err("CHECK-NEXT without a previous CHECK".into());
                };
                let i = l + 1;
                if i >= lines.len() || !line_matches(lines[i], p) {
                    return Err(format!(
                        "CHECK-NEXT: \"{p}\" not on line {i} (found: {})",
                        lines.get(i).unwrap_or(&"<end>")
                    ));
                }
                pos = i + 1;
                last_match = Some(i);
            }
        }
    }
    for n in &pending_not {
        if let Some(j) = (pos..lines.len()).find(|&j| line_matches(lines[j], n)) {
            return Err(format!(
                "CHECK-NOT: \"{n}\" found on line {j}: {}",
                lines[j]
            ));
        }
    }
    Ok(())
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
}
