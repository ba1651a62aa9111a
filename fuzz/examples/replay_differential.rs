//! Replays `differential` fuzz inputs outside libFuzzer (no instrumentation): per file, the
//! pipeline, the target, the kernel's contents and the outcome (refused, unchanged, same
//! results, or which buffer differs) and the time.
//! `cargo run --release --example replay_differential -- FILE...`

use std::time::Instant;

fn main() {
    for path in std::env::args().skip(1) {
        let data = std::fs::read(&path).unwrap();
        let Some((pipeline, target, choices)) = spvopt_fuzz::split_selector(&data) else {
            println!("{path}: too short");
            continue;
        };
        let start = Instant::now();
        let k = spvopt_kernelgen::generate(choices);
        let m = spvopt_ir::load_words(&k.words).expect("a generated kernel loads");
        let expected = spvopt_sim::run(&m, &k.launch).expect("a generated kernel runs");
        let outcome = match spvopt_passes::optimize_words(&k.words, pipeline, target) {
            Err(e) => format!("error: {e}"),
            Ok((out, _)) if out == k.words => "unchanged".to_string(),
            Ok((out, _)) => match spvopt_ir::load_words(&out)
                .map_err(|e| e.to_string())
                .and_then(|m| spvopt_sim::run(&m, &k.launch).map_err(|e| e.to_string()))
            {
                Err(e) => format!("output fails: {e}"),
                Ok(got) => match expected
                    .buffers
                    .iter()
                    .zip(&got.buffers)
                    .find(|(a, b)| a.1 != b.1)
                {
                    None => "same results".to_string(),
                    Some(((i, _), _)) => format!("buffer arg{i} DIFFERS"),
                },
            },
        };
        println!(
            "{path}: {pipeline} on {}: {} ms: {outcome}\n  {:?}",
            target.name,
            start.elapsed().as_millis(),
            k.summary
        );
    }
}
