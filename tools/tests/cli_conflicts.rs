//! Flags a mode would ignore are one-line errors before the input is read (issue 42 item 5):
//! `--check-env` and `--print-analysis` run no pass and write no module, and a pass option's
//! value is checked when the command line is, not after the input was read and validated.
//! Every case names an input that does not exist: the error must be the flag's, not the file's.

use crate::common::{spv_opt, stderr, tmpdir};

#[test]
fn flags_a_mode_ignores_are_refused_before_the_input_is_read() {
    let d = tmpdir("conflicts");
    let missing = d.join("missing.spv");
    let out = d.join("out.spv");
    let (missing, out) = (missing.to_str().unwrap(), out.to_str().unwrap());
    let cases: [(&[&str], &str); 9] = [
        (
            &["--check-env", "-O"],
            "--check-env runs no pass and writes no module: -O would be ignored",
        ),
        (&["--check-env", "-o", out], "-o "),
        (&["--check-env", "--dce"], "--dce would be ignored"),
        (
            &["--check-env", "--stats", "s.json"],
            "--stats would be ignored",
        ),
        (
            &["--print-analysis", "loops", "-o", out],
            "--print-analysis runs no pass and writes no module: -o ",
        ),
        (
            &["--print-analysis", "loops", "--passes=dce"],
            "dce would be ignored",
        ),
        (
            &["--print-analysis", "loops", "--prefetch-distance=2"],
            "--prefetch-distance would be ignored",
        ),
        (
            &["--check-env", "--print-analysis", "cfg"],
            "--check-env and --print-analysis: give one of them",
        ),
        (
            &["-O", "--prefetch-distance=99", "-o", out],
            "prefetch-distance: expected an integer in 1..=16, got \"99\"",
        ),
    ];
    for (args, want) in cases {
        let o = spv_opt().args(args).arg(missing).output().unwrap();
        let e = stderr(&o);
        assert_eq!(o.status.code(), Some(1), "{args:?}: {e}");
        assert!(
            e.starts_with("spv-opt: error: ") && e.contains(want) && e.lines().count() == 1,
            "{args:?}: {e}"
        );
        assert!(!e.contains("missing.spv"), "{args:?} read the input: {e}");
    }
    assert!(!d.join("out.spv").exists());
}

#[test]
fn modes_alone_still_work() {
    let k = crate::common::corpus("triton/native/gemm_fp16_blockptr_128x128x32_w8__pvc.spv");
    for args in [&["--check-env"][..], &["--print-analysis", "loops"]] {
        let o = spv_opt().args(args).arg(&k).output().unwrap();
        assert_eq!(o.status.code(), Some(0), "{args:?}: {}", stderr(&o));
    }
}
