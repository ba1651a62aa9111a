//! Fuzz target: loader → emitter → loader. Any input either fails to load with an error (never a
//! panic, hang or huge allocation), or loads, and then its emitted form reloads to the same
//! words (and, for inputs whose header and layout were already canonical, equals the input).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(
    init: spvopt_fuzz::report_crashes_on_alternate_stack(),
    |data: &[u8]| {
    spvopt_fuzz::note_input(data);
    if let Ok(m) = spvopt_ir::load_bytes(data) {
        let bytes = m.to_bytes();
        assert_eq!(bytes, data, "a loaded module must emit byte-identically");
        let again = spvopt_ir::load_bytes(&bytes).expect("emitted module reloads");
        assert_eq!(again.to_words(), m.to_words());
        let mut n = 0usize;
        for i in m.all_insts() {
            m.for_each_used_id(i, |_| n += 1);
        }
        std::hint::black_box(n);
    }
});
