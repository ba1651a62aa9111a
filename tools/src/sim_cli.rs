//! `spv-sim`: the command line of the reference simulator (`spvopt_sim`).
//!
//! ```text
//! spv-sim run MODULE --launch L.json --out DIR [--counters C.json] [--summary]
//! spv-sim compare A B --launch L.json [--ulp N]
//! spv-sim bench MODULE --launch L.json [--reps N]
//! ```
//! Every command also takes `--block-layout hardware|spec`, overriding the launch's
//! `"block_layout"` (how 2D block IO deals rows wider than subgroup-size dwords).
//! MODULE is a SPIR-V binary or `.spvasm` text (assembled for its `; target-env:` line, else
//! its `; Version:` line, else spv1.6). `run` writes `DIR/arg<i>.bin` for every buffer
//! parameter `i`. `compare` reads every buffer as elements (the launch entry's `"type"`, else the
//! kernel parameter's pointee type, else bytes; see `spvopt_sim::compare`), prints one line per
//! buffer (identical / within N ulp / DIFFERENT with the first differing elements, their
//! positions, both values and ulp distances, the count and the maximum error) and exits 0 when
//! every buffer is identical or within the tolerance, 1 otherwise. `bench` prints the
//! simulation time and instructions per second. `--help` after any command prints its usage.
//! Errors exit 1 with one line (`compare`: 2, as `diff` and `cmp`, since its 1 means "differ").

use std::path::Path;
use std::time::Instant;

use spvopt_ir::text;
use spvopt_sim::{Arg, Launch, RunOutput};

use crate::io::{read_input, to_binary};

const USAGE: &str = "\
spv-sim — the reference simulator of spv-opt (runs OpenCL SPIR-V kernels on the CPU)

usage: spv-sim run MODULE --launch L.json --out DIR [--counters C.json] [--summary] [--inputs DIR]
       spv-sim compare A B --launch L.json [--ulp N]
       spv-sim bench MODULE --launch L.json [--reps N]
       spv-sim --help | --version

Every command also takes:
    --block-layout hardware|spec   how 2D block IO deals rows wider than subgroup-size dwords
                                   (overrides the launch's \"block_layout\")
    --subgroup-size N              the subgroup size of a kernel that declares none (overrides
                                   the launch's \"subgroup_size\"; default 16)
    --max-work-groups N            refuse a launch of more than N work-groups (default 4096;
                                   0: no limit): the simulator runs them one after another
    --max-buffer-bytes N           refuse a launch whose global buffers hold more than N bytes
                                   together (default 1G; suffixes K, M, G; 0: no limit)
A run longer than a second shows a progress bar on stderr when stderr is a terminal
(SPV_SIM_PROGRESS_AFTER_MS=N: after N milliseconds instead).
    --completions SHELL            print a completion script for bash, zsh or fish
    --man                          print the man page (roff)
`spv-sim COMMAND --help` for details. Launch format: sim/README.md. Exit status: 0 success,
1 error (one line on stderr); compare answers as diff and cmp do: 0 identical or within the
tolerance, 1 a difference, 2 error.
";

/// Default `--max-work-groups`: about four minutes of the corpus GEMM's work-groups.
const DEFAULT_MAX_WORK_GROUPS: u64 = 4096;
/// Default `--max-buffer-bytes`: 1 GiB.
const DEFAULT_MAX_BUFFER_BYTES: u64 = 1 << 30;

/// The options any command takes, for "did you mean".
const OPTIONS: &[&str] = &[
    "--launch",
    "--out",
    "--counters",
    "--summary",
    "--inputs",
    "--ulp",
    "--reps",
    "--block-layout",
    "--subgroup-size",
    "--max-work-groups",
    "--max-buffer-bytes",
    "--completions",
    "--man",
    "--help",
];

const RUN_USAGE: &str = "\
usage: spv-sim run MODULE --launch L.json --out DIR [--counters C.json] [--summary]
                   [--inputs DIR] [--block-layout hardware|spec]

Runs the launch's kernel of MODULE (SPIR-V binary or .spvasm) on the reference simulator and
writes the final bytes of every buffer argument i to DIR/arg<i>.bin; --counters writes the
execution counters as JSON (sim/README.md); --summary prints them as text. Memory counters
(\"memory\"): per storage class (global, local, private, constant, generic: a Generic pointer
counts in the class of the allocation it points into) and per load / store / atomic, the
messages (one per subgroup per executed instruction: the subgroup's active invocations execute
it together; a divergent subgroup executing it on two paths sends two), the bytes (summed over
active invocations) and the distinct 64-byte lines each message touches (summed over messages).
Loads, stores, atomics, vload/vstore and 1D subgroup block reads/writes count; 2D block IO has
its own counters. --inputs writes the initial bytes of every buffer argument to
DIR/arg<i>.bin and DIR/launch.json, the same launch with those files as its buffers (so another
executor, e.g. tests/crosscheck/run_opencl.py on Intel's OpenCL CPU runtime, runs exactly the
simulator's inputs, generated ones included). Exit 0 on success, 1 on error (one line: function,
instruction, invocation for undefined behaviour). Launch format: sim/README.md.
";

const COMPARE_USAGE: &str = "\
usage: spv-sim compare A B --launch L.json [--ulp N] [--block-layout hardware|spec]

Runs the launch on modules A and B and compares every buffer argument element by element. The
element type is the launch entry's \"type\", else the kernel parameter's pointee type (half,
float, double, iN, vectors of them), else bytes (8-bit pointees, as LLVM front ends emit). Float
elements may differ by N ulp (--ulp N, else the entry's \"ulp\", else 0); integers and bytes must
be equal. One line per buffer: `identical` (bytes equal), `within N ulp`, or `DIFFERENT` with
the number of differing elements, the maximum ulp distance and absolute error, and the first
differing elements (index, row/column when the entry has a \"shape\", both values, ulp).
Exit status: 0 every buffer identical or within the tolerance, 1 some buffer differs, 2 error.
";

const BENCH_USAGE: &str = "\
usage: spv-sim bench MODULE --launch L.json [--reps N] [--block-layout hardware|spec]

Runs the launch REPS times (default 1) and prints the best simulation time, the instructions
executed (summed over invocations) and instructions per second. Exit 0, or 1 on error.
";

/// Elements listed per differing buffer.
const LISTED: usize = 10;

struct Opts {
    positional: Vec<String>,
    launch: Option<String>,
    out: Option<String>,
    counters: Option<String>,
    inputs: Option<String>,
    summary: bool,
    ulp: Option<u64>,
    reps: usize,
    block_layout: Option<spvopt_sim::block_io_2d::BlockLayout>,
    subgroup_size: Option<u32>,
    max_work_groups: u64,
    max_buffer_bytes: u64,
    help: bool,
}

fn parse(args: &[String]) -> Result<Opts, String> {
    let mut o = Opts {
        positional: Vec::new(),
        launch: None,
        out: None,
        counters: None,
        inputs: None,
        summary: false,
        ulp: None,
        reps: 1,
        block_layout: None,
        subgroup_size: None,
        max_work_groups: DEFAULT_MAX_WORK_GROUPS,
        max_buffer_bytes: DEFAULT_MAX_BUFFER_BYTES,
        help: false,
    };
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut val = |name: &str| {
            it.next()
                .cloned()
                .ok_or_else(|| format!("{name} needs a value"))
        };
        match a.as_str() {
            "--launch" => o.launch = Some(val("--launch")?),
            "--out" => o.out = Some(val("--out")?),
            "--counters" => o.counters = Some(val("--counters")?),
            "--inputs" => o.inputs = Some(val("--inputs")?),
            "--summary" => o.summary = true,
            "--ulp" => {
                o.ulp = Some(
                    val("--ulp")?
                        .parse()
                        .map_err(|_| "--ulp needs a non-negative integer".to_string())?,
                )
            }
            "--block-layout" => {
                let v = val("--block-layout")?;
                o.block_layout = Some(spvopt_sim::block_io_2d::BlockLayout::parse(&v).ok_or_else(
                    || format!("--block-layout must be `hardware` or `spec`, not `{v}`"),
                )?)
            }
            "--subgroup-size" => {
                let v = val("--subgroup-size")?;
                o.subgroup_size = Some(
                    v.parse()
                        .ok()
                        .filter(|n: &u32| (1..=64).contains(n))
                        .ok_or_else(|| format!("--subgroup-size {v}: expected 1 to 64"))?,
                )
            }
            "--max-work-groups" => {
                let v = val("--max-work-groups")?;
                o.max_work_groups = v
                    .parse()
                    .map_err(|_| format!("--max-work-groups {v}: expected a number"))?
            }
            "--max-buffer-bytes" => {
                let v = val("--max-buffer-bytes")?;
                o.max_buffer_bytes = parse_bytes(&v).ok_or_else(|| {
                    format!("--max-buffer-bytes {v}: expected a number of bytes (K, M, G allowed)")
                })?
            }
            "--reps" => {
                o.reps = val("--reps")?
                    .parse()
                    .map_err(|_| "--reps needs a positive integer".to_string())?
            }
            "-h" | "--help" => o.help = true,
            s if s.starts_with('-') && s != "-" => {
                return Err(format!(
                    "unknown option {s}{} (see --help)",
                    spvopt_passes::registry::did_you_mean(s, OPTIONS.iter().copied())
                ))
            }
            s => o.positional.push(s.to_string()),
        }
    }
    Ok(o)
}

/// `1073741824`, `1024K`, `256M`, `1G` (binary multiples).
fn parse_bytes(v: &str) -> Option<u64> {
    let (digits, unit) = match v.char_indices().last()? {
        (i, 'k' | 'K') => (&v[..i], 1u64 << 10),
        (i, 'm' | 'M') => (&v[..i], 1 << 20),
        (i, 'g' | 'G') => (&v[..i], 1 << 30),
        _ => (v, 1),
    };
    digits.parse::<u64>().ok()?.checked_mul(unit)
}

/// Loads a module from a binary or `.spvasm` file.
pub fn load_module(path: &str) -> Result<spvopt_ir::Module, String> {
    let bytes = read_input(path)?;
    let env = if text::looks_binary(&bytes) {
        None
    } else {
        let src = String::from_utf8_lossy(&bytes);
        match src.lines().find_map(|l| {
            l.strip_prefix("; target-env:")
                .map(|e| e.trim().to_string())
        }) {
            Some(e) => Some(text::parse_target_env(&e).map_err(|e| format!("{path}: {e}"))?),
            None => None,
        }
    };
    let bin = to_binary(bytes, path, env)?;
    spvopt_ir::load_bytes(&bin).map_err(|e| format!("{path}: {e}"))
}

fn simulate(module: &str, launch: &Launch) -> Result<(spvopt_ir::Module, RunOutput), String> {
    let m = load_module(module)?;
    let r = run_showing_progress(&m, launch, module)?;
    Ok((m, r))
}

/// Runs the simulator; on a terminal, a run longer than a second shows a progress bar of
/// work-groups on stderr (cleared at the end). Not on a terminal: nothing is printed.
fn run_showing_progress(
    m: &spvopt_ir::Module,
    launch: &Launch,
    module: &str,
) -> Result<RunOutput, String> {
    use std::io::IsTerminal;
    let start = Instant::now();
    let tty = std::io::stderr().is_terminal();
    let after = progress_delay();
    let mut bar: Option<indicatif::ProgressBar> = None;
    let mut progress = |done: u64, total: u64| {
        if !tty || done >= total {
            return;
        }
        if bar.is_none() && start.elapsed() >= after {
            let b = indicatif::ProgressBar::new(total);
            b.set_style(
                indicatif::ProgressStyle::with_template(
                    "{msg} {bar:30} {pos}/{len} work-groups {elapsed} (about {eta} left)",
                )
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
            );
            b.set_message(module.to_string());
            bar = Some(b);
        }
        if let Some(b) = &bar {
            b.set_position(done);
        }
    };
    let r = spvopt_sim::run_with_progress(m, launch, &mut progress);
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    r.map_err(|e| format!("{module}: {e}"))
}

/// How long a run on a terminal goes before the progress bar appears: one second, or
/// `SPV_SIM_PROGRESS_AFTER_MS` milliseconds (0: from the start, what the test of the bar uses,
/// so that it does not depend on the machine's speed). An unreadable value is the default.
fn progress_delay() -> std::time::Duration {
    std::env::var("SPV_SIM_PROGRESS_AFTER_MS")
        .ok()
        .and_then(|v| v.trim().parse::<u64>().ok())
        .map_or(
            std::time::Duration::from_secs(1),
            std::time::Duration::from_millis,
        )
}

fn launch_of(o: &Opts) -> Result<Launch, String> {
    let l = o.launch.as_ref().ok_or("--launch L.json is required")?;
    let path = Path::new(l);
    // The limits are checked before any buffer is read, generated or allocated.
    let text = std::fs::read_to_string(path).map_err(|e| format!("{l}: {e}"))?;
    let base = path.parent().unwrap_or(Path::new("."));
    let f = spvopt_sim::launch::footprint(&text, base).map_err(|e| format!("{l}: {e}"))?;
    if o.max_work_groups > 0 && f.work_groups > o.max_work_groups {
        return Err(format!(
            "{l}: {} work-groups, more than --max-work-groups {} (the simulator runs them one \
             after another; give a larger --max-work-groups, or 0 for no limit)",
            f.work_groups, o.max_work_groups
        ));
    }
    if o.max_buffer_bytes > 0 && f.buffer_bytes > o.max_buffer_bytes {
        return Err(format!(
            "{l}: global buffers of {} bytes together, more than --max-buffer-bytes {} (give a \
             larger --max-buffer-bytes, or 0 for no limit)",
            f.buffer_bytes, o.max_buffer_bytes
        ));
    }
    let mut launch = Launch::from_json(&text, base).map_err(|e| format!("{l}: {e}"))?;
    if let Some(b) = o.block_layout {
        launch.block_layout = b;
    }
    if let Some(n) = o.subgroup_size {
        launch.subgroup_size = Some(n);
    }
    Ok(launch)
}

fn cmd_run(o: &Opts) -> Result<i32, String> {
    let [module] = o.positional.as_slice() else {
        return Err(positional_error("run", "one MODULE", &o.positional));
    };
    let launch = launch_of(o)?;
    let out_dir = o.out.as_ref().ok_or("--out DIR is required")?;
    check_parent_exists(out_dir)?;
    if let Some(dir) = &o.inputs {
        check_parent_exists(dir)?;
    }
    let (m, r) = simulate(module, &launch)?;
    if let Some(dir) = &o.inputs {
        let types = spvopt_sim::compare::param_elem_types(&m, &launch.kernel);
        write_inputs(&launch, &types, dir)?;
    }
    std::fs::create_dir_all(out_dir).map_err(|e| format!("{out_dir}: {e}"))?;
    for (i, bytes) in &r.buffers {
        let p = Path::new(out_dir).join(format!("arg{i}.bin"));
        std::fs::write(&p, bytes).map_err(|e| format!("{}: {e}", p.display()))?;
    }
    if let Some(c) = &o.counters {
        let json = serde_json::to_string_pretty(&r.counters).map_err(|e| e.to_string())?;
        std::fs::write(c, json + "\n").map_err(|e| format!("{c}: {e}"))?;
    }
    if o.summary {
        crate::io::write_stdout(counters_text(&r.counters).as_bytes())?;
    }
    Ok(0)
}

/// The counters as text, one measure a line (`--summary`); memory traffic only for the
/// storage classes and kinds of access that occurred.
pub fn counters_text(c: &spvopt_sim::Counters) -> String {
    use std::fmt::Write as _;
    let mut s = String::new();
    let mut line = |name: &str, value: String| {
        let _ = writeln!(s, "{name:<32} {value}");
    };
    line("instructions", c.instructions.to_string());
    line("barriers", c.barriers.to_string());
    line("work-groups", c.work_groups.to_string());
    line("subgroups", c.subgroups.to_string());
    for (k, v) in &c.block2d {
        line(
            &format!("2D block {k}"),
            format!("{} ops, {} bytes", v.ops, v.bytes),
        );
    }
    for (k, v) in &c.mma {
        line(&format!("mma {k}"), v.to_string());
    }
    line(
        "prefetches",
        format!("{} ({} bytes)", c.prefetches, c.prefetched_bytes),
    );
    line(
        "2D load lines",
        format!(
            "{} ({} prefetched before, coverage {:.3})",
            c.lines_loaded_2d, c.lines_prefetched_before_load, c.prefetch_coverage
        ),
    );
    line(
        "1D block reads / writes",
        format!("{} / {}", c.block_reads_1d, c.block_writes_1d),
    );
    for class in spvopt_sim::traffic::MemClass::ALL {
        let t = c.memory.class(class);
        for (kind, a) in [("load", t.load), ("store", t.store), ("atomic", t.atomic)] {
            if a.messages > 0 {
                line(
                    &format!("memory {} {kind}", class.name()),
                    format!(
                        "{} messages, {} bytes, {} lines",
                        a.messages, a.bytes, a.lines
                    ),
                );
            }
        }
    }
    s
}

/// `spv-sim CMD takes WHAT, got …` (one line).
fn positional_error(cmd: &str, what: &str, got: &[String]) -> String {
    let got = match got {
        [] => "none".to_string(),
        g => g.join(" "),
    };
    format!("{cmd} takes {what}, got: {got} (see spv-sim {cmd} --help)")
}

/// An output folder is created, its parent must exist (as spv-opt refuses an output file in a
/// folder that does not exist): a mistyped path is an error, not a new tree of folders.
fn check_parent_exists(dir: &str) -> Result<(), String> {
    let parent = match Path::new(dir).parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => return Ok(()),
    };
    if parent.is_dir() {
        Ok(())
    } else {
        Err(format!("{dir}: folder {} does not exist", parent.display()))
    }
}

/// Writes the launch's initial buffers to `dir/arg<i>.bin` and `dir/launch.json` naming them
/// (a buffer's `type` from the launch, else from the kernel's parameter type).
pub fn write_inputs(
    launch: &spvopt_sim::Launch,
    param_types: &[Option<spvopt_sim::compare::Elem>],
    dir: &str,
) -> Result<(), String> {
    use serde_json::json;
    use spvopt_sim::Arg;
    std::fs::create_dir_all(dir).map_err(|e| format!("{dir}: {e}"))?;
    let mut args = Vec::new();
    for (i, a) in launch.args.iter().enumerate() {
        args.push(match a {
            Arg::Buffer { bytes, ty, .. } => {
                let name = format!("arg{i}.bin");
                let p = Path::new(dir).join(&name);
                std::fs::write(&p, bytes).map_err(|e| format!("{}: {e}", p.display()))?;
                let t = ty
                    .clone()
                    .or_else(|| param_types.get(i).copied().flatten().map(|e| e.name()));
                match t {
                    Some(t) => json!({ "buffer": name, "type": t }),
                    None => json!({ "buffer": name }),
                }
            }
            Arg::Local(n) => json!({ "local": n }),
            Arg::Scalar { ty, bytes } => {
                let mut w = [0u8; 8];
                let n = bytes.len().min(8);
                w[..n].copy_from_slice(&bytes[..n]);
                let raw = u64::from_le_bytes(w);
                let value = match ty.as_str() {
                    "f32" => json!(f32::from_bits(raw as u32)),
                    "f64" => json!(f64::from_bits(raw)),
                    t if t.starts_with('i') => {
                        let bits = 8 * n as u32;
                        let shift = 64 - bits.clamp(1, 64);
                        json!(((raw << shift) as i64) >> shift)
                    }
                    _ => json!(raw),
                };
                json!({ "scalar": ty, "value": value })
            }
        });
    }
    let mut l = json!({
        "kernel": launch.kernel,
        "global_size": launch.global_size,
        "local_size": launch.local_size,
        "args": args,
    });
    if let Some(sg) = launch.subgroup_size {
        l["subgroup_size"] = json!(sg);
    }
    let p = Path::new(dir).join("launch.json");
    let text = serde_json::to_string_pretty(&l).map_err(|e| e.to_string())?;
    std::fs::write(&p, text + "\n").map_err(|e| format!("{}: {e}", p.display()))
}

/// How a position in a `"shape"` reads: `row r, col c` for matrices, `[i, j, k]` otherwise.
fn show_position(p: &[u64]) -> String {
    match p {
        [_] => String::new(),
        [r, c] => format!(" (row {r}, col {c})"),
        _ => format!(
            " [{}]",
            p.iter().map(u64::to_string).collect::<Vec<_>>().join(", ")
        ),
    }
}

fn cmd_compare(o: &Opts) -> Result<i32, String> {
    use spvopt_sim::compare::{compare_buffers, param_elem_types, Elem, Verdict};
    let [a, b] = o.positional.as_slice() else {
        return Err(positional_error(
            "compare",
            "two modules A B",
            &o.positional,
        ));
    };
    let launch = launch_of(o)?;
    let shapes = {
        let l = o.launch.as_deref().unwrap_or_default();
        let text = std::fs::read_to_string(l).map_err(|e| format!("{l}: {e}"))?;
        spvopt_sim::launch::arg_shapes(&text).map_err(|e| format!("{l}: {e}"))?
    };
    let (ma, ra) = simulate(a, &launch)?;
    let (_, rb) = simulate(b, &launch)?;
    let param_types = param_elem_types(&ma, &launch.kernel);
    let mut out = String::new();
    let (mut identical, mut within, mut different) = (0usize, 0usize, 0usize);
    let mut tolerances = Vec::new();
    for ((i, x), (_, y)) in ra.buffers.iter().zip(&rb.buffers) {
        let (ty, entry_ulp) = match &launch.args[*i] {
            Arg::Buffer { ty, ulp, .. } => (ty.clone(), *ulp),
            _ => (None, None),
        };
        let (elem, from) = match ty {
            Some(t) => (
                Some(Elem::parse(&t).ok_or_else(|| {
                    format!(
                        "{}: arg {i}: unknown \"type\" `{t}` (f16, bf16, f32, f64, i8..i64, \
                         u8..u64)",
                        o.launch.as_deref().unwrap_or_default()
                    )
                })?),
                "launch \"type\"",
            ),
            None => match param_types.get(*i).copied().flatten() {
                Some(e) => (Some(e), "kernel parameter"),
                None => (None, "no type known"),
            },
        };
        let tolerance = o.ulp.or(entry_ulp).unwrap_or(0);
        let shape = shapes.get(*i).cloned().flatten();
        let r = compare_buffers(x, y, elem, tolerance, shape.as_deref(), LISTED);
        let what = match elem {
            Some(e) => format!("{} {} elements ({from})", r.elements, e.name()),
            None => format!("{} bytes ({from}: compared as bytes)", r.elements),
        };
        let float = elem.is_some_and(Elem::is_float);
        let error = |r: &spvopt_sim::compare::BufferCmp| {
            if float {
                format!("max {} ulp, max abs error {:e}", r.max_ulp, r.max_abs_error)
            } else {
                format!("max abs difference {}", r.max_abs_error)
            }
        };
        match r.verdict() {
            Verdict::Identical => {
                identical += 1;
                out.push_str(&format!("arg{i}: identical: {what}\n"));
                continue;
            }
            Verdict::Within => {
                within += 1;
                tolerances.push(tolerance);
                out.push_str(&format!(
                    "arg{i}: within {tolerance} ulp: {} of {what} differ, {}\n",
                    r.differing,
                    error(&r)
                ));
            }
            Verdict::Different => {
                different += 1;
                if let Some((p, q)) = r.sizes {
                    out.push_str(&format!("arg{i}: DIFFERENT: {p} vs {q} bytes\n"));
                    continue;
                }
                let beyond = if float {
                    format!(" ({} beyond {tolerance} ulp)", r.beyond)
                } else {
                    String::new()
                };
                out.push_str(&format!(
                    "arg{i}: DIFFERENT: {} of {what} differ{beyond}, {}\n",
                    r.differing,
                    error(&r)
                ));
                if o.ulp.is_some() && !float {
                    out.push_str(&format!(
                        "  note: --ulp does not apply to arg{i}: no float element type \
                         (give \"type\" in its launch entry)\n"
                    ));
                }
            }
        }
        if let Some(s) = &shape {
            let n: u64 = s.iter().product();
            if n != r.elements as u64 {
                out.push_str(&format!(
                    "  note: \"shape\" {s:?} has {n} elements, the buffer {}\n",
                    r.elements
                ));
            }
        }
        for d in &r.listed {
            let ulp = if float {
                format!(", {} ulp", d.ulp)
            } else {
                String::new()
            };
            let pos = d.position.as_deref().map(show_position).unwrap_or_default();
            out.push_str(&format!("  [{}]{pos}: {} vs {}{ulp}\n", d.index, d.a, d.b));
        }
        let shown = r.listed.len();
        let total = if r.beyond > 0 { r.beyond } else { r.differing };
        if total > shown {
            out.push_str(&format!("  ... {} more\n", total - shown));
        }
    }
    let n = ra.buffers.len();
    let code = if different > 0 {
        out.push_str(&format!("DIFFERENT: {different} of {n} buffers\n"));
        1
    } else if within > 0 {
        let t = tolerances.iter().max().copied().unwrap_or(0);
        out.push_str(&format!(
            "within {t} ulp: {n} buffers ({identical} identical, {within} within the tolerance)\n"
        ));
        0
    } else {
        out.push_str(&format!("identical: {n} buffers\n"));
        0
    };
    crate::io::write_stdout(out.as_bytes())?;
    Ok(code)
}

fn cmd_bench(o: &Opts) -> Result<i32, String> {
    let [module] = o.positional.as_slice() else {
        return Err(positional_error("bench", "one MODULE", &o.positional));
    };
    let launch = launch_of(o)?;
    let m = load_module(module)?;
    let mut best = f64::MAX;
    let mut instructions = 0;
    for _ in 0..o.reps.max(1) {
        let t = Instant::now();
        let r = run_showing_progress(&m, &launch, module)?;
        best = best.min(t.elapsed().as_secs_f64());
        instructions = r.counters.instructions;
    }
    let line = format!(
        "{module}: {:.3} s, {instructions} instructions, {:.1} M instructions/s\n",
        best,
        instructions as f64 / best / 1e6
    );
    crate::io::write_stdout(line.as_bytes())?;
    Ok(0)
}

/// spv-sim's flags for completions and the man page: [`USAGE`] and each command's options.
fn tool_doc() -> crate::cli_doc::Tool<'static> {
    use crate::cli_doc::flag;
    crate::cli_doc::Tool {
        program: "spv-sim",
        usage: USAGE,
        extra: vec![
            flag(
                "--launch",
                Some("L.json"),
                "the launch (kernel, NDRange, arguments)",
            ),
            flag(
                "--out",
                Some("DIR"),
                "run: write every buffer to DIR/arg<i>.bin",
            ),
            flag(
                "--counters",
                Some("C.json"),
                "run: write the execution counters as JSON",
            ),
            flag("--summary", None, "run: print the counters as text"),
            flag(
                "--inputs",
                Some("DIR"),
                "run: write the initial buffers and their launch",
            ),
            flag(
                "--ulp",
                Some("N"),
                "compare: float tolerance in units in the last place",
            ),
            flag("--reps", Some("N"), "bench: runs (the best is reported)"),
            flag("--help", None, "this text, or a command's"),
            flag("--version", None, "the version"),
        ],
        subcommands: &["run", "compare", "bench"],
        choices: vec![
            ("--block-layout", vec!["hardware".into(), "spec".into()]),
            (
                "--completions",
                vec!["bash".into(), "zsh".into(), "fish".into()],
            ),
        ],
        sections: vec![
            ("run", RUN_USAGE.into()),
            ("compare", COMPARE_USAGE.into()),
            ("bench", BENCH_USAGE.into()),
        ],
    }
}

/// Runs the CLI; returns the exit status.
pub fn run(args: &[String]) -> i32 {
    if let Some(code) = crate::cli_doc::handle(args, tool_doc) {
        return code;
    }
    let result = (|| -> Result<i32, String> {
        let (cmd, rest) = args
            .split_first()
            .ok_or("no command: run, compare or bench (see --help)")?;
        let usage = match cmd.as_str() {
            "run" => RUN_USAGE,
            "compare" => COMPARE_USAGE,
            "bench" => BENCH_USAGE,
            "-h" | "--help" | "help" => {
                crate::io::write_stdout(USAGE.as_bytes())?;
                return Ok(0);
            }
            "-V" | "--version" => {
                let v = format!("spv-sim {}\n", env!("CARGO_PKG_VERSION"));
                crate::io::write_stdout(v.as_bytes())?;
                return Ok(0);
            }
            c => {
                return Err(format!(
                    "unknown command `{c}`{}: run, compare or bench (see --help)",
                    spvopt_passes::registry::did_you_mean(c, ["run", "compare", "bench"])
                ))
            }
        };
        let o = parse(rest)?;
        if o.help {
            crate::io::write_stdout(usage.as_bytes())?;
            return Ok(0);
        }
        match cmd.as_str() {
            "run" => cmd_run(&o),
            "compare" => cmd_compare(&o),
            _ => cmd_bench(&o),
        }
    })();
    match result {
        Ok(c) => c,
        Err(e) => {
            eprintln!("spv-sim: error: {}", e.replace('\n', " "));
            error_status(args)
        }
    }
}

/// The exit status of an error: 1, as every spv-opt tool; `compare`, whose status answers
/// "do they differ" with 1, reports errors with 2, as `diff` and `cmp` do.
fn error_status(args: &[String]) -> i32 {
    if args.first().is_some_and(|c| c == "compare") {
        2
    } else {
        1
    }
}
