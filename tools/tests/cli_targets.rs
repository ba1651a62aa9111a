//! `spv-opt` for a target: `--list-targets` and `--describe-target`, `-O --target` on Triton
//! output (MMAs lowered for dg2 and mtl, one located error for one no pass lowers), and
//! `--subgroup-size`.

use crate::common;
use common::{corpus, spv_opt, stderr, tmpdir};

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
