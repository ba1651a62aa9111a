//! Names of the Intel OpenCL builtins that `raise-builtins` / `lower-builtins` translate:
//! parsing (`_Z42intel_sub_group_2d_block_read_16b_32r16x2cPU3AS1viiiDv2_iPt` → a 16-bit
//! 32-row 16-wide 2-block read) and building names back, with Itanium mangling of the
//! OpenCL parameter types.
//!
//! Builtin families (cl_intel_subgroup_2d_block_io, cl_intel_subgroup_matrix_multiply_accumulate):
//! - `intel_sub_group_2d_block_{read,read_transform,read_transpose,write,prefetch}_<E>b_<H>r<W>x<C>c`
//!   with `E` element bits, `H` height, `W` width, `C` block count; parameters
//!   `(global void* base, int width, int height, int pitch, int2 coord[, private T* ptr])`.
//! - `intel_sub_group_<a>_<b>_matrix_mad_k<K>` with `<a>_<b>` one of `{i8,u8}_{i8,u8}` (K 32),
//!   `{i4,u4}_{i4,u4}` (K 64), `f16_f16`, `bf16_bf16` (K 16), `tf32_tf32` (K 8); parameters
//!   `(A a, B b, C acc)`, result C.

use spirv::Op;
use spvopt_analysis::block_io::BlockKind;
use spvopt_ir::grammar::{decode_string, encode_string};
use spvopt_ir::{Id, Inst, Module, Section};

/// A 2D block builtin: which op and the shape its name encodes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlockBuiltin {
    pub op: BlockKind,
    /// Element size in bytes (the name has bits).
    pub elem_bytes: u32,
    pub width: u32,
    pub height: u32,
    pub count: u32,
}

/// Element interpretation of an MMA operand, as a builtin name spells it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MmaElem {
    I8,
    U8,
    I4,
    U4,
    F16,
    Bf16,
    Tf32,
}

impl MmaElem {
    fn spelling(self) -> &'static str {
        match self {
            MmaElem::I8 => "i8",
            MmaElem::U8 => "u8",
            MmaElem::I4 => "i4",
            MmaElem::U4 => "u4",
            MmaElem::F16 => "f16",
            MmaElem::Bf16 => "bf16",
            MmaElem::Tf32 => "tf32",
        }
    }
    fn parse(s: &str) -> Option<MmaElem> {
        Some(match s {
            "i8" => MmaElem::I8,
            "u8" => MmaElem::U8,
            "i4" => MmaElem::I4,
            "u4" => MmaElem::U4,
            "f16" => MmaElem::F16,
            "bf16" => MmaElem::Bf16,
            "tf32" => MmaElem::Tf32,
            _ => return None,
        })
    }
    /// Signed integer interpretation (for the mangled parameter types).
    pub fn is_signed_int(self) -> bool {
        matches!(self, MmaElem::I8 | MmaElem::I4)
    }
    pub fn is_unsigned_int(self) -> bool {
        matches!(self, MmaElem::U8 | MmaElem::U4)
    }
    /// The operand-interpretation bits for this element as Matrix A (`b == false`) or B
    /// (SPV_INTEL_subgroup_matrix_multiply_accumulate, Matrix Multiply Accumulate Operands).
    fn bits(self, b: bool) -> u32 {
        let (a_bits, sign) = match self {
            MmaElem::I8 => (0x10, 0x1),
            MmaElem::U8 => (0x10, 0),
            MmaElem::I4 => (0x40, 0x1),
            MmaElem::U4 => (0x40, 0),
            MmaElem::F16 => (0x400, 0),
            MmaElem::Bf16 => (0x1000, 0),
            MmaElem::Tf32 => (0x100, 0),
        };
        if b {
            (a_bits << 1) | (sign << 1)
        } else {
            a_bits | sign
        }
    }
    /// Same family (int8 with int8, …): the only combinations the builtins have.
    fn family(self) -> u8 {
        match self {
            MmaElem::I8 | MmaElem::U8 => 0,
            MmaElem::I4 | MmaElem::U4 => 1,
            MmaElem::F16 => 2,
            MmaElem::Bf16 => 3,
            MmaElem::Tf32 => 4,
        }
    }
    /// The K the builtin name must carry.
    pub fn k(self) -> u32 {
        match self {
            MmaElem::I8 | MmaElem::U8 => 32,
            MmaElem::I4 | MmaElem::U4 => 64,
            MmaElem::F16 | MmaElem::Bf16 => 16,
            MmaElem::Tf32 => 8,
        }
    }
}

/// An MMA builtin `intel_sub_group_<a>_<b>_matrix_mad_k<K>`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MmaBuiltin {
    pub a: MmaElem,
    pub b: MmaElem,
    pub k: u32,
}

/// CBFloat16 | ResultBFloat16: a bf16 accumulator (passed as 16-bit integers).
pub const MMA_BF16_ACC: u32 = 0x4 | 0x8;

impl MmaBuiltin {
    /// The operand mask of the native op. `int16_acc` says C / the result are 16-bit integers
    /// (the bf16-accumulator overload of `bf16_bf16`).
    pub fn operands_mask(self, int16_acc: bool) -> u32 {
        let mut m = self.a.bits(false) | self.b.bits(true);
        if int16_acc && self.a == MmaElem::Bf16 {
            m |= MMA_BF16_ACC;
        }
        m
    }

    /// The builtin for a native op with this mask and K, if there is one.
    pub fn from_mask(mask: u32, k: u32) -> Option<MmaBuiltin> {
        let acc = mask & MMA_BF16_ACC;
        let ab = mask & !MMA_BF16_ACC;
        let elem = |bits: u32, sign: u32| -> Option<MmaElem> {
            let signed = ab & sign != 0;
            Some(match bits {
                0x10 if signed => MmaElem::I8,
                0x10 => MmaElem::U8,
                0x40 if signed => MmaElem::I4,
                0x40 => MmaElem::U4,
                0x400 if !signed => MmaElem::F16,
                0x1000 if !signed => MmaElem::Bf16,
                0x100 if !signed => MmaElem::Tf32,
                _ => return None,
            })
        };
        let a = elem(ab & (0x10 | 0x40 | 0x100 | 0x400 | 0x1000), 0x1)?;
        let b = elem((ab & (0x20 | 0x80 | 0x200 | 0x800 | 0x2000)) >> 1, 0x2)?;
        // Every bit must be accounted for.
        let m = MmaBuiltin { a, b, k };
        if a.family() != b.family() || k != a.k() {
            return None;
        }
        if acc != 0 && (acc != MMA_BF16_ACC || a != MmaElem::Bf16) {
            return None;
        }
        (m.operands_mask(acc != 0) == mask).then_some(m)
    }

    /// `intel_sub_group_f16_f16_matrix_mad_k16`.
    pub fn base_name(self) -> String {
        format!(
            "intel_sub_group_{}_{}_matrix_mad_k{}",
            self.a.spelling(),
            self.b.spelling(),
            self.k
        )
    }
}

impl BlockBuiltin {
    /// `intel_sub_group_2d_block_read_16b_32r16x2c`.
    pub fn base_name(self) -> String {
        let op = match self.op {
            BlockKind::Load => "read",
            BlockKind::LoadTransform => "read_transform",
            BlockKind::LoadTranspose => "read_transpose",
            BlockKind::Store => "write",
            BlockKind::Prefetch => "prefetch",
        };
        format!(
            "intel_sub_group_2d_block_{op}_{}b_{}r{}x{}c",
            self.elem_bytes * 8,
            self.height,
            self.width,
            self.count
        )
    }

    /// Bits of the integer the private pointer points to, as IGC's builtin library declares
    /// the per-work-item data (SG16): element bits × max(W / 16, 1) for plain reads and
    /// writes (8b 16-wide: uchar, 8b 32-wide and 16b: ushort, 32b: uint), `uint` for VNNI
    /// transforms, at least `uint` for transposes. `None` for prefetch (no pointer).
    pub fn private_pointee_bits(self) -> Option<u32> {
        let e = self.elem_bytes * 8;
        match self.op {
            BlockKind::Prefetch => None,
            BlockKind::LoadTransform => Some(32),
            BlockKind::LoadTranspose => Some(e.max(32)),
            BlockKind::Load | BlockKind::Store => Some((e * (self.width / 16).max(1)).min(64)),
        }
    }

    /// Number of parameters of the builtin.
    pub fn param_count(self) -> usize {
        if self.op == BlockKind::Prefetch {
            5
        } else {
            6
        }
    }
}

/// A recognised builtin.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Builtin {
    Block(BlockBuiltin),
    Mma(MmaBuiltin),
}

/// The unmangled name of an Itanium-mangled function name (`_Z<len><name>…` → `<name>`), or
/// the name itself when it is not mangled. `None` for a malformed mangling.
pub fn base_name(name: &str) -> Option<&str> {
    let Some(rest) = name.strip_prefix("_Z") else {
        return Some(name);
    };
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 || digits > 6 {
        return None;
    }
    let len: usize = rest[..digits].parse().ok()?;
    rest.get(digits..digits + len)
}

fn parse_shape(s: &str) -> Option<(u32, u32, u32, u32)> {
    // "<E>b_<H>r<W>x<C>c"
    let (e, rest) = s.split_once("b_")?;
    let (h, rest) = rest.split_once('r')?;
    let (w, rest) = rest.split_once('x')?;
    let c = rest.strip_suffix('c')?;
    let num = |t: &str| -> Option<u32> {
        if t.is_empty() || t.len() > 4 || !t.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        t.parse().ok()
    };
    Some((num(e)?, num(h)?, num(w)?, num(c)?))
}

/// Recognises a builtin from its (mangled or plain) name.
pub fn parse_builtin(name: &str) -> Option<Builtin> {
    let base = base_name(name)?;
    let rest = base.strip_prefix("intel_sub_group_")?;
    if let Some(r) = rest.strip_prefix("2d_block_") {
        let (op, shape) = [
            ("read_transform_", BlockKind::LoadTransform),
            ("read_transpose_", BlockKind::LoadTranspose),
            ("read_", BlockKind::Load),
            ("write_", BlockKind::Store),
            ("prefetch_", BlockKind::Prefetch),
        ]
        .iter()
        .find_map(|(p, op)| r.strip_prefix(p).map(|s| (*op, s)))?;
        let (bits, height, width, count) = parse_shape(shape)?;
        if !matches!(bits, 8 | 16 | 32 | 64) || height == 0 || width == 0 || count == 0 {
            return None;
        }
        return Some(Builtin::Block(BlockBuiltin {
            op,
            elem_bytes: bits / 8,
            width,
            height,
            count,
        }));
    }
    let (types, k) = rest.split_once("_matrix_mad_k")?;
    let (a, b) = types.split_once('_')?;
    let (a, b) = (MmaElem::parse(a)?, MmaElem::parse(b)?);
    if k.is_empty() || k.len() > 3 || !k.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let k: u32 = k.parse().ok()?;
    if a.family() != b.family() || k != a.k() {
        return None;
    }
    Some(Builtin::Mma(MmaBuiltin { a, b, k }))
}

/// An OpenCL C scalar type, for mangling.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClScalar {
    Void,
    Char,
    UChar,
    Short,
    UShort,
    Int,
    UInt,
    Long,
    ULong,
    Half,
    Float,
    Double,
}

impl ClScalar {
    fn code(self) -> &'static str {
        match self {
            ClScalar::Void => "v",
            ClScalar::Char => "c",
            ClScalar::UChar => "h",
            ClScalar::Short => "s",
            ClScalar::UShort => "t",
            ClScalar::Int => "i",
            ClScalar::UInt => "j",
            ClScalar::Long => "l",
            ClScalar::ULong => "m",
            ClScalar::Half => "Dh",
            ClScalar::Float => "f",
            ClScalar::Double => "d",
        }
    }

    /// The integer type of `bits` bits.
    pub fn int(bits: u32, signed: bool) -> Option<ClScalar> {
        Some(match (bits, signed) {
            (8, true) => ClScalar::Char,
            (8, false) => ClScalar::UChar,
            (16, true) => ClScalar::Short,
            (16, false) => ClScalar::UShort,
            (32, true) => ClScalar::Int,
            (32, false) => ClScalar::UInt,
            (64, true) => ClScalar::Long,
            (64, false) => ClScalar::ULong,
            _ => return None,
        })
    }

    /// The float type of `bits` bits.
    pub fn float(bits: u32) -> Option<ClScalar> {
        Some(match bits {
            16 => ClScalar::Half,
            32 => ClScalar::Float,
            64 => ClScalar::Double,
            _ => return None,
        })
    }
}

/// An OpenCL C parameter type, for mangling.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClType {
    Scalar(ClScalar),
    Vector(ClScalar, u32),
    /// Pointer to a scalar in an address space (`None` = private, no qualifier).
    Pointer(ClScalar, Option<u32>),
}

impl ClType {
    fn mangle(self) -> String {
        match self {
            ClType::Scalar(s) => s.code().to_string(),
            ClType::Vector(s, n) => format!("Dv{n}_{}", s.code()),
            ClType::Pointer(s, None) => format!("P{}", s.code()),
            ClType::Pointer(s, Some(a)) => format!("PU3AS{a}{}", s.code()),
        }
    }

    /// The components that become substitution candidates, innermost first, with their
    /// mangled text (Itanium ABI §5.1.8: every non-builtin type, qualified type and pointer).
    fn substitutables(self) -> Vec<String> {
        match self {
            ClType::Scalar(_) => Vec::new(),
            ClType::Vector(..) => vec![self.mangle()],
            ClType::Pointer(_, None) => vec![self.mangle()],
            ClType::Pointer(s, Some(a)) => {
                vec![format!("U3AS{a}{}", s.code()), self.mangle()]
            }
        }
    }
}

fn seq_id(n: usize) -> String {
    // S_, S0_, S1_, … S9_, SA_, … (base 36, digits then upper-case letters).
    if n == 0 {
        return "S_".into();
    }
    let mut v = n - 1;
    let mut digits = Vec::new();
    loop {
        let d = (v % 36) as u8;
        digits.push(if d < 10 { b'0' + d } else { b'A' + d - 10 });
        v /= 36;
        if v == 0 {
            break;
        }
    }
    digits.reverse();
    format!("S{}_", String::from_utf8(digits).unwrap_or_default())
}

/// Itanium-mangles `name(params)` the way clang does for OpenCL overloadable functions,
/// including substitutions of repeated vector/pointer types.
pub fn mangle(name: &str, params: &[ClType]) -> String {
    let mut out = format!("_Z{}{}", name.len(), name);
    let mut table: Vec<String> = Vec::new();
    for p in params {
        let full = p.mangle();
        if let Some(i) = table.iter().position(|t| *t == full) {
            out.push_str(&seq_id(i));
            continue;
        }
        // A pointer whose pointee qualified type was seen: P + substitution.
        if let ClType::Pointer(s, Some(a)) = p {
            let inner = format!("U3AS{a}{}", s.code());
            if let Some(i) = table.iter().position(|t| *t == inner) {
                out.push('P');
                out.push_str(&seq_id(i));
                table.push(full);
                continue;
            }
        }
        out.push_str(&full);
        for s in p.substitutables() {
            if !table.contains(&s) {
                table.push(s);
            }
        }
    }
    out
}

/// The parameter types of a 2D block builtin: `(global void*, int, int, int, int2[, T*])`.
pub fn block_params(b: BlockBuiltin) -> Vec<ClType> {
    let mut v = vec![
        ClType::Pointer(ClScalar::Void, Some(1)),
        ClType::Scalar(ClScalar::Int),
        ClType::Scalar(ClScalar::Int),
        ClType::Scalar(ClScalar::Int),
        ClType::Vector(ClScalar::Int, 2),
    ];
    if let Some(bits) = b.private_pointee_bits() {
        if let Some(s) = ClScalar::int(bits, false) {
            v.push(ClType::Pointer(s, None));
        }
    }
    v
}

// ---- module helpers shared by raise-builtins and lower-builtins ---------------------------------

/// `LinkageAttributes` type operand value for imports.
pub const LINKAGE_IMPORT: u32 = 1;

/// One `OpDecorate %target LinkageAttributes "name" <type>`.
#[derive(Clone, Debug)]
pub struct Linkage {
    pub target: Id,
    pub name: String,
    pub import: bool,
}

/// Every `LinkageAttributes` decoration of the module (one scan of the annotations).
pub fn linkages(m: &Module) -> Vec<Linkage> {
    let mut out = Vec::new();
    for (_, inst) in m.section_insts(Section::Annotation) {
        if !inst.is(Op::Decorate)
            || inst.operand_word(1) != Some(spirv::Decoration::LinkageAttributes as u32)
        {
            continue;
        }
        let (Some(target), Some(rest)) = (inst.operand_id(0), inst.operands().get(2..)) else {
            continue;
        };
        let Some(name) = decode_string(rest) else {
            continue;
        };
        let import = rest.last() == Some(&LINKAGE_IMPORT);
        out.push(Linkage {
            target,
            name: name.to_string(),
            import,
        });
    }
    out
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

pub const EXT_2D_BLOCK_IO: &str = "SPV_INTEL_2d_block_io";
pub const EXT_MMA: &str = "SPV_INTEL_subgroup_matrix_multiply_accumulate";

/// The capability a native 2D block op needs beyond Subgroup2DBlockIOINTEL.
pub fn extra_block_capability(op: BlockKind) -> Option<spirv::Capability> {
    match op {
        BlockKind::LoadTransform => Some(spirv::Capability::Subgroup2DBlockTransformINTEL),
        BlockKind::LoadTranspose => Some(spirv::Capability::Subgroup2DBlockTransposeINTEL),
        _ => None,
    }
}

/// The native opcode of a 2D block op.
pub fn block_opcode(op: BlockKind) -> Op {
    match op {
        BlockKind::Load => Op::Subgroup2DBlockLoadINTEL,
        BlockKind::LoadTransform => Op::Subgroup2DBlockLoadTransformINTEL,
        BlockKind::LoadTranspose => Op::Subgroup2DBlockLoadTransposeINTEL,
        BlockKind::Store => Op::Subgroup2DBlockStoreINTEL,
        BlockKind::Prefetch => Op::Subgroup2DBlockPrefetchINTEL,
    }
}

/// The 2D block op of a native opcode.
pub fn block_op_of(op: Op) -> Option<BlockKind> {
    Some(match op {
        Op::Subgroup2DBlockLoadINTEL => BlockKind::Load,
        Op::Subgroup2DBlockLoadTransformINTEL => BlockKind::LoadTransform,
        Op::Subgroup2DBlockLoadTransposeINTEL => BlockKind::LoadTranspose,
        Op::Subgroup2DBlockStoreINTEL => BlockKind::Store,
        Op::Subgroup2DBlockPrefetchINTEL => BlockKind::Prefetch,
        _ => return None,
    })
}

/// A scalar numeric type: `(is_float, bits)`.
pub fn scalar_kind(m: &Module, ty: Id) -> Option<(bool, u32)> {
    let t = m.def_inst(ty)?;
    if t.is(Op::TypeInt) {
        Some((false, t.operand_word(0)?))
    } else if t.is(Op::TypeFloat) && t.operands().len() == 1 {
        Some((true, t.operand_word(0)?))
    } else {
        None
    }
}

/// A scalar or vector numeric type: `(is_float, component bits, component count)` (count 1
/// for scalars).
pub fn numeric_kind(m: &Module, ty: Id) -> Option<(bool, u32, u32)> {
    let t = m.def_inst(ty)?;
    if t.is(Op::TypeVector) {
        let (f, bits) = scalar_kind(m, t.operand_id(0)?)?;
        Some((f, bits, t.operand_word(1)?))
    } else {
        let (f, bits) = scalar_kind(m, ty)?;
        Some((f, bits, 1))
    }
}

/// A pointer type: `(storage class, pointee type)`.
pub fn pointer_kind(m: &Module, ty: Id) -> Option<(u32, Option<Id>)> {
    let t = m.def_inst(ty)?;
    if t.is(Op::TypePointer) {
        Some((t.operand_word(0)?, t.operand_id(1)))
    } else if t.opcode() == 4417 {
        // OpTypeUntypedPointerKHR: storage class only.
        Some((t.operand_word(0)?, None))
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_corpus_names() {
        let b = parse_builtin("_Z42intel_sub_group_2d_block_read_16b_32r16x2cPU3AS1viiiDv2_iPt");
        assert_eq!(
            b,
            Some(Builtin::Block(BlockBuiltin {
                op: BlockKind::Load,
                elem_bytes: 2,
                width: 16,
                height: 32,
                count: 2
            }))
        );
        let t = parse_builtin(
            "_Z51intel_sub_group_2d_block_read_transpose_32b_32r8x1cPU3AS1viiiDv2_iPj",
        );
        assert!(
            matches!(t, Some(Builtin::Block(b)) if b.op == BlockKind::LoadTranspose && b.width == 8)
        );
        let m = parse_builtin("_Z38intel_sub_group_f16_f16_matrix_mad_k16Dv8_sDv8_iDv8_f");
        assert_eq!(
            m,
            Some(Builtin::Mma(MmaBuiltin {
                a: MmaElem::F16,
                b: MmaElem::F16,
                k: 16
            }))
        );
        assert_eq!(
            parse_builtin("_Z38intel_sub_group_f16_f16_matrix_mad_k8"),
            None
        );
        assert_eq!(parse_builtin("_Z99intel"), None);
        assert_eq!(
            parse_builtin("intel_sub_group_2d_block_read_16b_32r16x2"),
            None
        );
        assert_eq!(
            parse_builtin("intel_sub_group_2d_block_frob_16b_32r16x2c"),
            None
        );
    }

    #[test]
    fn mangles_like_clang() {
        let b = BlockBuiltin {
            op: BlockKind::Load,
            elem_bytes: 2,
            width: 16,
            height: 32,
            count: 2,
        };
        assert_eq!(
            mangle(&b.base_name(), &block_params(b)),
            "_Z42intel_sub_group_2d_block_read_16b_32r16x2cPU3AS1viiiDv2_iPt"
        );
        let p = BlockBuiltin {
            op: BlockKind::Prefetch,
            height: 16,
            ..b
        };
        assert_eq!(
            mangle(&p.base_name(), &block_params(p)),
            "_Z46intel_sub_group_2d_block_prefetch_16b_16r16x2cPU3AS1viiiDv2_i"
        );
        let t = BlockBuiltin {
            op: BlockKind::LoadTransform,
            count: 1,
            ..b
        };
        assert_eq!(
            mangle(&t.base_name(), &block_params(t)),
            "_Z52intel_sub_group_2d_block_read_transform_16b_32r16x1cPU3AS1viiiDv2_iPj"
        );
        let m = mangle(
            "intel_sub_group_f16_f16_matrix_mad_k16",
            &[
                ClType::Vector(ClScalar::Short, 8),
                ClType::Vector(ClScalar::Int, 8),
                ClType::Vector(ClScalar::Float, 8),
            ],
        );
        assert_eq!(
            m,
            "_Z38intel_sub_group_f16_f16_matrix_mad_k16Dv8_sDv8_iDv8_f"
        );
        let r = mangle(
            "intel_sub_group_i8_i8_matrix_mad_k32",
            &[
                ClType::Vector(ClScalar::Int, 8),
                ClType::Vector(ClScalar::Int, 8),
                ClType::Vector(ClScalar::Int, 8),
            ],
        );
        assert_eq!(r, "_Z36intel_sub_group_i8_i8_matrix_mad_k32Dv8_iS_S_");
        let s = mangle(
            "f",
            &[
                ClType::Vector(ClScalar::Float, 4),
                ClType::Vector(ClScalar::Float, 8),
                ClType::Vector(ClScalar::Float, 8),
            ],
        );
        assert_eq!(s, "_Z1fDv4_fDv8_fS0_");
    }

    #[test]
    fn masks_round_trip() {
        for (a, b) in [
            (MmaElem::I8, MmaElem::I8),
            (MmaElem::I8, MmaElem::U8),
            (MmaElem::U8, MmaElem::I8),
            (MmaElem::U8, MmaElem::U8),
            (MmaElem::I4, MmaElem::U4),
            (MmaElem::F16, MmaElem::F16),
            (MmaElem::Bf16, MmaElem::Bf16),
            (MmaElem::Tf32, MmaElem::Tf32),
        ] {
            let m = MmaBuiltin { a, b, k: a.k() };
            for acc in [false, true] {
                let mask = m.operands_mask(acc);
                assert_eq!(MmaBuiltin::from_mask(mask, a.k()), Some(m), "{mask:#x}");
            }
        }
        assert_eq!(
            MmaBuiltin {
                a: MmaElem::F16,
                b: MmaElem::F16,
                k: 16
            }
            .operands_mask(false),
            0xC00
        );
        assert_eq!(
            MmaBuiltin {
                a: MmaElem::I8,
                b: MmaElem::I8,
                k: 32
            }
            .operands_mask(false),
            0x33
        );
        assert_eq!(MmaBuiltin::from_mask(0, 16), None);
        assert_eq!(MmaBuiltin::from_mask(0xC00, 8), None);
        assert_eq!(MmaBuiltin::from_mask(0xC04, 16), None);
    }
}
