//! MMA shapes and types the target lacks: counted, and reported only when no pass can fix them.
//!
//! What: every `OpSubgroupMatrixMultiplyAccumulateINTEL` the target does not run natively is
//! classified with lower-mma's planner (`spvopt_analysis::block_io::mma::classify`): those
//! lower-mma splits or emulates are counted as `mma_for_lower_mma` (no warning: `-O` runs
//! lower-mma before legalize); those it cannot lower (f64 elements, non-constant K, no single
//! subgroup size, malformed operands) get a warning with their location, counted as
//! `mma_unsupported`.
//! Why correct: nothing changes.

use spvopt_analysis::{KernelFacts, Target};
use spvopt_ir::Module;

use crate::pass::Statistics;
use spvopt_analysis::block_io::mma::{classify, mma_instructions, Action};

use crate::edit::location;

/// Counts the MMAs lower-mma must lower and warns about those it cannot.
pub fn report(m: &Module, target: &Target, facts: &KernelFacts, stats: &mut Statistics) {
    for i in mma_instructions(m) {
        match classify(m, facts, i, target) {
            Ok(Action::Native) => {}
            Ok(_) => stats.add("mma_for_lower_mma", 1),
            Err(why) => {
                stats.add("mma_unsupported", 1);
                stats.warn(format!(
                    "{}: MMA cannot be made legal for target {} (not by lower-mma either): {why}",
                    location(m, i),
                    target.name
                ));
            }
        }
    }
}
