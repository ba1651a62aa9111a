//! 2D block and buffer prefetch shapes the target lacks.
//!
//! What:
//! - A 2D block load / transformed load / store / prefetch whose (element size, width, height,
//!   count) the target does not support is split into pieces of Block Count c' (dividing the
//!   count) and Block Height h' (dividing the height) that it supports, choosing the fewest
//!   pieces. Piece (g, j) covers blocks `g·c' ..` at column `x + g·c'·W` and rows `y + j·h'`,
//!   and its per-invocation data sits at byte `g·c'·bytes-per-block + j·bytes-per-piece-rows`
//!   of the original Dst/Src.
//! - Prefetches may also be split along the width; a prefetch that cannot be split (or any
//!   prefetch on a target without 2D block IO) is dropped.
//! - On a target without 2D block IO, loads and stores go to [`super::lower_block_io`].
//! - `OpSubgroupBlockPrefetchINTEL` with a constant byte count the target does not honour is
//!   split into honoured sizes (largest first, at increasing byte offsets) or dropped when the
//!   target has no honoured size or the pointer is not a CrossWorkgroup integer pointer.
//! - Anything else that cannot be kept identical (width splits of data ops, transposed
//!   loads, multi-block stores, pieces whose data would not be a contiguous run) is an error
//!   with its location.
//!
//! Why correct: (SPV_INTEL_2d_block_io, "Mapping Block Data to Invocations") blocks of a
//! multi-block op follow each other in the per-invocation data, so a Block Count split is a
//! concatenation (the split-block-loads construction). Along the height: rows are dealt to
//! invocations in order; with padded width Wp ≥ subgroup size each row is a run of Wp/SG
//! consecutive elements of every invocation, and with Wp < SG each group of SG/Wp rows is one
//! element of every invocation; so the first h' rows are exactly the first part of every
//! invocation's data when h' is a multiple of SG/Wp (always when Wp ≥ SG). A transformed
//! (VNNI) load packs 4 (1-byte) or 2 (2-byte) rows into one 32-bit element, so the same holds
//! for packed rows when h' is a multiple of the packing factor. Out-of-bounds handling is per
//! element and unchanged; all surface operands are reused, so uniformity is kept. Prefetches
//! have no observable effect, so splitting them any way or dropping them is exact.

use spirv::{Op, StorageClass};
use spvopt_analysis::{Fact, KernelFacts, Target};
use spvopt_ir::{Id, Inst, InstId, Interner, Module, Section};

use crate::pass::{Changes, Statistics};
use spvopt_analysis::block_io::{BlockKind, BlockOperands};

use super::body_scan::BodyScan;
use crate::diagnostic::Diagnostic;
use crate::edit::location;

/// A split: pieces of Block Count `count`, Block Height `height`, Block Width `width`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Plan {
    count: u32,
    height: u32,
    width: u32,
}

/// Divisors of `n`, descending (`n` is small: callers bound it).
fn divisors(n: u32) -> Vec<u32> {
    (1..=n).rev().filter(|&d| n.is_multiple_of(d)).collect()
}

const MAX_DIM: u32 = 1024;
const MAX_PIECES: u32 = 64;

/// Whether the first `h` rows of a block are the first part of every invocation's data.
fn rows_concatenate(kind: BlockKind, elem: u32, width: u32, height: u32, h: u32, sg: u32) -> bool {
    let rows = match kind {
        BlockKind::Load | BlockKind::Store => h,
        BlockKind::LoadTransform => {
            let f = match elem {
                1 => 4,
                2 => 2,
                _ => 1,
            };
            if !height.is_multiple_of(f) || !h.is_multiple_of(f) {
                return false;
            }
            h / f
        }
        _ => return false,
    };
    let wp = width.next_power_of_two();
    wp >= sg || (sg.is_multiple_of(wp) && rows.is_multiple_of(sg / wp))
}

fn find_plan(
    target: &Target,
    kind: BlockKind,
    e: u32,
    w: u32,
    h: u32,
    c: u32,
    sg: Option<u32>,
) -> Option<Plan> {
    if w == 0 || h == 0 || c == 0 || w > MAX_DIM || h > MAX_DIM || c > MAX_DIM {
        return None;
    }
    let op = kind;
    let prefetch = kind == BlockKind::Prefetch;
    let widths = if prefetch { divisors(w) } else { vec![w] };
    let counts = match kind {
        BlockKind::Load | BlockKind::LoadTransform | BlockKind::Prefetch => divisors(c),
        _ => vec![c],
    };
    let mut best: Option<(u32, Plan)> = None;
    for &cw in &widths {
        for &cc in &counts {
            for &ch in &divisors(h) {
                let pieces = (c / cc) * (h / ch) * (w / cw);
                if pieces > MAX_PIECES || best.is_some_and(|(n, _)| n <= pieces) {
                    continue;
                }
                if !target.supports_2d_block(op, e, cw, ch, cc) {
                    continue;
                }
                // Width pieces of several blocks would not cover the same columns.
                if cw < w && cc != 1 {
                    continue;
                }
                if !prefetch && ch < h {
                    // A height split keeps the data contiguous only for single-block pieces.
                    let Some(sg) = sg else { continue };
                    if cc != 1 || !rows_concatenate(kind, e, w, h, ch, sg) {
                        continue;
                    }
                }
                best = Some((
                    pieces,
                    Plan {
                        count: cc,
                        height: ch,
                        width: cw,
                    },
                ));
            }
        }
    }
    best.map(|(_, p)| p)
}

/// Legalizes every 2D block op and buffer prefetch. One rewrite (`--max-changes`): one op
/// dropped, lowered or split, in module order (2D block ops, then buffer prefetches).
/// `scan`: legalize's scan of the bodies (taken again for the buffer prefetches when a 2D
/// block op changed).
pub fn run(
    m: &mut Module,
    target: &Target,
    facts: &KernelFacts,
    scan: &mut BodyScan,
    stats: &mut Statistics,
    errors: &mut Vec<Diagnostic>,
    changes: &mut Changes,
) {
    let mut types = Interner::default();
    let block_ops = scan.current(m, changes).block_ops.clone();
    for at in block_ops {
        // The subgroup size of the kernels reaching this instruction's function.
        let sg_fact = facts.subgroup_size_at(m, at);
        let sg = sg_fact.known();
        let Some(ops) = BlockOperands::read(m.inst(at)) else {
            errors.push(Diagnostic::error_at(
                m,
                at,
                "malformed 2D block instruction",
            ));
            continue;
        };
        if !target.has_2d_block_io() {
            if !changes.allow() {
                continue;
            }
            if ops.kind == BlockKind::Prefetch {
                m.erase(at);
                stats.add("dropped_2d_prefetches", 1);
            } else {
                // 2D block IO is defined for subgroup size 16 only (cl_intel_subgroup_2d_block_io):
                // where no kernel declares one (an exported helper no kernel calls, or kernels
                // without SubgroupSize), 16 is the only size at which the op can have run.
                let sg = match sg_fact {
                    Fact::Unknown => {
                        stats.note(format!(
                            "{}: lowered for subgroup size 16 (the only size 2D block IO is \
                             defined for): no kernel reaching the function declares one",
                            location(m, at)
                        ));
                        Some(16)
                    }
                    _ => sg,
                };
                super::lower_block_io::lower(m, at, &ops, sg, &mut types, stats, errors);
            }
            continue;
        }
        let Some(shape) = ops.shape(m) else {
            errors.push(Diagnostic::error_at(
                m,
                at,
                "2D block shape operands are not constants",
            ));
            continue;
        };
        let (e, w, h, c) = (shape.element_size, shape.width, shape.height, shape.count);
        let op = ops.kind;
        if target.supports_2d_block(op, e, w, h, c) {
            continue;
        }
        let describe = || {
            format!(
                "{} {e}-byte {w}x{h} count {c} is not supported by target {}",
                op.name(),
                target.name
            )
        };
        let Some(plan) = find_plan(target, ops.kind, e, w, h, c, sg) else {
            if ops.kind == BlockKind::Prefetch {
                if !changes.allow() {
                    continue;
                }
                m.erase(at);
                stats.add("dropped_2d_prefetches", 1);
            } else {
                let why = format!(
                    "{}, and no split into supported shapes keeps the per-invocation data \
                     identical{}",
                    describe(),
                    match sg_fact {
                        Fact::Known(_) => "",
                        Fact::Conflicting => {
                            " (kernels with different SubgroupSize call this function)"
                        }
                        Fact::Unknown => " (no SubgroupSize declared for this function's kernels)",
                    }
                );
                errors.push(Diagnostic::error_at(m, at, why));
            }
            continue;
        };
        if !changes.allow() {
            continue;
        }
        if let Err(msg) = apply(m, at, &ops, plan, (e, w, h, c), sg, &mut types, stats) {
            errors.push(Diagnostic::error_at(
                m,
                at,
                format!("{}; {msg}", describe()),
            ));
        }
    }
    let list = scan.current(m, changes).buffer_prefetches.clone();
    buffer_prefetches(m, target, &list, stats, &mut types, changes);
}

/// Why a 2D block operation cannot be cut into pieces the target has.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
enum SplitError {
    /// An operand or type the instruction must have is absent or not of the kind it must be
    /// (the text names it).
    #[error("{0}")]
    Malformed(&'static str),
    #[error("the kernels reaching this function declare no single SubgroupSize")]
    NoSubgroupSize,
    #[error("the data pointer's type cannot be addressed")]
    DataNotAddressable,
    #[error("piece offsets do not fall on the data pointer's components")]
    MisalignedPieces,
}

#[allow(clippy::too_many_arguments)]
fn apply(
    m: &mut Module,
    at: InstId,
    ops: &BlockOperands,
    plan: Plan,
    (e, w, h, c): (u32, u32, u32, u32),
    sg: Option<u32>,
    types: &mut Interner,
    stats: &mut Statistics,
) -> Result<(), SplitError> {
    // Byte offsets of the pieces' data (none for prefetches).
    let mut data: Option<(Id, u32, u32, u32)> = None; // (pointer, scalar bytes, per block, per rows)
    if let Some(p) = ops.private {
        let sg = sg.ok_or(SplitError::NoSubgroupSize)?;
        let whole = spvopt_analysis::block_io::BlockShape {
            element_size: e,
            width: w,
            height: h,
            count: 1,
        };
        let rows = spvopt_analysis::block_io::BlockShape {
            height: plan.height,
            ..whole
        };
        let per_block = whole
            .bytes_per_invocation_per_block(ops.kind, sg)
            .ok_or(SplitError::Malformed("bad shape"))?;
        let per_rows = rows
            .bytes_per_invocation_per_block(ops.kind, sg)
            .ok_or(SplitError::Malformed("bad shape"))?;
        let (_, sb) = spvopt_analysis::block_io::private_scalar(m, p)
            .ok_or(SplitError::DataNotAddressable)?;
        if !per_block.is_multiple_of(sb) || !per_rows.is_multiple_of(sb) {
            return Err(SplitError::MisalignedPieces);
        }
        data = Some((p, sb, per_block, per_rows));
    }
    let coord_ty = m
        .type_of(ops.coordinate)
        .ok_or(SplitError::Malformed("coordinate has no type"))?;
    let coord_elem = m
        .def_inst(coord_ty)
        .filter(|t| t.is(Op::TypeVector))
        .and_then(|t| t.operand_id(0))
        .ok_or(SplitError::Malformed("coordinate is not a vector"))?;
    let x = m.fresh_id();
    m.insert_before(
        at,
        Inst::new(
            Op::CompositeExtract,
            Some(coord_elem),
            Some(x),
            &[ops.coordinate.word(), 0],
        ),
    );
    let y = m.fresh_id();
    m.insert_before(
        at,
        Inst::new(
            Op::CompositeExtract,
            Some(coord_elem),
            Some(y),
            &[ops.coordinate.word(), 1],
        ),
    );
    let shape_ty = m.type_of(ops.count).unwrap_or(coord_elem);
    let count_c = types.int_const(m, shape_ty, u64::from(plan.count));
    let height_c = types.int_const(m, shape_ty, u64::from(plan.height));
    let width_c = types.int_const(m, shape_ty, u64::from(plan.width));
    let base_scalar = match data {
        Some((p, _, _, _)) => {
            let (scalar, _) = spvopt_analysis::block_io::private_scalar(m, p)
                .ok_or(SplitError::Malformed("bad data pointer"))?;
            let scalar_ptr = types.pointer(m, StorageClass::Function, scalar);
            let dst_ty = m
                .type_of(p)
                .ok_or(SplitError::Malformed("bad data pointer"))?;
            let base = if dst_ty == scalar_ptr {
                p
            } else {
                let id = m.fresh_id();
                m.insert_before(
                    at,
                    Inst::new(Op::Bitcast, Some(scalar_ptr), Some(id), &[p.word()]),
                );
                id
            };
            Some((base, scalar_ptr, dst_ty))
        }
        None => None,
    };
    let mut pieces = 0u64;
    for g in 0..c / plan.count {
        for j in 0..h / plan.height {
            for k in 0..w / plan.width {
                let dx = g * plan.count * w + k * plan.width;
                let dy = j * plan.height;
                let coordinate = if dx == 0 && dy == 0 {
                    ops.coordinate
                } else {
                    let mut add = |m: &mut Module, v: Id, d: u32| {
                        if d == 0 {
                            return v;
                        }
                        let dc = types.int_const(m, coord_elem, u64::from(d));
                        let r = m.fresh_id();
                        m.insert_before(
                            at,
                            Inst::new(Op::IAdd, Some(coord_elem), Some(r), &[v.word(), dc.word()]),
                        );
                        r
                    };
                    let xn = add(m, x, dx);
                    let yn = add(m, y, dy);
                    let cid = m.fresh_id();
                    m.insert_before(
                        at,
                        Inst::new(
                            Op::CompositeConstruct,
                            Some(coord_ty),
                            Some(cid),
                            &[xn.word(), yn.word()],
                        ),
                    );
                    cid
                };
                let private = match (data, base_scalar) {
                    (Some((p, sb, per_block, per_rows)), Some((base, scalar_ptr, dst_ty))) => {
                        let bytes = g * plan.count * per_block + j * per_rows;
                        if bytes == 0 {
                            Some(p)
                        } else {
                            let off = types.u32_const(m, bytes / sb);
                            let q = m.fresh_id();
                            m.insert_before(
                                at,
                                Inst::new(
                                    Op::InBoundsPtrAccessChain,
                                    Some(scalar_ptr),
                                    Some(q),
                                    &[base.word(), off.word()],
                                ),
                            );
                            if dst_ty == scalar_ptr {
                                Some(q)
                            } else {
                                let t = m.fresh_id();
                                m.insert_before(
                                    at,
                                    Inst::new(Op::Bitcast, Some(dst_ty), Some(t), &[q.word()]),
                                );
                                Some(t)
                            }
                        }
                    }
                    _ => None,
                };
                let piece = BlockOperands {
                    width: width_c,
                    height: height_c,
                    count: count_c,
                    coordinate,
                    private,
                    ..*ops
                };
                m.insert_before(at, piece.to_inst());
                pieces += 1;
            }
        }
    }
    m.erase(at);
    let stat = match ops.kind {
        BlockKind::Prefetch => "split_2d_prefetches",
        BlockKind::Store => "split_2d_stores",
        _ => "split_2d_loads",
    };
    stats.add(stat, 1);
    stats.add("split_pieces", pieces);
    Ok(())
}

/// Whether `ptr` is a CrossWorkgroup pointer to an integer scalar; its pointee width in bytes.
fn crossworkgroup_int_pointee(m: &Module, ptr: Id) -> Option<u32> {
    let t = m.def_inst(m.type_of(ptr)?)?;
    if !t.is(Op::TypePointer) || t.operand_word(0) != Some(StorageClass::CrossWorkgroup as u32) {
        return None;
    }
    let p = m.def_inst(t.operand_id(1)?)?;
    p.is(Op::TypeInt)
        .then(|| p.operand_word(0).map(|b| b / 8))
        .flatten()
}

/// `OpSubgroupBlockPrefetchINTEL` with byte counts the target ignores.
/// `list`: the module's `OpSubgroupBlockPrefetchINTEL`s in layout order.
fn buffer_prefetches(
    m: &mut Module,
    target: &Target,
    list: &[InstId],
    stats: &mut Statistics,
    types: &mut Interner,
    changes: &mut Changes,
) {
    let honoured = target.prefetch_byte_sizes();
    for &at in list {
        let inst = m.inst(at);
        let (Some(ptr), Some(nb)) = (inst.operand_id(0), inst.operand_id(1)) else {
            continue;
        };
        let memory_operands: Vec<u32> = inst.operands().get(2..).unwrap_or(&[]).to_vec();
        let Some(n) = m.const_int_value(nb) else {
            continue;
        };
        if (n <= u64::from(u32::MAX) && honoured.contains(&(n as u32))) || !changes.allow() {
            continue;
        }
        // Greedy: the largest honoured size that fits, repeatedly.
        let mut sizes = Vec::new();
        let mut left = n;
        while left > 0 && sizes.len() <= MAX_PIECES as usize {
            match honoured
                .iter()
                .copied()
                .filter(|&s| u64::from(s) <= left)
                .max()
            {
                Some(s) => {
                    sizes.push(s);
                    left -= u64::from(s);
                }
                None => break,
            }
        }
        let pointee = crossworkgroup_int_pointee(m, ptr);
        let exact = left == 0 && sizes.len() <= MAX_PIECES as usize;
        if !exact || pointee.is_none() || pointee == Some(0) {
            m.erase(at);
            stats.add("dropped_buffer_prefetches", 1);
            continue;
        }
        let elem_bytes = pointee.unwrap_or(1);
        let ptr_ty = m.type_of(ptr).unwrap_or(ptr);
        let decorations: Vec<Vec<u32>> = m
            .section_insts(Section::Annotation)
            .filter(|(_, d)| d.is(Op::Decorate) && d.operands().first() == Some(&ptr.word()))
            .map(|(_, d)| d.operands()[1..].to_vec())
            .collect();
        let mut offset = 0u64;
        let nb_ty = m.type_of(nb).unwrap_or(nb);
        for s in sizes {
            let p = if offset == 0 {
                ptr
            } else if offset.is_multiple_of(u64::from(elem_bytes)) {
                let off = types.int_const(m, nb_ty, offset / u64::from(elem_bytes));
                let q = m.fresh_id();
                m.insert_before(
                    at,
                    Inst::new(
                        Op::InBoundsPtrAccessChain,
                        Some(ptr_ty),
                        Some(q),
                        &[ptr.word(), off.word()],
                    ),
                );
                for d in &decorations {
                    let mut w = vec![q.word()];
                    w.extend_from_slice(d);
                    m.push_to_section(Section::Annotation, Inst::new(Op::Decorate, None, None, &w));
                }
                q
            } else {
                // Offsets always fall on elements: honoured sizes are ≥ the element size for
                // the pointee types IGC accepts; anything else is only a prefetch, drop it.
                break;
            };
            let sc = types.int_const(m, nb_ty, u64::from(s));
            let mut w = vec![p.word(), sc.word()];
            w.extend_from_slice(&memory_operands);
            m.insert_before(
                at,
                Inst::new(Op::SubgroupBlockPrefetchINTEL, None, None, &w),
            );
            offset += u64::from(s);
        }
        m.erase(at);
        stats.add("split_buffer_prefetches", 1);
    }
}
