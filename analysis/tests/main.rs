//! The integration tests of `spvopt-analysis`, one module per concern, linked into one test binary
//! (`cargo test -p spvopt-analysis --test integration -- MODULE::` runs one module): one link of the
//! crate and its dependencies instead of one per file.

mod dependencies;
mod dot;
mod fixtures;
mod queries;
mod target_profiles;
mod triton_corpus;
mod value_slice;
mod work_group_uniformity;
