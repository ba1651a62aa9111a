//! `spv-opt` command line: flags, I/O conventions, atomic output, errors.

use crate::common;
use common::{corpus, spv_opt, stderr, tmpdir};

const SMALL: &str = "\
OpCapability Addresses
OpCapability Kernel
OpMemoryModel Physical64 OpenCL
OpEntryPoint Kernel %1 \"main\"
OpName %1 \"main\"
%2 = OpTypeVoid
%5 = OpTypeInt 32 0
%3 = OpTypeFunction %2
%1 = OpFunction %2 None %3
%4 = OpLabel
OpReturn
OpFunctionEnd
";

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
fn text_in_binary_out_and_passes_run() {
    let d = tmpdir("text");
    let input = d.join("in.spvasm");
    std::fs::write(&input, SMALL).unwrap();
    let out = d.join("out.spv");
    let stats = d.join("stats.json");
    let o = spv_opt()
        .args(["--strip-debug", "--dce"])
        .arg(&input)
        .arg("-o")
        .arg(&out)
        .arg("--stats")
        .arg(&stats)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let m = spvopt_ir::load_bytes(&std::fs::read(&out).unwrap()).unwrap();
    let has_name = m
        .all_insts()
        .any(|i| m.inst(i).is(spvopt_ir::spirv::Op::Name));
    let has_int = m
        .all_insts()
        .any(|i| m.inst(i).is(spvopt_ir::spirv::Op::TypeInt));
    assert!(!has_name && !has_int);
    let json: serde_json::Value = serde_json::from_slice(&std::fs::read(&stats).unwrap()).unwrap();
    assert_eq!(json["passes"][0]["name"], "strip-debug");
    assert_eq!(json["passes"][0]["stats"]["names"], 1);
    assert_eq!(json["passes"][1]["name"], "dce");
    assert_eq!(json["passes"][1]["stats"]["types_constants_globals"], 1);
}

#[test]
fn text_output_by_extension_and_flag() {
    let d = tmpdir("textout");
    let input = d.join("in.spvasm");
    std::fs::write(&input, SMALL).unwrap();
    let out = d.join("out.spvasm");
    let o = spv_opt().arg(&input).arg("-o").arg(&out).output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(std::fs::read_to_string(&out)
        .unwrap()
        .contains("OpEntryPoint Kernel"));
    let out2 = d.join("out.txt");
    let o = spv_opt()
        .arg(&input)
        .args(["--emit-text", "-o"])
        .arg(&out2)
        .output()
        .unwrap();
    assert!(o.status.success());
    assert!(std::fs::read_to_string(&out2)
        .unwrap()
        .contains("OpFunctionEnd"));
}

#[test]
fn stdin_to_stdout_round_trips() {
    use std::io::Write;
    let bytes = std::fs::read(corpus("triton/gemm_fp16_blockptr_128x128x32_w8__pvc.spv")).unwrap();
    let mut child = spv_opt()
        .args(["--skip-validation", "-", "-o", "-"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let b2 = bytes.clone();
    let writer = std::thread::spawn(move || stdin.write_all(&b2));
    let o = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        o.stdout == bytes,
        "no-op through stdin/stdout must be byte-identical"
    );
}

#[test]
fn triton_input_validates_by_default_and_invalid_input_is_rejected() {
    let d = tmpdir("val");
    let out = d.join("out.spv");
    // Real compiler output validates by default (VectorAnyINTEL vectors accepted; Triton's
    // Function variables outside the entry block are a warning).
    let o = spv_opt()
        .arg(corpus("triton/gemm_fp16_blockptr_128x128x32_w8__pvc.spv"))
        .arg("-o")
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    // An invalid module (a 5-component vector without VectorAnyINTEL) is still rejected with
    // one located line, and --skip-validation lets it through.
    let input = d.join("bad.spvasm");
    std::fs::write(
        &input,
        SMALL.replace(
            "%5 = OpTypeInt 32 0",
            "%5 = OpTypeInt 32 0\n%6 = OpTypeVector %5 5",
        ),
    )
    .unwrap();
    let bad_out = d.join("bad.spv");
    let o = spv_opt()
        .arg(&input)
        .arg("-o")
        .arg(&bad_out)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    let e = stderr(&o);
    assert!(
        e.contains("does not validate") && e.contains("components") && e.lines().count() == 1,
        "{e}"
    );
    assert!(!bad_out.exists(), "no output on error");
    let o = spv_opt()
        .arg("--skip-validation")
        .arg(&input)
        .arg("-o")
        .arg(&bad_out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
}

#[test]
fn errors_leave_no_partial_output_and_keep_input() {
    let d = tmpdir("atomic");
    let input = d.join("bad.spv");
    let mut bytes =
        std::fs::read(corpus("triton/nodbg/softmax_fp32_1024_w4_sg16__pvc.spv")).unwrap();
    bytes.truncate(bytes.len() - 6); // not a whole number of words
    std::fs::write(&input, &bytes).unwrap();
    let out = d.join("out.spv");
    std::fs::write(&out, b"previous").unwrap();
    let o = spv_opt()
        .arg("--skip-validation")
        .arg(&input)
        .arg("-o")
        .arg(&out)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        std::fs::read(&out).unwrap(),
        b"previous",
        "existing OUT untouched on error"
    );
    assert_eq!(std::fs::read(&input).unwrap(), bytes, "IN untouched");
    let leftovers: Vec<_> = std::fs::read_dir(&d)
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert_eq!(leftovers.len(), 2, "no temporary files left: {leftovers:?}");
}

#[test]
fn oconfig_file_and_options() {
    let d = tmpdir("oconfig");
    let input = d.join("in.spvasm");
    std::fs::write(&input, SMALL).unwrap();
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
    std::fs::write(&input, SMALL).unwrap();
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
    std::fs::write(&input, SMALL).unwrap();
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

#[test]
fn targets_are_listed_and_described() {
    let o = spv_opt().arg("--list-targets").output().unwrap();
    let s = String::from_utf8_lossy(&o.stdout);
    for t in ["pvc", "bmg", "lnl", "dg2", "mtl", "generic"] {
        assert!(s.contains(t), "{t} missing: {s}");
    }
    let o = spv_opt()
        .args(["--target", "pvc", "--describe-target"])
        .output()
        .unwrap();
    assert!(o.status.success());
    assert!(String::from_utf8_lossy(&o.stdout).contains("GRF"));
    let o = spv_opt()
        .args(["--target", "nosuchgpu", "--describe-target"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).starts_with("spv-opt: error:"));
}

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
fn optimize_pipeline_for_a_target_runs_on_triton_output() {
    let d = tmpdir("opt");
    let out = d.join("out.spv");
    let stats = d.join("stats.json");
    let o = spv_opt()
        .args(["-O", "--target", "pvc"])
        .arg(corpus("triton/gemm_fp16_blockptr_128x128x32_w8__pvc.spv"))
        .arg("-o")
        .arg(&out)
        .arg("--stats")
        .arg(&stats)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let json: serde_json::Value = serde_json::from_slice(&std::fs::read(&stats).unwrap()).unwrap();
    let names: Vec<&str> = json["passes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "raise-builtins",
            "convert-tensor-addressing",
            "lower-mma",
            "legalize",
            "raise-block-io",
            "fuse-block-loads",
            "insert-prefetches",
            "hoist-block-payloads",
            "dce"
        ]
    );
    assert_eq!(json["target"], "pvc");
    let m = spvopt_ir::load_bytes(&std::fs::read(&out).unwrap()).unwrap();
    assert!(m
        .all_insts()
        .any(|i| m.inst(i).is(spvopt_ir::spirv::Op::Subgroup2DBlockLoadINTEL)));
}

/// `-O --target dg2` / `mtl` on a pvc GEMM: every MMA emulated, no warning, exit 0; an MMA
/// no pass can lower (f64) makes `-O` exit non-zero with the MMA's location on one line.
#[test]
fn optimize_for_dg2_and_mtl_lowers_mmas_and_fails_on_unlowerable_ones() {
    let d = tmpdir("mma");
    for target in ["dg2", "mtl"] {
        let out = d.join(format!("{target}.spv"));
        let o = spv_opt()
            .args(["-O", "--skip-validation", "--target", target])
            .arg(corpus("triton/gemm_fp16_blockptr_128x128x32_w8__pvc.spv"))
            .arg("-o")
            .arg(&out)
            .output()
            .unwrap();
        assert!(o.status.success(), "{target}: {}", stderr(&o));
        assert!(!stderr(&o).contains("warning"), "{target}: {}", stderr(&o));
        let m = spvopt_ir::load_bytes(&std::fs::read(&out).unwrap()).unwrap();
        assert!(!m.all_insts().any(|i| m
            .inst(i)
            .is(spvopt_ir::spirv::Op::SubgroupMatrixMultiplyAccumulateINTEL)));
    }
    let input = d.join("f64.spvasm");
    std::fs::write(
        &input,
        "OpCapability Addresses\nOpCapability Kernel\nOpCapability Float64\n\
         OpCapability Vector16\nOpCapability SubgroupMatrixMultiplyAccumulateINTEL\n\
         OpExtension \"SPV_INTEL_subgroup_matrix_multiply_accumulate\"\n\
         OpMemoryModel Physical64 OpenCL\nOpEntryPoint Kernel %main \"main\"\n\
         OpExecutionMode %main SubgroupSize 16\n%void = OpTypeVoid\n%uint = OpTypeInt 32 0\n\
         %double = OpTypeFloat 64\n%v2double = OpTypeVector %double 2\n\
         %v16double = OpTypeVector %double 16\n%uint_16 = OpConstant %uint 16\n\
         %z = OpConstantNull %v2double\n%s = OpConstantNull %v16double\n\
         %fnty = OpTypeFunction %void\n%main = OpFunction %void None %fnty\n%entry = OpLabel\n\
         %r = OpSubgroupMatrixMultiplyAccumulateINTEL %v2double %uint_16 %z %s %z\n\
         OpReturn\nOpFunctionEnd\n",
    )
    .unwrap();
    let o = spv_opt()
        .args(["-O", "--skip-validation", "--target", "mtl"])
        .arg(&input)
        .arg("-o")
        .arg(d.join("f64.spv"))
        .output()
        .unwrap();
    assert!(!o.status.success());
    let e = stderr(&o);
    assert!(
        e.contains("lower-mma") && e.contains("OpSubgroupMatrixMultiplyAccumulateINTEL %"),
        "{e}"
    );
}

#[test]
fn check_env_reports_violations_with_locations() {
    let d = tmpdir("env");
    let input = d.join("signed.spvasm");
    std::fs::write(
        &input,
        SMALL.replace("%5 = OpTypeInt 32 0", "%5 = OpTypeInt 32 1"),
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
    std::fs::write(&ok, SMALL).unwrap();
    let o = spv_opt().arg("--check-env").arg(&ok).output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
}

/// `--subgroup-size N` declares a size on kernels that declare none, so the shipped
/// tensor-addressing kernels (issue 29 item 8) optimize; it is refused twice or when the
/// target lacks it, and -v reports the step.
#[test]
fn subgroup_size_lets_tensor_kernels_without_one_optimize() {
    let d = tmpdir("sg");
    let k = corpus("tensor/kernel_k1_tile_copy_crossworkgroup.spv");
    let out = d.join("out.spv");
    let run = |extra: &[&str]| {
        spv_opt()
            .args(["-O", "--target", "pvc", "--skip-validation"])
            .args(extra)
            .arg(&k)
            .arg("-o")
            .arg(&out)
            .output()
            .unwrap()
    };
    let o = run(&[]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("--subgroup-size N"), "{}", stderr(&o));
    assert!(!out.exists());
    for form in [&["--subgroup-size", "16"][..], &["--subgroup-size=16"]] {
        let o = run(&[form, &["-v"]].concat());
        assert!(o.status.success(), "{}", stderr(&o));
        let first = stderr(&o).lines().next().unwrap_or("").to_string();
        assert!(
            first.starts_with("spv-opt: declare-subgroup-size: changed")
                && first.contains("kernels_declared: 1"),
            "{first}"
        );
        let dis = spv_opt()
            .args(["--emit-text", "-o", "-"])
            .arg(&out)
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&dis.stdout);
        assert!(text.contains("SubgroupSize 16"), "{text}");
        std::fs::remove_file(&out).unwrap();
    }
    for (extra, expect) in [
        (
            &["--subgroup-size", "8"][..],
            "not one of target pvc's (16, 32)",
        ),
        (
            &["--subgroup-size", "16", "--subgroup-size=32"],
            "given twice",
        ),
        (&["--subgroup-size", "x"], "power of two"),
    ] {
        let o = run(extra);
        assert_eq!(o.status.code(), Some(1), "{extra:?}");
        let e = stderr(&o);
        assert!(
            e.contains(expect) && e.lines().count() == 1,
            "{extra:?}: {e}"
        );
        assert!(!out.exists());
    }
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
    std::fs::write(&small, SMALL).unwrap();
    let o = spv_opt()
        .args(["--Werror", "--dce", "-o"])
        .arg(&out)
        .arg(&small)
        .output()
        .unwrap();
    assert!(o.status.success() && out.exists(), "{}", stderr(&o));
}

/// Completions and the man page come from the usage text and the pass registry: every flag of
/// --help and every pass is in each; a shell we do not know is a one-line error.
#[test]
fn completions_and_man_page_are_generated_from_the_flag_table() {
    let help =
        String::from_utf8_lossy(&spv_opt().arg("--help").output().unwrap().stdout).into_owned();
    let passes = [
        "--dce",
        "--convert-tensor-addressing",
        "--declare-subgroup-size",
    ];
    for shell in ["bash", "zsh", "fish"] {
        let o = spv_opt().args(["--completions", shell]).output().unwrap();
        assert!(o.status.success(), "{shell}: {}", stderr(&o));
        let s = String::from_utf8_lossy(&o.stdout);
        for flag in [
            "--target",
            "--subgroup-size",
            "--Werror",
            "--stats",
            "--man",
        ] {
            assert!(help.contains(flag), "{flag} not in --help");
            let name = if shell == "fish" {
                format!("-l {}", &flag[2..])
            } else {
                flag.to_string()
            };
            assert!(s.contains(&name), "{shell}: {flag} missing");
        }
        for p in passes {
            let name = if shell == "fish" {
                format!("-l {}", &p[2..])
            } else {
                p.to_string()
            };
            assert!(s.contains(&name), "{shell}: {p} missing");
        }
        assert!(s.contains("pvc") && s.contains("dg2"), "{shell}: targets");
    }
    if std::path::Path::new("/bin/bash").exists() {
        let script = spv_opt()
            .args(["--completions", "bash"])
            .output()
            .unwrap()
            .stdout;
        let d = tmpdir("completion");
        std::fs::write(d.join("c.bash"), &script).unwrap();
        let o = std::process::Command::new("bash")
            .arg("-c")
            .arg(format!(
                "source {}/c.bash; COMP_WORDS=(spv-opt --targ); COMP_CWORD=1; _spv_opt; \
                 echo \"${{COMPREPLY[@]}}\"; COMP_WORDS=(spv-opt --target d); COMP_CWORD=2; \
                 _spv_opt; echo \"${{COMPREPLY[@]}}\"",
                d.display()
            ))
            .output()
            .unwrap();
        let s = String::from_utf8_lossy(&o.stdout);
        assert!(
            s.contains("--target ") && s.contains("--target-env="),
            "{s}{}",
            stderr(&o)
        );
        assert!(s.lines().nth(1) == Some("dg2"), "{s}");
    }
    let o = spv_opt().arg("--man").output().unwrap();
    assert!(o.status.success());
    let man = String::from_utf8_lossy(&o.stdout);
    assert!(man.starts_with(".TH SPV-OPT 1"), "{man}");
    for section in [
        ".SH NAME",
        ".SH SYNOPSIS",
        ".SH OPTIONS",
        ".SH PASSES",
        ".SH EXIT STATUS",
    ] {
        assert!(man.contains(section), "{section}");
    }
    assert!(
        man.contains("\\-\\-subgroup\\-size") && man.contains("\\-\\-declare\\-subgroup\\-size")
    );
    let o = spv_opt().args(["--completions", "bsh"]).output().unwrap();
    assert_eq!(o.status.code(), Some(1));
    let e = stderr(&o);
    assert!(
        e.contains("did you mean \"bash\"") && e.lines().count() == 1,
        "{e}"
    );
}

/// spv-sim, spv-ab and spv-bench generate theirs the same way, each from its own usage text.
#[test]
fn every_tool_prints_completions_and_a_man_page() {
    let tools: [(&str, &str, &[&str]); 3] = [
        (
            env!("CARGO_BIN_EXE_spv-sim"),
            "SPV-SIM",
            &["--launch", "--max-work-groups", "run"],
        ),
        (
            env!("CARGO_BIN_EXE_spv-ab"),
            "SPV-AB",
            &["--subgroup-size", "--launches", "bisect"],
        ),
        (
            env!("CARGO_BIN_EXE_spv-bench"),
            "SPV-BENCH",
            &["--sizes", "--spirv-opt", "jit"],
        ),
    ];
    for (exe, title, words) in tools {
        for shell in ["bash", "zsh", "fish"] {
            let o = std::process::Command::new(exe)
                .args(["--completions", shell])
                .output()
                .unwrap();
            assert!(o.status.success(), "{exe} {shell}: {}", stderr(&o));
            let s = String::from_utf8_lossy(&o.stdout);
            for w in words {
                let w = match (shell, w.strip_prefix("--")) {
                    ("fish", Some(long)) => format!("-l {long}"),
                    _ => w.to_string(),
                };
                assert!(s.contains(&w), "{exe} {shell}: {w} missing");
            }
        }
        let o = std::process::Command::new(exe)
            .arg("--man")
            .output()
            .unwrap();
        let man = String::from_utf8_lossy(&o.stdout);
        assert!(man.starts_with(&format!(".TH {title} 1")), "{man}");
    }
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
