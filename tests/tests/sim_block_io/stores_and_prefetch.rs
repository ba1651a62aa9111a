//! 2D block stores, 2D prefetch coverage counters, 1D block IO and buffer prefetch.

use super::*;

fn run_store(s: &Shape) {
    let m = assemble(&source("block2d_store.spvasm", &shape_subs(s)));
    let data = random(512 * s.sg as usize, 21);
    let surf0 = random((PITCH * HEIGHT) as usize, 22);
    let l = launch(
        s.sg as u32,
        vec![
            buf(data.clone()),
            buf(surf0.clone()),
            u32s(WIDTH),
            u32s(HEIGHT),
            u32s(PITCH),
            u32s(s.x),
            u32s(s.y),
        ],
    );
    let out = spvopt_sim::run(&m, &l).unwrap_or_else(|e| panic!("store {s:?}: {e}"));
    let mut want = surf0.clone();
    let es = s.es as usize;
    for i in 0..s.sg {
        let sl = slots(s, i);
        for b in 0..s.count {
            for (k, slot) in sl.iter().enumerate() {
                let Some((r, c)) = *slot else { continue };
                if r >= s.h || c >= s.w {
                    continue; // padding is ignored
                }
                let (my, mx) = (s.y + r, s.x + b * s.w + c);
                if !inside(my, mx, s.es) {
                    continue; // out of bounds is ignored
                }
                let from = 512 * i as usize + (b as usize * sl.len() + k) * es;
                let to = (my * PITCH + mx * s.es) as usize;
                want[to..to + es].copy_from_slice(&data[from..from + es]);
            }
        }
    }
    let got = buffer(&out, 1);
    if let Some(j) = (0..want.len()).find(|&j| got[j] != want[j]) {
        panic!(
            "store {s:?}: surface byte {j} (row {}, byte {}) is {:#x}, expected {:#x}",
            j as i64 / PITCH,
            j as i64 % PITCH,
            got[j],
            want[j]
        );
    }
    let c = &out.counters.block2d[&counter_key(s, "store")];
    assert_eq!((c.ops, c.bytes), (1, in_bounds_bytes(s)), "{s:?}");
}

#[test]
fn stores_every_count_and_edge() {
    use Kind::Load;
    let mut n = 0;
    for count in [1, 2, 4] {
        for s in [
            shape(Load, 2, 16, 8, count),
            shape(Load, 1, 32, 8, count),
            shape(Load, 2, 8, 4, count),
            shape(Load, 4, 16, 8, count),
            shape(Load, 2, 12, 3, count), // padded width: padding ignored
        ] {
            for p in positions(s) {
                run_store(&p);
                n += 1;
            }
        }
    }
    for s in [
        shape(Load, 8, 8, 4, 1),
        shape(Load, 4, 32, 2, 1), // wide rows (not a hardware store shape; same layout as loads)
        Shape {
            sg: 8,
            ..shape(Load, 2, 16, 8, 2)
        },
        Shape {
            sg: 32,
            ..shape(Load, 1, 64, 4, 1)
        },
    ] {
        for p in positions(s) {
            run_store(&p);
            n += 1;
        }
    }
    assert!(n > 80);
}

// ---- prefetch ---------------------------------------------------------------------------------

#[test]
fn prefetch_coverage_counters() {
    use Kind::Load;
    for (s, dy) in [
        (shape(Load, 2, 16, 8, 1), 0i64),
        (shape(Load, 2, 16, 8, 2), 4),
        (shape(Load, 1, 64, 16, 1), 8),
        (shape(Load, 2, 32, 8, 1), 100), // prefetch entirely below the surface
        (
            Shape {
                x: WIDTH / 2 - 4,
                y: HEIGHT - 4,
                ..shape(Load, 2, 32, 8, 2)
            },
            -2,
        ),
    ] {
        let m = assemble(&source("block2d_prefetch_load.spvasm", &shape_subs(&s)));
        let surf = random((PITCH * HEIGHT) as usize, 31);
        let l = launch(
            16,
            vec![
                buf(surf.clone()),
                buf(vec![0; 512 * 16]),
                u32s(WIDTH),
                u32s(HEIGHT),
                u32s(PITCH),
                u32s(s.x),
                u32s(s.y),
                u32s(dy),
            ],
        );
        let out = spvopt_sim::run(&m, &l).unwrap_or_else(|e| panic!("{s:?}: {e}"));
        // the load is unaffected
        let want = expected_load(&surf, &s);
        for (i, w) in want.iter().enumerate() {
            assert_eq!(&buffer(&out, 1)[512 * i..512 * i + w.len()], &w[..]);
        }
        let p = Shape { y: s.y + dy, ..s };
        let (pl, ll) = (lines(&p), lines(&s));
        let c = &out.counters;
        assert_eq!(c.prefetches, 1, "{s:?}");
        assert_eq!(c.prefetched_bytes, in_bounds_bytes(&p), "{s:?} dy {dy}");
        assert_eq!(c.lines_loaded_2d, ll.len() as u64);
        let covered = ll.intersection(&pl).count() as u64;
        assert_eq!(c.lines_prefetched_before_load, covered, "{s:?} dy {dy}");
        let ratio = if ll.is_empty() {
            0.0
        } else {
            covered as f64 / ll.len() as f64
        };
        assert!((c.prefetch_coverage - ratio).abs() < 1e-12);
        let pk = &c.block2d[&counter_key(&s, "prefetch")];
        assert_eq!((pk.ops, pk.bytes), (1, in_bounds_bytes(&p)));
    }
}

// ---- 1D block IO and buffer prefetch ----------------------------------------------------------

/// "the first value read is Ptr[SubgroupLocalInvocationId] and the second value read is
/// Ptr[SubgroupLocalInvocationId + SubgroupMaxSize]": component j of invocation i is element
/// j * SG + i. Writes are the inverse. Prefetch of NumBytes per invocation covers NumBytes * SG.
#[test]
fn block_1d_reads_writes_and_prefetch() {
    let m = assemble(&source("block1d.spvasm", &[]));
    for (sg, off, nbytes) in [(16u32, 0i64, 16i64), (8, 12, 64), (32, 4, 3), (16, 20, 128)] {
        let n = sg as usize;
        let src = random(4096, 41);
        let src16 = random(1024, 42);
        let l = launch(
            sg,
            vec![
                buf(src.clone()),
                buf(src16.clone()),
                buf(vec![0; 1024]),
                buf(vec![0; 4 * 2 * n]),
                u32s(off),
                u32s(nbytes),
            ],
        );
        let out = spvopt_sim::run(&m, &l).unwrap_or_else(|e| panic!("sg {sg}: {e}"));
        let u32_at =
            |b: &[u8], k: usize| u32::from_le_bytes(b[4 * k..4 * k + 4].try_into().unwrap());
        let u16_at =
            |b: &[u8], k: usize| u16::from_le_bytes(b[2 * k..2 * k + 2].try_into().unwrap());
        let (o, d) = (buffer(&out, 2), buffer(&out, 3));
        for i in 0..n {
            for j in 0..2 {
                let want = u32_at(&src, off as usize + j * n + i);
                assert_eq!(
                    u32_at(o, 2 * i + j),
                    want,
                    "sg {sg} uint2 read inv {i} comp {j}"
                );
                // the write stores component j of invocation i at element j * SG + i
                assert_eq!(u32_at(d, j * n + i), want.wrapping_add(i as u32));
            }
            for j in 0..4 {
                assert_eq!(
                    u16_at(o, 256 + 4 * i + j),
                    u16_at(&src16, j * n + i),
                    "sg {sg} ushort4 read inv {i} comp {j}"
                );
            }
        }
        let c = &out.counters;
        assert_eq!((c.block_reads_1d, c.block_writes_1d), (2, 1));
        // only power-of-two NumBytes in [1, 64] must be honoured; others are ignored
        let honoured = (1..=64).contains(&nbytes) && (nbytes as u64).is_power_of_two();
        assert_eq!(c.prefetches, honoured as u64, "nbytes {nbytes}");
        assert_eq!(
            c.prefetched_bytes,
            if honoured {
                nbytes as u64 * sg as u64
            } else {
                0
            }
        );
    }
}
