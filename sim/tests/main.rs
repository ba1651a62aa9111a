//! The integration tests of `spvopt-sim`, one module per concern, linked into one test binary
//! (`cargo test -p spvopt-sim --test integration -- MODULE::` runs one module): one link of the
//! crate and its dependencies instead of one per file.

mod block_io_1d;
mod block_io_2d_spec;
mod memory_traffic;
mod mma_spec;
