//! Whole-output snapshots (`insta`) of `spv-opt`: the disassembly after a pass or pipeline on
//! corpus kernels, the `-v` report of `-O`, and the text of the command-line errors. The
//! snapshots are committed under `tools/tests/snapshots/`; a difference fails the test.
//!
//! A missing or different snapshot fails: locally insta writes the new output beside it as
//! `*.snap.new` (review, then rename it, or rerun with `INSTA_UPDATE=always` to accept), and
//! with `CI` set (as `.ci/run` runs) it writes nothing.
//!
//! Every command runs in the repository root with relative paths, so the output names the same
//! files on every machine.

use crate::common;

use std::path::Path;
use std::process::Output;

use common::spv_opt;

/// Runs spv-opt with `args` in the repository root.
fn run(args: &[&str]) -> Output {
    spv_opt()
        .args(args)
        .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join(".."))
        .output()
        .unwrap()
}

/// stdout of a run that must succeed.
fn stdout_of(args: &[&str]) -> String {
    let o = run(args);
    assert!(
        o.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout).unwrap()
}

/// Snapshot settings: the command line in the header, no source-line noise.
fn settings(args: &[&str]) -> insta::Settings {
    let mut s = insta::Settings::clone_current();
    s.set_description(format!("spv-opt {}", args.join(" ")));
    s.set_omit_expression(true);
    s.set_prepend_module_to_snapshot(false);
    s
}

/// Snapshot `name`: the disassembly spv-opt writes after `passes` on corpus `kernel`.
fn disassembly(name: &str, passes: &[&str], kernel: &str) {
    let mut args = passes.to_vec();
    args.extend(["--emit-text", "-o", "-", kernel]);
    settings(&args).bind(|| {
        insta::assert_snapshot!(name, stdout_of(&args));
    });
}

#[test]
fn disassembly_after_o_on_softmax() {
    disassembly(
        "o_pvc_softmax_sg16",
        &["-O", "--target", "pvc"],
        "tests/corpus/triton/softmax_fp32_1024_w4_sg16__pvc.spv",
    );
}

#[test]
fn disassembly_after_lower_builtins_on_a_native_gemm() {
    disassembly(
        "lower_builtins_gemm_8x512x64",
        &["--lower-builtins"],
        "tests/corpus/triton/native/gemm_fp16_blockptr_8x512x64_w32__pvc.spv",
    );
}

#[test]
fn disassembly_after_strip_debug_and_dce_on_a_gemm() {
    disassembly(
        "strip_debug_dce_gemm_8x512x64",
        &["--strip-debug", "--dce"],
        "tests/corpus/triton/gemm_fp16_blockptr_8x512x64_w32__pvc.spv",
    );
}

#[test]
fn verbose_report_of_o() {
    let d = common::tmpdir("snapshot-v");
    let out = d.join("out.spv");
    let out_s = out.to_string_lossy().into_owned();
    let args = [
        "-O",
        "--target",
        "pvc",
        "-v",
        "tests/corpus/triton/gemm_fp16_blockptr_128x128x32_w8__pvc.spv",
        "-o",
        &out_s,
    ];
    let o = run(&args);
    assert!(o.status.success());
    let text = String::from_utf8_lossy(&o.stderr).replace(&out_s, "OUT.spv");
    let shown: Vec<&str> = args
        .iter()
        .map(|a| if *a == out_s { "OUT.spv" } else { a })
        .collect();
    settings(&shown).bind(|| {
        insta::assert_snapshot!("verbose_o_pvc_gemm", text);
    });
}

#[test]
fn error_messages() {
    let cases: &[&[&str]] = &[
        &[],
        &["--no-such-flag", "x.spv"],
        &[
            "--target",
            "nosuch",
            "tests/corpus/triton/softmax_fp32_1024_w4_sg16__pvc.spv",
        ],
        &["--dce", "does/not/exist.spv", "-o", "-"],
        &["--dce", "tests/corpus/README.md", "-o", "-"],
        &[
            "--passes=dce,nosuch",
            "tests/corpus/triton/softmax_fp32_1024_w4_sg16__pvc.spv",
            "-o",
            "-",
        ],
        &[
            "--max-changes=lots",
            "tests/corpus/triton/softmax_fp32_1024_w4_sg16__pvc.spv",
        ],
        &[
            "--print-analysis",
            "nonsense",
            "tests/corpus/triton/softmax_fp32_1024_w4_sg16__pvc.spv",
        ],
        &["a.spv", "b.spv"],
    ];
    let mut text = String::new();
    for args in cases {
        let o = run(args);
        text.push_str(&format!(
            "$ spv-opt {}\nexit {}\n{}\n",
            args.join(" "),
            o.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&o.stderr)
        ));
    }
    settings(&["(each case below)"]).bind(|| {
        insta::assert_snapshot!("error_messages", text);
    });
}
