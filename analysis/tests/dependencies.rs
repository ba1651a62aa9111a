//! Every analysis declares what it is built from: computing each one on the corpus (Triton in
//! both forms, the OpenCL samples, the tensor kernels) through the cache records what its
//! computation requested, and no analysis may read a kind its `DEPENDS_ON` leaves out (the
//! cache would otherwise keep it after a pass dropped what it was built from).

use std::path::{Path, PathBuf};

use spvopt_analysis::builtins::Callees;
use spvopt_analysis::decorations::Decorations;
use spvopt_analysis::uniformity::Uniformity;
use spvopt_analysis::{
    Alias, Analyses, Analysis, AnalysisSet, BlockGeometry, Cfg, Constants, Dominators, Induction,
    KernelFacts, Loops, PostDominators, Provenance,
};

fn corpus_modules() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/corpus");
    let mut out = Vec::new();
    for dir in ["triton", "triton/native", "opencl-samples", "tensor"] {
        for e in std::fs::read_dir(root.join(dir))
            .into_iter()
            .flatten()
            .flatten()
        {
            if e.path().extension().is_some_and(|x| x == "spv") {
                out.push(e.path());
            }
        }
    }
    out.sort();
    out
}

/// Computes `A` alone in a fresh cache and returns what it read beyond its declaration.
fn undeclared<A: Analysis>(m: &spvopt_ir::Module) -> Vec<(&'static str, AnalysisSet)> {
    let mut analyses = Analyses::new();
    analyses.get::<A>(m);
    analyses.undeclared_dependencies().to_vec()
}

#[test]
fn every_analysis_declares_what_it_reads() {
    let files = corpus_modules();
    assert!(files.len() >= 15, "corpus not found: {files:?}");
    for path in files {
        let m = spvopt_ir::load_bytes(&std::fs::read(&path).unwrap()).unwrap();
        let found: Vec<_> = [
            undeclared::<Cfg>(&m),
            undeclared::<Dominators>(&m),
            undeclared::<PostDominators>(&m),
            undeclared::<Loops>(&m),
            undeclared::<Induction>(&m),
            undeclared::<Decorations>(&m),
            undeclared::<Callees>(&m),
            undeclared::<KernelFacts>(&m),
            undeclared::<Constants>(&m),
            undeclared::<Provenance>(&m),
            undeclared::<Uniformity>(&m),
            undeclared::<Alias>(&m),
            undeclared::<BlockGeometry>(&m),
            undeclared::<spvopt_ir::DefUse>(&m),
        ]
        .concat();
        assert!(
            found.is_empty(),
            "{}: undeclared dependencies {found:?}",
            path.display()
        );
    }
}

/// An analysis dropped with what it read even when it did not declare it: the record is what
/// the cache invalidates by.
#[test]
fn a_cached_analysis_goes_with_what_it_was_built_from() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/corpus/triton/gemm_fp16_blockptr_128x128x32_w8__pvc.spv");
    let m = spvopt_ir::load_bytes(&std::fs::read(path).unwrap()).unwrap();
    let mut analyses = Analyses::new();
    analyses.get::<Uniformity>(&m);
    assert!(
        analyses.is_cached::<KernelFacts>(),
        "uniformity reads kernel facts from the cache"
    );
    analyses.invalidate_except(AnalysisSet::ALL.without(AnalysisSet::KERNEL_FACTS));
    assert!(!analyses.is_cached::<Uniformity>());
    analyses.get::<Uniformity>(&m);
    analyses.invalidate_except(AnalysisSet::ALL.without(AnalysisSet::CFG));
    assert!(!analyses.is_cached::<Uniformity>() && !analyses.is_cached::<Loops>());
    assert!(analyses.is_cached::<KernelFacts>());
}
