//! Realistic shapes against independent references.

use super::*;

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
