//! The exact per-element path: a cooperative-matrix load or store becomes a loop over the
//! invocation's slots; slot `k` holds element (r, c) of the matrix (see [`Distribution`]), whose
//! address is computed as the specification defines it and which is loaded or stored inside a
//! diamond only where the access happens.
//!
//! Tensor addressing (`docs/notes/tensor-addressing.md` §3, the simulator's
//! `element_access`, which tensor-hw checks against an H100): the view's clip (64-bit
//! compares), `idx = r'·min(N, clipColSpan) + c'`, the permuted split over the view's (or the
//! span's) dimensions and its strides, the split over the span, then per dimension
//! `c = spanCoord + offset` against the dimension with the clamp mode (stores: every mode but
//! Undefined drops), block coordinate `c / blockSize` times the stride; the element index is
//! counted in matrix components from the pointer. Out-of-bounds loads give the clamp value's
//! low bits (Undefined: the same, the specification leaves the value undefined), clipped
//! loads keep `Object`'s element, and dropped stores write nothing. All arithmetic is 64-bit
//! (offsets sign-extended), so no intermediate wraps where the specification's math does not.
//! Divisors the specification leaves undefined at 0 are replaced by 1.
//!
//! Strided (`OpCooperativeMatrixLoadKHR`/`StoreKHR`): element (r, c) is at byte
//! `r·Stride·sizeof(pointee) + c·sizeof(component)` (RowMajor) or with r and c swapped
//! (ColumnMajor), as SPV_KHR_cooperative_matrix defines.

use spirv::{Op, StorageClass};
use spvopt_ir::{BlockId, Id, InstId, Module};

use super::block_path::{self, Decision};
use super::builder::{function_variable, Builder};
use super::distribution::{Deal, Distribution};
use super::error::ConvertError::{self, Malformed};
use super::model::{clamp, Addressing, Direction, Matrix, Path};
use super::tensor_addresses::{read_fields, tensor_place, AccessKind, Place, TensorFields};
use crate::edit::outline::Outline;

/// The (row, column) of slot `k` of invocation `lane` (both u32), as u64 values.
fn position(b: &mut Builder, d: &Distribution, lane: Id, k: Id) -> (Id, Id) {
    let (r, c) = position32(b, d, lane, k);
    (b.zext64(r), b.zext64(c))
}

/// The (row, column) of slot `k` of invocation `lane` (both u32), as u32 values: the deal of
/// [`Distribution::position`] computed at run time.
pub fn position32(b: &mut Builder, d: &Distribution, lane: Id, k: Id) -> (Id, Id) {
    let u32t = b.u32t();
    let (r, c) = match d.deal {
        Deal::Columns { pack } => {
            let per_group = b.c32(d.rows * pack);
            let p = b.c32(pack);
            let gw = b.c32(d.sg * pack);
            let g = b.val(Op::UDiv, u32t, &[k.word(), per_group.word()]);
            let w = b.val(Op::UMod, u32t, &[k.word(), per_group.word()]);
            let r = b.val(Op::UDiv, u32t, &[w.word(), p.word()]);
            let wp = b.val(Op::UMod, u32t, &[w.word(), p.word()]);
            let g0 = b.val(Op::IMul, u32t, &[g.word(), gw.word()]);
            let lp = b.val(Op::IMul, u32t, &[lane.word(), p.word()]);
            let c0 = b.val(Op::IAdd, u32t, &[g0.word(), lp.word()]);
            let c = b.val(Op::IAdd, u32t, &[c0.word(), wp.word()]);
            (r, c)
        }
        Deal::Flat => {
            let sg = b.c32(d.sg);
            let cols = b.c32(d.cols);
            let ks = b.val(Op::IMul, u32t, &[k.word(), sg.word()]);
            let e = b.val(Op::IAdd, u32t, &[ks.word(), lane.word()]);
            let r = b.val(Op::UDiv, u32t, &[e.word(), cols.word()]);
            let c = b.val(Op::UMod, u32t, &[e.word(), cols.word()]);
            (r, c)
        }
    };
    (r, c)
}

/// Size in bytes of the pointee of pointer type `pt` (scalars and vectors).
fn pointee_bytes(m: &Module, pointee: Id) -> Option<u32> {
    // Valid types nest at most twice here (a vector or matrix of scalars); hostile input may
    // nest vectors of vectors as deep as it likes (or in a cycle), so the walk is a loop with
    // a few steps, and the product is checked.
    const MAX_NESTING: usize = 8;
    let mut ty = pointee;
    let mut count = 1u32;
    for _ in 0..MAX_NESTING {
        let t = m.def_inst(ty)?;
        match t.op()? {
            Op::TypeInt | Op::TypeFloat => return (t.operand_word(0)? / 8).checked_mul(count),
            Op::TypeVector => count = count.checked_mul(t.operand_word(1)?)?,
            Op::TypeCooperativeMatrixKHR => {}
            _ => return None,
        }
        ty = t.operand_id(0)?;
    }
    None
}

/// An integer operand (of any width up to 64 bits) zero-extended to u64.
pub fn to_u64(b: &mut Builder, v: Id) -> Result<Id, ConvertError> {
    let t =
        b.m.type_of(v)
            .ok_or(Malformed("an integer operand has no type"))?;
    match b
        .m
        .def_inst(t)
        .filter(|t| t.is(Op::TypeInt))
        .and_then(|t| t.operand_word(0))
    {
        Some(64) => Ok(v),
        Some(w) if w < 64 => Ok(b.zext64(v)),
        _ => Err(ConvertError::NotInteger64),
    }
}

/// Where element (r, c) of a checked access is: the big matrix's (x + r, y + c), in bounds
/// when below (height, width) (all unsigned 64-bit: x, y and r, c come from 32-bit values, so
/// the sums do not wrap), at `major·row_bytes + minor·es` from the pointer.
fn checked_place(
    b: &mut Builder,
    [x, y, height, width]: [Id; 4],
    (column_major, row_bytes): (bool, Id),
    es: u32,
    r: Id,
    c: Id,
) -> Place {
    let gr = b.op64(Op::IAdd, x, r);
    let gc = b.op64(Op::IAdd, y, c);
    let rows_ok = b.cmp(Op::ULessThan, gr, height);
    let cols_ok = b.cmp(Op::ULessThan, gc, width);
    Place {
        byte_offset: strided_offset(b, (column_major, row_bytes), es, gr, gc),
        in_clip: None,
        in_bounds: Some(b.and(rows_ok, cols_ok)),
    }
}

/// Byte offset of element (r, c) (u64) of a strided matrix: `major·row_bytes + minor·es`, the
/// row major (RowMajor) or the column (ColumnMajor).
fn strided_offset(
    b: &mut Builder,
    (column_major, row_bytes): (bool, Id),
    es: u32,
    r: Id,
    c: Id,
) -> Id {
    let (major, minor) = if column_major { (c, r) } else { (r, c) };
    let a = b.op64(Op::IMul, major, row_bytes);
    let esz = b.c64(u64::from(es));
    let bo = b.op64(Op::IMul, minor, esz);
    b.op64(Op::IAdd, a, bo)
}

/// One load or store to convert.
pub struct Access<'a> {
    pub at: InstId,
    pub dir: Direction,
    pub pointer: Id,
    pub mat: &'a Matrix,
    pub addressing: &'a Addressing,
    /// The mask for the per-element accesses.
    pub memory_access: u32,
    pub block_request: Option<&'a block_path::Request<'a>>,
}

/// What the emitters of one access need, computed in the block before its code.
#[derive(Clone)]
pub struct Prepared {
    pub var: Id,
    lane: Id,
    base: Id,
    p8: Id,
    pe: Id,
    fn_elem: Id,
    pub fields: Option<TensorFields>,
    clamp_value: Option<Id>,
    strided: Option<(bool, Id)>,
    /// Checked access: (x, y, height, width) as u64 values.
    checked: Option<[Id; 4]>,
    clamp_mode: u32,
    store: bool,
    mat: Matrix,
    mem: Vec<u32>,
    pub pointer: Id,
}

impl Prepared {
    pub fn is_load(&self) -> bool {
        !self.store
    }
    pub fn lowered(&self) -> Id {
        self.mat.lowered
    }
    pub fn cols(&self) -> u32 {
        self.mat.dist.cols
    }
    pub fn matrix(&self) -> &Matrix {
        &self.mat
    }
}

/// The lane index (u32) of the invocation, loaded from `lane_var`.
pub fn load_lane(b: &mut Builder, lane_var: Id) -> Result<Id, ConvertError> {
    let u32t = b.u32t();
    let lane_ty =
        b.m.def_inst(
            b.m.type_of(lane_var)
                .ok_or(Malformed("lane variable has no type"))?,
        )
        .and_then(|p| p.operand_id(1))
        .ok_or(Malformed("lane variable type"))?;
    let lane_raw = b.val(Op::Load, lane_ty, &[lane_var.word()]);
    Ok(if lane_ty == u32t {
        lane_raw
    } else {
        b.val(Op::UConvert, u32t, &[lane_raw.word()])
    })
}

/// Creates the access's Function variable (holding `Object` first) and computes, in the
/// current block, everything its emitters need.
pub fn prepare(b: &mut Builder, a: &Access, lane: Id) -> Result<Prepared, ConvertError> {
    let (pointer, mat, addressing) = (a.pointer, a.mat, a.addressing);
    let m = &mut *b.m;
    let ptr_ty = m
        .type_of(pointer)
        .ok_or(Malformed("the pointer has no type"))?;
    let (sc, pointee) = m
        .def_inst(ptr_ty)
        .filter(|t| t.is(Op::TypePointer))
        .and_then(|t| Some((t.operand_word(0)?, t.operand_id(1)?)))
        .ok_or(Malformed("the pointer operand is not a pointer"))?;
    let psize = pointee_bytes(m, pointee)
        .ok_or(Malformed("the pointer's pointee is not a scalar or vector"))?;
    let storage = StorageClass::from_u32(sc).ok_or(Malformed("unknown storage class"))?;
    // The matrix's per-invocation storage, in the entry block.
    let fn_vec = b.types.pointer(b.m, StorageClass::Function, mat.lowered);
    let fn_elem = b.types.pointer(b.m, StorageClass::Function, mat.component);
    let var = function_variable(b, fn_vec);
    let object = match a.dir {
        Direction::Load { object, .. } | Direction::Store { object } => object,
    };
    b.void(Op::Store, &[var.word(), object.word()]);
    let u8t = b.types.int(b.m, 8);
    let p8 = b.types.pointer(b.m, storage, u8t);
    let pe = b.types.pointer(b.m, storage, mat.component);
    let base = if ptr_ty == p8 {
        pointer
    } else {
        b.val(Op::Bitcast, p8, &[pointer.word()])
    };
    let fields = read_fields(b, addressing);
    let store = matches!(a.dir, Direction::Store { .. });
    // The value an out-of-bounds load gives: the clamp value's low bits.
    let clamp_value = match &fields {
        Some(f) if !store => {
            let bits = mat.bytes * 8;
            let it = b.types.int(b.m, bits);
            let raw = match bits {
                32 => f.clamp_value,
                _ => b.val(Op::UConvert, it, &[f.clamp_value.word()]),
            };
            Some(if mat.is_float || it != mat.component {
                b.val(Op::Bitcast, mat.component, &[raw.word()])
            } else {
                raw
            })
        }
        _ => None,
    };
    let strided = match addressing {
        Addressing::Strided {
            column_major,
            stride,
        }
        | Addressing::Checked {
            column_major,
            stride,
            ..
        } => {
            let s64 = to_u64(b, *stride)?;
            let ps = b.c64(u64::from(psize));
            Some((*column_major, b.op64(Op::IMul, s64, ps)))
        }
        Addressing::Tensor { .. } => None,
    };
    let (checked, clamp_value) = match addressing {
        Addressing::Checked {
            x,
            y,
            height,
            width,
            ..
        } => {
            let fields = [
                to_u64(b, *x)?,
                to_u64(b, *y)?,
                to_u64(b, *height)?,
                to_u64(b, *width)?,
            ];
            // "The out-of-bounds elements are set to 0."
            let zero = (!store).then(|| b.types.null_const(b.m, mat.component));
            (Some(fields), zero)
        }
        _ => (None, clamp_value),
    };
    let clamp_mode = match addressing {
        Addressing::Tensor { clamp, .. } => *clamp,
        Addressing::Strided { .. } | Addressing::Checked { .. } => clamp::UNDEFINED,
    };
    Ok(Prepared {
        var,
        lane,
        base,
        p8,
        pe,
        fn_elem,
        fields,
        clamp_value,
        strided,
        checked,
        clamp_mode,
        store,
        mat: *mat,
        mem: if a.memory_access == 0 {
            Vec::new()
        } else {
            vec![a.memory_access]
        },
        pointer,
    })
}

/// The exact per-element path of one access, from the current block to `exit`: a call of a
/// `DontInline` function holding the loop ([`outline`]), which takes the access's slots
/// (its Function variable's value) and the values the loop reads, and returns the slots
/// (a load) or nothing (a store). Accesses of one shape share the function once the pass
/// merges identical ones, so the kernel grows by a call per access instead of a loop, and
/// IGC compiles the loop once (as a subroutine) instead of once per access.
pub fn emit_loop(b: &mut Builder, p: &Prepared, exit: BlockId) -> Result<(), ConvertError> {
    let (caller, caller_before) = (b.cur, b.before.take());
    let ret = if p.store {
        b.types.void(b.m)
    } else {
        p.mat.lowered
    };
    let f = Outline::begin(b.m, ret);
    b.cur = f.entry;
    // The slots' value on entry, a parameter once `finish` has run.
    let slots_in = b.m.fresh_id();
    let slots_ty = b.types.pointer(b.m, StorageClass::Function, p.mat.lowered);
    let local = function_variable(b, slots_ty);
    b.void(Op::Store, &[local.word(), slots_in.word()]);
    let done_label = b.m.fresh_id();
    let done = b.m.append_block(f.func, done_label);
    let inner = Prepared {
        var: local,
        ..p.clone()
    };
    emit_loop_here(b, &inner, done)?;
    b.cur = done;
    if p.store {
        b.void(Op::Return, &[]);
    } else {
        let out = b.val(Op::Load, p.mat.lowered, &[local.word()]);
        b.void(Op::ReturnValue, &[out.word()]);
    }
    let callee = f.id;
    let free = f.finish(b.m, b.types, &[(slots_in, p.mat.lowered)])?;
    b.cur = caller;
    b.before = caller_before;
    let current = b.val(Op::Load, p.mat.lowered, &[p.var.word()]);
    let mut args = vec![callee.word(), current.word()];
    args.extend(free.iter().map(|v| v.word()));
    let result = b.val(Op::FunctionCall, ret, &args);
    if !p.store {
        b.void(Op::Store, &[p.var.word(), result.word()]);
    }
    let exit_label = b.m.block_label(exit);
    b.void(Op::Branch, &[exit_label.word()]);
    Ok(())
}

/// The exact per-element loop of one access, from the current block to `exit` (a block of
/// the same function).
fn emit_loop_here(b: &mut Builder, p: &Prepared, exit: BlockId) -> Result<(), ConvertError> {
    let mat = &p.mat;
    let slots = mat.dist.slots();
    let es = mat.bytes;
    b.counted_loop(slots, exit, |b, k| {
        let (r, c) = position(b, &mat.dist, p.lane, k);
        let place = match (&p.fields, p.strided) {
            (None, Some((column_major, row_bytes))) if p.checked.is_some() => {
                let [x, y, height, width] = p.checked.ok_or(Malformed("no checked fields"))?;
                checked_place(
                    b,
                    [x, y, height, width],
                    (column_major, row_bytes),
                    es,
                    r,
                    c,
                )
            }
            (Some(t), _) => {
                let kind = AccessKind {
                    clamp_mode: p.clamp_mode,
                    store: p.store,
                    cols: mat.dist.cols,
                    es,
                };
                tensor_place(b, t, kind, r, c)
            }
            (None, Some((column_major, row_bytes))) => Place {
                byte_offset: strided_offset(b, (column_major, row_bytes), es, r, c),
                in_clip: None,
                in_bounds: None,
            },
            (None, None) => return Err(Malformed("no addressing")),
        };
        let slot_ptr = if slots == 1 {
            p.var
        } else {
            b.val(
                Op::InBoundsAccessChain,
                p.fn_elem,
                &[p.var.word(), k.word()],
            )
        };
        let ok = match (place.in_clip, place.in_bounds) {
            (Some(x), Some(y)) => Some(b.and(x, y)),
            (x, y) => x.or(y),
        };
        let access = |b: &mut Builder| -> Id {
            let q = b.val(
                Op::PtrAccessChain,
                p.p8,
                &[p.base.word(), place.byte_offset.word()],
            );
            b.val(Op::Bitcast, p.pe, &[q.word()])
        };
        if p.store {
            let v = b.val(Op::Load, mat.component, &[slot_ptr.word()]);
            let write = |b: &mut Builder| -> Result<(), ConvertError> {
                let q = access(b);
                let mut w = vec![q.word(), v.word()];
                w.extend_from_slice(&p.mem);
                b.void(Op::Store, &w);
                Ok(())
            };
            match ok {
                None => write(b)?,
                Some(ok) => {
                    b.if_then(ok, write)?;
                }
            }
        } else {
            let read = |b: &mut Builder| -> Id {
                let q = access(b);
                let mut w = vec![q.word()];
                w.extend_from_slice(&p.mem);
                b.val(Op::Load, mat.component, &w)
            };
            let got = match ok {
                None => read(b),
                Some(ok) => {
                    let fallback = match (place.in_clip, place.in_bounds) {
                        (Some(ic), Some(_)) => {
                            let cur = b.val(Op::Load, mat.component, &[slot_ptr.word()]);
                            let cv = p.clamp_value.ok_or(Malformed("no clamp value"))?;
                            b.select(mat.component, ic, cv, cur)
                        }
                        (Some(_), None) => b.val(Op::Load, mat.component, &[slot_ptr.word()]),
                        _ => p.clamp_value.ok_or(Malformed("no clamp value"))?,
                    };
                    let mut loaded = None;
                    let (from, end) = b.if_then(ok, |b| {
                        loaded = Some(read(b));
                        Ok(())
                    })?;
                    let (from_l, end_l) = (b.m.block_label(from), b.m.block_label(end));
                    let v = loaded.ok_or(Malformed("no load"))?;
                    b.val(
                        Op::Phi,
                        mat.component,
                        &[v.word(), end_l.word(), fallback.word(), from_l.word()],
                    )
                }
            };
            b.void(Op::Store, &[slot_ptr.word(), got.word()]);
        }
        Ok(())
    })
}

/// The path decision of a prepared access (the run-time condition is emitted in the current
/// block).
pub fn decide(b: &mut Builder, a: &Access, p: &Prepared) -> Decision {
    match (a.block_request, &p.fields) {
        (Some(req), None) if p.checked.is_some() => match (p.checked, p.strided) {
            (Some([x, y, height, width]), Some((column_major, pitch))) => {
                let surface = block_path::CheckedSurface {
                    column_major,
                    x,
                    y,
                    height,
                    width,
                    pitch,
                };
                block_path::decide_checked(b, req, &surface, p.pointer)
            }
            _ => Decision::Fallback("no checked surface".into()),
        },
        (Some(req), Some(t)) => block_path::decide(b, req, t, p.pointer),
        (None, _) => Decision::Fallback("strided load/store (no surface bounds)".into()),
        (Some(_), None) => Decision::Fallback("no tensor layout".into()),
    }
}

/// Emits one access from the current block according to `decision`, continuing at `next` (a
/// fresh block only this access branches to).
pub fn emit_decided(
    b: &mut Builder,
    p: &Prepared,
    decision: Decision,
    next: BlockId,
) -> Result<Path, ConvertError> {
    let next_label = b.m.block_label(next);
    Ok(match decision {
        Decision::Static(plan) => {
            block_path::emit(b, &plan, &p.mat, p.pointer, p.var, 0);
            b.void(Op::Branch, &[next_label.word()]);
            Path::Block
        }
        Decision::Runtime(plan, cond) => {
            let fast = b.new_block_after(b.cur);
            let slow = b.new_block_after(fast);
            let loop_exit = b.new_block_after(slow);
            let (fast_l, slow_l) = (b.m.block_label(fast), b.m.block_label(slow));
            b.void(Op::SelectionMerge, &[next_label.word(), 0]);
            b.void(
                Op::BranchConditional,
                &[cond.word(), fast_l.word(), slow_l.word()],
            );
            b.cur = fast;
            block_path::emit(b, &plan, &p.mat, p.pointer, p.var, 0);
            b.void(Op::Branch, &[next_label.word()]);
            b.cur = slow;
            emit_loop(b, p, loop_exit)?;
            b.cur = loop_exit;
            b.void(Op::Branch, &[next_label.word()]);
            Path::RuntimeChecked
        }
        Decision::Fallback(why) => {
            emit_loop(b, p, next)?;
            Path::Fallback(why)
        }
    })
}
