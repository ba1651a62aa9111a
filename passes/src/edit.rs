//! Editing helpers several passes share, in one home so that no pass imports another (the
//! architecture test forbids it): where an instruction is, for messages ([`location`]); the
//! module's capabilities, extensions and version ([`capabilities`]) and the enum operands they
//! come from ([`enum_operands`]); control-flow surgery
//! ([`cfg`](mod@cfg)); built-in Input variables and entry point interfaces ([`variables`]); the imported
//! declarations of IGC's 2D block payload builtins ([`block_payload_imports`]); code moved into
//! functions of its own and identical functions merged ([`outline`]).

pub mod block_payload_imports;
pub mod capabilities;
pub mod cfg;
pub mod enum_operands;
pub mod outline;
pub mod variables;

use spvopt_ir::{InstId, Module};

use crate::diagnostic::Location;

/// Where an instruction is, for messages: `OpX %result in function %f, block %b` (or "at
/// module scope"); the text of [`Location::of`].
pub fn location(m: &Module, i: InstId) -> String {
    Location::of(m, i).to_string()
}
