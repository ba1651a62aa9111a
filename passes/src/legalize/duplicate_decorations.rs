//! Exact duplicate decorations are removed.
//!
//! What: an `OpDecorate` / `OpMemberDecorate` / `OpDecorateId` / `OpDecorateString` identical
//! word for word to an earlier one (the LLVM/SPIR-V translator repeats `NoSignedWrap` on some
//! instructions; spirv-val rejects a decoration applied twice) is removed. Decorations that
//! differ in any operand are kept (and spirv-val judges them). `CacheControl*INTEL`
//! decorations are never duplicates of each other unless identical word for word, so they keep
//! their one-per-cache-level meaning.
//! Why correct: a decoration is a property of its target; stating the same property twice
//! says nothing more, so dropping the repetition changes no meaning.
//! Cost: one pass over the annotation section with a hash set.

use spirv::Op;
use spvopt_analysis::fxhash::FxHashSet as HashSet;
use spvopt_ir::{Module, Section};

use crate::pass::{Changes, Statistics};

fn is_decoration(op: Option<Op>) -> bool {
    matches!(
        op,
        Some(Op::Decorate | Op::MemberDecorate | Op::DecorateId | Op::DecorateString)
    )
}

/// Whether the module has a decoration repeated word for word (the decorations' words are
/// compared where they are, nothing copied).
pub fn has_duplicates(m: &Module) -> bool {
    let section = m.section(Section::Annotation);
    let mut seen: HashSet<&[u32]> = HashSet::default();
    seen.reserve(section.len());
    section
        .iter()
        .map(|&i| m.inst(i))
        .filter(|d| is_decoration(d.op()))
        .any(|d| !seen.insert(&d.words))
}

/// Removes the repetitions; counts `duplicate_decorations_removed`.
pub fn run(m: &mut Module, stats: &mut Statistics, changes: &mut Changes) {
    if !has_duplicates(m) {
        return;
    }
    let mut seen: HashSet<Vec<u32>> = HashSet::default();
    let mut removed = 0u64;
    m.retain_section(Section::Annotation, |m, i| {
        let d = m.inst(i);
        if !is_decoration(d.op()) || seen.insert(d.words.to_vec()) || !changes.allow() {
            true
        } else {
            removed += 1;
            false
        }
    });
    stats.add("duplicate_decorations_removed", removed);
}
