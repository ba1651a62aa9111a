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
        base_alignment: spvopt_sim::block_io_2d::BASE_ALIGNMENT,
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
            base_alignment: spvopt_sim::block_io_2d::BASE_ALIGNMENT,
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

mod random;
mod restrictions;
mod store;
