//! Kernel facts per entry point and per function (issue 18) on the two-kernel fixture
//! `kernel_facts_two_subgroup_sizes.spvasm` (k8: SubgroupSize 8, k16: SubgroupSize 16, a helper
//! both call): the analysis, legalize's MMA check, fuse-block-loads, split-block-loads and the
//! simulator all use each kernel's own subgroup size, and the shared helper is handled
//! conservatively without affecting the kernels.

use spvopt_analysis::kernel_facts::{Fact, KernelFacts};
use spvopt_analysis::Target;
use spvopt_ir::Module;
use spvopt_passes::{run_pipeline, Pipeline, RunReport};
use spvopt_sim::{Arg, Launch};

fn fixture() -> Module {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/passes/kernel_facts_two_subgroup_sizes.spvasm");
    let text = std::fs::read_to_string(path).unwrap();
    let words = spvopt_ir::text::assemble(&text, spvopt_ir::text::TargetEnv::Universal_1_4)
        .unwrap_or_else(|e| panic!("fixture does not assemble: {e}"));
    spvopt_ir::load_words(&words).unwrap()
}

fn run(m: &Module, pipeline: &str, target: &str) -> (Module, RunReport) {
    let mut out = spvopt_ir::load_words(&m.to_words()).unwrap();
    let report = run_pipeline(
        &Pipeline::parse(pipeline).unwrap(),
        &mut out,
        &Target::by_name(target).unwrap(),
        &mut spvopt_tests::checked_hooks(),
    )
    .unwrap_or_else(|e| panic!("{pipeline}: {e}"));
    (out, report)
}

fn stat(r: &RunReport, pass: &str, name: &str) -> u64 {
    r.passes
        .iter()
        .filter(|p| p.name == pass)
        .map(|p| p.stats.get(name))
        .sum()
}

/// The function named `name` (OpName).
fn func(m: &Module, name: &str) -> spvopt_ir::FuncId {
    let names = spvopt_analysis::builtins::debug_names(m, &|_| true);
    m.function_ids()
        .find(|&f| {
            m.function_result(f)
                .and_then(|r| names.get(&r))
                .is_some_and(|n| n == name)
        })
        .unwrap()
}

fn buffer(bytes: Vec<u8>) -> Arg {
    Arg::Buffer {
        bytes,
        ty: None,
        ulp: None,
    }
}

fn launch(kernel: &str, sg: u64) -> Launch {
    let mut l = Launch::new(
        kernel,
        [sg, 1, 1],
        [sg, 1, 1],
        vec![
            buffer(spvopt_sim::launch::random_bytes(4096, 18, "u8", None).unwrap()),
            buffer(vec![0; 12288]),
        ],
    );
    // A subgroup size the kernels do not declare: ignored, each kernel's own size wins.
    l.subgroup_size = Some(32);
    l
}

#[test]
fn facts_are_per_kernel_and_the_shared_helper_conflicts() {
    let m = fixture();
    let f = KernelFacts::build(&m);
    assert_eq!(f.subgroup_size(func(&m, "k8")), Fact::Known(8));
    assert_eq!(f.subgroup_size(func(&m, "k16")), Fact::Known(16));
    assert_eq!(f.subgroup_size(func(&m, "helper")), Fact::Conflicting);
    assert_eq!(
        f.entry_by_name("k8").unwrap().local_size,
        Fact::Known([8, 1, 1])
    );
    assert_eq!(f.subgroups_per_workgroup(func(&m, "k16")), Fact::Known(1));
    assert_eq!(
        spvopt_analysis::KernelFacts::build(&m).module_subgroup_size(),
        None
    );
}

#[test]
fn legalize_reports_only_the_mma_pvc_lacks() {
    // pvc dispatches subgroup sizes 16 and 32 only: the k8 kernel (which uses 2D block loads and
    // an N = 8 MMA, so it cannot be re-declared) is the one error; k16 is legal, and its MMA is
    // native (lower-mma below), k8's the one lower-mma would have to lower.
    let mut m = fixture();
    let err = run_pipeline(
        &Pipeline::parse("legalize").unwrap(),
        &mut m,
        &Target::by_name("pvc").unwrap(),
        &mut spvopt_tests::checked_hooks(),
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("1 problem(s)"), "{err}");
    assert!(
        err.contains("kernel \"k8\": OpExecutionMode SubgroupSize 8"),
        "{err}"
    );
    assert!(!err.contains("k16"), "{err}");
    let (_, r) = run(&fixture(), "lower-mma", "pvc");
    assert_eq!(stat(&r, "lower-mma", "mma_candidates"), 2);
    assert_eq!(
        stat(&r, "lower-mma", "mma_native"),
        1,
        "the k16 kernel's MMA is native"
    );
    // dg2 has no 2D block IO: each kernel's own loads are lowered with its subgroup size; the
    // helper's cannot be (its data layout depends on the caller's subgroup size), and the error
    // names exactly those two loads.
    let mut m = fixture();
    let err = run_pipeline(
        &Pipeline::parse("legalize").unwrap(),
        &mut m,
        &Target::by_name("dg2").unwrap(),
        &mut spvopt_tests::checked_hooks(),
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("2 problem(s)"), "{err}");
    assert_eq!(
        err.matches("the kernels reaching this function declare no single SubgroupSize")
            .count(),
        2,
        "{err}"
    );
}

#[test]
fn fusion_and_split_per_kernel() {
    let m = fixture();
    let (fused, r) = run(&m, "fuse-block-loads", "pvc");
    assert_eq!(stat(&r, "fuse-block-loads", "loads_fused"), 4);
    assert_eq!(
        stat(&r, "fuse-block-loads", "rejected_conflicting_subgroup_size"),
        2
    );
    assert_eq!(
        stat(&r, "fuse-block-loads", "rejected_unknown_subgroup_size"),
        0
    );
    let (split, r) = run(&fused, "split-block-loads", "pvc");
    assert_eq!(
        stat(&r, "split-block-loads", "loads_split"),
        2,
        "{:?}",
        r.passes[0].stats
    );
    for (kernel, sg) in [("k8", 8u64), ("k16", 16)] {
        let l = launch(kernel, sg);
        for (what, t) in [("fused", &fused), ("split", &split)] {
            spvopt_tests::corpus_launches::same_results(&m, t, &l)
                .unwrap_or_else(|e| panic!("{kernel} {what}: {e}"));
        }
    }
}

#[test]
fn simulator_runs_each_kernel_at_its_own_subgroup_size() {
    let m = fixture();
    for (kernel, sg) in [("k8", 8u32), ("k16", 16)] {
        let out = spvopt_sim::run(&m, &launch(kernel, u64::from(sg))).unwrap();
        let dst = &out.buffers.iter().find(|(i, _)| *i == 1).unwrap().1;
        for gid in 0..sg as usize {
            let at = 8192 + gid * 16;
            let seen = u32::from_le_bytes(dst[at..at + 4].try_into().unwrap());
            assert_eq!(seen, sg, "{kernel}: SubgroupSize seen by invocation {gid}");
        }
        // The MMA ran: A = B = all ones (bf16), so every result element is K = 16.
        for gid in 0..sg as usize {
            let at = 4096 + gid * 32;
            let v = f32::from_le_bytes(dst[at..at + 4].try_into().unwrap());
            assert_eq!(v, 16.0, "{kernel}: MMA result of invocation {gid}");
        }
    }
}
