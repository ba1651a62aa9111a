//! spv-opt's command line parsed into [`Args`]: every flag (also from `-Oconfig=FILE`), a flag
//! given twice refused, an unknown one answered with the closest known one, and the flags a
//! mode would ignore refused before the input is read.

use spvopt_ir::text::{self, TargetEnv};
use spvopt_passes::registry;

use super::help::{usage_flags, USAGE};

/// Parsed command line.
#[derive(Debug, Default)]
pub(super) struct Args {
    pub(super) input: Option<String>,
    pub(super) output: Option<String>,
    pub(super) pipeline: Vec<String>,
    pub(super) pass_options: Vec<(String, String)>,
    pub(super) emit_text: bool,
    pub(super) force: bool,
    pub(super) target: Option<String>,
    pub(super) target_env: Option<String>,
    pub(super) subgroup_size: Option<String>,
    pub(super) skip_validation: bool,
    pub(super) validate_after_each: bool,
    pub(super) verbose: bool,
    pub(super) quiet: bool,
    pub(super) werror: bool,
    pub(super) print_changed: bool,
    pub(super) time_report: bool,
    pub(super) print_all: bool,
    pub(super) stats: Option<String>,
    pub(super) max_changes: Option<u64>,
    pub(super) list_passes: bool,
    pub(super) list_targets: bool,
    pub(super) describe_target: bool,
    pub(super) check_env: bool,
    pub(super) print_analysis: Option<String>,
    pub(super) format: Option<String>,
    pub(super) diagnostics_format: Option<String>,
    pub(super) help: bool,
    pub(super) version: bool,
}

fn take_value(args: &[String], i: &mut usize, flag: &str) -> Result<String, String> {
    *i += 1;
    args.get(*i)
        .cloned()
        .ok_or_else(|| format!("{flag} needs a value"))
}

pub(super) fn parse_args(args: &[String], a: &mut Args, depth: usize) -> Result<(), String> {
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

/// Flags that a mode ignores are refused in one line before the input is read, as `-o` given
/// twice is: `--check-env` and `--print-analysis` run no pass and write no module, so a pass,
/// a pass option, `-o`, `--stats` or `--emit-text` with them would go silently unused.
pub(super) fn check_conflicts(a: &Args) -> Result<(), String> {
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

impl Args {
    /// `--target-env`, parsed (`None` when not given).
    pub(super) fn target_env(&self) -> Result<Option<TargetEnv>, String> {
        match &self.target_env {
            Some(e) => Ok(Some(text::parse_target_env(e).map_err(|e| e.to_string())?)),
            None => Ok(None),
        }
    }
}
