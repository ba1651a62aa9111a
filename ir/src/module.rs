//! The module: header, the instructions and their definitions, and the layout's records.
//!
//! What an instruction is lives here: every instruction is a record (`InstId` → where its words
//! are) over one pooled word buffer (see [`crate::inst`]), and definitions are a dense per-id
//! table (`SecondaryMap<Id, Option<InstId>>`). Where instructions sit is separate (cranelift's
//! `Layout` vs `DataFlowGraph` split): the records of the layout (module-level sections as
//! vectors of `InstId` in logical-layout order, functions, blocks whose instructions form a
//! doubly linked list) are declared here, and the code that orders and links them is in
//! [`crate::layout`].

use crate::entity::{PrimaryMap, SecondaryMap};
use crate::grammar::{self, ExtSet, OperandSlot, SlotKind, WalkContext};
use crate::id::{BlockId, FuncId, Id, InstId};
use crate::inst::Inst;

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

/// The links of the instructions by `InstId`, without the module-level instructions a loaded
/// module starts with (on a large module mostly names, which no block ever holds): the table
/// starts at `base`, and reads below it see no link. A write below it (only a misuse that
/// moves a module-level instruction into a block makes one) widens the table first.
#[derive(Clone, Debug, Default)]
pub(crate) struct Links {
    base: usize,
    links: Vec<Link>,
}

const NO_LINK: Link = Link {
    prev: None,
    next: None,
    block: None,
};

impl Links {
    /// Adds the (empty) link of the instruction just allocated as `i`.
    #[inline]
    pub(crate) fn push_default(&mut self, i: InstId) {
        if i.index() >= self.base {
            debug_assert_eq!(i.index() - self.base, self.links.len());
            self.links.push(NO_LINK);
        }
    }

    /// Adds the link of the instruction just allocated as `i`, which sits in a block (so the
    /// table has started: `i` is at or above `base`).
    #[inline]
    pub(crate) fn push_linked(&mut self, i: InstId, link: Link) {
        if i.index() < self.base {
            self.widen();
        }
        debug_assert_eq!(i.index() - self.base, self.links.len());
        self.links.push(link);
    }

    /// Makes the table start at instruction index `base` (the loader, before the first
    /// instruction that can be in a block; nothing may be stored yet).
    pub(crate) fn start_at(&mut self, base: usize) {
        debug_assert!(self.links.is_empty());
        self.base = base;
    }

    /// Makes the table start at instruction 0 (a write below `base`: rare, linear once).
    #[cold]
    #[inline(never)]
    fn widen(&mut self) {
        let mut all = vec![NO_LINK; self.base];
        all.append(&mut self.links);
        self.links = all;
        self.base = 0;
    }

    /// Room for `n` more links.
    pub(crate) fn reserve(&mut self, n: usize) {
        self.links.reserve(n);
    }
}

impl std::ops::Index<InstId> for Links {
    type Output = Link;
    #[inline(always)]
    fn index(&self, i: InstId) -> &Link {
        match i.index().checked_sub(self.base) {
            Some(k) => &self.links[k],
            None => &NO_LINK,
        }
    }
}

impl std::ops::IndexMut<InstId> for Links {
    #[inline(always)]
    fn index_mut(&mut self, i: InstId) -> &mut Link {
        if i.index() < self.base {
            self.widen();
        }
        &mut self.links[i.index() - self.base]
    }
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
    pub(crate) links: Links,
    pub(crate) sections: [Vec<InstId>; 9],
    /// Functions in module order.
    pub functions: PrimaryMap<FuncId, Function>,
    pub(crate) blocks: PrimaryMap<BlockId, BlockData>,
    /// Debug instructions after the last function.
    pub trailing: Vec<InstId>,
    /// Definition of each id (dense, indexed by id number).
    pub(crate) defs: SecondaryMap<Id, Option<InstId>>,
    pub(crate) ext_sets: Vec<(Id, ExtSet)>,
    /// The types and constants by value, for [`crate::Interner`] (kept across passes).
    pub(crate) interned: crate::intern_table::InternTable,
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
            links: Links::default(),
            sections: Default::default(),
            functions: PrimaryMap::new(),
            blocks: PrimaryMap::new(),
            trailing: Vec::new(),
            defs: SecondaryMap::with_capacity(1, None),
            ext_sets: Vec::new(),
            interned: Default::default(),
        }
    }

    // ---- instructions -------------------------------------------------------------------

    /// The word count of instruction `i` (without touching its words).
    #[inline]
    pub(crate) fn inst_len(&self, i: InstId) -> usize {
        self.recs[i].len as usize
    }

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
    /// (A type or constant handed out this way may change under the interning table, which is
    /// forgotten then.)
    #[inline]
    pub fn inst_mut(&mut self, i: InstId) -> &mut Inst {
        let r = self.recs[i];
        let inst =
            Inst::from_slice_mut(&mut self.pool[r.start as usize..(r.start + r.len) as usize]);
        if crate::intern_table::is_internable(inst.op()) {
            self.interned.invalidate();
        }
        inst
    }

    /// Replaces instruction `i` by `inst` (same place in the layout, same `InstId`), keeping
    /// the definition table right. In place when the word count is unchanged; else the new
    /// words go to the end of the pool.
    pub fn replace_inst(&mut self, i: InstId, inst: impl AsRef<Inst>) {
        let inst = inst.as_ref();
        if crate::intern_table::is_internable(inst.op())
            || crate::intern_table::is_internable(self.inst(i).op())
        {
            self.interned.invalidate();
        }
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
        self.links.push_default(id);
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
        self.links.push_default(id);
        id
    }

    pub(crate) fn set_def(&mut self, id: Id, inst: Option<InstId>) {
        self.defs.set(id, inst);
        if id.word() >= self.header.bound {
            self.header.bound = id.word() + 1;
        }
    }

    /// Removes `i`'s result from the definition table (if it is the definer).
    pub(crate) fn forget_def(&mut self, i: InstId) {
        if let Some(r) = self.inst(i).result_id() {
            if self.def(r) == Some(i) {
                self.defs[r] = None;
            }
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
