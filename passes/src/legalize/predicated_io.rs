//! Predicated loads and stores (`SPV_INTEL_predicated_io`) on targets that do not take them.
//!
//! What: on a target without the extension (the `cpu` profile: Intel's OpenCL CPU runtime is not
//! known to accept it), every `OpPredicatedLoadINTEL %T %r %ptr %pred %default [memory operands]`
//! becomes a diamond
//!
//! ```text
//!        OpSelectionMerge %after None
//!        OpBranchConditional %pred %then %after
//! %then: %v = OpLoad %T %ptr [memory operands]
//!        OpBranch %after
//! %after: %r = OpPhi %T %v %then %default %before
//! ```
//!
//! and every `OpPredicatedStoreINTEL %ptr %obj %pred [memory operands]` the same diamond with
//! `OpStore %ptr %obj [memory operands]` in `%then` and no phi. When the instruction is in a loop
//! header, the header keeps its `OpLoopMerge` and branches to a new block holding the
//! selection (a block cannot be both). The capability and extension then go with `legalize`'s
//! capability step.
//! Why correct: the extension's definition is exactly this: "if (predicate) result =
//! load(address); else result = default_value" and "if (predicate) store(address, value)"
//! (SPIRV-Registry `SPV_INTEL_predicated_io.asciidoc`); the memory operands are those of
//! `OpLoad`/`OpStore` (Volatile is not allowed on the predicated forms, so none is lost). The
//! result id is kept (the phi defines it), so every use stays valid: the uses that followed
//! the instruction in its block moved to `%after`, which the phi starts.
//! Cost: one walk over the function bodies; two or three blocks per predicated access.

use spirv::Op;
use spvopt_analysis::Target;
use spvopt_ir::opcode_class::{load_store, AccessDirection, OP_PREDICATED_LOAD_INTEL};
use spvopt_ir::opcode_class::{LoadStore, OP_PREDICATED_STORE_INTEL};
use spvopt_ir::{Inst, InstId, Module};

use crate::diagnostic::Diagnostic;
use crate::edit::cfg::split_block_after;
use crate::pass::{Changes, Statistics};

/// Lowers every predicated access on targets without the extension; counts
/// `lowered_predicated_loads` / `lowered_predicated_stores`.
pub fn run(
    m: &mut Module,
    target: &Target,
    stats: &mut Statistics,
    errors: &mut Vec<Diagnostic>,
    changes: &mut Changes,
) {
    if target.features.predicated_io {
        return;
    }
    let mut todo: Vec<InstId> = Vec::new();
    for f in m.function_ids() {
        for &b in &m.function(f).blocks {
            todo.extend(m.block_insts(b).filter(|&i| {
                matches!(
                    m.inst(i).opcode(),
                    OP_PREDICATED_LOAD_INTEL | OP_PREDICATED_STORE_INTEL
                )
            }));
        }
    }
    let (mut loads, mut stores) = (0u64, 0u64);
    for i in todo {
        if !changes.allow() {
            break;
        }
        let Some(ls) = load_store(m.inst(i).opcode()) else {
            continue;
        };
        match lower(m, i, ls) {
            Ok(AccessDirection::Read) => loads += 1,
            Ok(AccessDirection::Write) => stores += 1,
            Err(e) => {
                changes.undo();
                errors.push(Diagnostic::error_at(m, i, e));
            }
        }
    }
    if loads > 0 {
        stats.add("lowered_predicated_loads", loads);
    }
    if stores > 0 {
        stats.add("lowered_predicated_stores", stores);
    }
}

/// Replaces predicated access `i` by the diamond (see the module documentation).
fn lower(m: &mut Module, i: InstId, ls: LoadStore) -> Result<AccessDirection, &'static str> {
    let inst = m.inst(i).to_owned();
    let ops = inst.operands();
    let word = |k: Option<usize>| k.and_then(|k| ops.get(k).copied());
    let (Some(ptr), Some(pred)) = (word(Some(ls.pointer)), word(ls.predicate)) else {
        return Err("missing pointer or predicate operand");
    };
    let memory_operands: Vec<u32> = ops.get(ls.memory_operands..).unwrap_or(&[]).to_vec();
    let (result, result_type, default) = match ls.direction {
        AccessDirection::Read => {
            let (Some(r), Some(t), Some(d)) =
                (inst.result_id(), inst.result_type(), word(ls.default))
            else {
                return Err("missing result or default value");
            };
            (Some(r), Some(t), d)
        }
        AccessDirection::Write => (None, None, 0),
    };
    let object = word(ls.object);
    if ls.direction == AccessDirection::Write && object.is_none() {
        return Err("missing object operand");
    }
    let split = split_block_after(m, i).ok_or("not in a block")?;
    m.erase(i);
    // The block that branches on the predicate: `before`, or a new one when `before` is a loop
    // header (its OpLoopMerge stays before its branch).
    let head = if split.loop_merge.is_some() {
        split.keep_loop_header(m);
        let label = m.fresh_id();
        let head = m.insert_block_after(split.before, label);
        m.append_inst(
            split.before,
            Inst::new(Op::Branch, None, None, &[label.word()]),
        );
        head
    } else {
        split.before
    };
    let head_label = m.block_label(head);
    let then_label = m.fresh_id();
    let then = m.insert_block_after(head, then_label);
    let after_label = split.after_label;
    m.append_inst(
        head,
        Inst::new(Op::SelectionMerge, None, None, &[after_label.word(), 0]),
    );
    m.append_inst(
        head,
        Inst::new(
            Op::BranchConditional,
            None,
            None,
            &[pred, then_label.word(), after_label.word()],
        ),
    );
    match ls.direction {
        AccessDirection::Read => {
            let loaded = m.fresh_id();
            let mut load_ops = vec![ptr];
            load_ops.extend_from_slice(&memory_operands);
            m.append_inst(
                then,
                Inst::new(Op::Load, result_type, Some(loaded), &load_ops),
            );
            m.append_inst(
                then,
                Inst::new(Op::Branch, None, None, &[after_label.word()]),
            );
            m.prepend_inst(
                split.after,
                Inst::new(
                    Op::Phi,
                    result_type,
                    result,
                    &[loaded.word(), then_label.word(), default, head_label.word()],
                ),
            );
        }
        AccessDirection::Write => {
            let mut store_ops = vec![ptr, object.unwrap_or(0)];
            store_ops.extend_from_slice(&memory_operands);
            m.append_inst(then, Inst::new(Op::Store, None, None, &store_ops));
            m.append_inst(
                then,
                Inst::new(Op::Branch, None, None, &[after_label.word()]),
            );
        }
    }
    Ok(ls.direction)
}
