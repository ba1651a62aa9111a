//! Kernels as a user brings them (`tests/corpus/user-kernels`, issue 42): OpenCL C compiled by
//! clang-15 and llvm-spirv-15 (`build.sh`, sources beside the modules). `dpas_2d` is a bf16
//! GEMM with a 2-D work-group (`reqd_work_group_size(16, 4, 1)`, subgroup size 16) whose A rows
//! come from `get_global_id(1)`: its y ids are subgroup-uniform, so `-O --target pvc` fuses its
//! two adjacent A loads and prefetches every 2D load, and the result is bit-identical on
//! spv-sim and equal to A·B.

use std::path::PathBuf;

use spvopt_passes::registry::OPTIMIZE_PIPELINE;
use spvopt_sim::{Arg, Launch};
use spvopt_tests::{pass_stat as stat, run_checked};

fn dir() -> PathBuf {
    spvopt_tests::corpus_dir().join("user-kernels")
}

fn bf16s(bytes: &[u8]) -> Vec<f64> {
    bytes
        .chunks_exact(2)
        .map(|c| {
            f64::from(f32::from_bits(
                u32::from(u16::from_le_bytes([c[0], c[1]])) << 16,
            ))
        })
        .collect()
}

fn buffer(l: &Launch, i: usize) -> &[u8] {
    match &l.args[i] {
        Arg::Buffer { bytes, .. } => bytes,
        a => panic!("argument {i} is not a buffer: {a:?}"),
    }
}

#[test]
fn every_module_has_its_source_and_a_launch() {
    let spvs = spvopt_tests::spv_files_under(&dir());
    assert!(!spvs.is_empty());
    for p in spvs {
        let name = p.file_stem().unwrap().to_string_lossy().into_owned();
        assert!(p.with_extension("cl").is_file(), "{name}: no .cl source");
        let launch = dir().join("launches").join(format!("{name}.launch.json"));
        assert!(launch.is_file(), "{name}: no launch");
    }
}

#[test]
fn dpas_2d_is_fused_and_prefetched_and_exact_on_spv_sim() {
    let bytes = std::fs::read(dir().join("dpas_2d.spv")).unwrap();
    let m = spvopt_ir::load_bytes(&bytes).unwrap();
    let (o, r) = run_checked(&m, OPTIMIZE_PIPELINE, "pvc");
    // Two 8x16 A loads side by side become one 8r16x2c load, the two B loads one above the
    // other one taller load (vertical phase); nothing is rejected as non-uniform, every 2D
    // load of the loop is prefetched.
    assert_eq!(stat(&r, "fuse-block-loads", "loads_before"), 4);
    assert_eq!(stat(&r, "fuse-block-loads", "loads_fused"), 2, "{r:?}");
    assert_eq!(
        stat(&r, "fuse-block-loads", "vertical_outcome_fused"),
        2,
        "{r:?}"
    );
    assert_eq!(stat(&r, "fuse-block-loads", "loads_after"), 2);
    assert_eq!(stat(&r, "insert-prefetches", "skipped_not_uniform"), 0);
    assert_eq!(
        stat(&r, "insert-prefetches", "loads_prefetched"),
        2,
        "{r:?}"
    );
    assert!(stat(&r, "insert-prefetches", "prologue_prefetches") > 0);

    let launch_path = dir().join("launches/dpas_2d.launch.json");
    spvopt_tests::sim_equivalent(&m, &o, &launch_path).unwrap();

    // C (M x N, f32) = A (M x K) * B (K x N), bf16 inputs, within f32 accumulation error.
    let l = Launch::from_file(&launch_path).unwrap();
    let res = spvopt_sim::run(&o, &l).unwrap();
    let c = &res.buffers.iter().find(|(i, _)| *i == 0).unwrap().1;
    let (a, b) = (bf16s(buffer(&l, 1)), bf16s(buffer(&l, 2)));
    let (n, mm) = (l.global_size[0] as usize, 8 * l.global_size[1] as usize);
    let k = a.len() / mm;
    assert_eq!(b.len(), k * n);
    for row in 0..mm {
        for col in 0..n {
            let want: f64 = (0..k).map(|i| a[row * k + i] * b[i * n + col]).sum();
            let bound: f64 = (0..k)
                .map(|i| (a[row * k + i] * b[i * n + col]).abs())
                .sum();
            let at = 4 * (row * n + col);
            let got = f64::from(f32::from_le_bytes([c[at], c[at + 1], c[at + 2], c[at + 3]]));
            assert!(
                (got - want).abs() <= 1e-6 + bound * 2f64.powi(-16),
                "C[{row}][{col}] = {got}, reference {want}"
            );
        }
    }
}
