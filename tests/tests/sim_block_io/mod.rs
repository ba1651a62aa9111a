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

mod mma;
mod stores_and_prefetch;
mod undefined_behaviour;
