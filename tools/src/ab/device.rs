//! `--device opencl[:N]`: the original, A and B of every kernel also run on an OpenCL device.
//!
//! Mechanism: a Python runner (`opencl_runner.py`, compiled into spv-ab and written to a
//! temporary folder) in a Python with `pyopencl` and `numpy` (`--python`, else
//! `$OPENCL_VENV/bin/python` as `.ci/install-opencl-cpu.sh` sets it up, else `python3`). It
//! builds each module with `clCreateProgramWithIL` (a module byte for byte the previous run's,
//! as B usually is A's, reuses that build), runs the launch once from the launch's
//! initial buffers (written as `spv-sim run --inputs` writes them, generated ones included),
//! and then `--warmup` untimed and `--reps` timed runs, each from freshly uploaded buffers,
//! timed by the kernel's profiling event. All runs go through one runner process, one kernel
//! after another, after the simulator's parallel work, so timings do not compete with it.
//!
//! A module that needs a feature the device does not report (2D block IO, subgroup MMA, buffer
//! prefetch — as native instructions or as the OpenCL builtins Triton calls — or cooperative
//! matrices) is not run: the report says which feature and suggests `--target cpu` for the
//! CPU runtime. A module the device's compiler rejects (e.g. Intel's CPU runtime on Triton's
//! `MaxWorkgroupSizeINTEL` hint, "unsupported capability 5892") is not run either, with the
//! compiler's message. With `--device-max-bytes N`, a module above N bytes is not run either
//! (a JIT compiler may take minutes on a megabyte kernel: Intel's CPU runtime spent over 10
//! minutes on the 1.5 MB `-O --target cpu` output of tensor-hw `bg_f16_64x48x80` when
//! lower-mma emulated with subgroup shuffles; 4 min 23 s for `run_all.py -k bg_f16` with the
//! broadcasts it uses now).
//! None of these fails the comparison; a run whose buffers differ from spv-sim's (beyond
//! `--device-ulp` for floating-point buffers) does.

use std::path::PathBuf;
use std::process::Command;

use serde::{Deserialize, Serialize};
use spvopt_ir::Module;
use spvopt_passes::builtin_mangling::{linkages, parse_builtin, Builtin};
use spvopt_sim::compare::{compare_buffers, Verdict as BufferVerdict};

use super::{Evaluated, Options};

const RUNNER: &str = include_str!("opencl_runner.py");

/// Parses `opencl` / `opencl:N` into the device index N (default 0).
pub fn parse_spec(s: &str) -> Result<usize, String> {
    match s.split_once(':') {
        None if s == "opencl" => Ok(0),
        Some(("opencl", n)) => n
            .parse()
            .map_err(|_| format!("--device {s}: bad device index {n:?}")),
        _ => Err(format!(
            "--device {s}: unknown device kind (only opencl[:N] is supported)"
        )),
    }
}

/// One variant's run on the device.
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct DeviceRun {
    /// `ran`, `not_run` (the module needs what the device lacks, or its compiler rejected it)
    /// or `error` (a failure while running).
    pub status: String,
    /// Why it did not run, or the error.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// How its buffers compare with spv-sim's run of the same module: `identical`,
    /// `within N ulp (…)` or `DIFFERS: …`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub check: Option<String>,
    /// Whether the buffers agree with spv-sim's (`None` when it did not run).
    pub agrees: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub time: Option<Timing>,
}

/// Kernel times of the timed runs (device profiling: from start to end of the kernel).
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct Timing {
    pub reps: usize,
    pub median_us: f64,
    pub min_us: f64,
    pub max_us: f64,
    /// Interquartile range (75th minus 25th percentile).
    pub iqr_us: f64,
    /// The 25th and 75th percentiles: two variants' times differ beyond the noise when these
    /// ranges do not overlap ([`Timing::compare`]).
    pub q1_us: f64,
    pub q3_us: f64,
}

/// How two variants' device times compare ([`Timing::compare`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Speed {
    /// The interquartile ranges overlap: no difference beyond the run-to-run noise.
    WithinNoise,
    /// B's runs are all-but-a-quarter faster than A's: B's 75th percentile below A's 25th.
    Faster,
    Slower,
    /// Fewer than [`MIN_REPS_TO_COMPARE`] timed runs of one of them: no claim either way.
    TooFewRuns,
}

/// Timed runs each variant needs before a difference is claimed.
pub const MIN_REPS_TO_COMPARE: usize = 5;

/// The smallest change of the median claimed as a difference, also with disjoint
/// interquartile ranges: runs of A and B are not interleaved, so a drift of the machine between
/// them separates tight ranges (two byte-identical modules on Intel's CPU runtime: medians
/// 80.0 and 78.8 us, IQRs 0.2, docs/guide.md).
pub const MIN_CHANGE_PERCENT: f64 = 5.0;

impl Timing {
    /// The statistics of `times_ns` (`None` when empty).
    pub fn of(times_ns: &[u64]) -> Option<Timing> {
        let mut t: Vec<f64> = times_ns.iter().map(|&n| n as f64 / 1000.0).collect();
        if t.is_empty() {
            return None;
        }
        t.sort_by(f64::total_cmp);
        let at = |q: f64| {
            let pos = q * (t.len() - 1) as f64;
            let (lo, hi) = (pos.floor() as usize, pos.ceil() as usize);
            t[lo] + (t[hi] - t[lo]) * (pos - lo as f64)
        };
        let round = |x: f64| (x * 10.0).round() / 10.0;
        Some(Timing {
            reps: t.len(),
            median_us: round(at(0.5)),
            min_us: round(t[0]),
            max_us: round(t[t.len() - 1]),
            iqr_us: round(at(0.75) - at(0.25)),
            q1_us: round(at(0.25)),
            q3_us: round(at(0.75)),
        })
    }

    /// B (`self` is A) against A: a difference is reported only when the interquartile ranges
    /// do not overlap (half of each variant's runs lie in its range; disjoint ranges mean the
    /// typical run of one is outside the spread of the other) and the medians differ by
    /// [`MIN_CHANGE_PERCENT`] or more, never from the medians alone:
    /// issue 29 saw the medians of two byte-identical modules differ by 9.4% on Intel's CPU runtime.
    pub fn compare(&self, b: &Timing) -> Speed {
        let change = if self.median_us > 0.0 {
            ((b.median_us - self.median_us) / self.median_us * 100.0).abs()
        } else {
            0.0
        };
        if self.reps < MIN_REPS_TO_COMPARE || b.reps < MIN_REPS_TO_COMPARE {
            Speed::TooFewRuns
        } else if change < MIN_CHANGE_PERCENT {
            Speed::WithinNoise
        } else if b.q3_us < self.q1_us {
            Speed::Faster
        } else if b.q1_us > self.q3_us {
            Speed::Slower
        } else {
            Speed::WithinNoise
        }
    }

    /// `A -> B us` and what that means (`within noise`, `B 12.3% faster, beyond the noise`).
    pub fn compare_text(&self, b: &Timing) -> String {
        let change = if self.median_us > 0.0 {
            (b.median_us - self.median_us) / self.median_us * 100.0
        } else {
            0.0
        };
        let ranges = format!(
            "IQR A {}-{}, B {}-{}",
            self.q1_us, self.q3_us, b.q1_us, b.q3_us
        );
        let verdict = match self.compare(b) {
            Speed::WithinNoise => {
                format!("within noise ({ranges}; a claim needs disjoint IQRs and a change of {MIN_CHANGE_PERCENT}% or more)")
            }
            Speed::Faster => format!("B {:.1}% faster, beyond the noise ({ranges})", -change),
            Speed::Slower => format!("B {change:.1}% slower, beyond the noise ({ranges})"),
            Speed::TooFewRuns => format!(
                "too few runs to tell (n={} and {}; --reps {MIN_REPS_TO_COMPARE} or more)",
                self.reps, b.reps
            ),
        };
        format!("{} -> {} us: {verdict}", self.median_us, b.median_us)
    }
}

#[derive(Deserialize)]
struct Info {
    device: String,
    platform: String,
    extensions: Vec<String>,
}

#[derive(Serialize)]
struct Job {
    name: String,
    spv: PathBuf,
    launch: PathBuf,
    out: PathBuf,
}

#[derive(Deserialize)]
struct JobResult {
    name: String,
    times_ns: Option<Vec<u64>>,
    rejected: Option<String>,
    error: Option<String>,
}

#[derive(Deserialize)]
struct RunResults {
    results: Vec<JobResult>,
}

/// The OpenCL runner for one device.
pub struct Runner {
    python: String,
    dir: PathBuf,
    index: usize,
    info: Info,
    /// `--device-max-bytes`: larger modules are not given to the device's compiler.
    max_bytes: Option<usize>,
}

impl Drop for Runner {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn temp_dir() -> Result<PathBuf, String> {
    use std::sync::atomic::{AtomicU32, Ordering};
    static NEXT: AtomicU32 = AtomicU32::new(0);
    let d = std::env::temp_dir().join(format!(
        "spv-ab-device-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&d).map_err(|e| format!("{}: {e}", d.display()))?;
    Ok(d)
}

impl Runner {
    /// Finds the Python and device `index`: an error (one line) when either is missing.
    /// Modules above `max_bytes` (`--device-max-bytes`) will be reported `not_run`.
    pub fn start(
        index: usize,
        python: Option<&str>,
        max_bytes: Option<usize>,
    ) -> Result<Runner, String> {
        let python = match python {
            Some(p) => p.to_string(),
            None => match std::env::var("OPENCL_VENV") {
                Ok(v) if !v.is_empty() => format!("{v}/bin/python"),
                _ => "python3".into(),
            },
        };
        let dir = temp_dir()?;
        let mut r = Runner {
            python,
            dir,
            index,
            info: Info {
                device: String::new(),
                platform: String::new(),
                extensions: Vec::new(),
            },
            max_bytes,
        };
        std::fs::write(r.script(), RUNNER).map_err(|e| format!("{}: {e}", r.dir.display()))?;
        let out = r.call(&["info", &index.to_string()])?;
        r.info = serde_json::from_slice(&out)
            .map_err(|e| format!("--device: unexpected answer from the OpenCL runner: {e}"))?;
        Ok(r)
    }

    fn script(&self) -> PathBuf {
        self.dir.join("opencl_runner.py")
    }

    fn call(&self, args: &[&str]) -> Result<Vec<u8>, String> {
        let out = Command::new(&self.python)
            .arg(self.script())
            .args(args)
            .output()
            .map_err(|e| format!("--device: cannot run {}: {e} (give --python)", self.python))?;
        if !out.status.success() {
            let err = String::from_utf8_lossy(&out.stderr);
            let line = err
                .lines()
                .rev()
                .find(|l| !l.trim().is_empty())
                .unwrap_or("");
            return Err(format!(
                "--device opencl:{}: {} (needs an OpenCL runtime and a Python with pyopencl \
                 and numpy: .ci/install-opencl-cpu.sh)",
                self.index,
                if line.is_empty() {
                    format!("the OpenCL runner failed ({})", out.status)
                } else {
                    line.trim().to_string()
                }
            ));
        }
        Ok(out.stdout)
    }

    /// `DEVICE (PLATFORM)`.
    pub fn description(&self) -> String {
        format!("{} ({})", self.info.device, self.info.platform)
    }

    /// What `m` needs that the device does not report, as one line (`None`: nothing).
    pub fn missing(&self, m: &Module) -> Option<String> {
        let has = |e: &str| self.info.extensions.iter().any(|x| x == e);
        let mut missing: Vec<String> = Vec::new();
        let mut need = |what: String| {
            if !missing.contains(&what) {
                missing.push(what);
            }
        };
        for (_, i) in m.section_insts(spvopt_ir::Section::Extension) {
            let ext = spvopt_ir::grammar::decode_string(i.operands()).unwrap_or("");
            match ext {
                "SPV_INTEL_2d_block_io" if !has("cl_intel_subgroup_2d_block_io") => {
                    need("2D block IO (cl_intel_subgroup_2d_block_io)".into())
                }
                "SPV_INTEL_subgroup_matrix_multiply_accumulate"
                    if !has("cl_intel_subgroup_matrix_multiply_accumulate") =>
                {
                    need("subgroup MMA (cl_intel_subgroup_matrix_multiply_accumulate)".into())
                }
                "SPV_INTEL_subgroup_buffer_prefetch"
                    if !has("cl_intel_subgroup_buffer_prefetch") =>
                {
                    need("buffer prefetch (cl_intel_subgroup_buffer_prefetch)".into())
                }
                "SPV_KHR_cooperative_matrix" | "SPV_NV_tensor_addressing" => {
                    need(format!("{ext} (no OpenCL extension; -O converts it)"))
                }
                _ => {}
            }
        }
        for l in linkages(m).into_iter().filter(|l| l.import) {
            match parse_builtin(&l.name) {
                Some(Builtin::Block(_)) if !has("cl_intel_subgroup_2d_block_io") => {
                    need("2D block IO builtins (cl_intel_subgroup_2d_block_io)".into())
                }
                Some(Builtin::Mma(_)) if !has("cl_intel_subgroup_matrix_multiply_accumulate") => {
                    need(
                        "subgroup MMA builtins (cl_intel_subgroup_matrix_multiply_accumulate)"
                            .into(),
                    )
                }
                _ => {}
            }
        }
        (!missing.is_empty()).then(|| {
            format!(
                "needs {}, which {} does not report (for Intel's CPU runtime: --target cpu)",
                missing.join(", "),
                self.info.device
            )
        })
    }

    /// Prepares kernel `k` for the device (called in the parallel phase, so nothing large is
    /// kept): writes the launch's initial buffers, each runnable variant's module and spv-sim's
    /// buffers of it to the work folder, and records in `ev.report` the variants that will not
    /// run and why.
    pub fn stage(&self, k: usize, ev: &mut Evaluated) -> Vec<Staged> {
        let mut staged = Vec::new();
        let Some(launch) = &ev.launch else {
            return staged;
        };
        let kdir = self.dir.join(format!("k{k}"));
        let inputs = kdir.join("in");
        if let Err(e) =
            crate::sim_cli::write_inputs(launch, &ev.elems, &inputs.display().to_string())
        {
            for v in 0..3 {
                *variant(&mut ev.report, v) = Some(error_run(e.clone()));
            }
            return staged;
        }
        for (v, name) in NAMES.iter().enumerate() {
            let (Some(m), Some(sim)) = (&ev.modules[v], &ev.runs[v]) else {
                continue;
            };
            if let Some(why) = self.missing(m) {
                *variant(&mut ev.report, v) = Some(DeviceRun {
                    status: "not_run".into(),
                    note: Some(why),
                    ..DeviceRun::default()
                });
                continue;
            }
            let bytes = m.to_bytes();
            if let Some(max) = self.max_bytes.filter(|&max| bytes.len() > max) {
                *variant(&mut ev.report, v) = Some(DeviceRun {
                    status: "not_run".into(),
                    note: Some(format!(
                        "the module has {} bytes, above --device-max-bytes {max}: not given to \
                         the device's compiler",
                        bytes.len()
                    )),
                    ..DeviceRun::default()
                });
                continue;
            }
            let spv = kdir.join(format!("{name}.spv"));
            let sim_dir = kdir.join(format!("{name}.sim"));
            let written = std::fs::create_dir_all(&sim_dir)
                .and_then(|()| std::fs::write(&spv, &bytes))
                .and_then(|()| {
                    sim.buffers.iter().try_for_each(|(i, bytes)| {
                        std::fs::write(sim_dir.join(format!("arg{i}.bin")), bytes)
                    })
                });
            if let Err(e) = written {
                *variant(&mut ev.report, v) = Some(error_run(format!("{}: {e}", kdir.display())));
                continue;
            }
            staged.push(Staged {
                kernel: k,
                variant: v,
                buffers: sim.buffers.iter().map(|(i, _)| *i).collect(),
                elems: ev.elems.clone(),
                job: Job {
                    name: format!("{k}/{name}"),
                    spv,
                    launch: inputs.join("launch.json"),
                    out: kdir.join(format!("{name}.out")),
                },
                sim: sim_dir,
            });
        }
        staged
    }

    /// Runs the staged variants on the device, one after another in one runner process, and
    /// records per variant the check against spv-sim and the timing in `reports`.
    pub fn run(
        &self,
        reports: &mut [super::KernelReport],
        staged: Vec<Staged>,
        opts: &Options,
    ) -> Result<(), String> {
        if staged.is_empty() {
            return Ok(());
        }
        let jobs: Vec<&Job> = staged.iter().map(|s| &s.job).collect();
        let request = serde_json::json!({
            "device": self.index,
            "reps": opts.reps,
            "warmup": opts.warmup,
            "runs": jobs,
        });
        let path = self.dir.join("request.json");
        std::fs::write(&path, request.to_string())
            .map_err(|e| format!("{}: {e}", path.display()))?;
        let answer = self.call(&["run", &path.display().to_string()])?;
        let results: RunResults = serde_json::from_slice(&answer)
            .map_err(|e| format!("--device: unexpected answer from the OpenCL runner: {e}"))?;
        if results.results.len() != staged.len() {
            return Err("--device: the OpenCL runner answered for a different set of runs".into());
        }
        for (s, r) in staged.iter().zip(results.results) {
            debug_assert_eq!(s.job.name, r.name);
            let run = match (r.times_ns, r.error) {
                _ if r.rejected.is_some() => DeviceRun {
                    status: "not_run".into(),
                    note: r
                        .rejected
                        .map(|why| format!("rejected by the device's compiler: {why}")),
                    ..DeviceRun::default()
                },
                (_, Some(e)) => error_run(e),
                (Some(times), None) => {
                    let (check, agrees) = check(s, opts.device_ulp);
                    DeviceRun {
                        status: "ran".into(),
                        note: None,
                        check: Some(check),
                        agrees: Some(agrees),
                        time: Timing::of(&times),
                    }
                }
                (None, None) => error_run("the runner returned no result".into()),
            };
            *variant(&mut reports[s.kernel], s.variant) = Some(run);
        }
        Ok(())
    }
}

/// One variant written out for the device: its module, spv-sim's buffers of it, where the
/// device's go.
pub struct Staged {
    kernel: usize,
    variant: usize,
    /// The buffer parameters spv-sim wrote (`sim/arg<i>.bin`).
    buffers: Vec<usize>,
    elems: Vec<Option<spvopt_sim::compare::Elem>>,
    job: Job,
    sim: PathBuf,
}

const NAMES: [&str; 3] = ["original", "a", "b"];

fn variant(r: &mut super::KernelReport, v: usize) -> &mut Option<DeviceRun> {
    match v {
        0 => &mut r.original.device,
        1 => &mut r.a.device,
        _ => &mut r.b.device,
    }
}

fn error_run(e: String) -> DeviceRun {
    DeviceRun {
        status: "error".into(),
        note: Some(e),
        ..DeviceRun::default()
    }
}

/// The device's buffers against spv-sim's (both as `arg<i>.bin` files): the check's text and
/// whether they agree.
fn check(s: &Staged, ulp: u64) -> (String, bool) {
    let mut within = Vec::new();
    for &i in &s.buffers {
        let file = format!("arg{i}.bin");
        let Ok(expected) = std::fs::read(s.sim.join(&file)) else {
            return (format!("DIFFERS: arg{i}: spv-sim's buffer is gone"), false);
        };
        let Ok(got) = std::fs::read(s.job.out.join(&file)) else {
            return (format!("DIFFERS: arg{i}: no output from the device"), false);
        };
        let elem = s.elems.get(i).copied().flatten();
        let c = compare_buffers(&expected, &got, elem, ulp, None, 1);
        match c.verdict() {
            BufferVerdict::Identical => {}
            BufferVerdict::Within => within.push(format!(
                "arg{i}: {} elements, max {} ulp",
                c.differing, c.max_ulp
            )),
            BufferVerdict::Different => {
                let first = c.listed.first().map_or(String::new(), |d| {
                    format!(
                        ", first at element {}: spv-sim {} vs device {}",
                        d.index, d.a, d.b
                    )
                });
                return (
                    format!(
                        "DIFFERS: arg{i}: {} elements beyond {ulp} ulp (as {}){first}",
                        c.beyond,
                        elem.map_or("bytes".into(), |e| e.name())
                    ),
                    false,
                );
            }
        }
    }
    if within.is_empty() {
        ("identical".into(), true)
    } else {
        (format!("within {ulp} ulp ({})", within.join("; ")), true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_difference_is_claimed_only_beyond_the_interquartile_ranges() {
        let t = |ns: &[u64]| Timing::of(ns).unwrap();
        let a = t(&[100_000, 101_000, 102_000, 103_000, 104_000]);
        // Medians 9% apart, ranges overlapping: within noise.
        let noisy = t(&[95_000, 100_000, 111_000, 112_000, 130_000]);
        assert_eq!(a.compare(&noisy), Speed::WithinNoise);
        assert!(a.compare_text(&noisy).contains("within noise"));
        let fast = t(&[80_000, 81_000, 82_000, 83_000, 84_000]);
        assert_eq!(a.compare(&fast), Speed::Faster);
        assert!(a
            .compare_text(&fast)
            .contains("B 19.6% faster, beyond the noise"));
        assert_eq!(fast.compare(&a), Speed::Slower);
        // Disjoint but tight ranges 1.5% apart (identical code, docs/guide.md): within noise.
        let drift = t(&[78_700, 78_800, 78_800, 78_800, 81_400]);
        let base = t(&[79_200, 79_900, 80_000, 80_100, 150_400]);
        assert_eq!(base.compare(&drift), Speed::WithinNoise);
        let few = t(&[1_000, 2_000, 3_000]);
        assert_eq!(a.compare(&few), Speed::TooFewRuns);
    }
}
