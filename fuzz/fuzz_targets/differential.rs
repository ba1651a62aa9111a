//! Fuzz target: the differential test. Byte 0 picks the pipeline (every registered pass alone,
//! then the pipelines of `spvopt_fuzz::pipelines`), byte 1 the target; the rest are the choices
//! of `spvopt-kernelgen`, which turns any bytes into a valid kernel (2D block IO, MMA, loops,
//! divergence, builtin calls) and a spv-sim launch. The pipeline either refuses the kernel with
//! legalize's one-line "cannot be fixed for target" error (a shape the target lacks that no
//! split keeps), leaves it unchanged, or writes a module that reloads and leaves every buffer
//! bit-identical to the original's on spv-sim (where the original must run). The original is
//! simulated only when there is an output to compare with it: simulation is most of the cost
//! of an execution, and `tests/tests/differential.rs` checks that every generated kernel runs.
#![no_main]

use libfuzzer_sys::fuzz_target;
use spvopt_fuzz::split_selector;

fuzz_target!(
    init: spvopt_fuzz::report_crashes_on_alternate_stack(),
    |data: &[u8]| {
    spvopt_fuzz::note_input(data);
    let Some((pipeline, target, choices)) = split_selector(data) else {
        return;
    };
    let k = spvopt_kernelgen::generate(choices);
    match spvopt_passes::optimize_words(&k.words, pipeline, target) {
        Err(e) => {
            let msg = e.to_string();
            assert!(
                msg.contains("cannot be fixed for target") && !msg.contains('\n'),
                "{pipeline} on {}: {msg}",
                target.name
            );
        }
        Ok((out, _)) => {
            if out == k.words {
                return;
            }
            let m = spvopt_ir::load_words(&k.words).expect("a generated kernel loads");
            let expected = spvopt_sim::run(&m, &k.launch).expect("a generated kernel runs");
            let again = spvopt_ir::load_words(&out).unwrap_or_else(|e| {
                panic!("{pipeline} on {}: output does not load: {e}", target.name)
            });
            let got = spvopt_sim::run(&again, &k.launch).unwrap_or_else(|e| {
                panic!("{pipeline} on {}: output does not run: {e}", target.name)
            });
            for ((i, a), (_, b)) in expected.buffers.iter().zip(&got.buffers) {
                if a != b {
                    let first = a.iter().zip(b).position(|(x, y)| x != y).unwrap_or(0);
                    panic!(
                        "{pipeline} on {}: buffer arg{i} differs (first at byte {first})",
                        target.name
                    );
                }
            }
        }
    }
});
