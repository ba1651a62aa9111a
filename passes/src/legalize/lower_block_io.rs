//! 2D block loads and stores on targets without 2D block IO (dg2, mtl).
//!
//! What: every `OpSubgroup2DBlockLoadINTEL` / `…LoadTransformINTEL` / `…LoadTransposeINTEL` /
//! `…StoreINTEL` becomes a loop of ordinary per-invocation `OpLoad`s / `OpStore`s (prefetches
//! are dropped by the caller). Each invocation reads its lane from the `SubgroupLocalInvocationId`
//! built-in (the Input variable is created if missing and added to every entry point's
//! interface) and walks the value slots `k = 0 .. Block Count · V` of its per-invocation data
//! (`V` values per block): block `b = k / V`, slot `s = k mod V`. For each slot it computes
//! the (row, column) of the *dealt* block the slot holds, the memory element(s) behind it, and
//! loads each in-bounds element inside an `OpSelectionMerge` diamond (an out-of-bounds address
//! is computed but never dereferenced; the phi gives 0), writing the value at byte
//! `k · value bytes` of the destination. Stores are the inverse: the diamond holds the
//! `OpStore`, so out-of-bounds and padded elements are dropped.
//!
//! The dealt block (which invocation holds which element, in which slot) is
//! `spvopt_analysis::block_io::layout`, with worked examples.
//!
//! Element (er, ec) of block b is at `base + (y + er)·pitch + (x + b·W + ec)·E` and is loaded
//! iff `er < H`, `ec < W` (padding is 0 / ignored), `0 ≤ y + er < Memory Height`,
//! `0 ≤ x + b·W + ec` and `(x + b·W + ec + 1)·E ≤ Memory Width` (an element straddling the width
//! is out of bounds), all in signed 64-bit arithmetic (the 32-bit operands sign-extended).
//!
//! Why correct: the formulas are the simulator's `Block2dLayout::position` (the oracle) and the
//! spec's text for rows up to SG units; Block Count > 1 is the concatenation of the blocks'
//! per-invocation data, block b at column `x + b·W`; the bounds test is the spec's
//! Out-of-Bounds Behavior per element. Every invocation runs the same trip count, so control
//! reconverges after the loop and collective operations after it see the whole subgroup.
//!
//! CFG surgery: the instructions after the 2D op move to a new continuation block (successor
//! phis that named the old block now name it); an `OpLoopMerge` of the old block stays in it
//! (the old block remains the loop header; a continue target naming it moves to the
//! continuation block). New blocks: loop header (`OpLoopMerge`), body with one diamond per
//! element (`OpSelectionMerge`), continue block, continuation.

use spirv::{Op, StorageClass};

use crate::edit::cfg::{move_block_before, split_block_after};
use spvopt_ir::{BlockId, Id, Inst, InstId, Interner, Module};

use crate::pass::Statistics;
use spvopt_analysis::block_io::layout::{Deal, Layout, LayoutError};
use spvopt_analysis::block_io::{BlockKind, BlockOperands};

use crate::diagnostic::Diagnostic;
use crate::edit::variables::lane_variable;

/// Lowers one load or store, or reports why it cannot.
pub fn lower(
    m: &mut Module,
    at: InstId,
    ops: &BlockOperands,
    sg: Option<u32>,
    types: &mut Interner,
    stats: &mut Statistics,
    errors: &mut Vec<Diagnostic>,
) {
    match lower_one(m, at, ops, sg, types) {
        Ok(()) => stats.add(
            if ops.kind == BlockKind::Store {
                "lowered_2d_stores"
            } else {
                "lowered_2d_loads"
            },
            1,
        ),
        Err(msg) => errors.push(Diagnostic::error_at(
            m,
            at,
            format!(
                "the target has no 2D block IO and this {:?} cannot be lowered to ordinary \
                 memory accesses: {msg}",
                ops.kind
            ),
        )),
    }
}

/// Why a 2D block load or store cannot become ordinary memory accesses.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
enum LowerError {
    /// An operand or type the instruction must have is absent or not of the kind it must be
    /// (the text names it).
    #[error("{0}")]
    Malformed(&'static str),
    #[error("the kernels reaching this function declare no single SubgroupSize")]
    NoSubgroupSize,
    #[error("the shape operands are not integer constants")]
    ShapeNotConstant,
    /// The shape has no data layout.
    #[error("{0}")]
    Layout(#[from] LayoutError),
    #[error("the data pointer is not a Function pointer")]
    DataNotFunctionPointer,
    #[error("the base pointer is not a CrossWorkgroup pointer")]
    BaseNotCrossWorkgroupPointer,
    /// A coordinate or surface operand to sign-extend is not an integer.
    #[error("an integer operand is not an integer")]
    NotAnInteger,
}

/// Width in bits of integer type `t`.
fn int_width(m: &Module, t: Id) -> Option<u32> {
    let i = m.def_inst(t)?;
    i.is(Op::TypeInt).then(|| i.operand_word(0)).flatten()
}

/// Appends instructions to one block.
struct Emit<'a> {
    m: &'a mut Module,
    cur: BlockId,
}

impl Emit<'_> {
    fn val(&mut self, op: Op, ty: Id, ops: &[u32]) -> Id {
        let r = self.m.fresh_id();
        self.m
            .append_inst(self.cur, Inst::new(op, Some(ty), Some(r), ops));
        r
    }
    fn void(&mut self, op: Op, ops: &[u32]) {
        self.m.append_inst(self.cur, Inst::new(op, None, None, ops));
    }
    /// `v` as a signed 64-bit value (sign-extended from 32 bits).
    fn sext64(&mut self, v: Id, u64t: Id) -> Result<Id, LowerError> {
        let t = self
            .m
            .type_of(v)
            .ok_or(LowerError::Malformed("operand has no type"))?;
        match int_width(self.m, t) {
            Some(64) => Ok(v),
            Some(_) => Ok(self.val(Op::SConvert, u64t, &[v.word()])),
            None => Err(LowerError::NotAnInteger),
        }
    }
    fn new_block_after(&mut self, after: BlockId) -> BlockId {
        let l = self.m.fresh_id();
        self.m.insert_block_after(after, l)
    }
}

fn lower_one(
    m: &mut Module,
    at: InstId,
    ops: &BlockOperands,
    sg: Option<u32>,
    types: &mut Interner,
) -> Result<(), LowerError> {
    let sg = sg.ok_or(LowerError::NoSubgroupSize)?;
    let shape = ops.shape(m).ok_or(LowerError::ShapeNotConstant)?;
    let lay = Layout::new(
        ops.kind,
        (shape.element_size, shape.width, shape.height, shape.count),
        sg,
    )?;
    let private = ops
        .private
        .ok_or(LowerError::Malformed("no data pointer"))?;
    let private_ty = m
        .type_of(private)
        .ok_or(LowerError::Malformed("data pointer has no type"))?;
    if !m.def_inst(private_ty).is_some_and(|t| {
        t.is(Op::TypePointer) && t.operand_word(0) == Some(StorageClass::Function as u32)
    }) {
        return Err(LowerError::DataNotFunctionPointer);
    }
    let base_ty = m
        .type_of(ops.base)
        .ok_or(LowerError::Malformed("base pointer has no type"))?;
    if !m.def_inst(base_ty).is_some_and(|t| {
        t.is(Op::TypePointer) && t.operand_word(0) == Some(StorageClass::CrossWorkgroup as u32)
    }) {
        return Err(LowerError::BaseNotCrossWorkgroupPointer);
    }
    let coord_ty = m
        .type_of(ops.coordinate)
        .ok_or(LowerError::Malformed("coordinate has no type"))?;
    let coord_elem = m
        .def_inst(coord_ty)
        .filter(|t| t.is(Op::TypeVector))
        .and_then(|t| t.operand_id(0))
        .ok_or(LowerError::Malformed("coordinate is not a vector"))?;
    for v in [ops.memory_width, ops.memory_height, ops.memory_pitch] {
        let t = m
            .type_of(v)
            .ok_or(LowerError::Malformed("surface operand has no type"))?;
        int_width(m, t).ok_or(LowerError::Malformed("surface operand is not an integer"))?;
    }
    int_width(m, coord_elem).ok_or(LowerError::Malformed("coordinate is not an integer vector"))?;
    m.inst_block(at)
        .ok_or(LowerError::Malformed("not in a block"))?;

    // Types and constants.
    let boolt = types.bool(m);
    let u32t = types.int(m, 32);
    let u64t = types.int(m, 64);
    let u8t = types.int(m, 8);
    let et = types.int(m, 8 * lay.element_size);
    let vt = types.int(m, 8 * lay.value_bytes);
    let cw_u8 = types.pointer(m, StorageClass::CrossWorkgroup, u8t);
    let cw_e = types.pointer(m, StorageClass::CrossWorkgroup, et);
    let fn_v = types.pointer(m, StorageClass::Function, vt);
    let c32 = |m: &mut Module, types: &mut Interner, v: u32| types.u32_const(m, v);
    let c64 = |m: &mut Module, types: &mut Interner, v: u64| types.u64_const(m, v);
    let zero32 = c32(m, types, 0);
    let one32 = c32(m, types, 1);
    let zero64 = c64(m, types, 0);
    let one64 = c64(m, types, 1);
    let zero_e = types.int_const(m, et, 0);
    let total = c32(m, types, lay.count * lay.values_per_block);
    let vpb = c32(m, types, lay.values_per_block);
    let w64 = c64(m, types, u64::from(lay.width));
    let e64 = c64(m, types, u64::from(lay.element_size));
    let wc = c32(m, types, lay.width);
    let hc = c32(m, types, lay.height);
    let lane_var = lane_variable(m, types);
    let lane_var_ty = m
        .def_inst(
            m.type_of(lane_var)
                .ok_or(LowerError::Malformed("lane variable has no type"))?,
        )
        .and_then(|p| p.operand_id(1))
        .ok_or(LowerError::Malformed("lane variable type"))?;
    let lane_width = int_width(m, lane_var_ty)
        .ok_or(LowerError::Malformed("lane variable is not an integer"))?;

    // Split the block: everything after `at` moves to `after`.
    let split = split_block_after(m, at).ok_or(LowerError::Malformed("not in a block"))?;
    let (b0, after, after_label) = (split.before, split.after, split.after_label);
    let b0_label = m.block_label(b0);
    m.erase(at);

    // Setup in the old block.
    let mut e = Emit { m, cur: b0 };
    let lane_raw = e.val(Op::Load, lane_var_ty, &[lane_var.word()]);
    let lane = if lane_width == 32 {
        lane_raw
    } else {
        e.val(Op::UConvert, u32t, &[lane_raw.word()])
    };
    let x = e.val(
        Op::CompositeExtract,
        coord_elem,
        &[ops.coordinate.word(), 0],
    );
    let y = e.val(
        Op::CompositeExtract,
        coord_elem,
        &[ops.coordinate.word(), 1],
    );
    let x64 = e.sext64(x, u64t)?;
    let y64 = e.sext64(y, u64t)?;
    let mw = e.sext64(ops.memory_width, u64t)?;
    let mh = e.sext64(ops.memory_height, u64t)?;
    let pitch = e.sext64(ops.memory_pitch, u64t)?;
    let base = if base_ty == cw_u8 {
        ops.base
    } else {
        e.val(Op::Bitcast, cw_u8, &[ops.base.word()])
    };
    let data = if private_ty == fn_v {
        private
    } else {
        e.val(Op::Bitcast, fn_v, &[private.word()])
    };
    let header_label = e.m.fresh_id();
    split.keep_loop_header(e.m);
    e.void(Op::Branch, &[header_label.word()]);

    // Loop header.
    let header = e.m.insert_block_after(b0, header_label);
    let body = e.new_block_after(header);
    let cont = e.new_block_after(body);
    let body_label = e.m.block_label(body);
    let cont_label = e.m.block_label(cont);
    e.cur = header;
    let k = e.m.fresh_id();
    let k_next = e.m.fresh_id();
    e.m.append_inst(
        header,
        Inst::new(
            Op::Phi,
            Some(u32t),
            Some(k),
            &[
                zero32.word(),
                b0_label.word(),
                k_next.word(),
                cont_label.word(),
            ],
        ),
    );
    let more = e.val(Op::ULessThan, boolt, &[k.word(), total.word()]);
    e.void(Op::LoopMerge, &[after_label.word(), cont_label.word(), 0]);
    e.void(
        Op::BranchConditional,
        &[more.word(), body_label.word(), after_label.word()],
    );

    // Body: position of slot s = k mod V of block b = k / V.
    e.cur = body;
    let bidx = e.val(Op::UDiv, u32t, &[k.word(), vpb.word()]);
    let s = e.val(Op::UMod, u32t, &[k.word(), vpb.word()]);
    let (dr, dc) = {
        let mut konst = |e: &mut Emit, v: u32| types.u32_const(e.m, v);
        let sgc = konst(&mut e, sg);
        match lay.deal {
            Deal::RowsPerSlot => {
                let cols = konst(&mut e, lay.columns);
                let t = e.val(Op::IMul, u32t, &[s.word(), sgc.word()]);
                let flat = e.val(Op::IAdd, u32t, &[t.word(), lane.word()]);
                let r = e.val(Op::UDiv, u32t, &[flat.word(), cols.word()]);
                let c = e.val(Op::UMod, u32t, &[flat.word(), cols.word()]);
                (r, c)
            }
            Deal::Consecutive => {
                let n = konst(&mut e, lay.columns / sg);
                let r = e.val(Op::UDiv, u32t, &[s.word(), n.word()]);
                let t = e.val(Op::UMod, u32t, &[s.word(), n.word()]);
                let l = e.val(Op::IMul, u32t, &[lane.word(), n.word()]);
                let c = e.val(Op::IAdd, u32t, &[l.word(), t.word()]);
                (r, c)
            }
            Deal::Interleaved => {
                let n = konst(&mut e, lay.columns / sg);
                let u = konst(&mut e, lay.unit);
                let chunk = konst(&mut e, sg * lay.unit);
                let r = e.val(Op::UDiv, u32t, &[s.word(), n.word()]);
                let t = e.val(Op::UMod, u32t, &[s.word(), n.word()]);
                let tu = e.val(Op::UDiv, u32t, &[t.word(), u.word()]);
                let tr = e.val(Op::UMod, u32t, &[t.word(), u.word()]);
                let a = e.val(Op::IMul, u32t, &[tu.word(), chunk.word()]);
                let l = e.val(Op::IMul, u32t, &[lane.word(), u.word()]);
                let c0 = e.val(Op::IAdd, u32t, &[a.word(), l.word()]);
                let c = e.val(Op::IAdd, u32t, &[c0.word(), tr.word()]);
                (r, c)
            }
        }
    };
    // Column of block b: x + b·W.
    let b64 = e.val(Op::UConvert, u64t, &[bidx.word()]);
    let bw = e.val(Op::IMul, u64t, &[b64.word(), w64.word()]);
    let xb = e.val(Op::IAdd, u64t, &[x64.word(), bw.word()]);
    let slot_ptr = e.val(Op::InBoundsPtrAccessChain, fn_v, &[data.word(), k.word()]);
    let mut packed: Option<Id> = None;
    for j in 0..lay.pack {
        let (er, ec) = match lay.kind {
            BlockKind::LoadTranspose => (dc, dr),
            BlockKind::LoadTransform => {
                let p = types.u32_const(e.m, lay.pack);
                let rp = e.val(Op::IMul, u32t, &[dr.word(), p.word()]);
                let r = if j == 0 {
                    rp
                } else {
                    let jc = types.u32_const(e.m, j);
                    e.val(Op::IAdd, u32t, &[rp.word(), jc.word()])
                };
                (r, dc)
            }
            _ => (dr, dc),
        };
        // In bounds of the block and of memory.
        let in_h = e.val(Op::ULessThan, boolt, &[er.word(), hc.word()]);
        let in_w = e.val(Op::ULessThan, boolt, &[ec.word(), wc.word()]);
        let er64 = e.val(Op::UConvert, u64t, &[er.word()]);
        let ec64 = e.val(Op::UConvert, u64t, &[ec.word()]);
        let mr = e.val(Op::IAdd, u64t, &[y64.word(), er64.word()]);
        let mc = e.val(Op::IAdd, u64t, &[xb.word(), ec64.word()]);
        let r_lo = e.val(Op::SGreaterThanEqual, boolt, &[mr.word(), zero64.word()]);
        let r_hi = e.val(Op::SLessThan, boolt, &[mr.word(), mh.word()]);
        let c_lo = e.val(Op::SGreaterThanEqual, boolt, &[mc.word(), zero64.word()]);
        let mc1 = e.val(Op::IAdd, u64t, &[mc.word(), one64.word()]);
        let end = e.val(Op::IMul, u64t, &[mc1.word(), e64.word()]);
        let c_hi = e.val(Op::SLessThanEqual, boolt, &[end.word(), mw.word()]);
        let mut ok = in_h;
        for c in [in_w, r_lo, r_hi, c_lo, c_hi] {
            ok = e.val(Op::LogicalAnd, boolt, &[ok.word(), c.word()]);
        }
        // Diamond: the access only where in bounds.
        let from = e.cur;
        let from_label = e.m.block_label(from);
        let access = e.new_block_after(from);
        let merge = e.new_block_after(access);
        let access_label = e.m.block_label(access);
        let merge_label = e.m.block_label(merge);
        e.void(Op::SelectionMerge, &[merge_label.word(), 0]);
        e.void(
            Op::BranchConditional,
            &[ok.word(), access_label.word(), merge_label.word()],
        );
        e.cur = access;
        let rp = e.val(Op::IMul, u64t, &[mr.word(), pitch.word()]);
        let cp = e.val(Op::IMul, u64t, &[mc.word(), e64.word()]);
        let off = e.val(Op::IAdd, u64t, &[rp.word(), cp.word()]);
        let p8 = e.val(Op::PtrAccessChain, cw_u8, &[base.word(), off.word()]);
        let pe = if cw_e == cw_u8 {
            p8
        } else {
            e.val(Op::Bitcast, cw_e, &[p8.word()])
        };
        if lay.kind == BlockKind::Store {
            let v = e.val(Op::Load, et, &[slot_ptr.word()]);
            e.void(Op::Store, &[pe.word(), v.word()]);
            e.void(Op::Branch, &[merge_label.word()]);
            e.cur = merge;
        } else {
            let v = e.val(Op::Load, et, &[pe.word()]);
            e.void(Op::Branch, &[merge_label.word()]);
            e.cur = merge;
            let got = e.val(
                Op::Phi,
                et,
                &[
                    v.word(),
                    access_label.word(),
                    zero_e.word(),
                    from_label.word(),
                ],
            );
            packed = Some(if lay.pack == 1 {
                got
            } else {
                let wide = e.val(Op::UConvert, vt, &[got.word()]);
                let shifted = if j == 0 {
                    wide
                } else {
                    // The shift amount in the value's width (drivers' readers need it).
                    let sh = types.int_const(e.m, vt, u64::from(8 * lay.element_size * j));
                    e.val(Op::ShiftLeftLogical, vt, &[wide.word(), sh.word()])
                };
                match packed {
                    None => shifted,
                    Some(acc) => e.val(Op::BitwiseOr, vt, &[acc.word(), shifted.word()]),
                }
            });
        }
    }
    if let Some(v) = packed {
        e.void(Op::Store, &[slot_ptr.word(), v.word()]);
    }
    e.void(Op::Branch, &[cont_label.word()]);
    // Continue block: next slot. (Blocks were inserted after `body`; move `cont` last.)
    e.cur = cont;
    e.m.append_inst(
        cont,
        Inst::new(
            Op::IAdd,
            Some(u32t),
            Some(k_next),
            &[k.word(), one32.word()],
        ),
    );
    e.void(Op::Branch, &[header_label.word()]);
    move_block_before(e.m, cont, after);
    Ok(())
}
