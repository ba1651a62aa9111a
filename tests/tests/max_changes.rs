//! `max-changes`: every pass stops after N rewrites and leaves a valid module.
//!
//! For every pass fixture (its last pass, on the module the earlier passes of its `RUN` line
//! produce) and for real corpus kernels: the pass runs on its own with `max-changes=N` for
//! every N from 0 to its unlimited rewrite count T (sampled when T is large). N = 0 leaves the
//! module byte-identical; each prefix reports min(N, T) rewrites, loads again, validates when
//! the input did, and — where a launch exists — gives spv-sim the input's buffers bit for bit
//! (every pass preserves semantics); N = T gives the unlimited output byte for byte.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use spvopt_analysis::Target;
use spvopt_ir::text::{self, TargetEnv};
use spvopt_ir::Module;
use spvopt_passes::manager::{run_pass, split_max_changes};
use spvopt_passes::registry::{PassInfo, PassOptions};
use spvopt_passes::validate::validate_module;
use spvopt_passes::{run_pipeline, Pipeline, REGISTRY};
use spvopt_sim::Launch;
use spvopt_tests::{corpus_dir, directive, fixtures_in};

/// The N to try for a pass with `total` rewrites: all of them up to 40, else an even spread
/// with both ends.
fn prefixes(total: u64) -> Vec<u64> {
    if total <= 40 {
        return (0..=total).collect();
    }
    let mut v: Vec<u64> = (0..=16).map(|k| k * total / 16).collect();
    v.extend([1, 2, total - 1]);
    v.sort_unstable();
    v.dedup();
    v
}

/// A module to run a pass on, with its target, validation environment and launch.
struct Input<'a> {
    module: &'a Module,
    target: &'a Target,
    env: TargetEnv,
    launch: Option<&'a Launch>,
}

/// Checks every prefix of `info` on `input`; returns the unlimited rewrite count, or `None`
/// when the pass fails on this input (fixtures of errors).
fn check_prefixes(
    what: &str,
    info: &'static PassInfo,
    options: &PassOptions,
    input: &Input,
    sim_runs: usize,
) -> Option<u64> {
    let Input {
        module: input,
        target,
        env,
        launch,
    } = *input;
    let mut full = input.clone();
    let record = run_pass(info, options, None, &mut full, target).ok()?;
    let total = record.changes;
    assert_eq!(
        record.changed,
        total > 0,
        "{what}: changed iff it counted rewrites"
    );
    let input_words = input.to_words();
    // spv-opt's validation: spirv-val with the deviations real compiler output carries.
    let input_valid = validate_module(input, env).is_ok();
    let reference = launch.map(|l| spvopt_sim::run(input, l).expect("the input simulates"));
    let all = prefixes(total);
    // Simulate an even spread of the prefixes (the ends included).
    let step = (all.len() / sim_runs.max(1)).max(1);
    for (k, &n) in all.iter().enumerate() {
        let at = format!("{what}: {} with max-changes={n} (of {total})", info.name);
        let mut m = input.clone();
        let r = run_pass(info, options, Some(n), &mut m, target)
            .unwrap_or_else(|e| panic!("{at}: {e}"));
        if info.name == "dce" {
            // Dead items that only use each other go together (all or none): a limit inside
            // such a group stops before it.
            assert!(r.changes <= n.min(total), "{at}: rewrites made");
        } else {
            assert_eq!(r.changes, n.min(total), "{at}: rewrites made");
        }
        let words = m.to_words();
        if n == 0 {
            assert!(!r.changed && words == input_words, "{at}: module changed");
        }
        if n == total {
            assert!(
                words == full.to_words(),
                "{at}: differs from the unlimited run"
            );
        }
        let reloaded =
            spvopt_ir::load_words(&words).unwrap_or_else(|e| panic!("{at}: does not load: {e}"));
        if input_valid {
            validate_module(&reloaded, env)
                .unwrap_or_else(|e| panic!("{at}: does not validate: {e}"));
        }
        if let (Some(l), Some(reference)) = (launch, &reference) {
            if k % step == 0 || n == total {
                let out = spvopt_sim::run(&m, l).unwrap_or_else(|e| panic!("{at}: spv-sim: {e}"));
                assert!(out.buffers == reference.buffers, "{at}: results changed");
            }
        }
    }
    Some(total)
}

/// Runs `pipeline` on `m`.
fn apply(m: &mut Module, pipeline: &str, target: &Target) {
    if !pipeline.is_empty() {
        run_pipeline(
            &Pipeline::parse(pipeline).unwrap(),
            m,
            target,
            &mut spvopt_tests::checked_hooks(),
        )
        .unwrap_or_else(|e| panic!("{pipeline}: {e}"));
    }
}

#[test]
fn every_pass_honours_max_changes_on_every_fixture() {
    // Per pass: the largest rewrite count seen and the fixtures checked.
    let mut seen: BTreeMap<&str, (u64, usize)> = BTreeMap::new();
    for path in fixtures_in("passes") {
        let source = std::fs::read_to_string(&path).unwrap();
        let name = path.file_stem().unwrap().to_string_lossy().to_string();
        let Some(run) = directive(&source, "RUN") else {
            continue;
        };
        let env = directive(&source, "TARGET-ENV").map_or(TargetEnv::Universal_1_4, |e| {
            text::parse_target_env(e).unwrap()
        });
        let target = directive(&source, "TARGET")
            .map_or_else(Target::default, |t| Target::by_name(t).unwrap());
        let pipeline = Pipeline::parse(run).unwrap();
        let Some((last, earlier)) = pipeline.steps.split_last() else {
            continue;
        };
        let words = text::assemble(&source, env).unwrap();
        let mut input = spvopt_ir::load_words(&words).unwrap();
        let mut before = Pipeline::new();
        for s in earlier {
            before.push(s.info.name, s.options.clone()).unwrap();
        }
        if run_pipeline(
            &before,
            &mut input,
            &target,
            &mut spvopt_tests::checked_hooks(),
        )
        .is_err()
        {
            continue;
        }
        let (_, options) = split_max_changes(last.info.name, &last.options).unwrap();
        let launch_path = path.with_extension("launch.json");
        let launch = launch_path
            .exists()
            .then(|| Launch::from_file(&launch_path).unwrap());
        let setting = Input {
            module: &input,
            target: &target,
            env,
            launch: launch.as_ref(),
        };
        if let Some(total) = check_prefixes(&name, last.info, &options, &setting, 8) {
            let e = seen.entry(last.info.name).or_default();
            *e = (e.0.max(total), e.1 + 1);
        }
    }
    eprintln!("per pass: (most rewrites in one fixture, fixtures checked): {seen:?}");
    for p in REGISTRY {
        let (most, fixtures) = seen.get(p.name).copied().unwrap_or_default();
        // (Prefixes of two rewrites or more, for every pass: the real kernels below.)
        assert!(
            fixtures > 0 && most > 0,
            "{}: no fixture made a rewrite",
            p.name
        );
    }
}

fn corpus(rel: &str) -> PathBuf {
    corpus_dir().join(rel)
}

fn load(path: &Path) -> Module {
    let bytes = std::fs::read(path).unwrap();
    if path.extension().is_some_and(|e| e == "spvasm") {
        let words = text::assemble(
            std::str::from_utf8(&bytes).unwrap(),
            text::parse_target_env("spv1.6").unwrap(),
        )
        .unwrap();
        return spvopt_ir::load_words(&words).unwrap();
    }
    spvopt_ir::load_bytes(&bytes).unwrap()
}

/// The launch of a corpus kernel: `launches/NAME.launch.json` beside it or one folder up
/// (Triton's `native/`), else `launch.json` beside it (tensor-hw cases).
fn corpus_launch(path: &Path) -> Option<Launch> {
    let stem = path.file_stem()?.to_string_lossy().to_string();
    let dir = path.parent()?;
    [
        dir.join("launches").join(format!("{stem}.launch.json")),
        dir.parent()?
            .join("launches")
            .join(format!("{stem}.launch.json")),
        dir.join("launch.json"),
    ]
    .into_iter()
    .find(|p| p.is_file())
    .map(|p| Launch::from_file(&p).unwrap())
}

#[test]
fn every_pass_honours_max_changes_on_real_kernels() {
    const GEMM: &str = "triton/gemm_fp16_blockptr_128x128x32_w8__pvc.spv";
    const NATIVE: &str = "triton/native/gemm_fp16_blockptr_128x128x32_w8__pvc.spv";
    // (pass, target, what runs before it, kernel)
    let cases: &[(&str, &str, &str, &str)] = &[
        (
            "strip-debug",
            "pvc",
            "",
            "triton/softmax_fp32_1024_w4_sg16__pvc.spv",
        ),
        ("raise-builtins", "pvc", "", GEMM),
        ("lower-builtins", "pvc", "", NATIVE),
        ("strip-prefetches", "pvc", "", GEMM),
        ("dce", "pvc", "strip-prefetches", NATIVE),
        ("insert-prefetches", "pvc", "strip-prefetches", NATIVE),
        ("fuse-block-loads", "pvc", "split-block-loads", NATIVE),
        ("split-block-loads", "pvc", "", NATIVE),
        ("legalize", "dg2", "", NATIVE),
        ("lower-mma", "mtl", "", NATIVE),
        (
            "convert-tensor-addressing",
            "pvc",
            "",
            "tensor-hw/bb_T_b8/kernel.spvasm",
        ),
    ];
    for &(pass, target, before, kernel) in cases {
        let path = corpus(kernel);
        let target = Target::by_name(target).unwrap();
        let mut input = load(&path);
        let env = text::universal_env_for_version(input.header.version);
        apply(&mut input, before, &target);
        let info = spvopt_passes::lookup(pass).unwrap();
        let launch = corpus_launch(&path);
        assert!(launch.is_some(), "{kernel}: no launch");
        let setting = Input {
            module: &input,
            target: &target,
            env,
            launch: launch.as_ref(),
        };
        let total = check_prefixes(kernel, info, &Vec::new(), &setting, 4)
            .unwrap_or_else(|| panic!("{pass} fails on {kernel}"));
        let least = if pass == "convert-tensor-addressing" {
            1
        } else {
            2
        };
        assert!(total >= least, "{pass} on {kernel}: {total} rewrites");
    }
}
