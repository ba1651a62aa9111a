//! `spv-ab`'s outputs: the terminal table, JSON, and a self-contained HTML page with inline-SVG
//! bar charts; the progress bar shown while kernels run (only when stderr is a terminal).

use std::fmt::Write as _;
use std::io::IsTerminal;

use super::device::{DeviceRun, Speed};
use super::stats::mma_in_words;
use super::{KernelReport, Options, Report, SimStats, Variant, Verdict};
use crate::io;

/// A progress bar over kernels, drawn only when stderr is a terminal.
pub struct Progress(Option<indicatif::ProgressBar>);

impl Progress {
    pub fn new(total: u64) -> Progress {
        Progress(std::io::stderr().is_terminal().then(|| {
            let bar = indicatif::ProgressBar::new(total);
            bar.set_style(
                indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} kernels {elapsed}")
                    .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
            );
            bar
        }))
    }
    pub fn tick(&self) {
        if let Some(b) = &self.0 {
            b.inc(1);
        }
    }
    pub fn finish(&self) {
        if let Some(b) = &self.0 {
            b.finish_and_clear();
        }
    }
}

/// Writes the table (unless `--quiet`), `--json` and `--html`.
pub fn write_all(report: &Report, opts: &Options) -> Result<(), String> {
    if !opts.quiet {
        print!("{}", table(report));
    }
    if let Some(path) = &opts.json {
        let text = serde_json::to_string_pretty(report).map_err(|e| e.to_string())? + "\n";
        if path == "-" {
            print!("{text}");
        } else {
            io::write_output_atomically(path, text.as_bytes())?;
        }
    }
    if let Some(path) = &opts.html {
        io::write_output_atomically(path, html(report).as_bytes())?;
    }
    Ok(())
}

fn verdict_text(v: &Verdict) -> String {
    match v {
        Verdict::Equivalent => "equivalent".into(),
        Verdict::Within(w) => format!("within tolerance ({w})"),
        Verdict::Differs(d) => format!("DIFFERS ({d})"),
        Verdict::NoLaunch => "no launch".into(),
        Verdict::Error(e) => format!("ERROR ({e})"),
    }
}

fn sim_field(s: &Option<SimStats>, f: impl Fn(&SimStats) -> String) -> String {
    s.as_ref().map_or_else(|| "-".into(), f)
}

/// `a → b` with the relative change when both are numbers.
fn delta(a: f64, b: f64) -> String {
    if a == b {
        return format!("{a}");
    }
    if a == 0.0 {
        return format!("{a} -> {b}");
    }
    format!("{a} -> {b} ({:+.1}%)", (b - a) / a * 100.0)
}

/// Whether a kernel leads the terminal report: its verdict is a failure, or A and B differ in
/// a static or simulated measure, in IGC's ISA (`--compiler`), in their agreement with spv-sim
/// on the device, or in device time beyond the noise.
pub fn changed(k: &KernelReport) -> bool {
    let failed = matches!(k.verdict, Verdict::Differs(_) | Verdict::Error(_));
    let device = match (&k.a.device, &k.b.device) {
        (Some(a), Some(b)) => {
            a.agrees != b.agrees
                || matches!(
                    (&a.time, &b.time),
                    (Some(ta), Some(tb)) if matches!(ta.compare(tb), Speed::Faster | Speed::Slower)
                )
        }
        _ => false,
    };
    let isa = super::igc_view::differs(k.a.isa.as_ref(), k.b.isa.as_ref());
    failed || k.a.static_stats != k.b.static_stats || k.a.sim != k.b.sim || device || isa
}

/// The MMA shapes of A and B in words with their counts (`m8n16k16 bf16: 32 -> 16`), or `-`.
fn mma_shapes(k: &KernelReport) -> String {
    let (a, b) = (&k.a.static_stats, &k.b.static_stats);
    let mut keys: Vec<&String> = a.mma.keys().chain(b.mma.keys()).collect();
    keys.sort();
    keys.dedup();
    let shapes: Vec<String> = keys
        .into_iter()
        .map(|key| {
            let words = mma_in_words(key, a.subgroup_size.or(b.subgroup_size));
            let (x, y) = (
                a.mma.get(key).copied().unwrap_or(0),
                b.mma.get(key).copied().unwrap_or(0),
            );
            if x == y {
                format!("{words}: {x}")
            } else {
                format!("{words}: {x} -> {y}")
            }
        })
        .collect();
    if shapes.is_empty() {
        "-".into()
    } else {
        shapes.join(", ")
    }
}

/// The device-time line of a kernel: medians and whether they differ beyond the noise.
fn device_time_text(k: &KernelReport) -> String {
    match (device_time(&k.a), device_time(&k.b)) {
        (Some(a), Some(b)) => a.compare_text(b),
        _ => "-".into(),
    }
}

/// One kernel's block of the terminal table: every measure A -> B, the device runs, bisection.
fn kernel_block(s: &mut String, k: &KernelReport) {
    let _ = writeln!(s, "{}  [{}]", k.kernel, verdict_text(&k.verdict));
    let mut rows: Vec<(&str, String)> = vec![
        (
            "instructions (static)",
            delta(
                k.a.static_stats.instructions as f64,
                k.b.static_stats.instructions as f64,
            ),
        ),
        (
            "prefetch ops (static)",
            delta(
                k.a.static_stats.prefetches as f64,
                k.b.static_stats.prefetches as f64,
            ),
        ),
        ("MMA shapes (static)", mma_shapes(k)),
        ("instructions executed", pair(k, |s| s.instructions as f64)),
        ("2D block messages", pair(k, |s| s.block2d_messages as f64)),
        ("2D block bytes", pair(k, |s| s.block2d_bytes as f64)),
    ];
    rows.extend(MEMORY_MEASURES.map(|(name, f)| (name, pair(k, f))));
    rows.push(("other memory messages", pair(k, other_messages)));
    rows.push((
        "prefetch coverage",
        pair(k, |s| (s.prefetch_coverage * 1000.0).round() / 1000.0),
    ));
    for (name, value) in rows {
        let _ = writeln!(s, "    {name:<24} {value}");
    }
    for (name, value) in super::igc_view::terminal_rows(k.a.isa.as_ref(), k.b.isa.as_ref()) {
        let _ = writeln!(s, "    {name:<24} {value}");
    }
    if k.a.device.is_some() {
        let _ = writeln!(
            s,
            "    {:<24} {}",
            "device time (median us)",
            device_time_text(k)
        );
        for (name, v) in [("original", &k.original), ("A", &k.a), ("B", &k.b)] {
            let _ = writeln!(s, "    {:<24} {}", format!("device {name}"), device_text(v));
        }
    }
    if let Some(b) = &k.bisect {
        let text = match &b.finding {
            Ok(t) => t.clone(),
            Err(e) => format!("bisection failed: {e}\n"),
        };
        let _ = writeln!(s, "    bisect {}:", b.pipeline);
        for line in text.lines() {
            let _ = writeln!(s, "      {line}");
        }
    }
}

/// The terminal table. It leads with the kernels that changed ([`changed`]: failures, and
/// A/B differences in any measure or beyond the noise in device time), each with every
/// measure A -> B; then the kernels that are the same in A and B, one line each.
pub fn table(report: &Report) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "A: {}\nB: {}\ntarget: {}",
        report.a, report.b, report.target
    );
    if let Some(d) = &report.device {
        let _ = writeln!(s, "device: {d}");
    }
    let (changed_kernels, same): (Vec<&KernelReport>, Vec<&KernelReport>) =
        report.kernels.iter().partition(|k| changed(k));
    let _ = writeln!(
        s,
        "\nchanged between A and B, or failed: {} of {} kernels",
        changed_kernels.len(),
        report.kernels.len()
    );
    for k in &changed_kernels {
        s.push('\n');
        kernel_block(&mut s, k);
    }
    if !same.is_empty() {
        let _ = writeln!(
            s,
            "\nthe same in A and B (static and simulated measures equal{}): {} kernels",
            if report.device.is_some() {
                ", device times within noise"
            } else {
                ""
            },
            same.len()
        );
        for k in &same {
            let mut line = format!("  {}  [{}]", k.kernel, verdict_text(&k.verdict));
            if k.a.device.is_some() {
                let _ = write!(line, "  device time (median us) {}", device_time_text(k));
            }
            let _ = writeln!(s, "{line}");
        }
    }
    let count = |f: fn(&Verdict) -> bool| report.kernels.iter().filter(|k| f(&k.verdict)).count();
    let equivalent = count(|v| *v == Verdict::Equivalent);
    let within = count(|v| matches!(v, Verdict::Within(_)));
    let no_launch = count(|v| *v == Verdict::NoLaunch);
    let _ = writeln!(
        s,
        "\n{} kernels: {equivalent} equivalent, {within} within tolerance, {no_launch} without launch, {} differ or failed",
        report.kernels.len(),
        report.kernels.len() - equivalent - within - no_launch
    );
    if report.device.is_some() {
        let runs: Vec<&DeviceRun> = report
            .kernels
            .iter()
            .flat_map(|k| [&k.original, &k.a, &k.b])
            .filter_map(|v| v.device.as_ref())
            .collect();
        let status = |st: &str| runs.iter().filter(|d| d.status == st).count();
        let agree = runs.iter().filter(|d| d.agrees == Some(true)).count();
        let _ = writeln!(
            s,
            "device: {} runs agree with spv-sim, {} differ, {} not run (features the device lacks), {} errors",
            agree,
            status("ran") - agree,
            status("not_run"),
            status("error")
        );
    }
    s
}

fn device_time(v: &Variant) -> Option<&super::device::Timing> {
    v.device.as_ref().and_then(|d| d.time.as_ref())
}

/// One variant's device run in a line: the check and the timing, or why it did not run.
fn device_text(v: &Variant) -> String {
    match &v.device {
        None => "-".into(),
        Some(d) => match (&d.check, &d.time) {
            (Some(c), Some(t)) => format!(
                "{c}; median {} us (min {}, max {}, IQR {}, n={})",
                t.median_us, t.min_us, t.max_us, t.iqr_us, t.reps
            ),
            _ => format!(
                "{}: {}",
                d.status.replace('_', " "),
                d.note.as_deref().unwrap_or("")
            ),
        },
    }
}

/// A simulator measure of one run.
type Measure = fn(&SimStats) -> f64;

/// The ordinary memory traffic measures of the table and the charts (beside the 2D block ones).
const MEMORY_MEASURES: [(&str, Measure); 4] = [
    ("global memory messages", |s| {
        s.memory.global.all().messages as f64
    }),
    ("global memory lines", |s| {
        s.memory.global.all().lines as f64
    }),
    ("local memory messages", |s| {
        s.memory.local.all().messages as f64
    }),
    ("local memory lines", |s| s.memory.local.all().lines as f64),
];

/// Memory messages to private, constant and generic memory.
fn other_messages(s: &SimStats) -> f64 {
    let m = &s.memory;
    [&m.private, &m.constant, &m.generic]
        .iter()
        .map(|c| c.all().messages)
        .sum::<u64>() as f64
}

fn pair(k: &KernelReport, f: impl Fn(&SimStats) -> f64) -> String {
    match (&k.a.sim, &k.b.sim) {
        (Some(a), Some(b)) => delta(f(a), f(b)),
        _ => sim_field(&None, |_| String::new()),
    }
}

/// Reads one ISA measure from a kernel's summary.
type IsaMeasure = fn(&crate::igc::IsaSummary) -> usize;

/// The ISA measures of the HTML summary (with `--compiler`): what decides a GEMM's speed.
const ISA_MEASURES: [(&str, IsaMeasure); 5] = [
    ("instructions", |i| i.instructions),
    ("sends", |i| i.sends),
    ("spill messages", |i| i.spill_msgs),
    ("K-loop instructions", |i| i.kloop_instructions),
    ("K-loop sends", |i| i.kloop_sends),
];

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// One horizontal bar chart (original, A, B) as inline SVG.
fn bar_chart(title: &str, values: [Option<f64>; 3]) -> String {
    let max = values.iter().flatten().cloned().fold(0.0f64, f64::max);
    let mut s = format!(
        "<figure class=\"chart\" data-measure=\"{}\"><figcaption>{}</figcaption>\
         <svg xmlns=\"http://www.w3.org/2000/svg\" width=\"420\" height=\"78\" role=\"img\">",
        escape(title),
        escape(title)
    );
    for (i, (label, v)) in ["original", "A", "B"].iter().zip(values).enumerate() {
        let y = 4 + i * 24;
        let w = match v {
            Some(v) if max > 0.0 => (v / max * 250.0).round(),
            _ => 0.0,
        };
        let text = v.map_or_else(|| "-".to_string(), |v| format!("{v}"));
        let _ = write!(
            s,
            "<text x=\"0\" y=\"{}\" font-size=\"12\">{label}</text>\
             <rect class=\"bar bar-{label}\" x=\"70\" y=\"{y}\" width=\"{w}\" height=\"18\" \
             data-value=\"{text}\"/><text x=\"{}\" y=\"{}\" font-size=\"12\">{text}</text>",
            y + 14,
            75.0 + w,
            y + 14
        );
    }
    s.push_str("</svg></figure>");
    s
}

/// The self-contained HTML report: a summary table and, per kernel, bar charts of the
/// static and simulator measures of the original, A and B.
pub fn html(report: &Report) -> String {
    let mut s = String::from(
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>spv-ab report</title>\
         <style>body{font-family:sans-serif;margin:1.5em}table{border-collapse:collapse}\
         td,th{border:1px solid #ccc;padding:2px 8px;text-align:left}\
         .bar-original{fill:#999}.bar-A{fill:#3a7bd5}.bar-B{fill:#e8833a}\
         .chart{display:inline-block;margin:4px 12px}.differs,.error{color:#b00}\
         .equivalent{color:#070}section{border-top:1px solid #ddd;margin-top:1em}</style>\
         </head><body><h1>spv-ab report</h1>",
    );
    let _ = write!(
        s,
        "<p>A: <code id=\"pipeline-a\">{}</code><br>B: <code id=\"pipeline-b\">{}</code><br>target: {}</p>",
        escape(&report.a),
        escape(&report.b),
        escape(&report.target)
    );
    if let Some(d) = &report.device {
        let _ = write!(s, "<p>device: <span id=\"device\">{}</span></p>", escape(d));
    }
    // The summary: changed kernels first (as in the terminal table), A -> B with the change
    // per measure, and a totals row over the kernels both variants were simulated on.
    let measures: [(&str, Measure); 3] = [
        ("2D block messages", |s| s.block2d_messages as f64),
        ("instructions executed", |s| s.instructions as f64),
        ("global memory messages", |s| {
            s.memory.global.all().messages as f64
        }),
    ];
    s.push_str("<table id=\"summary\"><tr><th>kernel</th><th>verdict</th><th>A vs B</th>");
    for (name, _) in measures {
        let _ = write!(s, "<th>{} A &rarr; B</th>", escape(name));
    }
    if report.device.is_some() {
        s.push_str("<th>device time (median us) A &rarr; B</th>");
    }
    let with_isa = report.kernels.iter().any(|k| k.a.isa.is_some());
    if with_isa {
        for (name, _) in ISA_MEASURES {
            let _ = write!(s, "<th>IGC {} A &rarr; B</th>", escape(name));
        }
    }
    s.push_str("</tr>");
    let mut order: Vec<&KernelReport> = report.kernels.iter().collect();
    order.sort_by_key(|k| !changed(k));
    let mut totals = [(0.0f64, 0.0f64); 3];
    let mut simulated = 0;
    for k in order {
        let class = match k.verdict {
            Verdict::Equivalent => "equivalent",
            Verdict::Within(_) => "within",
            Verdict::Differs(_) => "differs",
            Verdict::NoLaunch => "nolaunch",
            Verdict::Error(_) => "error",
        };
        let _ = write!(
            s,
            "<tr class=\"kernel-row\"><td>{}</td><td class=\"verdict {class}\">{}</td><td>{}</td>",
            escape(&k.kernel),
            escape(&verdict_text(&k.verdict)),
            if changed(k) { "changed" } else { "same" }
        );
        if let (Some(a), Some(b)) = (&k.a.sim, &k.b.sim) {
            simulated += 1;
            for (t, (_, f)) in totals.iter_mut().zip(measures) {
                t.0 += f(a);
                t.1 += f(b);
            }
        }
        for (_, f) in measures {
            let _ = write!(s, "<td>{}</td>", escape(&pair(k, f)));
        }
        if report.device.is_some() {
            let _ = write!(s, "<td>{}</td>", escape(&device_time_text(k)));
        }
        if with_isa {
            let a = super::igc_view::kernel_summary(k.a.isa.as_ref(), &k.kernel);
            let b = super::igc_view::kernel_summary(k.b.isa.as_ref(), &k.kernel);
            for (_, f) in ISA_MEASURES {
                let text = match (a, b) {
                    (Some(a), Some(b)) => delta(f(&a) as f64, f(&b) as f64),
                    _ => "-".into(),
                };
                let _ = write!(s, "<td class=\"isa\">{}</td>", escape(&text));
            }
        }
        s.push_str("</tr>");
    }
    let _ = write!(
        s,
        "<tr class=\"totals-row\"><th>total ({simulated} kernels simulated)</th><th></th><th></th>"
    );
    for (a, b) in totals {
        let _ = write!(s, "<th>{}</th>", escape(&delta(a, b)));
    }
    if report.device.is_some() {
        s.push_str("<th></th>");
    }
    if with_isa {
        for _ in ISA_MEASURES {
            s.push_str("<th></th>");
        }
    }
    s.push_str("</tr></table>");
    for k in &report.kernels {
        let _ = write!(
            s,
            "<section class=\"kernel\"><h2>{}</h2>",
            escape(&k.kernel)
        );
        s.push_str(&super::igc_view::html_table(
            k.a.isa.as_ref(),
            k.b.isa.as_ref(),
        ));
        if !k.a.static_stats.mma.is_empty() || !k.b.static_stats.mma.is_empty() {
            let _ = write!(
                s,
                "<p class=\"mma\">MMA shapes (static, A &rarr; B): {}</p>",
                escape(&mma_shapes(k))
            );
        }
        if k.a.device.is_some() {
            let _ = write!(
                s,
                "<p class=\"device-time\">device time (median us): {}</p>",
                escape(&device_time_text(k))
            );
        }
        let vs = [&k.original, &k.a, &k.b];
        let stat = |f: fn(&super::StaticStats) -> f64| vs.map(|v| Some(f(&v.static_stats)));
        let sim = |f: fn(&SimStats) -> f64| vs.map(|v| v.sim.as_ref().map(f));
        s.push_str(&bar_chart(
            "instructions (static)",
            stat(|s| s.instructions as f64),
        ));
        s.push_str(&bar_chart(
            "prefetch ops (static)",
            stat(|s| s.prefetches as f64),
        ));
        s.push_str(&bar_chart(
            "instructions executed",
            sim(|s| s.instructions as f64),
        ));
        s.push_str(&bar_chart(
            "2D block messages",
            sim(|s| s.block2d_messages as f64),
        ));
        s.push_str(&bar_chart(
            "2D block bytes",
            sim(|s| s.block2d_bytes as f64),
        ));
        for (name, f) in MEMORY_MEASURES {
            s.push_str(&bar_chart(name, sim(f)));
        }
        s.push_str(&bar_chart(
            "prefetch coverage",
            sim(|s| s.prefetch_coverage),
        ));
        s.push_str(&bar_chart("MMA ops", sim(|s| s.mma_ops as f64)));
        if k.a.device.is_some() {
            let time = vs.map(|v| {
                v.device
                    .as_ref()
                    .and_then(|d| d.time.as_ref())
                    .map(|t| t.median_us)
            });
            s.push_str(&bar_chart("device time (median us)", time));
            s.push_str("<ul class=\"device\">");
            for (name, v) in [("original", &k.original), ("A", &k.a), ("B", &k.b)] {
                let _ = write!(s, "<li>device {name}: {}</li>", escape(&device_text(v)));
            }
            s.push_str("</ul>");
        }
        if let Some(b) = &k.bisect {
            let text = match &b.finding {
                Ok(t) => t.clone(),
                Err(e) => format!("bisection failed: {e}"),
            };
            let _ = write!(
                s,
                "<h3>bisect {}</h3><pre class=\"bisect\">{}</pre>",
                escape(&b.pipeline),
                escape(&text)
            );
        }
        s.push_str("</section>");
    }
    s.push_str("</body></html>\n");
    s
}
