//! `convert-tensor-addressing` on every hardware-checked case of `tests/corpus/tensor-hw`:
//! the simulator gives `expected_<i>.bin` on the kernel as written and on the converted kernel;
//! the converted kernel has no cooperative-matrix or tensor instruction, validates, and a second
//! run of the pass changes nothing.

use std::path::{Path, PathBuf};

use spvopt_analysis::Target;
use spvopt_ir::text;
use spvopt_passes::optimize_words;
use spvopt_sim::{run, Launch};

fn cases() -> Vec<PathBuf> {
    let dir = spvopt_tests::corpus_dir().join("tensor-hw");
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("tensor-hw corpus")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("kernel.spvasm").exists())
        .collect();
    v.sort();
    v
}

fn words_of(case: &Path) -> Vec<u32> {
    let src = std::fs::read_to_string(case.join("kernel.spvasm")).unwrap();
    text::assemble(&src, text::parse_target_env("spv1.6").unwrap()).expect("assembles")
}

/// Runs the module with the case's launch and compares every `expected_<i>.bin`.
fn matches_expected(case: &Path, words: &[u32]) -> Result<(), String> {
    matches_expected_with_alignment(case, words, spvopt_sim::block_io_2d::BASE_ALIGNMENT)
}

/// [`matches_expected`] with 2D block bases needing `align` bytes (the target's rule).
fn matches_expected_with_alignment(case: &Path, words: &[u32], align: u64) -> Result<(), String> {
    let m = spvopt_ir::load_words(words).map_err(|e| e.to_string())?;
    let mut launch = Launch::from_file(&case.join("launch.json")).map_err(|e| e.to_string())?;
    launch.block_base_alignment = align;
    let out = run(&m, &launch).map_err(|e| format!("simulator: {e}"))?;
    let mut compared = 0;
    for (i, bytes) in &out.buffers {
        let expected = case.join(format!("expected_{i}.bin"));
        if let Ok(want) = std::fs::read(&expected) {
            compared += 1;
            if &want != bytes {
                let at = want.iter().zip(bytes).position(|(a, b)| a != b);
                return Err(format!(
                    "arg{i} differs from expected (first at byte {at:?})"
                ));
            }
        }
    }
    if compared == 0 {
        return Err("no expected_<i>.bin compared".into());
    }
    Ok(())
}

const LEFTOVER: &[&str] = &["Cooperative", "Tensor"];

#[test]
fn every_tensor_hw_case_converts_exactly() {
    let cases = cases();
    assert_eq!(cases.len(), 98, "the tensor-hw corpus has 98 cases");
    let target = Target::by_name("pvc").unwrap();
    let mut failures = Vec::new();
    for case in &cases {
        let name = case.file_name().unwrap().to_string_lossy().to_string();
        let check = || -> Result<(), String> {
            let words = words_of(case);
            matches_expected(case, &words).map_err(|e| format!("unconverted kernel: {e}"))?;
            let (out, report) = optimize_words(&words, "convert-tensor-addressing", &target)
                .map_err(|e| e.to_string())?;
            matches_expected(case, &out).map_err(|e| format!("converted kernel: {e}"))?;
            let dis = text::disassemble(&out).map_err(|e| e.to_string())?;
            if let Some(l) = dis.lines().find(|l| LEFTOVER.iter().any(|w| l.contains(w))) {
                return Err(format!("left over: {l}"));
            }
            let m = spvopt_ir::load_words(&out).map_err(|e| e.to_string())?;
            spvopt_passes::validate::validate_module(&m, text::parse_target_env("spv1.6").unwrap())
                .map_err(|e| format!("output does not validate: {e}"))?;
            let (again, _) = optimize_words(&out, "convert-tensor-addressing", &target)
                .map_err(|e| format!("second run: {e}"))?;
            if again != out {
                return Err("a second run changed the module".into());
            }
            // Every load and store is accounted for by one path.
            let stats = &report.passes[0].stats;
            let src = std::fs::read_to_string(case.join("kernel.spvasm")).unwrap();
            let count = |op: &str| src.matches(op).count() as u64;
            let loads = count("OpCooperativeMatrixLoadTensorNV");
            let stores = count("OpCooperativeMatrixStoreTensorNV");
            let by_path = |what: &str| -> u64 {
                ["block", "runtime_checked", "fallback"]
                    .iter()
                    .map(|p| stats.get(&format!("{p}_tensor_{what}")))
                    .sum()
            };
            if by_path("loads") != loads || by_path("stores") != stores {
                return Err(format!(
                    "statistics ({stats}) do not account for {loads} loads and {stores} stores"
                ));
            }
            Ok(())
        };
        if let Err(e) = check() {
            failures.push(format!("{name}: {e}"));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

/// Which path each access of a 2D-block case takes, and why. `static` is what the pass decides
/// (statistics: `block` / `runtime_checked` / `fallback` for the loads and the stores); `ran`
/// says whether 2D block loads / stores executed in the simulator (a run-time check passed).
struct Expect {
    case: &'static str,
    loads: &'static str,
    stores: &'static str,
    ran_block_loads: bool,
    ran_block_stores: bool,
    why: &'static str,
}

const fn e(
    case: &'static str,
    loads: &'static str,
    stores: &'static str,
    ran_block_loads: bool,
    ran_block_stores: bool,
    why: &'static str,
) -> Expect {
    Expect {
        case,
        loads,
        stores,
        ran_block_loads,
        ran_block_stores,
        why,
    }
}

#[rustfmt::skip]
const BLOCK_CASES: &[Expect] = &[
    e("bb_T_b8", "fallback", "fallback", false, false,
      "a 16x8 B has 8 columns for 16 invocations: not one column per invocation"),
    e("bb_T_edge_inb", "runtime_checked", "runtime_checked", true, true,
      "layout from kernel arguments; in bounds, so ClampToEdge never applies: transposed load"),
    e("bb_T_f16_c0_edge", "runtime_checked", "runtime_checked", true, true,
      "Constant 0 at the edge = the hardware's zero fill: transposed load"),
    e("be_base32", "runtime_checked", "block", false, true,
      "the load's base is 32 B past a 64-byte boundary: the run-time alignment check fails"),
    e("be_clip_narrow", "fallback", "block", false, true,
      "a 16x12 clip re-splits rows: not a tile"),
    e("be_cv8000", "fallback", "block", false, true,
      "clamp value 0x8000 (-0.0) is not the hardware's zero"),
    e("be_edge_inb", "runtime_checked", "runtime_checked", true, true,
      "ClampToEdge with the tile in bounds"),
    e("be_oddx", "fallback", "block", false, true, "x = 17 is odd for 2-byte elements"),
    e("be_pitch196", "fallback", "block", false, true, "pitch 196 B is not a multiple of 16"),
    e("be_repeat_bottom", "runtime_checked", "runtime_checked", false, true,
      "Repeat wraps rows past the bottom: the tile is not inside, the check fails"),
    e("be_st_oddx", "runtime_checked", "runtime_checked", true, false,
      "the store's x = 33 is odd: its run-time check fails"),
    e("be_w62", "fallback", "block", false, true, "surface width 62 B is under 64"),
    e("bg_f16_64x48x80", "runtime_checked", "runtime_checked", true, true,
      "the GEMM's A, transposed B, C tiles and D stores all pass their checks"),
    e("bm_a_1x4", "runtime_checked", "runtime_checked", true, true, "4 A tiles"),
    e("bm_acc_store_c0", "runtime_checked", "runtime_checked", true, true,
      "Constant stores drop rows/columns past the edge, as the hardware does"),
    e("bm_b_2x1", "block", "block", true, true, "2 stacked B tiles, all constants"),
    e("bm_gap_overlap", "block", "block", true, true, "3 tiles, all constants"),
    e("bt_a_c0_corner", "block", "block", true, true, "Constant 0 = zero fill"),
    e("bt_a_c0_right", "runtime_checked", "runtime_checked", true, true, "Constant 0 past the right edge"),
    e("bt_a_interior", "block", "block", true, true, "interior tile"),
    e("bt_a_pad_pitch", "runtime_checked", "runtime_checked", true, true,
      "width 140 B with pitch 144 B: the padding reads as out of bounds (0) in both"),
    e("bt_a_w64", "block", "block", true, true, "width exactly 64 B"),
    e("bt_b_interior", "block", "block", true, true, "B through the VNNI transform"),
    e("bt_f32acc_c0_edge", "runtime_checked", "runtime_checked", true, true, "f32 accumulator"),
    e("bt_i8b_c0_edge", "block", "block", true, true, "i8 B through the VNNI transform"),
    e("bt_st_edgemode", "runtime_checked", "runtime_checked", true, true,
      "ClampToEdge stores drop out-of-bounds elements, like the hardware"),
    e("bt_st_f32", "block", "block", true, true, "f32 tile"),
    e("bt_u8a", "block", "block", true, true, "u8 A: two columns per invocation, 32-wide block"),
];

#[test]
fn block_cases_take_the_expected_path() {
    let target = Target::by_name("pvc").unwrap();
    let dir = spvopt_tests::corpus_dir().join("tensor-hw");
    let listed: Vec<String> = cases()
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().to_string())
        .filter(|n| {
            ["bb_", "be_", "bg_", "bm_", "bt_"]
                .iter()
                .any(|p| n.starts_with(p))
        })
        .collect();
    let mut names: Vec<&str> = BLOCK_CASES.iter().map(|x| x.case).collect();
    names.sort();
    assert_eq!(listed, names, "every 2D-block case has an expectation");
    let mut failures = Vec::new();
    for x in BLOCK_CASES {
        let case = dir.join(x.case);
        let (out, report) =
            optimize_words(&words_of(&case), "convert-tensor-addressing", &target).unwrap();
        let stats = &report.passes[0].stats;
        let path_of = |what: &str| -> String {
            let taken: Vec<&str> = ["block", "runtime_checked", "fallback"]
                .into_iter()
                .filter(|p| stats.get(&format!("{p}_tensor_{what}")) > 0)
                .collect();
            taken.join("+")
        };
        let (loads, stores) = (path_of("loads"), path_of("stores"));
        let m = spvopt_ir::load_words(&out).unwrap();
        let launch = Launch::from_file(&case.join("launch.json")).unwrap();
        let counters = run(&m, &launch).unwrap().counters;
        let ran = |prefix: &str| counters.block2d.keys().any(|k| k.starts_with(prefix));
        let got = (loads.as_str(), stores.as_str(), ran("load"), ran("store"));
        let want = (x.loads, x.stores, x.ran_block_loads, x.ran_block_stores);
        if got != want {
            failures.push(format!(
                "{} ({}): got {got:?}, expected {want:?}; notes: {:?}",
                x.case,
                x.why,
                stats.notes()
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Each fallback says why, with the instruction's location.
#[test]
fn every_fallback_has_a_reason() {
    let target = Target::by_name("pvc").unwrap();
    for case in cases() {
        let (_, report) =
            optimize_words(&words_of(&case), "convert-tensor-addressing", &target).unwrap();
        let stats = &report.passes[0].stats;
        let fallbacks = stats.get("fallback_tensor_loads") + stats.get("fallback_tensor_stores");
        let reasons = stats
            .notes()
            .iter()
            .filter(|n| n.contains("per-element tensor"))
            .count() as u64;
        assert_eq!(
            fallbacks,
            reasons,
            "{}: {:?}",
            case.display(),
            stats.notes()
        );
    }
}

/// `-O` (which runs the conversion before legalize and lower-mma) gives the expected bytes on
/// every target, and its output validates.
#[test]
fn optimize_pipeline_on_every_target() {
    let mut failures = Vec::new();
    for target in Target::all() {
        for case in cases() {
            let name = case.file_name().unwrap().to_string_lossy().to_string();
            let check = || -> Result<(), String> {
                let (out, report) = optimize_words(
                    &words_of(&case),
                    spvopt_passes::registry::OPTIMIZE_PIPELINE,
                    &target,
                )
                .map_err(|e| e.to_string())?;
                let converted = report
                    .passes
                    .iter()
                    .any(|p| p.name == "convert-tensor-addressing" && p.changed);
                if !converted {
                    return Err("-O did not run convert-tensor-addressing".into());
                }
                // cri's bases need 4 bytes only (Triton #7697): run its output so.
                let align = u64::from(target.block_base_alignment());
                matches_expected_with_alignment(&case, &out, align)?;
                let m = spvopt_ir::load_words(&out).map_err(|e| e.to_string())?;
                spvopt_passes::validate::validate_module(
                    &m,
                    text::parse_target_env("spv1.6").unwrap(),
                )
                .map_err(|e| format!("output does not validate: {e}"))?;
                let unreadable = spvopt_tests::intel_reader_problems(&m);
                if !unreadable.is_empty() {
                    return Err(format!("Intel's SPIR-V reader: {}", unreadable.join("; ")));
                }
                if !target.has_2d_block_io() {
                    let dis = text::disassemble(&out).map_err(|e| e.to_string())?;
                    if dis.contains("OpSubgroup2DBlock") {
                        return Err("2D block ops left for a target without them".into());
                    }
                }
                Ok(())
            };
            if let Err(e) = check() {
                failures.push(format!("{} {name}: {e}", target.name));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// What the conversion cannot express is a one-line error naming the problem, never a panic or
/// a partial module.
#[test]
fn unsupported_input_is_a_clear_error() {
    let target = Target::by_name("pvc").unwrap();
    let dir = spvopt_tests::corpus_dir().join("tensor-hw/bt_a_interior");
    let src = std::fs::read_to_string(dir.join("kernel.spvasm")).unwrap();
    for (what, from, to, expect) in [
        (
            "CrossDevice scope",
            "OpTypeCooperativeMatrixKHR %half %u_3",
            "OpTypeCooperativeMatrixKHR %half %u_0",
            "only Subgroup-scope cooperative matrices",
        ),
        (
            "no subgroup size",
            "OpExecutionMode %main SubgroupSize 16\n",
            "",
            "declare one SubgroupSize",
        ),
        (
            "spec-constant shape",
            "%u_16 = OpConstant %uint 16",
            "%u_16 = OpSpecConstant %uint 16",
            "spec-constant",
        ),
    ] {
        assert!(src.contains(from), "{what}");
        let text = src.replacen(from, to, 1);
        let words = text::assemble(&text, text::parse_target_env("spv1.6").unwrap()).expect(what);
        let err = optimize_words(&words, "convert-tensor-addressing", &target)
            .expect_err(what)
            .to_string();
        assert!(err.contains(expect), "{what}: {err}");
        assert_eq!(err.lines().count(), 1, "{what}: {err}");
    }
}

/// Where NVIDIA's floor and the specification's ceiling for implicit strides can differ (the
/// cases whose `hardware_<i>.bin` shows it), the conversion warns; plain layouts get no warning.
#[test]
fn implicit_block_strides_are_warned_about() {
    let target = Target::by_name("pvc").unwrap();
    let dir = spvopt_tests::corpus_dir().join("tensor-hw");
    for (case, warned) in [
        ("bs_2x4_notdiv", true),
        ("bs_w17_b4", true),
        ("bs_block_gt_dim", true),
        ("bt_a_interior", false),
        ("l2_full", false),
    ] {
        let (_, report) = optimize_words(
            &words_of(&dir.join(case)),
            "convert-tensor-addressing",
            &target,
        )
        .unwrap();
        let warnings = report.passes[0].stats.warnings();
        assert_eq!(
            warnings.iter().any(|w| w.message.contains("ceiling")),
            warned,
            "{case}: {warnings:?}"
        );
    }
}

/// `convert-tensor-addressing,fuse-block-loads` on the blk_multi cases: the four side-by-side
/// A tiles of `bm_a_1x4` (columns from kernel arguments) are checked together as one tile group
/// and issued from one block at `x0 + 16·i`, so fuse merges them into Block Count 2 loads (two
/// messages instead of four; count 4 exceeds the 16-bit width limit); the other cases have no
/// two tiles side by side in one row (stacked rows, a gap and an overlap, 32-bit tiles whose
/// width allows no second block) and keep their messages. Results stay `expected_<i>.bin`.
#[test]
fn blk_multi_tiles_merge_after_fuse() {
    let target = Target::by_name("pvc").unwrap();
    let dir = spvopt_tests::corpus_dir().join("tensor-hw");
    for (case, loads_alone, loads_fused) in [
        ("bm_a_1x4", 4u64, 2u64),
        ("bm_b_2x1", 2, 2),
        ("bm_gap_overlap", 3, 3),
        ("bm_acc_store_c0", 4, 4),
    ] {
        let case_dir = dir.join(case);
        let words = words_of(&case_dir);
        let l = Launch::from_file(&case_dir.join("launch.json")).unwrap();
        let load_messages = |pipeline: &str| -> u64 {
            let (out, _) = optimize_words(&words, pipeline, &target).unwrap();
            matches_expected(&case_dir, &out).unwrap_or_else(|e| panic!("{case} {pipeline}: {e}"));
            let m = spvopt_ir::load_words(&out).unwrap();
            let counters = run(&m, &l).unwrap().counters;
            counters
                .block2d
                .iter()
                .filter(|(k, _)| k.starts_with("load"))
                .map(|(_, c)| c.ops)
                .sum()
        };
        assert_eq!(
            load_messages("convert-tensor-addressing"),
            loads_alone,
            "{case}"
        );
        assert_eq!(
            load_messages("convert-tensor-addressing,fuse-block-loads"),
            loads_fused,
            "{case}"
        );
    }
}
