//! The full judge sweep (issue 46): every corpus kernel (Triton, OpenCL samples, tensor,
//! tensor-hw, user kernels: all of `tests/corpus`) through `-O --target T` for T in pvc, bmg,
//! lnl, ptl, cri, dg2, mtl, each output (with `--subgroup-size 16`, which declares a size only
//! where a kernel declares none) compiled by Intel's IGC for T's device (256 GRF for matrix kernels where the device has it),
//! failing on a compile error or an unresolved symbol.
//!
//! `SPVOPT_OCLOC=... cargo run --release -p spvopt-tools --example igc_sweep [-- FILTER]`
//! (FILTER: a substring of the kernel path). One line per failure, a summary with the ocloc
//! version and the time; exit 1 when a compile failed, 2 without ocloc. With
//! `IGC_SWEEP_PRINT=1` each compile's ISA facts are printed as one JSON line; with
//! `IGC_SWEEP_INPUT=1` the input module is compiled too, unchanged, for the same device and its
//! outcome printed beside (`"input"`: the ISA summary per kernel, or the error): what IGC does
//! without spv-opt (README's cross-device table). Input failures are not sweep failures.
//! `IGC_SWEEP_TARGETS=pvc,bmg` restricts the devices; every compile slower than
//! `IGC_SWEEP_SLOW` seconds (2 unless set) is listed at the end.

use std::path::{Path, PathBuf};
use std::time::Instant;

use rayon::prelude::*;
use spvopt_analysis::Target;
use spvopt_tools::igc::{device_for_target, IsaSummary, Ocloc, LARGE_GRF};

const TARGETS: [&str; 7] = ["pvc", "bmg", "lnl", "ptl", "cri", "dg2", "mtl"];

fn kernels(root: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for dir in [
        "triton",
        "triton/native",
        "triton/nodbg",
        "triton/dg2",
        "triton/dg2/nodbg",
        "opencl-samples",
        "tensor",
        "user-kernels",
    ] {
        for e in std::fs::read_dir(root.join(dir))
            .into_iter()
            .flatten()
            .flatten()
        {
            let p = e.path();
            let is_spv = p.extension().is_some_and(|x| x == "spv");
            let tensor_text = dir == "tensor"
                && p.extension().is_some_and(|x| x == "spvasm")
                && !p.with_extension("spv").exists();
            if is_spv || tensor_text {
                out.push(p);
            }
        }
    }
    for e in std::fs::read_dir(root.join("tensor-hw"))
        .into_iter()
        .flatten()
        .flatten()
    {
        let p = e.path().join("kernel.spvasm");
        if p.exists() {
            out.push(p);
        }
    }
    out.sort();
    out
}

/// Matrix kernels (Triton's GEMMs, DPAS samples, cooperative matrices) are built with 256 GRF:
/// the module multiplies matrices after `-O`, or its name says it is a GEMM.
fn is_matrix_kernel(path: &Path, words: &[u32]) -> bool {
    use spvopt_ir::spirv::Op;
    path.to_string_lossy().contains("gemm")
        || spvopt_ir::load_words(words).is_ok_and(|m| {
            m.all_insts().any(|i| {
                let inst = m.inst(i);
                inst.is(Op::SubgroupMatrixMultiplyAccumulateINTEL)
                    || inst.is(Op::CooperativeMatrixMulAddKHR)
            })
        })
}

fn env_flag(name: &str) -> bool {
    std::env::var_os(name).is_some_and(|v| v == "1")
}

fn main() {
    let filter = std::env::args().nth(1).unwrap_or_default();
    let Some(ocloc) = Ocloc::from_env() else {
        eprintln!("igc_sweep: no ocloc: set SPVOPT_OCLOC (.ci/install-igc.sh installs it)");
        std::process::exit(2);
    };
    let version = ocloc.version().unwrap_or_else(|e| {
        eprintln!("igc_sweep: {e}");
        std::process::exit(2)
    });
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/corpus");
    let only: Option<Vec<String>> = std::env::var("IGC_SWEEP_TARGETS")
        .ok()
        .map(|v| v.split(',').map(str::to_string).collect());
    let targets: Vec<&str> = TARGETS
        .iter()
        .copied()
        .filter(|t| only.as_ref().is_none_or(|o| o.iter().any(|x| x == t)))
        .collect();
    let jobs: Vec<(PathBuf, &str)> = kernels(&root)
        .into_iter()
        .filter(|k| k.to_string_lossy().contains(&filter))
        .flat_map(|k| targets.iter().map(move |&t| (k.clone(), t)))
        .collect();
    let start = Instant::now();
    let results: Vec<Result<(f64, String), String>> = jobs
        .par_iter()
        .map(|(k, t)| {
            let rel = k.strip_prefix(&root).unwrap_or(k).display().to_string();
            let bytes = std::fs::read(k).map_err(|e| format!("{rel}: {e}"))?;
            let bytes = spvopt_tools::io::to_binary(bytes, &rel, None)?;
            let words: Vec<u32> = bytes
                .chunks_exact(4)
                .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect();
            let target = Target::by_name(t).map_err(|e| e.to_string())?;
            // What the README tells users of kernels that declare no SubgroupSize (the
            // cooperative-matrix ones `convert-tensor-addressing` needs a size for):
            // `--subgroup-size 16`, which leaves kernels that declare one as they are.
            let out = spvopt_passes::Optimizer::new(target, "-O --subgroup-size=16")
                .map_err(|e| e.to_string())?
                .with_output_validation(None)
                .run(&words)
                .map_err(|e| format!("{rel} -O --target {t}: spv-opt: {e}"))?;
            let spv: Vec<u8> = out.words.iter().flat_map(|w| w.to_le_bytes()).collect();
            let large = is_matrix_kernel(k, &out.words) && !matches!(*t, "dg2" | "mtl");
            let options = if large { LARGE_GRF } else { "" };
            let compile_start = Instant::now();
            let isa = ocloc
                .compile(&spv, device_for_target(t).unwrap(), options)
                .map_err(|e| format!("{rel} -O --target {t}: {e}"))?;
            let seconds = compile_start.elapsed().as_secs_f64();
            let device = device_for_target(t).unwrap();
            if env_flag("IGC_SWEEP_PRINT") || env_flag("IGC_SWEEP_INPUT") {
                let summary = |isa: &spvopt_tools::igc::ModuleIsa| -> serde_json::Value {
                    isa.kernels
                        .iter()
                        .map(|(k, f)| (k.clone(), serde_json::json!(IsaSummary::of(f))))
                        .collect::<serde_json::Map<_, _>>()
                        .into()
                };
                let mut facts = serde_json::json!({
                    "kernel": rel, "target": t, "options": options, "seconds": seconds,
                    "summary": summary(&isa),
                });
                if env_flag("IGC_SWEEP_PRINT") {
                    facts["isa"] = serde_json::json!(isa);
                }
                if env_flag("IGC_SWEEP_INPUT") {
                    let input_large = is_matrix_kernel(k, &words) && !matches!(*t, "dg2" | "mtl");
                    let input_options = if input_large { LARGE_GRF } else { "" };
                    facts["input"] = match ocloc.compile(&bytes, device, input_options) {
                        Ok(i) => serde_json::json!({"summary": summary(&i)}),
                        Err(e) => serde_json::json!({"error": e.to_string()}),
                    };
                }
                println!("{facts}");
            }
            Ok((seconds, format!("{rel} on {t}")))
        })
        .collect();
    let failed: Vec<&String> = results.iter().filter_map(|r| r.as_ref().err()).collect();
    let slowest = results.iter().flatten().max_by(|a, b| a.0.total_cmp(&b.0));
    for f in &failed {
        println!("FAIL {f}");
    }
    println!(
        "igc_sweep: {} of {} (kernel x device) compiles of -O output succeeded, no unresolved \
         symbol; ocloc {version}; {:.0} s",
        results.len() - failed.len(),
        results.len(),
        start.elapsed().as_secs_f64()
    );
    if let Some((seconds, what)) = slowest {
        println!("igc_sweep: slowest compile {seconds:.1} s ({what})");
    }
    let slow_limit: f64 = std::env::var("IGC_SWEEP_SLOW")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2.0);
    let mut slow: Vec<&(f64, String)> = results
        .iter()
        .flatten()
        .filter(|r| r.0 > slow_limit)
        .collect();
    slow.sort_by(|a, b| b.0.total_cmp(&a.0));
    println!(
        "igc_sweep: {} compiles over {slow_limit} s{}",
        slow.len(),
        if slow.is_empty() { "" } else { ":" }
    );
    for (seconds, what) in slow {
        println!("  {seconds:.1} s  {what}");
    }
    std::process::exit(i32::from(!failed.is_empty()));
}
