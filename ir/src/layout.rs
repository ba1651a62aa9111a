//! Layout: where instructions sit, apart from what they are (cranelift's `Layout` next to
//! its `DataFlowGraph`). Module-level sections are vectors of `InstId` in logical-layout order;
//! a function is its `OpFunction`, parameters, blocks in layout order and `OpFunctionEnd`; a
//! block's body is a doubly linked list of instructions, so insertion, removal and moves
//! anywhere are O(1). What an instruction is (its words, its definition) lives in
//! [`crate::module`] (with the layout's records: `Function`, `BlockData`, the links); this
//! file is the code that orders and links.

use crate::grammar::ExtSet;
use crate::id::{BlockId, FuncId, Id, InstId};
use crate::inst::{Inst, InstBuf};
use crate::module::{BlockData, Function, Link, Module, Section};

impl Module {
    // ---- module-level sections ----------------------------------------------------------

    /// The instructions of a module-level section, in order.
    pub fn section(&self, s: Section) -> &[InstId] {
        &self.sections[s as usize]
    }

    /// Iterates the instructions of a section.
    pub fn section_insts(&self, s: Section) -> impl Iterator<Item = (InstId, &Inst)> + '_ {
        self.sections[s as usize]
            .iter()
            .map(move |&i| (i, self.inst(i)))
    }

    /// Appends an instruction to a module-level section.
    pub fn push_to_section(&mut self, s: Section, inst: impl AsRef<Inst>) -> InstId {
        let id = self.alloc_inst(inst);
        self.sections[s as usize].push(id);
        id
    }

    /// Inserts an instruction into a section at position `pos`.
    pub fn insert_in_section(&mut self, s: Section, pos: usize, inst: impl AsRef<Inst>) -> InstId {
        let id = self.alloc_inst(inst);
        let v = &mut self.sections[s as usize];
        if s == Section::Global && pos < v.len() {
            self.interned.invalidate();
        }
        v.insert(pos.min(v.len()), id);
        id
    }

    /// Keeps only the instructions of section `s` for which `keep` returns true; the others are
    /// erased (their definitions removed). Linear in the section length.
    pub fn retain_section(&mut self, s: Section, mut keep: impl FnMut(&Module, InstId) -> bool) {
        let list = std::mem::take(&mut self.sections[s as usize]);
        if s == Section::Global {
            self.interned.invalidate();
        }
        let mut kept = Vec::with_capacity(list.len());
        for i in list {
            if keep(self, i) {
                kept.push(i);
            } else {
                self.forget_def(i);
            }
        }
        self.sections[s as usize] = kept;
    }

    /// Keeps only the instructions of the function prefixes and trailing list for which `keep`
    /// returns true.
    pub fn retain_between_functions(&mut self, mut keep: impl FnMut(&Module, InstId) -> bool) {
        for f in 0..self.functions.len() {
            let list = std::mem::take(&mut self.functions[f].prefix);
            let kept: Vec<InstId> = list.into_iter().filter(|&i| keep(self, i)).collect();
            self.functions[f].prefix = kept;
        }
        let list = std::mem::take(&mut self.trailing);
        self.trailing = list.into_iter().filter(|&i| keep(self, i)).collect();
    }

    // ---- functions and blocks -----------------------------------------------------------

    /// The function `f`.
    pub fn function(&self, f: FuncId) -> &Function {
        &self.functions[f]
    }

    /// Function ids in layout order.
    pub fn function_ids(&self) -> impl Iterator<Item = FuncId> {
        (0..self.functions.len()).map(FuncId::from_index)
    }

    /// The result id of function `f`.
    pub fn function_result(&self, f: FuncId) -> Option<Id> {
        self.inst(self.functions[f].def).result_id()
    }

    /// The function `id` belongs to: the one whose `OpFunction` defines it (a function's own
    /// id), or whose parameter, label or body instruction defines it; `None` for module-level
    /// and undefined ids. Constant time for labels and body results (through the defining
    /// instruction's block), a walk over the functions for function and parameter ids.
    pub fn function_of(&self, id: Id) -> Option<FuncId> {
        let i = self.def(id)?;
        if let Some(b) = self.links[i].block {
            return Some(self.blocks[b].func);
        }
        self.functions
            .entries()
            .find(|(_, f)| f.def == i || f.header.contains(&i))
            .map(|(k, _)| k)
    }

    /// The function whose `OpFunction` defines `id` (a function's own id), if any.
    pub fn function_with_id(&self, id: Id) -> Option<FuncId> {
        self.def_inst(id)
            .is_some_and(|i| i.is(spirv::Op::Function))
            .then(|| self.function_of(id))
            .flatten()
    }

    /// The block `b`.
    pub fn block(&self, b: BlockId) -> &BlockData {
        &self.blocks[b]
    }

    /// The label id of block `b`.
    pub fn block_label(&self, b: BlockId) -> Id {
        self.inst(self.blocks[b].label)
            .result_id()
            .expect("OpLabel has a result id")
    }

    /// Number of blocks ever allocated.
    pub fn block_arena_len(&self) -> usize {
        self.blocks.len()
    }

    /// The instructions of block `b` after its label, in order.
    pub fn block_insts(&self, b: BlockId) -> BlockInsts<'_> {
        BlockInsts {
            module: self,
            next: self.blocks[b].first,
        }
    }

    /// The phis of block `b`: its leading `OpPhi`s, read past the instructions SPIR-V lets
    /// precede them (`OpLine`, `OpNoLine` and debug / non-semantic `OpExtInst`s such as the
    /// LLVM/SPIR-V translator's `DebugScope`, which it puts first in a block). Every walk over a
    /// block's phis goes through this: one that stops at the first other instruction misses phis
    /// (issue 46: a split block's successor kept naming the old predecessor).
    pub fn block_phis(&self, b: BlockId) -> impl Iterator<Item = InstId> + '_ {
        self.block_insts(b)
            .take_while(move |&i| {
                let inst = self.inst(i);
                match inst.op() {
                    Some(spirv::Op::Phi | spirv::Op::Line | spirv::Op::NoLine) => true,
                    Some(spirv::Op::ExtInst) => inst
                        .operand_id(0)
                        .and_then(|set| self.ext_set(set))
                        .is_some_and(ExtSet::is_debug_or_non_semantic),
                    _ => false,
                }
            })
            .filter(move |&i| self.inst(i).is(spirv::Op::Phi))
    }

    /// The last instruction of block `b` (its terminator in a valid module).
    pub fn block_terminator(&self, b: BlockId) -> Option<InstId> {
        self.blocks[b].last
    }

    /// The first instruction of block `b` after its label.
    pub fn block_first(&self, b: BlockId) -> Option<InstId> {
        self.blocks[b].first
    }

    /// The block containing a function-body instruction.
    pub fn inst_block(&self, i: InstId) -> Option<BlockId> {
        self.links[i].block
    }

    /// The instruction after `i` in its block.
    pub fn next_inst(&self, i: InstId) -> Option<InstId> {
        self.links[i].next
    }

    /// The instruction before `i` in its block.
    pub fn prev_inst(&self, i: InstId) -> Option<InstId> {
        self.links[i].prev
    }

    /// Appends a new function (declaration until blocks are added); returns its id.
    pub fn add_function(&mut self, def: impl AsRef<Inst>, params: Vec<InstBuf>) -> FuncId {
        let f = FuncId::from_index(self.functions.len());
        let def = self.alloc_inst(def);
        let header = params.into_iter().map(|p| self.alloc_inst(p)).collect();
        let end = self.alloc_inst(Inst::new(spirv::Op::FunctionEnd, None, None, &[]));
        self.functions.push(Function {
            prefix: Vec::new(),
            def,
            header,
            blocks: Vec::new(),
            end,
        });
        f
    }

    /// The result ids of function `f`'s parameters, in order.
    pub fn parameter_ids(&self, f: FuncId) -> Vec<Id> {
        self.function(f)
            .header
            .iter()
            .filter_map(|&p| self.inst(p).result_id())
            .collect()
    }

    /// Appends the `OpFunctionParameter` `param` to function `f`'s header (after its other
    /// parameters); the function's `OpTypeFunction` is the caller's to keep in step.
    pub fn push_parameter(&mut self, f: FuncId, param: impl AsRef<Inst>) -> InstId {
        let i = self.alloc_inst(param);
        self.functions[f].header.push(i);
        i
    }

    /// Inserts a new function (declaration until blocks are added) at position `at` of the
    /// function list (`at` past the end appends), e.g. a declaration before the first
    /// definition as the logical layout wants; returns its id. Functions from `at` on move one
    /// place down: their `FuncId`s grow by one (held ids of them are stale, as after
    /// [`Module::remove_function`]), and every block's function index follows.
    pub fn insert_function_at(
        &mut self,
        at: usize,
        def: impl AsRef<Inst>,
        params: Vec<InstBuf>,
    ) -> FuncId {
        let at = at.min(self.functions.len());
        let appended = self.add_function(def, params);
        if at == appended.index() {
            return appended;
        }
        self.functions.as_mut_vec()[at..].rotate_right(1);
        for (n, func) in self.functions.iter().enumerate().skip(at + 1) {
            for &b in &func.blocks {
                self.blocks[b].func = FuncId::from_index(n);
            }
        }
        FuncId::from_index(at)
    }

    /// Appends a new empty block with label `label` to function `f`.
    pub fn append_block(&mut self, f: FuncId, label: Id) -> BlockId {
        let l = self.alloc_inst(Inst::new(spirv::Op::Label, None, Some(label), &[]));
        self.append_block_labelled(f, l)
    }

    /// Appends a new empty block to function `f` whose `OpLabel` is the (unplaced) instruction
    /// `l`.
    pub(crate) fn append_block_labelled(&mut self, f: FuncId, l: InstId) -> BlockId {
        let b = BlockId::from_index(self.blocks.len());
        self.blocks.push(BlockData {
            label: l,
            first: None,
            last: None,
            func: f,
        });
        self.links[l].block = Some(b);
        self.functions[f].blocks.push(b);
        b
    }

    /// Inserts a new empty block with label `label` into function `f` right after block
    /// `after` in layout order.
    pub fn insert_block_after(&mut self, after: BlockId, label: Id) -> BlockId {
        let f = self.blocks[after].func;
        let b = self.append_block(f, label);
        let blocks = &mut self.functions[f].blocks;
        blocks.pop();
        let pos = blocks
            .iter()
            .position(|&x| x == after)
            .map_or(blocks.len(), |p| p + 1);
        blocks.insert(pos, b);
        b
    }

    /// Appends an instruction at the end of block `b`.
    pub fn append_inst(&mut self, b: BlockId, inst: impl AsRef<Inst>) -> InstId {
        let i = self.alloc_inst(inst);
        self.link_at_end(b, i);
        i
    }

    #[inline]
    pub(crate) fn link_at_end(&mut self, b: BlockId, i: InstId) {
        let last = self.blocks[b].last;
        self.links[i] = Link {
            prev: last,
            next: None,
            block: Some(b),
        };
        match last {
            Some(l) => self.links[l].next = Some(i),
            None => self.blocks[b].first = Some(i),
        }
        self.blocks[b].last = Some(i);
    }

    /// Records the instruction of `len` pooled words at `start` (defining `result`) and links
    /// it at the end of block `b`: [`Module::alloc_pooled`] then [`Module::link_at_end`] in
    /// one step, its link written once (the loader, for most body instructions).
    #[inline]
    pub(crate) fn alloc_pooled_at_block_end(
        &mut self,
        b: BlockId,
        start: u32,
        len: u32,
        result: Option<Id>,
    ) -> InstId {
        let i = InstId::from_index(self.recs.len());
        if let Some(r) = result {
            self.set_def(r, Some(i));
        }
        self.recs.push(crate::module::InstRec { start, len });
        let block = &mut self.blocks[b];
        let last = block.last.replace(i);
        if last.is_none() {
            block.first = Some(i);
        }
        self.links.push_linked(
            i,
            Link {
                prev: last,
                next: None,
                block: Some(b),
            },
        );
        if let Some(l) = last {
            self.links[l].next = Some(i);
        }
        i
    }

    /// Inserts a new instruction immediately before `at` (a function-body instruction).
    pub fn insert_before(&mut self, at: InstId, inst: impl AsRef<Inst>) -> InstId {
        let i = self.alloc_inst(inst);
        self.link_before(at, i);
        i
    }

    /// Inserts a new instruction immediately after `at` (a function-body instruction).
    pub fn insert_after(&mut self, at: InstId, inst: impl AsRef<Inst>) -> InstId {
        let i = self.alloc_inst(inst);
        self.link_after(at, i);
        i
    }

    /// Inserts a new instruction at the start of block `b` (after its label).
    pub fn prepend_inst(&mut self, b: BlockId, inst: impl AsRef<Inst>) -> InstId {
        match self.blocks[b].first {
            Some(first) => self.insert_before(first, inst),
            None => self.append_inst(b, inst),
        }
    }

    fn link_before(&mut self, at: InstId, i: InstId) {
        let Link { prev, block, .. } = self.links[at];
        let block = block.expect("insert_before: instruction is not in a block");
        self.links[i] = Link {
            prev,
            next: Some(at),
            block: Some(block),
        };
        self.links[at].prev = Some(i);
        match prev {
            Some(p) => self.links[p].next = Some(i),
            None => self.blocks[block].first = Some(i),
        }
    }

    fn link_after(&mut self, at: InstId, i: InstId) {
        let Link { next, block, .. } = self.links[at];
        let block = block.expect("insert_after: instruction is not in a block");
        self.links[i] = Link {
            prev: Some(at),
            next,
            block: Some(block),
        };
        self.links[at].next = Some(i);
        match next {
            Some(n) => self.links[n].prev = Some(i),
            None => self.blocks[block].last = Some(i),
        }
    }

    /// Removes a function-body instruction from its block and forgets its definition. The
    /// arena slot stays (ids of other instructions do not move).
    pub fn erase(&mut self, i: InstId) {
        self.unlink(i);
        self.forget_def(i);
    }

    /// Moves a function-body instruction to just before `at`.
    pub fn move_before(&mut self, i: InstId, at: InstId) {
        self.unlink(i);
        self.link_before(at, i);
    }

    /// Moves a function-body instruction to the end of block `b`.
    pub fn move_to_end(&mut self, i: InstId, b: BlockId) {
        self.unlink(i);
        self.link_at_end(b, i);
    }

    fn unlink(&mut self, i: InstId) {
        let Link { prev, next, block } = self.links[i];
        let Some(block) = block else { return };
        match prev {
            Some(p) => self.links[p].next = next,
            None => self.blocks[block].first = next,
        }
        match next {
            Some(n) => self.links[n].prev = prev,
            None => self.blocks[block].last = prev,
        }
        self.links[i] = Link::default();
    }

    /// Removes block `b` (and its instructions) from its function.
    pub fn remove_block(&mut self, b: BlockId) {
        let insts: Vec<InstId> = self.block_insts(b).collect();
        for i in insts {
            self.erase(i);
        }
        let label = self.blocks[b].label;
        self.forget_def(label);
        let f = self.blocks[b].func;
        self.functions[f].blocks.retain(|&x| x != b);
    }

    /// Removes function `f` entirely (its instructions' definitions are forgotten).
    pub fn remove_function(&mut self, f: FuncId) {
        let func = self.functions[f].clone();
        for b in &func.blocks {
            self.remove_block(*b);
        }
        for i in func.prefix.iter().chain(&func.header) {
            self.forget_def(*i);
        }
        self.forget_def(func.def);
        self.functions.remove(f);
        for (n, func) in self.functions.iter().enumerate() {
            for &b in &func.blocks {
                self.blocks[b].func = FuncId::from_index(n);
            }
        }
    }

    /// Reorders the functions stably by `key` (e.g. declarations first), keeping every block's
    /// function index right. Linear in the number of blocks (plus the sort).
    pub fn reorder_functions<K: Ord>(&mut self, mut key: impl FnMut(&Function) -> K) {
        self.functions.sort_by_cached_key(|f| key(f));
        for (n, func) in self.functions.iter().enumerate() {
            for &b in &func.blocks {
                self.blocks[b].func = FuncId::from_index(n);
            }
        }
    }

    // ---- whole-module iteration -----------------------------------------------------------

    /// Every live instruction in emission order (collected first: a plain loop is much faster
    /// than a chain of nested iterators).
    pub fn all_insts(&self) -> std::vec::IntoIter<InstId> {
        let mut v = Vec::with_capacity(self.recs.len());
        self.for_each_inst_in_order(|i| v.push(i));
        v.into_iter()
    }

    /// Number of live instructions.
    pub fn instruction_count(&self) -> usize {
        let mut n = 0;
        self.for_each_inst_in_order(|_| n += 1);
        n
    }
}

/// Iterator over a block's instructions (label excluded).
pub struct BlockInsts<'a> {
    module: &'a Module,
    next: Option<InstId>,
}

impl Iterator for BlockInsts<'_> {
    type Item = InstId;
    fn next(&mut self) -> Option<InstId> {
        let i = self.next?;
        self.next = self.module.links[i].next;
        Some(i)
    }
}
