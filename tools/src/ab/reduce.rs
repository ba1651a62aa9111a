//! `spv-ab reduce`: shrinks a Kernel module (and its launch) to a small one that still shows a
//! problem — the pipeline changes its results on spv-sim, a device disagrees with spv-sim, a
//! command fails on it, or a pass fails on it ([`predicate`]).
//!
//! How: the reductions of `edits` (launch size, entry points, branches, inlining, functions,
//! instructions, kernel parameters, debug info, decorations, execution modes, capabilities,
//! constants, buffers) are tried in turn, each to exhaustion, and the whole round again until
//! a round changes nothing. Within a reduction the opportunities are tried as delta debugging
//! does: in chunks, all of them first, then halves, quarters, … down to one at a time; a
//! chunk whose candidate is valid, strictly smaller ([`state::Size`]) and interesting becomes
//! the new best, and the search goes on from that chunk at the same granularity. Candidates are
//! evaluated in parallel (rayon), a batch at a time; the first interesting one *in chunk order*
//! wins, so the result does not depend on the number of threads or on timing: two runs give
//! the same bytes.
//!
//! Why the result shows the problem and is valid: only candidates that passed the validity
//! check ([`state::is_valid`]) and the predicate are ever kept, the input included (it is
//! checked first). Why it terminates: every kept candidate is strictly smaller in a
//! well-founded order. An interrupted run (Ctrl-C, or the caller's stop flag) keeps the best
//! candidate so far; the CLI writes every new best to `-o` as it is found, atomically.

mod edits;
mod inline;
pub mod predicate;
pub mod state;

use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Instant;

use rayon::prelude::*;
use spvopt_analysis::Target;
use spvopt_ir::text;

use edits::{apply, describe, opportunities, Opportunity, Reduction};
pub use predicate::{Oracle, Predicate};
pub use state::{Candidate, LaunchFile, Size};

/// Why `spv-ab reduce` could not run.
#[derive(Debug, thiserror::Error)]
pub enum ReduceError {
    #[error("{0}")]
    Usage(String),
    #[error("{0}")]
    Input(String),
    #[error("launch: {0}")]
    Launch(String),
    #[error("this predicate runs the kernel: give --launch L.json")]
    NeedsLaunch,
    #[error("the input does not show the problem: {0}")]
    NotInteresting(String),
    #[error("--device-differs: {0}")]
    Device(String),
    #[error("{0}")]
    Io(String),
}

/// How a reduction runs.
#[derive(Default)]
pub struct Settings<'a> {
    /// Threads (default: rayon's, all cores).
    pub jobs: Option<usize>,
    /// A spinner with the current size on stderr (the CLI: when stderr is a terminal).
    pub progress: bool,
    /// Each step's log line on stderr as it happens.
    pub verbose: bool,
    /// Set to stop early; the best candidate so far is returned.
    pub stop: Option<&'a AtomicBool>,
    /// Called with every new best candidate.
    pub on_improvement: Option<&'a (dyn Fn(&Candidate) + Sync)>,
}

/// The result of a reduction.
pub struct Outcome {
    pub best: Candidate,
    pub before: Size,
    pub after: Size,
    /// One line per accepted step: the reduction, what it removed, the size after.
    pub log: Vec<String>,
    pub candidates: u64,
    pub interrupted: bool,
    pub seconds: f64,
}

struct Search<'a> {
    oracle: &'a Oracle,
    kernel: Option<&'a str>,
    env: Option<text::TargetEnv>,
    settings: &'a Settings<'a>,
    best: Candidate,
    best_size: Size,
    log: Vec<String>,
    tried: AtomicU64,
    bar: Option<indicatif::ProgressBar>,
    start: Instant,
}

/// Reduces `input` (which must be interesting to `oracle`) for the launch's `kernel`.
pub fn reduce(input: Candidate, oracle: &Oracle, settings: &Settings<'_>) -> Outcome {
    let run = || reduce_here(input, oracle, settings);
    match settings.jobs.and_then(|n| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(n.max(1))
            .build()
            .ok()
    }) {
        Some(pool) => pool.install(run),
        None => run(),
    }
}

fn reduce_here(input: Candidate, oracle: &Oracle, settings: &Settings<'_>) -> Outcome {
    let kernel_name = input
        .launch
        .as_ref()
        .and_then(|l| l.json.get("kernel"))
        .and_then(|k| k.as_str())
        .map(str::to_string);
    let env = text::universal_env_for_version(input.module.header.version);
    let env = state::is_valid(&input.module, Some(env)).then_some(env);
    let before = input.size();
    let bar = settings.progress.then(|| {
        let b = indicatif::ProgressBar::new_spinner();
        b.enable_steady_tick(std::time::Duration::from_millis(200));
        b
    });
    let mut s = Search {
        oracle,
        kernel: kernel_name.as_deref(),
        env,
        settings,
        best: input,
        best_size: before,
        log: Vec::new(),
        tried: AtomicU64::new(0),
        bar,
        start: Instant::now(),
    };
    s.clean_input();
    'rounds: loop {
        let round = s.best_size;
        for kind in Reduction::ALL {
            if s.stopped() {
                break 'rounds;
            }
            s.run(kind);
        }
        if s.best_size >= round {
            break;
        }
    }
    if let Some(b) = &s.bar {
        b.finish_and_clear();
    }
    Outcome {
        interrupted: s.stopped(),
        after: s.best_size,
        before,
        log: s.log,
        candidates: s.tried.into_inner(),
        seconds: s.start.elapsed().as_secs_f64(),
        best: s.best,
    }
}

impl Search<'_> {
    fn stopped(&self) -> bool {
        self.settings
            .stop
            .is_some_and(|f| f.load(Ordering::Relaxed))
    }

    /// The input after the clean-up alone, when that is still interesting.
    fn clean_input(&mut self) {
        let mut c = self.best.clone();
        state::clean_up(&mut c.module);
        if self.acceptable(&c) {
            self.accept(c, "clean-up".into());
        }
    }

    fn acceptable(&self, c: &Candidate) -> bool {
        self.tried.fetch_add(1, Ordering::Relaxed);
        c.size() < self.best_size
            && state::is_valid(&c.module, self.env)
            && self.oracle.interesting(c)
    }

    fn accept(&mut self, mut c: Candidate, what: String) {
        // A fresh arena: the copies of later candidates do not carry what was erased.
        if let Ok(m) = spvopt_ir::load_words(&c.module.to_words()) {
            c.module = m;
        }
        let size = c.size();
        let line = format!(
            "{:>4} {:>6.1}s {what}: {} -> {} instructions, {} -> {} words",
            self.log.len() + 1,
            self.start.elapsed().as_secs_f64(),
            self.best_size.instructions,
            size.instructions,
            self.best_size.words,
            size.words
        );
        if self.settings.verbose {
            match &self.bar {
                Some(b) => b.println(&line),
                None => eprintln!("{line}"),
            }
        }
        self.log.push(line);
        self.best = c;
        self.best_size = size;
        if let Some(f) = self.settings.on_improvement {
            f(&self.best);
        }
    }

    fn progress(&self, kind: Reduction, g: usize) {
        if let Some(b) = &self.bar {
            b.set_message(format!(
                "{} instructions, {} steps, {} candidates; trying {} (chunks of {g})",
                self.best_size.instructions,
                self.log.len(),
                self.tried.load(Ordering::Relaxed),
                kind.name()
            ));
        }
    }

    /// Delta debugging over the opportunities of one reduction.
    fn run(&mut self, kind: Reduction) {
        let mut granularity: Option<usize> = None;
        let mut from = 0;
        loop {
            if self.stopped() {
                return;
            }
            let ops = opportunities(kind, &self.best, self.kernel);
            if ops.is_empty() {
                return;
            }
            let g = granularity.unwrap_or(ops.len()).clamp(1, ops.len());
            self.progress(kind, g);
            let from_here = if from < ops.len() { from } else { 0 };
            let chunks: Vec<Range<usize>> = (from_here..ops.len())
                .step_by(g)
                .map(|s| s..(s + g).min(ops.len()))
                .collect();
            match self.first_interesting(&ops, &chunks) {
                Some((k, c)) => {
                    let what = self.summary(kind, &ops[chunks[k].clone()]);
                    self.accept(c, what);
                    from = chunks[k].start;
                    granularity = Some(g);
                }
                None if g == 1 && from_here == 0 => return,
                None if from_here > 0 => from = 0,
                None => {
                    granularity = Some(g / 2);
                    from = 0;
                }
            }
        }
    }

    fn summary(&self, kind: Reduction, ops: &[Opportunity]) -> String {
        let first: Vec<String> = ops
            .iter()
            .take(3)
            .map(|o| describe(&self.best.module, o))
            .collect();
        let more = if ops.len() > 3 {
            format!(" and {} more", ops.len() - 3)
        } else {
            String::new()
        };
        format!("{}: {}{more}", kind.name(), first.join(", "))
    }

    /// The first chunk (in order) whose candidate is acceptable, evaluated a batch at a time
    /// in parallel.
    fn first_interesting(
        &self,
        ops: &[Opportunity],
        chunks: &[Range<usize>],
    ) -> Option<(usize, Candidate)> {
        let batch = rayon::current_num_threads().max(1) * 2;
        for start in (0..chunks.len()).step_by(batch) {
            if self.stopped() {
                return None;
            }
            let end = (start + batch).min(chunks.len());
            let found = (start..end)
                .into_par_iter()
                .map(|k| {
                    let c = apply(&self.best, &ops[chunks[k].clone()], self.kernel)?;
                    self.acceptable(&c).then_some((k, c))
                })
                .find_first(|r| r.is_some())
                .flatten();
            if found.is_some() {
                return found;
            }
        }
        None
    }
}

// ---- the command line ---------------------------------------------------------------------

pub const USAGE: &str = "\
spv-ab reduce — shrink a kernel module to a small one that still shows a problem

USAGE:
    spv-ab reduce MODULE [--launch L.json] PREDICATE -o SMALL.spv [OPTIONS]

PREDICATE (one):
    --differs PIPELINE   PIPELINE's output computes something else than its input on spv-sim
                         (the first differing element of the input keeps differing)
    --device-differs     the OpenCL device (Intel's CPU runtime) disagrees with spv-sim
    --command \"CMD {}\"   sh -c CMD, {} replaced by the candidate's path, exits non-zero
    --pattern REGEX      with --command: and its stdout or stderr matches REGEX
    --pass-fails PIPELINE
                         PIPELINE (a pass name or a pipeline string) errors or panics

OPTIONS:
    -o SMALL.spv         the reduced module (written as soon as it is found, so an
                         interrupted run keeps the best so far); .spvasm: text
    --launch-out FILE    the reduced launch (default: SMALL.launch.json beside -o)
    --target NAME        target of the pipeline (default generic)
    --log FILE           one line per accepted step: what it removed, the size after
    -v, --verbose        those lines on stderr too
    --jobs N             candidates in parallel (default: all cores)
    --device N, --python PATH, --device-ulp N
                         the device for --device-differs (default 0), as spv-ab --device
Exit codes: 0 reduced, 1 error (one line on stderr), 130 interrupted (best so far written).
";

static INTERRUPTED: AtomicBool = AtomicBool::new(false);

extern "C" fn on_sigint(_: libc::c_int) {
    INTERRUPTED.store(true, Ordering::SeqCst);
    // A second Ctrl-C ends the process at once.
    unsafe {
        libc::signal(libc::SIGINT, libc::SIG_DFL);
    }
}

/// Parsed command line.
#[derive(Default)]
struct Cli {
    module: Option<PathBuf>,
    launch: Option<PathBuf>,
    output: Option<String>,
    launch_out: Option<String>,
    target: Option<String>,
    log: Option<String>,
    verbose: bool,
    jobs: Option<usize>,
    differs: Option<String>,
    device_differs: bool,
    command: Option<String>,
    pattern: Option<String>,
    pass_fails: Option<String>,
    device: usize,
    python: Option<String>,
    device_ulp: u64,
}

fn parse(args: &[String]) -> Result<Option<Cli>, ReduceError> {
    let mut c = Cli::default();
    let mut i = 0;
    let usage = |s: String| ReduceError::Usage(s);
    while i < args.len() {
        let arg = args[i].as_str();
        let value = |i: &mut usize| {
            *i += 1;
            args.get(*i)
                .cloned()
                .ok_or_else(|| usage(format!("{arg} needs a value")))
        };
        let number = |v: String| {
            v.parse::<u64>()
                .map_err(|_| usage(format!("{arg}: bad number {v}")))
        };
        match arg {
            "-h" | "--help" => return Ok(None),
            "--launch" => c.launch = Some(PathBuf::from(value(&mut i)?)),
            "-o" => c.output = Some(value(&mut i)?),
            "--launch-out" => c.launch_out = Some(value(&mut i)?),
            "--target" => c.target = Some(value(&mut i)?),
            "--log" => c.log = Some(value(&mut i)?),
            "-v" | "--verbose" => c.verbose = true,
            "--jobs" => c.jobs = Some(number(value(&mut i)?)? as usize),
            "--differs" => c.differs = Some(value(&mut i)?),
            "--device-differs" => c.device_differs = true,
            "--command" => c.command = Some(value(&mut i)?),
            "--pattern" => c.pattern = Some(value(&mut i)?),
            "--pass-fails" => c.pass_fails = Some(value(&mut i)?),
            "--device" => c.device = number(value(&mut i)?)? as usize,
            "--python" => c.python = Some(value(&mut i)?),
            "--device-ulp" => c.device_ulp = number(value(&mut i)?)?,
            _ if arg.starts_with('-') && arg.len() > 1 => {
                return Err(usage(format!("unknown option {arg} (see --help)")))
            }
            _ if c.module.is_some() => {
                return Err(usage(format!("one MODULE only (also given: {arg})")))
            }
            _ => c.module = Some(PathBuf::from(arg)),
        }
        i += 1;
    }
    Ok(Some(c))
}

fn pipeline_of(text: &str, flag: &str) -> Result<spvopt_passes::Pipeline, ReduceError> {
    super::parse_pipeline(text).map_err(|e| ReduceError::Usage(format!("{flag}: {e}")))
}

fn predicate_of(c: &Cli, target: &Target) -> Result<Predicate, ReduceError> {
    let given = [
        c.differs.is_some(),
        c.device_differs,
        c.command.is_some(),
        c.pass_fails.is_some(),
    ];
    if given.iter().filter(|&&g| g).count() != 1 {
        return Err(ReduceError::Usage(
            "give one predicate: --differs, --device-differs, --command or --pass-fails".into(),
        ));
    }
    if c.pattern.is_some() && c.command.is_none() {
        return Err(ReduceError::Usage("--pattern goes with --command".into()));
    }
    Ok(if let Some(p) = &c.differs {
        Predicate::Differs {
            pipeline: pipeline_of(p, "--differs")?,
            target: target.clone(),
        }
    } else if let Some(p) = &c.pass_fails {
        Predicate::PassFails {
            pipeline: pipeline_of(p, "--pass-fails")?,
            target: target.clone(),
        }
    } else if let Some(cmd) = &c.command {
        let pattern =
            match &c.pattern {
                Some(p) => Some(regex::Regex::new(p).map_err(|e| {
                    ReduceError::Usage(format!("--pattern: {e}").replace('\n', " "))
                })?),
                None => None,
            };
        Predicate::Command {
            command: cmd.clone(),
            pattern,
        }
    } else {
        Predicate::DeviceDiffers {
            device: c.device,
            python: c.python.clone(),
            ulp: c.device_ulp,
        }
    })
}

/// Loads the input module and launch as a candidate.
pub fn load_input(module: &Path, launch: Option<&Path>) -> Result<Candidate, ReduceError> {
    let m = super::load_kernel(module).map_err(ReduceError::Input)?;
    let launch = match launch {
        Some(p) => Some(LaunchFile::read(p).map_err(ReduceError::Launch)?),
        None => None,
    };
    let params = launch.as_ref().map_or(0, |l| l.args().len());
    Ok(Candidate {
        module: m,
        launch,
        arg_origin: (0..params).collect(),
    })
}

/// Writes the module (and the launch beside it) atomically.
pub fn write_outputs(c: &Candidate, out: &str, launch_out: &str) -> Result<(), ReduceError> {
    let bytes = if out.ends_with(".spvasm") {
        text::disassemble(&c.module.to_words())
            .map_err(|e| ReduceError::Io(format!("{out}: {e}")))?
            .into_bytes()
    } else {
        c.module.to_bytes()
    };
    crate::io::write_output_atomically(out, &bytes).map_err(ReduceError::Io)?;
    if let Some(l) = &c.launch {
        let json = serde_json::to_string_pretty(&l.to_writable())
            .map_err(|e| ReduceError::Io(e.to_string()))?;
        crate::io::write_output_atomically(launch_out, json.as_bytes()).map_err(ReduceError::Io)?;
    }
    Ok(())
}

/// The default launch output beside `out`.
fn launch_out_for(out: &str) -> String {
    let stem = out
        .strip_suffix(".spvasm")
        .or_else(|| out.strip_suffix(".spv"))
        .unwrap_or(out);
    format!("{stem}.launch.json")
}

fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(x), Ok(y)) => x == y,
        _ => false,
    }
}

/// `spv-ab reduce …` (arguments after `reduce`); returns the exit code.
pub fn main(args: &[String]) -> i32 {
    match run_cli(args) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("spv-ab reduce: error: {e}");
            1
        }
    }
}

/// The command line's work; `main` prints the error.
pub fn run_cli(args: &[String]) -> Result<i32, ReduceError> {
    let Some(cli) = parse(args)? else {
        print!("{USAGE}");
        return Ok(0);
    };
    let module = cli
        .module
        .clone()
        .ok_or_else(|| ReduceError::Usage("give a MODULE (see --help)".into()))?;
    let out = cli
        .output
        .clone()
        .ok_or_else(|| ReduceError::Usage("give -o SMALL.spv".into()))?;
    let launch_out = cli
        .launch_out
        .clone()
        .unwrap_or_else(|| launch_out_for(&out));
    for (o, flag) in [(&out, "-o"), (&launch_out, "--launch-out")] {
        let inputs = [Some(&module), cli.launch.as_ref()];
        if inputs.iter().flatten().any(|i| same_file(i, Path::new(o))) {
            return Err(ReduceError::Usage(format!(
                "{flag} {o} is an input: the input is never overwritten"
            )));
        }
    }
    let target = match &cli.target {
        Some(t) => Target::by_name(t).map_err(|e| ReduceError::Usage(e.to_string()))?,
        None => Target::default(),
    };
    let predicate = predicate_of(&cli, &target)?;
    let input = load_input(&module, cli.launch.as_deref())?;
    let oracle = Oracle::prepare(predicate, &input)?;
    if cli.verbose {
        eprintln!(
            "spv-ab reduce: {}: {}; {} instructions",
            module.display(),
            oracle.description,
            input.size().instructions
        );
    }
    unsafe {
        libc::signal(
            libc::SIGINT,
            on_sigint as extern "C" fn(libc::c_int) as libc::sighandler_t,
        );
    }
    let write_error: std::sync::Mutex<Option<ReduceError>> = std::sync::Mutex::new(None);
    let on_improvement = |c: &Candidate| {
        if let Err(e) = write_outputs(c, &out, &launch_out) {
            if let Ok(mut w) = write_error.lock() {
                w.get_or_insert(e);
            }
            INTERRUPTED.store(true, Ordering::SeqCst);
        }
    };
    use std::io::IsTerminal;
    let settings = Settings {
        jobs: cli.jobs,
        progress: std::io::stderr().is_terminal(),
        verbose: cli.verbose,
        stop: Some(&INTERRUPTED),
        on_improvement: Some(&on_improvement),
    };
    write_outputs(&input, &out, &launch_out)?;
    let outcome = reduce(input, &oracle, &settings);
    if let Some(e) = write_error.lock().ok().and_then(|mut w| w.take()) {
        return Err(e);
    }
    write_outputs(&outcome.best, &out, &launch_out)?;
    if let Some(log) = &cli.log {
        let mut text = outcome.log.join("\n");
        text.push('\n');
        std::fs::write(log, text).map_err(|e| ReduceError::Io(format!("{log}: {e}")))?;
    }
    eprintln!(
        "spv-ab reduce: {} -> {} instructions ({} -> {} words) in {:.1} s, {} steps, {} \
         candidates{}; written to {out}{}",
        outcome.before.instructions,
        outcome.after.instructions,
        outcome.before.words,
        outcome.after.words,
        outcome.seconds,
        outcome.log.len(),
        outcome.candidates,
        if outcome.interrupted {
            " (interrupted: the best so far)"
        } else {
            ""
        },
        if outcome.best.launch.is_some() {
            format!(" and {launch_out}")
        } else {
            String::new()
        }
    );
    Ok(if outcome.interrupted { 130 } else { 0 })
}
