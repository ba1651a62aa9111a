//! The SPIR-V grammar, indexed once: which words of an instruction are ids, literals and strings.
//!
//! The tables in `tables.rs` are generated from SPIRV-Headers' JSON grammars by
//! `ir/grammar/gen_grammar.py`. [`walk_operands`] walks the words of one instruction with them and
//! reports every operand; the loader uses it to validate structure (strings terminated, ids below
//! the bound), and the IR uses it to find and rewrite id operands. Nothing allocates.

pub mod internal;
pub(crate) mod tables;

use crate::id::Id;
use crate::opcode_table::PerOpcode;

/// How an operand word (or run of words) is interpreted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OperandKind {
    /// `<id>` of the result type.
    ResultType,
    /// `<id>` the instruction defines.
    Result,
    /// Any `<id>` reference (IdRef, IdScope, IdMemorySemantics).
    Id,
    /// One literal word (LiteralInteger, LiteralFloat, ext-set enums).
    Literal,
    /// A nul-terminated UTF-8 string packed into words.
    String,
    /// Literal whose width follows from a type (OpConstant, OpSpecConstant, OpSwitch).
    ContextNumber,
    /// The instruction number of `OpExtInst`; operands that follow come from the set's grammar.
    ExtInstNumber,
    /// The opcode of `OpSpecConstantOp`; operands that follow come from that opcode's grammar.
    SpecConstantOp,
    /// A literal then an id (OpSwitch targets).
    PairLiteralId,
    /// An id then a literal.
    PairIdLiteral,
    /// Two ids (OpPhi).
    PairIdId,
    /// A value enum (index into the enum table); enumerants may carry parameters.
    ValueEnum(u16),
    /// A bit enum (index into the enum table); each set bit may carry parameters.
    BitEnum(u16),
}

/// How many times a logical operand occurs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Quantifier {
    /// Exactly once.
    One,
    /// At most once (`?` in the grammar).
    Optional,
    /// Any number of times, to the end of the instruction (`*`).
    Many,
}

/// The grammar's class of an instruction (its `"class"` field), generated per opcode.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GrammarClass {
    /// `@exclude`: the grammar gives no class (many vendor extensions).
    Unclassified,
    /// `Reserved`: opcodes the grammar reserves (no instruction yet).
    Reserved,
    /// `Group`: work-group and subgroup collectives (`OpGroup*`).
    Group,
    /// `Image`: image sampling, reads, writes and queries.
    Image,
    /// `Relational_and_Logical`: comparisons, `OpSelect`, `OpAny`/`OpAll`, ordered/unordered tests.
    RelationalAndLogical,
    /// `Type-Declaration`: `OpType*`.
    TypeDeclaration,
    /// `Non-Uniform`: `OpGroupNonUniform*` subgroup operations.
    NonUniform,
    /// `Arithmetic`: integer and float arithmetic, dot and outer products.
    Arithmetic,
    /// `Memory`: variables, loads, stores, copies, access chains.
    Memory,
    /// `Conversion`: conversions and bitcasts between types.
    Conversion,
    /// `Atomic`: atomic loads, stores and read-modify-writes.
    Atomic,
    /// `Pipe`: OpenCL pipes.
    Pipe,
    /// `Device-Side_Enqueue`: OpenCL device-side kernel enqueue.
    DeviceSideEnqueue,
    /// `Constant-Creation`: `OpConstant*`, `OpSpecConstant*`.
    ConstantCreation,
    /// `Control-Flow`: labels, branches, merges, returns, `OpPhi`.
    ControlFlow,
    /// `Bit`: shifts, bitwise operations, bit-field operations and counts.
    Bit,
    /// `Composite`: vector and composite extract, insert, construct, shuffle.
    Composite,
    /// `Debug`: `OpName`, `OpSource`, `OpString`, `OpLine` and friends.
    Debug,
    /// `Derivative`: fragment derivatives (`OpDPdx`, ...).
    Derivative,
    /// `Annotation`: decorations.
    Annotation,
    /// `Miscellaneous`: `OpNop`, `OpUndef` and the like.
    Miscellaneous,
    /// `Barrier`: control and memory barriers.
    Barrier,
    /// `Graph`: SPV_ARM_graph instructions.
    Graph,
    /// `Mode-Setting`: memory model, entry points, execution modes, capabilities.
    ModeSetting,
    /// `Function`: function definitions, parameters and calls.
    Function,
    /// `Extension`: `OpExtension`, `OpExtInstImport`, `OpExtInst`.
    Extension,
    /// `Primitive`: geometry-shader vertex and primitive emission.
    Primitive,
    /// `Tensor`: SPV_ARM_tensors instructions.
    Tensor,
}

/// Grammar of one core instruction.
#[derive(Debug)]
pub struct InstDesc {
    /// The opcode.
    pub opcode: u16,
    /// The opcode's name (`OpNop`).
    pub name: &'static str,
    /// Its logical operands, in order (result type and result included).
    pub operands: &'static [(OperandKind, Quantifier)],
}

impl InstDesc {
    /// Whether the instruction has a result type operand.
    pub fn has_result_type(&self) -> bool {
        matches!(self.operands.first(), Some((OperandKind::ResultType, _)))
    }
    /// Whether the instruction defines a result id.
    pub fn has_result(&self) -> bool {
        self.operands
            .iter()
            .take(2)
            .any(|(k, _)| *k == OperandKind::Result)
    }
}

/// Grammar of one extended instruction.
#[derive(Debug)]
pub struct ExtInstDesc {
    /// The instruction's number in its set.
    pub number: u32,
    /// Its name in the set's grammar.
    pub name: &'static str,
    /// Its operands after the set and instruction number.
    pub operands: &'static [(OperandKind, Quantifier)],
}

/// An enum operand kind (ValueEnum or BitEnum).
#[derive(Debug)]
pub struct EnumKind {
    /// The operand kind's name in the grammar (e.g. `StorageClass`).
    pub name: &'static str,
    /// Whether it is a bit enum (`BitEnum`) rather than a value enum.
    pub bits: bool,
    /// Its enumerants, sorted by value.
    pub enumerants: &'static [Enumerant],
}

/// One enumerant (or one bit of a bit enum) with the operands that follow it.
#[derive(Debug)]
pub struct Enumerant {
    /// The enumerant's value (for a bit enum: its bit).
    pub value: u32,
    /// Its name.
    pub name: &'static str,
    /// The operands that follow it when it is present.
    pub params: &'static [(OperandKind, Quantifier)],
}

impl EnumKind {
    /// The enumerant with `value`, by binary search.
    pub fn get(&self, value: u32) -> Option<&'static Enumerant> {
        let ens: &'static [Enumerant] = self.enumerants;
        ens.binary_search_by_key(&value, |e| e.value)
            .ok()
            .map(|i| &ens[i])
    }
}

/// What enables an instruction or enumerant, from the grammar: it is allowed when any one of
/// `capabilities` is declared (none listed: no capability needed), and when the module's version
/// is at least `version` or one of `extensions` is declared. For a Capability enumerant,
/// `capabilities` are the capabilities it implicitly declares (it depends on them).
#[derive(Debug)]
pub struct Requirements {
    /// Capabilities enabling it (any one); empty: none needed.
    pub capabilities: &'static [u32],
    /// Extensions enabling it where the version does not.
    pub extensions: &'static [&'static str],
    /// Minimum SPIR-V version as a header word (`0x00MMmm00`); 0 when no core version has it
    /// (an extension must enable it).
    pub version: u32,
}

/// Requirements of a core opcode (`None` for opcodes the grammar does not know).
pub fn inst_requirements(opcode: u16) -> Option<&'static Requirements> {
    let i = *tables::OPCODE_INDEX.get(opcode as usize)?;
    tables::INST_REQUIREMENTS.get(i as usize)
}

/// Requirements of enumerant `value` of the enum kind at `kind` (for a bit enum, `value` is one
/// bit); `None` for unknown enumerants.
pub fn enum_requirements(kind: u16, value: u32) -> Option<&'static Requirements> {
    let k = enum_kind(kind);
    let i = k
        .enumerants
        .binary_search_by_key(&value, |e| e.value)
        .ok()?;
    tables::ENUM_REQUIREMENTS[kind as usize].get(i)
}

/// Index of the enum operand kind named `name` (`"Capability"`, `"Decoration"`, …).
pub fn enum_kind_index(name: &str) -> Option<u16> {
    tables::ENUM_KINDS
        .iter()
        .position(|k| k.name == name)
        .map(|i| i as u16)
}

/// The capabilities capability `cap` implicitly declares (directly; not closed).
pub fn implied_capabilities(cap: u32) -> &'static [u32] {
    static KIND: std::sync::OnceLock<Option<u16>> = std::sync::OnceLock::new();
    KIND.get_or_init(|| enum_kind_index("Capability"))
        .and_then(|k| enum_requirements(k, cap))
        .map_or(&[], |r| r.capabilities)
}

/// The extensions that can stand for `name` wherever the grammar lists it: those listed beside
/// it in every requirement (instruction or enumerant) that lists `name` (`SPV_EXT_split_barrier`
/// → `SPV_INTEL_split_barrier`), in grammar order; empty when `name` is unknown or has none.
pub fn extension_alternatives(name: &str) -> Vec<&'static str> {
    let mut out: Option<Vec<&'static str>> = None;
    for r in tables::INST_REQUIREMENTS
        .iter()
        .chain(tables::ENUM_REQUIREMENTS.iter().flat_map(|r| r.iter()))
        .filter(|r| r.extensions.contains(&name))
    {
        let here = r.extensions.iter().copied().filter(|&e| e != name);
        out = Some(match out {
            None => here.collect(),
            Some(v) => v.into_iter().filter(|e| r.extensions.contains(e)).collect(),
        });
    }
    out.unwrap_or_default()
}

/// Whether any instruction or enumerant of the grammar lists extension `name`.
pub fn is_known_extension(name: &str) -> bool {
    tables::INST_REQUIREMENTS
        .iter()
        .chain(tables::ENUM_REQUIREMENTS.iter().flat_map(|r| r.iter()))
        .any(|r| r.extensions.contains(&name))
}

/// Looks up the grammar of a core opcode (SPIRV-Headers' grammar, then the translator-internal
/// instructions of [`internal`]).
pub fn inst_desc(opcode: u16) -> Option<&'static InstDesc> {
    match tables::OPCODE_INDEX.get(opcode as usize) {
        Some(&i) if i != u16::MAX => tables::INSTRUCTIONS.get(i as usize),
        // Not in SPIRV-Headers: the translator-internal instructions real producers emit.
        _ => internal::inst_desc(opcode),
    }
}

/// Name of an opcode, `"Op<number>"`-free: `None` for opcodes the grammar does not know.
pub fn opcode_name(opcode: u16) -> Option<&'static str> {
    inst_desc(opcode).map(|d| d.name)
}

/// The enum operand kind at `index`.
pub fn enum_kind(index: u16) -> &'static EnumKind {
    &tables::ENUM_KINDS[index as usize]
}

/// Extended instruction sets whose operand layout we know.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ExtSet {
    /// `OpenCL.std`: the OpenCL extended instructions.
    OpenClStd,
    /// `GLSL.std.450`.
    GlslStd450,
    /// `OpenCL.DebugInfo.100`.
    OpenClDebugInfo100,
    /// `DebugInfo` (the older SPIR-V debug info set).
    DebugInfo,
    /// `NonSemantic.*`: every operand is an id by definition.
    NonSemantic,
}

impl ExtSet {
    /// Recognises the set imported by `OpExtInstImport "name"`.
    pub fn from_name(name: &str) -> Option<ExtSet> {
        match name {
            "OpenCL.std" => Some(ExtSet::OpenClStd),
            "GLSL.std.450" => Some(ExtSet::GlslStd450),
            "OpenCL.DebugInfo.100" => Some(ExtSet::OpenClDebugInfo100),
            "DebugInfo" => Some(ExtSet::DebugInfo),
            n if n.starts_with("NonSemantic.") => Some(ExtSet::NonSemantic),
            _ => None,
        }
    }

    /// Whether instructions of this set only carry debug information or other non-semantic data.
    pub fn is_debug_or_non_semantic(self) -> bool {
        matches!(
            self,
            ExtSet::OpenClDebugInfo100 | ExtSet::DebugInfo | ExtSet::NonSemantic
        )
    }

    fn table(self) -> &'static [ExtInstDesc] {
        match self {
            ExtSet::OpenClStd => &tables::OPENCL_STD,
            ExtSet::GlslStd450 => &tables::GLSL_STD_450,
            ExtSet::OpenClDebugInfo100 => &tables::OPENCL_DEBUG_INFO_100,
            ExtSet::DebugInfo => &tables::DEBUG_INFO,
            ExtSet::NonSemantic => &[],
        }
    }

    /// The grammar of instruction `number` of this set.
    pub fn inst(self, number: u32) -> Option<&'static ExtInstDesc> {
        let t = self.table();
        t.binary_search_by_key(&number, |d| d.number)
            .ok()
            .map(|i| &t[i])
    }
}

/// What the walker needs to know about the rest of the module.
pub trait WalkContext {
    /// The extended instruction set imported as `set`.
    fn ext_set(&self, set: Id) -> Option<ExtSet>;
    /// The number of words of a literal of the type of value `value` (OpSwitch selectors).
    fn literal_words_of_value(&self, value: Id) -> Option<u32>;
}

/// One operand found by [`walk_operands`]: where it starts (index into the instruction's operand
/// words, i.e. without the opcode word), how many words, and what it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OperandSlot {
    /// Index of the operand's first word among the instruction's operand words.
    pub index: usize,
    /// How many words it has.
    pub words: usize,
    /// What it is.
    pub kind: SlotKind,
}

/// The interpretation of one operand slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SlotKind {
    /// The result type id.
    ResultType,
    /// The result id.
    Result,
    /// An id operand.
    Id,
    /// A literal number or enumerant word.
    Literal,
    /// A literal string (NUL-terminated, padded to words).
    String,
    /// Words whose meaning the grammar does not give (unknown enumerant, unknown ext inst);
    /// kept verbatim.
    Opaque,
}

/// Why an instruction's words do not fit its grammar.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WalkError {
    /// The words end before a required operand.
    MissingOperand,
    /// A literal string without a NUL terminator.
    UnterminatedString,
    /// A literal string that is not UTF-8.
    InvalidUtf8,
    /// Words (here: how many) left after the last operand.
    ExtraWords(usize),
    /// `OpExtInst` of a set (the id here) whose grammar is not known.
    UnknownExtSet(u32),
    /// `OpSwitch` whose selector type is not an integer type of known width.
    UnknownSwitchSelectorType,
}

impl std::fmt::Display for WalkError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WalkError::MissingOperand => write!(f, "missing operand"),
            WalkError::UnterminatedString => write!(f, "string operand is not nul-terminated"),
            WalkError::InvalidUtf8 => write!(f, "string operand is not valid UTF-8"),
            WalkError::ExtraWords(n) => {
                write!(f, "{n} word(s) beyond the operands the grammar allows")
            }
            WalkError::UnknownExtSet(id) => {
                write!(
                    f,
                    "OpExtInst uses %{id}, which is not an OpExtInstImport of a known set"
                )
            }
            WalkError::UnknownSwitchSelectorType => {
                write!(f, "OpSwitch selector is not a value of integer type")
            }
        }
    }
}

struct Walker<'a, C, F, G> {
    words: &'a [u32],
    pos: usize,
    ctx: &'a C,
    f: F,
    /// Called with (enum kind index, value) for every enum operand (every set bit of a bit enum).
    on_enum: G,
    /// Words of the literal of OpConstant / OpSpecConstant: the rest of the instruction.
    opcode: u16,
}

impl<C: WalkContext, F: FnMut(OperandSlot), G: FnMut(u16, u32)> Walker<'_, C, F, G> {
    fn emit(&mut self, words: usize, kind: SlotKind) -> Result<(), WalkError> {
        if self.pos + words > self.words.len() {
            return Err(WalkError::MissingOperand);
        }
        (self.f)(OperandSlot {
            index: self.pos,
            words,
            kind,
        });
        self.pos += words;
        Ok(())
    }

    fn remaining(&self) -> usize {
        self.words.len() - self.pos
    }

    fn string(&mut self) -> Result<(), WalkError> {
        let start = self.pos;
        let mut end = start;
        loop {
            let Some(&w) = self.words.get(end) else {
                return Err(WalkError::UnterminatedString);
            };
            end += 1;
            if w.to_le_bytes().contains(&0) {
                break;
            }
        }
        let bytes = string_bytes(&self.words[start..end]);
        if std::str::from_utf8(bytes).is_err() {
            return Err(WalkError::InvalidUtf8);
        }
        self.emit(end - start, SlotKind::String)
    }

    fn operands(&mut self, ops: &'static [(OperandKind, Quantifier)]) -> Result<bool, WalkError> {
        for &(kind, quant) in ops {
            match quant {
                Quantifier::One => {
                    if !self.operand(kind)? {
                        return Ok(false);
                    }
                }
                Quantifier::Optional => {
                    if self.remaining() > 0 && !self.operand(kind)? {
                        return Ok(false);
                    }
                }
                Quantifier::Many => {
                    while self.remaining() > 0 {
                        if !self.operand(kind)? {
                            return Ok(false);
                        }
                    }
                }
            }
        }
        Ok(true)
    }

    /// Walks one logical operand. Returns `Ok(false)` when the rest of the instruction became
    /// opaque (unknown enumerant or ext inst), which ends the walk successfully.
    fn operand(&mut self, kind: OperandKind) -> Result<bool, WalkError> {
        match kind {
            OperandKind::ResultType => self.emit(1, SlotKind::ResultType)?,
            OperandKind::Result => self.emit(1, SlotKind::Result)?,
            OperandKind::Id => self.emit(1, SlotKind::Id)?,
            OperandKind::Literal => self.emit(1, SlotKind::Literal)?,
            OperandKind::String => self.string()?,
            OperandKind::ContextNumber => {
                // OpConstant / OpSpecConstant: the literal is the rest of the instruction.
                // OpSwitch's literals are handled by PairLiteralId.
                let n = self.remaining().max(1);
                self.emit(n, SlotKind::Literal)?;
            }
            OperandKind::ExtInstNumber => {
                // words[2] is the set id, words[3] the number (after result type and id).
                let set = self.words.get(self.pos.wrapping_sub(1)).copied();
                self.emit(1, SlotKind::Literal)?;
                let number = self.words[self.pos - 1];
                let set_id = set.and_then(Id::new);
                let ext = set_id.and_then(|s| self.ctx.ext_set(s));
                let Some(ext) = ext else {
                    return Err(WalkError::UnknownExtSet(set.unwrap_or(0)));
                };
                if ext == ExtSet::NonSemantic {
                    while self.remaining() > 0 {
                        self.emit(1, SlotKind::Id)?;
                    }
                    return Ok(true);
                }
                match ext.inst(number) {
                    Some(desc) => return self.operands(desc.operands),
                    None => {
                        self.opaque();
                        return Ok(false);
                    }
                }
            }
            OperandKind::SpecConstantOp => {
                // An opcode of OpSpecConstantOp itself (invalid SPIR-V, well formed for the
                // grammar) is followed by another opcode, and so on: read the run of them in a
                // loop, exactly as the grammar's recursion would, so a 65,535-word instruction
                // is not 65,535 nested calls (a stack overflow on hostile input).
                let op = loop {
                    self.emit(1, SlotKind::Literal)?;
                    let op = self.words[self.pos - 1];
                    if op != spirv::Op::SpecConstantOp as u32 {
                        break op;
                    }
                };
                let desc = u16::try_from(op).ok().and_then(inst_desc);
                match desc {
                    Some(d) => {
                        let ops = d.operands;
                        let skip = ops
                            .iter()
                            .take_while(|(k, _)| {
                                matches!(k, OperandKind::ResultType | OperandKind::Result)
                            })
                            .count();
                        return self.operands(&ops[skip..]);
                    }
                    None => {
                        self.opaque();
                        return Ok(false);
                    }
                }
            }
            OperandKind::PairLiteralId => {
                let width = if self.opcode == spirv::Op::Switch as u16 {
                    let selector = self.words.first().copied().and_then(Id::new);
                    selector
                        .and_then(|s| self.ctx.literal_words_of_value(s))
                        .ok_or(WalkError::UnknownSwitchSelectorType)? as usize
                } else {
                    1
                };
                self.emit(width, SlotKind::Literal)?;
                self.emit(1, SlotKind::Id)?;
            }
            OperandKind::PairIdLiteral => {
                self.emit(1, SlotKind::Id)?;
                self.emit(1, SlotKind::Literal)?;
            }
            OperandKind::PairIdId => {
                self.emit(1, SlotKind::Id)?;
                self.emit(1, SlotKind::Id)?;
            }
            OperandKind::ValueEnum(k) => {
                self.emit(1, SlotKind::Literal)?;
                let value = self.words[self.pos - 1];
                (self.on_enum)(k, value);
                match enum_kind(k).get(value) {
                    Some(e) => return self.operands(e.params),
                    None => {
                        self.opaque();
                        return Ok(false);
                    }
                }
            }
            OperandKind::BitEnum(k) => {
                self.emit(1, SlotKind::Literal)?;
                let mask = self.words[self.pos - 1];
                let kind = enum_kind(k);
                let mut bits = mask;
                while bits != 0 {
                    let bit = bits & bits.wrapping_neg();
                    bits &= bits - 1;
                    (self.on_enum)(k, bit);
                    match kind.get(bit) {
                        Some(e) => {
                            if !self.operands(e.params)? {
                                return Ok(false);
                            }
                        }
                        None => {
                            self.opaque();
                            return Ok(false);
                        }
                    }
                }
            }
        }
        Ok(true)
    }

    fn opaque(&mut self) {
        let n = self.remaining();
        if n > 0 {
            (self.f)(OperandSlot {
                index: self.pos,
                words: n,
                kind: SlotKind::Opaque,
            });
            self.pos += n;
        }
    }
}

/// Walks the operand words of one instruction (`words` excludes the word-count/opcode word) and
/// calls `f` for every operand slot, in order. Unknown opcodes report all words as opaque.
pub fn walk_operands<C: WalkContext>(
    opcode: u16,
    words: &[u32],
    ctx: &C,
    f: impl FnMut(OperandSlot),
) -> Result<(), WalkError> {
    walk_operands_with_enums(opcode, words, ctx, f, |_, _| {})
}

/// [`walk_operands`], also calling `on_enum(kind, value)` for every enum operand (kind is the
/// index for [`enum_kind`] / [`enum_requirements`]; a bit enum reports each set bit), before
/// the enumerant's parameters are walked.
pub fn walk_operands_with_enums<C: WalkContext>(
    opcode: u16,
    words: &[u32],
    ctx: &C,
    f: impl FnMut(OperandSlot),
    on_enum: impl FnMut(u16, u32),
) -> Result<(), WalkError> {
    let mut w = Walker {
        words,
        pos: 0,
        ctx,
        f,
        on_enum,
        opcode,
    };
    let Some(desc) = inst_desc(opcode) else {
        w.opaque();
        return Ok(());
    };
    if w.operands(desc.operands)? && w.remaining() > 0 {
        return Err(WalkError::ExtraWords(w.remaining()));
    }
    Ok(())
}

/// The bytes of a string operand, up to (not including) the terminating nul.
pub fn string_bytes(words: &[u32]) -> &[u8] {
    // SAFETY-free reinterpretation: collect via a slice of the words' little-endian bytes.
    let bytes: &[u8] = bytemuck_words(words);
    let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
    &bytes[..end]
}

/// Reads a string operand starting at `words[0]`; `None` if unterminated or not UTF-8.
pub fn decode_string(words: &[u32]) -> Option<&str> {
    let bytes: &[u8] = bytemuck_words(words);
    let end = bytes.iter().position(|&b| b == 0)?;
    std::str::from_utf8(&bytes[..end]).ok()
}

/// Encodes `s` as a nul-terminated, zero-padded word string.
pub fn encode_string(s: &str) -> Vec<u32> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len() / 4 + 1);
    for chunk in bytes.chunks(4) {
        let mut b = [0u8; 4];
        b[..chunk.len()].copy_from_slice(chunk);
        out.push(u32::from_le_bytes(b));
    }
    if bytes.len().is_multiple_of(4) {
        out.push(0);
    }
    out
}

fn bytemuck_words(words: &[u32]) -> &[u8] {
    // u32 has no padding and any byte pattern is a valid u8, so viewing the words as bytes is
    // sound; on big-endian hosts the byte order would differ, which we do not support.
    #[cfg(target_endian = "big")]
    compile_error!("spvopt-ir assumes a little-endian host");
    // SAFETY: the pointer and length describe exactly the memory of `words`; u8 has alignment 1.
    unsafe { std::slice::from_raw_parts(words.as_ptr().cast::<u8>(), std::mem::size_of_val(words)) }
}

/// The operand layout of an opcode when it is simple enough to find ids without walking:
/// a fixed prefix of single-word operands (which of them are used ids is a bit mask) and an
/// optional tail that is all ids or all literals.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FastShape {
    /// Bit i set: word i of the fixed prefix is a used id (result type or id operand).
    pub use_mask: u32,
    /// Number of words in the fixed prefix.
    pub fixed: u8,
    /// What follows the prefix.
    pub tail: FastTail,
}

/// The words after a [`FastShape`]'s fixed prefix.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FastTail {
    /// Nothing may follow: the fast shape applies only when the instruction has exactly the
    /// prefix's length.
    Nothing,
    /// Every remaining word is a used id (OpPhi pairs, call arguments, composite parts).
    Ids,
    /// Every remaining word is a literal.
    Literals,
    /// The last operand is a value enum (index for [`enum_kind`]) whose enumerants carry
    /// parameters (`OpDecorate`'s decoration, `OpExecutionMode`'s mode): fast when the
    /// enumerant is known and its parameters are single words filling the instruction
    /// exactly ([`enum_tail_uses`]).
    Enum(u16),
    /// The last operand is an optional bit enum (`OpLoad`'s memory access, a multiply-
    /// accumulate's operands mask): fast when absent, or when every set bit is known and the
    /// bits' parameters are single words filling the instruction exactly ([`enum_tail_uses`]).
    Bits(u16),
}

/// For the words of an enum operand that ends an instruction (`words[0]` the enum's value or
/// bit mask, the enumerants' parameters after it): bit k set for each parameter word k that
/// is a used id, if every enumerant is known and its parameters are single words that fill
/// `words` exactly (what the grammar walk then finds). `None` otherwise (the caller walks).
#[inline]
pub fn enum_tail_uses(kind: u16, bits: bool, words: &[u32]) -> Option<u32> {
    let (&value, _) = words.split_first()?;
    let kind = enum_kind(kind);
    let mut uses = 0u32;
    let mut pos = 1usize;
    let mut take = |params: &[(OperandKind, Quantifier)]| -> Option<()> {
        for &(p, q) in params {
            if q != Quantifier::One || pos >= 32 {
                return None;
            }
            if single_word_kind(p)? {
                uses |= 1 << pos;
            }
            pos += 1;
        }
        Some(())
    };
    if bits {
        let mut rest = value;
        while rest != 0 {
            let bit = rest & rest.wrapping_neg();
            rest &= rest - 1;
            take(kind.get(bit)?.params)?;
        }
    } else {
        take(kind.get(value)?.params)?;
    }
    (pos == words.len()).then_some(uses)
}

fn single_word_kind(kind: OperandKind) -> Option<bool> {
    // Some(true): an id use; Some(false): a literal or the result id; None: not one plain word.
    match kind {
        OperandKind::ResultType | OperandKind::Id => Some(true),
        OperandKind::Result | OperandKind::Literal => Some(false),
        OperandKind::ValueEnum(k) | OperandKind::BitEnum(k) => enum_kind(k)
            .enumerants
            .iter()
            .all(|e| e.params.is_empty())
            .then_some(false),
        _ => None,
    }
}

fn compute_fast_shape(desc: &InstDesc) -> Option<FastShape> {
    let mut use_mask = 0u32;
    let mut fixed = 0u8;
    let mut tail = FastTail::Nothing;
    for (n, &(kind, quant)) in desc.operands.iter().enumerate() {
        let last = n + 1 == desc.operands.len();
        match quant {
            Quantifier::One => {
                let Some(is_use) = single_word_kind(kind) else {
                    return match kind {
                        OperandKind::ValueEnum(k) if last => Some(FastShape {
                            use_mask,
                            fixed,
                            tail: FastTail::Enum(k),
                        }),
                        // `OpConstant`'s value: at least one literal word, all the rest.
                        OperandKind::ContextNumber if last && fixed < 32 => Some(FastShape {
                            use_mask,
                            fixed: fixed + 1,
                            tail: FastTail::Literals,
                        }),
                        _ => None,
                    };
                };
                if fixed >= 32 {
                    return None;
                }
                if is_use {
                    use_mask |= 1 << fixed;
                }
                fixed += 1;
            }
            Quantifier::Optional | Quantifier::Many => {
                if !last {
                    // An optional operand followed by more: only the exact-length case is fast.
                    return None;
                }
                tail = match kind {
                    OperandKind::Id | OperandKind::PairIdId => FastTail::Ids,
                    OperandKind::Literal => FastTail::Literals,
                    OperandKind::BitEnum(k) if quant == Quantifier::Optional => FastTail::Bits(k),
                    // Other optional tails (memory operands, loop controls, …): fast only
                    // when absent.
                    _ => FastTail::Nothing,
                };
            }
        }
    }
    Some(FastShape {
        use_mask,
        fixed,
        tail,
    })
}

/// For an opcode whose operands are single words and then one string, last (`OpName`,
/// `OpMemberName`, `OpString`, `OpExtension`, `OpExtInstImport`, …): which prefix words are
/// used ids (bit mask) and how many words the prefix has. With a well-formed string tail
/// (see [`is_exact_string`]) the grammar walk has nothing else to find.
pub fn string_tail_shape(opcode: u16) -> Option<(u32, u8)> {
    let desc = inst_desc(opcode)?;
    let (last, prefix) = desc.operands.split_last()?;
    if *last != (OperandKind::String, Quantifier::One) || prefix.len() >= 32 {
        return None;
    }
    let mut use_mask = 0u32;
    for (n, &(kind, quant)) in prefix.iter().enumerate() {
        if quant != Quantifier::One {
            return None;
        }
        if single_word_kind(kind)? {
            use_mask |= 1 << n;
        }
    }
    Some((use_mask, prefix.len() as u8))
}

/// Whether `words` are exactly one nul-terminated UTF-8 string (what the grammar walk accepts
/// for a string operand that ends the instruction).
#[inline]
pub fn is_exact_string(words: &[u32]) -> bool {
    let Some((&last, init)) = words.split_last() else {
        return false;
    };
    !init.iter().any(|w| w.to_le_bytes().contains(&0))
        && last.to_le_bytes().contains(&0)
        && std::str::from_utf8(string_bytes(words)).is_ok()
}

/// Whether words of this operand kind (with every enumerant's parameters) can never hold an
/// id.
fn never_holds_id(kind: OperandKind) -> bool {
    match kind {
        OperandKind::Literal | OperandKind::String | OperandKind::ContextNumber => true,
        OperandKind::ValueEnum(k) | OperandKind::BitEnum(k) => enum_kind(k)
            .enumerants
            .iter()
            .all(|e| e.params.iter().all(|&(p, _)| never_holds_id(p))),
        _ => false,
    }
}

/// Like [`compute_fast_shape`], for finding ids in an instruction already known to be well
/// formed: a tail of any structure that can hold no id (strings, enums with literal
/// parameters, context-dependent numbers) ends the shape as [`FastTail::Literals`].
fn compute_use_shape(desc: &InstDesc) -> Option<FastShape> {
    let mut use_mask = 0u32;
    let mut fixed = 0u8;
    for (n, &(kind, quant)) in desc.operands.iter().enumerate() {
        let last = n + 1 == desc.operands.len();
        let plain = match quant {
            Quantifier::One => single_word_kind(kind),
            _ => None,
        };
        match plain {
            Some(is_use) if fixed < 32 => {
                if is_use {
                    use_mask |= 1 << fixed;
                }
                fixed += 1;
            }
            _ => {
                let rest = &desc.operands[n..];
                let tail = if rest.iter().all(|&(k, _)| never_holds_id(k)) {
                    FastTail::Literals
                } else if let (true, Quantifier::One, OperandKind::ValueEnum(k)) =
                    (last, quant, kind)
                {
                    FastTail::Enum(k)
                } else if let (true, Quantifier::Optional, OperandKind::BitEnum(k)) =
                    (last, quant, kind)
                {
                    FastTail::Bits(k)
                } else if last
                    && quant != Quantifier::One
                    && matches!(kind, OperandKind::Id | OperandKind::PairIdId)
                {
                    FastTail::Ids
                } else {
                    return None;
                };
                return Some(FastShape {
                    use_mask,
                    fixed,
                    tail,
                });
            }
        }
    }
    Some(FastShape {
        use_mask,
        fixed,
        tail: FastTail::Nothing,
    })
}

/// Calls `f(word_index)` for every used-id word of an instruction whose operands are known
/// to be well formed (a loaded module), covering more opcodes than [`for_each_use_fast`]
/// (which also stands for a structural check). Returns `false` (calling nothing) when the
/// caller must walk the grammar.
#[inline]
pub fn for_each_use_known(opcode: u16, words: &[u32], f: impl FnMut(usize)) -> bool {
    static TABLE: PerOpcode<Option<FastShape>> = PerOpcode::new();
    match TABLE.get(opcode, |op| inst_desc(op).and_then(compute_use_shape)) {
        Some(shape) => visit_shape(shape, words, f),
        None => false,
    }
}

/// Whether [`walk_operands_with_enums`] can report any enum operand for `opcode`: `false`
/// when none of its operands is an enum (or an operand whose grammar comes from elsewhere:
/// ext-inst sets, `OpSpecConstantOp`). Unknown opcodes answer `true`. A table lookup.
pub fn may_have_enum_operands(opcode: u16) -> bool {
    static TABLE: PerOpcode<bool> = PerOpcode::new();
    TABLE.get(opcode, |op| {
        inst_desc(op).is_none_or(|d| {
            d.operands.iter().any(|&(k, _)| {
                matches!(
                    k,
                    OperandKind::ValueEnum(_)
                        | OperandKind::BitEnum(_)
                        | OperandKind::ExtInstNumber
                        | OperandKind::SpecConstantOp
                )
            })
        })
    })
}

/// One past the highest opcode the grammar knows: per-opcode tables need no more entries
/// (every opcode at or above it is unknown).
pub fn opcode_table_len() -> usize {
    tables::OPCODE_INDEX.len()
}

/// The fast shape of `opcode`, if it has one (computed on the opcode's first use).
pub fn fast_shape(opcode: u16) -> Option<FastShape> {
    static TABLE: PerOpcode<Option<FastShape>> = PerOpcode::new();
    TABLE.get(opcode, |op| inst_desc(op).and_then(compute_fast_shape))
}

/// Calls `f(word_index)` for every used-id word (result type and id operands) of an
/// instruction. Returns `false` (calling nothing) when the fast path does not apply and the
/// caller must walk the grammar.
#[inline]
pub fn for_each_use_fast(opcode: u16, words: &[u32], f: impl FnMut(usize)) -> bool {
    match fast_shape(opcode) {
        Some(shape) => visit_shape(shape, words, f),
        None => false,
    }
}

/// Calls `f` for every use word of `shape` in `words`; `false` when `words` does not fit it.
#[inline]
fn visit_shape(shape: FastShape, words: &[u32], mut f: impl FnMut(usize)) -> bool {
    let fixed = shape.fixed as usize;
    let ids_tail = match shape.tail {
        FastTail::Nothing if words.len() == fixed => false,
        FastTail::Ids if words.len() >= fixed => true,
        FastTail::Literals if words.len() >= fixed => false,
        FastTail::Enum(_) | FastTail::Bits(_) => return visit_enum_tail(shape, words, f),
        _ => return false,
    };
    for_each_bit(shape.use_mask, 0, &mut f);
    if ids_tail {
        for i in fixed..words.len() {
            f(i);
        }
    }
    true
}

/// [`visit_shape`] for a shape that ends with an enum ([`FastTail::Enum`], [`FastTail::Bits`]).
#[inline(never)]
fn visit_enum_tail(shape: FastShape, words: &[u32], mut f: impl FnMut(usize)) -> bool {
    let fixed = shape.fixed as usize;
    if words.len() < fixed {
        return false;
    }
    let tail_uses = match shape.tail {
        FastTail::Bits(_) if words.len() == fixed => Some(0),
        FastTail::Bits(k) => enum_tail_uses(k, true, &words[fixed..]),
        FastTail::Enum(k) => enum_tail_uses(k, false, &words[fixed..]),
        _ => None,
    };
    let Some(tail_uses) = tail_uses else {
        return false;
    };
    for_each_bit(shape.use_mask, 0, &mut f);
    for_each_bit(tail_uses, fixed, &mut f);
    true
}

/// Calls `f(offset + k)` for every set bit k of `mask`, lowest first.
#[inline]
fn for_each_bit(mut mask: u32, offset: usize, f: &mut impl FnMut(usize)) {
    while mask != 0 {
        f(offset + mask.trailing_zeros() as usize);
        mask &= mask - 1;
    }
}
