//! Editing helpers several passes share, in one home so that no pass imports another (the
//! architecture test forbids it): where an instruction is, for messages ([`location`]); the
//! module's capabilities, extensions and version ([`capabilities`]); control-flow surgery
//! ([`cfg`]); built-in Input variables and entry point interfaces ([`variables`]).

pub mod capabilities;
pub mod cfg;
pub mod variables;

use spvopt_ir::{InstId, Module};

/// Where an instruction is, for messages: `OpX %result in function %f, block %b` (or "at
/// module scope").
pub fn location(m: &Module, i: InstId) -> String {
    let inst = m.inst(i);
    let what = match inst.result_id() {
        Some(r) => format!("{} %{}", inst.name(), r.word()),
        None => inst.name().into_owned(),
    };
    match m.inst_block(i) {
        Some(b) => {
            let f = m.block(b).func;
            let fname = m
                .function_result(f)
                .map_or_else(|| "?".to_string(), |id| format!("%{}", id.word()));
            format!(
                "{what} in function {fname}, block %{}",
                m.block_label(b).word()
            )
        }
        None => format!("{what} at module scope"),
    }
}
