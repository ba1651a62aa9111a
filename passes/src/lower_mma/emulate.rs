//! Emulation of one MMA with subgroup broadcasts and FMAs (the pattern of
//! `emu_sub_group_*_matrix_mad_k16` in SimpleOpenCLSamples `20_matrixexperiments-*`).
//!
//! Each invocation n computes column n of the result:
//! `Result[r][n] = C[r][n] + Σ_k A[r][k]·B[k][n]`, k = 0, 1, …, K-1 in that order.
//! * `B[k][n]` is the invocation's own data (bits `k·e ..` of B): decoded once per k.
//! * A's elements the invocation holds are decoded once (to i32/… or f32), and `A[r][k]` is
//!   fetched from the invocation that holds it with one subgroup-scope `OpGroupBroadcast` from
//!   a constant invocation id (N ≤ K: invocation `k / (K/N)`, own element `(r, k mod (K/N))`;
//!   N > K: invocation `(r mod (N/K))·K + k`, own slot `r / (N/K)`). The MMA is executed by
//!   the whole subgroup in convergent code, so a broadcast gives what a shuffle from that lane
//!   would, and Intel's CPU runtime compiles it an order of magnitude faster
//!   (`Builder::broadcast`).
//! * `C[r][n]` is component r of C.
//!
//! Integers: elements are sign- or zero-extended (Signed bits) to the Result width and the
//! products and sums wrap there (`OpIMul` / `OpIAdd`): the low bits of the exact result,
//! which is what the extension defines. Floats: elements are converted exactly to f32
//! (f16 via `OpFConvert`, bf16 by shifting into the high half, tf32 by clearing the 13 low
//! mantissa bits), C likewise; `acc = fma(A[r][k], B[k][n], acc)` with OpenCL.std `fma`
//! (one rounding per step, round to nearest even), and the sum is rounded once to the Result
//! type (f16: `OpFConvert`, round to nearest even; bf16: integer round to nearest even with
//! NaNs kept quiet).
//!
//! Cost per MMA: M·K broadcasts and M·K FMAs (or multiply-adds), M·(K/N) + K element decodes.

use spirv::Op;

use super::build::{opencl_std, Builder, OPENCL_FMA};
use super::plan::{ALayout, Elem, Mma, OperandType};

/// The compute type: the Result component (integers) or f32 (floats).
fn compute_type(b: &mut Builder, mma: &Mma) -> spvopt_ir::Id {
    if mma.r_elem.is_float() {
        b.f32()
    } else {
        mma.r.component
    }
}

/// Element `elem` at bit `offset` of operand `v` (of type `t`), decoded into the compute type.
/// `cache` memoizes the components' unsigned views.
fn element(
    b: &mut Builder,
    v: spvopt_ir::Id,
    t: &OperandType,
    cache: &mut [Option<spvopt_ir::Id>],
    offset: u32,
    elem: Elem,
    (ct, ct_bits): (spvopt_ir::Id, u32),
) -> spvopt_ir::Id {
    let cw = t.bits;
    let idx = offset / cw;
    let shift = offset % cw;
    let comp = match cache[idx as usize] {
        Some(c) => c,
        None => {
            let c = b.component_bits(v, t, idx);
            cache[idx as usize] = Some(c);
            c
        }
    };
    let uw = b.uint(cw);
    let e = elem.bits();
    match elem {
        Elem::Int { signed, .. } => {
            let x = if e == cw {
                comp
            } else if signed {
                let up = cw - e - shift;
                let x = if up == 0 {
                    comp
                } else {
                    // Shift amounts have the shifted value's width: drivers' SPIR-V readers
                    // (Intel's CPU runtime) turn a narrower value shifted by a u32 into an
                    // invalid LLVM shift.
                    let s = b.int_const(uw, u64::from(up));
                    b.val(Op::ShiftLeftLogical, uw, &[comp.word(), s.word()])
                };
                let s = b.int_const(uw, u64::from(cw - e));
                b.val(Op::ShiftRightArithmetic, uw, &[x.word(), s.word()])
            } else {
                let x = if shift == 0 {
                    comp
                } else {
                    let s = b.int_const(uw, u64::from(shift));
                    b.val(Op::ShiftRightLogical, uw, &[comp.word(), s.word()])
                };
                let mask = b.int_const(uw, (1u64 << e) - 1);
                b.val(Op::BitwiseAnd, uw, &[x.word(), mask.word()])
            };
            // To the compute width: sign- or zero-extend (or truncate: the low bits).
            let conv = if cw < ct_bits && signed {
                Op::SConvert
            } else {
                Op::UConvert
            };
            if cw == ct_bits {
                b.bitcast(x, uw, ct)
            } else {
                b.val(conv, ct, &[x.word()])
            }
        }
        _ => {
            let f32t = ct;
            // The element's raw bits, right-aligned, in the narrowest unsigned type.
            let raw = |b: &mut Builder| {
                if e == cw {
                    comp
                } else {
                    let x = if shift == 0 {
                        comp
                    } else {
                        let s = b.int_const(uw, u64::from(shift));
                        b.val(Op::ShiftRightLogical, uw, &[comp.word(), s.word()])
                    };
                    let et = b.uint(e);
                    b.val(Op::UConvert, et, &[x.word()])
                }
            };
            match elem {
                Elem::F16 => {
                    let r = raw(b);
                    let h = b.types.float(b.m, 16);
                    let u16t = b.uint(16);
                    let hv = b.bitcast(r, u16t, h);
                    b.val(Op::FConvert, f32t, &[hv.word()])
                }
                Elem::Bf16 => {
                    // bf16 is the high half of an f32.
                    let u32t = b.uint(32);
                    let s16 = b.u32c(16);
                    let hi = match (cw, shift) {
                        (32, 16) => {
                            let mask = b.int_const(u32t, 0xffff_0000);
                            b.val(Op::BitwiseAnd, u32t, &[comp.word(), mask.word()])
                        }
                        (32, 0) => b.val(Op::ShiftLeftLogical, u32t, &[comp.word(), s16.word()]),
                        _ => {
                            let x = if shift == 0 {
                                comp
                            } else {
                                let s = b.int_const(uw, u64::from(shift));
                                b.val(Op::ShiftRightLogical, uw, &[comp.word(), s.word()])
                            };
                            let w = b.val(Op::UConvert, u32t, &[x.word()]);
                            b.val(Op::ShiftLeftLogical, u32t, &[w.word(), s16.word()])
                        }
                    };
                    b.bitcast(hi, u32t, f32t)
                }
                Elem::Tf32 => {
                    // cw == 32 (checked by decode). NaNs stay NaN (quiet bit set) even when
                    // their payload lies only in the ignored bits, as the simulator reads them.
                    let u32t = b.uint(32);
                    let boolt = b.types.bool(b.m);
                    let keep = b.int_const(u32t, 0xffff_e000);
                    let masked = b.val(Op::BitwiseAnd, u32t, &[comp.word(), keep.word()]);
                    let abs_mask = b.int_const(u32t, 0x7fff_ffff);
                    let abs = b.val(Op::BitwiseAnd, u32t, &[comp.word(), abs_mask.word()]);
                    let inf = b.int_const(u32t, 0x7f80_0000);
                    let nan = b.val(Op::UGreaterThan, boolt, &[abs.word(), inf.word()]);
                    let qb = b.int_const(u32t, 0x0040_0000);
                    let quiet = b.val(Op::BitwiseOr, u32t, &[masked.word(), qb.word()]);
                    let sel = b.val(Op::Select, u32t, &[nan.word(), quiet.word(), masked.word()]);
                    b.bitcast(sel, u32t, f32t)
                }
                _ => {
                    // F32 (F64 is rejected by plan::action).
                    let u32t = b.uint(32);
                    b.bitcast(comp, u32t, f32t)
                }
            }
        }
    }
}

/// Component `r` of C in the compute type.
fn c_element(b: &mut Builder, mma: &Mma, r: u32, ct: spvopt_ir::Id) -> spvopt_ir::Id {
    let c = mma.c;
    let v = if c.count == 1 {
        mma.c_id
    } else {
        b.val(Op::CompositeExtract, c.component, &[mma.c_id.word(), r])
    };
    match mma.c_elem {
        Elem::Int { bits, .. } => {
            if bits == mma.r.bits {
                b.bitcast(v, c.component, ct)
            } else {
                b.val(Op::SConvert, ct, &[v.word()])
            }
        }
        Elem::F16 => b.val(Op::FConvert, ct, &[v.word()]),
        Elem::Bf16 => {
            let u32t = b.uint(32);
            let u16t = b.uint(16);
            let x = b.bitcast(v, c.component, u16t);
            let w = b.val(Op::UConvert, u32t, &[x.word()]);
            let s = b.u32c(16);
            let hi = b.val(Op::ShiftLeftLogical, u32t, &[w.word(), s.word()]);
            b.bitcast(hi, u32t, ct)
        }
        _ => v, // F32
    }
}

/// The accumulated f32 / integer value as a Result component.
fn result_element(b: &mut Builder, mma: &Mma, acc: spvopt_ir::Id) -> spvopt_ir::Id {
    let rc = mma.r.component;
    match mma.r_elem {
        Elem::F16 => b.val(Op::FConvert, rc, &[acc.word()]),
        Elem::Bf16 => {
            // Round to nearest even on the f32 bits; NaN: the top bits with the quiet bit.
            let u32t = b.uint(32);
            let f32t = b.f32();
            let boolt = b.types.bool(b.m);
            let bits = b.bitcast(acc, f32t, u32t);
            let s16 = b.u32c(16);
            let one = b.int_const(u32t, 1);
            let half = b.int_const(u32t, 0x7fff);
            let top = b.val(Op::ShiftRightLogical, u32t, &[bits.word(), s16.word()]);
            let lsb = b.val(Op::BitwiseAnd, u32t, &[top.word(), one.word()]);
            let t = b.val(Op::IAdd, u32t, &[bits.word(), half.word()]);
            let t = b.val(Op::IAdd, u32t, &[t.word(), lsb.word()]);
            let rounded = b.val(Op::ShiftRightLogical, u32t, &[t.word(), s16.word()]);
            let abs_mask = b.int_const(u32t, 0x7fff_ffff);
            let abs = b.val(Op::BitwiseAnd, u32t, &[bits.word(), abs_mask.word()]);
            let inf = b.int_const(u32t, 0x7f80_0000);
            let nan = b.val(Op::UGreaterThan, boolt, &[abs.word(), inf.word()]);
            let qb = b.int_const(u32t, 0x40);
            let quiet = b.val(Op::BitwiseOr, u32t, &[top.word(), qb.word()]);
            let sel = b.val(
                Op::Select,
                u32t,
                &[nan.word(), quiet.word(), rounded.word()],
            );
            b.val(Op::UConvert, rc, &[sel.word()])
        }
        _ => acc, // f32 or an integer already in the Result component type
    }
}

/// Emits the emulation of `mma` before it; returns the ids of the M Result components.
pub fn emulate(b: &mut Builder, mma: &Mma) -> Vec<spvopt_ir::Id> {
    let float = mma.r_elem.is_float();
    let ct = compute_type(b, mma);
    let ct_bits = if float { 32 } else { mma.r.bits };
    let fma_set = if float { Some(opencl_std(b.m)) } else { None };
    let (m, k, sg) = (mma.m, mma.k, mma.sg);
    let ea = mma.a_elem.bits();
    let eb = mma.b_elem.bits();

    // B: own column, row k at bits k·eb.
    let mut bcache = vec![None; mma.b.count as usize];
    let mut bk = Vec::with_capacity(k as usize);
    for kk in 0..k {
        let v = element(
            b,
            mma.b_id,
            &mma.b,
            &mut bcache,
            kk * eb,
            mma.b_elem,
            (ct, ct_bits),
        );
        bk.push(v);
    }

    // A: own elements, decoded once.
    let mut acache: Vec<Option<spvopt_ir::Id>> = vec![None; mma.a.count as usize];
    let own = |b: &mut Builder, acache: &mut [Option<spvopt_ir::Id>], slot_offset: u32| {
        element(
            b,
            mma.a_id,
            &mma.a,
            acache,
            slot_offset,
            mma.a_elem,
            (ct, ct_bits),
        )
    };
    let mut results = Vec::with_capacity(m as usize);
    match mma.a_layout {
        ALayout::Columns { columns } => {
            let mut mine: Vec<Vec<spvopt_ir::Id>> = Vec::with_capacity(m as usize);
            for r in 0..m {
                let mut row = Vec::with_capacity(columns as usize);
                for c in 0..columns {
                    row.push(own(b, &mut acache, (r * columns + c) * ea));
                }
                mine.push(row);
            }
            for r in 0..m {
                let mut acc = c_element(b, mma, r, ct);
                for kk in 0..k {
                    let lane = b.u32c(kk / columns);
                    let a = b.broadcast(ct, mine[r as usize][(kk % columns) as usize], lane);
                    acc = step(b, fma_set, ct, a, bk[kk as usize], acc);
                }
                results.push(result_element(b, mma, acc));
            }
        }
        ALayout::RowGroups { groups } => {
            let slots = m.div_ceil(groups);
            let mut mine = Vec::with_capacity(slots as usize);
            for s in 0..slots {
                mine.push(own(b, &mut acache, s * ea));
            }
            for r in 0..m {
                let mut acc = c_element(b, mma, r, ct);
                for kk in 0..k {
                    let lane = b.u32c((r % groups) * k + kk);
                    debug_assert!((r % groups) * k + kk < sg);
                    let a = b.broadcast(ct, mine[(r / groups) as usize], lane);
                    acc = step(b, fma_set, ct, a, bk[kk as usize], acc);
                }
                results.push(result_element(b, mma, acc));
            }
        }
    }
    results
}

/// `acc + a·b`: OpenCL.std fma for floats, wrapping multiply-add for integers.
fn step(
    b: &mut Builder,
    fma_set: Option<spvopt_ir::Id>,
    ct: spvopt_ir::Id,
    a: spvopt_ir::Id,
    x: spvopt_ir::Id,
    acc: spvopt_ir::Id,
) -> spvopt_ir::Id {
    match fma_set {
        Some(set) => b.val(
            Op::ExtInst,
            ct,
            &[set.word(), OPENCL_FMA, a.word(), x.word(), acc.word()],
        ),
        None => {
            let p = b.val(Op::IMul, ct, &[a.word(), x.word()]);
            b.val(Op::IAdd, ct, &[acc.word(), p.word()])
        }
    }
}
