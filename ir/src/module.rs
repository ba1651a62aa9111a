//! The module: header, module-level sections, functions and blocks over one instruction arena.
//!
//! Instructions live in an arena (`InstId`); where they sit is separate: module-level sections
//! are vectors of `InstId` in logical-layout order, function bodies are blocks whose instructions
//! form a doubly linked list, so insertion and removal anywhere are O(1) (cranelift's
//! `Layout` vs `DataFlowGraph` split). Definitions are a dense per-id side table.

use crate::entity::{PrimaryMap, SecondaryMap};
use crate::grammar::{self, ExtSet, OperandSlot, SlotKind, WalkContext};
use crate::id::{BlockId, FuncId, Id, InstId};
use crate::inst::{Inst, InstBuf};

/// Where an instruction's words are in the module's pool: `len` words (head included) from
/// `start`.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct InstRec {
    pub start: u32,
    pub len: u32,
}

/// The five header words (and the byte order the module was read in, kept for emission).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    /// SPIR-V version word (`0x00MMmm00`).
    pub version: u32,
    /// Generator magic (tool id in the high 16 bits, its version in the low 16).
    pub generator: u32,
    /// Id bound: every id of the module is below it.
    pub bound: u32,
    /// Reserved schema word (0).
    pub schema: u32,
    /// The binary was big-endian; it is written back the same way.
    pub big_endian: bool,
}

impl Header {
    /// `(major, minor)` SPIR-V version.
    pub fn version_pair(&self) -> (u8, u8) {
        ((self.version >> 16) as u8, (self.version >> 8) as u8)
    }
}

/// Module-level sections in logical-layout order (SPIR-V spec §2.4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Section {
    /// `OpCapability`.
    Capability = 0,
    /// `OpExtension`.
    Extension,
    /// `OpExtInstImport`.
    ExtInstImport,
    /// `OpMemoryModel` (exactly one).
    MemoryModel,
    /// `OpEntryPoint`.
    EntryPoint,
    /// `OpExecutionMode`, `OpExecutionModeId`.
    ExecutionMode,
    /// OpString, OpSource*, OpName, OpMemberName, OpModuleProcessed.
    Debug,
    /// Decorations.
    Annotation,
    /// Types, constants, global variables, OpUndef and module-level OpLine / OpExtInst.
    Global,
}

impl Section {
    /// Every section, in logical-layout order (`Section as usize` indexes this array).
    pub const ALL: [Section; 9] = [
        Section::Capability,
        Section::Extension,
        Section::ExtInstImport,
        Section::MemoryModel,
        Section::EntryPoint,
        Section::ExecutionMode,
        Section::Debug,
        Section::Annotation,
        Section::Global,
    ];

    /// The module-level section an opcode belongs to, or `None` for function-body opcodes and
    /// opcodes we do not know. A table lookup.
    pub fn of_opcode(opcode: u16) -> Option<Section> {
        let class = match opcode {
            o if (o as usize) < OPCODE_CLASS.len() => OPCODE_CLASS[o as usize],
            o if o == spirv::Op::DecorateString as u16
                || o == spirv::Op::MemberDecorateString as u16 =>
            {
                Section::Annotation as u8
            }
            _ => NOT_MODULE_LEVEL,
        };
        if (class as usize) < Section::ALL.len() {
            Some(Section::ALL[class as usize])
        } else {
            None
        }
    }
}

/// Whether an opcode may only appear inside a function body (a table lookup).
pub fn is_function_body_only(opcode: u16) -> bool {
    (opcode as usize) < OPCODE_CLASS.len() && OPCODE_CLASS[opcode as usize] == BODY_ONLY
}

const NOT_MODULE_LEVEL: u8 = 0xff;
const BODY_ONLY: u8 = 0xfe;

/// Section (as its index) of every core opcode below 512, or one of the markers above.
static OPCODE_CLASS: [u8; 512] = opcode_classes();

const fn opcode_classes() -> [u8; 512] {
    use spirv::Op;
    let mut t = [NOT_MODULE_LEVEL; 512];
    t[Op::Capability as usize] = Section::Capability as u8;
    t[Op::Extension as usize] = Section::Extension as u8;
    t[Op::ExtInstImport as usize] = Section::ExtInstImport as u8;
    t[Op::MemoryModel as usize] = Section::MemoryModel as u8;
    t[Op::EntryPoint as usize] = Section::EntryPoint as u8;
    t[Op::ExecutionMode as usize] = Section::ExecutionMode as u8;
    t[Op::ExecutionModeId as usize] = Section::ExecutionMode as u8;
    let debug = [
        Op::String,
        Op::SourceExtension,
        Op::Source,
        Op::SourceContinued,
        Op::Name,
        Op::MemberName,
        Op::ModuleProcessed,
    ];
    let mut i = 0;
    while i < debug.len() {
        t[debug[i] as usize] = Section::Debug as u8;
        i += 1;
    }
    let annotations = [
        Op::Decorate,
        Op::MemberDecorate,
        Op::DecorationGroup,
        Op::GroupDecorate,
        Op::GroupMemberDecorate,
        Op::DecorateId,
    ];
    let mut i = 0;
    while i < annotations.len() {
        t[annotations[i] as usize] = Section::Annotation as u8;
        i += 1;
    }
    let body_only = [
        Op::Label,
        Op::FunctionEnd,
        Op::FunctionParameter,
        Op::Phi,
        Op::Branch,
        Op::BranchConditional,
        Op::Switch,
        Op::Return,
        Op::ReturnValue,
        Op::Unreachable,
        Op::Kill,
        Op::LoopMerge,
        Op::SelectionMerge,
        Op::Load,
        Op::Store,
        Op::FunctionCall,
    ];
    let mut i = 0;
    while i < body_only.len() {
        t[body_only[i] as usize] = BODY_ONLY;
        i += 1;
    }
    t
}

/// Where an instruction sits in a function body.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Link {
    pub prev: Option<InstId>,
    pub next: Option<InstId>,
    pub block: Option<BlockId>,
}

/// A basic block: its `OpLabel` instruction and the linked list of its body.
#[derive(Clone, Debug)]
pub struct BlockData {
    /// The block's `OpLabel`.
    pub label: InstId,
    pub(crate) first: Option<InstId>,
    pub(crate) last: Option<InstId>,
    /// The function the block belongs to.
    pub func: FuncId,
}

/// A function: `OpFunction`, what precedes its first block (parameters, debug lines), its
/// blocks in layout order, and `OpFunctionEnd`. `prefix` holds debug instructions that appeared
/// between the previous function and this one.
#[derive(Clone, Debug)]
pub struct Function {
    /// Debug instructions between the previous function and this one.
    pub prefix: Vec<InstId>,
    /// The `OpFunction` instruction.
    pub def: InstId,
    /// What precedes the first block: `OpFunctionParameter`s (and debug lines among them).
    pub header: Vec<InstId>,
    /// The blocks in layout order (the first is the entry block).
    pub blocks: Vec<BlockId>,
    /// The `OpFunctionEnd` instruction.
    pub end: InstId,
}

/// A SPIR-V module as a mutable SSA IR.
#[derive(Clone, Debug)]
pub struct Module {
    /// The five header words.
    pub header: Header,
    /// Every instruction's place in `pool`, by `InstId` (the instruction arena).
    pub(crate) recs: PrimaryMap<InstId, InstRec>,
    /// The instructions' words, each instruction a head word and its words (see
    /// [`crate::inst`]); an instruction that grows is copied to the end, its old words left.
    pub(crate) pool: Vec<u32>,
    pub(crate) links: PrimaryMap<InstId, Link>,
    pub(crate) sections: [Vec<InstId>; 9],
    /// Functions in module order.
    pub functions: PrimaryMap<FuncId, Function>,
    pub(crate) blocks: PrimaryMap<BlockId, BlockData>,
    /// Debug instructions after the last function.
    pub trailing: Vec<InstId>,
    /// Definition of each id (dense, indexed by id number).
    pub(crate) defs: SecondaryMap<Id, Option<InstId>>,
    pub(crate) ext_sets: Vec<(Id, ExtSet)>,
}

impl Module {
    /// An empty module of the given SPIR-V version (`0x00010400` for 1.4).
    pub fn new(version: u32) -> Module {
        Module {
            header: Header {
                version,
                generator: 0,
                bound: 1,
                schema: 0,
                big_endian: false,
            },
            recs: PrimaryMap::new(),
            pool: Vec::new(),
            links: PrimaryMap::new(),
            sections: Default::default(),
            functions: PrimaryMap::new(),
            blocks: PrimaryMap::new(),
            trailing: Vec::new(),
            defs: SecondaryMap::with_capacity(1, None),
            ext_sets: Vec::new(),
        }
    }

    // ---- instructions -------------------------------------------------------------------

    /// The instruction `i`.
    #[inline]
    pub fn inst(&self, i: InstId) -> &Inst {
        let r = self.recs[i];
        debug_assert!(r.len >= 1 && (r.start + r.len) as usize <= self.pool.len());
        // SAFETY: every record is made by `push_words` or `alloc_pooled` (the loader), both of
        // which describe `len >= 1` words inside the pool; the pool never shrinks and records
        // are never edited to point elsewhere, so the range stays in bounds; `&self` keeps the
        // pool borrowed (and unchanged) for the result's lifetime.
        unsafe { Inst::from_raw_parts(self.pool.as_ptr().add(r.start as usize), r.len as usize) }
    }

    /// The instruction `i`, mutably: its words can change, not their number (use
    /// [`Module::replace_inst`] for that). Changing its result id through this bypasses the
    /// definition table; use [`Module::set_result_id`] for that.
    #[inline]
    pub fn inst_mut(&mut self, i: InstId) -> &mut Inst {
        let r = self.recs[i];
        Inst::from_slice_mut(&mut self.pool[r.start as usize..(r.start + r.len) as usize])
    }

    /// Replaces instruction `i` by `inst` (same place in the layout, same `InstId`), keeping
    /// the definition table right. In place when the word count is unchanged; else the new
    /// words go to the end of the pool.
    pub fn replace_inst(&mut self, i: InstId, inst: impl AsRef<Inst>) {
        let inst = inst.as_ref();
        self.forget_def(i);
        let words = inst.as_slice();
        let r = self.recs[i];
        if r.len as usize == words.len() {
            self.pool[r.start as usize..(r.start + r.len) as usize].copy_from_slice(words);
        } else {
            self.recs[i] = self.push_words(words);
        }
        if let Some(id) = inst.result_id() {
            self.set_def(id, Some(i));
        }
    }

    /// Replaces the words of instruction `i` after its head (result type, result, operands),
    /// keeping its opcode: a shorthand for [`Module::replace_inst`].
    pub fn set_inst_words(&mut self, i: InstId, words: &[u32]) {
        let mut inst = self.inst(i).to_owned();
        inst.set_words(words);
        self.replace_inst(i, inst);
    }

    /// Number of instructions ever allocated in the arena (erased ones included).
    pub fn arena_len(&self) -> usize {
        self.recs.len()
    }

    fn push_words(&mut self, words: &[u32]) -> InstRec {
        let start = u32::try_from(self.pool.len()).expect("module below 2^32 words");
        self.pool.extend_from_slice(words);
        InstRec {
            start,
            len: words.len() as u32,
        }
    }

    /// The loader's allocation: the instruction's `len` words (head included) are already in
    /// the pool at `start`; registers its record and its definition (`result`).
    #[inline]
    pub(crate) fn alloc_pooled(&mut self, start: u32, len: u32, result: Option<Id>) -> InstId {
        let id = InstId::from_index(self.recs.len());
        if let Some(r) = result {
            self.set_def(r, Some(id));
        }
        self.recs.push(InstRec { start, len });
        self.links.push(Link::default());
        id
    }

    /// Adds an instruction to the arena without placing it anywhere; registers its definition.
    pub fn alloc_inst(&mut self, inst: impl AsRef<Inst>) -> InstId {
        let inst = inst.as_ref();
        let id = InstId::from_index(self.recs.len());
        if let Some(r) = inst.result_id() {
            self.set_def(r, Some(id));
        }
        let rec = self.push_words(inst.as_slice());
        self.recs.push(rec);
        self.links.push(Link::default());
        id
    }

    pub(crate) fn set_def(&mut self, id: Id, inst: Option<InstId>) {
        self.defs.set(id, inst);
        if id.word() >= self.header.bound {
            self.header.bound = id.word() + 1;
        }
    }

    /// The instruction defining `id`.
    #[inline]
    pub fn def(&self, id: Id) -> Option<InstId> {
        *self.defs.get(id)
    }

    /// The instruction defining `id`, as a reference.
    #[inline]
    pub fn def_inst(&self, id: Id) -> Option<&Inst> {
        self.def(id).map(|i| self.inst(i))
    }

    /// The result type of the value `id`.
    pub fn type_of(&self, id: Id) -> Option<Id> {
        self.def_inst(id).and_then(Inst::result_type)
    }

    /// A fresh id, above every id defined or handed out so far; raises the bound if needed.
    /// (Ids between the highest defined one and a generous input bound are unused, so starting
    /// above the highest defined id keeps side tables proportional to the module, whatever
    /// bound the header claims.)
    pub fn fresh_id(&mut self) -> Id {
        let n = self.defs.len().max(1) as u32;
        self.defs.resize(n as usize + 1);
        if n >= self.header.bound {
            self.header.bound = n + 1;
        }
        Id::new(n).expect("n is at least 1")
    }

    /// One more than the highest id defined or handed out: the size for dense per-id tables.
    pub fn id_capacity(&self) -> usize {
        self.defs.len().max(1)
    }

    /// Changes the result id of `inst`, keeping the definition table right.
    pub fn set_result_id(&mut self, inst: InstId, id: Id) {
        if let Some(old) = self.inst(inst).result_id() {
            if self.def(old) == Some(inst) {
                self.defs[old] = None;
            }
        }
        self.inst_mut(inst).set_result_id(id);
        self.set_def(id, Some(inst));
    }

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
        v.insert(pos.min(v.len()), id);
        id
    }

    /// Keeps only the instructions of section `s` for which `keep` returns true; the others are
    /// erased (their definitions removed). Linear in the section length.
    pub fn retain_section(&mut self, s: Section, mut keep: impl FnMut(&Module, InstId) -> bool) {
        let list = std::mem::take(&mut self.sections[s as usize]);
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

    fn forget_def(&mut self, i: InstId) {
        if let Some(r) = self.inst(i).result_id() {
            if self.def(r) == Some(i) {
                self.defs[r] = None;
            }
        }
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

    // ---- ext inst sets ----------------------------------------------------------------------

    /// The set imported with id `id`.
    pub fn ext_set(&self, id: Id) -> Option<ExtSet> {
        self.ext_sets
            .iter()
            .find(|(i, _)| *i == id)
            .map(|&(_, s)| s)
    }

    /// Registers an imported set (the loader does this for every OpExtInstImport).
    pub fn register_ext_set(&mut self, id: Id, set: ExtSet) {
        self.ext_sets.retain(|(i, _)| *i != id);
        self.ext_sets.push((id, set));
    }

    /// The id of the `OpExtInstImport` of `set`, if imported.
    pub fn ext_set_id(&self, set: ExtSet) -> Option<Id> {
        self.ext_sets
            .iter()
            .find(|(_, s)| *s == set)
            .map(|&(i, _)| i)
    }

    // ---- operands -----------------------------------------------------------------------

    /// Calls `f` with every operand slot of `inst` (the grammar walk).
    pub fn walk(&self, inst: &Inst, f: impl FnMut(OperandSlot)) -> Result<(), grammar::WalkError> {
        grammar::walk_operands(inst.opcode(), &inst.words, self, f)
    }

    /// Calls `on_enum(kind, value)` for every enum operand of `inst` (each set bit of a bit
    /// enum); see [`grammar::walk_operands_with_enums`].
    pub fn walk_enums(
        &self,
        inst: &Inst,
        on_enum: impl FnMut(u16, u32),
    ) -> Result<(), grammar::WalkError> {
        grammar::walk_operands_with_enums(inst.opcode(), &inst.words, self, |_| {}, on_enum)
    }

    /// Calls `f` with every id the instruction `i` uses (not its result id; the result type
    /// counts as a use).
    pub fn for_each_used_id(&self, i: InstId, mut f: impl FnMut(Id)) {
        let inst = self.inst(i);
        let words = &inst.words;
        if grammar::for_each_use_known(inst.opcode(), words, |k| {
            if let Some(id) = Id::new(words[k]) {
                f(id)
            }
        }) {
            return;
        }
        let _ = grammar::walk_operands(inst.opcode(), &inst.words, self, |s| {
            if matches!(s.kind, SlotKind::Id | SlotKind::ResultType) {
                if let Some(id) = Id::new(inst.words[s.index]) {
                    f(id)
                }
            }
        });
    }

    /// Rewrites every used id of instruction `i` through `map` (result id untouched).
    pub fn map_used_ids(&mut self, i: InstId, mut map: impl FnMut(Id) -> Id) {
        let mut positions: smallvec::SmallVec<[usize; 16]> = smallvec::SmallVec::new();
        {
            let inst = self.inst(i);
            if !grammar::for_each_use_known(inst.opcode(), &inst.words, |k| positions.push(k)) {
                let _ = grammar::walk_operands(inst.opcode(), &inst.words, self, |s| {
                    if matches!(s.kind, SlotKind::Id | SlotKind::ResultType) {
                        positions.push(s.index);
                    }
                });
            }
        }
        let inst = self.inst_mut(i);
        for p in positions {
            if let Some(id) = Id::new(inst.words[p]) {
                inst.words[p] = map(id).word();
            }
        }
    }

    /// Replaces every use of `old` by `new` in the whole module (linear scan; use
    /// [`crate::DefUse`] to do it for many ids at once).
    pub fn replace_all_uses(&mut self, old: Id, new: Id) {
        let all: Vec<InstId> = self.all_insts().collect();
        for i in all {
            self.map_used_ids(i, |x| if x == old { new } else { x });
        }
    }

    /// Literal words needed for values of the integer or float type `ty`.
    pub fn literal_words_of_type(&self, ty: Id) -> Option<u32> {
        let t = self.def_inst(ty)?;
        if t.is(spirv::Op::TypeInt) || t.is(spirv::Op::TypeFloat) {
            let width = t.operand_word(0)?;
            Some(width.div_ceil(32).max(1))
        } else {
            None
        }
    }
}

impl WalkContext for Module {
    fn ext_set(&self, set: Id) -> Option<ExtSet> {
        Module::ext_set(self, set)
    }
    fn literal_words_of_value(&self, value: Id) -> Option<u32> {
        let ty = self.type_of(value)?;
        self.literal_words_of_type(ty)
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
