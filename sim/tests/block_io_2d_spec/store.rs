//! Stores: the inverse of loads, out-of-bounds and padding dropped, faults write nothing.

use super::*;

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
