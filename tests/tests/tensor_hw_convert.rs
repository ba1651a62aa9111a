//! `convert-tensor-addressing` on every hardware-checked case of `tests/corpus/tensor-hw`:
//! the simulator gives `expected_<i>.bin` on the kernel as written and on the converted kernel;
//! the converted kernel has no cooperative-matrix or tensor instruction, validates, and a second
//! run of the pass changes nothing.

use std::path::{Path, PathBuf};

use spvopt_analysis::Target;
use spvopt_ir::text;
use spvopt_passes::optimize_words;
use spvopt_sim::{run, Launch};

fn cases() -> Vec<PathBuf> {
    let dir = spvopt_tests::corpus_dir().join("tensor-hw");
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("tensor-hw corpus")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("kernel.spvasm").exists())
        .collect();
    v.sort();
    v
}

fn words_of(case: &Path) -> Vec<u32> {
    let src = std::fs::read_to_string(case.join("kernel.spvasm")).unwrap();
    text::assemble(&src, text::parse_target_env("spv1.6").unwrap()).expect("assembles")
}

/// Runs the module with the case's launch and compares every `expected_<i>.bin`.
fn matches_expected(case: &Path, words: &[u32]) -> Result<(), String> {
    let m = spvopt_ir::load_words(words).map_err(|e| e.to_string())?;
    let launch = Launch::from_file(&case.join("launch.json")).map_err(|e| e.to_string())?;
    let out = run(&m, &launch).map_err(|e| format!("simulator: {e}"))?;
    let mut compared = 0;
    for (i, bytes) in &out.buffers {
        let expected = case.join(format!("expected_{i}.bin"));
        if let Ok(want) = std::fs::read(&expected) {
            compared += 1;
            if &want != bytes {
                let at = want.iter().zip(bytes).position(|(a, b)| a != b);
                return Err(format!(
                    "arg{i} differs from expected (first at byte {at:?})"
                ));
            }
        }
    }
    if compared == 0 {
        return Err("no expected_<i>.bin compared".into());
    }
    Ok(())
}

const LEFTOVER: &[&str] = &["Cooperative", "Tensor"];

#[test]
fn every_tensor_hw_case_converts_exactly() {
    let cases = cases();
    assert_eq!(cases.len(), 98, "the tensor-hw corpus has 98 cases");
    let target = Target::by_name("pvc").unwrap();
    let mut failures = Vec::new();
    for case in &cases {
        let name = case.file_name().unwrap().to_string_lossy().to_string();
        let check = || -> Result<(), String> {
            let words = words_of(case);
            matches_expected(case, &words).map_err(|e| format!("unconverted kernel: {e}"))?;
            let (out, report) = optimize_words(&words, "convert-tensor-addressing", &target)
                .map_err(|e| e.to_string())?;
            matches_expected(case, &out).map_err(|e| format!("converted kernel: {e}"))?;
            let dis = text::disassemble(&out).map_err(|e| e.to_string())?;
            if let Some(l) = dis.lines().find(|l| LEFTOVER.iter().any(|w| l.contains(w))) {
                return Err(format!("left over: {l}"));
            }
            let m = spvopt_ir::load_words(&out).map_err(|e| e.to_string())?;
            spvopt_passes::validate::validate_module(&m, text::parse_target_env("spv1.6").unwrap())
                .map_err(|e| format!("output does not validate: {e}"))?;
            let (again, _) = optimize_words(&out, "convert-tensor-addressing", &target)
                .map_err(|e| format!("second run: {e}"))?;
            if again != out {
                return Err("a second run changed the module".into());
            }
            // Every load and store is accounted for by one path.
            let stats = &report.passes[0].stats;
            let src = std::fs::read_to_string(case.join("kernel.spvasm")).unwrap();
            let count = |op: &str| src.matches(op).count() as u64;
            let loads = count("OpCooperativeMatrixLoadTensorNV");
            let stores = count("OpCooperativeMatrixStoreTensorNV");
            let by_path = |what: &str| -> u64 {
                ["block", "runtime_checked", "fallback"]
                    .iter()
                    .map(|p| stats.get(&format!("{p}_tensor_{what}")))
                    .sum()
            };
            if by_path("loads") != loads || by_path("stores") != stores {
                return Err(format!(
                    "statistics ({stats}) do not account for {loads} loads and {stores} stores"
                ));
            }
            Ok(())
        };
        if let Err(e) = check() {
            failures.push(format!("{name}: {e}"));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}
