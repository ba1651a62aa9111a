//! `spv-sim compare` (issue 10, item 6): element types inferred from the kernel's parameters
//! when the launch gives none, `--ulp` applied to them, differences reported as elements
//! (index, row/column, both values, ulp), counts and maximum error; "identical" only for equal
//! bytes; exit 0 identical or within, 1 different, 2 error. Also `spv-sim run`'s counters
//! (`--counters` JSON, `--summary` text) on the same kernel.

use std::process::{Command, Output};

use crate::common;
use common::{tmpdir, TmpDir};

fn spv_sim() -> Command {
    Command::new(env!("CARGO_BIN_EXE_spv-sim"))
}

/// `fill(float* out, T* other)`: out[gid] = VALUE; other is left alone. 8 invocations.
fn kernel(value: &str, other_pointee: &str) -> String {
    format!(
        "\
; SPIR-V
; Version: 1.2
               OpCapability Addresses
               OpCapability Kernel
               OpCapability Int64
               OpCapability Int8
               OpMemoryModel Physical64 OpenCL
               OpEntryPoint Kernel %k \"fill\" %gid
               OpDecorate %gid BuiltIn GlobalInvocationId
               OpDecorate %gid Constant
       %void = OpTypeVoid
      %ulong = OpTypeInt 64 0
      %uchar = OpTypeInt 8 0
      %float = OpTypeFloat 32
    %v3ulong = OpTypeVector %ulong 3
  %ptr_in_v3 = OpTypePointer Input %v3ulong
       %fptr = OpTypePointer CrossWorkgroup %float
       %optr = OpTypePointer CrossWorkgroup {other_pointee}
       %fnty = OpTypeFunction %void %fptr %optr
        %val = OpConstant %float {value}
        %gid = OpVariable %ptr_in_v3 Input
          %k = OpFunction %void None %fnty
        %out = OpFunctionParameter %fptr
      %other = OpFunctionParameter %optr
      %entry = OpLabel
         %g3 = OpLoad %v3ulong %gid Aligned 32
          %x = OpCompositeExtract %ulong %g3 0
          %p = OpInBoundsPtrAccessChain %fptr %out %x
               OpStore %p %val Aligned 4
               OpReturn
               OpFunctionEnd
"
    )
}

struct Case {
    dir: TmpDir,
}

impl Case {
    /// A: stores 1.0; B: stores the next float above 1.0 (1 ulp away) — or `b_value`.
    fn new(name: &str, b_value: &str, other_pointee: &str, launch_args: &str) -> Case {
        let dir = tmpdir(name);
        std::fs::write(dir.join("a.spvasm"), kernel("1", other_pointee)).unwrap();
        std::fs::write(dir.join("b.spvasm"), kernel(b_value, other_pointee)).unwrap();
        std::fs::write(
            dir.join("l.json"),
            format!(
                "{{\"kernel\": \"fill\", \"global_size\": [8, 1, 1], \"local_size\": [8, 1, 1], \
                 \"subgroup_size\": 8, \"args\": [{launch_args}]}}"
            ),
        )
        .unwrap();
        Case { dir }
    }

    fn compare(&self, extra: &[&str]) -> Output {
        let p = |f: &str| self.dir.join(f);
        spv_sim()
            .arg("compare")
            .arg(p("a.spvasm"))
            .arg(p("b.spvasm"))
            .arg("--launch")
            .arg(p("l.json"))
            .args(extra)
            .output()
            .unwrap()
    }
}

fn out(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

const NEXT_ABOVE_ONE: &str = "0x1.000002p+0";

#[test]
fn run_reports_memory_traffic_as_json_and_text() {
    let c = Case::new(
        "counters",
        "1",
        "%float",
        "{\"buffer_zeros\": 32}, {\"buffer_zeros\": 4}",
    );
    let p = |f: &str| c.dir.join(f);
    let o = spv_sim()
        .arg("run")
        .arg(p("a.spvasm"))
        .arg("--launch")
        .arg(p("l.json"))
        .arg("--out")
        .arg(p("out"))
        .arg("--counters")
        .arg(p("c.json"))
        .arg("--summary")
        .output()
        .unwrap();
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    // 8 invocations store a float each to consecutive addresses: one message, 32 bytes, one
    // line; the GlobalInvocationId load is not memory traffic
    let text = out(&o);
    let store = text
        .lines()
        .find(|l| l.starts_with("memory global store"))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(store.ends_with(" 1 messages, 32 bytes, 1 lines"), "{store}");
    assert_eq!(text.matches("memory ").count(), 1, "{text}");
    assert!(text.starts_with("instructions "), "{text}");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(p("c.json")).unwrap()).unwrap();
    let s = &json["memory"]["global"]["store"];
    assert_eq!(
        (
            s["messages"].as_u64(),
            s["bytes"].as_u64(),
            s["lines"].as_u64()
        ),
        (Some(1), Some(32), Some(1))
    );
    assert_eq!(
        json["memory"]["global"]["load"]["messages"].as_u64(),
        Some(0)
    );
    // load, extract, access chain, store, return: 5 instructions, 8 invocations
    assert_eq!(json["instructions"].as_u64(), Some(8 * 5));
}

#[test]
fn ulp_applies_to_types_inferred_from_the_kernel() {
    // no "type" anywhere: arg0's type comes from `float*`
    let c = Case::new(
        "infer",
        NEXT_ABOVE_ONE,
        "%float",
        r#"{"buffer_zeros": 32, "shape": [2, 4]}, {"buffer_zeros": 16}"#,
    );
    let o = c.compare(&["--ulp", "1"]);
    let s = out(&o);
    assert_eq!(o.status.code(), Some(0), "{s}");
    assert!(
        s.contains("arg0: within 1 ulp: 8 of 8 f32 elements (kernel parameter) differ"),
        "{s}"
    );
    assert!(s.contains("max 1 ulp"), "{s}");
    assert!(s.contains("arg1: identical"), "{s}");
    assert!(!s.contains("identical: 2 buffers"), "not identical: {s}");
    assert!(
        s.lines()
            .last()
            .unwrap()
            .starts_with("within 1 ulp: 2 buffers"),
        "{s}"
    );

    // without a tolerance the same buffers differ: elements, positions, values, ulp
    let o = c.compare(&[]);
    let s = out(&o);
    assert_eq!(o.status.code(), Some(1), "{s}");
    assert!(
        s.contains(
            "arg0: DIFFERENT: 8 of 8 f32 elements (kernel parameter) differ (8 beyond 0 ulp)"
        ),
        "{s}"
    );
    assert!(
        s.contains("max 1 ulp, max abs error 1.1920928955078125e-7"),
        "{s}"
    );
    assert!(
        s.contains(
            "  [5] (row 1, col 1): 1e0 (0x3f800000) vs 1.0000001192092896e0 (0x3f800001), 1 ulp"
        ),
        "{s}"
    );
    assert!(
        s.lines()
            .last()
            .unwrap()
            .starts_with("DIFFERENT: 1 of 2 buffers"),
        "{s}"
    );
}

#[test]
fn the_launch_type_wins_and_bytes_stay_bytes() {
    // the launch says u32: integers get no tolerance
    let c = Case::new(
        "launchtype",
        NEXT_ABOVE_ONE,
        "%uchar",
        r#"{"buffer_zeros": 32, "type": "u32"}, {"buffer_zeros": 16}"#,
    );
    let o = c.compare(&["--ulp", "4"]);
    let s = out(&o);
    assert_eq!(o.status.code(), Some(1), "{s}");
    assert!(
        s.contains("8 of 8 u32 elements (launch \"type\") differ"),
        "{s}"
    );
    assert!(s.contains("--ulp does not apply to arg0"), "{s}");
    assert!(s.contains("  [0]: 1065353216 vs 1065353217"), "{s}");
    // arg1 points to uchar (what LLVM front ends emit for every pointer): no type known
    assert!(
        s.contains("arg1: identical: 16 bytes (no type known: compared as bytes)"),
        "{s}"
    );

    // identical means identical bytes
    let c = Case::new(
        "same",
        "1",
        "%uchar",
        r#"{"buffer_zeros": 32}, {"buffer_zeros": 16}"#,
    );
    let o = c.compare(&["--ulp", "3"]);
    let s = out(&o);
    assert_eq!(o.status.code(), Some(0), "{s}");
    assert!(s.lines().last().unwrap() == "identical: 2 buffers", "{s}");
}

/// `compare`'s errors exit 2 (its 1 means "differ", as diff's); `run`'s exit 1, as every tool's.
#[test]
fn errors_exit_2_with_one_line() {
    let c = Case::new(
        "err",
        "1",
        "%float",
        r#"{"buffer_zeros": 32, "type": "f7"}, {"buffer_zeros": 16}"#,
    );
    let o = c.compare(&[]);
    assert_eq!(o.status.code(), Some(2));
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(e.starts_with("spv-sim: error:") && e.contains("f7"), "{e}");
    assert_eq!(e.trim_end().lines().count(), 1, "{e}");
    let c = Case::new(
        "badshape",
        "1",
        "%float",
        r#"{"buffer_zeros": 32, "shape": [0, 4]}, {"buffer_zeros": 16}"#,
    );
    let o = c.compare(&[]);
    assert_eq!(o.status.code(), Some(2));
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(e.contains("shape"), "{e}");
}

/// Limits (issue 29 item 9): a launch of more work-groups or buffer bytes than
/// `--max-work-groups` / `--max-buffer-bytes` (defaults 4096 and 1G) is refused in one line
/// before anything is allocated or run; 0 lifts a limit. Not on a terminal, no progress bar is
/// drawn (stderr stays empty). `--subgroup-size N` is the size of a kernel that declares none.
#[test]
fn limits_refuse_big_launches_and_subgroup_size_applies() {
    let c = Case::new("limits", "1", "%float", "{}");
    let launch = |global: u64, args: &str| {
        std::fs::write(
            c.dir.join("l.json"),
            format!(
                "{{\"kernel\": \"fill\", \"global_size\": [{global}, 1, 1], \"local_size\": [8, 1, \
                 1], \"args\": [{args}]}}"
            ),
        )
        .unwrap();
    };
    // `spv-sim run` of the case by `cmd` (spv-sim itself, or a shell running it).
    let run_by = |mut cmd: Command, extra: &[&str]| {
        cmd.arg("run")
            .arg(c.dir.join("a.spvasm"))
            .arg("--launch")
            .arg(c.dir.join("l.json"))
            .arg("--out")
            .arg(c.dir.join("out"))
            .args(extra)
            .output()
            .unwrap()
    };
    let run = |extra: &[&str]| run_by(spv_sim(), extra);
    let err = |o: &Output| String::from_utf8_lossy(&o.stderr).into_owned();
    // 5000 work-groups: above the default limit; fine with --max-work-groups 0.
    launch(
        8 * 5000,
        r#"{"buffer_zeros": 160000}, {"buffer_zeros": 16}"#,
    );
    let o = run(&[]);
    assert_eq!(o.status.code(), Some(1));
    let e = err(&o);
    assert!(
        e.contains("5000 work-groups, more than --max-work-groups 4096") && e.lines().count() == 1,
        "{e}"
    );
    assert!(!c.dir.join("out").exists());
    let o = run(&["--max-work-groups", "0"]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    assert_eq!(
        err(&o),
        "",
        "no progress output when stderr is not a terminal"
    );
    // 4 GiB of buffers: refused at once (nothing allocated); a small limit with suffix.
    launch(8, r#"{"buffer_zeros": 4294967296}, {"buffer_zeros": 16}"#);
    // Under a 1 GiB address-space limit: allocating the buffers first would abort (exit 134),
    // not give the one-line refusal (a check of what is allocated, not of how fast).
    let mut limited = Command::new("sh");
    limited
        .arg("-c")
        .arg("ulimit -v 1048576 && exec \"$0\" \"$@\"")
        .arg(env!("CARGO_BIN_EXE_spv-sim"));
    let o = run_by(limited, &[]);
    assert_eq!(o.status.code(), Some(1), "{}", err(&o));
    let e = err(&o);
    assert!(
        e.contains("4294967312 bytes together, more than --max-buffer-bytes 1073741824"),
        "{e}"
    );
    launch(8, r#"{"buffer_zeros": 2048}, {"buffer_zeros": 16}"#);
    let o = run(&["--max-buffer-bytes", "2K"]);
    assert!(
        err(&o).contains("more than --max-buffer-bytes 2048"),
        "{}",
        err(&o)
    );
    let o = run(&["--max-buffer-bytes", "3K"]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    let o = run(&["--max-buffer-bytes", "lots"]);
    assert_eq!(o.status.code(), Some(1));
    // The kernel declares no SubgroupSize: 8 invocations are 2 subgroups of 4.
    let subgroups = |extra: &[&str]| {
        let o = run(&[extra, &["--summary"]].concat());
        assert_eq!(o.status.code(), Some(0), "{}", err(&o));
        out(&o)
            .lines()
            .find(|l| l.starts_with("subgroups"))
            .map(|l| l.split_whitespace().last().unwrap().to_string())
            .unwrap()
    };
    assert_eq!(subgroups(&["--subgroup-size", "4"]), "2");
    assert_eq!(subgroups(&["--subgroup-size", "8"]), "1");
    let o = run(&["--subgroup-size", "0"]);
    assert_eq!(o.status.code(), Some(1));
}

/// On a terminal (a pseudo-terminal from `script`, when installed), a run longer than a second
/// draws a progress bar of work-groups on stderr.
#[test]
fn a_long_run_shows_progress_on_a_terminal() {
    let script = std::path::Path::new("/usr/bin/script");
    if !script.exists() {
        eprintln!("NOTE: no /usr/bin/script: the terminal progress bar was not tested");
        return;
    }
    let examples = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples");
    let mut l: serde_json::Value = serde_json::from_slice(
        &std::fs::read(examples.join("gemm_fp16_128x128x64.launch.json")).unwrap(),
    )
    .unwrap();
    // 8 work-groups of the GEMM (the extra ones compute masked tiles), the bar shown from the
    // start (SPV_SIM_PROGRESS_AFTER_MS=0): what it shows does not depend on how fast the
    // machine finishes them (issue 42: a fast idle machine finished 96 within the second).
    l["global_size"][0] = serde_json::json!(128 * 8);
    for a in l["args"].as_array_mut().unwrap() {
        if let Some(f) = a["buffer"].as_str() {
            a["buffer"] = serde_json::json!(examples.join(f).display().to_string());
        }
    }
    let d = tmpdir("progress");
    std::fs::write(d.join("l.json"), l.to_string()).unwrap();
    let command = format!(
        "{} bench {} --launch {}",
        env!("CARGO_BIN_EXE_spv-sim"),
        examples
            .join("gemm_fp16_blockptr_128x128x32_w8__pvc.spv")
            .display(),
        d.join("l.json").display()
    );
    let o = Command::new(script)
        .args(["-qec", &command, "/dev/null"])
        .env("SPV_SIM_PROGRESS_AFTER_MS", "0")
        .output()
        .unwrap();
    let s = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{s}");
    assert!(s.contains("/8 work-groups"), "{s}");
    assert!(s.contains("M instructions/s"), "{s}");
}

/// A launch whose local size contradicts the kernel's `LocalSize` (`reqd_work_group_size`) is
/// refused, as a driver refuses it (issue 42 item 7): passes rely on the declaration. The error
/// is one line naming the module.
#[test]
fn a_local_size_other_than_the_declared_one_is_refused() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/corpus/user-kernels");
    let module = dir.join("dpas_2d.spv");
    let mut l: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("launches/dpas_2d.launch.json")).unwrap())
            .unwrap();
    l["local_size"] = serde_json::json!([8, 8, 1]);
    let d = tmpdir("local-size");
    std::fs::write(d.join("l.json"), l.to_string()).unwrap();
    for cmd in [&["run"][..], &["bench"]] {
        let mut c = spv_sim();
        c.args(cmd)
            .arg(&module)
            .arg("--launch")
            .arg(d.join("l.json"));
        if cmd == ["run"] {
            c.arg("--out").arg(d.join("out"));
        }
        let o = c.output().unwrap();
        let e = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{cmd:?}: {e}");
        assert!(
            e.lines().count() == 1
                && e.contains(&module.display().to_string())
                && e.contains("declares LocalSize 16 4 1")
                && e.contains("CL_INVALID_WORK_GROUP_SIZE"),
            "{cmd:?}: {e}"
        );
    }
    let o = spv_sim()
        .arg("compare")
        .arg(&module)
        .arg(&module)
        .arg("--launch")
        .arg(d.join("l.json"))
        .output()
        .unwrap();
    assert_eq!(
        o.status.code(),
        Some(2),
        "compare answers as diff: 2 for an error"
    );
    // The declared size runs.
    let o = spv_sim()
        .arg("compare")
        .arg(&module)
        .arg(&module)
        .arg("--launch")
        .arg(dir.join("launches/dpas_2d.launch.json"))
        .output()
        .unwrap();
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}
