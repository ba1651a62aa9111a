//! The shape of a subgroup as the collective instructions see it: `SubgroupSize` (how many
//! invocations are present) and `SubgroupMaxSize` (the stride of block reads/writes).
//!
//! `SPV_INTEL_2d_block_io` ("Restrictions") makes a 2D block operation undefined unless
//! SubgroupMaxSize is a power of two and the subgroup is full; `cl_intel_subgroups` / the Level
//! Zero environment make 1D block reads/writes undefined for partial subgroups.

use crate::error::{SimError, SubgroupIssue};

/// Largest subgroup the simulator accepts (Intel GPUs use 8, 16 or 32).
pub const MAX_SUBGROUP_SIZE: u32 = 1024;

/// Subgroup shape at one collective instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Subgroup {
    /// `SubgroupSize`: invocations present in this subgroup.
    pub size: u32,
    /// `SubgroupMaxSize`: the size of a full subgroup of the kernel.
    pub max_size: u32,
}

impl Subgroup {
    /// A full subgroup of `size` invocations.
    pub fn full(size: u32) -> Subgroup {
        Subgroup {
            size,
            max_size: size,
        }
    }

    /// Number of invocations, as an index bound.
    pub fn len(&self) -> usize {
        self.size as usize
    }

    /// True when no invocation is present.
    pub fn is_empty(&self) -> bool {
        self.size == 0
    }

    /// Checks the subgroup is non-empty, no larger than its max size, and within the
    /// simulator's limit.
    pub fn require_valid(&self, op: &'static str) -> Result<(), SimError> {
        if self.size == 0 || self.max_size == 0 {
            Err(self.error(op, SubgroupIssue::Empty))
        } else if self.max_size > MAX_SUBGROUP_SIZE {
            Err(self.error(op, SubgroupIssue::TooLarge))
        } else if self.size > self.max_size {
            Err(self.error(op, SubgroupIssue::SizeAboveMax))
        } else {
            Ok(())
        }
    }

    /// Checks the subgroup is valid and full (SubgroupSize == SubgroupMaxSize).
    pub fn require_full(&self, op: &'static str) -> Result<(), SimError> {
        self.require_valid(op)?;
        if self.size != self.max_size {
            return Err(self.error(op, SubgroupIssue::Partial));
        }
        Ok(())
    }

    /// Checks the subgroup is full and its max size a power of two (2D block IO's rule).
    pub fn require_full_power_of_two(&self, op: &'static str) -> Result<(), SimError> {
        if self.max_size != 0 && !self.max_size.is_power_of_two() {
            return Err(self.error(op, SubgroupIssue::MaxSizeNotPowerOfTwo));
        }
        self.require_full(op)
    }

    fn error(&self, op: &'static str, issue: SubgroupIssue) -> SimError {
        SimError::Subgroup {
            op,
            size: self.size,
            max_size: self.max_size,
            issue,
        }
    }
}
