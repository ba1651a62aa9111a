//! The state of `SPV_NV_tensor_addressing` tensor layouts and views, and the transfer function
//! of each layout/view instruction (`OpCreateTensorLayoutNV` … `OpTensorViewSetClipNV`).
//!
//! Semantics follow `docs/notes/tensor-addressing.md` §2 (checked against the spec and the
//! Slang/CTS test vectors there): every setter returns a modified copy of its input.
//! - layout: `blockSize`, `dimension`, `stride`, `offset` (signed, accumulates over slices),
//!   `span` per dimension, one `clampValue`; the clamp mode comes from the type.
//!   Create: dims = strides = spans = offsets = 0, block sizes 1, clamp value 0.
//!   SetDimension(D): dimension = span = D, offset = 0, `stride[last] = 1`,
//!   `stride[d] = stride[d+1] · ceil(D[d+1] / blockSize[d+1])`.
//!   Slice(o, s): offset += o, span = s. SetStride, SetBlockSize, SetClampValue: set.
//! - view: `dimension`, `stride`, `clip` (row offset, row span, col offset, col span);
//!   Create: zeros and clip (0, 0xFFFFFFFF, 0, 0xFFFFFFFF); SetDimension(D): dimension = D,
//!   `stride[last] = 1`, `stride[d]` = product of `D[d+1..]`; SetStride, SetClip: set. `hasDimensions`
//!   and the permutation (the type's first `Dim` permutation operands) come from the type.
//!
//! A field is a constant, an SSA value (when a setter takes a non-constant operand and no
//! arithmetic is needed), or unknown (arithmetic on non-constants, or malformed input).

use std::fmt;

use crate::operands::op_of;
use spirv::Op;
use spvopt_ir::{Id, Inst, Module};

/// One field of a layout or view.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Field {
    /// A known constant.
    Const(i64),
    /// A run-time value (its id).
    Value(Id),
    /// Not known (e.g. set on one path only).
    Unknown,
}

impl Field {
    fn add(self, other: Field) -> Field {
        match (self, other) {
            (Field::Const(a), Field::Const(b)) => Field::Const(a.wrapping_add(b)),
            (Field::Const(0), x) | (x, Field::Const(0)) => x,
            _ => Field::Unknown,
        }
    }
    fn mul(self, other: Field) -> Field {
        match (self, other) {
            (Field::Const(a), Field::Const(b)) => Field::Const(a.wrapping_mul(b)),
            (Field::Const(1), x) | (x, Field::Const(1)) => x,
            _ => Field::Unknown,
        }
    }
    /// The constant, if known.
    pub fn as_const(self) -> Option<i64> {
        match self {
            Field::Const(c) => Some(c),
            _ => None,
        }
    }
}

impl fmt::Display for Field {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Field::Const(c) => write!(f, "{c}"),
            Field::Value(v) => write!(f, "{v}"),
            Field::Unknown => write!(f, "?"),
        }
    }
}

/// The state of a tensor layout value.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TensorLayoutState {
    /// Clamp mode from the type (a constant or spec constant).
    pub clamp_mode: Field,
    /// Per dimension, the block size (`OpTensorLayoutSetBlockSizeNV`).
    pub block_size: Vec<Field>,
    /// Per dimension, the tensor's extent (`OpTensorLayoutSetDimensionNV`).
    pub dimension: Vec<Field>,
    /// Per dimension, the stride in elements (`OpTensorLayoutSetStrideNV`).
    pub stride: Vec<Field>,
    /// Per dimension, the slice's offset (`OpTensorLayoutSliceNV`).
    pub offset: Vec<Field>,
    /// Per dimension, the slice's span (`OpTensorLayoutSliceNV`).
    pub span: Vec<Field>,
    /// The value clamped-out elements read (`OpTensorLayoutSetClampValueNV`).
    pub clamp_value: Field,
}

/// The state of a tensor view value.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TensorViewState {
    /// Whether the view's type says it has dimensions (`HasDimensions`); `None` when unknown.
    pub has_dimensions: Option<bool>,
    /// The view's dimension order (`OpTypeTensorViewNV`'s permutation).
    pub permutation: Vec<Field>,
    /// Per dimension, the view's extent (`OpTensorViewSetDimensionNV`).
    pub dimension: Vec<Field>,
    /// Per dimension, the view's stride (`OpTensorViewSetStrideNV`).
    pub stride: Vec<Field>,
    /// Row offset, row span, column offset, column span.
    pub clip: [Field; 4],
}

fn list(v: &[Field]) -> String {
    let parts: Vec<String> = v.iter().map(|x| x.to_string()).collect();
    format!("({})", parts.join(", "))
}

impl fmt::Display for TensorLayoutState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "layout clamp {} block {} dim {} stride {} offset {} span {} clampvalue {}",
            self.clamp_mode,
            list(&self.block_size),
            list(&self.dimension),
            list(&self.stride),
            list(&self.offset),
            list(&self.span),
            self.clamp_value
        )
    }
}

impl fmt::Display for TensorViewState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "view hasdims {} perm {} dim {} stride {} clip {}",
            self.has_dimensions
                .map_or("?".to_string(), |b| b.to_string()),
            list(&self.permutation),
            list(&self.dimension),
            list(&self.stride),
            list(&self.clip)
        )
    }
}

/// A layout or a view.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum TensorState {
    /// An `OpTypeTensorLayoutNV` value.
    Layout(TensorLayoutState),
    /// An `OpTypeTensorViewNV` value.
    View(TensorViewState),
}

/// Whether `ty` is `OpTypeTensorLayoutNV` or `OpTypeTensorViewNV`.
pub fn is_tensor_type(m: &Module, ty: Id) -> bool {
    m.def_inst(ty)
        .is_some_and(|t| t.is(Op::TypeTensorLayoutNV) || t.is(Op::TypeTensorViewNV))
}

/// Whether `op` is one of the layout/view creation or setter instructions.
pub fn is_tensor_op(op: Option<Op>) -> bool {
    use Op::*;
    matches!(
        op,
        Some(
            CreateTensorLayoutNV
                | TensorLayoutSetBlockSizeNV
                | TensorLayoutSetDimensionNV
                | TensorLayoutSetStrideNV
                | TensorLayoutSliceNV
                | TensorLayoutSetClampValueNV
                | CreateTensorViewNV
                | TensorViewSetDimensionNV
                | TensorViewSetStrideNV
                | TensorViewSetClipNV
        )
    )
}

/// Applies the layout/view instruction `inst`. `field` gives the field value of an integer
/// operand (constant or SSA value), `input` the state of the layout/view operand.
pub fn apply(
    m: &Module,
    inst: &Inst,
    field: &dyn Fn(Id) -> Field,
    input: Option<&TensorState>,
) -> Option<TensorState> {
    let op = op_of(inst)?;
    let ty = m.def_inst(inst.result_type()?)?;
    let fields = |skip: usize| -> Vec<Field> {
        inst.operands()
            .iter()
            .skip(skip)
            .map(|&w| Id::new(w).map_or(Field::Unknown, field))
            .collect()
    };
    match op {
        Op::CreateTensorLayoutNV => {
            if !ty.is(Op::TypeTensorLayoutNV) {
                return None;
            }
            let dim = field(ty.operand_id(0)?).as_const()?;
            let n = usize::try_from(dim)
                .ok()
                .filter(|&n| (1..=5).contains(&n))?;
            let clamp_mode = field(ty.operand_id(1)?);
            Some(TensorState::Layout(TensorLayoutState {
                clamp_mode,
                block_size: vec![Field::Const(1); n],
                dimension: vec![Field::Const(0); n],
                stride: vec![Field::Const(0); n],
                offset: vec![Field::Const(0); n],
                span: vec![Field::Const(0); n],
                clamp_value: Field::Const(0),
            }))
        }
        Op::CreateTensorViewNV => {
            if !ty.is(Op::TypeTensorViewNV) {
                return None;
            }
            let dim = field(ty.operand_id(0)?).as_const()?;
            let n = usize::try_from(dim)
                .ok()
                .filter(|&n| (1..=5).contains(&n))?;
            let has_dimensions = ty.operand_id(1).and_then(|b| m.def_inst(b)).and_then(|b| {
                if b.is(Op::ConstantTrue) {
                    Some(true)
                } else if b.is(Op::ConstantFalse) {
                    Some(false)
                } else {
                    None
                }
            });
            // The permutation is the type's first `Dim` operands after HasDimensions, as the
            // passes read it: a hostile type may list thousands more, and every setter copies
            // its input's state (1,500 `OpTensorViewSetClipNV` on a type with 10,000 entries
            // held 1,500 copies of them: 479 MB for an 89 KB module).
            let permutation: Vec<Field> = ty
                .operands()
                .iter()
                .skip(2)
                .take(n)
                .map(|&w| Id::new(w).map_or(Field::Unknown, field))
                .collect();
            Some(TensorState::View(TensorViewState {
                has_dimensions,
                permutation,
                dimension: vec![Field::Const(0); n],
                stride: vec![Field::Const(0); n],
                clip: [
                    Field::Const(0),
                    Field::Const(0xFFFF_FFFF),
                    Field::Const(0),
                    Field::Const(0xFFFF_FFFF),
                ],
            }))
        }
        _ => {
            let mut state = input?.clone();
            match (&mut state, op) {
                (TensorState::Layout(l), Op::TensorLayoutSetBlockSizeNV) => {
                    l.block_size = sized(fields(1), l.block_size.len())?;
                }
                (TensorState::Layout(l), Op::TensorLayoutSetDimensionNV) => {
                    let d = sized(fields(1), l.dimension.len())?;
                    let n = d.len();
                    l.span = d.clone();
                    l.offset = vec![Field::Const(0); n];
                    let mut stride = vec![Field::Unknown; n];
                    stride[n - 1] = Field::Const(1);
                    for k in (0..n - 1).rev() {
                        let blocks = match (d[k + 1], l.block_size[k + 1]) {
                            (x, Field::Const(1)) => x,
                            (Field::Const(a), Field::Const(b)) if b > 0 => a
                                .checked_add(b - 1)
                                .map_or(Field::Unknown, |x| Field::Const(x / b)),
                            _ => Field::Unknown,
                        };
                        stride[k] = stride[k + 1].mul(blocks);
                    }
                    l.stride = stride;
                    l.dimension = d;
                }
                (TensorState::Layout(l), Op::TensorLayoutSetStrideNV) => {
                    l.stride = sized(fields(1), l.stride.len())?;
                }
                (TensorState::Layout(l), Op::TensorLayoutSliceNV) => {
                    let pairs = fields(1);
                    if pairs.len() != 2 * l.offset.len() {
                        return None;
                    }
                    for (k, p) in pairs.chunks(2).enumerate() {
                        // Offsets are signed 32-bit and accumulate.
                        let as_i32 = |f: Field| match f {
                            Field::Const(c) => Field::Const(i64::from(c as u32 as i32)),
                            x => x,
                        };
                        l.offset[k] = as_i32(l.offset[k].add(as_i32(p[0])));
                        l.span[k] = p[1];
                    }
                }
                (TensorState::Layout(l), Op::TensorLayoutSetClampValueNV) => {
                    l.clamp_value = *fields(1).first()?;
                }
                (TensorState::View(v), Op::TensorViewSetDimensionNV) => {
                    let d = sized(fields(1), v.dimension.len())?;
                    let n = d.len();
                    let mut stride = vec![Field::Unknown; n];
                    stride[n - 1] = Field::Const(1);
                    for k in (0..n - 1).rev() {
                        stride[k] = stride[k + 1].mul(d[k + 1]);
                    }
                    v.stride = stride;
                    v.dimension = d;
                }
                (TensorState::View(v), Op::TensorViewSetStrideNV) => {
                    v.stride = sized(fields(1), v.stride.len())?;
                }
                (TensorState::View(v), Op::TensorViewSetClipNV) => {
                    let c = fields(1);
                    if c.len() != 4 {
                        return None;
                    }
                    v.clip = [c[0], c[1], c[2], c[3]];
                }
                _ => return None,
            }
            Some(state)
        }
    }
}

fn sized(v: Vec<Field>, n: usize) -> Option<Vec<Field>> {
    (v.len() == n && n > 0).then_some(v)
}
