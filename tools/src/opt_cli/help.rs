//! The texts spv-opt prints about itself: the usage (`--help`) and the flags it lists,
//! `--list-passes`, `--list-targets`, and the flags and sections of the shell completions and
//! the man page.

use spvopt_analysis::Target;
use spvopt_passes::registry;

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

/// The `--list-targets` text.
pub(super) fn list_targets() -> String {
    let mut s = String::from("Targets (select with --target NAME; details: --describe-target):\n");
    for t in Target::all() {
        s.push_str(&format!(
            "  {:<8} {}: {}\n",
            t.name,
            t.description,
            t.summary()
        ));
    }
    s
}
