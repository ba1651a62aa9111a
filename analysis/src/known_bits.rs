//! Known-zero bits of integer scalars (a small part of LLVM's `computeKnownBits`).
//!
//! For each integer value we keep a mask of bits that are 0 in every execution. The transfer
//! functions are the textbook ones: constants are exact; `and` unions the zeros, `or`/`xor`
//! intersect them; shifts by constants move them (filling with known zeros); zero-extension adds
//! the new high bits; additions and multiplications keep trailing zeros (min / sum) and bound the
//! highest possibly-set bit; selects and phis intersect their inputs. Values not yet visited
//! (loop back edges, as the driver visits blocks in reverse post-order) count as "nothing known",
//! so the result is sound without iteration. The induction analysis uses it to prove that an
//! `OpBitwiseOr` of two values is an addition (no common possibly-set bit), which is how Triton
//! writes `base | 32*i`.

use spirv::Op;
use spvopt_ir::{Id, Inst, Module};

use crate::operands::op_of;
use crate::types::int_width;

/// All-ones mask of `w` bits.
pub fn width_mask(w: u32) -> u64 {
    if w >= 64 {
        u64::MAX
    } else {
        (1u64 << w) - 1
    }
}

/// Known-zero bits, dense by id, stored compactly as the number of low bits and of high bits
/// (of a 64-bit word) known to be zero; the few masks with known zeros in the middle
/// (`(x & 31) | (y << 7)`) are kept whole in a side table. Two bytes per id.
#[derive(Clone, Debug, Default)]
pub struct KnownBits {
    zeros: Vec<[u8; 2]>,
    irregular: crate::fxhash::FxHashMap<Id, u64>,
}

impl KnownBits {
    /// An empty table for ids below `bound`.
    pub fn new(bound: usize) -> KnownBits {
        KnownBits {
            zeros: vec![[0, 0]; bound],
            irregular: Default::default(),
        }
    }

    /// Bits of `id` known to be zero (0 = nothing known).
    pub fn known_zero(&self, id: Id) -> u64 {
        let [tz, lz] = self.zeros.get(id.index()).copied().unwrap_or([0, 0]);
        if tz == u8::MAX {
            return self.irregular.get(&id).copied().unwrap_or(0);
        }
        let low = width_mask(u32::from(tz));
        let high = if lz == 0 {
            0
        } else {
            !width_mask(64 - u32::from(lz).min(64))
        };
        low | high
    }

    /// Records known zeros `z` for a value of width `w` (bits at and above `w` count as zero).
    fn set(&mut self, id: Id, z: u64, w: u32) {
        let full = z | !width_mask(w);
        let tz = full.trailing_ones().min(64) as u8;
        let lz = full.leading_ones().min(64) as u8;
        let Some(slot) = self.zeros.get_mut(id.index()) else {
            return;
        };
        let compact = width_mask(u32::from(tz))
            | if lz == 0 {
                0
            } else {
                !width_mask(64 - u32::from(lz))
            };
        if compact == full {
            *slot = [tz, lz];
        } else {
            *slot = [u8::MAX, 0];
            self.irregular.insert(id, full);
        }
    }

    /// Number of trailing bits of `id` known to be zero.
    pub fn trailing_zeros(&self, id: Id) -> u32 {
        self.known_zero(id).trailing_ones()
    }

    /// Computes the known zeros of `inst`'s result from its operands' current entries.
    pub fn visit(&mut self, m: &Module, inst: &Inst) {
        let Some(ty) = inst.result_type() else { return };
        let Some(w) = int_width(m, ty) else { return };
        self.visit_int(m, inst, w);
    }

    /// [`KnownBits::visit`] for an instruction whose result is an integer of `w` bits.
    pub fn visit_int(&mut self, m: &Module, inst: &Inst, w: u32) {
        let Some(r) = inst.result_id() else { return };
        if w == 0 || w > 64 {
            return;
        }
        let z = self.compute(m, inst, w).unwrap_or(0) & width_mask(w);
        if z != 0 {
            self.set(r, z, w);
        }
    }

    fn compute(&self, m: &Module, inst: &Inst, w: u32) -> Option<u64> {
        let mask = width_mask(w);
        let kz = |k: usize| inst.operand_id(k).map_or(0, |id| self.known_zero(id));
        let shift = |k: usize| -> Option<u32> {
            let v = m.const_int_value(inst.operand_id(k)?)?;
            (v < u64::from(w)).then_some(v as u32)
        };
        let high_unknown = |z: u64| -> u32 {
            // Index of the highest possibly-set bit + 1.
            let ones = !z & mask;
            64 - ones.leading_zeros()
        };
        Some(match op_of(inst)? {
            Op::Constant => {
                let v = m.const_int_value(inst.result_id()?)?;
                !v & mask
            }
            Op::ConstantNull => mask,
            Op::CopyObject | Op::Bitcast => {
                let src = inst.operand_id(0)?;
                let st = m.type_of(src)?;
                if int_width(m, st)? != w {
                    return None;
                }
                kz(0)
            }
            Op::UConvert => {
                let sw = int_width(m, m.type_of(inst.operand_id(0)?)?)?;
                if sw < w {
                    kz(0) | (mask & !width_mask(sw))
                } else {
                    kz(0)
                }
            }
            Op::SConvert => {
                let sw = int_width(m, m.type_of(inst.operand_id(0)?)?)?;
                if sw < w && sw > 0 {
                    let z = kz(0);
                    if z & (1u64 << (sw - 1)) != 0 {
                        z | (mask & !width_mask(sw))
                    } else {
                        z & width_mask(sw)
                    }
                } else {
                    kz(0)
                }
            }
            Op::BitwiseAnd => kz(0) | kz(1),
            Op::BitwiseOr | Op::BitwiseXor => kz(0) & kz(1),
            Op::ShiftLeftLogical => {
                let s = shift(1)?;
                (kz(0) << s) | width_mask(s)
            }
            Op::ShiftRightLogical => {
                let s = shift(1)?;
                ((kz(0) & mask) >> s) | (mask & !(mask >> s))
            }
            Op::ShiftRightArithmetic => {
                let s = shift(1)?;
                let z = kz(0) & mask;
                if z & (1u64 << (w - 1)) != 0 {
                    (z >> s) | (mask & !(mask >> s))
                } else {
                    (z >> s) & (mask >> s)
                }
            }
            Op::IAdd => {
                let (a, b) = (kz(0), kz(1));
                let tz = a.trailing_ones().min(b.trailing_ones()).min(64);
                let hi = high_unknown(a).max(high_unknown(b)) + 1;
                width_mask(tz) | (mask & !width_mask(hi))
            }
            Op::IMul => {
                let (a, b) = (kz(0), kz(1));
                let tz = (a.trailing_ones() + b.trailing_ones()).min(64);
                let hi = high_unknown(a) + high_unknown(b);
                width_mask(tz) | (mask & !width_mask(hi))
            }
            Op::UDiv => {
                let a = kz(0);
                mask & !width_mask(high_unknown(a))
            }
            Op::UMod => {
                let b = m.const_int_value(inst.operand_id(1)?)?;
                let bound_bits = if b.is_power_of_two() {
                    b.trailing_zeros()
                } else {
                    64 - b.leading_zeros()
                };
                kz(0) | (mask & !width_mask(bound_bits))
            }
            Op::Select => kz(1) & kz(2),
            Op::Phi => {
                let ops = inst.operands();
                let mut z = mask;
                for pair in ops.chunks(2) {
                    z &= Id::new(pair[0]).map_or(0, |id| self.known_zero(id));
                }
                z
            }
            _ => return None,
        })
    }
}
