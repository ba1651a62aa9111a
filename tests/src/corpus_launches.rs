//! Simulator launches for the Triton corpus kernels (parameters per tests/corpus/README.md),
//! shared by the pass tests that prove simulator equivalence on real compiler output.

use spvopt_sim::{Arg, Launch};

/// A corpus kernel and how to launch it.
#[derive(Clone, Copy, Debug)]
pub struct CorpusKernel {
    /// File name under `corpus/triton/` (and `corpus/triton/native/` for 2D-block kernels).
    pub file: &'static str,
    pub kernel: &'static str,
    pub tile_m: u32,
    pub tile_n: u32,
    pub work_group: u64,
    pub trans_b: bool,
    pub local_bytes: Option<u64>,
    pub bf16: bool,
}

/// The GEMMs of the corpus.
pub const GEMMS: [CorpusKernel; 5] = [
    CorpusKernel {
        file: "gemm_fp16_blockptr_128x128x32_w8__pvc.spv",
        kernel: "matmul_kernel_with_block_pointers",
        tile_m: 128,
        tile_n: 128,
        work_group: 128,
        trans_b: false,
        local_bytes: None,
        bf16: false,
    },
    CorpusKernel {
        file: "gemm_fp16_blockptr_transB_128x128x32_w8__pvc.spv",
        kernel: "matmul_kernel_with_block_pointers",
        tile_m: 128,
        tile_n: 128,
        work_group: 128,
        trans_b: true,
        local_bytes: None,
        bf16: false,
    },
    CorpusKernel {
        file: "gemm_fp16_blockptr_8x512x64_w32__pvc.spv",
        kernel: "matmul_kernel_with_block_pointers",
        tile_m: 8,
        tile_n: 512,
        work_group: 512,
        trans_b: false,
        local_bytes: None,
        bf16: false,
    },
    CorpusKernel {
        file: "gemm_fp16_blockptr_128x128x32_w8__pvc_no2d.spv",
        kernel: "matmul_kernel_with_block_pointers",
        tile_m: 128,
        tile_n: 128,
        work_group: 128,
        trans_b: false,
        local_bytes: Some(34816),
        bf16: false,
    },
    CorpusKernel {
        file: "gemm_bf16_ptr_128x128x32_w8__pvc.spv",
        kernel: "matmul_kernel",
        tile_m: 128,
        tile_n: 128,
        work_group: 128,
        trans_b: false,
        local_bytes: Some(34816),
        bf16: true,
    },
];

fn buffer(bytes: Vec<u8>) -> Arg {
    Arg::Buffer {
        bytes,
        ty: None,
        ulp: None,
    }
}

fn u32_arg(v: u32) -> Arg {
    Arg::Scalar {
        ty: "u32".into(),
        bytes: v.to_le_bytes().to_vec(),
    }
}

/// A launch of GEMM `g` computing C[M×N] = A[M×K]·B[K×N] on seeded random inputs.
pub fn gemm_launch(g: &CorpusKernel, m: u32, n: u32, k: u32) -> Launch {
    let ty = if g.bf16 { "bf16" } else { "f16" };
    let a = spvopt_sim::launch::random_bytes((m * k) as usize * 2, 1, ty, Some((-1.0, 1.0)))
        .expect("random A");
    let b = spvopt_sim::launch::random_bytes((k * n) as usize * 2, 2, ty, Some((-1.0, 1.0)))
        .expect("random B");
    let c = vec![0u8; (m * n) as usize * 2];
    let programs = u64::from(m.div_ceil(g.tile_m)) * u64::from(n.div_ceil(g.tile_n));
    let stride_b = if g.trans_b { k } else { n };
    let mut args = vec![
        buffer(a),
        buffer(b),
        buffer(c),
        u32_arg(m),
        u32_arg(n),
        u32_arg(k),
        u32_arg(k),
        u32_arg(stride_b),
        u32_arg(n),
    ];
    if let Some(l) = g.local_bytes {
        args.push(Arg::Local(l));
    }
    Launch::new(
        g.kernel,
        [programs * g.work_group, 1, 1],
        [g.work_group, 1, 1],
        args,
    )
}

/// The corpus README's launches: aligned (M=N=128, K=64) and ragged (M=100, N=104, K=40);
/// 8x512 tiles get M=16, N=512, K=128 and a ragged 12/520/72.
pub fn readme_launches(g: &CorpusKernel) -> Vec<Launch> {
    if g.tile_m == 8 {
        vec![gemm_launch(g, 16, 512, 128), gemm_launch(g, 12, 520, 72)]
    } else {
        vec![gemm_launch(g, 128, 128, 64), gemm_launch(g, 100, 104, 40)]
    }
}

/// Runs both modules with `launch`; `Err` describes the first difference.
pub fn same_results(
    a: &spvopt_ir::Module,
    b: &spvopt_ir::Module,
    launch: &Launch,
) -> Result<(), String> {
    let ra = spvopt_sim::run(a, launch).map_err(|e| format!("simulating the original: {e}"))?;
    let rb = spvopt_sim::run(b, launch)
        .map_err(|e| format!("simulating the transformed module: {e}"))?;
    for ((ia, da), (_, db)) in ra.buffers.iter().zip(&rb.buffers) {
        if da != db {
            let first = da.iter().zip(db).position(|(x, y)| x != y).unwrap_or(0);
            return Err(format!("buffer arg{ia} differs (first at byte {first})"));
        }
    }
    Ok(())
}
