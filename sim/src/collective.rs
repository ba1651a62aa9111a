//! Collective instructions: KHR non-uniform subgroup ops, OpGroup* (subgroup and work-group
//! scope), SPV_INTEL_subgroups shuffles and block IO, SPV_INTEL_subgroup_buffer_prefetch,
//! SPV_INTEL_2d_block_io, SPV_INTEL_subgroup_matrix_multiply_accumulate, and the OpenCL
//! builtins compilers call instead (`intel_sub_group_2d_block_*`, `intel_sub_group_*_matrix_mad_k*`).
//!
//! Non-uniform ops run for the active invocations; the Intel ops require the whole subgroup and
//! dynamically uniform operands (except per-invocation data, shuffle indices and the Function
//! pointers of 2D block IO); violations are undefined behaviour and reported.

use spvopt_ir::spirv::{self, Op};

use crate::block_io_2d::{self, Block2dOp, Block2dParams, LoadKind};
use crate::error::SimError;
use crate::machine::{full_mask, lanes, Machine, Sg};
use crate::mma::{self, MmaDesc, ScalarType, VectorType};
use crate::ops::{self, Comp, Kind};
use crate::program::Ty;
use crate::subgroup::Subgroup;
use crate::values::*;

fn uerr(msg: impl Into<String>) -> SimError {
    SimError::Undefined(msg.into())
}

/// Whether `op` is executed by [`Machine::collective`].
pub fn is_collective(op: Op) -> bool {
    use Op::*;
    matches!(
        op,
        GroupNonUniformElect
            | GroupNonUniformAll
            | GroupNonUniformAny
            | GroupNonUniformAllEqual
            | GroupNonUniformBroadcast
            | GroupNonUniformBroadcastFirst
            | GroupNonUniformBallot
            | GroupNonUniformInverseBallot
            | GroupNonUniformBallotBitExtract
            | GroupNonUniformBallotBitCount
            | GroupNonUniformBallotFindLSB
            | GroupNonUniformBallotFindMSB
            | GroupNonUniformShuffle
            | GroupNonUniformShuffleXor
            | GroupNonUniformShuffleUp
            | GroupNonUniformShuffleDown
            | GroupNonUniformRotateKHR
            | GroupNonUniformIAdd
            | GroupNonUniformFAdd
            | GroupNonUniformIMul
            | GroupNonUniformFMul
            | GroupNonUniformSMin
            | GroupNonUniformUMin
            | GroupNonUniformFMin
            | GroupNonUniformSMax
            | GroupNonUniformUMax
            | GroupNonUniformFMax
            | GroupNonUniformBitwiseAnd
            | GroupNonUniformBitwiseOr
            | GroupNonUniformBitwiseXor
            | GroupNonUniformLogicalAnd
            | GroupNonUniformLogicalOr
            | GroupNonUniformLogicalXor
            | GroupAll
            | GroupAny
            | GroupBroadcast
            | GroupIAdd
            | GroupFAdd
            | GroupFMin
            | GroupUMin
            | GroupSMin
            | GroupFMax
            | GroupUMax
            | GroupSMax
            | GroupIMulKHR
            | GroupFMulKHR
            | GroupBitwiseAndKHR
            | GroupBitwiseOrKHR
            | GroupBitwiseXorKHR
            | GroupLogicalAndKHR
            | GroupLogicalOrKHR
            | GroupLogicalXorKHR
            | SubgroupShuffleINTEL
            | SubgroupShuffleDownINTEL
            | SubgroupShuffleUpINTEL
            | SubgroupShuffleXorINTEL
            | SubgroupBlockReadINTEL
            | SubgroupBlockWriteINTEL
            | SubgroupBlockPrefetchINTEL
            | Subgroup2DBlockLoadINTEL
            | Subgroup2DBlockLoadTransformINTEL
            | Subgroup2DBlockLoadTransposeINTEL
            | Subgroup2DBlockStoreINTEL
            | Subgroup2DBlockPrefetchINTEL
            | SubgroupMatrixMultiplyAccumulateINTEL
            | SubgroupBallotKHR
            | SubgroupFirstInvocationKHR
            | SubgroupAllKHR
            | SubgroupAnyKHR
            | SubgroupAllEqualKHR
            | SubgroupReadInvocationKHR
    )
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Red {
    IAdd,
    FAdd,
    IMul,
    FMul,
    SMin,
    UMin,
    FMin,
    SMax,
    UMax,
    FMax,
    And,
    Or,
    Xor,
    LAnd,
    LOr,
    LXor,
}

fn red_of(op: Op) -> Option<Red> {
    use Op::*;
    Some(match op {
        GroupNonUniformIAdd | GroupIAdd => Red::IAdd,
        GroupNonUniformFAdd | GroupFAdd => Red::FAdd,
        GroupNonUniformIMul | GroupIMulKHR => Red::IMul,
        GroupNonUniformFMul | GroupFMulKHR => Red::FMul,
        GroupNonUniformSMin | GroupSMin => Red::SMin,
        GroupNonUniformUMin | GroupUMin => Red::UMin,
        GroupNonUniformFMin | GroupFMin => Red::FMin,
        GroupNonUniformSMax | GroupSMax => Red::SMax,
        GroupNonUniformUMax | GroupUMax => Red::UMax,
        GroupNonUniformFMax | GroupFMax => Red::FMax,
        GroupNonUniformBitwiseAnd | GroupBitwiseAndKHR => Red::And,
        GroupNonUniformBitwiseOr | GroupBitwiseOrKHR => Red::Or,
        GroupNonUniformBitwiseXor | GroupBitwiseXorKHR => Red::Xor,
        GroupNonUniformLogicalAnd | GroupLogicalAndKHR => Red::LAnd,
        GroupNonUniformLogicalOr | GroupLogicalOrKHR => Red::LOr,
        GroupNonUniformLogicalXor | GroupLogicalXorKHR => Red::LXor,
        _ => return None,
    })
}

fn identity(r: Red, c: Comp) -> u64 {
    let bits = c.bits;
    match r {
        Red::IAdd | Red::Or | Red::Xor | Red::UMax | Red::LOr | Red::LXor => 0,
        Red::FAdd => f_put(0.0, bits),
        Red::IMul => 1,
        Red::FMul => f_put(1.0, bits),
        Red::SMin => mask(i64::MAX as u64 >> (64 - bits), bits),
        Red::UMin | Red::And => mask(u64::MAX, bits),
        Red::LAnd => 1,
        Red::FMin => f_put(f64::INFINITY, bits),
        Red::SMax => mask(1u64 << (bits - 1), bits),
        Red::FMax => f_put(f64::NEG_INFINITY, bits),
    }
}

fn combine(r: Red, x: u64, y: u64, c: Comp) -> u64 {
    let bits = c.bits;
    let (sx, sy) = (sext(x, bits), sext(y, bits));
    let (ux, uy) = (mask(x, bits), mask(y, bits));
    let v = match r {
        Red::IAdd => x.wrapping_add(y),
        Red::IMul => x.wrapping_mul(y),
        Red::FAdd => ops::float_bin(Op::FAdd, x, y, bits),
        Red::FMul => ops::float_bin(Op::FMul, x, y, bits),
        Red::SMin => sx.min(sy) as u64,
        Red::SMax => sx.max(sy) as u64,
        Red::UMin => ux.min(uy),
        Red::UMax => ux.max(uy),
        Red::FMin | Red::FMax => {
            let (a, b) = (f_get(x, bits), f_get(y, bits));
            if a.is_nan() {
                y
            } else if b.is_nan() {
                x
            } else if (r == Red::FMin && b < a) || (r == Red::FMax && b > a) {
                y
            } else {
                x
            }
        }
        Red::And => x & y,
        Red::Or => x | y,
        Red::Xor => x ^ y,
        Red::LAnd => ((x != 0) && (y != 0)) as u64,
        Red::LOr => ((x != 0) || (y != 0)) as u64,
        Red::LXor => ((x != 0) != (y != 0)) as u64,
    };
    mask(v, bits)
}

/// Reduce / scan over `vals` (in invocation order). `gop`: 0 reduce, 1 inclusive scan,
/// 2 exclusive scan, 3 clustered reduce (`cluster` invocations by index).
fn group_arith(
    r: Red,
    gop: u32,
    cluster: usize,
    vals: &[(usize, Vec<u8>)],
    c: Comp,
    n: usize,
) -> Vec<Vec<u8>> {
    let size = c.bytes * n;
    let mut out = vec![vec![0u8; size]; vals.len()];
    for comp in 0..n {
        let xs: Vec<u64> = vals.iter().map(|(_, v)| rd(v, c.bytes, comp)).collect();
        match gop {
            0 => {
                let mut acc = identity(r, c);
                for (i, &x) in xs.iter().enumerate() {
                    acc = if i == 0 { x } else { combine(r, acc, x, c) };
                }
                for o in out.iter_mut() {
                    wr(o, c.bytes, comp, acc);
                }
            }
            1 | 2 => {
                let mut acc = identity(r, c);
                for (i, &x) in xs.iter().enumerate() {
                    if gop == 2 {
                        wr(&mut out[i], c.bytes, comp, acc);
                    }
                    acc = if i == 0 && gop == 1 {
                        x
                    } else {
                        combine(r, acc, x, c)
                    };
                    if gop == 1 {
                        wr(&mut out[i], c.bytes, comp, acc);
                    }
                }
            }
            _ => {
                let cl = cluster.max(1);
                for (i, (lane, _)) in vals.iter().enumerate() {
                    let g = lane / cl;
                    let mut acc: Option<u64> = None;
                    for (j, (l2, _)) in vals.iter().enumerate() {
                        if l2 / cl == g {
                            acc = Some(match acc {
                                None => xs[j],
                                Some(a) => combine(r, a, xs[j], c),
                            });
                        }
                    }
                    wr(&mut out[i], c.bytes, comp, acc.unwrap_or(0));
                }
            }
        }
    }
    out
}

/// Parsed `intel_sub_group_2d_block_<kind>_<E>b_<H>r<W>x<C>c`.
fn parse_block2d_name(name: &str) -> Option<(Block2dOp, u32, u32, u32, u32)> {
    let at = name.find("intel_sub_group_2d_block_")?;
    let rest = &name[at + "intel_sub_group_2d_block_".len()..];
    let (op, rest) = [
        ("read_transform_", Block2dOp::LoadTransform),
        ("read_transpose_", Block2dOp::LoadTranspose),
        ("read_", Block2dOp::Load),
        ("write_", Block2dOp::Store),
        ("prefetch_", Block2dOp::Prefetch),
    ]
    .iter()
    .find_map(|(p, op)| rest.strip_prefix(p).map(|r| (*op, r)))?;
    let num = |s: &str| -> Option<(u32, usize)> {
        let d: String = s.chars().take_while(|c| c.is_ascii_digit()).collect();
        Some((d.parse().ok()?, d.len()))
    };
    let (bits, k) = num(rest)?;
    let rest = rest[k..].strip_prefix("b_")?;
    let (h, k) = num(rest)?;
    let rest = rest[k..].strip_prefix('r')?;
    let (w, k) = num(rest)?;
    let rest = rest[k..].strip_prefix('x')?;
    let (c, k) = num(rest)?;
    rest[k..].strip_prefix('c')?;
    Some((op, bits / 8, w, h, c))
}

/// Parsed `intel_sub_group_<a>_<b>_matrix_mad_k<K>`: operand bits (A/B interpretation) and K.
fn parse_mma_name(name: &str) -> Option<(u32, u32)> {
    use mma::operands::*;
    let at = name.find("intel_sub_group_")?;
    let rest = &name[at + "intel_sub_group_".len()..];
    let mid = rest.find("_matrix_mad_k")?;
    let types = &rest[..mid];
    let kstr: String = rest[mid + "_matrix_mad_k".len()..]
        .chars()
        .take_while(|c| c.is_ascii_digit())
        .collect();
    let k: u32 = kstr.parse().ok()?;
    let (a, b) = types.split_once('_')?;
    let side = |t: &str, is_a: bool| -> Option<u32> {
        Some(match (t, is_a) {
            ("i8", true) => MATRIX_A_SIGNED_COMPONENTS | MATRIX_A_PACKED_INT8,
            ("u8", true) => MATRIX_A_PACKED_INT8,
            ("i4", true) => MATRIX_A_SIGNED_COMPONENTS | MATRIX_A_PACKED_INT4,
            ("u4", true) => MATRIX_A_PACKED_INT4,
            ("f16", true) => MATRIX_A_PACKED_FLOAT16,
            ("bf16", true) => MATRIX_A_PACKED_BFLOAT16,
            ("tf32", true) => MATRIX_A_TF32,
            ("i8", false) => MATRIX_B_SIGNED_COMPONENTS | MATRIX_B_PACKED_INT8,
            ("u8", false) => MATRIX_B_PACKED_INT8,
            ("i4", false) => MATRIX_B_SIGNED_COMPONENTS | MATRIX_B_PACKED_INT4,
            ("u4", false) => MATRIX_B_PACKED_INT4,
            ("f16", false) => MATRIX_B_PACKED_FLOAT16,
            ("bf16", false) => MATRIX_B_PACKED_BFLOAT16,
            ("tf32", false) => MATRIX_B_TF32,
            _ => return None,
        })
    };
    Some((side(a, true)? | side(b, false)?, k))
}

fn block2d_kind_name(op: Block2dOp) -> &'static str {
    match op {
        Block2dOp::Load => "load",
        Block2dOp::LoadTransform => "load_transform",
        Block2dOp::LoadTranspose => "load_transpose",
        Block2dOp::Store => "store",
        Block2dOp::Prefetch => "prefetch",
    }
}

impl<'p> Machine<'p> {
    fn sg_shape(&self, sg: &Sg) -> Subgroup {
        Subgroup {
            size: sg.n as u32,
            max_size: self.sgsize,
        }
    }

    /// The value of `id`, checked to be the same in every lane of `mask`.
    fn uniform(&self, sg: &Sg, id: u32, mask: u64, what: &str) -> Result<Vec<u8>, SimError> {
        let first = mask.trailing_zeros() as usize;
        let v = self.val(sg, id, first).to_vec();
        for lane in lanes(mask) {
            if self.val(sg, id, lane) != v.as_slice() {
                return Err(uerr(format!(
                    "{what} is not dynamically uniform (invocations {first} and {lane} differ)"
                )));
            }
        }
        Ok(v)
    }

    fn uniform_i64(&self, sg: &Sg, id: u32, mask: u64, what: &str) -> Result<i64, SimError> {
        let v = self.uniform(sg, id, mask, what)?;
        let bits = (v.len().min(8) * 8) as u32;
        Ok(sext(rd(&v, v.len().min(8), 0), bits.max(8)))
    }

    fn vector_type(&self, ty: u32) -> Result<VectorType, SimError> {
        let (e, n) = self.p.components(ty)?;
        let c = match self.p.ty(e)?.ty {
            Ty::Int { width, .. } => ScalarType::Int(width),
            Ty::Float { width } => ScalarType::Float(width),
            _ => return Err(SimError::Module("MMA operand of non-numeric type".into())),
        };
        Ok(if matches!(self.p.ty(ty)?.ty, Ty::Vector { .. }) {
            VectorType::vector(c, n)
        } else {
            VectorType::scalar(c)
        })
    }

    /// Executes a subgroup collective. Returns `Ok(true)` when the instruction is a
    /// work-group collective the scheduler must complete across subgroups.
    pub(crate) fn collective(
        &mut self,
        sg: &mut Sg,
        inst: &crate::program::DInst,
        mask: u64,
    ) -> Result<bool, SimError> {
        let p = self.p;
        let w = &inst.w;
        let op = inst.op;
        let op_name = format!("Op{op:?}");
        let is_group = matches!(
            op,
            Op::GroupAll
                | Op::GroupAny
                | Op::GroupBroadcast
                | Op::GroupIAdd
                | Op::GroupFAdd
                | Op::GroupFMin
                | Op::GroupUMin
                | Op::GroupSMin
                | Op::GroupFMax
                | Op::GroupUMax
                | Op::GroupSMax
                | Op::GroupIMulKHR
                | Op::GroupFMulKHR
                | Op::GroupBitwiseAndKHR
                | Op::GroupBitwiseOrKHR
                | Op::GroupBitwiseXorKHR
                | Op::GroupLogicalAndKHR
                | Op::GroupLogicalOrKHR
                | Op::GroupLogicalXorKHR
        );
        if is_group {
            let scope = self.const_u64(w[0])?;
            self.require_full(sg, mask, &op_name)?;
            if scope == spirv::Scope::Workgroup as u64 {
                return Ok(true);
            }
        }
        let name = op_name.as_str();
        let res = inst.res;
        let sgn = sg.n;
        match op {
            Op::GroupNonUniformElect => {
                let first = mask.trailing_zeros() as usize;
                for lane in lanes(mask) {
                    self.set(sg, res, lane, &[(lane == first) as u8]);
                }
            }
            Op::GroupNonUniformAll
            | Op::GroupNonUniformAny
            | Op::GroupAll
            | Op::GroupAny
            | Op::SubgroupAllKHR
            | Op::SubgroupAnyKHR => {
                let pid = if matches!(op, Op::SubgroupAllKHR | Op::SubgroupAnyKHR) {
                    w[0]
                } else {
                    w[1]
                };
                let vals: Vec<bool> = lanes(mask)
                    .map(|l| self.val(sg, pid, l).first().copied().unwrap_or(0) != 0)
                    .collect();
                let all = matches!(
                    op,
                    Op::GroupNonUniformAll | Op::GroupAll | Op::SubgroupAllKHR
                );
                let r = if all {
                    vals.iter().all(|&x| x)
                } else {
                    vals.iter().any(|&x| x)
                };
                for lane in lanes(mask) {
                    self.set(sg, res, lane, &[r as u8]);
                }
            }
            Op::GroupNonUniformAllEqual | Op::SubgroupAllEqualKHR => {
                let vid = if op == Op::SubgroupAllEqualKHR {
                    w[0]
                } else {
                    w[1]
                };
                let first = self.val(sg, vid, mask.trailing_zeros() as usize).to_vec();
                let vty = p.vty.get(vid as usize).copied().unwrap_or(0);
                let is_float = p
                    .components(vty)
                    .map(|(e, _)| p.is_float(e))
                    .unwrap_or(false);
                let (c, n) = ops::vcomp(p, vty)?;
                let r = lanes(mask).all(|l| {
                    let v = self.val(sg, vid, l);
                    if is_float {
                        (0..n).all(|i| {
                            f_get(rd(v, c.bytes, i), c.bits)
                                == f_get(rd(&first, c.bytes, i), c.bits)
                        })
                    } else {
                        v == first.as_slice()
                    }
                });
                for lane in lanes(mask) {
                    self.set(sg, res, lane, &[r as u8]);
                }
            }
            Op::GroupNonUniformBroadcast
            | Op::GroupNonUniformBroadcastFirst
            | Op::GroupBroadcast
            | Op::SubgroupFirstInvocationKHR
            | Op::SubgroupReadInvocationKHR => {
                let (vid, src) = match op {
                    Op::GroupNonUniformBroadcastFirst => (w[1], mask.trailing_zeros() as usize),
                    Op::SubgroupFirstInvocationKHR => (w[0], mask.trailing_zeros() as usize),
                    Op::SubgroupReadInvocationKHR => {
                        let i = self.uniform_i64(sg, w[1], mask, name)?;
                        (w[0], i as usize)
                    }
                    _ => {
                        let i = self.uniform_i64(sg, w[2], mask, name)?;
                        (w[1], i as usize)
                    }
                };
                if src >= sgn || mask >> src & 1 == 0 {
                    return Err(uerr(format!("{name}: invocation {src} is not active")));
                }
                let v = self.val(sg, vid, src).to_vec();
                for lane in lanes(mask) {
                    self.set(sg, res, lane, &v);
                }
            }
            Op::GroupNonUniformBallot | Op::SubgroupBallotKHR => {
                let pid = if op == Op::SubgroupBallotKHR {
                    w[0]
                } else {
                    w[1]
                };
                let mut bits = [0u8; 16];
                for lane in lanes(mask) {
                    if self.val(sg, pid, lane).first().copied().unwrap_or(0) != 0 {
                        bits[lane / 8] |= 1 << (lane % 8);
                    }
                }
                for lane in lanes(mask) {
                    self.set(sg, res, lane, &bits);
                }
            }
            Op::GroupNonUniformInverseBallot => {
                for lane in lanes(mask) {
                    let v = self.val(sg, w[1], lane);
                    let b = v.get(lane / 8).map_or(0, |x| x >> (lane % 8) & 1);
                    self.set(sg, res, lane, &[b]);
                }
            }
            Op::GroupNonUniformBallotBitExtract => {
                for lane in lanes(mask) {
                    let v = self.val(sg, w[1], lane).to_vec();
                    let i = self.val_u64(sg, w[2], lane) as usize;
                    let b = v.get(i / 8).map_or(0, |x| x >> (i % 8) & 1);
                    self.set(sg, res, lane, &[b]);
                }
            }
            Op::GroupNonUniformBallotBitCount => {
                let gop = w[1];
                let rsize = p.locs[res as usize].size as usize;
                for lane in lanes(mask) {
                    let v = self.val(sg, w[2], lane);
                    let mut bits = 0u128;
                    for (i, b) in v.iter().take(16).enumerate() {
                        bits |= (*b as u128) << (8 * i);
                    }
                    let bits = bits & ((1u128 << sgn.min(127)) - 1);
                    let count = match gop {
                        1 => (bits & ((2u128 << lane) - 1)).count_ones(),
                        2 => (bits & ((1u128 << lane) - 1)).count_ones(),
                        _ => bits.count_ones(),
                    };
                    self.set(sg, res, lane, &(count as u64).to_le_bytes()[..rsize.min(8)]);
                }
            }
            Op::GroupNonUniformBallotFindLSB | Op::GroupNonUniformBallotFindMSB => {
                let rsize = p.locs[res as usize].size as usize;
                for lane in lanes(mask) {
                    let v = self.val(sg, w[1], lane);
                    let mut bits = 0u128;
                    for (i, b) in v.iter().take(16).enumerate() {
                        bits |= (*b as u128) << (8 * i);
                    }
                    let r = if bits == 0 {
                        u64::MAX
                    } else if op == Op::GroupNonUniformBallotFindLSB {
                        bits.trailing_zeros() as u64
                    } else {
                        127 - bits.leading_zeros() as u64
                    };
                    self.set(sg, res, lane, &r.to_le_bytes()[..rsize.min(8)]);
                }
            }
            Op::GroupNonUniformShuffle
            | Op::GroupNonUniformShuffleXor
            | Op::GroupNonUniformShuffleUp
            | Op::GroupNonUniformShuffleDown
            | Op::GroupNonUniformRotateKHR => {
                let cluster = if op == Op::GroupNonUniformRotateKHR {
                    w.get(3).map(|&c| self.const_u64(c)).transpose()?
                } else {
                    None
                };
                let mut outs = Vec::new();
                for lane in lanes(mask) {
                    let x = self.val_u64(sg, w[2], lane) as i64;
                    let src = match op {
                        Op::GroupNonUniformShuffle => x,
                        Op::GroupNonUniformShuffleXor => lane as i64 ^ x,
                        Op::GroupNonUniformShuffleUp => lane as i64 - x,
                        Op::GroupNonUniformShuffleDown => lane as i64 + x,
                        _ => {
                            let cs = cluster.unwrap_or(sgn as u64).max(1) as i64;
                            let base = lane as i64 / cs * cs;
                            base + (lane as i64 - base + x).rem_euclid(cs)
                        }
                    };
                    let v = if src >= 0 && (src as usize) < sgn && mask >> src & 1 == 1 {
                        self.val(sg, w[1], src as usize).to_vec()
                    } else {
                        // reading an inactive or missing invocation gives an undefined value
                        vec![0u8; p.locs[res as usize].size as usize]
                    };
                    outs.push((lane, v));
                }
                for (lane, v) in outs {
                    self.set(sg, res, lane, &v);
                }
            }
            Op::SubgroupShuffleINTEL
            | Op::SubgroupShuffleDownINTEL
            | Op::SubgroupShuffleUpINTEL
            | Op::SubgroupShuffleXorINTEL => {
                self.require_full(sg, mask, name)?;
                let n = sgn as i64;
                let max = self.sgsize as i64;
                let mut outs = Vec::new();
                for lane in lanes(mask) {
                    self.set_err_lane(lane);
                    let l = lane as i64;
                    let (src_id, src) = match op {
                        Op::SubgroupShuffleINTEL => (w[0], self.val_u64(sg, w[1], lane) as i64),
                        Op::SubgroupShuffleXorINTEL => {
                            (w[0], l ^ self.val_u64(sg, w[1], lane) as i64)
                        }
                        Op::SubgroupShuffleDownINTEL => {
                            let d = self.val_u64(sg, w[2], lane) as i64;
                            if l + d < max {
                                (w[0], l + d)
                            } else {
                                (w[1], l + d - max)
                            }
                        }
                        _ => {
                            let d = self.val_u64(sg, w[2], lane) as i64;
                            if l - d >= 0 {
                                (w[1], l - d)
                            } else {
                                (w[0], l - d + max)
                            }
                        }
                    };
                    if !(0..n).contains(&src) {
                        return Err(uerr(format!(
                            "{name}: invocation {lane} reads invocation {src} outside the subgroup"
                        )));
                    }
                    outs.push((lane, self.val(sg, src_id, src as usize).to_vec()));
                }
                for (lane, v) in outs {
                    self.set(sg, res, lane, &v);
                }
            }
            Op::SubgroupBlockReadINTEL => {
                self.require_full(sg, mask, name)?;
                let ptr = self.uniform_i64(sg, w[0], mask, "OpSubgroupBlockReadINTEL Ptr")? as u64;
                let (c, n) = ops::vcomp(p, inst.ty)?;
                let r = crate::block_io_1d::block_read(
                    &self.mem,
                    ptr,
                    c.bytes as u32,
                    n as u32,
                    self.sg_shape(sg),
                )?;
                self.counters.block_reads_1d += 1;
                for (lane, d) in r.data.iter().enumerate() {
                    self.set(sg, res, lane, d);
                }
            }
            Op::SubgroupBlockWriteINTEL => {
                self.require_full(sg, mask, name)?;
                let ptr = self.uniform_i64(sg, w[0], mask, "OpSubgroupBlockWriteINTEL Ptr")? as u64;
                let dty = p.vty.get(w[1] as usize).copied().unwrap_or(0);
                let (c, n) = ops::vcomp(p, dty)?;
                let data: Vec<Vec<u8>> = (0..sgn).map(|l| self.val(sg, w[1], l).to_vec()).collect();
                let shape = self.sg_shape(sg);
                crate::block_io_1d::block_write(
                    &mut self.mem,
                    ptr,
                    c.bytes as u32,
                    n as u32,
                    shape,
                    &data,
                )?;
                self.counters.block_writes_1d += 1;
            }
            Op::SubgroupBlockPrefetchINTEL => {
                self.require_full(sg, mask, name)?;
                let ptr = self.uniform_i64(sg, w[0], mask, "OpSubgroupBlockPrefetchINTEL Ptr")?;
                let nb =
                    self.uniform_i64(sg, w[1], mask, "OpSubgroupBlockPrefetchINTEL NumBytes")?;
                let r = crate::block_prefetch_1d::block_prefetch(
                    ptr as u64,
                    nb.clamp(0, u32::MAX as i64) as u32,
                    self.sg_shape(sg),
                )?;
                if !r.ignored {
                    self.counters.prefetches += 1;
                    self.counters.prefetched_bytes += r.bytes;
                    self.prefetched.extend(r.lines);
                }
            }
            Op::Subgroup2DBlockLoadINTEL
            | Op::Subgroup2DBlockLoadTransformINTEL
            | Op::Subgroup2DBlockLoadTransposeINTEL
            | Op::Subgroup2DBlockStoreINTEL
            | Op::Subgroup2DBlockPrefetchINTEL => {
                let kind = match op {
                    Op::Subgroup2DBlockLoadINTEL => Block2dOp::Load,
                    Op::Subgroup2DBlockLoadTransformINTEL => Block2dOp::LoadTransform,
                    Op::Subgroup2DBlockLoadTransposeINTEL => Block2dOp::LoadTranspose,
                    Op::Subgroup2DBlockStoreINTEL => Block2dOp::Store,
                    _ => Block2dOp::Prefetch,
                };
                let es = self.const_u64(w[0])? as u32;
                let bw = self.const_u64(w[1])? as u32;
                let bh = self.const_u64(w[2])? as u32;
                let bc = self.const_u64(w[3])? as u32;
                let (base, mwi, ptr) = match kind {
                    Block2dOp::Store => (w[5], 6, Some(w[4])),
                    Block2dOp::Prefetch => (w[4], 5, None),
                    _ => (w[4], 5, w.get(9).copied()),
                };
                self.block2d(
                    sg,
                    mask,
                    kind,
                    [es, bw, bh, bc],
                    base,
                    [w[mwi], w[mwi + 1], w[mwi + 2], w[mwi + 3]],
                    ptr,
                )?;
            }
            Op::SubgroupMatrixMultiplyAccumulateINTEL => {
                let k = self.const_u64(w[0])? as u32;
                let operands = w.get(4).copied().unwrap_or(0);
                self.mma(sg, mask, k, operands, [w[1], w[2], w[3]], inst.ty, res)?;
            }
            _ => {
                // remaining: reductions and scans
                let red = red_of(op).ok_or_else(|| ops::not_implemented(inst))?;
                let gop = w[1];
                let vid = w[2];
                let cluster = if gop == 3 {
                    w.get(3)
                        .map(|&c| self.const_u64(c))
                        .transpose()?
                        .unwrap_or(1) as usize
                } else {
                    0
                };
                let vty = p.vty.get(vid as usize).copied().unwrap_or(0);
                let (c, n) = ops::vcomp(p, vty)?;
                let vals: Vec<(usize, Vec<u8>)> = lanes(mask)
                    .map(|l| (l, self.val(sg, vid, l).to_vec()))
                    .collect();
                let outs = group_arith(red, gop, cluster, &vals, c, n);
                for ((lane, _), o) in vals.iter().zip(outs) {
                    self.set(sg, res, *lane, &o);
                }
            }
        }
        Ok(false)
    }

    fn set_err_lane(&mut self, _lane: usize) {}

    /// A 2D block operation with its shape operands already constant-folded.
    #[allow(clippy::too_many_arguments)]
    fn block2d(
        &mut self,
        sg: &mut Sg,
        mask: u64,
        kind: Block2dOp,
        shape: [u32; 4],
        base_id: u32,
        region: [u32; 4],
        ptr_id: Option<u32>,
    ) -> Result<(), SimError> {
        let name = kind.name();
        self.require_full(sg, mask, name)?;
        let base = self.uniform_i64(sg, base_id, mask, &format!("{name} base pointer"))? as u64;
        let mw = self.uniform_i64(sg, region[0], mask, &format!("{name} Memory Width"))?;
        let mh = self.uniform_i64(sg, region[1], mask, &format!("{name} Memory Height"))?;
        let mp = self.uniform_i64(sg, region[2], mask, &format!("{name} Memory Pitch"))?;
        let coord = self.uniform(sg, region[3], mask, &format!("{name} Coordinate"))?;
        let cty = self.p.vty.get(region[3] as usize).copied().unwrap_or(0);
        let (cc, _) = ops::vcomp(self.p, cty)?;
        let x = sext(rd(&coord, cc.bytes, 0), cc.bits);
        let y = sext(rd(&coord, cc.bytes, 1), cc.bits);
        let params = Block2dParams {
            element_size: shape[0],
            block_width: shape[1],
            block_height: shape[2],
            block_count: shape[3],
            base,
            memory_width: mw,
            memory_height: mh,
            memory_pitch: mp,
            x,
            y,
            mapping: self.block_layout,
        };
        let shape_sg = self.sg_shape(sg);
        let key = format!(
            "{} {}b {}r{}x{}c",
            block2d_kind_name(kind),
            shape[0] * 8,
            shape[2],
            shape[1],
            shape[3]
        );
        match kind {
            Block2dOp::Prefetch => {
                let r = block_io_2d::prefetch(&params, shape_sg)?;
                self.counters.prefetches += 1;
                self.counters.prefetched_bytes += r.bytes;
                let e = self.counters.block2d.entry(key).or_default();
                e.ops += 1;
                e.bytes += r.bytes;
                self.prefetched.extend(r.lines);
            }
            Block2dOp::Store => {
                let lay = block_io_2d::layout(kind, &params, shape_sg)?;
                let ptr_id =
                    ptr_id.ok_or_else(|| SimError::Module("store without source".into()))?;
                let mut src = Vec::with_capacity(sg.n);
                for lane in 0..sg.n {
                    let addr = self.val_u64(sg, ptr_id, lane);
                    block_io_2d::check_invocation_pointer(kind, &params, addr)?;
                    let mut buf = vec![0u8; lay.bytes_per_invocation];
                    self.read_mem(sg, lane, addr, &mut buf)?;
                    src.push(buf);
                }
                let r = block_io_2d::store(&mut self.mem, &params, shape_sg, &src)?;
                let e = self.counters.block2d.entry(key).or_default();
                e.ops += 1;
                e.bytes += r.bytes;
            }
            _ => {
                let lk = match kind {
                    Block2dOp::LoadTransform => LoadKind::Transform,
                    Block2dOp::LoadTranspose => LoadKind::Transpose,
                    _ => LoadKind::Plain,
                };
                let r = block_io_2d::load(&self.mem, lk, &params, shape_sg)?;
                let ptr_id =
                    ptr_id.ok_or_else(|| SimError::Module("load without destination".into()))?;
                for lane in 0..sg.n {
                    let addr = self.val_u64(sg, ptr_id, lane);
                    block_io_2d::check_invocation_pointer(kind, &params, addr)?;
                    self.write_mem(addr, &r.data[lane])?;
                }
                let covered = r
                    .lines
                    .iter()
                    .filter(|l| self.prefetched.contains(l))
                    .count();
                self.counters.lines_loaded_2d += r.lines.len() as u64;
                self.counters.lines_prefetched_before_load += covered as u64;
                let e = self.counters.block2d.entry(key).or_default();
                e.ops += 1;
                e.bytes += r.bytes;
            }
        }
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    fn mma(
        &mut self,
        sg: &mut Sg,
        mask: u64,
        k: u32,
        operands: u32,
        abc: [u32; 3],
        rty: u32,
        res: u32,
    ) -> Result<(), SimError> {
        self.require_full(sg, mask, "OpSubgroupMatrixMultiplyAccumulateINTEL")?;
        let p = self.p;
        let ty = |id: u32| p.vty.get(id as usize).copied().unwrap_or(0);
        let desc = MmaDesc {
            k_dim: k,
            operands,
            a: self.vector_type(ty(abc[0]))?,
            b: self.vector_type(ty(abc[1]))?,
            c: self.vector_type(ty(abc[2]))?,
            result: self.vector_type(rty)?,
            subgroup_size: sg.n as u32,
        };
        let get =
            |id: u32| -> Vec<Vec<u8>> { (0..sg.n).map(|l| self.val(sg, id, l).to_vec()).collect() };
        let (a, b, c) = (get(abc[0]), get(abc[1]), get(abc[2]));
        let out = mma::multiply_accumulate(&desc, &a, &b, &c)?;
        let plan = mma::plan(&desc)?;
        let key = format!(
            "m{}n{}k{} A {:?} B {:?} C {:?} R {:?}",
            plan.m,
            plan.n,
            plan.k,
            plan.a_element,
            plan.b_element,
            plan.c_element,
            plan.result_element
        );
        *self.counters.mma.entry(key).or_default() += 1;
        for (lane, d) in out.iter().enumerate() {
            self.set(sg, res, lane, d);
        }
        Ok(())
    }

    /// A call to an imported function: the Intel OpenCL builtins.
    pub(crate) fn builtin_call(
        &mut self,
        sg: &mut Sg,
        inst: &crate::program::DInst,
        mask: u64,
        callee: usize,
        name: &str,
    ) -> Result<(), SimError> {
        let p = self.p;
        let args: Vec<u32> = inst.w[1..].to_vec();
        if let Some((kind, es, bw, bh, bc)) = parse_block2d_name(name) {
            if args.len() < 5 {
                return Err(SimError::Module(format!("{name}: too few arguments")));
            }
            return self.block2d(
                sg,
                mask,
                kind,
                [es, bw, bh, bc],
                args[0],
                [args[1], args[2], args[3], args[4]],
                args.get(5).copied(),
            );
        }
        if let Some((mut operands, k)) = parse_mma_name(name) {
            if args.len() != 3 {
                return Err(SimError::Module(format!("{name}: expected 3 arguments")));
            }
            let f = &p.funcs[callee];
            let cty = p.vty.get(args[2] as usize).copied().unwrap_or(0);
            let is_int16 = |t: u32| {
                p.components(t)
                    .ok()
                    .and_then(|(e, _)| p.ty(e).ok().map(|x| x.ty.clone()))
                    .is_some_and(|t| matches!(t, Ty::Int { width: 16, .. }))
            };
            let float_ab = operands
                & (mma::operands::MATRIX_A_PACKED_BFLOAT16
                    | mma::operands::MATRIX_A_PACKED_FLOAT16
                    | mma::operands::MATRIX_A_TF32)
                != 0;
            if float_ab && is_int16(cty) {
                operands |= mma::operands::MATRIX_C_BFLOAT16;
            }
            if float_ab && is_int16(f.ret_ty) {
                operands |= mma::operands::MATRIX_RESULT_BFLOAT16;
            }
            return self.mma(
                sg,
                mask,
                k,
                operands,
                [args[0], args[1], args[2]],
                f.ret_ty,
                inst.res,
            );
        }
        let _ = Kind::Int;
        Err(SimError::Unsupported(format!(
            "call to imported function `{name}`, which the simulator does not know"
        )))
    }

    /// Completes a work-group-scope OpGroup* instruction for all subgroups.
    pub(crate) fn wg_collective(
        &mut self,
        sgs: &mut [Sg],
        inst: &crate::program::DInst,
    ) -> Result<(), SimError> {
        let p = self.p;
        let w = &inst.w;
        let res = inst.res;
        // gather per invocation in linear order
        let vid = match inst.op {
            Op::GroupAll | Op::GroupAny | Op::GroupBroadcast => w[1],
            _ => w[2],
        };
        let mut vals: Vec<(usize, Vec<u8>)> = Vec::new();
        for sg in sgs.iter() {
            for lane in 0..sg.n {
                vals.push((sg.lin0 + lane, self.val(sg, vid, lane).to_vec()));
            }
        }
        let outs: Vec<Vec<u8>> = match inst.op {
            Op::GroupAll | Op::GroupAny => {
                let r = if inst.op == Op::GroupAll {
                    vals.iter()
                        .all(|(_, v)| v.first().copied().unwrap_or(0) != 0)
                } else {
                    vals.iter()
                        .any(|(_, v)| v.first().copied().unwrap_or(0) != 0)
                };
                vec![vec![r as u8]; vals.len()]
            }
            Op::GroupBroadcast => {
                // LocalId: scalar, or 2/3-component vector of the local id
                let sg0 = &sgs[0];
                let lid = self.val(sg0, w[2], 0).to_vec();
                for sg in sgs.iter() {
                    for lane in 0..sg.n {
                        if self.val(sg, w[2], lane) != lid.as_slice() {
                            return Err(uerr("OpGroupBroadcast LocalId is not uniform"));
                        }
                    }
                }
                let lty = p.vty.get(w[2] as usize).copied().unwrap_or(0);
                let (c, n) = ops::vcomp(p, lty)?;
                let mut id = [0u64; 3];
                for (i, x) in id.iter_mut().enumerate().take(n) {
                    *x = rd(&lid, c.bytes, i);
                }
                let lin = id[0] + self.local_size()[0] * (id[1] + self.local_size()[1] * id[2]);
                let v = vals
                    .iter()
                    .find(|(l, _)| *l as u64 == lin)
                    .map(|x| x.1.clone())
                    .ok_or_else(|| uerr("OpGroupBroadcast: LocalId outside the work-group"))?;
                vec![v; vals.len()]
            }
            op => {
                let red = red_of(op).ok_or_else(|| ops::not_implemented(inst))?;
                let vty = p.vty.get(vid as usize).copied().unwrap_or(0);
                let (c, n) = ops::vcomp(p, vty)?;
                group_arith(red, w[1], 0, &vals, c, n)
            }
        };
        let mut k = 0;
        for sg in sgs.iter_mut() {
            for lane in 0..sg.n {
                self.set(sg, res, lane, &outs[k]);
                k += 1;
            }
        }
        let _ = full_mask;
        Ok(())
    }
}
