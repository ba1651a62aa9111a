//! Recognition of 2D block IO and subgroup MMA operations in both forms real inputs use:
//! the native `OpSubgroup2DBlock{Load,LoadTransform,LoadTranspose,Prefetch,Store}INTEL` /
//! `OpSubgroupMatrixMultiplyAccumulateINTEL` instructions, and `OpFunctionCall`s to the
//! imported OpenCL builtins `intel_sub_group_2d_block_*` / `intel_sub_group_*_matrix_mad_k*`
//! (Triton's output). Both are described by the same [`BlockIo`] / [`MatrixMad`] records, so
//! analyses and passes handle them alike. In the builtin form the block shape is part of the
//! callee's name, so shape operands are [`ShapeOperand::Literal`]s.
//!
//! Operand orders (SPV_INTEL_2d_block_io):
//! - Load/LoadTransform/LoadTranspose: ElemSize W H Count SrcBase MemWidth MemHeight MemPitch Coord Dst
//! - Prefetch: ElemSize W H Count Base MemWidth MemHeight MemPitch Coord
//! - Store: ElemSize W H Count Src DstBase MemWidth MemHeight MemPitch Coord
//! - builtins: (base, width, height, pitch, coord[, ptr]) — `ptr` is the private destination of
//!   reads and the private source of writes.

use spirv::Op;
use spvopt_ir::{Id, InstId, Module};

pub use crate::builtins::BlockIoKind;
use crate::builtins::{CalleeKind, Callees};

/// A block shape operand: an id (native form; fold it with the constants analysis) or a
/// number taken from the builtin's name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShapeOperand {
    Id(Id),
    Literal(u32),
}

/// One 2D block operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlockIo {
    pub kind: BlockIoKind,
    /// `true` for the native SPIR-V op, `false` for a builtin call.
    pub native: bool,
    /// Element size (bytes), block width, block height, block count.
    pub shape: [ShapeOperand; 4],
    /// The 2D region's base pointer (CrossWorkgroup).
    pub base: Id,
    pub mem_width: Id,
    pub mem_height: Id,
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

const NATIVE_LOAD: u16 = Op::Subgroup2DBlockLoadINTEL as u16;
const NATIVE_LOAD_TRANSFORM: u16 = Op::Subgroup2DBlockLoadTransformINTEL as u16;
const NATIVE_LOAD_TRANSPOSE: u16 = Op::Subgroup2DBlockLoadTransposeINTEL as u16;
const NATIVE_PREFETCH: u16 = Op::Subgroup2DBlockPrefetchINTEL as u16;
const NATIVE_STORE: u16 = Op::Subgroup2DBlockStoreINTEL as u16;

/// The 2D block operation `inst` performs, if it is one.
pub fn block_io(m: &Module, callees: &Callees, inst: InstId) -> Option<BlockIo> {
    let i = m.inst(inst);
    let id = |k: usize| i.operand_id(k);
    let shape = || -> Option<[ShapeOperand; 4]> {
        Some([
            ShapeOperand::Id(id(0)?),
            ShapeOperand::Id(id(1)?),
            ShapeOperand::Id(id(2)?),
            ShapeOperand::Id(id(3)?),
        ])
    };
    let native_kind = match i.opcode() {
        NATIVE_LOAD => Some(BlockIoKind::Load),
        NATIVE_LOAD_TRANSFORM => Some(BlockIoKind::LoadTransform),
        NATIVE_LOAD_TRANSPOSE => Some(BlockIoKind::LoadTranspose),
        NATIVE_PREFETCH => Some(BlockIoKind::Prefetch),
        NATIVE_STORE => Some(BlockIoKind::Store),
        _ => None,
    };
    if let Some(kind) = native_kind {
        return match kind {
            BlockIoKind::Store => Some(BlockIo {
                kind,
                native: true,
                shape: shape()?,
                private: Some(id(4)?),
                base: id(5)?,
                mem_width: id(6)?,
                mem_height: id(7)?,
                mem_pitch: id(8)?,
                coord: id(9)?,
            }),
            BlockIoKind::Prefetch => Some(BlockIo {
                kind,
                native: true,
                shape: shape()?,
                base: id(4)?,
                mem_width: id(5)?,
                mem_height: id(6)?,
                mem_pitch: id(7)?,
                coord: id(8)?,
                private: None,
            }),
            _ => Some(BlockIo {
                kind,
                native: true,
                shape: shape()?,
                base: id(4)?,
                mem_width: id(5)?,
                mem_height: id(6)?,
                mem_pitch: id(7)?,
                coord: id(8)?,
                private: Some(id(9)?),
            }),
        };
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
        private: if kind == BlockIoKind::Prefetch {
            None
        } else {
            Some(arg(5)?)
        },
    })
}

/// One subgroup matrix multiply-accumulate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MatrixMad {
    pub native: bool,
    /// K Dim: an id (native) or the number in the builtin's name.
    pub k_dim: ShapeOperand,
    pub a: Id,
    pub b: Id,
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
