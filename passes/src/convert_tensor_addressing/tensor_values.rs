//! Tensor layouts and views as ordinary values: `OpTypeTensorLayoutNV` becomes an array of
//! `5·Dim + 1` 32-bit integers, `OpTypeTensorViewNV` one of `2·Dim + 4`, and every create /
//! setter instruction the chain of `OpCompositeInsert`s that computes the new state
//! (`docs/notes/tensor-addressing.md` §2). Layout values may then flow through phis, selects,
//! Function variables and function calls unchanged. Loads and stores read a field from the
//! value only where the constants analysis could not fold it.

use super::error::ConvertError::{self, Malformed};
use spirv::Op;
use spvopt_ir::{Id, Inst, InstId, Module};

/// Index of a layout field inside the lowered array of a `dims`-dimensional layout.
#[derive(Clone, Copy, Debug)]
pub enum LayoutField {
    BlockSize(u32),
    Dimension(u32),
    Stride(u32),
    Offset(u32),
    Span(u32),
    ClampValue,
}

impl LayoutField {
    pub fn index(self, dims: u32) -> u32 {
        match self {
            LayoutField::BlockSize(d) => d,
            LayoutField::Dimension(d) => dims + d,
            LayoutField::Stride(d) => 2 * dims + d,
            LayoutField::Offset(d) => 3 * dims + d,
            LayoutField::Span(d) => 4 * dims + d,
            LayoutField::ClampValue => 5 * dims,
        }
    }
}

/// Words of the lowered layout array.
pub fn layout_words(dims: u32) -> u32 {
    5 * dims + 1
}

/// Index of a view field inside the lowered array of a `dims`-dimensional view.
#[derive(Clone, Copy, Debug)]
pub enum ViewField {
    Dimension(u32),
    Stride(u32),
    /// 0 row offset, 1 row span, 2 column offset, 3 column span.
    Clip(u32),
}

impl ViewField {
    pub fn index(self, dims: u32) -> u32 {
        match self {
            ViewField::Dimension(d) => d,
            ViewField::Stride(d) => dims + d,
            ViewField::Clip(k) => 2 * dims + k,
        }
    }
}

/// Words of the lowered view array.
pub fn view_words(dims: u32) -> u32 {
    2 * dims + 4
}

/// Inserts instructions before `at`.
struct Before<'a> {
    m: &'a mut Module,
    at: InstId,
    u32t: Id,
    boolt: Id,
}

impl Before<'_> {
    fn val(&mut self, op: Op, ty: Id, ops: &[u32]) -> Id {
        let r = self.m.fresh_id();
        self.m
            .insert_before(self.at, Inst::new(op, Some(ty), Some(r), ops));
        r
    }
    fn extract(&mut self, v: Id, index: u32) -> Id {
        let t = self.u32t;
        self.val(Op::CompositeExtract, t, &[v.word(), index])
    }
}

/// Constants the lowering needs (created by the caller, who owns the interner).
pub struct Consts {
    pub u32t: Id,
    pub boolt: Id,
    pub zero: Id,
    pub one: Id,
    pub all_ones: Id,
}

/// Rewrites the create/setter instruction `at` (of tensor type `arr`, which the caller later
/// replaces by the lowered array type; the type's Dim in `dims`) into array operations; the last
/// one keeps the result id.
pub fn lower_setter(
    m: &mut Module,
    at: InstId,
    arr: Id,
    dims: u32,
    c: &Consts,
) -> Result<(), ConvertError> {
    let inst = m.inst(at).to_owned();
    let op = inst.op().ok_or(Malformed("unknown opcode"))?;
    let result = inst.result_id().ok_or(Malformed("setter without result"))?;
    let ops: Vec<u32> = inst.operands().to_vec();
    let n = dims as usize;
    let mut b = Before {
        m,
        at,
        u32t: c.u32t,
        boolt: c.boolt,
    };
    // (index, value) pairs to insert into `input`, in order.
    let (input, sets): (Option<Id>, Vec<(u32, Id)>) = match op {
        Op::CreateTensorLayoutNV => {
            let mut parts = vec![c.zero; layout_words(dims) as usize];
            for d in 0..dims {
                parts[LayoutField::BlockSize(d).index(dims) as usize] = c.one;
            }
            let words: Vec<u32> = parts.iter().map(|p| p.word()).collect();
            b.m.replace_inst(
                at,
                Inst::new(Op::CompositeConstruct, Some(arr), Some(result), &words),
            );
            return Ok(());
        }
        Op::CreateTensorViewNV => {
            let mut parts = vec![c.zero; view_words(dims) as usize];
            parts[ViewField::Clip(1).index(dims) as usize] = c.all_ones;
            parts[ViewField::Clip(3).index(dims) as usize] = c.all_ones;
            let words: Vec<u32> = parts.iter().map(|p| p.word()).collect();
            b.m.replace_inst(
                at,
                Inst::new(Op::CompositeConstruct, Some(arr), Some(result), &words),
            );
            return Ok(());
        }
        _ => {
            let input = Id::new(ops[0]).ok_or(Malformed("setter without input"))?;
            let args: Vec<Id> = ops[1..].iter().filter_map(|&w| Id::new(w)).collect();
            let need = |k: usize| -> Result<(), ConvertError> {
                if args.len() == k {
                    Ok(())
                } else {
                    Err(ConvertError::OperandCount {
                        op,
                        got: args.len(),
                        expected: k,
                    })
                }
            };
            let mut sets = Vec::new();
            match op {
                Op::TensorLayoutSetBlockSizeNV => {
                    need(n)?;
                    for d in 0..dims {
                        sets.push((LayoutField::BlockSize(d).index(dims), args[d as usize]));
                    }
                }
                Op::TensorLayoutSetStrideNV => {
                    need(n)?;
                    for d in 0..dims {
                        sets.push((LayoutField::Stride(d).index(dims), args[d as usize]));
                    }
                }
                Op::TensorLayoutSetClampValueNV => {
                    need(1)?;
                    sets.push((LayoutField::ClampValue.index(dims), args[0]));
                }
                Op::TensorLayoutSliceNV => {
                    need(2 * n)?;
                    for d in 0..dims {
                        let old = b.extract(input, LayoutField::Offset(d).index(dims));
                        let t = b.u32t;
                        let off = b.val(Op::IAdd, t, &[old.word(), args[2 * d as usize].word()]);
                        sets.push((LayoutField::Offset(d).index(dims), off));
                        sets.push((LayoutField::Span(d).index(dims), args[2 * d as usize + 1]));
                    }
                }
                Op::TensorLayoutSetDimensionNV => {
                    need(n)?;
                    for d in 0..dims {
                        let v = args[d as usize];
                        sets.push((LayoutField::Dimension(d).index(dims), v));
                        sets.push((LayoutField::Span(d).index(dims), v));
                        sets.push((LayoutField::Offset(d).index(dims), c.zero));
                    }
                    // stride[last] = 1, stride[d] = stride[d+1] · ceil(D[d+1] / block[d+1]).
                    let mut s = c.one;
                    sets.push((LayoutField::Stride(dims - 1).index(dims), s));
                    for d in (0..dims - 1).rev() {
                        let t = b.u32t;
                        let bs = b.extract(input, LayoutField::BlockSize(d + 1).index(dims));
                        let z = b.val(Op::IEqual, c.boolt, &[bs.word(), c.zero.word()]);
                        let bs = b.val(Op::Select, t, &[z.word(), c.one.word(), bs.word()]);
                        let dim = args[d as usize + 1];
                        let q = b.val(Op::UDiv, t, &[dim.word(), bs.word()]);
                        let r = b.val(Op::UMod, t, &[dim.word(), bs.word()]);
                        let bt = b.boolt;
                        let nz = b.val(Op::INotEqual, bt, &[r.word(), c.zero.word()]);
                        let up = b.val(Op::Select, t, &[nz.word(), c.one.word(), c.zero.word()]);
                        let ceil = b.val(Op::IAdd, t, &[q.word(), up.word()]);
                        s = b.val(Op::IMul, t, &[s.word(), ceil.word()]);
                        sets.push((LayoutField::Stride(d).index(dims), s));
                    }
                }
                Op::TensorViewSetDimensionNV => {
                    need(n)?;
                    let mut s = c.one;
                    for d in (0..dims).rev() {
                        sets.push((ViewField::Dimension(d).index(dims), args[d as usize]));
                        sets.push((ViewField::Stride(d).index(dims), s));
                        let t = b.u32t;
                        s = b.val(Op::IMul, t, &[s.word(), args[d as usize].word()]);
                    }
                }
                Op::TensorViewSetStrideNV => {
                    need(n)?;
                    for d in 0..dims {
                        sets.push((ViewField::Stride(d).index(dims), args[d as usize]));
                    }
                }
                Op::TensorViewSetClipNV => {
                    need(4)?;
                    for k in 0..4 {
                        sets.push((ViewField::Clip(k).index(dims), args[k as usize]));
                    }
                }
                _ => return Err(ConvertError::NotTensorSetter(op)),
            }
            (Some(input), sets)
        }
    };
    let mut cur = input.ok_or(Malformed("setter without input"))?;
    let last = sets.len().saturating_sub(1);
    if sets.is_empty() {
        b.m.replace_inst(
            at,
            Inst::new(Op::CopyObject, Some(arr), Some(result), &[cur.word()]),
        );
        return Ok(());
    }
    for (k, (index, v)) in sets.into_iter().enumerate() {
        let words = [v.word(), cur.word(), index];
        if k == last {
            b.m.replace_inst(
                at,
                Inst::new(Op::CompositeInsert, Some(arr), Some(result), &words),
            );
        } else {
            cur = b.val(Op::CompositeInsert, arr, &words);
        }
    }
    Ok(())
}
