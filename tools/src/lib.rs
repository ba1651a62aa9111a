//! `spvopt-tools`: the command-line front ends (`spv-opt`, `spv-sim`, `spv-bench`) and the
//! benchmark kernel generator. The binaries are thin: argument parsing plus library calls.

pub mod ab;
pub mod bench_gen;
pub mod io;
pub mod jit_bench;
pub mod opt_cli;
pub mod sim_cli;
