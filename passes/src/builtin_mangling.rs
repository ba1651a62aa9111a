//! The Intel OpenCL builtins that `raise-builtins` / `lower-builtins` translate, as the module
//! spells them: the Itanium mangling of their OpenCL parameter types
//! (`_Z42intel_sub_group_2d_block_read_16b_32r16x2cPU3AS1viiiDv2_iPt`), their linkages (imported
//! declarations), and the native opcode and capability of each 2D block builtin. Parsing the
//! names and building the base names back is `spvopt_analysis::builtin_names` (one parser for
//! analyses and passes, re-exported here).
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
pub use spvopt_analysis::builtin_names::{
    base_name, parse_builtin, BlockBuiltin, Builtin, MmaBuiltin, MmaElem, MMA_BF16_ACC,
};
use spvopt_ir::grammar::decode_string;
use spvopt_ir::{Id, Module, Section};

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
}
