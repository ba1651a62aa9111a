//! Default validation: spirv-val's rules, plus what real Intel-GPU compiler output needs.
//!
//! What: [`validate_module`] runs SPIRV-Tools' validator (compiled in; with the
//! `VectorAnyINTEL` rule patched in, see `vendor/README.md`). Two deviations that every Triton
//! kernel and much clang/llvm-spirv output carries, and that Intel's drivers accept, are not
//! errors but warnings:
//! - Function-storage `OpVariable`s outside the function's first block (Triton declares them in
//!   loops): `legalize` moves them;
//! - debug information that does not validate (the translator's `DebugFunction` declarations):
//!   it does not affect execution, `strip-debug` removes it;
//! - blocks laid out before their dominators (the LLVM/SPIR-V translator's order; spirv-val
//!   says an id "has not been defined"): only when reordering the blocks in reverse post-order
//!   is what the module needs — a real use before definition stays an error. `legalize`
//!   reorders them;
//! - decorations repeated word for word (the same translator's `NoSignedWrap`): `legalize`
//!   removes the repetitions; differing repeated decorations stay errors;
//! - global variables an entry point uses but does not list in its interface (required from
//!   SPIR-V 1.4; the same translator lists only built-ins): `legalize` lists them;
//! - instructions and capabilities the LLVM/SPIR-V translator keeps internal
//!   (`spvopt_ir::grammar::internal`: DPC++ `joint_matrix`, `OpFSigmoidINTEL`, the FP
//!   conversions, the scaled MMA, `BFloat16ArithmeticINTEL` and the other capabilities of its
//!   table): spirv-val knows none of them, so they are not validated (their operand layout is
//!   checked when loading); on the copy their capabilities go and each result they define
//!   becomes an `OpUndef` of its type, so everything else is still validated. Where
//!   `BFloat16ArithmeticINTEL` is declared, the arithmetic it allows on bfloat16 values (which
//!   spirv-val rejects: "doesn't support BFloat16 type") goes the same way on the copy.
//!
//! - Valid modules the compiled-in SPIRV-Tools wrongly rejects: several `CacheControlLoadINTEL`
//!   / `CacheControlStoreINTEL` decorations on one id (`SPV_INTEL_cache_controls` allows one per
//!   cache level; Triton decorates L1 and L3). We check that rule ourselves (a level repeated
//!   on an id is an error) and validate the rest; no warning, since the module is valid.
//!
//! For each, the validator runs again on a validation-only copy with that deviation removed
//! (variables moved, debug info stripped), so everything else in the module is still
//! judged by spirv-val: a module with any other error is rejected with spirv-val's message and
//! location. The module itself is never changed.
//! Cost: one validator run, plus one copy and one more run per deviation found.

use spirv::Op;
use spvopt_analysis::{Analyses, Target};
use spvopt_ir::text::{self, TargetEnv};
use spvopt_ir::{Module, Section};

const CACHE_CONTROL_LOAD: u32 = spirv::Decoration::CacheControlLoadINTEL as u32;
const CACHE_CONTROL_STORE: u32 = spirv::Decoration::CacheControlStoreINTEL as u32;

fn is_cache_control(decoration: u32) -> bool {
    decoration == CACHE_CONTROL_LOAD || decoration == CACHE_CONTROL_STORE
}

use crate::pass::{Changes, Pass, Statistics};

mod output;
pub use output::{check_output, InvalidOutput};
use spvopt_ir::grammar::internal::{
    is_internal_capability, is_translator_internal, CAPABILITY_BFLOAT16_ARITHMETIC_INTEL,
};

mod bfloat16_arithmetic;

/// Whether spirv-val's message is about a translator-internal opcode or capability.
fn is_internal_message(message: &str) -> bool {
    let number = |prefix: &str| {
        message
            .split(prefix)
            .nth(1)
            .and_then(|r| r.split(|c: char| !c.is_ascii_digit()).next())
            .and_then(|d| d.parse::<u32>().ok())
    };
    number("Invalid opcode: ").is_some_and(|op| u16::try_from(op).is_ok_and(is_translator_internal))
        || number("Invalid capability operand: ").is_some_and(is_internal_capability)
        || message.contains("doesn't support BFloat16 type")
}

/// A deviation spirv-val rejects that compiler output for Intel GPUs carries and drivers accept.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Deviation {
    MisplacedFunctionVariables,
    InvalidDebugInfo,
    RepeatedCacheControls,
    BlocksBeforeTheirDominators,
    DuplicateDecorations,
    UnlistedInterfaceVariables,
    TranslatorInternalOpcodes,
}

impl Deviation {
    /// The deviation a spirv-val message reports, if it is one we tolerate.
    fn of_message(message: &str) -> Option<Deviation> {
        if is_internal_message(message) {
            Some(Deviation::TranslatorInternalOpcodes)
        } else if message.contains("All OpVariable instructions in a function must be the first") {
            Some(Deviation::MisplacedFunctionVariables)
        } else if message.contains("has not been defined") {
            // Only tolerated when the module really has a block before its dominator (checked
            // in `check`); otherwise the error stands.
            Some(Deviation::BlocksBeforeTheirDominators)
        } else if message.contains("decorated with CacheControlLoadINTEL multiple times")
            || message.contains("decorated with CacheControlStoreINTEL multiple times")
        {
            Some(Deviation::RepeatedCacheControls)
        } else if message.contains("but is not listed as an interface") {
            Some(Deviation::UnlistedInterfaceVariables)
        } else if message.contains("multiple times is not allowed") {
            // Exact repetitions only (checked in `check`).
            Some(Deviation::DuplicateDecorations)
        } else if message.starts_with("OpenCL.DebugInfo.100 ")
            || message.starts_with("DebugInfo ")
            || message.contains("NonSemantic.Shader.DebugInfo")
        {
            Some(Deviation::InvalidDebugInfo)
        } else {
            None
        }
    }

    /// The deviation's warning text: what it is, why it is accepted, what removes it (`None`:
    /// the module is valid, only our validator errs).
    fn explain(self) -> Option<Explained> {
        let (what, short, why, fix) = match self {
            Deviation::RepeatedCacheControls => return None,
            Deviation::MisplacedFunctionVariables => (
                "Function variables outside the entry block",
                "Function variables outside the entry block",
                "accepted by Intel's drivers",
                "legalize moves them",
            ),
            Deviation::InvalidDebugInfo => (
                "debug information does not validate",
                "invalid debug info",
                "no effect on execution",
                "strip-debug removes it",
            ),
            Deviation::BlocksBeforeTheirDominators => (
                "blocks laid out before their dominators",
                "blocks before their dominators",
                "LLVM/SPIR-V translator output, accepted by Intel's drivers",
                "legalize reorders them",
            ),
            Deviation::DuplicateDecorations => (
                "decorations repeated word for word",
                "repeated decorations",
                "LLVM/SPIR-V translator output, no meaning",
                "legalize removes the repetitions",
            ),
            Deviation::TranslatorInternalOpcodes => (
                "instructions or capabilities spirv-val does not know (kept internal by the \
                 LLVM/SPIR-V translator: DPC++ joint_matrix, sigmoid, FP conversions, scaled \
                 MMA, bfloat16 arithmetic, ...)",
                "translator-internal opcodes not validated",
                "absent from SPIRV-Headers; their operand layout is checked when loading",
                "the rest of the module is validated",
            ),
            Deviation::UnlistedInterfaceVariables => (
                "global variables used by an entry point but missing from its interface list",
                "interface variables not listed",
                "LLVM/SPIR-V translator output for SPIR-V 1.4",
                "legalize lists them",
            ),
        };
        Some(Explained {
            what,
            short,
            why,
            fix,
        })
    }

    /// Our own check of what the validator cannot judge, before the deviation is removed.
    fn check(self, m: &Module) -> Result<(), Refuted> {
        if self == Deviation::TranslatorInternalOpcodes {
            return if m
                .all_insts()
                .any(|i| is_translator_internal(m.inst(i).opcode()))
                || m.section_insts(Section::Capability)
                    .any(|(_, c)| c.operand_word(0).is_some_and(is_internal_capability))
            {
                Ok(())
            } else {
                Err(Refuted::NotThisDeviation)
            };
        }
        if self == Deviation::UnlistedInterfaceVariables {
            return if crate::legalize::interface_variables::has_missing(m) {
                Ok(())
            } else {
                Err(Refuted::NotThisDeviation)
            };
        }
        if self == Deviation::DuplicateDecorations {
            return if crate::legalize::duplicate_decorations::has_duplicates(m) {
                Ok(())
            } else {
                Err(Refuted::NotThisDeviation)
            };
        }
        if self == Deviation::BlocksBeforeTheirDominators {
            let mut copy = m.clone();
            let mut stats = Statistics::default();
            crate::legalize::block_order::run(&mut copy, &mut stats, &mut Changes::unlimited());
            return if stats.get("reordered_functions") > 0 {
                Ok(())
            } else {
                // Not a layout question: spirv-val's own message stands (the caller uses it).
                Err(Refuted::NotThisDeviation)
            };
        }
        if self != Deviation::RepeatedCacheControls {
            return Ok(());
        }
        let mut seen = std::collections::HashSet::new();
        for (_, inst) in m.section_insts(Section::Annotation) {
            let dec = inst.operand_word(1);
            if inst.is(Op::Decorate) && dec.is_some_and(is_cache_control) {
                let key = (inst.operand_word(0), dec, inst.operand_word(2));
                if !seen.insert(key) {
                    return Err(Refuted::RepeatedCacheControl {
                        target: key.0.unwrap_or(0),
                        load: dec == Some(CACHE_CONTROL_LOAD),
                        level: key.2.unwrap_or(0),
                    });
                }
            }
        }
        Ok(())
    }

    /// Removes the deviation from a validation-only copy.
    fn remove(self, copy: &mut Module) {
        match self {
            Deviation::TranslatorInternalOpcodes => {
                // Their capabilities go; a result they define becomes an OpUndef of its type,
                // so every use stays defined and the rest is judged as it is.
                let bf16_arithmetic = copy
                    .section_insts(Section::Capability)
                    .any(|(_, c)| c.operand_word(0) == Some(CAPABILITY_BFLOAT16_ARITHMETIC_INTEL));
                copy.retain_section(Section::Capability, |m, i| {
                    !m.inst(i)
                        .operand_word(0)
                        .is_some_and(is_internal_capability)
                });
                let mut internal: Vec<_> = copy
                    .all_insts()
                    .filter(|&i| is_translator_internal(copy.inst(i).opcode()))
                    .collect();
                if bf16_arithmetic {
                    internal.extend(bfloat16_arithmetic::instructions(copy));
                }
                for i in internal {
                    let (ty, res) = (copy.inst(i).result_type(), copy.inst(i).result_id());
                    if res.is_some() {
                        copy.insert_before(i, spvopt_ir::Inst::new(Op::Undef, ty, res, &[]));
                    }
                    copy.erase(i);
                }
            }
            Deviation::MisplacedFunctionVariables => {
                crate::legalize::function_variables::run(
                    copy,
                    &mut Statistics::default(),
                    &mut Changes::unlimited(),
                );
            }
            Deviation::BlocksBeforeTheirDominators => {
                crate::legalize::block_order::run(
                    copy,
                    &mut Statistics::default(),
                    &mut Changes::unlimited(),
                );
            }
            Deviation::DuplicateDecorations => {
                crate::legalize::duplicate_decorations::run(
                    copy,
                    &mut Statistics::default(),
                    &mut Changes::unlimited(),
                );
            }
            Deviation::UnlistedInterfaceVariables => {
                crate::legalize::interface_variables::run(
                    copy,
                    &mut Statistics::default(),
                    &mut Changes::unlimited(),
                );
            }
            Deviation::RepeatedCacheControls => {
                let mut seen = std::collections::HashSet::new();
                copy.retain_section(Section::Annotation, |m, i| {
                    let inst = m.inst(i);
                    let dec = inst.operand_word(1);
                    !(inst.is(Op::Decorate) && dec.is_some_and(is_cache_control))
                        || seen.insert((inst.operand_word(0), dec))
                });
            }
            Deviation::InvalidDebugInfo => {
                // strip-debug cannot fail on a loaded module; a failure leaves the copy as it
                // was and the next validator run reports the original error.
                let _ = crate::strip_debug::StripDebug.run(
                    copy,
                    &mut Analyses::new(),
                    &Target::default(),
                    &mut Changes::unlimited(),
                );
            }
        }
    }
}

/// The texts of one deviation's warning.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Explained {
    what: &'static str,
    short: &'static str,
    why: &'static str,
    fix: &'static str,
}

/// One deviation spirv-val rejects and the module is accepted with (a warning).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tolerated {
    explained: Explained,
    /// spirv-val's first message about it (with its location).
    pub message: String,
}

impl Tolerated {
    /// The whole warning: what, why it is accepted, what removes it, and spirv-val's message.
    pub fn line(&self) -> String {
        let e = &self.explained;
        format!("{} ({}; {}): {}", e.what, e.why, e.fix, self.message)
    }

    /// A few words: what, and what removes it (`invalid debug info (strip-debug removes it)`);
    /// the CLI joins a module's into one line and prints [`Tolerated::line`] with `-v`.
    pub fn short(&self) -> String {
        format!("{} ({})", self.explained.short, self.explained.fix)
    }
}

/// Why [`Deviation::check`] does not accept a deviation spirv-val reported.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
enum Refuted {
    /// The module does not have the deviation (spirv-val's message is about a real error,
    /// and it stands).
    #[error("not the tolerated deviation")]
    NotThisDeviation,
    /// A cache-control decoration repeated for one cache level.
    #[error(
        "%{target} is decorated with {} twice for cache level {level} (SPV_INTEL_cache_controls \
         allows one per level)",
        if *.load { "CacheControlLoadINTEL" } else { "CacheControlStoreINTEL" }
    )]
    RepeatedCacheControl { target: u32, load: bool, level: u32 },
}

/// Validates `m` for `env`. `Ok` carries one warning per tolerated deviation (with spirv-val's
/// first message about it); `Err` is spirv-val's one-line message for the first real error.
pub fn validate_module(m: &Module, env: TargetEnv) -> Result<Vec<String>, String> {
    validate_tolerating(m, env).map(|t| t.iter().map(Tolerated::line).collect())
}

/// [`validate_module`] with each tolerated deviation as a value (long and short texts).
pub fn validate_tolerating(m: &Module, env: TargetEnv) -> Result<Vec<Tolerated>, String> {
    let mut warnings = Vec::new();
    let mut copy: Option<Module> = None;
    let mut removed: Vec<Deviation> = Vec::new();
    loop {
        let words = copy.as_ref().unwrap_or(m).to_words();
        let message = match text::validate(&words, env) {
            Ok(()) => return Ok(warnings),
            Err(e) => e.0,
        };
        let Some(d) = Deviation::of_message(&message).filter(|d| !removed.contains(d)) else {
            return Err(message);
        };
        match d.check(m) {
            Ok(()) => {}
            Err(Refuted::NotThisDeviation) => return Err(message),
            Err(e) => return Err(e.to_string()),
        }
        if let Some(explained) = d.explain() {
            warnings.push(Tolerated { explained, message });
        }
        removed.push(d);
        d.remove(copy.get_or_insert_with(|| m.clone()));
    }
}

#[cfg(test)]
mod tests {
    use super::Refuted;

    #[test]
    fn repeated_cache_control_message_names_decoration_and_level() {
        for (target, load, level, decoration) in [
            (7, true, 1, "CacheControlLoadINTEL"),
            (3, false, 0, "CacheControlStoreINTEL"),
        ] {
            let refuted = Refuted::RepeatedCacheControl {
                target,
                load,
                level,
            };
            assert_eq!(
                refuted.to_string(),
                format!(
                    "%{target} is decorated with {decoration} twice for cache level {level} \
                     (SPV_INTEL_cache_controls allows one per level)"
                )
            );
        }
    }
}
