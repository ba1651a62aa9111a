//! The state of one IGC 2D block address payload, as the machine's payload table holds it
//! (the builtins that create, update and use payloads are executed in `collective/payload.rs`).

/// One payload: the fields in the order of the creating call's arguments.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Payload {
    pub(crate) base: u64,
    pub(crate) width_m1: u32,
    pub(crate) height_m1: u32,
    pub(crate) pitch_m1: u32,
    /// Block x and y: 32-bit two's complement values (adds wrap).
    pub(crate) x: u32,
    pub(crate) y: u32,
    /// Block width, height, count.
    pub(crate) shape: [u32; 3],
}
