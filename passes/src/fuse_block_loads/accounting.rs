//! Every load `fuse-block-loads` considers ends with one outcome in the statistics.

use spvopt_analysis::fxhash::{FxHashMap as HashMap, FxHashSet as HashSet};

use spvopt_analysis::block_io::BlockKind;
use spvopt_ir::{InstId, Module};

use crate::pass::Statistics;

/// One outcome per considered load (`load_outcome_*`; they sum to `loads_before`): `fused`,
/// `reused`, or `kept_<why>` with the last rejection recorded for it (`kept_no_partner` when no
/// other load had its shape, base and surface in its block, `kept_data_reused` when repeats of
/// it read its data instead).
pub(super) fn account_for_loads(
    loads: &[InstId],
    merged: &HashSet<InstId>,
    reasons: &HashMap<InstId, &'static str>,
    stats: &mut Statistics,
) {
    for i in loads {
        let why = reasons.get(i).copied().unwrap_or("no_partner");
        let key = match why {
            "fused" if merged.contains(i) => "load_outcome_fused",
            "reused" if merged.contains(i) => "load_outcome_reused",
            "kept_data_reused" => "load_outcome_kept_data_reused",
            "rejected_non_constant_shape" => "load_outcome_kept_non_constant_shape",
            "rejected_non_affine_coordinate" => "load_outcome_kept_non_affine_coordinate",
            "rejected_not_adjacent" => "load_outcome_kept_not_adjacent",
            "rejected_register_rule" => "load_outcome_kept_register_rule",
            "rejected_over_target_limit" => "load_outcome_kept_over_target_limit",
            "rejected_aliasing_write_between" => "load_outcome_kept_aliasing_write_between",
            "rejected_destination_used_between" => "load_outcome_kept_destination_used_between",
            "rejected_cross_block_exit" => "load_outcome_kept_cross_block_exit",
            "rejected_cross_block_loop" => "load_outcome_kept_cross_block_loop",
            "rejected_region_too_large" => "load_outcome_kept_region_too_large",
            "rejected_divergent_control" => "load_outcome_kept_divergent_control",
            "rejected_destination_type" => "load_outcome_kept_destination_type",
            "rejected_conflicting_subgroup_size" => "load_outcome_kept_conflicting_subgroup_size",
            "rejected_no_kernel_reaches_function" => "load_outcome_kept_no_kernel_reaches_function",
            "rejected_unknown_subgroup_size" => "load_outcome_kept_unknown_subgroup_size",
            "rejected_change_limit" => "load_outcome_kept_change_limit",
            "rejected_scan_budget" => "load_outcome_kept_scan_budget",
            _ => "load_outcome_kept_no_partner",
        };
        stats.add(key, 1);
    }
}

/// 2D block loads and prefetches in the module.
pub(super) fn count_block_loads(m: &Module) -> (u64, u64) {
    let (mut loads, mut prefetches) = (0u64, 0u64);
    for f in m.function_ids() {
        for &bb in &m.function(f).blocks {
            for i in m.block_insts(bb) {
                match BlockKind::of(m.inst(i)) {
                    Some(BlockKind::Prefetch) => prefetches += 1,
                    Some(k) if k.is_load() => loads += 1,
                    _ => {}
                }
            }
        }
    }
    (loads, prefetches)
}
