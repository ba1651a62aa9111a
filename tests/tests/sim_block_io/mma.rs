//! MMA kernels: f16, bf16, int8, tf32 against a reference computed here.

use super::*;

fn f16_bits_to_f32(h: u16) -> f32 {
    let (s, e, m) = (
        (h >> 15) as u32,
        ((h >> 10) & 0x1f) as i32,
        (h & 0x3ff) as f32,
    );
    let v = match e {
        0 => m * 2f32.powi(-24),
        31 => f32::NAN,
        _ => (1.0 + m / 1024.0) * 2f32.powi(e - 15),
    };
    if s == 1 {
        -v
    } else {
        v
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Elem {
    F16,
    Bf16,
    I8,
    Tf32,
}

/// One MMA variant on SIMD16, M = 8: A, B and C as logical matrices, the per-invocation operands
/// built here from the spec's "Mapping Matrix Data to Invocations", and the expected result.
#[test]
fn mma_f16_bf16_int8_tf32() {
    const M: usize = 8;
    const N: usize = 16;
    for (elem, k) in [
        (Elem::F16, 16usize),
        (Elem::Bf16, 16),
        (Elem::I8, 32),
        (Elem::Tf32, 8),
    ] {
        let (ta, tb, tc, flags) = match elem {
            Elem::F16 => (
                "OpTypeVector %ushort 8",
                "OpTypeVector %uint 8",
                "OpTypeVector %float 8",
                "MatrixAPackedFloat16INTEL|MatrixBPackedFloat16INTEL",
            ),
            Elem::Bf16 => (
                "OpTypeVector %ushort 8",
                "OpTypeVector %uint 8",
                "OpTypeVector %float 8",
                "MatrixAPackedBFloat16INTEL|MatrixBPackedBFloat16INTEL",
            ),
            Elem::I8 => (
                "OpTypeVector %ushort 8",
                "OpTypeVector %uint 8",
                "OpTypeVector %uint 8",
                "MatrixASignedComponentsINTEL|MatrixBSignedComponentsINTEL|MatrixAPackedInt8INTEL|MatrixBPackedInt8INTEL",
            ),
            Elem::Tf32 => (
                "OpTypeVector %float 4",
                "OpTypeVector %float 8",
                "OpTypeVector %float 8",
                "MatrixATF32INTEL|MatrixBTF32INTEL",
            ),
        };
        let src = source(
            "mma.spvasm",
            &[
                ("%ta = OpTypeVector %ushort 8", format!("%ta = {ta}")),
                ("%tb = OpTypeVector %uint 8", format!("%tb = {tb}")),
                ("%tc = OpTypeVector %float 8", format!("%tc = {tc}")),
                (
                    "%kdim = OpConstant %uint 16",
                    format!("%kdim = OpConstant %uint {k}"),
                ),
                (
                    "MatrixAPackedFloat16INTEL|MatrixBPackedFloat16INTEL",
                    flags.to_string(),
                ),
            ],
        );
        let m = assemble(&src);
        // element bits and their real values
        let ebits = match elem {
            Elem::F16 | Elem::Bf16 => 16,
            Elem::I8 => 8,
            Elem::Tf32 => 32,
        };
        let mut rng = spvopt_sim::launch::SplitMix64(elem as u64 + 7);
        let mut draw = || -> u32 {
            let z = rng.next_u64();
            match elem {
                // finite values of magnitude below 4: sign, exponent 0..16 (f16) / 120..128, mantissa
                Elem::F16 => ((z & 0x8000) | ((z >> 16) % 16 + 1) << 10 | (z >> 32) & 0x3ff) as u32,
                Elem::Bf16 => ((z & 0x8000) | ((z >> 16) % 9 + 120) << 7 | (z >> 32) & 0x7f) as u32,
                Elem::I8 => (z & 0xff) as u32,
                // tf32: an f32 with the low 13 mantissa bits clear
                Elem::Tf32 => {
                    ((z & 0x8000_0000) | ((z >> 8) % 9 + 120) << 23 | (z >> 40) & 0x7f_e000) as u32
                }
            }
        };
        let value = |bits: u32| -> f64 {
            match elem {
                Elem::F16 => f16_bits_to_f32(bits as u16) as f64,
                Elem::Bf16 => f32::from_bits(bits << 16) as f64,
                Elem::I8 => bits as u8 as i8 as f64,
                Elem::Tf32 => f32::from_bits(bits) as f64,
            }
        };
        let a: Vec<Vec<u32>> = (0..M).map(|_| (0..k).map(|_| draw()).collect()).collect();
        let b: Vec<Vec<u32>> = (0..k).map(|_| (0..N).map(|_| draw()).collect()).collect();
        let c: Vec<Vec<u32>> = (0..M)
            .map(|_| {
                (0..N)
                    .map(|_| match elem {
                        Elem::I8 => (draw() as i8 as i32 * 1000) as u32,
                        _ => (value(draw()) as f32 / 2.0).to_bits(),
                    })
                    .collect()
            })
            .collect();
        // per-invocation operands as little-endian bit streams
        let pack = |vals: &[(u32, u32)]| -> Vec<u8> {
            // (value, width in bits) appended lowest first
            let mut bits: Vec<bool> = Vec::new();
            for &(v, w) in vals {
                for j in 0..w {
                    bits.push(v >> j & 1 == 1);
                }
            }
            bits.chunks(8)
                .map(|c| {
                    c.iter()
                        .enumerate()
                        .fold(0u8, |acc, (j, &b)| acc | (b as u8) << j)
                })
                .collect()
        };
        let mut abuf = Vec::new();
        let mut bbuf = Vec::new();
        let mut cbuf = Vec::new();
        for inv in 0..N {
            if N <= k {
                // each invocation: columns inv*K/N.. of every row, packed per row
                let per = k / N;
                let vals: Vec<(u32, u32)> = (0..M)
                    .flat_map(|r| (0..per).map(move |j| (r, inv * per + j)))
                    .map(|(r, col)| (a[r][col], ebits))
                    .collect();
                abuf.extend(pack(&vals));
            } else {
                // N > K: column inv % K of every (N/K)-th row starting at inv / K
                let f = N / k;
                let vals: Vec<(u32, u32)> = (0..M.div_ceil(f))
                    .map(|s| {
                        let r = s * f + inv / k;
                        (if r < M { a[r][inv % k] } else { 0 }, ebits)
                    })
                    .collect();
                abuf.extend(pack(&vals));
            }
            let col: Vec<(u32, u32)> = (0..k).map(|r| (b[r][inv], ebits)).collect();
            bbuf.extend(pack(&col));
            for row in c.iter() {
                cbuf.extend(row[inv].to_le_bytes());
            }
        }
        let l = Launch::new(
            "main",
            [16, 1, 1],
            [16, 1, 1],
            vec![buf(abuf), buf(bbuf), buf(cbuf), buf(vec![0; 4 * M * N])],
        );
        let out = spvopt_sim::run(&m, &l).unwrap_or_else(|e| panic!("{elem:?}: {e}"));
        let d = buffer(&out, 3);
        for inv in 0..N {
            for r in 0..M {
                let at = 4 * (inv * M + r);
                let got = u32::from_le_bytes(d[at..at + 4].try_into().unwrap());
                if elem == Elem::I8 {
                    let want = (0..k).fold(c[r][inv] as i32, |acc, x| {
                        acc.wrapping_add(
                            (a[r][x] as u8 as i8 as i32) * (b[x][inv] as u8 as i8 as i32),
                        )
                    });
                    assert_eq!(got as i32, want, "{elem:?} D[{r}][{inv}]");
                } else {
                    // the documented order: acc = C; acc = fma(A[r][x], B[x][n], acc) in f32
                    let want = (0..k).fold(f32::from_bits(c[r][inv]), |acc, x| {
                        (value(a[r][x]) as f32).mul_add(value(b[x][inv]) as f32, acc)
                    });
                    assert_eq!(
                        got,
                        want.to_bits(),
                        "{elem:?} D[{r}][{inv}]: {} vs {want}",
                        f32::from_bits(got)
                    );
                    // and close to the exact product
                    let exact = (0..k).fold(f32::from_bits(c[r][inv]) as f64, |acc, x| {
                        acc + value(a[r][x]) * value(b[x][inv])
                    });
                    assert!((want as f64 - exact).abs() <= 1e-5 * (1.0 + exact.abs()));
                }
            }
        }
        assert_eq!(out.counters.mma.values().sum::<u64>(), 1);
    }
}
