//! The SPIR-V grammar, indexed once: which words of an instruction are ids, literals and strings.
//!
//! The tables in `tables.rs` are generated from SPIRV-Headers' JSON grammars by
//! `ir/grammar/gen_grammar.py`. [`walk_operands`] walks the words of one instruction with them and
//! reports every operand; the loader uses it to validate structure (strings terminated, ids below
//! the bound), and the IR uses it to find and rewrite id operands. Nothing allocates.

mod fast_shape;
pub mod internal;
mod strings;
pub(crate) mod tables;
mod walk;

pub use fast_shape::*;
pub use strings::*;
pub use walk::*;

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
