//! Splitting one MMA onto the target's atoms (same subgroup size, same types).
//!
//! * Rows: the M rows are cut into chunks of 8, 4, 2, 1 rows. Chunk `[r0, r0 + m)` takes
//!   components `r0 ..` of C and (N ≤ K) of A — component r of A is row r — or (N > K, tf32)
//!   A's slots `r0/g ..` (`g = N/K`, r0 a multiple of g, so slot s of the chunk is original
//!   slot `r0/g + s` with the same invocation grouping). B is shared by every chunk. The
//!   chunks' results are concatenated.
//! * K: with K = j·K' (K' the atom's K), the chunk's product is a chain of j atoms, atom t
//!   computing `acc_t = A[:, tK' .. (t+1)K') · B[tK' .. (t+1)K', :] + acc_{t-1}`,
//!   `acc_{-1} = C`. B's rows `tK' ..` are bits `tK'·e ..` of each invocation's own B, i.e.
//!   whole components (checked by the plan): one `OpVectorShuffle`. A must be repacked: with
//!   `c = K/N` columns per invocation in the original and `c' = K'/N` in the atom, atom
//!   invocation i needs original columns `tK' + i·c' .. + c'`, which invocation
//!   `(tN + i) / j` holds at element offset `((tN + i) mod j)·c'` of each row: one
//!   `OpSubgroupShuffleINTEL` per row (of the row as an integer of ≤ 64 bits) and a shift.
//!
//! Why exact: row chunks compute disjoint rows from the same data. A chain is the sequential
//! sum in k order with the accumulator kept in the Result type between atoms, which for
//! f32 and integer results is the same value as one MMA (integers wrap identically; the
//! simulator's f32 model accumulates k in order in f32); f16/bf16 accumulators would round
//! between atoms, so the plan emulates those instead.

use spirv::Op;
use spvopt_ir::{Id, Interner, Module};

use super::build::Builder;
use super::plan::{ALayout, Mma};

/// Emits the atoms of `mma` before it; returns the id of the full Result value (of `mma`'s
/// Result type) built from the chunks, and the number of atoms.
pub fn split(
    b: &mut Builder,
    mma: &Mma,
    rows: &[(u32, u32)],
    k_chunks: u32,
    atom_k: u32,
    lane: Option<(Id, Id)>,
) -> (Vec<Id>, u32) {
    let sg = mma.sg;
    let atom_kc = b.u32c(atom_k);
    let u32t = b.uint(32);
    // B chunks, shared by all row chunks.
    let b_per_chunk = atom_k * mma.b_elem.bits() / mma.b.bits;
    let bs: Vec<Id> = (0..k_chunks)
        .map(|t| b.sub_vector(mma.b_id, &mma.b, t * b_per_chunk, b_per_chunk))
        .collect();
    // Repacking of A for K chains: source invocation and shift of chunk t.
    let ea = mma.a_elem.bits();
    let piece_bits = (atom_k / sg).max(1) * ea;
    let repack: Vec<(Id, Id)> = match (k_chunks > 1, lane) {
        (true, Some((lane_id, _))) => (0..k_chunks)
            .map(|t| {
                let base = b.u32c(t * sg);
                let j = b.u32c(k_chunks);
                let pb = b.u32c(piece_bits);
                let x = b.val(Op::IAdd, u32t, &[lane_id.word(), base.word()]);
                let src = b.val(Op::UDiv, u32t, &[x.word(), j.word()]);
                let part = b.val(Op::UMod, u32t, &[x.word(), j.word()]);
                let sh = b.val(Op::IMul, u32t, &[part.word(), pb.word()]);
                (src, sh)
            })
            .collect(),
        _ => Vec::new(),
    };
    let mut parts = Vec::with_capacity(rows.len());
    let mut atoms = 0;
    for &(r0, mc) in rows {
        let rt = b.vector(mma.r.component, mc);
        let mut acc = b.sub_vector(mma.c_id, &mma.c, r0, mc);
        // A of each k chunk.
        let a_chunks: Vec<Id> = if k_chunks == 1 {
            let a = match mma.a_layout {
                ALayout::Columns { .. } => b.sub_vector(mma.a_id, &mma.a, r0, mc),
                ALayout::RowGroups { groups } => {
                    b.sub_vector(mma.a_id, &mma.a, r0 / groups, mc.div_ceil(groups))
                }
            };
            vec![a]
        } else {
            let row_u = b.uint(mma.a.bits);
            let piece_t = b.uint(piece_bits);
            let rows_u: Vec<Id> = (r0..r0 + mc)
                .map(|r| b.component_bits(mma.a_id, &mma.a, r))
                .collect();
            let mut chunks = Vec::with_capacity(k_chunks as usize);
            for &(src, sh) in &repack {
                // The shift amount in the shifted value's width (see emulate.rs).
                let sh = if row_u == u32t {
                    sh
                } else {
                    b.val(Op::UConvert, row_u, &[sh.word()])
                };
                let mut pieces: Vec<Id> = Vec::with_capacity(rows_u.len());
                for &row in &rows_u {
                    let got = b.shuffle(row_u, row, src);
                    let shifted = b.val(Op::ShiftRightLogical, row_u, &[got.word(), sh.word()]);
                    pieces.push(b.val(Op::UConvert, piece_t, &[shifted.word()]));
                }
                chunks.push(match pieces.as_slice() {
                    [one] => *one,
                    _ => {
                        let vt = b.vector(piece_t, mc);
                        let words: Vec<u32> = pieces.iter().map(|p| p.word()).collect();
                        b.val(Op::CompositeConstruct, vt, &words)
                    }
                });
            }
            chunks
        };
        for (t, a) in a_chunks.into_iter().enumerate() {
            let mut ops = vec![atom_kc.word(), a.word(), bs[t].word(), acc.word()];
            if mma.mask != 0 {
                ops.push(mma.mask);
            }
            acc = b.val(Op::SubgroupMatrixMultiplyAccumulateINTEL, rt, &ops);
            atoms += 1;
        }
        parts.push(acc);
    }
    (parts, atoms)
}

/// The lane id (`SubgroupLocalInvocationId` as u32) loaded before the MMA, for K chains.
pub fn load_lane(m: &mut Module, types: &mut Interner, at: spvopt_ir::InstId) -> Option<(Id, Id)> {
    let var = crate::edit::variables::lane_variable(m, types);
    let var_ty = m.type_of(var)?;
    let pointee = m.def_inst(var_ty)?.operand_id(1)?;
    let width = m.def_inst(pointee)?.operand_word(0)?;
    let mut b = Builder { m, types, at };
    let raw = b.val(Op::Load, pointee, &[var.word()]);
    let u32t = b.uint(32);
    let lane = if width == 32 {
        b.bitcast(raw, pointee, u32t)
    } else {
        b.val(Op::UConvert, u32t, &[raw.word()])
    };
    Some((lane, var))
}
