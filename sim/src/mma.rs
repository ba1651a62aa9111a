//! `OpSubgroupMatrixMultiplyAccumulateINTEL` of `SPV_INTEL_subgroup_matrix_multiply_accumulate`
//! (rev 1, 2025-01-07): Result = A (M x K) * B (K x N) + C (M x N) computed by a whole subgroup.
//!
//! Dimensions ("Mapping Matrix Data to Invocations"): M = component count of Result Type (1 for a
//! scalar), N = number of invocations in the subgroup, K = K Dim.
//!
//! Element types ("Matrix Multiply Accumulate Operands"): for A and B, at most one of the packed
//! int8 / packed int4 / TF32 / packed fp16 / packed bf16 bits may be set; it names the element
//! type carried inside the operand's components. Without one, the element type is the component
//! type itself (OpTypeInt width w -> w-bit integers, OpTypeFloat -> half / float / double). The
//! Signed bits make A / B integers signed; without them they are unsigned. C and Result integers
//! are signed ("the default interpretation is signed"; it only matters if C is narrower than
//! Result). MatrixCBFloat16 / MatrixResultBFloat16 make a 16-bit C / Result bfloat16. Signed
//! bits on floating-point operands have no meaning and are ignored.
//!
//! Layouts: every per-invocation operand is read as a little-endian bit stream (component 0 in
//! the lowest bits), which is exactly the spec's layout whenever the component shapes the spec
//! describes are used; the simulator only checks each operand's total size, not how it is cut
//! into components (except C, which must have M components like Result).
//! * A, N <= K (K a multiple of N): invocation `i` holds columns `i*K/N ..` of every row; row `r`
//!   occupies bits `[r*(K/N)*e, (r+1)*(K/N)*e)`, lower columns in lower bits.
//! * A, N > K (N a multiple of K, f = N/K): invocation `i` holds column `i % K` of rows
//!   `g, g+f, g+2f, ..` with `g = i / K`, one element per slot; data for rows >= M is ignored.
//!   The operand therefore has `ceil(M/f)` elements (tf32 on SIMD16: ceil(M/2)).
//! * B: invocation `n` holds column `n`, row `k` at bits `[k*e, (k+1)*e)` (VNNI packing of <=16-bit
//!   elements into 32-bit components, plain vector for wider ones).
//! * C and Result: invocation `n` holds column `n`, component `r` = row `r`.
//!
//! Arithmetic: integers are exact and wrap to the Result width ("the low-order N bits of the
//! correct result"). Floating point (the spec leaves precision and order to the device) is
//! computed as `acc = C[r][n]; for k in 0..K { acc = fma(A[r][k], B[k][n], acc) }` in f32 (in f64
//! if any operand element type is f64), each fma rounded once to nearest-even, and `acc` is then
//! rounded once to the Result type (round to nearest even). Products of f16 / bf16 / tf32 inputs
//! are exact in f32, so for those types each step rounds only the sum. This order is what a
//! broadcast-and-FMA emulation produces, so an exact emulation can match the simulator bit for bit.

use std::fmt;

use crate::error::{MmaIssue, MmaMatrix, SimError};
use crate::numeric::{
    bf16_to_f32, extract_bits, f16_to_f32, f64_to_bf16, f64_to_f16, insert_bits, sign_extend,
    tf32_to_f32, zero_extend,
};
use crate::subgroup::Subgroup;

/// Matrix Multiply Accumulate Operands bits.
pub mod operands {
    pub const NONE: u32 = 0x0;
    pub const MATRIX_A_SIGNED_COMPONENTS: u32 = 0x1;
    pub const MATRIX_B_SIGNED_COMPONENTS: u32 = 0x2;
    pub const MATRIX_C_BFLOAT16: u32 = 0x4;
    pub const MATRIX_RESULT_BFLOAT16: u32 = 0x8;
    pub const MATRIX_A_PACKED_INT8: u32 = 0x10;
    pub const MATRIX_B_PACKED_INT8: u32 = 0x20;
    pub const MATRIX_A_PACKED_INT4: u32 = 0x40;
    pub const MATRIX_B_PACKED_INT4: u32 = 0x80;
    pub const MATRIX_A_TF32: u32 = 0x100;
    pub const MATRIX_B_TF32: u32 = 0x200;
    pub const MATRIX_A_PACKED_FLOAT16: u32 = 0x400;
    pub const MATRIX_B_PACKED_FLOAT16: u32 = 0x800;
    pub const MATRIX_A_PACKED_BFLOAT16: u32 = 0x1000;
    pub const MATRIX_B_PACKED_BFLOAT16: u32 = 0x2000;
    /// Every bit the spec defines.
    pub const ALL: u32 = 0x3fff;
}

use operands::*;

const OP: &str = "OpSubgroupMatrixMultiplyAccumulateINTEL";

/// A SPIR-V scalar component type (integer signedness does not matter to the instruction).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ScalarType {
    /// OpTypeInt of this width.
    Int(u32),
    /// OpTypeFloat of this width (IEEE).
    Float(u32),
    /// `OpTypeFloat 16 BFloat16KHR`: bfloat16 without an interpretation flag.
    BFloat16,
}

impl ScalarType {
    pub fn bits(self) -> u32 {
        match self {
            ScalarType::Int(b) | ScalarType::Float(b) => b,
            ScalarType::BFloat16 => 16,
        }
    }

    fn is_known(self) -> bool {
        match self {
            ScalarType::Int(b) => matches!(b, 8 | 16 | 32 | 64),
            ScalarType::Float(b) => matches!(b, 16 | 32 | 64),
            ScalarType::BFloat16 => true,
        }
    }
}

impl fmt::Display for ScalarType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ScalarType::Int(b) => write!(f, "i{b}"),
            ScalarType::Float(b) => write!(f, "f{b}"),
            ScalarType::BFloat16 => write!(f, "bf16"),
        }
    }
}

/// A scalar (`count == 1`) or vector operand type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct VectorType {
    pub component: ScalarType,
    pub count: u32,
}

impl VectorType {
    pub fn scalar(component: ScalarType) -> VectorType {
        VectorType {
            component,
            count: 1,
        }
    }

    pub fn vector(component: ScalarType, count: u32) -> VectorType {
        VectorType { component, count }
    }

    /// Total bits.
    pub fn bits(self) -> u64 {
        self.component.bits() as u64 * self.count as u64
    }

    /// Total bytes.
    pub fn bytes(self) -> usize {
        (self.bits() / 8) as usize
    }
}

/// The type of one matrix element after the operand interpretation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ElementType {
    Int { bits: u32, signed: bool },
    F16,
    BF16,
    TF32,
    F32,
    F64,
}

impl ElementType {
    /// Bits one element occupies in its operand.
    pub fn bits(self) -> u32 {
        match self {
            ElementType::Int { bits, .. } => bits,
            ElementType::F16 | ElementType::BF16 => 16,
            ElementType::TF32 | ElementType::F32 => 32,
            ElementType::F64 => 64,
        }
    }

    pub fn is_float(self) -> bool {
        !matches!(self, ElementType::Int { .. })
    }

    /// Decodes raw element bits to an integer (integers) or an exact f64 (floats).
    fn decode(self, raw: u64) -> Value {
        match self {
            ElementType::Int { bits, signed: true } => Value::Int(sign_extend(raw, bits) as i128),
            ElementType::Int {
                bits,
                signed: false,
            } => Value::Int(zero_extend(raw, bits) as i128),
            ElementType::F16 => Value::Float(f16_to_f32(raw as u16) as f64),
            ElementType::BF16 => Value::Float(bf16_to_f32(raw as u16) as f64),
            ElementType::TF32 => Value::Float(tf32_to_f32(raw as u32) as f64),
            ElementType::F32 => Value::Float(f32::from_bits(raw as u32) as f64),
            ElementType::F64 => Value::Float(f64::from_bits(raw)),
        }
    }
}

enum Value {
    Int(i128),
    Float(f64),
}

/// The instruction's static description: operand types, K Dim, operand bits, subgroup size.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct MmaDesc {
    pub k_dim: u32,
    /// Matrix Multiply Accumulate Operands (0 when absent).
    pub operands: u32,
    pub a: VectorType,
    pub b: VectorType,
    pub c: VectorType,
    pub result: VectorType,
    /// N: the number of invocations in the subgroup.
    pub subgroup_size: u32,
}

/// How Matrix A is spread over the invocations.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ALayout {
    /// N <= K: each invocation holds `columns` consecutive columns of every row.
    Columns { columns: u32 },
    /// N > K: each column is spread over `groups` invocations, each holding every `groups`-th row.
    RowGroups { groups: u32 },
}

/// A checked description with the derived dimensions and element types.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MmaPlan {
    pub m: u32,
    pub n: u32,
    pub k: u32,
    pub a_element: ElementType,
    pub b_element: ElementType,
    pub c_element: ElementType,
    pub result_element: ElementType,
    pub a_layout: ALayout,
    /// Bits per component of C and Result.
    pub c_bits: u32,
    pub result_bits: u32,
    /// Bytes each invocation passes for A, B, C and receives for Result.
    pub a_bytes: usize,
    pub b_bytes: usize,
    pub c_bytes: usize,
    pub result_bytes: usize,
}

/// A row-major matrix.
#[derive(Debug, Clone, PartialEq)]
pub struct Matrix<T> {
    pub rows: usize,
    pub cols: usize,
    pub data: Vec<T>,
}

impl<T: Copy> Matrix<T> {
    /// Element at (`row`, `col`); panics only on indices the caller chose out of range.
    pub fn get(&self, row: usize, col: usize) -> T {
        self.data[row * self.cols + col]
    }
}

/// Decoded matrix values: integers exactly, floats exactly widened to f64.
#[derive(Debug, Clone, PartialEq)]
pub enum MatrixValues {
    Int(Matrix<i128>),
    Float(Matrix<f64>),
}

fn mma_error(issue: MmaIssue) -> SimError {
    SimError::Mma(issue)
}

/// Element type of A or B from its component type and the operand bits.
fn ab_element(
    matrix: MmaMatrix,
    component: ScalarType,
    operands: u32,
) -> Result<ElementType, SimError> {
    if !component.is_known() {
        return Err(mma_error(MmaIssue::ComponentType {
            matrix,
            component: component.to_string(),
        }));
    }
    let is_a = matrix == MmaMatrix::A;
    let pick = |a: u32, b: u32| if is_a { a } else { b };
    let signed = operands & pick(MATRIX_A_SIGNED_COMPONENTS, MATRIX_B_SIGNED_COMPONENTS) != 0;
    let interpretations = [
        (
            pick(MATRIX_A_PACKED_INT8, MATRIX_B_PACKED_INT8),
            ElementType::Int { bits: 8, signed },
            if is_a {
                "MatrixAPackedInt8INTEL"
            } else {
                "MatrixBPackedInt8INTEL"
            },
        ),
        (
            pick(MATRIX_A_PACKED_INT4, MATRIX_B_PACKED_INT4),
            ElementType::Int { bits: 4, signed },
            if is_a {
                "MatrixAPackedInt4INTEL"
            } else {
                "MatrixBPackedInt4INTEL"
            },
        ),
        (
            pick(MATRIX_A_TF32, MATRIX_B_TF32),
            ElementType::TF32,
            if is_a {
                "MatrixATF32INTEL"
            } else {
                "MatrixBTF32INTEL"
            },
        ),
        (
            pick(MATRIX_A_PACKED_FLOAT16, MATRIX_B_PACKED_FLOAT16),
            ElementType::F16,
            if is_a {
                "MatrixAPackedFloat16INTEL"
            } else {
                "MatrixBPackedFloat16INTEL"
            },
        ),
        (
            pick(MATRIX_A_PACKED_BFLOAT16, MATRIX_B_PACKED_BFLOAT16),
            ElementType::BF16,
            if is_a {
                "MatrixAPackedBFloat16INTEL"
            } else {
                "MatrixBPackedBFloat16INTEL"
            },
        ),
    ];
    let set: u32 = interpretations
        .iter()
        .map(|&(bit, ..)| operands & bit)
        .fold(0, |acc, b| acc | b);
    if set.count_ones() > 1 {
        return Err(mma_error(MmaIssue::ConflictingInterpretations {
            matrix,
            bits: set,
        }));
    }
    let Some(&(_, element, flag)) = interpretations
        .iter()
        .find(|&&(bit, ..)| operands & bit != 0)
    else {
        return Ok(match component {
            ScalarType::Int(bits) => ElementType::Int { bits, signed },
            ScalarType::BFloat16 => ElementType::BF16,
            ScalarType::Float(16) => ElementType::F16,
            ScalarType::Float(32) => ElementType::F32,
            _ => ElementType::F64,
        });
    };
    let fits = if element == ElementType::TF32 {
        component.bits() == 32
    } else {
        component.bits() % element.bits() == 0
    };
    if !fits {
        return Err(mma_error(MmaIssue::InterpretationComponent {
            matrix,
            flag,
            component: component.to_string(),
        }));
    }
    Ok(element)
}

/// Element type of C or Result (the accumulator types).
fn accumulator_element(
    matrix: MmaMatrix,
    component: ScalarType,
    bf16_flag: bool,
) -> Result<ElementType, SimError> {
    if !component.is_known() {
        return Err(mma_error(MmaIssue::ComponentType {
            matrix,
            component: component.to_string(),
        }));
    }
    if bf16_flag {
        if component.bits() != 16 {
            return Err(mma_error(MmaIssue::InterpretationComponent {
                matrix,
                flag: if matrix == MmaMatrix::C {
                    "MatrixCBFloat16INTEL"
                } else {
                    "MatrixResultBFloat16INTEL"
                },
                component: component.to_string(),
            }));
        }
        return Ok(ElementType::BF16);
    }
    Ok(match component {
        ScalarType::Int(bits) => ElementType::Int { bits, signed: true },
        ScalarType::BFloat16 => ElementType::BF16,
        ScalarType::Float(16) => ElementType::F16,
        ScalarType::Float(32) => ElementType::F32,
        _ => ElementType::F64,
    })
}

/// Checks a description and derives dimensions, element types and layouts.
pub fn plan(desc: &MmaDesc) -> Result<MmaPlan, SimError> {
    let ops = desc.operands;
    if ops & !ALL != 0 {
        return Err(mma_error(MmaIssue::UnknownOperandBits { bits: ops & !ALL }));
    }
    let (m, n, k) = (desc.result.count, desc.subgroup_size, desc.k_dim);
    if m == 0 || n == 0 || k == 0 {
        return Err(mma_error(MmaIssue::ZeroDimension { m, n, k }));
    }
    Subgroup::full(n).require_valid(OP)?;
    let a_element = ab_element(MmaMatrix::A, desc.a.component, ops)?;
    let b_element = ab_element(MmaMatrix::B, desc.b.component, ops)?;
    let c_element =
        accumulator_element(MmaMatrix::C, desc.c.component, ops & MATRIX_C_BFLOAT16 != 0)?;
    let result_element = accumulator_element(
        MmaMatrix::Result,
        desc.result.component,
        ops & MATRIX_RESULT_BFLOAT16 != 0,
    )?;
    if a_element.is_float() != b_element.is_float() {
        return Err(mma_error(MmaIssue::MixedDomains {
            detail: "Matrix A and Matrix B elements are not both integer or both floating-point",
        }));
    }
    if c_element.is_float() != a_element.is_float()
        || result_element.is_float() != a_element.is_float()
    {
        return Err(mma_error(MmaIssue::MixedDomains {
            detail: "Matrix C and Result must be of the same kind (integer or floating-point) as A and B",
        }));
    }
    if desc.c.count != m {
        return Err(mma_error(MmaIssue::ComponentCount {
            matrix: MmaMatrix::C,
            expected: m,
            got: desc.c.count,
        }));
    }
    let ea = a_element.bits() as u64;
    let (a_layout, a_expected) = if k % n == 0 {
        let columns = k / n;
        (ALayout::Columns { columns }, m as u64 * columns as u64 * ea)
    } else if n % k == 0 {
        let groups = n / k;
        (
            ALayout::RowGroups { groups },
            m.div_ceil(groups) as u64 * ea,
        )
    } else {
        return Err(mma_error(MmaIssue::KAndSubgroupSize { k, n }));
    };
    if desc.a.bits() != a_expected {
        return Err(mma_error(MmaIssue::OperandBits {
            matrix: MmaMatrix::A,
            expected_bits: a_expected,
            got_bits: desc.a.bits(),
        }));
    }
    let b_expected = k as u64 * b_element.bits() as u64;
    if desc.b.bits() != b_expected {
        return Err(mma_error(MmaIssue::OperandBits {
            matrix: MmaMatrix::B,
            expected_bits: b_expected,
            got_bits: desc.b.bits(),
        }));
    }
    Ok(MmaPlan {
        m,
        n,
        k,
        a_element,
        b_element,
        c_element,
        result_element,
        a_layout,
        c_bits: desc.c.component.bits(),
        result_bits: desc.result.component.bits(),
        a_bytes: desc.a.bytes(),
        b_bytes: desc.b.bytes(),
        c_bytes: desc.c.bytes(),
        result_bytes: desc.result.bytes(),
    })
}

/// Checks there is one value of `bytes` bytes per invocation.
fn check_data<D: AsRef<[u8]>>(
    what: &'static str,
    data: &[D],
    n: u32,
    bytes: usize,
) -> Result<(), SimError> {
    if data.len() != n as usize {
        return Err(SimError::InvocationCount {
            what,
            expected: n as usize,
            got: data.len(),
        });
    }
    for (invocation, d) in data.iter().enumerate() {
        if d.as_ref().len() != bytes {
            return Err(SimError::DataSize {
                what,
                invocation,
                expected: bytes,
                got: d.as_ref().len(),
            });
        }
    }
    Ok(())
}

/// Decodes `rows x cols` elements of type `element`, element (r, c) at `locate(r, c)` =
/// (invocation, bit offset).
fn decode<D: AsRef<[u8]>>(
    data: &[D],
    element: ElementType,
    bits: u32,
    rows: u32,
    cols: u32,
    locate: impl Fn(u32, u32) -> (usize, u64),
) -> MatrixValues {
    let (rows_u, cols_u) = (rows as usize, cols as usize);
    let raw = |r, c| {
        let (inv, off) = locate(r, c);
        let bytes = data.get(inv).map(AsRef::as_ref).unwrap_or(&[]);
        element.decode(extract_bits(bytes, off, bits))
    };
    if element.is_float() {
        let mut out = Vec::with_capacity(rows_u * cols_u);
        for r in 0..rows {
            for c in 0..cols {
                out.push(match raw(r, c) {
                    Value::Float(v) => v,
                    Value::Int(v) => v as f64,
                });
            }
        }
        MatrixValues::Float(Matrix {
            rows: rows_u,
            cols: cols_u,
            data: out,
        })
    } else {
        let mut out = Vec::with_capacity(rows_u * cols_u);
        for r in 0..rows {
            for c in 0..cols {
                out.push(match raw(r, c) {
                    Value::Int(v) => v,
                    Value::Float(v) => v as i128,
                });
            }
        }
        MatrixValues::Int(Matrix {
            rows: rows_u,
            cols: cols_u,
            data: out,
        })
    }
}

impl MmaPlan {
    /// Matrix A (M x K) from the per-invocation A operands.
    pub fn decode_a<D: AsRef<[u8]>>(&self, a: &[D]) -> Result<MatrixValues, SimError> {
        check_data("Matrix A", a, self.n, self.a_bytes)?;
        let e = self.a_element.bits();
        let k = self.k;
        let layout = self.a_layout;
        Ok(decode(
            a,
            self.a_element,
            e,
            self.m,
            self.k,
            |r, c| match layout {
                ALayout::Columns { columns } => {
                    let inv = (c / columns) as usize;
                    let off = (r as u64 * columns as u64 + (c % columns) as u64) * e as u64;
                    (inv, off)
                }
                ALayout::RowGroups { groups } => {
                    let inv = ((r % groups) * k + c) as usize;
                    (inv, (r / groups) as u64 * e as u64)
                }
            },
        ))
    }

    /// Matrix B (K x N) from the per-invocation B operands.
    pub fn decode_b<D: AsRef<[u8]>>(&self, b: &[D]) -> Result<MatrixValues, SimError> {
        check_data("Matrix B", b, self.n, self.b_bytes)?;
        let e = self.b_element.bits();
        Ok(decode(b, self.b_element, e, self.k, self.n, |r, c| {
            (c as usize, r as u64 * e as u64)
        }))
    }

    /// Matrix C (M x N) from the per-invocation C operands.
    pub fn decode_c<D: AsRef<[u8]>>(&self, c: &[D]) -> Result<MatrixValues, SimError> {
        check_data("Matrix C", c, self.n, self.c_bytes)?;
        let bits = self.c_bits;
        Ok(decode(c, self.c_element, bits, self.m, self.n, |r, col| {
            (col as usize, r as u64 * bits as u64)
        }))
    }

    /// Result (M x N) as per-invocation Result values. `values` must be M x N of the plan's kind.
    fn encode_result(&self, raw: &[u64]) -> Vec<Vec<u8>> {
        let (m, n) = (self.m as usize, self.n as usize);
        let bits = self.result_bits;
        (0..n)
            .map(|col| {
                let mut out = vec![0u8; self.result_bytes];
                for r in 0..m {
                    insert_bits(&mut out, r as u64 * bits as u64, bits, raw[r * n + col]);
                }
                out
            })
            .collect()
    }
}

/// Executes `OpSubgroupMatrixMultiplyAccumulateINTEL` for a whole subgroup: `a[i]`, `b[i]`,
/// `c[i]` are invocation `i`'s operand bytes; returns each invocation's Result bytes.
pub fn multiply_accumulate<D: AsRef<[u8]>>(
    desc: &MmaDesc,
    a: &[D],
    b: &[D],
    c: &[D],
) -> Result<Vec<Vec<u8>>, SimError> {
    let plan = plan(desc)?;
    let am = plan.decode_a(a)?;
    let bm = plan.decode_b(b)?;
    let cm = plan.decode_c(c)?;
    let (m, n, k) = (plan.m as usize, plan.n as usize, plan.k as usize);
    let mut raw = vec![0u64; m * n];
    match (am, bm, cm) {
        (MatrixValues::Int(am), MatrixValues::Int(bm), MatrixValues::Int(cm)) => {
            for r in 0..m {
                for col in 0..n {
                    let mut acc = cm.get(r, col);
                    for i in 0..k {
                        acc = acc.wrapping_add(am.get(r, i).wrapping_mul(bm.get(i, col)));
                    }
                    raw[r * n + col] = acc as u64; // low 64 bits; encode keeps the low width
                }
            }
        }
        (MatrixValues::Float(am), MatrixValues::Float(bm), MatrixValues::Float(cm)) => {
            let wide = [
                plan.a_element,
                plan.b_element,
                plan.c_element,
                plan.result_element,
            ]
            .contains(&ElementType::F64);
            for r in 0..m {
                for col in 0..n {
                    let value = if wide {
                        let mut acc = cm.get(r, col);
                        for i in 0..k {
                            acc = am.get(r, i).mul_add(bm.get(i, col), acc);
                        }
                        acc
                    } else {
                        // every decoded value is exactly representable in f32
                        let mut acc = cm.get(r, col) as f32;
                        for i in 0..k {
                            acc = (am.get(r, i) as f32).mul_add(bm.get(i, col) as f32, acc);
                        }
                        acc as f64
                    };
                    raw[r * n + col] = match plan.result_element {
                        ElementType::F16 => f64_to_f16(value) as u64,
                        ElementType::BF16 => f64_to_bf16(value) as u64,
                        ElementType::F64 => value.to_bits(),
                        _ => (value as f32).to_bits() as u64,
                    };
                }
            }
        }
        // plan() guarantees all operands are of one kind
        _ => {
            return Err(mma_error(MmaIssue::MixedDomains {
                detail: "operands of different kinds",
            }))
        }
    }
    Ok(plan.encode_result(&raw))
}
