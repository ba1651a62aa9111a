//! Text and validation through SPIRV-Tools (the `spirv-tools` crate, compiled in via FFI):
//! `.spvasm` assembly, disassembly, and `spirv-val`.

use spirv_tools::assembler::{self, Assembler, AssemblerOptions, DisassembleOptions};
use spirv_tools::val::{self, Validator};
pub use spirv_tools::TargetEnv;

/// A failure reported by SPIRV-Tools, flattened to one line.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ToolsError(pub String);

fn one_line(e: &spirv_tools::error::Error) -> String {
    match &e.diagnostic {
        Some(d) => {
            let mut s = d.message.replace('\n', " ");
            if d.is_text {
                s = format!("line {}:{}: {s}", d.line + 1, d.column + 1);
            } else if d.index > 0 {
                s = format!("{s} (word {})", d.index);
            }
            let notes = d.notes.trim();
            if !notes.is_empty() {
                s.push_str(" | ");
                s.push_str(&notes.replace('\n', " | "));
            }
            s
        }
        None => format!("{:?}", e.inner),
    }
}

/// Parses a `--target-env` name (`spv1.4`, `opencl1.2`, `vulkan1.2`, …).
pub fn parse_target_env(name: &str) -> Result<TargetEnv, ToolsError> {
    name.parse::<TargetEnv>()
        .map_err(|_| ToolsError(format!("unknown target environment \"{name}\"")))
}

/// The universal environment of a SPIR-V version word (`spv1.4` for 0x00010400).
pub fn universal_env_for_version(version: u32) -> TargetEnv {
    match (version >> 8) & 0xff {
        0 => TargetEnv::Universal_1_0,
        1 => TargetEnv::Universal_1_1,
        2 => TargetEnv::Universal_1_2,
        3 => TargetEnv::Universal_1_3,
        4 => TargetEnv::Universal_1_4,
        5 => TargetEnv::Universal_1_5,
        _ => TargetEnv::Universal_1_6,
    }
}

/// Assembles SPIR-V text; numeric ids (`%12`) keep their numbers.
pub fn assemble(text: &str, env: TargetEnv) -> Result<Vec<u32>, ToolsError> {
    let asm = assembler::create(Some(env));
    let bin = asm
        .assemble(
            text,
            AssemblerOptions {
                preserve_numeric_ids: true,
            },
        )
        .map_err(|e| ToolsError(format!("assembly failed: {}", one_line(&e))))?;
    Ok(bin.as_words().to_vec())
}

/// Disassembles words into SPIR-V text (no header comments, friendly names, no colour).
pub fn disassemble(words: &[u32]) -> Result<String, ToolsError> {
    let asm = assembler::create(Some(TargetEnv::Universal_1_6));
    let opts = DisassembleOptions {
        print: false,
        color: false,
        indent: false,
        show_byte_offset: false,
        no_header: false,
        use_friendly_names: true,
        comment: false,
    };
    asm.disassemble(words, opts)
        .map_err(|e| ToolsError(format!("disassembly failed: {}", one_line(&e))))
        .map(|s| s.unwrap_or_default())
}

/// Validates words with spirv-val's rules for `env`.
pub fn validate(words: &[u32], env: TargetEnv) -> Result<(), ToolsError> {
    let v = val::create(Some(env));
    v.validate(words, None)
        .map_err(|e| ToolsError(one_line(&e)))
}

/// Whether bytes look like a SPIR-V binary (magic number in either byte order) rather than text.
pub fn looks_binary(bytes: &[u8]) -> bool {
    bytes.len() >= 4 && {
        let w = u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
        w == 0x0723_0203 || w.swap_bytes() == 0x0723_0203
    }
}
