//! The pass fixtures as filetests: one trial per `tests/fixtures/passes/NAME.spvasm` (named
//! `NAME`), run in parallel by libtest-mimic, so one fixture runs alone with
//! `cargo test --release -p spvopt-tests --test pass_fixtures -- NAME` (a substring filter,
//! like libtest's; `--exact` for one name only).
//!
//! Each trial checks what [`spvopt_tests::run_fixture`] checks: the CHECK lines, the output
//! validates, a second run changes nothing, "unchanged" means byte-identical, `EXPECT:
//! unchanged`, and simulator equivalence when a `NAME.launch.json` sits beside the fixture.
//!
//! With `SPVOPT_BLESS=1` in the environment a fixture whose CHECK lines fail (and nothing else)
//! has them rewritten from the current output, as `filecheck::bless_checks` documents, and the
//! trial passes; review the rewrite with `git diff tests/fixtures/passes`. Fixtures that pass
//! are not touched, and any other failure still fails the trial without writing.
//!
//! The `bless::` trials check that blessing works, on temporary copies of a fixture.

use std::path::{Path, PathBuf};

use libtest_mimic::{Arguments, Failed, Trial};
use spvopt_tests::{bless_fixture, run_fixture, Blessed};

/// Whether `SPVOPT_BLESS=1` is set.
fn bless_mode() -> bool {
    std::env::var_os("SPVOPT_BLESS").is_some_and(|v| v == "1")
}

fn fixture_trial(path: PathBuf, bless: bool) -> Trial {
    let name = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    Trial::test(name, move || {
        if !bless {
            return run_fixture(&path).map_err(|e| format!("{}: {e}", path.display()).into());
        }
        match bless_fixture(&path) {
            Ok(Blessed::Passed) => Ok(()),
            Ok(Blessed::Rewritten) => {
                eprintln!("blessed {}", path.display());
                Ok(())
            }
            Err(e) => Err(format!("{}: {e}", path.display()).into()),
        }
    })
}

/// The fixture the `bless::` trials copy (CHECK, CHECK-NOT, no launch file: quick).
fn sample_fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/passes/dce_unused_arithmetic.spvasm")
}

/// A temporary folder holding `text` as `fixture.spvasm`.
fn temp_fixture(text: &str) -> Result<(tempfile::TempDir, PathBuf), Failed> {
    let dir = tempfile::Builder::new()
        .prefix("spvopt-bless-")
        .tempdir()
        .map_err(|e| e.to_string())?;
    let path = dir.path().join("fixture.spvasm");
    std::fs::write(&path, text).map_err(|e| e.to_string())?;
    Ok((dir, path))
}

fn ensure(ok: bool, what: &str) -> Result<(), Failed> {
    if ok {
        Ok(())
    } else {
        Err(what.into())
    }
}

/// A wrong CHECK (right opcode, wrong operands) and a violated CHECK-NOT: the fixture fails,
/// bless rewrites the one and deletes the other, touches no other line, and it passes.
fn bless_fixes_wrong_checks() -> Result<(), Failed> {
    let original = std::fs::read_to_string(sample_fixture()).map_err(|e| e.to_string())?;
    ensure(
        original.contains("; CHECK: OpIAdd\n"),
        "the sample fixture changed: pick another",
    )?;
    let broken = original.replacen(
        "; CHECK: OpIAdd\n",
        "; CHECK: %wrong = OpIAdd %no %such\n",
        1,
    ) + "; CHECK-NOT: OpReturn\n";
    let (_dir, path) = temp_fixture(&broken)?;
    ensure(run_fixture(&path).is_err(), "the broken copy passes")?;
    ensure(
        bless_fixture(&path)? == Blessed::Rewritten,
        "bless did not rewrite the broken copy",
    )?;
    run_fixture(&path).map_err(|e| format!("the blessed copy fails: {e}"))?;
    let blessed = std::fs::read_to_string(&path).map_err(|e| e.to_string())?;
    ensure(
        !blessed.contains("%wrong"),
        "the wrong CHECK is still there",
    )?;
    ensure(
        !blessed.contains("CHECK-NOT: OpReturn"),
        "the violated CHECK-NOT is still there",
    )?;
    let changed: Vec<(&str, &str)> = original
        .lines()
        .zip(blessed.lines())
        .filter(|(a, b)| a != b)
        .collect();
    ensure(
        blessed.lines().count() == original.lines().count() && changed.len() == 1,
        &format!("bless changed other lines: {changed:?}"),
    )?;
    let (_, new) = changed[0];
    ensure(
        new.starts_with("; CHECK: ") && new.contains(" = OpIAdd "),
        &format!("the rewritten CHECK is not the OpIAdd line: {new}"),
    )?;
    // Blessing again changes nothing.
    ensure(
        bless_fixture(&path)? == Blessed::Passed,
        "a blessed fixture was blessed again",
    )?;
    ensure(
        std::fs::read_to_string(&path).map_err(|e| e.to_string())? == blessed,
        "blessing a passing fixture changed it",
    )
}

/// A passing fixture is not written; one that fails for another reason than its CHECK lines
/// is not written either, and its failure is reported.
fn bless_leaves_other_fixtures_alone() -> Result<(), Failed> {
    let original = std::fs::read_to_string(sample_fixture()).map_err(|e| e.to_string())?;
    let (_dir, path) = temp_fixture(&original)?;
    ensure(
        bless_fixture(&path)? == Blessed::Passed,
        "a passing fixture was rewritten",
    )?;
    let after = std::fs::read_to_string(&path).map_err(|e| e.to_string())?;
    ensure(after == original, "a passing fixture's file changed")?;
    let bad_pipeline =
        original.replacen("; RUN: dce\n", "; RUN: no-such-pass\n", 1) + "; CHECK: OpNothing\n";
    let (_dir2, path2) = temp_fixture(&bad_pipeline)?;
    ensure(
        bless_fixture(&path2).is_err(),
        "bless accepted a fixture whose pipeline fails",
    )?;
    let after = std::fs::read_to_string(&path2).map_err(|e| e.to_string())?;
    ensure(
        after == bad_pipeline,
        "bless wrote a fixture whose pipeline fails",
    )
}

fn main() {
    let args = Arguments::from_args();
    let bless = bless_mode();
    let fixtures = spvopt_tests::fixtures_in("passes");
    assert!(
        fixtures.len() >= 10,
        "expected the pass fixtures, found {}",
        fixtures.len()
    );
    let mut trials: Vec<Trial> = fixtures
        .into_iter()
        .map(|p| fixture_trial(p, bless))
        .collect();
    trials.push(Trial::test(
        "bless::fixes_wrong_checks",
        bless_fixes_wrong_checks,
    ));
    trials.push(Trial::test(
        "bless::leaves_other_fixtures_alone",
        bless_leaves_other_fixtures_alone,
    ));
    libtest_mimic::run(&args, trials).exit();
}
