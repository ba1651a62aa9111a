//! Scalar arithmetic on raw bits, as `ops` executes it per component: integer binary
//! operations (wrapping; division by zero and signed overflow are undefined behaviour and
//! reported), float binary operations (f16 through f32, rounded once) and the numeric
//! conversions with saturation and FPRoundingMode.

use std::cmp::Ordering;

use spvopt_ir::spirv::Op;

use crate::components::Comp;
use crate::error::SimError;
use crate::values::*;

fn ub(msg: impl Into<String>) -> SimError {
    SimError::Undefined(msg.into())
}

pub(crate) fn int_bin(op: Op, x: u64, y: u64, bits: u32, ybits: u32) -> Result<u64, SimError> {
    let xs = sext(x, bits);
    let ys = sext(y, bits);
    let xm = mask(x, bits);
    let ym = mask(y, bits);
    Ok(match op {
        Op::IAdd => x.wrapping_add(y),
        Op::ISub => x.wrapping_sub(y),
        Op::IMul => x.wrapping_mul(y),
        Op::UDiv | Op::UMod => {
            if ym == 0 {
                return Err(ub(format!("{op:?}: division by zero")));
            }
            if op == Op::UDiv {
                xm / ym
            } else {
                xm % ym
            }
        }
        Op::SDiv | Op::SRem | Op::SMod => {
            if ys == 0 {
                return Err(ub(format!("{op:?}: division by zero")));
            }
            let min = if bits >= 64 {
                i64::MIN
            } else {
                -(1i64 << (bits - 1))
            };
            if xs == min && ys == -1 {
                return Err(ub(format!("{op:?}: signed overflow ({xs} / -1)")));
            }
            match op {
                Op::SDiv => (xs / ys) as u64,
                Op::SRem => (xs % ys) as u64,
                _ => {
                    let r = xs % ys;
                    (if r != 0 && ((r < 0) != (ys < 0)) {
                        r + ys
                    } else {
                        r
                    }) as u64
                }
            }
        }
        Op::ShiftLeftLogical | Op::ShiftRightLogical | Op::ShiftRightArithmetic => {
            let s = mask(y, ybits);
            if s >= bits as u64 {
                return Err(ub(format!(
                    "{op:?}: shift by {s} is not less than the width {bits}"
                )));
            }
            match op {
                Op::ShiftLeftLogical => x << s,
                Op::ShiftRightLogical => xm >> s,
                _ => (xs >> s) as u64,
            }
        }
        Op::BitwiseAnd => x & y,
        Op::BitwiseOr => x | y,
        _ => x ^ y,
    })
}

/// A binary float op on raw bits of `bits` width.
pub fn float_bin(op: Op, x: u64, y: u64, bits: u32) -> u64 {
    if bits == 64 {
        let (a, b) = (f64::from_bits(x), f64::from_bits(y));
        return fop64(op, a, b).to_bits();
    }
    let (a, b) = (f_get(x, bits) as f32, f_get(y, bits) as f32);
    let r = match op {
        Op::FAdd => a + b,
        Op::FSub => a - b,
        Op::FMul => a * b,
        Op::FDiv => a / b,
        Op::FRem => a % b,
        Op::FMod => {
            let r = a % b;
            if r != 0.0 && (r < 0.0) != (b < 0.0) {
                r + b
            } else if r == 0.0 {
                // the CPU runtime returns a zero with the sign of operand 2
                0.0f32.copysign(b)
            } else {
                r
            }
        }
        _ => f32::NAN,
    };
    f32_to_width(r, bits)
}

fn fop64(op: Op, a: f64, b: f64) -> f64 {
    match op {
        Op::FAdd => a + b,
        Op::FSub => a - b,
        Op::FMul => a * b,
        Op::FDiv => a / b,
        Op::FRem => a % b,
        Op::FMod => {
            let r = a % b;
            if r != 0.0 && (r < 0.0) != (b < 0.0) {
                r + b
            } else if r == 0.0 {
                0.0f64.copysign(b)
            } else {
                r
            }
        }
        _ => f64::NAN,
    }
}

/// Converts one component.
pub fn convert(op: Op, x: u64, ac: Comp, rc: Comp, sat: bool, mode: Option<u32>) -> u64 {
    match op {
        Op::ConvertFToU | Op::ConvertFToS => {
            let v = f_get(x, ac.fw());
            let v = match mode {
                Some(0) => v.round_ties_even(),
                Some(2) => v.ceil(),
                Some(3) => v.floor(),
                _ => v.trunc(),
            };
            let signed = op == Op::ConvertFToS;
            let (lo, hi) = int_range(rc.bits, signed);
            let r: i128 = if v.is_nan() {
                0
            } else if v <= lo as f64 {
                lo
            } else if v >= hi as f64 {
                hi
            } else {
                v as i128
            };
            let _ = sat; // out-of-range conversions are undefined without it; we saturate
            mask(r as u64, rc.bits)
        }
        Op::ConvertSToF | Op::ConvertUToF => {
            let xi: i128 = if op == Op::ConvertSToF {
                sext(x, ac.bits) as i128
            } else {
                mask(x, ac.bits) as i128
            };
            int_to_float(xi, rc.fw(), mode.unwrap_or(0))
        }
        Op::UConvert | Op::ConvertPtrToU | Op::ConvertUToPtr => {
            let v = mask(x, ac.bits);
            if sat && rc.bits < ac.bits {
                v.min(mask(u64::MAX, rc.bits))
            } else {
                mask(v, rc.bits)
            }
        }
        Op::SConvert => {
            let v = sext(x, ac.bits);
            if sat && rc.bits < ac.bits {
                let (lo, hi) = int_range(rc.bits, true);
                mask((v as i128).clamp(lo, hi) as u64, rc.bits)
            } else {
                mask(v as u64, rc.bits)
            }
        }
        Op::SatConvertSToU => {
            let v = sext(x, ac.bits) as i128;
            let (lo, hi) = int_range(rc.bits, false);
            mask(v.clamp(lo, hi) as u64, rc.bits)
        }
        Op::SatConvertUToS => {
            let v = mask(x, ac.bits) as i128;
            let (lo, hi) = int_range(rc.bits, true);
            mask(v.clamp(lo, hi) as u64, rc.bits)
        }
        _ => {
            // FConvert (bf16 <-> f16 rounds both ways: neither holds the other)
            let v = f_get(x, ac.fw());
            let nearest = f_put(v, rc.fw());
            let exact = rc.bits > ac.bits || rc.fw() == ac.fw() || (rc.bits == 32 && ac.bf16);
            if exact || v.is_nan() {
                if v.is_nan() {
                    return nan_convert(x, ac.fw(), rc.fw());
                }
                return nearest;
            }
            round_with_mode(nearest, rc.fw(), mode.unwrap_or(0), |c| {
                c.partial_cmp(&v).unwrap_or(Ordering::Equal)
            })
        }
    }
}

/// NaN conversions keep the sign and payload (widening) or the quiet bit (narrowing).
fn nan_convert(x: u64, from: u32, to: u32) -> u64 {
    f_put(f_get(x, from), to)
}

fn int_range(bits: u32, signed: bool) -> (i128, i128) {
    if signed {
        (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
    } else {
        (0, (1i128 << bits) - 1)
    }
}

/// Converts an integer to a float of format code `bits` ([`crate::values::BF16`] for
/// bfloat16) with rounding mode `mode`.
pub fn int_to_float(xi: i128, bits: u32, mode: u32) -> u64 {
    // nearest-even via f64 is exact for |x| < 2^53; above, go through i128 -> f32/f64 carefully
    let nearest = match bits {
        64 => (xi as f64).to_bits(),
        32 => (xi as f32).to_bits() as u64,
        // f16 and bf16 through f32: the double rounding is harmless (f16's range is below
        // 2^16; for bf16, 24 ≥ 2·8 + 2 bits)
        w => f_put(xi as f32 as f64, w),
    };
    round_with_mode(nearest, bits, mode, |c| {
        // compare candidate float c against exact integer xi
        if c.is_infinite() {
            return if c > 0.0 {
                Ordering::Greater
            } else {
                Ordering::Less
            };
        }
        let ci = c as i128; // exact when |c| >= 2^53 (integer-valued); for small values compare floats
        if c.abs() < 9.0e15 {
            c.partial_cmp(&(xi as f64)).unwrap_or(Ordering::Equal)
        } else {
            ci.cmp(&xi)
        }
    })
}
