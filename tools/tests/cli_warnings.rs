//! `spv-opt` warnings: `-q` drops them (not errors), the validator's are one short line,
//! `--Werror` makes them errors; `--validate-after-each` and `--print-all`.

use crate::common;
use common::{corpus, spv_opt, stderr, tmpdir, SMALL_KERNEL};

/// `-q` silences warnings (the raw Triton GEMM gets validation warnings), not errors.
#[test]
fn quiet_drops_warnings_but_not_errors() {
    let d = tmpdir("quiet");
    let gemm = corpus("triton/gemm_fp16_blockptr_128x128x32_w8__pvc.spv");
    let run = |extra: &[&str]| {
        spv_opt()
            .args(extra)
            .args(["-O", "--target", "pvc"])
            .arg(&gemm)
            .arg("-o")
            .arg(d.join("out.spv"))
            .output()
            .unwrap()
    };
    let loud = run(&[]);
    assert!(
        loud.status.success() && stderr(&loud).contains("warning"),
        "{}",
        stderr(&loud)
    );
    let quiet = run(&["-q"]);
    assert!(quiet.status.success());
    assert_eq!(stderr(&quiet), "");
    let o = spv_opt()
        .args(["--quiet", "/nonexistent/in.spv", "-o", "y.spv"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).starts_with("spv-opt: error: "));
}

#[test]
fn validate_after_each_and_print_all() {
    let d = tmpdir("vae");
    let input = d.join("in.spvasm");
    std::fs::write(&input, SMALL_KERNEL).unwrap();
    let out = d.join("out.spv");
    let o = spv_opt()
        .args([
            "--strip-debug",
            "--validate-after-each",
            "--print-all",
            "--target",
            "pvc",
        ])
        .arg(&input)
        .arg("-o")
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("; IR after strip-debug"));
}

/// The validator's two warnings on every Triton kernel are one short line (each in a few
/// words); -v gives spirv-val's messages; --Werror makes warnings errors: exit 1, nothing
/// written (also with -q).
#[test]
fn triton_warnings_are_one_short_line_and_werror_stops() {
    let d = tmpdir("werror");
    let gemm = corpus("triton/gemm_fp16_blockptr_128x128x32_w8__pvc.spv");
    let out = d.join("out.spv");
    let run = |extra: &[&str]| {
        spv_opt()
            .args(["-O", "--target", "pvc"])
            .args(extra)
            .arg(&gemm)
            .arg("-o")
            .arg(&out)
            .output()
            .unwrap()
    };
    let o = run(&[]);
    assert!(o.status.success());
    let e = stderr(&o);
    let warnings: Vec<&str> = e.lines().filter(|l| l.contains("warning")).collect();
    assert_eq!(warnings.len(), 1, "{e}");
    assert!(
        warnings[0].contains("Function variables outside the entry block (legalize moves them)")
            && warnings[0].contains("invalid debug info (strip-debug removes it)")
            && warnings[0].len() - gemm.display().to_string().len() < 220,
        "{} characters: {}",
        warnings[0].len(),
        warnings[0]
    );
    let o = run(&["-v"]);
    let e = stderr(&o);
    assert!(
        e.contains("All OpVariable instructions in a function must be the first"),
        "{e}"
    );
    std::fs::remove_file(&out).unwrap();
    for extra in [&["--Werror"][..], &["--Werror", "-q"]] {
        let o = run(extra);
        assert_eq!(o.status.code(), Some(1), "{extra:?}");
        let e = stderr(&o);
        assert!(
            e.lines().all(|l| l.starts_with("spv-opt: error: "))
                && e.contains("[--Werror]")
                && e.contains("treated as an error (--Werror): nothing written"),
            "{e}"
        );
        assert!(!out.exists(), "{extra:?} wrote the output");
    }
    // A module without warnings passes --Werror.
    let small = d.join("small.spvasm");
    std::fs::write(&small, SMALL_KERNEL).unwrap();
    let o = spv_opt()
        .args(["--Werror", "--dce", "-o"])
        .arg(&out)
        .arg(&small)
        .output()
        .unwrap();
    assert!(o.status.success() && out.exists(), "{}", stderr(&o));
}
