//! 1D subgroup block reads and writes: `OpSubgroupBlockReadINTEL` / `OpSubgroupBlockWriteINTEL`
//! of `SPV_INTEL_subgroups` (buffer forms; `cl_intel_subgroups` `intel_sub_group_block_read*` /
//! `_write*` and their `_uc/_us/_ui/_ul` variants).
//!
//! "The data is read strided, so the first value read is `Ptr[SubgroupLocalInvocationId]` and
//! the second value read is `Ptr[SubgroupLocalInvocationId + SubgroupMaxSize]`, etc.": component
//! `j` of invocation `i` is element `j * SubgroupMaxSize + i` of the contiguous block at `Ptr`.
//! The whole block (`components * SubgroupMaxSize` elements) must lie inside one allocation
//! (there is no defined out-of-range behaviour).
//!
//! Restrictions (Level Zero SPIR-V environment, "Notes and Restrictions", and `cl_intel_subgroups`
//! 6.13.X.1): `Ptr` must be 4-byte aligned for reads and 16-byte aligned for writes, and the
//! behaviour is undefined for a partial subgroup. We additionally require natural alignment of
//! 8-byte elements for reads (`max(4, element size)`).

use crate::error::SimError;
use crate::memory::{check_aligned, normalize_lines, push_lines, Memory};
use crate::subgroup::Subgroup;

/// Required alignment of `Ptr` for block reads (raised to the element size for 8-byte elements).
pub const READ_ALIGNMENT: u64 = 4;
/// Required alignment of `Ptr` for block writes.
pub const WRITE_ALIGNMENT: u64 = 16;
/// Cap on the bytes one block read or write moves, a simulator resource limit.
pub const MAX_BLOCK_BYTES: u64 = 1 << 20;

const READ_OP: &str = "OpSubgroupBlockReadINTEL";
const WRITE_OP: &str = "OpSubgroupBlockWriteINTEL";

/// Result of a block read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlockRead1d {
    /// Per invocation: `components` elements, component 0 first, little-endian.
    pub data: Vec<Vec<u8>>,
    /// Sorted, distinct 64-byte lines read.
    pub lines: Vec<u64>,
}

/// Bytes of one invocation's value: `components` elements of `element_size` bytes.
pub fn bytes_per_invocation(element_size: u32, components: u32) -> usize {
    element_size as usize * components as usize
}

/// Checks the shape and returns the bytes the whole subgroup moves.
fn block_bytes(
    op: &'static str,
    element_size: u32,
    components: u32,
    sg: Subgroup,
) -> Result<u64, SimError> {
    if !matches!(element_size, 1 | 2 | 4 | 8) {
        return Err(SimError::BlockIo1d {
            op,
            issue: format!("element size {element_size} is not 1, 2, 4 or 8 bytes"),
        });
    }
    if components == 0 {
        return Err(SimError::BlockIo1d {
            op,
            issue: "zero components".to_string(),
        });
    }
    sg.require_full(op)?;
    let total = element_size as u64 * components as u64 * sg.max_size as u64;
    if total > MAX_BLOCK_BYTES {
        return Err(SimError::BlockIo1d {
            op,
            issue: format!("block of {total} bytes exceeds the simulator's limit"),
        });
    }
    Ok(total)
}

/// Executes `OpSubgroupBlockReadINTEL` for a whole subgroup.
pub fn block_read(
    mem: &Memory,
    ptr: u64,
    element_size: u32,
    components: u32,
    sg: Subgroup,
) -> Result<BlockRead1d, SimError> {
    let total = block_bytes(READ_OP, element_size, components, sg)?;
    check_aligned(ptr, READ_ALIGNMENT.max(element_size as u64), READ_OP)?;
    let block = mem.slice(ptr, total as usize)?;
    let es = element_size as usize;
    let stride = sg.max_size as usize;
    let data = (0..sg.len())
        .map(|inv| {
            let mut out = Vec::with_capacity(es * components as usize);
            for j in 0..components as usize {
                let at = (j * stride + inv) * es;
                out.extend_from_slice(&block[at..at + es]);
            }
            out
        })
        .collect();
    let mut lines = Vec::new();
    push_lines(&mut lines, ptr, total);
    normalize_lines(&mut lines);
    Ok(BlockRead1d { data, lines })
}

/// Executes `OpSubgroupBlockWriteINTEL` for a whole subgroup; `data[i]` is invocation `i`'s
/// value. Returns the sorted, distinct 64-byte lines written.
pub fn block_write<D: AsRef<[u8]>>(
    mem: &mut Memory,
    ptr: u64,
    element_size: u32,
    components: u32,
    sg: Subgroup,
    data: &[D],
) -> Result<Vec<u64>, SimError> {
    let total = block_bytes(WRITE_OP, element_size, components, sg)?;
    check_aligned(ptr, WRITE_ALIGNMENT, WRITE_OP)?;
    if data.len() != sg.len() {
        return Err(SimError::InvocationCount {
            what: WRITE_OP,
            expected: sg.len(),
            got: data.len(),
        });
    }
    let es = element_size as usize;
    let per_inv = bytes_per_invocation(element_size, components);
    for (invocation, d) in data.iter().enumerate() {
        if d.as_ref().len() != per_inv {
            return Err(SimError::DataSize {
                what: WRITE_OP,
                invocation,
                expected: per_inv,
                got: d.as_ref().len(),
            });
        }
    }
    let stride = sg.max_size as usize;
    let block = mem.slice_mut(ptr, total as usize)?;
    for (inv, d) in data.iter().enumerate() {
        let d = d.as_ref();
        for j in 0..components as usize {
            let at = (j * stride + inv) * es;
            block[at..at + es].copy_from_slice(&d[j * es..(j + 1) * es]);
        }
    }
    let mut lines = Vec::new();
    push_lines(&mut lines, ptr, total);
    normalize_lines(&mut lines);
    Ok(lines)
}
