//! The Triton kernels of `tests/corpus/triton` (builtin form and `native/` form) run on the
//! simulator and give what an independent reference computes.
//!
//! GEMM reference: a plain Rust matmul over the same fp16 (bf16) inputs, exact products summed
//! in f64. Tolerance: the kernel accumulates in fp32 (error at most about K * 2^-24 * sum|a*b|,
//! below 1e-5 here with inputs in [-1, 1] and K <= 96) and rounds once to fp16 (half an ulp,
//! |ref| * 2^-11) or bf16 (|ref| * 2^-8), so we require |c - ref| <= |ref| * 2^-10 + 1e-4 for
//! fp16 and |ref| * 2^-7 + 1e-3 for bf16. Out-of-range rows/columns of the ragged launch must
//! be untouched (C starts as a NaN sentinel outside the M x N matrix).
//! Softmax reference: f64 softmax per row; tolerance 2e-6 relative + 1e-9 absolute (fp32 exp).

use std::path::PathBuf;

use spvopt_sim::numeric::{bf16_to_f32, f16_to_f32};
use spvopt_sim::{Arg, Launch};

fn triton(path: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/corpus/triton")
        .join(path)
}

fn load(path: &str) -> spvopt_ir::Module {
    let bytes = std::fs::read(triton(path)).expect("corpus file");
    spvopt_ir::load_bytes(&bytes).expect("loads")
}

fn buf(bytes: Vec<u8>) -> Arg {
    Arg::Buffer {
        bytes,
        ty: None,
        ulp: None,
    }
}

fn u32s(v: u32) -> Arg {
    Arg::Scalar {
        ty: "u32".into(),
        bytes: v.to_le_bytes().to_vec(),
    }
}

fn random(n_values: usize, seed: u64, ty: &str) -> Vec<u8> {
    let size = if ty == "f32" { 4 } else { 2 };
    spvopt_sim::launch::random_bytes(n_values * size, seed, ty, Some((-1.0, 1.0))).unwrap()
}

fn halfs(b: &[u8], bf16: bool) -> Vec<f64> {
    b.chunks(2)
        .map(|c| {
            let v = u16::from_le_bytes([c[0], c[1]]);
            if bf16 {
                bf16_to_f32(v) as f64
            } else {
                f16_to_f32(v) as f64
            }
        })
        .collect()
}

#[derive(Clone, Copy)]
struct Gemm {
    file: &'static str,
    kernel: &'static str,
    tile_m: u32,
    tile_n: u32,
    wg: u64,
    trans_b: bool,
    local: bool,
    bf16: bool,
}

fn run_gemm(g: Gemm, m: u32, n: u32, k: u32) -> Result<(), String> {
    let a = random((m * k) as usize, 1, if g.bf16 { "bf16" } else { "f16" });
    let b = random((k * n) as usize, 2, if g.bf16 { "bf16" } else { "f16" });
    // C: NaN sentinel so untouched and written elements are told apart
    let sentinel: u16 = if g.bf16 { 0x7fc1 } else { 0x7e01 };
    let c0: Vec<u8> = (0..m * n).flat_map(|_| sentinel.to_le_bytes()).collect();
    let programs = m.div_ceil(g.tile_m) as u64 * n.div_ceil(g.tile_n) as u64;
    let stride_b = if g.trans_b { k } else { n };
    let mut args = vec![
        buf(a.clone()),
        buf(b.clone()),
        buf(c0),
        u32s(m),
        u32s(n),
        u32s(k),
        u32s(k),
        u32s(stride_b),
        u32s(n),
    ];
    if g.local {
        args.push(Arg::Local(34816));
    }
    let launch = Launch {
        kernel: g.kernel.into(),
        global_size: [programs * g.wg, 1, 1],
        local_size: [g.wg, 1, 1],
        args,
        subgroup_size: None,
        max_steps: spvopt_sim::launch::DEFAULT_MAX_STEPS,
        block_layout: Default::default(),
        block_base_alignment: spvopt_sim::block_io_2d::BASE_ALIGNMENT,
    };
    for path in [g.file.to_string(), format!("native/{}", g.file)] {
        let module = load(&path);
        let out = spvopt_sim::run(&module, &launch).map_err(|e| format!("{path}: {e}"))?;
        let c = &out.buffers.iter().find(|x| x.0 == 2).ok_or("no C")?.1;
        let (av, bv, cv) = (halfs(&a, g.bf16), halfs(&b, g.bf16), halfs(c, g.bf16));
        let (m, n, k) = (m as usize, n as usize, k as usize);
        for i in 0..m {
            for j in 0..n {
                let mut r = 0.0f64;
                for x in 0..k {
                    let bkj = if g.trans_b {
                        bv[j * k + x]
                    } else {
                        bv[x * n + j]
                    };
                    r += av[i * k + x] * bkj;
                }
                let got = cv[i * n + j];
                let tol = if g.bf16 {
                    r.abs() / 128.0 + 1e-3
                } else {
                    r.abs() / 1024.0 + 1e-4
                };
                if (got - r).abs() > tol || got.is_nan() {
                    return Err(format!(
                        "{path} M={m} N={n} K={k}: C[{i}][{j}] = {got}, reference {r}"
                    ));
                }
            }
        }
        assert!(out.counters.instructions > 0);
        if !g.local {
            assert!(
                !out.counters.block2d.is_empty(),
                "{path}: no 2D block ops counted"
            );
        }
        assert!(!out.counters.mma.is_empty(), "{path}: no MMA counted");
    }
    Ok(())
}

const BLOCKPTR: Gemm = Gemm {
    file: "gemm_fp16_blockptr_128x128x32_w8__pvc.spv",
    kernel: "matmul_kernel_with_block_pointers",
    tile_m: 128,
    tile_n: 128,
    wg: 128,
    trans_b: false,
    local: false,
    bf16: false,
};

#[test]
fn gemm_fp16_blockptr_aligned_and_ragged() {
    run_gemm(BLOCKPTR, 128, 128, 64).unwrap();
    run_gemm(BLOCKPTR, 256, 256, 96).unwrap();
    run_gemm(BLOCKPTR, 100, 104, 40).unwrap();
}

/// The kernel's `read_transpose_32b_32r8x1c` on SIMD16 produces transposed rows 32 dwords wide,
/// wider than one register: invocation i holds columns i and i + 16 of each row (hardware register
/// layout, which the simulator implements for rows wider than subgroup-size dwords; spec
/// scenario 3 read literally would give columns 2i and 2i + 1). See sim/README.md.
#[test]
fn gemm_fp16_blockptr_trans_b() {
    let g = Gemm {
        file: "gemm_fp16_blockptr_transB_128x128x32_w8__pvc.spv",
        trans_b: true,
        ..BLOCKPTR
    };
    run_gemm(g, 256, 256, 96).unwrap();
    run_gemm(g, 100, 104, 40).unwrap();
}

#[test]
fn gemm_fp16_blockptr_8x512() {
    let g = Gemm {
        file: "gemm_fp16_blockptr_8x512x64_w32__pvc.spv",
        tile_m: 8,
        tile_n: 512,
        wg: 512,
        ..BLOCKPTR
    };
    run_gemm(g, 16, 512, 128).unwrap();
    run_gemm(g, 12, 520, 72).unwrap();
}

#[test]
fn gemm_fp16_no2d_local_memory() {
    let g = Gemm {
        file: "gemm_fp16_blockptr_128x128x32_w8__pvc_no2d.spv",
        local: true,
        ..BLOCKPTR
    };
    run_gemm(g, 128, 128, 64).unwrap();
    run_gemm(g, 100, 104, 40).unwrap();
}

#[test]
fn gemm_bf16_masked_pointers() {
    let g = Gemm {
        file: "gemm_bf16_ptr_128x128x32_w8__pvc.spv",
        kernel: "matmul_kernel",
        local: true,
        bf16: true,
        ..BLOCKPTR
    };
    run_gemm(g, 128, 128, 64).unwrap();
    run_gemm(g, 100, 104, 40).unwrap();
}

fn run_softmax(file: &str, wg: u64, rows: u32, cols: u32, programs: u64) {
    let stride = 1024u32;
    let input = random((rows * stride) as usize, 5, "f32");
    let launch = Launch {
        kernel: "softmax_kernel".into(),
        global_size: [programs * wg, 1, 1],
        local_size: [wg, 1, 1],
        args: vec![
            buf(vec![0u8; (rows * stride * 4) as usize]),
            buf(input.clone()),
            u32s(stride),
            u32s(stride),
            u32s(rows),
            u32s(cols),
            Arg::Local(16),
        ],
        subgroup_size: None,
        max_steps: spvopt_sim::launch::DEFAULT_MAX_STEPS,
        block_layout: Default::default(),
        block_base_alignment: spvopt_sim::block_io_2d::BASE_ALIGNMENT,
    };
    let out = spvopt_sim::run(&load(file), &launch).unwrap_or_else(|e| panic!("{file}: {e}"));
    let o = &out.buffers.iter().find(|x| x.0 == 0).unwrap().1;
    let f = |b: &[u8], i: usize| {
        f32::from_le_bytes([b[4 * i], b[4 * i + 1], b[4 * i + 2], b[4 * i + 3]]) as f64
    };
    for r in 0..rows as usize {
        let row: Vec<f64> = (0..cols as usize)
            .map(|c| f(&input, r * stride as usize + c))
            .collect();
        let mx = row.iter().cloned().fold(f64::MIN, f64::max);
        let sum: f64 = row.iter().map(|x| (x - mx).exp()).sum();
        for (c, x) in row.iter().enumerate() {
            let want = (x - mx).exp() / sum;
            let got = f(o, r * stride as usize + c);
            assert!(
                (got - want).abs() <= want.abs() * 2e-6 + 1e-9,
                "{file}: row {r} col {c}: {got} vs {want}"
            );
        }
    }
}

#[test]
fn softmax_sg16_and_sg32() {
    run_softmax("softmax_fp32_1024_w4_sg16__pvc.spv", 64, 6, 1024, 4);
    run_softmax("softmax_fp32_1024_w4_sg16__pvc.spv", 64, 5, 1000, 2);
    run_softmax("softmax_fp32_1024_w4_sg32__pvc.spv", 128, 6, 1024, 4);
    run_softmax("softmax_fp32_1024_w4_sg32__pvc.spv", 128, 3, 777, 2);
}
