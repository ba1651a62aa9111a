//! `raise-builtins,legalize` over the Triton corpus (builtin form and native form) and the
//! legalize error/warning paths.
//!
//! For pvc: the pipeline succeeds; the output reloads byte-identically, violates no Level Zero
//! rule (`check_env`), has only 2D block shapes pvc supports and no Function variable outside
//! an entry block; a second run changes nothing; spirv-val validates it where it can judge
//! (no VectorAnyINTEL vectors). For dg2: every 2D block load/store is lowered to ordinary
//! memory accesses (prefetches dropped), every MMA is counted for lower-mma without a warning
//! (dg2 runs DPAS at SIMD8; lower-mma emulates them), and the native corpus GEMMs stay
//! simulator-identical on the README launches.

use spvopt_analysis::block_io::{block_instructions, BlockKind, BlockOperands};
use spvopt_analysis::Target;
use spvopt_ir::spirv::{self, Op};
use spvopt_ir::{text, Module};
use spvopt_passes::legalize::level_zero_env;
use spvopt_passes::{run_pipeline, Diagnostic, Hooks, Level, PassError, Pipeline};
use spvopt_tests::corpus_launches::{readme_launches, same_results, GEMMS};

fn triton_modules() -> Vec<std::path::PathBuf> {
    let dir = spvopt_tests::corpus_dir().join("triton");
    let mut v: Vec<_> = spvopt_tests::spv_files_under(&dir)
        .into_iter()
        .filter(|p| !p.to_string_lossy().contains("/nodbg/"))
        .collect();
    v.sort();
    assert!(
        v.len() >= 10,
        "expected the Triton corpus, found {}",
        v.len()
    );
    v
}

fn run(
    m: &mut Module,
    pipeline: &str,
    target: &Target,
) -> Result<spvopt_passes::RunReport, String> {
    let p = Pipeline::parse(pipeline).map_err(|e| e.to_string())?;
    run_pipeline(&p, m, target, &mut spvopt_tests::checked_hooks()).map_err(|e| e.to_string())
}

#[test]
fn legalize_for_pvc_on_triton_corpus() {
    let pvc = Target::pvc();
    let mut validated = 0;
    for path in triton_modules() {
        let name = path.display().to_string();
        let mut m = spvopt_ir::load_bytes(&std::fs::read(&path).unwrap()).unwrap();
        run(&mut m, "raise-builtins,legalize", &pvc).unwrap_or_else(|e| panic!("{name}: {e}"));
        let out = m.to_words();
        let reloaded = spvopt_ir::load_words(&out).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(reloaded.to_words(), out, "{name}: reload");
        let violations = level_zero_env::check(&reloaded);
        assert!(violations.is_empty(), "{name}: {violations:?}");
        for i in block_instructions(&reloaded) {
            let ops = BlockOperands::read(reloaded.inst(i)).expect("well-formed");
            let s = ops.shape(&reloaded).expect("constant shape");
            assert!(
                pvc.supports_2d_block(ops.kind, s.element_size, s.width, s.height, s.count),
                "{name}: unsupported shape left: {s:?}"
            );
        }
        for f in reloaded.function_ids() {
            for &b in reloaded.function(f).blocks.iter().skip(1) {
                assert!(
                    !reloaded
                        .block_insts(b)
                        .any(|i| reloaded.inst(i).is(Op::Variable)),
                    "{name}: variable outside the entry block"
                );
            }
        }
        let mut again = reloaded.clone();
        let r2 = run(&mut again, "legalize", &pvc).unwrap();
        assert!(!r2.changed(), "{name}: legalize is not idempotent");
        assert_eq!(again.to_words(), out);
        let any_intel_vectors = reloaded
            .section_insts(spvopt_ir::Section::Capability)
            .any(|(_, c)| c.operand_word(0) == Some(spirv::Capability::VectorAnyINTEL as u32));
        if !any_intel_vectors {
            // Judge legalize, not the input's debug info: validate without line info.
            let mut stripped = reloaded.clone();
            run(&mut stripped, "strip-debug", &pvc).unwrap();
            let env = text::universal_env_for_version(reloaded.header.version);
            match text::validate(&stripped.to_words(), env) {
                Ok(()) => validated += 1,
                // Triton decorates prefetch pointers with CacheControlLoadINTEL for cache
                // levels 0 and 1; spirv-val 2025 rejects the repetition (input, not legalize).
                Err(e)
                    if e.to_string()
                        .contains("CacheControlLoadINTEL multiple times") =>
                {
                    eprintln!("{name}: spirv-val rejects Triton's cache-control decorations");
                }
                Err(e) => panic!("{name}: spirv-val: {e}"),
            }
        }
    }
    eprintln!("legalize/pvc: spirv-val judged {validated} outputs (the others use VectorAnyINTEL)");
}

#[test]
fn legalize_for_dg2_lowers_block_io_and_reports_mma() {
    let dg2 = Target::dg2();
    for path in triton_modules() {
        let name = path.display().to_string();
        let mut m = spvopt_ir::load_bytes(&std::fs::read(&path).unwrap()).unwrap();
        run(&mut m, "raise-builtins", &dg2).unwrap();
        let data_ops = block_instructions(&m)
            .into_iter()
            .filter(|&i| {
                BlockOperands::read(m.inst(i)).is_some_and(|o| o.kind != BlockKind::Prefetch)
            })
            .count() as u64;
        let has_mma = m
            .all_insts()
            .any(|i| m.inst(i).is(Op::SubgroupMatrixMultiplyAccumulateINTEL));
        let report = run(&mut m, "legalize", &dg2).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(
            block_instructions(&m).is_empty(),
            "{name}: 2D ops left on dg2"
        );
        let stats = &report.passes[0].stats;
        assert_eq!(
            stats.get("lowered_2d_loads") + stats.get("lowered_2d_stores"),
            data_ops,
            "{name}: lowered count"
        );
        // dg2 runs DPAS only at SIMD8: every SG16 MMA is lower-mma's to emulate, counted
        // but not warned about (legalize warns only about what no pass can fix).
        assert_eq!(
            stats.get("mma_for_lower_mma") > 0,
            has_mma,
            "{name}: MMAs left for lower-mma"
        );
        assert_eq!(stats.get("mma_unsupported"), 0, "{name}");
        assert!(
            stats.warnings().is_empty(),
            "{name}: {:?}",
            stats.warnings()
        );
        let out = m.to_words();
        let reloaded = spvopt_ir::load_words(&out).unwrap_or_else(|e| panic!("{name}: {e}"));
        let mut again = reloaded.clone();
        let r2 = run(&mut again, "legalize", &dg2).unwrap();
        assert!(!r2.changed(), "{name}: legalize is not idempotent");
    }
}

/// The corpus GEMMs in native form (2D block IO), legalized for dg2: no 2D block op is left
/// and the simulator computes the same C as the original on the README launches (the
/// transposed-B GEMM in the simulator's default, hardware, layout).
#[test]
fn legalize_for_dg2_gemms_are_simulator_identical() {
    let dg2 = Target::dg2();
    let mut checked = 0;
    for g in GEMMS.iter() {
        let path = spvopt_tests::corpus_dir()
            .join("triton/native")
            .join(g.file);
        if !path.exists() {
            continue;
        }
        let name = format!("native/{}", g.file);
        let original = spvopt_ir::load_bytes(&std::fs::read(&path).unwrap()).unwrap();
        let mut lowered = original.clone();
        run(&mut lowered, "legalize", &dg2).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(
            block_instructions(&lowered).is_empty(),
            "{name}: 2D block ops left"
        );
        let lowered = spvopt_ir::load_words(&lowered.to_words()).unwrap();
        for l in readme_launches(g) {
            same_results(&original, &lowered, &l).unwrap_or_else(|e| panic!("{name}: {e}"));
        }
        checked += 1;
    }
    assert!(checked >= 3, "expected the native GEMMs, found {checked}");
}

const HEADER: &str = "
               OpCapability Addresses
               OpCapability Kernel
               OpCapability Int8
               OpCapability SubgroupDispatch
               OpCapability Subgroup2DBlockIOINTEL
               OpExtension \"SPV_INTEL_2d_block_io\"
               OpMemoryModel Physical64 OpenCL
               OpEntryPoint Kernel %main \"main\"
               OpExecutionMode %main SubgroupSize 16
       %void = OpTypeVoid
       %uint = OpTypeInt 32 0
      %uchar = OpTypeInt 8 0
     %v2uint = OpTypeVector %uint 2
     %uint_0 = OpConstant %uint 0
     %uint_1 = OpConstant %uint 1
     %uint_2 = OpConstant %uint 2
     %uint_8 = OpConstant %uint 8
    %uint_16 = OpConstant %uint 16
    %uint_64 = OpConstant %uint 64
   %uint_128 = OpConstant %uint 128
   %uint_256 = OpConstant %uint 256
      %coord = OpConstantComposite %v2uint %uint_0 %uint_0
    %arr_256 = OpTypeArray %uchar %uint_256
%ptr_cw_uchar = OpTypePointer CrossWorkgroup %uchar
 %ptr_fn_arr = OpTypePointer Function %arr_256
%ptr_fn_uchar = OpTypePointer Function %uchar
       %fnty = OpTypeFunction %void %ptr_cw_uchar
       %main = OpFunction %void None %fnty
        %src = OpFunctionParameter %ptr_cw_uchar
      %entry = OpLabel
        %var = OpVariable %ptr_fn_arr Function
         %vp = OpBitcast %ptr_fn_uchar %var
";

fn module_with(body: &str) -> Module {
    let src = format!("{HEADER}{body}\n               OpReturn\n               OpFunctionEnd\n");
    let words = text::assemble(&src, text::TargetEnv::Universal_1_4).unwrap();
    spvopt_ir::load_words(&words).unwrap()
}

#[test]
fn width_split_is_an_error_with_location() {
    // 2-byte 64-wide rows are 128 bytes: pvc needs W·E ≤ 64, and a width split would move
    // elements between invocations.
    let mut m = module_with(
        "OpSubgroup2DBlockLoadINTEL %uint_2 %uint_64 %uint_8 %uint_1 %src %uint_128 %uint_16 %uint_128 %coord %vp",
    );
    let e = run(&mut m, "legalize", &Target::pvc()).unwrap_err();
    assert!(e.contains("load 2-byte 64x8 count 1"), "{e}");
    assert!(
        e.contains("OpSubgroup2DBlockLoadINTEL in function %"),
        "{e}"
    );
}

#[test]
fn check_env_reports_violations_with_locations() {
    let src = "
               OpCapability Addresses
               OpCapability Kernel
               OpMemoryModel Physical32 OpenCL
               OpEntryPoint Kernel %main \"main\"
       %void = OpTypeVoid
        %int = OpTypeInt 32 1
       %uint = OpTypeInt 32 0
     %uint_2 = OpConstant %uint 2
     %uint_5 = OpConstant %uint 5
     %uint_0 = OpConstant %uint 0
       %fnty = OpTypeFunction %void
       %main = OpFunction %void None %fnty
      %entry = OpLabel
               OpControlBarrier %uint_5 %uint_2 %uint_0
       %call = OpFunctionCall %void %main
               OpReturn
               OpFunctionEnd
";
    let words = text::assemble(src, text::TargetEnv::Universal_1_4).unwrap();
    let m = spvopt_ir::load_words(&words).unwrap();
    let v = level_zero_env::check(&m);
    let all = v.iter().map(|d| format!("{d}\n")).collect::<String>();
    assert_eq!(v.len(), 4, "{all}");
    // Typed errors, each located at the instruction breaking the rule.
    assert!(
        v.iter().all(|d| d.level == Level::Error && d.at.is_some()),
        "{v:?}"
    );
    assert!(
        v.iter().all(|x| {
            x.to_string().contains(" at module scope") || x.to_string().contains(" in function %")
        }),
        "locations: {all}"
    );
    let recursion = v.iter().find(|d| d.message.contains("recursion")).unwrap();
    let at = recursion.at.as_ref().unwrap();
    assert_eq!(at.opcode.as_deref(), Some("OpFunctionCall"), "{at:?}");
    assert!(at.function.is_some() && at.block.is_some(), "{at:?}");
    assert!(all.contains("Signedness 1"), "{all}");
    assert!(all.contains("Physical64"), "{all}");
    assert!(all.contains("execution scope"), "{all}");
    assert!(all.contains("recursion"), "{all}");
    // legalize fixes the signedness and fails on the rest.
    let mut m2 = m.clone();
    let e = run(&mut m2, "legalize", &Target::pvc()).unwrap_err();
    assert!(e.contains("3 problem(s)"), "{e}");
    // The error carries them as diagnostics, the same as `check` finds after the fix.
    let mut m3 = m.clone();
    let p = Pipeline::parse("legalize").unwrap();
    let err = run_pipeline(&p, &mut m3, &Target::pvc(), &mut Hooks::default()).unwrap_err();
    let PassError::Failed {
        pass,
        summary,
        diagnostics,
    } = &err
    else {
        panic!("{err:?}")
    };
    assert_eq!(*pass, "legalize");
    assert_eq!(
        summary.as_deref(),
        Some("3 problem(s) cannot be fixed for target pvc")
    );
    assert_eq!(diagnostics.len(), 3, "{diagnostics:?}");
    let unfixable: Vec<&Diagnostic> = v
        .iter()
        .filter(|d| !d.message.contains("Signedness"))
        .collect();
    for (d, c) in diagnostics.iter().zip(&unfixable) {
        assert_eq!(d.message, c.message);
        assert_eq!(d.level, Level::Error);
        assert_eq!(
            d.at.as_ref().map(|a| &a.opcode),
            c.at.as_ref().map(|a| &a.opcode)
        );
    }
    assert_eq!(
        err.to_string(),
        format!(
            "legalize: 3 problem(s) cannot be fixed for target pvc: {}",
            diagnostics
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("; ")
        )
    );
}

/// `legalize` reports a change from what its steps did (no whole-module word comparison):
/// the report must equal "the words differ" on every corpus kernel and legalize fixture, on
/// every target, with and without a `max-changes` budget.
#[test]
fn legalize_change_report_matches_the_words() {
    let mut modules: Vec<(String, Module)> = Vec::new();
    for path in spvopt_tests::corpus_files() {
        let mut m = spvopt_ir::load_bytes(&std::fs::read(&path).unwrap()).unwrap();
        // Native form first, so that `legalize` below runs alone.
        run(&mut m, "raise-builtins", &Target::pvc())
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        modules.push((path.display().to_string(), m));
    }
    for path in spvopt_tests::fixtures_in("passes") {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        if !name.starts_with("legalize") {
            continue;
        }
        let source = std::fs::read_to_string(&path).unwrap();
        let env = match spvopt_tests::directive(&source, "TARGET-ENV") {
            Some(e) => text::parse_target_env(e).unwrap(),
            None => text::TargetEnv::Universal_1_4,
        };
        let words = text::assemble(&source, env).unwrap_or_else(|e| panic!("{name}: {e}"));
        modules.push((name, spvopt_ir::load_words(&words).unwrap()));
    }
    let (mut changed, mut unchanged) = (0, 0);
    for (name, base) in &modules {
        for target in Target::all() {
            for pipeline in [
                "legalize",
                "legalize(max-changes=0)",
                "legalize(max-changes=1)",
            ] {
                let mut m = base.clone();
                let before = m.to_words();
                let Ok(report) = run(&mut m, pipeline, &target) else {
                    continue; // a target the module cannot be legalized for
                };
                let differs = m.to_words() != before;
                assert_eq!(
                    report.changed(),
                    differs,
                    "{name} on {}, {pipeline}: reported change vs words",
                    target.name
                );
                if differs {
                    changed += 1;
                } else {
                    unchanged += 1;
                }
            }
        }
    }
    assert!(
        changed > 50 && unchanged > 50,
        "{changed} changed, {unchanged} unchanged"
    );
}
