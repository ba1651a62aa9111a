//! Fuzz target: every pass and pipeline on every target. The first byte picks the pipeline
//! (each registered pass alone, then a few pipelines), the second the target profile; the rest
//! is the module. A module that loads is optimized; the pipeline either fails with a one-line
//! error or writes a module that reloads (so it passes `spvopt_ir::verify`) — never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use spvopt_fuzz::split_selector;

fuzz_target!(
    init: spvopt_fuzz::report_crashes_on_alternate_stack(),
    |data: &[u8]| {
    spvopt_fuzz::note_input(data);
    let Some((pipeline, target, module)) = split_selector(data) else {
        return;
    };
    let Ok(m) = spvopt_ir::load_bytes(module) else {
        return;
    };
    match spvopt_passes::optimize_words(&m.to_words(), pipeline, target) {
        Ok((out, _)) => {
            let again = spvopt_ir::load_words(&out).unwrap_or_else(|e| {
                panic!("{pipeline} on {}: output does not load: {e}", target.name)
            });
            spvopt_ir::verify(&again).expect("a reloaded module passes verify");
        }
        Err(e) => {
            let msg = e.to_string();
            assert!(
                !msg.contains('\n'),
                "{pipeline}: error is not one line: {msg}"
            );
        }
    }
});
