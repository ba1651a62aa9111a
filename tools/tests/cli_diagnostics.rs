//! `spv-opt`'s pass errors and `--check-env` findings as typed diagnostics (issue 31 item 1):
//! one line of text by default, one JSON object per diagnostic with `--diagnostics-format
//! json`, both rendered from the same `Diagnostic` values (the text line is the JSON's parts
//! joined), with the input's `OpName`s on the located ids.

use std::path::{Path, PathBuf};
use std::process::Output;

use crate::common;
use common::{spv_opt, stderr, tmpdir};

/// One kernel (`my_kernel`) with one f64 MMA: no target has f64 MMAs and lower-mma cannot
/// emulate them.
fn f64_mma() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/diagnostics/f64_mma.spvasm")
}

/// spv-opt with `args` on `input` (and `-o out` when given).
fn spv_opt_on(args: &[&str], input: &Path, out: Option<&Path>) -> Output {
    let mut c = spv_opt();
    c.args(args).arg(input);
    if let Some(out) = out {
        c.arg("-o").arg(out);
    }
    c.output().unwrap()
}

/// The first JSON diagnostic whose message contains `what`.
fn with_message<'a>(lines: &'a [serde_json::Value], what: &str) -> &'a serde_json::Value {
    lines
        .iter()
        .find(|v| v["message"].as_str().is_some_and(|m| m.contains(what)))
        .unwrap_or_else(|| panic!("no {what}: {lines:?}"))
}

fn json_lines(text: &str) -> Vec<serde_json::Value> {
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|_| panic!("not JSON: {l}")))
        .collect()
}

#[test]
fn a_pass_error_is_one_line_of_text_or_one_json_diagnostic_each() {
    let d = tmpdir("diag-pass");
    let out = d.join("out.spv");
    let args = ["--lower-mma", "--skip-validation", "--target", "pvc"];
    let o = spv_opt_on(&args, &f64_mma(), Some(&out));
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let text = stderr(&o);
    assert_eq!(text.lines().count(), 1, "{text}");
    let line = text.trim_end();
    let prefix = "spv-opt: error: lower-mma: 1 MMA(s) cannot be lowered for target pvc: \
                  OpSubgroupMatrixMultiplyAccumulateINTEL %";
    assert!(line.starts_with(prefix), "{line}");
    assert!(line.contains(" (my_kernel), block %"), "{line}");
    assert!(!out.exists());

    let json_args = [&args[..], &["--diagnostics-format", "json"]].concat();
    let o = spv_opt_on(&json_args, &f64_mma(), Some(&out));
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let lines = json_lines(&stderr(&o));
    assert_eq!(lines.len(), 1, "{lines:?}");
    let v = &lines[0];
    assert_eq!(v["level"], "error");
    assert_eq!(v["pass"], "lower-mma");
    assert_eq!(v["summary"], "1 MMA(s) cannot be lowered for target pvc");
    assert_eq!(v["at"]["opcode"], "OpSubgroupMatrixMultiplyAccumulateINTEL");
    for key in ["result", "function", "block"] {
        assert!(v["at"][key].is_u64(), "{key}: {v}");
    }
    let location = v["location"].as_str().unwrap();
    assert!(location.contains("(my_kernel)"), "{v}");
    let message = v["message"].as_str().unwrap();
    assert!(
        message.contains("f64") && !message.contains("in function"),
        "{v}"
    );
    // The text line is the same diagnostic, rendered as text.
    assert_eq!(
        line,
        format!(
            "spv-opt: error: lower-mma: {}: {location}: {message}",
            v["summary"].as_str().unwrap()
        )
    );
    assert!(!out.exists());
}

#[test]
fn check_env_findings_are_located_diagnostics() {
    let d = tmpdir("diag-env");
    let input = d.join("bad.spvasm");
    let bad = "OpCapability Addresses\nOpCapability Kernel\nOpMemoryModel Physical32 OpenCL\n\
         OpEntryPoint Kernel %main \"main\"\nOpName %main \"my_kernel\"\n\
         %void = OpTypeVoid\n%int = OpTypeInt 32 1\n%fnty = OpTypeFunction %void\n\
         %main = OpFunction %void None %fnty\n%entry = OpLabel\n\
         %call = OpFunctionCall %void %main\nOpReturn\nOpFunctionEnd\n";
    // Physical32, a signed integer type, and a kernel calling itself.
    std::fs::write(&input, bad).unwrap();
    let o = spv_opt_on(&["--check-env"], &input, None);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let text = stderr(&o);
    let recursion = text
        .lines()
        .find(|l| l.contains("recursion"))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(
        recursion.contains("OpFunctionCall %") && recursion.contains(" (my_kernel), block %"),
        "{text}"
    );

    let o = spv_opt_on(&["--check-env", "--diagnostics-format=json"], &input, None);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let lines = json_lines(&stderr(&o));
    // Three findings (Physical32, Signedness 1, recursion), then the summary error.
    assert_eq!(lines.len(), 4, "{lines:?}");
    for v in &lines[..3] {
        assert_eq!(v["level"], "error", "{v}");
        assert!(v["at"]["opcode"].is_string(), "{v}");
        assert_eq!(v["file"], input.display().to_string(), "{v}");
    }
    let signed = with_message(&lines, "Signedness 1");
    assert_eq!(signed["at"]["opcode"], "OpTypeInt");
    assert!(
        signed["at"].get("function").is_none(),
        "module scope: {signed}"
    );
    let call = with_message(&lines, "recursion");
    assert_eq!(call["at"]["opcode"], "OpFunctionCall");
    assert!(
        call["location"].as_str().unwrap().contains("(my_kernel)"),
        "{call}"
    );
    assert!(
        lines[3]["message"]
            .as_str()
            .unwrap()
            .ends_with("3 Level Zero environment violation(s)"),
        "{}",
        lines[3]
    );
}
