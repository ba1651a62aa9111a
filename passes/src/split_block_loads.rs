//! `split-block-loads`: each 2D block load with Block Count N > 1 becomes N loads of one block.
//!
//! What: `OpSubgroup2DBlockLoadINTEL` / `…LoadTransformINTEL` with constant Block Count N > 1
//! become N instructions with Block Count 1; block b reads at column `x + b·Block Width` and
//! writes its per-invocation data at byte offset `b · bytes-per-block` of the original
//! destination. The inverse of `fuse-block-loads`, for A/B testing and as a test tool.
//! When: the shape operands are constants, every kernel reaching the load's function declares
//! the same subgroup size ([`KernelFacts`]; needed to know the per-invocation size of a block),
//! and the destination points to
//! a scalar, vector or array whose component size divides the per-block offset.
//! One rewrite (`--max-changes`): splitting one load, in module order.
//! Why correct: the spec defines a multi-block load as the blocks loaded in row-major order,
//! "the next block beginning immediately after the previous block", with block b's
//! per-invocation data following block b-1's; so block b is exactly the single-block load at
//! column `x + b·W`, and its data lands at `b · bytes-per-block`. Out-of-bounds behaviour is
//! per element and unchanged. All operands are reused, so uniformity is unchanged.

use spirv::{Op, StorageClass};
use spvopt_analysis::{Analyses, AnalysisSet, Fact, KernelFacts, Target};
use spvopt_ir::{Inst, InstId, Interner, Module};

use crate::pass::{Changes, Pass, PassError, PassResult, Statistics};

/// The largest Block Count split (counted `skipped_bad_shape` above it): 4 times any Intel
/// device's limit, so every real load qualifies while the output stays proportional to the
/// input.
const MAX_BLOCK_COUNT: u32 = 16;
use spvopt_analysis::block_io::{block_instructions, BlockKind, BlockOperands};

pub struct SplitBlockLoads;

impl Pass for SplitBlockLoads {
    fn name(&self) -> &'static str {
        "split-block-loads"
    }

    fn run(
        &mut self,
        m: &mut Module,
        analyses: &mut Analyses,
        _: &Target,
        changes: &mut Changes,
    ) -> Result<PassResult, PassError> {
        let mut stats = Statistics::default();
        let candidates: Vec<(InstId, BlockOperands)> = block_instructions(m)
            .into_iter()
            .filter_map(|i| BlockOperands::read(m.inst(i)).map(|o| (i, o)))
            .filter(|(_, o)| matches!(o.kind, BlockKind::Load | BlockKind::LoadTransform))
            .collect();
        let facts = analyses.get::<KernelFacts>(m);
        let mut types = Interner::default();
        for (at, ops) in candidates {
            let Some(shape) = ops.shape(m) else {
                stats.add("skipped_non_constant_shape", 1);
                continue;
            };
            if shape.count <= 1 {
                continue;
            }
            // The subgroup size of the kernels reaching the load's function.
            let sg = match facts.subgroup_size_at(m, at) {
                Fact::Known(sg) => sg,
                Fact::Conflicting => {
                    stats.add("skipped_conflicting_subgroup_size", 1);
                    continue;
                }
                Fact::Unknown => {
                    stats.add("skipped_unknown_subgroup_size", 1);
                    continue;
                }
            };
            let Some(per_block) = shape.bytes_per_invocation_per_block(ops.kind, sg) else {
                stats.add("skipped_bad_shape", 1);
                continue;
            };
            let dst = ops.private.expect("loads have a destination");
            let Some((scalar, scalar_bytes)) = spvopt_analysis::block_io::private_scalar(m, dst)
            else {
                stats.add("skipped_destination_type", 1);
                continue;
            };
            if per_block % scalar_bytes != 0 {
                stats.add("skipped_destination_type", 1);
                continue;
            }
            // Block offsets are `b * per_block` for b < count: a hostile shape could overflow;
            // and each block costs a few new instructions, so a count beyond any device's
            // (Intel's 2D block loads have at most 4) would make the output as large as the
            // count instead of the input.
            if shape.count > MAX_BLOCK_COUNT || shape.count.checked_mul(per_block).is_none() {
                stats.add("skipped_bad_shape", 1);
                continue;
            }
            let Some(coord_ty) = m.type_of(ops.coordinate) else {
                stats.add("skipped_coordinate_type", 1);
                continue;
            };
            let Some(coord_elem) = m
                .def_inst(coord_ty)
                .filter(|t| t.is(Op::TypeVector))
                .and_then(|t| t.operand_id(0))
            else {
                stats.add("skipped_coordinate_type", 1);
                continue;
            };
            if !changes.allow() {
                break;
            }
            let dst_ty = m.type_of(dst).expect("checked by private_scalar");
            let scalar_ptr = types.pointer(m, StorageClass::Function, scalar);
            let one = types.int_const(m, m.type_of(ops.count).unwrap_or(coord_elem), 1);
            let base_ptr = if dst_ty == scalar_ptr {
                dst
            } else {
                let id = m.fresh_id();
                m.insert_before(
                    at,
                    Inst::new(Op::Bitcast, Some(scalar_ptr), Some(id), &[dst.word()]),
                );
                id
            };
            let x = m.fresh_id();
            m.insert_before(
                at,
                Inst::new(
                    Op::CompositeExtract,
                    Some(coord_elem),
                    Some(x),
                    &[ops.coordinate.word(), 0],
                ),
            );
            for b in 0..shape.count {
                let (coordinate, private) = if b == 0 {
                    (ops.coordinate, dst)
                } else {
                    let delta = types.int_const(m, coord_elem, u64::from(b * shape.width));
                    let xb = m.fresh_id();
                    m.insert_before(
                        at,
                        Inst::new(
                            Op::IAdd,
                            Some(coord_elem),
                            Some(xb),
                            &[x.word(), delta.word()],
                        ),
                    );
                    let cb = m.fresh_id();
                    m.insert_before(
                        at,
                        Inst::new(
                            Op::CompositeInsert,
                            Some(coord_ty),
                            Some(cb),
                            &[xb.word(), ops.coordinate.word(), 0],
                        ),
                    );
                    let offset = types.u32_const(m, b * per_block / scalar_bytes);
                    let p = m.fresh_id();
                    m.insert_before(
                        at,
                        Inst::new(
                            Op::InBoundsPtrAccessChain,
                            Some(scalar_ptr),
                            Some(p),
                            &[base_ptr.word(), offset.word()],
                        ),
                    );
                    let typed = if dst_ty == scalar_ptr {
                        p
                    } else {
                        let id = m.fresh_id();
                        m.insert_before(
                            at,
                            Inst::new(Op::Bitcast, Some(dst_ty), Some(id), &[p.word()]),
                        );
                        id
                    };
                    (cb, typed)
                };
                let single = BlockOperands {
                    count: one,
                    coordinate,
                    private: Some(private),
                    ..ops
                };
                m.insert_before(at, single.to_inst());
            }
            m.erase(at);
            stats.add("loads_split", 1);
            stats.add("blocks", u64::from(shape.count));
        }
        let changed = stats.get("loads_split") > 0;
        Ok(PassResult {
            changed,
            preserved: AnalysisSet::CFG | AnalysisSet::DOMINATORS | AnalysisSet::LOOPS,
            stats,
        })
    }
}
