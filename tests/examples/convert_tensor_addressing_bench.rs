//! Time of `convert-tensor-addressing` per input instruction on modules of many copies of the
//! `mul_mm_cm2`-pattern GEMM (`tests/corpus/tensor/gemm_cm2_f16.spvasm`, one kernel per copy),
//! to show that the pass is linear in module size.
//!
//! `cargo run --release -p spvopt-tests --example convert_tensor_addressing_bench [SIZES] [REPS]`
//! SIZES: comma-separated instruction counts (default 100000,1000000); REPS: runs per size, the
//! best is reported (default 5).

use std::collections::HashSet;

use spvopt_analysis::Target;
use spvopt_ir::text;
use spvopt_passes::convert_tensor_addressing::ConvertTensorAddressing;

/// The kernel's text, split into the module-level part and the function.
fn parts() -> (String, String) {
    let path = spvopt_tests::corpus_dir().join("tensor/gemm_cm2_f16.spvasm");
    let src = std::fs::read_to_string(path).expect("kernel");
    let at = src.find("%main = OpFunction").expect("function");
    let line_start = src[..at].rfind('\n').map_or(0, |p| p + 1);
    (src[..line_start].to_string(), src[line_start..].to_string())
}

/// A module with `copies` kernels `gemm_0 ..`: the function's ids get a suffix per copy.
fn module_text(copies: usize) -> String {
    let (head, func) = parts();
    let local: HashSet<String> = func
        .lines()
        .filter_map(|l| l.split_once('=').map(|(lhs, _)| lhs.trim().to_string()))
        .filter(|id| id.starts_with('%'))
        .collect();
    let mut out = String::with_capacity(head.len() + func.len() * copies);
    for line in head.lines() {
        let t = line.trim_start();
        if t.starts_with("OpEntryPoint") || t.starts_with("OpExecutionMode") {
            for i in 0..copies {
                let l = line
                    .replace("%main ", &format!("%main_{i} "))
                    .replace("\"gemm\"", &format!("\"gemm_{i}\""));
                out.push_str(&l);
                out.push('\n');
            }
        } else if t.starts_with("OpName ") {
            continue;
        } else {
            out.push_str(line);
            out.push('\n');
        }
    }
    for i in 0..copies {
        for line in func.lines() {
            let renamed: Vec<String> = line
                .split_whitespace()
                .map(|tok| {
                    if local.contains(tok) {
                        format!("{tok}_{i}")
                    } else {
                        tok.to_string()
                    }
                })
                .collect();
            out.push_str(&renamed.join(" "));
            out.push('\n');
        }
    }
    out
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let sizes: Vec<usize> = args
        .first()
        .map(|s| s.split(',').filter_map(|x| x.parse().ok()).collect())
        .unwrap_or_else(|| vec![100_000, 1_000_000]);
    let reps: usize = args.get(1).and_then(|r| r.parse().ok()).unwrap_or(5);
    let count = |copies: usize| {
        let w = text::assemble(
            &module_text(copies),
            text::parse_target_env("spv1.6").unwrap(),
        )
        .expect("assembles");
        spvopt_ir::load_words(&w).unwrap().instruction_count()
    };
    let per_copy = count(2) - count(1);
    let target = Target::by_name("pvc").unwrap();
    println!(
        "{:>10} {:>8} {:>12} {:>12} {:>14}",
        "instrs", "kernels", "out instrs", "best (ms)", "ns / instr"
    );
    let mut first: Option<f64> = None;
    for size in sizes {
        let copies = (size / per_copy).max(1);
        let words = text::assemble(
            &module_text(copies),
            text::parse_target_env("spv1.6").unwrap(),
        )
        .expect("assembles");
        let input = spvopt_ir::load_words(&words).unwrap();
        let n = input.instruction_count();
        let (best, out) =
            spvopt_tests::best_pass_time(&mut ConvertTensorAddressing, &input, &target, reps);
        let out_n = out.instruction_count();
        let ns = best.as_secs_f64() * 1e9 / n as f64;
        let ratio = first.map_or(String::new(), |f| {
            format!("  ({:.2}x the first size)", ns / f)
        });
        first.get_or_insert(ns);
        println!(
            "{n:>10} {copies:>8} {out_n:>12} {:>12.1} {ns:>14.1}{ratio}",
            best.as_secs_f64() * 1e3
        );
    }
}
