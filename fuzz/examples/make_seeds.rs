//! Writes the seed corpora of the fuzz targets from `tests/corpus` (run from `fuzz/`):
//! `corpus/load_emit/` gets every corpus module as is, `corpus/pipeline/` every module once per
//! pipeline with the target cycling (2 selector bytes, see `split_selector`), `corpus/sim/` every
//! module with 8 launch bytes — plus 200 kernelgen kernels in each of those three —
//! `corpus/differential/` 4 kernelgen seeds per pipeline (2 selector
//! bytes, then the seed's choices). Fails if a corpus module does not load.
//!
//! `cargo run --release --example make_seeds`

use std::path::{Path, PathBuf};

fn modules(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            modules(&p, out);
        } else if p.extension().is_some_and(|x| x == "spv") {
            out.push(p);
        }
    }
}

/// Kernelgen kernels added to the `load_emit`, `pipeline` and `sim` seeds.
const GENERATED_KERNELS: u64 = 200;

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    modules(&root.join("../tests/corpus"), &mut files);
    files.sort();
    let n_pipelines = spvopt_fuzz::pipelines().len();
    for t in ["load_emit", "pipeline", "sim"] {
        std::fs::create_dir_all(root.join("corpus").join(t)).unwrap();
    }
    let mut written = 0;
    for (k, f) in files.iter().enumerate() {
        let bytes = std::fs::read(f).unwrap();
        if let Err(e) = spvopt_ir::load_bytes(&bytes) {
            panic!("{}: {e}", f.display());
        }
        let stem = format!("c{k:03}");
        std::fs::write(root.join("corpus/load_emit").join(&stem), &bytes).unwrap();
        for p in 0..n_pipelines {
            let mut seed = vec![p as u8, (p + k) as u8];
            seed.extend_from_slice(&bytes);
            std::fs::write(root.join(format!("corpus/pipeline/{stem}_p{p:02}")), seed).unwrap();
            written += 1;
        }
        let mut seed = vec![32, 32, 1, 0, 1, 0, (k & 1) as u8, k as u8];
        seed.extend_from_slice(&bytes);
        std::fs::write(root.join(format!("corpus/sim/{stem}")), seed).unwrap();
    }
    // Small valid kernels from kernelgen (2D block IO, MMA, loops, divergence, builtin calls)
    // beside the corpus modules: a tenth of their size, so many more executions per second.
    let mut generated = 0;
    for seed in 0..GENERATED_KERNELS {
        let k = spvopt_kernelgen::from_seed(seed);
        let bytes: Vec<u8> = k.words.iter().flat_map(|w| w.to_le_bytes()).collect();
        let stem = format!("g{seed:03}");
        std::fs::write(root.join("corpus/load_emit").join(&stem), &bytes).unwrap();
        let p = seed as usize % n_pipelines;
        let mut seed_input = vec![p as u8, (seed / 7) as u8];
        seed_input.extend_from_slice(&bytes);
        std::fs::write(root.join(format!("corpus/pipeline/{stem}")), seed_input).unwrap();
        let mut sim_input = vec![
            8,
            8,
            (seed & 1) as u8,
            0,
            (seed % 4) as u8,
            0,
            1,
            seed as u8,
        ];
        sim_input.extend_from_slice(&bytes);
        std::fs::write(root.join(format!("corpus/sim/{stem}")), sim_input).unwrap();
        generated += 1;
    }
    // differential: 2 selector bytes, then the choices of a kernelgen seed
    std::fs::create_dir_all(root.join("corpus/differential")).unwrap();
    let n_targets = spvopt_analysis::Target::all().len();
    let mut differential = 0;
    for seed in 0..4 * n_pipelines as u64 {
        let p = seed as usize % n_pipelines;
        let mut input = vec![p as u8, (seed as usize / n_pipelines % n_targets) as u8];
        input.extend(spvopt_kernelgen::seed_bytes(seed));
        std::fs::write(root.join(format!("corpus/differential/k{seed:03}")), input).unwrap();
        differential += 1;
    }
    println!(
        "{} corpus modules: {} load_emit, {written} pipeline, {} sim seeds; {generated} \
         kernelgen kernels in each of those three; {differential} differential seeds",
        files.len(),
        files.len(),
        files.len()
    );
}
