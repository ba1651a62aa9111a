//! The 2D block path of a tensor load/store: when the matrix is a 2D tile of a pitched surface,
//! one `OpSubgroup2DBlockLoadINTEL` / `…LoadTransformINTEL` / `…LoadTransposeINTEL` /
//! `…StoreINTEL` per (column group, row chunk) moves it, writing or reading the invocation's
//! slots directly.
//!
//! Structure (decided at compile time, otherwise the per-element path): a 2-D layout with block
//! size 1 and unit inner stride; span = (R, C) without a view, or a view without own dimensions
//! whose permutation is the identity (span (R, C)) or the transpose `<1, 0>` (span (C, R): the
//! matrix's column c is memory row `offset0 + c`); the Columns deal (see [`Distribution`]) so
//! that a block of width `SG·P` delivers exactly the invocation's slots ("Mapping Block Data to
//! Invocations": W = SG·P columns give invocation `lane` columns `lane·P ..`, rows in
//! consecutive values); subgroup size 16; the target's shape table (loads up to 32 rows,
//! stores 8, transposes of 32-bit elements: 8/16-bit data read transposed as packed dwords,
//! which gives each invocation one memory row = one matrix column in order). B matrices of
//! 8/16-bit elements load with the VNNI transform (the same bytes per invocation as their
//! column: lower rows in lower bits), which is the form DPAS consumes.
//!
//! Legality (`cl_intel_subgroup_2d_block_io`; each either folded to a constant or checked at
//! run time): base aligned as the target needs (64 bytes, 4 on `cri`; the `Aligned` memory
//! operand, or the pointer's value),
//! surface width `dim1·E` in 64..2^24 and a multiple of 4, height `dim0` in 1..2^24, pitch
//! `stride0·E` at least the width, at most 2^24 and a multiple of 16, `x·E` a multiple of 4.
//! Out of bounds the hardware reads 0 and drops writes: the specification's result for loads
//! with clamp mode Constant and clamp value 0 (Undefined: any value) and for every store; for
//! the other clamp modes (or another clamp value) only when the whole tile is in bounds. A view's
//! clip must cover the matrix (`(0, ≥R, 0, ≥C)`). A condition that folds to false sends the
//! access to the per-element path with that reason; conditions on run-time values (kernel
//! arguments: subgroup-uniform, as the block ops need) become one uniform branch between the
//! block ops and the per-element loop.

use spirv::{Op, StorageClass};
use spvopt_analysis::block_io::BlockKind;
use spvopt_analysis::Target;
use spvopt_ir::Id;

use super::builder::Builder;
use super::distribution::{Deal, MatrixUse};
use super::model::{clamp, Matrix};
use super::tensor_addresses::TensorFields;

/// The static facts the block path needs about one access.
pub struct Request<'a> {
    pub target: &'a Target,
    pub mat: &'a Matrix,
    pub use_: MatrixUse,
    pub store: bool,
    pub clamp: u32,
    /// `Some(transposed)` when the access goes through a view (identity or transpose).
    pub view_transposed: Option<bool>,
    /// Permutation / own dimensions / dimension count of the view make it unusable.
    pub structure_error: Option<&'static str>,
    /// The `Aligned` memory operand.
    pub aligned: Option<u32>,
    /// Whether the layout, view and pointer are subgroup-uniform (run-time checks possible).
    pub uniform: bool,
}

impl Request<'_> {
    /// What the surface conditions need: target, element size, `Aligned` operand.
    fn surface(&self) -> (&Target, u32, Option<u32>) {
        (self.target, self.mat.bytes, self.aligned)
    }
}

/// One block instruction's shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shape {
    pub op: BlockKind,
    /// Element size the instruction is issued with (4 for transposed 8/16-bit data).
    pub elem: u32,
    pub width: u32,
    pub height: u32,
    /// Column groups (blocks across) and row chunks (blocks down), and slots per block.
    pub groups: u32,
    pub chunks: u32,
    /// A 32-row transposed block: invocation `lane` receives memory rows `lane` and
    /// `lane + 16`, dword by dword alternating (the hardware layout of a 32-wide transposed
    /// block), reordered into the matrix's slots with one `OpVectorShuffle`.
    pub interleaved: bool,
}

/// What happens to the access.
#[derive(Clone)]
pub enum Decision {
    Static(Plan),
    Runtime(Plan, Id),
    Fallback(String),
}

/// Everything needed to emit the block ops.
#[derive(Clone)]
pub struct Plan {
    pub shape: Shape,
    pub width: Id,
    pub height: Id,
    pub pitch: Id,
    pub x: Id,
    pub y: Id,
}

/// Why a tile has no 2D block shape (a `fallback` reason).
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
enum NoBlockShape {
    #[error("2D block IO needs subgroup size 16 (the kernel has {0})")]
    SubgroupSize(u32),
    #[error("the matrix is not dealt one column (group) per invocation")]
    NotColumnDealt,
    /// Elements of other than 1, 2 or 4 bytes.
    #[error("{0}-byte elements")]
    ElementSize(u32),
    #[error("a transposed store (no 2D store transposes)")]
    TransposedStore,
    #[error("transposed tile rows are not whole dwords")]
    TransposedRowsNotDwords,
    #[error("no transposed block of {0} dwords x 16 rows")]
    NoTransposedBlock(u32),
    #[error("the packed columns do not fit a block row")]
    PackedColumnsTooWide,
    #[error("no {} block of {width} x {height} {elem}-byte elements", .op.name())]
    NoBlock {
        op: BlockKind,
        width: u32,
        height: u32,
        elem: u32,
    },
}

fn shape(r: &Request) -> Result<Shape, NoBlockShape> {
    let m = r.mat;
    let (rows, cols, sg) = (m.dist.rows, m.dist.cols, m.dist.sg);
    if sg != 16 {
        return Err(NoBlockShape::SubgroupSize(sg));
    }
    let Deal::Columns { pack } = m.dist.deal else {
        return Err(NoBlockShape::NotColumnDealt);
    };
    let es = m.bytes;
    if !matches!(es, 1 | 2 | 4) {
        return Err(NoBlockShape::ElementSize(es));
    }
    let shapes = if r.target.has_2d_block_io() {
        r.target.clone()
    } else {
        // Targets without 2D block IO get the same ops; legalize lowers them.
        Target::pvc()
    };
    let fits = |op: BlockKind, e: u32, w: u32, h: u32| shapes.supports_2d_block(op, e, w, h, 1);
    if r.view_transposed == Some(true) {
        if r.store {
            return Err(NoBlockShape::TransposedStore);
        }
        if pack != 1 || !(rows * es).is_multiple_of(4) {
            return Err(NoBlockShape::TransposedRowsNotDwords);
        }
        let row_dwords = rows * es / 4;
        if row_dwords <= 8
            && cols.is_multiple_of(32)
            && fits(BlockKind::LoadTranspose, 4, row_dwords, 32)
        {
            return Ok(Shape {
                op: BlockKind::LoadTranspose,
                elem: 4,
                width: row_dwords,
                height: 32,
                groups: cols / 32,
                chunks: 1,
                interleaved: true,
            });
        }
        let width = row_dwords.min(8);
        if !row_dwords.is_multiple_of(width) || !fits(BlockKind::LoadTranspose, 4, width, 16) {
            return Err(NoBlockShape::NoTransposedBlock(width));
        }
        return Ok(Shape {
            op: BlockKind::LoadTranspose,
            elem: 4,
            width,
            height: 16,
            groups: cols / 16,
            chunks: row_dwords / width,
            interleaved: false,
        });
    }
    let width = sg * pack;
    if pack > 4 / es.min(4) {
        return Err(NoBlockShape::PackedColumnsTooWide);
    }
    let (op, max_h) = if r.store {
        (BlockKind::Store, 8)
    } else if r.use_ == MatrixUse::B && es < 4 && pack == 1 {
        (BlockKind::LoadTransform, 32)
    } else {
        (BlockKind::Load, 32)
    };
    let height = rows.min(max_h);
    if rows % height != 0 || !fits(op, es, width, height) {
        return Err(NoBlockShape::NoBlock {
            op,
            width,
            height,
            elem: es,
        });
    }
    Ok(Shape {
        op,
        elem: es,
        width,
        height,
        groups: cols / width,
        chunks: rows / height,
        interleaved: false,
    })
}

/// Decides the path and, for the run-time path, emits the condition (in the current block).
/// `ptr` is the tensor pointer. Conditions that fold need no instructions; the few a fallback
/// decision leaves unused are removed with the pass's other dead values.
pub fn decide(b: &mut Builder, r: &Request, t: &TensorFields, ptr: Id) -> Decision {
    if let Some(e) = r.structure_error {
        return Decision::Fallback(e.into());
    }
    if t.span.len() != 2 {
        return Decision::Fallback(format!("a {}-D layout", t.span.len()));
    }
    let shape = match shape(r) {
        Ok(s) => s,
        Err(e) => return Decision::Fallback(e.to_string()),
    };
    let m = r.mat;
    let (rows, cols, es) = (m.dist.rows, m.dist.cols, m.bytes);
    let transposed = r.view_transposed == Some(true);
    // Memory extent of the tile (rows, columns).
    let (mem_rows, mem_cols) = if transposed {
        (cols, rows)
    } else {
        (rows, cols)
    };
    let k = |b: &mut Builder, v: u64| b.c64(v);
    let esz = k(b, u64::from(es));
    let width = b.op64(Op::IMul, t.dimension[1], esz);
    let height = t.dimension[0];
    let pitch = b.op64(Op::IMul, t.stride[0], esz);
    let (x, y) = (t.offset[1], t.offset[0]);
    let plan = Plan {
        shape,
        width,
        height,
        pitch,
        x,
        y,
    };
    let kc = Consts::new(b);
    let mut conds: Vec<(Id, String)> = Vec::new();
    // The mapping: unit block sizes and inner stride, the span exactly the tile.
    for (v, want, why) in [
        (t.block[0], 1, "block size is not 1"),
        (t.block[1], 1, "block size is not 1"),
        (t.stride[1], 1, "inner stride is not 1"),
        (t.span[0], u64::from(mem_rows), "span is not the tile"),
        (t.span[1], u64::from(mem_cols), "span is not the tile"),
    ] {
        let w = k(b, want);
        let c = b.cmp(Op::IEqual, v, w);
        conds.push((c, why.into()));
    }
    surface_conditions(b, r.surface(), &plan, ptr, &kc, &mut conds);
    let (zero, one) = (kc.zero, kc.one);
    let mut push = |_: &mut Builder, c: Id, why: String| conds.push((c, why));
    // Out-of-bounds agreement: zero fill / dropped writes, or a tile wholly inside.
    let zero_fill_ok = if r.store {
        None
    } else {
        match r.clamp {
            clamp::UNDEFINED => None,
            clamp::CONSTANT => {
                let cv = b.zext64(t.clamp_value);
                Some(b.cmp(Op::IEqual, cv, zero))
            }
            _ => Some(b.cmp(Op::IEqual, one, zero)),
        }
    };
    if let Some(zf) = zero_fill_ok.filter(|&z| b.known(z) != Some(1)) {
        let y_end = k(b, u64::from(mem_rows));
        let x_end = k(b, u64::from(mem_cols));
        let y_lo = b.cmp(Op::SGreaterThanEqual, y, zero);
        let x_lo = b.cmp(Op::SGreaterThanEqual, x, zero);
        let ye = b.op64(Op::IAdd, y, y_end);
        let xe = b.op64(Op::IAdd, x, x_end);
        let y_hi = b.cmp(Op::SLessThanEqual, ye, height);
        let x_hi = b.cmp(Op::SLessThanEqual, xe, t.dimension[1]);
        let a = b.and(y_lo, x_lo);
        let bb = b.and(y_hi, x_hi);
        let inside = b.and(a, bb);
        let ok = b.cmp(Op::LogicalOr, zf, inside);
        push(
            b,
            ok,
            "out-of-bounds elements need the clamp mode's values (not the hardware's zeros)".into(),
        );
    }
    if let Some(v) = &t.view {
        let [ro, rs, co, cs] = v.clip;
        let (rr, cc) = (k(b, u64::from(rows)), k(b, u64::from(cols)));
        let a = b.cmp(Op::IEqual, ro, zero);
        let bb = b.cmp(Op::IEqual, co, zero);
        let c = b.cmp(Op::UGreaterThanEqual, rs, rr);
        let d = b.cmp(Op::UGreaterThanEqual, cs, cc);
        let ab = b.and(a, bb);
        let cd = b.and(c, d);
        let all = b.and(ab, cd);
        push(b, all, "the view's clip does not cover the matrix".into());
    }
    finish(b, r.uniform, plan, conds)
}

/// A checked load/store's surface (u64 values): the big matrix of `height` x `width` elements
/// at the pointer, rows `pitch` bytes apart (columns when `column_major`), the tile at row `x`,
/// column `y`.
pub struct CheckedSurface {
    pub column_major: bool,
    pub x: Id,
    pub y: Id,
    pub height: Id,
    pub width: Id,
    pub pitch: Id,
}

/// [`decide`] for a joint_matrix checked load/store. Its bounds are the hardware's: an element
/// outside height x width reads 0 and is not written, so no in-bounds condition is needed; the
/// tile's coordinates must fit the block ops' signed 32-bit coordinates (below 2^24, where
/// every surface dimension is).
pub fn decide_checked(b: &mut Builder, r: &Request, s: &CheckedSurface, ptr: Id) -> Decision {
    if let Some(e) = r.structure_error {
        return Decision::Fallback(e.into());
    }
    let shape = match shape(r) {
        Ok(sh) => sh,
        Err(e) => return Decision::Fallback(e.to_string()),
    };
    // Memory rows are the matrix's rows (RowMajor) or columns (ColumnMajor).
    let (rows, cols, x, y) = if s.column_major {
        (s.width, s.height, s.x, s.y)
    } else {
        (s.height, s.width, s.y, s.x)
    };
    let esz = b.c64(u64::from(r.mat.bytes));
    let plan = Plan {
        shape,
        width: b.op64(Op::IMul, cols, esz),
        height: rows,
        pitch: s.pitch,
        x,
        y,
    };
    let kc = Consts::new(b);
    let mut conds = Vec::new();
    surface_conditions(b, r.surface(), &plan, ptr, &kc, &mut conds);
    let xs = b.cmp(Op::ULessThan, x, kc.max);
    let ys = b.cmp(Op::ULessThan, y, kc.max);
    let both = b.and(xs, ys);
    conds.push((both, "tile coordinates at or over 2^24".to_string()));
    finish(b, r.uniform, plan, conds)
}

/// The u64 constants the conditions compare with.
#[derive(Clone, Copy)]
struct Consts {
    c64: Id,
    c3: Id,
    c15: Id,
    max: Id,
    zero: Id,
    one: Id,
}

impl Consts {
    fn new(b: &mut Builder) -> Consts {
        Consts {
            c64: b.c64(64),
            c3: b.c64(3),
            c15: b.c64(15),
            max: b.c64(1 << 24),
            zero: b.c64(0),
            one: b.c64(1),
        }
    }
}

/// The surface's legality conditions (`cl_intel_subgroup_2d_block_io`), pushed onto `conds`.
/// `es` is the element size the surface is addressed in, `aligned` the `Aligned` memory
/// operand.
fn surface_conditions(
    b: &mut Builder,
    (target, es, aligned): (&Target, u32, Option<u32>),
    plan: &Plan,
    ptr: Id,
    kc: &Consts,
    conds: &mut Vec<(Id, String)>,
) {
    let k = |b: &mut Builder, v: u64| b.c64(v);
    let (width, height, pitch, x) = (plan.width, plan.height, plan.pitch, plan.x);
    let esz = k(b, u64::from(es));
    let Consts {
        c64,
        c3,
        c15,
        max,
        zero,
        one,
    } = *kc;
    let mut push = |_: &mut Builder, c: Id, why: String| conds.push((c, why));
    let ge = b.cmp(Op::UGreaterThanEqual, width, c64);
    push(b, ge, "surface width under 64 bytes".into());
    let le = b.cmp(Op::ULessThanEqual, width, max);
    push(b, le, "surface width over 2^24 bytes".into());
    if es < 4 {
        let w3 = b.op64(Op::BitwiseAnd, width, c3);
        let a = b.cmp(Op::IEqual, w3, zero);
        push(b, a, "surface width not a multiple of 4 bytes".into());
        let xe = b.op64(Op::IMul, x, esz);
        let x3 = b.op64(Op::BitwiseAnd, xe, c3);
        let xa = b.cmp(Op::IEqual, x3, zero);
        push(b, xa, "x offset not a multiple of 4 bytes".into());
    }
    let h1 = b.cmp(Op::UGreaterThanEqual, height, one);
    let h2 = b.cmp(Op::ULessThanEqual, height, max);
    let h = b.and(h1, h2);
    push(b, h, "surface height outside 1..2^24".into());
    let p1 = b.cmp(Op::UGreaterThanEqual, pitch, width);
    push(b, p1, "pitch under the surface width".into());
    let p2 = b.cmp(Op::ULessThanEqual, pitch, max);
    push(b, p2, "pitch over 2^24 bytes".into());
    let p15 = b.op64(Op::BitwiseAnd, pitch, c15);
    let p3 = b.cmp(Op::IEqual, p15, zero);
    push(b, p3, "pitch not a multiple of 16 bytes".into());
    // Base alignment: the target's (64 bytes in the extension; 4 on Xe3P).
    let align = target.block_base_alignment().max(1);
    match aligned {
        Some(a) if a % align == 0 => {}
        _ => {
            let u64t = b.u64t();
            let addr = b.val(Op::ConvertPtrToU, u64t, &[ptr.word()]);
            let mask = k(b, u64::from(align - 1));
            let low = b.op64(Op::BitwiseAnd, addr, mask);
            let al = b.cmp(Op::IEqual, low, zero);
            push(b, al, format!("base pointer not {align}-byte aligned"));
        }
    }
}

/// The decision from the conditions: a false one sends the access to the per-element path with
/// its reason, run-time ones (on uniform operands) become one check.
fn finish(b: &mut Builder, uniform: bool, plan: Plan, conds: Vec<(Id, String)>) -> Decision {
    let mut pending = Vec::new();
    for (c, why) in conds {
        match b.known(c) {
            Some(0) => return Decision::Fallback(why),
            Some(_) => {}
            None => pending.push(c),
        }
    }
    if pending.is_empty() {
        return Decision::Static(plan);
    }
    if !uniform {
        return Decision::Fallback(
            "legality depends on values that are not subgroup-uniform".into(),
        );
    }
    let mut all = pending[0];
    for &c in &pending[1..] {
        all = b.and(all, c);
    }
    Decision::Runtime(plan, all)
}

/// Emits the block ops of `plan` between the tensor pointer `ptr` and the invocation's slots in
/// the Function variable `var` (of the matrix's lowered type), `col_offset` columns right of the
/// plan's x (a tile group addresses its tiles from the first one's surface operands, which the
/// builder truncates to 32 bits once, so the ops share those ids).
pub fn emit(b: &mut Builder, plan: &Plan, mat: &Matrix, ptr: Id, var: Id, col_offset: u32) {
    let s = plan.shape;
    let u32t = b.u32t();
    let v2 = b.types.vector(b.m, u32t, 2);
    let trunc = |b: &mut Builder, v: Id| -> Id { b.trunc32(v) };
    let (width, height, pitch) = (
        trunc(b, plan.width),
        trunc(b, plan.height),
        trunc(b, plan.pitch),
    );
    // Transposed 8/16-bit data is addressed in dwords.
    let x_units = if s.elem != mat.bytes {
        let k = b.c64(u64::from(s.elem / mat.bytes));
        b.op64(Op::SDiv, plan.x, k)
    } else {
        plan.x
    };
    let x0 = trunc(b, x_units);
    let x0 = if col_offset == 0 {
        x0
    } else {
        let d = b.c32(col_offset);
        b.val(Op::IAdd, u32t, &[x0.word(), d.word()])
    };
    let y0 = trunc(b, plan.y);
    let fn_elem = b.types.pointer(b.m, StorageClass::Function, mat.component);
    let (elem, w, h, one) = (b.c32(s.elem), b.c32(s.width), b.c32(s.height), b.c32(1));
    let rows = mat.dist.rows;
    let Deal::Columns { pack } = mat.dist.deal else {
        return;
    };
    let transposed = s.op == BlockKind::LoadTranspose;
    if s.interleaved {
        emit_interleaved(b, s, mat, ptr, var, [width, height, pitch], (x0, y0));
        return;
    }
    for g in 0..s.groups {
        for c in 0..s.chunks {
            // Coordinates of this block and the first slot it fills.
            let (dx, dy, slot) = if transposed {
                // Column group g = memory rows 16g..; chunk c = dwords c·W.. = matrix rows.
                let rows_per_chunk = s.width * 4 / mat.bytes;
                (c * s.width, g * 16, g * rows + c * rows_per_chunk)
            } else {
                (
                    g * s.width,
                    c * s.height,
                    g * rows * pack + c * s.height * pack,
                )
            };
            let xs = if dx == 0 {
                x0
            } else {
                let d = b.c32(dx);
                b.val(Op::IAdd, u32t, &[x0.word(), d.word()])
            };
            let ys = if dy == 0 {
                y0
            } else {
                let d = b.c32(dy);
                b.val(Op::IAdd, u32t, &[y0.word(), d.word()])
            };
            let coord = b.val(Op::CompositeConstruct, v2, &[xs.word(), ys.word()]);
            let data = if mat.dist.slots() == 1 {
                var
            } else {
                let sl = b.c32(slot);
                b.val(Op::InBoundsAccessChain, fn_elem, &[var.word(), sl.word()])
            };
            let shape = [elem.word(), w.word(), h.word(), one.word()];
            let surface = [width.word(), height.word(), pitch.word(), coord.word()];
            let mut words = shape.to_vec();
            let op = match s.op {
                BlockKind::Store => {
                    words.push(data.word());
                    words.push(ptr.word());
                    words.extend_from_slice(&surface);
                    Op::Subgroup2DBlockStoreINTEL
                }
                kind => {
                    words.push(ptr.word());
                    words.extend_from_slice(&surface);
                    words.push(data.word());
                    match kind {
                        BlockKind::LoadTransform => Op::Subgroup2DBlockLoadTransformINTEL,
                        BlockKind::LoadTranspose => Op::Subgroup2DBlockLoadTransposeINTEL,
                        _ => Op::Subgroup2DBlockLoadINTEL,
                    }
                }
            };
            b.void(op, &words);
        }
    }
}

/// The 32-row transposed blocks of [`Shape::interleaved`]: block `g` covers matrix columns
/// `32g ..` (memory rows `y + 32g ..`). Its data arrives as dword `s` = memory row
/// `32g + 16·(s mod 2) + lane`, dword `s / 2` of the tile's rows; the matrix's slot for column
/// group `t` and row `k` is `t·R + k`, so the shuffle takes element
/// `(2·(k / per) + t)·per + k mod per` (`per` elements a dword).
fn emit_interleaved(
    b: &mut Builder,
    s: Shape,
    mat: &Matrix,
    ptr: Id,
    var: Id,
    [width, height, pitch]: [Id; 3],
    (x0, y0): (Id, Id),
) {
    let u32t = b.u32t();
    let v2 = b.types.vector(b.m, u32t, 2);
    let rows = mat.dist.rows;
    let per = 4 / mat.bytes;
    let group_len = 2 * rows;
    let tmp_ty = b.types.vector(b.m, mat.component, group_len);
    let tmp_ptr = b.types.pointer(b.m, StorageClass::Function, tmp_ty);
    let fn_elem = b.types.pointer(b.m, StorageClass::Function, mat.component);
    let (elem, w, h, one) = (b.c32(4), b.c32(s.width), b.c32(s.height), b.c32(1));
    let order: Vec<u32> = (0..group_len)
        .map(|q| {
            let (t, k) = (q / rows, q % rows);
            (2 * (k / per) + t) * per + k % per
        })
        .collect();
    let mut parts = Vec::new();
    for g in 0..s.groups {
        let tmp = super::builder::function_variable(b, tmp_ptr);
        let ys = if g == 0 {
            y0
        } else {
            let d = b.c32(32 * g);
            b.val(Op::IAdd, u32t, &[y0.word(), d.word()])
        };
        let coord = b.val(Op::CompositeConstruct, v2, &[x0.word(), ys.word()]);
        let zero = b.c32(0);
        let dst = b.val(Op::InBoundsAccessChain, fn_elem, &[tmp.word(), zero.word()]);
        b.void(
            Op::Subgroup2DBlockLoadTransposeINTEL,
            &[
                elem.word(),
                w.word(),
                h.word(),
                one.word(),
                ptr.word(),
                width.word(),
                height.word(),
                pitch.word(),
                coord.word(),
                dst.word(),
            ],
        );
        let raw = b.val(Op::Load, tmp_ty, &[tmp.word()]);
        let mut words = vec![raw.word(), raw.word()];
        words.extend_from_slice(&order);
        parts.push(b.val(Op::VectorShuffle, tmp_ty, &words));
    }
    let whole = if parts.len() == 1 {
        parts[0]
    } else {
        let words: Vec<u32> = parts.iter().map(|p| p.word()).collect();
        b.val(Op::CompositeConstruct, mat.lowered, &words)
    };
    b.void(Op::Store, &[var.word(), whole.word()]);
}

/// A joint_matrix prefetch's memory rectangle: `rows` x `cols` elements of `elem` bytes at
/// memory row `y` (u64), element `x` (u64) of rows `pitch` (u64) bytes apart.
pub struct PrefetchRect {
    pub elem: u32,
    pub rows: u32,
    pub cols: u32,
    pub x: Id,
    pub y: Id,
    pub pitch: Id,
}

/// Most 2D block prefetches one joint_matrix prefetch becomes.
const MAX_PREFETCH_BLOCKS: u32 = 16;

/// The 2D block prefetches of `rect` (a grid of the largest block the target prefetches), or
/// why it is dropped. The surface is the rectangle's rows at full pitch (prefetch has no bounds
/// of its own and no effect out of bounds); the legality conditions are the loads'. `uniform`:
/// pointer, offsets and stride are subgroup-uniform in a block the whole subgroup reaches.
pub fn decide_prefetch(
    b: &mut Builder,
    target: &Target,
    sg: u32,
    uniform: bool,
    rect: &PrefetchRect,
    ptr: Id,
) -> Decision {
    if !target.has_2d_block_io() {
        return Decision::Fallback(format!("{} has no 2D block IO", target.name));
    }
    match sg {
        16 => {}
        0 => return Decision::Fallback("the kernels declare no subgroup size".into()),
        _ => {
            return Decision::Fallback(format!(
                "2D block IO needs subgroup size 16 (the kernel has {sg})"
            ))
        }
    }
    // Unlike the checked loads and stores, a joint_matrix prefetch does not require uniform
    // operands or the whole subgroup; a 2D block prefetch does, even with constant operands.
    if !uniform {
        return Decision::Fallback(
            "operands not subgroup-uniform, or a block the whole subgroup may not reach".into(),
        );
    }
    if rect.rows == 0 || rect.cols == 0 {
        return Decision::Fallback("an empty rectangle".into());
    }
    let divisors = |n: u32| {
        [n, 64, 32, 16, 8, 4, 2, 1]
            .into_iter()
            .filter(move |&d| d > 0 && n.is_multiple_of(d))
    };
    let best = divisors(rect.cols)
        .flat_map(|w| divisors(rect.rows).map(move |h| (w, h)))
        .filter(|&(w, h)| target.supports_2d_block(BlockKind::Prefetch, rect.elem, w, h, 1))
        .max_by_key(|&(w, h)| (w * h, w));
    let Some((width, height)) = best else {
        return Decision::Fallback(format!(
            "no 2D block prefetch of {}-byte elements divides {} x {}",
            rect.elem, rect.rows, rect.cols
        ));
    };
    let (groups, chunks) = (rect.cols / width, rect.rows / height);
    let blocks = u64::from(groups) * u64::from(chunks);
    if blocks > u64::from(MAX_PREFETCH_BLOCKS) {
        return Decision::Fallback(format!(
            "{blocks} blocks of {width} x {height} (more than {MAX_PREFETCH_BLOCKS})"
        ));
    }
    let shape = Shape {
        op: BlockKind::Prefetch,
        elem: rect.elem,
        width,
        height,
        groups,
        chunks,
        interleaved: false,
    };
    let rows = b.c64(u64::from(rect.rows));
    let plan = Plan {
        shape,
        width: rect.pitch,
        height: b.op64(Op::IAdd, rect.y, rows),
        pitch: rect.pitch,
        x: rect.x,
        y: rect.y,
    };
    let kc = Consts::new(b);
    let mut conds = Vec::new();
    surface_conditions(b, (target, rect.elem, None), &plan, ptr, &kc, &mut conds);
    let xs = b.cmp(Op::ULessThan, rect.x, kc.max);
    conds.push((xs, "x coordinate at or over 2^24".to_string()));
    finish(b, uniform, plan, conds)
}

/// Emits the 2D block prefetches of `plan` (from [`decide_prefetch`]).
pub fn emit_prefetch(b: &mut Builder, plan: &Plan, ptr: Id) {
    let s = plan.shape;
    let u32t = b.u32t();
    let v2 = b.types.vector(b.m, u32t, 2);
    let (width, height, pitch) = (
        b.trunc32(plan.width),
        b.trunc32(plan.height),
        b.trunc32(plan.pitch),
    );
    let (x0, y0) = (b.trunc32(plan.x), b.trunc32(plan.y));
    let (elem, w, h, one) = (b.c32(s.elem), b.c32(s.width), b.c32(s.height), b.c32(1));
    for g in 0..s.groups {
        for c in 0..s.chunks {
            let at = |b: &mut Builder, base: Id, d: u32| {
                if d == 0 {
                    base
                } else {
                    let k = b.c32(d);
                    b.val(Op::IAdd, u32t, &[base.word(), k.word()])
                }
            };
            let xs = at(b, x0, g * s.width);
            let ys = at(b, y0, c * s.height);
            let coord = b.val(Op::CompositeConstruct, v2, &[xs.word(), ys.word()]);
            let words = [elem, w, h, one, ptr, width, height, pitch, coord].map(Id::word);
            b.void(Op::Subgroup2DBlockPrefetchINTEL, &words);
        }
    }
}
