//! Helpers shared by the `spv-opt` command-line tests.
#![allow(dead_code)] // each test binary uses its own subset

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A minimal valid kernel in SPIR-V text: one empty entry point `main` and an unused 32-bit
/// integer type, which tests replace to make an invalid module or a signed integer.
pub const SMALL_KERNEL: &str = "\
OpCapability Addresses
OpCapability Kernel
OpMemoryModel Physical64 OpenCL
OpEntryPoint Kernel %1 \"main\"
OpName %1 \"main\"
%2 = OpTypeVoid
%5 = OpTypeInt 32 0
%3 = OpTypeFunction %2
%1 = OpFunction %2 None %3
%4 = OpLabel
OpReturn
OpFunctionEnd
";

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

/// The `-O --target` output of the corpus file `rel` (binary or text), output validation off
/// (what IGC is given in the judge's tests).
pub fn optimized(rel: &str, target: &spvopt_analysis::Target) -> Vec<u8> {
    let bytes = std::fs::read(corpus(rel)).unwrap();
    let bytes = spvopt_tools::io::to_binary(bytes, rel, None).unwrap();
    let words: Vec<u32> = bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    let out = spvopt_passes::Optimizer::new(target.clone(), "-O")
        .unwrap()
        .with_output_validation(None)
        .run(&words)
        .unwrap_or_else(|e| panic!("{rel} -O --target {}: {e}", target.name));
    out.words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// A fresh, empty temporary folder (`$TMPDIR/spvopt-NAME-…`), removed when dropped, also when
/// the test fails. Derefs to its path.
pub struct TmpDir(tempfile::TempDir);

impl std::ops::Deref for TmpDir {
    type Target = Path;
    fn deref(&self) -> &Path {
        self.0.path()
    }
}

impl AsRef<Path> for TmpDir {
    fn as_ref(&self) -> &Path {
        self.0.path()
    }
}

impl AsRef<std::ffi::OsStr> for TmpDir {
    fn as_ref(&self) -> &std::ffi::OsStr {
        self.0.path().as_os_str()
    }
}

/// A fresh temporary folder for test `name` (see [`TmpDir`]).
pub fn tmpdir(name: &str) -> TmpDir {
    TmpDir(
        tempfile::Builder::new()
            .prefix(&format!("spvopt-{name}-"))
            .tempdir()
            .expect("a temporary folder"),
    )
}

/// A command's stderr as text.
pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}
