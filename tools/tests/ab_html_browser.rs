//! The `spv-ab` HTML report opened in a real browser (headless Chromium): the page parses, has a
//! section and bar charts per kernel, and the summary table lists every kernel with its verdict.
//! Without a Chromium on PATH the test is reported as *ignored* in the test summary (custom
//! harness), not silently passed; `.ci/run` installs Debian's chromium.

use std::path::Path;
use std::process::Command;

use libtest_mimic::{Arguments, Failed, Trial};

fn browser() -> Option<&'static str> {
    ["chromium", "chromium-browser", "google-chrome"]
        .into_iter()
        .find(|b| {
            Command::new(b)
                .arg("--version")
                .output()
                .is_ok_and(|o| o.status.success())
        })
}

fn html_report_renders_in_chromium(browser: &str) -> Result<(), Failed> {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/corpus");
    let tmp = tempfile::Builder::new()
        .prefix("spvopt-ab-html-")
        .tempdir()?;
    let dir = tmp.path();
    let html = dir.join("report.html");
    let o = Command::new(env!("CARGO_BIN_EXE_spv-ab"))
        .args([
            "--a",
            "-O",
            "--b",
            "strip-debug",
            "--target",
            "pvc",
            "--quiet",
        ])
        .arg("--launches")
        .arg(corpus.join("triton/launches"))
        .arg(corpus.join("triton/nodbg"))
        .arg("--html")
        .arg(&html)
        .output()?;
    if !o.status.success() {
        return Err(format!("spv-ab failed: {}", String::from_utf8_lossy(&o.stderr)).into());
    }
    let profile = dir.join("profile");
    let o = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg("--dump-dom")
        .arg(format!("file://{}", html.display()))
        .output()?;
    let dom = String::from_utf8_lossy(&o.stdout);
    // The serialized DOM is the browser's parse of the page: count what it built.
    let sections = dom.matches("<section class=\"kernel\">").count();
    let rows = dom.matches("<tr class=\"kernel-row\">").count();
    let bars = dom.matches("<rect class=\"bar").count();
    let verdicts = dom.matches("class=\"verdict equivalent\"").count();
    // triton/nodbg: 7 binaries and one disassembly (.spvasm), 11 charts of 3 bars each.
    if sections != 8 || rows != 8 || verdicts != 8 || bars != 8 * 11 * 3 {
        return Err(format!(
            "DOM has {sections} sections, {rows} rows, {verdicts} equivalent verdicts, {bars} bars \
             (want 8, 8, 8, 264); stderr: {}",
            String::from_utf8_lossy(&o.stderr)
        )
        .into());
    }
    Ok(())
}

fn main() {
    let args = Arguments::from_args();
    let test = match browser() {
        Some(b) => Trial::test("html_report_renders_in_chromium", move || {
            html_report_renders_in_chromium(b)
        }),
        None => Trial::test(
            "html_report_renders_in_chromium (no chromium on PATH)",
            || Ok(()),
        )
        .with_ignored_flag(true),
    };
    libtest_mimic::run(&args, vec![test]).exit();
}
