//! `lower-mma`: the table-driven test over every profile, the corpus GEMMs on dg2 and mtl under
//! `-O`, errors, statistics and linearity. (The pass fixtures `lower_mma_*` run in
//! the `pass_fixtures` test target.)
//!
//! Table: every element-type class of SPV_INTEL_subgroup_matrix_multiply_accumulate
//! (int8, int4, f16 -> f32, f16 -> f16, bf16 -> f32, bf16 -> bf16, tf32) at subgroup sizes 8 and
//! 16, M in {1, 2, 4, 8} (the tables) plus 16 (two atoms), K = the table's K and twice it, on
//! every profile: after lower-mma no MMA is left that the profile lacks, the output validates,
//! and spv-sim gives bit-identical results to the input on random operands.

use spvopt_analysis::block_io::block_instructions;
use spvopt_analysis::target::MmaTypes;
use spvopt_analysis::Target;
use spvopt_ir::{text, Module};
use spvopt_passes::lower_mma::plan;
use spvopt_passes::{registry, run_pipeline, Pipeline, RunReport};
use spvopt_sim::{Arg, Launch};
use spvopt_tests::corpus_launches::{gemm_launch, same_results, GEMMS};

fn run(m: &mut Module, pipeline: &str, target: &Target) -> Result<RunReport, String> {
    let p = Pipeline::parse(pipeline).map_err(|e| e.to_string())?;
    run_pipeline(&p, m, target, &mut spvopt_tests::checked_hooks()).map_err(|e| e.to_string())
}

/// Every MMA left in `m` is one `target` runs.
fn illegal_mmas(m: &Module, target: &Target) -> Vec<String> {
    plan::mma_instructions(m)
        .into_iter()
        .filter(|&i| {
            let facts = spvopt_analysis::KernelFacts::build(m);
            !matches!(
                plan::classify(m, &facts, i, target),
                Ok(plan::Action::Native)
            )
        })
        .map(|i| spvopt_passes::edit::location(m, i))
        .collect()
}

/// One case of the table: operand types and the launch's random data types.
struct Case {
    sg: u32,
    types: MmaTypes,
    m: u32,
    k: u32,
}

fn vec_ty(s: &str, n: u32) -> String {
    if n == 1 {
        s.to_string()
    } else {
        format!("v{n}{s}")
    }
}

impl Case {
    fn elem_bits(&self) -> u32 {
        match self.types {
            MmaTypes::Int8ToInt32 => 8,
            MmaTypes::Int4ToInt32 => 4,
            MmaTypes::Tf32ToF32 => 32,
            _ => 16,
        }
    }
    /// (A, B, C = Result) as (scalar, count).
    fn operand_types(&self) -> Option<[(&'static str, u32); 3]> {
        let e = self.elem_bits();
        let a = if self.k.is_multiple_of(self.sg) {
            let row = self.k / self.sg * e;
            let s = match row {
                8 => "uchar",
                16 => "ushort",
                32 => "uint",
                64 => "ulong",
                _ => return None,
            };
            if self.types == MmaTypes::Tf32ToF32 {
                // TF32 operands are 32-bit components: K/N of them per row. (Vectors above
                // 16 components would need VectorAnyINTEL: that case is left out.)
                let n = self.m * (self.k / self.sg);
                if n > 16 {
                    return None;
                }
                ("float", n)
            } else {
                (s, self.m)
            }
        } else if self.sg.is_multiple_of(self.k) {
            ("float", self.m.div_ceil(self.sg / self.k))
        } else {
            return None;
        };
        let b = if e == 32 {
            ("float", self.k)
        } else {
            ("uint", self.k * e / 32)
        };
        let c = match self.types {
            MmaTypes::Int8ToInt32 | MmaTypes::Int4ToInt32 => "uint",
            MmaTypes::F16ToF16 => "half",
            MmaTypes::Bf16ToBf16 => "ushort",
            _ => "float",
        };
        Some([a, b, (c, self.m)])
    }
    fn mask(&self) -> &'static str {
        match self.types {
            MmaTypes::Int8ToInt32 => "MatrixASignedComponentsINTEL|MatrixAPackedInt8INTEL|MatrixBPackedInt8INTEL",
            MmaTypes::Int4ToInt32 => "MatrixBSignedComponentsINTEL|MatrixAPackedInt4INTEL|MatrixBPackedInt4INTEL",
            MmaTypes::F16ToF32 | MmaTypes::F16ToF16 => {
                "MatrixAPackedFloat16INTEL|MatrixBPackedFloat16INTEL"
            }
            MmaTypes::Bf16ToF32 => "MatrixAPackedBFloat16INTEL|MatrixBPackedBFloat16INTEL",
            MmaTypes::Bf16ToBf16 => {
                "MatrixCBFloat16INTEL|MatrixResultBFloat16INTEL|MatrixAPackedBFloat16INTEL|MatrixBPackedBFloat16INTEL"
            }
            MmaTypes::Tf32ToF32 => "MatrixATF32INTEL|MatrixBTF32INTEL",
        }
    }
    fn source(&self) -> Option<String> {
        let [a, b, c] = self.operand_types()?;
        let (ta, tb, tc) = (vec_ty(a.0, a.1), vec_ty(b.0, b.1), vec_ty(c.0, c.1));
        let mut s = String::from(
            "OpCapability Addresses\nOpCapability Kernel\nOpCapability SubgroupDispatch\n\
             OpCapability Int8\nOpCapability Int16\nOpCapability Int64\nOpCapability Float16\n\
             OpCapability Vector16\nOpCapability SubgroupMatrixMultiplyAccumulateINTEL\n\
             OpExtension \"SPV_INTEL_subgroup_matrix_multiply_accumulate\"\n\
             OpMemoryModel Physical64 OpenCL\nOpEntryPoint Kernel %main \"main\" %lid_var\n",
        );
        s += &format!("OpExecutionMode %main SubgroupSize {}\n", self.sg);
        s += "OpDecorate %lid_var BuiltIn SubgroupLocalInvocationId\n\
              OpDecorate %lid_var Constant\n%void = OpTypeVoid\n%uchar = OpTypeInt 8 0\n\
              %ushort = OpTypeInt 16 0\n%uint = OpTypeInt 32 0\n%ulong = OpTypeInt 64 0\n\
              %half = OpTypeFloat 16\n%float = OpTypeFloat 32\n";
        let mut declared = Vec::new();
        for (sc, n) in [a, b, c] {
            let t = vec_ty(sc, n);
            if n > 1 && !declared.contains(&t) {
                s += &format!("%{t} = OpTypeVector %{sc} {n}\n");
                declared.push(t.clone());
            }
        }
        let mut ptrs = Vec::new();
        for t in [&ta, &tb, &tc] {
            if !ptrs.contains(t) {
                s += &format!("%ptr_{t} = OpTypePointer CrossWorkgroup %{t}\n");
                ptrs.push(t.clone());
            }
        }
        s += &format!(
            "%kdim = OpConstant %uint {k}\n%ptr_in_uint = OpTypePointer Input %uint\n\
             %lid_var = OpVariable %ptr_in_uint Input\n\
             %fnty = OpTypeFunction %void %ptr_{ta} %ptr_{tb} %ptr_{tc} %ptr_{tc}\n\
             %main = OpFunction %void None %fnty\n%pa = OpFunctionParameter %ptr_{ta}\n\
             %pb = OpFunctionParameter %ptr_{tb}\n%pc = OpFunctionParameter %ptr_{tc}\n\
             %pd = OpFunctionParameter %ptr_{tc}\n%entry = OpLabel\n\
             %lid = OpLoad %uint %lid_var\n\
             %qa = OpInBoundsPtrAccessChain %ptr_{ta} %pa %lid\n\
             %qb = OpInBoundsPtrAccessChain %ptr_{tb} %pb %lid\n\
             %qc = OpInBoundsPtrAccessChain %ptr_{tc} %pc %lid\n\
             %qd = OpInBoundsPtrAccessChain %ptr_{tc} %pd %lid\n\
             %a = OpLoad %{ta} %qa\n%b = OpLoad %{tb} %qb\n%c = OpLoad %{tc} %qc\n\
             %r = OpSubgroupMatrixMultiplyAccumulateINTEL %{tc} %kdim %a %b %c {mask}\n\
             OpStore %qd %r\nOpReturn\nOpFunctionEnd\n",
            k = self.k,
            mask = self.mask()
        );
        Some(s)
    }
    fn launch(&self) -> Launch {
        let [a, b, c] = self.operand_types().expect("shape");
        let bytes = |(s, n): (&str, u32)| {
            let w = match s {
                "uchar" => 1,
                "ushort" | "half" => 2,
                "ulong" => 8,
                _ => 4,
            };
            (w * n * self.sg) as usize
        };
        let (ab_ty, c_ty, range) = match self.types {
            MmaTypes::Int8ToInt32 | MmaTypes::Int4ToInt32 => ("u8", "i32", None),
            MmaTypes::F16ToF32 => ("f16", "f32", Some((-1.0, 1.0))),
            MmaTypes::F16ToF16 => ("f16", "f16", Some((-1.0, 1.0))),
            MmaTypes::Bf16ToF32 => ("bf16", "f32", Some((-1.0, 1.0))),
            MmaTypes::Bf16ToBf16 => ("bf16", "bf16", Some((-1.0, 1.0))),
            MmaTypes::Tf32ToF32 => ("f32", "f32", Some((-1.0, 1.0))),
        };
        let rnd = |n: usize, seed: u64, ty: &str| Arg::Buffer {
            bytes: spvopt_sim::launch::random_bytes(n, seed, ty, range).expect("random"),
            ty: None,
            ulp: None,
        };
        Launch::new(
            "main",
            [u64::from(self.sg), 1, 1],
            [u64::from(self.sg), 1, 1],
            vec![
                rnd(bytes(a), 11, ab_ty),
                rnd(bytes(b), 12, ab_ty),
                rnd(bytes(c), 13, c_ty),
                Arg::Buffer {
                    bytes: vec![0; bytes(c)],
                    ty: None,
                    ulp: None,
                },
            ],
        )
    }
}

const ALL_TYPES: [MmaTypes; 7] = [
    MmaTypes::Int8ToInt32,
    MmaTypes::Int4ToInt32,
    MmaTypes::F16ToF32,
    MmaTypes::F16ToF16,
    MmaTypes::Bf16ToF32,
    MmaTypes::Bf16ToBf16,
    MmaTypes::Tf32ToF32,
];

#[test]
fn every_table_shape_on_every_profile_is_native_or_lowered() {
    let mut cases = 0;
    let (mut native, mut split, mut emulated) = (0, 0, 0);
    let mut failures = Vec::new();
    for sg in [8, 16] {
        for types in ALL_TYPES {
            for m in [1, 2, 4, 8, 16] {
                for k in [types.k(), 2 * types.k()] {
                    let case = Case { sg, types, m, k };
                    let Some(src) = case.source() else {
                        continue;
                    };
                    let words = text::assemble(&src, text::TargetEnv::Universal_1_4)
                        .unwrap_or_else(|e| panic!("{src}\n{e}"));
                    let original = spvopt_ir::load_words(&words).unwrap();
                    let launch = case.launch();
                    for target in Target::all() {
                        cases += 1;
                        let what = format!("{} SG{sg} M{m} K{k} on {}", types.name(), target.name);
                        let mut out = original.clone();
                        let report = match run(&mut out, "lower-mma", &target) {
                            Ok(r) => r,
                            Err(e) => {
                                failures.push(format!("{what}: {e}"));
                                continue;
                            }
                        };
                        let st = &report.passes[0].stats;
                        assert_eq!(
                            st.get("mma_native") + st.get("mma_split") + st.get("mma_emulated"),
                            st.get("mma_candidates"),
                            "{what}: {st}"
                        );
                        native += st.get("mma_native");
                        split += st.get("mma_split");
                        emulated += st.get("mma_emulated");
                        let left = illegal_mmas(&out, &target);
                        if !left.is_empty() {
                            failures.push(format!("{what}: illegal MMAs left: {left:?}"));
                            continue;
                        }
                        let out_words = out.to_words();
                        if let Err(e) = text::validate(&out_words, text::TargetEnv::Universal_1_4) {
                            failures.push(format!("{what}: output does not validate: {e}"));
                            continue;
                        }
                        let mut again = spvopt_ir::load_words(&out_words).unwrap();
                        let r2 = run(&mut again, "lower-mma", &target).unwrap();
                        if r2.changed() || again.to_words() != out_words {
                            failures.push(format!("{what}: not idempotent"));
                        }
                        if report.changed() {
                            if let Err(e) = same_results(&original, &out, &launch) {
                                failures.push(format!("{what}: {e}"));
                            }
                        }
                    }
                }
            }
        }
    }
    eprintln!(
        "lower-mma table: {cases} (shape, profile) cases: {native} native, {split} split, \
         {emulated} emulated"
    );
    assert!(split > 0 && emulated > 0 && native > 0);
    assert!(
        failures.is_empty(),
        "{} failure(s):\n{}",
        failures.len(),
        failures.join("\n")
    );
}

fn triton_pair(file: &str) -> [(String, std::path::PathBuf); 2] {
    let dir = spvopt_tests::corpus_dir().join("triton");
    [
        (file.to_string(), dir.join(file)),
        (format!("native/{file}"), dir.join("native").join(file)),
    ]
}

/// The corpus GEMMs (pvc builds, builtin and native form) under `-O --target dg2 / mtl`: no
/// MMA the target lacks, no 2D block op, and spv-sim results bit-identical to the pvc
/// original (aligned and ragged launches); the instruction counts are printed next to the
/// native ones.
#[test]
fn corpus_gemms_on_dg2_and_mtl_match_pvc() {
    let mut checked = 0;
    for g in GEMMS.iter() {
        for (name, path) in triton_pair(g.file) {
            if !path.exists() {
                continue;
            }
            let original = spvopt_ir::load_bytes(&std::fs::read(&path).unwrap()).unwrap();
            let launches = if g.tile_m == 8 {
                vec![gemm_launch(g, 16, 512, 64), gemm_launch(g, 12, 520, 40)]
            } else {
                vec![gemm_launch(g, 128, 128, 64), gemm_launch(g, 100, 104, 40)]
            };
            let native_counters = spvopt_sim::run(&original, &launches[0])
                .unwrap_or_else(|e| panic!("{name}: {e}"))
                .counters;
            for target in [Target::dg2(), Target::mtl()] {
                let mut out = original.clone();
                let report = run(&mut out, registry::OPTIMIZE_PIPELINE, &target)
                    .unwrap_or_else(|e| panic!("{name} on {}: {e}", target.name));
                let left = illegal_mmas(&out, &target);
                assert!(left.is_empty(), "{name} on {}: {left:?}", target.name);
                assert!(
                    block_instructions(&out).is_empty(),
                    "{name} on {}: 2D block ops left",
                    target.name
                );
                let lm = report
                    .passes
                    .iter()
                    .find(|p| p.name == "lower-mma")
                    .expect("lower-mma ran");
                assert!(lm.stats.get("mma_emulated") > 0, "{name}: {}", lm.stats);
                for p in &report.passes {
                    if p.name == "legalize" {
                        assert_eq!(p.stats.get("mma_unsupported"), 0, "{name}");
                        assert!(
                            p.stats.warnings().is_empty(),
                            "{name}: {:?}",
                            p.stats.warnings
                        );
                    }
                }
                let out = spvopt_ir::load_words(&out.to_words()).unwrap();
                let mut counters = None;
                for l in &launches {
                    same_results(&original, &out, l)
                        .unwrap_or_else(|e| panic!("{name} on {}: {e}", target.name));
                    if counters.is_none() {
                        counters = Some(spvopt_sim::run(&out, l).unwrap().counters);
                    }
                }
                let c = counters.unwrap();
                eprintln!(
                    "{name} on {} ({}): {} MMAs {}; simulated instructions {} \
                     (pvc native {}, x{:.1}), MMA ops executed {} (pvc {})",
                    target.name,
                    if g.tile_m == 8 {
                        "M=16 N=512 K=64"
                    } else {
                        "M=N=128 K=64"
                    },
                    lm.stats.get("mma_candidates"),
                    lm.stats,
                    c.instructions,
                    native_counters.instructions,
                    c.instructions as f64 / native_counters.instructions as f64,
                    c.mma.values().sum::<u64>(),
                    native_counters.mma.values().sum::<u64>()
                );
                checked += 1;
            }
        }
    }
    assert!(
        checked >= 16,
        "expected the corpus GEMMs, checked {checked}"
    );
}

/// Builtin-call input (Triton's `intel_sub_group_f16_f16_matrix_mad_k16` calls) to lower-mma
/// alone: the calls are raised inside the pass, then emulated; results bit-identical.
#[test]
fn lower_mma_alone_handles_builtin_calls() {
    let g = &GEMMS[0];
    let path = spvopt_tests::corpus_dir().join("triton").join(g.file);
    let original = spvopt_ir::load_bytes(&std::fs::read(path).unwrap()).unwrap();
    let mut out = original.clone();
    let r = run(&mut out, "lower-mma", &Target::mtl()).unwrap();
    // The pass manager raises builtin calls before a pass that works on native ops (an
    // implicit raise-builtins step); the pass would raise them itself when run directly.
    let raised =
        r.passes[0].stats.get("raised_mma") + r.passes[1].stats.get("raised_builtin_calls");
    assert!(raised > 0, "{:?}", r.passes);
    let st = &r
        .passes
        .iter()
        .find(|p| p.name == "lower-mma")
        .unwrap()
        .stats;
    assert_eq!(st.get("mma_emulated"), st.get("mma_candidates"), "{st}");
    assert!(plan::mma_instructions(&out).is_empty());
    let out = spvopt_ir::load_words(&out.to_words()).unwrap();
    let (m, n, k) = (100usize, 104usize, 40usize);
    let launch = gemm_launch(g, m as u32, n as u32, k as u32);
    same_results(&original, &out, &launch).unwrap();
    // And against an independent reference (exact products summed in f64), within the
    // tolerance of tests/sim_triton.rs: |c - ref| <= |ref| * 2^-10 + 1e-4 (fp32 accumulation,
    // one rounding to fp16).
    let halfs = |arg: &Arg| match arg {
        Arg::Buffer { bytes, .. } => bytes
            .chunks(2)
            .map(|c| {
                f64::from(spvopt_sim::numeric::f16_to_f32(u16::from_le_bytes([
                    c[0], c[1],
                ])))
            })
            .collect::<Vec<f64>>(),
        _ => Vec::new(),
    };
    let (a, b) = (halfs(&launch.args[0]), halfs(&launch.args[1]));
    let res = spvopt_sim::run(&out, &launch).unwrap();
    let c = &res.buffers.iter().find(|x| x.0 == 2).expect("C").1;
    let c: Vec<f64> = c
        .chunks(2)
        .map(|x| {
            f64::from(spvopt_sim::numeric::f16_to_f32(u16::from_le_bytes([
                x[0], x[1],
            ])))
        })
        .collect();
    for i in 0..m {
        for j in 0..n {
            let r: f64 = (0..k).map(|x| a[i * k + x] * b[x * n + j]).sum();
            let got = c[i * n + j];
            assert!(
                (got - r).abs() <= r.abs() / 1024.0 + 1e-4,
                "C[{i}][{j}] = {got}, reference {r}"
            );
        }
    }
}

/// One f64 MMA (M 2, K 16, SG16) in kernel `my_kernel`.
const F64_MMA: &str = include_str!("../fixtures/diagnostics/f64_mma.spvasm");

#[test]
fn an_mma_no_pass_can_lower_is_a_located_error_and_fails_o() {
    // f64 M 2, K 16 on SG16: well-formed, but no profile has f64 MMAs and the emulation
    // does not handle f64.
    let words = text::assemble(F64_MMA, text::TargetEnv::Universal_1_4).unwrap();
    let m0 = spvopt_ir::load_words(&words).unwrap();
    for target in [Target::mtl(), Target::dg2(), Target::pvc()] {
        let mut m = m0.clone();
        let e = run(&mut m, "lower-mma", &target).unwrap_err();
        assert!(
            e.starts_with("lower-mma: 1 MMA(s) cannot be lowered"),
            "{e}"
        );
        assert!(
            e.contains("OpSubgroupMatrixMultiplyAccumulateINTEL %") && e.contains("in function %"),
            "{e}"
        );
        assert!(!e.contains('\n'), "one line: {e}");
        assert!(e.contains("f64"), "{e}");
        let err = spvopt_passes::optimize_words(&words, registry::OPTIMIZE_PIPELINE, &target)
            .unwrap_err();
        assert!(err.to_string().contains("lower-mma"), "{err}");
        // legalize alone warns about it (no pass can fix it).
        let mut m = m0.clone();
        let r = run(&mut m, "legalize", &target).unwrap();
        assert_eq!(r.passes[0].stats.get("mma_unsupported"), 1);
        assert_eq!(r.passes[0].stats.warnings().len(), 1);
    }
}

#[test]
fn legalize_does_not_warn_about_what_lower_mma_fixes() {
    let path =
        spvopt_tests::corpus_dir().join("triton/native/gemm_fp16_blockptr_128x128x32_w8__pvc.spv");
    let m0 = spvopt_ir::load_bytes(&std::fs::read(path).unwrap()).unwrap();
    let mmas = plan::mma_instructions(&m0).len() as u64;
    assert!(mmas > 0);
    for target in [Target::dg2(), Target::mtl()] {
        let mut m = m0.clone();
        let r = run(&mut m, "legalize", &target).unwrap();
        let st = &r.passes[0].stats;
        assert_eq!(st.get("mma_for_lower_mma"), mmas);
        assert_eq!(st.get("mma_unsupported"), 0);
        assert!(st.warnings().is_empty(), "{:?}", st.warnings);
    }
}

/// Emulation adds the same number of instructions per MMA (within 1%) at 250 and 1000 MMAs: the
/// output grows linearly with the MMAs. That is a statement about size, not time; time is not
/// asserted in a test (`cargo run --release -p spvopt-tests --example lower_mma_bench` prints it).
#[test]
fn lower_mma_output_is_linear_in_mmas() {
    let mut sizes = Vec::new();
    for n in [250, 1000] {
        let mut m = spvopt_ir::load_words(&spvopt_tests::mma_chain_module(n)).unwrap();
        let before = m.instruction_count();
        run(&mut m, "lower-mma", &Target::mtl()).unwrap();
        let added = m.instruction_count() - before;
        eprintln!("lower-mma mtl: {n} MMAs -> +{added} instructions");
        sizes.push((n, added));
    }
    let (n0, a0) = sizes[0];
    let (n1, a1) = sizes[1];
    // Instructions per MMA are the same (interned constants are shared, so at most a few
    // fewer per MMA in the larger module).
    let per0 = a0 as f64 / n0 as f64;
    let per1 = a1 as f64 / n1 as f64;
    assert!((per0 - per1).abs() / per0 < 0.01, "{per0} vs {per1}");
}
