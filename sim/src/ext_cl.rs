//! OpenCL.std extended instructions without memory side effects.
//!
//! Covered: float — fabs, floor, ceil, trunc, round, rint, copysign, fmin, fmax, fmin_common,
//! fmax_common, fclamp, fdim, fma, mad, maxmag, minmag, sign, nextafter, fmod, remainder, ldexp,
//! ilogb, logb, mix, step, degrees, radians, sqrt, rsqrt, cbrt, exp, exp2, exp10, expm1, log,
//! log2, log10, log1p, pow, pown, powr, rootn, hypot, sin, cos, tan, asin, acos, atan, atan2,
//! sinh, cosh, tanh, asinh, acosh, atanh, sinpi, cospi, tanpi, erf, erfc, and every half_* and
//! native_* form (computed like the full-precision function); integer — s_abs, u_abs,
//! s/u_abs_diff, s/u_add_sat, s/u_sub_sat, s/u_hadd, s/u_rhadd, s/u_clamp, s/u_min, s/u_max,
//! clz, ctz, popcount, rotate, s/u_mul_hi, s/u_mad_hi, s/u_mad_sat, s/u_mul24, s/u_mad24,
//! s/u_upsample; common — bitselect, select, shuffle, shuffle2. The memory forms (vloadn,
//! vstoren, vload_half*, vstore_half*, modf, fract, frexp, remquo, sincos, lgamma_r) and
//! prefetch (a no-op) are executed by the interpreter.
//!
//! Transcendentals are computed in f64 and rounded once to the result type, which is within
//! the OpenCL ulp limits (and almost always correctly rounded).

use spvopt_ir::spirv::Op;

use crate::components::{comp, vcomp};
use crate::error::SimError;
use crate::program::{DInst, Program};
use crate::values::*;

fn fl(name: &str, a: f64, b: f64, c: f64, bits: u32) -> Option<f64> {
    Some(match name {
        "fabs" => a.abs(),
        "floor" => a.floor(),
        "ceil" => a.ceil(),
        "trunc" => a.trunc(),
        "round" => a.round(),
        "rint" => a.round_ties_even(),
        "copysign" => a.copysign(b),
        "fmin" | "fmin_common" => {
            if a.is_nan() {
                b
            } else if b.is_nan() || a < b {
                a
            } else {
                b
            }
        }
        "fmax" | "fmax_common" => {
            if a.is_nan() {
                b
            } else if b.is_nan() || a > b {
                a
            } else {
                b
            }
        }
        "fclamp" => {
            let m = if a.is_nan() || a > b { a } else { b };
            if m.is_nan() || c < m {
                if c.is_nan() {
                    m
                } else {
                    c
                }
            } else {
                m
            }
        }
        "fdim" => {
            if a.is_nan() || b.is_nan() {
                f64::NAN
            } else if a > b {
                a - b
            } else {
                0.0
            }
        }
        "maxmag" => {
            if a.abs() > b.abs() {
                a
            } else if b.abs() > a.abs() || a.is_nan() {
                b
            } else if b.is_nan() || a > b {
                a
            } else {
                b
            }
        }
        "minmag" => {
            if a.abs() < b.abs() {
                a
            } else if b.abs() < a.abs() || a.is_nan() {
                b
            } else if b.is_nan() || a < b {
                a
            } else {
                b
            }
        }
        "sign" => {
            if a.is_nan() {
                0.0
            } else if a > 0.0 {
                1.0
            } else if a < 0.0 {
                -1.0
            } else {
                a
            }
        }
        "fmod" => a % b,
        "remainder" => {
            if b == 0.0 || a.is_infinite() || a.is_nan() || b.is_nan() {
                f64::NAN
            } else if b.is_infinite() {
                a
            } else {
                let q = (a / b).round_ties_even();
                // exact for the operand widths we carry (f32/f16 in f64); f64 best effort
                let r = a - q * b;
                if r == 0.0 {
                    0.0f64.copysign(a)
                } else {
                    r
                }
            }
        }
        "sqrt" | "half_sqrt" | "native_sqrt" => a.sqrt(),
        "rsqrt" | "half_rsqrt" | "native_rsqrt" => 1.0 / a.sqrt(),
        "cbrt" => a.cbrt(),
        "exp" | "half_exp" | "native_exp" => a.exp(),
        "exp2" | "half_exp2" | "native_exp2" => a.exp2(),
        "exp10" | "half_exp10" | "native_exp10" => 10f64.powf(a),
        "expm1" => a.exp_m1(),
        "log" | "half_log" | "native_log" => a.ln(),
        "log2" | "half_log2" | "native_log2" => a.log2(),
        "log10" | "half_log10" | "native_log10" => a.log10(),
        "log1p" => a.ln_1p(),
        "pow" | "powr" | "half_powr" | "native_powr" => a.powf(b),
        "hypot" => a.hypot(b),
        "sin" | "half_sin" | "native_sin" => a.sin(),
        "cos" | "half_cos" | "native_cos" => a.cos(),
        "tan" | "half_tan" | "native_tan" => a.tan(),
        "asin" => a.asin(),
        "acos" => a.acos(),
        "atan" => a.atan(),
        "atan2" => a.atan2(b),
        "sinh" => a.sinh(),
        "cosh" => a.cosh(),
        "tanh" => a.tanh(),
        "asinh" => a.asinh(),
        "acosh" => a.acosh(),
        "atanh" => a.atanh(),
        "sinpi" => (a * std::f64::consts::PI).sin(),
        "cospi" => (a * std::f64::consts::PI).cos(),
        "tanpi" => (a * std::f64::consts::PI).tan(),
        "asinpi" => a.asin() / std::f64::consts::PI,
        "acospi" => a.acos() / std::f64::consts::PI,
        "atanpi" => a.atan() / std::f64::consts::PI,
        "atan2pi" => a.atan2(b) / std::f64::consts::PI,
        "half_recip" | "native_recip" => 1.0 / a,
        "half_divide" | "native_divide" => a / b,
        "degrees" => a * (180.0 / std::f64::consts::PI),
        "radians" => a * (std::f64::consts::PI / 180.0),
        "mix" => a + (b - a) * c,
        "step" => {
            if b < a {
                0.0
            } else {
                1.0
            }
        }
        "logb" => {
            if a == 0.0 {
                f64::NEG_INFINITY
            } else if a.is_infinite() {
                f64::INFINITY
            } else if a.is_nan() {
                a
            } else {
                ilogb(a, bits) as f64
            }
        }
        "erf" => erf(a),
        "erfc" => 1.0 - erf(a),
        _ => return None,
    })
}

fn erf(x: f64) -> f64 {
    // Abramowitz-Stegun 7.1.26 refined by a series for small x (best effort; not in real kernels)
    if x.abs() < 2.0 {
        let mut sum = x;
        let mut term = x;
        let x2 = x * x;
        for n in 1..60 {
            term *= -x2 / n as f64;
            sum += term / (2 * n + 1) as f64;
        }
        sum * 2.0 / std::f64::consts::PI.sqrt()
    } else {
        let t = 1.0 / (1.0 + 0.3275911 * x.abs());
        let y = 1.0
            - (((((1.061405429 * t - 1.453152027) * t) + 1.421413741) * t - 0.284496736) * t
                + 0.254829592)
                * t
                * (-x * x).exp();
        y.copysign(x)
    }
}

fn ilogb(a: f64, bits: u32) -> i64 {
    if a == 0.0 {
        return -2147483648;
    }
    if a.is_nan() || a.is_infinite() {
        return 2147483647;
    }
    let _ = bits;
    let b = a.abs().to_bits();
    let e = ((b >> 52) & 0x7ff) as i64;
    if e == 0 {
        // subnormal in f64 (not reachable for f32/f16 inputs)
        let lz = (b << 12).leading_zeros() as i64;
        -1023 - lz
    } else {
        e - 1023
    }
}

/// Float function on raw bits. Handles the ops whose precision needs care (fma, nextafter,
/// ldexp) specially.
fn float_fn(name: &str, x: u64, y: u64, z: u64, bits: u32) -> Option<u64> {
    let (a, b, c) = (f_get(x, bits), f_get(y, bits), f_get(z, bits));
    match name {
        "fma" | "mad" => {
            return Some(match bits {
                32 => (a as f32).mul_add(b as f32, c as f32).to_bits() as u64,
                64 => a.mul_add(b, c).to_bits(),
                // f16 and bf16: the f64 fma rounds once more, harmlessly (53 ≥ 2·11 + 2 bits)
                w => f_put(a.mul_add(b, c), w),
            });
        }
        "nextafter" => {
            if a.is_nan() || b.is_nan() {
                return Some(f_put(f64::NAN, bits));
            }
            if a == b {
                return Some(y);
            }
            return Some(f_step(x, bits, b > a));
        }
        "fmod" if bits == 64 => return Some((a % b).to_bits()),
        _ => {}
    }
    let r = fl(name, a, b, c, bits)?;
    // f32 results computed in f64 round once here
    Some(f_put(r, bits))
}

fn int_fn(name: &str, x: u64, y: u64, z: u64, bits: u32) -> Option<u64> {
    // Integer widths are 8 to 64 bits; anything else (a zero-sized operand type) has no meaning.
    if !(1..=64).contains(&bits) {
        return None;
    }
    let (xs, ys, zs) = (
        sext(x, bits) as i128,
        sext(y, bits) as i128,
        sext(z, bits) as i128,
    );
    let (xu, yu, zu) = (
        mask(x, bits) as i128,
        mask(y, bits) as i128,
        mask(z, bits) as i128,
    );
    let smin = -(1i128 << (bits - 1));
    let smax = (1i128 << (bits - 1)) - 1;
    let umax = (1i128 << bits) - 1;
    let r: i128 = match name {
        "s_abs" => xs.abs(),
        "u_abs" => xu,
        "s_abs_diff" => (xs - ys).abs(),
        "u_abs_diff" => (xu - yu).abs(),
        "s_add_sat" => (xs + ys).clamp(smin, smax),
        "u_add_sat" => (xu + yu).min(umax),
        "s_sub_sat" => (xs - ys).clamp(smin, smax),
        "u_sub_sat" => (xu - yu).max(0),
        "s_hadd" => (xs + ys) >> 1,
        "u_hadd" => (xu + yu) >> 1,
        "s_rhadd" => (xs + ys + 1) >> 1,
        "u_rhadd" => (xu + yu + 1) >> 1,
        "s_clamp" => xs.max(ys).min(zs),
        "u_clamp" => xu.max(yu).min(zu),
        "s_max" => xs.max(ys),
        "u_max" => xu.max(yu),
        "s_min" => xs.min(ys),
        "u_min" => xu.min(yu),
        "clz" => (mask(x, bits).leading_zeros() - (64 - bits)) as i128,
        "ctz" => (mask(x, bits).trailing_zeros().min(bits)) as i128,
        "popcount" => mask(x, bits).count_ones() as i128,
        "rotate" => {
            let s = (mask(y, bits) % bits as u64) as u32;
            let v = mask(x, bits);
            if s == 0 {
                v as i128
            } else {
                ((v << s) | (v >> (bits - s))) as i128
            }
        }
        "s_mul_hi" => (xs * ys) >> bits,
        "u_mul_hi" => ((xu as u128 * yu as u128) >> bits) as i128,
        "s_mad_hi" => ((xs * ys) >> bits) + zs,
        "u_mad_hi" => (((xu as u128 * yu as u128) >> bits) as i128) + zu,
        "s_mad_sat" => (xs * ys + zs).clamp(smin, smax),
        "u_mad_sat" => ((xu as u128 * yu as u128 + zu as u128).min(umax as u128)) as i128,
        "s_mul24" => sext(x, 24) as i128 * sext(y, 24) as i128,
        "u_mul24" => mask(x, 24) as i128 * mask(y, 24) as i128,
        "s_mad24" => sext(x, 24) as i128 * sext(y, 24) as i128 + zs,
        "u_mad24" => mask(x, 24) as i128 * mask(y, 24) as i128 + zu,
        "bitselect" => return Some((x & !z) | (y & z)),
        _ => return None,
    };
    Some(mask(r as u64, bits))
}

/// Executes a pure OpenCL.std instruction; `Ok(false)` for the memory forms.
pub fn pure_ext<'a>(
    p: &Program,
    inst: &DInst,
    get: &dyn Fn(u32) -> &'a [u8],
    ty_of: &dyn Fn(u32) -> u32,
    out: &mut [u8],
) -> Result<bool, SimError> {
    let name = inst.ext;
    let args = &inst.w[2..];
    let (rc, n) = vcomp(p, inst.ty)?;
    let arg = |i: usize| -> &'a [u8] { args.get(i).map(|&a| get(a)).unwrap_or(&[]) };
    let arg_comp = |i: usize| args.get(i).and_then(|&a| vcomp(p, ty_of(a)).ok());
    // scalar operands broadcast over vectors
    let comp_at = |i: usize, j: usize| -> u64 {
        match arg_comp(i) {
            Some((c, cn)) => rd(arg(i), c.bytes, if cn == 1 { 0 } else { j }),
            None => 0,
        }
    };
    match name {
        "prefetch" => return Ok(true),
        "select" => {
            for j in 0..n {
                let c = comp_at(2, j);
                let (cc, _) = arg_comp(2).unwrap_or((rc, 1));
                let cond = if n == 1 {
                    c != 0
                } else {
                    (c >> (cc.bits - 1)) & 1 == 1
                };
                wr(
                    out,
                    rc.bytes,
                    j,
                    if cond { comp_at(1, j) } else { comp_at(0, j) },
                );
            }
            return Ok(true);
        }
        "ilogb" => {
            let (ac, _) = arg_comp(0).ok_or_else(|| SimError::Module("ilogb".into()))?;
            for j in 0..n {
                let v = ilogb(f_get(comp_at(0, j), ac.fw()), ac.bits);
                wr(out, rc.bytes, j, mask(v as u64, rc.bits));
            }
            return Ok(true);
        }
        "ldexp" => {
            for j in 0..n {
                let v = f_get(comp_at(0, j), rc.fw());
                let (ec, _) = arg_comp(1).unwrap_or((rc, 1));
                let e = sext(comp_at(1, j), ec.bits).clamp(-2000, 2000) as i32;
                // scale in two steps to stay exact through f64's range
                let r = v * 2f64.powi(e / 2) * 2f64.powi(e - e / 2);
                wr(out, rc.bytes, j, f_put(r, rc.fw()));
            }
            return Ok(true);
        }
        "pown" | "rootn" => {
            for j in 0..n {
                let v = f_get(comp_at(0, j), rc.fw());
                let (ec, _) = arg_comp(1).unwrap_or((rc, 1));
                let e = sext(comp_at(1, j), ec.bits) as i32;
                let r = if name == "pown" {
                    v.powi(e)
                } else {
                    v.powf(1.0 / e as f64)
                };
                wr(out, rc.bytes, j, f_put(r, rc.fw()));
            }
            return Ok(true);
        }
        "shuffle" | "shuffle2" => {
            let (ac, an) = arg_comp(0).ok_or_else(|| SimError::Module("shuffle".into()))?;
            let mi = if name == "shuffle" { 1 } else { 2 };
            let (mc, _) = arg_comp(mi).ok_or_else(|| SimError::Module("shuffle".into()))?;
            for j in 0..n {
                let sel = rd(arg(mi), mc.bytes, j) as usize;
                let v = if name == "shuffle" {
                    rd(arg(0), ac.bytes, sel % an)
                } else {
                    let s = sel % (2 * an);
                    if s < an {
                        rd(arg(0), ac.bytes, s)
                    } else {
                        rd(arg(1), ac.bytes, s - an)
                    }
                };
                wr(out, rc.bytes, j, v);
            }
            return Ok(true);
        }
        "s_upsample" | "u_upsample" => {
            let (hc, _) = arg_comp(0).ok_or_else(|| SimError::Module("upsample".into()))?;
            for j in 0..n {
                let v = (comp_at(0, j) << hc.bits) | mask(comp_at(1, j), hc.bits);
                wr(out, rc.bytes, j, mask(v, rc.bits));
            }
            return Ok(true);
        }
        "length" | "fast_length" | "distance" | "fast_distance" | "normalize"
        | "fast_normalize" | "cross" => {
            let (ac, an) = arg_comp(0).ok_or_else(|| SimError::Module("geometric".into()))?;
            let xs: Vec<f64> = (0..an)
                .map(|j| f_get(rd(arg(0), ac.bytes, j), ac.fw()))
                .collect();
            let ys: Vec<f64> = (0..an)
                .map(|j| f_get(rd(arg(1), ac.bytes, j), ac.fw()))
                .collect();
            match name {
                "length" | "fast_length" => {
                    let l = xs.iter().map(|v| v * v).sum::<f64>().sqrt();
                    wr(out, rc.bytes, 0, f_put(l, rc.fw()));
                }
                "distance" | "fast_distance" => {
                    let l = xs
                        .iter()
                        .zip(&ys)
                        .map(|(a, b)| (a - b) * (a - b))
                        .sum::<f64>()
                        .sqrt();
                    wr(out, rc.bytes, 0, f_put(l, rc.fw()));
                }
                "cross" => {
                    let r = [
                        xs[1] * ys[2] - xs[2] * ys[1],
                        xs[2] * ys[0] - xs[0] * ys[2],
                        xs[0] * ys[1] - xs[1] * ys[0],
                    ];
                    for (j, v) in r.iter().enumerate() {
                        wr(out, rc.bytes, j, f_put(*v, rc.fw()));
                    }
                }
                _ => {
                    let l = xs.iter().map(|v| v * v).sum::<f64>().sqrt();
                    for (j, v) in xs.iter().enumerate() {
                        wr(out, rc.bytes, j, f_put(v / l, rc.fw()));
                    }
                }
            }
            return Ok(true);
        }
        "smoothstep" => {
            for j in 0..n {
                let e0 = f_get(comp_at(0, j), rc.fw());
                let e1 = f_get(comp_at(1, j), rc.fw());
                let x = f_get(comp_at(2, j), rc.fw());
                let t = ((x - e0) / (e1 - e0)).clamp(0.0, 1.0);
                wr(out, rc.bytes, j, f_put(t * t * (3.0 - 2.0 * t), rc.fw()));
            }
            return Ok(true);
        }
        "nan" => {
            for j in 0..n {
                wr(out, rc.bytes, j, f_put(f64::NAN, rc.fw()) | comp_at(0, j));
            }
            return Ok(true);
        }
        _ => {}
    }
    let float = matches!(rc.kind, crate::components::Kind::Float);
    let _ = comp;
    for j in 0..n {
        let (x, y, z) = (comp_at(0, j), comp_at(1, j), comp_at(2, j));
        let r = if float {
            float_fn(name, x, y, z, rc.fw())
        } else {
            int_fn(name, x, y, z, rc.bits)
        };
        match r {
            Some(v) => wr(out, rc.bytes, j, v),
            None => return Ok(false),
        }
    }
    let _ = Op::ExtInst;
    Ok(true)
}
