//! `strip-debug`: removes debug information.
//!
//! What: OpLine/OpNoLine everywhere, OpName/OpMemberName, OpString, OpSource*,
//! OpModuleProcessed, every OpExtInst of OpenCL.DebugInfo.100 / DebugInfo / NonSemantic.* sets,
//! then the imports of those sets and `SPV_KHR_non_semantic_info` once nothing uses them.
//! When: always applicable.
//! Why correct: none of these instructions has semantics (SPIR-V spec §2.4: debug
//! instructions and non-semantic ext insts may be removed without changing the module's
//! meaning). A debug instruction whose result is still used by something we keep (which a
//! valid module cannot have, but we do not rely on that) is kept.
//! One rewrite (`--max-changes`): removing one debug instruction, last first (an instruction
//! goes before what it refers to), then dropping one unused import, then the extension.

use spirv::Op;
use spvopt_analysis::{Analyses, AnalysisSet, Target};
use spvopt_ir::entity::EntitySet;
use spvopt_ir::{InstId, Module, Section};

use crate::pass::{Changes, Pass, PassError, PassResult, Statistics};
use crate::util::is_debug_inst;

pub struct StripDebug;

impl Pass for StripDebug {
    fn name(&self) -> &'static str {
        "strip-debug"
    }

    fn run(
        &mut self,
        m: &mut Module,
        _: &mut Analyses,
        _: &Target,
        changes: &mut Changes,
    ) -> Result<PassResult, PassError> {
        let mut stats = Statistics::default();
        // 1. Candidates: every debug instruction, by arena index.
        let mut remove = vec![false; m.arena_len()];
        let all: Vec<InstId> = m.all_insts().collect();
        let mut any = false;
        for &i in &all {
            if is_debug_inst(m, m.inst(i)) {
                remove[i.index()] = true;
                any = true;
            }
        }
        let has_debug_import = m.section(Section::ExtInstImport).iter().any(|&i| {
            m.inst(i)
                .result_id()
                .and_then(|r| m.ext_set(r))
                .is_some_and(|s| s.is_debug_or_non_semantic())
        });
        if !any && !has_debug_import {
            return Ok(PassResult::unchanged(stats));
        }
        // --max-changes: only the last candidates (module order), what refers to others first.
        let candidates = all.iter().filter(|i| remove[i.index()]).count();
        let room = changes.allow_up_to(candidates);
        let dropped: Vec<InstId> = all
            .iter()
            .copied()
            .filter(|i| remove[i.index()])
            .take(candidates - room)
            .collect();
        for i in dropped {
            remove[i.index()] = false;
        }
        any = room > 0;
        // 2. Keep candidates still used by kept instructions (to a fixed point; in a valid
        //    module nothing is rescued and this is one walk). The last walk's use set also tells
        //    which ext-inst imports are still used (step 4).
        let mut used_by_kept: EntitySet<spvopt_ir::Id> = EntitySet::with_capacity(m.id_capacity());
        loop {
            used_by_kept.clear();
            for &i in &all {
                if !remove[i.index()] {
                    m.for_each_used_id(i, |id| {
                        used_by_kept.insert(id);
                    });
                }
            }
            let mut rescued = false;
            if any {
                for &i in &all {
                    if remove[i.index()] {
                        if let Some(r) = m.inst(i).result_id() {
                            if used_by_kept.contains(r) {
                                remove[i.index()] = false;
                                rescued = true;
                            }
                        }
                    }
                }
            }
            if !rescued {
                break;
            }
        }
        // 3. Remove (rescued candidates were not rewrites after all).
        let removed = all.iter().filter(|i| remove[i.index()]).count();
        for _ in removed..room {
            changes.undo();
        }
        for &i in &all {
            if remove[i.index()] {
                let name: &'static str = match m.inst(i).op() {
                    Some(Op::Line | Op::NoLine) => "lines",
                    Some(Op::Name | Op::MemberName) => "names",
                    Some(Op::String) => "strings",
                    Some(Op::Source | Op::SourceContinued | Op::SourceExtension) => "sources",
                    Some(Op::ModuleProcessed) => "module_processed",
                    _ => "debug_ext_insts",
                };
                stats.add(name, 1);
            }
        }
        let is_removed = |i: InstId| remove.get(i.index()).copied().unwrap_or(false);
        for s in Section::ALL {
            if m.section(s).iter().any(|&i| is_removed(i)) {
                m.retain_section(s, |_, i| !is_removed(i));
            }
        }
        m.retain_between_functions(|_, i| !is_removed(i));
        for f in 0..m.functions.len() {
            let header = std::mem::take(&mut m.functions[f].header);
            m.functions[f].header = header.into_iter().filter(|&i| !is_removed(i)).collect();
            let blocks = m.functions[f].blocks.clone();
            for b in blocks {
                let body: Vec<InstId> = m.block_insts(b).filter(|&i| is_removed(i)).collect();
                for i in body {
                    m.erase(i);
                }
            }
        }
        // 4. Imports of debug / non-semantic sets nothing kept uses any more.
        let still_used = used_by_kept;
        let mut dropped_imports = 0;
        let mut non_semantic_left = false;
        let imports: Vec<InstId> = m.section(Section::ExtInstImport).to_vec();
        let mut drop_import = vec![];
        for i in imports {
            let inst = m.inst(i);
            let Some(r) = inst.result_id() else { continue };
            let Some(set) = m.ext_set(r) else { continue };
            if set.is_debug_or_non_semantic() {
                if still_used.contains(r) || !changes.allow() {
                    if set == spvopt_ir::grammar::ExtSet::NonSemantic {
                        non_semantic_left = true;
                    }
                } else {
                    drop_import.push(i);
                    dropped_imports += 1;
                }
            }
        }
        if !drop_import.is_empty() {
            m.retain_section(Section::ExtInstImport, |_, i| !drop_import.contains(&i));
            stats.add("ext_inst_imports", dropped_imports);
        }
        if !non_semantic_left
            && m.section(Section::Extension).iter().any(|&i| {
                spvopt_ir::grammar::decode_string(m.inst(i).operands())
                    == Some("SPV_KHR_non_semantic_info")
            })
            && changes.allow()
        {
            let before = m.section(Section::Extension).len();
            m.retain_section(Section::Extension, |m, i| {
                spvopt_ir::grammar::decode_string(m.inst(i).operands())
                    != Some("SPV_KHR_non_semantic_info")
            });
            let n = before - m.section(Section::Extension).len();
            if n > 0 {
                stats.add("extensions", n as u64);
            }
        }
        let changed = stats.total() > 0;
        Ok(PassResult {
            changed,
            // Only uses changed (debug instructions are gone); control flow and values did not.
            // DECORATIONS stays: no decoration goes, and imports keep the classification
            // their names gave them.
            preserved: AnalysisSet::ALL.without(AnalysisSet::DEF_USE),
            stats,
        })
    }
}
