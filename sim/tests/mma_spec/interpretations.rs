//! Integer and floating-point operand interpretations, hand-computed.

use super::*;

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
