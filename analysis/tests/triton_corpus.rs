//! The analyses on real Triton output (`tests/corpus/triton`, builtin-call and native forms):
//! every 2D block load/prefetch coordinate inside the K loop is affine in the loop counter with
//! a uniform step, every block shape and MMA K folds to a constant, and every operand the 2D
//! block IO spec requires to be uniform is found uniform.

use std::path::{Path, PathBuf};

use spvopt_analysis::block_io::{block_io, matrix_mad, BlockKind};
use spvopt_analysis::builtins::Callees;
use spvopt_analysis::constants::Constants;
use spvopt_analysis::decorations::Decorations;
use spvopt_analysis::uniformity::Uniformity;
use spvopt_analysis::{Analyses, Induction, Loops};

fn corpus_files() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/corpus/triton");
    let mut out = Vec::new();
    for dir in [root.clone(), root.join("native")] {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.extension().is_some_and(|x| x == "spv") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

#[derive(Default, Debug)]
struct Counts {
    block_ops: usize,
    in_loop_reads: usize,
    mma: usize,
}

fn check_module(path: &Path) -> Counts {
    let bytes = std::fs::read(path).expect("read corpus file");
    let m = spvopt_ir::load_bytes(&bytes).expect("load corpus file");
    let mut a = Analyses::new();
    let ind = a.get::<Induction>(&m);
    let loops = a.get::<Loops>(&m);
    let consts = a.get::<Constants>(&m);
    let uni = a.get::<Uniformity>(&m);
    let dec = Decorations::build(&m);
    let callees = Callees::build(&m, &dec);
    let name = path.display();
    let mut c = Counts::default();
    for f in m.function_ids() {
        for &b in &m.function(f).blocks {
            for i in m.block_insts(b) {
                if let Some(mad) = matrix_mad(&m, &callees, i) {
                    c.mma += 1;
                    assert!(consts.mma_k(&mad).is_some(), "{name}: MMA K does not fold");
                }
                let Some(op) = block_io(&m, &callees, i) else {
                    continue;
                };
                c.block_ops += 1;
                let shape = consts.block_shape(&op);
                assert!(
                    shape.is_some(),
                    "{name}: block shape of {op:?} does not fold"
                );
                for x in op.uniform_operands() {
                    assert!(
                        uni.is_uniform(x),
                        "{name}: {x} of {:?} is not uniform",
                        op.kind
                    );
                }
                let Some(l) = loops.innermost(b) else {
                    continue;
                };
                if !matches!(
                    op.kind,
                    BlockKind::Load
                        | BlockKind::LoadTransform
                        | BlockKind::LoadTranspose
                        | BlockKind::Prefetch
                ) {
                    continue;
                }
                c.in_loop_reads += 1;
                let aff = ind.vector_affine_in_loop(op.coord, l);
                let Some(aff) = aff else {
                    panic!(
                        "{name}: coordinate {} of {:?} is not affine in the loop: {:?}",
                        op.coord,
                        op.kind,
                        ind.vector_form(op.coord)
                    );
                };
                assert_eq!(aff.len(), 2);
                let mut moves = false;
                for comp in &aff {
                    for t in comp.step.terms() {
                        if let Some(v) = t.monomial.value() {
                            assert!(uni.is_uniform(v), "{name}: step mentions divergent {v}");
                        }
                    }
                    moves |= comp.step.as_constant() != Some(0);
                }
                assert!(
                    moves,
                    "{name}: coordinate {} does not move with the loop",
                    op.coord
                );
            }
        }
    }
    c
}

#[test]
fn triton_block_operands_affine_constant_uniform() {
    let files = corpus_files();
    if files.is_empty() {
        eprintln!("corpus not found; skipping");
        return;
    }
    let mut with_2d = 0;
    for p in &files {
        let c = check_module(p);
        eprintln!("{}: {c:?}", p.display());
        let name = p.file_name().and_then(|n| n.to_str()).unwrap_or_default();
        if name.starts_with("gemm_fp16_blockptr") && !name.contains("no2d") {
            with_2d += 1;
            assert!(c.block_ops > 0, "{name}: no 2D block operations recognised");
            assert!(
                c.in_loop_reads >= 4,
                "{name}: too few in-loop 2D reads found"
            );
        }
        if name.starts_with("gemm") {
            assert!(c.mma > 0, "{name}: no MMA recognised");
        }
    }
    assert!(with_2d >= 6, "expected the 3 blockptr GEMMs in both forms");
}
