//! `split-block-loads` and `strip-prefetches` over the native Triton corpus: structure
//! (blocks preserved, counts 1, no prefetches left), reload, idempotence.

use spvopt_analysis::block_io::{block_instructions, BlockKind, BlockOperands};
use spvopt_analysis::Target;
use spvopt_passes::{run_pipeline, Pipeline};

fn run(words: &[u32], pipeline: &str) -> (spvopt_ir::Module, bool) {
    let mut m = spvopt_ir::load_words(words).expect("loads");
    let p = Pipeline::parse(pipeline).unwrap();
    let report = run_pipeline(
        &p,
        &mut m,
        &Target::default(),
        &mut spvopt_tests::checked_hooks(),
    )
    .expect("runs");
    (m, report.changed())
}

/// (kind, element size, width, height) → total blocks, over all 2D loads.
fn load_blocks(m: &spvopt_ir::Module) -> std::collections::BTreeMap<(u8, u32, u32, u32), u32> {
    let mut v = std::collections::BTreeMap::new();
    for i in block_instructions(m) {
        let ops = BlockOperands::read(m.inst(i)).unwrap();
        if ops.kind.is_load() {
            let s = ops.shape(m).unwrap();
            *v.entry((ops.kind as u8, s.element_size, s.width, s.height))
                .or_insert(0) += s.count;
        }
    }
    v
}

#[test]
fn split_preserves_blocks_on_native_corpus() {
    let native = spvopt_tests::spv_files_under(&spvopt_tests::corpus_dir().join("triton/native"));
    assert!(native.len() >= 4);
    let mut split_any = false;
    for p in native {
        let words = spvopt_ir::load_bytes(&std::fs::read(&p).unwrap())
            .unwrap()
            .to_words();
        let before = load_blocks(&spvopt_ir::load_words(&words).unwrap());
        let (m, changed) = run(&words, "split-block-loads");
        split_any |= changed;
        assert_eq!(
            load_blocks(&m),
            before,
            "{}: blocks per shape preserved",
            p.display()
        );
        for i in block_instructions(&m) {
            let ops = BlockOperands::read(m.inst(i)).unwrap();
            if matches!(ops.kind, BlockKind::Load | BlockKind::LoadTransform) {
                assert_eq!(ops.shape(&m).unwrap().count, 1, "{}", p.display());
            }
        }
        let out = m.to_words();
        assert_eq!(spvopt_ir::load_words(&out).unwrap().to_words(), out);
        let (again, changed_again) = run(&out, "split-block-loads");
        assert!(
            !changed_again && again.to_words() == out,
            "{}: not idempotent",
            p.display()
        );
    }
    assert!(split_any, "the native corpus has multi-block loads");
}

#[test]
fn strip_prefetches_removes_every_prefetch_in_both_forms() {
    for p in spvopt_tests::corpus_files() {
        let words = spvopt_ir::load_bytes(&std::fs::read(&p).unwrap())
            .unwrap()
            .to_words();
        let (m, _) = run(&words, "strip-prefetches");
        for i in m.all_insts() {
            let inst = m.inst(i);
            assert!(
                !inst.is(spvopt_ir::spirv::Op::Subgroup2DBlockPrefetchINTEL),
                "{}: prefetch left",
                p.display()
            );
        }
        let dis_has_prefetch_call = m.all_insts().any(|i| {
            let inst = m.inst(i);
            inst.is(spvopt_ir::spirv::Op::FunctionCall)
                && inst.operand_id(0).is_some_and(|f| {
                    m.section(spvopt_ir::Section::Annotation).iter().any(|&d| {
                        let di = m.inst(d);
                        di.operand_id(0) == Some(f)
                            && spvopt_ir::grammar::decode_string(
                                di.operands().get(2..).unwrap_or(&[]),
                            )
                            .is_some_and(|n| n.contains("2d_block_prefetch"))
                    })
                })
        });
        assert!(
            !dis_has_prefetch_call,
            "{}: prefetch call left",
            p.display()
        );
        let out = m.to_words();
        let (again, changed) = run(&out, "strip-prefetches");
        assert!(!changed && again.to_words() == out);
    }
}
