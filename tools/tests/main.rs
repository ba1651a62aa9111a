//! The integration tests of `spvopt-tools`, one module per concern, linked into one test binary
//! (`cargo test -p spvopt-tools --test integration -- MODULE::` runs one module): one link of the
//! crate and its dependencies instead of one per file.

mod ab;
mod ab_igc;
mod bench_gen_valid;
mod cli;
mod cli_conflicts;
mod cli_diagnostics;
mod cli_docs;
mod cli_flags;
mod cli_inspect;
mod cli_io;
mod cli_max_changes;
mod cli_reporting;
mod cli_targets;
mod cli_warnings;
mod common;
mod corrupt_inputs;
mod igc_extensions;
mod igc_judge;
mod isa_table;
mod sim_compare;
mod snapshots;
mod subgroup_size;
