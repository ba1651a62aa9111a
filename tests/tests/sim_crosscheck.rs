//! Cross-check of spv-sim against a real OpenCL runtime: every kernel in `tests/crosscheck/kernels`
//! is assembled (with its `; target-env:` line, default spv1.2), run through the simulator
//! library with its launch file, and every buffer compared with `expected/NAME/arg<i>.bin`
//! (produced by Intel's OpenCL CPU runtime) by `compare.py`'s rule: bit-identical, except
//! buffers whose launch entry has `"ulp": N` (and `"type"`), compared element-wise within N
//! units in the last place (NaN matches NaN).

use std::path::{Path, PathBuf};

use spvopt_ir::text;
use spvopt_sim::values::ulp_distance;
use spvopt_sim::Launch;

fn crosscheck_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("crosscheck")
}

fn target_env(src: &str) -> String {
    src.lines()
        .find_map(|l| {
            l.strip_prefix("; target-env:")
                .map(|e| e.trim().to_string())
        })
        .unwrap_or_else(|| "spv1.2".to_string())
}

fn run_one(name: &str) -> Result<(), String> {
    let dir = crosscheck_dir();
    let asm_path = dir.join("kernels").join(format!("{name}.spvasm"));
    let src = std::fs::read_to_string(&asm_path).map_err(|e| e.to_string())?;
    let env = text::parse_target_env(&target_env(&src)).map_err(|e| e.to_string())?;
    let words = text::assemble(&src, env).map_err(|e| format!("assemble: {e}"))?;
    let module = spvopt_ir::load_words(&words).map_err(|e| e.to_string())?;
    let launch_path = dir.join("kernels").join(format!("{name}.launch.json"));
    let launch = Launch::from_file(&launch_path).map_err(|e| e.to_string())?;
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&launch_path).map_err(|e| e.to_string())?)
            .map_err(|e| e.to_string())?;
    let out = spvopt_sim::run(&module, &launch).map_err(|e| format!("simulator: {e}"))?;
    let exp_dir = dir.join("expected").join(name);
    let mut expected: Vec<usize> = std::fs::read_dir(&exp_dir)
        .map_err(|e| e.to_string())?
        .filter_map(|e| {
            let n = e.ok()?.file_name().into_string().ok()?;
            n.strip_prefix("arg")?.strip_suffix(".bin")?.parse().ok()
        })
        .collect();
    expected.sort();
    let got: Vec<usize> = out.buffers.iter().map(|b| b.0).collect();
    if got != expected {
        return Err(format!("buffers {got:?} written, expected {expected:?}"));
    }
    for (i, data) in &out.buffers {
        let want = std::fs::read(exp_dir.join(format!("arg{i}.bin"))).map_err(|e| e.to_string())?;
        if *data == want {
            continue;
        }
        if data.len() != want.len() {
            return Err(format!(
                "arg{i} has {} bytes, expected {}",
                data.len(),
                want.len()
            ));
        }
        let arg = &json["args"][*i];
        let Some(ulp) = arg.get("ulp").and_then(|u| u.as_u64()) else {
            let j = data
                .iter()
                .zip(&want)
                .position(|(a, b)| a != b)
                .unwrap_or(0);
            return Err(format!(
                "arg{i} differs first at byte {j} (got {:02x?}, expected {:02x?})",
                &data[j - j % 4..(j - j % 4 + 8).min(data.len())],
                &want[j - j % 4..(j - j % 4 + 8).min(want.len())]
            ));
        };
        let size = match arg["type"].as_str() {
            Some("f16") => 2,
            Some("f32") => 4,
            Some("f64") => 8,
            t => return Err(format!("arg{i}: ulp without a float type ({t:?})")),
        };
        for (j, (a, b)) in data.chunks(size).zip(want.chunks(size)).enumerate() {
            let mut x = [0u8; 8];
            let mut y = [0u8; 8];
            x[..size].copy_from_slice(a);
            y[..size].copy_from_slice(b);
            let d = ulp_distance(
                u64::from_le_bytes(x),
                u64::from_le_bytes(y),
                size as u32 * 8,
            );
            if d > ulp {
                return Err(format!("arg{i} element {j} is {d} ulp off (> {ulp})"));
            }
        }
    }
    Ok(())
}

#[test]
fn crosscheck_kernels_match_the_opencl_cpu_runtime() {
    let mut names: Vec<String> = std::fs::read_dir(crosscheck_dir().join("kernels"))
        .expect("kernels dir")
        .filter_map(|e| {
            let n = e.ok()?.file_name().into_string().ok()?;
            n.strip_suffix(".spvasm").map(str::to_string)
        })
        .collect();
    names.sort();
    assert!(names.len() >= 20, "only {} kernels", names.len());
    let mut failures = Vec::new();
    for n in &names {
        if let Err(e) = run_one(n) {
            failures.push(format!("{n}: {e}"));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} kernels differ:\n{}",
        failures.len(),
        names.len(),
        failures.join("\n")
    );
}
