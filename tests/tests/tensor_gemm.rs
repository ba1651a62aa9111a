//! The `mul_mm_cm2`-pattern GEMM (`tests/corpus/tensor/gemm_cm2_f16.spvasm`: A through a
//! Constant-0 layout, B through the transposing view with ClampToEdge, D through clip windows,
//! f16 in, f32 accumulation, a loop over K) under `-O --target pvc`: the result matches an
//! f64 reference product (what numpy's `a.astype(float64) @ b.T` computes) within the f32
//! accumulation bound, on aligned and ragged sizes, and the converted kernel's 2D block
//! messages are within 10% of what a hand-written 2D-block GEMM of the same tiling issues.

use spvopt_analysis::Target;
use spvopt_ir::text;
use spvopt_passes::optimize_words;
use spvopt_sim::launch::{random_bytes, Arg};
use spvopt_sim::{run, Launch, RunOutput};

const TILE: u64 = 32;

fn kernel_words() -> Vec<u32> {
    let path = spvopt_tests::corpus_dir().join("tensor/gemm_cm2_f16.spvasm");
    let src = std::fs::read_to_string(path).unwrap();
    text::assemble(&src, text::parse_target_env("spv1.6").unwrap()).expect("assembles")
}

fn f16_to_f64(bits: u16) -> f64 {
    let sign = if bits & 0x8000 != 0 { -1.0 } else { 1.0 };
    let exp = i32::from((bits >> 10) & 0x1f);
    let frac = f64::from(bits & 0x3ff);
    sign * match exp {
        0 => frac * 2f64.powi(-24),
        31 => f64::NAN,
        e => (1.0 + frac / 1024.0) * 2f64.powi(e - 15),
    }
}

struct Problem {
    m: u64,
    n: u64,
    k: u64,
    a: Vec<u8>,
    b: Vec<u8>,
}

impl Problem {
    fn new(m: u64, n: u64, k: u64, seed: u64) -> Problem {
        let range = Some((-1.0, 1.0));
        Problem {
            m,
            n,
            k,
            a: random_bytes((m * k * 2) as usize, seed, "f16", range).unwrap(),
            b: random_bytes((n * k * 2) as usize, seed + 1, "f16", range).unwrap(),
        }
    }

    fn launch(&self) -> Launch {
        let u32a = |v: u64| Arg::Scalar {
            ty: "u32".into(),
            bytes: (v as u32).to_le_bytes().to_vec(),
        };
        let buf = |bytes: Vec<u8>| Arg::Buffer {
            bytes,
            ty: None,
            ulp: None,
        };
        let (tx, ty) = (self.n.div_ceil(TILE), self.m.div_ceil(TILE));
        let mut l = Launch::new(
            "gemm",
            [16 * tx, ty, 1],
            [16, 1, 1],
            vec![
                buf(self.a.clone()),
                buf(self.b.clone()),
                buf(vec![0xff; (self.m * self.n * 4) as usize]),
                u32a(self.m),
                u32a(self.n),
                u32a(self.k),
            ],
        );
        l.subgroup_size = Some(16);
        l
    }

    /// Checks D against the f64 product: |d - ref| <= K · 2^-23 · sum |a·b| (f32 rounding
    /// of each of the K fused steps) for every element.
    fn check(&self, out: &RunOutput) -> Result<(), String> {
        let d = &out.buffers.iter().find(|b| b.0 == 2).ok_or("no D")?.1;
        let h = |v: &[u8], i: u64| {
            f16_to_f64(u16::from_le_bytes([
                v[2 * i as usize],
                v[2 * i as usize + 1],
            ]))
        };
        for r in 0..self.m {
            for c in 0..self.n {
                let (mut exact, mut mag) = (0.0f64, 0.0f64);
                for k in 0..self.k {
                    let p = h(&self.a, r * self.k + k) * h(&self.b, c * self.k + k);
                    exact += p;
                    mag += p.abs();
                }
                let at = ((r * self.n + c) * 4) as usize;
                let got = f64::from(f32::from_le_bytes(d[at..at + 4].try_into().unwrap()));
                let bound = self.k as f64 * 2f64.powi(-23) * mag + 1e-30;
                if (got - exact).abs() > bound {
                    return Err(format!(
                        "D[{r}][{c}] = {got}, reference {exact} (bound {bound:e})"
                    ));
                }
            }
        }
        Ok(())
    }
}

fn optimized() -> Vec<u32> {
    let target = Target::by_name("pvc").unwrap();
    let (out, report) = optimize_words(
        &kernel_words(),
        spvopt_passes::registry::OPTIMIZE_PIPELINE,
        &target,
    )
    .expect("-O --target pvc");
    assert!(report
        .passes
        .iter()
        .any(|p| p.name == "convert-tensor-addressing" && p.changed));
    let dis = text::disassemble(&out).unwrap();
    assert!(!dis.contains("Cooperative") && !dis.contains("Tensor"));
    spvopt_passes::validate::validate_module(
        &spvopt_ir::load_words(&out).unwrap(),
        text::parse_target_env("spv1.6").unwrap(),
    )
    .expect("validates");
    out
}

#[test]
fn gemm_matches_the_reference_on_aligned_and_ragged_sizes() {
    let opt = spvopt_ir::load_words(&optimized()).unwrap();
    let orig = spvopt_ir::load_words(&kernel_words()).unwrap();
    for (m, n, k) in [(64, 64, 64), (32, 96, 48), (50, 37, 45), (17, 70, 9)] {
        let p = Problem::new(m, n, k, m * 1000 + n * 10 + k);
        let launch = p.launch();
        let converted = run(&opt, &launch).expect("converted kernel runs");
        p.check(&converted)
            .unwrap_or_else(|e| panic!("{m}x{n}x{k}, -O --target pvc: {e}"));
        let original = run(&orig, &launch).expect("cooperative-matrix kernel runs");
        p.check(&original)
            .unwrap_or_else(|e| panic!("{m}x{n}x{k}, as written: {e}"));
    }
}

/// 2D block messages of the converted kernel on a 128x128x256 problem (16 tiles of 32x32,
/// 16 K steps each) against a hand-written 2D-block GEMM of the same tiling, counted from the
/// tiling with the largest blocks the target allows: per K step one 16-wide, 32-row f16 load of
/// A and one 8-dword, 32-row transposed load of B (32 N-rows of 16 K-values); per tile
/// 2 x 4 stores of D (16 f32 wide, 8 rows: the store height limit).
#[test]
fn gemm_block_messages_match_a_hand_written_tiling() {
    let opt = spvopt_ir::load_words(&optimized()).unwrap();
    let (m, n, k) = (128u64, 128u64, 256u64);
    let p = Problem::new(m, n, k, 5);
    let out = run(&opt, &p.launch()).unwrap();
    p.check(&out).unwrap();
    let ops = |prefix: &str| -> u64 {
        out.counters
            .block2d
            .iter()
            .filter(|(name, _)| name.starts_with(prefix))
            .map(|(_, c)| c.ops)
            .sum()
    };
    let (loads, stores) = (ops("load"), ops("store"));
    let tiles = (m / TILE) * (n / TILE);
    let steps = k / 16;
    let hand_loads = tiles * steps * 2;
    let hand_stores = tiles * 8;
    let (ours, hand) = (loads + stores, hand_loads + hand_stores);
    println!(
        "2D block messages: converted {loads} loads + {stores} stores = {ours}; \
         hand-written {hand_loads} + {hand_stores} = {hand}; counters {:?}",
        out.counters.block2d
    );
    assert!(
        ours as f64 <= hand as f64 * 1.1 && ours as f64 >= hand as f64 * 0.9,
        "converted {ours} vs hand-written {hand} messages"
    );
}
