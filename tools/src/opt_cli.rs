//! `spv-opt`: the optimizer's command line, following spirv-opt's conventions.

use std::cell::Cell;
use std::time::Instant;

use spvopt_analysis::Target;
use spvopt_ir::text::{self, TargetEnv};
use spvopt_ir::Module;
use spvopt_passes::diagnostic::render::Renderer;
use spvopt_passes::messages::Names;
use spvopt_passes::validate::{check_output, validate_module, validate_tolerating};
use spvopt_passes::{registry, run_pipeline, Diagnostic, Hooks, PassError, Pipeline};

use crate::io;

pub const USAGE: &str = "\
spv-opt — SPIR-V optimizer for Intel GPU compute kernels

USAGE:
    spv-opt [OPTIONS] [--PASS ...] IN -o OUT

IN is a SPIR-V binary or SPIR-V assembly text (auto-detected); `-` reads stdin.
OUT ending in .spvasm (or --emit-text) gets text, otherwise a binary; `-o -` writes stdout
(a binary is not written to a terminal without -f). Text input is assembled for its
`; Version:` line (else SPIR-V 1.6) unless --target-env is given.
Passes run in the order given. The output is written atomically: on any error nothing is written.

OPTIONS:
    --PASS                  run pass PASS (see --list-passes), e.g. --strip-debug --dce
    -O                      run the optimization pipeline (see --list-passes)
    --passes=PIPELINE       run a pipeline string, e.g. \"strip-debug,dce\" (or --passes PIPELINE)
    -Oconfig=FILE           read flags from FILE (whitespace-separated, # comments)
    -o OUT                  output file
    -f, --force             write a binary to stdout even when stdout is a terminal
    --emit-text             write SPIR-V assembly text
    --target NAME           target device profile (see --list-targets); default generic
    --subgroup-size N       declare SubgroupSize N on every kernel that declares none, before
                            the passes (N one of --target's sizes; e.g. for cooperative-matrix
                            kernels, which convert-tensor-addressing needs it for)
    --list-targets          list the target profiles
    --describe-target       print the whole profile of --target (or generic) and exit
    --target-env=ENV        SPIR-V environment for validation/assembly (spv1.4, opencl2.2, …);
                            default: the universal environment of the module's version (for
                            text input: of its `; Version:` line, else 1.6)
    --skip-validation       do not validate the input, nor the output (spirv-val's rules;
                            Function variables outside the entry block and invalid debug info
                            are warnings; the output of a valid input must validate: nothing is
                            written otherwise, and the error names the pass)
    --validate-after-each   validate the module after every pass that changed it, and the output
                            (a pass is blamed only if its input validated)
    -v, --verbose           one line per pass on stderr: changed or not, instruction counts,
                            statistics (implicit raise/lower steps included)
    -q, --quiet             no warnings on stderr (errors are still printed, one line each)
    --Werror                warnings are errors: printed as errors, exit 1, nothing written
    --diagnostics-format text|json
                            warnings and errors on stderr as text lines (the default) or as
                            one JSON object per line (level, message; where known at:
                            opcode/result/function/block and location; a pass's warnings
                            add pass and count, its errors pass and summary, one each)
    --print-changed         print, for every pass that changed the module, a unified diff of
                            the disassembly against the module before it, to stderr
    --time-report           print per-pass times and statistics to stderr
    --print-all             print the module (disassembly) after every pass to stderr
    --max-changes=N         every pass of the pipeline stops after N rewrites (like LLVM's
                            -debug-counter; one pass only: --passes=\"dce(max-changes=N)\");
                            -v and --stats report each pass's `changes`
    --stats FILE.json       write per-pass statistics as JSON
    --list-passes           list passes and their options
    --check-env             report every Level Zero environment rule IN violates (with its
                            location), and every kernel whose SubgroupSize --target lacks,
                            and exit 1 if any; writes nothing
    --print-analysis NAME   print IN annotated with analysis NAME (cfg, dominators, loops,
                            induction, uniformity, constants, alias) to stdout; writes nothing
    --format text|dot       with --print-analysis: the annotated listing (text, the default)
                            or a Graphviz graph of the blocks (dot: cfg, dominators, loops)
    --completions SHELL     print a completion script for bash, zsh or fish (all flags, every
                            pass and pass option), e.g. > ~/.local/share/bash-completion/completions/spv-opt
    --man                   print the man page (roff): spv-opt --man | man -l -
    --help, --version
";

/// Parsed command line.
#[derive(Debug, Default)]
struct Args {
    input: Option<String>,
    output: Option<String>,
    pipeline: Vec<String>,
    pass_options: Vec<(String, String)>,
    emit_text: bool,
    force: bool,
    target: Option<String>,
    target_env: Option<String>,
    subgroup_size: Option<String>,
    skip_validation: bool,
    validate_after_each: bool,
    verbose: bool,
    quiet: bool,
    werror: bool,
    print_changed: bool,
    time_report: bool,
    print_all: bool,
    stats: Option<String>,
    max_changes: Option<u64>,
    list_passes: bool,
    list_targets: bool,
    describe_target: bool,
    check_env: bool,
    print_analysis: Option<String>,
    format: Option<String>,
    diagnostics_format: Option<String>,
    help: bool,
    version: bool,
}

fn take_value(args: &[String], i: &mut usize, flag: &str) -> Result<String, String> {
    *i += 1;
    args.get(*i)
        .cloned()
        .ok_or_else(|| format!("{flag} needs a value"))
}

fn parse_args(args: &[String], a: &mut Args, depth: usize) -> Result<(), String> {
    let mut i = 0;
    while i < args.len() {
        let arg = args[i].as_str();
        match arg {
            "-h" | "--help" => a.help = true,
            "--version" => a.version = true,
            "--list-passes" => a.list_passes = true,
            "--list-targets" => a.list_targets = true,
            "--describe-target" => a.describe_target = true,
            "--check-env" => a.check_env = true,
            "--print-analysis" => set_once(
                &mut a.print_analysis,
                "--print-analysis",
                take_value(args, &mut i, "--print-analysis")?,
            )?,
            "--diagnostics-format" => set_once(
                &mut a.diagnostics_format,
                "--diagnostics-format",
                take_value(args, &mut i, "--diagnostics-format")?,
            )?,
            "--format" => set_once(
                &mut a.format,
                "--format",
                take_value(args, &mut i, "--format")?,
            )?,
            "-O" => a.pipeline.push("O".into()),
            "-o" => set_once(&mut a.output, "-o", take_value(args, &mut i, "-o")?)?,
            "--emit-text" => a.emit_text = true,
            "-f" | "--force" => a.force = true,
            "--skip-validation" => a.skip_validation = true,
            "--validate-after-each" => a.validate_after_each = true,
            "-v" | "--verbose" => a.verbose = true,
            "-q" | "--quiet" => a.quiet = true,
            "--Werror" => a.werror = true,
            "--print-changed" => a.print_changed = true,
            "--time-report" => a.time_report = true,
            "--print-all" => a.print_all = true,
            "--target" => set_once(
                &mut a.target,
                "--target",
                take_value(args, &mut i, "--target")?,
            )?,
            "--target-env" => set_once(
                &mut a.target_env,
                "--target-env",
                take_value(args, &mut i, "--target-env")?,
            )?,
            "--subgroup-size" => set_once(
                &mut a.subgroup_size,
                "--subgroup-size",
                take_value(args, &mut i, "--subgroup-size")?,
            )?,
            "--stats" => set_once(
                &mut a.stats,
                "--stats",
                take_value(args, &mut i, "--stats")?,
            )?,
            "--passes" => a.pipeline.push(take_value(args, &mut i, "--passes")?),
            "-" => set_input(a, "-")?,
            _ => {
                if let Some(file) = arg.strip_prefix("-Oconfig=") {
                    if depth > 4 {
                        return Err("-Oconfig files nest too deeply".into());
                    }
                    let text = std::fs::read_to_string(file).map_err(|e| format!("{file}: {e}"))?;
                    let words: Vec<String> = text
                        .lines()
                        .map(|l| l.split('#').next().unwrap_or(""))
                        .flat_map(str::split_whitespace)
                        .map(String::from)
                        .collect();
                    parse_args(&words, a, depth + 1)?;
                } else if let Some(v) = arg.strip_prefix("--print-analysis=") {
                    set_once(&mut a.print_analysis, "--print-analysis", v.to_string())?;
                } else if let Some(v) = arg.strip_prefix("--diagnostics-format=") {
                    set_once(
                        &mut a.diagnostics_format,
                        "--diagnostics-format",
                        v.to_string(),
                    )?;
                } else if let Some(v) = arg.strip_prefix("--format=") {
                    set_once(&mut a.format, "--format", v.to_string())?;
                } else if let Some(v) = arg.strip_prefix("--target=") {
                    set_once(&mut a.target, "--target", v.to_string())?;
                } else if let Some(v) = arg.strip_prefix("--target-env=") {
                    set_once(&mut a.target_env, "--target-env", v.to_string())?;
                } else if let Some(v) = arg.strip_prefix("--subgroup-size=") {
                    set_once(&mut a.subgroup_size, "--subgroup-size", v.to_string())?;
                } else if let Some(v) = arg.strip_prefix("--stats=") {
                    set_once(&mut a.stats, "--stats", v.to_string())?;
                } else if let Some(v) = arg.strip_prefix("--passes=") {
                    a.pipeline.push(v.to_string());
                } else if let Some(v) = arg.strip_prefix("-o") {
                    set_once(&mut a.output, "-o", v.trim_start_matches('=').to_string())?;
                } else if let Some(flag) = arg.strip_prefix("--") {
                    let (key, value) = match flag.split_once('=') {
                        Some((k, v)) => (k, Some(v)),
                        None => (flag, None),
                    };
                    if key == "max-changes" {
                        let v = value.ok_or("--max-changes needs a value: --max-changes=N")?;
                        if a.max_changes.is_some() {
                            return Err("--max-changes given twice; give it once".into());
                        }
                        a.max_changes = Some(v.parse().map_err(|_| {
                            format!("--max-changes={v}: expected a number of rewrites")
                        })?);
                    } else if registry::lookup(key).is_some() && value.is_none() {
                        a.pipeline.push(key.to_string());
                    } else if registry::option_owner(key).is_some() {
                        a.pass_options
                            .push((key.to_string(), value.unwrap_or("true").to_string()));
                    } else {
                        return Err(format!(
                            "unknown option --{key}{} (see --help and --list-passes)",
                            did_you_mean_flag(&format!("--{key}"))
                        ));
                    }
                } else if arg.starts_with('-') {
                    return Err(format!(
                        "unknown option {arg}{} (see --help)",
                        did_you_mean_flag(arg)
                    ));
                } else {
                    set_input(a, arg)?;
                }
            }
        }
        i += 1;
    }
    Ok(())
}

/// `"; did you mean \"--X\"?"` for an unknown flag close to one of ours: the flags of
/// [`USAGE`], `--PASS` for every pass and `--KEY` for every pass option.
fn did_you_mean_flag(flag: &str) -> String {
    let mut known = usage_flags(USAGE);
    for p in registry::REGISTRY {
        known.push(format!("--{}", p.name));
        known.extend(p.options.iter().map(|o| format!("--{}", o.key)));
    }
    registry::did_you_mean(flag, known.iter().map(String::as_str))
}

/// The flags a usage text lists: the leading `-x` / `--name` words of its option lines (indented
/// four spaces), without `=VALUE` (`-f, --force` gives both).
pub fn usage_flags(usage: &str) -> Vec<String> {
    usage
        .lines()
        .filter(|l| l.starts_with("    -"))
        .flat_map(|l| l.split_whitespace().take_while(|w| w.starts_with('-')))
        .map(|w| {
            let w = w.trim_end_matches(',');
            w.split('=').next().unwrap_or(w).to_string()
        })
        .collect()
}

/// Sets a flag that takes one value; a second value is an error, not a silent override.
fn set_once(slot: &mut Option<String>, flag: &str, v: String) -> Result<(), String> {
    if let Some(prev) = slot {
        return Err(format!("{flag} given twice ({prev} and {v}): give it once"));
    }
    *slot = Some(v);
    Ok(())
}

fn set_input(a: &mut Args, v: &str) -> Result<(), String> {
    if let Some(prev) = &a.input {
        return Err(format!("more than one input file ({prev} and {v})"));
    }
    a.input = Some(v.to_string());
    Ok(())
}

/// The `--list-passes` text (spv-opt's, also printed by `spv-ab --list-passes`).
pub fn list_passes() -> String {
    let mut s = String::from("Passes (run with --NAME; pipelines with --passes=a,b):\n");
    for p in registry::REGISTRY {
        s.push_str(&format!("  --{:<22} {}\n", p.name, p.description));
        for o in p.options {
            s.push_str(&format!(
                "      --{}=VALUE  {} (default {})\n",
                o.key, o.description, o.default
            ));
        }
    }
    s.push_str(&format!("\n-O runs: {}\n", registry::OPTIMIZE_PIPELINE));
    s
}

/// Runs spv-opt with `args` (without the program name). Returns the exit code; messages go to
/// stderr, one line per error.
pub fn run(args: &[String]) -> i32 {
    if let Some(code) = crate::cli_doc::handle(args, tool_doc) {
        return code;
    }
    let json = diagnostics_as_json(args);
    match (run_inner(args), json) {
        (Ok(()), _) => 0,
        (Err(Failure::Message(msg)), true) => {
            eprintln!("{}", Renderer::PLAIN.json(&Diagnostic::error(None, msg)));
            1
        }
        (Err(Failure::Pass { json, .. }), true) => {
            for v in json {
                eprintln!("{v}");
            }
            1
        }
        (Err(Failure::Message(line) | Failure::Pass { line, .. }), false) => {
            eprintln!("spv-opt: error: {line}");
            1
        }
    }
}

/// Why a run failed: one line (`spv-opt: error: LINE`, or one JSON object), or a pass error,
/// rendered both ways from its diagnostics (one JSON object per diagnostic).
enum Failure {
    Message(String),
    Pass {
        line: String,
        json: Vec<serde_json::Value>,
    },
}

impl From<String> for Failure {
    fn from(message: String) -> Failure {
        Failure::Message(message)
    }
}

impl From<&str> for Failure {
    fn from(message: &str) -> Failure {
        Failure::Message(message.to_string())
    }
}

impl Failure {
    /// A pass error with ids named as `r` names them.
    fn pass(e: &PassError, r: &Renderer<'_>) -> Failure {
        Failure::Pass {
            line: e.render(r),
            json: e.to_json(r),
        }
    }
}

/// Whether the command line asks for JSON diagnostics (read before the full parse, so that a
/// command-line error is reported in that format too).
fn diagnostics_as_json(args: &[String]) -> bool {
    args.iter().enumerate().any(|(k, a)| {
        a == "--diagnostics-format=json"
            || (a == "--diagnostics-format" && args.get(k + 1).is_some_and(|v| v == "json"))
    })
}

/// spv-opt's flags for completions and the man page: [`USAGE`], and from the registry
/// `--PASS` for every pass and `--KEY=VALUE` for every pass option.
pub fn tool_doc() -> crate::cli_doc::Tool<'static> {
    use crate::cli_doc::{Flag, Tool};
    let mut extra = Vec::new();
    for p in registry::REGISTRY {
        extra.push(Flag {
            names: vec![format!("--{}", p.name)],
            value: None,
            joined: false,
            help: format!("pass: {}", p.description),
        });
        for o in p.options {
            extra.push(Flag {
                names: vec![format!("--{}", o.key)],
                value: Some("VALUE".into()),
                joined: true,
                help: format!(
                    "{} (option of {}; default {})",
                    o.description, p.name, o.default
                ),
            });
        }
    }
    Tool {
        program: "spv-opt",
        usage: USAGE,
        extra,
        subcommands: &[],
        choices: vec![
            (
                "--target",
                Target::all().into_iter().map(|t| t.name).collect(),
            ),
            ("--format", vec!["text".into(), "dot".into()]),
            ("--diagnostics-format", vec!["text".into(), "json".into()]),
            (
                "--print-analysis",
                spvopt_analysis::print::ANALYSIS_NAMES
                    .map(String::from)
                    .to_vec(),
            ),
            (
                "--completions",
                vec!["bash".into(), "zsh".into(), "fish".into()],
            ),
        ],
        sections: vec![
            ("passes", list_passes()),
            (
                "exit status",
                "0 success; 1 error (one line on stderr, nothing written; --check-env: a \
                 violation found)"
                    .into(),
            ),
            (
                "see also",
                "README.md and docs/guide.md in the spv-opt repository; spv-sim(1), spv-ab(1), \
                 spv-bench(1)"
                    .into(),
            ),
        ],
    }
}

/// Flags that a mode ignores are refused in one line before the input is read, as `-o` given
/// twice is: `--check-env` and `--print-analysis` run no pass and write no module, so a pass,
/// a pass option, `-o`, `--stats` or `--emit-text` with them would go silently unused.
fn check_conflicts(a: &Args) -> Result<(), String> {
    let mode = match (a.check_env, &a.print_analysis) {
        (true, Some(_)) => {
            return Err("--check-env and --print-analysis: give one of them".into());
        }
        (true, None) => "--check-env",
        (false, Some(_)) => "--print-analysis",
        (false, None) => return Ok(()),
    };
    let unused = if let Some(p) = a.pipeline.first() {
        if p == "O" {
            "-O".to_string()
        } else if registry::lookup(p).is_some() {
            format!("--{p}")
        } else {
            format!("--passes={p}")
        }
    } else if let Some((k, _)) = a.pass_options.first() {
        format!("--{k}")
    } else if a.max_changes.is_some() {
        "--max-changes".into()
    } else if let Some(o) = &a.output {
        format!("-o {o}")
    } else if a.stats.is_some() {
        "--stats".into()
    } else if a.emit_text {
        "--emit-text".into()
    } else {
        return Ok(());
    };
    Err(format!(
        "{mode} runs no pass and writes no module: {unused} would be ignored (drop it, or \
         run without {mode})"
    ))
}

/// The name the pass manager gives an implicit raise-builtins step in its hooks.
const IMPLICIT_RAISE: &str = "raise-builtins (implicit)";

fn disassemble_or_note(m: &Module) -> String {
    text::disassemble(&m.to_words()).unwrap_or_else(|e| format!("; (cannot disassemble: {e})\n"))
}

fn run_inner(argv: &[String]) -> Result<(), Failure> {
    let mut a = Args::default();
    parse_args(argv, &mut a, 0)?;
    if a.help {
        return Ok(io::write_stdout(USAGE.as_bytes())?);
    }
    if a.version {
        return Ok(io::write_stdout(
            format!("spv-opt {}\n", env!("CARGO_PKG_VERSION")).as_bytes(),
        )?);
    }
    if a.list_passes {
        return Ok(io::write_stdout(list_passes().as_bytes())?);
    }
    let target = match &a.target {
        Some(t) => Target::by_name(t).map_err(|e| e.to_string())?,
        None => Target::default(),
    };
    if a.list_targets {
        let mut s =
            String::from("Targets (select with --target NAME; details: --describe-target):\n");
        for t in Target::all() {
            s.push_str(&format!(
                "  {:<8} {}: {}\n",
                t.name,
                t.description,
                t.summary()
            ));
        }
        return Ok(io::write_stdout(s.as_bytes())?);
    }
    if a.describe_target {
        return Ok(io::write_stdout(target.describe().as_bytes())?);
    }
    check_conflicts(&a)?;
    let dot = match (a.format.as_deref(), &a.print_analysis) {
        (None | Some("text"), _) => false,
        (Some("dot"), Some(_)) => true,
        (Some("dot"), None) => return Err("--format goes with --print-analysis".into()),
        (Some(other), _) => {
            return Err(Failure::from(format!(
                "--format {other}: expected text or dot"
            )))
        }
    };
    let input = a.input.clone().ok_or("no input file (see --help)")?;
    let json = match a.diagnostics_format.as_deref() {
        None | Some("text") => false,
        Some("json") => true,
        Some(other) => {
            return Err(Failure::from(format!(
                "--diagnostics-format: expected text or json, got \"{other}\""
            )))
        }
    };
    if let Some(name) = &a.print_analysis {
        let env: Option<TargetEnv> = match &a.target_env {
            Some(e) => Some(text::parse_target_env(e).map_err(|e| e.to_string())?),
            None => None,
        };
        let bytes = io::to_binary(io::read_input(&input)?, &input, env)?;
        let module = spvopt_ir::load_bytes(&bytes).map_err(|e| format!("{input}: {e}"))?;
        let mut analyses = spvopt_analysis::Analyses::new();
        let listing = if dot {
            spvopt_analysis::dot::dot(&module, name, &mut analyses).map_err(|e| e.to_string())?
        } else {
            let lines = spvopt_analysis::print::annotate_lines(&module, name, &mut analyses)
                .map_err(|e| e.to_string())?;
            crate::named_listing::named_listing(&module, &lines)
        };
        return Ok(io::write_stdout(listing.as_bytes())?);
    }
    if a.check_env {
        let env: Option<TargetEnv> = match &a.target_env {
            Some(e) => Some(text::parse_target_env(e).map_err(|e| e.to_string())?),
            None => None,
        };
        let bytes = io::to_binary(io::read_input(&input)?, &input, env)?;
        let module = spvopt_ir::load_bytes(&bytes).map_err(|e| format!("{input}: {e}"))?;
        let mut violations = spvopt_passes::legalize::level_zero_env::check(&module);
        violations.extend(spvopt_passes::legalize::subgroup_size::check(
            &module, &target,
        ));
        let names = Names::build(&module);
        let r = Renderer::with_names(&names);
        for v in &violations {
            if json {
                let mut v = r.json(v);
                v["file"] = input.clone().into();
                eprintln!("{v}");
            } else {
                eprintln!("{input}: {}", r.text(v));
            }
        }
        if violations.is_empty() {
            eprintln!(
                "spv-opt: {input}: no Level Zero environment violations ({} instructions checked)",
                module.instruction_count()
            );
            return Ok(());
        }
        return Err(Failure::from(format!(
            "{input}: {} Level Zero environment violation(s)",
            violations.len()
        )));
    }
    let output = a
        .output
        .clone()
        .ok_or("no output file: give -o OUT (see --help)")?;
    if a.stats.as_deref() == Some(output.as_str()) {
        return Err(Failure::from(if output == "-" {
            "--stats - and -o - would both write to stdout: give --stats a file".into()
        } else {
            format!("--stats and -o both name {output}: give them different files")
        }));
    }
    io::check_binary_to_terminal(&output, a.emit_text || output.ends_with(".spvasm"), a.force)?;
    let env: Option<TargetEnv> = match &a.target_env {
        Some(e) => Some(text::parse_target_env(e).map_err(|e| e.to_string())?),
        None => None,
    };
    let mut pipeline = Pipeline::new();
    for p in &a.pipeline {
        pipeline
            .extend_from_str(p)
            .map_err(|e| registry::error_text(&e))?;
    }
    for (k, v) in &a.pass_options {
        if !pipeline
            .steps
            .iter()
            .any(|s| s.info.options.iter().any(|o| o.key == k))
        {
            return Err(Failure::from(format!(
                "--{k} given but no pass in the pipeline takes it"
            )));
        }
        pipeline.set_option(k, v);
    }
    if let Some(n) = &a.subgroup_size {
        pipeline
            .declare_subgroup_size(n)
            .map_err(|e| format!("--subgroup-size {n}: {e}"))?;
    }
    if let Some(n) = a.max_changes {
        pipeline.set_max_changes(n);
    }
    // Option values (`--prefetch-distance=99`) are checked now, before the input is read.
    pipeline
        .check_options()
        .map_err(|e| registry::error_text(&e))?;

    let bytes = io::read_input(&input)?;
    let bytes = io::to_binary(bytes, &input, env)?;
    // The input bytes are freed as soon as the module has its words: only its `OpName`s are
    // kept for messages.
    let mut module = spvopt_ir::load_bytes_owned(bytes).map_err(|e| format!("{input}: {e}"))?;
    let val_env = env.unwrap_or_else(|| text::universal_env_for_version(module.header.version));
    let names = InputNames::new(&module);
    // Whether the module before the pass being validated was valid: a pass is blamed for an
    // invalid output only then (an error already in the input is reported once, not blamed).
    let mut input_valid = true;
    let mut warnings = Warnings {
        quiet: a.quiet,
        werror: a.werror,
        json,
        count: 0,
    };
    if !a.skip_validation || a.validate_after_each {
        match validate_tolerating(&module, val_env) {
            Ok(tolerated) if a.verbose => {
                for t in &tolerated {
                    warnings.emit(&format!("{input}: {}", names.annotate(&t.line())));
                }
            }
            Ok(tolerated) if !tolerated.is_empty() => {
                // One line for all (each in a few words); -v prints spirv-val's messages.
                let list: Vec<String> = tolerated.iter().map(|t| t.short()).collect();
                warnings.emit(&format!(
                    "{input}: spirv-val rejects, Intel's drivers accept: {} (-v: spirv-val's \
                     messages)",
                    list.join("; ")
                ));
            }
            Ok(_) => {}
            Err(e) if !a.skip_validation => {
                return Err(Failure::from(format!(
                    "{input}: input does not validate: {} (--skip-validation to optimize it \
                     anyway)",
                    names.annotate(&e)
                )));
            }
            Err(e) => {
                input_valid = false;
                warnings.emit(&format!(
                    "{input}: input does not validate ({}); passes are not blamed for it",
                    names.annotate(&e)
                ));
            }
        }
    }
    warnings.stop_if_errors()?;
    let previous_valid = Cell::new(input_valid);
    let validate = |m: &Module| match validate_module(m, val_env) {
        Ok(_) => {
            previous_valid.set(true);
            Ok(())
        }
        Err(e) if previous_valid.get() => Err(names.annotate(&e)),
        Err(_) => Ok(()),
    };
    let mut previous_text = if a.print_changed {
        disassemble_or_note(&module)
    } else {
        String::new()
    };
    // The diff of an implicit raise-builtins is held back until a later pass changes the
    // module: when none does, the raise is undone (the output is the input) and its diff is
    // not printed.
    let mut held_diff: Option<String> = None;
    let mut after_pass = |name: &str, m: &Module| {
        if a.print_all {
            eprintln!("; IR after {name}\n{}", disassemble_or_note(m));
        }
        if a.print_changed {
            let now = disassemble_or_note(m);
            if now != previous_text {
                let diff = unified_diff(&previous_text, &now, name);
                if let Some(held) = held_diff.take() {
                    eprint!("{held}");
                }
                if name == IMPLICIT_RAISE {
                    held_diff = Some(diff);
                } else {
                    eprint!("{diff}");
                }
                previous_text = now;
            }
        }
    };
    let mut hooks = Hooks::default();
    if a.print_all || a.print_changed {
        hooks.after_pass = Some(&mut after_pass);
    }
    if a.validate_after_each {
        hooks.validate = Some(&validate);
    }
    let start = Instant::now();
    let result = run_pipeline(&pipeline, &mut module, &target, &mut hooks);
    let elapsed = start.elapsed();
    let undone = result
        .as_ref()
        .is_ok_and(|r| r.passes.iter().any(|p| p.undone));
    match held_diff.take() {
        Some(held) if !undone => eprint!("{held}"),
        held if undone && (held.is_some() || a.print_all) => eprintln!(
            "spv-opt: {IMPLICIT_RAISE} undone: no later pass changed anything; the output is \
             the input"
        ),
        _ => {}
    }
    let report = result.map_err(|e| Failure::pass(&e, &names.renderer()))?;
    if a.verbose {
        for p in &report.passes {
            eprintln!("spv-opt: {}", names.annotate(&p.summary()));
        }
    }
    for g in report.warning_groups() {
        if warnings.json {
            warnings.emit_json(g.to_json(&names.renderer()));
        } else {
            warnings.emit(&g.line_with(&names.renderer()));
        }
    }
    warnings.stop_if_errors()?;
    if a.validate_after_each {
        validate(&module).map_err(|e| format!("output does not validate: {e}"))?;
    } else if !a.skip_validation && input_valid {
        // The output of a valid input must validate (one spirv-val run); the pass is found by
        // a rerun that only an invalid output costs (stdin cannot be read again).
        let reload = || {
            let bytes = (input != "-").then(|| io::read_input(&input).ok())??;
            spvopt_ir::load_bytes_owned(io::to_binary(bytes, &input, env).ok()?).ok()
        };
        check_output(&module, env, &pipeline, &target, reload).map_err(|e| match e.pass {
            Some(_) => Failure::pass(&e.into_pass_error(), &names.renderer()),
            None => Failure::from(format!(
                "{input}: {} (--validate-after-each names the pass)",
                names.annotate(&e.to_string())
            )),
        })?;
    }
    if a.time_report {
        eprint!("{}", report.time_table());
        eprintln!("pipeline wall time: {} us", elapsed.as_micros());
    }
    let text_out = a.emit_text || output.ends_with(".spvasm");
    let text = if text_out {
        Some(text::disassemble(&module.to_words()).map_err(|e| e.to_string())?)
    } else {
        None
    };
    if let Some(stats_path) = &a.stats {
        let mut json = report.to_json();
        json["target"] = serde_json::Value::from(target.name.clone());
        let s = serde_json::to_string_pretty(&json).map_err(|e| e.to_string())?;
        io::write_output_atomically(stats_path, s.as_bytes())?;
    }
    Ok(match text {
        Some(t) => io::write_output_atomically(&output, t.as_bytes()),
        // Streamed from the module: no second copy of a large output in memory.
        None => io::write_output_with(&output, |w| module.write_bytes(w)),
    }?)
}

/// Where warnings go: stderr as `spv-opt: warning: …` (none with `-q`), or with `--Werror`
/// as errors that stop the run before anything is written.
struct Warnings {
    quiet: bool,
    werror: bool,
    /// `--diagnostics-format json`: one JSON object per line.
    json: bool,
    count: usize,
}

impl Warnings {
    /// A warning given as text.
    fn emit(&mut self, line: &str) {
        if self.json {
            self.emit_json(Renderer::PLAIN.json(&Diagnostic::warning(None, line)));
            return;
        }
        self.count += 1;
        if self.werror {
            eprintln!("spv-opt: error: {line} [--Werror]");
        } else if !self.quiet {
            eprintln!("spv-opt: warning: {line}");
        }
    }

    /// A warning as a JSON diagnostic (`--Werror` makes its level `error`).
    fn emit_json(&mut self, mut v: serde_json::Value) {
        self.count += 1;
        if self.werror {
            v["level"] = "error".into();
            v["werror"] = true.into();
            eprintln!("{v}");
        } else if !self.quiet {
            eprintln!("{v}");
        }
    }

    /// With `--Werror` and a warning so far: the error that ends the run.
    fn stop_if_errors(&self) -> Result<(), String> {
        match (self.werror, self.count) {
            (false, _) | (true, 0) => Ok(()),
            (true, 1) => Err("1 warning treated as an error (--Werror): nothing written".into()),
            (true, n) => Err(format!(
                "{n} warnings treated as errors (--Werror): nothing written"
            )),
        }
    }
}

/// The input's `OpName`s for messages: the `OpName` instructions are copied from the loaded
/// module before any pass runs (a module of its debug section only), and the name table is
/// built from them on first use: most runs print no message, and on a large module the table
/// costs about a third of a no-op run.
struct InputNames {
    debug: spvopt_ir::Module,
    names: std::cell::OnceCell<Names>,
}

impl InputNames {
    fn new(m: &spvopt_ir::Module) -> InputNames {
        use spvopt_ir::Section;
        let mut debug = spvopt_ir::Module::new(m.header.version);
        for (_, inst) in m.section_insts(Section::Debug) {
            if inst.is(spvopt_ir::spirv::Op::Name) {
                debug.push_to_section(Section::Debug, inst);
            }
        }
        InputNames {
            debug,
            names: std::cell::OnceCell::new(),
        }
    }

    fn names(&self) -> &Names {
        self.names.get_or_init(|| Names::build(&self.debug))
    }

    /// Free text with its ids named (spirv-val's messages).
    fn annotate(&self, message: &str) -> String {
        self.names().annotate(message)
    }

    /// The renderer naming ids with the input's names.
    fn renderer(&self) -> Renderer<'_> {
        Renderer::with_names(self.names())
    }
}

/// A unified diff (`--- before`, `+++ after PASS`, 3 lines of context) of two disassemblies.
fn unified_diff(before: &str, after: &str, pass: &str) -> String {
    similar::TextDiff::from_lines(before, after)
        .unified_diff()
        .context_radius(3)
        .header("before", &format!("after {pass}"))
        .to_string()
}
