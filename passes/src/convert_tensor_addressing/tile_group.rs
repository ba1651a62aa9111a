//! Adjacent tiles loaded together: consecutive tensor loads of one surface whose 2D block
//! paths have the same shape, issued from one block so that `fuse-block-loads` can merge them
//! into multi-block loads.
//!
//! When: two or more consecutive loads (nothing between them once their layout computations
//! are hoisted above the first), each decided for the 2D block path (statically or with a
//! run-time check), with the same matrix type, pointer and block shape, not transposed.
//! The group's condition is every member's own condition and that the members tile one
//! surface side by side: the same surface width, height, pitch and row `y`, and member `i`'s
//! column `x_i = x_0 + i·C` (C = the matrix's columns). Under it, member `i`'s block ops are
//! issued at column `x_0 + i·C`, an affine form of one value that fuse-block-loads proves
//! adjacent; otherwise every member takes its own path (its own check, block ops or exact
//! per-element loop), as without a group.
//! Why correct: under the condition `x_0 + i·C` equals member `i`'s own column and its other
//! surface operands are the first member's, so each block op reads exactly what the member's
//! own would; the per-element loops are exact in any case. Loads only (no order between them
//! matters; stores are never grouped).

use spirv::Op;
use spvopt_ir::{BlockId, Id};

use super::block_path::{Decision, Plan};
use super::builder::Builder;
use super::element_access::{emit_decided, Prepared};
use super::error::ConvertError;
use super::model::Path;

/// A group's condition (`None`: proved).
pub struct Group {
    cond: Option<Id>,
}

fn plan_of(d: &Decision) -> Option<&Plan> {
    match d {
        Decision::Static(p) | Decision::Runtime(p, _) => Some(p),
        Decision::Fallback(_) => None,
    }
}

/// Whether the accesses form a group, and its condition (emitted in the current block).
pub fn plan(b: &mut Builder, prepared: &[Prepared], decisions: &[Decision]) -> Option<Group> {
    if prepared.len() < 2 {
        return None;
    }
    let first = plan_of(&decisions[0])?;
    let p0 = &prepared[0];
    for (p, d) in prepared.iter().zip(decisions) {
        let pl = plan_of(d)?;
        let load_kind = matches!(
            pl.shape.op,
            spvopt_analysis::block_io::BlockKind::Load
                | spvopt_analysis::block_io::BlockKind::LoadTransform
        );
        if !load_kind
            || pl.shape != first.shape
            || pl.shape.interleaved
            || p.pointer != p0.pointer
            || !p.is_load()
            || p.lowered() != p0.lowered()
        {
            return None;
        }
    }
    let cols = u64::from(p0.cols());
    let mut cond: Option<Id> = None;
    let mut and = |b: &mut Builder, c: Id| {
        cond = Some(match cond {
            None => c,
            Some(prev) => b.and(prev, c),
        });
    };
    for (i, (d, _)) in decisions.iter().zip(prepared).enumerate() {
        if let Decision::Runtime(_, c) = d {
            and(b, *c);
        }
        if i == 0 {
            continue;
        }
        let pl = plan_of(d)?;
        let step = b.c64(cols * i as u64);
        let want_x = b.op64(Op::IAdd, first.x, step);
        for (x, y) in [
            (pl.x, want_x),
            (pl.y, first.y),
            (pl.width, first.width),
            (pl.height, first.height),
            (pl.pitch, first.pitch),
        ] {
            let c = b.cmp(Op::IEqual, x, y);
            and(b, c);
        }
    }
    match cond.map(|c| b.known(c)) {
        Some(Some(0)) => None,
        Some(Some(_)) | None => Some(Group { cond: None }),
        Some(None) => Some(Group { cond }),
    }
}

/// Emits the group from the current block, continuing at `after`.
pub fn emit(
    b: &mut Builder,
    prepared: &[Prepared],
    group: Group,
    decisions: Vec<Decision>,
    after: BlockId,
) -> Result<Vec<Path>, ConvertError> {
    let after_label = b.m.block_label(after);
    let plans: Vec<Plan> = decisions
        .iter()
        .cloned()
        .map(|d| match d {
            Decision::Static(p) | Decision::Runtime(p, _) => Ok(p),
            Decision::Fallback(_) => Err(ConvertError::TileMemberWithoutBlockPath),
        })
        .collect::<Result<_, _>>()?;
    let cols = prepared[0].cols();
    let blocks = |b: &mut Builder| {
        let first = &plans[0];
        for (i, (p, pl)) in prepared.iter().zip(&plans).enumerate() {
            // The first member's surface operands, its column plus i·C.
            let shared = Plan {
                shape: pl.shape,
                width: first.width,
                height: first.height,
                pitch: first.pitch,
                x: first.x,
                y: first.y,
            };
            super::block_path::emit(b, &shared, p.matrix(), p.pointer, p.var, cols * i as u32);
        }
    };
    let Some(cond) = group.cond else {
        blocks(b);
        b.void(Op::Branch, &[after_label.word()]);
        return Ok(prepared.iter().map(|_| Path::Block).collect());
    };
    let fast = b.new_block_after(b.cur);
    let slow = b.new_block_after(fast);
    let (fast_l, slow_l) = (b.m.block_label(fast), b.m.block_label(slow));
    b.void(Op::SelectionMerge, &[after_label.word(), 0]);
    b.void(
        Op::BranchConditional,
        &[cond.word(), fast_l.word(), slow_l.word()],
    );
    b.cur = fast;
    blocks(b);
    b.void(Op::Branch, &[after_label.word()]);
    // Not side by side (or a member's own check fails): each member on its own path.
    b.cur = slow;
    for (p, d) in prepared.iter().zip(decisions) {
        let next = b.new_block_after(b.cur);
        crate::edit::cfg::move_block_before(b.m, next, after);
        emit_decided(b, p, d, next)?;
        b.cur = next;
    }
    b.void(Op::Branch, &[after_label.word()]);
    Ok(prepared.iter().map(|_| Path::RuntimeChecked).collect())
}

/// Runs of tensor loads in one block that may form a group: same pointer and matrix type, no
/// view, and between them only side-effect-free instructions (layout setters, arithmetic) that
/// use none of the run's results. Those instructions are moved above the run's first load, so
/// the loads become consecutive (their operands were defined before them, and nothing they
/// move past reads what they compute or has an effect). Returns the runs of two or more.
pub fn collect_runs(
    m: &mut spvopt_ir::Module,
    f: spvopt_ir::FuncId,
) -> Vec<Vec<spvopt_ir::InstId>> {
    use spvopt_ir::InstId;
    let key = |m: &spvopt_ir::Module, i: InstId| -> Option<(Id, Id)> {
        let inst = m.inst(i);
        if !inst.is(Op::CooperativeMatrixLoadTensorNV) {
            return None;
        }
        let ops = inst.operands();
        let mo_words = super::model::memory_operands(ops.get(3..).unwrap_or(&[])).words;
        // No tensor-addressing operands (no view, no decode function).
        if ops.get(3 + mo_words).copied().unwrap_or(0) != 0 {
            return None;
        }
        Some((Id::new(ops[0])?, inst.result_type()?))
    };
    let mut runs = Vec::new();
    for b in m.function(f).blocks.clone() {
        let insts: Vec<InstId> = m.block_insts(b).collect();
        let mut run: Vec<InstId> = Vec::new();
        let mut results: Vec<Id> = Vec::new();
        let mut run_key = None;
        let mut hoist: Vec<InstId> = Vec::new();
        let mut pending: Vec<InstId> = Vec::new();
        let mut close = |m: &mut spvopt_ir::Module,
                         run: &mut Vec<InstId>,
                         hoist: &mut Vec<InstId>,
                         pending: &mut Vec<InstId>,
                         results: &mut Vec<Id>| {
            if run.len() >= 2 {
                for &x in hoist.iter() {
                    m.move_before(x, run[0]);
                }
                runs.push(std::mem::take(run));
            }
            run.clear();
            hoist.clear();
            pending.clear();
            results.clear();
        };
        for i in insts {
            let uses_run = {
                let mut u = false;
                m.for_each_used_id(i, |x| u |= results.contains(&x));
                u
            };
            match key(m, i) {
                Some(k) if !uses_run && run_key == Some(k) && !run.is_empty() => {
                    hoist.append(&mut pending);
                    run.push(i);
                    results.extend(m.inst(i).result_id());
                }
                Some(k) => {
                    close(m, &mut run, &mut hoist, &mut pending, &mut results);
                    run_key = Some(k);
                    run.push(i);
                    results.extend(m.inst(i).result_id());
                }
                None if !run.is_empty()
                    && !uses_run
                    && (crate::util::is_side_effect_free(m, m.inst(i))
                        || spvopt_analysis::tensor_layout::is_tensor_op(m.inst(i).op())) =>
                {
                    pending.push(i);
                }
                None => close(m, &mut run, &mut hoist, &mut pending, &mut results),
            }
        }
        close(m, &mut run, &mut hoist, &mut pending, &mut results);
    }
    runs
}
