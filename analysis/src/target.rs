//! Target devices as data (DESIGN §5).
//!
//! A [`Target`] is a profile of one Intel GPU family: subgroup sizes, GRF size, which 2D block
//! shapes each `OpSubgroup2DBlock*INTEL` op supports (element size, width, height, count), the
//! `OpSubgroupMatrixMultiplyAccumulateINTEL` shapes and types per subgroup size, the byte sizes
//! `OpSubgroupBlockPrefetchINTEL` honours, and feature flags. Passes ask it questions
//! ([`Target::supports_2d_block`], [`Target::supports_mma`], [`Target::block_count_concatenates`]…);
//! they never test the target's name.
//!
//! Profiles: `pvc` (Xe-HPC), `bmg` and `lnl` (Xe2), `ptl` (Xe3), `cri` (Xe3P: wide transposes,
//! 256-byte prefetch rows, 4-byte 2D block base alignment, 512-GRF mode), `dg2` (Xe-HPG: no 2D
//! block IO, SIMD8 DPAS), `mtl` (Xe-LPG: neither), `cpu`, and `generic` (the portable tables of the OpenCL extensions
//! cl_intel_subgroup_2d_block_io and cl_intel_subgroup_matrix_multiply_accumulate).
//!
//! Every number comes from `docs/notes/intel-targets.md`; each profile's [`Sources`] names the
//! section (`§1.2` = the OpenCL environment table, `§2.2` = IGC's front-end validation table, …)
//! and `--describe-target` prints them next to the values. Values marked **\[inference\]** are our
//! reading, not a statement of a source. What a device supports is stated once, in its tables:
//! [`Target::summary`] (`--list-targets`) and [`Target::describe`] are generated from them.

use crate::block_kind::BlockKind;
use std::fmt;

/// One row of a 2D block shape table: the op and element size it applies to, the allowed block
/// widths (elements), heights (rows) and counts, and an optional cap on width × count
/// (elements per row over all blocks). A shape is supported when some row accepts it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlockShapeRule {
    /// The operation the row applies to.
    pub op: BlockKind,
    /// Element size in bytes.
    pub elem: u32,
    /// Allowed block widths, in elements.
    pub widths: &'static [u32],
    /// Allowed block heights, in rows.
    pub heights: &'static [u32],
    /// Allowed block counts.
    pub counts: &'static [u32],
    /// Maximum of width × count, when the row has one.
    pub max_width_x_count: Option<u32>,
}

impl BlockShapeRule {
    fn accepts(&self, op: BlockKind, elem: u32, w: u32, h: u32, count: u32) -> bool {
        self.op == op
            && self.elem == elem
            && self.widths.contains(&w)
            && self.heights.contains(&h)
            && self.counts.contains(&count)
            && self
                .max_width_x_count
                .is_none_or(|m| w.saturating_mul(count) <= m)
    }
}

/// Element types of an MMA: what A and B hold and what C / the result hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MmaTypes {
    /// int8 × int8 (any signedness) → int32.
    Int8ToInt32,
    /// int4 × int4 (any signedness) → int32.
    Int4ToInt32,
    /// fp16 × fp16 → fp32.
    F16ToF32,
    /// fp16 × fp16 → fp16 accumulator.
    F16ToF16,
    /// bf16 × bf16 → fp32.
    Bf16ToF32,
    /// bf16 × bf16 → bf16 accumulator (operand bits CBFloat16 | ResultBFloat16).
    Bf16ToBf16,
    /// tf32 × tf32 → fp32.
    Tf32ToF32,
}

impl MmaTypes {
    /// The class as `--describe-target` prints it (`f16*f16->f32`).
    pub fn name(self) -> &'static str {
        match self {
            MmaTypes::Int8ToInt32 => "i8*i8->i32",
            MmaTypes::Int4ToInt32 => "i4*i4->i32",
            MmaTypes::F16ToF32 => "f16*f16->f32",
            MmaTypes::F16ToF16 => "f16*f16->f16",
            MmaTypes::Bf16ToF32 => "bf16*bf16->f32",
            MmaTypes::Bf16ToBf16 => "bf16*bf16->bf16",
            MmaTypes::Tf32ToF32 => "tf32*tf32->f32",
        }
    }

    /// The K every device uses for these types (§2.4: K = 8 × ops per channel; §1.4 tables).
    pub const fn k(self) -> u32 {
        match self {
            MmaTypes::Int8ToInt32 => 32,
            MmaTypes::Int4ToInt32 => 64,
            MmaTypes::Tf32ToF32 => 8,
            _ => 16,
        }
    }

    /// Classifies an `OpSubgroupMatrixMultiplyAccumulateINTEL` from its Matrix Multiply
    /// Accumulate Operands mask and whether the result type's component is a float of
    /// `result_float_bits` bits (`None` for integer results). Bits per §1.4.
    pub fn from_operands(mask: u32, result_float_bits: Option<u32>) -> Option<MmaTypes> {
        const SIGNS: u32 = 0x1 | 0x2;
        let ab = mask & !SIGNS & !(0x4 | 0x8);
        let bf16_acc = mask & (0x4 | 0x8);
        match (ab, result_float_bits) {
            (0x30, None) if bf16_acc == 0 => Some(MmaTypes::Int8ToInt32),
            (0xC0, None) if bf16_acc == 0 => Some(MmaTypes::Int4ToInt32),
            (0xC00, Some(32)) if mask & SIGNS == 0 && bf16_acc == 0 => Some(MmaTypes::F16ToF32),
            (0xC00, Some(16)) if mask & SIGNS == 0 && bf16_acc == 0 => Some(MmaTypes::F16ToF16),
            (0x3000, Some(32)) if mask & SIGNS == 0 && bf16_acc == 0 => Some(MmaTypes::Bf16ToF32),
            (0x3000, None) if mask & SIGNS == 0 && bf16_acc == 0xC => Some(MmaTypes::Bf16ToBf16),
            (0x300, Some(32)) if mask & SIGNS == 0 && bf16_acc == 0 => Some(MmaTypes::Tf32ToF32),
            _ => None,
        }
    }
}

/// One row of an MMA table: subgroup size (= N), the allowed M (rows), K and types.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MmaShape {
    /// Subgroup size: N, the columns of B, C and the result.
    pub subgroup_size: u32,
    /// Allowed M: rows of A, C and the result.
    pub m: &'static [u32],
    /// K: the reduction depth (columns of A, rows of B).
    pub k: u32,
    /// Element types of A, B, C and the result.
    pub types: MmaTypes,
}

/// Feature flags of a device.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Features {
    /// SPV_INTEL_2d_block_io / LSC 2D block messages.
    pub block_io_2d: bool,
    /// DPAS (systolic MMA) hardware. (Which types it multiplies, tf32 included, is the MMA
    /// table's business: [`Target::has_tf32`] reads it from there, so there is one truth.)
    pub dpas: bool,
    /// SPV_INTEL_subgroup_buffer_prefetch honoured (LSC).
    pub buffer_prefetch: bool,
    /// The driver takes the `SPV_INTEL_kernel_attributes` execution modes Triton emits
    /// (`MaxWorkgroupSizeINTEL`); Intel's OpenCL CPU runtime rejects the capability.
    pub kernel_attributes: bool,
    /// The driver takes `SPV_INTEL_predicated_io` (`OpPredicatedLoadINTEL` /
    /// `OpPredicatedStoreINTEL`; IGC: every platform). Intel's OpenCL CPU runtime rejects it
    /// (measured, docs/notes/opencl-cpu-runtime.md): `legalize` lowers them to a branch and a
    /// plain access there.
    pub predicated_io: bool,
    /// Vectors of any component count under `VectorAnyINTEL` (SPV_INTEL_vector_compute).
    pub vector_any_intel: bool,
    /// Vectors of any component count under `LongVectorEXT` (SPV_EXT_long_vector, with
    /// `OpTypeVectorIdEXT`). On a target without it `legalize` rewrites them for
    /// `VectorAnyINTEL`.
    pub long_vector_ext: bool,
}

/// Where each value of a profile comes from: section references into
/// `docs/notes/intel-targets.md` (which names the file and commit of every source).
/// `--describe-target` prints them next to the values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sources {
    /// Source of the subgroup sizes.
    pub subgroup_sizes: &'static str,
    /// Source of the GRF register size.
    pub grf: &'static str,
    /// Source of the 2D block IO feature.
    pub block_io_2d: &'static str,
    /// Source of the DPAS (MMA) feature.
    pub dpas: &'static str,
    /// Source of the tf32 rows of the MMA table (present or absent).
    pub tf32: &'static str,
    /// Source of the buffer-prefetch feature.
    pub buffer_prefetch: &'static str,
    /// Source of the 2D block shape table.
    pub block_shapes: &'static str,
    /// Source of the MMA shape table.
    pub mma_shapes: &'static str,
    /// Source of the 2D block base address alignment.
    pub block_base_align: &'static str,
    /// Source of the GRF modes (registers per thread).
    pub grf_modes: &'static str,
    /// Source of which long-vector capabilities the device takes.
    pub long_vectors: &'static str,
}

/// The notes every [`Sources`] entry refers to.
pub const SOURCES_FILE: &str = "docs/notes/intel-targets.md";

/// The device a pipeline optimizes for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Target {
    /// Profile name (`pvc`, `bmg`, …).
    pub name: String,
    /// The device family's name; what it supports is generated from the tables
    /// ([`Target::summary`]), so `--list-targets` and `--describe-target` cannot disagree.
    pub description: &'static str,
    /// Subgroup sizes kernels may be compiled for.
    pub subgroup_sizes: &'static [u32],
    /// General register file register size in bytes.
    pub grf_bytes: u32,
    /// Which features the device has (2D block IO, DPAS, prefetch, …).
    pub features: Features,
    /// 2D block shape table (empty when the device has no 2D block IO).
    pub block_shapes: &'static [BlockShapeRule],
    /// MMA shape table (empty without DPAS).
    pub mma_shapes: &'static [MmaShape],
    /// NumBytes values `OpSubgroupBlockPrefetchINTEL` honours (empty without LSC).
    pub prefetch_bytes: &'static [u32],
    /// Alignment in bytes the device needs of a 2D block op's base address (64 in the
    /// SPIR-V extension; 4 on Xe3P). Meaningless without 2D block IO.
    pub block_base_align: u32,
    /// Registers per thread a kernel may be compiled for (`-cl-intel-<N>-GRF-per-thread`);
    /// empty when the device has no GRF (cpu).
    pub grf_modes: &'static [u32],
    /// Where every value above comes from.
    pub sources: Sources,
}

/// `--target` named no known profile.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownTarget(pub String);

impl fmt::Display for UnknownTarget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown target \"{}\" (known: {})",
            self.0,
            Target::names().collect::<Vec<_>>().join(", ")
        )
    }
}

impl std::error::Error for UnknownTarget {}

mod describe;
mod igc_costs;
pub mod igc_extensions;
mod profiles;

pub use igc_costs::{BlockCost, IGC_COSTS_SOURCE};
pub use igc_extensions::IGC_EXTENSIONS_SOURCE;

impl Target {
    /// Subgroup sizes kernels may be compiled for on this device.
    pub fn subgroup_sizes(&self) -> &'static [u32] {
        self.subgroup_sizes
    }
    /// Whether the device has `SPV_INTEL_2d_block_io`.
    pub fn has_2d_block_io(&self) -> bool {
        self.features.block_io_2d
    }
    /// Whether the device has DPAS (`SPV_INTEL_subgroup_matrix_multiply_accumulate`).
    pub fn has_dpas(&self) -> bool {
        self.features.dpas
    }
    /// Whether tf32 × tf32 → f32 MMA is supported: read from the MMA table, the one truth
    /// [`Target::summary`], [`Target::describe`] and [`Target::supports_mma`] all use.
    pub fn has_tf32(&self) -> bool {
        self.features.dpas
            && self
                .mma_shapes
                .iter()
                .any(|s| s.types == MmaTypes::Tf32ToF32)
    }
    /// The alignment (bytes) a 2D block op's base address needs on this device.
    pub fn block_base_alignment(&self) -> u32 {
        self.block_base_align
    }
    /// The largest GRF mode (registers per thread), 0 without a GRF.
    pub fn max_grf_per_thread(&self) -> u32 {
        self.grf_modes.iter().copied().max().unwrap_or(0)
    }
    /// NumBytes values `OpSubgroupBlockPrefetchINTEL` honours.
    pub fn prefetch_byte_sizes(&self) -> &'static [u32] {
        self.prefetch_bytes
    }

    /// Whether `op` with this element size (bytes), block width, height and count is supported.
    pub fn supports_2d_block(&self, op: BlockKind, elem: u32, w: u32, h: u32, count: u32) -> bool {
        self.features.block_io_2d
            && self
                .block_shapes
                .iter()
                .any(|r| r.accepts(op, elem, w, h, count))
    }

    /// [`Target::supports_2d_block`] for the load kinds and prefetch (stores go through the
    /// general query).
    pub fn supports_2d_load(&self, op: BlockKind, elem: u32, w: u32, h: u32, count: u32) -> bool {
        self.supports_2d_block(op, elem, w, h, count)
    }

    /// The largest supported block count for this shape, if any count is supported.
    pub fn max_block_count(&self, op: BlockKind, elem: u32, w: u32, h: u32) -> Option<u32> {
        if !self.features.block_io_2d {
            return None;
        }
        self.block_shapes
            .iter()
            .flat_map(|r| r.counts.iter().copied())
            .filter(|&c| self.supports_2d_block(op, elem, w, h, c))
            .max()
    }

    /// Whether a load of `count` blocks gives each invocation the concatenation of what the
    /// `count` separate single-block loads (at x, x+W, …) give it, so fusing them is exact.
    ///
    /// §2.3 (vISA LOAD_BLOCK2D): each block is padded to a whole number of GRFs in the
    /// destination (row pitch = next power of two of W, or of H for transposes); §2.2 (IGC
    /// Subgroup2DBlockIoResolution): Count > 1 is accepted when BlockBytes ≥ GRF or
    /// SIMD × elemBytes == GRF. So: exact when each padded block fills whole GRFs or
    /// `sg_size × elem_size` equals the GRF size. `count <= 1` is trivially exact.
    pub fn block_count_concatenates(
        &self,
        elem: u32,
        w: u32,
        h: u32,
        count: u32,
        sg_size: u32,
    ) -> bool {
        if count <= 1 {
            return true;
        }
        if !self.features.block_io_2d || self.grf_bytes == 0 {
            return false;
        }
        let block_bytes = u64::from(w.max(1).next_power_of_two()) * u64::from(h) * u64::from(elem);
        let grf = u64::from(self.grf_bytes);
        block_bytes >= grf && block_bytes % grf == 0 || u64::from(sg_size) * u64::from(elem) == grf
    }

    /// Whether an MMA with subgroup size `sg` (= N), M rows, K and these types is supported.
    pub fn supports_mma(&self, sg: u32, m: u32, n: u32, k: u32, types: MmaTypes) -> bool {
        if !self.features.dpas || n != sg {
            return false;
        }
        self.mma_shapes
            .iter()
            .any(|s| s.subgroup_size == sg && s.k == k && s.types == types && s.m.contains(&m))
    }
}
