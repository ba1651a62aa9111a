//! Layering inside each crate (ARCHITECTURE.md): no two sibling files import each other. What
//! two files share lives in a third; a parent module and its own children may use each other.
//! In the passes crate, no pass imports another (one listed exception, with its reason).
//!
//! The check reads the sources as text: every `crate::a::b…` and `super::…` path (and the
//! names of a `use super::{a, b}` / `use crate::{a, b}` group) is resolved to the longest module
//! of the crate it names; comments are skipped.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

type ModPath = Vec<String>;

/// `src/a/b.rs` → `[a, b]`; `lib.rs`, `main.rs` and `mod.rs` name their folder.
fn module_of(src: &Path, file: &Path) -> ModPath {
    let rel = file.strip_prefix(src).unwrap().with_extension("");
    let mut parts: ModPath = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if matches!(
        parts.last().map(String::as_str),
        Some("lib" | "main" | "mod")
    ) {
        parts.pop();
    }
    if parts.first().map(String::as_str) == Some("bin") {
        parts.clear(); // binaries are crates of their own; their paths are not checked
    }
    parts
}

fn ident_at(s: &str) -> Option<&str> {
    let end = s
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(s.len());
    (end > 0).then(|| &s[..end])
}

/// The paths `rest` names below `base`: `a::b::…`, or a group `{a, b::c}` of them.
fn paths_from(base: ModPath, rest: &str, out: &mut Vec<ModPath>) {
    if let Some(group) = rest.strip_prefix('{') {
        // Up to the matching brace, split at the commas outside nested groups.
        let (mut depth, mut item_start) = (0usize, 0usize);
        for (k, c) in group.char_indices() {
            match c {
                '{' => depth += 1,
                '}' if depth == 0 => {
                    paths_from(base.clone(), group[item_start..k].trim(), out);
                    return;
                }
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    paths_from(base.clone(), group[item_start..k].trim(), out);
                    item_start = k + 1;
                }
                _ => {}
            }
        }
        return;
    }
    let mut path = base;
    let mut rest = rest;
    while let Some(name) = ident_at(rest) {
        path.push(name.to_string());
        match rest[name.len()..].strip_prefix("::") {
            Some(r) if r.starts_with('{') => return paths_from(path, r, out),
            Some(r) => rest = r,
            None => break,
        }
    }
    out.push(path);
}

/// The module paths `text` (of module `me`) names through `crate::` and `super::`.
fn referenced_paths(me: &ModPath, text: &str) -> Vec<ModPath> {
    let code: String = text
        .lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n");
    let mut out = Vec::new();
    for start in ["crate::", "super::"] {
        let mut from = 0;
        while let Some(k) = code[from..].find(start) {
            let at = from + k;
            from = at + start.len();
            if code[..at]
                .chars()
                .last()
                .is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':')
            {
                continue;
            }
            let mut base: ModPath = if start == "crate::" {
                Vec::new()
            } else {
                me[..me.len().saturating_sub(1)].to_vec()
            };
            let mut rest = &code[at + start.len()..];
            while let Some(r) = rest.strip_prefix("super::") {
                base.pop();
                rest = r;
            }
            paths_from(base, rest, &mut out);
        }
    }
    out
}

/// Pairs of sibling files of `crate_dir` that import each other.
fn sibling_cycles(crate_dir: &Path) -> Vec<(PathBuf, PathBuf)> {
    let src = crate_dir.join("src");
    let files = spvopt_tests::files_under(&src, "rs");
    let modules: BTreeMap<ModPath, PathBuf> = files
        .iter()
        .map(|f| (module_of(&src, f), f.clone()))
        .filter(|(m, _)| !m.is_empty())
        .collect();
    let mut deps: BTreeMap<ModPath, BTreeSet<ModPath>> = BTreeMap::new();
    for (me, file) in &modules {
        let text = std::fs::read_to_string(file).unwrap();
        for path in referenced_paths(me, &text) {
            let target = (1..=path.len())
                .rev()
                .map(|k| path[..k].to_vec())
                .find(|p| modules.contains_key(p));
            if let Some(t) = target.filter(|t| t != me) {
                deps.entry(me.clone()).or_default().insert(t);
            }
        }
    }
    let mut cycles = Vec::new();
    for (a, ds) in &deps {
        for b in ds {
            let nested = a.starts_with(b) || b.starts_with(a);
            if a < b && !nested && deps.get(b).is_some_and(|d| d.contains(a)) {
                cycles.push((modules[a].clone(), modules[b].clone()));
            }
        }
    }
    cycles
}

#[test]
fn no_two_sibling_files_import_each_other() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut all = Vec::new();
    for krate in ["ir", "analysis", "passes", "sim", "tools", "capi", "tests"] {
        all.extend(sibling_cycles(&root.join(krate)));
    }
    assert!(
        all.is_empty(),
        "sibling files importing each other (move what they share into a third file):\n{}",
        all.iter()
            .map(|(a, b)| format!("  {} <-> {}", a.display(), b.display()))
            .collect::<Vec<_>>()
            .join("\n")
    );
}

/// The pass modules of `passes/src` (a top-level file with an `impl Pass for`) and, for each
/// file of one, the other passes it names through `crate::…`.
fn pass_imports(passes_src: &Path) -> Vec<(PathBuf, String, String)> {
    let files = spvopt_tests::files_under(passes_src, "rs");
    let passes: BTreeSet<String> = files
        .iter()
        .filter(|f| f.parent() == Some(passes_src))
        .filter(|f| {
            std::fs::read_to_string(f)
                .unwrap()
                .contains("impl Pass for ")
        })
        .map(|f| module_of(passes_src, f)[0].clone())
        .collect();
    let mut out = Vec::new();
    for f in &files {
        let me = module_of(passes_src, f);
        let Some(owner) = me.first().filter(|m| passes.contains(*m)) else {
            continue;
        };
        let text = std::fs::read_to_string(f).unwrap();
        for path in referenced_paths(&me, &text) {
            if let Some(other) = path.first().filter(|p| passes.contains(*p) && *p != owner) {
                out.push((f.clone(), owner.clone(), other.clone()));
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

/// Pass imports that stay, each with its reason.
const ALLOWED_PASS_IMPORTS: &[(&str, &str, &str)] = &[(
    "lower_mma",
    "raise_builtins",
    "lower-mma run on its own (Pass::run, or a pipeline that spells the builtin form) raises \
     Triton's MMA builtin calls first, as the pass manager does before any native-form pass",
)];

/// No pass imports another (issue 31): what several passes share lives outside every pass
/// (`passes/src/edit/`, `spvopt_analysis::block_io`, `util.rs`, `builtin_mangling.rs`), so
/// passes can be read, changed and removed one at a time.
#[test]
fn no_pass_imports_another() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../passes/src");
    let found = pass_imports(&src);
    let bad: Vec<String> = found
        .iter()
        .filter(|(_, a, b)| {
            !ALLOWED_PASS_IMPORTS
                .iter()
                .any(|(x, y, _)| x == a && y == b)
        })
        .map(|(f, a, b)| format!("  {} (pass {a}) uses pass {b}", f.display()))
        .collect();
    assert!(
        bad.is_empty(),
        "passes importing other passes (move what they share to passes/src/edit/ or the \
         analysis crate):\n{}",
        bad.join("\n")
    );
    // The check sees real imports: lower-mma's allowed one is found.
    assert!(found
        .iter()
        .any(|(_, a, b)| a == "lower_mma" && b == "raise_builtins"));
}

#[test]
fn the_check_finds_a_cycle() {
    let tmp = tempfile::Builder::new()
        .prefix("spvopt-arch-")
        .tempdir()
        .unwrap();
    let dir = tmp.path();
    std::fs::create_dir_all(dir.join("src/m")).unwrap();
    std::fs::write(dir.join("src/lib.rs"), "mod m;\n").unwrap();
    std::fs::write(dir.join("src/m.rs"), "mod a;\nmod b;\nmod c;\n").unwrap();
    std::fs::write(dir.join("src/m/a.rs"), "use super::b::B;\npub struct A;\n").unwrap();
    std::fs::write(
        dir.join("src/m/b.rs"),
        "use crate::m::{a::{self, A}, c};\n// use super::c::C;\npub struct B;\n",
    )
    .unwrap();
    std::fs::write(dir.join("src/m/c.rs"), "pub struct C; // super::b::B\n").unwrap();
    let cycles = sibling_cycles(dir);
    assert_eq!(cycles.len(), 1, "{cycles:?}");
    assert!(cycles[0].0.ends_with("m/a.rs") && cycles[0].1.ends_with("m/b.rs"));
}

/// Every file and folder of a crate's integration tests (`tests/tests/`, `ir/tests/`, …) is a
/// module of its one test binary (`main.rs`) or a harness-less target of its own: with
/// `autotests = false` a file declared nowhere would never be compiled or run.
#[test]
fn every_test_file_is_a_module() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut missing = Vec::new();
    for (krate, tests) in [
        ("tests", "tests"),
        ("ir", "tests"),
        ("analysis", "tests"),
        ("sim", "tests"),
        ("tools", "tests"),
        ("capi", "tests"),
    ] {
        let dir = root.join(krate).join(tests);
        let main = std::fs::read_to_string(dir.join("main.rs")).unwrap();
        let declared: BTreeSet<&str> = main
            .lines()
            .filter_map(|l| l.strip_prefix("mod ")?.strip_suffix(';'))
            .collect();
        // Test targets of their own (`[[test]]` with `harness = false`).
        let manifest = std::fs::read_to_string(root.join(krate).join("Cargo.toml")).unwrap();
        for e in std::fs::read_dir(&dir).unwrap().flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            let module = match name.strip_suffix(".rs") {
                Some("main") => continue,
                Some(m) => m.to_string(),
                None if e.path().join("mod.rs").exists() => name,
                None => continue,
            };
            let own_target = manifest.contains(&format!("name = \"{module}\"\nharness = false"));
            if !declared.contains(module.as_str()) && !own_target {
                missing.push(format!("{krate}/{tests}/{module}"));
            }
        }
    }
    missing.sort();
    assert!(
        missing.is_empty(),
        "test files not declared in their crate's tests/main.rs (add `mod NAME;`): {missing:?}"
    );
}
