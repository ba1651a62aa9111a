//! `OpSubgroupBlockPrefetchINTEL` of `SPV_INTEL_subgroup_buffer_prefetch` (rev 1, 2024-05-30).
//!
//! "Prefetches one or more bytes from Ptr for each invocation in the subgroup as a block
//! operation, where the number of bytes to prefetch per invocation is specified by NumBytes. The
//! total number of bytes that is collectively prefetched is therefore NumBytes times
//! SubgroupSize." A prefetch has no functional effect: it never reads memory and never faults,
//! whatever `Ptr` points at. "The prefetch operation may be silently ignored unless NumBytes is
//! a power of two between one and 64 bytes, inclusive": the simulator ignores exactly those
//! (reporting `ignored` and no lines), so coverage counts only prefetches a device must honour.
//! The block is the contiguous range `[Ptr, Ptr + NumBytes * SubgroupSize)`; a range that would
//! wrap the address space is cut at its end.

use crate::error::SimError;
use crate::memory::{normalize_lines, push_lines};
use crate::subgroup::Subgroup;

/// Largest NumBytes a device must honour.
pub const MAX_NUM_BYTES: u32 = 64;

const OP: &str = "OpSubgroupBlockPrefetchINTEL";

/// What a block prefetch covers.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct BlockPrefetch1d {
    /// Sorted, distinct 64-byte lines covered (empty when ignored).
    pub lines: Vec<u64>,
    /// Bytes covered (0 when ignored).
    pub bytes: u64,
    /// True when NumBytes is not a power of two in [1, 64], so the prefetch may be dropped.
    pub ignored: bool,
}

/// True when a device must not drop a prefetch of `num_bytes` per invocation.
pub fn num_bytes_honoured(num_bytes: u32) -> bool {
    num_bytes.is_power_of_two() && num_bytes <= MAX_NUM_BYTES
}

/// Executes `OpSubgroupBlockPrefetchINTEL` for a whole subgroup. The only error is a subgroup
/// shape the simulator does not accept.
pub fn block_prefetch(ptr: u64, num_bytes: u32, sg: Subgroup) -> Result<BlockPrefetch1d, SimError> {
    sg.require_valid(OP)?;
    if !num_bytes_honoured(num_bytes) {
        return Ok(BlockPrefetch1d {
            ignored: true,
            ..BlockPrefetch1d::default()
        });
    }
    let total = num_bytes as u64 * sg.size as u64;
    let bytes = (total as u128).min((u64::MAX - ptr) as u128 + 1) as u64;
    let mut lines = Vec::new();
    push_lines(&mut lines, ptr, bytes);
    normalize_lines(&mut lines);
    Ok(BlockPrefetch1d {
        lines,
        bytes,
        ignored: false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn covers_num_bytes_times_subgroup_size() {
        let p = block_prefetch(0x1000, 4, Subgroup::full(16)).unwrap();
        assert_eq!((p.lines, p.bytes, p.ignored), (vec![0x1000], 64, false));
        let p = block_prefetch(0x1020, 8, Subgroup::full(16)).unwrap();
        assert_eq!(p.lines, vec![0x1000, 0x1040, 0x1080]);
        assert_eq!(p.bytes, 128);
        // partial subgroups prefetch NumBytes * SubgroupSize
        let p = block_prefetch(
            0x1000,
            64,
            Subgroup {
                size: 3,
                max_size: 16,
            },
        )
        .unwrap();
        assert_eq!(p.bytes, 192);
        assert_eq!(p.lines.len(), 3);
    }

    #[test]
    fn unexpected_sizes_are_ignored() {
        for n in [0, 3, 12, 128, u32::MAX] {
            let p = block_prefetch(0x1000, n, Subgroup::full(16)).unwrap();
            assert!(p.ignored && p.lines.is_empty() && p.bytes == 0, "{n}");
        }
        for n in [1, 2, 4, 8, 16, 32, 64] {
            assert!(num_bytes_honoured(n));
        }
    }

    #[test]
    fn never_faults() {
        // null, unmapped and end-of-address-space pointers are fine for a prefetch
        assert!(block_prefetch(0, 64, Subgroup::full(32)).is_ok());
        let p = block_prefetch(u64::MAX - 10, 64, Subgroup::full(32)).unwrap();
        assert_eq!(p.bytes, 11);
        assert_eq!(p.lines, vec![!63u64]);
        assert!(block_prefetch(0x1000, 4, Subgroup::full(0)).is_err());
        assert!(block_prefetch(0x1000, 4, Subgroup::full(1 << 20)).is_err());
    }
}
