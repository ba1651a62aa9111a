//! Replays `pipeline` fuzz inputs (or, after `--differential`, `differential` inputs) outside
//! libFuzzer (no instrumentation) and prints, per file, the pipeline, the target, the result and
//! the time — to tell a slow input from a loaded machine.
//! `cargo run --release --example replay -- [--differential] FILE...`

use std::time::Instant;

fn main() {
    let mut differential = false;
    for path in std::env::args().skip(1) {
        if path == "--differential" {
            differential = true;
            continue;
        }
        let data = std::fs::read(&path).unwrap();
        let Some((pipeline, target, module)) = spvopt_fuzz::split_selector(&data) else {
            println!("{path}: too short");
            continue;
        };
        if differential {
            replay_differential(&path, pipeline, target, module);
            continue;
        }
        let start = Instant::now();
        let result = spvopt_ir::load_bytes(module)
            .map_err(|e| e.to_string())
            .and_then(|m| {
                spvopt_passes::optimize_words(&m.to_words(), pipeline, target)
                    .map_err(|e| e.to_string())
            })
            .and_then(|(out, _)| spvopt_ir::load_words(&out).map_err(|e| e.to_string()));
        let t = start.elapsed();
        let outcome = match result {
            Ok(_) => "ok, output reloads".to_string(),
            Err(e) => format!("error: {e}"),
        };
        println!(
            "{path}: {pipeline} on {}: {} ms: {outcome}",
            target.name,
            t.as_millis()
        );
    }
}

/// A `differential` input: the kernel's contents, the outcome (refused, unchanged, same results,
/// or which buffer differs) and the time.
fn replay_differential(
    path: &str,
    pipeline: &str,
    target: &spvopt_analysis::Target,
    choices: &[u8],
) {
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
