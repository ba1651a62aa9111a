//! Prints a module annotated with one analysis: `annotate ANALYSIS FILE.spv|FILE.spvasm`.

fn main() {
    let mut args = std::env::args().skip(1);
    let (Some(analysis), Some(path)) = (args.next(), args.next()) else {
        eprintln!("usage: annotate ANALYSIS FILE");
        std::process::exit(2);
    };
    let bytes = std::fs::read(&path).unwrap_or_else(|e| {
        eprintln!("cannot read {path}: {e}");
        std::process::exit(1)
    });
    let m = if spvopt_ir::text::looks_binary(&bytes) {
        spvopt_ir::load_bytes(&bytes)
    } else {
        let text = String::from_utf8_lossy(&bytes);
        match spvopt_ir::text::assemble(&text, spvopt_ir::text::TargetEnv::Universal_1_6) {
            Ok(words) => spvopt_ir::load_words(&words),
            Err(e) => {
                eprintln!("{e}");
                std::process::exit(1)
            }
        }
    };
    let m = m.unwrap_or_else(|e| {
        eprintln!("cannot load {path}: {e}");
        std::process::exit(1)
    });
    let mut a = spvopt_analysis::Analyses::new();
    match spvopt_analysis::print::annotate(&m, &analysis, &mut a) {
        Ok(s) => print!("{s}"),
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2)
        }
    }
}
