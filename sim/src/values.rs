//! Little-endian component access over value bytes, and float helpers shared by the
//! interpreter (f16 through [`crate::numeric`], rounding modes, ulp steps).

use crate::numeric::{bf16_to_f32, f16_to_f32, f32_to_bf16, f32_to_f16, f64_to_bf16, f64_to_f16};

/// The float format code of bfloat16 (`OpTypeFloat 16 BFloat16KHR`) where the float helpers
/// below take a `width`: 16 storage bits like IEEE half (16), with 8 exponent and 7 mantissa
/// bits. [`crate::program::Comp::fw`] gives a component's code.
pub const BF16: u32 = 16 | 0x100;

/// The storage bits of a float format code (16 for [`BF16`]).
#[inline]
pub const fn storage_bits(width: u32) -> u32 {
    width & 0xff
}

/// Component `i` of `bytes`-byte components, zero-extended (0 when out of range).
#[inline]
pub fn rd(b: &[u8], bytes: usize, i: usize) -> u64 {
    let at = i * bytes;
    match bytes {
        1 => b.get(at).copied().unwrap_or(0) as u64,
        2 => b
            .get(at..at + 2)
            .map_or(0, |s| u16::from_le_bytes([s[0], s[1]]) as u64),
        4 => b
            .get(at..at + 4)
            .map_or(0, |s| u32::from_le_bytes([s[0], s[1], s[2], s[3]]) as u64),
        8 => b.get(at..at + 8).map_or(0, |s| {
            let mut v = [0u8; 8];
            v.copy_from_slice(s);
            u64::from_le_bytes(v)
        }),
        _ => 0,
    }
}

/// Writes component `i` (ignored when out of range).
#[inline]
pub fn wr(b: &mut [u8], bytes: usize, i: usize, v: u64) {
    let at = i * bytes;
    // At most the 8 bytes of `v` (a component wider than 64 bits gets its low bytes).
    let n = bytes.min(8);
    if let Some(s) = b.get_mut(at..at + n) {
        s.copy_from_slice(&v.to_le_bytes()[..n]);
    }
}

/// Sign-extends the low `bits` of `v`.
#[inline]
pub fn sext(v: u64, bits: u32) -> i64 {
    if bits >= 64 {
        v as i64
    } else if bits == 0 {
        0
    } else {
        ((v << (64 - bits)) as i64) >> (64 - bits)
    }
}

/// Keeps the low `bits` of `v`.
#[inline]
pub fn mask(v: u64, bits: u32) -> u64 {
    if bits >= 64 {
        v
    } else {
        v & ((1u64 << bits) - 1)
    }
}

/// A float component decoded to f64 (exact for f16/bf16/f32/f64).
#[inline]
pub fn f_get(bits: u64, width: u32) -> f64 {
    match width {
        16 => f16_to_f32(bits as u16) as f64,
        BF16 => bf16_to_f32(bits as u16) as f64,
        32 => f32::from_bits(bits as u32) as f64,
        _ => f64::from_bits(bits),
    }
}

/// Rounds an f64 to a float of `width` (nearest even) and returns its bits.
#[inline]
pub fn f_put(x: f64, width: u32) -> u64 {
    match width {
        16 => f64_to_f16(x) as u64,
        BF16 => f64_to_bf16(x) as u64,
        32 => (x as f32).to_bits() as u64,
        _ => x.to_bits(),
    }
}

/// Rounds an f32 result to f16 bits (f32 results of f16 operands).
#[inline]
pub fn f32_to_width(x: f32, width: u32) -> u64 {
    match width {
        16 => f32_to_f16(x) as u64,
        BF16 => f32_to_bf16(x) as u64,
        32 => x.to_bits() as u64,
        _ => (x as f64).to_bits(),
    }
}

/// The next representable float of `width` after `bits` toward +inf (`up`) or -inf.
pub fn f_step(bits: u64, width: u32, up: bool) -> u64 {
    let sign_bit = 1u64 << (storage_bits(width) - 1);
    let mag = bits & (sign_bit - 1);
    let neg = bits & sign_bit != 0;
    let x = f_get(bits, width);
    if x.is_nan() {
        return bits;
    }
    if mag == 0 {
        return if up { 1 } else { sign_bit | 1 };
    }
    // moving away from zero increments the magnitude
    if up != neg {
        bits + 1
    } else {
        bits - 1
    }
}

/// Rounds the exact value `x` (given as f64 plus a comparison function against candidates)
/// to a float of `width` under rounding mode `mode` (0 RTE, 1 RTZ, 2 RTP, 3 RTN).
/// `cmp(candidate)` returns the ordering of the candidate against the exact value.
pub fn round_with_mode(
    nearest: u64,
    width: u32,
    mode: u32,
    cmp: impl Fn(f64) -> std::cmp::Ordering,
) -> u64 {
    use std::cmp::Ordering::*;
    let r = f_get(nearest, width);
    if r.is_nan() {
        return nearest;
    }
    match mode {
        1 => {
            let o = cmp(r);
            if (r > 0.0 && o == Greater) || (r < 0.0 && o == Less) {
                f_step(nearest, width, r < 0.0)
            } else {
                nearest
            }
        }
        2 if cmp(r) == Less => f_step(nearest, width, true),
        3 if cmp(r) == Greater => f_step(nearest, width, false),
        _ => nearest,
    }
}

/// Ordered integer encoding distance of two floats of `width` (for ulp comparisons).
pub fn ulp_distance(a: u64, b: u64, width: u32) -> u64 {
    let fa = f_get(a, width);
    let fb = f_get(b, width);
    if fa.is_nan() && fb.is_nan() {
        return 0;
    }
    if fa.is_nan() || fb.is_nan() {
        return u64::MAX;
    }
    let key = |v: u64| -> i128 {
        let sign = 1u64 << (storage_bits(width) - 1);
        if v & sign != 0 {
            -((v & (sign - 1)) as i128)
        } else {
            v as i128
        }
    };
    (key(a) - key(b)).unsigned_abs() as u64
}
