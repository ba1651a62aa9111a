//! `legalize`: makes a module legal for one target device.
//!
//! What, in order (one file per concern under `legalize/`):
//! 0. [`block_order`]: blocks laid out before their dominators (LLVM/SPIR-V translator output)
//!    are reordered into reverse post-order; [`duplicate_decorations`]: decorations repeated
//!    word for word (the same translator) are removed; [`interface_variables`]: global
//!    variables a kernel uses but its `OpEntryPoint` does not list (1.4+) are listed;
//!    [`kernel_attributes`]: `MaxWorkgroupSizeINTEL`-style hints are dropped for targets that
//!    reject them (`cpu`).
//! 1. [`function_variables`]: Function-storage `OpVariable`s outside a function's first block
//!    (Triton output) move into it; an initializer becomes an `OpStore` at the old place.
//! 2. [`level_zero_env`]: the Level Zero environment's validation rules. Integer types with
//!    Signedness 1 are rewritten to Signedness 0 and merged with their unsigned twin (types and
//!    constants that become identical are deduplicated); every other violation (execution
//!    model, addressing/memory model, images, atomics, scopes, recursion) is an error with its
//!    location. `spv-opt --check-env` reports all of them without changing anything.
//!    [`predicated_io`]: on targets without `SPV_INTEL_predicated_io` (`cpu`), predicated loads
//!    and stores become a branch on the predicate around a plain `OpLoad` / `OpStore` (a phi
//!    gives the default value). [`long_vectors`]: on targets without `LongVectorEXT` (`cpu`),
//!    `OpTypeVectorIdEXT` becomes `OpTypeVector` and the capability goes (`VectorAnyINTEL`
//!    then covers the counts). [`subgroup_size`]: a kernel whose `SubgroupSize` the target
//!    lacks (SG8 on pvc) is re-declared with a size the target has when it is proven
//!    size-agnostic (the rule is in that file), else it is an error located at the mode.
//! 3. [`split_shapes`]: 2D block loads/stores/prefetches whose shape the target lacks are split
//!    along Block Count or Block Height into supported pieces whose per-invocation data is the
//!    exact concatenation of the original's; shapes that cannot be split that way are errors
//!    (prefetches are dropped instead). On targets without 2D block IO, prefetches are dropped
//!    and loads/stores are lowered to ordinary memory accesses ([`lower_block_io`]).
//!    `OpSubgroupBlockPrefetchINTEL` with a byte count the target ignores is split into
//!    honoured sizes or dropped.
//! 4. [`mma`]: MMAs the target lacks are counted (`mma_for_lower_mma`); only those lower-mma
//!    cannot lower either are reported as warnings. [`vector_constituents`]: vectors built
//!    from vector constituents (which Intel's SPIR-V reader mistranslates) are rebuilt with one
//!    shuffle or from scalars.
//!
//! Steps 2 to 4 read the body instructions they look at from one [`body_scan`] (taken again
//! after a counted rewrite), not from a walk each.
//! Steps 3 and 4 take the subgroup size per function from [`KernelFacts`] (the `SubgroupSize`
//! every kernel reaching the function declares), so a module whose kernels differ is handled
//! per kernel.
//! 5. [`capabilities`]: exactly the capabilities and extensions the module uses are declared
//!    (from the grammar's requirements of every instruction and enum operand, plus type-based
//!    ones); the SPIR-V version is raised to what the features need (above 1.4: an error), or
//!    lowered to 1.4 from 1.5/1.6 when nothing needs more. [`igc_extensions`]: a declared
//!    extension the target's IGC rejects (measured per device) is re-spelled as an accepted
//!    alias (`SPV_EXT_split_barrier` → `SPV_INTEL_split_barrier`), else it is an error.
//!
//! When: always; each step only touches what is illegal for the target, so a legal module is
//! left byte-identical.
//! One rewrite (`--max-changes`), step by step: reordering one function's blocks, removing one
//! repeated decoration, completing one entry point's interface, dropping one kernel attribute,
//! moving one Function variable, the whole signedness rewrite, dropping / lowering / splitting
//! one 2D block op or buffer prefetch, lowering one predicated access, re-declaring one kernel's
//! subgroup size. Declaring the capabilities the result uses belongs to
//! those rewrites; on its own (nothing else to do) it is one rewrite.
//! Why correct: each step's file says why it preserves the kernel's results.
//! Cost: linear in module size (splits and lowerings add a bounded amount of code per op).

pub mod block_order;
pub mod body_scan;
pub mod duplicate_decorations;
pub mod function_variables;
pub mod igc_extensions;
pub mod interface_variables;
pub mod kernel_attributes;
pub mod level_zero_env;
pub mod long_vectors;
pub mod lower_block_io;
pub mod mma;
pub mod predicated_io;
pub mod split_shapes;
pub mod subgroup_size;
pub mod vector_constituents;

use spvopt_analysis::{Analyses, AnalysisSet, KernelFacts, Target};
use spvopt_ir::Module;

use crate::diagnostic::Diagnostic;
use crate::edit::capabilities;
use crate::pass::{Changes, Pass, PassError, PassResult, Statistics};
use body_scan::BodyScan;

pub struct Legalize;

impl Pass for Legalize {
    fn name(&self) -> &'static str {
        "legalize"
    }

    fn run(
        &mut self,
        m: &mut Module,
        _: &mut Analyses,
        target: &Target,
        changes: &mut Changes,
    ) -> Result<PassResult, PassError> {
        let mut stats = Statistics::default();
        let mut errors: Vec<Diagnostic> = Vec::new();
        // In debug builds, what the steps report is checked against the words.
        #[cfg(debug_assertions)]
        let before = m.to_words();

        block_order::run(m, &mut stats, changes);
        duplicate_decorations::run(m, &mut stats, changes);
        interface_variables::run(m, &mut stats, changes);
        kernel_attributes::run(m, target, &mut stats, changes);
        let made_before_variables = changes.made();
        function_variables::run(m, &mut stats, changes);
        let made_by_variables = changes.made() - made_before_variables;
        // The body instructions the steps below look at, scanned once (again after a rewrite).
        let mut scan = BodyScan::default();
        level_zero_env::fix(m, &mut scan, &mut stats, &mut errors, changes);
        predicated_io::run(m, target, &mut stats, &mut errors, changes);
        long_vectors::run(m, target, &mut stats, &mut errors, changes);
        subgroup_size::run(m, target, &mut stats, &mut errors, changes);
        // Per-kernel facts (subgroup size of each function, from the kernels reaching it): the
        // steps above change no calls, and execution modes only as `subgroup_size` re-declares. Built here, on the module the
        // steps above edited, not taken from the cache, which holds facts of the module before.
        let facts = KernelFacts::build(m);
        split_shapes::run(
            m,
            target,
            &facts,
            &mut scan,
            &mut stats,
            &mut errors,
            changes,
        );
        let mmas = &scan.current(m, changes).mmas;
        mma::report(m, target, &facts, mmas, &mut stats);
        let constructs = scan.current(m, changes).constructs.clone();
        vector_constituents::run(m, &constructs, &mut stats, changes);
        let steps_changed = changes.made() > 0;
        let declarations_changed = if steps_changed {
            capabilities::run(m, &mut stats, &mut errors)
                | igc_extensions::run(m, target, &mut stats, &mut errors, changes)
        } else if changes.allow() {
            let changed = capabilities::run(m, &mut stats, &mut errors);
            if !changed {
                changes.undo();
            }
            changed | igc_extensions::run(m, target, &mut stats, &mut errors, changes)
        } else {
            false
        };

        if !errors.is_empty() {
            return Err(PassError::Failed {
                pass: "legalize",
                summary: Some(format!(
                    "{} problem(s) cannot be fixed for target {}",
                    errors.len(),
                    target.name
                )),
                diagnostics: errors,
            });
        }
        // Every step counts its rewrites in `changes`; the declarations report theirs. No word
        // comparison of the whole module (tests/tests/legalize_corpus.rs checks the report
        // against the words on every kernel and target).
        let changed = steps_changed || declarations_changed;
        #[cfg(debug_assertions)]
        debug_assert_eq!(changed, m.to_words() != before, "legalize's change report");
        let preserved = if !changed {
            AnalysisSet::ALL
        } else if !declarations_changed && changes.made() == made_by_variables {
            // Only Function variables moved into their function's first block (Triton output,
            // on every call): blocks, edges, loops, kernel facts and decorations are as they
            // were, so the passes after legalize need not compute them again. (An initializer
            // becoming a store adds a use: def-use and value facts are not kept.)
            AnalysisSet::CFG
                | AnalysisSet::DOMINATORS
                | AnalysisSet::LOOPS
                | AnalysisSet::KERNEL_FACTS
                | AnalysisSet::DECORATIONS
        } else {
            AnalysisSet::NONE
        };
        Ok(PassResult {
            changed,
            preserved,
            stats,
        })
    }
}
