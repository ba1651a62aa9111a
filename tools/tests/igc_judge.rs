//! The judge (issue 46): `-O --target T` output compiled by Intel's IGC for T's device, on a
//! representative subset of the corpus (every device; the 2D-block GEMM, its staged twin that
//! `raise-block-io` rewrites, softmax, an OpenCL sample and tensor-hw cases that
//! `convert-tensor-addressing` rewrites): every compile succeeds and leaves no symbol
//! unresolved. Matrix kernels are built with 256 GRF where the device has it, as Triton does.
//! Needs ocloc (`$SPVOPT_OCLOC`, installed by `.ci/install-igc.sh`); without it the test says so
//! loudly and passes without compiling. The full sweep (every kernel × device):
//! `tools/igc_sweep.sh`.

use crate::common::optimized;
use spvopt_analysis::Target;
use spvopt_tools::igc::{device_for_target, Ocloc, LARGE_GRF};

fn ocloc_or_skip(test: &str) -> Option<Ocloc> {
    let o = Ocloc::from_env();
    if o.is_none() {
        eprintln!(
            "!!!!!!!! {test}: SKIPPED: no ocloc ($SPVOPT_OCLOC unset, none on PATH; \
             .ci/install-igc.sh installs it) !!!!!!!!"
        );
    }
    o
}

/// Whether the device takes `-cl-intel-256-GRF-per-thread` (dg2 and mtl have 128 registers).
fn has_large_grf(target: &str) -> bool {
    !matches!(target, "dg2" | "mtl")
}

const ALL_TARGETS: [&str; 7] = ["pvc", "bmg", "lnl", "ptl", "cri", "dg2", "mtl"];

/// (kernel, matrix kernel?, targets)
const CASES: &[(&str, bool, &[&str])] = &[
    (
        "triton/nodbg/softmax_fp32_1024_w4_sg16__pvc.spv",
        false,
        &ALL_TARGETS,
    ),
    (
        "triton/gemm_fp16_blockptr_128x128x32_w8__pvc.spv",
        true,
        &ALL_TARGETS,
    ),
    (
        "triton/nodbg/gemm_fp16_blockptr_128x128x32_w8__pvc_no2d.spv",
        true,
        &["pvc", "bmg"],
    ),
    (
        "triton/gemm_bf16_ptr_128x128x32_w8__pvc.spv",
        true,
        &["pvc"],
    ),
    (
        "opencl-samples/matrix_kernels_i8.spv",
        true,
        &["pvc", "lnl"],
    ),
    ("tensor-hw/bm_a_1x4/kernel.spvasm", true, &["pvc", "bmg"]),
    ("tensor-hw/bb_T_b8/kernel.spvasm", false, &["pvc"]),
];

#[test]
fn optimized_output_compiles_on_every_device_without_unresolved_symbols() {
    let Some(ocloc) = ocloc_or_skip("igc_judge") else {
        return;
    };
    let version = ocloc.version().unwrap();
    let mut failures = Vec::new();
    let mut compiles = 0;
    for &(kernel, matrix, targets) in CASES {
        for &t in targets {
            let target = Target::by_name(t).unwrap();
            let spv = optimized(kernel, &target);
            let options = if matrix && has_large_grf(t) {
                LARGE_GRF
            } else {
                ""
            };
            let device = device_for_target(t).unwrap();
            compiles += 1;
            match ocloc.compile(&spv, device, options) {
                Ok(isa) => assert!(!isa.kernels.is_empty()),
                Err(e) => failures.push(format!("{kernel} -O --target {t}: {e}")),
            }
        }
    }
    eprintln!("igc_judge: {compiles} compiles with ocloc {version}");
    assert!(
        failures.is_empty(),
        "ocloc {version}:\n{}",
        failures.join("\n")
    );
}
