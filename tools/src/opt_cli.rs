//! `spv-opt`: the optimizer's command line, following spirv-opt's conventions. This file runs
//! a parsed command line (the pipeline, validation, the hooks of `--print-changed` and
//! `--validate-after-each`, the outputs); the flags are parsed in `opt_cli/args.rs`, the texts
//! spv-opt prints about itself are in `opt_cli/help.rs`, the modes that run no pass in
//! `opt_cli/inspect.rs`, and warnings and names for messages in `opt_cli/messages.rs`.

use std::cell::Cell;
use std::time::Instant;

use spvopt_analysis::Target;
use spvopt_ir::text;
use spvopt_ir::Module;
use spvopt_passes::diagnostic::render::Renderer;
use spvopt_passes::validate::{check_output, validate_module, validate_tolerating};
use spvopt_passes::{registry, run_pipeline, Diagnostic, Hooks, PassError, Pipeline};

use crate::io;

mod args;
mod help;
mod inspect;
mod messages;

use args::{check_conflicts, parse_args, Args};
use help::list_targets;
pub use help::{list_passes, tool_doc, usage_flags, USAGE};
use messages::{disassemble_or_note, unified_diff, InputNames, Warnings};

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

/// The name the pass manager gives an implicit raise-builtins step in its hooks.
const IMPLICIT_RAISE: &str = "raise-builtins (implicit)";

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
        return Ok(io::write_stdout(list_targets().as_bytes())?);
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
        return inspect::print_analysis(&input, a.target_env()?, name, dot);
    }
    if a.check_env {
        return inspect::check_env(&input, a.target_env()?, &target, json);
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
    let env = a.target_env()?;
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
