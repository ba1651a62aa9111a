//! The profiles: each device family's 2D block, MMA and prefetch tables with their sources,
//! and the constructors `Target::pvc()` … `Target::cpu()`, `Target::by_name`.

use super::{BlockShapeRule, Features, MmaShape, MmaTypes, Sources, Target, UnknownTarget};
use crate::block_kind::BlockKind;

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

/// Xe3P (CRI): the Xe2 table, the wide transposes (§5.1 `supports2dBlockTranspose64ByteWidth()`:
/// d32 H 1-32, W 1-16; d64 H 8-16, W 1-8) and the 256-byte prefetch rows (§5.1
/// `supports2dBlockPrefetch256Bytes()`: H 1-32, Count 1-4, W x Count x elem = 256 bytes exactly).
const XE3P_BLOCKS: &[BlockShapeRule] = &[
    rule(Load, 1, P4_64, P1_32, C124, Some(64)),
    rule(Load, 2, P2_32, P1_32, C124, Some(32)),
    rule(Load, 4, P1_16, P1_32, C12, Some(16)),
    rule(Load, 8, P1_8, P1_32, C1, None),
    rule(LoadTransform, 1, P4_16, P4_32, C124, Some(64)),
    rule(LoadTransform, 1, &[32], P4_32, C12, None),
    rule(LoadTransform, 1, &[64], P4_32, C1, None),
    rule(LoadTransform, 2, P2_16, P2_32, C124, Some(32)),
    rule(LoadTransform, 2, &[32], P2_16, C1, None),
    rule(LoadTranspose, 4, P1_16, P1_32, C1, None),
    rule(LoadTranspose, 8, P1_8, &[8, 16], C1, None),
    rule(Store, 1, P4_64, P1_8, C1, None),
    rule(Store, 2, P2_32, P1_8, C1, None),
    rule(Store, 4, P1_16, P1_8, C1, None),
    rule(Store, 8, P1_8, P1_8, C1, None),
    rule(Prefetch, 1, P4_64, P1_32, C124, Some(64)),
    rule(Prefetch, 2, P2_32, P1_32, C124, Some(32)),
    rule(Prefetch, 4, P1_16, P1_32, C12, Some(16)),
    rule(Prefetch, 8, P1_8, P1_32, C1, None),
    // 256 bytes per row: one (width, count) pair per row of the table.
    rule(Prefetch, 1, &[64], P1_32, &[4], None),
    rule(Prefetch, 1, &[128], P1_32, &[2], None),
    rule(Prefetch, 1, &[256], P1_32, C1, None),
    rule(Prefetch, 2, &[32], P1_32, &[4], None),
    rule(Prefetch, 2, &[64], P1_32, &[2], None),
    rule(Prefetch, 2, &[128], P1_32, C1, None),
    rule(Prefetch, 4, &[16], P1_32, &[4], None),
    rule(Prefetch, 4, &[32], P1_32, &[2], None),
    rule(Prefetch, 4, &[64], P1_32, C1, None),
    rule(Prefetch, 8, &[8], P1_32, &[4], None),
    rule(Prefetch, 8, &[16], P1_32, &[2], None),
    rule(Prefetch, 8, &[32], P1_32, C1, None),
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

/// §5.3: static register sharing (Xe-HP to Xe2): 128 or 256 registers per thread.
const GRF_128_256: &[u32] = &[128, 256];
/// §5.3: variable register targeting (Xe3+), without the SKU-gated 320 and 448.
const GRF_XE3: &[u32] = &[32, 64, 96, 128, 160, 192, 256];
/// §5.3: Xe3P adds 512 (`supports512GRFPerThread()`).
const GRF_XE3P: &[u32] = &[32, 64, 96, 128, 160, 192, 256, 512];

/// A profile constructor.
type Profile = fn() -> Target;

/// Every profile, in `--list-targets` order.
const PROFILES: &[(&str, Profile)] = &[
    ("pvc", Target::pvc),
    ("bmg", Target::bmg),
    ("lnl", Target::lnl),
    ("ptl", Target::ptl),
    ("cri", Target::cri),
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
    block_base_align: "§1.1 (SPV_INTEL_2d_block_io: 64-byte aligned base); §2.1 base address",
    grf_modes: "§5.3 (getSupportedGRFSizes(): 128 and 256 from Xe-HP to Xe2)",
    long_vectors: "§6 (IGC SPIRVExtensions.td: SPV_INTEL_vector_compute and SPV_EXT_long_vector \
                   both ExperimentalExtension on all platforms: accepted, not advertised)",
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
                predicated_io: true,
                vector_any_intel: true,
                long_vector_ext: true,
            },
            block_shapes: XE_HPC_BLOCKS,
            mma_shapes: SG16_MMA,
            prefetch_bytes: PREFETCH_BYTES,
            block_base_align: 64,
            grf_modes: GRF_128_256,
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
                predicated_io: true,
                vector_any_intel: true,
                long_vector_ext: true,
            },
            block_shapes: XE2_BLOCKS,
            // tf32 included: §4.1 (IGC's SIMD16 MMA table, chosen by hasExecSize16DPAS(), and
            // the SYCL runtime's matrix_combinations for intel_gpu_bmg_g21 both list it).
            mma_shapes: SG16_MMA,
            prefetch_bytes: PREFETCH_BYTES,
            block_base_align: 64,
            grf_modes: GRF_128_256,
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

    /// Intel Core Ultra series 3 (Panther Lake) graphics, Xe3: the Xe2 2D block table (no
    /// 256-byte prefetch rows, no wide transposes: both Xe3P, §5.1), 64-byte base alignment
    /// (§5.2), variable register targeting up to 256 registers (§5.3).
    pub fn ptl() -> Target {
        Target {
            name: "ptl".into(),
            description: "Intel Core Ultra series 3 graphics (Panther Lake, Xe3)",
            grf_modes: GRF_XE3,
            sources: Sources {
                block_shapes: "§5.1 (the Xe2 rows: 64-element transforms are Xe2+, wide \
                               transposes and 256-byte prefetch rows Xe3P only)",
                tf32: "§4.1, §5.4 (SIMD16 MMA table; SYCL matrix_combinations lists tf32 for \
                       ptl_h, ptl_u)",
                block_base_align: "§5.2 (no source relaxes the 64 bytes on Xe3)",
                grf_modes: "§5.3 (Xe3 variable register targeting, max 256)",
                ..XE2_SOURCES
            },
            ..Target::bmg()
        }
    }

    /// Intel Data Center GPU Crescent Island, Xe3P: wide transposes and 256-byte prefetch rows
    /// (§5.1), 2D block bases aligned to 4 bytes (§5.2), a 512-GRF mode (§5.3).
    pub fn cri() -> Target {
        Target {
            name: "cri".into(),
            description: "Intel Data Center GPU (Crescent Island, Xe3P)",
            block_shapes: XE3P_BLOCKS,
            block_base_align: 4,
            grf_modes: GRF_XE3P,
            sources: Sources {
                block_shapes: "§5.1 (Xe2 rows + WideTransposeConstraints + \
                               Prefetch256BytesConstraints)",
                tf32: "§4.1, §5.4 (IGC SIMD16 MMA table on every exec-size-16 DPAS part)",
                mma_shapes: "§5.4 (SIMD16 table; FP8 and scaled MMA not modelled)",
                block_base_align: "§5.2 (Triton PR #7697: CRI needs 4-byte aligned bases)",
                grf_modes: "§5.3 (supports512GRFPerThread() = Xe3P; Triton retries with 512)",
                ..XE2_SOURCES
            },
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
                predicated_io: true,
                vector_any_intel: true,
                long_vector_ext: true,
            },
            block_shapes: &[],
            mma_shapes: SG8_MMA,
            prefetch_bytes: PREFETCH_BYTES,
            block_base_align: 64,
            grf_modes: GRF_128_256,
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
                block_base_align: "no 2D block IO",
                grf_modes: "§5.3 (getSupportedGRFSizes(): 128 and 256 from Xe-HP to Xe2)",
                long_vectors: "§6 (IGC: both extensions accepted on all platforms)",
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
                predicated_io: true,
                vector_any_intel: true,
                long_vector_ext: true,
            },
            block_shapes: &[],
            mma_shapes: &[],
            prefetch_bytes: PREFETCH_BYTES,
            block_base_align: 64,
            grf_modes: GRF_128_256,
            sources: Sources {
                subgroup_sizes: "[inference] as dg2 (min SIMD16 only from Xe-HPC, §2.1)",
                grf: "§2.1 GRF size (32 B before Xe-HPC)",
                block_io_2d: "§1.3 (2D block IO only on Xe-HPC children)",
                dpas: "§2.4 (supportDpasInstruction() excludes MTL); §1.4 gate \"except MTL/ARL\"",
                tf32: "§2.4 (no DPAS)",
                buffer_prefetch: "§1.5 (IGC implements it on LSC platforms)",
                block_shapes: "§1.3 (no 2D block IO)",
                mma_shapes: "§2.4 (no DPAS)",
                block_base_align: "no 2D block IO",
                grf_modes: "§5.3 [inference] Xe-LPG counted with Xe-HP..Xe2 (static register \
                            sharing: 128 and 256)",
                long_vectors: "§6 (IGC: both extensions accepted on all platforms)",
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
                predicated_io: false,
                vector_any_intel: true,
                long_vector_ext: false,
            },
            block_shapes: &[],
            mma_shapes: &[],
            prefetch_bytes: &[],
            block_base_align: 64,
            grf_modes: &[],
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
                block_base_align: "no 2D block IO",
                grf_modes: "no register file",
                long_vectors: "[measured] §6: the runtime builds and runs a 5-component \
                               VectorAnyINTEL kernel and rejects LongVectorEXT (\"requires \
                               unsupported capability\")",
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
                predicated_io: true,
                vector_any_intel: true,
                long_vector_ext: true,
            },
            block_shapes: OPENCL_BLOCKS,
            mma_shapes: OPENCL_MMA,
            prefetch_bytes: PREFETCH_BYTES,
            block_base_align: 64,
            grf_modes: &[128],
            sources: Sources {
                subgroup_sizes: "§1.2, §1.4 (SG 8 and 16 tables)",
                grf: "§1.2 + §2.1 (2D block IO applies to min-SG-16 devices = Xe-HPC+, 64 B GRF)",
                block_io_2d: "§1.2 cl_intel_subgroup_2d_block_io",
                dpas: "§1.4 cl_intel_subgroup_matrix_multiply_accumulate",
                tf32: "§1.4 (tf32 extension row)",
                buffer_prefetch: "§1.5 cl_intel_subgroup_buffer_prefetch",
                block_shapes: "§1.2 OpenCL table, row by row",
                mma_shapes: "§1.4 OpenCL tables (both halves)",
                block_base_align: "§1.2 (64-byte aligned base)",
                grf_modes: "§5.3 (128, the one mode every device has)",
                long_vectors: "[inference] §6: IGC takes both on every platform",
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
}
