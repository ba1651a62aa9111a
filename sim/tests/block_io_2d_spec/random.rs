//! Arbitrary and random operands: never a panic, and random valid shapes match the prose mapping.

use super::*;

/// Arbitrary operands never panic: every outcome is a value or a typed error.
#[test]
fn arbitrary_operands_never_panic() {
    let (mut mem, base) = surface(4);
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let pick = |r: u64, choices: &[i64]| choices[(r % choices.len() as u64) as usize];
    let mut loaded = 0u32;
    for _ in 0..20_000 {
        let p = Block2dParams {
            element_size: pick(next(), &[0, 1, 2, 3, 4, 8, 16]) as u32,
            block_width: pick(
                next(),
                &[0, 1, 2, 4, 6, 8, 12, 16, 32, 64, 1 << 31, u32::MAX as i64],
            ) as u32,
            block_height: pick(next(), &[0, 1, 2, 3, 8, 32, 1 << 20, u32::MAX as i64]) as u32,
            block_count: pick(next(), &[0, 1, 2, 4, 1 << 30]) as u32,
            base: pick(next(), &[0, base as i64, base as i64 + 64, 64, -64, 0x40]) as u64,
            memory_width: pick(next(), &[-1, 0, 63, 64, 100, PITCH, 1 << 24, i64::MAX]),
            memory_height: pick(next(), &[i64::MIN, 0, 1, 3, ROWS, 1 << 24, i64::MAX]),
            memory_pitch: pick(next(), &[-8, 0, 64, PITCH, 1 << 30, i64::MAX - 7]),
            x: pick(next(), &[i64::MIN, -64, -4, 0, 4, 8, 60, i64::MAX - 3]),
            y: pick(next(), &[i64::MIN, -3, 0, 5, ROWS - 1, i64::MAX]),
            mapping: if next() % 2 == 0 {
                BlockLayout::Hardware
            } else {
                BlockLayout::Spec
            },
            base_alignment: pick(next(), &[0, 4, 64]) as u64,
        };
        let n = Subgroup::full(pick(next(), &[1, 4, 8, 16, 32, 3]) as u32);
        let kind =
            [LoadKind::Plain, LoadKind::Transform, LoadKind::Transpose][(next() % 3) as usize];
        loaded += load(&mem, kind, &p, n).is_ok() as u32;
        let _ = prefetch(&p, n);
        if let Ok(size) = bytes_per_invocation(Block2dOp::Store, &p, n) {
            let data = vec![vec![0x5au8; size]; n.len()];
            let _ = store(&mut mem, &p, n, &data);
        }
    }
    assert!(loaded > 0);
}

/// Random valid shapes checked against the spec's prose mapping, written independently of the
/// implementation: "padded width == SG: one element per row; < SG: rows share the subgroup
/// (first row to the first invocations, ...); > SG: consecutive elements per invocation" —
/// except rows wider than SG dwords (qwords for 8-byte values), which follow the hardware
/// register layout: invocation i holds dword i of each SG-dword chunk of the row.
#[test]
fn random_shapes_match_the_prose_mapping() {
    let (mem, base) = surface(4);
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move |m: u64| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed % m
    };
    let mut checked = 0;
    for _ in 0..3000 {
        let es = [1u32, 2, 4, 8][next(4) as usize];
        let multiple = match es {
            1 => 4,
            2 => 2,
            _ => 1,
        };
        let kind = [LoadKind::Plain, LoadKind::Transform, LoadKind::Transpose][next(3) as usize];
        if kind == LoadKind::Transform && es > 2 {
            continue;
        }
        let n = 1u32 << next(6);
        let p = Block2dParams {
            element_size: es,
            block_width: multiple * (1 + next(12) as u32),
            block_height: 1 + next(20) as u32,
            block_count: 1 + next(4) as u32,
            base,
            memory_width: 64 + 8 * next(9) as i64,
            memory_height: 1 + next(ROWS as u64) as i64,
            memory_pitch: PITCH,
            x: multiple as i64 * (next(40) as i64 - 20),
            y: next(30) as i64 - 10,
            mapping: if next(2) == 0 {
                BlockLayout::Hardware
            } else {
                BlockLayout::Spec
            },
            base_alignment: spvopt_sim::block_io_2d::BASE_ALIGNMENT,
        };
        let r = load(&mem, kind, &p, sg(n)).unwrap();
        let (w, h) = (p.block_width as i64, p.block_height as i64);
        // element of the unpadded block b at (row, col), zero when padding or out of bounds
        let orig = |b: i64, row: i64, col: i64| -> u64 {
            if row >= h || col >= w {
                return 0;
            }
            let (my, mx) = (p.y + row, p.x + b * w + col);
            if my < 0 || my >= p.memory_height || mx < 0 || (mx + 1) * es as i64 > p.memory_width {
                return 0;
            }
            let at = (my * PITCH + mx * es as i64) as u64;
            let mut v = [0u8; 8];
            mem.read(base + at, &mut v[..es as usize]).unwrap();
            u64::from_le_bytes(v)
        };
        let pw = (w as u64).next_power_of_two() as i64;
        let (rows, cols, vb) = match kind {
            LoadKind::Plain => (h, pw, es as i64),
            LoadKind::Transform => {
                let pack = 4 / es as i64;
                ((h + pack - 1) / pack, pw, 4)
            }
            LoadKind::Transpose => (w, (h as u64).next_power_of_two() as i64, es as i64),
        };
        let dealt = |b: i64, row: i64, col: i64| -> u64 {
            match kind {
                LoadKind::Plain => orig(b, row, col),
                LoadKind::Transpose => orig(b, col, row),
                LoadKind::Transform => {
                    let pack = 4 / es as i64;
                    (0..pack).fold(0, |acc, j| {
                        acc | orig(b, row * pack + j, col) << (8 * es as i64 * j)
                    })
                }
            }
        };
        let n64 = n as i64;
        for (i, d) in r.data.iter().enumerate() {
            let i = i as i64;
            let mut want = Vec::new();
            for b in 0..p.block_count as i64 {
                let unit = (4 / vb).max(1);
                if p.mapping == BlockLayout::Hardware && cols > n64 * unit {
                    // wide rows: register layout, invocation i owns unit i of each chunk
                    let chunks = cols / (n64 * unit);
                    for row in 0..rows {
                        for k in 0..chunks {
                            for j in 0..unit {
                                want.push(dealt(b, row, k * n64 * unit + i * unit + j));
                            }
                        }
                    }
                } else if cols >= n64 {
                    let per = cols / n64;
                    for row in 0..rows {
                        for e in 0..per {
                            want.push(dealt(b, row, i * per + e));
                        }
                    }
                } else {
                    let rows_per_pass = n64 / cols;
                    let passes = (rows + rows_per_pass - 1) / rows_per_pass;
                    for pass in 0..passes {
                        let row = pass * rows_per_pass + i / cols;
                        want.push(if row < rows {
                            dealt(b, row, i % cols)
                        } else {
                            0
                        });
                    }
                }
            }
            assert_eq!(
                values(d, vb as usize),
                want,
                "{kind:?} {p:?} SG {n} invocation {i}"
            );
        }
        checked += 1;
    }
    assert!(checked > 1000);
}
