//! Text and validation through SPIRV-Tools (the `spirv-tools` crate, compiled in via FFI):
//! `.spvasm` assembly, disassembly, and `spirv-val`.

use crate::grammar;
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
    let mut words = bin.as_words().to_vec();
    if text.contains("OpUnknown(") {
        // SPIRV-Tools does not count the raw words of `OpUnknown` as ids: a result only the
        // translator-internal instructions define may lie above the bound it computed.
        if let Some(max) = internal_max_id(&words) {
            if words.len() > 3 && words[3] <= max {
                words[3] = max + 1;
            }
        }
    }
    Ok(words)
}

/// The instructions of a module: (opcode, operand words), from word 5 on; stops at a
/// malformed word count.
fn instructions(words: &[u32]) -> impl Iterator<Item = (u16, &[u32])> {
    let mut at = 5.min(words.len());
    std::iter::from_fn(move || {
        let first = *words.get(at)?;
        let n = (first >> 16) as usize;
        if n == 0 || at + n > words.len() {
            return None;
        }
        let inst = (first as u16, &words[at + 1..at + n]);
        at += n;
        Some(inst)
    })
}

/// Whether the module has instructions of the translator-internal opcodes
/// ([`crate::grammar::internal`]), which SPIRV-Tools does not know.
pub fn has_translator_internal_opcodes(words: &[u32]) -> bool {
    instructions(words).any(|(op, _)| grammar::internal::is_translator_internal(op))
}

/// Whether the module declares a translator-internal capability
/// ([`crate::grammar::internal::INTERNAL_CAPABILITIES`], `BFloat16ArithmeticINTEL` say), which
/// SPIRV-Tools does not know either.
pub fn has_translator_internal_capabilities(words: &[u32]) -> bool {
    const OP_CAPABILITY: u16 = 17;
    instructions(words).any(|(op, operands)| {
        op == OP_CAPABILITY
            && operands
                .first()
                .is_some_and(|&c| grammar::internal::is_internal_capability(c))
    })
}

struct NoExtInsts;

impl grammar::WalkContext for NoExtInsts {
    fn ext_set(&self, _: crate::Id) -> Option<grammar::ExtSet> {
        None
    }
    fn literal_words_of_value(&self, _: crate::Id) -> Option<u32> {
        None
    }
}

/// The largest id the translator-internal instructions of a module name.
fn internal_max_id(words: &[u32]) -> Option<u32> {
    let mut max = None;
    for (op, operands) in instructions(words) {
        if !grammar::internal::is_translator_internal(op) {
            continue;
        }
        let _ = grammar::walk_operands(op, operands, &NoExtInsts, |slot| {
            use grammar::SlotKind as K;
            if matches!(slot.kind, K::ResultType | K::Result | K::Id) {
                if let Some(&w) = operands.get(slot.index) {
                    max = max.max(Some(w));
                }
            }
        });
    }
    max
}

/// Disassembles words into SPIR-V text (no colour; friendly names). A module with
/// translator-internal instructions or capabilities (DPC++ `joint_matrix`, sigmoid,
/// `BFloat16ArithmeticINTEL`, …: [`crate::grammar::internal`]), which SPIRV-Tools does not
/// know, prints them, named in a comment, as `OpUnknown(opcode, words) w1 w2 …` with raw words
/// and every id as its number (`%42`, no friendly names), so [`assemble`] gives the same words
/// back.
pub fn disassemble(words: &[u32]) -> Result<String, ToolsError> {
    let asm = assembler::create(Some(TargetEnv::Universal_1_6));
    let internal =
        has_translator_internal_opcodes(words) || has_translator_internal_capabilities(words);
    let opts = DisassembleOptions {
        print: false,
        color: false,
        indent: false,
        show_byte_offset: false,
        no_header: false,
        use_friendly_names: !internal,
        comment: false,
        handle_unknown_opcodes: internal,
    };
    let text = asm
        .disassemble(words, opts)
        .map_err(|e| ToolsError(format!("disassembly failed: {}", one_line(&e))))?
        .unwrap_or_default();
    Ok(if internal {
        text.lines()
            .map(name_internal_operands)
            .collect::<Vec<_>>()
            .join("\n")
            + "\n"
    } else {
        text
    })
}

/// An `OpUnknown(opcode, n) w1 w2 …` line of an instruction our grammar knows (a
/// translator-internal one, or one with an enumerant SPIRV-Tools lacks) with its id words
/// written as ids (`%12`, the same number when assembled with numeric ids kept) and the
/// instruction's name as a comment; other lines unchanged.
fn name_internal_operands(line: &str) -> String {
    let Some(rest) = line.trim_start().strip_prefix("OpUnknown(") else {
        return line.to_string();
    };
    let Some((head, tail)) = rest.split_once(')') else {
        return line.to_string();
    };
    let Some((op, n)) = head.split_once(',') else {
        return line.to_string();
    };
    let (Ok(op), Ok(n)) = (op.trim().parse::<u16>(), n.trim().parse::<usize>()) else {
        return line.to_string();
    };
    // Internal instructions, and grammar instructions with an operand SPIRV-Tools does not
    // know (`OpCapability 6192`).
    let Some(desc) = grammar::inst_desc(op) else {
        return line.to_string();
    };
    let body = tail.split(';').next().unwrap_or("");
    let raw: Vec<u32> = body
        .split_whitespace()
        .map_while(|t| t.parse::<u32>().ok())
        .collect();
    if raw.len() + 1 != n {
        return line.to_string();
    }
    let mut ids = vec![false; raw.len()];
    if grammar::walk_operands(op, &raw, &NoExtInsts, |slot| {
        use grammar::SlotKind as K;
        if matches!(slot.kind, K::ResultType | K::Result | K::Id) {
            if let Some(b) = ids.get_mut(slot.index) {
                *b = true;
            }
        }
    })
    .is_err()
    {
        return line.to_string();
    }
    let words: Vec<String> = raw
        .iter()
        .zip(&ids)
        .map(|(w, &id)| if id { format!("%{w}") } else { w.to_string() })
        .collect();
    // A translator-internal capability is named too (`; OpCapability BFloat16ArithmeticINTEL`).
    let capability = match (op, raw.as_slice()) {
        (17, [c]) => grammar::internal::capability_name(*c),
        _ => None,
    };
    match capability {
        Some(c) => format!(
            "OpUnknown({op}, {n}) {} ; {} {c}",
            words.join(" "),
            desc.name
        ),
        None => format!("OpUnknown({op}, {n}) {} ; {}", words.join(" "), desc.name),
    }
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
