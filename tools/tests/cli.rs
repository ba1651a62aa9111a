//! `spv-opt` input and output: text in, binary out (or text by extension or flag), stdin to
//! stdout, the input validated by default, and no partial output on an error.

use crate::common;
use common::{corpus, spv_opt, stderr, tmpdir, SMALL_KERNEL};

#[test]
fn text_in_binary_out_and_passes_run() {
    let d = tmpdir("text");
    let input = d.join("in.spvasm");
    std::fs::write(&input, SMALL_KERNEL).unwrap();
    let out = d.join("out.spv");
    let stats = d.join("stats.json");
    let o = spv_opt()
        .args(["--strip-debug", "--dce"])
        .arg(&input)
        .arg("-o")
        .arg(&out)
        .arg("--stats")
        .arg(&stats)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let m = spvopt_ir::load_bytes(&std::fs::read(&out).unwrap()).unwrap();
    let has_name = m
        .all_insts()
        .any(|i| m.inst(i).is(spvopt_ir::spirv::Op::Name));
    let has_int = m
        .all_insts()
        .any(|i| m.inst(i).is(spvopt_ir::spirv::Op::TypeInt));
    assert!(!has_name && !has_int);
    let json: serde_json::Value = serde_json::from_slice(&std::fs::read(&stats).unwrap()).unwrap();
    assert_eq!(json["passes"][0]["name"], "strip-debug");
    assert_eq!(json["passes"][0]["stats"]["names"], 1);
    assert_eq!(json["passes"][1]["name"], "dce");
    assert_eq!(json["passes"][1]["stats"]["types_constants_globals"], 1);
}

#[test]
fn text_output_by_extension_and_flag() {
    let d = tmpdir("textout");
    let input = d.join("in.spvasm");
    std::fs::write(&input, SMALL_KERNEL).unwrap();
    let out = d.join("out.spvasm");
    let o = spv_opt().arg(&input).arg("-o").arg(&out).output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(std::fs::read_to_string(&out)
        .unwrap()
        .contains("OpEntryPoint Kernel"));
    let out2 = d.join("out.txt");
    let o = spv_opt()
        .arg(&input)
        .args(["--emit-text", "-o"])
        .arg(&out2)
        .output()
        .unwrap();
    assert!(o.status.success());
    assert!(std::fs::read_to_string(&out2)
        .unwrap()
        .contains("OpFunctionEnd"));
}

#[test]
fn stdin_to_stdout_round_trips() {
    use std::io::Write;
    let bytes = std::fs::read(corpus("triton/gemm_fp16_blockptr_128x128x32_w8__pvc.spv")).unwrap();
    let mut child = spv_opt()
        .args(["--skip-validation", "-", "-o", "-"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let b2 = bytes.clone();
    let writer = std::thread::spawn(move || stdin.write_all(&b2));
    let o = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        o.stdout == bytes,
        "no-op through stdin/stdout must be byte-identical"
    );
}

#[test]
fn triton_input_validates_by_default_and_invalid_input_is_rejected() {
    let d = tmpdir("val");
    let out = d.join("out.spv");
    // Real compiler output validates by default (VectorAnyINTEL vectors accepted; Triton's
    // Function variables outside the entry block are a warning).
    let o = spv_opt()
        .arg(corpus("triton/gemm_fp16_blockptr_128x128x32_w8__pvc.spv"))
        .arg("-o")
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    // An invalid module (a 5-component vector without VectorAnyINTEL) is still rejected with
    // one located line, and --skip-validation lets it through.
    let input = d.join("bad.spvasm");
    std::fs::write(
        &input,
        SMALL_KERNEL.replace(
            "%5 = OpTypeInt 32 0",
            "%5 = OpTypeInt 32 0\n%6 = OpTypeVector %5 5",
        ),
    )
    .unwrap();
    let bad_out = d.join("bad.spv");
    let o = spv_opt()
        .arg(&input)
        .arg("-o")
        .arg(&bad_out)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    let e = stderr(&o);
    assert!(
        e.contains("does not validate") && e.contains("components") && e.lines().count() == 1,
        "{e}"
    );
    assert!(!bad_out.exists(), "no output on error");
    let o = spv_opt()
        .arg("--skip-validation")
        .arg(&input)
        .arg("-o")
        .arg(&bad_out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
}

#[test]
fn errors_leave_no_partial_output_and_keep_input() {
    let d = tmpdir("atomic");
    let input = d.join("bad.spv");
    let mut bytes =
        std::fs::read(corpus("triton/nodbg/softmax_fp32_1024_w4_sg16__pvc.spv")).unwrap();
    bytes.truncate(bytes.len() - 6); // not a whole number of words
    std::fs::write(&input, &bytes).unwrap();
    let out = d.join("out.spv");
    std::fs::write(&out, b"previous").unwrap();
    let o = spv_opt()
        .arg("--skip-validation")
        .arg(&input)
        .arg("-o")
        .arg(&out)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        std::fs::read(&out).unwrap(),
        b"previous",
        "existing OUT untouched on error"
    );
    assert_eq!(std::fs::read(&input).unwrap(), bytes, "IN untouched");
    let leftovers: Vec<_> = std::fs::read_dir(&d)
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert_eq!(leftovers.len(), 2, "no temporary files left: {leftovers:?}");
}
