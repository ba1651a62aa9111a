//! `spv-opt` reporting: `-v`, grouped warnings with names, warnings in `--stats`,
//! `--print-changed`, the `--check-env` summary, builtin-call input through single passes, and
//! `--validate-after-each` not blaming a pass for an error already in its input.

use std::path::Path;

use crate::common;
use common::{corpus, spv_opt, stderr, tmpdir};

const GEMM: &str = "triton/gemm_fp16_blockptr_128x128x32_w8__pvc.spv";

#[test]
fn verbose_prints_one_line_per_pass_with_counts() {
    let d = tmpdir("rep-v");
    let o = spv_opt()
        .args(["-v", "--fuse-block-loads", "--target", "pvc"])
        .arg(corpus(GEMM))
        .arg("-o")
        .arg(d.join("out.spv"))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let e = stderr(&o);
    let lines: Vec<&str> = e.lines().filter(|l| l.contains(" -> ")).collect();
    assert!(lines.len() >= 2, "{e}");
    assert!(
        lines[0].starts_with("spv-opt: raise-builtins: ") && lines[0].contains("[implicit: "),
        "{e}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("spv-opt: fuse-block-loads: ")),
        "{e}"
    );
}

#[test]
fn repeated_warnings_are_grouped_with_names_and_reach_the_stats() {
    let d = tmpdir("rep-warn");
    let stats = d.join("stats.json");
    // Three f64 MMAs: no pass can lower them, so legalize warns about each.
    let input = d.join("f64.spvasm");
    std::fs::write(
        &input,
        "OpCapability Addresses\nOpCapability Kernel\nOpCapability Float64\n\
         OpCapability Vector16\nOpCapability SubgroupMatrixMultiplyAccumulateINTEL\n\
         OpExtension \"SPV_INTEL_subgroup_matrix_multiply_accumulate\"\n\
         OpMemoryModel Physical64 OpenCL\nOpEntryPoint Kernel %main \"main\"\n\
         OpExecutionMode %main SubgroupSize 16\nOpName %main \"my_kernel\"\n\
         %void = OpTypeVoid\n%uint = OpTypeInt 32 0\n\
         %double = OpTypeFloat 64\n%v2double = OpTypeVector %double 2\n\
         %v16double = OpTypeVector %double 16\n%uint_16 = OpConstant %uint 16\n\
         %z = OpConstantNull %v2double\n%s = OpConstantNull %v16double\n\
         %fnty = OpTypeFunction %void\n%main = OpFunction %void None %fnty\n%entry = OpLabel\n\
         %r1 = OpSubgroupMatrixMultiplyAccumulateINTEL %v2double %uint_16 %z %s %z\n\
         %r2 = OpSubgroupMatrixMultiplyAccumulateINTEL %v2double %uint_16 %z %s %r1\n\
         %r3 = OpSubgroupMatrixMultiplyAccumulateINTEL %v2double %uint_16 %z %s %r2\n\
         OpReturn\nOpFunctionEnd\n",
    )
    .unwrap();
    let o = spv_opt()
        .args(["--legalize", "--skip-validation", "--target", "pvc"])
        .arg(&input)
        .arg("-o")
        .arg(d.join("out.spv"))
        .arg("--stats")
        .arg(&stats)
        .output()
        .unwrap();
    let e = stderr(&o);
    let mma: Vec<&str> = e.lines().filter(|l| l.contains("MMA")).collect();
    assert_eq!(mma.len(), 1, "one grouped line: {e}");
    assert!(
        mma[0].contains("3 x ") && mma[0].contains("(first at"),
        "{e}"
    );
    // The function is named in the location (its OpName).
    assert!(mma[0].contains("(my_kernel)"), "{e}");
    let json: serde_json::Value = serde_json::from_slice(&std::fs::read(&stats).unwrap()).unwrap();
    let legalize = json["passes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "legalize")
        .unwrap();
    let w = &legalize["warnings"][0];
    assert_eq!(w["count"].as_u64(), Some(3), "{legalize}");
    assert!(w["message"].as_str().unwrap().contains("MMA"), "{legalize}");
}

#[test]
fn print_changed_diffs_only_passes_that_changed() {
    let d = tmpdir("rep-pc");
    let o = spv_opt()
        .args([
            "--print-changed",
            "--strip-prefetches",
            "--dce",
            "--target",
            "pvc",
        ])
        .arg(corpus(
            "triton/native/gemm_fp16_blockptr_128x128x32_w8__pvc.spv",
        ))
        .arg("-o")
        .arg(d.join("out.spv"))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let e = stderr(&o);
    assert!(e.contains("+++ after strip-prefetches"), "{e}");
    assert!(e
        .lines()
        .any(|l| l.starts_with('-') && l.contains("OpSubgroup2DBlockPrefetchINTEL")));
    // dce then has the prefetch-free module; the diff shows removals only, if any.
    let o = spv_opt()
        .args(["--print-changed", "--split-block-loads", "--target", "pvc"])
        .arg(corpus("triton/softmax_fp32_1024_w4_sg16__pvc.spv"))
        .arg("-o")
        .arg(d.join("out2.spv"))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        !stderr(&o).contains("+++ after"),
        "nothing changed: {}",
        stderr(&o)
    );
}

#[test]
fn check_env_says_when_all_is_well() {
    let d = tmpdir("rep-env");
    let out = d.join("legal.spv");
    let o = spv_opt()
        .args(["--legalize", "--target", "pvc"])
        .arg(corpus(GEMM))
        .arg("-o")
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let o = spv_opt().arg("--check-env").arg(&out).output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("no Level Zero environment violations"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn every_shipped_kernel_optimizes_without_skip_validation() {
    let mut files = Vec::new();
    // Compiler output and the examples. (tests/corpus/tensor holds hand-written
    // SPV_NV_tensor_addressing test vectors with CrossWorkgroup pointers, which that extension
    // does not allow: they are inputs for convert-tensor-addressing, not shipped kernels.)
    for dir in ["triton", "triton/nodbg", "triton/native", "opencl-samples"] {
        for e in std::fs::read_dir(corpus(dir)).unwrap().flatten() {
            if e.path().extension().is_some_and(|x| x == "spv") {
                files.push(e.path());
            }
        }
    }
    for e in std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples"))
        .unwrap()
        .flatten()
    {
        if e.path().extension().is_some_and(|x| x == "spv") {
            files.push(e.path());
        }
    }
    assert!(files.len() >= 22, "{files:?}");
    let d = tmpdir("rep-all");
    for f in &files {
        let o = spv_opt()
            .args(["-O", "--target", "pvc", "--validate-after-each"])
            .arg(f)
            .arg("-o")
            .arg(d.join("out.spv"))
            .output()
            .unwrap();
        assert!(o.status.success(), "{}: {}", f.display(), stderr(&o));
    }
}

#[test]
fn validate_after_each_does_not_blame_a_pass_for_its_input() {
    let d = tmpdir("rep-blame");
    // Invalid input (an OpTypeVector of 5 components without VectorAnyINTEL) that no pass fixes.
    let input = d.join("bad.spvasm");
    std::fs::write(
        &input,
        "OpCapability Addresses\nOpCapability Kernel\nOpMemoryModel Physical64 OpenCL\n\
         OpEntryPoint Kernel %1 \"main\"\nOpName %1 \"main\"\nOpName %9 \"unused\"\n\
         %2 = OpTypeVoid\n%5 = OpTypeInt 32 0\n%6 = OpTypeVector %5 5\n%3 = OpTypeFunction %2\n\
         %9 = OpConstant %5 7\n%1 = OpFunction %2 None %3\n%4 = OpLabel\nOpReturn\nOpFunctionEnd\n",
    )
    .unwrap();
    let out = d.join("out.spv");
    let o = spv_opt()
        .args([
            "--skip-validation",
            "--validate-after-each",
            "--strip-debug",
        ])
        .arg(&input)
        .arg("-o")
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("passes are not blamed"),
        "{}",
        stderr(&o)
    );
    assert!(out.exists());
}

/// Issue 29 item 2: fuse-block-loads fuses nothing on the raw Triton GEMM, so the implicit raise
/// is undone and the input is written byte for byte; `-v`, `--stats` and `--print-changed` must
/// describe that module, not the raised one the passes saw.
#[test]
fn an_undone_implicit_raise_is_reported_as_the_output_is() {
    let d = tmpdir("rep-undone");
    let (out, stats) = (d.join("out.spv"), d.join("st.json"));
    let o = spv_opt()
        .args([
            "--fuse-block-loads",
            "--target",
            "pvc",
            "-v",
            "--print-changed",
        ])
        .arg("--stats")
        .arg(&stats)
        .arg(corpus(GEMM))
        .arg("-o")
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let input = std::fs::read(corpus(GEMM)).unwrap();
    assert_eq!(
        std::fs::read(&out).unwrap(),
        input,
        "the output is the input"
    );
    let count = spvopt_ir::load_bytes(&input).unwrap().instruction_count();
    let e = stderr(&o);
    // -v: every pass line says unchanged, count -> count; the raise's counters are not shown.
    let lines: Vec<&str> = e
        .lines()
        .filter(|l| l.contains(" instructions, "))
        .collect();
    assert_eq!(lines.len(), 2, "{e}");
    for l in &lines {
        assert!(
            l.contains(&format!(
                ": unchanged, {count} -> {count} instructions, 0 changes"
            )),
            "{l}"
        );
    }
    assert!(
        lines[0].contains("undone") && !lines[0].contains("raised_mma"),
        "{}",
        lines[0]
    );
    // --print-changed: no diff of a change that is not in the output, a line saying why.
    assert!(!e.contains("+++ after"), "{e}");
    assert!(e.contains("raise-builtins (implicit) undone"), "{e}");
    // --stats: the totals and every pass describe the module written.
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&stats).unwrap()).unwrap();
    assert_eq!(json["instructions_before"], count);
    assert_eq!(json["instructions_after"], count);
    let passes = json["passes"].as_array().unwrap();
    assert_eq!(passes[0]["name"], "raise-builtins");
    assert_eq!(passes[0]["undone"], true);
    assert_eq!(passes[0]["stats"], serde_json::json!({}));
    for p in passes {
        assert_eq!(p["changed"], false, "{p}");
        assert_eq!(p["instructions_before"], count, "{p}");
        assert_eq!(p["instructions_after"], count, "{p}");
    }
}
