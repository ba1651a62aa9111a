//! `spvopt-passes`: the passes of spv-opt, their registry and the pass manager.
//!
//! Library use (a driver's JIT pipeline): an [`Optimizer`] (target + pipeline, prepared once)
//! runs on many modules, from several threads; [`optimize_words`] does one module in one call.
//! Both take SPIR-V words and return optimized words or a typed error; no global state, no
//! panics on bad input.
//!
//! Start reading at [`manager`] (how a pipeline runs passes and reports), [`pass`] (the `Pass`
//! trait, results, statistics) and [`registry`] (names and options); then one small pass
//! ([`strip_prefetches`]) and one built on the analyses ([`fuse_block_loads`]). 2D block operands
//! and opcode classes come from `spvopt_analysis::block_io` and `spvopt_ir::opcode_class`.

pub mod builtin_mangling;
pub mod convert_tensor_addressing;
pub mod dce;
pub mod declare_subgroup_size;
pub mod diagnostic;
pub mod edit;
pub mod fuse_block_loads;
pub mod hoist_block_payloads;
pub mod insert_prefetches;
pub mod legalize;
pub mod lower_block_payloads;
pub mod lower_builtins;
pub mod lower_mma;
pub mod manager;
pub mod messages;
pub mod optimizer;
pub mod pass;
pub mod raise_block_io;
pub mod raise_builtins;
pub mod registry;
pub mod split_block_loads;
pub mod strip_debug;
pub mod strip_prefetches;
mod util;

/// The builtins' mangling and linkages, now [`builtin_mangling`] (the parser of their names is
/// `spvopt_analysis::builtin_names`; this path is kept for the library's users).
pub use builtin_mangling as builtin_names;
/// Control-flow surgery, now [`edit::cfg`] (this path is kept for the library's users).
pub use edit::cfg as cfg_edit;
#[cfg(feature = "validate")]
pub mod validate;

pub use diagnostic::{Diagnostic, Level, Location};
pub use manager::{run_pipeline, Hooks, PassRecord, Pipeline, RunReport};
pub use optimizer::{Optimized, Optimizer};
pub use pass::{Changes, Pass, PassError, PassResult, Statistics};
pub use registry::{lookup, PassInfo, REGISTRY};

use spvopt_analysis::Target;

/// Why [`optimize_words`] failed.
#[derive(Debug, thiserror::Error)]
pub enum OptimizeError {
    #[error("{0}")]
    Load(#[from] spvopt_ir::LoadError),
    #[error("{0}")]
    Pass(#[from] PassError),
    /// The input does not validate (only when validation was asked for).
    #[error("input does not validate: {0}")]
    Invalid(String),
}

/// Loads `words`, runs `pipeline` for `target`, and returns the optimized words with the run
/// report.
pub fn optimize_words(
    words: &[u32],
    pipeline: &str,
    target: &Target,
) -> Result<(Vec<u32>, RunReport), OptimizeError> {
    let mut m = spvopt_ir::load_words(words)?;
    let p = Pipeline::parse(pipeline)?;
    let report = run_pipeline(&p, &mut m, target, &mut Hooks::default())?;
    Ok((m.to_words(), report))
}
