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

mod block_and_mma;
mod genisa;
mod payload;

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
    let (bits, fw) = (c.bits, c.fw());
    match r {
        Red::IAdd | Red::Or | Red::Xor | Red::UMax | Red::LOr | Red::LXor => 0,
        Red::FAdd => f_put(0.0, fw),
        Red::IMul => 1,
        Red::FMul => f_put(1.0, fw),
        Red::SMin => mask(i64::MAX as u64 >> (64 - bits), bits),
        Red::UMin | Red::And => mask(u64::MAX, bits),
        Red::LAnd => 1,
        Red::FMin => f_put(f64::INFINITY, fw),
        Red::SMax => mask(1u64 << (bits - 1), bits),
        Red::FMax => f_put(f64::NEG_INFINITY, fw),
    }
}

fn combine(r: Red, x: u64, y: u64, c: Comp) -> u64 {
    let (bits, fw) = (c.bits, c.fw());
    let (sx, sy) = (sext(x, bits), sext(y, bits));
    let (ux, uy) = (mask(x, bits), mask(y, bits));
    let v = match r {
        Red::IAdd => x.wrapping_add(y),
        Red::IMul => x.wrapping_mul(y),
        Red::FAdd => ops::float_bin(Op::FAdd, x, y, fw),
        Red::FMul => ops::float_bin(Op::FMul, x, y, fw),
        Red::SMin => sx.min(sy) as u64,
        Red::SMax => sx.max(sy) as u64,
        Red::UMin => ux.min(uy),
        Red::UMax => ux.max(uy),
        Red::FMin | Red::FMax => {
            let (a, b) = (f_get(x, fw), f_get(y, fw));
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
                            f_get(rd(v, c.bytes, i), c.fw())
                                == f_get(rd(&first, c.bytes, i), c.fw())
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
                let class = self.ptr_class(w[0]);
                self.note(class, ptr, c.bytes * n * sgn);
                self.send(crate::traffic::Access::Load);
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
                let class = self.ptr_class(w[0]);
                self.note(class, ptr, c.bytes * n * sgn);
                self.send(crate::traffic::Access::Store);
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
}
