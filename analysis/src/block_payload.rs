//! IGC's 2D block *address payload* builtins, called from SPIR-V as imported functions with
//! their plain (unmangled) names, and the grammar of those names. The simulator executes them
//! (`sim/src/collective/payload.rs`), `hoist-block-payloads` emits them and
//! `lower-block-payloads` takes them back to the native `OpSubgroup2DBlock*INTEL` ops.
//!
//! Source: intel/intel-graphics-compiler `IGC/BiFModule/Implementation/IGCBiF_Intrinsics_Lsc.cl`
//! (declarations) and `IGC/Compiler/Optimizer/OpenCLPasses/LSCFuncs/LSCFuncsResolution.cpp`
//! (what IGC resolves, and how):
//! - `int* __builtin_IB_subgroup_createBlock2DAddressPayload(long base, int width_minus_one,
//!   int height_minus_one, int pitch_minus_one, int blockX, int blockY, int blockWidth,
//!   int blockHeight, int numBlocks)`: a new payload (an opaque, subgroup-uniform value of
//!   pointer type) holding a surface (base address, width and pitch in bytes minus one,
//!   height in rows minus one), a block position (x in elements, y in rows) and a block shape
//!   (constants: width in elements, height in rows, count);
//! - `int* __builtin_IB_subgroup_copyBlock2DAddressPayload(int* ap)`: an independent copy;
//! - `void __builtin_IB_subgroup_{set,add}Block2DAddressPayloadBlock{X,Y}(int* ap, int v)` and
//!   `void __builtin_IB_subgroup_setBlock2DAddressPayload{Base,Width,Height,Pitch}(int* ap, v)`
//!   (base: `long`): change one field of the payload in place (`add` adds to it). IGC resolves
//!   `…Height`; the BiF header declares `…Heigth`, which IGC would leave unresolved, so only
//!   `…Height` is recognised here;
//! - `__builtin_IB_subgroup_block_read_ap_[prefetch_][transpose_|transform_]u<E>_m<H>k<W>v<C>
//!   (int* ap, int immX, int immY, int cacheOpt)` (reads return the per-invocation block data,
//!   prefetches nothing) and `__builtin_IB_subgroup_block_write_ap_u<E>_m<H>k<W>v<C>(int* ap,
//!   int immX, int immY, T value, int cacheOpt)`: the 2D block operation of element size `E`
//!   bits and shape `W`x`H`x`C` at the payload's surface and position `(x + immX, y + immY)`.
//!   IGC requires the name's shape to equal the shape the payload was created with and
//!   `cacheOpt` to be a constant (`enum LSC_LDCC`).

use crate::block_io::BlockKind;

/// Prefix of every payload builtin.
const PREFIX: &str = "__builtin_IB_subgroup_";

/// A field of the payload that `set…`/`add…` change.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PayloadField {
    /// The surface's base address (`long`).
    Base,
    /// Surface width in bytes, minus one.
    WidthMinusOne,
    /// Surface height in rows, minus one.
    HeightMinusOne,
    /// Surface pitch in bytes, minus one.
    PitchMinusOne,
    /// Block x, in elements.
    BlockX,
    /// Block y, in rows.
    BlockY,
}

impl PayloadField {
    /// The field's part of the builtin's name.
    pub fn name(self) -> &'static str {
        match self {
            PayloadField::Base => "Base",
            PayloadField::WidthMinusOne => "Width",
            PayloadField::HeightMinusOne => "Height",
            PayloadField::PitchMinusOne => "Pitch",
            PayloadField::BlockX => "BlockX",
            PayloadField::BlockY => "BlockY",
        }
    }

    /// Every field, in the order of the creating call's arguments.
    pub const ALL: [PayloadField; 6] = [
        PayloadField::Base,
        PayloadField::WidthMinusOne,
        PayloadField::HeightMinusOne,
        PayloadField::PitchMinusOne,
        PayloadField::BlockX,
        PayloadField::BlockY,
    ];
}

/// The 2D block operation a `block_{read,write}_ap_*` builtin denotes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PayloadAccess {
    /// Load, transformed / transposed load, prefetch or store.
    pub kind: BlockKind,
    /// Element size in bits (8, 16, 32, 64).
    pub element_bits: u32,
    /// Block width in elements (`k`).
    pub width: u32,
    /// Block height in rows (`m`).
    pub height: u32,
    /// Block count (`v`).
    pub count: u32,
}

impl PayloadAccess {
    /// The builtin's name, e.g. `__builtin_IB_subgroup_block_read_ap_prefetch_u16_m16k16v2`.
    pub fn name(&self) -> String {
        let (op, mode) = match self.kind {
            BlockKind::Load => ("read", ""),
            BlockKind::LoadTransform => ("read", "transform_"),
            BlockKind::LoadTranspose => ("read", "transpose_"),
            BlockKind::Prefetch => ("read", "prefetch_"),
            BlockKind::Store => ("write", ""),
        };
        format!(
            "{PREFIX}block_{op}_ap_{mode}u{}_m{}k{}v{}",
            self.element_bits, self.height, self.width, self.count
        )
    }

    /// Whether IGC 2.40 resolves this shape (`CreateSubGroup2DBlockOperationAP`): heights
    /// 1..32 and widths 1..64 (prefetches also 128, 256) powers of two, counts 1, 2, 4; plain
    /// operations at most 64 bytes per row over all blocks and at least 4 per block;
    /// transposed loads one block of 32-bit elements at most 8 wide or of 64-bit elements 8
    /// rows and at most 4 wide; transformed loads 8-bit at least 4x4, 16-bit at least 2x2 and
    /// at most 32 wide.
    pub fn igc_resolves(&self) -> bool {
        let pow2 = |v: u32, max: u32| v.is_power_of_two() && v <= max;
        let wmax = if self.kind == BlockKind::Prefetch {
            256
        } else {
            64
        };
        if !matches!(self.element_bits, 8 | 16 | 32 | 64)
            || !pow2(self.height, 32)
            || !pow2(self.width, wmax)
            || !matches!(self.count, 1 | 2 | 4)
        {
            return false;
        }
        let (e, w, h) = (self.element_bits, self.width, self.height);
        match self.kind {
            BlockKind::LoadTranspose => {
                self.count == 1 && ((e == 32 && w <= 8) || (e == 64 && h == 8 && w <= 4))
            }
            BlockKind::LoadTransform => {
                (e == 8 && h >= 4 && w >= 4) || (e == 16 && h >= 2 && (2..=32).contains(&w))
            }
            _ => {
                let row = e / 8 * w;
                row >= 4 && row * self.count <= 64
            }
        }
    }
}

/// One payload builtin.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PayloadBuiltin {
    /// `createBlock2DAddressPayload` (9 arguments).
    Create,
    /// `copyBlock2DAddressPayload` (1 argument).
    Copy,
    /// `set…` (2 arguments).
    Set(PayloadField),
    /// `add…BlockX/BlockY` (2 arguments).
    Add(PayloadField),
    /// `block_{read,write}_ap_*` (4 arguments, writes 5).
    Access(PayloadAccess),
}

impl PayloadBuiltin {
    /// The builtin's name.
    pub fn name(&self) -> String {
        match self {
            PayloadBuiltin::Create => format!("{PREFIX}createBlock2DAddressPayload"),
            PayloadBuiltin::Copy => format!("{PREFIX}copyBlock2DAddressPayload"),
            PayloadBuiltin::Set(f) => format!("{PREFIX}setBlock2DAddressPayload{}", f.name()),
            PayloadBuiltin::Add(f) => format!("{PREFIX}addBlock2DAddressPayload{}", f.name()),
            PayloadBuiltin::Access(a) => a.name(),
        }
    }

    /// How many arguments a call takes.
    pub fn arg_count(&self) -> usize {
        match self {
            PayloadBuiltin::Create => 9,
            PayloadBuiltin::Copy => 1,
            PayloadBuiltin::Set(_) | PayloadBuiltin::Add(_) => 2,
            PayloadBuiltin::Access(a) if a.kind == BlockKind::Store => 5,
            PayloadBuiltin::Access(_) => 4,
        }
    }
}

fn number(s: &str, tag: char) -> Option<(u32, &str)> {
    let s = s.strip_prefix(tag)?;
    let end = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    if end == 0 || end > 3 || (end > 1 && s.starts_with('0')) {
        return None;
    }
    Some((s[..end].parse().ok()?, &s[end..]))
}

/// Recognises a payload builtin's exact name (`None` for anything else, including the
/// GenISA intrinsics and the OpenCL `intel_sub_group_2d_block_*` builtins).
pub fn parse_payload_builtin(name: &str) -> Option<PayloadBuiltin> {
    let rest = name.strip_prefix(PREFIX)?;
    if rest == "createBlock2DAddressPayload" {
        return Some(PayloadBuiltin::Create);
    }
    if rest == "copyBlock2DAddressPayload" {
        return Some(PayloadBuiltin::Copy);
    }
    if let Some(f) = rest.strip_prefix("setBlock2DAddressPayload") {
        return PayloadField::ALL
            .into_iter()
            .find(|x| x.name() == f)
            .map(PayloadBuiltin::Set);
    }
    if let Some(f) = rest.strip_prefix("addBlock2DAddressPayload") {
        return [PayloadField::BlockX, PayloadField::BlockY]
            .into_iter()
            .find(|x| x.name() == f)
            .map(PayloadBuiltin::Add);
    }
    let (write, mut s) = if let Some(s) = rest.strip_prefix("block_read_ap_") {
        (false, s)
    } else {
        (true, rest.strip_prefix("block_write_ap_")?)
    };
    let mut kind = if write {
        BlockKind::Store
    } else {
        BlockKind::Load
    };
    if !write {
        for (tag, k) in [
            ("prefetch_", BlockKind::Prefetch),
            ("transpose_", BlockKind::LoadTranspose),
            ("transform_", BlockKind::LoadTransform),
        ] {
            if let Some(t) = s.strip_prefix(tag) {
                kind = k;
                s = t;
                break;
            }
        }
    }
    let (element_bits, s) = number(s, 'u')?;
    let (height, s) = number(s.strip_prefix('_')?, 'm')?;
    let (width, s) = number(s, 'k')?;
    let (count, s) = number(s, 'v')?;
    if !s.is_empty() {
        return None;
    }
    let a = PayloadAccess {
        kind,
        element_bits,
        width,
        height,
        count,
    };
    a.igc_resolves().then_some(PayloadBuiltin::Access(a))
}

/// IGC's `enum LSC_LDCC` values 1..=7 with their (L1, L3) load cache controls as
/// `SPV_INTEL_cache_controls` `LoadCacheControl` values (Uncached 0, Cached 1, Streaming 2,
/// InvalidateAfterRead 3). 0 is the default (no control).
const LSC_LDCC: [(u32, u32); 7] = [(0, 0), (0, 1), (1, 0), (1, 1), (2, 0), (2, 1), (3, 1)];

/// IGC's `enum LSC_LDCC` value for L1 and L3 load cache controls (`None` for both: the
/// default, 0). Combinations the enum lacks, and one level without the other, are `None`.
pub fn lsc_load_cache(l1: Option<u32>, l3: Option<u32>) -> Option<u32> {
    match (l1, l3) {
        (None, None) => Some(0),
        (Some(a), Some(b)) => LSC_LDCC
            .iter()
            .position(|&p| p == (a, b))
            .map(|k| k as u32 + 1),
        _ => None,
    }
}

/// The inverse of [`lsc_load_cache`]: the (L1, L3) controls of an `LSC_LDCC` value, `None`
/// for the default.
pub fn lsc_load_cache_levels(v: u32) -> Option<Option<(u32, u32)>> {
    match v {
        0 => Some(None),
        1..=7 => Some(Some(LSC_LDCC[v as usize - 1])),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for n in [
            "__builtin_IB_subgroup_createBlock2DAddressPayload",
            "__builtin_IB_subgroup_copyBlock2DAddressPayload",
            "__builtin_IB_subgroup_setBlock2DAddressPayloadBlockX",
            "__builtin_IB_subgroup_addBlock2DAddressPayloadBlockY",
            "__builtin_IB_subgroup_setBlock2DAddressPayloadPitch",
            "__builtin_IB_subgroup_block_read_ap_prefetch_u16_m16k16v2",
            "__builtin_IB_subgroup_block_read_ap_u16_m8k16v2",
            "__builtin_IB_subgroup_block_read_ap_transform_u16_m32k16v1",
            "__builtin_IB_subgroup_block_read_ap_transpose_u32_m16k8v1",
            "__builtin_IB_subgroup_block_write_ap_u16_m8k16v1",
        ] {
            let b = parse_payload_builtin(n).unwrap_or_else(|| panic!("{n}"));
            assert_eq!(b.name(), n);
        }
    }

    #[test]
    fn rejects_what_igc_does_not_resolve() {
        for n in [
            "__builtin_IB_subgroup_setBlock2DAddressPayloadHeigth",
            "__builtin_IB_subgroup_addBlock2DAddressPayloadBase",
            "__builtin_IB_subgroup_block_read_ap_u16_m8k32v2", // 128 bytes per row
            "__builtin_IB_subgroup_block_read_ap_u16_m8k16v3",
            "__builtin_IB_subgroup_block_read_ap_u16_m8k16v2x",
            "__builtin_IB_subgroup_block_read_ap_transpose_u32_m16k8v2",
            "__builtin_IB_subgroup_block_write_ap_prefetch_u16_m8k16v1",
            "_Z40intel_sub_group_2d_block_read_8b_8r32x1c",
            "llvm.genx.GenISA.LSC2DBlockReadAddrPayload.v8i16",
        ] {
            assert_eq!(parse_payload_builtin(n), None, "{n}");
        }
    }

    #[test]
    fn cache_controls() {
        assert_eq!(lsc_load_cache(Some(1), Some(1)), Some(4));
        assert_eq!(lsc_load_cache(None, None), Some(0));
        assert_eq!(lsc_load_cache(Some(1), None), None);
        for v in 1..=7 {
            let (a, b) = lsc_load_cache_levels(v).unwrap().unwrap();
            assert_eq!(lsc_load_cache(Some(a), Some(b)), Some(v));
        }
        assert_eq!(lsc_load_cache_levels(0), Some(None));
        assert_eq!(lsc_load_cache_levels(8), None);
    }
}
