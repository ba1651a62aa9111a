//! What makes a candidate "interesting" to `spv-ab reduce`: the four predicates of the
//! command line, prepared once on the input ([`Oracle::prepare`], which also checks that the
//! input itself is interesting) and then asked of every candidate ([`Oracle::interesting`]),
//! from many threads at once.
//!
//! Why the reduced module shows the same problem and not another one: `--differs` tracks the
//! first element where the pipeline's output differs from the input's on spv-sim and requires
//! that very element (same original kernel parameter, same offset) to differ in every
//! candidate, with both runs succeeding and the pipeline succeeding; `--device-differs`
//! requires the device run to disagree with spv-sim; `--pass-fails` requires the same kind of
//! failure (a panic, or an error of the same variant); `--command` is the user's own test.
//! Each run of the simulator gets a step budget of twice what the input needed (plus a
//! margin), so a candidate that loops forever fails instead of hanging the reduction.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;
use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use spvopt_analysis::Target;
use spvopt_ir::Module;
use spvopt_passes::{run_pipeline, Hooks, PassError, Pipeline};
use spvopt_sim::{Launch, RunOutput};

use super::state::Candidate;
use super::ReduceError;
use crate::ab::device::Runner;

/// The problem the reduced module must keep showing.
pub enum Predicate {
    /// The pipeline's output computes something else than its input on spv-sim.
    Differs { pipeline: Pipeline, target: Target },
    /// An OpenCL device (Intel's CPU runtime) disagrees with spv-sim.
    DeviceDiffers {
        device: usize,
        python: Option<String>,
        ulp: u64,
    },
    /// `sh -c COMMAND` (with `{}` replaced by the candidate's path) exits non-zero, and its
    /// output matches `pattern` when one is given.
    Command {
        command: String,
        pattern: Option<regex::Regex>,
    },
    /// The pipeline fails (an error or a panic).
    PassFails { pipeline: Pipeline, target: Target },
}

impl Predicate {
    fn needs_launch(&self) -> bool {
        matches!(
            self,
            Predicate::Differs { .. } | Predicate::DeviceDiffers { .. }
        )
    }
}

/// The element whose difference must persist.
#[derive(Clone, Debug)]
pub struct Tracked {
    /// The kernel parameter, as the input's index.
    pub arg: usize,
    pub offset: usize,
    pub len: usize,
}

/// How a pipeline failed.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Failure {
    Panic,
    Error(std::mem::Discriminant<PassError>),
}

/// A predicate prepared on the input.
pub struct Oracle {
    predicate: Predicate,
    pub tracked: Option<Tracked>,
    max_steps: u64,
    failure: Option<Failure>,
    runner: Option<Mutex<Runner>>,
    temp: Option<tempfile::TempDir>,
    next: AtomicU64,
    /// What the input shows, for the log.
    pub description: String,
}

thread_local! {
    static QUIET_PANICS: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Panics inside a predicate are expected (`--pass-fails`, passes on odd reduced modules):
/// they are not printed; others are, by the previous hook.
fn install_quiet_panic_hook() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !QUIET_PANICS.with(|q| q.get()) {
                previous(info);
            }
        }));
    });
}

/// Runs `f`, turning a panic into `Err(())`, silently.
fn quietly<T>(f: impl FnOnce() -> T) -> Result<T, ()> {
    install_quiet_panic_hook();
    QUIET_PANICS.with(|q| q.set(true));
    let r = catch_unwind(AssertUnwindSafe(f)).map_err(|_| ());
    QUIET_PANICS.with(|q| q.set(false));
    r
}

fn optimized(m: &Module, pipeline: &Pipeline, target: &Target) -> Result<Module, Failure> {
    let mut out = m.clone();
    match quietly(|| run_pipeline(pipeline, &mut out, target, &mut Hooks::default())) {
        Ok(Ok(_)) => Ok(out),
        Ok(Err(e)) => Err(Failure::Error(std::mem::discriminant(&e))),
        Err(()) => Err(Failure::Panic),
    }
}

fn simulate(m: &Module, launch: &Launch) -> Option<RunOutput> {
    quietly(|| spvopt_sim::run(m, launch)).ok()?.ok()
}

/// The bytes of parameter `index`'s buffer in a run.
fn buffer(run: &RunOutput, index: usize) -> Option<&[u8]> {
    run.buffers
        .iter()
        .find(|(i, _)| *i == index)
        .map(|(_, b)| b.as_slice())
}

impl Oracle {
    /// Prepares `predicate` on the input `c` (launching `kernel`); an error when the input is
    /// not interesting or the predicate cannot run.
    pub fn prepare(predicate: Predicate, c: &Candidate) -> Result<Oracle, ReduceError> {
        if predicate.needs_launch() && c.launch.is_none() {
            return Err(ReduceError::NeedsLaunch);
        }
        let mut o = Oracle {
            predicate,
            tracked: None,
            max_steps: spvopt_sim::launch::DEFAULT_MAX_STEPS,
            failure: None,
            runner: None,
            temp: None,
            next: AtomicU64::new(0),
            description: String::new(),
        };
        let launch = match &c.launch {
            Some(l) => Some(l.parse().map_err(|e| ReduceError::Launch(e.to_string()))?),
            None => None,
        };
        let sim_input = |what: &str| -> Result<RunOutput, ReduceError> {
            let l = launch.as_ref().ok_or(ReduceError::NeedsLaunch)?;
            quietly(|| spvopt_sim::run(&c.module, l))
                .map_err(|()| ReduceError::Input(format!("{what}: spv-sim panicked")))?
                .map_err(|e| ReduceError::Input(format!("{what} on spv-sim: {e}")))
        };
        match &o.predicate {
            Predicate::Differs { pipeline, target } => {
                let before = sim_input("the input")?;
                let out = optimized(&c.module, pipeline, target).map_err(|f| {
                    ReduceError::NotInteresting(format!("the pipeline fails on the input ({f:?})"))
                })?;
                let l = launch.as_ref().ok_or(ReduceError::NeedsLaunch)?;
                let after = spvopt_sim::run(&out, l).map_err(|e| {
                    ReduceError::NotInteresting(format!("the pipeline's output on spv-sim: {e}"))
                })?;
                let elems = spvopt_sim::compare::param_elem_types(&c.module, &l.kernel);
                let tracked = first_difference(&before, &after, &elems).ok_or_else(|| {
                    ReduceError::NotInteresting(
                        "the pipeline's output computes what the input computes".into(),
                    )
                })?;
                o.description = format!(
                    "the pipeline's output differs from the input at arg{} bytes {}..{}",
                    tracked.arg,
                    tracked.offset,
                    tracked.offset + tracked.len
                );
                o.max_steps = budget(&before, &after);
                o.tracked = Some(tracked);
            }
            Predicate::DeviceDiffers { device, python, .. } => {
                let runner =
                    Runner::start(*device, python.as_deref(), None).map_err(ReduceError::Device)?;
                let before = sim_input("the input")?;
                o.max_steps = budget(&before, &before);
                o.runner = Some(Mutex::new(runner));
                if !o.interesting(c) {
                    return Err(ReduceError::NotInteresting(
                        "the device agrees with spv-sim on the input".into(),
                    ));
                }
                o.description = "the device disagrees with spv-sim".into();
            }
            Predicate::Command { command, .. } => {
                o.temp = Some(
                    tempfile::Builder::new()
                        .prefix("spv-ab-reduce-")
                        .tempdir()
                        .map_err(|e| ReduceError::Io(format!("temporary folder: {e}")))?,
                );
                if !o.interesting(c) {
                    return Err(ReduceError::NotInteresting(format!(
                        "`{command}` succeeds on the input (or its output does not match \
                         --pattern)"
                    )));
                }
                o.description = format!("`{command}` fails");
            }
            Predicate::PassFails { pipeline, target } => {
                match optimized(&c.module, pipeline, target) {
                    Ok(_) => {
                        return Err(ReduceError::NotInteresting(
                            "the pipeline succeeds on the input".into(),
                        ))
                    }
                    Err(f) => {
                        o.description = format!("the pipeline fails ({f:?})");
                        o.failure = Some(f);
                    }
                }
            }
        }
        Ok(o)
    }

    /// Whether `c` shows the problem.
    pub fn interesting(&self, c: &Candidate) -> bool {
        let launch = || -> Option<Launch> {
            let mut l = c.launch.as_ref()?.parse().ok()?;
            l.max_steps = l.max_steps.min(self.max_steps);
            Some(l)
        };
        match &self.predicate {
            Predicate::Differs { pipeline, target } => {
                let Some(l) = launch() else { return false };
                let Some(t) = &self.tracked else { return false };
                let Some(index) = c.arg_origin.iter().position(|&o| o == t.arg) else {
                    return false;
                };
                let Some(before) = simulate(&c.module, &l) else {
                    return false;
                };
                let Ok(out) = optimized(&c.module, pipeline, target) else {
                    return false;
                };
                let Some(after) = simulate(&out, &l) else {
                    return false;
                };
                let range = t.offset..t.offset + t.len;
                match (buffer(&before, index), buffer(&after, index)) {
                    (Some(a), Some(b)) => match (a.get(range.clone()), b.get(range)) {
                        (Some(x), Some(y)) => x != y,
                        _ => false,
                    },
                    _ => false,
                }
            }
            Predicate::DeviceDiffers { ulp, .. } => {
                let Some(l) = launch() else { return false };
                self.device_differs(c, l, *ulp)
            }
            Predicate::Command { command, pattern } => self.command_fails(c, command, pattern),
            Predicate::PassFails { pipeline, target } => {
                matches!(optimized(&c.module, pipeline, target), Err(f) if Some(&f) == self.failure.as_ref())
            }
        }
    }

    fn command_fails(&self, c: &Candidate, command: &str, pattern: &Option<regex::Regex>) -> bool {
        let Some(dir) = &self.temp else { return false };
        let n = self.next.fetch_add(1, Ordering::Relaxed);
        let path: PathBuf = dir.path().join(format!("candidate-{n}.spv"));
        if std::fs::write(&path, c.module.to_bytes()).is_err() {
            return false;
        }
        let quoted = format!("'{}'", path.display().to_string().replace('\'', "'\\''"));
        let out = Command::new("sh")
            .arg("-c")
            .arg(command.replace("{}", &quoted))
            .stdin(std::process::Stdio::null())
            .output();
        let _ = std::fs::remove_file(&path);
        let Ok(out) = out else { return false };
        // Ctrl-C reaches the command too: a command it ended says nothing about the module.
        use std::os::unix::process::ExitStatusExt;
        if out.status.success() || out.status.signal() == Some(libc::SIGINT) {
            return false;
        }
        match pattern {
            None => true,
            Some(re) => {
                re.is_match(&String::from_utf8_lossy(&out.stdout))
                    || re.is_match(&String::from_utf8_lossy(&out.stderr))
            }
        }
    }

    fn device_differs(&self, c: &Candidate, launch: Launch, ulp: u64) -> bool {
        let Some(runner) = &self.runner else {
            return false;
        };
        let Some(sim) = simulate(&c.module, &launch) else {
            return false;
        };
        let elems = spvopt_sim::compare::param_elem_types(&c.module, &launch.kernel);
        let mut ev = crate::ab::Evaluated {
            report: crate::ab::KernelReport {
                kernel: "candidate".into(),
                launch: None,
                original: Default::default(),
                a: Default::default(),
                b: Default::default(),
                verdict: crate::ab::Verdict::NoLaunch,
                bisect: None,
            },
            modules: [Some(c.module.clone()), None, None],
            runs: [Some(sim), None, None],
            launch: Some(launch),
            elems,
        };
        let Ok(runner) = runner.lock() else {
            return false;
        };
        let opts = crate::ab::Options {
            reps: 1,
            warmup: 0,
            device_ulp: ulp,
            ..crate::ab::Options::default()
        };
        let staged = runner.stage(0, &mut ev);
        let mut reports = vec![ev.report];
        if runner.run(&mut reports, staged, &opts).is_err() {
            return false;
        }
        reports[0]
            .original
            .device
            .as_ref()
            .is_some_and(|d| d.agrees == Some(false))
    }
}

/// The simulator's step budget for candidates: twice what the input's runs executed in all,
/// plus a margin (a per-subgroup budget, so generous).
fn budget(a: &RunOutput, b: &RunOutput) -> u64 {
    let most = a.counters.instructions.max(b.counters.instructions);
    most.saturating_mul(2)
        .saturating_add(100_000)
        .min(spvopt_sim::launch::DEFAULT_MAX_STEPS)
}

/// The first element (by parameter, then offset) where two runs' buffers differ.
fn first_difference(
    a: &RunOutput,
    b: &RunOutput,
    elems: &[Option<spvopt_sim::compare::Elem>],
) -> Option<Tracked> {
    for ((ia, da), (ib, db)) in a.buffers.iter().zip(&b.buffers) {
        if ia != ib || da == db {
            continue;
        }
        let size = elems.get(*ia).copied().flatten().map_or(1, |e| e.size());
        let at = da.iter().zip(db).position(|(x, y)| x != y).unwrap_or(0);
        let offset = at / size * size;
        return Some(Tracked {
            arg: *ia,
            offset,
            len: size.min(da.len() - offset),
        });
    }
    None
}
