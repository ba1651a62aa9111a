//! The `spv-opt` modes that run no pass: `--print-analysis` (an annotated listing or a dot
//! graph) and `--check-env` (violations with their locations).

use crate::common;
use common::{corpus, spv_opt, stderr, tmpdir, SMALL_KERNEL};

/// spv-opt's stdout with `args` and `input`, which must succeed.
fn print_analysis(args: &[&str], input: &std::path::Path) -> String {
    let o = spv_opt().args(args).arg(input).output().unwrap();
    assert!(o.status.success(), "{args:?}: {}", stderr(&o));
    String::from_utf8_lossy(&o.stdout).into_owned()
}

#[test]
fn print_analysis_annotates_the_listing() {
    let input = corpus("triton/native/gemm_fp16_blockptr_128x128x32_w8__pvc.spv");
    for (name, needle) in [
        ("uniformity", "uniform"),
        ("loops", "loop"),
        ("induction", "affine"),
    ] {
        let s = print_analysis(&["--print-analysis", name], &input);
        assert!(
            s.contains("OpSubgroup2DBlockLoadINTEL") && s.contains(needle),
            "{name}"
        );
        // Written as --emit-text writes it (issue 42): enumerant names, OpNames.
        assert!(
            s.contains("OpCapability Kernel")
                && s.contains("OpDecorate ")
                && s.contains("LinkageAttributes")
                && s.contains("%matmul_kernel_with_block_pointers = OpFunction")
                && !s.contains("OpCapability 6"),
            "{name}: {}",
            &s[..s.len().min(2000)]
        );
    }
    let o = spv_opt()
        .args(["--print-analysis", "nonsense"])
        .arg(&input)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
}

#[test]
fn print_analysis_format_dot_draws_the_blocks() {
    let input = corpus("triton/native/gemm_fp16_blockptr_128x128x32_w8__pvc.spv");
    for name in ["cfg", "dominators", "loops"] {
        let s = print_analysis(&["--print-analysis", name, "--format", "dot"], &input);
        assert!(
            s.starts_with("digraph {\n") && s.ends_with("}\n"),
            "{name}: {s}"
        );
        assert!(s.contains(" -> "), "{name}: {s}");
    }
    // The default stays the annotated listing; dot only for graphs of blocks.
    let s = print_analysis(&["--print-analysis=loops", "--format=text"], &input);
    assert!(s.contains("OpSubgroup2DBlockLoadINTEL"));
    for (args, msg) in [
        (
            &["--print-analysis", "uniformity", "--format", "dot"][..],
            "has no dot format",
        ),
        (
            &["--print-analysis", "cfg", "--format", "svg"][..],
            "expected text or dot",
        ),
        (
            &["--format", "dot"][..],
            "--format goes with --print-analysis",
        ),
    ] {
        let o = spv_opt().args(args).arg(&input).output().unwrap();
        assert_eq!(o.status.code(), Some(1), "{args:?}");
        assert!(stderr(&o).contains(msg), "{args:?}: {}", stderr(&o));
    }
}

#[test]
fn check_env_reports_violations_with_locations() {
    let d = tmpdir("env");
    let input = d.join("signed.spvasm");
    std::fs::write(
        &input,
        SMALL_KERNEL.replace("%5 = OpTypeInt 32 0", "%5 = OpTypeInt 32 1"),
    )
    .unwrap();
    let o = spv_opt().arg("--check-env").arg(&input).output().unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).to_lowercase().contains("signedness"),
        "{}",
        stderr(&o)
    );
    let ok = d.join("ok.spvasm");
    std::fs::write(&ok, SMALL_KERNEL).unwrap();
    let o = spv_opt().arg("--check-env").arg(&ok).output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
}
