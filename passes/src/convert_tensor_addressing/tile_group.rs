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
//! adjacent; otherwise every member takes its exact per-element loop. Without a group each
//! access keeps its own branch.
//! Why correct: under the condition `x_0 + i·C` equals member `i`'s own column and its other
//! surface operands are the first member's, so each block op reads exactly what the member's
//! own would; the per-element loops are exact in any case. Loads only (no order between them
//! matters; stores are never grouped).

use spirv::Op;
use spvopt_ir::{BlockId, Id};

use super::block_path::{Decision, Plan};
use super::builder::Builder;
use super::element_access::{emit_loop, Path, Prepared};

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
            spvopt_analysis::target::BlockOp::Load | spvopt_analysis::target::BlockOp::LoadTransform
        );
        if !load_kind
            || pl.shape != first.shape
            || pl.shape.interleaved
            || p.pointer != p0.pointer
            || p.var == p0.var && !std::ptr::eq(p, p0)
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
) -> Result<Vec<Path>, String> {
    let after_label = b.m.block_label(after);
    let plans: Vec<Plan> = decisions
        .into_iter()
        .map(|d| match d {
            Decision::Static(p) | Decision::Runtime(p, _) => Ok(p),
            Decision::Fallback(_) => Err("a member of a tile group takes no block path"),
        })
        .collect::<Result<_, _>>()?;
    let cols = u64::from(prepared[0].cols());
    let blocks = |b: &mut Builder| {
        for (i, (p, pl)) in prepared.iter().zip(&plans).enumerate() {
            let x = if i == 0 {
                plans[0].x
            } else {
                let step = b.c64(cols * i as u64);
                b.op64(Op::IAdd, plans[0].x, step)
            };
            super::block_path::emit(b, pl, p.matrix(), p.pointer, p.var, Some(x));
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
    b.cur = slow;
    for p in prepared {
        let exit = b.new_block_after(b.cur);
        crate::cfg_edit::move_block_before(b.m, exit, after);
        emit_loop(b, p, exit)?;
        b.cur = exit;
    }
    b.void(Op::Branch, &[after_label.word()]);
    Ok(prepared.iter().map(|_| Path::RuntimeChecked).collect())
}
