//! `OpCooperativeMatrixMulAddKHR` as chains of `OpSubgroupMatrixMultiplyAccumulateINTEL`.
//!
//! With A (M x K), B (K x N), C (M x N) in the Columns deals ([`Distribution`]) — A packed
//! `K_atom / SG` columns per invocation, B and C one column per invocation — the product splits
//! into atoms of `m = min(M, 8)` rows, `SG` columns and `K_atom = 32 bytes` of K. Atom (mb, nb)
//! starts from C's slots `nb·M + mb·m ..` (m of them), and for each K step kb multiplies A's slots
//! `kb·M·P + mb·m·P ..` (m·P of them, bitcast to m values of P·bits: the "N less than or equal
//! to K" A layout) by B's slots `nb·K + kb·K_atom ..` (K_atom of them, bitcast to 32-bit values:
//! the VNNI layout), accumulating through C. The result is the atoms concatenated in C's slot
//! order. Shapes or types outside this (M not a multiple of the atom rows, K not a multiple
//! of `K_atom`, N not a multiple of SG, other deals, saturating accumulation) are reported.
//! Element types: f16 (`MatrixAPackedFloat16INTEL`), bf16 (`…BFloat16…`), 8-bit integers
//! (`…PackedInt8…`, signedness from the KHR operands). Whether the target has the atom is
//! `lower-mma`'s business (`-O` runs it next).

use spirv::Op;
use spvopt_ir::Id;

use super::builder::Builder;
use super::distribution::{Deal, MMA_K_BYTES};
use super::error::MulAddError;
use super::model::Matrix;

/// KHR Cooperative Matrix Operands.
const KHR_A_SIGNED: u32 = 0x1;
const KHR_B_SIGNED: u32 = 0x2;
const KHR_SATURATING: u32 = 0x10;

/// INTEL Matrix Multiply Accumulate Operands.
const INTEL_A_SIGNED: u32 = 0x1;
const INTEL_B_SIGNED: u32 = 0x2;
const INTEL_A_INT8: u32 = 0x10;
const INTEL_B_INT8: u32 = 0x20;
const INTEL_A_F16: u32 = 0x400;
const INTEL_B_F16: u32 = 0x800;
const INTEL_A_BF16: u32 = 0x1000;
const INTEL_B_BF16: u32 = 0x2000;

/// Element kind of an A/B component type.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum AbKind {
    F16,
    Bf16,
    Int8,
}

/// Emits the MMA chain for `result = a·b + c`, the last instruction defining `result` with the
/// original matrix type `result_ty` (replaced with the rest of the types later).
#[allow(clippy::too_many_arguments)]
pub fn emit(
    b: &mut Builder,
    (ma, a): (&Matrix, Id),
    (mb, bv): (&Matrix, Id),
    (mc, c): (&Matrix, Id),
    ab: AbKind,
    khr_operands: u32,
    (result, result_ty): (Id, Id),
) -> Result<(), MulAddError> {
    if khr_operands & KHR_SATURATING != 0 {
        return Err(MulAddError::Saturating);
    }
    let (m_rows, k, n) = (ma.dist.rows, ma.dist.cols, mc.dist.cols);
    let sg = mc.dist.sg;
    let bits = ma.bytes * 8;
    let k_atom = MMA_K_BYTES * 8 / bits;
    let pack = match ma.dist.deal {
        Deal::Columns { pack } if pack * sg == k_atom => pack,
        _ => {
            return Err(MulAddError::ANotMmaLayout {
                rows: m_rows,
                k,
                bits,
                sg,
            })
        }
    };
    if mb.dist.deal != (Deal::Columns { pack: 1 }) || mc.dist.deal != (Deal::Columns { pack: 1 }) {
        return Err(MulAddError::NotColumnPerInvocation {
            rows: m_rows,
            k,
            n,
            sg,
        });
    }
    if k % k_atom != 0 {
        return Err(MulAddError::KNotAtomMultiple { k, k_atom, bits });
    }
    let atom_m = m_rows.min(8);
    if atom_m < 2 || m_rows % atom_m != 0 {
        return Err(MulAddError::MNotAtoms { rows: m_rows });
    }
    let mut ops = match ab {
        AbKind::F16 => INTEL_A_F16 | INTEL_B_F16,
        AbKind::Bf16 => INTEL_A_BF16 | INTEL_B_BF16,
        AbKind::Int8 => INTEL_A_INT8 | INTEL_B_INT8,
    };
    if ab == AbKind::Int8 {
        if khr_operands & KHR_A_SIGNED != 0 {
            ops |= INTEL_A_SIGNED;
        }
        if khr_operands & KHR_B_SIGNED != 0 {
            ops |= INTEL_B_SIGNED;
        }
    }
    // Per-atom types.
    let a_src = b.types.vector(b.m, ma.component, atom_m * pack);
    let a_int = b.types.int(b.m, bits * pack);
    let a_ty = b.types.vector(b.m, a_int, atom_m);
    let b_src = b.types.vector(b.m, mb.component, k_atom);
    let i32t = b.types.int(b.m, 32);
    let b_ty = b.types.vector(b.m, i32t, k_atom * bits / 32);
    let c_ty = b.types.vector(b.m, mc.component, atom_m);
    let kdim = b.c32(k_atom);
    let shuffle = |b: &mut Builder, ty: Id, v: Id, start: u32, len: u32| -> Id {
        let mut w = vec![v.word(), v.word()];
        w.extend(start..start + len);
        b.val(Op::VectorShuffle, ty, &w)
    };
    let mut atoms = Vec::new();
    for nb in 0..n / sg {
        for mbk in 0..m_rows / atom_m {
            let mut acc = shuffle(b, c_ty, c, nb * m_rows + mbk * atom_m, atom_m);
            for kb in 0..k / k_atom {
                let a_part = shuffle(
                    b,
                    a_src,
                    a,
                    kb * m_rows * pack + mbk * atom_m * pack,
                    atom_m * pack,
                );
                let a_op = b.val(Op::Bitcast, a_ty, &[a_part.word()]);
                let b_part = shuffle(b, b_src, bv, nb * k + kb * k_atom, k_atom);
                let b_op = b.val(Op::Bitcast, b_ty, &[b_part.word()]);
                acc = b.val(
                    Op::SubgroupMatrixMultiplyAccumulateINTEL,
                    c_ty,
                    &[kdim.word(), a_op.word(), b_op.word(), acc.word(), ops],
                );
            }
            atoms.push(acc);
        }
    }
    let words: Vec<u32> = atoms.iter().map(|x| x.word()).collect();
    let op = if atoms.len() == 1 {
        Op::CopyObject
    } else {
        Op::CompositeConstruct
    };
    b.with_result(op, result_ty, result, &words);
    Ok(())
}
