//! Number formats of the matrix and block instructions: IEEE half (f16), bfloat16 (bf16),
//! TensorFloat-32 (tf32) and packed small integers (int8 / int4), plus little-endian bit-field
//! access over byte buffers.
//!
//! Conversions to a narrower float round to nearest, ties to even (the IEEE default and what
//! OpFConvert means without a rounding decoration), overflow to infinity, and produce subnormals
//! where the format has them. NaN stays NaN: narrowing keeps the sign and the top payload bits and
//! sets the quiet bit (so a NaN whose payload lives only in dropped bits cannot become infinity);
//! widening is exact, payload included.
//!
//! TF32 (`SPV_INTEL_subgroup_matrix_multiply_accumulate`, MatrixATF32INTEL / MatrixBTF32INTEL):
//! the operand is a 32-bit float of which only sign, 8 exponent bits and the top 10 mantissa bits
//! are used; the low 13 mantissa bits are ignored, i.e. truncated, by [`tf32_to_f32`]. The spec
//! does not say the hardware rounds, and DPAS documentation describes the low bits as unused.

/// Number of mantissa bits tf32 drops from an f32.
pub const TF32_DROPPED_BITS: u32 = 13;

/// Widens an IEEE binary16 value to f32 (exact).
pub fn f16_to_f32(bits: u16) -> f32 {
    let sign = ((bits as u32) & 0x8000) << 16;
    let exp = ((bits >> 10) & 0x1f) as u32;
    let man = (bits & 0x3ff) as u32;
    let magnitude = match exp {
        0 => {
            // zero or subnormal: man * 2^-24, exact in f32
            return f32::from_bits(sign | (man as f32 * f32::from_bits(0x3380_0000)).to_bits());
        }
        0x1f => 0x7f80_0000 | (man << 13),
        _ => ((exp + 127 - 15) << 23) | (man << 13),
    };
    f32::from_bits(sign | magnitude)
}

/// Narrows an f32 to IEEE binary16, round to nearest even.
pub fn f32_to_f16(x: f32) -> u16 {
    f64_to_f16(x as f64)
}

/// Narrows an f64 to IEEE binary16 with a single rounding (round to nearest even).
pub fn f64_to_f16(x: f64) -> u16 {
    narrow_f64(x, 5, 10) as u16
}

/// Widens a bfloat16 value to f32 (exact: bf16 is the top half of an f32).
pub fn bf16_to_f32(bits: u16) -> f32 {
    f32::from_bits((bits as u32) << 16)
}

/// Narrows an f32 to bfloat16, round to nearest even.
pub fn f32_to_bf16(x: f32) -> u16 {
    f64_to_bf16(x as f64)
}

/// Narrows an f64 to bfloat16 with a single rounding (round to nearest even).
pub fn f64_to_bf16(x: f64) -> u16 {
    narrow_f64(x, 8, 7) as u16
}

/// Interprets 32 bits as tf32: the f32 they encode with the low 13 mantissa bits ignored.
/// NaN inputs stay NaN even when their payload lies only in the ignored bits.
pub fn tf32_to_f32(bits: u32) -> f32 {
    let x = f32::from_bits(bits);
    if x.is_nan() {
        return f32::from_bits((bits & 0xffff_e000) | 0x0040_0000);
    }
    f32::from_bits(bits & 0xffff_e000)
}

/// Rounds an f32 to the nearest tf32 value (ties to even) and returns it as f32 bits.
pub fn f32_to_tf32(x: f32) -> u32 {
    narrow_f64(x as f64, 8, 10) << TF32_DROPPED_BITS
}

/// Rounds `x` to a binary format with `exp_bits` exponent and `man_bits` stored mantissa bits
/// (at most 8 and 23) and returns its encoding in the low `1 + exp_bits + man_bits` bits.
fn narrow_f64(x: f64, exp_bits: u32, man_bits: u32) -> u32 {
    let bits = x.to_bits();
    let sign = ((bits >> 63) as u32) << (exp_bits + man_bits);
    let exp = ((bits >> 52) & 0x7ff) as i64;
    let man = bits & ((1u64 << 52) - 1);
    let max_exp_field = (1u32 << exp_bits) - 1;
    let inf = sign | (max_exp_field << man_bits);
    if exp == 0x7ff {
        if man == 0 {
            return inf;
        }
        let payload = (man >> (52 - man_bits)) as u32;
        return inf | payload | (1 << (man_bits - 1));
    }
    if exp == 0 {
        // zero, or an f64 subnormal (far below every target format's smallest subnormal)
        return sign;
    }
    let bias = (1i64 << (exp_bits - 1)) - 1;
    let e = exp - 1023; // x = m * 2^(e - 52), m has 53 bits
    let m = man | (1u64 << 52);
    if e > bias {
        return inf;
    }
    let emin = 1 - bias;
    if e >= emin {
        let mut q = round_shift(m, 52 - man_bits);
        let mut e = e;
        if q >> (man_bits + 1) != 0 {
            q >>= 1;
            e += 1;
            if e > bias {
                return inf;
            }
        }
        let field = (e + bias) as u32;
        sign | (field << man_bits) | (q as u32 & ((1 << man_bits) - 1))
    } else {
        // subnormal in the target: q * 2^(emin - man_bits); a carry into bit man_bits is exactly
        // the smallest normal number, whose encoding q already is.
        let shift = (52 - man_bits) as i64 + (emin - e);
        let q = if shift > 64 {
            0
        } else {
            round_shift(m, shift as u32)
        };
        sign | q as u32
    }
}

/// `m / 2^shift` rounded to nearest, ties to even.
fn round_shift(m: u64, shift: u32) -> u64 {
    if shift == 0 {
        return m;
    }
    if shift >= 64 {
        // callers pass m < 2^53: below half of one unit
        return 0;
    }
    let q = m >> shift;
    let rem = m & ((1u64 << shift) - 1);
    let half = 1u64 << (shift - 1);
    if rem > half || (rem == half && q & 1 == 1) {
        q + 1
    } else {
        q
    }
}

/// Sign-extends the low `bits` bits of `value` (1..=64).
pub fn sign_extend(value: u64, bits: u32) -> i64 {
    if bits == 0 {
        return 0;
    }
    if bits >= 64 {
        return value as i64;
    }
    let shift = 64 - bits;
    ((value << shift) as i64) >> shift
}

/// Zero-extends the low `bits` bits of `value` (0..=64).
pub fn zero_extend(value: u64, bits: u32) -> u64 {
    if bits >= 64 {
        value
    } else {
        value & ((1u64 << bits) - 1)
    }
}

/// Reads `bits` (1..=64) bits starting at bit `offset` of a little-endian bit stream (bit 0 is
/// the least significant bit of byte 0). Bits past the end of `bytes` read as zero.
pub fn extract_bits(bytes: &[u8], offset: u64, bits: u32) -> u64 {
    let bits = bits.min(64);
    let mut value = 0u64;
    let mut done = 0u32;
    let mut pos = offset as u128;
    while done < bits {
        let byte_index = pos / 8;
        let bit_in_byte = (pos % 8) as u32;
        let take = (8 - bit_in_byte).min(bits - done);
        let byte = usize::try_from(byte_index)
            .ok()
            .and_then(|i| bytes.get(i))
            .copied()
            .unwrap_or(0) as u64;
        let chunk = (byte >> bit_in_byte) & ((1u64 << take) - 1);
        value |= chunk << done;
        done += take;
        pos += take as u128;
    }
    value
}

/// Writes the low `bits` (1..=64) bits of `value` at bit `offset` of a little-endian bit stream.
/// Bits past the end of `bytes` are dropped.
pub fn insert_bits(bytes: &mut [u8], offset: u64, bits: u32, value: u64) {
    let bits = bits.min(64);
    let mut done = 0u32;
    let mut pos = offset as u128;
    while done < bits {
        let bit_in_byte = (pos % 8) as u32;
        let take = (8 - bit_in_byte).min(bits - done);
        let mask = (((1u16 << take) - 1) as u8) << bit_in_byte;
        let chunk = (((value >> done) as u8) << bit_in_byte) & mask;
        if let Some(b) = usize::try_from(pos / 8).ok().and_then(|i| bytes.get_mut(i)) {
            *b = (*b & !mask) | chunk;
        }
        done += take;
        pos += take as u128;
    }
}

/// Element `index` of a value packing `elem_bits`-bit integers, lowest element in the lowest bits.
pub fn unpack_int(packed: u64, elem_bits: u32, index: u32, signed: bool) -> i64 {
    let shift = elem_bits.saturating_mul(index);
    let raw = if shift >= 64 { 0 } else { packed >> shift };
    if signed {
        sign_extend(raw, elem_bits)
    } else {
        zero_extend(raw, elem_bits) as i64
    }
}

/// The four 8-bit integers packed in a 32-bit value, lowest first.
pub fn unpack_int8x4(packed: u32, signed: bool) -> [i32; 4] {
    std::array::from_fn(|i| unpack_int(packed as u64, 8, i as u32, signed) as i32)
}

/// The eight 4-bit integers packed in a 32-bit value, lowest first.
pub fn unpack_int4x8(packed: u32, signed: bool) -> [i32; 8] {
    std::array::from_fn(|i| unpack_int(packed as u64, 4, i as u32, signed) as i32)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reference f64 -> binary16 by exhaustive nearest search over the finite f16 values.
    fn nearest_f16(x: f64) -> u16 {
        let mut best = 0u16;
        let mut best_err = f64::INFINITY;
        for b in 0..=0x7bffu16 {
            let v = f16_to_f32(b) as f64;
            let err = (v - x.abs()).abs();
            if err < best_err || (err == best_err && b & 1 == 0) {
                best = b;
                best_err = err;
            }
        }
        // overflow: at or beyond max + half ulp rounds to infinity
        if x.abs() >= 65504.0 + 16.0 {
            best = 0x7c00;
        }
        best | if x.is_sign_negative() { 0x8000 } else { 0 }
    }

    #[test]
    fn f16_known_values() {
        assert_eq!(f16_to_f32(0x3c00), 1.0);
        assert_eq!(f16_to_f32(0xc000), -2.0);
        assert_eq!(f16_to_f32(0x7bff), 65504.0);
        assert_eq!(f16_to_f32(0x0001), 2f32.powi(-24));
        assert_eq!(f16_to_f32(0x03ff), 1023.0 * 2f32.powi(-24));
        assert_eq!(f16_to_f32(0x0400), 2f32.powi(-14));
        assert_eq!(f16_to_f32(0x7c00), f32::INFINITY);
        assert_eq!(f16_to_f32(0xfc00), f32::NEG_INFINITY);
        assert!(f16_to_f32(0x7e00).is_nan());
        assert_eq!(f16_to_f32(0x8000).to_bits(), 0x8000_0000);
        assert_eq!(f32_to_f16(1.0), 0x3c00);
        assert_eq!(f32_to_f16(65504.0), 0x7bff);
        assert_eq!(f32_to_f16(65519.99), 0x7bff);
        assert_eq!(f32_to_f16(65520.0), 0x7c00); // tie at max rounds to even = infinity
        assert_eq!(f32_to_f16(1e10), 0x7c00);
        assert_eq!(f32_to_f16(-0.0), 0x8000);
        assert_eq!(f32_to_f16(2f32.powi(-25)), 0x0000); // tie between 0 and min subnormal
        assert_eq!(f32_to_f16(2f32.powi(-25) * 1.5), 0x0001);
        assert_eq!(f32_to_f16(2f32.powi(-24) * 1.5), 0x0002); // tie, to even
        assert_eq!(f32_to_f16(1.0 + 2f32.powi(-11)), 0x3c00); // tie, to even
        assert_eq!(f32_to_f16(1.0 + 3.0 * 2f32.powi(-11)), 0x3c02);
        assert_eq!(f32_to_f16(2f32.powi(-14) * (1.0 - 2f32.powi(-12))), 0x0400); // carry to normal
        assert_eq!(f32_to_f16(f32::NAN) & 0x7e00, 0x7e00);
        // NaN with payload only in the low f32 bits stays NaN
        assert_eq!(f32_to_f16(f32::from_bits(0x7f80_0001)), 0x7e00);
        assert_eq!(f32_to_f16(f32::from_bits(0xff80_0001)), 0xfe00);
    }

    #[test]
    fn f16_roundtrip_exhaustive() {
        for b in 0..=u16::MAX {
            let x = f16_to_f32(b);
            if x.is_nan() {
                assert!(f32_to_f16(x) & 0x7c00 == 0x7c00 && f32_to_f16(x) & 0x3ff != 0);
                continue;
            }
            assert_eq!(f32_to_f16(x), b, "{b:#06x}");
        }
    }

    #[test]
    fn f32_to_f16_matches_reference() {
        let mut seed = 0x1234_5678_9abc_def0u64;
        for _ in 0..600 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            // exponents around the f16 range
            let e = (seed % 50) as i32 - 30;
            let m = 1.0 + ((seed >> 20) % (1 << 23)) as f64 / (1u64 << 23) as f64;
            let x = (m * 2f64.powi(e)) as f32;
            let x = if seed & 1 == 1 { -x } else { x };
            assert_eq!(f32_to_f16(x), nearest_f16(x as f64), "{x:e}");
        }
        // midpoints between neighbouring f16 values: ties to even
        for b in 0x0000..0x7bffu16 {
            let mid = (f16_to_f32(b) as f64 + f16_to_f32(b + 1) as f64) / 2.0;
            let expect = if b & 1 == 0 { b } else { b + 1 };
            assert_eq!(f64_to_f16(mid), expect, "{b:#x}");
        }
    }

    #[test]
    fn bf16_conversions() {
        assert_eq!(bf16_to_f32(0x3f80), 1.0);
        assert_eq!(bf16_to_f32(0xc040), -3.0);
        assert_eq!(f32_to_bf16(1.0), 0x3f80);
        assert_eq!(f32_to_bf16(f32::from_bits(0x3f80_8000)), 0x3f80); // tie, to even
        assert_eq!(f32_to_bf16(f32::from_bits(0x3f81_8000)), 0x3f82); // tie, to even
        assert_eq!(f32_to_bf16(f32::from_bits(0x3f80_8001)), 0x3f81);
        assert_eq!(f32_to_bf16(f32::MAX), 0x7f80); // rounds up to infinity
        assert_eq!(f32_to_bf16(f32::from_bits(0x7f7f_7fff)), 0x7f7f);
        assert_eq!(f32_to_bf16(f32::from_bits(0x0000_8000)), 0x0000); // subnormal tie
        assert_eq!(f32_to_bf16(f32::from_bits(0x0001_8000)), 0x0002);
        assert_eq!(f32_to_bf16(f32::from_bits(0x807f_ffff)), 0x8080); // to min normal
        assert_eq!(f32_to_bf16(f32::from_bits(0x7f80_0001)), 0x7fc0);
        assert_eq!(f32_to_bf16(f32::NEG_INFINITY), 0xff80);
        for b in 0..=u16::MAX {
            let x = bf16_to_f32(b);
            if !x.is_nan() {
                assert_eq!(f32_to_bf16(x), b);
            }
        }
        // agreement with the bit trick (round-half-even on the top 16 bits) for non-NaN
        let mut seed = 99u32;
        for _ in 0..100_000 {
            seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            let x = f32::from_bits(seed);
            if x.is_nan() {
                continue;
            }
            let trick = ((seed as u64 + 0x7fff + ((seed >> 16) & 1) as u64) >> 16) as u16;
            assert_eq!(f32_to_bf16(x), trick, "{seed:#x}");
        }
    }

    #[test]
    fn tf32_ignores_low_bits() {
        assert_eq!(tf32_to_f32(0x3f80_1fff), 1.0);
        assert_eq!(tf32_to_f32(0x3f80_2000), 1.0 + 2f32.powi(-10));
        assert_eq!(tf32_to_f32(0xbf80_0fff), -1.0);
        assert!(tf32_to_f32(0x7f80_0001).is_nan());
        assert_eq!(tf32_to_f32(0x7f80_0000), f32::INFINITY);
        assert_eq!(f32_to_tf32(f32::from_bits(0x3f80_1000)), 0x3f80_0000); // tie, to even
        assert_eq!(f32_to_tf32(f32::from_bits(0x3f80_3000)), 0x3f80_4000); // tie, to even
        assert_eq!(f32_to_tf32(f32::from_bits(0x3f80_1001)), 0x3f80_2000);
    }

    #[test]
    fn bit_fields() {
        let bytes = [0xa5u8, 0x3c, 0xff, 0x01];
        assert_eq!(extract_bits(&bytes, 0, 4), 0x5);
        assert_eq!(extract_bits(&bytes, 4, 8), 0xca);
        assert_eq!(extract_bits(&bytes, 0, 32), 0x01ff_3ca5);
        assert_eq!(extract_bits(&bytes, 28, 8), 0x0); // past the end reads zero
        assert_eq!(extract_bits(&bytes, u64::MAX - 3, 64), 0);
        let mut out = [0u8; 4];
        insert_bits(&mut out, 4, 8, 0xca);
        insert_bits(&mut out, 0, 4, 0x5);
        insert_bits(&mut out, 16, 16, 0x01ff);
        insert_bits(&mut out, 30, 16, 0xffff); // partly dropped
        assert_eq!(out, [0xa5, 0x0c, 0xff, 0xc1]);
        assert_eq!(sign_extend(0xf, 4), -1);
        assert_eq!(sign_extend(0x7, 4), 7);
        assert_eq!(sign_extend(0x80, 8), -128);
        assert_eq!(sign_extend(u64::MAX, 64), -1);
        assert_eq!(zero_extend(0x1ff, 8), 0xff);
        assert_eq!(unpack_int8x4(0x80ff_017f, true), [127, 1, -1, -128]);
        assert_eq!(unpack_int8x4(0x80ff_017f, false), [127, 1, 255, 128]);
        assert_eq!(unpack_int4x8(0x8f17_0000, true), [0, 0, 0, 0, 7, 1, -1, -8]);
        assert_eq!(unpack_int4x8(0x8f17_0000, false), [0, 0, 0, 0, 7, 1, 15, 8]);
        assert_eq!(unpack_int(1, 8, 100, true), 0);
    }
}
