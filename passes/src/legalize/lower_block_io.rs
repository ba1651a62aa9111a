//! 2D block loads and stores on targets without 2D block IO (dg2, mtl).
//!
//! Not implemented yet: the op is reported as an error with its location (the planned
//! lowering computes, per invocation and per slot of its data, the (row, column) the spec's
//! mapping assigns, and loads/stores `base + (y+row)·pitch + (x+col)·E` with the bounds
//! check against Memory Width/Height).

use spvopt_ir::{InstId, Interner, Module};

use crate::block_io::BlockOperands;
use crate::pass::Statistics;

use super::location;

/// Lowers one load or store, or reports why it cannot.
pub fn lower(
    m: &mut Module,
    at: InstId,
    ops: &BlockOperands,
    _sg: Option<u32>,
    _types: &mut Interner,
    _stats: &mut Statistics,
    errors: &mut Vec<String>,
) {
    errors.push(format!(
        "{}: the target has no 2D block IO and lowering {:?} to ordinary memory accesses is \
         not implemented yet",
        location(m, at),
        ops.kind
    ));
}
