//! Fixture tests: every `tests/fixtures/<analysis>/*.spvasm` is assembled (numeric ids kept),
//! annotated with `<analysis>` (the directory name) and matched against its `; CHECK:` lines,
//! FileCheck style: each `; CHECK: text` must occur in a later output line than the previous
//! match (the text is a plain substring), and each `; CHECK-NOT: text` must not occur between
//! the previous match and the next one (or the end); `; CHECK-LINE: text` is a `CHECK` that
//! must match a whole output line exactly (after trimming), so it also says what a line does
//! *not* carry. Set `FIXTURE_DUMP=1` to print outputs.

use std::path::{Path, PathBuf};

use spvopt_analysis::print::annotate;
use spvopt_analysis::Analyses;

enum Directive {
    Check(String),
    CheckLine(String),
    CheckNot(String),
}

fn directives(text: &str) -> Vec<Directive> {
    text.lines()
        .filter_map(|l| {
            let l = l.trim_start();
            if let Some(rest) = l.strip_prefix("; CHECK-NOT:") {
                Some(Directive::CheckNot(rest.trim().to_string()))
            } else if let Some(rest) = l.strip_prefix("; CHECK-LINE:") {
                Some(Directive::CheckLine(rest.trim().to_string()))
            } else {
                l.strip_prefix("; CHECK:")
                    .map(|rest| Directive::Check(rest.trim().to_string()))
            }
        })
        .collect()
}

/// Matches `output` against `dirs`; returns a description of the first failure.
fn check(output: &str, dirs: &[Directive]) -> Result<(), String> {
    let lines: Vec<&str> = output.lines().collect();
    let mut pos = 0usize; // first line the next CHECK may match
    let mut pending_not: Vec<&str> = Vec::new();
    for d in dirs {
        match d {
            Directive::CheckNot(p) => pending_not.push(p),
            Directive::Check(p) | Directive::CheckLine(p) => {
                let exact = matches!(d, Directive::CheckLine(_));
                let found = lines[pos..].iter().position(|l| {
                    if exact {
                        l.trim() == p.as_str()
                    } else {
                        l.contains(p.as_str())
                    }
                });
                let Some(k) = found else {
                    return Err(format!("CHECK not found after line {pos}: {p}"));
                };
                let at = pos + k;
                for n in pending_not.drain(..) {
                    if let Some(bad) = lines[pos..at].iter().find(|l| l.contains(n)) {
                        return Err(format!("CHECK-NOT {n:?} matched: {bad}"));
                    }
                }
                pos = at + 1;
            }
        }
    }
    for n in pending_not {
        if let Some(bad) = lines[pos..].iter().find(|l| l.contains(n)) {
            return Err(format!("CHECK-NOT {n:?} matched: {bad}"));
        }
    }
    Ok(())
}

fn fixture_files() -> Vec<(String, PathBuf)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut out = Vec::new();
    let Ok(dirs) = std::fs::read_dir(&root) else {
        return out;
    };
    for d in dirs.flatten() {
        let analysis = d.file_name().to_string_lossy().to_string();
        let Ok(files) = std::fs::read_dir(d.path()) else {
            continue;
        };
        for f in files.flatten() {
            let p = f.path();
            if p.extension().is_some_and(|x| x == "spvasm") {
                out.push((analysis.clone(), p));
            }
        }
    }
    out.sort();
    out
}

/// Assembles a fixture into a module.
pub fn assemble(text: &str) -> spvopt_ir::Module {
    let words = spvopt_ir::text::assemble(text, spvopt_ir::text::TargetEnv::Universal_1_6)
        .unwrap_or_else(|e| panic!("fixture does not assemble: {e}"));
    spvopt_ir::load_words(&words).unwrap_or_else(|e| panic!("fixture does not load: {e}"))
}

#[test]
fn fixtures_match_their_checks() {
    let files = fixture_files();
    assert!(!files.is_empty(), "no fixtures found");
    let dump = std::env::var("FIXTURE_DUMP").is_ok();
    let mut failures = Vec::new();
    for (analysis, path) in &files {
        let text = std::fs::read_to_string(path).expect("read fixture");
        let dirs = directives(&text);
        assert!(!dirs.is_empty(), "{}: no CHECK lines", path.display());
        let m = assemble(&text);
        let mut a = Analyses::new();
        let out = annotate(&m, analysis, &mut a).expect("known analysis name");
        if dump {
            println!("==== {} ({analysis})\n{out}", path.display());
        }
        if let Err(e) = check(&out, &dirs) {
            failures.push(format!("{}: {e}", path.display()));
        }
    }
    assert!(
        failures.is_empty(),
        "fixture failures:\n{}",
        failures.join("\n")
    );
}

#[test]
fn unknown_analysis_is_an_error() {
    let m =
        assemble("OpCapability Kernel\nOpCapability Addresses\nOpMemoryModel Physical64 OpenCL\n");
    let mut a = Analyses::new();
    assert!(annotate(&m, "nonsense", &mut a).is_err());
}
