//! `spv-opt`: see `spvopt_tools::opt_cli`.

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    std::process::exit(spvopt_tools::opt_cli::run(&args));
}
