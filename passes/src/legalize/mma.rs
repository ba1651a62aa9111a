//! MMA shapes and types the target lacks: counted, and reported only when no pass can fix them.
//!
//! What: every `OpSubgroupMatrixMultiplyAccumulateINTEL` the target does not run natively is
//! classified with lower-mma's planner (`spvopt_analysis::block_io::mma::classify`): those
//! lower-mma splits or emulates are counted as `mma_for_lower_mma` (no warning: `-O` runs
//! lower-mma before legalize); those it cannot lower (f64 elements, non-constant K, no single
//! subgroup size, malformed operands) get a warning with their location, counted as
//! `mma_unsupported`.
//! Why correct: nothing changes.
//! Cost: one classification per distinct (types, K, mask, subgroup size), found again by hash.

use spvopt_analysis::fxhash::FxHashMap;
use spvopt_analysis::{KernelFacts, Target};
use spvopt_ir::{Id, InstId, Module};

use crate::pass::Statistics;
use spvopt_analysis::block_io::mma::{classify, mma_subgroup_size, Action, MmaError};

use crate::diagnostic::Location;

/// What [`classify`] reads of an MMA besides its ids' presence: the result type, the K Dim id,
/// the types of Matrix A, B and C, the operand mask and the subgroup size. MMAs with the same
/// key classify alike (a GEMM repeats one MMA many times).
type Key = (Id, Id, Option<Id>, Option<Id>, Option<Id>, u32, Option<u32>);

/// The key of the MMA at `i`; `None` when an operand is missing (classified on its own).
fn key(m: &Module, facts: &KernelFacts, i: InstId) -> Option<Key> {
    let inst = m.inst(i);
    inst.result_id()?;
    let ty = |k: usize| inst.operand_id(k).map(|v| m.type_of(v));
    Some((
        inst.result_type()?,
        inst.operand_id(0)?,
        ty(1)?,
        ty(2)?,
        ty(3)?,
        inst.operand_word(4).unwrap_or(0),
        mma_subgroup_size(facts, m, i),
    ))
}

/// Counts the MMAs lower-mma must lower and warns about those it cannot (`mmas`: the
/// module's MMAs in layout order).
pub fn report(
    m: &Module,
    target: &Target,
    facts: &KernelFacts,
    mmas: &[InstId],
    stats: &mut Statistics,
) {
    let mut known: FxHashMap<Key, Result<Action, MmaError>> = FxHashMap::default();
    for &i in mmas {
        let class = match key(m, facts, i) {
            Some(k) => known
                .entry(k)
                .or_insert_with(|| classify(m, facts, i, target))
                .clone(),
            None => classify(m, facts, i, target),
        };
        match class {
            Ok(Action::Native) => {}
            Ok(_) => stats.add("mma_for_lower_mma", 1),
            Err(why) => {
                stats.add("mma_unsupported", 1);
                stats.warn_at(
                    Location::of(m, i),
                    format!(
                        "MMA cannot be made legal for target {} (not by lower-mma either): {why}",
                        target.name
                    ),
                );
            }
        }
    }
}
