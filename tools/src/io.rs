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

/// The SPIR-V version a text module declares in its header comments (`; Version: 1.4`, as
/// `spirv-dis` and `spv-opt --emit-text` write it), as the universal environment of that
/// version. Only the leading comment block is read.
pub fn declared_env(src: &str) -> Result<Option<TargetEnv>, String> {
    for line in src.lines() {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let Some(comment) = line.strip_prefix(';') else {
            break;
        };
        let Some(v) = comment.trim().strip_prefix("Version:") else {
            continue;
        };
        let v = v.trim();
        let minor = v
            .strip_prefix("1.")
            .and_then(|m| m.parse::<u32>().ok())
            .filter(|&m| m <= 6)
            .ok_or_else(|| format!("`; Version: {v}` is not a SPIR-V version 1.0 to 1.6"))?;
        return Ok(Some(text::universal_env_for_version(
            (1 << 16) | (minor << 8),
        )));
    }
    Ok(None)
}

/// Turns input bytes into SPIR-V binary bytes: binaries as they are, text assembled with
/// SPIRV-Tools (numeric ids kept) for `env`, else for the version its `; Version:` header line
/// declares (so a disassembled module keeps its version), else for SPIR-V 1.6.
pub fn to_binary(bytes: Vec<u8>, name: &str, env: Option<TargetEnv>) -> Result<Vec<u8>, String> {
    if text::looks_binary(&bytes) || bytes.is_empty() {
        return Ok(bytes);
    }
    let Ok(src) = std::str::from_utf8(&bytes) else {
        return Err(format!(
            "{name}: neither a SPIR-V binary (no magic number) nor UTF-8 SPIR-V assembly text"
        ));
    };
    let env = match env {
        Some(e) => e,
        None => declared_env(src)
            .map_err(|e| format!("{name}: {e}"))?
            .unwrap_or(TargetEnv::Universal_1_6),
    };
    let words = text::assemble(src, env).map_err(|e| format!("{name}: {e}"))?;
    Ok(words.iter().flat_map(|w| w.to_le_bytes()).collect())
}

/// Writes `data` to stdout. A reader that went away (`spv-opt … -o - | head -c1`: broken pipe)
/// is not an error: the rest is dropped quietly, as the reader asked.
pub fn write_stdout(data: &[u8]) -> Result<(), String> {
    let mut out = std::io::stdout().lock();
    match out.write_all(data).and_then(|_| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(format!("stdout: {e}")),
        _ => Ok(()),
    }
}

/// Refuses to write a SPIR-V binary to a terminal (it would garble it), unless `force`: the
/// check `-o -` gets before any work is done. Text output and pipes are fine.
pub fn check_binary_to_terminal(output: &str, text_out: bool, force: bool) -> Result<(), String> {
    use std::io::IsTerminal;
    if output == "-" && !text_out && !force && std::io::stdout().is_terminal() {
        return Err(
            "refusing to write a SPIR-V binary to a terminal: give -o FILE, \
                    --emit-text, a pipe, or -f to force it"
                .into(),
        );
    }
    Ok(())
}

/// Writes `data` to `path` atomically: a temporary file in the same folder, then a rename, so
/// an interrupted or failed run never leaves a partial output. `-` writes to stdout.
pub fn write_output_atomically(path: &str, data: &[u8]) -> Result<(), String> {
    write_output_with(path, |w| w.write_all(data))
}

/// Like [`write_output_atomically`], with the bytes written by `write` (which may write in
/// pieces: a large output need not exist whole in memory).
pub fn write_output_with(
    path: &str,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<(), String> {
    if path == "-" {
        let mut out = std::io::BufWriter::new(std::io::stdout().lock());
        return match write(&mut out).and_then(|_| out.flush()) {
            Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(format!("stdout: {e}")),
            _ => Ok(()),
        };
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
        write(&mut f)?;
        std::fs::rename(&tmp, target)
    })();
    if let Err(e) = result {
        let _ = std::fs::remove_file(&tmp);
        return Err(format!("{path}: {e}"));
    }
    Ok(())
}
