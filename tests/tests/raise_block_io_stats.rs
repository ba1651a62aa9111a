//! Every statistic `raise-block-io` can report is asserted somewhere: by a fixture's
//! `; STATS: raise-block-io KEY` line (which the fixture runner checks) or by name in an
//! integration test. The keys are read from the pass's sources (string literals of statistics
//! keys); the ones no fixture or test asserts yet are listed in [`NOT_YET_ASSERTED`], which must
//! be exactly the keys left: a new key without a test fails, and so does a key that gained a
//! test but stayed on the list.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// String literals of the pass's sources that are not statistics keys (names, `expect` texts).
const NOT_KEYS: &[&str] = &[
    "width",
    "pitch",
    "height",
    "load",
    "load_transform",
    "load_transpose",
    "checked",
];

/// Keys no fixture or test asserts yet (issue 40, "tests say why": each needs a fixture that
/// reaches it).
const NOT_YET_ASSERTED: &[&str] = &[
    // A raised kernel with every obligation proven (no fallback body): no fixture's kernel has
    // one yet (work-group ids in the origins always leave a range check); the mechanism is
    // tested in `raise_block_io/emit.rs`.
    "kernels_raised_unversioned",
    "rejected_mixed_masks",
    "rejected_origin_out_of_range",
    "rejected_over_budget",
    "rejected_surface_not_invariant",
    "rejected_unprovable_assumption",
    "rejected_narrow_mask",
    "rejected_unroll_over_budget",
    "remainders_unchecked_above",
    "store_rejected_element_size",
    "store_rejected_narrow_widening",
    "store_rejected_no_tiles",
    "store_rejected_not_available",
    "store_rejected_not_forwarded",
    "store_rejected_not_stored",
    "store_rejected_not_tail",
    "store_rejected_other",
    "store_rejected_surface_not_invariant",
];

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The string literals of `text` made of lower-case letters, digits and `_`.
fn identifier_literals(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in text.lines() {
        let line = line.split("//").next().unwrap_or("");
        let parts: Vec<&str> = line.split('"').collect();
        // Odd-indexed parts are inside quotes.
        for lit in parts.iter().skip(1).step_by(2) {
            if !lit.is_empty()
                && lit.starts_with(|c: char| c.is_ascii_lowercase())
                && lit
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
            {
                out.push(lit.to_string());
            }
        }
    }
    out
}

/// The statistics keys of the pass (see the module documentation).
fn pass_keys() -> BTreeSet<String> {
    let src = workspace().join("passes/src");
    let mut files = vec![src.join("raise_block_io.rs")];
    rust_files(&src.join("raise_block_io"), &mut files);
    let mut keys = BTreeSet::new();
    for f in files {
        keys.extend(identifier_literals(&std::fs::read_to_string(f).unwrap()));
    }
    for k in NOT_KEYS {
        assert!(
            keys.remove(*k),
            "`{k}` is listed as a literal of the pass that is not a key, but the pass has no such literal"
        );
    }
    keys
}

/// Keys asserted by fixtures' `; STATS: raise-block-io KEY[=N]` lines and named as literals
/// by integration tests (other than this file).
fn asserted_keys() -> BTreeSet<String> {
    let mut keys = BTreeSet::new();
    let fixtures = workspace().join("tests/fixtures/passes");
    for e in std::fs::read_dir(&fixtures).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_none_or(|x| x != "spvasm") {
            continue;
        }
        for line in std::fs::read_to_string(&p).unwrap().lines() {
            let Some(rest) = line.strip_prefix("; STATS:") else {
                continue;
            };
            let mut w = rest.split_whitespace();
            if w.next() == Some("raise-block-io") {
                if let Some(stat) = w.next() {
                    keys.insert(stat.split('=').next().unwrap().to_string());
                }
            }
        }
    }
    let mut tests = Vec::new();
    rust_files(&workspace().join("tests/tests"), &mut tests);
    for f in tests {
        if f.file_name()
            .is_some_and(|n| n == "raise_block_io_stats.rs")
        {
            continue;
        }
        keys.extend(identifier_literals(&std::fs::read_to_string(f).unwrap()));
    }
    keys
}

#[test]
fn every_statistic_is_asserted_or_listed() {
    let keys = pass_keys();
    assert!(
        keys.contains("candidates") && keys.contains("raised_load_transform"),
        "the key scan found {keys:?}"
    );
    let asserted = asserted_keys();
    let left: BTreeSet<String> = keys.difference(&asserted).cloned().collect();
    let listed: BTreeSet<String> = NOT_YET_ASSERTED.iter().map(|s| s.to_string()).collect();
    let new: Vec<&String> = left.difference(&listed).collect();
    let done: Vec<&String> = listed.difference(&left).collect();
    assert!(
        new.is_empty() && done.is_empty(),
        "statistics of raise-block-io no fixture or test asserts: {new:?} (add a fixture with \
         `; STATS: raise-block-io KEY`); listed as not asserted but now asserted or gone: \
         {done:?} (remove them from NOT_YET_ASSERTED)"
    );
}
