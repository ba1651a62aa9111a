//! Kernel-level tests of spv-sim's block IO: the kernels under `tests/fixtures/sim/` run on the
//! simulator and every output is checked against a reference computed here, in the test, from
//! the specs' prose (SPV_INTEL_2d_block_io "Mapping Block Data to Invocations", with rows wider
//! than subgroup-size dwords dealt in the hardware register layout as sim/README.md documents;
//! SPV_INTEL_subgroups block reads/writes; SPV_INTEL_subgroup_buffer_prefetch;
//! SPV_INTEL_subgroup_matrix_multiply_accumulate), plus undefined behaviour reported by
//! `spv-sim run` with exit status 2 and one line naming function, instruction and invocation.

use std::path::{Path, PathBuf};

use spvopt_ir::text;
use spvopt_sim::block_io_2d::BlockLayout;
use spvopt_sim::{Arg, Launch, RunOutput};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/sim")
}

/// The fixture's source with `(from, to)` replacements applied (each `from` must occur).
fn source(name: &str, subs: &[(&str, String)]) -> String {
    let mut src = std::fs::read_to_string(fixtures().join(name)).expect("fixture");
    for (from, to) in subs {
        assert!(src.contains(from), "{name}: `{from}` not found");
        src = src.replace(from, to);
    }
    src
}

fn assemble(src: &str) -> spvopt_ir::Module {
    let env = text::parse_target_env("spv1.4").unwrap();
    let words = text::assemble(src, env).expect("assembles");
    spvopt_ir::load_words(&words).expect("loads")
}

fn buf(bytes: Vec<u8>) -> Arg {
    Arg::Buffer {
        bytes,
        ty: None,
        ulp: None,
    }
}

fn u32s(v: i64) -> Arg {
    Arg::Scalar {
        ty: "u32".into(),
        bytes: (v as u32).to_le_bytes().to_vec(),
    }
}

fn random(n: usize, seed: u64) -> Vec<u8> {
    spvopt_sim::launch::random_bytes(n, seed, "u8", None).unwrap()
}

fn launch(sg: u32, args: Vec<Arg>) -> Launch {
    let mut l = Launch::new("main", [sg as u64, 1, 1], [sg as u64, 1, 1], args);
    l.subgroup_size = Some(sg);
    l
}

fn buffer(out: &RunOutput, i: usize) -> &[u8] {
    &out.buffers.iter().find(|b| b.0 == i).expect("buffer").1
}

// ---- an independent 2D block reference -------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    Load,
    Transform,
    Transpose,
}

/// One 2D block instruction's shape and position on a surface.
#[derive(Clone, Copy, Debug)]
struct Shape {
    kind: Kind,
    es: i64,
    w: i64,
    h: i64,
    count: i64,
    sg: i64,
    x: i64,
    y: i64,
}

/// The surface every 2D test uses: 40 rows of 128 bytes, 120 of them inside Memory Width.
const PITCH: i64 = 128;
const WIDTH: i64 = 120;
const HEIGHT: i64 = 40;

/// Whether the element at memory row `my`, element column `mx` lies inside the surface.
fn inside(my: i64, mx: i64, es: i64) -> bool {
    (0..HEIGHT).contains(&my) && mx >= 0 && (mx + 1) * es <= WIDTH
}

/// Element (row, col) of block `b`, zero when out of bounds ("out-of-bounds elements are
/// assigned the value zero"; an element is in bounds when all its bytes are below Memory Width).
fn element(surf: &[u8], s: &Shape, b: i64, row: i64, col: i64) -> u64 {
    if row >= s.h || col >= s.w {
        return 0; // padding
    }
    let (my, mx) = (s.y + row, s.x + b * s.w + col);
    if !inside(my, mx, s.es) {
        return 0;
    }
    let at = (my * PITCH + mx * s.es) as usize;
    let mut v = [0u8; 8];
    v[..s.es as usize].copy_from_slice(&surf[at..at + s.es as usize]);
    u64::from_le_bytes(v)
}

/// Rows, columns (powers of two after padding) and value bytes of the dealt block.
fn dealt_shape(s: &Shape) -> (i64, i64, i64) {
    let pw = (s.w as u64).next_power_of_two() as i64;
    match s.kind {
        Kind::Load => (s.h, pw, s.es),
        Kind::Transform => {
            let pack = 4 / s.es;
            ((s.h + pack - 1) / pack, pw, 4)
        }
        Kind::Transpose => (s.w, (s.h as u64).next_power_of_two() as i64, s.es),
    }
}

/// Value at (row, col) of the dealt block `b` (after transform / transpose).
fn dealt(surf: &[u8], s: &Shape, b: i64, row: i64, col: i64) -> u64 {
    match s.kind {
        Kind::Load => element(surf, s, b, row, col),
        Kind::Transpose => element(surf, s, b, col, row),
        Kind::Transform => {
            let pack = 4 / s.es;
            (0..pack).fold(0, |acc, j| {
                acc | element(surf, s, b, row * pack + j, col) << (8 * s.es * j)
            })
        }
    }
}

/// (row, col) of the dealt block each slot of invocation `i` holds, per block, in order;
/// `None` for a slot no row reaches.
fn slots(s: &Shape, i: i64) -> Vec<Option<(i64, i64)>> {
    let (rows, cols, vb) = dealt_shape(s);
    let n = s.sg;
    let unit = (4 / vb).max(1);
    let mut v = Vec::new();
    if cols < n {
        // "the first row is assigned to the first set of invocations, ..."
        let per_pass = n / cols;
        for pass in 0..(rows + per_pass - 1) / per_pass {
            let row = pass * per_pass + i / cols;
            v.push((row < rows).then_some((row, i % cols)));
        }
    } else if cols <= n * unit {
        // "the first set of elements are assigned to the first invocation, ..."
        let per = cols / n;
        for row in 0..rows {
            for e in 0..per {
                v.push(Some((row, i * per + e)));
            }
        }
    } else {
        // wide rows: the row spans several registers of n dwords; invocation i owns dword i of each
        for row in 0..rows {
            for k in 0..cols / (n * unit) {
                for j in 0..unit {
                    v.push(Some((row, k * n * unit + i * unit + j)));
                }
            }
        }
    }
    v
}

/// Expected per-invocation bytes of a load.
fn expected_load(surf: &[u8], s: &Shape) -> Vec<Vec<u8>> {
    let vb = dealt_shape(s).2 as usize;
    (0..s.sg)
        .map(|i| {
            let mut out = Vec::new();
            for b in 0..s.count {
                for slot in slots(s, i) {
                    let v = slot.map_or(0, |(r, c)| dealt(surf, s, b, r, c));
                    out.extend_from_slice(&v.to_le_bytes()[..vb]);
                }
            }
            out
        })
        .collect()
}

/// In-bounds bytes a block instruction touches.
fn in_bounds_bytes(s: &Shape) -> u64 {
    let mut n = 0;
    for b in 0..s.count {
        for r in 0..s.h {
            for c in 0..s.w {
                let (my, mx) = (s.y + r, s.x + b * s.w + c);
                if inside(my, mx, s.es) {
                    n += s.es as u64;
                }
            }
        }
    }
    n
}

/// Distinct 64-byte lines (offsets from the surface base) of the in-bounds elements.
fn lines(s: &Shape) -> std::collections::BTreeSet<i64> {
    let mut set = std::collections::BTreeSet::new();
    for b in 0..s.count {
        for r in 0..s.h {
            for c in 0..s.w {
                let (my, mx) = (s.y + r, s.x + b * s.w + c);
                if inside(my, mx, s.es) {
                    let at = my * PITCH + mx * s.es;
                    set.insert(at / 64);
                    set.insert((at + s.es - 1) / 64);
                }
            }
        }
    }
    set
}

fn shape_subs(s: &Shape) -> Vec<(&'static str, String)> {
    vec![
        (
            "%es = OpConstant %uint 2",
            format!("%es = OpConstant %uint {}", s.es),
        ),
        (
            "%bw = OpConstant %uint 16",
            format!("%bw = OpConstant %uint {}", s.w),
        ),
        (
            "%bh = OpConstant %uint 8",
            format!("%bh = OpConstant %uint {}", s.h),
        ),
        (
            "%bc = OpConstant %uint 1",
            format!("%bc = OpConstant %uint {}", s.count),
        ),
    ]
}

fn counter_key(s: &Shape, kind: &str) -> String {
    format!("{kind} {}b {}r{}x{}c", s.es * 8, s.h, s.w, s.count)
}

fn run_load(s: &Shape) -> RunOutput {
    let mut subs = shape_subs(s);
    let op = match s.kind {
        Kind::Load => "OpSubgroup2DBlockLoadINTEL",
        Kind::Transform => "OpSubgroup2DBlockLoadTransformINTEL",
        Kind::Transpose => "OpSubgroup2DBlockLoadTransposeINTEL",
    };
    subs.push(("OpSubgroup2DBlockLoadINTEL %es", format!("{op} %es")));
    let m = assemble(&source("block2d_load.spvasm", &subs));
    let surf = random((PITCH * HEIGHT) as usize, 11);
    let l = launch(
        s.sg as u32,
        vec![
            buf(surf.clone()),
            buf(vec![0; 512 * s.sg as usize]),
            u32s(WIDTH),
            u32s(HEIGHT),
            u32s(PITCH),
            u32s(s.x),
            u32s(s.y),
        ],
    );
    let out = spvopt_sim::run(&m, &l).unwrap_or_else(|e| panic!("{s:?}: {e}"));
    let dst = buffer(&out, 1);
    let want = expected_load(&surf, s);
    for (i, w) in want.iter().enumerate() {
        let got = &dst[512 * i..512 * (i + 1)];
        assert!(w.len() <= 512, "{s:?}: test shape too large");
        assert_eq!(&got[..w.len()], &w[..], "{s:?}: invocation {i}");
        assert!(
            got[w.len()..].iter().all(|&b| b == 0),
            "{s:?}: invocation {i} wrote past its {} bytes",
            w.len()
        );
    }
    let kind = match s.kind {
        Kind::Load => "load",
        Kind::Transform => "load_transform",
        Kind::Transpose => "load_transpose",
    };
    let c = &out.counters.block2d[&counter_key(s, kind)];
    assert_eq!((c.ops, c.bytes), (1, in_bounds_bytes(s)), "{s:?}: counters");
    assert_eq!(out.counters.lines_loaded_2d, lines(s).len() as u64, "{s:?}");
    out
}

fn shape(kind: Kind, es: i64, w: i64, h: i64, count: i64) -> Shape {
    Shape {
        kind,
        es,
        w,
        h,
        count,
        sg: 16,
        x: 0,
        y: 0,
    }
}

/// Every load shape at the origin, at the right edge, the bottom edge, a negative corner, and
/// fully out of bounds.
fn positions(s: Shape) -> Vec<Shape> {
    let m = match s.es {
        1 => 4,
        2 => 2,
        _ => 1,
    };
    let right = (WIDTH / s.es - s.w / 2) / m * m; // half of block 0 crosses Memory Width
    let mut v = vec![
        s,
        Shape {
            x: 4 * m,
            y: 3,
            ..s
        },
        Shape { x: right, ..s },
        Shape {
            y: HEIGHT - s.h / 2 - 1,
            ..s
        },
        Shape {
            x: -2 * m,
            y: -3,
            ..s
        },
        Shape {
            x: right,
            y: HEIGHT - 2,
            ..s
        },
    ];
    v.push(Shape {
        x: -s.w * s.count - 4 * m,
        y: HEIGHT + 5,
        ..s
    });
    v
}

#[test]
fn loads_every_kind_count_and_edge() {
    use Kind::*;
    let mut shapes = Vec::new();
    for count in [1, 2, 4] {
        shapes.push(shape(Load, 2, 16, 8, count)); // load 16b 8r16xNc
        shapes.push(shape(Load, 1, 32, 8, count)); // 8b, rows of 8 dwords
        shapes.push(shape(Load, 1, 16, 4, count)); // 8b, width == SG: one byte per row
        shapes.push(shape(Load, 2, 8, 4, count)); // narrower than the subgroup: rows share it
        shapes.push(shape(Transform, 2, 16, 16, count)); // VNNI 16-bit
        shapes.push(shape(Transform, 1, 16, 32, count)); // VNNI 8-bit
        shapes.push(shape(Transform, 2, 12, 7, count)); // padded width and height
    }
    for count in [1, 2] {
        shapes.push(shape(Load, 4, 8, 8, count)); // 32b 8r8x2c
        shapes.push(shape(Load, 4, 16, 8, count));
        shapes.push(shape(Transpose, 4, 8, 16, count)); // transpose 32b 16r8xNc
        shapes.push(shape(Transpose, 4, 8, 32, count)); // wide transposed rows (Triton B^T)
        shapes.push(shape(Transpose, 2, 4, 16, count));
    }
    shapes.push(shape(Load, 8, 8, 8, 1));
    shapes.push(shape(Load, 8, 4, 5, 1));
    shapes.push(shape(Transpose, 8, 4, 8, 1));
    shapes.push(shape(Load, 2, 32, 8, 1)); // a row of exactly 16 dwords: consecutive pairs
    shapes.push(shape(Transform, 2, 32, 8, 1)); // Xe2 transform: wide VNNI rows
    let mut n = 0;
    for s in shapes {
        for p in positions(s) {
            run_load(&p);
            n += 1;
        }
    }
    // other subgroup sizes
    for sg in [8, 32] {
        for s in [
            shape(Load, 2, 16, 8, 2),
            shape(Load, 4, 8, 8, 1),
            shape(Transform, 2, 16, 16, 1),
            shape(Transpose, 4, 8, 32, 1),
            shape(Load, 2, 64, 2, 1),
        ] {
            for p in positions(Shape { sg, ..s }) {
                run_load(&p);
                n += 1;
            }
        }
    }
    assert!(n > 200);
}

/// Block Count > 1 is the concatenation of the per-block per-invocation data (what the
/// fuse-block-loads pass relies on): a Count-N load equals N Count-1 loads at x + b * W.
#[test]
fn block_count_is_the_concatenation_of_single_blocks() {
    use Kind::*;
    for s in [
        shape(Load, 2, 16, 8, 4),
        shape(Load, 1, 32, 16, 2),
        shape(Transform, 2, 16, 16, 2),
        shape(Transform, 1, 16, 32, 4),
        shape(Transpose, 4, 8, 32, 2),
    ] {
        for s in positions(s) {
            let multi = run_load(&s);
            let multi = buffer(&multi, 1).to_vec();
            let per = slots(&s, 0).len() * dealt_shape(&s).2 as usize;
            for b in 0..s.count {
                let single = Shape {
                    count: 1,
                    x: s.x + b * s.w,
                    ..s
                };
                let one = run_load(&single);
                let one = buffer(&one, 1);
                for i in 0..s.sg as usize {
                    let at = 512 * i + b as usize * per;
                    assert_eq!(
                        &multi[at..at + per],
                        &one[512 * i..512 * i + per],
                        "{s:?} block {b} invocation {i}"
                    );
                }
            }
        }
    }
}

/// The transposed-B layout: invocation i holds columns i and i + 16 of each transposed row; the
/// literal spec reading (`"block_layout": "spec"`) gives columns 2i and 2i + 1 instead.
#[test]
fn wide_transposed_rows_hardware_and_spec_layouts() {
    let s = shape(Kind::Transpose, 4, 8, 32, 1);
    let subs = {
        let mut v = shape_subs(&s);
        v.push((
            "OpSubgroup2DBlockLoadINTEL %es",
            "OpSubgroup2DBlockLoadTransposeINTEL %es".into(),
        ));
        v
    };
    let m = assemble(&source("block2d_load.spvasm", &subs));
    // memory row r, column c (dwords) holds r * 256 + c
    let surf: Vec<u8> = (0..HEIGHT)
        .flat_map(|r| (0..PITCH / 4).flat_map(move |c| ((r * 256 + c) as u32).to_le_bytes()))
        .collect();
    let args = || {
        vec![
            buf(surf.clone()),
            buf(vec![0; 512 * 16]),
            u32s(WIDTH),
            u32s(HEIGHT),
            u32s(PITCH),
            u32s(0),
            u32s(0),
        ]
    };
    let dword = |d: &[u8], i: usize, slot: usize| {
        let at = 512 * i + 4 * slot;
        u32::from_le_bytes(d[at..at + 4].try_into().unwrap())
    };
    let hw = spvopt_sim::run(&m, &launch(16, args())).unwrap();
    let mut spec_launch = launch(16, args());
    spec_launch.block_layout = BlockLayout::Spec;
    let spec = spvopt_sim::run(&m, &spec_launch).unwrap();
    for i in 0..16usize {
        for r in 0..8usize {
            // transposed row r = memory column r; transposed column j = memory row j
            let (hw0, hw1) = (
                dword(buffer(&hw, 1), i, 2 * r),
                dword(buffer(&hw, 1), i, 2 * r + 1),
            );
            assert_eq!(
                (hw0, hw1),
                ((i * 256 + r) as u32, ((i + 16) * 256 + r) as u32)
            );
            let (s0, s1) = (
                dword(buffer(&spec, 1), i, 2 * r),
                dword(buffer(&spec, 1), i, 2 * r + 1),
            );
            assert_eq!(s0, (2 * i * 256 + r) as u32);
            assert_eq!(s1, ((2 * i + 1) * 256 + r) as u32);
        }
    }
}

// ---- stores -----------------------------------------------------------------------------------

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

// ---- MMA ---------------------------------------------------------------------------------------

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

// ---- undefined behaviour through the CLI -------------------------------------------------------

/// `spv-sim` beside this test's executable (target/<profile>/spv-sim), built on demand.
fn spv_sim() -> PathBuf {
    let exe = std::env::current_exe().expect("test executable");
    let dir = exe.parent().and_then(Path::parent).expect("target dir");
    let bin = dir.join(format!("spv-sim{}", std::env::consts::EXE_SUFFIX));
    if !bin.exists() {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let mut cmd = std::process::Command::new(cargo);
        cmd.args(["build", "-p", "spvopt-tools", "--bin", "spv-sim"]);
        if dir.file_name().is_some_and(|n| n == "release") {
            cmd.arg("--release");
        }
        let st = cmd.status().expect("cargo build spv-sim");
        assert!(
            st.success() && bin.exists(),
            "could not build {}",
            bin.display()
        );
    }
    bin
}

/// Runs `spv-sim run block2d_ub.spvasm --launch ub_NAME.launch.json`: (exit status, stderr).
fn run_ub(name: &str) -> (i32, String) {
    let out_dir = std::env::temp_dir().join(format!("sim_ub_{name}_{}", std::process::id()));
    let o = std::process::Command::new(spv_sim())
        .arg("run")
        .arg(fixtures().join("block2d_ub.spvasm"))
        .arg("--launch")
        .arg(fixtures().join(format!("ub_{name}.launch.json")))
        .arg("--out")
        .arg(&out_dir)
        .output()
        .expect("spv-sim runs");
    let _ = std::fs::remove_dir_all(&out_dir);
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

#[test]
fn undefined_behaviour_exits_2_with_one_line() {
    // the same kernel without undefined behaviour runs
    let (code, err) = run_ub("ok");
    assert_eq!(code, 0, "{err}");
    for (name, what, inst, invocation) in [
        (
            "nonuniform_coordinate",
            "Coordinate is not dynamically uniform (invocations 0 and 1 differ)",
            "at OpSubgroup2DBlockLoadINTEL",
            "invocation (0, 0, 0)",
        ),
        (
            "misaligned_base",
            "not 64-byte (cache-line) aligned",
            "at OpSubgroup2DBlockLoadINTEL",
            "invocation (0, 0, 0)",
        ),
        (
            "divergent",
            "not reached by the whole subgroup (invocations [8, 9, 10, 11, 12, 13, 14, 15] are elsewhere)",
            "at OpSubgroup2DBlockLoadINTEL",
            "invocation (0, 0, 0)",
        ),
        (
            "out_of_bounds",
            "out-of-bounds access: 1 bytes at address",
            "at %byte = OpLoad",
            "invocation (6, 0, 0)",
        ),
    ] {
        let (code, err) = run_ub(name);
        assert_eq!(code, 2, "{name}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{name}: not one line: {err}");
        for part in [what, "in function main", inst, invocation] {
            assert!(err.contains(part), "{name}: `{part}` missing from: {err}");
        }
        assert!(err.starts_with("spv-sim: error: "), "{err}");
    }
    // a bad command line is an error too, not a panic
    let o = std::process::Command::new(spv_sim())
        .args(["run", "--block-layout", "diagonal"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
}
