//! `hoist-block-payloads` and `lower-block-payloads` on the corpus's Triton GEMMs, and the
//! payload builtins through the other passes:
//! - `-O` for pvc and bmg turns every loop-carried 2D prefetch into a payload prefetch; on
//!   spv-sim the results are bit-identical and the prefetches are exactly the same operations
//!   (count, bytes, shapes, coverage of later loads) as `-O` without the pass; lowering them
//!   back gives the same again; the pass is idempotent;
//! - `-O` for targets whose consumer is not IGC leaves the prefetches native;
//! - `raise-builtins` and `lower-builtins` leave the payload calls alone;
//! - a payload `lower-block-payloads` cannot follow is a one-line located error.

use spvopt_passes::registry::OPTIMIZE_PIPELINE;
use spvopt_tests::corpus_launches::{gemm_launch, same_results, GEMMS};
use spvopt_tests::{pass_stat, run_checked};

const NO_HOIST: &str = "raise-builtins,convert-tensor-addressing,lower-mma,legalize,raise-block-io,fuse-block-loads,insert-prefetches,dce";

fn dis(m: &spvopt_ir::Module) -> String {
    spvopt_ir::text::disassemble(&m.to_words()).unwrap()
}

#[test]
fn the_o_pipeline_is_the_old_one_plus_the_hoist_before_dce() {
    assert_eq!(
        OPTIMIZE_PIPELINE.replace("hoist-block-payloads,", ""),
        NO_HOIST
    );
}

#[test]
fn triton_gemms_hoisted_prefetch_exactly_what_they_did() {
    let mut hoisted_kernels = 0;
    for g in GEMMS.iter() {
        let path = spvopt_tests::corpus_dir().join("triton").join(g.file);
        let original = spvopt_ir::load_bytes(&std::fs::read(&path).unwrap()).unwrap();
        for target in ["pvc", "bmg"] {
            let (plain, _) = run_checked(&original, NO_HOIST, target);
            let (ours, report) = run_checked(&original, "O", target);
            let seen = pass_stat(&report, "hoist-block-payloads", "prefetches_seen");
            let hoisted = pass_stat(&report, "hoist-block-payloads", "prefetches_hoisted");
            let skipped: u64 = report
                .passes
                .iter()
                .filter(|p| p.name == "hoist-block-payloads")
                .flat_map(|p| p.stats.counters.iter())
                .filter(|(k, _)| k.starts_with("skipped_"))
                .map(|(_, v)| *v)
                .sum();
            assert_eq!(
                seen,
                hoisted + skipped,
                "{}: every prefetch accounted",
                g.file
            );
            if hoisted == 0 {
                continue;
            }
            hoisted_kernels += 1;
            let text = dis(&ours);
            assert!(
                text.contains("__builtin_IB_subgroup_block_read_ap_prefetch_"),
                "{}",
                g.file
            );
            // Idempotent.
            let (again, r) = run_checked(&ours, "hoist-block-payloads", target);
            assert!(
                !r.changed() && again.to_words() == ours.to_words(),
                "{}",
                g.file
            );
            let (lowered, _) = run_checked(&ours, "lower-block-payloads", target);
            assert!(!dis(&lowered).contains("__builtin_IB"), "{}", g.file);
            let l = if g.tile_m == 8 {
                gemm_launch(g, 16, 512, 256)
            } else {
                gemm_launch(g, 128, 128, 128)
            };
            let a = spvopt_sim::run(&plain, &l).unwrap().counters;
            for (what, m) in [("-O", &ours), ("-O then lower", &lowered)] {
                same_results(&original, m, &l)
                    .unwrap_or_else(|e| panic!("{}: {what}: {e}", g.file));
                let b = spvopt_sim::run(m, &l).unwrap().counters;
                assert_eq!(a.prefetches, b.prefetches, "{} {target} {what}", g.file);
                assert_eq!(a.prefetched_bytes, b.prefetched_bytes, "{} {what}", g.file);
                assert_eq!(
                    a.prefetch_coverage, b.prefetch_coverage,
                    "{} {what}",
                    g.file
                );
                assert_eq!(a.block2d, b.block2d, "{} {what}", g.file);
            }
        }
    }
    assert!(hoisted_kernels >= 2, "the 2D GEMMs for pvc and bmg");
}

#[test]
fn targets_whose_consumer_is_not_igc_keep_native_prefetches() {
    let path =
        spvopt_tests::corpus_dir().join("triton/native/gemm_fp16_blockptr_128x128x32_w8__pvc.spv");
    let original = spvopt_ir::load_bytes(&std::fs::read(&path).unwrap()).unwrap();
    for target in ["generic", "dg2", "mtl", "cpu"] {
        let (out, report) = run_checked(&original, "O", target);
        assert!(!dis(&out).contains("__builtin_IB"), "{target}");
        assert_eq!(
            pass_stat(&report, "hoist-block-payloads", "prefetches_hoisted"),
            0
        );
    }
    // Forced (A/B): generic has 2D block IO in its tables.
    let (out, _) = run_checked(
        &original,
        "hoist-block-payloads(hoist-consumer=igc)",
        "generic",
    );
    assert!(dis(&out).contains("__builtin_IB_subgroup_createBlock2DAddressPayload"));
}

#[test]
fn raise_and_lower_builtins_leave_payload_calls_alone() {
    let path = spvopt_tests::corpus_dir().join("triton/gemm_fp16_blockptr_128x128x32_w8__pvc.spv");
    let original = spvopt_ir::load_bytes(&std::fs::read(&path).unwrap()).unwrap();
    let (ours, _) = run_checked(&original, "O", "pvc");
    let calls = |m: &spvopt_ir::Module| dis(m).matches("OpFunctionCall").count();
    let n = calls(&ours);
    assert!(n > 0);
    for p in [
        "raise-builtins",
        "lower-builtins",
        "raise-builtins,lower-builtins",
    ] {
        let (out, _) = run_checked(&ours, p, "pvc");
        let text = dis(&out);
        assert_eq!(
            text.matches("__builtin_IB_subgroup_block_read_ap_prefetch_")
                .count(),
            dis(&ours)
                .matches("__builtin_IB_subgroup_block_read_ap_prefetch_")
                .count(),
            "{p}"
        );
        assert!(calls(&out) >= n, "{p}: payload calls kept");
    }
}

#[test]
fn a_payload_through_a_phi_is_a_located_error() {
    let src = std::fs::read_to_string(
        spvopt_tests::corpus_dir().join("../fixtures/passes/lower_block_payloads_read_ap_loop.spvasm"),
    )
    .unwrap()
    .replace(
        "         %ra = OpFunctionCall %v8ushort %read %apa %uint_16 %uint_0 %uint_0",
        "        %app = OpPhi %ptr_fn_uint %apa %entry %apa %loop\n         %ra = OpFunctionCall %v8ushort %read %app %uint_16 %uint_0 %uint_0",
    );
    assert!(src.contains("%app = OpPhi"));
    let words = spvopt_ir::text::assemble(&src, spvopt_ir::text::TargetEnv::Universal_1_4).unwrap();
    let mut m = spvopt_ir::load_words(&words).unwrap();
    let e = spvopt_passes::run_pipeline(
        &spvopt_passes::Pipeline::parse("lower-block-payloads").unwrap(),
        &mut m,
        &spvopt_analysis::Target::by_name("pvc").unwrap(),
        &mut spvopt_passes::Hooks::default(),
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("lower-block-payloads"), "{e}");
    assert!(e.contains("OpPhi") || e.contains("payload"), "{e}");
    assert!(e.contains("in function %"), "{e}");
    assert!(!e.contains('\n'), "one line: {e}");
}
