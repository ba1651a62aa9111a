//! The loader checks the structural invariants while it places instructions (one walk); the
//! reference is [`spvopt_ir::verify()`] over the loaded module. Both must accept and reject
//! exactly the same modules with exactly the same error, and the verifier's id finder must
//! name exactly the ids the grammar walk names. Checked on every corpus kernel and on
//! thousands of corrupted variants of them.

use std::path::{Path, PathBuf};

use spvopt_ir::grammar::{self, SlotKind};
use spvopt_ir::loader::{load_words, load_words_verify_after};

fn corpus() -> Vec<(PathBuf, Vec<u32>)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/corpus");
    let mut stack = vec![root];
    let mut out = Vec::new();
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).expect("corpus directory").flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "spv") {
                let bytes = std::fs::read(&p).expect("corpus kernel");
                let words = bytes
                    .chunks_exact(4)
                    .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                    .collect();
                out.push((p, words));
            }
        }
    }
    out.sort();
    assert!(out.len() >= 20, "corpus kernels found: {}", out.len());
    out
}

/// xorshift64*: deterministic mutations without a dependency.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

fn same_outcome(words: &[u32]) -> Result<bool, String> {
    let fused = load_words(words);
    let reference = load_words_verify_after(words);
    // The waiting instructions as bit sets (a large module's form) give the same outcome.
    let bits = spvopt_ir::loader::load_words_waiting_as_bits(words);
    if bits.as_ref().map(|_| ()).map_err(|e| e.to_string())
        != fused.as_ref().map(|_| ()).map_err(|e| e.to_string())
    {
        return Err(format!(
            "loader: {:?}\nloader with bit sets: {:?}",
            fused.as_ref().map(|_| "ok").map_err(|e| e.to_string()),
            bits.as_ref().map(|_| "ok").map_err(|e| e.to_string())
        ));
    }
    match (&fused, &reference) {
        (Ok(_), Ok(_)) => Ok(true),
        (Err(a), Err(b)) if a == b => Ok(false),
        _ => Err(format!(
            "loader: {:?}\nverify after loading: {:?}",
            fused.as_ref().map(|_| "ok").map_err(|e| e.to_string()),
            reference.as_ref().map(|_| "ok").map_err(|e| e.to_string())
        )),
    }
}

#[test]
fn loader_check_equals_verify_on_corpus_and_corruptions() {
    let mut rng = Rng(0x5eed_1234_abcd_0001);
    let (mut accepted, mut rejected) = (0, 0);
    for (path, words) in corpus() {
        let loads = same_outcome(&words).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert!(loads, "{} must load", path.display());
        for _ in 0..150 {
            let mut w = words.clone();
            for _ in 0..1 + rng.below(3) {
                let at = 5 + rng.below(w.len() - 5);
                // Mostly id-sized values, so that uses and definitions move around rather
                // than the binary's structure breaking.
                w[at] = match rng.below(4) {
                    0 => w[5 + rng.below(w.len() - 5)],
                    1 => rng.below(64) as u32,
                    2 => w[at].wrapping_add(1),
                    _ => rng.below(w[3].max(1) as usize) as u32,
                };
            }
            match same_outcome(&w) {
                Ok(true) => accepted += 1,
                Ok(false) => rejected += 1,
                Err(e) => panic!("{}: a corrupted variant differs:\n{e}", path.display()),
            }
        }
    }
    eprintln!("{accepted} variants accepted, {rejected} rejected by both");
    assert!(rejected > 1000, "the mutations must reach the checks");
    assert!(accepted > 100, "and leave some modules valid");
}

#[test]
fn known_shape_ids_equal_grammar_walk() {
    let mut checked = 0usize;
    for (path, words) in corpus() {
        let m = load_words(&words).expect("corpus kernel loads");
        for i in m.all_insts() {
            let inst = m.inst(i);
            let mut walked = Vec::new();
            m.walk(inst, |s| {
                if matches!(s.kind, SlotKind::Id | SlotKind::ResultType) {
                    walked.push(s.index);
                }
            })
            .expect("a loaded instruction walks");
            let mut known = Vec::new();
            if grammar::for_each_use_known(inst.opcode(), &inst.words, |k| known.push(k)) {
                walked.sort_unstable();
                known.sort_unstable();
                assert_eq!(known, walked, "{}: {}", path.display(), inst.name());
                checked += 1;
            }
        }
    }
    assert!(checked > 10_000, "instructions compared: {checked}");
}

#[test]
fn verify_equals_reference_on_edited_modules() {
    // What a buggy pass could leave behind: operand words of loaded modules changed in place
    // (the module's def table stays as it was), then both checks over the result.
    let mut rng = Rng(0x0dd5_eed5_0000_0017);
    let (mut accepted, mut rejected) = (0, 0);
    for (path, words) in corpus() {
        let base = load_words(&words).expect("corpus kernel loads");
        let insts: Vec<_> = base.all_insts().collect();
        let bound = base.id_capacity();
        for _ in 0..100 {
            let mut m = base.clone();
            for _ in 0..1 + rng.below(2) {
                let i = insts[rng.below(insts.len())];
                let inst = m.inst_mut(i);
                // Mostly operands; one edit in four may hit the result type or result id
                // (a duplicate definition, an id above the table).
                let start = if rng.below(4) == 0 {
                    0
                } else {
                    inst.operand_start()
                };
                if inst.words.len() <= start {
                    continue;
                }
                let k = start + rng.below(inst.words.len() - start);
                inst.words[k] = rng.below(bound + 2) as u32;
            }
            let fast = spvopt_ir::verify(&m);
            let reference = spvopt_ir::verify::verify_reference(&m);
            assert_eq!(
                fast.as_ref().map_err(|e| e.to_string()),
                reference.as_ref().map_err(|e| e.to_string()),
                "{}",
                path.display()
            );
            if fast.is_ok() {
                accepted += 1;
            } else {
                rejected += 1;
            }
        }
    }
    eprintln!("edited modules: {accepted} accepted, {rejected} rejected by both");
    assert!(rejected > 500 && accepted > 100);
}
