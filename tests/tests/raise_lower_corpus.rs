//! `raise-builtins` / `lower-builtins` on the Triton corpus.
//!
//! Golden test: `triton/<name>.spv` (builtin calls) after raise-builtins has, per function and
//! in order, the same native ops with the same constant shape operands / K and MMA operand
//! mask as `triton/native/<name>.spv` (Intel's translator's 1:1 rewrite). Round trips:
//! native → lower → raise gives the native ops back; builtins → raise → lower gives calls to
//! the same builtin names back. Corpus modules fail spirv-val (VectorAnyINTEL…), so these tests
//! check that the output reloads and its structure.

use std::path::PathBuf;

use spvopt_analysis::Target;
use spvopt_ir::grammar::decode_string;
use spvopt_ir::spirv::{self, Op};
use spvopt_ir::{Id, Module, Section};
use spvopt_passes::{run_pipeline, Pipeline, RunReport};

fn triton(name: &str) -> PathBuf {
    spvopt_tests::corpus_dir().join("triton").join(name)
}

/// Pairs (builtin form, native form) present in the corpus.
fn pairs() -> Vec<(PathBuf, PathBuf)> {
    let natives = spvopt_tests::spv_files_under(&triton("native"));
    assert!(natives.len() >= 5, "native corpus missing");
    natives
        .into_iter()
        .map(|n| (triton(n.file_name().unwrap().to_str().unwrap()), n))
        .collect()
}

fn load(p: &PathBuf) -> Module {
    let bytes = std::fs::read(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    spvopt_ir::load_bytes(&bytes).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn run(m: &mut Module, pipeline: &str) -> RunReport {
    let p = Pipeline::parse(pipeline).unwrap();
    let report = run_pipeline(
        &p,
        m,
        &Target::by_name("pvc").unwrap(),
        &mut spvopt_tests::checked_hooks(),
    )
    .expect("pipeline runs");
    // The output must reload.
    let words = m.to_words();
    *m = spvopt_ir::load_words(&words).expect("output reloads");
    report
}

/// One native op as compared: opcode and constant operand values (shape / K) and MMA mask.
type OpKey = (u16, Vec<u64>);

/// Per defined function, in order: the native 2D block / MMA ops.
fn native_ops(m: &Module) -> Vec<Vec<OpKey>> {
    let mut out = Vec::new();
    for f in m.function_ids() {
        let func = m.function(f);
        if func.blocks.is_empty() {
            continue;
        }
        let mut ops = Vec::new();
        for &b in &func.blocks {
            for i in m.block_insts(b) {
                let inst = m.inst(i);
                let c = |k: usize| {
                    inst.operand_id(k)
                        .and_then(|id| m.const_int_value(id))
                        .unwrap_or(u64::MAX)
                };
                match inst.op() {
                    Some(
                        Op::Subgroup2DBlockLoadINTEL
                        | Op::Subgroup2DBlockLoadTransformINTEL
                        | Op::Subgroup2DBlockLoadTransposeINTEL
                        | Op::Subgroup2DBlockStoreINTEL
                        | Op::Subgroup2DBlockPrefetchINTEL,
                    ) => ops.push((inst.opcode(), vec![c(0), c(1), c(2), c(3)])),
                    Some(Op::SubgroupMatrixMultiplyAccumulateINTEL) => ops.push((
                        inst.opcode(),
                        vec![c(0), u64::from(inst.operand_word(4).unwrap_or(0))],
                    )),
                    _ => {}
                }
            }
        }
        out.push(ops);
    }
    out
}

/// Linkage names of imports, by id.
fn import_names(m: &Module) -> std::collections::HashMap<Id, String> {
    let mut map = std::collections::HashMap::new();
    for (_, inst) in m.section_insts(Section::Annotation) {
        if inst.is(Op::Decorate)
            && inst.operand_word(1) == Some(spirv::Decoration::LinkageAttributes as u32)
            && inst.operands().last() == Some(&1)
        {
            if let (Some(t), Some(n)) = (
                inst.operand_id(0),
                inst.operands().get(2..).and_then(decode_string),
            ) {
                map.insert(t, n.to_string());
            }
        }
    }
    map
}

/// Per defined function, in order: names of the intel_sub_group builtins called.
fn builtin_calls(m: &Module) -> Vec<Vec<String>> {
    let names = import_names(m);
    let mut out = Vec::new();
    for f in m.function_ids() {
        let func = m.function(f);
        if func.blocks.is_empty() {
            continue;
        }
        let mut calls = Vec::new();
        for &b in &func.blocks {
            for i in m.block_insts(b) {
                let inst = m.inst(i);
                if inst.is(Op::FunctionCall) {
                    if let Some(n) = inst.operand_id(0).and_then(|c| names.get(&c)) {
                        if n.contains("intel_sub_group_") {
                            calls.push(n.clone());
                        }
                    }
                }
            }
        }
        out.push(calls);
    }
    out
}

fn capabilities(m: &Module) -> Vec<u32> {
    m.section_insts(Section::Capability)
        .filter_map(|(_, i)| i.operand_word(0))
        .collect()
}

fn extensions(m: &Module) -> Vec<String> {
    m.section_insts(Section::Extension)
        .filter_map(|(_, i)| decode_string(i.operands()).map(String::from))
        .collect()
}

#[test]
fn raise_matches_translator_native_form() {
    let mut total = 0;
    for (builtin, native) in pairs() {
        let mut b = load(&builtin);
        let n = load(&native);
        let report = run(&mut b, "raise-builtins");
        let got = native_ops(&b);
        let want = native_ops(&n);
        assert_eq!(got, want, "{}: raised ops differ", builtin.display());
        let count: usize = want.iter().map(Vec::len).sum();
        assert!(count > 0, "{}: no native ops", native.display());
        total += count;
        assert_eq!(
            report.passes[0].stats.total()
                - report.passes[0].stats.get("declarations_removed")
                - report.passes[0].stats.get("capabilities_added")
                - report.passes[0].stats.get("extensions_added")
                - report.passes[0].stats.get("names_removed")
                - report.passes[0].stats.get("decorations_removed"),
            count as u64,
            "{}: {}",
            builtin.display(),
            report.passes[0].stats
        );
        // Nothing left to raise; declarations gone; capabilities/extensions as the translator's.
        assert!(builtin_calls(&b).iter().all(Vec::is_empty));
        assert!(!import_names(&b)
            .values()
            .any(|n| n.contains("intel_sub_group_")));
        let mut caps_b: Vec<u32> = capabilities(&b);
        let mut caps_n: Vec<u32> = capabilities(&n);
        caps_b.sort_unstable();
        caps_n.sort_unstable();
        assert_eq!(caps_b, caps_n, "{}: capabilities", builtin.display());
        let mut ext_b = extensions(&b);
        let mut ext_n = extensions(&n);
        ext_b.sort();
        ext_n.sort();
        assert_eq!(ext_b, ext_n, "{}: extensions", builtin.display());
        // Idempotent.
        let again = run(&mut b, "raise-builtins");
        assert!(!again.changed());
    }
    // The corpus is fixed: 225 native ops across the five pairs.
    assert_eq!(total, 225, "ops compared");
}

#[test]
fn native_lower_raise_round_trip() {
    for (_, native) in pairs() {
        let n = load(&native);
        let want = native_ops(&n);
        let mut m = n.clone();
        let report = run(&mut m, "lower-builtins");
        assert!(report.changed());
        assert!(
            native_ops(&m).iter().all(Vec::is_empty),
            "{}: native ops left after lowering",
            native.display()
        );
        let caps = capabilities(&m);
        for c in [6228u32, 6229, 6230, 6236] {
            assert!(
                !caps.contains(&c),
                "{}: capability {c} left",
                native.display()
            );
        }
        assert!(!extensions(&m).iter().any(|e| e == "SPV_INTEL_2d_block_io"
            || e == "SPV_INTEL_subgroup_matrix_multiply_accumulate"));
        // Every call names a builtin with a valid mangling that raise understands.
        for calls in builtin_calls(&m) {
            for c in calls {
                assert!(
                    spvopt_passes::builtin_mangling::parse_builtin(&c).is_some(),
                    "{c}"
                );
            }
        }
        run(&mut m, "raise-builtins");
        assert_eq!(native_ops(&m), want, "{}: round trip", native.display());
    }
}

#[test]
fn builtin_raise_lower_round_trip() {
    for (builtin, _) in pairs() {
        let b = load(&builtin);
        let want = builtin_calls(&b);
        let mut m = b.clone();
        run(&mut m, "raise-builtins,lower-builtins");
        assert_eq!(builtin_calls(&m), want, "{}", builtin.display());
        // Idempotent.
        let again = run(&mut m, "lower-builtins");
        assert!(!again.changed());
    }
}

#[test]
fn modules_without_builtins_are_unchanged() {
    for name in [
        "softmax_fp32_1024_w4_sg16__pvc.spv",
        "softmax_fp32_1024_w4_sg32__pvc.spv",
    ] {
        let mut m = load(&triton(name));
        let before = m.to_words();
        let r = run(&mut m, "raise-builtins,lower-builtins");
        assert!(!r.changed());
        assert_eq!(m.to_words(), before);
    }
}
