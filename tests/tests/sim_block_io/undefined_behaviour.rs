//! Undefined behaviour through the CLI: exit status 1 and one line.

use super::*;

/// `spv-sim` beside this test's executable (target/<profile>/spv-sim), built on demand.
fn spv_sim() -> PathBuf {
    let exe = std::env::current_exe().expect("test executable");
    let dir = exe.parent().and_then(Path::parent).expect("target dir");
    let bin = dir.join(format!("spv-sim{}", std::env::consts::EXE_SUFFIX));
    if !bin.exists() {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let mut cmd = std::process::Command::new(cargo);
        cmd.args(["build", "-p", "spvopt-tools", "--bin", "spv-sim"]);
        if dir.file_name().is_some_and(|n| n == "release") {
            cmd.arg("--release");
        }
        let st = cmd.status().expect("cargo build spv-sim");
        assert!(
            st.success() && bin.exists(),
            "could not build {}",
            bin.display()
        );
    }
    bin
}

/// Runs `spv-sim run block2d_ub.spvasm --launch ub_NAME.launch.json`: (exit status, stderr).
fn run_ub(name: &str) -> (i32, String) {
    let tmp = tempfile::Builder::new()
        .prefix("spvopt-sim-ub-")
        .tempdir()
        .unwrap();
    let out_dir = tmp.path().join("out");
    let o = std::process::Command::new(spv_sim())
        .arg("run")
        .arg(fixtures().join("block2d_ub.spvasm"))
        .arg("--launch")
        .arg(fixtures().join(format!("ub_{name}.launch.json")))
        .arg("--out")
        .arg(&out_dir)
        .output()
        .expect("spv-sim runs");
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

#[test]
fn undefined_behaviour_exits_2_with_one_line() {
    // the same kernel without undefined behaviour runs
    let (code, err) = run_ub("ok");
    assert_eq!(code, 0, "{err}");
    for (name, what, inst, invocation) in [
        (
            "nonuniform_coordinate",
            "Coordinate is not dynamically uniform (invocations 0 and 1 differ)",
            "at OpSubgroup2DBlockLoadINTEL",
            "invocation (0, 0, 0)",
        ),
        (
            "misaligned_base",
            "not 64-byte (cache-line) aligned",
            "at OpSubgroup2DBlockLoadINTEL",
            "invocation (0, 0, 0)",
        ),
        (
            "divergent",
            "not reached by the whole subgroup (invocations [8, 9, 10, 11, 12, 13, 14, 15] are elsewhere)",
            "at OpSubgroup2DBlockLoadINTEL",
            "invocation (0, 0, 0)",
        ),
        (
            "out_of_bounds",
            "out-of-bounds access: 1 bytes at address",
            "at %byte = OpLoad",
            "invocation (6, 0, 0)",
        ),
    ] {
        let (code, err) = run_ub(name);
        assert_eq!(code, 1, "{name}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{name}: not one line: {err}");
        for part in [what, "in function main", inst, invocation] {
            assert!(err.contains(part), "{name}: `{part}` missing from: {err}");
        }
        assert!(err.starts_with("spv-sim: error: "), "{err}");
    }
    // a bad command line is an error too, not a panic
    let o = std::process::Command::new(spv_sim())
        .args(["run", "--block-layout", "diagonal"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
}
