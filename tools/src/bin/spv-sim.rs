//! `spv-sim`: see `spvopt_tools::sim_cli`.

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    std::process::exit(spvopt_tools::sim_cli::run(&args));
}
