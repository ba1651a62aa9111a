//! `SPV_NV_tensor_addressing`: tensor layouts and views as values, and the element address
//! computation `OpCooperativeMatrixLoadTensorNV` / `StoreTensorNV` use
//! (docs/notes/tensor-addressing.md §2-3, written against the SPIR-V and GLSL specs and
//! checked there against the CTS and Slang test vectors).
//!
//! A layout or view is an ordinary per-invocation value of its type's size, so it flows through
//! SSA, `OpPhi`, `OpSelect`, `OpCopyObject` and Function variables (`OpLoad`/`OpStore` copy its
//! bytes) like any other value. Encoding (little-endian u32 words):
//! * layout `<D, clampMode>`: `clampValue`, then per dimension `d` (0 = outermost)
//!   `dimension, stride, offset (i32), span, blockSize` — `4 * (1 + 5 D)` bytes. The clamp mode
//!   belongs to the type ([`crate::program::Ty::TensorLayout`]).
//! * view `<D, hasDimensions, perm...>`: per dimension `viewDimension`, then per dimension
//!   `viewStride`, then `clipRowOffset, clipRowSpan, clipColOffset, clipColSpan` —
//!   `4 * (2 D + 4)` bytes.
//!
//! The setters are pure and may run on divergent, non-uniform operands; the load / store
//! check that the layout and view they use are dynamically uniform.

use spvopt_ir::spirv::Op;

use crate::error::SimError;
use crate::program::{DInst, Program, Ty};
use crate::values::{rd, wr};

/// Bytes of a layout value of `dims` dimensions.
pub fn layout_bytes(dims: u32) -> u32 {
    4 * (1 + 5 * dims)
}

/// Bytes of a view value of `dims` dimensions.
pub fn view_bytes(dims: u32) -> u32 {
    4 * (2 * dims + 4)
}

/// Tensor clamp modes (SPIR-V `TensorClampMode`).
pub mod clamp {
    pub const UNDEFINED: u32 = 0;
    pub const CONSTANT: u32 = 1;
    pub const CLAMP_TO_EDGE: u32 = 2;
    pub const REPEAT: u32 = 3;
    pub const REPEAT_MIRRORED: u32 = 4;
}

fn ub(msg: impl Into<String>) -> SimError {
    SimError::Undefined(msg.into())
}

fn merr(msg: impl Into<String>) -> SimError {
    SimError::Module(msg.into())
}

/// The state of a tensor layout (notes §2).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layout {
    pub clamp_value: u32,
    pub dimension: Vec<u32>,
    pub stride: Vec<u32>,
    pub offset: Vec<i32>,
    pub span: Vec<u32>,
    pub block: Vec<u32>,
}

impl Layout {
    /// `OpCreateTensorLayoutNV`: everything 0, block sizes 1.
    pub fn new(dims: usize) -> Layout {
        Layout {
            clamp_value: 0,
            dimension: vec![0; dims],
            stride: vec![0; dims],
            offset: vec![0; dims],
            span: vec![0; dims],
            block: vec![1; dims],
        }
    }

    pub fn dims(&self) -> usize {
        self.dimension.len()
    }

    pub fn decode(b: &[u8], dims: usize) -> Layout {
        let w = |i: usize| rd(b, 4, i) as u32;
        let f = |k: usize| (0..dims).map(|d| w(1 + 5 * d + k)).collect::<Vec<u32>>();
        Layout {
            clamp_value: w(0),
            dimension: f(0),
            stride: f(1),
            offset: f(2).into_iter().map(|x| x as i32).collect(),
            span: f(3),
            block: f(4),
        }
    }

    pub fn encode(&self, out: &mut [u8]) {
        wr(out, 4, 0, self.clamp_value as u64);
        for d in 0..self.dims() {
            let base = 1 + 5 * d;
            wr(out, 4, base, self.dimension[d] as u64);
            wr(out, 4, base + 1, self.stride[d] as u64);
            wr(out, 4, base + 2, self.offset[d] as u32 as u64);
            wr(out, 4, base + 3, self.span[d] as u64);
            wr(out, 4, base + 4, self.block[d] as u64);
        }
    }

    /// `OpTensorLayoutSetDimensionNV`: dimension = span = `dim`, offset 0, packed strides
    /// (counted in blocks).
    pub fn set_dimension(&mut self, dim: &[u32]) -> Result<(), SimError> {
        let n = self.dims();
        self.dimension = dim.to_vec();
        self.span = dim.to_vec();
        self.offset = vec![0; n];
        if n > 0 {
            self.stride[n - 1] = 1;
            for d in (0..n - 1).rev() {
                let b = self.block[d + 1];
                if b == 0 {
                    return Err(ub("tensor layout block size 0"));
                }
                self.stride[d] = self.stride[d + 1].wrapping_mul(dim[d + 1].div_ceil(b));
            }
        }
        Ok(())
    }

    /// `OpTensorLayoutSliceNV`: offsets accumulate (signed), spans are replaced.
    pub fn slice(&mut self, pairs: &[(u32, u32)]) {
        for (d, &(o, s)) in pairs.iter().enumerate() {
            self.offset[d] = self.offset[d].wrapping_add(o as i32);
            self.span[d] = s;
        }
    }
}

/// The state of a tensor view (notes §2).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct View {
    pub dimension: Vec<u32>,
    pub stride: Vec<u32>,
    /// Row offset, row span, column offset, column span.
    pub clip: [u32; 4],
}

impl View {
    /// `OpCreateTensorViewNV`: dimensions and strides 0, clip (0, 0xFFFFFFFF, 0, 0xFFFFFFFF).
    pub fn new(dims: usize) -> View {
        View {
            dimension: vec![0; dims],
            stride: vec![0; dims],
            clip: [0, u32::MAX, 0, u32::MAX],
        }
    }

    pub fn decode(b: &[u8], dims: usize) -> View {
        let w = |i: usize| rd(b, 4, i) as u32;
        View {
            dimension: (0..dims).map(w).collect(),
            stride: (0..dims).map(|d| w(dims + d)).collect(),
            clip: [
                w(2 * dims),
                w(2 * dims + 1),
                w(2 * dims + 2),
                w(2 * dims + 3),
            ],
        }
    }

    pub fn encode(&self, out: &mut [u8]) {
        let n = self.dimension.len();
        for d in 0..n {
            wr(out, 4, d, self.dimension[d] as u64);
            wr(out, 4, n + d, self.stride[d] as u64);
        }
        for (k, &c) in self.clip.iter().enumerate() {
            wr(out, 4, 2 * n + k, c as u64);
        }
    }

    /// `OpTensorViewSetDimensionNV`: dimensions and packed row-major strides.
    pub fn set_dimension(&mut self, dim: &[u32]) {
        let n = dim.len();
        self.dimension = dim.to_vec();
        let mut s = 1u32;
        for d in (0..n).rev() {
            self.stride[d] = s;
            s = s.wrapping_mul(dim[d]);
        }
    }
}

/// A view with its type: `hasDimensions` and the permutation.
#[derive(Debug, Clone)]
pub struct TypedView<'a> {
    pub view: View,
    pub has_dims: bool,
    pub perm: &'a [u32],
}

/// Where matrix element (row, col) goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Outside the view's clip: a load keeps `Object`'s element, a store writes nothing.
    Clipped,
    /// Out of bounds with clamp mode Constant (every mode but Undefined on stores): a load
    /// gives the layout's clamp value, a store writes nothing.
    Clamped,
    /// Element index (counted in matrix components) from the pointer.
    At(u64),
}

/// The element address of matrix element (`row`, `col`) of a matrix with `cols` columns
/// (notes §3.1 and §3.2). Block sizes > 1 address the block's start (no decode function).
pub fn element_access(
    l: &Layout,
    clamp_mode: u32,
    view: Option<&TypedView>,
    row: u32,
    col: u32,
    cols: u32,
    store: bool,
) -> Result<Access, SimError> {
    let ld = l.dims();
    let mut idx: u64 = row as u64 * cols as u64 + col as u64;
    if let Some(v) = view {
        let [ro, rs, co, cs] = v.view.clip.map(|x| x as u64);
        let (r, c) = (row as u64, col as u64);
        if r < ro || r >= ro + rs || c < co || c >= co + cs {
            return Ok(Access::Clipped);
        }
        let (r, c) = (r - ro, c - co);
        idx = r * (cols as u64).min(cs) + c;
        let vd = v.perm.len();
        if !v.has_dims && vd != ld {
            return Err(merr(format!(
                "tensor view of {vd} dimensions without its own dimensions used with a layout of {ld}"
            )));
        }
        let dims: Vec<u64> = if v.has_dims {
            v.view.dimension.iter().map(|&x| x as u64).collect()
        } else {
            l.span.iter().map(|&x| x as u64).collect()
        };
        let mut coord = vec![0u64; vd];
        for d in (0..vd).rev() {
            let i = v.perm[d] as usize;
            let dim = *dims
                .get(i)
                .ok_or_else(|| merr("tensor view permutation out of range"))?;
            if dim == 0 {
                return Err(ub(format!("tensor view dimension {i} is 0")));
            }
            coord[i] = idx % dim;
            idx /= dim;
        }
        let strides: Vec<u64> = if v.has_dims {
            v.view.stride.iter().map(|&x| x as u64).collect()
        } else {
            let mut s = vec![0u64; vd];
            let mut acc = 1u64;
            for d in (0..vd).rev() {
                s[d] = acc;
                acc = acc.wrapping_mul(l.span[d] as u64);
            }
            s
        };
        idx = coord
            .iter()
            .zip(&strides)
            .fold(0u64, |a, (&x, &s)| a.wrapping_add(x.wrapping_mul(s)));
    }
    // split the linear index over the span
    let mut span_coord = vec![0u64; ld];
    for d in (0..ld).rev() {
        let s = l.span[d] as u64;
        if s == 0 {
            return Err(ub(format!("tensor layout span of dimension {d} is 0")));
        }
        span_coord[d] = idx % s;
        idx /= s;
    }
    let mut elem: u64 = 0;
    for (d, &sc) in span_coord.iter().enumerate() {
        let dim = l.dimension[d] as i64;
        let mut c = sc as i64 + l.offset[d] as i64;
        if c < 0 || c >= dim {
            let mode = if store && clamp_mode != clamp::UNDEFINED {
                clamp::CONSTANT
            } else {
                clamp_mode
            };
            match mode {
                clamp::CONSTANT => return Ok(Access::Clamped),
                clamp::CLAMP_TO_EDGE | clamp::REPEAT | clamp::REPEAT_MIRRORED if dim == 0 => {
                    return Err(ub(format!(
                        "tensor layout dimension {d} is 0 (clamp mode {mode})"
                    )))
                }
                clamp::CLAMP_TO_EDGE => c = c.clamp(0, dim - 1),
                clamp::REPEAT => c = c.rem_euclid(dim),
                clamp::REPEAT_MIRRORED => {
                    let period = 2 * dim - 2;
                    if period == 0 {
                        return Err(ub(format!(
                            "RepeatMirrored over dimension {d} of size 1 (period 0)"
                        )));
                    }
                    c = c.rem_euclid(period);
                    if c >= dim {
                        c = period - c;
                    }
                }
                clamp::UNDEFINED => {
                    return Err(ub(format!(
                        "tensor access out of bounds (coordinate {c} of dimension {d}, size {dim}) \
                         with clamp mode Undefined"
                    )))
                }
                m => return Err(merr(format!("unknown tensor clamp mode {m}"))),
            }
        }
        let b = l.block[d] as i64;
        if b == 0 {
            return Err(ub("tensor layout block size 0"));
        }
        let block_coord = (c / b) as u64;
        elem = elem.wrapping_add(block_coord.wrapping_mul(l.stride[d] as u64));
    }
    Ok(Access::At(elem))
}

/// Whether `op` is a layout / view instruction [`pure_tensor`] executes.
pub fn is_tensor_op(op: Op) -> bool {
    matches!(
        op,
        Op::CreateTensorLayoutNV
            | Op::TensorLayoutSetDimensionNV
            | Op::TensorLayoutSetStrideNV
            | Op::TensorLayoutSliceNV
            | Op::TensorLayoutSetClampValueNV
            | Op::TensorLayoutSetBlockSizeNV
            | Op::CreateTensorViewNV
            | Op::TensorViewSetDimensionNV
            | Op::TensorViewSetStrideNV
            | Op::TensorViewSetClipNV
    )
}

/// Executes a layout / view instruction for one invocation; `get` returns operand bytes.
pub fn pure_tensor<'a>(
    p: &Program,
    inst: &DInst,
    get: &dyn Fn(u32) -> &'a [u8],
    out: &mut [u8],
) -> Result<(), SimError> {
    let w = &inst.w;
    let u32_at = |i: usize| -> Result<u32, SimError> {
        let id = *w
            .get(i)
            .ok_or_else(|| merr(format!("Op{:?}: missing operand {i}", inst.op)))?;
        Ok(rd(get(id), 4, 0) as u32)
    };
    // The id operand `i` (the layout or view an update starts from), or the error for a
    // malformed instruction without it.
    let operand_id = |i: usize| -> Result<u32, SimError> {
        w.get(i)
            .copied()
            .ok_or_else(|| merr(format!("Op{:?}: missing operand {i}", inst.op)))
    };
    let operands = |n: usize| -> Result<Vec<u32>, SimError> {
        if w.len() != 1 + n {
            return Err(merr(format!(
                "Op{:?}: {} operands, the type needs {n}",
                inst.op,
                w.len().saturating_sub(1)
            )));
        }
        (1..=n).map(u32_at).collect()
    };
    match p.ty(inst.ty)?.ty.clone() {
        Ty::TensorLayout { dims, .. } => {
            let n = dims as usize;
            let mut l = if inst.op == Op::CreateTensorLayoutNV {
                Layout::new(n)
            } else {
                Layout::decode(get(operand_id(0)?), n)
            };
            match inst.op {
                Op::CreateTensorLayoutNV => {}
                Op::TensorLayoutSetDimensionNV => l.set_dimension(&operands(n)?)?,
                Op::TensorLayoutSetStrideNV => l.stride = operands(n)?,
                Op::TensorLayoutSetBlockSizeNV => l.block = operands(n)?,
                Op::TensorLayoutSliceNV => {
                    let v = operands(2 * n)?;
                    let pairs: Vec<(u32, u32)> = v.chunks(2).map(|c| (c[0], c[1])).collect();
                    l.slice(&pairs);
                }
                Op::TensorLayoutSetClampValueNV => l.clamp_value = operands(1)?[0],
                op => return Err(merr(format!("Op{op:?} with a tensor layout result"))),
            }
            l.encode(out);
        }
        Ty::TensorView { dims, .. } => {
            let n = dims as usize;
            let mut v = if inst.op == Op::CreateTensorViewNV {
                View::new(n)
            } else {
                View::decode(get(operand_id(0)?), n)
            };
            match inst.op {
                Op::CreateTensorViewNV => {}
                Op::TensorViewSetDimensionNV => v.set_dimension(&operands(n)?),
                Op::TensorViewSetStrideNV => v.stride = operands(n)?,
                Op::TensorViewSetClipNV => {
                    let c = operands(4)?;
                    v.clip = [c[0], c[1], c[2], c[3]];
                }
                op => return Err(merr(format!("Op{op:?} with a tensor view result"))),
            }
            v.encode(out);
        }
        _ => {
            return Err(merr(format!(
                "Op{:?}: result type is not a tensor layout or view",
                inst.op
            )))
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layout2(dims: [u32; 2], stride: [u32; 2], slice: [(u32, u32); 2]) -> Layout {
        let mut l = Layout::new(2);
        l.set_dimension(&dims).unwrap();
        l.stride = stride.to_vec();
        l.slice(&slice);
        l
    }

    #[test]
    fn plain_row_major_and_clamps() {
        let l = layout2([5, 7], [9, 1], [(2, 4), (3, 4)]);
        // (r, c) -> (2 + r, 3 + c)
        let a = element_access(&l, clamp::CONSTANT, None, 1, 2, 4, false).unwrap();
        assert_eq!(a, Access::At(3 * 9 + 5));
        // row 2 + 3 = 5 is out of bounds
        let a = element_access(&l, clamp::CONSTANT, None, 3, 0, 4, false).unwrap();
        assert_eq!(a, Access::Clamped);
        let a = element_access(&l, clamp::CLAMP_TO_EDGE, None, 3, 0, 4, false).unwrap();
        assert_eq!(a, Access::At(4 * 9 + 3));
        let a = element_access(&l, clamp::REPEAT, None, 3, 0, 4, false).unwrap();
        assert_eq!(a, Access::At(3));
        // mirrored: period 8, 5 -> 3
        let a = element_access(&l, clamp::REPEAT_MIRRORED, None, 3, 0, 4, false).unwrap();
        assert_eq!(a, Access::At(3 * 9 + 3));
        // stores drop every out-of-bounds element
        let a = element_access(&l, clamp::CLAMP_TO_EDGE, None, 3, 0, 4, true).unwrap();
        assert_eq!(a, Access::Clamped);
        assert!(element_access(&l, clamp::UNDEFINED, None, 3, 0, 4, false).is_err());
    }

    #[test]
    fn slang_tensorlayout_vector() {
        // notes §3.4: dims (32,16), stride (4,1), slice (4,24,0,16), clampValue 3, blockSize (4,8)
        // set last. Element (0, 9) of a 16-column matrix: layout coordinate (4, 9), block
        // coordinate (1, 1), element index 1 * 4 + 1 * 1 (the block's start).
        let mut l = layout2([32, 16], [4, 1], [(4, 24), (0, 16)]);
        l.block = vec![4, 8];
        let a = element_access(&l, clamp::CONSTANT, None, 0, 9, 16, false).unwrap();
        assert_eq!(a, Access::At(4 + 1));
    }

    #[test]
    fn transpose_view() {
        let l = layout2([40, 50], [50, 1], [(8, 16), (16, 16)]);
        let perm = [1, 0];
        let v = TypedView {
            view: View::new(2),
            has_dims: false,
            perm: &perm,
        };
        // B(r, c) = T[8 + c][16 + r]
        let a = element_access(&l, clamp::CONSTANT, Some(&v), 2, 5, 16, false).unwrap();
        assert_eq!(a, Access::At((8 + 5) * 50 + 16 + 2));
    }

    #[test]
    fn clip_and_view_dims() {
        let l = layout2([40, 50], [50, 1], [(0, 16), (0, 16)]);
        let perm = [0, 1];
        let mut view = View::new(2);
        view.set_dimension(&[16, 16]);
        view.clip = [0, 3, 0, 16];
        let v = TypedView {
            view,
            has_dims: true,
            perm: &perm,
        };
        assert_eq!(
            element_access(&l, clamp::CONSTANT, Some(&v), 2, 5, 16, true).unwrap(),
            Access::At(2 * 50 + 5)
        );
        assert_eq!(
            element_access(&l, clamp::CONSTANT, Some(&v), 3, 5, 16, true).unwrap(),
            Access::Clipped
        );
    }

    #[test]
    fn encode_round_trip() {
        let mut l = layout2([3, 4], [8, 1], [(u32::MAX, 2), (1, 2)]);
        l.clamp_value = 0x3800;
        let mut b = vec![0u8; layout_bytes(2) as usize];
        l.encode(&mut b);
        assert_eq!(Layout::decode(&b, 2), l);
        assert_eq!(l.offset[0], -1);
        let mut v = View::new(3);
        v.set_dimension(&[2, 3, 4]);
        assert_eq!(v.stride, vec![12, 4, 1]);
        let mut b = vec![0u8; view_bytes(3) as usize];
        v.encode(&mut b);
        assert_eq!(View::decode(&b, 3), v);
    }
}
