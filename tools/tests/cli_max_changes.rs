//! `spv-opt --max-changes=N` and the `max-changes` pipeline option: every pass stops after N
//! rewrites, the count shows in `-v` and `--stats`, bad values are one-line errors.

use crate::common;
use common::{corpus, spv_opt, stderr, tmpdir};

const GEMM: &str = "triton/gemm_fp16_blockptr_128x128x32_w8__pvc.spv";

/// `changes` of each pass in a `--stats` file.
fn changes(stats: &std::path::Path) -> Vec<(String, u64)> {
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(stats).unwrap()).unwrap();
    v["passes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["name"].as_str().unwrap().to_string(),
                p["changes"].as_u64().unwrap(),
            )
        })
        .collect()
}

/// `spv-opt ARGS GEMM -o out --stats stats`.
fn opt(args: &[&str], out: &std::path::Path, stats: &std::path::Path) -> std::process::Output {
    let o = spv_opt()
        .args(args)
        .arg(corpus(GEMM))
        .arg("-o")
        .arg(out)
        .arg("--stats")
        .arg(stats)
        .output()
        .unwrap();
    assert!(o.status.success(), "{args:?}: {}", stderr(&o));
    o
}

#[test]
fn max_changes_limits_every_pass_and_is_reported() {
    let d = tmpdir("max-changes");
    let input = corpus(GEMM);
    let (out, stats) = (d.join("out.spv"), d.join("stats.json"));
    // Unlimited: how many rewrites each pass of -O makes.
    let o = opt(&["-O", "--target", "pvc", "-v"], &out, &stats);
    let full = changes(&stats);
    assert!(
        full.iter().any(|(n, c)| n == "raise-builtins" && *c > 2),
        "{full:?}"
    );
    assert!(stderr(&o).contains(" changes"), "{}", stderr(&o));
    // --max-changes=0: nothing changes, byte for byte.
    opt(&["-O", "--target", "pvc", "--max-changes=0"], &out, &stats);
    assert_eq!(std::fs::read(&out).unwrap(), std::fs::read(&input).unwrap());
    assert!(changes(&stats).iter().all(|(_, c)| *c == 0));
    // --max-changes=2: every pass makes at most 2, exactly min(2, unlimited) on the same input
    // for the first pass.
    opt(&["-O", "--target", "pvc", "--max-changes=2"], &out, &stats);
    let limited = changes(&stats);
    assert!(limited.iter().all(|(_, c)| *c <= 2), "{limited:?}");
    assert_eq!(limited[0], (full[0].0.clone(), full[0].1.min(2)));
    // One pass only, in a pipeline string.
    opt(
        &["--passes=raise-builtins(max-changes=3),dce"],
        &out,
        &stats,
    );
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&stats).unwrap()).unwrap();
    assert_eq!(v["passes"][0]["changes"], 3);
    assert_eq!(v["passes"][0]["max_changes"], 3);
    assert!(v["passes"][1].get("max_changes").is_none());
}

#[test]
fn bad_max_changes_is_a_one_line_error() {
    let d = tmpdir("max-changes-bad");
    let out = d.join("out.spv");
    for args in [
        vec!["--dce", "--max-changes=many"],
        vec!["--dce", "--max-changes"],
        vec!["--passes=dce(max-changes=-1)"],
    ] {
        let o = spv_opt()
            .args(&args)
            .arg(corpus(GEMM))
            .arg("-o")
            .arg(&out)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(1), "{args:?}");
        let e = stderr(&o);
        assert_eq!(e.lines().count(), 1, "{args:?}: {e}");
        assert!(e.contains("max-changes"), "{e}");
        assert!(!out.exists());
    }
}
