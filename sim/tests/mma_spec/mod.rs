//! SPV_INTEL_subgroup_matrix_multiply_accumulate: every Matrix A / B / C / Result example of the
//! spec as a golden test, hand-computed cases per operand interpretation, and the errors.

// Hand computations are written out term by term (`+ 0`, `* 0`) to mirror the matrices, and
// reference loops index several matrices by the same row / column.
#![allow(clippy::identity_op, clippy::erasing_op, clippy::needless_range_loop)]

use spvopt_sim::error::{MmaIssue, MmaMatrix, SimError};
use spvopt_sim::mma::operands::*;
use spvopt_sim::mma::{
    multiply_accumulate, plan, ALayout, ElementType, MatrixValues, MmaDesc, ScalarType, VectorType,
};
use spvopt_sim::numeric::{bf16_to_f32, f16_to_f32, f32_to_bf16, f32_to_f16, tf32_to_f32};

use ScalarType::{Float, Int};

fn v(c: ScalarType, n: u32) -> VectorType {
    VectorType::vector(c, n)
}

fn desc(
    k: u32,
    ops: u32,
    a: VectorType,
    b: VectorType,
    c: VectorType,
    r: VectorType,
    n: u32,
) -> MmaDesc {
    MmaDesc {
        k_dim: k,
        operands: ops,
        a,
        b,
        c,
        result: r,
        subgroup_size: n,
    }
}

/// The spec writes element (row, col) as "row,col"; we store `row * 16 + col`.
fn e(r: usize, c: usize) -> u32 {
    (r * 16 + c) as u32
}

fn le32(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

fn le16(words: &[u16]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

fn ints(m: MatrixValues) -> Vec<Vec<i128>> {
    match m {
        MatrixValues::Int(m) => (0..m.rows)
            .map(|r| (0..m.cols).map(|c| m.get(r, c)).collect())
            .collect(),
        MatrixValues::Float(_) => panic!("expected an integer matrix"),
    }
}

fn floats(m: MatrixValues) -> Vec<Vec<f64>> {
    match m {
        MatrixValues::Float(m) => (0..m.rows)
            .map(|r| (0..m.cols).map(|c| m.get(r, c)).collect())
            .collect(),
        MatrixValues::Int(_) => panic!("expected a float matrix"),
    }
}

fn expected_e(rows: usize, cols: usize) -> Vec<Vec<i128>> {
    (0..rows)
        .map(|r| (0..cols).map(|c| e(r, c) as i128).collect())
        .collect()
}

// ---- Matrix A examples -----------------------------------------------------------------------

#[test]
fn example_a_n_equals_k() {
    // M = 2, K = 4, N = 4: invocation i passes (0,i) and (1,i)
    let d = desc(
        4,
        NONE,
        v(Int(32), 2),
        v(Int(32), 4),
        v(Int(32), 2),
        v(Int(32), 2),
        4,
    );
    let p = plan(&d).unwrap();
    assert_eq!(p.a_layout, ALayout::Columns { columns: 1 });
    let a: Vec<Vec<u8>> = (0..4).map(|i| le32(&[e(0, i), e(1, i)])).collect();
    assert_eq!(ints(p.decode_a(&a).unwrap()), expected_e(2, 4));
}

#[test]
fn example_a_n_less_than_k() {
    // M = 2, K = 8, N = 4: invocation i passes (0,2i+1)|(0,2i) and (1,2i+1)|(1,2i)
    let d = desc(
        8,
        MATRIX_A_PACKED_INT8 | MATRIX_B_PACKED_INT8,
        v(Int(16), 2),
        v(Int(32), 2),
        v(Int(32), 2),
        v(Int(32), 2),
        4,
    );
    let p = plan(&d).unwrap();
    assert_eq!(p.a_layout, ALayout::Columns { columns: 2 });
    let a: Vec<Vec<u8>> = (0..4)
        .map(|i| {
            le16(&[
                (e(0, 2 * i + 1) << 8 | e(0, 2 * i)) as u16,
                (e(1, 2 * i + 1) << 8 | e(1, 2 * i)) as u16,
            ])
        })
        .collect();
    assert_eq!(ints(p.decode_a(&a).unwrap()), expected_e(2, 8));

    // the same layout with packed fp16 in 32-bit components
    let d = desc(
        8,
        MATRIX_A_PACKED_FLOAT16 | MATRIX_B_PACKED_FLOAT16,
        v(Int(32), 2),
        v(Int(32), 4),
        v(Float(32), 2),
        v(Float(32), 2),
        4,
    );
    let p = plan(&d).unwrap();
    let h = |r, c| f32_to_f16(e(r, c) as f32) as u32;
    let a: Vec<Vec<u8>> = (0..4)
        .map(|i| {
            le32(&[
                h(0, 2 * i + 1) << 16 | h(0, 2 * i),
                h(1, 2 * i + 1) << 16 | h(1, 2 * i),
            ])
        })
        .collect();
    let want: Vec<Vec<f64>> = expected_e(2, 8)
        .into_iter()
        .map(|row| row.into_iter().map(|x| x as f64).collect())
        .collect();
    assert_eq!(floats(p.decode_a(&a).unwrap()), want);
}

#[test]
fn example_a_n_greater_than_k() {
    // M = 4, K = 2, N = 4: invocation 0 passes (0,0),(2,0); 1: (0,1),(2,1); 2: (1,0),(3,0); 3: (1,1),(3,1)
    let d = desc(
        2,
        NONE,
        v(Int(32), 2),
        v(Int(32), 2),
        v(Int(32), 4),
        v(Int(32), 4),
        4,
    );
    let p = plan(&d).unwrap();
    assert_eq!(p.a_layout, ALayout::RowGroups { groups: 2 });
    let a = vec![
        le32(&[e(0, 0), e(2, 0)]),
        le32(&[e(0, 1), e(2, 1)]),
        le32(&[e(1, 0), e(3, 0)]),
        le32(&[e(1, 1), e(3, 1)]),
    ];
    assert_eq!(ints(p.decode_a(&a).unwrap()), expected_e(4, 2));
}

#[test]
fn example_a_single_row_ignores_upper_invocations() {
    // M = 1, K = 2, N = 4: invocations 2 and 3 are ignored
    let d = desc(
        2,
        NONE,
        v(Int(32), 1),
        v(Int(32), 2),
        v(Int(32), 1),
        v(Int(32), 1),
        4,
    );
    let p = plan(&d).unwrap();
    let a = vec![
        le32(&[e(0, 0)]),
        le32(&[e(0, 1)]),
        le32(&[0xdead]),
        le32(&[0xbeef]),
    ];
    assert_eq!(ints(p.decode_a(&a).unwrap()), expected_e(1, 2));
    // and they do not influence the result
    let b: Vec<Vec<u8>> = (0..4).map(|_| le32(&[1, 1])).collect();
    let c: Vec<Vec<u8>> = (0..4).map(|_| le32(&[0])).collect();
    let r = multiply_accumulate(&d, &a, &b, &c).unwrap();
    assert!(r.iter().all(|x| x == &le32(&[e(0, 0) + e(0, 1)])));
}

// ---- Matrix B examples -----------------------------------------------------------------------

#[test]
fn example_b_8bit() {
    // K = 8, N = 4: invocation n passes 3,n|2,n|1,n|0,n and 7,n|6,n|5,n|4,n
    let d = desc(
        8,
        MATRIX_A_PACKED_INT8 | MATRIX_B_PACKED_INT8,
        v(Int(16), 1),
        v(Int(32), 2),
        v(Int(32), 1),
        v(Int(32), 1),
        4,
    );
    let p = plan(&d).unwrap();
    let pack = |n: usize, r0: usize| (0..4).fold(0u32, |acc, j| acc | e(r0 + j, n) << (8 * j));
    let b: Vec<Vec<u8>> = (0..4).map(|n| le32(&[pack(n, 0), pack(n, 4)])).collect();
    assert_eq!(ints(p.decode_b(&b).unwrap()), expected_e(8, 4));
}

#[test]
fn example_b_16bit() {
    // K = 4, N = 4: invocation n passes 1,n|0,n and 3,n|2,n
    let d = desc(
        4,
        MATRIX_A_PACKED_BFLOAT16 | MATRIX_B_PACKED_BFLOAT16,
        v(Int(16), 1),
        v(Int(32), 2),
        v(Float(32), 1),
        v(Float(32), 1),
        4,
    );
    let p = plan(&d).unwrap();
    assert_eq!(p.b_element, ElementType::BF16);
    let bf = |r, c| f32_to_bf16(e(r, c) as f32) as u32;
    let b: Vec<Vec<u8>> = (0..4)
        .map(|n| le32(&[bf(1, n) << 16 | bf(0, n), bf(3, n) << 16 | bf(2, n)]))
        .collect();
    let want: Vec<Vec<f64>> = expected_e(4, 4)
        .into_iter()
        .map(|row| row.into_iter().map(|x| x as f64).collect())
        .collect();
    assert_eq!(floats(p.decode_b(&b).unwrap()), want);
}

#[test]
fn example_b_32bit() {
    // K = 2, N = 4: invocation n passes 0,n and 1,n
    let d = desc(
        2,
        NONE,
        v(Int(32), 1),
        v(Int(32), 2),
        v(Int(32), 2),
        v(Int(32), 2),
        4,
    );
    let p = plan(&d).unwrap();
    let b: Vec<Vec<u8>> = (0..4).map(|n| le32(&[e(0, n), e(1, n)])).collect();
    assert_eq!(ints(p.decode_b(&b).unwrap()), expected_e(2, 4));
}

// ---- Matrix C and Result examples ------------------------------------------------------------

#[test]
fn example_c_and_result() {
    // M = 2, N = 4: invocation n passes / is assigned 0,n and 1,n
    let d = desc(
        4,
        NONE,
        v(Int(32), 2),
        v(Int(32), 4),
        v(Int(32), 2),
        v(Int(32), 2),
        4,
    );
    let p = plan(&d).unwrap();
    let c: Vec<Vec<u8>> = (0..4).map(|n| le32(&[e(0, n), e(1, n)])).collect();
    assert_eq!(ints(p.decode_c(&c).unwrap()), expected_e(2, 4));
    // with A = 0 the Result is C, in the same layout
    let zero_a: Vec<Vec<u8>> = (0..4).map(|_| le32(&[0, 0])).collect();
    let b: Vec<Vec<u8>> = (0..4).map(|n| le32(&[1, 2, 3, n as u32])).collect();
    assert_eq!(multiply_accumulate(&d, &zero_a, &b, &c).unwrap(), c);
    // with A = identity-like rows the Result picks B rows: Result(r, n) = C(r, n) + B(r, n)
    let a: Vec<Vec<u8>> = (0..4)
        .map(|i| le32(&[(i == 0) as u32, (i == 1) as u32]))
        .collect();
    let r = multiply_accumulate(&d, &a, &b, &c).unwrap();
    for n in 0..4 {
        assert_eq!(r[n], le32(&[e(0, n) + 1, e(1, n) + 2]));
    }
}

mod errors;
mod interpretations;
mod realistic;

/// Packs the per-invocation A operand of an integer case with N <= K: invocation i, row r holds
/// columns i*q .. i*q+q-1 at `bits` each, in a component of q*bits bits.
fn pack_a(a: &[Vec<i32>], n: usize, bits: u32) -> Vec<Vec<u8>> {
    let k = a[0].len();
    let q = k / n;
    let comp_bytes = (q as u32 * bits / 8) as usize;
    (0..n)
        .map(|i| {
            a.iter()
                .flat_map(|row| {
                    let word = (0..q).fold(0u64, |acc, j| {
                        acc | ((row[i * q + j] as u64) & ((1 << bits) - 1)) << (j as u32 * bits)
                    });
                    word.to_le_bytes()[..comp_bytes].to_vec()
                })
                .collect()
        })
        .collect()
}

/// Packs B (K x N) column by column into 32-bit words, `bits` per element, lower rows lower bits.
fn pack_b(b: &[Vec<i32>], bits: u32) -> Vec<Vec<u8>> {
    let (k, n) = (b.len(), b[0].len());
    let per = (32 / bits) as usize;
    (0..n)
        .map(|col| {
            let words: Vec<u32> = (0..k / per)
                .map(|w| {
                    (0..per).fold(0u32, |acc, j| {
                        acc | ((b[w * per + j][col] as u32) & (((1u64 << bits) - 1) as u32))
                            << (j as u32 * bits)
                    })
                })
                .collect();
            le32(&words)
        })
        .collect()
}

fn reference_int(
    a: &[Vec<i32>],
    b: &[Vec<i32>],
    c: &[Vec<i32>],
    bits: u32,
    sa: bool,
    sb: bool,
) -> Vec<Vec<i32>> {
    let ext = |x: i32, signed: bool| {
        let raw = (x as u32) & (((1u64 << bits) - 1) as u32);
        if signed {
            ((raw << (32 - bits)) as i32) >> (32 - bits)
        } else {
            raw as i32
        }
    };
    let (m, k, n) = (a.len(), b.len(), b[0].len());
    (0..m)
        .map(|r| {
            (0..n)
                .map(|col| {
                    (0..k).fold(c[r][col], |acc, i| {
                        acc.wrapping_add(ext(a[r][i], sa).wrapping_mul(ext(b[i][col], sb)))
                    })
                })
                .collect()
        })
        .collect()
}

fn per_invocation_c(c: &[Vec<i32>]) -> Vec<Vec<u8>> {
    let n = c[0].len();
    (0..n)
        .map(|col| le32(&c.iter().map(|row| row[col] as u32).collect::<Vec<_>>()))
        .collect()
}

fn result_matrix(r: &[Vec<u8>], m: usize) -> Vec<Vec<i32>> {
    (0..m)
        .map(|row| {
            r.iter()
                .map(|d| i32::from_le_bytes(d[row * 4..row * 4 + 4].try_into().unwrap()))
                .collect()
        })
        .collect()
}

fn f32s(d: &[u8]) -> Vec<f32> {
    d.chunks(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

fn u16s(d: &[u8]) -> Vec<u16> {
    d.chunks(2)
        .map(|c| u16::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u32 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) as u32
    }
}
