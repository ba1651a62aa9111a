//! Instructions absent from SPIRV-Headers that real producers emit: the DPC++ `joint_matrix`
//! opcodes the Khronos LLVM/SPIR-V translator keeps internal (`lib/SPIRV/libSPIRV/spirv_internal.hpp`,
//! `InternalOp`), with the operand layouts of their specification (intel/llvm
//! `sycl/doc/design/spirv-extensions/SPV_INTEL_joint_matrix.asciidoc`, revision 16).
//! [`super::inst_desc`] falls back to this table, so they load (result ids known), walk and
//! round-trip like grammar instructions. Their capabilities (6192 checked instructions, 6411
//! prefetch, 6435 invocation instructions) are likewise unknown to SPIRV-Headers.

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

/// Capabilities of these instructions (translator-internal too): checked instructions,
/// prefetch, invocation instructions (get element coordinate, apply function).
pub const JOINT_MATRIX_CAPABILITIES: [u32; 3] = [6192, 6411, 6435];

/// The `MemoryAccess` operand kind's index in the generated enum table.
const MEMORY_ACCESS: u16 = 6;

/// The instructions, by opcode.
pub static INTERNAL_INSTRUCTIONS: [InstDesc; 6] = [
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

/// The capability an internal instruction needs (its specification's "Capability:" row):
/// checked instructions 6192, prefetch 6411, invocation instructions 6435.
pub fn capability_of(opcode: u16) -> Option<u32> {
    Some(match opcode {
        OP_COOPERATIVE_MATRIX_LOAD_CHECKED_INTEL
        | OP_COOPERATIVE_MATRIX_STORE_CHECKED_INTEL
        | OP_COOPERATIVE_MATRIX_CONSTRUCT_CHECKED_INTEL => JOINT_MATRIX_CAPABILITIES[0],
        OP_COOPERATIVE_MATRIX_PREFETCH_INTEL => JOINT_MATRIX_CAPABILITIES[1],
        OP_COOPERATIVE_MATRIX_GET_ELEMENT_COORD_INTEL
        | OP_COOPERATIVE_MATRIX_APPLY_FUNCTION_INTEL => JOINT_MATRIX_CAPABILITIES[2],
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
const FIRST_INTERNAL: u16 = OP_COOPERATIVE_MATRIX_LOAD_CHECKED_INTEL;
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
