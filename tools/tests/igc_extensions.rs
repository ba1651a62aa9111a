//! Extension declarations legalized against what each device's IGC accepts (issue 46, item 4;
//! the measured table: `analysis/src/target/igc_extensions.rs`). An unused
//! `SPV_NV_cooperative_matrix2` is removed and the EXT spelling of split barriers becomes the
//! INTEL one: IGC then compiles both outputs (on every device for the split barrier) where it
//! rejects the inputs (needs ocloc; skipped loudly without). A used extension the device's IGC
//! rejects (`SPV_EXT_float8` on pvc, accepted on cri) is a located error naming it and the
//! target.

use std::path::{Path, PathBuf};

use crate::common::{spv_opt, stderr, tmpdir};
use spvopt_tools::igc::{device_for_target, Ocloc};

fn fixture(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures")
        .join(rel)
}

/// `-O --target t` of a fixture: the output bytes, or the exit code and stderr.
fn optimize(rel: &str, t: &str) -> Result<Vec<u8>, (Option<i32>, String)> {
    let dir = tmpdir("igc_ext");
    let out = dir.join("o.spv");
    let o = spv_opt()
        .args(["-O", "--target", t])
        .arg(fixture(rel))
        .arg("-o")
        .arg(&out)
        .output()
        .unwrap();
    if o.status.success() {
        Ok(std::fs::read(&out).unwrap())
    } else {
        Err((o.status.code(), stderr(&o)))
    }
}

/// The fixture as given, assembled for SPIR-V 1.4.
fn input(rel: &str) -> Vec<u8> {
    spvopt_tools::io::to_binary(
        std::fs::read(fixture(rel)).unwrap(),
        rel,
        Some(spvopt_ir::text::TargetEnv::Universal_1_4),
    )
    .unwrap()
}

const COOPMAT2: &str = "passes/legalize_igc_extensions_unused_coopmat2.spvasm";
const SPLIT: &str = "passes/legalize_igc_extensions_split_barrier_alias.spvasm";
const FLOAT8: &str = "diagnostics/igc_extension_float8_used.spvasm";

#[test]
fn used_extension_the_device_rejects_is_a_located_error() {
    let (code, err) = optimize(FLOAT8, "pvc").expect_err("-O --target pvc accepted float8");
    assert_eq!(code, Some(1), "{err}");
    for part in ["OpExtension", "SPV_EXT_float8", "target pvc"] {
        assert!(err.contains(part), "no `{part}` in: {err}");
    }
    optimize(FLOAT8, "cri").expect("cri's IGC takes SPV_EXT_float8");
}

#[test]
fn legalized_declarations_compile_with_igc_where_the_inputs_do_not() {
    let coopmat2 = optimize(COOPMAT2, "pvc").unwrap();
    let split: Vec<(&str, Vec<u8>)> = ["pvc", "bmg", "lnl", "ptl", "cri", "dg2", "mtl"]
        .into_iter()
        .map(|t| (t, optimize(SPLIT, t).unwrap()))
        .collect();
    let Some(ocloc) = Ocloc::from_env() else {
        eprintln!(
            "!!!!!!!! igc_extensions: SKIPPED the IGC compiles: no ocloc ($SPVOPT_OCLOC unset, \
             none on PATH; .ci/install-igc.sh installs it) !!!!!!!!"
        );
        return;
    };
    let v = ocloc.version().unwrap();
    ocloc
        .compile(&coopmat2, "pvc", "")
        .unwrap_or_else(|e| panic!("ocloc {v}: coopmat2 output: {e}"));
    let e = ocloc.compile(&input(COOPMAT2), "pvc", "").unwrap_err();
    assert!(e.to_string().contains("SPV_NV_cooperative_matrix2"), "{e}");
    for (t, out) in &split {
        let d = device_for_target(t).unwrap();
        ocloc
            .compile(out, d, "")
            .unwrap_or_else(|e| panic!("ocloc {v}: split barrier output for {t}: {e}"));
    }
    let e = ocloc.compile(&input(SPLIT), "pvc", "").unwrap_err();
    assert!(e.to_string().contains("SPV_EXT_split_barrier"), "{e}");
}
