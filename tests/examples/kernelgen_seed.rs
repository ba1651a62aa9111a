//! Shows one generated kernel (`spvopt-kernelgen`): its disassembly, launch and summary, and
//! what PIPELINE on TARGET reports (statistics, result vs the original on spv-sim). For
//! looking at a differential-test or fuzz finding.
//!
//! `cargo run --release -p spvopt-tests --example kernelgen_seed -- SEED [PIPELINE [TARGET]]`
//! (`SEED` may also be a file of fuzz-input bytes).

use spvopt_analysis::Target;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let seed = args.first().expect("SEED or FILE");
    let k = match seed.parse::<u64>() {
        Ok(s) => spvopt_kernelgen::from_seed(s),
        Err(_) => spvopt_kernelgen::generate(&std::fs::read(seed).expect("input file")),
    };
    let quiet = std::env::var("QUIET").is_ok();
    if !quiet {
        println!(
            "{}",
            spvopt_ir::text::disassemble(&k.words).expect("disassembles")
        );
    }
    println!("{:?}", k.summary);
    let m = spvopt_ir::load_words(&k.words).expect("loads");
    let before = spvopt_sim::run(&m, &k.launch).expect("the original runs");
    let Some(pipeline) = args.get(1) else {
        return;
    };
    let target = Target::by_name(args.get(2).map_or("pvc", String::as_str)).expect("target");
    match spvopt_passes::optimize_words(&k.words, pipeline, &target) {
        Err(e) => println!("{pipeline} on {}: error: {e}", target.name),
        Ok((out, report)) => {
            for p in &report.passes {
                println!("{}: {}", p.name, p.stats);
            }
            if !quiet {
                println!(
                    "{}",
                    spvopt_ir::text::disassemble(&out).expect("disassembles")
                );
            }
            let after = spvopt_ir::load_words(&out)
                .map_err(|e| e.to_string())
                .and_then(|m| spvopt_sim::run(&m, &k.launch).map_err(|e| e.to_string()));
            match after {
                Err(e) => println!("output: {e}"),
                Ok(a) if a.buffers == before.buffers => println!("output: same results"),
                Ok(_) => println!("output: DIFFERENT results"),
            }
        }
    }
}
