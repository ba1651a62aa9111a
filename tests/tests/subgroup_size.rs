//! `declare-subgroup-size` (`--subgroup-size N`): kernels that declare no `SubgroupSize` get
//! one, so `convert-tensor-addressing` can convert them. Every tensor-hw case with its
//! `SubgroupSize 16` removed converts with `--subgroup-size=16` and gives the hardware's
//! results on the simulator; the shipped `tests/corpus/tensor/` kernels (which declare none)
//! optimize with `-O` on every target; declared sizes are kept; a size the target lacks and a
//! malformed one are errors.

use spvopt_analysis::{KernelFacts, Target};
use spvopt_ir::text;
use spvopt_passes::{optimize_words, Optimizer};
use spvopt_sim::{run, Launch};

const DECLARED: &str = "OpExecutionMode %main SubgroupSize 16\n";

fn assemble(src: &str) -> Vec<u32> {
    text::assemble(src, text::parse_target_env("spv1.6").unwrap()).expect("assembles")
}

#[test]
fn tensor_hw_cases_without_a_declared_size_convert_with_subgroup_size_16() {
    let dir = spvopt_tests::corpus_dir().join("tensor-hw");
    let target = Target::by_name("pvc").unwrap();
    let optimizer = Optimizer::new(
        target.clone(),
        "--convert-tensor-addressing --subgroup-size=16",
    )
    .unwrap();
    let mut cases: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("kernel.spvasm").exists())
        .collect();
    cases.sort();
    let mut checked = 0;
    let mut failures = Vec::new();
    for case in &cases {
        let src = std::fs::read_to_string(case.join("kernel.spvasm")).unwrap();
        if !src.contains(DECLARED) {
            continue;
        }
        let words = assemble(&src.replacen(DECLARED, "", 1));
        let name = case.file_name().unwrap().to_string_lossy().to_string();
        // Without a size the conversion is refused, naming the flag that supplies one.
        let err = optimize_words(&words, "convert-tensor-addressing", &target).unwrap_err();
        assert!(err.to_string().contains("--subgroup-size"), "{name}: {err}");
        let out = match optimizer.run(&words) {
            Ok(o) => o,
            Err(e) => {
                failures.push(format!("{name}: {e}"));
                continue;
            }
        };
        assert_eq!(
            out.report.passes[0].stats.get("kernels_declared"),
            1,
            "{name}"
        );
        let m = spvopt_ir::load_words(&out.words).unwrap();
        assert_eq!(
            KernelFacts::build(&m).module_subgroup_size(),
            Some(16),
            "{name}"
        );
        let launch = Launch::from_file(&case.join("launch.json")).unwrap();
        let result = run(&m, &launch).unwrap();
        for (i, bytes) in &result.buffers {
            if let Ok(want) = std::fs::read(case.join(format!("expected_{i}.bin"))) {
                if &want != bytes {
                    failures.push(format!("{name}: arg{i} differs from the hardware's"));
                }
            }
        }
        checked += 1;
    }
    assert!(
        checked >= 90,
        "only {checked} cases declared SubgroupSize 16"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn shipped_tensor_kernels_optimize_on_every_target_with_a_subgroup_size() {
    let files = spvopt_tests::files_under(&spvopt_tests::corpus_dir().join("tensor"), "spvasm");
    assert!(files.len() >= 5, "{files:?}");
    let mut undeclared = 0;
    for target in Target::all() {
        let n = if target.subgroup_sizes().contains(&16) {
            16
        } else {
            target.subgroup_sizes()[0]
        };
        let with = Optimizer::new(target.clone(), &format!("-O --subgroup-size={n}")).unwrap();
        let without = Optimizer::new(target.clone(), "-O").unwrap();
        for f in &files {
            let words = assemble(&std::fs::read_to_string(f).unwrap());
            let input = spvopt_ir::load_words(&words).unwrap();
            let declared = KernelFacts::build(&input).module_subgroup_size();
            if declared.is_none() {
                undeclared += 1;
                let e = without.run(&words).unwrap_err().to_string();
                assert!(
                    e.contains("declare one SubgroupSize"),
                    "{}: {e}",
                    f.display()
                );
            }
            let out = with
                .run(&words)
                .unwrap_or_else(|e| panic!("{} for {}: {e}", f.display(), target.name));
            let m = spvopt_ir::load_words(&out.words).unwrap();
            assert_eq!(
                KernelFacts::build(&m).module_subgroup_size(),
                Some(declared.unwrap_or(n))
            );
            let dis = text::disassemble(&out.words).unwrap();
            assert!(!dis.contains("CooperativeMatrix"), "{}", f.display());
            spvopt_passes::validate::validate_module(
                &m,
                text::universal_env_for_version(m.header.version),
            )
            .unwrap_or_else(|e| panic!("{} for {}: {e}", f.display(), target.name));
        }
    }
    assert!(undeclared >= 4 * Target::all().len(), "{undeclared}");
}

#[test]
fn declared_sizes_are_kept_and_bad_sizes_refused() {
    let path = spvopt_tests::corpus_dir().join("tensor-hw/bt_a_interior/kernel.spvasm");
    let words = assemble(&std::fs::read_to_string(path).unwrap());
    let pvc = Target::by_name("pvc").unwrap();
    // Declared 16, asked 32: kept, byte for byte.
    let (out, report) =
        optimize_words(&words, "declare-subgroup-size(subgroup-size=32)", &pvc).unwrap();
    assert_eq!(out, words);
    assert_eq!(report.passes[0].stats.get("kernels_keeping_their_size"), 1);
    assert!(!report.passes[0].changed);
    // Without the option the pass changes nothing.
    let (out, _) = optimize_words(&words, "declare-subgroup-size", &pvc).unwrap();
    assert_eq!(out, words);
    // A size the target lacks, a size that is no power of two.
    let stripped = assemble(
        &std::fs::read_to_string(
            spvopt_tests::corpus_dir().join("tensor-hw/bt_a_interior/kernel.spvasm"),
        )
        .unwrap()
        .replacen(DECLARED, "", 1),
    );
    let e = optimize_words(&stripped, "declare-subgroup-size(subgroup-size=8)", &pvc)
        .unwrap_err()
        .to_string();
    assert!(e.contains("not one of target pvc's (16, 32)"), "{e}");
    let e = Optimizer::new(pvc.clone(), "-O --subgroup-size=12")
        .unwrap_err()
        .to_string();
    assert!(e.contains("power of two"), "{e}");
    // max-changes=0: nothing declared.
    let (out, _) = optimize_words(
        &stripped,
        "declare-subgroup-size(subgroup-size=16,max-changes=0)",
        &pvc,
    )
    .unwrap();
    assert_eq!(out, stripped);
}
