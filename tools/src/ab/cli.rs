//! `spv-ab`'s command line: usage, options, and the command dispatcher.

use std::path::PathBuf;

use super::{bisect, compare, report};

pub const USAGE: &str = "\
spv-ab — compare two pass pipelines over many kernels, proving equivalence on spv-sim

USAGE:
    spv-ab --a PIPELINE --b PIPELINE [OPTIONS] KERNELS...
    spv-ab bisect --pipeline PIPELINE [--target T] [--launch L.json] KERNEL
    spv-ab reduce MODULE [--launch L.json] PREDICATE -o SMALL.spv   (spv-ab reduce --help)

KERNELS are .spv / .spvasm files or folders (searched recursively). A kernel's launch
(spv-sim's launch JSON, see sim/README.md) is NAME.launch.json beside it, or in --launches DIR,
or --launch L.json for every kernel; a kernel without one is optimized and measured statically
but not proven equivalent (reported as `no launch`).
PIPELINE is a pipeline string as in spv-opt --passes (\"-O\" or \"O\" for -O), e.g.
    --a -O --b \"-O,insert-prefetches(prefetch-distance=2)\"

OPTIONS:
    --target NAME       target device profile (default generic)
    --subgroup-size N   declare SubgroupSize N on every kernel that declares none, before
                        anything runs (as spv-opt --subgroup-size; the original too)
    --launch L.json     the launch for every kernel
    --launches DIR      where NAME.launch.json files are
    --json FILE         write the whole report as JSON (`-` for stdout)
    --html FILE         write a self-contained HTML report with bar charts
    --compiler ocloc    also compile the original, A and B with Intel's IGC ($SPVOPT_OCLOC)
                        for --target's device and report the ISA A -> B per kernel
                        (instructions, sends by kind, dpas, spills, K-loop instructions/sends)
    --build-options O   IGC options for --compiler (default: -cl-intel-256-GRF-per-thread for
                        kernels with MMAs where the device has it, else none)
    --ulp N             floating-point buffers (element type from the kernel's parameter
                        types) may differ by N units in the last place: verdict `within N ulp`
    --jobs N            kernels in parallel (default: all cores)
    --bisect            for a kernel that differs: bisect the pipeline that broke it (A, else
                        B) to the pass and the single rewrite, as `spv-ab bisect` does
    --device opencl[:N] also run the original, A and B on OpenCL device N (default 0; every
                        device of every platform, in order): results checked against spv-sim,
                        kernel time measured. A module needing what the device lacks (2D block
                        IO, DPAS, prefetch on the CPU runtime) is reported `not_run`
    --reps N            timed runs per variant on the device (default 10)
    --warmup N          untimed runs before them (default 2)
    --device-ulp N      floating-point buffers on the device may differ from spv-sim's by N
                        ulp (default 0; Intel's CPU runtime: exp/division within 3 ulp)
    --device-max-bytes N
                        a module above N bytes is reported `not_run` instead of being given
                        to the device's compiler (a JIT may take minutes on a megabyte module;
                        default: no limit)
    --python PATH       the Python with pyopencl + numpy for --device (default
                        $OPENCL_VENV/bin/python, else python3)
    -q, --quiet         no table on stdout
    --list-passes       list the passes a PIPELINE can name
    --completions SHELL print a completion script for bash, zsh or fish
    --man               print the man page (roff)
    --help, --version

bisect: runs PIPELINE on KERNEL pass by pass and reports the first pass after which the
simulator's buffers differ from the original's; then, inside that pass, binary-searches its
rewrite count (max-changes, which every pass honours) for the single rewrite that changes the
results and prints the diff of the module after N-1 and after N rewrites of that pass (or,
when no single rewrite is found, why, and the whole pass's diff).
Exit codes: 0 equivalent, 1 a kernel differs or failed, 2 usage error.
";

/// Command-line options of the comparison.
#[derive(Clone, Debug)]
pub struct Options {
    pub a: String,
    pub b: String,
    pub target: Option<String>,
    pub launch: Option<PathBuf>,
    pub launches: Option<PathBuf>,
    pub json: Option<String>,
    pub html: Option<String>,
    pub jobs: Option<usize>,
    /// Tolerance for floating-point buffers, in units in the last place (0: bit-identical).
    pub ulp: u64,
    pub quiet: bool,
    pub kernels: Vec<PathBuf>,
    /// `--bisect`: bisect the pipeline of each kernel that differs.
    pub bisect: bool,
    /// `--device opencl:N`: the device index.
    pub device: Option<usize>,
    pub reps: usize,
    pub warmup: usize,
    pub device_ulp: u64,
    /// `--device-max-bytes`: modules above this size are not run on the device.
    pub device_max_bytes: Option<usize>,
    pub python: Option<String>,
    /// `--subgroup-size N`: declared on kernels that declare none.
    pub subgroup_size: Option<String>,
    /// `--compiler ocloc`: compile every variant with IGC for the target's device.
    pub compiler: Option<String>,
    /// `--build-options O`: IGC's options for `--compiler` (default: 256 GRF for MMA kernels).
    pub build_options: Option<String>,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            a: String::new(),
            b: String::new(),
            target: None,
            launch: None,
            launches: None,
            json: None,
            html: None,
            jobs: None,
            ulp: 0,
            quiet: false,
            kernels: Vec::new(),
            bisect: false,
            device: None,
            reps: 10,
            warmup: 2,
            device_ulp: 0,
            device_max_bytes: None,
            python: None,
            subgroup_size: None,
            compiler: None,
            build_options: None,
        }
    }
}

fn number<T: std::str::FromStr>(flag: &str, v: &str) -> Result<T, String> {
    v.parse().map_err(|_| format!("{flag}: bad number {v}"))
}

fn take(args: &[String], i: &mut usize, flag: &str) -> Result<String, String> {
    *i += 1;
    args.get(*i)
        .cloned()
        .ok_or_else(|| format!("{flag} needs a value"))
}

/// Parses the comparison's arguments (`None` for `--help`).
pub fn parse_options(args: &[String]) -> Result<Option<Options>, String> {
    let mut o = Options::default();
    let (mut have_a, mut have_b) = (false, false);
    let mut i = 0;
    while i < args.len() {
        let arg = args[i].as_str();
        let (flag, inline) = match arg.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f, Some(v.to_string())),
            _ => (arg, None),
        };
        let value = |i: &mut usize| match &inline {
            Some(v) => Ok(v.clone()),
            None => take(args, i, flag),
        };
        match flag {
            "-h" | "--help" => return Ok(None),
            "--a" => {
                o.a = value(&mut i)?;
                have_a = true;
            }
            "--b" => {
                o.b = value(&mut i)?;
                have_b = true;
            }
            "--target" => o.target = Some(value(&mut i)?),
            "--launch" => o.launch = Some(PathBuf::from(value(&mut i)?)),
            "--launches" => o.launches = Some(PathBuf::from(value(&mut i)?)),
            "--json" => o.json = Some(value(&mut i)?),
            "--html" => o.html = Some(value(&mut i)?),
            "--jobs" => o.jobs = Some(number(flag, &value(&mut i)?)?),
            "-q" | "--quiet" => o.quiet = true,
            "--bisect" => o.bisect = true,
            "--device" => o.device = Some(super::device::parse_spec(&value(&mut i)?)?),
            "--reps" => {
                o.reps = number(flag, &value(&mut i)?)?;
                if o.reps == 0 {
                    return Err("--reps: at least 1".into());
                }
            }
            "--warmup" => o.warmup = number(flag, &value(&mut i)?)?,
            "--device-ulp" => o.device_ulp = number(flag, &value(&mut i)?)?,
            "--device-max-bytes" => o.device_max_bytes = Some(number(flag, &value(&mut i)?)?),
            "--python" => o.python = Some(value(&mut i)?),
            "--ulp" => o.ulp = number(flag, &value(&mut i)?)?,
            "--subgroup-size" => o.subgroup_size = Some(value(&mut i)?),
            "--compiler" => o.compiler = Some(super::igc_view::parse_compiler(&value(&mut i)?)?),
            "--build-options" => o.build_options = Some(value(&mut i)?),
            _ if arg.starts_with('-') && arg.len() > 1 => {
                let flags = crate::opt_cli::usage_flags(USAGE);
                return Err(format!(
                    "unknown option {arg}{} (see --help)",
                    spvopt_passes::registry::did_you_mean(flag, flags.iter().map(String::as_str))
                ));
            }
            _ => o.kernels.push(PathBuf::from(arg)),
        }
        i += 1;
    }
    if !have_a || !have_b {
        return Err("give both --a PIPELINE and --b PIPELINE (see --help)".into());
    }
    if o.kernels.is_empty() {
        return Err("no kernels given (see --help)".into());
    }
    Ok(Some(o))
}

/// Runs spv-ab with `args` (without the program name); returns the exit code.
pub fn main(args: &[String]) -> i32 {
    if let Some(code) = crate::cli_doc::handle(args, crate::cli_doc::ab_tool) {
        return code;
    }
    if args.first().map(String::as_str) == Some("bisect") {
        return bisect::main(&args[1..]);
    }
    if args.first().map(String::as_str) == Some("reduce") {
        return super::reduce::main(&args[1..]);
    }
    if args.iter().any(|a| a == "--version") {
        let v = format!("spv-ab {}\n", env!("CARGO_PKG_VERSION"));
        return i32::from(crate::io::write_stdout(v.as_bytes()).is_err());
    }
    if args.iter().any(|a| a == "--list-passes") {
        let list = crate::opt_cli::list_passes();
        return i32::from(crate::io::write_stdout(list.as_bytes()).is_err());
    }
    let opts = match parse_options(args) {
        Ok(Some(o)) => o,
        Ok(None) => {
            print!("{USAGE}");
            return 0;
        }
        Err(e) => {
            eprintln!("spv-ab: error: {e}");
            return 2;
        }
    };
    let report = match compare(&opts) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("spv-ab: error: {e}");
            return 2;
        }
    };
    if let Err(e) = report::write_all(&report, &opts) {
        eprintln!("spv-ab: error: {e}");
        return 2;
    }
    if report.all_equivalent() {
        0
    } else {
        1
    }
}
