//! The ISA table (issue 46, item 2): per-kernel ISA facts of `-O --target T` output compiled by
//! IGC for T, on a representative subset of the corpus (every device with the 2D-block GEMM;
//! the staged GEMM raise-block-io rewrites; the tensor-of-pointers and transposed-B GEMMs;
//! softmax on pvc and dg2; OpenCL MMA samples; tensor-hw cases convert-tensor-addressing
//! rewrites, one of them with 144 accesses), checked in as `tests/igc/isa_table.txt` and compared with the tolerance of
//! `spvopt_tools::igc::summary` (dpas equal; sends, K-loop sends, SLM, gathers, spills and spill
//! size must not grow; instructions +3% + 4, K-loop instructions +3% + 2). Bless after a reviewed
//! change: `SPVOPT_BLESS_ISA=1 cargo test --release -p spvopt-tools --test integration isa_table`.
//! Needs ocloc (`$SPVOPT_OCLOC`); without it the test says so loudly and passes.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::common::optimized;
use spvopt_analysis::Target;
use spvopt_tools::igc::{device_for_target, IsaSummary, Ocloc, LARGE_GRF};

const TABLE: &str = "tests/igc/isa_table.txt";

fn repo(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(rel)
}

/// (corpus file, matrix kernel (256 GRF where the device has it), targets)
const CASES: &[(&str, bool, &[&str])] = &[
    (
        "triton/gemm_fp16_blockptr_128x128x32_w8__pvc.spv",
        true,
        &["pvc", "bmg", "lnl", "ptl", "cri", "dg2", "mtl"],
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
        "triton/gemm_fp16_blockptr_transB_128x128x32_w8__pvc.spv",
        true,
        &["pvc"],
    ),
    (
        "triton/nodbg/softmax_fp32_1024_w4_sg16__pvc.spv",
        false,
        &["pvc", "dg2"],
    ),
    ("opencl-samples/matrix_kernels_i8.spv", true, &["pvc"]),
    ("opencl-samples/matrix_kernels_bf16.spv", true, &["lnl"]),
    ("tensor-hw/bm_a_1x4/kernel.spvasm", true, &["pvc"]),
    ("tensor-hw/bb_T_b8/kernel.spvasm", false, &["pvc"]),
    // 144 runtime-checked accesses in straight-line code: the per-element paths must stay
    // shared functions (IGC's compile 70 s when each was an unrolled loop of its own).
    ("tensor-hw/bg_f16_64x48x80/kernel.spvasm", true, &["pvc"]),
];

type Rows = BTreeMap<(String, String, String), IsaSummary>;

fn parse_table(text: &str) -> Rows {
    let mut rows = Rows::new();
    for (n, line) in text.lines().enumerate() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let mut parts = line.splitn(4, ' ');
        let (Some(case), Some(t), Some(k), Some(rest)) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            panic!("{TABLE}:{}: expected `case target kernel fields`", n + 1);
        };
        let s = IsaSummary::parse_fields(rest).unwrap_or_else(|e| panic!("{TABLE}:{}: {e}", n + 1));
        rows.insert((case.into(), t.into(), k.into()), s);
    }
    rows
}

fn write_table(rows: &Rows, version: &str) -> String {
    let mut s = format!(
        "# ISA facts of `-O --target T` output compiled by IGC for T (ocloc {version}), per \
         kernel.\n# Checked by tools/tests/isa_table.rs; bless: SPVOPT_BLESS_ISA=1 cargo test \
         --release -p spvopt-tools --test integration isa_table\n# case target kernel fields\n"
    );
    for ((c, t, k), v) in rows {
        s.push_str(&format!("{c} {t} {k} {}\n", v.to_fields()));
    }
    s
}

#[test]
fn isa_of_optimized_output_does_not_regress() {
    let Some(ocloc) = Ocloc::from_env() else {
        eprintln!(
            "!!!!!!!! isa_table: SKIPPED: no ocloc ($SPVOPT_OCLOC unset, none on PATH; \
             .ci/install-igc.sh installs it) !!!!!!!!"
        );
        return;
    };
    let version = ocloc.version().unwrap();
    let started = std::time::Instant::now();
    let mut now = Rows::new();
    let mut failures = Vec::new();
    for &(case, matrix, targets) in CASES {
        for &t in targets {
            let target = Target::by_name(t).unwrap();
            let opts = if matrix && target.max_grf_per_thread() >= 256 {
                LARGE_GRF
            } else {
                ""
            };
            match ocloc.compile(
                &optimized(case, &target),
                device_for_target(t).unwrap(),
                opts,
            ) {
                Ok(isa) => {
                    for (k, f) in &isa.kernels {
                        now.insert((case.into(), t.into(), k.clone()), IsaSummary::of(f));
                    }
                }
                Err(e) => failures.push(format!("{case} on {t}: {e}")),
            }
        }
    }
    eprintln!(
        "isa_table: {} kernels compiled in {:.1} s with ocloc {version}",
        now.len(),
        started.elapsed().as_secs_f64()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    let path = repo(TABLE);
    if std::env::var_os("SPVOPT_BLESS_ISA").is_some() {
        std::fs::write(&path, write_table(&now, &version)).unwrap();
        eprintln!("isa_table: blessed {}", path.display());
        return;
    }
    let old = parse_table(&std::fs::read_to_string(&path).unwrap_or_default());
    let mut problems = Vec::new();
    for (key, new) in &now {
        match old.get(key) {
            None => problems.push(format!("{key:?}: not in the table (bless)")),
            Some(o) => {
                let r = new.regressions(o);
                if !r.is_empty() {
                    problems.push(format!("{key:?}: {}", r.join(", ")));
                }
            }
        }
    }
    for key in old.keys().filter(|k| !now.contains_key(*k)) {
        problems.push(format!(
            "{key:?}: in the table but not compiled any more (bless)"
        ));
    }
    assert!(
        problems.is_empty(),
        "ISA regressions against {TABLE} (ocloc {version}; review, then bless with \
         SPVOPT_BLESS_ISA=1):\n{}",
        problems.join("\n")
    );
}
