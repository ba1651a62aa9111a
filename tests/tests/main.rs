//! The integration tests of the workspace, one module per concern, linked into one test binary
//! (`cargo test --release -p spvopt-tests --test integration`; one module: add its name as a
//! filter, e.g. `-- determinism::`; the pass fixtures are a test target of their own,
//! `--test pass_fixtures`). One binary links once: the ~34 binaries these files were
//! cost minutes of linking and gigabytes of disk. A file added to this folder must be declared
//! here (`autotests = false` in tests/Cargo.toml; `architecture::every_test_file_is_a_module`
//! fails otherwise).
//!
//! `fuzz_regressions` installs the process's global allocator: any single allocation above
//! 1 GiB aborts this binary, in every module.

mod analyses_on_demand;
mod architecture;
mod block_payloads;
mod builtin_form_passes;
mod corpus_block_passes;
mod corpus_passes;
mod cpu_target;
mod deep_input;
mod determinism;
mod differential;
mod enum_operands;
mod fuse_corpus;
mod fuse_min_messages;
mod fuzz_regressions;
mod genisa_imports;
mod ir_errors;
mod ir_mutation;
mod ir_round_trip_features;
mod ir_structure;
mod joint_matrix;
mod kernel_facts;
mod lane_map_shape;
mod legalize_corpus;
mod legalize_version;
mod lower_mma;
mod max_changes;
mod opencl_samples;
mod optimizer_api;
mod output_validation;
mod predicated_io;
mod prefetch_corpus;
mod preserved_check;
mod raise_block_io;
mod raise_block_io_stats;
mod raise_lower_corpus;
mod raise_lower_sim;
mod self_contained;
mod sim_block_io;
mod sim_crosscheck;
mod sim_long_vector;
mod sim_split_barrier;
mod sim_tensor;
mod sim_triton;
mod spv_ab_reduce;
mod subgroup_size;
mod tensor_convert_mutations;
mod tensor_gemm;
mod tensor_hw_convert;
mod translator_internal;
mod user_kernels;
mod xe3_targets;
