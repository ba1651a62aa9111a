//! Function-storage `OpVariable`s outside the function's first block move into it.
//!
//! What: every `OpVariable` in a block other than a function's first block (Triton emits them
//! inside loops; spirv-val rejects that), or in the first block after another instruction
//! (the LLVM/SPIR-V translator does), is moved to the start of the first block, after the
//! variables and debug lines already there. An initializer becomes an `OpStore` of the initializer
//! at the variable's old place.
//! Why correct: a Function variable's storage is allocated once per function invocation,
//! whatever block declares it (SPIR-V has no per-iteration lifetime), so where the
//! declaration sits does not change which memory the pointer names. The initializer is the
//! only thing tied to the old place: reaching the declaration stores it, which the `OpStore`
//! keeps (the initializer is a constant or global, so it is available there). Decorations and
//! names refer to the unchanged result id.
//! Cost: one walk over the function bodies.

use spirv::Op;
use spvopt_ir::{Inst, InstId, Module};

use crate::pass::{Changes, Statistics};
use crate::util::is_debug_inst;

/// Moves the variables; counts `moved_variables` and `initializers_to_stores`.
pub fn run(m: &mut Module, stats: &mut Statistics, changes: &mut Changes) {
    for f in m.function_ids().collect::<Vec<_>>() {
        let blocks = m.function(f).blocks.clone();
        let Some(&entry) = blocks.first() else {
            continue;
        };
        let mut misplaced: Vec<InstId> = Vec::new();
        // In the entry block: variables after its first other (non-debug) instruction.
        let mut past_start = false;
        for i in m.block_insts(entry) {
            let inst = m.inst(i);
            if inst.is(Op::Variable) {
                if past_start {
                    misplaced.push(i);
                }
            } else if !past_start && !is_debug_inst(m, inst) {
                past_start = true;
            }
        }
        for &b in &blocks[1..] {
            for i in m.block_insts(b) {
                if m.inst(i).is(Op::Variable) {
                    misplaced.push(i);
                }
            }
        }
        if misplaced.is_empty() {
            continue;
        }
        // The first instruction of the entry block that is not a variable or debug info: the
        // moved variables go before it.
        let anchor = m
            .block_insts(entry)
            .find(|&i| {
                let inst = m.inst(i);
                !(inst.is(Op::Variable) || is_debug_inst(m, inst))
            })
            .or_else(|| m.block_terminator(entry));
        let Some(anchor) = anchor else { continue };
        for v in misplaced {
            if !changes.allow() {
                return;
            }
            let (init, var) = {
                let inst = m.inst(v);
                (inst.operand_id(1), inst.result_id())
            };
            if let (Some(init), Some(var)) = (init, var) {
                m.insert_before(
                    v,
                    Inst::new(Op::Store, None, None, &[var.word(), init.word()]),
                );
                // Drop the initializer operand: Result Type, Result, Storage Class remain.
                let mut inst = m.inst(v).to_owned();
                let keep = inst.operand_start() + 1;
                inst.truncate(keep);
                m.replace_inst(v, inst);
                stats.add("initializers_to_stores", 1);
            }
            m.move_before(v, anchor);
            stats.add("moved_variables", 1);
        }
    }
}
