//! Input/output conventions of the command-line tools (issue 10, item 5): text input keeps the
//! SPIR-V version it declares, no binary on a terminal, a closed stdout is not an error, every
//! `--help` prints usage, `spv-bench` keeps to a folder of its own and says what it leaves out,
//! and `--list-targets` / `--describe-target` print one truth, with its sources.

use std::os::fd::{FromRawFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use crate::common;
use common::tmpdir;

fn bin(name: &str) -> Command {
    Command::new(match name {
        "spv-opt" => env!("CARGO_BIN_EXE_spv-opt"),
        "spv-sim" => env!("CARGO_BIN_EXE_spv-sim"),
        "spv-ab" => env!("CARGO_BIN_EXE_spv-ab"),
        _ => env!("CARGO_BIN_EXE_spv-bench"),
    })
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn corpus(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/corpus")
        .join(rel)
}

/// A module that declares SPIR-V 1.2 in its header, as `spirv-dis` writes it.
const V12: &str = "\
; SPIR-V
; Version: 1.2
; Generator: Khronos SPIR-V Tools Assembler; 0
; Bound: 6
; Schema: 0
OpCapability Addresses
OpCapability Kernel
OpMemoryModel Physical64 OpenCL
OpEntryPoint Kernel %1 \"main\"
%2 = OpTypeVoid
%3 = OpTypeFunction %2
%1 = OpFunction %2 None %3
%4 = OpLabel
OpReturn
OpFunctionEnd
";

#[test]
fn spvasm_input_keeps_the_version_it_declares() {
    let d = tmpdir("version");
    let input = d.join("in.spvasm");
    std::fs::write(&input, V12).unwrap();
    let out = d.join("out.spv");
    let o = bin("spv-opt")
        .arg(&input)
        .arg("-o")
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o.stderr));
    let bytes = std::fs::read(&out).unwrap();
    let version = u32::from_le_bytes(bytes[4..8].try_into().unwrap());
    assert_eq!(version, 0x0001_0200, "binary header must say 1.2");
    // text → text keeps the header line too
    let out_text = d.join("out.spvasm");
    let o = bin("spv-opt")
        .arg(&input)
        .arg("-o")
        .arg(&out_text)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o.stderr));
    let s = std::fs::read_to_string(&out_text).unwrap();
    assert!(s.contains("; Version: 1.2"), "{s}");
    // an explicit --target-env still wins
    let o = bin("spv-opt")
        .arg(&input)
        .args(["--target-env=spv1.4", "-o"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o.stderr));
    let bytes = std::fs::read(&out).unwrap();
    assert_eq!(
        u32::from_le_bytes(bytes[4..8].try_into().unwrap()),
        0x0001_0400
    );
    // a nonsense version is a one-line error
    std::fs::write(&input, V12.replace("1.2", "7.9")).unwrap();
    let o = bin("spv-opt")
        .arg(&input)
        .arg("-o")
        .arg(&out)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    let e = text(&o.stderr);
    assert!(
        e.starts_with("spv-opt: error:") && e.contains("Version") && e.lines().count() == 1,
        "{e}"
    );
}

/// A pseudo-terminal: (master, slave). The slave is what a program sees as a terminal.
fn pty() -> (OwnedFd, OwnedFd) {
    // SAFETY: plain libc calls; every fd is checked and owned exactly once.
    unsafe {
        let master = libc::posix_openpt(libc::O_RDWR | libc::O_NOCTTY);
        assert!(master >= 0, "posix_openpt");
        assert_eq!(libc::grantpt(master), 0);
        assert_eq!(libc::unlockpt(master), 0);
        let name = libc::ptsname(master);
        assert!(!name.is_null());
        let slave = libc::open(name, libc::O_RDWR | libc::O_NOCTTY);
        assert!(slave >= 0, "open pty slave");
        (OwnedFd::from_raw_fd(master), OwnedFd::from_raw_fd(slave))
    }
}

fn run_on_terminal(args: &[&str], input: &Path) -> Output {
    let (_master, slave) = pty();
    let child = bin("spv-opt")
        .args(args)
        .arg(input)
        .stdout(Stdio::from(slave))
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.wait_with_output().unwrap()
}

#[test]
fn binary_output_to_a_terminal_is_refused_unless_forced() {
    let d = tmpdir("tty");
    let input = d.join("in.spvasm");
    std::fs::write(&input, V12).unwrap();
    let o = run_on_terminal(&["-o", "-"], &input);
    assert_eq!(o.status.code(), Some(1));
    let e = text(&o.stderr);
    assert!(
        e.starts_with("spv-opt: error:") && e.contains("terminal") && e.lines().count() == 1,
        "{e}"
    );
    for ok in [["-o", "-", "-f"], ["-o", "-", "--emit-text"]] {
        let o = run_on_terminal(&ok, &input);
        assert!(o.status.success(), "{ok:?}: {}", text(&o.stderr));
    }
    // a pipe is not a terminal: binary output as before
    let o = bin("spv-opt")
        .arg(&input)
        .args(["-o", "-"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert_eq!(&o.stdout[..4], &0x0723_0203u32.to_le_bytes());
}

/// The write end of a pipe whose read end is already closed: every write fails with EPIPE.
fn closed_pipe() -> OwnedFd {
    let mut fds = [0; 2];
    // SAFETY: pipe writes two fds into the array; each is owned once below.
    unsafe {
        assert_eq!(libc::pipe(fds.as_mut_ptr()), 0);
        drop(OwnedFd::from_raw_fd(fds[0]));
        OwnedFd::from_raw_fd(fds[1])
    }
}

#[test]
fn a_closed_stdout_is_not_an_error() {
    let gemm = corpus("triton/gemm_fp16_blockptr_128x128x32_w8__pvc.spv");
    let gemm = gemm.to_str().unwrap();
    for (tool, args) in [
        ("spv-opt", vec!["--skip-validation", gemm, "-o", "-"]),
        (
            "spv-opt",
            vec!["--skip-validation", gemm, "--emit-text", "-o", "-"],
        ),
        ("spv-opt", vec!["--help"]),
        ("spv-opt", vec!["--list-targets"]),
        ("spv-opt", vec!["--target", "bmg", "--describe-target"]),
        ("spv-opt", vec!["--print-analysis", "loops", gemm]),
        ("spv-sim", vec!["compare", "--help"]),
        ("spv-bench", vec!["--help"]),
    ] {
        let o = bin(tool)
            .args(&args)
            .stdout(Stdio::from(closed_pipe()))
            .stderr(Stdio::piped())
            .output()
            .unwrap();
        let e = text(&o.stderr);
        assert!(e.is_empty(), "{tool} {args:?}: stderr {e:?}");
        assert_eq!(o.status.code(), Some(0), "{tool} {args:?}");
    }
}

#[test]
fn every_help_prints_usage() {
    for (tool, args) in [
        ("spv-opt", vec!["--help"]),
        ("spv-opt", vec!["-h"]),
        ("spv-sim", vec!["--help"]),
        ("spv-sim", vec!["run", "--help"]),
        ("spv-sim", vec!["compare", "--help"]),
        ("spv-sim", vec!["bench", "-h"]),
        ("spv-bench", vec!["--help"]),
        ("spv-bench", vec!["-h"]),
    ] {
        let o = bin(tool).args(&args).output().unwrap();
        assert_eq!(
            o.status.code(),
            Some(0),
            "{tool} {args:?}: {}",
            text(&o.stderr)
        );
        let s = text(&o.stdout).to_lowercase();
        assert!(s.contains("usage"), "{tool} {args:?}: {s}");
        if let Some(cmd) = args.first().filter(|a| !a.starts_with('-')) {
            assert!(s.contains(&format!("spv-sim {cmd}")), "{s}");
        }
        assert!(o.stderr.is_empty(), "{tool} {args:?}");
    }
    // unknown options still fail, pointing at --help
    let o = bin("spv-bench").arg("--nonsense").output().unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(text(&o.stderr).contains("--help"));
}

#[test]
fn spv_bench_uses_a_fresh_folder_and_says_spirv_opt_is_missing() {
    let d = tmpdir("bench");
    let keep = d.join("keep");
    let o = bin("spv-bench")
        .args(["--sizes", "1000", "--reps", "1"])
        .env("TMPDIR", &d)
        .env("PATH", d.join("no-such-bin"))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o.stderr));
    let s = text(&o.stdout);
    assert!(s.contains("spirv-opt not found on PATH"), "{s}");
    assert!(s.contains("| load+emit |"), "{s}");
    assert!(!s.contains("spirv-opt --skip-validation (process)"), "{s}");
    let left: Vec<_> = std::fs::read_dir(&d).unwrap().flatten().collect();
    assert!(
        left.is_empty(),
        "the run's folder must be removed: {:?}",
        left.iter().map(|e| e.path()).collect::<Vec<_>>()
    );
    // --dir keeps the modules
    let o = bin("spv-bench")
        .args(["--sizes", "1000", "--reps", "1", "--dir"])
        .arg(&keep)
        .env("PATH", d.join("no-such-bin"))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(keep.join("bench_1000.spv").exists());
}

#[test]
fn list_and_describe_target_agree_and_cite_their_sources() {
    let o = bin("spv-opt").arg("--list-targets").output().unwrap();
    assert!(o.status.success());
    let list = text(&o.stdout);
    for name in ["pvc", "bmg", "lnl", "dg2", "mtl", "generic"] {
        let line = list
            .lines()
            .find(|l| l.split_whitespace().next() == Some(name))
            .unwrap_or_else(|| panic!("{name} missing in\n{list}"));
        let o = bin("spv-opt")
            .args(["--target", name, "--describe-target"])
            .output()
            .unwrap();
        assert!(o.status.success());
        let d = text(&o.stdout);
        let tf32 = d
            .lines()
            .find(|l| l.trim_start().starts_with("tf32 DPAS:"))
            .unwrap_or_else(|| panic!("{d}"));
        let yes = tf32.contains(" yes ");
        assert_eq!(
            line.contains("incl. tf32"),
            yes,
            "{name}: list says {line:?}, describe says {tf32:?}"
        );
        // the summary line of --describe-target is the --list-targets line
        let summary = d
            .lines()
            .find_map(|l| l.trim_start().strip_prefix("summary:"))
            .unwrap_or_else(|| panic!("{d}"))
            .trim();
        assert!(line.ends_with(summary), "{line:?} vs {summary:?}");
        // every value cites its source
        assert!(d.contains("docs/notes/intel-targets.md"), "{d}");
        for key in [
            "subgroup sizes:",
            "GRF size:",
            "2D block IO:",
            "DPAS:",
            "tf32 DPAS:",
            "buffer prefetch:",
            "2D block shapes",
            "MMA shapes",
        ] {
            let l = d
                .lines()
                .find(|l| l.trim_start().starts_with(key))
                .unwrap_or_else(|| panic!("{key} missing in\n{d}"));
            assert!(
                l.contains("[§") || l.contains("[[inference]"),
                "{name}: no source on {l:?}"
            );
        }
    }
    // the settled truth (docs/notes/intel-targets.md §4.1): Xe-HPC and Xe2 multiply tf32,
    // DG2 does not, MTL has no DPAS
    for (name, tf32) in [("pvc", true), ("bmg", true), ("lnl", true), ("dg2", false)] {
        let line = list
            .lines()
            .find(|l| l.split_whitespace().next() == Some(name))
            .unwrap();
        assert_eq!(line.contains("incl. tf32"), tf32, "{line}");
    }
}

/// Issue 29 item 6: every tool answers --version and --help; spv-sim's usage is lines, not one
/// line joined with " | "; spv-bench's names `jit`; spv-ab has the --list-passes its errors
/// point at.
#[test]
fn every_tool_has_version_help_and_the_flags_its_messages_name() {
    for tool in ["spv-opt", "spv-sim", "spv-ab", "spv-bench"] {
        let o = bin(tool).arg("--version").output().unwrap();
        assert_eq!(o.status.code(), Some(0), "{tool}: {}", text(&o.stderr));
        let v = text(&o.stdout);
        assert_eq!(v, format!("{tool} {}\n", env!("CARGO_PKG_VERSION")));
        let o = bin(tool).arg("--help").output().unwrap();
        assert_eq!(o.status.code(), Some(0), "{tool}");
        let h = text(&o.stdout);
        assert!(
            h.lines().count() > 3 && !h.contains(" | spv-sim"),
            "{tool}: {h}"
        );
        assert!(h.contains("--version"), "{tool}: {h}");
    }
    let h = text(&bin("spv-bench").arg("--help").output().unwrap().stdout);
    assert!(h.contains("spv-bench jit"), "{h}");
    // spv-ab: an unknown pass points at --list-passes, which spv-ab has.
    let o = bin("spv-ab")
        .args(["--a", "-O", "--b", "fuse-blok-loads", "--target", "pvc"])
        .arg(corpus("triton/softmax_fp32_1024_w4_sg16__pvc.spv"))
        .output()
        .unwrap();
    let e = text(&o.stderr);
    assert_ne!(o.status.code(), Some(0), "{e}");
    assert!(
        e.contains("did you mean \"fuse-block-loads\"?") && e.contains("--list-passes"),
        "{e}"
    );
    let o = bin("spv-ab").arg("--list-passes").output().unwrap();
    assert_eq!(o.status.code(), Some(0));
    assert!(text(&o.stdout).contains("fuse-block-loads"));
}

/// spv-sim's errors are one line (exit 2, its documented code for errors), with a guess for a
/// mistyped command or option.
#[test]
fn spv_sim_errors_are_one_line_with_a_guess() {
    for (args, expect) in [
        (vec![], "no command"),
        (vec!["rnu"], "did you mean \"run\"?"),
        (
            vec!["run", "--lanuch", "l.json", "k.spv"],
            "did you mean \"--launch\"?",
        ),
        (
            vec!["compare", "a.spv"],
            "compare takes two modules A B, got: a.spv",
        ),
    ] {
        let o = bin("spv-sim").args(&args).output().unwrap();
        // Errors exit 1, as every tool's; `compare`'s exit 1 means "differ", so its errors
        // exit 2 (diff's convention).
        let status = if args.first() == Some(&"compare") {
            2
        } else {
            1
        };
        assert_eq!(o.status.code(), Some(status), "{args:?}");
        let e = text(&o.stderr);
        assert_eq!(e.lines().count(), 1, "{args:?}: {e}");
        assert!(
            e.starts_with("spv-sim: error: ") && e.contains(expect),
            "{args:?}: {e}"
        );
    }
}

/// Issue 29 item 9: `spv-sim run --out` creates the folder, not its missing parents (as spv-opt
/// refuses an output in a folder that does not exist); a folder whose parent exists is made.
#[test]
fn spv_sim_out_needs_an_existing_parent() {
    let d = tmpdir("sim-out");
    let kernel = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples");
    let run = |out: &Path| {
        bin("spv-sim")
            .arg("run")
            .arg(kernel.join("softmax_fp32_1024_w4_sg16__pvc.spv"))
            .arg("--launch")
            .arg(corpus(
                "triton/launches/softmax_fp32_1024_w4_sg16__pvc.launch.json",
            ))
            .arg("--out")
            .arg(out)
            .output()
            .unwrap()
    };
    let missing = d.join("no/such/dir");
    let o = run(&missing);
    assert_eq!(o.status.code(), Some(1));
    let e = text(&o.stderr);
    assert!(
        e.contains("does not exist") && e.lines().count() == 1,
        "{e}"
    );
    assert!(!d.join("no").exists(), "no parent folders made");
    let fresh = d.join("out");
    let o = run(&fresh);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert!(fresh.join("arg0.bin").exists());
}
