//! Extension declarations legalized against what the target's IGC accepts
//! ([`Target::igc_accepts_extension`], measured per device: `analysis/src/target/igc_extensions.rs`).
//!
//! What (right after the capability step, which leaves declared exactly the extensions the
//! module needs plus those the grammar does not know, so an unused rejected declaration such as
//! `SPV_NV_cooperative_matrix2` on the tensor-addressing inputs is already gone; IGC fails a
//! module declaring one, used or not): every remaining `OpExtension "X"` the target's IGC
//! rejects is
//! - re-spelled as an alias the target accepts when the grammar lists one beside X in every
//!   requirement that lists X ([`extension_alternatives`]: `SPV_EXT_split_barrier` →
//!   `SPV_INTEL_split_barrier`, the only spelling IGC 2.40 takes);
//! - otherwise an error located at the declaration, naming the extension and the target: the
//!   module uses it and no output keeps that use legal for this IGC.
//!
//! When an earlier step reported an error (which then is the reason), or the capability step
//! did not run (`--max-changes` used up), this one does not either.
//! Nor is the MMA extension an error while the mma step reports MMAs the target lacks (for
//! `lower-mma`, which removes them, or as a warning): on mtl, whose IGC rejects the extension.
//! The tensor-addressing extensions (`SPV_NV_cooperative_matrix2`, `SPV_NV_tensor_addressing`),
//! whose uses `convert-tensor-addressing` replaces, get a warning instead; under `--max-changes`
//! (earlier steps may have stopped short) a used one is left without an error.
//! Targets without a measured column (`cpu`, `generic`) and extensions the grammar does not know
//! are left alone.
//! Why correct: a declaration enables instructions and enumerants; an alias the grammar lists
//! beside X in every requirement that lists X enables the same ones, so the module means the
//! same. One rewrite (`--max-changes`): one declaration re-spelled.
//! Cost: one pass over the extension declarations.

use spirv::Op;
use spvopt_analysis::Target;
use spvopt_ir::grammar::{decode_string, encode_string, extension_alternatives};
use spvopt_ir::{Inst, Module, Section};

use crate::diagnostic::Diagnostic;
use crate::pass::{Changes, Statistics};

/// Extensions whose uses `convert-tensor-addressing` turns into others.
const LATER_PASS: [&str; 2] = ["SPV_NV_cooperative_matrix2", "SPV_NV_tensor_addressing"];

const MMA_EXTENSION: &str = "SPV_INTEL_subgroup_matrix_multiply_accumulate";

/// Re-spells rejected declarations that have an accepted alias (`extensions_respelled`); every
/// other rejected one becomes an error. Returns whether the module changed.
pub fn run(
    m: &mut Module,
    target: &Target,
    stats: &mut Statistics,
    errors: &mut Vec<Diagnostic>,
    changes: &mut Changes,
) -> bool {
    // An earlier step's error already says why the module keeps what it uses (a 2D block load
    // legalize cannot lower on dg2 keeps SPV_INTEL_2d_block_io): no second error for it.
    if !errors.is_empty() {
        return false;
    }
    let rejected: Vec<(spvopt_ir::InstId, String)> = m
        .section_insts(Section::Extension)
        .filter(|(_, i)| i.is(Op::Extension))
        .filter_map(|(at, i)| Some((at, decode_string(i.operands())?.to_string())))
        .filter(|(_, name)| target.igc_accepts_extension(name) == Some(false))
        // MMAs the target lacks are the mma step's report (for lower-mma, or a warning naming
        // one no pass can lower, which lower-mma then fails on): not this step's error.
        .filter(|(_, name)| {
            name != MMA_EXTENSION
                || stats.get("mma_for_lower_mma") + stats.get("mma_unsupported") == 0
        })
        .collect();
    let declared: Vec<String> = m
        .section_insts(Section::Extension)
        .filter_map(|(_, i)| decode_string(i.operands()).map(str::to_string))
        .collect();
    let mut changed = false;
    for (at, name) in rejected {
        let alias = extension_alternatives(&name)
            .into_iter()
            .find(|a| target.igc_accepts_extension(a) == Some(true));
        match alias {
            Some(a) if declared.iter().any(|d| d == a) => {
                // The alias is declared already: this spelling is redundant.
                if !changes.allow() {
                    break;
                }
                m.retain_section(Section::Extension, |m, i| {
                    i != at || !m.inst(i).is(Op::Extension)
                });
                stats.add("extensions_respelled", 1);
                changed = true;
            }
            Some(a) => {
                if !changes.allow() {
                    break;
                }
                m.replace_inst(at, Inst::new(Op::Extension, None, None, &encode_string(a)));
                stats.add("extensions_respelled", 1);
                changed = true;
            }
            // Under --max-changes the earlier steps may have stopped short of removing the
            // use (a 2D block load left for dg2): the output is a debugging prefix, no error.
            None if changes.limit().is_some() => {}
            // convert-tensor-addressing's work (it runs before legalize in -O): a warning.
            None if LATER_PASS.contains(&name.as_str()) => stats.warn_at(
                crate::diagnostic::Location::of(m, at),
                format!(
                    "the module uses extension {name}, which IGC for target {} rejects: \
                     convert-tensor-addressing (part of -O) removes its uses",
                    target.name
                ),
            ),
            None => errors.push(Diagnostic::error_at(
                m,
                at,
                format!(
                    "the module uses extension {name}, which IGC for target {} rejects \
                     (measured: analysis/src/target/igc_extensions.rs)",
                    target.name
                ),
            )),
        }
    }
    changed
}
