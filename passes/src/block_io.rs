//! The 2D block operation model is `spvopt_analysis::block_io` (one model for native ops and
//! builtin calls, used by every analysis and pass); these re-exports keep the
//! `spvopt_passes::block_io` paths the tools use.

pub use spvopt_analysis::block_io::{block_instructions, BlockKind, BlockOperands, BlockShape};
