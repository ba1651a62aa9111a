//! Reading modules (binary or `.spvasm`, file or stdin) and writing outputs atomically.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use spvopt_ir::text::{self, TargetEnv};

/// Reads all bytes of `path` (`-` = stdin).
pub fn read_input(path: &str) -> Result<Vec<u8>, String> {
    if path == "-" {
        let mut v = Vec::new();
        std::io::stdin()
            .read_to_end(&mut v)
            .map_err(|e| format!("stdin: {e}"))?;
        Ok(v)
    } else {
        std::fs::read(path).map_err(|e| format!("{path}: {e}"))
    }
}

/// Turns input bytes into SPIR-V binary bytes: binaries as they are, text assembled with
/// SPIRV-Tools (numeric ids kept).
pub fn to_binary(bytes: Vec<u8>, name: &str, env: Option<TargetEnv>) -> Result<Vec<u8>, String> {
    if text::looks_binary(&bytes) || bytes.is_empty() {
        return Ok(bytes);
    }
    let Ok(src) = std::str::from_utf8(&bytes) else {
        return Err(format!(
            "{name}: neither a SPIR-V binary (no magic number) nor UTF-8 SPIR-V assembly text"
        ));
    };
    let env = env.unwrap_or(TargetEnv::Universal_1_6);
    let words = text::assemble(src, env).map_err(|e| format!("{name}: {e}"))?;
    Ok(words.iter().flat_map(|w| w.to_le_bytes()).collect())
}

/// Writes `data` to `path` atomically: a temporary file in the same folder, then a rename, so
/// an interrupted or failed run never leaves a partial output. `-` writes to stdout.
pub fn write_output_atomically(path: &str, data: &[u8]) -> Result<(), String> {
    if path == "-" {
        let mut out = std::io::stdout().lock();
        return out
            .write_all(data)
            .and_then(|_| out.flush())
            .map_err(|e| format!("stdout: {e}"));
    }
    let target = Path::new(path);
    let dir = match target.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let file_name = target
        .file_name()
        .ok_or_else(|| format!("{path}: not a file name"))?
        .to_string_lossy()
        .into_owned();
    let tmp = dir.join(format!(".{file_name}.{}.tmp", std::process::id()));
    let result = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(data)?;
        std::fs::rename(&tmp, target)
    })();
    if let Err(e) = result {
        let _ = std::fs::remove_file(&tmp);
        return Err(format!("{path}: {e}"));
    }
    Ok(())
}
