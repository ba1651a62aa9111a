//! The names of the Intel OpenCL 2D block and MMA builtins (cl_intel_subgroup_2d_block_io,
//! cl_intel_subgroup_matrix_multiply_accumulate): the one parser (`parse_builtin`:
//! `_Z42intel_sub_group_2d_block_read_16b_32r16x2cPU3AS1viiiDv2_iPt` → a 16-bit 32-row
//! 16-wide 2-block read) that [`crate::builtins::Callees`] classifies calls with and
//! `raise-builtins` raises them with, and the base names built back (`lower-builtins` mangles
//! them with the parameter types).
//!
//! - `intel_sub_group_2d_block_{read,read_transform,read_transpose,write,prefetch}_<E>b_<H>r<W>x<C>c`
//!   with `E` element bits (8, 16, 32, 64), `H` height, `W` width, `C` block count (none 0);
//!   parameters `(global void* base, int width, int height, int pitch, int2 coord[, private T* ptr])`.
//! - `intel_sub_group_<a>_<b>_matrix_mad_k<K>` with `<a>_<b>` one of `{i8,u8}_{i8,u8}` (K 32),
//!   `{i4,u4}_{i4,u4}` (K 64), `f16_f16`, `bf16_bf16` (K 16), `tf32_tf32` (K 8); parameters
//!   `(A a, B b, C acc)`, result C. Other spellings are not these builtins.

use crate::block_kind::BlockKind;

/// A 2D block builtin: which op and the shape its name encodes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlockBuiltin {
    /// Which 2D block operation the builtin is.
    pub op: BlockKind,
    /// Element size in bytes (the name has bits).
    pub elem_bytes: u32,
    /// Block width in elements (the `x<W>` of the name).
    pub width: u32,
    /// Block height in rows (the `r<H>` of the name).
    pub height: u32,
    /// Block count (the `x<C>c` of the name).
    pub count: u32,
}

/// Element interpretation of an MMA operand, as a builtin name spells it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MmaElem {
    /// Signed 8-bit integers (`i8`).
    I8,
    /// Unsigned 8-bit integers (`u8`).
    U8,
    /// Signed 4-bit integers, two per byte (`i4`).
    I4,
    /// Unsigned 4-bit integers, two per byte (`u4`).
    U4,
    /// IEEE half floats (`f16`).
    F16,
    /// bfloat16 (`bf16`).
    Bf16,
    /// TensorFloat-32 (`tf32`): f32 storage, 10-bit mantissa.
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
    /// Unsigned integer interpretation (for the mangled parameter types).
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
    /// Element interpretation of matrix A.
    pub a: MmaElem,
    /// Element interpretation of matrix B.
    pub b: MmaElem,
    /// K (the reduction depth) the name encodes.
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
    /// A 2D block read, write or prefetch builtin.
    Block(BlockBuiltin),
    /// A subgroup matrix multiply-accumulate builtin.
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

/// One of IGC's GenISA 2D block intrinsics, which Triton's fallback path calls as imported
/// functions `llvm.genx.GenISA.LSC2DBlock{Read,Write,Prefetch}.<type>` (argument layout:
/// IGC `GenISAIntrinsics/generator/input/Intrinsic_definitions.yml`; see
/// `spvopt_passes::raise_builtins` and the simulator's `collective/genisa.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GenIsaBlock {
    /// `LSC2DBlockRead`: a 2D block load.
    Read,
    /// `LSC2DBlockWrite`: a 2D block store.
    Write,
    /// `LSC2DBlockPrefetch`: a 2D block prefetch.
    Prefetch,
}

impl GenIsaBlock {
    /// Arguments of the intrinsic: 13, and the stored value for writes.
    pub fn arg_count(self) -> usize {
        if self == GenIsaBlock::Write {
            14
        } else {
            13
        }
    }

    /// The intrinsic's name without the type suffix.
    pub fn name(self) -> &'static str {
        match self {
            GenIsaBlock::Read => "llvm.genx.GenISA.LSC2DBlockRead",
            GenIsaBlock::Write => "llvm.genx.GenISA.LSC2DBlockWrite",
            GenIsaBlock::Prefetch => "llvm.genx.GenISA.LSC2DBlockPrefetch",
        }
    }
}

/// Recognises `llvm.genx.GenISA.LSC2DBlock{Read,Write,Prefetch}[.<suffix>]` (not the
/// `…AddrPayload` forms, which take a payload instead of the surface fields).
pub fn parse_genisa_block(name: &str) -> Option<GenIsaBlock> {
    let rest = name.strip_prefix("llvm.genx.GenISA.LSC2DBlock")?;
    let (op, tail) = [
        ("Read", GenIsaBlock::Read),
        ("Write", GenIsaBlock::Write),
        ("Prefetch", GenIsaBlock::Prefetch),
    ]
    .iter()
    .find_map(|(p, op)| rest.strip_prefix(p).map(|t| (*op, t)))?;
    (tail.is_empty() || tail.starts_with('.')).then_some(op)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn genisa_names() {
        assert_eq!(
            parse_genisa_block("llvm.genx.GenISA.LSC2DBlockRead.v8i16"),
            Some(GenIsaBlock::Read)
        );
        assert_eq!(
            parse_genisa_block("llvm.genx.GenISA.LSC2DBlockWrite.v8i16"),
            Some(GenIsaBlock::Write)
        );
        assert_eq!(
            parse_genisa_block("llvm.genx.GenISA.LSC2DBlockPrefetch.isVoid"),
            Some(GenIsaBlock::Prefetch)
        );
        assert_eq!(
            parse_genisa_block("llvm.genx.GenISA.LSC2DBlockReadAddrPayload.v8i16"),
            None
        );
        assert_eq!(parse_genisa_block("llvm.genx.GenISA.sub.group.dpas"), None);
        assert_eq!(parse_genisa_block("_Z4llvm"), None);
    }

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
