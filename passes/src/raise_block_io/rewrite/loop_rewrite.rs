//! The rewrite of one loop in the kernel function's copy: each raised operand is loaded with
//! its 2D block load at the point where the staged data became visible, the MMAs read the
//! loaded values, and the loop's staging (Workgroup stores and barriers) goes when no
//! Workgroup load reads it any more.

use std::collections::HashMap;

use spirv::{Op, StorageClass};
use spvopt_analysis::block_io::BlockKind;
use spvopt_analysis::Dominators;
use spvopt_ir::{Id, InstId, Interner, Module};

use super::super::emit::{
    function_variable, load_opcode, recompute_in_clone, remove_dead, subgroup_bits, Builder,
};
use super::super::plan::OperandPlan;
use super::super::Slot;
use super::{FastCopy, LoopPlan};
use crate::edit::location;
use crate::pass::Statistics;

fn kind_key(kind: BlockKind) -> &'static str {
    match kind {
        BlockKind::LoadTransform => "raised_load_transform",
        BlockKind::LoadTranspose => "raised_load_transpose",
        _ => "raised_load",
    }
}

/// A raised operand whose block load is issued: the Function variable it loads into, the
/// operand's type, its plan and the MMA operand slots it feeds.
struct IssuedLoad<'a> {
    var: Id,
    ty: Id,
    plan: &'a OperandPlan,
    uses: &'a [Slot],
}

/// What every loop's rewrite reads: the original's dominators, its copy and the number of
/// subgroups of a work-group.
pub(super) struct LoopRewriter<'a> {
    pub(super) dom: &'a Dominators,
    pub(super) copy: &'a FastCopy,
    pub(super) n_sub: usize,
}

impl LoopRewriter<'_> {
    /// Rewrites one loop in the copy: its raised operands are loaded with block loads at the
    /// loop's insertion point, and the staging goes when nothing reads it any more.
    pub(super) fn rewrite(
        &self,
        m: &mut Module,
        types: &mut Interner,
        lp: &LoopPlan,
        outside_ok: bool,
        stats: &mut Statistics,
    ) -> Result<(), String> {
        let copy = self.copy;
        let mut b = Builder {
            m: &mut *m,
            types: &mut *types,
            at: copy.corr[&lp.barrier],
            atom_map: copy.map.clone(),
            count: 0,
            memo: None,
        };
        let u32t = b.int(32);
        let bits = subgroup_bits(&mut b, copy.sg_var, self.n_sub)?;
        recompute_loop_atoms(&mut b, self.dom, lp, &copy.corr);
        let v2 = b.types.vector(b.m, u32t, 2);
        let mut reads = Vec::new();
        for (x, plan, uses) in &lp.plans {
            let (var, ty) = issue_block_load(&mut b, copy, &bits, (u32t, v2), *x, plan)?;
            reads.push(IssuedLoad {
                var,
                ty,
                plan,
                uses,
            });
            note_raised(b.m, stats, *x, plan, uses);
        }
        let replaced = read_loaded_values(&mut b, reads, &copy.corr);
        for (mma, index, val) in replaced {
            m.inst_mut(mma).operands_mut()[index] = val.word();
        }
        remove_staging(m, copy, lp, outside_ok, stats);
        Ok(())
    }
}

/// Makes the atoms of `lp`'s plans (and their uniform mask conditions) available at the
/// builder's insertion point, recomputing there those defined where it does not see them.
fn recompute_loop_atoms(
    b: &mut Builder,
    dom: &Dominators,
    lp: &LoopPlan,
    corr: &HashMap<InstId, InstId>,
) {
    // Atoms defined where the insertion point does not see them: recomputed here.
    for (_, plan, _) in &lp.plans {
        for poly in plan
            .x
            .iter()
            .chain(&plan.y)
            .chain([&plan.pitch, &plan.width, &plan.height])
        {
            for (mono, _) in poly.terms() {
                for &a in mono {
                    recompute_in_clone(b, dom, lp.barrier, a, corr);
                }
            }
        }
        // So are uniform mask conditions computed under a branch (a gather's).
        for &(c, _) in &plan.uniform_conds {
            recompute_in_clone(b, dom, lp.barrier, c, corr);
        }
    }
}

/// Emits operand `x`'s 2D block load (into a new Function variable) at the builder's
/// insertion point (`u32t`, `v2`: the 32-bit integer and its 2-vector); returns the variable
/// and the operand's type.
fn issue_block_load(
    b: &mut Builder,
    copy: &FastCopy,
    bits: &[Id],
    (u32t, v2): (Id, Id),
    x: Id,
    plan: &OperandPlan,
) -> Result<(Id, Id), String> {
    let mut xv = b
        .origin(&plan.x, bits, plan.saturate[1])
        .ok_or("column origin does not fit the subgroups")?;
    if plan.pack > 1 {
        // The origin in the block's (packed) elements: a multiple of the pack.
        let sh = b.konst(32, i64::from(plan.pack.trailing_zeros()));
        xv = b.op(Op::ShiftRightArithmetic, u32t, &[xv.word(), sh.word()]);
    }
    let yv = b
        .origin(&plan.y, bits, plan.saturate[0])
        .ok_or("row origin does not fit the subgroups")?;
    let wv = b.poly(&plan.width, 32).ok_or("width")?;
    let hv = b.poly(&plan.height, 32).ok_or("height")?;
    let pv = b.poly(&plan.pitch, 32).ok_or("pitch")?;
    let coord = b.op(Op::CompositeConstruct, v2, &[xv.word(), yv.word()]);
    let ty = b.m.type_of(x).ok_or("operand type")?;
    let var = function_variable(b, copy.fast, ty)?;
    let (e, w, h, c) = plan.shape;
    let ek = b.konst(32, i64::from(e));
    let wk = b.konst(32, i64::from(w));
    let hk = b.konst(32, i64::from(h));
    let ck = b.konst(32, i64::from(c));
    let base = copy.mapped(plan.base);
    // The destination as a byte pointer, as Intel's translator writes it.
    let u8t = b.int(8);
    let bptr = b.types.pointer(b.m, StorageClass::Function, u8t);
    let dst = b.op(Op::Bitcast, bptr, &[var.word()]);
    b.void(
        load_opcode(plan.kind),
        &[
            ek.word(),
            wk.word(),
            hk.word(),
            ck.word(),
            base.word(),
            wv.word(),
            hv.word(),
            pv.word(),
            coord.word(),
            dst.word(),
        ],
    );
    Ok((var, ty))
}

/// Counts operand `x` as raised and notes its block load.
fn note_raised(m: &Module, stats: &mut Statistics, x: Id, plan: &OperandPlan, uses: &[Slot]) {
    let (e, w, h, c) = plan.shape;
    stats.add(kind_key(plan.kind), 1);
    if !plan.implied_conds.is_empty() {
        // Uniform mask conditions the block load implies: no select for them.
        stats.add("mask_conditions_implied", plan.implied_conds.len() as u64);
    }
    stats.note(format!(
        "{}: operand %{} raised: {} {}b {}r{}x{}c",
        location(m, uses[0].mma),
        x.word(),
        match plan.kind {
            BlockKind::LoadTransform => "load_transform",
            BlockKind::LoadTranspose => "load_transpose",
            _ => "load",
        },
        e * 8,
        h,
        w,
        c
    ));
}

/// Reads the loaded values (selected with 0 under their uniform conditions) after all loads
/// are issued; returns the copy's MMA operands to replace: (MMA, operand index, value).
fn read_loaded_values(
    b: &mut Builder,
    reads: Vec<IssuedLoad>,
    corr: &HashMap<InstId, InstId>,
) -> Vec<(InstId, usize, Id)> {
    let mut replaced: Vec<(InstId, usize, Id)> = Vec::new();
    // The loaded values are read after all loads are issued: adjacent loads stay
    // adjacent, so fuse-block-loads can merge them.
    for IssuedLoad {
        var,
        ty,
        plan,
        uses,
    } in reads
    {
        let mut val = b.op(Op::Load, ty, &[var.word()]);
        if !plan.uniform_conds.is_empty() {
            let bt = b.types.bool(b.m);
            let mut c: Option<Id> = None;
            for &(cid, _) in &plan.uniform_conds {
                let cid = b.atom_map.get(&cid).copied().unwrap_or(cid);
                c = Some(match c {
                    None => cid,
                    Some(a) => b.op(Op::LogicalAnd, bt, &[a.word(), cid.word()]),
                });
            }
            let zero = b.types.null_const(b.m, ty);
            val = b.op(
                Op::Select,
                ty,
                &[c.expect("a condition").word(), val.word(), zero.word()],
            );
        }
        for s in uses {
            replaced.push((corr[&s.mma], s.index, val));
        }
    }
    replaced
}

/// Removes loop `lp`'s staging (stores and barriers) from the copy when no Workgroup load
/// reads it any more; notes why it stays otherwise.
fn remove_staging(
    m: &mut Module,
    copy: &FastCopy,
    lp: &LoopPlan,
    outside_ok: bool,
    stats: &mut Statistics,
) {
    let (fast, corr) = (copy.fast, &copy.corr);
    // The staging goes when nothing reads it any more.
    remove_dead(m, fast);
    let staged_loads_left = lp
        .staging_loads
        .iter()
        .any(|l| m.inst_block(corr[l]).is_some());
    if !staged_loads_left && outside_ok {
        for s in &lp.staging_stores {
            m.erase(corr[s]);
        }
        for bar in &lp.barriers {
            m.erase(corr[bar]);
        }
        if !lp.staging_stores.is_empty() {
            stats.add("staging_stores_removed", lp.staging_stores.len() as u64);
            stats.add("barriers_removed", lp.barriers.len() as u64);
        }
        remove_dead(m, fast);
    } else {
        stats.note(format!(
            "{}: the staging stays: {}",
            location(m, lp.barrier),
            if staged_loads_left {
                "some Workgroup loads of the loop are still used"
            } else {
                "Workgroup loads after the loop may read what the loop stored"
            }
        ));
    }
}
