//! The rewrites `fuse-block-loads` plans: one multi-block load whose slices are copied to the
//! original destinations, one wider prefetch, a repeated load replaced by a copy.

use spirv::{Op, StorageClass};
use spvopt_analysis::Target;
use spvopt_ir::{BlockId, Id, Inst, InstId, Interner, Module, Section};

use super::Candidate;
use spvopt_analysis::block_io::{BlockKind, BlockOperands};

/// Integer type of `bits` width, if the module may use it (capability declared).
pub(super) fn scalar_type(m: &mut Module, types: &mut Interner, bits: u32) -> Option<Id> {
    let cap = match bits {
        8 => Some(spirv::Capability::Int8),
        16 => Some(spirv::Capability::Int16),
        64 => Some(spirv::Capability::Int64),
        _ => None,
    };
    if let Some(cap) = cap {
        let declared = m
            .section_insts(Section::Capability)
            .any(|(_, i)| i.operand_word(0) == Some(cap as u32));
        if !declared {
            return None;
        }
    }
    Some(types.int(m, bits))
}

/// The first instruction of function block `b`'s function's entry block, where new Function
/// variables go (after the existing OpVariables).
pub(super) fn variable_insertion_point(m: &Module, b: BlockId) -> Option<InstId> {
    let f = m.block(b).func;
    let entry = *m.function(f).blocks.first()?;
    m.block_insts(entry).find(|&i| !m.inst(i).is(Op::Variable))
}

/// Element type and size for addressing the fused destination.
fn destination_scalar(
    m: &mut Module,
    types: &mut Interner,
    kind: BlockKind,
    element_size: u32,
) -> Option<(Id, u32)> {
    let bits = if kind == BlockKind::LoadTransform {
        32
    } else {
        element_size * 8
    };
    scalar_type(m, types, bits).map(|t| (t, bits / 8))
}

pub(super) fn fuse_loads(
    m: &mut Module,
    types: &mut Interner,
    b: BlockId,
    sg: u32,
    members: &[Candidate],
    at: InstId,
) -> bool {
    let first = &members[0];
    let kind = first.ops.kind;
    let Some((scalar, scalar_bytes)) = destination_scalar(m, types, kind, first.shape.element_size)
    else {
        return false;
    };
    let Some(per_block) = first.shape.bytes_per_invocation_per_block(kind, sg) else {
        return false;
    };
    if per_block % scalar_bytes != 0 {
        return false;
    }
    let total: u32 = members.iter().map(|c| c.shape.count).sum();
    let Some(at_var) = variable_insertion_point(m, b) else {
        return false;
    };
    // The fused load goes where the last (in program order) of the members was.
    let last = at;
    let total_bytes = per_block * total;
    let len = types.u32_const(m, total_bytes / scalar_bytes);
    let arr = types.array(m, scalar, len);
    let ptr_arr = types.pointer(m, StorageClass::Function, arr);
    let ptr_scalar = types.pointer(m, StorageClass::Function, scalar);
    let var = m.fresh_id();
    m.insert_before(
        at_var,
        Inst::new(
            Op::Variable,
            Some(ptr_arr),
            Some(var),
            &[StorageClass::Function as u32],
        ),
    );
    let p0 = m.fresh_id();
    m.insert_before(
        last,
        Inst::new(Op::Bitcast, Some(ptr_scalar), Some(p0), &[var.word()]),
    );
    let count_ty = m.type_of(first.ops.count);
    let count = match count_ty {
        Some(t) => types.int_const(m, t, u64::from(total)),
        None => types.u32_const(m, total),
    };
    let fused = BlockOperands {
        count,
        coordinate: first.ops.coordinate,
        private: Some(p0),
        ..first.ops
    };
    m.insert_before(last, fused.to_inst());
    let mut offset = 0u32;
    for c in members {
        let bytes = per_block * c.shape.count;
        let src = if offset == 0 {
            p0
        } else {
            let idx = types.u32_const(m, offset / scalar_bytes);
            let p = m.fresh_id();
            m.insert_before(
                last,
                Inst::new(
                    Op::InBoundsPtrAccessChain,
                    Some(ptr_scalar),
                    Some(p),
                    &[p0.word(), idx.word()],
                ),
            );
            p
        };
        let size = types.u32_const(m, bytes);
        let dst = c.ops.private.expect("loads have destinations");
        m.insert_before(
            last,
            Inst::new(
                Op::CopyMemorySized,
                None,
                None,
                &[dst.word(), src.word(), size.word()],
            ),
        );
        offset += bytes;
    }
    for c in members {
        m.erase(c.inst);
    }
    true
}

pub(super) fn fuse_prefetches(
    m: &mut Module,
    types: &mut Interner,
    target: &Target,
    members: &[Candidate],
) -> bool {
    let first = &members[0];
    let s = first.shape;
    let total: u32 = members.iter().map(|c| c.shape.count).sum();
    let wide = target.supports_2d_block(
        BlockKind::Prefetch,
        s.element_size,
        s.width * total,
        s.height,
        1,
    );
    let ty = m.type_of(first.ops.width);
    let konst = |m: &mut Module, types: &mut Interner, v: u32| match ty {
        Some(t) => types.int_const(m, t, u64::from(v)),
        None => types.u32_const(m, v),
    };
    let (width, count) = if wide {
        (konst(m, types, s.width * total), konst(m, types, 1))
    } else {
        (first.ops.width, konst(m, types, total))
    };
    let fused = BlockOperands {
        width,
        count,
        ..first.ops
    };
    // The leftmost member's own position has all its operands available.
    m.insert_before(first.inst, fused.to_inst());
    for c in members {
        m.erase(c.inst);
    }
    true
}

pub(super) fn reuse_load(
    m: &mut Module,
    types: &mut Interner,
    sg: u32,
    first: &Candidate,
    again: &Candidate,
) -> bool {
    let Some(bytes) = again
        .shape
        .bytes_per_invocation_per_block(again.ops.kind, sg)
        .map(|b| b * again.shape.count)
    else {
        return false;
    };
    let (Some(src), Some(dst)) = (first.ops.private, again.ops.private) else {
        return false;
    };
    let size = types.u32_const(m, bytes);
    m.insert_before(
        again.inst,
        Inst::new(
            Op::CopyMemorySized,
            None,
            None,
            &[dst.word(), src.word(), size.word()],
        ),
    );
    m.erase(again.inst);
    true
}
