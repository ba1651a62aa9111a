//! `dce`'s sweep: the dead items are removed one at a time (one rewrite each, see
//! `--max-changes`), each only once nothing left in the module still uses it, so the module is
//! valid after every removal.
//!
//! Items: a dead function (with everything in it), a dead instruction of a live function, a
//! dead type/constant/global variable. An item is removable when no remaining instruction
//! outside it uses it (names and decorations do not count: they go with their target).
//! Removable items are taken last-in-module-order first, so users go before what they use;
//! dead items that only use each other in a cycle (a dead phi and its update, dead recursive
//! functions) and what only they use are removed together last, counting one rewrite each,
//! all or none. Without a limit the same items go in one bulk sweep ([`sweep_all`]), counted
//! the same way.

use spvopt_ir::{FuncId, Id, InstId, Module, Section};

use crate::pass::{Changes, Statistics};

#[derive(Clone, Copy, PartialEq, Eq)]
enum Item {
    Function(FuncId),
    Inst(InstId),
}

/// Removes the items `live` / `func_live` mark dead, up to the limit of `changes`.
pub(super) fn sweep(
    m: &mut Module,
    live: &[bool],
    func_live: &[bool],
    changes: &mut Changes,
    stats: &mut Statistics,
) {
    let mut items: Vec<Item> = Vec::new();
    // The item each instruction belongs to, if it is dead.
    let mut item_of: Vec<Option<usize>> = vec![None; m.arena_len()];
    for &i in m.section(Section::Global) {
        if !live[i.index()] {
            item_of[i.index()] = Some(items.len());
            items.push(Item::Inst(i));
        }
    }
    for f in m.function_ids() {
        let func = m.function(f);
        let body: Vec<InstId> = func
            .blocks
            .iter()
            .flat_map(|&b| m.block_insts(b).collect::<Vec<_>>())
            .collect();
        if !func_live[f.index()] {
            let k = items.len();
            items.push(Item::Function(f));
            for &i in func.prefix.iter().chain(&func.header).chain(&body) {
                item_of[i.index()] = Some(k);
            }
            item_of[func.def.index()] = Some(k);
            item_of[func.end.index()] = Some(k);
            for &b in &func.blocks {
                item_of[m.block(b).label.index()] = Some(k);
            }
        } else {
            for i in body {
                if !live[i.index()] {
                    item_of[i.index()] = Some(items.len());
                    items.push(Item::Inst(i));
                }
            }
        }
    }
    // Uses between items: `users[k]` counts the uses of item k from other items.
    let mut users = vec![0usize; items.len()];
    let mut uses: Vec<Vec<usize>> = vec![Vec::new(); items.len()];
    let def_item = |m: &Module, id: Id| m.def(id).and_then(|d| item_of[d.index()]);
    for i in m.all_insts() {
        let inst = m.inst(i);
        let target = inst.operand_id(0);
        let from = match inst.op() {
            // Names and decorations go with their target (they are not uses).
            Some(
                spirv::Op::Name
                | spirv::Op::MemberName
                | spirv::Op::Decorate
                | spirv::Op::DecorateString
                | spirv::Op::MemberDecorate
                | spirv::Op::MemberDecorateString,
            ) => continue,
            // The other ids of an OpDecorateId are used by its target's item.
            Some(spirv::Op::DecorateId) => target.and_then(|t| def_item(m, t)),
            _ => item_of[i.index()],
        };
        let is_decoration = inst.is(spirv::Op::DecorateId);
        m.for_each_used_id(i, |id| {
            if is_decoration && Some(id) == target {
                return;
            }
            if let Some(to) = def_item(m, id) {
                if Some(to) != from {
                    users[to] += 1;
                    if let Some(f) = from {
                        uses[f].push(to);
                    }
                }
            }
        });
    }
    let mut ready: Vec<usize> = (0..items.len()).filter(|&k| users[k] == 0).collect();
    let mut removed = vec![false; items.len()];
    while let Some(k) = ready.pop() {
        if !changes.allow() {
            break;
        }
        removed[k] = true;
        for &to in &uses[k] {
            users[to] -= 1;
            if users[to] == 0 {
                ready.push(to);
            }
        }
    }
    // What is left only uses itself (cycles): together, when all of it is allowed.
    let left = removed.iter().filter(|r| !**r).count() as u64;
    if ready.is_empty() && left > 0 && changes.allow_all(left) {
        removed.iter_mut().for_each(|r| *r = true);
    }
    let mut dead_functions: Vec<FuncId> = Vec::new();
    let mut dead_globals = vec![false; m.arena_len()];
    for (k, item) in items.iter().enumerate() {
        match (*item, removed[k]) {
            (Item::Function(f), true) => dead_functions.push(f),
            (Item::Inst(i), true) if m.inst_block(i).is_some() => {
                m.erase(i);
                stats.add("instructions", 1);
            }
            (Item::Inst(i), true) => dead_globals[i.index()] = true,
            _ => {}
        }
    }
    dead_functions.sort_by_key(|f| std::cmp::Reverse(f.index()));
    for f in dead_functions {
        let is_decl = m.functions[f.index()].blocks.is_empty();
        m.remove_function(f);
        stats.add(
            if is_decl {
                "function_declarations"
            } else {
                "functions"
            },
            1,
        );
    }
    let mut globals = 0;
    m.retain_section(Section::Global, |_, i| {
        let gone = dead_globals[i.index()];
        globals += u64::from(gone);
        !gone
    });
    if globals > 0 {
        stats.add("types_constants_globals", globals);
    }
}

/// Removes every dead item at once (no limit); returns how many items that is (what
/// [`sweep`] would count).
pub(super) fn sweep_all(
    m: &mut Module,
    live: &[bool],
    func_live: &[bool],
    stats: &mut Statistics,
) -> u64 {
    let mut items = 0;
    for f in (0..m.functions.len()).rev() {
        if !func_live[f] {
            let is_decl = m.functions[f].blocks.is_empty();
            m.remove_function(FuncId::from_index(f));
            stats.add(
                if is_decl {
                    "function_declarations"
                } else {
                    "functions"
                },
                1,
            );
            items += 1;
        }
    }
    for f in 0..m.functions.len() {
        let blocks = m.functions[f].blocks.clone();
        for b in blocks {
            let dead: Vec<InstId> = m.block_insts(b).filter(|i| !live[i.index()]).collect();
            for i in dead {
                stats.add("instructions", 1);
                m.erase(i);
                items += 1;
            }
        }
    }
    let mut globals = 0;
    m.retain_section(Section::Global, |_, i| {
        let keep = live[i.index()];
        globals += u64::from(!keep);
        keep
    });
    if globals > 0 {
        stats.add("types_constants_globals", globals);
    }
    items + globals
}
