//! The judge: Intel's offline compiler (`ocloc` with IGC) compiles a module for a device and
//! the ISA it makes is counted (`isa`), so `-O` output is judged by the code a driver would run.
//!
//! How it is installed (no GPU needed; ocloc 26.27 + IGC 2.40 from Debian sid, unpacked into a
//! cache): `.ci/install-igc.sh CACHE`, which `.ci/run` calls and which exports `SPVOPT_OCLOC`.
//! [`Ocloc::from_env`] takes `$SPVOPT_OCLOC`, else `ocloc` on PATH. A compile runs
//! `ocloc compile -spirv_input -device D -options O`, then `ocloc disasm`; the facts are per
//! kernel (instructions, sends by kind, dpas, spills, per loop) plus `.ze_info`'s GRF count and
//! spill size. A symbol left `UNDEF` in `.symtab` (a call to a function nobody defines, which
//! ocloc accepts with exit 0) is a failure, as is a compile error. Every result records the
//! version (`ocloc --version`).

pub mod isa;
pub mod summary;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde::Serialize;

pub use isa::{parse_kernel_asm, Counts, KernelIsa, LoopCounts, SendKind};
pub use summary::IsaSummary;

/// Why a module got no ISA.
#[derive(Debug, thiserror::Error)]
pub enum IgcError {
    #[error("cannot run {ocloc}: {source}")]
    Spawn {
        ocloc: String,
        source: std::io::Error,
    },
    #[error("temporary folder: {0}")]
    Temp(std::io::Error),
    /// IGC rejected the module (its last lines of output; `status` is the exit status, e.g.
    /// -11 when it crashed).
    #[error("ocloc compile for {device} failed (status {status}): {output}")]
    Compile {
        device: String,
        status: i32,
        output: String,
    },
    #[error("ocloc disasm for {device} failed: {output}")]
    Disasm { device: String, output: String },
    /// The binary calls functions nothing defines (left `UNDEF` in `.symtab`).
    #[error("unresolved symbols for {device}: {}", symbols.join(", "))]
    Unresolved {
        device: String,
        symbols: Vec<String>,
    },
}

/// The ocloc device name of a spv-opt target (`None` for `cpu`).
pub fn device_for_target(target: &str) -> Option<&'static str> {
    Some(match target {
        "pvc" => "pvc",
        "bmg" => "bmg-g21",
        "lnl" => "lnl-m",
        "ptl" => "ptl-h",
        "cri" => "cri",
        "dg2" => "acm-g10",
        "mtl" => "mtl-h",
        _ => return None,
    })
}

/// Triton's build flag for matrix kernels (`grf_mode="large"`): 256 registers per thread.
pub const LARGE_GRF: &str = "-cl-intel-256-GRF-per-thread";

/// An ocloc to run.
#[derive(Clone, Debug)]
pub struct Ocloc {
    path: PathBuf,
}

/// One module compiled for one device.
#[derive(Clone, Debug, Serialize)]
pub struct ModuleIsa {
    pub device: String,
    pub options: String,
    /// `ocloc --version` of the compiler that made it.
    pub ocloc_version: String,
    /// Per kernel, by name.
    pub kernels: BTreeMap<String, KernelIsaFacts>,
}

/// One kernel's counts and `.ze_info` facts.
#[derive(Clone, Debug, Serialize)]
pub struct KernelIsaFacts {
    #[serde(flatten)]
    pub isa: KernelIsa,
    pub grf_count: Option<u32>,
    pub spill_size: Option<u32>,
    pub simd_size: Option<u32>,
}

impl Ocloc {
    /// `$SPVOPT_OCLOC`, else `ocloc` on PATH; `None` when there is none.
    pub fn from_env() -> Option<Ocloc> {
        if let Some(p) = std::env::var_os("SPVOPT_OCLOC").filter(|p| !p.is_empty()) {
            return Some(Ocloc { path: p.into() });
        }
        let path = std::env::var_os("PATH")?;
        std::env::split_paths(&path)
            .map(|d| d.join("ocloc"))
            .find(|p| p.is_file())
            .map(|path| Ocloc { path })
    }

    /// An ocloc at `path`.
    pub fn at(path: impl Into<PathBuf>) -> Ocloc {
        Ocloc { path: path.into() }
    }

    fn run(&self, args: &[&str], cwd: &Path) -> Result<(i32, String), IgcError> {
        let out = Command::new(&self.path)
            .args(args)
            .current_dir(cwd)
            .output()
            .map_err(|source| IgcError::Spawn {
                ocloc: self.path.display().to_string(),
                source,
            })?;
        let mut text = String::from_utf8_lossy(&out.stdout).into_owned();
        text.push_str(&String::from_utf8_lossy(&out.stderr));
        let status = out.status.code().unwrap_or_else(|| {
            use std::os::unix::process::ExitStatusExt;
            -out.status.signal().unwrap_or(0)
        });
        Ok((status, text))
    }

    /// `ocloc --version`'s first line (e.g. `26.27.039122`).
    pub fn version(&self) -> Result<String, IgcError> {
        let (_, text) = self.run(&["--version"], Path::new("."))?;
        Ok(text.lines().next().unwrap_or("").trim().to_string())
    }

    /// Compiles `spv` for `device` (an ocloc device name: [`device_for_target`]) with the IGC
    /// build `options`, disassembles it and counts every kernel's ISA.
    pub fn compile(&self, spv: &[u8], device: &str, options: &str) -> Result<ModuleIsa, IgcError> {
        let dir = tempfile::tempdir().map_err(IgcError::Temp)?;
        std::fs::write(dir.path().join("k.spv"), spv).map_err(IgcError::Temp)?;
        let mut args = vec![
            "compile",
            "-q",
            "-file",
            "k.spv",
            "-spirv_input",
            "-device",
            device,
            "-out_dir",
            "o",
            "-output",
            "k",
        ];
        if !options.is_empty() {
            args.extend(["-options", options]);
        }
        let (status, output) = self.run(&args, dir.path())?;
        let bin = std::fs::read_dir(dir.path().join("o"))
            .ok()
            .and_then(|entries| {
                entries
                    .filter_map(Result::ok)
                    .map(|e| e.path())
                    .find(|p| p.extension().is_some_and(|x| x == "bin"))
            });
        let Some(bin) = bin.filter(|_| status == 0) else {
            return Err(IgcError::Compile {
                device: device.to_string(),
                status,
                output: last_lines(&output, 6),
            });
        };
        let bin = bin.to_string_lossy().into_owned();
        let (_, output) = self.run(
            &["disasm", "-file", &bin, "-device", device, "-dump", "d"],
            dir.path(),
        )?;
        let d = dir.path().join("d");
        let read = |name: &str| std::fs::read_to_string(d.join(name)).unwrap_or_default();
        let undefined = undefined_symbols(&read(".symtab"));
        if !undefined.is_empty() {
            return Err(IgcError::Unresolved {
                device: device.to_string(),
                symbols: undefined,
            });
        }
        let ze = parse_ze_info(&read(".ze_info"));
        let mut kernels = BTreeMap::new();
        for entry in std::fs::read_dir(&d)
            .into_iter()
            .flatten()
            .filter_map(Result::ok)
        {
            let file = entry.file_name().to_string_lossy().into_owned();
            let Some(name) = file
                .strip_prefix(".text.")
                .and_then(|n| n.strip_suffix(".asm"))
            else {
                continue;
            };
            if name == "Intel_Symbol_Table_Void_Program" {
                continue;
            }
            let facts = ze.get(name);
            let get = |k: &str| facts.and_then(|f| f.get(k)).copied();
            kernels.insert(
                name.to_string(),
                KernelIsaFacts {
                    isa: parse_kernel_asm(&read(&file)),
                    grf_count: get("grf_count"),
                    spill_size: get("spill_size"),
                    simd_size: get("simd_size"),
                },
            );
        }
        if kernels.is_empty() {
            return Err(IgcError::Disasm {
                device: device.to_string(),
                output: last_lines(&output, 6),
            });
        }
        Ok(ModuleIsa {
            device: device.to_string(),
            options: options.to_string(),
            ocloc_version: self.version()?,
            kernels,
        })
    }
}

fn last_lines(text: &str, n: usize) -> String {
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    lines[lines.len().saturating_sub(n)..].join(" | ")
}

/// The names `.symtab` (ocloc's CSV dump: index, name, section, ...) leaves `UNDEF`, except
/// IGC's own `__INTEL_` helpers.
pub fn undefined_symbols(symtab: &str) -> Vec<String> {
    symtab
        .lines()
        .skip(1)
        .filter_map(|line| {
            let parts: Vec<&str> = line.split(',').map(str::trim).collect();
            (parts.len() >= 3
                && parts[2] == "UNDEF"
                && parts[1] != "UNDEF"
                && !parts[1].starts_with("__INTEL_"))
            .then(|| parts[1].to_string())
        })
        .collect()
}

/// `.ze_info`'s per-kernel `execution_env` numbers (`grf_count`, `spill_size`, `simd_size`).
pub fn parse_ze_info(text: &str) -> BTreeMap<String, BTreeMap<String, u32>> {
    let mut kernels: BTreeMap<String, BTreeMap<String, u32>> = BTreeMap::new();
    let mut current: Option<String> = None;
    for line in text.lines() {
        if line.starts_with("kernels_misc_info") {
            current = None;
            continue;
        }
        if let Some(name) = line.strip_prefix("  - name:") {
            current = Some(name.trim().to_string());
            continue;
        }
        let Some(k) = &current else { continue };
        let Some((key, value)) = line.trim().split_once(':') else {
            continue;
        };
        if matches!(key, "grf_count" | "spill_size" | "simd_size") {
            if let Ok(v) = value.trim().parse() {
                kernels
                    .entry(k.clone())
                    .or_default()
                    .insert(key.to_string(), v);
            }
        }
    }
    kernels
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ze_info_and_symtab_are_read() {
        let ze = "version: '1.0'\nkernels:\n  - name:            k\n    execution_env:\n      \
                  grf_count:       256\n      simd_size:       16\n      spill_size:      64\n\
                  kernels_misc_info:\n  - name:            k\n";
        let facts = parse_ze_info(ze);
        assert_eq!(facts["k"]["grf_count"], 256);
        assert_eq!(facts["k"]["spill_size"], 64);
        let symtab = "Index, Name, Section, Value\n0, UNDEF, UNDEF, 0\n1, k, .text.k, 0\n\
                      2, _Z3foov, UNDEF, 0\n3, __INTEL_PATCH, UNDEF, 0\n";
        assert_eq!(undefined_symbols(symtab), vec!["_Z3foov".to_string()]);
    }
}
