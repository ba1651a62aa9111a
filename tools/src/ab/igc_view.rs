//! `spv-ab --compiler ocloc`: IGC's view beside spv-sim's. The original, A and B are each
//! compiled by Intel's compiler for the device of `--target` (`igc::device_for_target`) with
//! the kernel's build flags: `--build-options` when given, else Triton's 256 GRF
//! (`-cl-intel-256-GRF-per-thread`) for a kernel with MMAs on a device that has that mode, and
//! nothing otherwise. Each kernel of the module gets its [`IsaSummary`] (instructions, sends by
//! kind, dpas, spills, K-loop instructions and sends); the reports show A → B per kernel.
//! Why a separate view: spv-sim counts executed SPIR-V instructions, IGC's ISA is what runs
//! (docs/isa-parity.md: the two disagree by 2-4× on the staged GEMMs).

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::Serialize;
use spvopt_analysis::Target;
use spvopt_ir::Module;

use crate::igc::{device_for_target, IsaSummary, Ocloc, LARGE_GRF};

/// One variant as IGC compiled it.
#[derive(Clone, Debug, Default, Serialize)]
pub struct IgcView {
    pub device: String,
    pub options: String,
    pub ocloc_version: String,
    /// Per compiled kernel (IGC's names).
    pub kernels: BTreeMap<String, IsaSummary>,
    /// Why there is no ISA (compile error, unresolved symbol, no ocloc).
    pub error: Option<String>,
}

/// Which compiler `--compiler` names (only `ocloc`).
pub fn parse_compiler(v: &str) -> Result<String, String> {
    match v {
        "ocloc" | "igc" => Ok("ocloc".into()),
        other => Err(format!("--compiler: expected ocloc, got \"{other}\"")),
    }
}

/// Compiles `m` for `target`'s device (`has_mma`: the kernel multiplies matrices).
pub fn compile(m: &Module, target: &Target, has_mma: bool, build_options: Option<&str>) -> IgcView {
    let mut view = IgcView::default();
    let Some(device) = device_for_target(&target.name) else {
        view.error = Some(format!("target {} has no IGC device", target.name));
        return view;
    };
    view.device = device.to_string();
    view.options = match build_options {
        Some(o) => o.to_string(),
        None if has_mma && target.max_grf_per_thread() >= 256 => LARGE_GRF.to_string(),
        None => String::new(),
    };
    let Some(ocloc) = Ocloc::from_env() else {
        view.error = Some("no ocloc ($SPVOPT_OCLOC unset, none on PATH)".into());
        return view;
    };
    let bytes: Vec<u8> = m.to_words().iter().flat_map(|w| w.to_le_bytes()).collect();
    match ocloc.compile(&bytes, device, &view.options) {
        Ok(isa) => {
            view.ocloc_version = isa.ocloc_version.clone();
            view.kernels = isa
                .kernels
                .iter()
                .map(|(k, f)| (k.clone(), IsaSummary::of(f)))
                .collect();
        }
        Err(e) => view.error = Some(e.to_string()),
    }
    view
}

/// The IGC rows of one kernel's terminal block: per compiled kernel, every field A → B.
pub fn terminal_rows(a: Option<&IgcView>, b: Option<&IgcView>) -> Vec<(String, String)> {
    let (Some(a), Some(b)) = (a, b) else {
        return Vec::new();
    };
    let mut rows = Vec::new();
    if let Some(e) = a.error.as_ref().or(b.error.as_ref()) {
        rows.push(("IGC".to_string(), format!("error: {e}")));
        return rows;
    }
    rows.push((
        "IGC".to_string(),
        format!("{} {} (ocloc {})", a.device, a.options, a.ocloc_version),
    ));
    for (name, ka) in &a.kernels {
        let Some(kb) = b.kernels.get(name) else {
            continue;
        };
        for (field, (va, vb)) in crate::igc::summary::FIELDS
            .iter()
            .zip(ka.values().into_iter().zip(kb.values()))
        {
            rows.push((format!("ISA {name} {field}"), change(va, vb)));
        }
    }
    rows
}

/// Whether IGC sees A and B differently: one compiled and the other did not, or some kernel's
/// ISA numbers differ (the ocloc version and options are the same for both by construction).
pub fn differs(a: Option<&IgcView>, b: Option<&IgcView>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => a.error.is_some() != b.error.is_some() || a.kernels != b.kernels,
        _ => false,
    }
}

/// The ISA numbers of the report's kernel `name` in `view`: that compiled kernel, or, when IGC
/// named none so, the sum over every kernel of the module (`None` without a view or on an error).
pub fn kernel_summary(view: Option<&IgcView>, name: &str) -> Option<IsaSummary> {
    let view = view?;
    if view.error.is_some() || view.kernels.is_empty() {
        return None;
    }
    if let Some(k) = view.kernels.get(name) {
        return Some(*k);
    }
    Some(
        view.kernels
            .values()
            .fold(IsaSummary::default(), |acc, k| acc.plus(k)),
    )
}

fn change(a: u64, b: u64) -> String {
    if a == b {
        return format!("{a} -> {b}");
    }
    let pct = if a == 0 {
        String::new()
    } else {
        format!(" ({:+.1}%)", (b as f64 - a as f64) * 100.0 / a as f64)
    };
    format!("{a} -> {b}{pct}")
}

/// The HTML table of IGC's view of one kernel (empty without `--compiler`).
pub fn html_table(a: Option<&IgcView>, b: Option<&IgcView>) -> String {
    let rows = terminal_rows(a, b);
    if rows.is_empty() {
        return String::new();
    }
    let esc = |t: &str| {
        t.replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;")
    };
    let mut s = String::from("<table class=\"igc\"><tr><th>IGC (ISA)</th><th>A &rarr; B</th></tr>");
    for (k, v) in rows {
        let _ = write!(s, "<tr><td>{}</td><td>{}</td></tr>", esc(&k), esc(&v));
    }
    s.push_str("</table>");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view(kloop_sends: usize) -> IgcView {
        let isa = IsaSummary {
            instructions: 100,
            sends: 10,
            kloop_sends,
            ..IsaSummary::default()
        };
        IgcView {
            device: "pvc".into(),
            kernels: [("k".to_string(), isa)].into_iter().collect(),
            ..IgcView::default()
        }
    }

    #[test]
    fn a_kernel_whose_isa_alone_changed_is_changed() {
        let (a, b) = (view(8), view(4));
        assert!(differs(Some(&a), Some(&b)));
        assert!(!differs(Some(&a), Some(&a.clone())));
        assert!(!differs(None, Some(&b)));
        let failed = IgcView {
            error: Some("ocloc: build failed".into()),
            ..IgcView::default()
        };
        assert!(differs(Some(&a), Some(&failed)));
    }

    #[test]
    fn the_summary_of_an_unnamed_kernel_sums_the_module() {
        let mut v = view(8);
        v.kernels.insert("other".into(), v.kernels["k"]);
        assert_eq!(kernel_summary(Some(&v), "k").unwrap().kloop_sends, 8);
        let sum = kernel_summary(Some(&v), "absent").unwrap();
        assert_eq!((sum.kloop_sends, sum.instructions), (16, 200));
        v.error = Some("x".into());
        assert!(kernel_summary(Some(&v), "k").is_none());
    }
}
