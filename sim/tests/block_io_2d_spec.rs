//! SPV_INTEL_2d_block_io: the spec's six mapping examples as golden tests, plus padding,
//! out-of-bounds, Block Count, transform, transpose, store, prefetch and every restriction.

use spvopt_sim::block_io_2d::{
    bytes_per_invocation, check_invocation_pointer, layout, load, prefetch, store, Block2dOp,
    Block2dParams, BlockLayout, LoadKind,
};
use spvopt_sim::error::{Block2dLimit, SimError, SubgroupIssue};
use spvopt_sim::memory::{AllocKind, Memory};
use spvopt_sim::subgroup::Subgroup;

const PITCH: i64 = 128;
const ROWS: i64 = 16;

/// Value stored at element (row, col): `row << 8 | col` (1-byte elements: `row << 4 | col`).
fn enc(es: u32, row: i64, col: i64) -> u64 {
    if es == 1 {
        ((row << 4) | col) as u64 & 0xff
    } else {
        ((row << 8) | col) as u64
    }
}

/// A 2D surface of ROWS rows x PITCH bytes whose elements hold `enc(es, row, col)`.
fn surface(es: u32) -> (Memory, u64) {
    let mut mem = Memory::new();
    let base = mem
        .alloc(
            (PITCH * ROWS) as u64,
            4096,
            AllocKind::Global { arg: 0 },
            "surface",
        )
        .unwrap();
    for row in 0..ROWS {
        for col in 0..PITCH / es as i64 {
            let addr = base + (row * PITCH + col * es as i64) as u64;
            let bytes = enc(es, row, col).to_le_bytes();
            mem.write(addr, &bytes[..es as usize]).unwrap();
        }
    }
    (mem, base)
}

fn params(es: u32, w: u32, h: u32, count: u32, base: u64) -> Block2dParams {
    Block2dParams {
        element_size: es,
        block_width: w,
        block_height: h,
        block_count: count,
        base,
        memory_width: PITCH,
        memory_height: ROWS,
        memory_pitch: PITCH,
        x: 0,
        y: 0,
        mapping: BlockLayout::Hardware,
    }
}

/// Splits an invocation's bytes into `size`-byte little-endian values.
fn values(bytes: &[u8], size: usize) -> Vec<u64> {
    bytes
        .chunks(size)
        .map(|c| {
            let mut v = [0u8; 8];
            v[..c.len()].copy_from_slice(c);
            u64::from_le_bytes(v)
        })
        .collect()
}

/// Expected per-invocation values from (row, col) lists; `None` is a zero (padding / OOB).
fn expect_elements(es: u32, data: &[Vec<u8>], expected: &[Vec<Option<(i64, i64)>>]) {
    assert_eq!(data.len(), expected.len());
    for (inv, (d, e)) in data.iter().zip(expected).enumerate() {
        let want: Vec<u64> = e
            .iter()
            .map(|p| p.map_or(0, |(r, c)| enc(es, r, c)))
            .collect();
        assert_eq!(
            values(d, es as usize),
            want,
            "invocation {inv}, element size {es}"
        );
    }
}

fn all(pairs: &[&[(i64, i64)]]) -> Vec<Vec<Option<(i64, i64)>>> {
    pairs
        .iter()
        .map(|p| p.iter().copied().map(Some).collect())
        .collect()
}

fn sg(n: u32) -> Subgroup {
    Subgroup::full(n)
}

// ---- the spec's examples -------------------------------------------------------------------

#[test]
fn example_1_width_equals_subgroup_size() {
    for es in [1, 2, 4, 8] {
        let (mem, base) = surface(es);
        let r = load(&mem, LoadKind::Plain, &params(es, 4, 2, 1, base), sg(4)).unwrap();
        expect_elements(
            es,
            &r.data,
            &all(&[
                &[(0, 0), (1, 0)],
                &[(0, 1), (1, 1)],
                &[(0, 2), (1, 2)],
                &[(0, 3), (1, 3)],
            ]),
        );
    }
}

#[test]
fn example_2_width_less_than_subgroup_size() {
    for es in [2, 4, 8] {
        let (mem, base) = surface(es);
        let r = load(&mem, LoadKind::Plain, &params(es, 2, 4, 1, base), sg(4)).unwrap();
        expect_elements(
            es,
            &r.data,
            &all(&[
                &[(0, 0), (2, 0)],
                &[(0, 1), (2, 1)],
                &[(1, 0), (3, 0)],
                &[(1, 1), (3, 1)],
            ]),
        );
    }
}

#[test]
fn example_3_width_greater_than_subgroup_size() {
    let spec = all(&[
        &[(0, 0), (0, 1), (1, 0), (1, 1)],
        &[(0, 2), (0, 3), (1, 2), (1, 3)],
        &[(0, 4), (0, 5), (1, 4), (1, 5)],
        &[(0, 6), (0, 7), (1, 6), (1, 7)],
    ]);
    for es in [1, 2, 4, 8] {
        let (mem, base) = surface(es);
        // the literal reading, for every element size
        let p = Block2dParams {
            mapping: BlockLayout::Spec,
            ..params(es, 8, 2, 1, base)
        };
        let r = load(&mem, LoadKind::Plain, &p, sg(4)).unwrap();
        expect_elements(es, &r.data, &spec);
        // the default (hardware) layout: the same while a row fits in 4 dwords (1- and 2-byte
        // elements); 4- and 8-byte rows of 8 elements are wider, so invocation i holds the
        // i-th dword (qword) of each 4-unit chunk: columns i and i + 4
        let r = load(&mem, LoadKind::Plain, &params(es, 8, 2, 1, base), sg(4)).unwrap();
        if es <= 2 {
            expect_elements(es, &r.data, &spec);
        } else {
            let wide: Vec<_> = (0..4)
                .map(|i| {
                    vec![
                        Some((0, i)),
                        Some((0, i + 4)),
                        Some((1, i)),
                        Some((1, i + 4)),
                    ]
                })
                .collect();
            expect_elements(es, &r.data, &wide);
        }
    }
}

#[test]
fn example_4_transpose() {
    for es in [2, 4, 8] {
        let (mem, base) = surface(es);
        let r = load(&mem, LoadKind::Transpose, &params(es, 2, 4, 1, base), sg(4)).unwrap();
        expect_elements(
            es,
            &r.data,
            &all(&[
                &[(0, 0), (0, 1)],
                &[(1, 0), (1, 1)],
                &[(2, 0), (2, 1)],
                &[(3, 0), (3, 1)],
            ]),
        );
    }
}

#[test]
fn example_5_transform_two_byte_elements() {
    let (mem, base) = surface(2);
    let r = load(&mem, LoadKind::Transform, &params(2, 4, 2, 1, base), sg(4)).unwrap();
    for (i, d) in r.data.iter().enumerate() {
        let i = i as i64;
        let want = enc(2, 1, i) << 16 | enc(2, 0, i);
        assert_eq!(values(d, 4), vec![want], "invocation {i}");
    }
}

#[test]
fn example_6_transform_one_byte_elements() {
    // The example's title says "Block Height equals two" but its block and results have four
    // rows; the results are those of a four-row block.
    let (mem, base) = surface(1);
    let r = load(&mem, LoadKind::Transform, &params(1, 4, 4, 1, base), sg(4)).unwrap();
    for (i, d) in r.data.iter().enumerate() {
        let i = i as i64;
        let want = enc(1, 3, i) << 24 | enc(1, 2, i) << 16 | enc(1, 1, i) << 8 | enc(1, 0, i);
        assert_eq!(values(d, 4), vec![want], "invocation {i}");
    }
    // With Block Height two taken literally, the height pads to four with zero rows.
    let r = load(&mem, LoadKind::Transform, &params(1, 4, 2, 1, base), sg(4)).unwrap();
    for (i, d) in r.data.iter().enumerate() {
        let i = i as i64;
        assert_eq!(values(d, 4), vec![enc(1, 1, i) << 8 | enc(1, 0, i)]);
    }
}

// ---- padding ---------------------------------------------------------------------------------

#[test]
fn width_padded_to_power_of_two_loads_zero() {
    let (mem, base) = surface(2);
    let p = params(2, 12, 2, 1, base);
    let r = load(&mem, LoadKind::Plain, &p, sg(16)).unwrap();
    let expected: Vec<_> = (0..16)
        .map(|i| {
            (0..2)
                .map(|row| (i < 12).then_some((row, i)))
                .collect::<Vec<_>>()
        })
        .collect();
    expect_elements(2, &r.data, &expected);
    // the padded columns were not read from memory: the lines are those of 24 bytes per row
    assert_eq!(r.bytes, 2 * 24);
}

#[test]
fn narrow_block_leaves_unassigned_lanes_zero() {
    // 32b_1r8x1c on SIMD16: lanes 8..15 get no row
    let (mem, base) = surface(4);
    let r = load(&mem, LoadKind::Plain, &params(4, 8, 1, 1, base), sg(16)).unwrap();
    let expected: Vec<_> = (0..16).map(|i| vec![(i < 8).then_some((0, i))]).collect();
    expect_elements(4, &r.data, &expected);
    // 32b_8r8x1c: lanes 0-7 even rows, 8-15 odd rows
    let r = load(&mem, LoadKind::Plain, &params(4, 8, 8, 1, base), sg(16)).unwrap();
    let expected: Vec<_> = (0..16)
        .map(|i| (0..4).map(|s| Some((2 * s + i / 8, i % 8))).collect())
        .collect();
    expect_elements(4, &r.data, &expected);
}

#[test]
fn transform_pads_height_and_width() {
    // 2-byte elements, 3 rows -> padded to 4; width 6 -> padded to 8 (SG 8)
    let (mem, base) = surface(2);
    let r = load(&mem, LoadKind::Transform, &params(2, 6, 3, 1, base), sg(8)).unwrap();
    for (i, d) in r.data.iter().enumerate() {
        let c = i as i64;
        let want = if c < 6 {
            vec![enc(2, 1, c) << 16 | enc(2, 0, c), enc(2, 2, c)]
        } else {
            vec![0, 0]
        };
        assert_eq!(values(d, 4), want, "invocation {i}");
    }
}

#[test]
fn transform_realistic_shapes() {
    // transform_8b_32r16x1c on SIMD16: 8 uints per lane, uint j packs rows 4j..4j+3 of column i
    let (mem, base) = surface(1);
    let mut p = params(1, 16, 32, 1, base);
    p.memory_height = 64; // rows past the surface are out of bounds anyway
    let mut mem = mem;
    let big = mem
        .alloc(64 * 128, 4096, AllocKind::Global { arg: 1 }, "big")
        .unwrap();
    for row in 0..64u64 {
        for col in 0..128u64 {
            mem.write_u8(big + row * 128 + col, (row * 7 + col) as u8)
                .unwrap();
        }
    }
    p.base = big;
    let r = load(&mem, LoadKind::Transform, &p, sg(16)).unwrap();
    for (i, d) in r.data.iter().enumerate() {
        let i = i as u64;
        let want: Vec<u64> = (0..8)
            .map(|j| {
                (0..4).fold(0u64, |acc, b| {
                    acc | (((4 * j + b) * 7 + i) as u8 as u64) << (8 * b)
                })
            })
            .collect();
        assert_eq!(values(d, 4), want);
    }
    // transform_16b_16r16x2c: 8 uints per block, two blocks
    let (mem, base) = surface(2);
    let r = load(
        &mem,
        LoadKind::Transform,
        &params(2, 16, 16, 2, base),
        sg(16),
    )
    .unwrap();
    for (i, d) in r.data.iter().enumerate() {
        let v = values(d, 4);
        assert_eq!(v.len(), 16);
        for b in 0..2i64 {
            for j in 0..8i64 {
                let col = b * 16 + i as i64;
                let want = enc(2, 2 * j + 1, col) << 16 | enc(2, 2 * j, col);
                assert_eq!(v[(b * 8 + j) as usize], want);
            }
        }
    }
}

// ---- transpose -------------------------------------------------------------------------------

#[test]
fn transpose_32bit_8_wide_16_tall_on_simd16() {
    // transpose_32b_16r8x1c: lane i gets the 8 elements of memory row i
    let (mem, base) = surface(4);
    let r = load(
        &mem,
        LoadKind::Transpose,
        &params(4, 8, 16, 1, base),
        sg(16),
    )
    .unwrap();
    let expected: Vec<_> = (0..16)
        .map(|i| (0..8).map(|c| Some((i, c))).collect())
        .collect();
    expect_elements(4, &r.data, &expected);
    assert_eq!(
        bytes_per_invocation(Block2dOp::LoadTranspose, &params(4, 8, 16, 1, base), sg(16)).unwrap(),
        32
    );
}

#[test]
fn transpose_32bit_8_wide_32_tall_on_simd16_uses_the_register_layout() {
    // transpose_32b_32r8x1c (Triton's transposed B): transposed rows are 32 dwords = 2 GRFs;
    // invocation i holds dword i of each: slot 2r = (memory row i, col r), slot 2r+1 = (row
    // i + 16, col r). Surface rows are only 16 here, so rows 16.. read as zero out of bounds.
    let (mem, base) = surface(4);
    let r = load(
        &mem,
        LoadKind::Transpose,
        &params(4, 8, 32, 1, base),
        sg(16),
    )
    .unwrap();
    let expected: Vec<_> = (0..16)
        .map(|i| {
            (0..8)
                .flat_map(|c| [Some((i, c)), None]) // (i + 16, c) is below the surface
                .collect()
        })
        .collect();
    expect_elements(4, &r.data, &expected);
    // 2-byte transform 32 wide on SIMD16 (Xe2 shape): VNNI dwords interleaved too
    let (mem, base) = surface(2);
    let r = load(
        &mem,
        LoadKind::Transform,
        &params(2, 32, 2, 1, base),
        sg(16),
    )
    .unwrap();
    for (i, d) in r.data.iter().enumerate() {
        let i = i as i64;
        let want: Vec<u64> = [i, i + 16]
            .iter()
            .map(|&c| enc(2, 1, c) << 16 | enc(2, 0, c))
            .collect();
        assert_eq!(values(d, 4), want, "invocation {i}");
    }
    // rows of exactly 16 dwords keep the spec's consecutive mapping (scenario 3 = hardware)
    let r = load(&mem, LoadKind::Plain, &params(2, 32, 2, 1, base), sg(16)).unwrap();
    for (i, d) in r.data.iter().enumerate() {
        let i = i as i64;
        let want: Vec<u64> = [(0, 2 * i), (0, 2 * i + 1), (1, 2 * i), (1, 2 * i + 1)]
            .iter()
            .map(|&(r, c)| enc(2, r, c))
            .collect();
        assert_eq!(values(d, 2), want, "invocation {i}");
    }
}

#[test]
fn transpose_64bit_and_height_padding() {
    // 64-bit, W = 4, H = 8 on SIMD16: transposed block 4 rows x 8 columns, dealt round-robin
    let (mem, base) = surface(8);
    let r = load(&mem, LoadKind::Transpose, &params(8, 4, 8, 1, base), sg(16)).unwrap();
    let expected: Vec<_> = (0..16i64)
        .map(|i| (0..2).map(|s| Some((i % 8, 2 * s + i / 8))).collect())
        .collect();
    expect_elements(8, &r.data, &expected);
    // H = 5 pads to 8: transposed columns 5..7 are zero
    let (mem, base) = surface(4);
    let r = load(&mem, LoadKind::Transpose, &params(4, 2, 5, 1, base), sg(8)).unwrap();
    let expected: Vec<_> = (0..8i64)
        .map(|i| (0..2).map(|c| (i < 5).then_some((i, c))).collect())
        .collect();
    expect_elements(4, &r.data, &expected);
}

// ---- Block Count -----------------------------------------------------------------------------

#[test]
fn block_count_concatenates_adjacent_blocks() {
    for (es, w, h, count, kind) in [
        (2, 16, 8, 2, LoadKind::Plain),
        (1, 16, 8, 4, LoadKind::Plain),
        (4, 8, 4, 2, LoadKind::Plain),
        (2, 8, 4, 4, LoadKind::Plain),
        (1, 16, 8, 4, LoadKind::Transform),
        (2, 16, 4, 2, LoadKind::Transform),
        (4, 4, 8, 2, LoadKind::Transpose),
    ] {
        let (mem, base) = surface(es);
        let mut p = params(es, w, h, count, base);
        p.x = 4;
        p.y = 1;
        let fused = load(&mem, kind, &p, sg(16)).unwrap();
        let mut singles: Vec<Vec<u8>> = vec![Vec::new(); 16];
        let mut lines = Vec::new();
        for b in 0..count {
            let mut q = p;
            q.block_count = 1;
            q.x = p.x + (b * w) as i64;
            let one = load(&mem, kind, &q, sg(16)).unwrap();
            for (s, d) in singles.iter_mut().zip(one.data) {
                s.extend(d);
            }
            lines.extend(one.lines);
        }
        lines.sort_unstable();
        lines.dedup();
        assert_eq!(fused.data, singles, "{es} {w}x{h}x{count} {kind:?}");
        assert_eq!(fused.lines, lines);
    }
}

// ---- out of bounds ---------------------------------------------------------------------------

#[test]
fn partial_block_at_right_and_bottom_edges() {
    let (mem, base) = surface(4);
    let mut p = params(4, 8, 4, 1, base);
    p.memory_width = 64; // 16 elements per row
    p.memory_height = 10;
    p.x = 12;
    p.y = 8;
    let r = load(&mem, LoadKind::Plain, &p, sg(8)).unwrap();
    let expected: Vec<_> = (0..8i64)
        .map(|i| {
            (0..4)
                .map(|row| (i < 4 && row < 2).then_some((8 + row, 12 + i)))
                .collect()
        })
        .collect();
    expect_elements(4, &r.data, &expected);
    assert_eq!(r.bytes, 2 * 16);
}

#[test]
fn element_straddling_the_width_is_out_of_bounds() {
    let (mem, base) = surface(8);
    let mut p = params(8, 4, 1, 1, base);
    p.memory_width = 68; // element 8 covers bytes 64..72: not entirely in bounds
    p.memory_pitch = 128;
    p.x = 6;
    let r = load(&mem, LoadKind::Plain, &p, sg(4)).unwrap();
    expect_elements(
        8,
        &r.data,
        &[
            vec![Some((0, 6))],
            vec![Some((0, 7))],
            vec![None],
            vec![None],
        ],
    );
}

#[test]
fn negative_coordinates() {
    let (mem, base) = surface(2);
    let mut p = params(2, 8, 4, 1, base);
    p.x = -4;
    p.y = -2;
    let r = load(&mem, LoadKind::Plain, &p, sg(8)).unwrap();
    let expected: Vec<_> = (0..8i64)
        .map(|i| {
            (0..4i64)
                .map(|row| (i >= 4 && row >= 2).then_some((row - 2, i - 4)))
                .collect()
        })
        .collect();
    expect_elements(2, &r.data, &expected);
}

#[test]
fn fully_out_of_bounds_touches_no_memory() {
    // the base is aligned but nothing is mapped there: no element is in bounds, so no access
    let mem = Memory::new();
    let mut p = params(4, 8, 4, 1, 0x4000_0000);
    p.y = ROWS + 3;
    let r = load(&mem, LoadKind::Plain, &p, sg(8)).unwrap();
    assert!(r.data.iter().all(|d| d.iter().all(|&b| b == 0)));
    assert!(r.lines.is_empty());
    p.y = 0;
    p.x = -8;
    assert!(load(&mem, LoadKind::Transpose, &p, sg(8))
        .unwrap()
        .lines
        .is_empty());
    // ... but an in-bounds element outside every allocation is an error
    p.x = 0;
    assert!(matches!(
        load(&mem, LoadKind::Plain, &p, sg(8)),
        Err(SimError::Unmapped { .. })
    ));
}

#[test]
fn surface_larger_than_the_buffer_is_an_error() {
    let (mem, base) = surface(4);
    let mut p = params(4, 8, 4, 1, base);
    p.y = ROWS - 2;
    p.memory_height = ROWS + 2; // claims two rows past the allocation
    let e = load(&mem, LoadKind::Plain, &p, sg(8)).unwrap_err();
    assert!(
        matches!(&e, SimError::OutOfBounds { name, .. } if name == "surface"),
        "{e}"
    );
}

// ---- lines -----------------------------------------------------------------------------------

#[test]
fn loads_report_the_lines_they_read() {
    let (mem, base) = surface(2);
    let mut p = params(2, 16, 4, 1, base);
    p.x = 24; // bytes 48..80 of each row: two lines per row
    let r = load(&mem, LoadKind::Plain, &p, sg(16)).unwrap();
    let expected: Vec<u64> = (0..4u64)
        .flat_map(|row| [base + row * 128, base + row * 128 + 64])
        .collect();
    assert_eq!(r.lines, expected);
    assert_eq!(r.bytes, 4 * 32);
    let pf = prefetch(&p, sg(16)).unwrap();
    assert_eq!(pf.lines, expected);
    assert_eq!(pf.bytes, r.bytes);
}

#[test]
fn prefetch_touches_nothing() {
    // unmapped surface: a prefetch never faults
    let mut p = params(1, 32, 8, 2, 0x7000_0000);
    p.x = -4;
    let pf = prefetch(&p, sg(16)).unwrap();
    assert_eq!(pf.lines.len(), 8);
    assert_eq!(pf.bytes, 8 * 60);
    // but its operands are checked like any 2D block instruction
    p.base += 8;
    assert!(matches!(
        prefetch(&p, sg(16)),
        Err(SimError::Block2d {
            limit: Block2dLimit::BaseAlignment { .. },
            ..
        })
    ));
}

// ---- store -----------------------------------------------------------------------------------

fn fill_pattern(mem: &mut Memory, base: u64, len: u64, byte: u8) {
    for i in 0..len {
        mem.write_u8(base + i, byte).unwrap();
    }
}

#[test]
fn store_is_the_inverse_of_load() {
    for (es, w, h, count, n) in [
        (4, 16, 8, 1, 16),
        (2, 16, 8, 1, 16),
        (1, 32, 4, 1, 16),
        (2, 8, 8, 2, 16),
        (8, 4, 2, 1, 4),
        (4, 8, 4, 1, 16),
    ] {
        let (mut mem, src) = surface(es);
        let dst = mem
            .alloc(
                (PITCH * ROWS) as u64,
                4096,
                AllocKind::Global { arg: 1 },
                "dst",
            )
            .unwrap();
        fill_pattern(&mut mem, dst, (PITCH * ROWS) as u64, 0xee);
        let mut p = params(es, w, h, count, src);
        p.x = 8;
        p.y = 3;
        let loaded = load(&mem, LoadKind::Plain, &p, sg(n)).unwrap();
        p.base = dst;
        let st = store(&mut mem, &p, sg(n), &loaded.data).unwrap();
        assert_eq!(st.lines, {
            let mut l: Vec<u64> = loaded.lines.iter().map(|&a| a - src + dst).collect();
            l.sort_unstable();
            l
        });
        for row in 0..ROWS {
            for byte in 0..PITCH {
                let col = byte / es as i64;
                let inside =
                    (3..3 + h as i64).contains(&row) && (8..8 + (w * count) as i64).contains(&col);
                let off = (row * PITCH + byte) as u64;
                let got = mem.read_u8(dst + off).unwrap();
                let want = if inside {
                    mem.read_u8(src + off).unwrap()
                } else {
                    0xee
                };
                assert_eq!(got, want, "es {es} row {row} byte {byte}");
            }
        }
    }
}

#[test]
fn store_drops_out_of_bounds_and_padding() {
    let mut mem = Memory::new();
    let dst = mem
        .alloc(128 * 4, 64, AllocKind::Global { arg: 0 }, "dst")
        .unwrap();
    fill_pattern(&mut mem, dst, 128 * 4, 0xee);
    // 2-byte elements, W = 12 (padded to 16), H = 4 at (x, y) = (26, 2) in a 64 x 3 surface
    let mut p = params(2, 12, 4, 1, dst);
    p.memory_width = 64;
    p.memory_height = 3;
    p.x = 26;
    p.y = 2;
    let data: Vec<Vec<u8>> = (0..16u16)
        .map(|i| {
            (0..4u16)
                .flat_map(|r| (0x100 * r + i).to_le_bytes())
                .collect()
        })
        .collect();
    let st = store(&mut mem, &p, sg(16), &data).unwrap();
    assert_eq!(st.bytes, 12); // row 2, columns 26..31
    assert_eq!(st.lines, vec![dst + 256]);
    for byte in 0..128 * 4u64 {
        let got = mem.read_u8(dst + byte).unwrap();
        let (row, col) = (byte / 128, (byte % 128) / 2);
        if row == 2 && (26..32).contains(&col) && byte % 128 < 64 {
            let v = (col - 26) as u16; // block row 0 of invocation col - 26
            assert_eq!(got, v.to_le_bytes()[(byte % 2) as usize]);
        } else {
            assert_eq!(got, 0xee, "byte {byte}");
        }
    }
}

#[test]
fn faulting_store_writes_nothing() {
    let mut mem = Memory::new();
    let dst = mem
        .alloc(128 * 2, 64, AllocKind::Global { arg: 0 }, "dst")
        .unwrap();
    let mut p = params(4, 16, 4, 1, dst);
    p.memory_width = 64;
    p.memory_pitch = 128;
    p.memory_height = 4; // rows 2 and 3 are outside the 2-row allocation
    let data = vec![vec![0xabu8; 16]; 16];
    assert!(matches!(
        store(&mut mem, &p, sg(16), &data),
        Err(SimError::OutOfBounds { .. })
    ));
    assert!(mem.bytes_of(dst).unwrap().iter().all(|&b| b == 0));
}

#[test]
fn store_data_must_match_the_layout() {
    let (mut mem, base) = surface(4);
    let p = params(4, 16, 2, 1, base);
    let short = vec![vec![0u8; 7]; 16];
    assert!(matches!(
        store(&mut mem, &p, sg(16), &short),
        Err(SimError::DataSize {
            expected: 8,
            got: 7,
            ..
        })
    ));
    let few = vec![vec![0u8; 8]; 15];
    assert!(matches!(
        store(&mut mem, &p, sg(16), &few),
        Err(SimError::InvocationCount { .. })
    ));
}

// ---- restrictions ----------------------------------------------------------------------------

fn limit_of(op: Block2dOp, p: &Block2dParams, n: Subgroup) -> Block2dLimit {
    match layout(op, p, n) {
        Err(SimError::Block2d { limit, op: name }) => {
            assert_eq!(name, op.name());
            limit
        }
        other => panic!("expected a 2D block limit, got {other:?}"),
    }
}

#[test]
fn every_restriction_is_reported() {
    let base = 0x10_0000;
    let ok = params(2, 16, 8, 1, base);
    use Block2dOp::*;
    for op in [Load, LoadTransform, LoadTranspose, Store, Prefetch] {
        assert!(layout(op, &ok, sg(16)).is_ok(), "{op:?}");
    }
    let with = |f: &dyn Fn(&mut Block2dParams)| {
        let mut p = ok;
        f(&mut p);
        p
    };
    let cases: Vec<(Block2dOp, Block2dParams, Block2dLimit)> = vec![
        (
            Load,
            with(&|p| p.element_size = 3),
            Block2dLimit::ElementSize { element_size: 3 },
        ),
        (
            Load,
            with(&|p| p.element_size = 16),
            Block2dLimit::ElementSize { element_size: 16 },
        ),
        (
            Load,
            with(&|p| p.block_width = 0),
            Block2dLimit::ZeroBlockDimension {
                block_width: 0,
                block_height: 8,
                block_count: 1,
            },
        ),
        (
            Store,
            with(&|p| p.block_count = 0),
            Block2dLimit::ZeroBlockDimension {
                block_width: 16,
                block_height: 8,
                block_count: 0,
            },
        ),
        (
            Load,
            with(&|p| p.block_width = 15),
            Block2dLimit::BlockWidthMultiple {
                block_width: 15,
                element_size: 2,
                multiple: 2,
            },
        ),
        (
            Prefetch,
            with(&|p| {
                p.element_size = 1;
                p.block_width = 6
            }),
            Block2dLimit::BlockWidthMultiple {
                block_width: 6,
                element_size: 1,
                multiple: 4,
            },
        ),
        (
            Load,
            with(&|p| p.x = 3),
            Block2dLimit::CoordinateX {
                x: 3,
                element_size: 2,
                multiple: 2,
            },
        ),
        (
            LoadTransform,
            with(&|p| {
                p.element_size = 1;
                p.x = -2
            }),
            Block2dLimit::CoordinateX {
                x: -2,
                element_size: 1,
                multiple: 4,
            },
        ),
        (
            Load,
            with(&|p| p.base = base + 32),
            Block2dLimit::BaseAlignment { base: base + 32 },
        ),
        (
            Store,
            with(&|p| p.base = base + 8),
            Block2dLimit::BaseAlignment { base: base + 8 },
        ),
        (
            Load,
            with(&|p| p.memory_width = 63),
            Block2dLimit::MemoryWidth { memory_width: 63 },
        ),
        (
            Load,
            with(&|p| {
                p.memory_width = (1 << 24) + 8;
                p.memory_pitch = (1 << 24) + 8
            }),
            Block2dLimit::MemoryWidth {
                memory_width: (1 << 24) + 8,
            },
        ),
        (
            Load,
            with(&|p| p.memory_width = -64),
            Block2dLimit::MemoryWidth { memory_width: -64 },
        ),
        (
            Load,
            with(&|p| p.memory_height = 0),
            Block2dLimit::MemoryHeight { memory_height: 0 },
        ),
        (
            Load,
            with(&|p| p.memory_height = (1 << 24) + 1),
            Block2dLimit::MemoryHeight {
                memory_height: (1 << 24) + 1,
            },
        ),
        (
            Load,
            with(&|p| p.memory_pitch = 120),
            Block2dLimit::PitchBelowWidth {
                memory_pitch: 120,
                memory_width: 128,
            },
        ),
        (
            Load,
            with(&|p| p.memory_pitch = 132),
            Block2dLimit::PitchMultiple { memory_pitch: 132 },
        ),
        (
            LoadTransform,
            with(&|p| p.element_size = 4),
            Block2dLimit::TransformElementSize { element_size: 4 },
        ),
        (
            Load,
            with(&|p| {
                p.block_height = 1 << 20;
            }),
            Block2dLimit::TooLarge {
                bytes: 16 * 2 * (1 << 20),
            },
        ),
        (
            LoadTranspose,
            with(&|p| {
                p.block_height = u32::MAX;
            }),
            Block2dLimit::TooLarge {
                bytes: 16 * 2 * u32::MAX as u64,
            },
        ),
        (
            // 840000 bytes unpadded, 1120000 once the width pads from 3 to 4
            Load,
            with(&|p| {
                p.element_size = 4;
                p.block_width = 3;
                p.block_height = 70000;
            }),
            Block2dLimit::TooLarge { bytes: 1_120_000 },
        ),
    ];
    for (op, p, want) in cases {
        assert_eq!(limit_of(op, &p, sg(16)), want, "{op:?} {p:?}");
        let msg = SimError::Block2d {
            op: op.name(),
            limit: want,
        }
        .to_string();
        assert!(!msg.contains('\n'), "{msg}");
    }
    // pitch equal to width and a multiple of 8 is fine, as are wide surfaces
    assert!(layout(Load, &with(&|p| p.memory_pitch = 128), sg(16)).is_ok());
    assert!(layout(
        Load,
        &with(&|p| {
            p.memory_width = 1 << 24;
            p.memory_pitch = 1 << 24
        }),
        sg(16)
    )
    .is_ok());
    assert!(layout(Load, &with(&|p| p.memory_height = 1 << 24), sg(16)).is_ok());
}

#[test]
fn subgroup_restrictions() {
    let p = params(4, 8, 8, 1, 0x10_0000);
    let issue = |s: Subgroup| match layout(Block2dOp::Load, &p, s) {
        Err(SimError::Subgroup { issue, .. }) => issue,
        other => panic!("{other:?}"),
    };
    assert_eq!(issue(sg(12)), SubgroupIssue::MaxSizeNotPowerOfTwo);
    assert_eq!(
        issue(Subgroup {
            size: 8,
            max_size: 16
        }),
        SubgroupIssue::Partial
    );
    assert_eq!(issue(sg(0)), SubgroupIssue::Empty);
    assert_eq!(issue(sg(1 << 12)), SubgroupIssue::TooLarge);
    assert!(layout(Block2dOp::Load, &p, sg(1)).is_ok());
}

#[test]
fn invocation_pointer_alignment() {
    let p = params(4, 8, 8, 1, 0x10_0000);
    assert!(check_invocation_pointer(Block2dOp::Load, &p, 0x2004).is_ok());
    assert_eq!(
        check_invocation_pointer(Block2dOp::Store, &p, 0x2002),
        Err(SimError::Block2d {
            op: "OpSubgroup2DBlockStoreINTEL",
            limit: Block2dLimit::InvocationPointerAlignment {
                addr: 0x2002,
                element_size: 4
            }
        })
    );
    assert!(check_invocation_pointer(Block2dOp::Prefetch, &p, 0x2002).is_ok());
}

#[test]
fn huge_coordinates_do_not_overflow() {
    let (mem, base) = surface(4);
    for (x, y) in [
        (i64::MAX - 3, 0),
        (i64::MIN, i64::MIN),
        (0, i64::MAX),
        (-4, i64::MAX - 1),
    ] {
        let mut p = params(4, 8, 4, 4, base);
        p.x = x - x.rem_euclid(4);
        p.y = y;
        let r = load(&mem, LoadKind::Plain, &p, sg(8)).unwrap();
        assert!(r.lines.is_empty(), "{x} {y}");
    }
}

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
