//! `dce`: dead code elimination.
//!
//! What: removes functions no entry point reaches, side-effect-free instructions whose results
//! are unused, and unused types, constants, global variables and OpUndefs; then names and
//! decorations of what was removed.
//! When: always applicable.
//! Why correct: liveness is a mark phase from roots that cover everything observable — the
//! module-level declarations (capabilities, entry points and their interfaces, execution
//! modes), every instruction with an effect (stores, calls, branches, barriers, atomics, block
//! IO, anything not known to be pure) in reachable functions, items decorated with
//! LinkageAttributes (exported or imported; never removed), and debug-info ext insts (they
//! refer to what they describe). Everything a live instruction uses is live. What is not
//! live cannot influence a live instruction, so removing it preserves behaviour. Blocks are
//! never removed (no control-flow simplification here), so labels stay.
//! One rewrite (`--max-changes`): removing one dead function, one dead instruction, or one dead
//! type/constant/global, each once nothing left uses it (`sweep`; dead items that only
//! use each other go together last, one rewrite each, all or none); names and decorations
//! of what is removed go with it.
//! Cost: linear in module size (one mark worklist, one sweep).

use spirv::Op;
use spvopt_analysis::operands::for_each_value_operand;
use spvopt_analysis::{Analyses, AnalysisSet, Target};
use spvopt_ir::{FuncId, Id, InstId, Module, Section};

use crate::pass::{Changes, Pass, PassError, PassResult, Statistics};
use crate::util::is_side_effect_free;

pub struct DeadCodeElimination;

mod sweep;

struct Marker {
    live: Vec<bool>,
    /// Ids whose definition is marked already (by id number): an id used again costs one
    /// load instead of a definition lookup.
    id_marked: Vec<bool>,
    work: Vec<InstId>,
    /// Function owning each OpFunction instruction.
    func_of_def: Vec<Option<FuncId>>,
    func_live: Vec<bool>,
}

impl Marker {
    fn mark(&mut self, i: InstId) {
        if !self.live[i.index()] {
            self.live[i.index()] = true;
            self.work.push(i);
        }
    }

    fn mark_id(&mut self, m: &Module, id: Id) {
        if let Some(seen) = self.id_marked.get_mut(id.index()) {
            if *seen {
                return;
            }
            *seen = true;
        }
        if let Some(d) = m.def(id) {
            self.mark(d);
        }
    }

    fn activate_function(&mut self, m: &Module, f: FuncId) {
        if self.func_live[f.index()] {
            return;
        }
        self.func_live[f.index()] = true;
        let func = m.function(f);
        self.mark(func.def);
        self.mark(func.end);
        for &i in func.prefix.iter().chain(&func.header) {
            self.mark(i);
        }
        for &b in &func.blocks {
            self.mark(m.block(b).label);
            for i in m.block_insts(b) {
                if !is_side_effect_free(m, m.inst(i)) {
                    self.mark(i);
                }
            }
        }
    }

    fn propagate(&mut self, m: &Module) {
        while let Some(i) = self.work.pop() {
            if let Some(f) = self.func_of_def[i.index()] {
                self.activate_function(m, f);
            }
            // The used ids: the result type and the value operands (the fast operand
            // table; the same ids as `Module::for_each_used_id`).
            if let Some(t) = m.inst(i).result_type() {
                self.mark_id(m, t);
            }
            for_each_value_operand(m, i, |id| self.mark_id(m, id));
        }
    }
}

impl Pass for DeadCodeElimination {
    fn name(&self) -> &'static str {
        "dce"
    }

    fn run(
        &mut self,
        m: &mut Module,
        _: &mut Analyses,
        _: &Target,
        changes: &mut Changes,
    ) -> Result<PassResult, PassError> {
        let n = m.arena_len();
        let mut mk = Marker {
            live: vec![false; n],
            id_marked: vec![false; m.id_capacity()],
            // Every instruction is pushed at most once.
            work: Vec::with_capacity(n),
            func_of_def: vec![None; n],
            func_live: vec![false; m.functions.len()],
        };
        for f in m.function_ids() {
            mk.func_of_def[m.function(f).def.index()] = Some(f);
        }
        // Roots: module-level declarations.
        for s in [
            Section::Capability,
            Section::Extension,
            Section::ExtInstImport,
            Section::MemoryModel,
            Section::EntryPoint,
            Section::ExecutionMode,
        ] {
            for &i in m.section(s) {
                mk.mark(i);
            }
        }
        // Roots: debug ext insts and other non-removable global-section instructions.
        for &i in m.section(Section::Global) {
            let inst = m.inst(i);
            if !inst.has_result() || inst.is(Op::ExtInst) || inst.op().is_none() {
                mk.mark(i);
            }
        }
        for &i in m.trailing.iter() {
            mk.mark(i);
        }
        // Roots: linkage (exported / imported) items and decoration groups.
        for &i in m.section(Section::Annotation) {
            let inst = m.inst(i);
            let linkage = inst.is(Op::Decorate)
                && inst.operand_word(1) == Some(spirv::Decoration::LinkageAttributes as u32);
            if linkage {
                if let Some(t) = inst.operand_id(0) {
                    mk.mark_id(m, t);
                }
            }
            if matches!(
                inst.op(),
                Some(Op::DecorationGroup | Op::GroupDecorate | Op::GroupMemberDecorate)
            ) {
                mk.mark(i);
            }
        }
        mk.propagate(m);
        // Decorations of live targets keep their other operands (OpDecorateId) live.
        loop {
            let mut added = false;
            for &i in m.section(Section::Annotation) {
                if mk.live[i.index()] {
                    continue;
                }
                let target = m.inst(i).operand_id(0);
                if target
                    .and_then(|t| m.def(t))
                    .is_some_and(|d| mk.live[d.index()])
                {
                    mk.mark(i);
                    added = true;
                }
            }
            mk.propagate(m);
            if !added {
                break;
            }
        }

        // Sweep.
        let mut stats = Statistics::default();
        let live = mk.live;
        let func_live = mk.func_live;
        if changes.limit().is_some() {
            sweep::sweep(m, &live, &func_live, changes, &mut stats);
        } else {
            let items = sweep::sweep_all(m, &live, &func_live, &mut stats);
            changes.allow_up_to(items as usize);
        }
        remove_names_and_decorations(m, &mut stats);
        let changed = stats.total() > 0;
        Ok(PassResult {
            changed,
            preserved: AnalysisSet::NONE,
            stats,
        })
    }
}

/// Removes the names and decorations of removed ids.
fn remove_names_and_decorations(m: &mut Module, stats: &mut Statistics) {
    let target_live =
        |m: &Module, i: InstId| m.inst(i).operand_id(0).is_none_or(|t| m.def(t).is_some());
    let mut names = 0;
    m.retain_section(Section::Debug, |m, i| {
        let inst = m.inst(i);
        let keep = !matches!(inst.op(), Some(Op::Name | Op::MemberName)) || target_live(m, i);
        if !keep {
            names += 1;
        }
        keep
    });
    let mut decorations = 0;
    m.retain_section(Section::Annotation, |m, i| {
        let inst = m.inst(i);
        let keep = inst.is(Op::DecorationGroup) || target_live(m, i);
        if !keep {
            decorations += 1;
        }
        keep
    });
    if names > 0 {
        stats.add("names", names);
    }
    if decorations > 0 {
        stats.add("decorations", decorations);
    }
}
