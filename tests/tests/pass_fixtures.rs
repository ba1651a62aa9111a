//! Every pass fixture under tests/fixtures/passes: CHECK lines, validation, idempotence,
//! unchanged-means-byte-identical.

#[test]
fn pass_fixtures() {
    let fixtures = spvopt_tests::fixtures_in("passes");
    assert!(
        fixtures.len() >= 10,
        "expected the pass fixtures, found {}",
        fixtures.len()
    );
    let mut failures = Vec::new();
    for f in &fixtures {
        if let Err(e) = spvopt_tests::run_fixture(f) {
            failures.push(format!("{}: {e}", f.display()));
        }
    }
    assert!(
        failures.is_empty(),
        "{} fixture(s) failed:\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}
