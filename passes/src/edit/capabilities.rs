//! The module's capabilities, extensions and SPIR-V version: [`run`] declares exactly those the
//! module uses and the version its features need (`legalize`'s rule, which every pass that adds
//! or removes features re-applies); [`has_capability`], [`ensure_capability`],
//! [`has_extension`] and [`ensure_extension`] test or add one.
//!
//! What: every instruction's opcode and enum operands are read (per-opcode layouts,
//! [`for_each_enum_requirement`]; the grammar walk where a layout does not fit); the opcode and every enum
//! operand (storage classes, decorations, execution modes, memory and
//! addressing models, …) contribute the grammar's requirements: "any one of these
//! capabilities", "one of these extensions or at least this version". Requirements the
//! grammar does not list are added from types: `OpTypeInt` 8/16/64 → Int8/Int16/Int64 (other
//! widths → Int4TypeINTEL / ArbitraryPrecisionIntegersALTERA), `OpTypeFloat` 16 → Float16 or
//! Float16Buffer (whichever is declared; Float16 when neither), 64 → Float64, vectors of 8/16
//! components → Vector16, other counts above 4 → VectorAnyINTEL or LongVectorEXT (whichever is declared), 64-bit integer atomics →
//! Int64Atomics, body-less functions → Linkage; DPC++ joint_matrix's translator-internal
//! instructions (not in the grammar) → their capabilities 6192 / 6411 / 6435, and the other
//! translator-internal instructions (sigmoid, FP conversions, scaled MMA) → theirs; the
//! translator-internal capabilities no instruction of the table needs (BFloat16ArithmeticINTEL,
//! …) are kept as declared.
//! - Capabilities: a requirement is met when one of its capabilities is declared or implicitly
//!   declared by a declared one (closure under "Implicitly Declares"); otherwise the first
//!   listed one is added (for Kernel modules, the first that does not imply Shader). A
//!   declared capability nothing needs — neither directly nor as an implied dependency of a
//!   needed one — is removed; Addresses and Kernel are always kept.
//! - Extensions: a requirement whose extension is declared keeps that extension; one without a
//!   core version (grammar version "None") and with no declared extension adds the first
//!   listed. Declared capabilities contribute their own requirements. A declared extension
//!   nothing lists is removed, unless the grammar does not know it (kept).
//! - Version: raised to the highest minimum version of the requirements met by version rather
//!   than extension; above [`MAX_VERSION`] (the Level Zero environment's maximum) it is an
//!   error naming the first instruction that needs it. A module declaring a version above
//!   [`MAX_VERSION`] (e.g. assembled as 1.6) whose features need at most [`MAX_VERSION`] is
//!   lowered to it: Intel's drivers and OpenCL runtimes accept SPIR-V up to 1.4.
//!   Lowering from 1.5/1.6 to 1.4 is exact: nothing 1.5 or 1.6 added is used (checked
//!   above), and 1.4's rule that entry points list every global they use still holds.
//!
//! Why correct: capabilities, extensions and the version only declare what the module uses;
//! each is derived from the instructions, operands and types that need it, and the grammar's
//! rules for what enables them.
//! Requirements that change nothing (no capability, no extension, version 1.0) are skipped.
//! Cost: one pass over the module: a per-opcode table lookup per instruction (most need nothing
//! more), the enum operands of those that have them.

use spirv::Op;
use spvopt_analysis::fxhash::FxHashSet;
use spvopt_ir::grammar::{
    decode_string, encode_string, enum_kind, enum_kind_index, enum_requirements,
    implied_capabilities, inst_requirements, is_known_extension, Requirements,
};
use spvopt_ir::opcode_class::{op_class, OpClass};
use spvopt_ir::opcode_table::PerOpcode;
use spvopt_ir::{Inst, InstId, Module, Section};

use crate::diagnostic::{Diagnostic, Location};
use crate::edit::enum_operands::for_each_enum_requirement;
use crate::pass::Statistics;

/// Highest SPIR-V version this pass may raise a module to: 1.4, what the Level Zero drivers
/// report in `ze_device_module_properties_t::spirvVersionSupported` for the supported devices.
pub const MAX_VERSION: u32 = 0x0001_0400;

const SHADER: u32 = 1;
const ADDRESSES: u32 = 4;
const KERNEL: u32 = 6;

/// Capability number of `name` (from the grammar).
fn cap(name: &str) -> u32 {
    let k = enum_kind_index("Capability").expect("grammar has Capability");
    enum_kind(k)
        .enumerants
        .iter()
        .find(|e| e.name == name)
        .map(|e| e.value)
        .unwrap_or_else(|| panic!("unknown capability {name}"))
}

/// One requirement: any of `caps` (empty: none), and one of `exts` or `version`.
struct Need {
    caps: Vec<u32>,
    exts: &'static [&'static str],
    version: u32,
    at: Option<InstId>,
}

impl Need {
    fn from(r: &'static Requirements, at: InstId) -> Need {
        Need {
            caps: r.capabilities.to_vec(),
            exts: r.extensions,
            version: r.version,
            at: Some(at),
        }
    }
    fn caps(caps: Vec<u32>, at: InstId) -> Need {
        Need {
            caps,
            exts: &[],
            version: 0,
            at: Some(at),
        }
    }
}

/// `set` closed under implicit declaration.
fn closure(set: &[u32]) -> Vec<u32> {
    let mut out: Vec<u32> = set.to_vec();
    let mut i = 0;
    while i < out.len() {
        for &c in implied_capabilities(out[i]) {
            if !out.contains(&c) {
                out.push(c);
            }
        }
        i += 1;
    }
    out
}

fn int_width(m: &Module, ty: Option<spvopt_ir::Id>) -> Option<u32> {
    let t = m.def_inst(ty?)?;
    if t.is(Op::TypeInt) {
        t.operand_word(0)
    } else {
        None
    }
}

/// Collects requirements, keeping only the first instruction of each distinct one (what the
/// decisions and the error locations use), so memory stays proportional to the distinct ones.
struct Needs {
    list: Vec<Need>,
    /// Grammar requirements already recorded, by address (they are statics).
    seen_grammar: FxHashSet<usize>,
    /// Type-based capability alternatives already recorded.
    seen_caps: Vec<Vec<u32>>,
}

impl Needs {
    fn grammar(&mut self, r: &'static Requirements, at: InstId) {
        if self.seen_grammar.insert(r as *const Requirements as usize) {
            self.list.push(Need::from(r, at));
        }
    }
    fn push(&mut self, n: Need) {
        // A handful of distinct type-based requirements exist: a linear check is enough.
        if !self.seen_caps.contains(&n.caps) {
            self.seen_caps.push(n.caps.clone());
            self.list.push(n);
        }
    }
}

/// Whether a requirement changes nothing: no capability, no extension, no version above 1.0
/// (what every requirement meets; `run` passes over such a need without effect).
fn is_trivial(r: &Requirements) -> bool {
    r.capabilities.is_empty() && r.extensions.is_empty() && r.version <= 0x0001_0000
}

/// What [`collect_needs`] looks at for an opcode (bits of [`opcode_flags`]).
const OWN_REQUIREMENT: u8 = 1;
const INTERNAL_CAPABILITY: u8 = 2;
const ENUM_OPERANDS: u8 = 4;
const TYPE_BASED: u8 = 8;

/// What may contribute requirements for instructions of `opcode`, decided once per opcode:
/// its own (non-trivial) requirement, a translator-internal capability, enum operands, the
/// type-based rules. 0: nothing (most instructions); `OpCapability` / `OpExtension` always 0.
#[inline]
fn opcode_flags(opcode: u16) -> u8 {
    static TABLE: PerOpcode<u8> = PerOpcode::new();
    TABLE.get(opcode, |op| {
        if op == Op::Capability as u16 || op == Op::Extension as u16 {
            return 0;
        }
        let mut flags = 0;
        if inst_requirements(op).is_some_and(|r| !is_trivial(r)) {
            flags |= OWN_REQUIREMENT;
        }
        if spvopt_ir::grammar::internal::capability_of(op).is_some() {
            flags |= INTERNAL_CAPABILITY;
        }
        if spvopt_ir::grammar::may_have_enum_operands(op) {
            flags |= ENUM_OPERANDS;
        }
        let typed = match spvopt_ir::inst::op_of(op) {
            Some(Op::TypeInt | Op::TypeFloat | Op::TypeVector | Op::Function) => true,
            Some(o) => op_class(o).intersects(OpClass::ATOMIC),
            None => false,
        };
        if typed {
            flags |= TYPE_BASED;
        }
        flags
    })
}

/// The capability numbers the type-based rules add, from the grammar (looked up once).
struct TypeCaps {
    int8: u32,
    int16: u32,
    int64: u32,
    float16: u32,
    float16_buffer: u32,
    float64: u32,
    vector16: u32,
    vector_any: u32,
    long_vector: u32,
    arbitrary: u32,
    int4: u32,
    int64_atomics: u32,
    linkage: u32,
}

fn type_caps() -> &'static TypeCaps {
    static CAPS: std::sync::OnceLock<TypeCaps> = std::sync::OnceLock::new();
    CAPS.get_or_init(|| TypeCaps {
        int8: cap("Int8"),
        int16: cap("Int16"),
        int64: cap("Int64"),
        float16: cap("Float16"),
        float16_buffer: cap("Float16Buffer"),
        float64: cap("Float64"),
        vector16: cap("Vector16"),
        vector_any: cap("VectorAnyINTEL"),
        long_vector: cap("LongVectorEXT"),
        // SPV_ALTERA_arbitrary_precision_integers (rev 7 name; the INTEL name is an alias).
        arbitrary: cap("ArbitraryPrecisionIntegersALTERA"),
        int4: cap("Int4TypeINTEL"),
        int64_atomics: cap("Int64Atomics"),
        linkage: cap("Linkage"),
    })
}

/// Everything the module's instructions, operands and types require (requirements that change
/// nothing left out).
fn collect_needs(m: &Module) -> Vec<Need> {
    let mut c = Collector {
        needs: Needs {
            list: Vec::new(),
            seen_grammar: Default::default(),
            seen_caps: Vec::new(),
        },
        caps: type_caps(),
        // OpFunction instructions of functions without a body (imports): they need Linkage.
        bodyless: m
            .function_ids()
            .map(|f| m.function(f))
            .filter(|f| f.blocks.is_empty())
            .map(|f| f.def)
            .collect(),
        opcode_seen: vec![0u64; (usize::from(u16::MAX) + 1) / 64],
    };
    m.for_each_inst_in_order(|i| {
        let op = m.inst(i).opcode();
        let flags = opcode_flags(op);
        if flags != 0 {
            c.visit(m, i, op, flags);
        }
    });
    c.needs.list
}

/// [`collect_needs`]'s state.
struct Collector {
    needs: Needs,
    caps: &'static TypeCaps,
    bodyless: FxHashSet<InstId>,
    /// Opcodes whose requirements are recorded already (one bit per opcode): an opcode's
    /// requirements are recorded at its first instruction, as `Needs::grammar` would keep
    /// them.
    opcode_seen: Vec<u64>,
}

impl Collector {
    /// Records what instruction `i` (of `op`, whose [`opcode_flags`] are `flags`, not 0)
    /// needs. Out of line: most instructions need nothing, and the walk stays small.
    #[inline(never)]
    fn visit(&mut self, m: &Module, i: InstId, op: u16, flags: u8) {
        let needs = &mut self.needs;
        if flags & OWN_REQUIREMENT != 0 {
            let (word, bit) = (usize::from(op) / 64, 1u64 << (op % 64));
            if self.opcode_seen[word] & bit == 0 {
                self.opcode_seen[word] |= bit;
                if let Some(r) = inst_requirements(op) {
                    needs.grammar(r, i);
                }
            }
        }
        // DPC++ joint_matrix's translator-internal instructions: not in the grammar, their
        // capabilities neither (spvopt_ir::grammar::internal).
        if flags & INTERNAL_CAPABILITY != 0 {
            if let Some(c) = spvopt_ir::grammar::internal::capability_of(op) {
                needs.push(Need::caps(vec![c], i));
            }
        }
        if flags & ENUM_OPERANDS != 0 {
            for_each_enum_requirement(m, m.inst(i), |r| {
                if !is_trivial(r) {
                    needs.grammar(r, i);
                }
            });
        }
        if flags & TYPE_BASED != 0 {
            type_based_need(m, i, self.caps, &self.bodyless, needs);
        }
    }
}

/// The requirements the grammar does not list, from types (see the file comment).
fn type_based_need(
    m: &Module,
    i: InstId,
    caps: &TypeCaps,
    bodyless: &FxHashSet<InstId>,
    needs: &mut Needs,
) {
    let inst = m.inst(i);
    match inst.op() {
        Some(Op::TypeInt) => match inst.operand_word(0) {
            Some(32) | None => {}
            Some(8) => needs.push(Need::caps(vec![caps.int8], i)),
            Some(16) => needs.push(Need::caps(vec![caps.int16], i)),
            Some(64) => needs.push(Need::caps(vec![caps.int64], i)),
            Some(4) => needs.push(Need::caps(vec![caps.int4, caps.arbitrary], i)),
            Some(_) => needs.push(Need::caps(vec![caps.arbitrary], i)),
        },
        // A float with an explicit encoding (bfloat16, fp8) gets its capability from the
        // encoding enumerant.
        Some(Op::TypeFloat) if inst.operands().len() == 1 => match inst.operand_word(0) {
            Some(16) => needs.push(Need::caps(vec![caps.float16, caps.float16_buffer], i)),
            Some(64) => needs.push(Need::caps(vec![caps.float64], i)),
            _ => {}
        },
        Some(Op::TypeVector) => match inst.operand_word(1) {
            Some(8 | 16) => needs.push(Need::caps(vec![caps.vector16], i)),
            Some(2..=4) | None => {}
            // Either capability allows any count (SPV_EXT_long_vector: "OpTypeVector may
            // have any Component Count" under LongVectorEXT); VectorAnyINTEL first, the one
            // every profile takes (long_vectors.rs removes LongVectorEXT where it is not).
            Some(_) => needs.push(Need::caps(vec![caps.vector_any, caps.long_vector], i)),
        },
        Some(op) if op_class(op).intersects(OpClass::ATOMIC) => {
            // The value type: the result type, or the stored value's type (OpAtomicStore).
            let ty = inst.result_type().or_else(|| {
                inst.operand_word(3)
                    .and_then(spvopt_ir::Id::new)
                    .and_then(|v| m.type_of(v))
            });
            if int_width(m, ty) == Some(64) {
                needs.push(Need::caps(vec![caps.int64_atomics], i));
            }
        }
        // OpFunction of a function without a body (an import): it needs Linkage.
        Some(Op::Function) if bodyless.contains(&i) => {
            needs.push(Need::caps(vec![caps.linkage], i));
        }
        _ => {}
    }
}

/// Adds and removes capabilities and extensions and raises the version; counts
/// `capabilities_added/removed`, `extensions_added/removed`, `version_raised`. A needed
/// version above [`MAX_VERSION`] is pushed to `errors` (located at the instruction needing it).
/// Returns whether the module changed (capabilities, extensions or version).
pub fn run(m: &mut Module, stats: &mut Statistics, errors: &mut Vec<Diagnostic>) -> bool {
    let version_before = m.header.version;
    let mut declared: Vec<u32> = m
        .section_insts(Section::Capability)
        .filter_map(|(_, i)| i.operand_word(0))
        .collect();
    let originally_declared = declared.clone();
    let needs = collect_needs(m);

    // ---- capabilities ----
    let kernel_module = closure(&declared).contains(&KERNEL);
    let mut needed: Vec<u32> = vec![ADDRESSES, KERNEL];
    for n in &needs {
        if n.caps.is_empty() {
            continue;
        }
        if let Some(&c) = n.caps.iter().find(|c| declared.contains(c)) {
            if !needed.contains(&c) {
                needed.push(c);
            }
            continue;
        }
        if let Some(&d) = declared
            .iter()
            .find(|&&d| closure(&[d]).iter().any(|c| n.caps.contains(c)))
        {
            if !needed.contains(&d) {
                needed.push(d);
            }
            continue;
        }
        let pick = if kernel_module {
            n.caps
                .iter()
                .copied()
                .find(|&c| !closure(&[c]).contains(&SHADER))
                .unwrap_or(n.caps[0])
        } else {
            n.caps[0]
        };
        declared.push(pick);
        needed.push(pick);
    }
    // A translator-internal capability no table instruction needs (BFloat16ArithmeticINTEL:
    // arithmetic on bfloat16 values; the 16-bit atomics; FP4 types): what it enables is not
    // computed here, so a declared one stays. joint_matrix's own (component types, offsets)
    // go with its instructions, which convert-tensor-addressing replaces.
    for &c in &declared {
        let kept_as_declared = spvopt_ir::grammar::internal::internal_capability(c)
            .is_some_and(|ic| ic.extension != "SPV_INTEL_joint_matrix")
            && !spvopt_ir::grammar::internal::is_instruction_capability(c);
        if kept_as_declared && !needed.contains(&c) {
            needed.push(c);
        }
    }
    let keep = closure(&needed);
    let final_caps: Vec<u32> = declared
        .iter()
        .copied()
        .filter(|c| keep.contains(c))
        .collect();
    let mut removed = 0;
    m.retain_section(Section::Capability, |m, i| {
        let c = m.inst(i).operand_word(0).unwrap_or(u32::MAX);
        let k = final_caps.contains(&c);
        if !k {
            removed += 1;
        }
        k
    });
    stats.add("capabilities_removed", removed);
    let mut changes = removed;
    let mut added = 0;
    for &c in &final_caps {
        if !originally_declared.contains(&c) {
            m.push_to_section(
                Section::Capability,
                Inst::new(Op::Capability, None, None, &[c]),
            );
            added += 1;
        }
    }
    stats.add("capabilities_added", added);
    changes += added;

    // ---- extensions and version ----
    let cap_kind = enum_kind_index("Capability").expect("grammar has Capability");
    let cap_needs: Vec<Need> = m
        .section_insts(Section::Capability)
        .filter_map(|(i, inst)| {
            let r = enum_requirements(cap_kind, inst.operand_word(0)?)?;
            Some(Need {
                caps: Vec::new(),
                exts: r.extensions,
                version: r.version,
                at: Some(i),
            })
        })
        .collect();
    let declared_exts: Vec<String> = m
        .section_insts(Section::Extension)
        .filter_map(|(_, i)| decode_string(i.operands()).map(str::to_string))
        .collect();
    let mut required_exts: Vec<&'static str> = Vec::new();
    let current = m.header.version;
    // The highest version a requirement needs (requirements met by a declared extension need
    // none); starts at 1.0.
    let mut version = 0x0001_0000;
    let mut version_at: Option<InstId> = None;
    for n in cap_needs.iter().chain(&needs) {
        if let Some(e) = n
            .exts
            .iter()
            .find(|e| declared_exts.iter().any(|d| d == *e))
        {
            if !required_exts.contains(e) {
                required_exts.push(e);
            }
        } else if n.version == 0 {
            if let Some(e) = n.exts.first() {
                if !required_exts.contains(e) {
                    required_exts.push(e);
                }
            }
        } else if n.version > version {
            version = n.version;
            version_at = n.at;
        }
    }
    let mut removed = 0;
    m.retain_section(Section::Extension, |m, i| {
        let name = decode_string(m.inst(i).operands()).unwrap_or("");
        // (The grammar's list is searched only for an extension nothing requires.)
        let k = required_exts.contains(&name) || !is_known_extension(name);
        if !k {
            removed += 1;
        }
        k
    });
    stats.add("extensions_removed", removed);
    changes += removed;
    let mut added = 0;
    for e in &required_exts {
        if !declared_exts.iter().any(|d| d == e) {
            m.push_to_section(
                Section::Extension,
                Inst::new(Op::Extension, None, None, &encode_string(e)),
            );
            added += 1;
        }
    }
    stats.add("extensions_added", added);
    changes += added;

    if version <= MAX_VERSION && current > MAX_VERSION {
        // Nothing needs the newer version: lowered to what the drivers accept (1.4 keeps the
        // 1.4+ rule that entry points list every global they use).
        m.header.version = MAX_VERSION;
        stats.add("version_lowered", 1);
    } else if version > current {
        if version > MAX_VERSION {
            let at = version_at.map(|i| Location::of(m, i));
            let what = if at.is_some() {
                "needs"
            } else {
                "the module needs"
            };
            errors.push(Diagnostic::error(
                at,
                format!(
                    "{what} SPIR-V {}.{}, above the {}.{} the Level Zero environment accepts",
                    version >> 16,
                    (version >> 8) & 0xff,
                    MAX_VERSION >> 16,
                    (MAX_VERSION >> 8) & 0xff
                ),
            ));
        } else {
            m.header.version = version;
            stats.add("version_raised", 1);
        }
    }
    changes > 0 || m.header.version != version_before
}

/// Whether `OpCapability cap` is declared.
pub fn has_capability(m: &Module, cap: spirv::Capability) -> bool {
    m.section_insts(Section::Capability)
        .any(|(_, i)| i.operand_word(0) == Some(cap as u32))
}

/// Declares `cap` unless it is; returns whether it was added.
pub fn ensure_capability(m: &mut Module, cap: spirv::Capability) -> bool {
    if has_capability(m, cap) {
        return false;
    }
    m.push_to_section(
        Section::Capability,
        Inst::new(Op::Capability, None, None, &[cap as u32]),
    );
    true
}

/// Whether `OpExtension "name"` is declared.
pub fn has_extension(m: &Module, name: &str) -> bool {
    m.section_insts(Section::Extension)
        .any(|(_, i)| decode_string(i.operands()) == Some(name))
}

/// Declares extension `name` unless it is; returns whether it was added.
pub fn ensure_extension(m: &mut Module, name: &str) -> bool {
    if has_extension(m, name) {
        return false;
    }
    m.push_to_section(
        Section::Extension,
        Inst::new(Op::Extension, None, None, &encode_string(name)),
    );
    true
}
