//! `spv-ab --compiler ocloc` (issue 46, item 3): the original, A and B compiled by IGC for the
//! device of `--target`, the ISA A -> B per kernel beside spv-sim's view in the terminal, JSON
//! and HTML reports, published JSON keys unchanged (the ISA is an added `isa` key). Needs ocloc
//! for the compile test (skipped loudly without); a bad `--compiler` is a usage error, and an
//! ocloc that cannot run is an error inside the report, not a crash.

use std::process::Command;

use crate::common::{corpus, tmpdir};

const STAGED: &str = "triton/nodbg/gemm_fp16_blockptr_128x128x32_w8__pvc_no2d.spv";

fn spv_ab(args: &[&str], dir: &std::path::Path, ocloc: Option<&str>) -> std::process::Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_spv-ab"));
    c.args(args)
        .arg(corpus(STAGED))
        .arg("--json")
        .arg(dir.join("r.json"))
        .arg("--html")
        .arg(dir.join("r.html"));
    if let Some(o) = ocloc {
        c.env("SPVOPT_OCLOC", o);
    }
    c.output().unwrap()
}

const ARGS: [&str; 8] = [
    "--a",
    "strip-debug",
    "--b",
    "-O",
    "--target",
    "pvc",
    "--compiler",
    "ocloc",
];

#[test]
fn isa_deltas_of_the_raised_staged_gemm_in_every_report() {
    if spvopt_tools::igc::Ocloc::from_env().is_none() {
        eprintln!(
            "!!!!!!!! ab_igc: SKIPPED: no ocloc ($SPVOPT_OCLOC unset, none on PATH) !!!!!!!!"
        );
        return;
    }
    let d = tmpdir("ab-igc");
    let o = spv_ab(&ARGS, &d, None);
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{out}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(out.contains("-cl-intel-256-GRF-per-thread"), "{out}");
    assert!(out.contains("kloop_sends"), "{out}");
    let j: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("r.json")).unwrap()).unwrap();
    let k = &j["kernels"][0];
    for v in ["original", "a", "b"] {
        for key in ["static_stats", "sim", "error", "isa"] {
            assert!(k[v].get(key).is_some(), "{v} has no {key}: {}", k[v]);
        }
    }
    let isa = |v: &str, f: &str| {
        k[v]["isa"]["kernels"]["matmul_kernel_with_block_pointers"][f]
            .as_u64()
            .unwrap_or_else(|| panic!("{v}.{f}: {}", k[v]["isa"]))
    };
    // raise-block-io turns the SLM-staged K loop into 2D block loads: far fewer sends per step,
    // twice the dpas (the raised loop next to the kept fallback body), no SLM in the K loop.
    assert!(isa("b", "kloop_sends") * 4 < isa("a", "kloop_sends"));
    assert_eq!(isa("b", "dpas"), 2 * isa("a", "dpas"));
    assert!(isa("b", "load2d") > 0 && isa("a", "load2d") == 0);
    assert_eq!(isa("b", "spill_msgs"), 0);
    let html = std::fs::read_to_string(d.join("r.html")).unwrap();
    assert!(html.contains("class=\"igc\"") && html.contains("kloop_instructions"));
    // The summary table carries IGC's view too, and the kernel counts as changed.
    assert!(
        html.contains("<th>IGC K-loop sends A &rarr; B</th>"),
        "{html}"
    );
    let summary_kloop_sends = format!(
        "{} -&gt; {}",
        isa("a", "kloop_sends"),
        isa("b", "kloop_sends")
    );
    assert!(html.contains(&summary_kloop_sends), "{html}");
    assert!(
        out.contains("changed between A and B, or failed: 1 of 1"),
        "{out}"
    );
}

#[test]
fn bad_compiler_is_a_usage_error_and_a_missing_ocloc_is_reported() {
    let d = tmpdir("ab-igc-bad");
    let mut args = ARGS.to_vec();
    args[7] = "gcc";
    let o = spv_ab(&args, &d, None);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--compiler"));
    let o = spv_ab(&ARGS, &d, Some("/nonexistent/ocloc"));
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let j: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("r.json")).unwrap()).unwrap();
    let e = j["kernels"][0]["b"]["isa"]["error"].as_str().unwrap_or("");
    assert!(e.contains("cannot run /nonexistent/ocloc"), "{e}");
}
