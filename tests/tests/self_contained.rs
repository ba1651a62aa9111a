//! The repository is self-contained: no source, script, manifest or README reads from the
//! project's shared folder beside the checkout (a user's clone has nothing beside it).

use std::path::Path;

fn walk(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        let name = e.file_name().to_string_lossy().into_owned();
        if p.is_dir() {
            // Build output, git metadata and copied third-party material are not our sources.
            if !matches!(name.as_str(), "target" | ".git" | "corpus" | "docs" | "fuzz-corpus") {
                walk(&p, out);
            }
        } else if [".rs", ".py", ".sh", ".toml", ".md", ".json", "run"]
            .iter()
            .any(|x| name.ends_with(x))
        {
            out.push(p);
        }
    }
}

#[test]
fn no_source_reads_outside_the_repository() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = Vec::new();
    walk(&root, &mut files);
    assert!(files.len() > 50, "walked too few files: {}", files.len());
    let needle = concat!("..", "/shared");
    let offenders: Vec<String> = files
        .iter()
        .filter(|p| {
            std::fs::read_to_string(p).is_ok_and(|s| s.contains(needle) || s.contains("/work/shared"))
        })
        .map(|p| p.display().to_string())
        .collect();
    assert!(offenders.is_empty(), "files that refer outside the repository: {offenders:?}");
    assert!(
        root.join("tests/corpus/triton/native").is_dir(),
        "the in-repository corpus is missing"
    );
}
