//! `spv-ab`: compare two pass pipelines over many kernels (see `spvopt_tools::ab`).

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    std::process::exit(spvopt_tools::ab::main(&args));
}
