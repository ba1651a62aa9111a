//! The C client (`capi/examples/optimize.c`) compiled with the system C compiler against the
//! static library and run: it optimizes a corpus kernel with `-O` for pvc, checks the output
//! against the bytes spv-opt's command line writes, exercises the error paths, and runs 8
//! threads at once.

use std::path::{Path, PathBuf};
use std::process::Command;

/// `target/<profile>` of this test binary (`…/target/release/deps/c_client-…`).
fn profile_dir() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    exe.parent().unwrap().parent().unwrap().to_path_buf()
}

#[test]
fn c_client_optimizes_like_the_cli_and_runs_8_threads() {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    let input = here.join("../tests/corpus/triton/gemm_fp16_blockptr_128x128x32_w8__pvc.spv");
    // Removed however the test ends (tempfile's guard).
    let tmp = tempfile::Builder::new()
        .prefix("spvopt-capi-")
        .tempdir()
        .unwrap();
    let dir = tmp.path();
    let expected = dir.join("expected.spv");
    // The CLI's output, by the CLI's own code (spv-opt's main is this function).
    let code = spvopt_tools::opt_cli::run(&[
        "-O".into(),
        "--target".into(),
        "pvc".into(),
        input.display().to_string(),
        "-o".into(),
        expected.display().to_string(),
    ]);
    assert_eq!(code, 0);

    // `cargo test` links the tests against the rlib only: build the C libraries of this
    // profile (into this target directory) every time, so that they are never older than the
    // sources (a no-op when they are up to date).
    let lib_dir = profile_dir();
    {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let mut build = Command::new(cargo);
        build.args(["build", "-p", "spvopt-capi", "--lib"]);
        if lib_dir.file_name().is_some_and(|n| n == "release") {
            build.arg("--release");
        }
        if let Some(target_dir) = lib_dir.parent() {
            build.env("CARGO_TARGET_DIR", target_dir);
        }
        let o = build.current_dir(here).output().unwrap();
        assert!(
            o.status.success(),
            "building the C libraries: {}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
    // Install as a user would (header, libraries, pkg-config file), from this build.
    let prefix = dir.join("prefix");
    let o = Command::new("bash")
        .arg(here.join("install.sh"))
        .arg(&prefix)
        .env("SPVOPT_LIB_DIR", &lib_dir)
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "install.sh: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    let pc = std::fs::read_to_string(prefix.join("lib/pkgconfig/spvopt.pc")).unwrap();
    assert!(pc.contains("Libs: -L${libdir} -lspvopt"), "{pc}");
    // `CC` may carry a wrapper or flags (`ccache cc`), as build tools accept it.
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let mut cc_words = cc.split_whitespace();
    let cc_program = cc_words.next().unwrap_or("cc").to_string();
    let cc_args: Vec<String> = cc_words.map(str::to_string).collect();
    let compile = |flags: &[String], exe: &Path| {
        let o = Command::new(&cc_program)
            .args(&cc_args)
            .args(["-std=c11", "-O1", "-Wall", "-Wextra", "-Werror", "-pthread"])
            .arg("-D_POSIX_C_SOURCE=200809L")
            .arg(here.join("examples/optimize.c"))
            .args(flags)
            .arg("-o")
            .arg(exe)
            .output()
            .unwrap_or_else(|e| panic!("cannot run the C compiler {cc}: {e}"));
        assert!(
            o.status.success(),
            "compiling the C client failed:\n{}",
            String::from_utf8_lossy(&o.stderr)
        );
    };
    // Both builds run as a user runs them: no LD_LIBRARY_PATH (the shared one finds the library
    // through the rpath its link line gives, as capi/install.sh documents).
    let run = |exe: &Path| {
        let o = Command::new(exe)
            .arg(&input)
            .arg(&expected)
            .env_remove("LD_LIBRARY_PATH")
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&o.stdout);
        assert!(
            o.status.success() && stdout.starts_with("ok"),
            "C client {}: {stdout}{}",
            exe.display(),
            String::from_utf8_lossy(&o.stderr)
        );
    };
    // 1. Static: the installed libspvopt.a.
    let include = format!("-I{}", prefix.join("include/spvopt").display());
    let mut flags = vec![
        include.clone(),
        prefix.join("lib/libspvopt.a").display().to_string(),
    ];
    flags.extend(["-lstdc++", "-lpthread", "-ldl", "-lm", "-lrt", "-lgcc_s"].map(String::from));
    let exe = dir.join("optimize-static");
    compile(&flags, &exe);
    run(&exe);
    // The shared library is installed under its SONAME (libspvopt.so.<ABI version>), with the
    // libspvopt.so link the linker's -lspvopt finds.
    let soname = format!("libspvopt.so.{}", spvopt::spvopt_abi_version());
    let lib = prefix.join("lib");
    assert!(lib.join(&soname).is_file(), "{soname} not installed");
    assert_eq!(
        std::fs::read_link(lib.join("libspvopt.so")).unwrap(),
        Path::new(&soname)
    );
    if let Ok(o) = Command::new("readelf")
        .arg("-d")
        .arg(lib.join(&soname))
        .output()
    {
        let dynamic = String::from_utf8_lossy(&o.stdout);
        assert!(
            dynamic.contains(&format!("Library soname: [{soname}]")),
            "{dynamic}"
        );
    }
    // 2. Shared, with the flags pkg-config reads from the installed spvopt.pc, and an rpath.
    let pkg = Command::new("pkg-config")
        .args(["--cflags", "--libs", "spvopt"])
        .env("PKG_CONFIG_PATH", prefix.join("lib/pkgconfig"))
        .output();
    match pkg {
        Ok(o) if o.status.success() => {
            let mut flags: Vec<String> = String::from_utf8_lossy(&o.stdout)
                .split_whitespace()
                .map(String::from)
                .collect();
            flags.push(format!("-Wl,-rpath,{}", lib.display()));
            assert!(flags.contains(&include), "{flags:?}");
            let exe = dir.join("optimize-shared");
            compile(&flags, &exe);
            run(&exe);
        }
        _ => eprintln!(
            "NOTE: pkg-config not found: the shared-library build of the C client was not tested"
        ),
    }
}
