//! spv-sim on cooperative matrices (SPV_KHR_cooperative_matrix, Subgroup scope) and tensor
//! addressing (SPV_NV_tensor_addressing + the tensor load / store of SPV_NV_cooperative_matrix2):
//! every corpus tensor kernel (`tests/corpus/tensor`, both storage-class variants) and the
//! hand-written kernels `tests/fixtures/sim/coop_*.spvasm`, each checked against expectations
//! computed here from the notes (docs/notes/tensor-addressing.md §2-3) and a plain Rust
//! matmul. The Workgroup-pointer corpus kernels are run through a wrapper kernel added to their
//! text that copies global buffers into local memory, calls the kernel and copies back.
//!
//! Fixtures are assembled with `spvopt_ir::text::assemble` and not validated: spirv-val 2025.5
//! rejects CrossWorkgroup pointers on the tensor load / store.
//!
//! Every run is repeated on the module after `convert-tensor-addressing` (pvc, the launch's
//! subgroup size declared), which must give the same buffers ([`run_both`]); the few shapes the
//! conversion cannot multiply (N not a multiple of the subgroup size) must fail with a message.

use std::path::{Path, PathBuf};

use spvopt_ir::text;
use spvopt_sim::{Arg, Launch, RunOutput, SimError};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/sim")
}

fn corpus(name: &str) -> PathBuf {
    spvopt_tests::corpus_dir().join("tensor").join(name)
}

/// The fixture's source with `(from, to)` replacements applied (each `from` must occur).
fn source(path: &Path, subs: &[(&str, String)]) -> String {
    let mut src = std::fs::read_to_string(path).expect("fixture");
    for (from, to) in subs {
        assert!(src.contains(from), "{}: `{from}` not found", path.display());
        src = src.replace(from, to);
    }
    src
}

fn assemble(src: &str) -> spvopt_ir::Module {
    let env = text::parse_target_env("spv1.6").unwrap();
    let words = text::assemble(src, env).expect("assembles");
    spvopt_ir::load_words(&words).expect("loads")
}

/// The module after `convert-tensor-addressing` for pvc, with `SubgroupSize sg` declared on
/// every entry point that has none (the launch's subgroup size).
fn converted(m: &spvopt_ir::Module, sg: u32) -> Result<spvopt_ir::Module, String> {
    use spvopt_ir::spirv::{self, Op};
    use spvopt_ir::{Inst, Section};
    let mut m = m.clone();
    let declared: Vec<u32> = m
        .section_insts(Section::ExecutionMode)
        .filter(|(_, i)| i.operand_word(1) == Some(spirv::ExecutionMode::SubgroupSize as u32))
        .filter_map(|(_, i)| i.operand_word(0))
        .collect();
    let entries: Vec<u32> = m
        .section_insts(Section::EntryPoint)
        .filter_map(|(_, i)| i.operand_word(1))
        .filter(|e| !declared.contains(e))
        .collect();
    for e in entries {
        m.push_to_section(
            Section::ExecutionMode,
            Inst::new(
                Op::ExecutionMode,
                None,
                None,
                &[e, spirv::ExecutionMode::SubgroupSize as u32, sg],
            ),
        );
    }
    let target = spvopt_analysis::Target::by_name("pvc").unwrap();
    let (words, _) =
        spvopt_passes::optimize_words(&m.to_words(), "convert-tensor-addressing", &target)
            .map_err(|e| e.to_string())?;
    spvopt_ir::load_words(&words).map_err(|e| e.to_string())
}

/// Runs `m` and its converted form (see [`converted`]) with `l`; the buffers must be equal.
/// `convertible` says whether the conversion must succeed (otherwise it must fail cleanly).
fn run_both(m: &spvopt_ir::Module, l: &Launch, convertible: bool) -> Result<RunOutput, SimError> {
    let out = spvopt_sim::run(m, l)?;
    let sg = l.subgroup_size.unwrap_or(16);
    match converted(m, sg) {
        Ok(c) => {
            assert!(convertible, "converted although expected to fail");
            let again = spvopt_sim::run(&c, l)
                .unwrap_or_else(|e| panic!("converted module fails to run: {e}"));
            assert_eq!(
                out.buffers, again.buffers,
                "converted module gives other buffers"
            );
        }
        Err(e) => assert!(!convertible, "conversion failed: {e}"),
    }
    Ok(out)
}

fn buf(bytes: Vec<u8>) -> Arg {
    Arg::Buffer {
        bytes,
        ty: None,
        ulp: None,
    }
}

fn u32a(v: u32) -> Arg {
    Arg::Scalar {
        ty: "u32".into(),
        bytes: v.to_le_bytes().to_vec(),
    }
}

fn u64a(v: u64) -> Arg {
    Arg::Scalar {
        ty: "u64".into(),
        bytes: v.to_le_bytes().to_vec(),
    }
}

fn random(n: usize, seed: u64) -> Vec<u8> {
    spvopt_sim::launch::random_bytes(n, seed, "u8", None).unwrap()
}

fn launch(kernel: &str, sg: u32, args: Vec<Arg>) -> Launch {
    let mut l = Launch::new(kernel, [sg as u64, 1, 1], [sg as u64, 1, 1], args);
    l.subgroup_size = Some(sg);
    l
}

fn buffer(out: &RunOutput, i: usize) -> &[u8] {
    &out.buffers.iter().find(|b| b.0 == i).expect("buffer").1
}

fn h16(b: &[u8], i: usize) -> u16 {
    u16::from_le_bytes([b[2 * i], b[2 * i + 1]])
}

fn put16(b: &mut [u8], i: usize, v: u16) {
    b[2 * i..2 * i + 2].copy_from_slice(&v.to_le_bytes());
}

/// f16 bits of a value that f16 represents exactly (normal numbers and zero).
fn f16_bits(x: f64) -> u16 {
    if x == 0.0 {
        return 0;
    }
    let sign = if x < 0.0 { 0x8000 } else { 0 };
    let a = x.abs();
    let e = a.log2().floor() as i32;
    let m = a / 2f64.powi(e) - 1.0;
    let frac = (m * 1024.0).round() as u16;
    assert!(
        (-14..=15).contains(&e) && (m * 1024.0).fract() == 0.0,
        "{x} is not exact"
    );
    sign | (((e + 15) as u16) << 10) | frac
}

fn f16_val(b: u16) -> f64 {
    let sign = if b & 0x8000 != 0 { -1.0 } else { 1.0 };
    let e = ((b >> 10) & 0x1f) as i32;
    let f = (b & 0x3ff) as f64;
    sign * if e == 0 {
        f * 2f64.powi(-24)
    } else {
        (1.0 + f / 1024.0) * 2f64.powi(e - 15)
    }
}

// ---- corpus kernels -------------------------------------------------------------------------

/// Adds kernel `wrap` to a Workgroup-pointer corpus kernel: `wrap(gsrc, gdst, lsrc, ldst, nsrc,
/// ndst, scalars...)` copies nsrc / ndst halfs of the global buffers into the local ones, calls
/// `%kernel(lsrc, ldst, scalars...)` between work-group barriers and copies ldst back to gdst.
fn with_wrapper(text: &str, scalars: usize) -> String {
    let mut out = String::new();
    for line in text.lines() {
        if line.contains("%kernel = OpFunction ") {
            out.push_str(
                "%w_ptr_g = OpTypePointer CrossWorkgroup %half\n\
                 %w_bool = OpTypeBool\n\
                 %w_ulong_0 = OpConstant %ulong 0\n\
                 %w_ulong_1 = OpConstant %ulong 1\n\
                 %w_scope = OpConstant %uint 2\n\
                 %w_sem = OpConstant %uint 272\n",
            );
            let mut fnty = String::from(
                "%w_fnty = OpTypeFunction %void %w_ptr_g %w_ptr_g %ptr_local_half %ptr_local_half %ulong %ulong",
            );
            for _ in 0..scalars {
                fnty.push_str(" %uint");
            }
            out.push_str(&fnty);
            out.push('\n');
        }
        out.push_str(line);
        out.push('\n');
        if line.contains("OpEntryPoint Kernel %kernel") {
            out.push_str("OpEntryPoint Kernel %wrap \"wrap\"\n");
        }
        if line.contains("OpExecutionMode %kernel LocalSize") {
            out.push_str("OpExecutionMode %wrap LocalSize 16 1 1\n");
        }
    }
    let copy = |k: usize, from: &str, from_ty: &str, to: &str, to_ty: &str, n: &str, prev: &str| {
        format!(
            "OpBranch %w_h{k}\n\
             %w_h{k} = OpLabel\n\
             %w_i{k} = OpPhi %ulong %w_ulong_0 {prev} %w_in{k} %w_b{k}\n\
             %w_c{k} = OpULessThan %w_bool %w_i{k} {n}\n\
             OpLoopMerge %w_m{k} %w_b{k} None\n\
             OpBranchConditional %w_c{k} %w_b{k} %w_m{k}\n\
             %w_b{k} = OpLabel\n\
             %w_p{k} = OpInBoundsPtrAccessChain {from_ty} {from} %w_i{k}\n\
             %w_v{k} = OpLoad %half %w_p{k}\n\
             %w_q{k} = OpInBoundsPtrAccessChain {to_ty} {to} %w_i{k}\n\
             OpStore %w_q{k} %w_v{k}\n\
             %w_in{k} = OpIAdd %ulong %w_i{k} %w_ulong_1\n\
             OpBranch %w_h{k}\n\
             %w_m{k} = OpLabel\n"
        )
    };
    out.push_str("%wrap = OpFunction %void None %w_fnty\n");
    for p in ["gs", "gd"] {
        out.push_str(&format!("%w_{p} = OpFunctionParameter %w_ptr_g\n"));
    }
    for p in ["ls", "ld"] {
        out.push_str(&format!("%w_{p} = OpFunctionParameter %ptr_local_half\n"));
    }
    for p in ["ns", "nd"] {
        out.push_str(&format!("%w_{p} = OpFunctionParameter %ulong\n"));
    }
    for i in 0..scalars {
        out.push_str(&format!("%w_a{i} = OpFunctionParameter %uint\n"));
    }
    out.push_str("%w_entry = OpLabel\n");
    let (g, l) = ("%w_ptr_g", "%ptr_local_half");
    out.push_str(&copy(1, "%w_gs", g, "%w_ls", l, "%w_ns", "%w_entry"));
    out.push_str(&copy(2, "%w_gd", g, "%w_ld", l, "%w_nd", "%w_m1"));
    out.push_str("OpControlBarrier %w_scope %w_scope %w_sem\n");
    let mut call = String::from("%w_call = OpFunctionCall %void %kernel %w_ls %w_ld");
    for i in 0..scalars {
        call.push_str(&format!(" %w_a{i}"));
    }
    out.push_str(&call);
    out.push('\n');
    out.push_str("OpControlBarrier %w_scope %w_scope %w_sem\n");
    out.push_str(&copy(3, "%w_ld", l, "%w_gd", g, "%w_nd", "%w_m2"));
    out.push_str("OpReturn\nOpFunctionEnd\n");
    out
}

/// Runs a corpus kernel with buffers `src`, `dst` and `scalars`: the CrossWorkgroup variant
/// directly, the Workgroup variant through [`with_wrapper`]. Returns dst.
fn run_corpus(file: &str, kernel: &str, src: &[u8], dst: &[u8], scalars: &[u32]) -> Vec<u8> {
    let path = corpus(file);
    let wg = file.contains("_workgroup");
    let (m, name, mut args) = if wg {
        let text = with_wrapper(&std::fs::read_to_string(&path).unwrap(), scalars.len());
        let m = assemble(&text);
        let args = vec![
            buf(src.to_vec()),
            buf(dst.to_vec()),
            Arg::Local(src.len() as u64),
            Arg::Local(dst.len() as u64),
            u64a(src.len() as u64 / 2),
            u64a(dst.len() as u64 / 2),
        ];
        (m, "wrap", args)
    } else {
        // the binary (.spv) beside the text
        let bytes = std::fs::read(path.with_extension("spv")).unwrap();
        let m = spvopt_ir::load_bytes(&bytes).unwrap();
        (m, kernel, vec![buf(src.to_vec()), buf(dst.to_vec())])
    };
    args.extend(scalars.iter().map(|&v| u32a(v)));
    let out = run_both(&m, &launch(name, 16, args), true)
        .unwrap_or_else(|e| panic!("{file} {scalars:?}: {e}"));
    buffer(&out, 1).to_vec()
}

/// rows, cols, ld, row0, col0 of the tile-copy cases (in bounds, partly out on each side).
const COPY_CASES: &[[u32; 5]] = &[
    [32, 48, 48, 16, 16],
    [40, 40, 48, 0, 0],
    [40, 40, 40, 32, 8],
    [40, 40, 44, 8, 32],
    [20, 20, 24, 16, 16],
    [16, 16, 16, 0, 0],
];

#[test]
fn corpus_tile_copy() {
    for (file, kernel) in [
        (
            "kernel_k1_tile_copy_crossworkgroup.spvasm",
            "tile_copy_16x16_f16",
        ),
        (
            "kernel_k2_tile_copy_workgroup.spvasm",
            "tile_copy_16x16_f16_local",
        ),
    ] {
        for (n, &[rows, cols, ld, row0, col0]) in COPY_CASES.iter().enumerate() {
            let len = (rows * ld) as usize;
            let src = random(2 * len, 10 + n as u64);
            let dst0 = random(2 * len, 100 + n as u64);
            let got = run_corpus(file, kernel, &src, &dst0, &[rows, cols, ld, row0, col0]);
            // tile copy: in-bounds elements copied, out-of-bounds stores dropped
            let mut want = dst0.clone();
            for r in 0..16 {
                for c in 0..16 {
                    let (y, x) = (row0 + r, col0 + c);
                    if y < rows && x < cols {
                        let i = (y * ld + x) as usize;
                        put16(&mut want, i, h16(&src, i));
                    }
                }
            }
            assert_eq!(got, want, "{file} case {n}");
        }
    }
}

/// N, K, M, ld_src, ld_dst, n0, k0, m0, valid_rows.
const TRANSPOSE_CASES: &[[u32; 9]] = &[
    [32, 32, 32, 32, 32, 16, 0, 16, 16],
    [32, 32, 32, 40, 36, 0, 16, 0, 5],
    // clamp to edge on both source dimensions
    [20, 24, 40, 24, 24, 8, 16, 8, 16],
    [20, 24, 40, 24, 24, 16, 12, 24, 11],
    // destination partly out of bounds (rows and columns), no rows valid
    [24, 32, 20, 32, 24, 16, 0, 12, 16],
    [24, 32, 20, 32, 24, 0, 0, 0, 0],
];

#[test]
fn corpus_tile_transpose_view_clip() {
    for (file, kernel) in [
        (
            "kernel_k3_tile_transpose_view_clip_crossworkgroup.spvasm",
            "tile_transpose_view_clip",
        ),
        (
            "kernel_k3_tile_transpose_view_clip_workgroup.spvasm",
            "tile_transpose_view_clip_local",
        ),
    ] {
        for (t, case) in TRANSPOSE_CASES.iter().enumerate() {
            let [nn, kk, mm, ld_src, ld_dst, n0, k0, m0, valid] = *case;
            let src = random(2 * (nn * ld_src) as usize, 7 + t as u64);
            let dst0 = random(2 * (mm * ld_dst) as usize, 70 + t as u64);
            let got = run_corpus(file, kernel, &src, &dst0, case);
            let mut want = dst0.clone();
            for r in 0..valid.min(16) {
                for c in 0..16 {
                    // B(r, c) = src[clampN(n0 + c) * ld_src + clampK(k0 + r)]
                    let sn = (n0 + c).min(nn - 1);
                    let sk = (k0 + r).min(kk - 1);
                    let v = h16(&src, (sn * ld_src + sk) as usize);
                    let (y, x) = (m0 + r, n0 + c);
                    if y < mm && x < nn {
                        put16(&mut want, (y * ld_dst + x) as usize, v);
                    }
                }
            }
            assert_eq!(got, want, "{file} case {t} {case:?}");
        }
    }
}

// ---- hand-written kernels --------------------------------------------------------------------

#[test]
fn khr_load_store_layouts_strides_length() {
    for sg in [16u32, 32] {
        for (rows, cols) in [(16u32, 16u32), (8, 16), (16, 8), (8, 12)] {
            for (lin, lout) in [(0u32, 0u32), (0, 1), (1, 0), (1, 1)] {
                for comp in [0u32, 1] {
                    let extent = |l: u32| if l == 0 { cols } else { rows };
                    let (s_in, s_out) = (extent(lin) + 3, extent(lout) + 5);
                    let outer = |l: u32| if l == 0 { rows } else { cols };
                    let src = random(2 * (outer(lin) * s_in) as usize, 3);
                    let dst0 = random(2 * (outer(lout) * s_out) as usize, 4);
                    let len = (rows * cols).div_ceil(sg);
                    let m = assemble(&source(
                        &fixtures().join("coop_load_store.spvasm"),
                        &[
                            ("ROWS", rows.to_string()),
                            ("COLS", cols.to_string()),
                            ("LAYOUT_IN", lin.to_string()),
                            ("LAYOUT_OUT", lout.to_string()),
                            ("COMP", comp.to_string()),
                        ],
                    ));
                    let args = vec![
                        buf(src.clone()),
                        buf(dst0.clone()),
                        buf(vec![0u8; 8 * sg as usize]),
                        u32a(s_in),
                        u32a(s_out),
                    ];
                    let out = run_both(&m, &launch("main", sg, args), true).unwrap();
                    let at = |l: u32, s: u32, r: u32, c: u32| {
                        (if l == 0 { r * s + c } else { c * s + r }) as usize
                    };
                    let mut want = dst0.clone();
                    for r in 0..rows {
                        for c in 0..cols {
                            let v = h16(&src, at(lin, s_in, r, c));
                            put16(&mut want, at(lout, s_out, r, c), v);
                        }
                    }
                    let what = format!("sg {sg} {rows}x{cols} layouts {lin}->{lout}");
                    assert_eq!(buffer(&out, 1), &want[..], "{what}");
                    // Length and the documented element layout: invocation i, component k holds
                    // row-major element i + k * SG
                    let aux = buffer(&out, 2);
                    for i in 0..sg {
                        let word = |j: u32| {
                            let b = &aux[4 * j as usize..4 * j as usize + 4];
                            u32::from_le_bytes([b[0], b[1], b[2], b[3]])
                        };
                        assert_eq!(word(2 * i), len, "{what} Length");
                        let e = i + comp * sg;
                        if e < rows * cols {
                            let v = h16(&src, at(lin, s_in, e / cols, e % cols));
                            assert_eq!(word(2 * i + 1), v as u32, "{what} invocation {i}");
                        }
                    }
                }
            }
        }
    }
}

/// Row-major matmul reference: D = A (m x k) * B (k x n) + C.
fn matmul_i(a: &[i128], b: &[i128], c: &[i128], m: usize, n: usize, k: usize) -> Vec<i128> {
    let mut d = c.to_vec();
    for r in 0..m {
        for col in 0..n {
            for i in 0..k {
                d[r * n + col] += a[r * k + i] * b[i * n + col];
            }
        }
    }
    d
}

fn muladd_module(types: [&str; 4], m: u32, n: u32, k: u32, flags: &str) -> spvopt_ir::Module {
    assemble(&source(
        &fixtures().join("coop_muladd.spvasm"),
        &[
            ("TA", types[0].into()),
            ("TB", types[1].into()),
            ("TC", types[2].into()),
            ("TR", types[3].into()),
            ("%uint M", format!("%uint {m}")),
            ("%uint N", format!("%uint {n}")),
            ("%uint K", format!("%uint {k}")),
            ("FLAGS", flags.into()),
        ],
    ))
}

#[test]
fn khr_muladd_f16_f32() {
    for sg in [16u32, 32] {
        for (m, n, k) in [(8usize, 16usize, 16usize), (16, 16, 16), (4, 8, 12)] {
            // small integers and halves: every product and sum is exact in f32
            let val = |i: usize, s: usize| ((i * 7 + s * 13) % 9) as f64 / 2.0 - 2.0;
            let a: Vec<f64> = (0..m * k).map(|i| val(i, 1)).collect();
            let b: Vec<f64> = (0..k * n).map(|i| val(i, 2)).collect();
            let c: Vec<f64> = (0..m * n).map(|i| val(i, 3) * 8.0).collect();
            let enc16 = |v: &[f64]| -> Vec<u8> {
                v.iter().flat_map(|&x| f16_bits(x).to_le_bytes()).collect()
            };
            let enc32 = |v: &[f64]| -> Vec<u8> {
                v.iter().flat_map(|&x| (x as f32).to_le_bytes()).collect()
            };
            let module = muladd_module(
                ["%half", "%half", "%float", "%float"],
                m as u32,
                n as u32,
                k as u32,
                "NoneKHR",
            );
            let args = vec![
                buf(enc16(&a)),
                buf(enc16(&b)),
                buf(enc32(&c)),
                buf(vec![0u8; 4 * m * n]),
            ];
            // MMA atoms need one column per invocation and whole 32-byte K steps.
            let convertible = sg == 16 && n % 16 == 0 && k % 16 == 0;
            let out = run_both(&module, &launch("main", sg, args), convertible).unwrap();
            let d = buffer(&out, 3);
            for r in 0..m {
                for col in 0..n {
                    let want =
                        c[r * n + col] + (0..k).map(|i| a[r * k + i] * b[i * n + col]).sum::<f64>();
                    let at = 4 * (r * n + col);
                    let got = f32::from_le_bytes([d[at], d[at + 1], d[at + 2], d[at + 3]]);
                    assert_eq!(got as f64, want, "sg {sg} m{m}n{n}k{k} ({r},{col})");
                }
            }
        }
    }
}

#[test]
fn khr_muladd_int8_int32() {
    let sat = "MatrixASignedComponentsKHR|MatrixBSignedComponentsKHR|MatrixCSignedComponentsKHR|MatrixResultSignedComponentsKHR|SaturatingAccumulationKHR";
    let signed = "MatrixASignedComponentsKHR|MatrixBSignedComponentsKHR|MatrixCSignedComponentsKHR|MatrixResultSignedComponentsKHR";
    for sg in [16u32, 32] {
        for (flags, is_signed, saturating) in [
            (signed, true, false),
            ("NoneKHR", false, false),
            (sat, true, true),
        ] {
            let (m, n, k) = (8usize, 16usize, 32usize);
            let a8 = random(m * k, 21);
            let b8 = random(k * n, 22);
            // C near the int32 limits so that saturation (and wrapping without it) matters
            let c32: Vec<i32> = (0..m * n)
                .map(|i| match i % 3 {
                    0 => i32::MAX - (i as i32) * 1000,
                    1 => i32::MIN + (i as i32) * 1000,
                    _ => i as i32 * 77 - 5000,
                })
                .collect();
            let cb: Vec<u8> = c32.iter().flat_map(|x| x.to_le_bytes()).collect();
            let module = muladd_module(
                ["%uchar", "%uchar", "%uint", "%uint"],
                m as u32,
                n as u32,
                k as u32,
                flags,
            );
            let args = vec![
                buf(a8.clone()),
                buf(b8.clone()),
                buf(cb),
                buf(vec![0u8; 4 * m * n]),
            ];
            // Saturating accumulation has no subgroup MMA form.
            let convertible = sg == 16 && n % 16 == 0 && k % 32 == 0 && !saturating;
            let out = run_both(&module, &launch("main", sg, args), convertible).unwrap();
            let d = buffer(&out, 3);
            let ext = |x: u8| {
                if is_signed {
                    x as i8 as i128
                } else {
                    x as i128
                }
            };
            let a: Vec<i128> = a8.iter().map(|&x| ext(x)).collect();
            let b: Vec<i128> = b8.iter().map(|&x| ext(x)).collect();
            let c: Vec<i128> = c32
                .iter()
                .map(|&x| {
                    if is_signed {
                        x as i128
                    } else {
                        x as u32 as i128
                    }
                })
                .collect();
            let want = matmul_i(&a, &b, &c, m, n, k);
            for (i, &w) in want.iter().enumerate() {
                let w = if saturating {
                    w.clamp(i32::MIN as i128, i32::MAX as i128)
                } else {
                    w
                };
                let got = u32::from_le_bytes([d[4 * i], d[4 * i + 1], d[4 * i + 2], d[4 * i + 3]]);
                assert_eq!(got, w as u32, "sg {sg} flags {flags} element {i}");
            }
        }
    }
}

#[test]
fn elementwise_ops_on_coop_matrices() {
    for sg in [16u32, 32] {
        let val = |i: usize, s: usize| ((i * 5 + s * 11) % 9) as f64 - 4.0;
        let a: Vec<f64> = (0..256).map(|i| val(i, 1)).collect();
        let b: Vec<f64> = (0..256).map(|i| val(i, 2)).collect();
        let enc =
            |v: &[f64]| -> Vec<u8> { v.iter().flat_map(|&x| f16_bits(x).to_le_bytes()).collect() };
        let module =
            assemble(&std::fs::read_to_string(fixtures().join("coop_elementwise.spvasm")).unwrap());
        let args = vec![buf(enc(&a)), buf(enc(&b)), buf(vec![0u8; 1024])];
        let out = run_both(&module, &launch("main", sg, args), true).unwrap();
        let r = buffer(&out, 2);
        for e in 0..256 {
            let got = f32::from_le_bytes([r[4 * e], r[4 * e + 1], r[4 * e + 2], r[4 * e + 3]]);
            // component 0 of invocation i is element i
            let want = if e < sg as usize {
                7.0
            } else {
                0.5 * -(a[e] + a[e] * b[e])
            };
            assert_eq!(got as f64, want, "sg {sg} element {e}");
        }
    }
}

/// The three output buffers of the tensor-flow kernel.
type FlowBuffers = (Vec<u8>, Vec<u8>, Vec<u8>);

fn flow_run(rows: u32, cols: u32, ld: u32, sel: u32, nonuni: u32) -> Result<FlowBuffers, SimError> {
    let module =
        assemble(&std::fs::read_to_string(fixtures().join("coop_tensor_flow.spvasm")).unwrap());
    let src = random(2 * (rows * ld) as usize, 5);
    let dst0 = random(2 * (rows * ld) as usize, 6);
    let args = vec![
        buf(src.clone()),
        buf(dst0.clone()),
        u32a(rows),
        u32a(cols),
        u32a(ld),
        u32a(sel),
        u32a(nonuni),
    ];
    let out = run_both(&module, &launch("main", 16, args), true)?;
    Ok((src, dst0, buffer(&out, 1).to_vec()))
}

#[test]
fn layouts_through_phi_variable_select_and_clamp_value() {
    let (rows, cols, ld) = (24u32, 20u32, 24u32);
    for sel in [0u32, 1] {
        let (src, dst0, got) = flow_run(rows, cols, ld, sel, 0).unwrap();
        // sel != 0: tile (0,0) -> tile (16,0); sel == 0: tile (16,0) -> tile (0,0)
        let (from, to) = if sel != 0 { (0, 16) } else { (16, 0) };
        let mut want = dst0.clone();
        for r in 0..16 {
            for c in 0..16 {
                let (sy, dy) = (from + r, to + r);
                let v = if sy < rows && c < cols {
                    h16(&src, (sy * ld + c) as usize)
                } else {
                    0x3C00 // clamp value 1.0
                };
                if dy < rows && c < cols {
                    put16(&mut want, (dy * ld + c) as usize, v);
                }
            }
        }
        assert_eq!(got, want, "sel {sel}");
        assert_eq!(f16_val(0x3C00), 1.0);
    }
}

#[test]
fn undefined_behaviour_is_reported() {
    // a layout that differs between invocations
    let e = flow_run(24, 20, 24, 1, 1).unwrap_err().to_string();
    assert!(e.contains("not dynamically uniform"), "{e}");
    // a misaligned pointer (2 bytes past a 16-byte boundary)
    let text = source(
        &corpus("kernel_k1_tile_copy_crossworkgroup.spvasm"),
        &[
            (
                "%tile = OpCooperativeMatrixLoadTensorNV %mat_acc %src ",
                "%src1 = OpInBoundsPtrAccessChain %ptr_global_half %src %ulong_1\n%tile = OpCooperativeMatrixLoadTensorNV %mat_acc %src1 ".into(),
            ),
            (
                "%uint_16 = OpConstant %uint 16",
                "%uint_16 = OpConstant %uint 16\n%ulong_1 = OpConstant %ulong 1".into(),
            ),
        ],
    );
    let m = assemble(&text);
    let args = vec![
        buf(vec![0u8; 2048]),
        buf(vec![0u8; 2048]),
        u32a(32),
        u32a(32),
        u32a(32),
        u32a(0),
        u32a(0),
    ];
    let e = spvopt_sim::run(&m, &launch("tile_copy_16x16_f16", 16, args))
        .unwrap_err()
        .to_string();
    assert!(e.contains("misaligned"), "{e}");
    // a partial subgroup: 16 invocations of a 32-wide subgroup
    let m = spvopt_ir::load_bytes(
        &std::fs::read(corpus("kernel_k1_tile_copy_crossworkgroup.spv")).unwrap(),
    )
    .unwrap();
    let args = vec![
        buf(vec![0u8; 2048]),
        buf(vec![0u8; 2048]),
        u32a(32),
        u32a(32),
        u32a(32),
        u32a(0),
        u32a(0),
    ];
    let mut l = Launch::new("tile_copy_16x16_f16", [16, 1, 1], [16, 1, 1], args);
    l.subgroup_size = Some(32);
    let e = spvopt_sim::run(&m, &l).unwrap_err().to_string();
    assert!(e.contains("partial subgroup"), "{e}");
}
