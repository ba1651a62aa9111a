//! `spv-opt` flags: `--help`, `--version`, `--list-passes`, `-Oconfig` files, a flag's value as
//! the next word, and bad, unknown or conflicting flags refused with one line.

use crate::common;
use common::{corpus, spv_opt, stderr, tmpdir, SMALL_KERNEL};

#[test]
fn help_version_list() {
    let o = spv_opt().arg("--help").output().unwrap();
    assert!(o.status.success());
    assert!(String::from_utf8_lossy(&o.stdout).contains("--skip-validation"));
    let o = spv_opt().arg("--version").output().unwrap();
    assert!(o.status.success());
    assert!(String::from_utf8_lossy(&o.stdout).starts_with("spv-opt "));
    let o = spv_opt().arg("--list-passes").output().unwrap();
    let s = String::from_utf8_lossy(&o.stdout);
    assert!(s.contains("--strip-debug") && s.contains("--dce"), "{s}");
    // lower-mma emulates with subgroup broadcasts (issue 29 item 9), and no word runs into "(".
    let lower_mma = s.lines().find(|l| l.contains("--lower-mma")).unwrap();
    assert!(lower_mma.contains("OpGroupBroadcast"), "{lower_mma}");
    assert!(!s.contains("lower(left"), "{s}");
}

#[test]
fn oconfig_file_and_options() {
    let d = tmpdir("oconfig");
    let input = d.join("in.spvasm");
    std::fs::write(&input, SMALL_KERNEL).unwrap();
    let cfg = d.join("flags.cfg");
    std::fs::write(
        &cfg,
        "# flags for the test\n--strip-debug   # remove names\n--dce\n",
    )
    .unwrap();
    let out = d.join("out.spv");
    let o = spv_opt()
        .arg(format!("-Oconfig={}", cfg.display()))
        .arg("--time-report")
        .arg(&input)
        .arg("-o")
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let e = stderr(&o);
    assert!(
        e.contains("strip-debug") && e.contains("dce") && e.contains("total"),
        "{e}"
    );
}

#[test]
fn bad_flags_and_missing_files_fail_with_one_line() {
    for args in [
        vec!["--no-such-pass", "x.spv", "-o", "y.spv"],
        vec!["/nonexistent/in.spv", "-o", "/tmp/y.spv"],
        vec!["--target-env=nonsense", "x.spv", "-o", "y.spv"],
        vec!["--passes=dce,,", "x.spv", "-o", "y.spv"],
    ] {
        let o = spv_opt().args(&args).output().unwrap();
        assert_eq!(o.status.code(), Some(1), "{args:?}");
        let e = stderr(&o);
        assert_eq!(e.trim_end().lines().count(), 1, "{args:?}: {e}");
        assert!(e.starts_with("spv-opt: error:"), "{e}");
    }
}

/// Issue 29 item 3: a flag that takes one value, given twice, and `--stats` and `-o` writing
/// to the same place are refused with one line and exit 1; nothing is written.
#[test]
fn conflicting_flags_are_refused() {
    let d = tmpdir("conflicts");
    let input = d.join("in.spvasm");
    std::fs::write(&input, SMALL_KERNEL).unwrap();
    let (a, b) = (d.join("a.spv"), d.join("b.spv"));
    let (a, b, input) = (
        a.to_str().unwrap(),
        b.to_str().unwrap(),
        input.to_str().unwrap(),
    );
    for (args, expect) in [
        (
            vec!["--dce", "--stats", "-", input, "-o", "-"],
            "both write to stdout",
        ),
        (vec!["--dce", "--stats", a, input, "-o", a], "both name"),
        (
            vec!["--target", "pvc", "--target", "dg2", input, "-o", a],
            "--target given twice (pvc and dg2)",
        ),
        (
            vec!["--target=pvc", "--target", "pvc", input, "-o", a],
            "--target given twice",
        ),
        (vec![input, "-o", a, "-o", b], "-o given twice"),
        (vec![input, "-o", a, &format!("-o{b}")], "-o given twice"),
        (
            vec!["--stats", a, "--stats=x.json", input, "-o", b],
            "--stats given twice",
        ),
        (
            vec!["--max-changes=1", "--max-changes=2", input, "-o", a],
            "--max-changes given twice",
        ),
    ] {
        let o = spv_opt().args(&args).output().unwrap();
        assert_eq!(o.status.code(), Some(1), "{args:?}");
        let e = stderr(&o);
        assert_eq!(e.lines().count(), 1, "{args:?}: {e}");
        assert!(
            e.starts_with("spv-opt: error: ") && e.contains(expect),
            "{args:?}: {e}"
        );
        assert!(o.stdout.is_empty(), "{args:?}");
        assert!(!std::path::Path::new(a).exists() && !std::path::Path::new(b).exists());
    }
}

/// Unknown flags and pass names name the closest known one; far-off words get no guess.
#[test]
fn unknown_flags_and_passes_suggest_the_closest() {
    for (args, expect) in [
        (
            vec!["--stirp-debug", "x.spv", "-o", "y.spv"],
            "did you mean \"--strip-debug\"?",
        ),
        (
            vec!["--verbsoe", "x.spv", "-o", "y.spv"],
            "did you mean \"--verbose\"?",
        ),
        (
            vec!["--traget", "pvc", "x.spv", "-o", "y.spv"],
            "did you mean \"--target\"?",
        ),
        (
            vec!["--passes=strip-debug,dec", "x.spv", "-o", "y.spv"],
            "did you mean \"dce\"?",
        ),
        (
            vec!["--passes=lower-mmaa", "x.spv", "-o", "y.spv"],
            "did you mean \"lower-mma\"?",
        ),
    ] {
        let o = spv_opt().args(&args).output().unwrap();
        assert_eq!(o.status.code(), Some(1), "{args:?}");
        let e = stderr(&o);
        assert!(
            e.contains(expect) && e.lines().count() == 1,
            "{args:?}: {e}"
        );
    }
    let o = spv_opt().args(["--frobnicate", "x.spv"]).output().unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(!stderr(&o).contains("did you mean"), "{}", stderr(&o));
}

/// `--passes PIPELINE` (a separate word, like `--target pvc`) is `--passes=PIPELINE`.
#[test]
fn passes_takes_its_value_as_the_next_word_too() {
    let d = tmpdir("passes-word");
    let (a, b) = (d.join("a.spv"), d.join("b.spv"));
    let input = corpus("triton/softmax_fp32_1024_w4_sg16__pvc.spv");
    for (args, out) in [
        (vec!["--passes=strip-debug,dce".to_string()], &a),
        (vec!["--passes".into(), "strip-debug,dce".into()], &b),
    ] {
        let o = spv_opt()
            .args(&args)
            .arg(&input)
            .arg("-o")
            .arg(out)
            .output()
            .unwrap();
        assert!(o.status.success(), "{args:?}: {}", stderr(&o));
    }
    assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
    let o = spv_opt().arg(&input).arg("--passes").output().unwrap();
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("--passes needs a value"),
        "{}",
        stderr(&o)
    );
}
