//! Views of the `SPV_INTEL_2d_block_io` instructions and facts about their data layout that
//! several passes share (split, fuse, prefetch, legalize).

use spirv::Op;
use spvopt_analysis::{Fact, KernelFacts};
use spvopt_ir::{Id, Inst, InstId, Module};

/// The kinds of 2D block instructions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BlockKind {
    Load,
    LoadTransform,
    LoadTranspose,
    Prefetch,
    Store,
}

impl BlockKind {
    /// The kind of a 2D block opcode.
    pub fn of(inst: &Inst) -> Option<BlockKind> {
        match inst.op()? {
            Op::Subgroup2DBlockLoadINTEL => Some(BlockKind::Load),
            Op::Subgroup2DBlockLoadTransformINTEL => Some(BlockKind::LoadTransform),
            Op::Subgroup2DBlockLoadTransposeINTEL => Some(BlockKind::LoadTranspose),
            Op::Subgroup2DBlockPrefetchINTEL => Some(BlockKind::Prefetch),
            Op::Subgroup2DBlockStoreINTEL => Some(BlockKind::Store),
            _ => None,
        }
    }

    pub fn opcode(self) -> Op {
        match self {
            BlockKind::Load => Op::Subgroup2DBlockLoadINTEL,
            BlockKind::LoadTransform => Op::Subgroup2DBlockLoadTransformINTEL,
            BlockKind::LoadTranspose => Op::Subgroup2DBlockLoadTransposeINTEL,
            BlockKind::Prefetch => Op::Subgroup2DBlockPrefetchINTEL,
            BlockKind::Store => Op::Subgroup2DBlockStoreINTEL,
        }
    }

    /// Whether the instruction writes per-invocation data through a Dst pointer.
    pub fn is_load(self) -> bool {
        matches!(
            self,
            BlockKind::Load | BlockKind::LoadTransform | BlockKind::LoadTranspose
        )
    }
}

/// The operands of a 2D block instruction, by name. Loads: `private` is the Dst pointer;
/// stores: the Src pointer; prefetches: none.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlockOperands {
    pub kind: BlockKind,
    pub element_size: Id,
    pub width: Id,
    pub height: Id,
    pub count: Id,
    /// The CrossWorkgroup base pointer.
    pub base: Id,
    pub memory_width: Id,
    pub memory_height: Id,
    pub memory_pitch: Id,
    pub coordinate: Id,
    pub private: Option<Id>,
}

impl BlockOperands {
    /// Reads the operands of `inst`; `None` if it is not a well-formed 2D block instruction.
    pub fn read(inst: &Inst) -> Option<BlockOperands> {
        let kind = BlockKind::of(inst)?;
        let ops = inst.operands();
        let id = |i: usize| ops.get(i).copied().and_then(Id::new);
        Some(match kind {
            BlockKind::Store => {
                if ops.len() != 10 {
                    return None;
                }
                BlockOperands {
                    kind,
                    element_size: id(0)?,
                    width: id(1)?,
                    height: id(2)?,
                    count: id(3)?,
                    private: Some(id(4)?),
                    base: id(5)?,
                    memory_width: id(6)?,
                    memory_height: id(7)?,
                    memory_pitch: id(8)?,
                    coordinate: id(9)?,
                }
            }
            BlockKind::Prefetch => {
                if ops.len() != 9 {
                    return None;
                }
                BlockOperands {
                    kind,
                    element_size: id(0)?,
                    width: id(1)?,
                    height: id(2)?,
                    count: id(3)?,
                    base: id(4)?,
                    memory_width: id(5)?,
                    memory_height: id(6)?,
                    memory_pitch: id(7)?,
                    coordinate: id(8)?,
                    private: None,
                }
            }
            _ => {
                if ops.len() != 10 {
                    return None;
                }
                BlockOperands {
                    kind,
                    element_size: id(0)?,
                    width: id(1)?,
                    height: id(2)?,
                    count: id(3)?,
                    base: id(4)?,
                    memory_width: id(5)?,
                    memory_height: id(6)?,
                    memory_pitch: id(7)?,
                    coordinate: id(8)?,
                    private: Some(id(9)?),
                }
            }
        })
    }

    /// The instruction with these operands.
    pub fn to_inst(&self) -> Inst {
        let w = |i: Id| i.word();
        let shape = [
            w(self.element_size),
            w(self.width),
            w(self.height),
            w(self.count),
        ];
        let surface = [
            w(self.base),
            w(self.memory_width),
            w(self.memory_height),
            w(self.memory_pitch),
            w(self.coordinate),
        ];
        let mut ops: Vec<u32> = shape.to_vec();
        match (self.kind, self.private) {
            (BlockKind::Store, Some(p)) => {
                ops.push(p.word());
                ops.extend_from_slice(&surface);
            }
            (BlockKind::Prefetch, _) => ops.extend_from_slice(&surface),
            (_, p) => {
                ops.extend_from_slice(&surface);
                if let Some(p) = p {
                    ops.push(p.word());
                }
            }
        }
        Inst::new(self.kind.opcode(), None, None, &ops)
    }

    /// The four shape operands folded to numbers (element size, width, height, count) when
    /// they are integer constants.
    pub fn shape(&self, m: &Module) -> Option<BlockShape> {
        let c = |id: Id| m.const_int_value(id).and_then(|v| u32::try_from(v).ok());
        Some(BlockShape {
            element_size: c(self.element_size)?,
            width: c(self.width)?,
            height: c(self.height)?,
            count: c(self.count)?,
        })
    }
}

/// Constant shape of a 2D block instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BlockShape {
    pub element_size: u32,
    pub width: u32,
    pub height: u32,
    pub count: u32,
}

impl BlockShape {
    /// Bytes of per-invocation data one block occupies, per the spec's mapping (`SPV_INTEL_2d_block_io`,
    /// "Data Layout"): the width (or, for transposed loads, the height) is padded to a power of
    /// two, transformed loads pack 4 (1-byte) or 2 (2-byte) rows into 32-bit values (padding the
    /// height to a multiple of that), and the padded block's elements (packed values for
    /// transformed loads) are dealt to the subgroup's invocations, each receiving
    /// `ceil(padded elements / subgroup size)` of them. With Block Count > 1, block
    /// b's data follows block b-1's. `None` for shapes that overflow.
    pub fn bytes_per_invocation_per_block(
        &self,
        kind: BlockKind,
        subgroup_size: u32,
    ) -> Option<u32> {
        if subgroup_size == 0 || self.width == 0 || self.height == 0 {
            return None;
        }
        let (w, h) = match kind {
            BlockKind::LoadTranspose => (self.width, self.height.checked_next_power_of_two()?),
            BlockKind::LoadTransform => {
                // Rows are packed into 32-bit values (4 one-byte or 2 two-byte rows each); the
                // packed 32-bit values are what is dealt to the invocations.
                let rows_per_dword = match self.element_size {
                    1 => 4,
                    2 => 2,
                    _ => 1,
                };
                let w = self.width.checked_next_power_of_two()?;
                let packed_rows = self.height.div_ceil(rows_per_dword);
                let dwords = w.checked_mul(packed_rows)?;
                return dwords.div_ceil(subgroup_size).checked_mul(4);
            }
            _ => (self.width.checked_next_power_of_two()?, self.height),
        };
        let elements = w.checked_mul(h)?;
        elements
            .div_ceil(subgroup_size)
            .checked_mul(self.element_size)
    }
}

/// The subgroup size every kernel entry point of the module declares with
/// `OpExecutionMode SubgroupSize`, if they all declare the same one. The whole-module view:
/// passes ask [`subgroup_size_at`] (per function, [`KernelFacts`]) instead.
pub fn module_subgroup_size(m: &Module) -> Option<u32> {
    KernelFacts::build(m).module_subgroup_size()
}

/// The subgroup size of the kernels that reach the function containing instruction `i`
/// (`Known` when they all declare the same `SubgroupSize`).
pub fn subgroup_size_at(facts: &KernelFacts, m: &Module, i: InstId) -> Fact<u32> {
    facts.subgroup_size_at(m, i)
}

/// Every 2D block instruction of the module, in layout order.
pub fn block_instructions(m: &Module) -> Vec<InstId> {
    let mut v = Vec::new();
    for f in m.function_ids() {
        for &b in &m.function(f).blocks {
            for i in m.block_insts(b) {
                if BlockKind::of(m.inst(i)).is_some() {
                    v.push(i);
                }
            }
        }
    }
    v
}
