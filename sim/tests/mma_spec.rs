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

// ---- integer interpretations -----------------------------------------------------------------

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

#[test]
fn int8_all_signedness_combinations() {
    let (m, k, n) = (2usize, 8usize, 4usize);
    let a: Vec<Vec<i32>> = (0..m)
        .map(|r| {
            (0..k)
                .map(|c| [-128, -1, 0, 1, 127, 100, -77, 5][(r * 3 + c) % 8])
                .collect()
        })
        .collect();
    let b: Vec<Vec<i32>> = (0..k)
        .map(|r| {
            (0..n)
                .map(|c| [-128, 127, -3, 9, 64, -1, 0, 33][(r + 5 * c) % 8])
                .collect()
        })
        .collect();
    let c: Vec<Vec<i32>> = (0..m)
        .map(|r| (0..n).map(|col| (r * 10 + col) as i32 - 7).collect())
        .collect();
    for (sa, sb) in [(false, false), (true, false), (false, true), (true, true)] {
        let ops = MATRIX_A_PACKED_INT8
            | MATRIX_B_PACKED_INT8
            | if sa { MATRIX_A_SIGNED_COMPONENTS } else { 0 }
            | if sb { MATRIX_B_SIGNED_COMPONENTS } else { 0 };
        let d = desc(
            8,
            ops,
            v(Int(16), 2),
            v(Int(32), 2),
            v(Int(32), 2),
            v(Int(32), 2),
            4,
        );
        let r = multiply_accumulate(&d, &pack_a(&a, n, 8), &pack_b(&b, 8), &per_invocation_c(&c))
            .unwrap();
        assert_eq!(
            result_matrix(&r, m),
            reference_int(&a, &b, &c, 8, sa, sb),
            "signed A {sa}, B {sb}"
        );
    }
    // hand-checked entries: A row 0 = [-128,-1,0,1,127,100,-77,5], B column 0 =
    // [-128,127,-3,9,64,-1,0,33], C[0][0] = -7
    let d = desc(
        8,
        0x33,
        v(Int(16), 2),
        v(Int(32), 2),
        v(Int(32), 2),
        v(Int(32), 2),
        4,
    );
    let r =
        multiply_accumulate(&d, &pack_a(&a, n, 8), &pack_b(&b, 8), &per_invocation_c(&c)).unwrap();
    let signed: i32 = -7 + 16384 - 127 + 0 + 9 + 8128 - 100 + 0 + 165;
    assert_eq!(result_matrix(&r, m)[0][0], signed);
    // unsigned x unsigned: -128 -> 128, -1 -> 255, -77 -> 179, -3 -> 253
    let d = desc(
        8,
        0x30,
        v(Int(16), 2),
        v(Int(32), 2),
        v(Int(32), 2),
        v(Int(32), 2),
        4,
    );
    let r =
        multiply_accumulate(&d, &pack_a(&a, n, 8), &pack_b(&b, 8), &per_invocation_c(&c)).unwrap();
    let unsigned: i32 =
        -7 + 128 * 128 + 255 * 127 + 0 + 9 + 127 * 64 + 100 * 255 + 179 * 0 + 5 * 33;
    assert_eq!(result_matrix(&r, m)[0][0], unsigned);
}

#[test]
fn int4_packed() {
    let (m, k, n) = (2usize, 16usize, 4usize);
    let a: Vec<Vec<i32>> = (0..m)
        .map(|r| (0..k).map(|c| ((r * 5 + c * 3) % 16) as i32 - 8).collect())
        .collect();
    let b: Vec<Vec<i32>> = (0..k)
        .map(|r| (0..n).map(|c| ((r * 7 + c) % 16) as i32 - 8).collect())
        .collect();
    let c = vec![vec![1000; n]; m];
    for (sa, sb) in [(false, false), (true, true), (true, false)] {
        let ops = MATRIX_A_PACKED_INT4
            | MATRIX_B_PACKED_INT4
            | if sa { MATRIX_A_SIGNED_COMPONENTS } else { 0 }
            | if sb { MATRIX_B_SIGNED_COMPONENTS } else { 0 };
        let d = desc(
            16,
            ops,
            v(Int(16), 2),
            v(Int(32), 2),
            v(Int(32), 2),
            v(Int(32), 2),
            4,
        );
        let p = plan(&d).unwrap();
        assert_eq!(
            p.a_element,
            ElementType::Int {
                bits: 4,
                signed: sa
            }
        );
        let r = multiply_accumulate(&d, &pack_a(&a, n, 4), &pack_b(&b, 4), &per_invocation_c(&c))
            .unwrap();
        assert_eq!(result_matrix(&r, m), reference_int(&a, &b, &c, 4, sa, sb));
    }
    // tiny hand case: A row = [-8, 7, 0 ...], B column = [1, 1, 0 ...] (signed) -> -1 + C
    let mut a1 = vec![vec![0; k]; 1];
    a1[0][0] = -8;
    a1[0][1] = 7;
    let mut b1 = vec![vec![0; n]; k];
    b1[0][0] = 1;
    b1[1][0] = 1;
    let c1 = vec![vec![5; n]];
    let d = desc(
        16,
        0xc3,
        v(Int(16), 1),
        v(Int(32), 2),
        v(Int(32), 1),
        v(Int(32), 1),
        4,
    );
    let r = multiply_accumulate(
        &d,
        &pack_a(&a1, n, 4),
        &pack_b(&b1, 4),
        &per_invocation_c(&c1),
    )
    .unwrap();
    assert_eq!(result_matrix(&r, 1)[0], vec![4, 5, 5, 5]);
    // unsigned: -8 is 8, so 8 + 7 + 5
    let d = desc(
        16,
        0xc0,
        v(Int(16), 1),
        v(Int(32), 2),
        v(Int(32), 1),
        v(Int(32), 1),
        4,
    );
    let r = multiply_accumulate(
        &d,
        &pack_a(&a1, n, 4),
        &pack_b(&b1, 4),
        &per_invocation_c(&c1),
    )
    .unwrap();
    assert_eq!(result_matrix(&r, 1)[0], vec![20, 5, 5, 5]);
}

#[test]
fn integer_results_wrap() {
    // int8 x int8 into i32 with C = i32::MAX: wraps
    let (k, n) = (8usize, 4usize);
    let a = vec![vec![1; k]];
    let b = vec![vec![1; n]; k];
    let c = vec![vec![i32::MAX; n]];
    let d = desc(
        8,
        0x30,
        v(Int(16), 1),
        v(Int(32), 2),
        v(Int(32), 1),
        v(Int(32), 1),
        4,
    );
    let r =
        multiply_accumulate(&d, &pack_a(&a, n, 8), &pack_b(&b, 8), &per_invocation_c(&c)).unwrap();
    assert_eq!(result_matrix(&r, 1)[0], vec![i32::MIN + 7; 4]);
    // 16-bit C and Result: wraps at 16 bits
    let d = desc(
        8,
        0x30,
        v(Int(16), 1),
        v(Int(32), 2),
        v(Int(16), 1),
        v(Int(16), 1),
        4,
    );
    let a = vec![vec![255; k]];
    let b = vec![vec![255; n]; k];
    let c16: Vec<Vec<u8>> = (0..n).map(|_| le16(&[0x7fff])).collect();
    let r = multiply_accumulate(&d, &pack_a(&a, n, 8), &pack_b(&b, 8), &c16).unwrap();
    let want = (0x7fffi64 + 8 * 255 * 255) as u16;
    assert!(r.iter().all(|x| x == &le16(&[want])));
    // a narrower C than Result is sign-extended (C is signed)
    let d = desc(
        8,
        0x30,
        v(Int(16), 1),
        v(Int(32), 2),
        v(Int(8), 1),
        v(Int(32), 1),
        4,
    );
    let zero_a = pack_a(&[vec![0; k]], n, 8);
    let c8: Vec<Vec<u8>> = (0..n).map(|_| vec![0xfe]).collect();
    let r = multiply_accumulate(&d, &zero_a, &pack_b(&b, 8), &c8).unwrap();
    assert!(r.iter().all(|x| x == &le32(&[(-2i32) as u32])));
}

// ---- floating-point interpretations ----------------------------------------------------------

/// fp16 / bf16 case with N = K = 4, M = 2: A is M x i16 per invocation, B is 2 x i32.
fn half_case(
    ops: u32,
    to_bits: fn(f32) -> u16,
    a: &[[f32; 4]; 2],
    b: &[[f32; 4]; 4],
    c_type: ScalarType,
    c_bits: &dyn Fn(usize, usize) -> Vec<u8>,
    result: ScalarType,
) -> Vec<Vec<u8>> {
    let d = desc(
        4,
        ops,
        v(Int(16), 2),
        v(Int(32), 2),
        v(c_type, 2),
        v(result, 2),
        4,
    );
    let av: Vec<Vec<u8>> = (0..4)
        .map(|i| le16(&[to_bits(a[0][i]), to_bits(a[1][i])]))
        .collect();
    let bv: Vec<Vec<u8>> = (0..4)
        .map(|n| {
            let h = |k: usize| to_bits(b[k][n]) as u32;
            le32(&[h(1) << 16 | h(0), h(3) << 16 | h(2)])
        })
        .collect();
    let cv: Vec<Vec<u8>> = (0..4)
        .map(|n| [c_bits(0, n), c_bits(1, n)].concat())
        .collect();
    multiply_accumulate(&d, &av, &bv, &cv).unwrap()
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

#[test]
fn fp16_into_fp32() {
    let a = [[0.5, 1.5, -2.0, 4.0], [1.0, 1.0, 1.0, 1.0]];
    let b = [
        [1.0, 2.0, 0.0, -1.0],
        [2.0, 0.0, 1.0, 1.0],
        [0.25, 0.5, 1.0, 0.0],
        [1.0, -1.0, 3.0, 0.5],
    ];
    let c = |r: usize, n: usize| ((r * 4 + n) as f32).to_le_bytes().to_vec();
    let r = half_case(0xc00, f32_to_f16, &a, &b, Float(32), &c, Float(32));
    for (n, d) in r.iter().enumerate() {
        let got = f32s(d);
        for row in 0..2 {
            let want = (0..4).map(|k| a[row][k] * b[k][n]).sum::<f32>() + (row * 4 + n) as f32;
            assert_eq!(got[row], want, "row {row} col {n}");
        }
    }
}

#[test]
fn float_accumulation_order_is_c_first_then_k_in_order() {
    // products of 2^-12 * 2^-12 = 2^-24 each: starting from C = 1.0 every fma rounds back to 1.0
    // (tie to even), whereas summing the products first would give 1 + 2^-22.
    let t = 2f32.powi(-12);
    let a = [[t; 4], [t; 4]];
    let b = [[t; 4]; 4];
    let c = |_r: usize, _n: usize| 1.0f32.to_le_bytes().to_vec();
    let r = half_case(0xc00, f32_to_f16, &a, &b, Float(32), &c, Float(32));
    assert!(r.iter().all(|d| f32s(d) == vec![1.0, 1.0]));
    // with C = 0 the products accumulate exactly
    let c0 = |_r: usize, _n: usize| 0.0f32.to_le_bytes().to_vec();
    let r = half_case(0xc00, f32_to_f16, &a, &b, Float(32), &c0, Float(32));
    assert!(r.iter().all(|d| f32s(d) == vec![2f32.powi(-22); 2]));
}

#[test]
fn fp16_accumulator_rounds_once_at_the_end() {
    // C = 1.0 (f16); each product 2^-12 is below half an f16 ulp at 1.0 (2^-11), but the four
    // together (2^-10) are exactly one ulp: single rounding gives 1 + 2^-10 (0x3c01).
    let a = [[2f32.powi(-6); 4], [0.0; 4]];
    let b = [[2f32.powi(-6); 4]; 4];
    let c = |r: usize, _n: usize| {
        f32_to_f16(if r == 0 { 1.0 } else { -3.5 })
            .to_le_bytes()
            .to_vec()
    };
    let r = half_case(0xc00, f32_to_f16, &a, &b, Float(16), &c, Float(16));
    assert!(r.iter().all(|d| u16s(d) == vec![0x3c01, f32_to_f16(-3.5)]));
    assert_eq!(f16_to_f32(0x3c01), 1.0 + 2f32.powi(-10));
}

#[test]
fn bf16_into_fp32_and_bf16_accumulator() {
    let a = [[1.5, -2.0, 0.375, 3.0], [0.0, 1.0, 0.0, 1.0]];
    let b = [
        [2.0, 1.0, -1.0, 0.5],
        [1.0, 1.0, 1.0, 1.0],
        [8.0, 0.0, 2.0, -4.0],
        [0.5, 0.25, 0.125, 1.0],
    ];
    let c = |r: usize, n: usize| (r as f32 - n as f32).to_le_bytes().to_vec();
    let r = half_case(0x3000, f32_to_bf16, &a, &b, Float(32), &c, Float(32));
    for (n, d) in r.iter().enumerate() {
        for row in 0..2 {
            let want = (0..4).map(|k| a[row][k] * b[k][n]).sum::<f32>() + (row as f32 - n as f32);
            assert_eq!(f32s(d)[row], want);
        }
    }
    // bf16 C and Result (flags 0x4 | 0x8), C = 256. bf16 has 8 significant bits, so between 256
    // and 512 it steps by 2. Row 0: 256 + 3 - 2 + 3 + 1.5 = 261.5 -> 262.
    // Row 1: 256 + 1 + 0.5 = 257.5 -> 258.
    let cb = |_r: usize, _n: usize| f32_to_bf16(256.0).to_le_bytes().to_vec();
    let r = half_case(0x300c, f32_to_bf16, &a, &b, Int(16), &cb, Int(16));
    let col0 = u16s(&r[0]);
    assert_eq!(bf16_to_f32(col0[0]), 262.0);
    assert_eq!(bf16_to_f32(col0[1]), 258.0);
    // column 3: row 0 = 256 + 0.75 - 2 - 1.5 + 3 = 256.25 -> 256; row 1 = 256 + 1 + 1 = 258
    assert_eq!(u16s(&r[3]), vec![f32_to_bf16(256.0), f32_to_bf16(258.0)]);
    let p = plan(&desc(
        4,
        0x300c,
        v(Int(16), 2),
        v(Int(32), 2),
        v(Int(16), 2),
        v(Int(16), 2),
        4,
    ))
    .unwrap();
    assert_eq!(
        (p.c_element, p.result_element),
        (ElementType::BF16, ElementType::BF16)
    );
}

#[test]
fn tf32_ignores_low_mantissa_bits_and_spreads_a_over_row_groups() {
    // SIMD8 analogue of the tf32 shape: N = 8, K = 4, M = 4 -> A has ceil(M/2) = 2 floats
    let (m, k, n) = (4usize, 4usize, 8usize);
    let a: Vec<Vec<f32>> = (0..m)
        .map(|r| (0..k).map(|c| 1.0 + (r * 4 + c) as f32 / 8.0).collect())
        .collect();
    let b: Vec<Vec<f32>> = (0..k)
        .map(|r| (0..n).map(|c| (r as f32) - (c as f32) / 4.0).collect())
        .collect();
    let junk = |x: f32, salt: usize| x.to_bits() | (0x1fff & (salt as u32 * 0x9e5)); // low 13 bits
                                                                                     // invocation i: column i % K, rows g and g + 2 with g = i / K
    let av: Vec<Vec<u8>> = (0..n)
        .map(|i| {
            let (col, g) = (i % k, i / k);
            le32(&[junk(a[g][col], i), junk(a[g + 2][col], i + 1)])
        })
        .collect();
    let bv: Vec<Vec<u8>> = (0..n)
        .map(|col| le32(&(0..k).map(|r| junk(b[r][col], r + col)).collect::<Vec<_>>()))
        .collect();
    let cv: Vec<Vec<u8>> = (0..n).map(|_| le32(&[0; 4])).collect();
    let d = desc(
        4,
        MATRIX_A_TF32 | MATRIX_B_TF32,
        v(Float(32), 2),
        v(Float(32), 4),
        v(Float(32), 4),
        v(Float(32), 4),
        8,
    );
    let p = plan(&d).unwrap();
    assert_eq!(p.a_layout, ALayout::RowGroups { groups: 2 });
    let r = multiply_accumulate(&d, &av, &bv, &cv).unwrap();
    for col in 0..n {
        let got = f32s(&r[col]);
        for row in 0..m {
            // the test values are exact in tf32, so the junk bits must not matter
            let want = (0..k).fold(0.0f32, |acc, i| a[row][i].mul_add(b[i][col], acc));
            assert_eq!(got[row], want, "row {row} col {col}");
        }
    }
    assert_eq!(tf32_to_f32(junk(1.125, 3)), 1.125);
}

// ---- realistic shapes against independent references -----------------------------------------

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

#[test]
fn simd16_bf16_m8_k16() {
    let (m, k, n) = (8usize, 16usize, 16usize);
    let mut rng = Lcg(7);
    let a: Vec<Vec<u16>> = (0..m)
        .map(|_| {
            (0..k)
                .map(|_| f32_to_bf16((rng.next() % 200) as f32 / 16.0 - 6.0))
                .collect()
        })
        .collect();
    let b: Vec<Vec<u16>> = (0..k)
        .map(|_| {
            (0..n)
                .map(|_| f32_to_bf16((rng.next() % 300) as f32 / 32.0 - 4.0))
                .collect()
        })
        .collect();
    let c: Vec<Vec<f32>> = (0..m)
        .map(|_| (0..n).map(|_| rng.next() as f32 / 1e7).collect())
        .collect();
    // A: M x i16 per invocation, invocation i = column i; B: 8 x i32 VNNI; C: 8 x f32
    let av: Vec<Vec<u8>> = (0..n)
        .map(|i| le16(&(0..m).map(|r| a[r][i]).collect::<Vec<_>>()))
        .collect();
    let bv: Vec<Vec<u8>> = (0..n)
        .map(|col| {
            le32(
                &(0..k / 2)
                    .map(|j| (b[2 * j + 1][col] as u32) << 16 | b[2 * j][col] as u32)
                    .collect::<Vec<_>>(),
            )
        })
        .collect();
    let cv: Vec<Vec<u8>> = (0..n)
        .map(|col| c.iter().flat_map(|row| row[col].to_le_bytes()).collect())
        .collect();
    let d = desc(
        16,
        0x3000,
        v(Int(16), 8),
        v(Int(32), 8),
        v(Float(32), 8),
        v(Float(32), 8),
        16,
    );
    let r = multiply_accumulate(&d, &av, &bv, &cv).unwrap();
    for col in 0..n {
        let got = f32s(&r[col]);
        for row in 0..m {
            let want = (0..k).fold(c[row][col], |acc, i| {
                bf16_to_f32(a[row][i]).mul_add(bf16_to_f32(b[i][col]), acc)
            });
            assert_eq!(got[row].to_bits(), want.to_bits());
        }
    }
}

#[test]
fn simd8_int8_m4_k32() {
    let (m, k, n) = (4usize, 32usize, 8usize);
    let mut rng = Lcg(11);
    let a: Vec<Vec<i32>> = (0..m)
        .map(|_| (0..k).map(|_| (rng.next() % 256) as i32 - 128).collect())
        .collect();
    let b: Vec<Vec<i32>> = (0..k)
        .map(|_| (0..n).map(|_| (rng.next() % 256) as i32 - 128).collect())
        .collect();
    let c: Vec<Vec<i32>> = (0..m)
        .map(|_| (0..n).map(|_| rng.next() as i32).collect())
        .collect();
    for ops in [0x30, 0x31, 0x32, 0x33] {
        let d = desc(
            32,
            ops,
            v(Int(32), 4),
            v(Int(32), 8),
            v(Int(32), 4),
            v(Int(32), 4),
            8,
        );
        let r = multiply_accumulate(&d, &pack_a(&a, n, 8), &pack_b(&b, 8), &per_invocation_c(&c))
            .unwrap();
        assert_eq!(
            result_matrix(&r, m),
            reference_int(&a, &b, &c, 8, ops & 1 != 0, ops & 2 != 0)
        );
    }
}

// ---- errors ----------------------------------------------------------------------------------

fn issue(d: &MmaDesc) -> MmaIssue {
    match plan(d) {
        Err(SimError::Mma(i)) => {
            let msg = SimError::Mma(i.clone()).to_string();
            assert!(!msg.contains('\n'), "{msg}");
            i
        }
        other => panic!("expected an MMA issue, got {other:?}"),
    }
}

#[test]
fn interpretation_errors() {
    let ok = desc(
        16,
        0x3000,
        v(Int(16), 8),
        v(Int(32), 8),
        v(Float(32), 8),
        v(Float(32), 8),
        16,
    );
    assert!(plan(&ok).is_ok());
    let with = |f: &dyn Fn(&mut MmaDesc)| {
        let mut d = ok;
        f(&mut d);
        d
    };
    assert_eq!(
        issue(&with(&|d| d.operands |= 0x4000)),
        MmaIssue::UnknownOperandBits { bits: 0x4000 }
    );
    assert_eq!(
        issue(&with(&|d| d.operands |= MATRIX_A_PACKED_FLOAT16)),
        MmaIssue::ConflictingInterpretations {
            matrix: MmaMatrix::A,
            bits: 0x1400
        }
    );
    assert!(matches!(
        issue(&with(
            &|d| d.operands = MATRIX_A_TF32 | MATRIX_B_PACKED_BFLOAT16
        )),
        MmaIssue::InterpretationComponent {
            matrix: MmaMatrix::A,
            flag: "MatrixATF32INTEL",
            ..
        }
    ));
    assert!(matches!(
        issue(&with(&|d| d.operands |= MATRIX_C_BFLOAT16)),
        MmaIssue::InterpretationComponent {
            matrix: MmaMatrix::C,
            ..
        }
    ));
    assert!(matches!(
        issue(&with(&|d| d.operands |= MATRIX_RESULT_BFLOAT16)),
        MmaIssue::InterpretationComponent {
            matrix: MmaMatrix::Result,
            ..
        }
    ));
    assert!(matches!(
        issue(&with(&|d| {
            d.operands = MATRIX_A_PACKED_FLOAT16 | MATRIX_B_PACKED_FLOAT16;
            d.a = v(Int(8), 16)
        })),
        MmaIssue::InterpretationComponent {
            matrix: MmaMatrix::A,
            ..
        }
    ));
    assert!(matches!(
        issue(&with(
            &|d| d.operands = MATRIX_A_PACKED_INT8 | MATRIX_B_PACKED_BFLOAT16
        )),
        MmaIssue::MixedDomains { .. }
    ));
    assert!(matches!(
        issue(&with(&|d| {
            d.operands = MATRIX_A_PACKED_INT8 | MATRIX_B_PACKED_INT8;
            d.k_dim = 32
        })),
        MmaIssue::MixedDomains { .. }
    ));
    assert!(matches!(
        issue(&with(&|d| d.a.component = Int(12))),
        MmaIssue::ComponentType { .. }
    ));
    assert!(matches!(
        issue(&with(&|d| d.result.component = Float(8))),
        MmaIssue::ComponentType { .. }
    ));
    assert_eq!(
        issue(&with(&|d| d.k_dim = 0)),
        MmaIssue::ZeroDimension { m: 8, n: 16, k: 0 }
    );
    assert_eq!(
        issue(&with(&|d| d.k_dim = 24)),
        MmaIssue::KAndSubgroupSize { k: 24, n: 16 }
    );
    assert_eq!(
        issue(&with(&|d| d.a = v(Int(16), 4))),
        MmaIssue::OperandBits {
            matrix: MmaMatrix::A,
            expected_bits: 128,
            got_bits: 64
        }
    );
    assert_eq!(
        issue(&with(&|d| d.b = v(Int(32), 4))),
        MmaIssue::OperandBits {
            matrix: MmaMatrix::B,
            expected_bits: 256,
            got_bits: 128
        }
    );
    assert_eq!(
        issue(&with(&|d| d.c = v(Float(32), 4))),
        MmaIssue::ComponentCount {
            matrix: MmaMatrix::C,
            expected: 8,
            got: 4
        }
    );
    assert!(matches!(
        plan(&with(&|d| d.subgroup_size = 1 << 20)),
        Err(SimError::Subgroup { .. })
    ));
}

#[test]
fn data_errors() {
    let d = desc(
        16,
        0x3000,
        v(Int(16), 8),
        v(Int(32), 8),
        v(Float(32), 8),
        v(Float(32), 8),
        16,
    );
    let a = vec![vec![0u8; 16]; 16];
    let b = vec![vec![0u8; 32]; 16];
    let c = vec![vec![0u8; 32]; 16];
    assert!(multiply_accumulate(&d, &a, &b, &c).is_ok());
    assert!(matches!(
        multiply_accumulate(&d, &a[..15], &b, &c),
        Err(SimError::InvocationCount {
            what: "Matrix A",
            expected: 16,
            got: 15
        })
    ));
    let mut short = c.clone();
    short[3].pop();
    assert!(matches!(
        multiply_accumulate(&d, &a, &b, &short),
        Err(SimError::DataSize {
            what: "Matrix C",
            invocation: 3,
            expected: 32,
            got: 31
        })
    ));
}

/// Arbitrary descriptions and data never panic: every outcome is a value or a typed error.
#[test]
fn arbitrary_operands_never_panic() {
    let mut rng = Lcg(99);
    let comps = [
        Int(4),
        Int(8),
        Int(12),
        Int(16),
        Int(32),
        Int(64),
        Float(8),
        Float(16),
        Float(32),
        Float(64),
    ];
    let counts = [0u32, 1, 2, 3, 4, 8, 16];
    for _ in 0..20_000 {
        let ty = |rng: &mut Lcg| {
            v(
                comps[rng.next() as usize % comps.len()],
                counts[rng.next() as usize % counts.len()],
            )
        };
        let d = MmaDesc {
            k_dim: [0u32, 1, 2, 3, 4, 8, 16, 32, 64][rng.next() as usize % 9],
            operands: rng.next() & 0x7fff & if rng.next() % 2 == 0 { 0x3fff } else { 0xffff },
            a: ty(&mut rng),
            b: ty(&mut rng),
            c: ty(&mut rng),
            result: ty(&mut rng),
            subgroup_size: [0u32, 1, 4, 8, 16, 5][rng.next() as usize % 6],
        };
        let n = d.subgroup_size as usize;
        let data = |t: VectorType, rng: &mut Lcg| -> Vec<Vec<u8>> {
            let bytes = (t.bits() / 8) as usize + (rng.next() % 8 == 0) as usize;
            (0..n)
                .map(|_| (0..bytes).map(|_| rng.next() as u8).collect())
                .collect()
        };
        let (a, b, c) = (
            data(d.a, &mut rng),
            data(d.b, &mut rng),
            data(d.c, &mut rng),
        );
        let _ = multiply_accumulate(&d, &a, &b, &c);
    }
}
