//! The integration tests of `spvopt-capi`, one module per concern, linked into one test binary
//! (`cargo test -p spvopt-capi --test integration -- MODULE::` runs one module): one link of the
//! crate and its dependencies instead of one per file.

mod c_client;
mod header;
mod out_parameters;
