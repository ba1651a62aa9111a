//! `spv-ab`: equivalence over the corpus in all three report formats, and a deliberately
//! broken pass caught by the comparison and bisected to that pass and to its single bad
//! rewrite.

use std::path::{Path, PathBuf};
use std::process::Command;

use spvopt_analysis::{Analyses, AnalysisSet, Target};
use spvopt_ir::spirv::Op;
use spvopt_ir::Module;
use spvopt_passes::manager::PipelineStep;
use spvopt_passes::{Changes, Pass, PassError, PassInfo, PassResult, Pipeline, Statistics};
use spvopt_tools::ab::{self, bisect::Finding, Options, Verdict};

fn corpus(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/corpus")
        .join(rel)
}

/// The instructions the test-only pass rewrites: commutative ones, where swapping the
/// operands changes nothing, and `OpFSub`, where it miscompiles.
const SWAPPED: [Op; 7] = [
    Op::FAdd,
    Op::FMul,
    Op::IAdd,
    Op::IMul,
    Op::BitwiseAnd,
    Op::BitwiseOr,
    Op::FSub,
];

/// A miscompiling pass (test only): one rewrite per `OpFAdd`, `OpFMul`, `OpIAdd`, `OpIMul`,
/// `OpBitwiseAnd`, `OpBitwiseOr` and `OpFSub` in module order, swapping its two operands; harmless except for the first `OpFSub`
/// (later ones are left alone), so exactly one of its rewrites breaks the kernel. Honours
/// `max-changes` like every pass.
struct SwapOperands;

impl Pass for SwapOperands {
    fn name(&self) -> &'static str {
        "swap-operands"
    }
    fn run(
        &mut self,
        m: &mut Module,
        _: &mut Analyses,
        _: &Target,
        changes: &mut Changes,
    ) -> Result<PassResult, PassError> {
        let mut seen_fsub = false;
        let targets: Vec<_> = m
            .all_insts()
            .filter(|&i| {
                let is_fsub = m.inst(i).is(Op::FSub);
                let take = SWAPPED.iter().any(|&op| m.inst(i).is(op)) && !(is_fsub && seen_fsub);
                seen_fsub |= is_fsub;
                take
            })
            .collect();
        let mut stats = Statistics::default();
        for i in targets {
            if !changes.allow() {
                break;
            }
            m.inst_mut(i).operands_mut().swap(0, 1);
            stats.add("swapped", 1);
        }
        Ok(PassResult {
            changed: stats.get("swapped") > 0,
            preserved: AnalysisSet::ALL,
            stats,
        })
    }
}

static SWAP_OPERANDS: PassInfo = PassInfo {
    name: "swap-operands",
    description: "test only: several rewrites, one of which miscompiles",
    options: &[],
    construct: |_| Ok(Box::new(SwapOperands)),
};

/// The 1-based number, among the pass's rewrites on `m`, of the one that swaps an `OpFSub`.
fn fsub_rewrite_number(m: &Module) -> (u64, u64) {
    let rewritten: Vec<bool> = m
        .all_insts()
        .filter(|&i| SWAPPED.iter().any(|&op| m.inst(i).is(op)))
        .map(|i| m.inst(i).is(Op::FSub))
        .collect();
    let first = rewritten.iter().position(|&f| f).expect("an OpFSub") as u64 + 1;
    let total = rewritten.iter().filter(|&&f| !f).count() as u64 + 1;
    (first, total)
}

fn with_broken_pass(text: &str, at: usize) -> Pipeline {
    let mut p = Pipeline::parse(text).unwrap();
    p.steps.insert(
        at,
        PipelineStep {
            info: &SWAP_OPERANDS,
            options: Vec::new(),
        },
    );
    p
}

const SOFTMAX: &str = "triton/nodbg/softmax_fp32_1024_w4_sg16__pvc.spv";

#[test]
fn broken_pass_is_caught_and_bisected_to_the_pass_and_the_rewrite() {
    let kernel = corpus(SOFTMAX);
    let opts = Options {
        launches: Some(corpus("triton/launches")),
        ..Options::default()
    };
    let target = Target::by_name("pvc").unwrap();
    let good = ab::parse_pipeline("-O").unwrap();
    let broken = with_broken_pass("strip-debug,dce", 1);
    let r = ab::compare_kernel(&kernel, &opts, &good, &broken, &target);
    assert!(
        matches!(&r.verdict, Verdict::Differs(d) if d.starts_with("B vs original")),
        "{:?}",
        r.verdict
    );
    let r = ab::compare_kernel(&kernel, &opts, &good, &good, &target);
    assert_eq!(r.verdict, Verdict::Equivalent);
    // --ulp: the output buffer is f32 (from the kernel's parameter types); 1 ulp is not enough
    // for the miscompiled subtraction, a huge tolerance accepts it as "within".
    let tight = Options {
        ulp: 1,
        ..opts.clone()
    };
    let r = ab::compare_kernel(&kernel, &tight, &good, &broken, &target);
    assert!(
        matches!(&r.verdict, Verdict::Differs(d) if d.contains("beyond 1 ulp (as f32)")),
        "{:?}",
        r.verdict
    );
    let loose = Options {
        ulp: u64::MAX / 2,
        ..opts.clone()
    };
    let r = ab::compare_kernel(&kernel, &loose, &good, &broken, &target);
    assert!(
        matches!(&r.verdict, Verdict::Within(w) if w.starts_with("B: arg0:")),
        "{:?}",
        r.verdict
    );

    let module = ab::load_kernel(&kernel).unwrap();
    let launch = spvopt_sim::Launch::from_file(&ab::launch_for(&kernel, &opts).unwrap()).unwrap();
    // What the broken pass sees: the module after strip-debug.
    let mut stripped = module.clone();
    spvopt_passes::run_pipeline(
        &Pipeline::parse("strip-debug").unwrap(),
        &mut stripped,
        &target,
        &mut Default::default(),
    )
    .unwrap();
    let (bad_number, total) = fsub_rewrite_number(&stripped);
    assert!(bad_number > 1, "harmless rewrites come before the bad one");
    assert!(total > bad_number, "and after it");
    let finding = ab::bisect::bisect(&module, &broken, &target, &launch).unwrap();
    match &finding {
        Finding::FirstBadPass {
            index,
            pass,
            diff,
            transformation,
            ..
        } => {
            assert_eq!((*index, pass.as_str()), (1, "swap-operands"));
            // The whole pass changes many instructions ...
            assert!(
                changed_lines(diff).len() > 2 * bad_number as usize,
                "{diff}"
            );
            // ... the single transformation one OpFSub.
            let t = transformation.as_ref().unwrap();
            assert_eq!((t.number, t.of), (bad_number, total));
            assert_eq!(t.step, format!("swap-operands(max-changes={bad_number})"));
            let changed = changed_lines(&t.diff);
            assert_eq!(changed.len(), 2, "one instruction changed: {}", t.diff);
            assert!(changed.iter().all(|l| l.contains("OpFSub")), "{}", t.diff);
            assert!(t.difference.starts_with("arg0:"), "{}", t.difference);
        }
        other => panic!("{other:?}"),
    }
    let text = finding.text();
    eprintln!("{text}");
    assert!(
        text.contains(&format!(
            "first bad transformation: rewrite {bad_number} of {total} of `swap-operands`"
        )),
        "{text}"
    );
    // --bisect in the comparison: the kernel that differs is bisected the same way.
    let ev = ab::evaluate_kernel(&kernel, &opts, &good, &broken, &target);
    let b = ab::bisect_kernel(&ev, &good, &broken, &target);
    assert_eq!(b.pipeline, "B");
    assert_eq!(b.finding.as_deref(), Ok(text.as_str()));
    assert!(matches!(
        ab::bisect::bisect(&module, &good, &target, &launch).unwrap(),
        Finding::NoDifference { .. }
    ));
}

fn changed_lines(diff: &str) -> Vec<&str> {
    diff.lines()
        .filter(|l| {
            (l.starts_with('-') || l.starts_with('+'))
                && !l.starts_with("---")
                && !l.starts_with("+++")
        })
        .collect()
}

#[test]
fn corpus_ab_run_is_equivalent_in_all_formats() {
    let d = tempfile::Builder::new()
        .prefix("spvopt-ab-")
        .tempdir()
        .unwrap();
    let d = d.path();
    let (json, html) = (d.join("r.json"), d.join("r.html"));
    let o = Command::new(env!("CARGO_BIN_EXE_spv-ab"))
        .args([
            "--a",
            "-O",
            "--b",
            "-O,split-block-loads",
            "--target",
            "pvc",
        ])
        .arg("--launches")
        .arg(corpus("triton/launches"))
        .arg(corpus("triton"))
        .arg(corpus("tensor-hw"))
        .arg("--json")
        .arg(&json)
        .arg("--html")
        .arg(&html)
        .output()
        .unwrap();
    let table = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success(),
        "{table}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(
        table.contains("120 kernels: 120 equivalent, 0 within"),
        "{table}"
    );
    let r: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let kernels = r["kernels"].as_array().unwrap();
    assert_eq!(kernels.len(), 120);
    assert!(kernels.iter().all(|k| k["verdict"] == "equivalent"));
    // Deterministic order: the order of the folders given, sorted within each.
    let names: Vec<&str> = kernels
        .iter()
        .map(|k| k["kernel"].as_str().unwrap())
        .collect();
    let mut sorted_triton = names[..20].to_vec();
    sorted_triton.sort();
    assert_eq!(names[..20], sorted_triton[..]);
    assert!(kernels[0]["a"]["sim"]["block2d_messages"]
        .as_u64()
        .is_some());
    // Ordinary memory traffic beside the 2D block counters, for every kernel; some kernels
    // still go through local memory after -O (raise-block-io took the GEMMs' staging away).
    assert!(kernels.iter().all(|k| {
        let sim = &k["b"]["sim"];
        sim["memory"]["local"]["load"]["messages"].is_u64()
            && sim["memory_messages"].is_u64()
            && sim["memory_lines"].is_u64()
    }));
    assert!(kernels
        .iter()
        .any(|k| k["b"]["sim"]["memory"]["local"]["load"]["messages"].as_u64() > Some(0)));
    let no2d = kernels
        .iter()
        .find(|k| k["kernel"].as_str().unwrap().contains("_pvc_no2d"))
        .unwrap();
    assert!(no2d["b"]["sim"]["memory_messages"].as_u64().is_some());
    assert!(table.contains("local memory messages"), "{table}");
    // The table leads with the kernels that changed (each measure A -> B; split-block-loads
    // changes the 2D block messages of the block-pointer GEMMs), then the ones the same in A
    // and B, one line each (issue 29 item 7: 832 lines before for 118 kernels).
    let changed_at = table.find("changed between A and B, or failed: ").unwrap();
    let same_at = table.find("the same in A and B").unwrap();
    let gemm_block = table
        .find("gemm_fp16_blockptr_128x128x32_w8__pvc.spv  [equivalent]\n    ")
        .unwrap();
    assert!(changed_at < gemm_block && gemm_block < same_at, "{table}");
    assert!(table[same_at..].contains("softmax_fp32_1024_w4_sg16__pvc.spv  [equivalent]\n"));
    assert!(
        table.lines().count() < 400,
        "{} lines",
        table.lines().count()
    );
    let page = std::fs::read_to_string(&html).unwrap();
    // The HTML summary: A -> B with the change per measure, and totals.
    assert!(page.contains("<tr class=\"totals-row\"><th>total (120 kernels simulated)"));
    assert!(page.contains("2D block messages A &rarr; B"));
    assert_eq!(page.matches("<section class=\"kernel\">").count(), 120);
    assert!(page.contains("<svg") && page.contains("data-measure=\"2D block messages\""));
    assert!(page.contains("data-measure=\"local memory lines\""));
    // Same inputs, same report.
    let o2 = Command::new(env!("CARGO_BIN_EXE_spv-ab"))
        .args([
            "--a",
            "-O",
            "--b",
            "-O,split-block-loads",
            "--target",
            "pvc",
            "--jobs",
            "1",
            "--quiet",
        ])
        .arg("--launches")
        .arg(corpus("triton/launches"))
        .arg(corpus("triton"))
        .arg(corpus("tensor-hw"))
        .args(["--json", "-"])
        .output()
        .unwrap();
    let r2: serde_json::Value = serde_json::from_slice(&o2.stdout).unwrap();
    let strip = |v: &serde_json::Value| v["kernels"].clone();
    assert_eq!(strip(&r), strip(&r2), "parallel and serial runs agree");
}

#[test]
fn usage_errors_exit_2_with_one_line() {
    for args in [
        vec!["--a", "-O"],
        vec!["--a", "-O", "--b", "nope", "x.spv"],
        vec!["--bogus"],
    ] {
        let o = Command::new(env!("CARGO_BIN_EXE_spv-ab"))
            .args(&args)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert_eq!(
            String::from_utf8_lossy(&o.stderr).lines().count(),
            1,
            "{args:?}"
        );
    }
    let o = Command::new(env!("CARGO_BIN_EXE_spv-ab"))
        .arg("--help")
        .output()
        .unwrap();
    assert!(o.status.success());
}

/// `--subgroup-size N` (issue 29 item 8): a cooperative-matrix kernel that declares no
/// subgroup size fails `-O` without it; with it the original, A and B all declare N and are
/// proven equivalent on the simulator.
#[test]
fn subgroup_size_declares_one_on_kernels_without() {
    let case = corpus("tensor-hw/bt_a_interior");
    let dir = tempfile::Builder::new()
        .prefix("spvopt-ab-sg-")
        .tempdir()
        .unwrap();
    for f in std::fs::read_dir(&case).unwrap() {
        let f = f.unwrap().path();
        std::fs::copy(&f, dir.path().join(f.file_name().unwrap())).unwrap();
    }
    let kernel = dir.path().join("kernel.spvasm");
    let src = std::fs::read_to_string(&kernel).unwrap();
    let declared = "OpExecutionMode %main SubgroupSize 16\n";
    assert!(src.contains(declared));
    std::fs::write(&kernel, src.replacen(declared, "", 1)).unwrap();
    let opts = |sg: Option<&str>| Options {
        a: "-O".into(),
        b: "-O,dce".into(),
        target: Some("pvc".into()),
        launch: Some(dir.path().join("launch.json")),
        kernels: vec![kernel.clone()],
        jobs: Some(1),
        quiet: true,
        subgroup_size: sg.map(String::from),
        ..Options::default()
    };
    let report = ab::compare(&opts(None)).unwrap();
    assert!(
        matches!(&report.kernels[0].verdict, Verdict::Error(e) if e.contains("SubgroupSize")),
        "{:?}",
        report.kernels[0].verdict
    );
    let report = ab::compare(&opts(Some("16"))).unwrap();
    assert!(
        matches!(report.kernels[0].verdict, Verdict::Equivalent),
        "{:?}",
        report.kernels[0].verdict
    );
    let e = ab::compare(&opts(Some("8"))).err().unwrap();
    assert!(e.contains("not one of target pvc's"), "{e}");
}
