//! Replays `pipeline` fuzz inputs outside libFuzzer (no instrumentation) and prints, per file,
//! the pipeline, the target, the result and the time — to tell a slow input from a loaded
//! machine. `cargo run --release --example replay -- FILE...`

use std::time::Instant;

fn main() {
    for path in std::env::args().skip(1) {
        let data = std::fs::read(&path).unwrap();
        let Some((pipeline, target, module)) = spvopt_fuzz::split_selector(&data) else {
            println!("{path}: too short");
            continue;
        };
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
