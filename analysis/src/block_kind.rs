//! The kinds of 2D block operation (`SPV_INTEL_2d_block_io`): one enum for the native
//! instructions, the OpenCL builtins that stand for them, and the targets' shape tables.

use spirv::Op;
use spvopt_ir::Inst;

/// A kind of 2D block operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BlockKind {
    /// `OpSubgroup2DBlockLoadINTEL`: rows into each invocation's private memory.
    Load,
    /// `OpSubgroup2DBlockLoadTransformINTEL`: a load in VNNI layout (rows paired into dwords).
    LoadTransform,
    /// `OpSubgroup2DBlockLoadTransposeINTEL`: a load of the transposed block.
    LoadTranspose,
    /// `OpSubgroup2DBlockStoreINTEL`.
    Store,
    /// `OpSubgroup2DBlockPrefetchINTEL`: loads into cache only.
    Prefetch,
}

impl BlockKind {
    /// Every kind, in the order the target descriptions list them.
    pub const ALL: [BlockKind; 5] = [
        BlockKind::Load,
        BlockKind::LoadTransform,
        BlockKind::LoadTranspose,
        BlockKind::Store,
        BlockKind::Prefetch,
    ];

    /// The name the target descriptions use (`load-transform`, …).
    pub fn name(self) -> &'static str {
        match self {
            BlockKind::Load => "load",
            BlockKind::LoadTransform => "load-transform",
            BlockKind::LoadTranspose => "load-transpose",
            BlockKind::Store => "store",
            BlockKind::Prefetch => "prefetch",
        }
    }

    /// The kind of a native 2D block instruction (compares the opcode word: this runs on every
    /// instruction of a module).
    pub fn of(inst: &Inst) -> Option<BlockKind> {
        const LOAD: u16 = Op::Subgroup2DBlockLoadINTEL as u16;
        const LOAD_TRANSFORM: u16 = Op::Subgroup2DBlockLoadTransformINTEL as u16;
        const LOAD_TRANSPOSE: u16 = Op::Subgroup2DBlockLoadTransposeINTEL as u16;
        const PREFETCH: u16 = Op::Subgroup2DBlockPrefetchINTEL as u16;
        const STORE: u16 = Op::Subgroup2DBlockStoreINTEL as u16;
        match inst.opcode() {
            LOAD => Some(BlockKind::Load),
            LOAD_TRANSFORM => Some(BlockKind::LoadTransform),
            LOAD_TRANSPOSE => Some(BlockKind::LoadTranspose),
            PREFETCH => Some(BlockKind::Prefetch),
            STORE => Some(BlockKind::Store),
            _ => None,
        }
    }

    /// The kind of a native 2D block opcode.
    pub fn of_opcode(op: Op) -> Option<BlockKind> {
        match op {
            Op::Subgroup2DBlockLoadINTEL => Some(BlockKind::Load),
            Op::Subgroup2DBlockLoadTransformINTEL => Some(BlockKind::LoadTransform),
            Op::Subgroup2DBlockLoadTransposeINTEL => Some(BlockKind::LoadTranspose),
            Op::Subgroup2DBlockPrefetchINTEL => Some(BlockKind::Prefetch),
            Op::Subgroup2DBlockStoreINTEL => Some(BlockKind::Store),
            _ => None,
        }
    }

    /// The native opcode of this kind.
    pub fn opcode(self) -> Op {
        match self {
            BlockKind::Load => Op::Subgroup2DBlockLoadINTEL,
            BlockKind::LoadTransform => Op::Subgroup2DBlockLoadTransformINTEL,
            BlockKind::LoadTranspose => Op::Subgroup2DBlockLoadTransposeINTEL,
            BlockKind::Prefetch => Op::Subgroup2DBlockPrefetchINTEL,
            BlockKind::Store => Op::Subgroup2DBlockStoreINTEL,
        }
    }

    /// Whether the operation writes per-invocation data through a private pointer (loads).
    pub fn is_load(self) -> bool {
        matches!(
            self,
            BlockKind::Load | BlockKind::LoadTransform | BlockKind::LoadTranspose
        )
    }

    /// Whether the operation reads the 2D region (loads and prefetches).
    pub fn reads_region(self) -> bool {
        !matches!(self, BlockKind::Store)
    }
}
