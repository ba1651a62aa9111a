//! `spv-ab --device opencl` on Intel's OpenCL CPU runtime: `-O --target cpu` output of Triton
//! kernels runs on the device, agrees with spv-sim and is timed; the original kernels (2D block
//! and MMA builtins) are reported as not runnable, not crashed on; a device result outside
//! `--device-ulp` fails the run. Without the runtime (`$OPENCL_VENV` from
//! `.ci/install-opencl-cpu.sh`, whose Python must find a platform) the device test is reported
//! as *ignored* in the test summary, with a note; the usage errors are checked either way.

use std::path::{Path, PathBuf};
use std::process::Command;

use libtest_mimic::{Arguments, Failed, Trial};

fn corpus(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/corpus")
        .join(rel)
}

/// Whether the OpenCL runtime and the venv's pyopencl are there.
fn runtime() -> Option<String> {
    let venv = std::env::var("OPENCL_VENV").ok()?;
    let python = format!("{venv}/bin/python");
    let ok = Command::new(&python)
        .args([
            "-c",
            "import pyopencl as cl; assert cl.get_platforms()[0].get_devices()",
        ])
        .output()
        .is_ok_and(|o| o.status.success());
    ok.then_some(python)
}

fn spv_ab(args: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_spv-ab"));
    c.args(args);
    c
}

fn device_runs_agree_and_are_timed(python: &str) -> Result<(), Failed> {
    let tmp = tempfile::Builder::new()
        .prefix("spvopt-ab-device-")
        .tempdir()?;
    let dir = tmp.path();
    let (json, html) = (dir.join("r.json"), dir.join("r.html"));
    let o = spv_ab(&[
        "--a",
        "-O",
        "--b",
        "-O,dce",
        "--target",
        "cpu",
        "--device",
        "opencl:0",
        "--reps",
        "3",
        "--warmup",
        "1",
        "--device-ulp",
        "4",
        "--python",
        python,
    ])
    .arg("--launches")
    .arg(corpus("triton/launches"))
    .arg(corpus(
        "triton/nodbg/gemm_fp16_blockptr_128x128x32_w8__pvc.spv",
    ))
    .arg(corpus("triton/nodbg/softmax_fp32_1024_w4_sg16__pvc.spv"))
    .arg("--json")
    .arg(&json)
    .arg("--html")
    .arg(&html)
    .output()?;
    let table = String::from_utf8_lossy(&o.stdout);
    if !o.status.success() {
        return Err(format!(
            "spv-ab failed: {table}{}",
            String::from_utf8_lossy(&o.stderr)
        )
        .into());
    }
    let r: serde_json::Value = serde_json::from_slice(&std::fs::read(&json)?)?;
    if !r["device"].as_str().is_some_and(|d| d.contains("OpenCL")) {
        return Err(format!("device: {}", r["device"]).into());
    }
    for k in r["kernels"].as_array().ok_or("kernels")? {
        let name = k["kernel"].as_str().unwrap_or("");
        // The original GEMM calls the 2D block / MMA builtins the CPU runtime lacks; the
        // CPU runtime's compiler rejects softmax's MaxWorkgroupSizeINTEL hint.
        let o = &k["original"]["device"];
        let why: &[&str] = if name.contains("gemm") {
            &["needs 2D block IO"]
        } else {
            &[
                "rejected by the device's compiler",
                "unsupported capability 5892",
            ]
        };
        let note = o["note"].as_str().unwrap_or("");
        if o["status"] != "not_run" || !why.iter().all(|w| note.contains(w)) {
            return Err(format!("{name}: original: {o}").into());
        }
        for v in ["a", "b"] {
            let d = &k[v]["device"];
            let t = &d["time"];
            if d["status"] != "ran"
                || d["agrees"] != true
                || t["reps"] != 3
                || t["median_us"].as_f64().unwrap_or(0.0) <= 0.0
                || t["min_us"].as_f64() > t["median_us"].as_f64()
                || t["median_us"].as_f64() > t["max_us"].as_f64()
            {
                return Err(format!("{name}: {v}: {d}").into());
            }
        }
    }
    for want in [
        "device time (median us)",
        "device: 4 runs agree with spv-sim",
    ] {
        if !table.contains(want) {
            return Err(format!("table lacks {want:?}:\n{table}").into());
        }
    }
    let page = std::fs::read_to_string(&html)?;
    if page
        .matches("data-measure=\"device time (median us)\"")
        .count()
        != 2
    {
        return Err("HTML: no device time chart per kernel".into());
    }
    // Bit for bit, softmax's exp and division on the CPU runtime are not spv-sim's: the check
    // against spv-sim fails the run.
    let o = spv_ab(&[
        "--a", "-O", "--b", "-O", "--target", "cpu", "--device", "opencl", "--reps", "1",
        "--warmup", "0", "--python", python, "--json", "-", "--quiet",
    ])
    .arg("--launches")
    .arg(corpus("triton/launches"))
    .arg(corpus("triton/nodbg/softmax_fp32_1024_w4_sg16__pvc.spv"))
    .output()?;
    let r: serde_json::Value = serde_json::from_slice(&o.stdout)?;
    let a = &r["kernels"][0]["a"]["device"];
    if o.status.code() != Some(1)
        || a["agrees"] != false
        || !a["check"]
            .as_str()
            .unwrap_or("")
            .starts_with("DIFFERS: arg")
    {
        return Err(format!("exit {:?}, A on the device: {a}", o.status.code()).into());
    }
    // --device-max-bytes: A and B (about 15 KB) are above 1,000 bytes and not given to the
    // device's compiler; that is no failure.
    let o = spv_ab(&[
        "--a",
        "-O",
        "--b",
        "-O",
        "--target",
        "cpu",
        "--device",
        "opencl",
        "--reps",
        "1",
        "--warmup",
        "0",
        "--python",
        python,
        "--json",
        "-",
        "--quiet",
        "--device-max-bytes",
        "1000",
    ])
    .arg("--launches")
    .arg(corpus("triton/launches"))
    .arg(corpus("triton/nodbg/softmax_fp32_1024_w4_sg16__pvc.spv"))
    .output()?;
    let r: serde_json::Value = serde_json::from_slice(&o.stdout)?;
    for v in ["a", "b"] {
        let d = &r["kernels"][0][v]["device"];
        let note = d["note"].as_str().unwrap_or("");
        if o.status.code() != Some(0)
            || d["status"] != "not_run"
            || !note.contains("above --device-max-bytes 1000")
        {
            return Err(format!("exit {:?}, {v} on the device: {d}", o.status.code()).into());
        }
    }
    Ok(())
}

fn device_usage_errors() -> Result<(), Failed> {
    let kernel = corpus("triton/nodbg/softmax_fp32_1024_w4_sg16__pvc.spv");
    for args in [
        vec!["--device", "cuda"],
        vec!["--device", "opencl:x"],
        vec!["--device", "opencl", "--python", "/nonexistent/python"],
        vec!["--reps", "0"],
        vec!["--device-max-bytes", "many"],
    ] {
        let o = spv_ab(&["--a", "-O", "--b", "-O"])
            .args(&args)
            .arg(&kernel)
            .output()?;
        let e = String::from_utf8_lossy(&o.stderr);
        if o.status.code() != Some(2) || e.lines().count() != 1 {
            return Err(format!("{args:?}: exit {:?}: {e}", o.status.code()).into());
        }
    }
    Ok(())
}

fn main() {
    let args = Arguments::from_args();
    let device = match runtime() {
        Some(python) => Trial::test("device_runs_agree_and_are_timed", move || {
            device_runs_agree_and_are_timed(&python)
        }),
        None => {
            eprintln!(
                "note: no OpenCL runtime ($OPENCL_VENV unset or its Python finds no platform): \
                 the --device test is ignored; .ci/install-opencl-cpu.sh installs one"
            );
            Trial::test(
                "device_runs_agree_and_are_timed (no OpenCL runtime)",
                || Ok(()),
            )
            .with_ignored_flag(true)
        }
    };
    let usage = Trial::test("device_usage_errors", device_usage_errors);
    libtest_mimic::run(&args, vec![device, usage]).exit();
}
