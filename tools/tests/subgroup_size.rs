//! A kernel requiring a subgroup size the target lacks (issue 46, item 4): `SubgroupSize 8` for
//! pvc (16 and 32 only). Size-agnostic: `-O` re-declares it 16 and IGC compiles the output for
//! pvc (needs ocloc, skipped loudly without). Size-dependent (a shuffle, the subgroup local id
//! read in a helper): `-O` exits 1 with a located error naming the entry point, the execution
//! mode and the target, writes nothing, and `--check-env --target pvc` reports the same.

use std::path::{Path, PathBuf};

use crate::common::{spv_opt, stderr, tmpdir};
use spvopt_tools::igc::Ocloc;

fn fixture(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures")
        .join(rel)
}

/// The pass fixture's module as a `.spvasm` file spv-opt reads (the fixture itself is one).
const AGNOSTIC: &str = "passes/legalize_subgroup_size_redeclared.spvasm";
const DEPENDENT: [(&str, &str); 2] = [
    (
        "diagnostics/subgroup_size_8_shuffle.spvasm",
        "OpSubgroupShuffleDownINTEL",
    ),
    (
        "diagnostics/subgroup_size_8_local_id.spvasm",
        "reads a subgroup built-in",
    ),
];

#[test]
fn size_agnostic_sg8_kernel_is_redeclared_16_and_igc_compiles_it_for_pvc() {
    let dir = tmpdir("sg8_agnostic");
    let out = dir.join("k.spv");
    let o = spv_opt()
        .args(["-O", "--target", "pvc"])
        .arg(fixture(AGNOSTIC))
        .arg("-o")
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let bytes = std::fs::read(&out).unwrap();
    let words: Vec<u32> = bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    let listing = spvopt_ir::text::disassemble(&words).unwrap();
    assert!(listing.contains("SubgroupSize 16"), "{listing}");
    assert!(!listing.contains("SubgroupSize 8"), "{listing}");
    // --check-env says legalize re-declares it (and exits 1: the input as given is not legal).
    let c = spv_opt()
        .args(["--check-env", "--target", "pvc"])
        .arg(fixture(AGNOSTIC))
        .output()
        .unwrap();
    assert!(
        stderr(&c).contains("size-agnostic, legalize re-declares it SubgroupSize 16"),
        "{}",
        stderr(&c)
    );
    let Some(ocloc) = Ocloc::from_env() else {
        eprintln!(
            "!!!!!!!! subgroup_size: SKIPPED the IGC compile: no ocloc ($SPVOPT_OCLOC unset, \
             none on PATH; .ci/install-igc.sh installs it) !!!!!!!!"
        );
        return;
    };
    let spv = std::fs::read(&out).unwrap();
    let isa = ocloc
        .compile(&spv, "pvc", "")
        .unwrap_or_else(|e| panic!("IGC for pvc rejects the re-declared kernel: {e}"));
    let k = &isa.kernels["k"];
    assert_eq!(k.simd_size, Some(16), "IGC {}", isa.ocloc_version);
    // The input as given is what IGC rejects (so the test would notice IGC changing its mind).
    let raw = spvopt_tools::io::to_binary(
        std::fs::read(fixture(AGNOSTIC)).unwrap(),
        AGNOSTIC,
        Some(spvopt_ir::text::TargetEnv::Universal_1_4),
    )
    .unwrap();
    let e = ocloc
        .compile(&raw, "pvc", "")
        .expect_err("IGC accepted SubgroupSize 8 on pvc");
    assert!(e.to_string().contains("subgroup size 8"), "{e}");
}

#[test]
fn size_dependent_sg8_kernel_is_a_located_error_for_pvc() {
    let dir = tmpdir("sg8_dependent");
    for (rel, reason) in DEPENDENT {
        let out = dir.join("out.spv");
        let o = spv_opt()
            .args(["-O", "--target", "pvc"])
            .arg(fixture(rel))
            .arg("-o")
            .arg(&out)
            .output()
            .unwrap();
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(1), "{rel}: {err}");
        assert!(!out.exists(), "{rel}: an output was written");
        for part in [
            "kernel \"k\"",
            "OpExecutionMode SubgroupSize 8",
            "target pvc",
            reason,
        ] {
            assert!(err.contains(part), "{rel}: no `{part}` in: {err}");
        }
        let c = spv_opt()
            .args(["--check-env", "--target", "pvc"])
            .arg(fixture(rel))
            .output()
            .unwrap();
        let cerr = stderr(&c);
        assert_eq!(c.status.code(), Some(1), "{rel}: {cerr}");
        assert!(
            cerr.contains("cannot be re-declared") && cerr.contains(reason),
            "{rel}: {cerr}"
        );
        // dg2 dispatches 8: nothing to report, -O succeeds.
        let d = spv_opt()
            .args(["--check-env", "--target", "dg2"])
            .arg(fixture(rel))
            .output()
            .unwrap();
        assert!(d.status.success(), "{rel} dg2: {}", stderr(&d));
    }
}
