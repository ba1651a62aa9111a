//! Inlining one call, so that `spv-ab reduce` can remove a function whose body matters (a
//! kernel wrapper that calls the real kernel, a helper) and shrink what remains as one body.
//!
//! How: the caller's block is split after the call (the instructions after it move to a new
//! continuation block, whose successors' phis now name it); the callee's blocks are copied in
//! between with fresh ids (parameters become the call's arguments); `OpReturn` /
//! `OpReturnValue` become branches to the continuation, where one returned value replaces the
//! call's result, or a phi over the returning blocks defines it; the callee's Function-storage
//! variables move to the top of the caller's entry block. This is the textbook transformation,
//! so the copy computes what the call computed; structured-control-flow rules (absent in
//! Kernel modules) are left to the validity check every candidate passes.

use std::collections::HashMap;

use spvopt_ir::grammar::SlotKind;
use spvopt_ir::spirv::Op;
use spvopt_ir::{Id, Inst, InstBuf, InstId, Module};

use spvopt_passes::edit::cfg::split_block_after;

use super::state::{function_of, params};

/// Inlines the call `call`; `false` when it cannot (callee without body, recursion, operands
/// that do not match).
pub fn inline_call(m: &mut Module, call: InstId) -> bool {
    let inst = m.inst(call).to_owned();
    let Some(block) = m.inst_block(call) else {
        return false;
    };
    let Some(callee) = inst.operand_id(0).and_then(|f| function_of(m, f)) else {
        return false;
    };
    let caller = m.block(block).func;
    if caller == callee || m.function(callee).blocks.is_empty() {
        return false;
    }
    let args: Vec<Id> = inst.operands()[1..]
        .iter()
        .filter_map(|&w| Id::new(w))
        .collect();
    let params: Vec<Id> = params(m, callee)
        .into_iter()
        .filter_map(|p| m.inst(p).result_id())
        .collect();
    if args.len() != params.len() {
        return false;
    }
    let callee_blocks = m.function(callee).blocks.clone();
    let mut map: HashMap<Id, Id> = params.into_iter().zip(args).collect();
    for &b in &callee_blocks {
        let fresh = m.fresh_id();
        map.insert(m.block_label(b), fresh);
        for i in m.block_insts(b).collect::<Vec<_>>() {
            if let Some(r) = m.inst(i).result_id() {
                let fresh = m.fresh_id();
                map.insert(r, fresh);
            }
        }
    }
    // Split the caller's block after the call.
    let Some(split) = split_block_after(m, call) else {
        return false;
    };
    split.keep_loop_header(m);
    let (cont, cont_label) = (split.after, split.after_label);
    // Copy the callee's blocks between them.
    let mut prev = block;
    let mut returns: Vec<(Option<Id>, Id)> = Vec::new();
    let mut variables = Vec::new();
    for &cb in &callee_blocks {
        let label = map[&m.block_label(cb)];
        let nb = m.insert_block_after(prev, label);
        prev = nb;
        for i in m.block_insts(cb).collect::<Vec<_>>() {
            let src = m.inst(i).to_owned();
            match src.op() {
                Some(Op::Return) | Some(Op::ReturnValue) => {
                    let value = src.operand_id(0).map(|v| *map.get(&v).unwrap_or(&v));
                    returns.push((value, label));
                    m.append_inst(nb, Inst::new(Op::Branch, None, None, &[cont_label.word()]));
                }
                _ => {
                    let copy = remap(m, &src, &map);
                    let new = m.append_inst(nb, copy);
                    if src.is(Op::Variable) {
                        variables.push(new);
                    }
                }
            }
        }
    }
    let entry = m.function(caller).blocks[0];
    for v in variables.into_iter().rev() {
        match m.block_first(entry) {
            Some(first) => m.move_before(v, first),
            None => m.move_to_end(v, entry),
        }
    }
    // The call becomes a branch into the copy; its result the returned value.
    let first_label = map[&m.block_label(callee_blocks[0])];
    m.erase(call);
    m.append_inst(
        block,
        Inst::new(Op::Branch, None, None, &[first_label.word()]),
    );
    if let (Some(r), Some(ty)) = (inst.result_id(), inst.result_type()) {
        let values: Vec<(Id, Id)> = returns
            .iter()
            .filter_map(|&(v, l)| v.map(|v| (v, l)))
            .collect();
        match values.as_slice() {
            [] => {}
            [(v, _)] => m.replace_all_uses(r, *v),
            _ => {
                let pairs: Vec<u32> = values
                    .iter()
                    .flat_map(|(v, l)| [v.word(), l.word()])
                    .collect();
                m.prepend_inst(cont, Inst::new(Op::Phi, Some(ty), Some(r), &pairs));
            }
        }
    }
    true
}

/// `inst` with its result and every id it uses renamed through `map`.
fn remap(m: &Module, inst: &Inst, map: &HashMap<Id, Id>) -> InstBuf {
    let mut out = inst.to_owned();
    let _ = m.walk(inst, |s| {
        if matches!(s.kind, SlotKind::Id | SlotKind::Result) {
            if let Some(new) = Id::new(inst.words[s.index]).and_then(|id| map.get(&id)) {
                out.words[s.index] = new.word();
            }
        }
    });
    out
}
