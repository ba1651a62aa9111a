//! What one `OpSubgroupMatrixMultiplyAccumulateINTEL` is (dimensions, element types, operand
//! layouts) and what `lower-mma` will do with it on a target: keep it, split it onto the
//! target's atoms, emulate it, or report why it can do neither. `legalize` asks the same
//! question ([`classify`]) so that it only warns about what no pass fixes.
//!
//! Shared by `lower-mma` (which re-exports it as `spvopt_passes::lower_mma::plan`) and
//! `legalize`, so neither pass depends on the other.
//!
//! Element types follow the extension (and the simulator's reading, `sim/src/mma.rs`): A and B
//! carry the element type the packed / TF32 operand bits name, else their component type (the
//! Signed bits make integers signed); C and Result carry their component type (integers
//! signed), or bfloat16 in 16-bit integers with MatrixCBFloat16 / MatrixResultBFloat16.

use std::fmt;

use spirv::Op;
use spvopt_ir::{Id, InstId, Module};

use crate::target::MmaTypes;
use crate::{KernelFacts, Target};

/// Operand bits of SPV_INTEL_subgroup_matrix_multiply_accumulate.
pub mod bits {
    /// `MatrixASignedComponentsINTEL`: A's integer components are signed.
    pub const A_SIGNED: u32 = 0x1;
    /// `MatrixBSignedComponentsINTEL`: B's integer components are signed.
    pub const B_SIGNED: u32 = 0x2;
    /// `MatrixCBFloat16INTEL`: C holds bfloat16 in 16-bit integers.
    pub const C_BF16: u32 = 0x4;
    /// `MatrixResultBFloat16INTEL`: the result holds bfloat16 in 16-bit integers.
    pub const RESULT_BF16: u32 = 0x8;
    /// `MatrixAPackedInt8INTEL`: A packs 8-bit integers.
    pub const A_INT8: u32 = 0x10;
    /// `MatrixBPackedInt8INTEL`: B packs 8-bit integers.
    pub const B_INT8: u32 = 0x20;
    /// `MatrixAPackedInt4INTEL`: A packs 4-bit integers.
    pub const A_INT4: u32 = 0x40;
    /// `MatrixBPackedInt4INTEL`: B packs 4-bit integers.
    pub const B_INT4: u32 = 0x80;
    /// `MatrixATF32INTEL`: A holds TF32 in 32-bit floats.
    pub const A_TF32: u32 = 0x100;
    /// `MatrixBTF32INTEL`: B holds TF32 in 32-bit floats.
    pub const B_TF32: u32 = 0x200;
    /// `MatrixAPackedFloat16INTEL`: A packs halves.
    pub const A_F16: u32 = 0x400;
    /// `MatrixBPackedFloat16INTEL`: B packs halves.
    pub const B_F16: u32 = 0x800;
    /// `MatrixAPackedBFloat16INTEL`: A packs bfloat16.
    pub const A_BF16: u32 = 0x1000;
    /// `MatrixBPackedBFloat16INTEL`: B packs bfloat16.
    pub const B_BF16: u32 = 0x2000;
    /// Every bit the extension defines (a mask with another bit is invalid).
    pub const ALL: u32 = 0x3fff;
}

/// The type of one matrix element.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Elem {
    /// An integer.
    Int {
        /// Its width (4, 8, 16, 32 or 64).
        bits: u32,
        /// Whether it is signed.
        signed: bool,
    },
    /// IEEE half.
    F16,
    /// bfloat16.
    Bf16,
    /// TensorFloat-32 (f32 storage, 10-bit mantissa).
    Tf32,
    /// IEEE single.
    F32,
    /// IEEE double.
    F64,
}

impl Elem {
    /// Bits one element occupies in its operand.
    pub fn bits(self) -> u32 {
        match self {
            Elem::Int { bits, .. } => bits,
            Elem::F16 | Elem::Bf16 => 16,
            Elem::Tf32 | Elem::F32 => 32,
            Elem::F64 => 64,
        }
    }
    /// Whether the element is a float (any of the float formats).
    pub fn is_float(self) -> bool {
        !matches!(self, Elem::Int { .. })
    }
}

/// A scalar or vector operand type: component type id, component bits, float?, count.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OperandType {
    /// The operand's type id.
    pub ty: Id,
    /// Its component type id (the type itself for a scalar).
    pub component: Id,
    /// Bits of one component.
    pub bits: u32,
    /// Whether the components are floats.
    pub float: bool,
    /// Components (1 for a scalar).
    pub count: u32,
}

impl OperandType {
    /// The operand type `ty` of `m`; `None` unless it is an integer or float scalar or vector.
    pub fn of(m: &Module, ty: Id) -> Option<OperandType> {
        let t = m.def_inst(ty)?;
        let (component, count) = if t.is(Op::TypeVector) {
            (t.operand_id(0)?, t.operand_word(1)?)
        } else {
            (ty, 1)
        };
        let c = m.def_inst(component)?;
        let float = c.is(Op::TypeFloat);
        if !float && !c.is(Op::TypeInt) {
            return None;
        }
        Some(OperandType {
            ty,
            component,
            bits: c.operand_word(0)?,
            float,
            count,
        })
    }
    /// Bits of the whole operand.
    pub fn total_bits(&self) -> u64 {
        u64::from(self.bits) * u64::from(self.count)
    }
}

/// How Matrix A is dealt over the invocations (the extension's three cases).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ALayout {
    /// N ≤ K: invocation i holds columns `i·columns ..` of every row, row r in component r.
    Columns {
        /// Columns of A each invocation holds (K / N).
        columns: u32,
    },
    /// N > K: invocation `(r mod groups)·K + k` holds element (r, k) in slot `r / groups`.
    RowGroups {
        /// Rows dealt side by side over the subgroup (N / K).
        groups: u32,
    },
}

/// One MMA, decoded.
#[derive(Clone, Copy, Debug)]
pub struct Mma {
    /// The instruction.
    pub inst: InstId,
    /// Its result id.
    pub result: Id,
    /// The K Dim operand (a constant id).
    pub k_id: Id,
    /// Matrix A operand.
    pub a_id: Id,
    /// Matrix B operand.
    pub b_id: Id,
    /// Matrix C operand (the accumulator).
    pub c_id: Id,
    /// The Matrix Multiply Accumulate Operands mask (`bits`).
    pub mask: u32,
    /// N = the subgroup size it executes at.
    pub sg: u32,
    /// M: rows of A, C and the result.
    pub m: u32,
    /// K: the reduction depth.
    pub k: u32,
    /// A's operand type.
    pub a: OperandType,
    /// B's operand type.
    pub b: OperandType,
    /// C's operand type.
    pub c: OperandType,
    /// The result type.
    pub r: OperandType,
    /// A's element type.
    pub a_elem: Elem,
    /// B's element type.
    pub b_elem: Elem,
    /// C's element type.
    pub c_elem: Elem,
    /// The result's element type.
    pub r_elem: Elem,
    /// How A is dealt over the invocations.
    pub a_layout: ALayout,
    /// The target-table type class, when it is one.
    pub types: Option<MmaTypes>,
}

impl Mma {
    /// A short name of the element types for statistics (`f16*f16->f32`, `other`).
    pub fn type_name(&self) -> &'static str {
        self.types.map_or("other", MmaTypes::name)
    }
}

/// An operand of an MMA, as messages name it (`Matrix A`, ..., `Result`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Operand {
    /// Matrix A.
    A,
    /// Matrix B.
    B,
    /// Matrix C (the accumulator).
    C,
    /// The result.
    Result,
}

impl fmt::Display for Operand {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Operand::A => "A",
            Operand::B => "B",
            Operand::C => "C",
            Operand::Result => "Result",
        })
    }
}

/// Why lower-mma cannot decode or lower an MMA ([`decode`], [`action`]). The text is the
/// reason lower-mma's errors and legalize's warnings give.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MmaError {
    /// An operand or result the instruction must have is missing (the text names it).
    #[error("{0}")]
    Missing(&'static str),
    /// Operand bits no MMA defines.
    #[error("unknown operand bits {0:#x}")]
    UnknownOperandBits(u32),
    /// K Dim is not a constant, or not positive.
    #[error("K Dim is not a positive integer constant")]
    KNotConstant,
    /// The subgroup size the MMA executes at is not known.
    #[error("the kernels reaching this function declare no single SubgroupSize")]
    NoSubgroupSize,
    /// A matrix operand's type is not a scalar or vector of int or float.
    #[error("Matrix {0} is not a scalar or vector of int or float")]
    NotIntOrFloat(Operand),
    /// The result type is not a scalar or vector of int or float.
    #[error("Result is not a scalar or vector of int or float")]
    ResultNotIntOrFloat,
    /// A component width that holds no element type.
    #[error("Matrix {which} has a {bits}-bit component")]
    ComponentWidth {
        /// The operand.
        which: Operand,
        /// Its component width.
        bits: u32,
    },
    /// The operand bits ask for elements its components cannot hold.
    #[error("Matrix {which}: {bits}-bit components cannot hold {elem:?} elements")]
    CannotHold {
        /// The operand.
        which: Operand,
        /// Its component width.
        bits: u32,
        /// The element type the operand bits ask for.
        elem: Elem,
    },
    /// More than one element interpretation bit is set for the operand.
    #[error("Matrix {0}: more than one element interpretation bit is set")]
    SeveralInterpretations(Operand),
    /// bfloat16 asked of components that are not 16-bit integers.
    #[error("Matrix {0}: bfloat16 needs 16-bit integer components")]
    Bf16Components(Operand),
    /// Integer and floating-point operands together.
    #[error("integer and floating-point operands are mixed")]
    MixedIntAndFloat,
    /// A shape larger than lower-mma decodes.
    #[error("M = {m}, K = {k}: beyond what lower-mma handles (M <= {MAX_M}, K <= {MAX_K})")]
    TooLarge {
        /// M (Result components).
        m: u32,
        /// K Dim.
        k: u32,
    },
    /// Matrix C and the result have different component counts.
    #[error("Matrix C has {c} components, Result {result}")]
    CountMismatch {
        /// Matrix C's components.
        c: u32,
        /// The result's components.
        result: u32,
    },
    /// The MMA executes at subgroup size 0.
    #[error("subgroup size 0")]
    SubgroupSizeZero,
    /// Neither K nor N (the subgroup size) divides the other.
    #[error("K = {k} and N = {n}: neither divides the other")]
    KAndNIndivisible {
        /// K Dim.
        k: u32,
        /// The subgroup size.
        n: u32,
    },
    /// Matrix A's size per invocation does not fit the shape.
    #[error("Matrix A has {has} bits per invocation, M = {m} K = {k} N = {n} needs {needs}")]
    ABits {
        /// Bits per invocation Matrix A has.
        has: u64,
        /// M.
        m: u32,
        /// K.
        k: u32,
        /// N (the subgroup size).
        n: u32,
        /// Bits per invocation the shape needs.
        needs: u64,
    },
    /// Matrix B's size per invocation does not fit K.
    #[error("Matrix B has {has} bits per invocation, K = {k} needs {needs}")]
    BBits {
        /// Bits per invocation Matrix B has.
        has: u64,
        /// K.
        k: u32,
        /// Bits per invocation K needs.
        needs: u64,
    },
    /// f64 elements, which the emulation does not handle.
    #[error("Matrix {0} has f64 elements (no emulation for f64)")]
    F64Elements(Operand),
    /// 64-bit integer A or B elements, which the emulation does not handle.
    #[error("Matrix {0} has 64-bit integer elements")]
    Int64Elements(Operand),
    /// Components narrower than the elements they hold.
    #[error("Matrix {which}: {bits}-bit components are narrower than its elements")]
    NarrowComponents {
        /// The operand.
        which: Operand,
        /// Its component width.
        bits: u32,
    },
}

/// What lower-mma does with one MMA.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Action {
    /// The target runs it as is.
    Native,
    /// Row chunks `(first row, rows)` × `k_chunks` chained atoms of K = `atom_k` each.
    Split {
        /// Row chunks `(first row, rows)`, each a row count the target has.
        rows: Vec<(u32, u32)>,
        /// Atoms chained along K per row chunk.
        k_chunks: u32,
        /// K of one atom.
        atom_k: u32,
    },
    /// Shuffles and FMAs.
    Emulate,
}

/// The subgroup size the MMA at `inst` executes at: the `SubgroupSize` every kernel reaching
/// its function declares ([`KernelFacts`], the same fact legalize and fuse-block-loads use).
pub fn mma_subgroup_size(facts: &KernelFacts, m: &Module, inst: InstId) -> Option<u32> {
    facts.subgroup_size_at(m, inst).known()
}

fn ab_elem(op: &OperandType, mask: u32, is_a: bool) -> Result<Elem, MmaError> {
    let pick = |a: u32, b: u32| if is_a { a } else { b };
    let which = if is_a { Operand::A } else { Operand::B };
    let signed = mask & pick(bits::A_SIGNED, bits::B_SIGNED) != 0;
    let kinds = [
        (
            pick(bits::A_INT8, bits::B_INT8),
            Elem::Int { bits: 8, signed },
        ),
        (
            pick(bits::A_INT4, bits::B_INT4),
            Elem::Int { bits: 4, signed },
        ),
        (pick(bits::A_TF32, bits::B_TF32), Elem::Tf32),
        (pick(bits::A_F16, bits::B_F16), Elem::F16),
        (pick(bits::A_BF16, bits::B_BF16), Elem::Bf16),
    ];
    // The interpretation bits set: none, one (the first found) or more.
    let mut set = kinds.iter().filter(|(b, _)| mask & b != 0).map(|&(_, e)| e);
    let (first, more) = (set.next(), set.next().is_some());
    match (first, more) {
        (None, _) => Ok(match (op.float, op.bits) {
            (false, b @ (8 | 16 | 32 | 64)) => Elem::Int { bits: b, signed },
            (true, 16) => Elem::F16,
            (true, 32) => Elem::F32,
            (true, 64) => Elem::F64,
            _ => {
                return Err(MmaError::ComponentWidth {
                    which,
                    bits: op.bits,
                })
            }
        }),
        (Some(e), false) => {
            let fits = if e == Elem::Tf32 {
                op.bits == 32
            } else {
                op.bits.is_multiple_of(e.bits()) && op.bits <= 64
            };
            if fits {
                Ok(e)
            } else {
                Err(MmaError::CannotHold {
                    which,
                    bits: op.bits,
                    elem: e,
                })
            }
        }
        (Some(_), true) => Err(MmaError::SeveralInterpretations(which)),
    }
}

fn acc_elem(op: &OperandType, bf16: bool, which: Operand) -> Result<Elem, MmaError> {
    if bf16 {
        return if op.bits == 16 && !op.float {
            Ok(Elem::Bf16)
        } else {
            Err(MmaError::Bf16Components(which))
        };
    }
    match (op.float, op.bits) {
        (false, b @ (8 | 16 | 32 | 64)) => Ok(Elem::Int {
            bits: b,
            signed: true,
        }),
        (true, 16) => Ok(Elem::F16),
        (true, 32) => Ok(Elem::F32),
        (true, 64) => Ok(Elem::F64),
        _ => Err(MmaError::ComponentWidth {
            which,
            bits: op.bits,
        }),
    }
}

/// The largest M (Result components) lower-mma decodes: 4 times any device's.
const MAX_M: u32 = 32;
/// The largest K Dim lower-mma decodes (int8 MMAs have K = 32 on every device).
const MAX_K: u32 = 256;

/// Decodes the MMA at `i`, or says why it is malformed or unknown.
pub fn decode(m: &Module, facts: &KernelFacts, i: InstId) -> Result<Mma, MmaError> {
    let inst = m.inst(i);
    let result = inst.result_id().ok_or(MmaError::Missing("no result id"))?;
    let rt = inst
        .result_type()
        .ok_or(MmaError::Missing("no result type"))?;
    let k_id = inst.operand_id(0).ok_or(MmaError::Missing("no K Dim"))?;
    let a_id = inst.operand_id(1).ok_or(MmaError::Missing("no Matrix A"))?;
    let b_id = inst.operand_id(2).ok_or(MmaError::Missing("no Matrix B"))?;
    let c_id = inst.operand_id(3).ok_or(MmaError::Missing("no Matrix C"))?;
    let mask = inst.operand_word(4).unwrap_or(0);
    if mask & !bits::ALL != 0 {
        return Err(MmaError::UnknownOperandBits(mask & !bits::ALL));
    }
    let k = m
        .const_int_value(k_id)
        .and_then(|k| u32::try_from(k).ok())
        .filter(|&k| k > 0)
        .ok_or(MmaError::KNotConstant)?;
    let sg = mma_subgroup_size(facts, m, i).ok_or(MmaError::NoSubgroupSize)?;
    let ty = |id: Id, which: Operand| {
        m.type_of(id)
            .and_then(|t| OperandType::of(m, t))
            .ok_or(MmaError::NotIntOrFloat(which))
    };
    let a = ty(a_id, Operand::A)?;
    let b = ty(b_id, Operand::B)?;
    let c = ty(c_id, Operand::C)?;
    let r = OperandType::of(m, rt).ok_or(MmaError::ResultNotIntOrFloat)?;
    let a_elem = ab_elem(&a, mask, true)?;
    let b_elem = ab_elem(&b, mask, false)?;
    let c_elem = acc_elem(&c, mask & bits::C_BF16 != 0, Operand::C)?;
    let r_elem = acc_elem(&r, mask & bits::RESULT_BF16 != 0, Operand::Result)?;
    let fl = a_elem.is_float();
    if b_elem.is_float() != fl || c_elem.is_float() != fl || r_elem.is_float() != fl {
        return Err(MmaError::MixedIntAndFloat);
    }
    let mm = r.count;
    // Splitting or emulating emits instructions per row and per K step: bounded shapes keep
    // the output proportional to the input (devices have M <= 8 and K <= 64 bytes' worth).
    if mm > MAX_M || k > MAX_K {
        return Err(MmaError::TooLarge { m: mm, k });
    }
    if c.count != mm {
        return Err(MmaError::CountMismatch {
            c: c.count,
            result: mm,
        });
    }
    if sg == 0 {
        return Err(MmaError::SubgroupSizeZero);
    }
    let ea = u64::from(a_elem.bits());
    let (a_layout, a_bits) = if k.is_multiple_of(sg) {
        let columns = k / sg;
        (
            ALayout::Columns { columns },
            u64::from(mm) * u64::from(columns) * ea,
        )
    } else if sg.is_multiple_of(k) {
        let groups = sg / k;
        (
            ALayout::RowGroups { groups },
            u64::from(mm.div_ceil(groups)) * ea,
        )
    } else {
        return Err(MmaError::KAndNIndivisible { k, n: sg });
    };
    if a.total_bits() != a_bits {
        return Err(MmaError::ABits {
            has: a.total_bits(),
            m: mm,
            k,
            n: sg,
            needs: a_bits,
        });
    }
    let b_bits = u64::from(k) * u64::from(b_elem.bits());
    if b.total_bits() != b_bits {
        return Err(MmaError::BBits {
            has: b.total_bits(),
            k,
            needs: b_bits,
        });
    }
    let float_bits = (r_elem.is_float() && mask & bits::RESULT_BF16 == 0).then_some(r.bits);
    let types = MmaTypes::from_operands(mask, float_bits)
        .filter(|t| type_class_matches(*t, a_elem, b_elem, c_elem, r_elem));
    Ok(Mma {
        inst: i,
        result,
        k_id,
        a_id,
        b_id,
        c_id,
        mask,
        sg,
        m: mm,
        k,
        a,
        b,
        c,
        r,
        a_elem,
        b_elem,
        c_elem,
        r_elem,
        a_layout,
        types,
    })
}

/// Whether the decoded elements are exactly the table class (e.g. `Int8ToInt32` needs 32-bit
/// C and Result; `F16ToF32` an f32 C).
fn type_class_matches(t: MmaTypes, a: Elem, b: Elem, c: Elem, r: Elem) -> bool {
    let i32e = Elem::Int {
        bits: 32,
        signed: true,
    };
    let int_ab = |e: Elem, bits: u32| matches!(e, Elem::Int { bits: x, .. } if x == bits);
    match t {
        MmaTypes::Int8ToInt32 => int_ab(a, 8) && int_ab(b, 8) && c == i32e && r == i32e,
        MmaTypes::Int4ToInt32 => int_ab(a, 4) && int_ab(b, 4) && c == i32e && r == i32e,
        MmaTypes::F16ToF32 => a == Elem::F16 && b == Elem::F16 && c == Elem::F32 && r == Elem::F32,
        MmaTypes::F16ToF16 => a == Elem::F16 && b == Elem::F16 && c == Elem::F16 && r == Elem::F16,
        MmaTypes::Bf16ToF32 => {
            a == Elem::Bf16 && b == Elem::Bf16 && c == Elem::F32 && r == Elem::F32
        }
        MmaTypes::Bf16ToBf16 => {
            a == Elem::Bf16 && b == Elem::Bf16 && c == Elem::Bf16 && r == Elem::Bf16
        }
        MmaTypes::Tf32ToF32 => {
            a == Elem::Tf32 && b == Elem::Tf32 && c == Elem::F32 && r == Elem::F32
        }
    }
}

/// Rows `0..m` cut into chunks of 8, 4, 2, 1 rows (largest first, so every chunk starts at a
/// multiple of its own size and of 2).
pub fn row_chunks(m: u32, allowed: &[u32]) -> Vec<(u32, u32)> {
    let mut sizes: Vec<u32> = allowed.to_vec();
    sizes.sort_unstable_by(|a, b| b.cmp(a));
    let mut out = Vec::new();
    let mut r = 0;
    while r < m {
        let Some(&s) = sizes.iter().find(|&&s| s <= m - r) else {
            return Vec::new();
        };
        out.push((r, s));
        r += s;
    }
    out
}

/// What lower-mma does with `mma` on `target`, or why it cannot lower it.
pub fn action(mma: &Mma, target: &Target) -> Result<Action, MmaError> {
    if let Some(t) = mma.types {
        if target.supports_mma(mma.sg, mma.m, mma.sg, mma.k, t) {
            return Ok(Action::Native);
        }
        if let Some(split) = split_plan(mma, target, t) {
            return Ok(split);
        }
    }
    emulable(mma)?;
    Ok(Action::Emulate)
}

/// The split of `mma` onto atoms of the target, when one exists and is exact.
fn split_plan(mma: &Mma, target: &Target, t: MmaTypes) -> Option<Action> {
    let sg = mma.sg;
    let atom_k = t.k();
    let allowed: Vec<u32> = target
        .mma_shapes
        .iter()
        .filter(|s| s.subgroup_size == sg && s.types == t && s.k == atom_k)
        .flat_map(|s| s.m.iter().copied())
        .filter(|&mm| target.supports_mma(sg, mm, sg, atom_k, t))
        .collect();
    if allowed.is_empty() || !mma.k.is_multiple_of(atom_k) {
        return None;
    }
    let k_chunks = mma.k / atom_k;
    let rows = row_chunks(mma.m, &allowed);
    if rows.is_empty() {
        return None;
    }
    // Per-row A data: rows must be whole components.
    match mma.a_layout {
        ALayout::Columns { columns } => {
            let row_bits = columns * mma.a_elem.bits();
            if mma.a.count != mma.m || mma.a.bits != row_bits {
                return None;
            }
        }
        ALayout::RowGroups { groups } => {
            if k_chunks != 1
                || rows.iter().any(|&(r0, _)| !r0.is_multiple_of(groups))
                || mma.a.count != mma.m.div_ceil(groups)
                || mma.a.bits != mma.a_elem.bits()
            {
                return None;
            }
        }
    }
    if k_chunks > 1 {
        // A chain rounds the accumulator between atoms: only exact for f32 and integers.
        if !matches!(mma.r_elem, Elem::F32 | Elem::Int { .. })
            || !matches!(mma.c_elem, Elem::F32 | Elem::Int { .. })
        {
            return None;
        }
        // Repacking A needs the atom's columns per invocation to be whole (K ≥ N) and the
        // original rows to fit a 64-bit integer.
        let ALayout::Columns { columns } = mma.a_layout else {
            return None;
        };
        let piece_bits = atom_k / sg * mma.a_elem.bits();
        if !atom_k.is_multiple_of(sg)
            || columns * mma.a_elem.bits() > 64
            || !matches!(piece_bits, 8 | 16 | 32 | 64)
        {
            return None;
        }
        // B chunks must be whole components.
        let chunk_bits = atom_k * mma.b_elem.bits();
        if !chunk_bits.is_multiple_of(mma.b.bits) {
            return None;
        }
    }
    if k_chunks == 1 && rows.len() == 1 {
        return None; // nothing to split: the shape itself is unsupported
    }
    Some(Action::Split {
        rows,
        k_chunks,
        atom_k,
    })
}

/// Whether the emulation handles these element types and operand shapes.
fn emulable(mma: &Mma) -> Result<(), MmaError> {
    for (e, what) in [
        (mma.a_elem, Operand::A),
        (mma.b_elem, Operand::B),
        (mma.c_elem, Operand::C),
        (mma.r_elem, Operand::Result),
    ] {
        if e == Elem::F64 {
            return Err(MmaError::F64Elements(what));
        }
        if let Elem::Int { bits: 64, .. } = e {
            if matches!(what, Operand::A | Operand::B) {
                return Err(MmaError::Int64Elements(what));
            }
        }
    }
    for (op, e, which) in [
        (&mma.a, mma.a_elem, Operand::A),
        (&mma.b, mma.b_elem, Operand::B),
    ] {
        if e.bits() > op.bits {
            return Err(MmaError::NarrowComponents {
                which,
                bits: op.bits,
            });
        }
    }
    Ok(())
}

/// Every MMA of the module, in layout order.
pub fn mma_instructions(m: &Module) -> Vec<InstId> {
    let mut v = Vec::new();
    for f in m.function_ids() {
        for &b in &m.function(f).blocks {
            for i in m.block_insts(b) {
                if m.inst(i).is(Op::SubgroupMatrixMultiplyAccumulateINTEL) {
                    v.push(i);
                }
            }
        }
    }
    v
}

/// What lower-mma would do with the MMA at `i` on `target` (for `legalize`).
pub fn classify(
    m: &Module,
    facts: &KernelFacts,
    i: InstId,
    target: &Target,
) -> Result<Action, MmaError> {
    let mma = decode(m, facts, i)?;
    action(&mma, target)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn row_chunks_are_largest_first_and_aligned() {
        let all = [1, 2, 4, 8];
        assert_eq!(row_chunks(16, &all), [(0, 8), (8, 8)]);
        assert_eq!(row_chunks(3, &all), [(0, 2), (2, 1)]);
        assert_eq!(row_chunks(13, &all), [(0, 8), (8, 4), (12, 1)]);
        assert_eq!(row_chunks(8, &all), [(0, 8)]);
        // Without M = 1, an odd M cannot be cut.
        assert!(row_chunks(3, &[2, 4, 8]).is_empty());
        for m in 1..40 {
            let c = row_chunks(m, &all);
            assert_eq!(c.iter().map(|x| x.1).sum::<u32>(), m);
            assert!(c
                .iter()
                .all(|&(r0, s)| r0.is_multiple_of(s) && r0.is_multiple_of(2)));
        }
    }
}
