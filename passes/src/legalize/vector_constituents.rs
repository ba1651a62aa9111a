//! Vectors built from vectors are rebuilt from scalars or with one shuffle.
//!
//! What: an `OpCompositeConstruct` whose result is a vector and whose constituents include a
//! vector (SPIR-V allows `v16 = CompositeConstruct v8 v8`; lower-mma and
//! convert-tensor-addressing assemble split MMA results that way) is rewritten:
//! - two vector constituents of the same length that together fill the result become one
//!   `OpVectorShuffle %a %b 0 1 … n-1`;
//! - anything else becomes one `OpCompositeExtract` per component of each vector constituent
//!   and an `OpCompositeConstruct` of scalars.
//!
//! When: on every target. Intel's SPIR-V consumers read SPIR-V through the Khronos
//! LLVM/SPIR-V translator, which turns a vector `OpCompositeConstruct` into one LLVM
//! `insertelement` per constituent, so a vector constituent becomes an `insertelement` of a
//! vector into a vector: invalid IR that is not verified there. Intel's OpenCL CPU runtime then
//! fails the build while linking ("Invalid insert element record": its bitcode reader rejects
//! the record). Found on the two tensor-hw GEMMs whose MulAdds are split into M=8 atoms.
//!
//! Why correct: the constituents of a vector `OpCompositeConstruct` are concatenated
//! component by component in order; a shuffle of `a ++ b` with the identity selector, or the
//! scalars extracted in the same order, give the same components. The result id, type and
//! position are unchanged, so every use sees the same value.
//!
//! Cost: one walk over the function bodies; the rewrite adds at most one instruction per
//! component of the result, for results of at most 1,024 components whose constituents add
//! up to them (others are left, counted `vector_constituents_left_too_wide`).
//! One rewrite ([`Changes`]): one construct rebuilt.

use spirv::Op;
use spvopt_ir::{Id, Inst, InstId, Module};

use crate::pass::{Changes, Statistics};

/// The widest vector result rebuilt from scalars (Intel's widest vectors, `VectorAnyINTEL`
/// ones included, have a few dozen components).
const MAX_COMPONENTS: u32 = 1024;

/// Component type and count of a vector type id, `None` when `ty` is not a vector type.
fn vector_of(m: &Module, ty: Id) -> Option<(Id, u32)> {
    let t = m.def_inst(ty)?;
    if !t.is(Op::TypeVector) {
        return None;
    }
    Some((t.operand_id(0)?, t.operand_word(1)?))
}

/// Rewrites the constructs; counts `vector_constituents_shuffled` (one shuffle) and
/// `vector_constituents_scalarized` (extracts + construct of scalars).
/// `constructs`: the module's `OpCompositeConstruct`s in layout order.
pub fn run(m: &mut Module, constructs: &[InstId], stats: &mut Statistics, changes: &mut Changes) {
    let mut candidates: Vec<InstId> = Vec::new();
    for &i in constructs {
        let inst = m.inst(i);
        let Some(ty) = inst.result_type() else {
            continue;
        };
        if vector_of(m, ty).is_none() {
            continue;
        }
        let has_vector_constituent = inst
            .operands()
            .iter()
            .filter_map(|&w| Id::new(w))
            .any(|p| m.type_of(p).is_some_and(|t| vector_of(m, t).is_some()));
        if has_vector_constituent {
            candidates.push(i);
        }
    }
    for i in candidates {
        if !changes.allow() {
            break;
        }
        if !rewrite(m, i, stats) {
            // Left as it is: not a rewrite.
            changes.undo();
        }
    }
}

/// Rebuilds the construct at `at`; `false` when it is left as it is.
fn rewrite(m: &mut Module, at: InstId, stats: &mut Statistics) -> bool {
    let inst = m.inst(at);
    let (Some(ty), Some(result)) = (inst.result_type(), inst.result_id()) else {
        return false;
    };
    let Some((scalar, n)) = vector_of(m, ty) else {
        return false;
    };
    let parts: Vec<Id> = inst.operands().iter().filter_map(|&w| Id::new(w)).collect();
    if parts.len() != inst.operands().len() {
        return false;
    }
    let lens: Vec<Option<u32>> = parts
        .iter()
        .map(|&p| m.type_of(p).and_then(|t| vector_of(m, t)).map(|(_, k)| k))
        .collect();
    // Both rewrites cost a word or an instruction per component: only for results of at most
    // MAX_COMPONENTS whose constituents add up to them (a hostile module can declare a vector
    // of 2^30 components built from two operands).
    let total: u64 = lens.iter().map(|l| u64::from(l.unwrap_or(1))).sum();
    if n > MAX_COMPONENTS || total != u64::from(n) {
        stats.add("vector_constituents_left_too_wide", 1);
        return false;
    }
    if let ([a, b], [Some(la), Some(lb)]) = (parts.as_slice(), lens.as_slice()) {
        if la == lb && la + lb == n {
            let mut words = vec![a.word(), b.word()];
            words.extend(0..n);
            m.replace_inst(
                at,
                Inst::new(Op::VectorShuffle, Some(ty), Some(result), &words),
            );
            stats.add("vector_constituents_shuffled", 1);
            return true;
        }
    }
    let mut scalars: Vec<u32> = Vec::with_capacity(n as usize);
    for (&p, len) in parts.iter().zip(&lens) {
        match len {
            None => scalars.push(p.word()),
            Some(k) => {
                for c in 0..*k {
                    let id = m.fresh_id();
                    m.insert_before(
                        at,
                        Inst::new(Op::CompositeExtract, Some(scalar), Some(id), &[p.word(), c]),
                    );
                    scalars.push(id.word());
                }
            }
        }
    }
    m.replace_inst(
        at,
        Inst::new(Op::CompositeConstruct, Some(ty), Some(result), &scalars),
    );
    stats.add("vector_constituents_scalarized", 1);
    true
}
