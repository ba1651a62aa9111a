//! Every module under tests/corpus (and our own fixtures) loads and emits byte-identically.

use std::path::{Path, PathBuf};

fn spv_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            spv_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "spv") {
            out.push(p);
        }
    }
}

fn corpus() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/corpus");
    let mut v = Vec::new();
    spv_files(&root, &mut v);
    assert!(!v.is_empty(), "no corpus found at {}", root.display());
    v.sort();
    v
}

#[test]
fn corpus_round_trips_byte_identically() {
    for p in corpus() {
        let bytes = std::fs::read(&p).unwrap();
        let m = spvopt_ir::load_bytes(&bytes).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        assert!(m.to_bytes() == bytes, "{} does not round-trip", p.display());
    }
}

#[test]
fn big_endian_round_trips() {
    for p in corpus() {
        let bytes = std::fs::read(&p).unwrap();
        let be: Vec<u8> = bytes
            .chunks_exact(4)
            .flat_map(|c| [c[3], c[2], c[1], c[0]])
            .collect();
        let m = spvopt_ir::load_bytes(&be).unwrap();
        assert!(m.header.big_endian);
        assert!(
            m.to_bytes() == be,
            "{} (big-endian) does not round-trip",
            p.display()
        );
        let le = spvopt_ir::load_bytes(&bytes).unwrap();
        assert_eq!(m.to_words(), le.to_words());
    }
}

/// The fast id path agrees with the grammar walk on every instruction of the corpus.
#[test]
fn fast_use_path_agrees_with_grammar_walk() {
    use spvopt_ir::grammar::{self, SlotKind};
    let mut fast_hits = 0;
    for p in corpus() {
        let m = spvopt_ir::load_bytes(&std::fs::read(&p).unwrap()).unwrap();
        for i in m.all_insts() {
            let inst = m.inst(i);
            let mut fast = Vec::new();
            if grammar::for_each_use_fast(inst.opcode(), &inst.words, |k| fast.push(k)) {
                fast_hits += 1;
                let mut slow = Vec::new();
                m.walk(inst, |s| {
                    if matches!(s.kind, SlotKind::Id | SlotKind::ResultType) {
                        slow.push(s.index)
                    }
                })
                .unwrap();
                fast.sort();
                assert_eq!(fast, slow, "{}: {}", p.display(), inst.name());
            }
        }
    }
    assert!(fast_hits > 1000);
}

/// Inputs the fuzzer found problems with: each loads to an error (never a panic or a huge
/// allocation) or round-trips.
#[test]
fn fuzz_regressions() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz_regressions");
    let mut n = 0;
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let bytes = std::fs::read(e.path()).unwrap();
        if let Ok(m) = spvopt_ir::load_bytes(&bytes) {
            assert!(m.to_bytes() == bytes);
        }
        n += 1;
    }
    assert!(n >= 1);
}
