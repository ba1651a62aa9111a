//! Where a tensor-addressed element is (`docs/notes/tensor-addressing.md` §3, the simulator's
//! `element_access`): the layout and view fields read once per access, and for matrix element
//! (r, c) the byte offset from the pointer with the clip and bounds conditions. See the top of
//! `element_access.rs` for the rules it implements.

use spirv::Op;
use spvopt_analysis::tensor_layout::Field;
use spvopt_ir::Id;

use super::builder::Builder;
use super::model::{clamp, Addressing};
use super::tensor_values::{LayoutField, ViewField};

/// The u32 value of one field: folded constant, the setter's operand, or read from the value.
fn field(b: &mut Builder, f: Option<Field>, value: Id, index: u32) -> Id {
    match f {
        Some(Field::Const(c)) => b.c32(c as u32),
        Some(Field::Value(v)) => v,
        _ => {
            let t = b.u32t();
            b.val(Op::CompositeExtract, t, &[value.word(), index])
        }
    }
}

/// Tensor-addressing fields as 64-bit values, read once before the loop.
#[derive(Clone)]
pub struct TensorFields {
    pub block: Vec<Id>,
    pub dimension: Vec<Id>,
    pub stride: Vec<Id>,
    pub offset: Vec<Id>,
    pub span: Vec<Id>,
    /// 32-bit.
    pub clamp_value: Id,
    pub view: Option<ViewFields>,
}

#[derive(Clone)]
pub struct ViewFields {
    pub dims: Vec<Id>,
    pub strides: Vec<Id>,
    pub clip: [Id; 4],
    pub perm: Vec<u32>,
}

pub(super) fn read_fields(b: &mut Builder, a: &Addressing) -> Option<TensorFields> {
    let Addressing::Tensor {
        layout,
        state,
        dims,
        view,
        ..
    } = a
    else {
        return None;
    };
    let (layout, dims) = (*layout, *dims);
    let st = state.as_deref();
    let get = |b: &mut Builder, f: LayoutField, sf: Option<Field>, signed: bool| {
        let v = field(b, sf, layout, f.index(dims));
        if signed {
            b.sext64(v)
        } else {
            b.zext64(v)
        }
    };
    let pick = |v: Option<&Vec<Field>>, d: u32| v.and_then(|x| x.get(d as usize).copied());
    let mut t = TensorFields {
        block: Vec::new(),
        dimension: Vec::new(),
        stride: Vec::new(),
        offset: Vec::new(),
        span: Vec::new(),
        clamp_value: Id::new(1).expect("nonzero"),
        view: None,
    };
    for d in 0..dims {
        let bs = get(
            b,
            LayoutField::BlockSize(d),
            pick(st.map(|s| &s.block_size), d),
            false,
        );
        t.block.push(b.nonzero64(bs));
        t.dimension.push(get(
            b,
            LayoutField::Dimension(d),
            pick(st.map(|s| &s.dimension), d),
            false,
        ));
        t.stride.push(get(
            b,
            LayoutField::Stride(d),
            pick(st.map(|s| &s.stride), d),
            false,
        ));
        t.offset.push(get(
            b,
            LayoutField::Offset(d),
            pick(st.map(|s| &s.offset), d),
            true,
        ));
        t.span.push(get(
            b,
            LayoutField::Span(d),
            pick(st.map(|s| &s.span), d),
            false,
        ));
    }
    t.clamp_value = field(
        b,
        st.map(|s| s.clamp_value),
        layout,
        LayoutField::ClampValue.index(dims),
    );
    if let Some(v) = view {
        let vs = v.state.as_ref();
        let mut vf = ViewFields {
            dims: Vec::new(),
            strides: Vec::new(),
            clip: [t.clamp_value; 4],
            perm: v.perm.clone(),
        };
        let vpick = |x: Option<&Vec<Field>>, d: u32| x.and_then(|y| y.get(d as usize).copied());
        for d in 0..v.dims {
            if v.has_dims {
                let x = field(
                    b,
                    vpick(vs.map(|s| &s.dimension), d),
                    v.value,
                    ViewField::Dimension(d).index(v.dims),
                );
                vf.dims.push(b.zext64(x));
                let s = field(
                    b,
                    vpick(vs.map(|s| &s.stride), d),
                    v.value,
                    ViewField::Stride(d).index(v.dims),
                );
                vf.strides.push(b.zext64(s));
            }
        }
        if !v.has_dims {
            // The span's dimensions and row-major strides.
            vf.dims = t.span.clone();
            let mut acc = b.c64(1);
            let mut s = vec![acc; v.dims as usize];
            for d in (0..v.dims as usize).rev() {
                s[d] = acc;
                acc = b.op64(Op::IMul, acc, t.span[d]);
            }
            vf.strides = s;
        }
        for k in 0..4u32 {
            let x = field(
                b,
                vs.map(|s| s.clip[k as usize]),
                v.value,
                ViewField::Clip(k).index(v.dims),
            );
            vf.clip[k as usize] = b.zext64(x);
        }
        t.view = Some(vf);
    }
    Some(t)
}

/// Where element (r, c) is: byte offset from the pointer, and the conditions for touching it.
pub(super) struct Place {
    pub(super) byte_offset: Id,
    /// False where the view's clip excludes the element.
    pub(super) in_clip: Option<Id>,
    /// False where the element is out of bounds and not clamped.
    pub(super) in_bounds: Option<Id>,
}

/// What is accessed: clamp mode, store or load, matrix columns, component bytes.
#[derive(Clone, Copy)]
pub(super) struct AccessKind {
    pub(super) clamp_mode: u32,
    pub(super) store: bool,
    pub(super) cols: u32,
    pub(super) es: u32,
}

pub(super) fn tensor_place(
    b: &mut Builder,
    t: &TensorFields,
    k: AccessKind,
    r: Id,
    c: Id,
) -> Place {
    let AccessKind {
        clamp_mode,
        store,
        cols,
        es,
    } = k;
    let u64t = b.u64t();
    let (zero, one) = (b.c64(0), b.c64(1));
    let n = b.c64(u64::from(cols));
    let mut in_clip = None;
    let mut idx;
    match &t.view {
        None => {
            let rn = b.op64(Op::IMul, r, n);
            idx = b.op64(Op::IAdd, rn, c);
        }
        Some(v) => {
            let [ro, rs, co, cs] = v.clip;
            let r_end = b.op64(Op::IAdd, ro, rs);
            let c_end = b.op64(Op::IAdd, co, cs);
            let a = b.cmp(Op::UGreaterThanEqual, r, ro);
            let bb = b.cmp(Op::ULessThan, r, r_end);
            let cc = b.cmp(Op::UGreaterThanEqual, c, co);
            let d = b.cmp(Op::ULessThan, c, c_end);
            let x = b.and(a, bb);
            let y = b.and(cc, d);
            in_clip = Some(b.and(x, y));
            let r2 = b.op64(Op::ISub, r, ro);
            let c2 = b.op64(Op::ISub, c, co);
            let narrow = b.cmp(Op::ULessThan, n, cs);
            let w = b.select(u64t, narrow, n, cs);
            let rw = b.op64(Op::IMul, r2, w);
            idx = b.op64(Op::IAdd, rw, c2);
            let vd = v.perm.len();
            let mut coord = vec![zero; vd];
            for d in (0..vd).rev() {
                let i = v.perm[d] as usize;
                let dim = b.nonzero64(v.dims[i]);
                coord[i] = b.op64(Op::UMod, idx, dim);
                if d > 0 {
                    idx = b.op64(Op::UDiv, idx, dim);
                }
            }
            let mut acc = zero;
            for (&x, &s) in coord.iter().zip(&v.strides) {
                let p = b.op64(Op::IMul, x, s);
                acc = b.op64(Op::IAdd, acc, p);
            }
            idx = acc;
        }
    }
    let ld = t.span.len();
    let mut span_coord = vec![zero; ld];
    for d in (0..ld).rev() {
        let s = b.nonzero64(t.span[d]);
        span_coord[d] = b.op64(Op::UMod, idx, s);
        if d > 0 {
            idx = b.op64(Op::UDiv, idx, s);
        }
    }
    let mode = if store && clamp_mode != clamp::UNDEFINED {
        clamp::CONSTANT
    } else {
        clamp_mode
    };
    let mut in_bounds: Option<Id> = None;
    let mut elem = zero;
    for (d, &sc) in span_coord.iter().enumerate() {
        let dim = t.dimension[d];
        let mut x = b.op64(Op::IAdd, sc, t.offset[d]);
        let lo = b.cmp(Op::SLessThan, x, zero);
        let hi = b.cmp(Op::SGreaterThanEqual, x, dim);
        match mode {
            clamp::CLAMP_TO_EDGE => {
                let last = b.op64(Op::ISub, dim, one);
                let top = b.select(u64t, hi, last, x);
                x = b.select(u64t, lo, zero, top);
            }
            clamp::REPEAT => {
                let dnz = b.nonzero64(dim);
                x = b.op64(Op::SMod, x, dnz);
            }
            clamp::REPEAT_MIRRORED => {
                let two = b.c64(2);
                let d2 = b.op64(Op::IMul, dim, two);
                let period = b.op64(Op::ISub, d2, two);
                let pnz = b.nonzero64(period);
                let m = b.op64(Op::SMod, x, pnz);
                let back = b.cmp(Op::SGreaterThanEqual, m, dim);
                let reflected = b.op64(Op::ISub, period, m);
                x = b.select(u64t, back, reflected, m);
            }
            _ => {
                // Constant (and Undefined, whose out-of-bounds value is undefined): no access.
                let oob = b.cmp(Op::LogicalOr, lo, hi);
                let ok = b.not(oob);
                in_bounds = Some(match in_bounds {
                    None => ok,
                    Some(prev) => b.and(prev, ok),
                });
            }
        }
        let bc = b.op64(Op::SDiv, x, t.block[d]);
        let p = b.op64(Op::IMul, bc, t.stride[d]);
        elem = b.op64(Op::IAdd, elem, p);
    }
    let esz = b.c64(u64::from(es));
    Place {
        byte_offset: b.op64(Op::IMul, elem, esz),
        in_clip,
        in_bounds,
    }
}
