//! The C client (`capi/examples/optimize.c`) compiled with the system C compiler against the
//! library as `capi/install.sh` installs it — the archive named on the command line, and
//! through pkg-config both ways (`spvopt`: shared, found at run time through the .pc's rpath;
//! `spvopt-static`, and `--static` on an archive-only install: static) — and run without
//! LD_LIBRARY_PATH: it optimizes a corpus kernel with `-O` for pvc, checks the output against
//! the bytes spv-opt's command line writes, exercises the error paths, receives located errors
//! and warnings through the structured diagnostic callback (checked against the text callback's
//! line), and runs 8 threads at once. The installed archive must stay within 20 MB (no debug
//! info, no LLVM bitcode).

use std::path::{Path, PathBuf};
use std::process::Command;

/// `target/<profile>` of this test binary (`…/target/release/deps/c_client-…`).
fn profile_dir() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    exe.parent().unwrap().parent().unwrap().to_path_buf()
}

/// Builds the C libraries of this test's profile into its target directory and returns that
/// profile directory. `cargo test` links the tests against the rlib only, so this runs every
/// time: the libraries are never older than the sources (a no-op when they are up to date).
fn build_c_libraries() -> PathBuf {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    let lib_dir = profile_dir();
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
    lib_dir
}

/// The C compiler (`CC` may carry a wrapper or flags, `ccache cc`, as build tools accept it)
/// as a program and its leading arguments.
fn c_compiler() -> (String, Vec<String>) {
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let mut words = cc.split_whitespace();
    let program = words.next().unwrap_or("cc").to_string();
    (program, words.map(str::to_string).collect())
}

/// What a program linked statically against `libspvopt.a` needs besides it.
const STATIC_LIBS: [&str; 6] = ["-lstdc++", "-lpthread", "-ldl", "-lm", "-lrt", "-lgcc_s"];

/// The first ```c block after `marker` in `doc`.
fn c_snippet(doc: &str, marker: &str) -> String {
    let from = doc
        .find(marker)
        .unwrap_or_else(|| panic!("{marker:?} not found"));
    let rest = &doc[from..];
    let start = rest.find("```c\n").expect("a ```c block") + 5;
    let len = rest[start..].find("```").expect("the block's end");
    rest[start..start + len].to_string()
}

/// The C snippets of the README and the guide, as written, inside a `main` that reads a
/// module from stdin (issue 42: the README's crashed on the first failing run). Compiled
/// against the static library and run on random bytes (every call fails: exit 0, nothing
/// written, no crash) and on a real kernel (the optimized module on stdout).
#[test]
fn the_documented_c_snippets_compile_and_survive_a_failing_run() {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    let lib_dir = build_c_libraries();
    let tmp = tempfile::Builder::new()
        .prefix("spvopt-snippet-")
        .tempdir()
        .unwrap();
    let read = |p: &str| std::fs::read_to_string(here.join(p)).unwrap();
    let snippets = [
        ("readme", c_snippet(&read("../README.md"), "**C.**")),
        (
            "guide",
            c_snippet(&read("../docs/guide.md"), "## C API (`capi/`)"),
        ),
    ];
    let mut random = vec![0u8; 4096];
    let mut x = 0x2545_f491_4f6c_dd1du64;
    for b in random.iter_mut() {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        *b = x as u8;
    }
    let kernel = std::fs::read(
        here.join("../tests/corpus/triton/gemm_fp16_blockptr_128x128x32_w8__pvc.spv"),
    )
    .unwrap();
    let (cc, cc_args) = c_compiler();
    for (name, snippet) in snippets {
        let src = tmp.path().join(format!("{name}.c"));
        let program = format!(
            "#include <stdint.h>\n#include <stdio.h>\n#include <spvopt.h>\n\
             static void on_message(spvopt_message_level l, const char *s, const char *m, void *u)\n\
             {{ (void)l; (void)u; fprintf(stderr, \"%s: %s\\n\", s, m); }}\n\
             static void on_diag(const spvopt_diagnostic *d, void *u) {{ (void)d; (void)u; }}\n\
             static uint32_t input[1 << 20];\n\
             int main(void) {{\n\
             void *ctx = NULL; (void)ctx; (void)on_message; (void)on_diag;\n\
             size_t word_count = fread(input, sizeof(uint32_t), 1 << 20, stdin);\n\
             const uint32_t *words = input;\n{snippet}\nreturn 0;\n}}\n"
        );
        std::fs::write(&src, program).unwrap();
        let exe = tmp.path().join(name);
        let o = Command::new(&cc)
            .args(&cc_args)
            .args(["-std=c11", "-O1", "-Wall", "-Werror", "-pthread"])
            .arg(format!("-I{}", here.join("include").display()))
            .arg(&src)
            .arg(lib_dir.join("libspvopt.a"))
            .args(STATIC_LIBS)
            .arg("-o")
            .arg(&exe)
            .output()
            .unwrap_or_else(|e| panic!("cannot run the C compiler {cc}: {e}"));
        assert!(
            o.status.success(),
            "the {name} snippet does not compile:\n{}",
            String::from_utf8_lossy(&o.stderr)
        );
        let run = |input: &[u8]| {
            use std::io::Write;
            let mut child = Command::new(&exe)
                .stdin(std::process::Stdio::piped())
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap();
            child.stdin.take().unwrap().write_all(input).unwrap();
            child.wait_with_output().unwrap()
        };
        let failed = run(&random);
        assert!(
            failed.status.success() && failed.stdout.is_empty(),
            "the {name} snippet on random bytes: {:?}\n{}",
            failed.status,
            String::from_utf8_lossy(&failed.stderr)
        );
        let ok = run(&kernel);
        assert!(
            ok.status.success() && ok.stdout.starts_with(&0x0723_0203u32.to_le_bytes()),
            "the {name} snippet on a kernel: {:?}\n{}",
            ok.status,
            String::from_utf8_lossy(&ok.stderr)
        );
    }
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
    // One f64 MMA with fixed ids (the C client checks them in the diagnostics): legalize warns
    // about it, lower-mma cannot lower it for pvc.
    let mma = dir.join("f64_mma.spv");
    let fixture = here.join("../tests/fixtures/diagnostics/f64_mma.spvasm");
    let text = std::fs::read_to_string(&fixture).unwrap();
    let words = spvopt_ir::text::assemble(&text, spvopt_ir::text::TargetEnv::Universal_1_4)
        .expect("assemble the f64 MMA fixture");
    std::fs::write(
        &mma,
        words
            .iter()
            .flat_map(|w| w.to_le_bytes())
            .collect::<Vec<u8>>(),
    )
    .unwrap();
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

    let lib_dir = build_c_libraries();
    // Install as a user would (header, libraries, pkg-config files), from this build: once
    // with the shared library, once (`--no-shared`) with the archive only.
    let install = |prefix: &Path, extra: &[&str]| {
        let o = Command::new("bash")
            .arg(here.join("install.sh"))
            .args(extra)
            .arg(prefix)
            .env("SPVOPT_LIB_DIR", &lib_dir)
            .output()
            .unwrap();
        assert!(
            o.status.success(),
            "install.sh: {}",
            String::from_utf8_lossy(&o.stderr)
        );
    };
    let prefix = dir.join("prefix");
    install(&prefix, &[]);
    let static_prefix = dir.join("prefix-static");
    install(&static_prefix, &["--no-shared"]);
    let pc = std::fs::read_to_string(prefix.join("lib/pkgconfig/spvopt.pc")).unwrap();
    assert!(
        pc.contains("Libs: -L${libdir} -lspvopt -Wl,-rpath,${libdir}"),
        "{pc}"
    );
    // The installed archive: no debug information, no LLVM bitcode (issue 29: at most 20 MB).
    let archive = prefix.join("lib/libspvopt.a");
    let archive_bytes = std::fs::metadata(&archive).unwrap().len();
    if Command::new("objcopy").arg("--version").output().is_ok() {
        assert!(
            archive_bytes <= 20 << 20,
            "installed libspvopt.a has {archive_bytes} bytes"
        );
    }
    let (cc_program, cc_args) = c_compiler();
    let cc = cc_program.clone();
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
            "compiling the C client with {flags:?} failed:\n{}",
            String::from_utf8_lossy(&o.stderr)
        );
    };
    // Every build runs as a user runs it: no LD_LIBRARY_PATH (the shared one finds the
    // library through the rpath spvopt.pc gives).
    let run = |exe: &Path| {
        let o = Command::new(exe)
            .arg(&input)
            .arg(&expected)
            .arg(&mma)
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
    // Whether `exe` loads libspvopt.so (readelf's NEEDED entries; None without readelf).
    let needs_shared = |exe: &Path| -> Option<bool> {
        let o = Command::new("readelf").arg("-d").arg(exe).output().ok()?;
        Some(String::from_utf8_lossy(&o.stdout).contains("[libspvopt.so"))
    };
    // The flags pkg-config gives for `args` with the .pc files of `prefix`.
    let pkg_config = |prefix: &Path, args: &[&str]| -> Option<Vec<String>> {
        let o = Command::new("pkg-config")
            .args(args)
            .env("PKG_CONFIG_PATH", prefix.join("lib/pkgconfig"))
            .output()
            .ok()
            .filter(|o| o.status.success())?;
        Some(
            String::from_utf8_lossy(&o.stdout)
                .split_whitespace()
                .map(String::from)
                .collect(),
        )
    };
    let include = format!("-I{}", prefix.join("include/spvopt").display());
    // 1. Static, the archive named on the command line (no pkg-config needed).
    let mut flags = vec![include.clone(), archive.display().to_string()];
    flags.extend(STATIC_LIBS.map(String::from));
    let exe = dir.join("optimize-static");
    compile(&flags, &exe);
    run(&exe);
    assert_ne!(needs_shared(&exe), Some(true));
    // The shared library is installed under its SONAME (libspvopt.so.<ABI version>), with the
    // libspvopt.so link the linker's -lspvopt finds.
    let soname = format!("libspvopt.so.{}", spvopt::spvopt_abi_version());
    let lib = prefix.join("lib");
    assert!(lib.join(&soname).is_file(), "{soname} not installed");
    assert_eq!(
        std::fs::read_link(lib.join("libspvopt.so")).unwrap(),
        Path::new(&soname)
    );
    assert!(!static_prefix.join("lib/libspvopt.so").exists());
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
    // 2. Through pkg-config, both ways: shared (spvopt), static (spvopt-static, with and
    // without --static), and --static on an archive-only install (spvopt).
    let builds: [(&Path, &[&str], bool); 4] = [
        (&prefix, &["--cflags", "--libs", "spvopt"], true),
        (&prefix, &["--cflags", "--libs", "spvopt-static"], false),
        (
            &prefix,
            &["--static", "--cflags", "--libs", "spvopt-static"],
            false,
        ),
        (
            &static_prefix,
            &["--static", "--cflags", "--libs", "spvopt"],
            false,
        ),
    ];
    for (k, (prefix, args, shared)) in builds.into_iter().enumerate() {
        let Some(flags) = pkg_config(prefix, args) else {
            eprintln!(
                "NOTE: pkg-config not found: the pkg-config builds of the C client were not tested"
            );
            break;
        };
        assert!(
            flags
                .iter()
                .any(|f| f.starts_with("-I") && f.ends_with("include/spvopt")),
            "{flags:?}"
        );
        let exe = dir.join(format!("optimize-pkg-config-{k}"));
        compile(&flags, &exe);
        run(&exe);
        if let Some(needs) = needs_shared(&exe) {
            assert_eq!(needs, shared, "pkg-config {args:?}: {flags:?}");
        }
    }
}

/// `--subgroup-size=N` through the C API's flags (issue 29 item 8): a tensor-addressing kernel
/// that declares no subgroup size converts with it and fails without it.
#[test]
fn subgroup_size_flag_through_the_c_api() {
    use spvopt::SpvoptResult::SPVOPT_SUCCESS;
    use spvopt::*;
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    let bytes =
        std::fs::read(here.join("../tests/corpus/tensor/kernel_k1_tile_copy_crossworkgroup.spv"))
            .unwrap();
    let words: Vec<u32> = bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    let run = |flags: &[&str]| -> SpvoptResult {
        let target = std::ffi::CString::new("pvc").unwrap();
        let mut opt: *mut SpvoptOptimizer = std::ptr::null_mut();
        // SAFETY: valid strings and out-pointers; every object is destroyed below.
        unsafe {
            assert_eq!(
                spvopt_optimizer_create(target.as_ptr(), &mut opt),
                SPVOPT_SUCCESS
            );
            // CrossWorkgroup tensor pointers: SPIRV-Tools rejects them (tests/corpus/README.md).
            spvopt_optimizer_set_validation(opt, 0);
            for f in flags {
                let f = std::ffi::CString::new(*f).unwrap();
                assert_eq!(
                    spvopt_optimizer_register_pass_from_flag(opt, f.as_ptr()),
                    SPVOPT_SUCCESS
                );
            }
            let mut out: *mut SpvoptBinary = std::ptr::null_mut();
            let r = spvopt_optimizer_run(
                opt,
                words.as_ptr(),
                words.len(),
                &mut out,
                std::ptr::null_mut(),
            );
            if !out.is_null() {
                spvopt_binary_destroy(out);
            }
            spvopt_optimizer_destroy(opt);
            r
        }
    };
    assert_ne!(run(&["-O"]), SPVOPT_SUCCESS);
    assert_eq!(run(&["-O", "--subgroup-size=16"]), SPVOPT_SUCCESS);
    assert_ne!(run(&["-O", "--subgroup-size=8"]), SPVOPT_SUCCESS);
}
