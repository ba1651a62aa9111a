//! Instructions and capabilities absent from SPIRV-Headers that real producers emit, kept
//! internal by the Khronos LLVM/SPIR-V translator (`lib/SPIRV/libSPIRV/spirv_internal.hpp`,
//! `InternalOp` / `InternalCapability`; read at KhronosGroup/SPIRV-LLVM-Translator commit
//! `cea7c0e5fa6114f2e3ae83a6652bda7a6bccbc2b`, 2026-08-20; operand layouts from its
//! `SPIRVInstruction.h` and the extensions' specifications):
//! - the DPC++ `joint_matrix` opcodes (intel/llvm
//!   `sycl/doc/design/spirv-extensions/SPV_INTEL_joint_matrix.asciidoc`, revision 16);
//! - what current Triton emits: `OpFSigmoidINTEL` (SPV_INTEL_sigmoid), the
//!   SPV_INTEL_fp_conversions conversions (clamped and stochastic rounding to FP8/FP4/int4),
//!   `OpSubgroupScaledMatrixMultiplyAccumulateINTEL`, and capabilities such as
//!   `BFloat16ArithmeticINTEL` (6226: arithmetic on `OpTypeFloat 16 BFloat16KHR`).
//!
//! [`super::inst_desc`] falls back to this table, so the instructions load (result ids known),
//! walk and round-trip like grammar instructions; [`capability_name`] names the capabilities.
//! Entries SPIRV-Headers has since taken (task sequences, masked gather/scatter, bindless
//! images) are not repeated here: the grammar knows them.

use super::{InstDesc, OperandKind as K, Quantifier as Q};

/// `OpCooperativeMatrixLoadCheckedINTEL`.
pub const OP_COOPERATIVE_MATRIX_LOAD_CHECKED_INTEL: u16 = 6193;
/// `OpCooperativeMatrixStoreCheckedINTEL`.
pub const OP_COOPERATIVE_MATRIX_STORE_CHECKED_INTEL: u16 = 6194;
/// `OpCooperativeMatrixConstructCheckedINTEL`.
pub const OP_COOPERATIVE_MATRIX_CONSTRUCT_CHECKED_INTEL: u16 = 6195;
/// `OpCooperativeMatrixGetElementCoordINTEL` (deprecated by its specification).
pub const OP_COOPERATIVE_MATRIX_GET_ELEMENT_COORD_INTEL: u16 = 6440;
/// `OpCooperativeMatrixApplyFunctionINTEL` (experimental).
pub const OP_COOPERATIVE_MATRIX_APPLY_FUNCTION_INTEL: u16 = 6448;
/// `OpCooperativeMatrixPrefetchINTEL`.
pub const OP_COOPERATIVE_MATRIX_PREFETCH_INTEL: u16 = 6449;

/// `OpFSigmoidINTEL` (SPV_INTEL_sigmoid): `1 / (1 + e^-x)` per component.
pub const OP_FSIGMOID_INTEL: u16 = 6168;
/// `OpClampConvertFToFINTEL` (SPV_INTEL_fp_conversions; the old spelling, still read).
pub const OP_CLAMP_CONVERT_F_TO_F_INTEL: u16 = 6216;
/// `OpStochasticRoundFToFINTEL` (SPV_INTEL_fp_conversions).
pub const OP_STOCHASTIC_ROUND_F_TO_F_INTEL: u16 = 6217;
/// `OpClampStochasticRoundFToFINTEL` (SPV_INTEL_fp_conversions; old spelling).
pub const OP_CLAMP_STOCHASTIC_ROUND_F_TO_F_INTEL: u16 = 6218;
/// `OpClampStochasticRoundFToSINTEL` (SPV_INTEL_fp_conversions).
pub const OP_CLAMP_STOCHASTIC_ROUND_F_TO_S_INTEL: u16 = 6219;
/// `OpSubgroupScaledMatrixMultiplyAccumulateINTEL`
/// (SPV_INTEL_subgroup_scaled_matrix_multiply_accumulate).
pub const OP_SUBGROUP_SCALED_MATRIX_MULTIPLY_ACCUMULATE_INTEL: u16 = 6264;
/// `OpClampConvertFToSINTEL` (SPV_INTEL_fp_conversions).
pub const OP_CLAMP_CONVERT_F_TO_S_INTEL: u16 = 6424;

/// Capabilities of these instructions (translator-internal too): checked instructions,
/// prefetch, invocation instructions (get element coordinate, apply function).
pub const JOINT_MATRIX_CAPABILITIES: [u32; 3] = [6192, 6411, 6435];

/// `BFloat16ArithmeticINTEL` (SPV_INTEL_bfloat16_arithmetic): arithmetic, comparisons and
/// OpenCL.std math on `OpTypeFloat 16 BFloat16KHR` values, which SPV_KHR_bfloat16 alone
/// allows only to convert.
pub const CAPABILITY_BFLOAT16_ARITHMETIC_INTEL: u32 = 6226;

/// A translator-internal capability: its value, name and the extension that declares it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InternalCapability {
    /// The capability's value.
    pub value: u32,
    /// Its name without the `Capability` prefix, as the translator prints it.
    pub name: &'static str,
    /// The extension whose declaration goes with it.
    pub extension: &'static str,
}

const fn cap(value: u32, name: &'static str, extension: &'static str) -> InternalCapability {
    InternalCapability {
        value,
        name,
        extension,
    }
}

/// Every capability of `InternalCapability` SPIRV-Headers does not have, by value.
pub static INTERNAL_CAPABILITIES: [InternalCapability; 23] = [
    cap(6112, "TokenTypeINTEL", "SPV_INTEL_token_type"),
    cap(6134, "HWThreadQueryINTEL", "SPV_INTEL_hw_thread_queries"),
    cap(
        6146,
        "GlobalVariableDecorationsINTEL",
        "SPV_INTEL_global_variable_decorations",
    ),
    cap(6167, "SigmoidINTEL", "SPV_INTEL_sigmoid"),
    cap(6185, "DeviceBarrierINTEL", "SPV_INTEL_device_barrier"),
    cap(
        6192,
        "CooperativeMatrixCheckedInstructionsINTEL",
        "SPV_INTEL_joint_matrix",
    ),
    cap(6212, "Float4E2M1INTEL", "SPV_INTEL_float4"),
    cap(6213, "Float4E2M1CooperativeMatrixINTEL", "SPV_INTEL_float4"),
    cap(
        6215,
        "FloatConversionsFtoFINTEL",
        "SPV_INTEL_fp_conversions",
    ),
    cap(
        6216,
        "FloatConversionsFtoSINTEL",
        "SPV_INTEL_fp_conversions",
    ),
    cap(
        CAPABILITY_BFLOAT16_ARITHMETIC_INTEL,
        "BFloat16ArithmeticINTEL",
        "SPV_INTEL_bfloat16_arithmetic",
    ),
    cap(
        6238,
        "CooperativeMatrixOffsetInstructionsINTEL",
        "SPV_INTEL_joint_matrix",
    ),
    cap(6255, "AtomicBFloat16AddINTEL", "SPV_INTEL_16bit_atomics"),
    cap(6256, "AtomicBFloat16MinMaxINTEL", "SPV_INTEL_16bit_atomics"),
    cap(
        6260,
        "AtomicInt16CompareExchangeINTEL",
        "SPV_INTEL_16bit_atomics",
    ),
    cap(6261, "Int16AtomicsINTEL", "SPV_INTEL_16bit_atomics"),
    cap(
        6262,
        "AtomicBFloat16LoadStoreINTEL",
        "SPV_INTEL_16bit_atomics",
    ),
    cap(
        6263,
        "SubgroupScaledMatrixMultiplyAccumulateINTEL",
        "SPV_INTEL_subgroup_scaled_matrix_multiply_accumulate",
    ),
    cap(
        6411,
        "CooperativeMatrixPrefetchINTEL",
        "SPV_INTEL_joint_matrix",
    ),
    cap(
        6435,
        "CooperativeMatrixInvocationInstructionsINTEL",
        "SPV_INTEL_joint_matrix",
    ),
    cap(
        6436,
        "CooperativeMatrixTF32ComponentTypeINTEL",
        "SPV_INTEL_joint_matrix",
    ),
    cap(
        6437,
        "CooperativeMatrixBFloat16ComponentTypeINTEL",
        "SPV_INTEL_joint_matrix",
    ),
    cap(
        6445,
        "SubgroupRequirementsINTEL",
        "SPV_INTEL_subgroup_requirements",
    ),
];

/// The translator-internal capability `value`, if it is one.
pub fn internal_capability(value: u32) -> Option<&'static InternalCapability> {
    INTERNAL_CAPABILITIES
        .binary_search_by_key(&value, |c| c.value)
        .ok()
        .map(|i| &INTERNAL_CAPABILITIES[i])
}

/// The name of translator-internal capability `value` (`BFloat16ArithmeticINTEL`).
pub fn capability_name(value: u32) -> Option<&'static str> {
    internal_capability(value).map(|c| c.name)
}

/// Whether internal capability `value` is the capability of one of
/// [`INTERNAL_INSTRUCTIONS`] ([`capability_of`]): needed exactly when such an instruction is
/// there.
pub fn is_instruction_capability(value: u32) -> bool {
    INTERNAL_INSTRUCTIONS
        .iter()
        .any(|d| capability_of(d.opcode) == Some(value))
}

/// Whether DPC++ `joint_matrix` instruction `opcode` is one of the translator-internal ones
/// (checked load/store/construct, element coordinate, apply function, prefetch).
pub fn is_joint_matrix(opcode: u16) -> bool {
    capability_of(opcode).is_some_and(|c| JOINT_MATRIX_CAPABILITIES.contains(&c))
}

/// Whether `value` is a translator-internal capability.
pub fn is_internal_capability(value: u32) -> bool {
    internal_capability(value).is_some()
}

/// The `MemoryAccess` operand kind's index in the generated enum table.
const MEMORY_ACCESS: u16 = 6;
/// The `MatrixMultiplyAccumulateOperands` operand kind's index in the generated enum table.
const MATRIX_MULTIPLY_ACCUMULATE_OPERANDS: u16 = 52;

/// A one-operand value instruction (Result Type, Result, Operand).
const UNARY: &[(K, Q)] = &[
    (K::ResultType, Q::One),
    (K::Result, Q::One),
    (K::Id, Q::One),
];
/// A stochastic rounding: Result Type, Result, Value, Seed, Last Seed pointer?
const STOCHASTIC: &[(K, Q)] = &[
    (K::ResultType, Q::One),
    (K::Result, Q::One),
    (K::Id, Q::One),
    (K::Id, Q::One),
    (K::Id, Q::Optional),
];

/// The instructions, by opcode.
pub static INTERNAL_INSTRUCTIONS: [InstDesc; 13] = [
    InstDesc {
        opcode: OP_FSIGMOID_INTEL,
        name: "OpFSigmoidINTEL",
        operands: UNARY,
    },
    InstDesc {
        opcode: OP_CLAMP_CONVERT_F_TO_F_INTEL,
        name: "OpClampConvertFToFINTEL",
        operands: UNARY,
    },
    InstDesc {
        opcode: OP_STOCHASTIC_ROUND_F_TO_F_INTEL,
        name: "OpStochasticRoundFToFINTEL",
        operands: STOCHASTIC,
    },
    InstDesc {
        opcode: OP_CLAMP_STOCHASTIC_ROUND_F_TO_F_INTEL,
        name: "OpClampStochasticRoundFToFINTEL",
        operands: STOCHASTIC,
    },
    InstDesc {
        opcode: OP_CLAMP_STOCHASTIC_ROUND_F_TO_S_INTEL,
        name: "OpClampStochasticRoundFToSINTEL",
        operands: STOCHASTIC,
    },
    InstDesc {
        opcode: OP_SUBGROUP_SCALED_MATRIX_MULTIPLY_ACCUMULATE_INTEL,
        name: "OpSubgroupScaledMatrixMultiplyAccumulateINTEL",
        // K Dim, A, B, C, Scale A, Scale B, Matrix Multiply-Accumulate Operands?
        operands: &[
            (K::ResultType, Q::One),
            (K::Result, Q::One),
            (K::Id, Q::One),
            (K::Id, Q::One),
            (K::Id, Q::One),
            (K::Id, Q::One),
            (K::Id, Q::One),
            (K::Id, Q::One),
            (K::BitEnum(MATRIX_MULTIPLY_ACCUMULATE_OPERANDS), Q::Optional),
        ],
    },
    InstDesc {
        opcode: OP_CLAMP_CONVERT_F_TO_S_INTEL,
        name: "OpClampConvertFToSINTEL",
        operands: UNARY,
    },
    InstDesc {
        opcode: OP_COOPERATIVE_MATRIX_LOAD_CHECKED_INTEL,
        name: "OpCooperativeMatrixLoadCheckedINTEL",
        // Pointer, X offset, Y offset, MemoryLayout, Height, Width, Stride?, Memory Operand?
        operands: &[
            (K::ResultType, Q::One),
            (K::Result, Q::One),
            (K::Id, Q::One),
            (K::Id, Q::One),
            (K::Id, Q::One),
            (K::Id, Q::One),
            (K::Id, Q::One),
            (K::Id, Q::One),
            (K::Id, Q::Optional),
            (K::BitEnum(MEMORY_ACCESS), Q::Optional),
        ],
    },
    InstDesc {
        opcode: OP_COOPERATIVE_MATRIX_STORE_CHECKED_INTEL,
        name: "OpCooperativeMatrixStoreCheckedINTEL",
        // Pointer, X offset, Y offset, Object, MemoryLayout, Height, Width, Stride?, Memory
        // Operand?
        operands: &[
            (K::Id, Q::One),
            (K::Id, Q::One),
            (K::Id, Q::One),
            (K::Id, Q::One),
            (K::Id, Q::One),
            (K::Id, Q::One),
            (K::Id, Q::One),
            (K::Id, Q::Optional),
            (K::BitEnum(MEMORY_ACCESS), Q::Optional),
        ],
    },
    InstDesc {
        opcode: OP_COOPERATIVE_MATRIX_CONSTRUCT_CHECKED_INTEL,
        name: "OpCooperativeMatrixConstructCheckedINTEL",
        // X offset, Y offset, Height, Width, Value
        operands: &[
            (K::ResultType, Q::One),
            (K::Result, Q::One),
            (K::Id, Q::One),
            (K::Id, Q::One),
            (K::Id, Q::One),
            (K::Id, Q::One),
            (K::Id, Q::One),
        ],
    },
    InstDesc {
        opcode: OP_COOPERATIVE_MATRIX_GET_ELEMENT_COORD_INTEL,
        name: "OpCooperativeMatrixGetElementCoordINTEL",
        // Matrix, Index
        operands: &[
            (K::ResultType, Q::One),
            (K::Result, Q::One),
            (K::Id, Q::One),
            (K::Id, Q::One),
        ],
    },
    InstDesc {
        opcode: OP_COOPERATIVE_MATRIX_APPLY_FUNCTION_INTEL,
        name: "OpCooperativeMatrixApplyFunctionINTEL",
        // Function object, Matrix
        operands: &[
            (K::ResultType, Q::One),
            (K::Result, Q::One),
            (K::Id, Q::One),
            (K::Id, Q::One),
        ],
    },
    InstDesc {
        opcode: OP_COOPERATIVE_MATRIX_PREFETCH_INTEL,
        name: "OpCooperativeMatrixPrefetchINTEL",
        // Pointer, X offset, Y offset, Rows, Columns, Cache Level (literal), MemoryLayout?,
        // Stride?
        operands: &[
            (K::Id, Q::One),
            (K::Id, Q::One),
            (K::Id, Q::One),
            (K::Id, Q::One),
            (K::Id, Q::One),
            (K::Literal, Q::One),
            (K::Id, Q::Optional),
            (K::Id, Q::Optional),
        ],
    },
];

/// The internal instruction `opcode`, if it is one.
pub fn inst_desc(opcode: u16) -> Option<&'static InstDesc> {
    INTERNAL_INSTRUCTIONS.iter().find(|d| d.opcode == opcode)
}

/// The capability an internal instruction needs (its specification's "Capability:" row; the
/// translator's `getRequiredCapability`): checked instructions 6192, prefetch 6411,
/// invocation instructions 6435, sigmoid 6167, FP conversions 6215 / 6216, scaled MMA 6263.
pub fn capability_of(opcode: u16) -> Option<u32> {
    Some(match opcode {
        OP_COOPERATIVE_MATRIX_LOAD_CHECKED_INTEL
        | OP_COOPERATIVE_MATRIX_STORE_CHECKED_INTEL
        | OP_COOPERATIVE_MATRIX_CONSTRUCT_CHECKED_INTEL => JOINT_MATRIX_CAPABILITIES[0],
        OP_COOPERATIVE_MATRIX_PREFETCH_INTEL => JOINT_MATRIX_CAPABILITIES[1],
        OP_COOPERATIVE_MATRIX_GET_ELEMENT_COORD_INTEL
        | OP_COOPERATIVE_MATRIX_APPLY_FUNCTION_INTEL => JOINT_MATRIX_CAPABILITIES[2],
        OP_FSIGMOID_INTEL => 6167,
        OP_CLAMP_CONVERT_F_TO_F_INTEL
        | OP_STOCHASTIC_ROUND_F_TO_F_INTEL
        | OP_CLAMP_STOCHASTIC_ROUND_F_TO_F_INTEL => 6215,
        OP_CLAMP_CONVERT_F_TO_S_INTEL | OP_CLAMP_STOCHASTIC_ROUND_F_TO_S_INTEL => 6216,
        OP_SUBGROUP_SCALED_MATRIX_MULTIPLY_ACCUMULATE_INTEL => 6263,
        _ => return None,
    })
}

/// Whether `opcode` is one of these translator-internal instructions (a range test first:
/// passes ask it of every instruction).
#[inline]
pub fn is_translator_internal(opcode: u16) -> bool {
    (FIRST_INTERNAL..=LAST_INTERNAL).contains(&opcode) && inst_desc(opcode).is_some()
}

/// The lowest and highest opcodes of [`INTERNAL_INSTRUCTIONS`].
const FIRST_INTERNAL: u16 = OP_FSIGMOID_INTEL;
const LAST_INTERNAL: u16 = OP_COOPERATIVE_MATRIX_PREFETCH_INTEL;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn internal_opcodes_lie_in_the_range_tested_first() {
        for d in INTERNAL_INSTRUCTIONS.iter() {
            assert!(
                (FIRST_INTERNAL..=LAST_INTERNAL).contains(&d.opcode),
                "{}",
                d.name
            );
            assert!(is_translator_internal(d.opcode));
        }
        assert!(!is_translator_internal(FIRST_INTERNAL - 1));
        assert!(!is_translator_internal(LAST_INTERNAL + 1));
    }

    #[test]
    fn internal_capabilities_are_sorted_unknown_to_the_grammar_and_cover_the_opcodes() {
        let kind = super::super::enum_kind_index("Capability").unwrap();
        for w in INTERNAL_CAPABILITIES.windows(2) {
            assert!(w[0].value < w[1].value, "{} {}", w[0].name, w[1].name);
        }
        for c in &INTERNAL_CAPABILITIES {
            assert!(
                super::super::enum_kind(kind).get(c.value).is_none(),
                "{} is in SPIRV-Headers now",
                c.name
            );
            assert_eq!(capability_name(c.value), Some(c.name));
        }
        for d in &INTERNAL_INSTRUCTIONS {
            let c = capability_of(d.opcode).unwrap_or_else(|| panic!("{}", d.name));
            assert!(is_internal_capability(c), "{}", d.name);
        }
        assert!(JOINT_MATRIX_CAPABILITIES
            .iter()
            .all(|&c| is_internal_capability(c)));
        assert_eq!(
            capability_name(CAPABILITY_BFLOAT16_ARITHMETIC_INTEL),
            Some("BFloat16ArithmeticINTEL")
        );
    }

    #[test]
    fn mma_operand_kind_is_the_grammar_one() {
        // The same operand as OpSubgroupMatrixMultiplyAccumulateINTEL's last one.
        let plain = super::super::inst_desc(6237).unwrap();
        assert_eq!(plain.name, "OpSubgroupMatrixMultiplyAccumulateINTEL");
        assert_eq!(
            plain.operands.last(),
            Some(&(K::BitEnum(MATRIX_MULTIPLY_ACCUMULATE_OPERANDS), Q::Optional))
        );
    }

    #[test]
    fn memory_operand_kind_is_memory_access() {
        assert_eq!(super::super::enum_kind(MEMORY_ACCESS).name, "MemoryAccess");
        // The same operand as OpCooperativeMatrixLoadKHR's last one.
        let khr = super::super::inst_desc(4457).unwrap();
        assert_eq!(khr.name, "OpCooperativeMatrixLoadKHR");
        assert_eq!(
            khr.operands.last(),
            Some(&(K::BitEnum(MEMORY_ACCESS), Q::Optional))
        );
    }

    #[test]
    fn none_is_in_the_generated_grammar() {
        for d in &INTERNAL_INSTRUCTIONS {
            let i = super::super::tables::OPCODE_INDEX
                .get(d.opcode as usize)
                .copied()
                .unwrap_or(u16::MAX);
            assert_eq!(i, u16::MAX, "{}", d.name);
            assert_eq!(super::super::opcode_name(d.opcode), Some(d.name));
        }
    }
}
