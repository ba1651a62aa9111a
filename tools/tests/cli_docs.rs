//! Shell completions and man pages, generated from the usage texts and the pass registry, for
//! `spv-opt` and the other tools.

use crate::common;
use common::{spv_opt, stderr, tmpdir};

/// Completions and the man page come from the usage text and the pass registry: every flag of
/// --help and every pass is in each; a shell we do not know is a one-line error.
#[test]
fn completions_and_man_page_are_generated_from_the_flag_table() {
    let help =
        String::from_utf8_lossy(&spv_opt().arg("--help").output().unwrap().stdout).into_owned();
    let passes = [
        "--dce",
        "--convert-tensor-addressing",
        "--declare-subgroup-size",
    ];
    for shell in ["bash", "zsh", "fish"] {
        let o = spv_opt().args(["--completions", shell]).output().unwrap();
        assert!(o.status.success(), "{shell}: {}", stderr(&o));
        let s = String::from_utf8_lossy(&o.stdout);
        for flag in [
            "--target",
            "--subgroup-size",
            "--Werror",
            "--stats",
            "--man",
        ] {
            assert!(help.contains(flag), "{flag} not in --help");
            let name = if shell == "fish" {
                format!("-l {}", &flag[2..])
            } else {
                flag.to_string()
            };
            assert!(s.contains(&name), "{shell}: {flag} missing");
        }
        for p in passes {
            let name = if shell == "fish" {
                format!("-l {}", &p[2..])
            } else {
                p.to_string()
            };
            assert!(s.contains(&name), "{shell}: {p} missing");
        }
        assert!(s.contains("pvc") && s.contains("dg2"), "{shell}: targets");
    }
    if std::path::Path::new("/bin/bash").exists() {
        let script = spv_opt()
            .args(["--completions", "bash"])
            .output()
            .unwrap()
            .stdout;
        let d = tmpdir("completion");
        std::fs::write(d.join("c.bash"), &script).unwrap();
        let o = std::process::Command::new("bash")
            .arg("-c")
            .arg(format!(
                "source {}/c.bash; COMP_WORDS=(spv-opt --targ); COMP_CWORD=1; _spv_opt; \
                 echo \"${{COMPREPLY[@]}}\"; COMP_WORDS=(spv-opt --target d); COMP_CWORD=2; \
                 _spv_opt; echo \"${{COMPREPLY[@]}}\"",
                d.display()
            ))
            .output()
            .unwrap();
        let s = String::from_utf8_lossy(&o.stdout);
        assert!(
            s.contains("--target ") && s.contains("--target-env="),
            "{s}{}",
            stderr(&o)
        );
        assert!(s.lines().nth(1) == Some("dg2"), "{s}");
    }
    let o = spv_opt().arg("--man").output().unwrap();
    assert!(o.status.success());
    let man = String::from_utf8_lossy(&o.stdout);
    assert!(man.starts_with(".TH SPV-OPT 1"), "{man}");
    for section in [
        ".SH NAME",
        ".SH SYNOPSIS",
        ".SH OPTIONS",
        ".SH PASSES",
        ".SH EXIT STATUS",
    ] {
        assert!(man.contains(section), "{section}");
    }
    assert!(
        man.contains("\\-\\-subgroup\\-size") && man.contains("\\-\\-declare\\-subgroup\\-size")
    );
    let o = spv_opt().args(["--completions", "bsh"]).output().unwrap();
    assert_eq!(o.status.code(), Some(1));
    let e = stderr(&o);
    assert!(
        e.contains("did you mean \"bash\"") && e.lines().count() == 1,
        "{e}"
    );
}

/// spv-sim, spv-ab and spv-bench generate theirs the same way, each from its own usage text.
#[test]
fn every_tool_prints_completions_and_a_man_page() {
    let tools: [(&str, &str, &[&str]); 3] = [
        (
            env!("CARGO_BIN_EXE_spv-sim"),
            "SPV-SIM",
            &["--launch", "--max-work-groups", "run"],
        ),
        (
            env!("CARGO_BIN_EXE_spv-ab"),
            "SPV-AB",
            &["--subgroup-size", "--launches", "bisect"],
        ),
        (
            env!("CARGO_BIN_EXE_spv-bench"),
            "SPV-BENCH",
            &["--sizes", "--spirv-opt", "jit"],
        ),
    ];
    for (exe, title, words) in tools {
        for shell in ["bash", "zsh", "fish"] {
            let o = std::process::Command::new(exe)
                .args(["--completions", shell])
                .output()
                .unwrap();
            assert!(o.status.success(), "{exe} {shell}: {}", stderr(&o));
            let s = String::from_utf8_lossy(&o.stdout);
            for w in words {
                let w = match (shell, w.strip_prefix("--")) {
                    ("fish", Some(long)) => format!("-l {long}"),
                    _ => w.to_string(),
                };
                assert!(s.contains(&w), "{exe} {shell}: {w} missing");
            }
        }
        let o = std::process::Command::new(exe)
            .arg("--man")
            .output()
            .unwrap();
        let man = String::from_utf8_lossy(&o.stdout);
        assert!(man.starts_with(&format!(".TH {title} 1")), "{man}");
    }
}
