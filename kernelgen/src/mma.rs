//! Operand types of `OpSubgroupMatrixMultiplyAccumulateINTEL` for an element-type class, M, K
//! and subgroup size (SPV_INTEL_subgroup_matrix_multiply_accumulate, "Operand types"): the
//! same rules as `tests/tests/lower_mma.rs`.

pub use spvopt_analysis::target::MmaTypes as MmaClass;

pub const ALL: [MmaClass; 7] = [
    MmaClass::Int8ToInt32,
    MmaClass::Int4ToInt32,
    MmaClass::F16ToF32,
    MmaClass::F16ToF16,
    MmaClass::Bf16ToF32,
    MmaClass::Bf16ToBf16,
    MmaClass::Tf32ToF32,
];

/// A scalar type of an operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scalar {
    U8,
    U16,
    U32,
    U64,
    F16,
    F32,
}

impl Scalar {
    pub fn bytes(self) -> u32 {
        match self {
            Scalar::U8 => 1,
            Scalar::U16 | Scalar::F16 => 2,
            Scalar::U32 | Scalar::F32 => 4,
            Scalar::U64 => 8,
        }
    }
}

/// An operand type: `count` components of `scalar` (a scalar when 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OperandType {
    pub scalar: Scalar,
    pub count: u32,
}

impl OperandType {
    pub fn bytes(self) -> u32 {
        self.scalar.bytes() * self.count
    }
}

/// Operand facts of an element-type class (the class enum is the analysis crate's; these are
/// the generator's own, from the extension text).
pub trait Operands {
    fn elem_bits(self) -> u32;
    fn mask(self) -> u32;
    fn operand_types(self, sg: u32, m: u32, k: u32) -> Option<[OperandType; 3]>;
}

impl Operands for MmaClass {
    fn elem_bits(self) -> u32 {
        match self {
            MmaClass::Int8ToInt32 => 8,
            MmaClass::Int4ToInt32 => 4,
            MmaClass::Tf32ToF32 => 32,
            _ => 16,
        }
    }

    /// The Matrix Multiply Accumulate Operands mask.
    fn mask(self) -> u32 {
        use spirv::MatrixMultiplyAccumulateOperands as O;
        let m = match self {
            MmaClass::Int8ToInt32 => {
                O::MATRIX_A_SIGNED_COMPONENTS_INTEL
                    | O::MATRIX_A_PACKED_INT8_INTEL
                    | O::MATRIX_B_PACKED_INT8_INTEL
            }
            MmaClass::Int4ToInt32 => {
                O::MATRIX_B_SIGNED_COMPONENTS_INTEL
                    | O::MATRIX_A_PACKED_INT4_INTEL
                    | O::MATRIX_B_PACKED_INT4_INTEL
            }
            MmaClass::F16ToF32 | MmaClass::F16ToF16 => {
                O::MATRIX_A_PACKED_FLOAT16_INTEL | O::MATRIX_B_PACKED_FLOAT16_INTEL
            }
            MmaClass::Bf16ToF32 => {
                O::MATRIX_A_PACKED_B_FLOAT16_INTEL | O::MATRIX_B_PACKED_B_FLOAT16_INTEL
            }
            MmaClass::Bf16ToBf16 => {
                O::MATRIX_CB_FLOAT16_INTEL
                    | O::MATRIX_RESULT_B_FLOAT16_INTEL
                    | O::MATRIX_A_PACKED_B_FLOAT16_INTEL
                    | O::MATRIX_B_PACKED_B_FLOAT16_INTEL
            }
            MmaClass::Tf32ToF32 => O::MATRIX_ATF32INTEL | O::MATRIX_BTF32INTEL,
        };
        m.bits()
    }

    /// (A, B, C = Result) for subgroup size `sg`, M rows and K; `None` when the extension has
    /// no operand type for it (or it needs vectors above 16 components).
    fn operand_types(self, sg: u32, m: u32, k: u32) -> Option<[OperandType; 3]> {
        let e = self.elem_bits();
        let t = |scalar, count| OperandType { scalar, count };
        let a = if k.is_multiple_of(sg) {
            let row = k / sg * e;
            let s = match row {
                8 => Scalar::U8,
                16 => Scalar::U16,
                32 => Scalar::U32,
                64 => Scalar::U64,
                _ => return None,
            };
            if self == MmaClass::Tf32ToF32 {
                let n = m * (k / sg);
                if n > 16 {
                    return None;
                }
                t(Scalar::F32, n)
            } else {
                t(s, m)
            }
        } else if sg.is_multiple_of(k) {
            t(Scalar::F32, m.div_ceil(sg / k))
        } else {
            return None;
        };
        let b = if e == 32 {
            t(Scalar::F32, k)
        } else {
            t(Scalar::U32, k * e / 32)
        };
        let c = match self {
            MmaClass::Int8ToInt32 | MmaClass::Int4ToInt32 => Scalar::U32,
            MmaClass::F16ToF16 => Scalar::F16,
            MmaClass::Bf16ToBf16 => Scalar::U16,
            _ => Scalar::F32,
        };
        let types = [a, b, t(c, m)];
        if types
            .iter()
            .any(|o| !matches!(o.count, 1 | 2 | 3 | 4 | 8 | 16))
        {
            return None;
        }
        Some(types)
    }
}
