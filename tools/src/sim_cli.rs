//! `spv-sim`: the command line of the reference simulator (`spvopt_sim`).
//!
//! ```text
//! spv-sim run MODULE --launch L.json --out DIR [--counters C.json]
//! spv-sim compare A B --launch L.json [--ulp N]
//! spv-sim bench MODULE --launch L.json [--reps N]
//! ```
//! Every command also takes `--block-layout hardware|spec`, overriding the launch's
//! `"block_layout"` (how 2D block IO deals rows wider than subgroup-size dwords).
//! MODULE is a SPIR-V binary or `.spvasm` text (assembled for its `; target-env:` line, else
//! spv1.6). `run` writes `DIR/arg<i>.bin` for every buffer parameter `i`. `compare` exits 0 when
//! every buffer is bit-identical (or, with `--ulp N`, within N ulp for buffers whose launch entry
//! has a float `"type"`), 1 with the first differences otherwise. `bench` prints the simulation
//! time and instructions per second. Errors exit 2 with one line.

use std::path::Path;
use std::time::Instant;

use spvopt_ir::text;
use spvopt_sim::{Arg, Launch, RunOutput};

use crate::io::{read_input, to_binary};

const USAGE: &str = "usage: spv-sim run MODULE --launch L.json --out DIR [--counters C.json]\n       spv-sim compare A B --launch L.json [--ulp N]\n       spv-sim bench MODULE --launch L.json [--reps N]\n       (all: [--block-layout hardware|spec])";

struct Opts {
    positional: Vec<String>,
    launch: Option<String>,
    out: Option<String>,
    counters: Option<String>,
    ulp: Option<u64>,
    reps: usize,
    block_layout: Option<spvopt_sim::block_io_2d::BlockLayout>,
}

fn parse(args: &[String]) -> Result<Opts, String> {
    let mut o = Opts {
        positional: Vec::new(),
        launch: None,
        out: None,
        counters: None,
        ulp: None,
        reps: 1,
        block_layout: None,
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
            "--reps" => {
                o.reps = val("--reps")?
                    .parse()
                    .map_err(|_| "--reps needs a positive integer".to_string())?
            }
            s if s.starts_with("--") => return Err(format!("unknown option {s}")),
            s => o.positional.push(s.to_string()),
        }
    }
    Ok(o)
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
            Some(e) => Some(text::parse_target_env(&e).map_err(|e| e.to_string())?),
            None => None,
        }
    };
    let bin = to_binary(bytes, path, env)?;
    spvopt_ir::load_bytes(&bin).map_err(|e| format!("{path}: {e}"))
}

fn simulate(module: &str, launch: &Launch) -> Result<RunOutput, String> {
    let m = load_module(module)?;
    spvopt_sim::run(&m, launch).map_err(|e| format!("{module}: {e}"))
}

fn launch_of(o: &Opts) -> Result<Launch, String> {
    let l = o.launch.as_ref().ok_or("--launch L.json is required")?;
    let mut launch = Launch::from_file(Path::new(l)).map_err(|e| e.to_string())?;
    if let Some(b) = o.block_layout {
        launch.block_layout = b;
    }
    Ok(launch)
}

fn cmd_run(o: &Opts) -> Result<i32, String> {
    let [module] = o.positional.as_slice() else {
        return Err(USAGE.to_string());
    };
    let launch = launch_of(o)?;
    let out_dir = o.out.as_ref().ok_or("--out DIR is required")?;
    let r = simulate(module, &launch)?;
    std::fs::create_dir_all(out_dir).map_err(|e| format!("{out_dir}: {e}"))?;
    for (i, bytes) in &r.buffers {
        let p = Path::new(out_dir).join(format!("arg{i}.bin"));
        std::fs::write(&p, bytes).map_err(|e| format!("{}: {e}", p.display()))?;
    }
    if let Some(c) = &o.counters {
        let json = serde_json::to_string_pretty(&r.counters).map_err(|e| e.to_string())?;
        std::fs::write(c, json + "\n").map_err(|e| format!("{c}: {e}"))?;
    }
    Ok(0)
}

fn float_width(ty: &str) -> Option<u32> {
    match ty {
        "f16" | "bf16" => Some(16),
        "f32" => Some(32),
        "f64" => Some(64),
        _ => None,
    }
}

fn cmd_compare(o: &Opts) -> Result<i32, String> {
    let [a, b] = o.positional.as_slice() else {
        return Err(USAGE.to_string());
    };
    let launch = launch_of(o)?;
    let ra = simulate(a, &launch)?;
    let rb = simulate(b, &launch)?;
    let mut diffs = Vec::new();
    for ((i, x), (_, y)) in ra.buffers.iter().zip(&rb.buffers) {
        if x == y {
            continue;
        }
        let ty = match &launch.args[*i] {
            Arg::Buffer { ty, .. } => ty.clone(),
            _ => None,
        };
        let width = ty.as_deref().and_then(float_width);
        match (o.ulp, width) {
            (Some(ulp), Some(w)) => {
                let size = w as usize / 8;
                for (j, (p, q)) in x.chunks(size).zip(y.chunks(size)).enumerate() {
                    let mut pa = [0u8; 8];
                    let mut qa = [0u8; 8];
                    pa[..p.len()].copy_from_slice(p);
                    qa[..q.len()].copy_from_slice(q);
                    let (pv, qv) = (u64::from_le_bytes(pa), u64::from_le_bytes(qa));
                    let d = if ty.as_deref() == Some("bf16") {
                        // bf16 shares f32's ordering of the upper half
                        spvopt_sim::values::ulp_distance(pv << 16, qv << 16, 32)
                    } else {
                        spvopt_sim::values::ulp_distance(pv, qv, w)
                    };
                    if d > ulp {
                        diffs.push(format!("arg{i}[{j}]: {pv:#x} vs {qv:#x} ({d} ulp > {ulp})"));
                        if diffs.len() >= 10 {
                            break;
                        }
                    }
                }
            }
            _ => {
                if x.len() != y.len() {
                    diffs.push(format!("arg{i}: {} vs {} bytes", x.len(), y.len()));
                    continue;
                }
                for (j, (p, q)) in x.iter().zip(y).enumerate() {
                    if p != q {
                        diffs.push(format!("arg{i} byte {j}: {p:#04x} vs {q:#04x}"));
                        if diffs.len() >= 10 {
                            break;
                        }
                    }
                }
            }
        }
        if diffs.len() >= 10 {
            break;
        }
    }
    if diffs.is_empty() {
        println!("identical: {} buffers", ra.buffers.len());
        Ok(0)
    } else {
        println!("DIFFERENT ({} shown):", diffs.len());
        for d in diffs {
            println!("  {d}");
        }
        Ok(1)
    }
}

fn cmd_bench(o: &Opts) -> Result<i32, String> {
    let [module] = o.positional.as_slice() else {
        return Err(USAGE.to_string());
    };
    let launch = launch_of(o)?;
    let m = load_module(module)?;
    let mut best = f64::MAX;
    let mut instructions = 0;
    for _ in 0..o.reps.max(1) {
        let t = Instant::now();
        let r = spvopt_sim::run(&m, &launch).map_err(|e| format!("{module}: {e}"))?;
        best = best.min(t.elapsed().as_secs_f64());
        instructions = r.counters.instructions;
    }
    println!(
        "{module}: {:.3} s, {instructions} instructions, {:.1} M instructions/s",
        best,
        instructions as f64 / best / 1e6
    );
    Ok(0)
}

/// Runs the CLI; returns the exit status.
pub fn run(args: &[String]) -> i32 {
    let result = (|| -> Result<i32, String> {
        let (cmd, rest) = args.split_first().ok_or_else(|| USAGE.to_string())?;
        let o = parse(rest)?;
        match cmd.as_str() {
            "run" => cmd_run(&o),
            "compare" => cmd_compare(&o),
            "bench" => cmd_bench(&o),
            "-h" | "--help" => {
                println!("{USAGE}");
                Ok(0)
            }
            c => Err(format!("unknown command `{c}`\n{USAGE}")),
        }
    })();
    match result {
        Ok(c) => c,
        Err(e) => {
            eprintln!("spv-sim: error: {}", e.replace('\n', " | "));
            2
        }
    }
}
