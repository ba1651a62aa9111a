//! Hostile input for `convert-tensor-addressing`: every tensor-hw kernel, the GEMM and the
//! joint_matrix fixtures with one to three random words replaced (operands, opcodes, constants,
//! types; a deterministic generator), through the pass alone and `-O` for pvc and dg2. A mutant the loader accepts must
//! give either an output that reloads (the structural invariants hold) or a one-line error —
//! never a panic. Mutants whose conversion succeeds are also run on the simulator with the
//! case's launch when the original converted: any run-time error is fine (the mutant may be
//! undefined behaviour), a panic is not.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;

use spvopt_analysis::Target;
use spvopt_ir::text;
use spvopt_passes::optimize_words;

/// xorshift64*: deterministic, no dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

fn kernels() -> Vec<(PathBuf, Vec<u32>)> {
    let env = text::parse_target_env("spv1.6").unwrap();
    let mut v = Vec::new();
    let hw = spvopt_tests::corpus_dir().join("tensor-hw");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&hw)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("kernel.spvasm").exists())
        .collect();
    dirs.sort();
    for d in dirs {
        let src = std::fs::read_to_string(d.join("kernel.spvasm")).unwrap();
        v.push((d.clone(), text::assemble(&src, env).unwrap()));
    }
    let gemm = spvopt_tests::corpus_dir().join("tensor/gemm_cm2_f16.spvasm");
    let src = std::fs::read_to_string(&gemm).unwrap();
    v.push((gemm, text::assemble(&src, env).unwrap()));
    // DPC++ joint_matrix's translator-internal instructions (checked load/store/construct,
    // element coordinates, prefetch, apply-function).
    let fixtures = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    let mut jm = vec![fixtures.join("joint_matrix/joint_matrix.spvasm")];
    jm.extend(
        spvopt_tests::fixtures_in("passes")
            .into_iter()
            .filter(|p| p.to_string_lossy().contains("joint_matrix")),
    );
    for p in jm {
        let src = std::fs::read_to_string(&p).unwrap();
        v.push((
            p,
            text::assemble(&src, text::TargetEnv::Universal_1_4).unwrap(),
        ));
    }
    v
}

#[test]
fn mutated_tensor_kernels_never_panic() {
    // SPVOPT_MUTANTS=N tries N variants per kernel (default 40), SPVOPT_SEED another seed.
    let per_kernel: usize = std::env::var("SPVOPT_MUTANTS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(40);
    let seed: u64 = std::env::var("SPVOPT_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0x9e37_79b9_7f4a_7c15);
    let mut rng = Rng(seed | 1);
    let targets = [
        Target::by_name("pvc").unwrap(),
        Target::by_name("dg2").unwrap(),
    ];
    let (mut loaded, mut converted, mut errors) = (0u32, 0u32, 0u32);
    let mut panics = Vec::new();
    for (path, words) in kernels() {
        for variant in 0..per_kernel {
            let mut w = words.clone();
            for _ in 0..=rng.below(3) {
                // Skip the 5-word header.
                let at = 5 + rng.below(w.len() - 5);
                w[at] = match rng.below(4) {
                    0 => rng.next() as u32,
                    1 => rng.below(64) as u32,
                    2 => w[at].wrapping_add(1),
                    _ => w[at] ^ (1 << rng.below(32)),
                };
            }
            if spvopt_ir::load_words(&w).is_err() {
                continue;
            }
            loaded += 1;
            let pipeline = if variant % 2 == 0 {
                "convert-tensor-addressing"
            } else {
                spvopt_passes::registry::OPTIMIZE_PIPELINE
            };
            let target = &targets[variant % 2];
            let r = catch_unwind(AssertUnwindSafe(|| optimize_words(&w, pipeline, target)));
            match r {
                Err(_) => panics.push(format!("{} variant {variant}: panic", path.display())),
                Ok(Err(e)) => {
                    errors += 1;
                    let msg = e.to_string();
                    assert_eq!(msg.lines().count(), 1, "{}: {msg}", path.display());
                }
                Ok(Ok((out, _))) => {
                    converted += 1;
                    let m = spvopt_ir::load_words(&out).unwrap_or_else(|e| {
                        panic!(
                            "{} variant {variant}: output does not reload: {e}",
                            path.display()
                        )
                    });
                    let launch = path.join("launch.json");
                    if launch.exists() {
                        let l = spvopt_sim::Launch::from_file(&launch).unwrap();
                        let sim = catch_unwind(AssertUnwindSafe(|| spvopt_sim::run(&m, &l)));
                        if sim.is_err() {
                            panics.push(format!(
                                "{} variant {variant}: simulator panic",
                                path.display()
                            ));
                        }
                    }
                }
            }
        }
    }
    println!("{loaded} mutants loaded: {converted} optimized, {errors} clean errors");
    assert!(panics.is_empty(), "{}", panics.join("\n"));
    assert!(
        loaded > 300 && converted > 50 && errors > 20,
        "{loaded} {converted} {errors}"
    );
}
