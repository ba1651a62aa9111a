//! The one model of a 2D block operation (`SPV_INTEL_2d_block_io`) and of a subgroup MMA, for
//! the native instructions and for the OpenCL builtin calls real inputs use (Triton's
//! `intel_sub_group_2d_block_*` / `intel_sub_group_*_matrix_mad_k*`). Every analysis and pass
//! reads 2D block operands from here.
//!
//! - [`BlockKind`]: load, transformed load, transposed load, store, prefetch.
//! - [`BlockOperands`]: the operands of a native instruction by name; read, change, write back
//!   ([`BlockOperands::to_inst`]). Passes that rewrite block ops use it.
//! - [`BlockIo`]: one operation in either form ([`block_io`]); in the builtin form the block
//!   shape is part of the callee's name, so shape operands are [`ShapeOperand::Literal`]s.
//!   Analyses use it.
//! - [`BlockShape`]: a constant shape and the per-invocation data layout it implies.
//! - [`MatrixMad`]: one MMA in either form ([`matrix_mad`]).
//!
//! Operand orders (SPV_INTEL_2d_block_io):
//! - Load/LoadTransform/LoadTranspose: ElemSize W H Count SrcBase MemWidth MemHeight MemPitch Coord Dst
//! - Prefetch: ElemSize W H Count Base MemWidth MemHeight MemPitch Coord
//! - Store: ElemSize W H Count Src DstBase MemWidth MemHeight MemPitch Coord
//! - builtins: (base, width, height, pitch, coord[, ptr]) — `ptr` is the private destination of
//!   reads and the private source of writes.

use spirv::{Op, StorageClass};
use spvopt_ir::{Id, Inst, InstBuf, InstId, Module};

pub use crate::block_kind::BlockKind;

pub mod layout;
pub mod mma;
use crate::builtins::{CalleeKind, Callees};

/// The operands of a 2D block instruction, by name. Loads: `private` is the Dst pointer;
/// stores: the Src pointer; prefetches: none.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlockOperands {
    /// Which 2D block operation.
    pub kind: BlockKind,
    /// Element Size: the id of the constant size of one element in bytes.
    pub element_size: Id,
    /// Block Width: elements per row of one block.
    pub width: Id,
    /// Block Height: rows of the block.
    pub height: Id,
    /// Block Count: blocks side by side.
    pub count: Id,
    /// The CrossWorkgroup base pointer.
    pub base: Id,
    /// Memory Width: the 2D region's width in bytes.
    pub memory_width: Id,
    /// Memory Height: the region's number of rows.
    pub memory_height: Id,
    /// Memory Pitch: bytes from one row to the next.
    pub memory_pitch: Id,
    /// Coordinate: the int2 (x in elements, y in rows) of the block's top-left element.
    pub coordinate: Id,
    /// The per-invocation pointer: loads write through it, stores read through it; `None`
    /// for prefetches.
    pub private: Option<Id>,
}

impl BlockOperands {
    /// Reads the operands of `inst`; `None` if it is not a well-formed 2D block instruction.
    pub fn read(inst: &Inst) -> Option<BlockOperands> {
        let kind = BlockKind::of(inst)?;
        let ops = inst.operands();
        let id = |i: usize| ops.get(i).copied().and_then(Id::new);
        // Where the private pointer and the five surface operands (base, width, height, pitch,
        // coordinate) are; the four shape operands come first in every kind.
        let (len, private_at, surface_at) = match kind {
            BlockKind::Store => (10, Some(4), 5),
            BlockKind::Prefetch => (9, None, 4),
            _ => (10, Some(9), 4),
        };
        if ops.len() != len {
            return None;
        }
        Some(BlockOperands {
            kind,
            element_size: id(0)?,
            width: id(1)?,
            height: id(2)?,
            count: id(3)?,
            base: id(surface_at)?,
            memory_width: id(surface_at + 1)?,
            memory_height: id(surface_at + 2)?,
            memory_pitch: id(surface_at + 3)?,
            coordinate: id(surface_at + 4)?,
            private: match private_at {
                Some(k) => Some(id(k)?),
                None => None,
            },
        })
    }

    /// The instruction with these operands.
    pub fn to_inst(&self) -> InstBuf {
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
    /// Bytes of one element (1, 2, 4 or 8).
    pub element_size: u32,
    /// Elements per row of one block.
    pub width: u32,
    /// Rows per block.
    pub height: u32,
    /// Blocks side by side (adjacent in x).
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

/// A block shape operand: an id (native form; fold it with the constants analysis) or a
/// number taken from the builtin's name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShapeOperand {
    /// An id (native form).
    Id(Id),
    /// A number from the builtin's name.
    Literal(u32),
}

/// One 2D block operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlockIo {
    /// Which 2D block operation.
    pub kind: BlockKind,
    /// `true` for the native SPIR-V op, `false` for a builtin call.
    pub native: bool,
    /// Element size (bytes), block width, block height, block count.
    pub shape: [ShapeOperand; 4],
    /// The 2D region's base pointer (CrossWorkgroup).
    pub base: Id,
    /// The region's row width in bytes.
    pub mem_width: Id,
    /// The region's number of rows.
    pub mem_height: Id,
    /// Bytes from one row to the next.
    pub mem_pitch: Id,
    /// The int2 coordinate (x in elements, y in rows).
    pub coord: Id,
    /// The private pointer: destination of loads, source of stores; `None` for prefetches.
    pub private: Option<Id>,
}

impl BlockIo {
    /// The operand ids the SPV_INTEL_2d_block_io spec requires to be dynamically uniform
    /// (shape ids, base, width, height, pitch, coordinate).
    pub fn uniform_operands(&self) -> impl Iterator<Item = Id> + '_ {
        self.shape
            .iter()
            .filter_map(|s| match s {
                ShapeOperand::Id(i) => Some(*i),
                ShapeOperand::Literal(_) => None,
            })
            .chain([
                self.base,
                self.mem_width,
                self.mem_height,
                self.mem_pitch,
                self.coord,
            ])
    }
}

impl From<BlockOperands> for BlockIo {
    /// The form-independent view of a native instruction's operands.
    fn from(o: BlockOperands) -> BlockIo {
        BlockIo {
            kind: o.kind,
            native: true,
            shape: [o.element_size, o.width, o.height, o.count].map(ShapeOperand::Id),
            base: o.base,
            mem_width: o.memory_width,
            mem_height: o.memory_height,
            mem_pitch: o.memory_pitch,
            coord: o.coordinate,
            private: o.private,
        }
    }
}

/// The 2D block operation `inst` performs, if it is one (native instruction or builtin call).
pub fn block_io(m: &Module, callees: &Callees, inst: InstId) -> Option<BlockIo> {
    let i = m.inst(inst);
    if BlockKind::of(i).is_some() {
        return BlockOperands::read(i).map(BlockIo::from);
    }
    if !i.is(Op::FunctionCall) {
        return None;
    }
    let callee = callees.of_call(i)?;
    let CalleeKind::BlockIo { kind, shape } = callee.kind else {
        return None;
    };
    // Call operands: function, then arguments.
    let arg = |k: usize| i.operand_id(k + 1);
    Some(BlockIo {
        kind,
        native: false,
        shape: shape.map(ShapeOperand::Literal),
        base: arg(0)?,
        mem_width: arg(1)?,
        mem_height: arg(2)?,
        mem_pitch: arg(3)?,
        coord: arg(4)?,
        private: if kind == BlockKind::Prefetch {
            None
        } else {
            Some(arg(5)?)
        },
    })
}

/// One subgroup matrix multiply-accumulate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MatrixMad {
    /// `true` for `OpSubgroupMatrixMultiplyAccumulateINTEL`, `false` for a builtin call.
    pub native: bool,
    /// K Dim: an id (native) or the number in the builtin's name.
    pub k_dim: ShapeOperand,
    /// Matrix A (the M×K operand).
    pub a: Id,
    /// Matrix B (the K×N operand).
    pub b: Id,
    /// Matrix C (the accumulator, M×N).
    pub c: Id,
}

/// The MMA `inst` performs, if it is one.
pub fn matrix_mad(m: &Module, callees: &Callees, inst: InstId) -> Option<MatrixMad> {
    let i = m.inst(inst);
    if i.is(Op::SubgroupMatrixMultiplyAccumulateINTEL) {
        return Some(MatrixMad {
            native: true,
            k_dim: ShapeOperand::Id(i.operand_id(0)?),
            a: i.operand_id(1)?,
            b: i.operand_id(2)?,
            c: i.operand_id(3)?,
        });
    }
    let callee = callees.of_call(i)?;
    let CalleeKind::MatrixMad { k } = callee.kind else {
        return None;
    };
    Some(MatrixMad {
        native: false,
        k_dim: ShapeOperand::Literal(k),
        a: i.operand_id(1)?,
        b: i.operand_id(2)?,
        c: i.operand_id(3)?,
    })
}

/// The scalar type a block operation's private (Function) pointer addresses, and its size in
/// bytes: what loads write and stores read element by element (splitting or lowering a block
/// operation addresses its private data with it). `None` for other pointers.
pub fn private_scalar(m: &Module, pointer: Id) -> Option<(Id, u32)> {
    let ptr_ty = m.def_inst(m.type_of(pointer)?)?;
    if !ptr_ty.is(Op::TypePointer) || ptr_ty.operand_word(0) != Some(StorageClass::Function as u32)
    {
        return None;
    }
    let mut t = ptr_ty.operand_id(1)?;
    loop {
        let inst = m.def_inst(t)?;
        match inst.op()? {
            Op::TypeInt | Op::TypeFloat => {
                let bits = inst.operand_word(0)?;
                return (bits % 8 == 0 && bits > 0).then_some((t, bits / 8));
            }
            Op::TypeVector | Op::TypeArray => t = inst.operand_id(0)?,
            _ => return None,
        }
    }
}

/// Whether any function of the module has a native 2D block instruction.
pub fn has_block_instructions(m: &Module) -> bool {
    m.function_ids().any(|f| {
        m.function(f)
            .blocks
            .iter()
            .any(|&b| m.block_insts(b).any(|i| BlockKind::of(m.inst(i)).is_some()))
    })
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
