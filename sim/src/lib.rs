//! spvopt-sim: the reference simulator of SPIR-V compute kernels, our semantics oracle
//! (DESIGN.md §6).
//!
//! Start reading at [`run`] (`run.rs`: launching a kernel), then `exec.rs` (the SIMT loop and
//! instruction dispatch) and `machine.rs` (subgroups, frames, operand access); `decode.rs` turns a
//! module into the [`program::Program`] they execute. The semantic core they call is plain Rust
//! over bytes, one concern per module, each module documenting the spec section it models:
//! * [`ops`] executes the pure per-invocation instructions (arithmetic, conversions, composites);
//!   `arith.rs` has the scalar integer / float operations and conversions on raw bits.
//! * [`memory`] is the flat 64-bit address space with guard gaps and typed access.
//! * [`numeric`] has the f16 / bf16 / tf32 conversions and packed-integer helpers.
//! * [`subgroup`] checks subgroup shapes for the collective instructions.
//! * [`block_io_2d`] is `SPV_INTEL_2d_block_io`: loads (plain, transform, transpose), store, prefetch.
//! * [`block_io_1d`] is `SPV_INTEL_subgroups` buffer block reads and writes.
//! * [`block_prefetch_1d`] is `SPV_INTEL_subgroup_buffer_prefetch`.
//! * [`mma`] is `SPV_INTEL_subgroup_matrix_multiply_accumulate`.
//! * [`coop_matrix`] is `SPV_KHR_cooperative_matrix` (Subgroup scope) and the tensor-addressed
//!   loads / stores of `SPV_NV_cooperative_matrix2`; [`tensor_addressing`] is
//!   `SPV_NV_tensor_addressing` layouts, views and element addresses.
//! * [`traffic`] counts ordinary memory traffic (loads, stores, atomics) per storage class.
//! * [`compare`] compares the buffers of two runs element by element (`spv-sim compare`).
//! * [`error`] holds [`SimError`], the undefined behaviour and bad operands the core reports.
//!
//! The simulator shares no code with the passes it checks; from `spvopt-ir` it reads the module
//! and the grammar facts only.

mod arith;
pub mod block_io_1d;
pub mod block_io_2d;
mod block_payload_state;
pub mod block_prefetch_1d;
mod collective;
pub mod compare;
pub mod components;
pub mod coop_matrix;
mod decode;
pub mod error;
pub mod exec;
pub mod ext_cl;
pub mod fuzz_launch;
pub mod launch;
mod machine;
pub mod memory;
pub mod mma;
pub mod numeric;
pub mod ops;
pub mod program;
mod run;
mod sigmoid;
pub mod subgroup;
pub mod tensor_addressing;
pub mod traffic;
pub mod values;

pub use error::SimError;
pub use launch::{Arg, Launch};
pub use machine::{Counters, OpCount, RunOutput};
pub use run::{run, run_with_progress};
pub use traffic::{AccessCount, ClassTraffic, MemoryTraffic};

/// Loads a module (binary SPIR-V bytes) and runs `launch` on it.
pub fn run_bytes(module: &[u8], launch: &Launch) -> Result<RunOutput, SimError> {
    let m = spvopt_ir::load_bytes(module).map_err(|e| SimError::Module(e.to_string()))?;
    run(&m, launch)
}
