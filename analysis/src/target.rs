//! Target devices as data (DESIGN §5).
//!
//! A [`Target`] is a profile of one Intel GPU family: subgroup sizes, GRF size, which 2D block
//! shapes each `OpSubgroup2DBlock*INTEL` op supports (element size, width, height, count), the
//! `OpSubgroupMatrixMultiplyAccumulateINTEL` shapes and types per subgroup size, the byte sizes
//! `OpSubgroupBlockPrefetchINTEL` honours, and feature flags. Passes ask it questions
//! ([`Target::supports_2d_block`], [`Target::supports_mma`], [`Target::block_count_concatenates`]…);
//! they never test the target's name.
//!
//! Profiles: `pvc` (Xe-HPC), `bmg` and `lnl` (Xe2), `dg2` (Xe-HPG: no 2D block IO, SIMD8 DPAS),
//! `mtl` (Xe-LPG: neither), and `generic` (the portable tables of the OpenCL extensions
//! cl_intel_subgroup_2d_block_io and cl_intel_subgroup_matrix_multiply_accumulate).
//!
//! Every number comes from `docs/notes/intel-targets.md`; each profile's [`Sources`] names the
//! section (`§1.2` = the OpenCL environment table, `§2.2` = IGC's front-end validation table, …)
//! and `--describe-target` prints them next to the values. Values marked **\[inference\]** are our
//! reading, not a statement of a source. What a device supports is stated once, in its tables:
//! [`Target::summary`] (`--list-targets`) and [`Target::describe`] are generated from them.

use crate::block_kind::BlockKind;
use std::fmt::{self, Write as _};

/// One row of a 2D block shape table: the op and element size it applies to, the allowed block
/// widths (elements), heights (rows) and counts, and an optional cap on width × count
/// (elements per row over all blocks). A shape is supported when some row accepts it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlockShapeRule {
    pub op: BlockKind,
    /// Element size in bytes.
    pub elem: u32,
    pub widths: &'static [u32],
    pub heights: &'static [u32],
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
    pub subgroup_size: u32,
    pub m: &'static [u32],
    pub k: u32,
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
}

/// Where each value of a profile comes from: section references into
/// `docs/notes/intel-targets.md` (which names the file and commit of every source).
/// `--describe-target` prints them next to the values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sources {
    pub subgroup_sizes: &'static str,
    pub grf: &'static str,
    pub block_io_2d: &'static str,
    pub dpas: &'static str,
    /// Source of the tf32 rows of the MMA table (present or absent).
    pub tf32: &'static str,
    pub buffer_prefetch: &'static str,
    pub block_shapes: &'static str,
    pub mma_shapes: &'static str,
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
    pub features: Features,
    /// 2D block shape table (empty when the device has no 2D block IO).
    pub block_shapes: &'static [BlockShapeRule],
    /// MMA shape table (empty without DPAS).
    pub mma_shapes: &'static [MmaShape],
    /// NumBytes values `OpSubgroupBlockPrefetchINTEL` honours (empty without LSC).
    pub prefetch_bytes: &'static [u32],
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

// ---- tables ------------------------------------------------------------------------------------

/// Powers of two 1..=32 (H ranges "1-32", §2.2: all of W, H, Count are powers of two).
const P1_32: &[u32] = &[1, 2, 4, 8, 16, 32];
const P1_8: &[u32] = &[1, 2, 4, 8];
const P1_16: &[u32] = &[1, 2, 4, 8, 16];
const P2_32: &[u32] = &[2, 4, 8, 16, 32];
const P4_32: &[u32] = &[4, 8, 16, 32];
const P4_64: &[u32] = &[4, 8, 16, 32, 64];
const P2_16: &[u32] = &[2, 4, 8, 16];
const P4_16: &[u32] = &[4, 8, 16];
const C1: &[u32] = &[1];
const C12: &[u32] = &[1, 2];
const C124: &[u32] = &[1, 2, 4];

const fn rule(
    op: BlockKind,
    elem: u32,
    widths: &'static [u32],
    heights: &'static [u32],
    counts: &'static [u32],
    max_width_x_count: Option<u32>,
) -> BlockShapeRule {
    BlockShapeRule {
        op,
        elem,
        widths,
        heights,
        counts,
        max_width_x_count,
    }
}

use BlockKind::{Load, LoadTransform, LoadTranspose, Prefetch, Store};

/// Xe-HPC (PVC): IGC front-end validation, §2.2 table ("Read", "Transform (PVC)", "Prefetch",
/// "Write"; W·C ranges = 64 bytes per row), transposes per §2.1 "Transpose accepted by IGC
/// front-end (PVC/Xe2)": d32 W 1-8, H 1-32; d64 H = 8, W 1-4; Count 1.
const XE_HPC_BLOCKS: &[BlockShapeRule] = &[
    // §2.2 Read: 8-bit H 1-32, W 4-64, C 1-4, W·C ≤ 64.
    rule(Load, 1, P4_64, P1_32, C124, Some(64)),
    // 16-bit H 1-32, W 2-32, C 1-4, W·C ≤ 32.
    rule(Load, 2, P2_32, P1_32, C124, Some(32)),
    // 32-bit H 1-32, W 1-16, C 1-2, W·C ≤ 16.
    rule(Load, 4, P1_16, P1_32, C12, Some(16)),
    // 64-bit H 1-32, W 1-8, C 1.
    rule(Load, 8, P1_8, P1_32, C1, None),
    // §2.2 Transform (PVC): 8-bit H 4-32, W 4-16, C 1-4, W·C ≤ 64; 16-bit H 2-32, W 2-16,
    // C 1-4, W·C ≤ 32.
    rule(LoadTransform, 1, P4_16, P4_32, C124, Some(64)),
    rule(LoadTransform, 2, P2_16, P2_32, C124, Some(32)),
    // §2.1 transpose (PVC/Xe2 front end).
    rule(LoadTranspose, 4, P1_8, P1_32, C1, None),
    rule(LoadTranspose, 8, &[1, 2, 4], &[8], C1, None),
    // §2.2 Write: H 1-8, C 1; W 4-64 / 2-32 / 1-16 / 1-8.
    rule(Store, 1, P4_64, P1_8, C1, None),
    rule(Store, 2, P2_32, P1_8, C1, None),
    rule(Store, 4, P1_16, P1_8, C1, None),
    rule(Store, 8, P1_8, P1_8, C1, None),
    // §2.2 Prefetch: "as Read".
    rule(Prefetch, 1, P4_64, P1_32, C124, Some(64)),
    rule(Prefetch, 2, P2_32, P1_32, C124, Some(32)),
    rule(Prefetch, 4, P1_16, P1_32, C12, Some(16)),
    rule(Prefetch, 8, P1_8, P1_32, C1, None),
];

/// Xe2 (BMG, LNL): the Xe-HPC table plus the wider VNNI transforms (§2.2 "Transform (Xe2+)":
/// W up to 64 / 32; §1.3 rows "LoadTransform 1 | 32 / 64 | 4,8,16,32 | 1,2 / 1 | Xe2+ only" and
/// "LoadTransform 2 | 32 | 2,4,8,16 | 1 | Xe2+ only"; §2.1 "VNNI transform width").
const XE2_BLOCKS: &[BlockShapeRule] = &[
    rule(Load, 1, P4_64, P1_32, C124, Some(64)),
    rule(Load, 2, P2_32, P1_32, C124, Some(32)),
    rule(Load, 4, P1_16, P1_32, C12, Some(16)),
    rule(Load, 8, P1_8, P1_32, C1, None),
    rule(LoadTransform, 1, P4_16, P4_32, C124, Some(64)),
    rule(LoadTransform, 1, &[32], P4_32, C12, None),
    rule(LoadTransform, 1, &[64], P4_32, C1, None),
    rule(LoadTransform, 2, P2_16, P2_32, C124, Some(32)),
    rule(LoadTransform, 2, &[32], P2_16, C1, None),
    rule(LoadTranspose, 4, P1_8, P1_32, C1, None),
    rule(LoadTranspose, 8, &[1, 2, 4], &[8], C1, None),
    rule(Store, 1, P4_64, P1_8, C1, None),
    rule(Store, 2, P2_32, P1_8, C1, None),
    rule(Store, 4, P1_16, P1_8, C1, None),
    rule(Store, 8, P1_8, P1_8, C1, None),
    rule(Prefetch, 1, P4_64, P1_32, C124, Some(64)),
    rule(Prefetch, 2, P2_32, P1_32, C124, Some(32)),
    rule(Prefetch, 4, P1_16, P1_32, C12, Some(16)),
    rule(Prefetch, 8, P1_8, P1_32, C1, None),
];

/// The portable OpenCL table (§1.2, cl_intel_subgroup_2d_block_io v1.1.0), row by row.
const OPENCL_BLOCKS: &[BlockShapeRule] = &[
    rule(Load, 1, &[32], P1_32, C12, None),
    rule(Load, 1, &[16], &[8, 16, 32], &[4], None),
    rule(Load, 2, &[16], P1_32, C12, None),
    rule(Load, 4, &[8], P1_32, C12, None),
    rule(Load, 4, &[16], P1_32, C1, None),
    rule(LoadTransform, 1, &[16], &[32], C124, None),
    rule(LoadTransform, 2, &[16], &[16, 32], C12, None),
    rule(LoadTranspose, 4, &[8], &[16, 32], C1, None),
    rule(Store, 1, &[16, 32], P1_8, C1, None),
    rule(Store, 2, &[16], P1_8, C1, None),
    rule(Store, 4, &[16], P1_8, C1, None),
    rule(Prefetch, 1, &[32], P1_32, C12, None),
    rule(Prefetch, 1, &[16], &[32], C12, None),
    rule(Prefetch, 1, &[16], &[8, 16, 32], &[4], None),
    rule(Prefetch, 2, &[16], P1_32, C12, None),
    rule(Prefetch, 4, &[8], P1_32, C12, None),
    rule(Prefetch, 4, &[16], P1_32, C1, None),
];

/// M ∈ {1, 2, 4, 8} everywhere (§1.4 tables; §2.4 repeat count; IGC BiF builtins RC 1,2,4,8).
const M1248: &[u32] = &[1, 2, 4, 8];

const fn mma(subgroup_size: u32, types: MmaTypes) -> MmaShape {
    MmaShape {
        subgroup_size,
        m: M1248,
        k: types.k(),
        types,
    }
}

/// §1.4 OpenCL table rows "Device min SG 16" (+ the tf32 extension row). PVC and Xe2 run DPAS
/// at exec size 16 (§2.4, `hasExecSize16DPAS()` = Xe-HPC+).
const SG16_MMA: &[MmaShape] = &[
    mma(16, MmaTypes::Int8ToInt32),
    mma(16, MmaTypes::Int4ToInt32),
    mma(16, MmaTypes::F16ToF32),
    mma(16, MmaTypes::F16ToF16),
    mma(16, MmaTypes::Bf16ToF32),
    mma(16, MmaTypes::Bf16ToBf16),
    mma(16, MmaTypes::Tf32ToF32),
];

/// §1.4 OpenCL table rows "Device min SG 8": int8 K 32, int4 K 64, fp16/bf16 K 16, fp32 results.
/// DG2 runs DPAS at exec size 8 (§2.4; §3.5 "executionSize … 8 (ATSM/DG2)").
const SG8_MMA: &[MmaShape] = &[
    mma(8, MmaTypes::Int8ToInt32),
    mma(8, MmaTypes::Int4ToInt32),
    mma(8, MmaTypes::F16ToF32),
    mma(8, MmaTypes::Bf16ToF32),
];

/// Both halves of the OpenCL table (the generic profile promises nothing more).
const OPENCL_MMA: &[MmaShape] = &[
    mma(8, MmaTypes::Int8ToInt32),
    mma(8, MmaTypes::Int4ToInt32),
    mma(8, MmaTypes::F16ToF32),
    mma(8, MmaTypes::Bf16ToF32),
    mma(16, MmaTypes::Int8ToInt32),
    mma(16, MmaTypes::Int4ToInt32),
    mma(16, MmaTypes::F16ToF32),
    mma(16, MmaTypes::F16ToF16),
    mma(16, MmaTypes::Bf16ToF32),
    mma(16, MmaTypes::Bf16ToBf16),
    mma(16, MmaTypes::Tf32ToF32),
];

/// §1.5: "expected values 1,2,4,8,16,32,64" (power of two in [1, 64]).
const PREFETCH_BYTES: &[u32] = &[1, 2, 4, 8, 16, 32, 64];

/// A profile constructor.
type Profile = fn() -> Target;

/// Every profile, in `--list-targets` order.
const PROFILES: &[(&str, Profile)] = &[
    ("pvc", Target::pvc),
    ("bmg", Target::bmg),
    ("lnl", Target::lnl),
    ("dg2", Target::dg2),
    ("mtl", Target::mtl),
    ("generic", Target::generic),
    ("cpu", Target::cpu),
];

impl Default for Target {
    fn default() -> Self {
        Target::generic()
    }
}

/// Xe-HPC and Xe2 share these sources except for the 2D block table.
const XE_HPC_SOURCES: Sources = Sources {
    subgroup_sizes: "§2.1 SIMD (min dispatch SIMD16 on Xe-HPC+; 2D block IO needs SIMD16/32)",
    grf: "§2.1 GRF size (64 B on Xe-HPC and later)",
    block_io_2d: "§1.3 (SPV_INTEL_2d_block_io gated isCoreChildOf<IGFX_XE_HPC_CORE>)",
    dpas: "§2.4 (supportDpasInstruction() excludes only MTL, ARL-S, PVC-VG)",
    tf32: "§4.1 (IGC SIMD16 MMA table has tf32 K 8 on every exec-size-16 DPAS part; \
           SYCL matrix_combinations lists tf32 for pvc, bmg_g21, lnl_m)",
    buffer_prefetch: "§1.5 (IGC implements it on LSC platforms; NumBytes 1..64)",
    block_shapes: "§2.2 IGC front-end table (Read, Transform (PVC), Prefetch, Write); \
                   §2.1 transpose row",
    mma_shapes: "§1.4 OpenCL table, rows \"Device min SG 16\" + tf32 row; §2.4 exec size 16",
};

const XE2_SOURCES: Sources = Sources {
    block_shapes: "§2.2 IGC front-end table + \"Transform (Xe2+)\"; §1.3 \"Xe2+ only\" \
                   LoadTransform rows; §2.1 transpose and VNNI transform width rows",
    ..XE_HPC_SOURCES
};

impl Target {
    /// Intel Data Center GPU Max (Ponte Vecchio), Xe-HPC.
    pub fn pvc() -> Target {
        Target {
            name: "pvc".into(),
            description: "Intel Data Center GPU Max (Ponte Vecchio, Xe-HPC)",
            subgroup_sizes: &[16, 32],
            grf_bytes: 64,
            features: Features {
                block_io_2d: true,
                dpas: true,
                buffer_prefetch: true,
                kernel_attributes: true,
            },
            block_shapes: XE_HPC_BLOCKS,
            mma_shapes: SG16_MMA,
            prefetch_bytes: PREFETCH_BYTES,
            sources: XE_HPC_SOURCES,
        }
    }

    /// Intel Arc B-series (Battlemage), Xe2-HPG.
    pub fn bmg() -> Target {
        Target {
            name: "bmg".into(),
            description: "Intel Arc B-series (Battlemage, Xe2)",
            subgroup_sizes: &[16, 32],
            grf_bytes: 64,
            features: Features {
                block_io_2d: true,
                dpas: true,
                buffer_prefetch: true,
                kernel_attributes: true,
            },
            block_shapes: XE2_BLOCKS,
            // tf32 included: §4.1 (IGC's SIMD16 MMA table, chosen by hasExecSize16DPAS(), and
            // the SYCL runtime's matrix_combinations for intel_gpu_bmg_g21 both list it).
            mma_shapes: SG16_MMA,
            prefetch_bytes: PREFETCH_BYTES,
            sources: XE2_SOURCES,
        }
    }

    /// Intel Core Ultra 200V (Lunar Lake) integrated graphics, Xe2-LPG.
    pub fn lnl() -> Target {
        Target {
            name: "lnl".into(),
            description: "Intel Core Ultra 200V graphics (Lunar Lake, Xe2)",
            ..Target::bmg()
        }
    }

    /// Intel Arc A-series / Data Center GPU Flex (DG2, Alchemist), Xe-HPG.
    pub fn dg2() -> Target {
        Target {
            name: "dg2".into(),
            description: "Intel Arc A-series (DG2, Xe-HPG)",
            subgroup_sizes: &[8, 16, 32],
            grf_bytes: 32,
            features: Features {
                block_io_2d: false,
                dpas: true,
                buffer_prefetch: true,
                kernel_attributes: true,
            },
            block_shapes: &[],
            mma_shapes: SG8_MMA,
            prefetch_bytes: PREFETCH_BYTES,
            sources: Sources {
                subgroup_sizes: "[inference] pre-Xe-HPC parts dispatch SIMD8/16/32 \
                                 (min SIMD16 only from Xe-HPC, §2.1)",
                grf: "§2.1 GRF size (32 B before Xe-HPC)",
                block_io_2d: "§1.3 (\"DG2/Xe-HPG has no 2D block IO\")",
                dpas: "§1.4 (SPIR-V MMA extension on Xe-HPG+ except MTL/ARL); §2.4 exec size 8",
                tf32: "§4.1 (IGC SIMD8 MMA table has no tf32; SYCL matrix_combinations for \
                       dg2_g10/11/12 list none)",
                buffer_prefetch: "§1.5 (IGC implements it on LSC platforms)",
                block_shapes: "§1.3 (no 2D block IO)",
                mma_shapes: "§1.4 OpenCL table, rows \"Device min SG 8\"; §2.4 exec size 8",
            },
        }
    }

    /// Intel Core Ultra (Meteor Lake) integrated graphics, Xe-LPG.
    pub fn mtl() -> Target {
        Target {
            name: "mtl".into(),
            description: "Intel Core Ultra graphics (Meteor Lake, Xe-LPG)",
            subgroup_sizes: &[8, 16, 32],
            grf_bytes: 32,
            features: Features {
                block_io_2d: false,
                dpas: false,
                buffer_prefetch: true,
                kernel_attributes: true,
            },
            block_shapes: &[],
            mma_shapes: &[],
            prefetch_bytes: PREFETCH_BYTES,
            sources: Sources {
                subgroup_sizes: "[inference] as dg2 (min SIMD16 only from Xe-HPC, §2.1)",
                grf: "§2.1 GRF size (32 B before Xe-HPC)",
                block_io_2d: "§1.3 (2D block IO only on Xe-HPC children)",
                dpas: "§2.4 (supportDpasInstruction() excludes MTL); §1.4 gate \"except MTL/ARL\"",
                tf32: "§2.4 (no DPAS)",
                buffer_prefetch: "§1.5 (IGC implements it on LSC platforms)",
                block_shapes: "§1.3 (no 2D block IO)",
                mma_shapes: "§2.4 (no DPAS)",
            },
        }
    }

    /// Intel's OpenCL CPU runtime (PyPI `intel-opencl-rt`): core SPIR-V with `cl_intel_subgroups`
    /// (shuffles, block reads), none of the 2D block IO, subgroup MMA or buffer prefetch
    /// extensions, and no `SPV_INTEL_kernel_attributes`. A real executor for kernels written
    /// for Intel GPUs: `-O` lowers everything else to what it runs.
    pub fn cpu() -> Target {
        Target {
            name: "cpu".into(),
            description: "Intel OpenCL CPU runtime (intel-opencl-rt): executes GPU kernels on \
                          the host, without 2D block IO, DPAS or buffer prefetch",
            subgroup_sizes: &[8, 16, 32],
            grf_bytes: 64,
            features: Features {
                block_io_2d: false,
                dpas: false,
                buffer_prefetch: false,
                kernel_attributes: false,
            },
            block_shapes: &[],
            mma_shapes: &[],
            prefetch_bytes: &[],
            sources: Sources {
                subgroup_sizes: "docs/notes/opencl-cpu-runtime.md; tests/crosscheck runs SG \
                                 8, 16 and 32 kernels on it",
                grf: "[inference] no register file constraint: the CPU compiler vectorizes",
                block_io_2d: "[measured] the runtime does not list cl_intel_subgroup_2d_block_io",
                dpas: "[measured] no cl_intel_subgroup_matrix_multiply_accumulate",
                tf32: "no DPAS",
                buffer_prefetch: "[measured] no cl_intel_subgroup_buffer_prefetch",
                block_shapes: "no 2D block IO",
                mma_shapes: "no DPAS",
            },
        }
    }

    /// The portable OpenCL-extension tables (§1.2, §1.4, §1.5): what any device advertising
    /// the extensions must accept.
    pub fn generic() -> Target {
        Target {
            name: "generic".into(),
            description:
                "Portable: the cl_intel_subgroup_2d_block_io / matrix_multiply_accumulate \
                          / buffer_prefetch tables (2D block IO requires SIMD16)",
            subgroup_sizes: &[8, 16, 32],
            grf_bytes: 64,
            features: Features {
                block_io_2d: true,
                dpas: true,
                buffer_prefetch: true,
                kernel_attributes: true,
            },
            block_shapes: OPENCL_BLOCKS,
            mma_shapes: OPENCL_MMA,
            prefetch_bytes: PREFETCH_BYTES,
            sources: Sources {
                subgroup_sizes: "§1.2, §1.4 (SG 8 and 16 tables)",
                grf: "§1.2 + §2.1 (2D block IO applies to min-SG-16 devices = Xe-HPC+, 64 B GRF)",
                block_io_2d: "§1.2 cl_intel_subgroup_2d_block_io",
                dpas: "§1.4 cl_intel_subgroup_matrix_multiply_accumulate",
                tf32: "§1.4 (tf32 extension row)",
                buffer_prefetch: "§1.5 cl_intel_subgroup_buffer_prefetch",
                block_shapes: "§1.2 OpenCL table, row by row",
                mma_shapes: "§1.4 OpenCL tables (both halves)",
            },
        }
    }

    /// The profile called `name`, or an error naming the known ones.
    pub fn by_name(name: &str) -> Result<Target, UnknownTarget> {
        PROFILES
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, f)| f())
            .ok_or_else(|| UnknownTarget(name.to_string()))
    }

    /// The target called `name`; an unknown name gets the generic tables under that name
    /// (compatibility; the CLI uses [`Target::by_name`] and rejects unknown names).
    pub fn named(name: &str) -> Target {
        Target::by_name(name).unwrap_or_else(|_| Target {
            name: name.to_string(),
            ..Target::generic()
        })
    }

    /// Names of every profile.
    pub fn names() -> impl Iterator<Item = &'static str> {
        PROFILES.iter().map(|(n, _)| *n)
    }

    /// Every profile.
    pub fn all() -> Vec<Target> {
        PROFILES.iter().map(|(_, f)| f()).collect()
    }

    // ---- queries ---------------------------------------------------------------------------

    pub fn subgroup_sizes(&self) -> &'static [u32] {
        self.subgroup_sizes
    }
    pub fn has_2d_block_io(&self) -> bool {
        self.features.block_io_2d
    }
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

    /// One line of what the device supports, generated from the tables (`--list-targets`
    /// and the first line of `--describe-target` print it).
    pub fn summary(&self) -> String {
        let sg = self
            .subgroup_sizes
            .iter()
            .map(u32::to_string)
            .collect::<Vec<_>>()
            .join("/");
        let mut parts = vec![format!("SIMD{sg}"), format!("{} B GRF", self.grf_bytes)];
        parts.push(if !self.features.block_io_2d {
            "no 2D block IO".to_string()
        } else if self
            .block_shapes
            .iter()
            .any(|r| r.op == BlockKind::LoadTransform && r.widths.iter().any(|&w| w * r.elem > 32))
        {
            "2D block IO with wide VNNI transforms".to_string()
        } else {
            "2D block IO".to_string()
        });
        if self.features.dpas && !self.mma_shapes.is_empty() {
            let mut sizes: Vec<u32> = self.mma_shapes.iter().map(|m| m.subgroup_size).collect();
            sizes.sort_unstable();
            sizes.dedup();
            let sizes = sizes
                .iter()
                .map(u32::to_string)
                .collect::<Vec<_>>()
                .join("/");
            let tf32 = if self.has_tf32() {
                "incl. tf32"
            } else {
                "no tf32"
            };
            parts.push(format!("SIMD{sizes} DPAS {tf32}"));
        } else {
            parts.push("no DPAS (MMA must be emulated)".to_string());
        }
        if !self.features.buffer_prefetch {
            parts.push("no buffer prefetch".to_string());
        }
        parts.join(", ")
    }

    /// The whole profile, readably (for `--describe-target`), each value with its source in
    /// brackets (sections of [`SOURCES_FILE`]).
    pub fn describe(&self) -> String {
        let mut s = String::new();
        let yes = |b: bool| if b { "yes" } else { "no" };
        let list = |v: &[u32]| v.iter().map(u32::to_string).collect::<Vec<_>>().join(",");
        let src = &self.sources;
        let _ = writeln!(s, "target {}: {}", self.name, self.description);
        let _ = writeln!(s, "  summary:          {}", self.summary());
        let _ = writeln!(
            s,
            "  sources:          {SOURCES_FILE}, sections in [brackets]; [inference] = our reading"
        );
        let row = |s: &mut String, key: &str, value: String, source: &str| {
            let _ = writeln!(s, "  {:<18}{:<24} [{source}]", format!("{key}:"), value);
        };
        row(
            &mut s,
            "subgroup sizes",
            list(self.subgroup_sizes),
            src.subgroup_sizes,
        );
        row(
            &mut s,
            "GRF size",
            format!("{} bytes", self.grf_bytes),
            src.grf,
        );
        row(
            &mut s,
            "2D block IO",
            yes(self.features.block_io_2d).into(),
            src.block_io_2d,
        );
        row(&mut s, "DPAS", yes(self.features.dpas).into(), src.dpas);
        row(&mut s, "tf32 DPAS", yes(self.has_tf32()).into(), src.tf32);
        row(
            &mut s,
            "buffer prefetch",
            format!(
                "{} (NumBytes {})",
                yes(self.features.buffer_prefetch),
                list(self.prefetch_bytes)
            ),
            src.buffer_prefetch,
        );
        if self.block_shapes.is_empty() {
            let _ = writeln!(s, "  2D block shapes:  none [{}]", src.block_shapes);
        } else {
            let _ = writeln!(
                s,
                "  2D block shapes (elem bytes; widths; heights; counts; max width x count) [{}]:",
                src.block_shapes
            );
            for op in BlockKind::ALL {
                for r in self.block_shapes.iter().filter(|r| r.op == op) {
                    let line = format!(
                        "    {:<15} {}B  W {:<16} H {:<16} C {:<6} {}",
                        op.name(),
                        r.elem,
                        list(r.widths),
                        list(r.heights),
                        list(r.counts),
                        r.max_width_x_count
                            .map_or(String::new(), |m| format!("W*C <= {m}"))
                    );
                    let _ = writeln!(s, "{}", line.trim_end());
                }
            }
        }
        if self.mma_shapes.is_empty() || !self.features.dpas {
            let _ = writeln!(s, "  MMA shapes:       none [{}]", src.mma_shapes);
        } else {
            let _ = writeln!(s, "  MMA shapes (N = subgroup size) [{}]:", src.mma_shapes);
            for m in self.mma_shapes {
                let _ = writeln!(
                    s,
                    "    SG{:<3} M {:<8} N {:<3} K {:<3} {}",
                    m.subgroup_size,
                    list(m.m),
                    m.subgroup_size,
                    m.k,
                    m.types.name()
                );
            }
        }
        s
    }
}
