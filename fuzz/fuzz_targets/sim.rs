//! Fuzz target: the simulator. The first 8 bytes describe the launch (sizes, subgroup size,
//! scalar arguments, buffer seed), the rest is the module. Its first entry point runs with a
//! 4 KiB buffer for every global pointer parameter, 1 KiB of local memory for every
//! Workgroup pointer and the scalars from the launch bytes, under a small step budget: the
//! run ends with results or an error, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(
    init: spvopt_fuzz::report_crashes_on_alternate_stack(),
    |data: &[u8]| {
    spvopt_fuzz::note_input(data);
    if data.len() < 8 {
        return;
    }
    let (sel, module) = data.split_at(8);
    let Ok(m) = spvopt_ir::load_bytes(module) else {
        return;
    };
    let sel: &[u8; 8] = sel.try_into().expect("8 bytes");
    let Some(launch) = spvopt_fuzz::launch_for(&m, sel) else {
        return;
    };
    let _ = spvopt_sim::run(&m, &launch);
});
