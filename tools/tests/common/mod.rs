//! Helpers shared by the `spv-opt` command-line tests.
#![allow(dead_code)] // each test binary uses its own subset

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The `spv-opt` binary of this build.
pub fn spv_opt() -> Command {
    Command::new(env!("CARGO_BIN_EXE_spv-opt"))
}

/// A file of the in-repository corpus (`tests/corpus/REL`).
pub fn corpus(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/corpus")
        .join(rel)
}

/// A fresh, empty temporary folder for test `name` of this process.
pub fn tmpdir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("spvopt-cli-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A command's stderr as text.
pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}
