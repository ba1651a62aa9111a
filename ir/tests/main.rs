//! The integration tests of `spvopt-ir`, one module per concern, linked into one test binary
//! (`cargo test -p spvopt-ir --test integration -- MODULE::` runs one module): one link of the
//! crate and its dependencies instead of one per file.

mod function_insertion;
mod interning;
mod opcode_class;
mod pooled_storage;
mod round_trip;
mod verify_equivalence;
