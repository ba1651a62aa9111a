//! `spvopt-tools`: the command-line front ends (`spv-opt`, `spv-sim`, `spv-bench`) and the
//! benchmark kernel generator. The binaries are thin: argument parsing plus library calls.
//!
//! Start reading at `src/bin/spv-opt.rs` (the optimizer's command line); [`bench_gen`] generates
//! the benchmark modules `spv-bench` times.

pub mod ab;
pub mod bench_gen;
pub mod cli_doc;
pub mod igc;
pub mod io;
pub mod jit_bench;
pub mod named_listing;
pub mod opt_cli;
pub mod sim_cli;
