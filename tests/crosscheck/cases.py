"""Inputs and independent reference models of the cross-check kernels.

For every kernel NAME in kernels/:
  INPUTS[NAME](rng) -> {key: numpy array}   written to kernels/data/NAME.key.bin
                                            by `run_all.py --write-inputs`
  CHECKS[NAME](ctx)                         asserts that the runtime's output
                                            buffers equal what the kernel is
                                            meant to compute (numpy/Python model)

The models are written from the kernel's documented intent (its top comment),
not from the runtime's output, so expected/ holds known-correct results.
"""
import os
import struct
from fractions import Fraction

import numpy as np

from compare import NP_TYPES, ulp_diff  # noqa: E402,F401

INPUTS = {}
CHECKS = {}


def inputs(fn):
    INPUTS[fn.__name__] = fn
    return fn


def check(fn):
    CHECKS[fn.__name__] = fn
    return fn


# ----------------------------------------------------------------------------
# helpers

def round_f32(frac):
    """Correctly rounded (nearest-even) float32 of an exact Fraction."""
    f = np.float32(float(frac))  # within one f32 ulp of the exact value
    cands = [np.nextafter(f, np.float32(-np.inf)), f, np.nextafter(f, np.float32(np.inf))]
    best = min(cands, key=lambda c: (abs(Fraction(float(c)) - frac),
                                     int(np.array(c).view(np.uint32)) & 1))
    return np.float32(best)


def fma_f32(a, b, c):
    out = []
    for x, y, z in zip(a.tolist(), b.tolist(), c.tolist()):
        e = Fraction(x) * Fraction(y) + Fraction(z)
        out.append(round_f32(e) if e != 0 else exact_zero_sign(x, y, z))
    return np.array(out, dtype=np.float32)


def bits(a):
    a = np.asarray(a)
    return a.view({1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[a.dtype.itemsize])


class Ctx:
    """What a check sees: the launch, the initial and final buffers."""

    def __init__(self, name, launch, base_dir, outs, sg):
        self.name, self.launch, self.base_dir, self.outs, self.sg = name, launch, base_dir, outs, sg
        self.gsize = launch["global_size"]
        self.lsize = launch["local_size"]
        self.n = int(np.prod(self.gsize))
        self.checked = set()
        self.ulp_checked = set()
        self.notes = []

    def inp(self, i, dtype):
        a = self.launch["args"][i]
        if "buffer" in a:
            return np.fromfile(os.path.join(self.base_dir, a["buffer"]), dtype=dtype)
        if "buffer_zeros" in a:
            return np.zeros(a["buffer_zeros"] // np.dtype(dtype).itemsize, dtype=dtype)
        raise ValueError(f"arg {i} is not a buffer")

    def scalar(self, i):
        return self.launch["args"][i]["value"]

    def out(self, i, dtype):
        return np.frombuffer(self.outs[i], dtype=dtype)

    def eq(self, i, want, what=""):
        """Final buffer i must equal `want` bit for bit (want may cover a prefix)."""
        want = np.ascontiguousarray(want)
        got = self.out(i, want.dtype)
        if want.size > got.size:
            raise AssertionError(f"arg{i}: model is larger than the buffer")
        if want.size < got.size:   # the rest of the buffer must be untouched
            rest = self.inp(i, want.dtype)[want.size:]
            want = np.concatenate([want.reshape(-1), rest])
        gb, wb = bits(got).reshape(-1), bits(want).reshape(-1)
        bad = np.nonzero(gb != wb)[0]
        if bad.size:
            j = bad[0]
            raise AssertionError(
                f"arg{i}{' ' + what if what else ''}: {bad.size} element(s) differ from the model, "
                f"first at element {j}: got {got.reshape(-1)[j]!r} (0x{int(gb[j]):x}), "
                f"want {want.reshape(-1)[j]!r} (0x{int(wb[j]):x})")
        self.checked.add(i)

    def close(self, i, want, max_ulp):
        """Final float buffer i within max_ulp of the exact model; the launch
        must declare this buffer as {"type": ..., "ulp": >= max_ulp}."""
        arg = self.launch["args"][i]
        want = np.ascontiguousarray(want).reshape(-1)
        if NP_TYPES.get(arg.get("type")) is not want.dtype.type or arg.get("ulp", -1) < max_ulp:
            raise AssertionError(f"arg{i}: launch must mark it {{'type', 'ulp' >= {max_ulp}}}")
        got = self.out(i, want.dtype)
        if got.size != want.size:
            raise AssertionError(f"arg{i}: model covers {want.size} of {got.size} elements")
        d = ulp_diff(got, want)
        if d.max() > max_ulp:
            j = int(np.argmax(d))
            raise AssertionError(f"arg{i}: element {j} is {d[j]} ulp from the model "
                                 f"(got {got[j]!r}, want {want[j]!r})")
        self.notes.append(f"arg{i} max {int(d.max())} ulp from the correctly rounded result")
        self.checked.add(i)
        self.ulp_checked.add(i)

    def unchanged(self, i):
        self.eq(i, self.inp(i, np.uint8), "(should be unchanged)")

    def finish(self):
        bufs = {i for i, a in enumerate(self.launch["args"])
                if "buffer" in a or "buffer_zeros" in a}
        for i in sorted(bufs - self.checked):   # inputs: the kernel must not change them
            self.unchanged(i)
        for i, a in enumerate(self.launch["args"]):
            if "ulp" in a and i not in self.ulp_checked:
                raise AssertionError(f"arg{i} has an ulp tolerance but was checked bit-exactly")

    def note(self):
        return ("; " + "; ".join(self.notes)) if self.notes else ""


def to_s32(v):
    v &= 0xFFFFFFFF
    return v - (1 << 32) if v & 0x80000000 else v


def trunc_div(x, y):
    q = abs(x) // abs(y)
    return q if (x >= 0) == (y >= 0) else -q


# ----------------------------------------------------------------------------
# int_arith

EDGE32 = [0, 1, 2, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF, 0xFFFFFFFE, 100, 101, 12345]


@inputs
def int_arith(rng):
    n = 256
    a = rng.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32)
    b = rng.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32)
    a[:len(EDGE32)] = EDGE32
    b[len(EDGE32):2 * len(EDGE32)] = EDGE32
    b[2 * len(EDGE32):3 * len(EDGE32)] = a[2 * len(EDGE32):3 * len(EDGE32)]   # x == y
    b[40:60] = rng.integers(1, 200, 20)      # small divisors, some <= 100
    b[60:80] = -rng.integers(1, 200, 20)     # small negative divisors
    b[b == 0] = 3
    b[(a == 0x80000000) & (b == 0xFFFFFFFF)] = 5
    return {"a": a, "b": b}


@check
def int_arith(c):
    a, b = c.inp(0, np.uint32), c.inp(1, np.uint32)
    out = []
    for x, y in zip(a.tolist(), b.tolist()):
        sx, sy = to_s32(x), to_s32(y)
        sh = y & 31
        rem = sx - trunc_div(sx, sy) * sy
        mod = rem + sy if rem != 0 and (rem < 0) != (sy < 0) else rem
        lor = sx >= 0 or y <= 100
        land = (x != y) and lor
        leq = (x == y) == (sx >= 0)
        lne = land != (not leq)
        out.append([x + y, x - y, x * y, x // y, x % y, trunc_div(sx, sy), rem, mod,
                    x << sh, x >> sh, sx >> sh, x & y, x | y, x ^ y, ~x, -x,
                    x if sx < sy else y, x if x > y else y, bin(x).count("1"),
                    (7 if lor else 9) + (100 if lne else 0)])
    c.eq(2, np.array([[v & 0xFFFFFFFF for v in r] for r in out], dtype=np.uint32))


# ----------------------------------------------------------------------------
# int64_arith

M64 = (1 << 64) - 1
EDGE64 = [0, 1, 2, M64, 1 << 63, (1 << 63) - 1, 0xFFFFFFFF, 1 << 32, 12345678901234]


def to_s64(v):
    v &= M64
    return v - (1 << 64) if v >> 63 else v


@inputs
def int64_arith(rng):
    n = 128
    a = rng.integers(0, M64, n, dtype=np.uint64, endpoint=True)
    b = rng.integers(0, M64, n, dtype=np.uint64, endpoint=True)
    a[:len(EDGE64)] = EDGE64
    b[len(EDGE64):2 * len(EDGE64)] = EDGE64
    b[20:40] = rng.integers(1, 1 << 20, 20)
    b[40:50] = -rng.integers(1, 1 << 20, 10).astype(np.int64)
    b[50:60] = rng.integers(1, 1 << 40, 10)
    b[b == 0] = 7
    b[(a == 1 << 63) & (b == M64)] = 9
    return {"a": a, "b": b}


@check
def int64_arith(c):
    a, b = c.inp(0, np.uint64), c.inp(1, np.uint64)
    out = []
    for x, y in zip(a.tolist(), b.tolist()):
        sx, sy = to_s64(x), to_s64(y)
        sh = y & 63
        q = trunc_div(sx, sy)
        out.append([x + y, x - y, x * y, x // y, x % y, q, sx - q * sy, x << sh, x >> sh, sx >> sh,
                    (x32 := x & 0xFFFFFFFF) * (y32 := y & 0xFFFFFFFF),
                    to_s32(x32) * to_s32(y32), -x, x + y, 1 if x + y > M64 else 0,
                    1 if x < y else 0])
    c.eq(2, np.array([[v & M64 for v in r] for r in out], dtype=np.uint64))


# ----------------------------------------------------------------------------
# small_ints

def sext(v, bits_):
    v &= (1 << bits_) - 1
    return v - (1 << bits_) if v >> (bits_ - 1) else v


@inputs
def small_ints(rng):
    n = 256
    a8 = rng.integers(0, 256, n, dtype=np.uint8)
    a8[:256] = np.arange(256, dtype=np.uint8)[rng.permutation(256)]  # every byte value once
    b8 = rng.integers(0, 256, n, dtype=np.uint8)
    a16 = rng.integers(0, 1 << 16, n, dtype=np.uint16)
    a16[:6] = [0, 1, 0x7FFF, 0x8000, 0xFFFF, 0x8001]
    b16 = rng.integers(0, 1 << 16, n, dtype=np.uint16)
    return {"a8": a8, "b8": b8, "a16": a16, "b16": b16}


@check
def small_ints(c):
    a8, b8 = c.inp(0, np.uint8).tolist(), c.inp(1, np.uint8).tolist()
    a16, b16 = c.inp(2, np.uint16).tolist(), c.inp(3, np.uint16).tolist()
    out32, out8, out16 = [], [], []
    for x8, y8, x16, y16 in zip(a8, b8, a16, b16):
        d16 = (y16 & 0x7FFF) | 1
        r5 = sext(x16, 16) - trunc_div(sext(x16, 16), d16) * d16
        out32.append([(x8 + y8) & 0xFF, sext(x8 * y8, 8), sext(x16, 16) >> (y8 & 15),
                      (x16 - y16) & 0xFFFF, x8 // (y8 | 1), r5,
                      trunc_div(sext(x8, 8), (y8 & 0x7F) | 1), sext(x16 & 0xFF, 8)])
        out8.append(x8 ^ y8)
        out16.append((x16 * y16) & 0xFFFF)
    c.eq(4, np.array([[v & 0xFFFFFFFF for v in r] for r in out32], dtype=np.uint32))
    c.eq(5, np.array(out8, dtype=np.uint8))
    c.eq(6, np.array(out16, dtype=np.uint16))


# ----------------------------------------------------------------------------
# float_arith

F32_SPECIALS = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 1e-40, -1e-40,
                         3.4e38, 1.17549435e-38, 2.5], dtype=np.float32)


@inputs
def float_arith(rng):
    n = 256
    a = (rng.uniform(-1000, 1000, n) * 2.0 ** rng.integers(-20, 20, n)).astype(np.float32)
    b = (rng.uniform(-10, 10, n) * 2.0 ** rng.integers(-10, 10, n)).astype(np.float32)
    a[:8] = [1.0, -1.0, 3.0, -7.5, 0.0, -0.0, 10.0, 1e-3]
    b[:8] = [3.0, 3.0, -2.0, 2.0, 5.0, 5.0, -0.25, 7.0]
    b[b == 0] = 1.5
    k = len(F32_SPECIALS)
    c = np.repeat(F32_SPECIALS, k)                       # every pair of specials
    d = np.tile(F32_SPECIALS, k)
    m = n - k * k
    c = np.concatenate([c, rng.uniform(-4, 4, m).round(1).astype(np.float32)])
    d = np.concatenate([d, rng.uniform(-4, 4, m).round(1).astype(np.float32)])
    return {"a": a, "b": b, "c": c, "d": d}


def fmod_spirv(x, y):
    """OpFMod: remainder with the sign of y (fmod, then + y if signs differ).
    A zero result also takes the sign of y (what the Intel runtime does; the
    SPIR-V spec only fixes the sign of non-zero results)."""
    r = np.fmod(x, y)
    fix = (r != 0) & (np.signbit(r) != np.signbit(y))
    r = np.where(fix, (r + y).astype(np.float32), r).astype(np.float32)
    return np.where(r == 0, np.copysign(np.float32(0), y), r).astype(np.float32)


@check
def float_arith(c):
    x, y = c.inp(0, np.float32), c.inp(1, np.float32)
    with np.errstate(all="ignore"):
        want = np.stack([x + y, x - y, x * y, x / y, -x, np.fmod(x, y), fmod_spirv(x, y),
                         np.where(x < y, x, y)], axis=1).astype(np.float32)
    c.eq(4, want)
    p, q = c.inp(2, np.float32).astype(np.float64), c.inp(3, np.float32).astype(np.float64)
    unord = np.isnan(p) | np.isnan(q)
    preds = [p == q, (p == q) | unord, (p != q) & ~unord, p != q, p < q, (p >= q) | unord,
             np.isnan(p), np.isinf(p), np.isfinite(p),
             np.isfinite(p) & (np.abs(p) >= np.finfo(np.float32).tiny),
             np.signbit(p), ~unord, unord, (p < q) | (p > q)]
    flags = sum(pr.astype(np.uint32) << k for k, pr in enumerate(preds)).astype(np.uint32)
    c.eq(5, flags)


# ----------------------------------------------------------------------------
# fp64_arith

def exact_zero_sign(x, y, z):
    """Sign of an exactly-zero x*y+z under round-to-nearest: -0 only if both
    the product and the addend are negative zeros/values summing to -0."""
    return -0.0 if (np.signbit(x) != np.signbit(y)) and np.signbit(z) and z == 0 else 0.0


def fma_f64(a, b, c):
    out = []
    for x, y, z in zip(a.tolist(), b.tolist(), c.tolist()):
        e = Fraction(x) * Fraction(y) + Fraction(z)
        out.append(float(e) if e != 0 else exact_zero_sign(x, y, z))
    return np.array(out, dtype=np.float64)


def sqrt_f64(a):
    """Correctly rounded sqrt (math.sqrt is, on IEEE platforms; checked exactly)."""
    out = []
    for x in a.tolist():
        r = float(np.sqrt(x))
        cands = [np.nextafter(r, -np.inf), r, np.nextafter(r, np.inf)]
        fx = Fraction(x)
        out.append(min(cands, key=lambda c: abs(Fraction(float(c)) ** 2 - fx)))
    return np.array(out, dtype=np.float64)


@inputs
def fp64_arith(rng):
    n = 128
    a = rng.uniform(-1e6, 1e6, n) * 2.0 ** rng.integers(-30, 30, n)
    b = rng.uniform(-100, 100, n) * 2.0 ** rng.integers(-30, 30, n)
    a[:6] = [2.0, -9.0, 1e15 + 0.5, 0.1, -0.0, 12345.678]
    b[:6] = [3.0, 4.0, 7.0, 0.3, 2.0, -1e-3]
    b[b == 0] = 1.0
    return {"a": a, "b": b}


@check
def fp64_arith(c):
    x, y = c.inp(0, np.float64), c.inp(1, np.float64)
    xi = np.trunc(x).astype(np.int64).astype(np.float64)   # via i64: -0.0 becomes +0.0
    want = np.stack([x + y, x - y, x * y, x / y, np.fmod(x, y), sqrt_f64(np.abs(x)),
                     fma_f64(x, y, x), x.astype(np.float32).astype(np.float64) + xi], axis=1)
    c.eq(2, want)


# ----------------------------------------------------------------------------
# fp16_arith

@inputs
def fp16_arith(rng):
    n = 256
    a = (rng.choice([-1, 1], n) * rng.uniform(2.0 ** -6, 8, n)).astype(np.float16)
    b = (rng.choice([-1, 1], n) * rng.uniform(0.25, 8, n)).astype(np.float16)
    a[:6] = [1.0, 0.5, 3.0, -2.0, 7.999, 0.1]
    b[:6] = [3.0, 3.0, 3.0, -2.0, 0.25, 0.3]
    return {"a": a, "b": b}


@check
def fp16_arith(c):
    x, y = c.inp(0, np.float16), c.inp(1, np.float16)
    x32, y32 = x.astype(np.float32), y.astype(np.float32)
    h = lambda v: v.astype(np.float16)   # f32 -> f16 is round-to-nearest-even; f16 ops are
    d3 = x32 / np.float32(3)             # exactly f32 ops rounded once (24 >= 2*11+2 bits)
    want16 = np.stack([h(x32 + y32), h(x32 - y32), h(x32 * y32), h(x32 / y32), -x,
                       np.where(x > y, x, y),
                       h(h(x32 * y32).astype(np.float32) + y32),   # shuffle(x*y, y*x | x, y; 0, 3)
                       h(d3)], axis=1)
    c.eq(2, want16)
    c.eq(3, np.stack([x32 * y32, d3], axis=1))


# ----------------------------------------------------------------------------
# conversions

def round_f32_mode(frac, mode):
    """float32 nearest to an exact Fraction under rounding mode RTE/RTZ/RTP/RTN."""
    f = np.float32(float(frac))
    cands = [np.nextafter(f, np.float32(-np.inf)), f, np.nextafter(f, np.float32(np.inf))]
    cands = [c for c in cands if np.isfinite(c)]
    if mode == "RTE":
        return round_f32(frac)
    if mode == "RTP":
        return min((c for c in cands if Fraction(float(c)) >= frac), key=lambda c: Fraction(float(c)))
    if mode == "RTN":
        return max((c for c in cands if Fraction(float(c)) <= frac), key=lambda c: Fraction(float(c)))
    if mode == "RTZ":
        return max((c for c in cands if abs(Fraction(float(c))) <= abs(frac)),
                   key=lambda c: abs(Fraction(float(c))))
    raise ValueError(mode)


@inputs
def conversions(rng):
    n = 256
    a = (rng.uniform(-1000, 1000, n)).astype(np.float32)
    a[:16] = [0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 3.49, -3.51, 0.0, -0.0, 999.75, -999.75,
              65.0625, 1e-3, 7.0, -7.0]
    b = rng.integers(-(1 << 31), 1 << 31, n, dtype=np.int64).astype(np.int32)
    b[:10] = [0, 1, -1, 127, 128, -128, -129, 16777217, -16777217, 2147483647]
    c = rng.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32)
    c[:8] = [0, 1, 65535, 65536, 16777217, 0xFFFFFFFF, 0x80000001, 300]
    d = rng.uniform(-1e12, 1e12, n) * 2.0 ** rng.integers(-40, 1, n)
    d[:6] = [1.0 + 2 ** -30, -(1.0 + 2 ** -30), 0.1, -0.1, 9.0e18, -1e-3]   # all fit in i64
    e = (rng.uniform(-1, 1, n) * 2.0 ** rng.integers(0, 40, n)).astype(np.float32)
    # no NaN: the runtime's saturating float->uint gives 0xFFFFFFFF for NaN where
    # OpenCL C (6.4.3.3) says NaN converts to 0, so NaN would pin down a bug
    e[:8] = [1e20, np.inf, -np.inf, 3e9, -3e9, 4.3e9, -0.9, 2147483520.0]
    return {"a": a, "b": b, "c": c, "d": d, "e": e}


@check
def conversions(c):
    a, b = c.inp(0, np.float32), c.inp(1, np.int32)
    cc, d, e = c.inp(2, np.uint32), c.inp(3, np.float64), c.inp(4, np.float32)
    rows = []
    for x, y, z, w, v in zip(a.tolist(), b.tolist(), cc.tolist(), d.tolist(), e.tolist()):
        f32b = lambda f: int(np.array(f, dtype=np.float32).view(np.uint32))
        if np.isnan(v):
            s10 = u11 = 0
        else:
            s10 = int(min(max(np.trunc(v), -2 ** 31), 2 ** 31 - 1))
            u11 = int(min(max(np.trunc(v), 0), 2 ** 32 - 1))
        big = (z << 20) | z
        rows.append([int(np.trunc(x)), int(np.trunc(abs(x))), f32b(round_f32(Fraction(y))),
                     f32b(round_f32(Fraction(z))), f32b(round_f32(Fraction(w))),
                     int(np.array(np.float32(x).astype(np.float16)).view(np.uint16)),
                     f32b(round_f32_mode(Fraction(y), "RTZ")),
                     f32b(round_f32_mode(Fraction(z), "RTP")),
                     f32b(round_f32_mode(Fraction(w), "RTN")),
                     int(np.rint(x)), s10, u11, min(max(y, -128), 127), min(z, 65535),
                     f32b(round_f32(Fraction(big))), int(np.trunc(w))])
    c.eq(5, np.array([[v & 0xFFFFFFFF for v in r] for r in rows], dtype=np.uint32))


# ----------------------------------------------------------------------------
# bitcast_vectors

@inputs
def bitcast_vectors(rng):
    v = rng.integers(0, 1 << 32, (64, 4), dtype=np.uint64).astype(np.uint32)
    v[:4] = [[1, 2, 3, 4], [4, 3, 2, 1], [5, 5, 5, 5], [0xFFFFFFFF, 0, 0x12345678, 0xFFFF0001]]
    return {"src": v}


@check
def bitcast_vectors(c):
    v = c.inp(0, np.uint32).reshape(-1, 4).astype(np.uint64)
    n = v.shape[0]
    out = np.zeros((n, 24), dtype=np.uint64)
    out64 = np.zeros((n, 2), dtype=np.uint64)
    for i in range(n):
        x = [int(t) for t in v[i]]
        vf = [t & 255 for t in x]
        w = [vf[0] * 2.0 + vf[3], vf[1] * 0.5 + vf[2], vf[2] * 1.0 + vf[1], vf[3] * 3.0 + vf[0]]
        out[i, 0:4] = [int(t) for t in w]   # ConvertFToU truncates
        ins = list(x)
        ins[(i + 1) & 3] = (x[i & 3] + 1) & 0xFFFFFFFF
        out[i, 4:8] = ins
        out[i, 8:12] = [x[0], x[1], 0xDEAD, x[3]]
        rot = x[1:] + x[:1]
        lt = [a < b for a, b in zip(x, rot)]
        out[i, 12:16] = [a if l else b for a, b, l in zip(x, rot, lt)]
        out[i, 16] = int(sum(a * b for a, b in zip(vf, w)))
        out[i, 17] = x[i & 3]
        out[i, 18] = int.from_bytes(x[2].to_bytes(4, "little")[::-1], "little")
        lo, hi = x[3] & 0xFFFF, x[3] >> 16
        out[i, 19] = ((lo + 1) & 0xFFFF) | (((hi + 2) & 0xFFFF) << 16)
        out[i, 20] = (1 if any(lt) else 0) | (2 if all(lt) else 0)
        out[i, 21] = (x[0] + 2 * x[1] + 3 * x[2]) & 0xFFFFFFFF
        out64[i] = [x[0] | (x[1] << 32), x[3] | (x[2] << 32)]
    c.eq(1, out.astype(np.uint32))
    c.eq(2, out64)


# ----------------------------------------------------------------------------
# loop_structured

@inputs
def loop_structured(rng):
    a = rng.integers(0, 1000, (64, 16), dtype=np.uint32)
    dead = rng.random((64, 16)) < 0.05
    a[dead] = 0xDEAD
    a[0, :] = 0xDEAD          # stops at once
    a[1, :] = 7 * np.arange(16, dtype=np.uint32)   # everything skipped
    return {"a": a}


@check
def loop_structured(c):
    n = c.scalar(1)
    a = c.inp(0, np.uint32).reshape(-1, n)
    out = []
    for row in a.tolist():
        s = bits_ = skip = j = 0
        while j < n:
            v = row[j]
            if v == 0xDEAD:
                break
            if v % 7 == 0:
                skip += 1
            else:
                s += v
                bits_ += bin(v).count("1")
            j += 1
        out.append([s, bits_, j, skip])
    c.eq(2, np.array(out, dtype=np.uint32))


# ----------------------------------------------------------------------------
# loop_selfloop

@inputs
def loop_selfloop(rng):
    return {"A": rng.integers(-8, 9, (8, 24)).astype(np.float32),
            "B": rng.integers(-8, 9, (24, 16)).astype(np.float32)}


@check
def loop_selfloop(c):
    K = c.scalar(3)
    N, M = c.gsize[0], c.gsize[1]
    A = c.inp(0, np.float32).reshape(M, K).astype(np.int64)
    B = c.inp(1, np.float32).reshape(K, N).astype(np.int64)
    want = (A @ B).astype(np.float32)
    want[want == 0] = 0.0       # +0: the accumulator starts at +0 and x + (-0) keeps +0
    c.eq(2, want)


# ----------------------------------------------------------------------------
# control_flow

@inputs
def control_flow(rng):
    a = rng.integers(0, 1000, 256, dtype=np.uint32)
    a[:32] = np.arange(32)
    a[32:36] = [499, 500, 501, 0xFFFFFFFF]
    return {"a": a}


@check
def control_flow(c):
    out = []
    for x in c.inp(0, np.uint32).tolist():
        r0 = (3 * x + 1) & 0xFFFFFFFF if x & 1 else x // 2
        r1 = {0: 10, 1: 111, 2: 112, 5: 15}.get(x % 8, x)
        r2 = (x - 500) & 0xFFFFFFFF if x > 500 else 500 - x
        r3 = 0 if x % 16 == 15 else (r0 + r1 + r2) & 0xFFFFFFFF
        out.append([r0, r1, r2, r3])
    c.eq(1, np.array(out, dtype=np.uint32))


# ----------------------------------------------------------------------------
# function_calls

@inputs
def function_calls(rng):
    a = rng.integers(0, 1 << 32, 260, dtype=np.uint64).astype(np.uint32)   # 4 past the end
    a[:6] = [0, 1, 1, 5, 3, 3]
    return {"a": a}


@check
def function_calls(c):
    a = c.inp(0, np.uint32).tolist()
    out = []
    for i in range(256):
        x, y = a[i], a[(i + 1) % 256]
        r0 = (x + y * y + 3 * y + 1) & 0xFFFFFFFF
        out.append([r0, min(x, y), max(x, y), x ^ 0x5A5A, (r0 + 1) & 0xFFFFFFFF,
                    sum(a[i:i + 4]) & 0xFFFFFFFF])
    c.eq(1, np.array(out, dtype=np.uint32))


# ----------------------------------------------------------------------------
# pointers

S_DTYPE = np.dtype([("a", "<u4"), ("b", "<u4"), ("c", "<f4"), ("d", "<u4")])


@inputs
def pointers(rng):
    s = np.zeros(64, dtype=S_DTYPE)
    s["a"] = rng.integers(0, 1 << 32, 64, dtype=np.uint64)
    s["b"] = rng.integers(0, 1 << 20, 64)
    s["c"] = rng.integers(0, 1000, 64).astype(np.float32) + 0.5
    s["d"] = rng.integers(0, 1 << 32, 64, dtype=np.uint64)
    arr = rng.integers(0, 1 << 32, (64, 4), dtype=np.uint64).astype(np.uint32)
    return {"s": s, "arr": arr, "bytes": rng.integers(0, 256, 256, dtype=np.uint8)}


@check
def pointers(c):
    s = c.inp(0, S_DTYPE)
    arr = c.inp(1, np.uint32).reshape(-1, 4)
    by = c.inp(2, np.uint8)
    sw = c.inp(0, np.uint32).reshape(-1, 4)
    out = np.zeros((64, 12), dtype=np.uint64)
    for i in range(64):
        fvar = [10, 20, 30, int(s["a"][i])]
        out[i, :8] = [(int(s["b"][i]) + int(s["c"][i])) & 0xFFFFFFFF, s["a"][i],
                      s["d"][(i + 1) & 63], arr[i, (i + 2) & 3],
                      int.from_bytes(bytes(by[4 * i:4 * i + 4]), "little"), by[4 * i + 1],
                      fvar[i & 3], s["b"][(i + 5) & 63]]
        out[i, 8:] = sw[i]
    c.eq(3, out.astype(np.uint32))


# ----------------------------------------------------------------------------
# ext_int

@inputs
def ext_int(rng):
    n = 256
    a, b, cc = (rng.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32) for _ in range(3))
    a[:len(EDGE32)] = EDGE32
    b[len(EDGE32):2 * len(EDGE32)] = EDGE32
    b[2 * len(EDGE32):3 * len(EDGE32)] = EDGE32[::-1]
    a[30:60] = rng.integers(-2000, 2000, 30)     # around the clamp bounds
    b[60:80] = rng.integers(0, 40, 20)          # small rotate amounts
    return {"a": a, "b": b, "c": cc}


@check
def ext_int(c):
    M = 0xFFFFFFFF
    sat = lambda v, lo, hi: min(max(v, lo), hi)
    out = []
    for x, y, z in zip(c.inp(0, np.uint32).tolist(), c.inp(1, np.uint32).tolist(),
                       c.inp(2, np.uint32).tolist()):
        sx, sy = to_s32(x), to_s32(y)
        r = y & 31
        out.append([min(sx, sy), max(sx, sy), min(x, y), max(x, y),
                    sat(sx, -1000, 1000), sat(x, 100, 1 << 20), abs(sx), abs(sx - sy), abs(x - y),
                    bin(x).count("1"), 32 - x.bit_length(),
                    32 if x == 0 else (x & -x).bit_length() - 1,
                    ((x << r) | (x >> (32 - r))) if r else x,
                    (x * y) >> 32, (sx * sy) >> 32, min(x + y, M), sat(sx + sy, -2 ** 31, 2 ** 31 - 1),
                    max(x - y, 0), sat(sx - sy, -2 ** 31, 2 ** 31 - 1), (x + y) >> 1,
                    (sx + sy + 1) >> 1, (x & ~z) | (y & z), y if z != 0 else x,
                    (x & 0xFFFFFF) * (y & 0xFFFFFF)])
    c.eq(3, np.array([[v & M for v in row] for row in out], dtype=np.uint32))


# ----------------------------------------------------------------------------
# ext_float

@inputs
def ext_float(rng):
    n = 256
    x = (rng.uniform(-1000, 1000, n) * 2.0 ** rng.integers(-8, 4, n)).astype(np.float32)
    x[:14] = [0.5, 1.5, 2.5, -0.5, -2.5, 3.0, -3.0, 1e-10, -1e-10, 0.49999997, 8388609.0,
              -7.25, 1.0, -1e-3]
    y = rng.uniform(-1000, 1000, n).astype(np.float32)
    y[:14] = [2.0, -1.5, 3.0, 0.5, 2.5, -3.0, 1.0, 1.0, 1.0, -0.49999997, 2.0, 7.25, 3.0, 1.0]
    y[20:30] = -x[20:30]           # |x| == |y| ties for maxmag/minmag
    z = rng.uniform(-1000, 1000, n).astype(np.float32)
    w = rng.uniform(-1000, 1000, n).astype(np.float32)
    w[::7] = np.nan
    k = rng.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32)
    return {"x": x, "y": y, "z": z, "w": w, "k": k}


def ieee_remainder(x, y):
    out = []
    for a, b in zip(x.tolist(), y.tolist()):
        q = Fraction(a) / Fraction(b)
        r = Fraction(a) - round(q) * Fraction(b)     # round() of a Fraction is half-even
        out.append(float(r) if r != 0 else np.copysign(0.0, a))
    return np.array(out, dtype=np.float32)


@check
def ext_float(c):
    x, y, z = c.inp(0, np.float32), c.inp(1, np.float32), c.inp(2, np.float32)
    w, kraw = c.inp(3, np.float32), c.inp(4, np.uint32)
    f32 = np.float32
    kk = (kraw & 15).astype(np.int32) - 8
    x64 = x.astype(np.float64)
    rnd = (np.sign(x64) * np.floor(np.abs(x64) + 0.5)).astype(f32)
    rnd = np.where(rnd == 0, np.copysign(f32(0), x), rnd)
    mfrac, mint = np.modf(x)
    fl = np.floor(x)
    fract = np.minimum((x - fl).astype(f32), f32(0.99999994))
    ax, ay = np.abs(x), np.abs(y)
    maxmag = np.where(ax > ay, x, np.where(ay > ax, y, np.fmax(x, y)))
    minmag = np.where(ax < ay, x, np.where(ay < ax, y, np.fmin(x, y)))
    sign = lambda v: np.where(np.isnan(v), f32(0), np.where(v == 0, v, np.sign(v))).astype(f32)
    mant, ex = np.frexp(x)
    with np.errstate(all="ignore"):
        cols = [fma_f32(x, y, z), (np.floor(x) * np.floor(y)).astype(f32) + z, np.fmin(x, w),
                np.fmax(w, x), np.abs(x), np.floor(x), np.ceil(x), np.trunc(x), rnd, np.rint(x),
                np.copysign(x, y), np.minimum(np.maximum(x, f32(-10)), f32(10)),
                np.ldexp(x, kk).astype(f32), mfrac, mint, fract, fl, maxmag, minmag, sign(x),
                np.where(x > y, (x - y).astype(f32), f32(0)), mant.astype(f32),
                ex.astype(np.int32).view(f32), np.nextafter(x, y), np.fmod(x, y),
                ieee_remainder(x, y), (ex.astype(np.int32) - 1).view(f32), sign(w)]
    c.eq(5, np.stack([np.asarray(col, dtype=f32) for col in cols], axis=1))


# ----------------------------------------------------------------------------
# ext_transcendental

@inputs
def ext_transcendental(rng):
    n = 256
    k = rng.integers(-20, 21, n).astype(np.float32)
    a = rng.uniform(-10, 10, n).astype(np.float32)
    a[:8] = [0.0, 1.0, -1.0, 0.5, 3.14159265, -3.14159265, 1e-4, 9.99]
    return {"k": k, "a": a}


def ref_f32(fn, v):
    """float64 evaluation rounded to f32: the correctly rounded result except in
    astronomically rare near-halfway cases (irrelevant at a 4-ulp tolerance)."""
    return fn(v.astype(np.float64)).astype(np.float32)


@check
def ext_transcendental(c):
    k, a = c.inp(0, np.float32), c.inp(1, np.float32)
    i = np.arange(c.n, dtype=np.float32)
    c.eq(2, np.stack([np.exp2(k), k, i, np.exp2(-k)], axis=1).astype(np.float32))
    b = (np.abs(a) + np.float32(2.0 ** -10)).astype(np.float32)
    want = np.stack([ref_f32(np.exp, a), ref_f32(np.exp2, a), ref_f32(np.log, b),
                     ref_f32(np.log2, b), ref_f32(np.sqrt, b), ref_f32(lambda v: 1 / np.sqrt(v), b),
                     ref_f32(np.sin, a), ref_f32(np.cos, a)], axis=1)
    c.close(3, want, 4)


# ----------------------------------------------------------------------------
# subgroup helpers: subgroups are consecutive runs of the linear local id
# (x fastest), which is how the Intel runtimes and spv-sim form them.

def sg_of(c, sg):
    """(subgroup base global index, lane) for every work-item of a 1-D launch."""
    g = np.arange(c.n)
    lid = g % c.lsize[0]
    return g - lid % sg, lid % sg


@inputs
def sg_intel_shuffle_sg8(rng):
    return {"a": rng.integers(0, 1 << 32, 64, dtype=np.uint64).astype(np.uint32),
            "f": rng.uniform(-100, 100, 64).astype(np.float32),
            "l": rng.integers(0, 1 << 64, 64, dtype=np.uint64)}


@check
def sg_intel_shuffle_sg8(c):
    S = 8
    a, f, l = c.inp(0, np.uint32), c.inp(1, np.float32), c.inp(2, np.uint64)
    nx, pv = np.roll(a, -8), np.roll(a, -16)
    base, lane = sg_of(c, S)
    down = lambda cur, nxt, d: np.where(lane + d < S, cur[base + (lane + d) % S], nxt[base + (lane + d) % S])
    up = lambda prv, cur, d: np.where(lane >= d, cur[base + (lane - d) % S], prv[base + (lane - d) % S])
    out = np.stack([a[base + (3 * lane + 1) % S], down(a, nx, 3), up(pv, a, 5), a[base + (lane ^ 5)],
                    f.view(np.uint32)[base + 7 - lane], lane, a[base + (lane + 2) % S],
                    a[base + (lane + 2) % S] + 1], axis=1)
    c.eq(3, out.astype(np.uint32))
    c.eq(4, np.stack([l[base + (lane ^ 2)], down(l, l, 1)], axis=1))


# ----------------------------------------------------------------------------
# sg_intel_block_sg16

@inputs
def sg_intel_block_sg16(rng):
    u = lambda n: rng.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32)
    return {"src": u(128), "src2": u(256), "src4": u(512),
            "src16": rng.integers(0, 1 << 16, 128, dtype=np.uint16)}


@check
def sg_intel_block_sg16(c):
    S = 16
    src, src2, src4 = c.inp(0, np.uint32), c.inp(1, np.uint32), c.inp(2, np.uint32)
    src16 = c.inp(3, np.uint16).astype(np.uint32)
    g = np.arange(c.n)
    sgi, lane = g // S, g % S              # 1-D, local size a multiple of 16
    M = np.uint32
    out = src * M(3) + lane.astype(M)
    out2 = np.zeros((8, 2, S), dtype=np.uint32)
    out2[sgi, 0, lane] = src2[sgi * 32 + lane] ^ lane.astype(M)
    out2[sgi, 1, lane] = src2[sgi * 32 + 16 + lane] + src16[sgi * S + lane]
    out4 = sum(M(j + 1) * src4[sgi * 64 + j * S + lane] for j in range(4))
    sg_in_wg = (g % c.lsize[0]) // S
    other = (g - (g % c.lsize[0])) + (sg_in_wg ^ 1) * S + lane
    with np.errstate(over="ignore"):
        c.eq(4, out)
        c.eq(5, out2.reshape(-1))
        c.eq(6, out4.astype(np.uint32))
        c.eq(7, src[other])


# ----------------------------------------------------------------------------
# builtins_*: subgroups = consecutive runs of S in the linear local id
# LocalInvocationIndex = lx + ly*Lx + lz*Lx*Ly.

def builtins_model(c, S):
    G, L = np.array(c.gsize), np.array(c.lsize)
    out = np.zeros((c.n, 32), dtype=np.uint32)
    Lt = int(np.prod(L))
    for z in range(G[2]):
        for y in range(G[1]):
            for x in range(G[0]):
                g = np.array([x, y, z])
                lid = g % L
                lin = x + y * G[0] + z * G[0] * G[1]
                lidx = lid[0] + lid[1] * L[0] + lid[2] * L[0] * L[1]
                nsg = -(-Lt // S)
                row = [*g, *lid, *(g // L), *(G // L), *L, *G, 0, 0, 0, lin, lidx,
                       lidx % S, lidx // S, min(S, Lt - (lidx // S) * S), S, nsg, 0, 0, 0, 0]
                out[lin] = row
    return out


def builtins_check(S):
    def fn(c):
        c.eq(0, builtins_model(c, S))
    return fn


CHECKS["builtins_1d_sg8"] = builtins_check(8)
CHECKS["builtins_3d_sg16"] = builtins_check(16)
CHECKS["builtins_2d_sg32"] = builtins_check(32)


# ----------------------------------------------------------------------------
# sg_intel_sg32

@inputs
def sg_intel_sg32(rng):
    return {"a": rng.integers(0, 1 << 32, 128, dtype=np.uint64).astype(np.uint32),
            "f": rng.uniform(-1, 1, 128).astype(np.float32),
            "b8": rng.integers(0, 256, 128, dtype=np.uint8),
            "b64": rng.integers(0, 1 << 64, 128, dtype=np.uint64)}


@check
def sg_intel_sg32(c):
    S = 32
    a, f = c.inp(0, np.uint32), c.inp(1, np.float32)
    b8, b64 = c.inp(2, np.uint8), c.inp(3, np.uint64)
    base, lane = sg_of(c, S)
    g = np.arange(c.n)
    w = a[g ^ 32]
    d = lane + 17
    down = np.where(d < S, a[base + d % S], w[base + d % S])
    u = lane - 1
    up = np.where(u >= 0, a[base + u % S], w[base + u % S])
    c.eq(4, np.stack([f.view(np.uint32)[base + (5 * lane + 3) % S], down, up, a], axis=1)
         .astype(np.uint32))
    c.eq(5, (b8 ^ lane.astype(np.uint8)).astype(np.uint8))
    c.eq(6, b64 + lane.astype(np.uint64))


# ----------------------------------------------------------------------------
# sg_khr_ballot_sg16

@inputs
def sg_khr_ballot_sg16(rng):
    a = rng.integers(0, 1 << 32, 64, dtype=np.uint64).astype(np.uint32)
    a[0] |= 1                                   # every subgroup has an odd value
    a[16:32] |= 1                               # subgroup 1: all odd
    a[32:48] = (a[32:48] & 0x0FFFFFFF) | 0x50000000   # subgroup 2: equal top nibble
    a[48:64] &= ~np.uint32(1)                    # subgroup 3: all even ...
    a[60] |= 1                                  # ... except one
    return {"a": a}


@check
def sg_khr_ballot_sg16(c):
    S = 16
    a = c.inp(0, np.uint32)
    out = np.zeros((c.n, 16), dtype=np.uint32)
    for b0 in range(0, c.n, S):
        v = a[b0:b0 + S].astype(np.int64)
        p = (v & 1) == 1
        ballot = sum(1 << l for l in range(S) if p[l])
        assert ballot, "inputs must give every subgroup a non-zero ballot (FindLSB/MSB of 0 is undefined)"
        for l in range(S):
            lo = l < 10
            act = [m for m in range(S) if (m < 10) == lo]
            out[b0 + l] = [l == 0, v[5], v[0], ballot, 0, p[l], p[l ^ 1], p.sum(), p[:l + 1].sum(),
                           p[:l].sum(), (ballot & -ballot).bit_length() - 1, ballot.bit_length() - 1,
                           p.all() | (p.any() << 1) | (len(set(v >> 28)) == 1) << 2,
                           sum(1 << m for m in act), l == act[0], v[act[0]]]
    c.eq(1, out)


# ----------------------------------------------------------------------------
# sg_khr_arith_sg32

@inputs
def sg_khr_arith_sg32(rng):
    a = rng.integers(0, 1 << 32, 128, dtype=np.uint64).astype(np.uint32)
    a[96:128] = rng.integers(0, 1 << 32, 32, dtype=np.uint64).astype(np.uint32) & ~np.uint32(100)
    return {"a": a, "l": rng.integers(0, 1 << 64, 128, dtype=np.uint64)}


@check
def sg_khr_arith_sg32(c):
    S, M = 32, 0xFFFFFFFF
    a, lv = c.inp(0, np.uint32).tolist(), c.inp(1, np.uint64).tolist()
    f32b = lambda x: int(np.array(x, dtype=np.float32).view(np.uint32))
    out = []
    for b0 in range(0, c.n, S):
        v = a[b0:b0 + S]
        f = [float((x & 1023) - 512) for x in v]
        prod = 1
        for x in v:
            prod = prod * (x | 1) & M
        andv, orv, xorv = M, 0, 0
        for x in v:
            andv &= x
            orv |= x
            xorv ^= x
        act = [m for m in range(S) if m % 3 == 0]
        for l in range(S):
            cl4, cl8 = l // 4 * 4, l // 8 * 8
            lsum = sum(lv[b0:b0 + S]) & ((1 << 64) - 1)
            out.append([sum(v) & M, sum(v[:l + 1]) & M, sum(v[:l]) & M, lsum & M, lsum >> 32,
                        f32b(sum(f)), f32b(sum(f[:l + 1])), f32b(min(f)), f32b(max(f[:l + 1])),
                        prod, min(v, key=to_s32), max(v), andv, orv, xorv,
                        int(any(x & 100 for x in v)), sum(v[cl4:cl4 + 4]) & M, max(v[cl8:cl8 + 8]),
                        sum(v[m] for m in act) & M if l % 3 == 0 else 0,
                        sum(v[m] for m in act if m <= l) & M if l % 3 == 0 else 0])
    c.eq(2, np.array(out, dtype=np.uint32))


# ----------------------------------------------------------------------------
# sg_khr_shuffle_sg8

@inputs
def sg_khr_shuffle_sg8(rng):
    return {"a": rng.integers(0, 1 << 32, 64, dtype=np.uint64).astype(np.uint32),
            "h": rng.uniform(-100, 100, 64).astype(np.float16),
            "l": rng.integers(0, 1 << 64, 64, dtype=np.uint64)}


@check
def sg_khr_shuffle_sg8(c):
    S = 8
    a, h, l = c.inp(0, np.uint32), c.inp(1, np.float16).view(np.uint16), c.inp(2, np.uint64)
    base, lane = sg_of(c, S)
    idx = base + (lane * 5 + 2) % S
    FF = np.uint32(0xFFFFFFFF)
    out = np.stack([a[idx], a[base + (lane ^ 3)], np.where(lane >= 2, a[base + (lane - 2) % S], FF),
                    np.where(lane + 3 < S, a[base + (lane + 3) % S], FF), a[base + (lane + 3) % S],
                    a[base + ((lane + 1) & 3) + (lane & ~3)], h[base + 7 - lane].astype(np.uint32),
                    (l[idx] & np.uint64(0xFFFFFFFF)).astype(np.uint32),
                    (l[idx] >> np.uint64(32)).astype(np.uint32), lane ^ 5], axis=1)
    c.eq(3, out.astype(np.uint32))


# ----------------------------------------------------------------------------
# group_collectives

@inputs
def group_collectives(rng):
    a = rng.integers(0, 1 << 32, 192, dtype=np.uint64).astype(np.uint32)
    a[0:64] = (a[0:64] & ~np.uint32(1023)) | rng.integers(0, 1000, 64).astype(np.uint32)
    a[70] |= 1023                         # work-group 0: all low bits < 1000; 1: one > 1000
    a[64:128] |= 1                        # work-group 1: every value odd
    a[144:160] |= 1                       # work-group 2: its second subgroup all odd
    return {"a": a}


@check
def group_collectives(c):
    WG, S, M = 64, 16, 0xFFFFFFFF
    a = c.inp(0, np.uint32).tolist()
    f32b = lambda x: int(np.array(x, dtype=np.float32).view(np.uint32))
    out = []
    for w0 in range(0, c.n, WG):
        v = a[w0:w0 + WG]
        f = [float((x & 1023) - 512) for x in v]
        s64 = sum(x << 16 for x in v) & ((1 << 64) - 1)
        wg_any_odd = any(x & 1 for x in v)
        for l in range(WG):
            s0 = l // S * S
            sv = v[s0:s0 + S]
            ls = l - s0
            excl = [to_s32(x) for x in sv[:ls]]
            out.append([sum(v) & M, sum(v[:l + 1]) & M, sum(v[:l]) & M, s64 & M, s64 >> 32,
                        f32b(sum(f)), min(v, key=to_s32), max(v), f32b(max(f)), v[37],
                        int(all(x & 1023 < 1000 for x in v)) | 2 * any(x & 1023 > 1000 for x in v),
                        sum(sv) & M, max(sv[:ls + 1]), sv[3],
                        int(wg_any_odd) | (2 if all(x & 1 for x in sv) else 0),
                        (min(excl) if excl else 2 ** 31 - 1) & M])
    c.eq(1, np.array(out, dtype=np.uint32))


# ----------------------------------------------------------------------------
# barrier_local

@inputs
def barrier_local(rng):
    return {"a": rng.integers(0, 1 << 32, 256, dtype=np.uint64).astype(np.uint32)}


@check
def barrier_local(c):
    a = c.inp(0, np.uint32).reshape(-1, 64)
    c.eq(1, a[:, ::-1].reshape(-1))
    c.eq(2, np.roll(a, -1, axis=1).reshape(-1))
    c.eq(3, (a.astype(np.uint64).sum(axis=1) & 0xFFFFFFFF).astype(np.uint32))


# ----------------------------------------------------------------------------
# atomics

ATOMIC_INIT = [0, 0, 0, 0x7FFFFFFF, 0, 0xFFFFFFFF, 0, 0, 0, 1000000, 0xFFFFFFFF, 0x80000000,
               0, 0, 5, 0]


@inputs
def atomics(rng):
    return {"a": rng.integers(0, 1 << 32, 256, dtype=np.uint64).astype(np.uint32),
            "ctr": np.array(ATOMIC_INIT, dtype=np.uint32),
            "c64": np.array([123456789], dtype=np.uint64)}


@check
def atomics(c):
    M = 0xFFFFFFFF
    a = c.inp(0, np.uint32).tolist()
    init = c.inp(1, np.uint32).tolist()
    n = len(a)
    orv = xorv = 0
    andv = init[5]
    for x in a:
        orv |= x
        xorv ^= x
        andv &= x
    ctr = [n, (init[1] + sum(a)) & M, max([init[2]] + a), min([init[3]] + a, key=to_s32) & M,
           init[4] | orv, andv, init[6] ^ xorv, (init[7] - sum(a)) & M, init[8] + n, init[9] - n,
           min([init[10]] + a), max([init[11]] + a, key=to_s32) & M, (init[12] + sum(a)) & M, 42, 7,
           (init[15] + init[14] + 7 * (n - 1)) & M]
    c.eq(1, np.array(ctr, dtype=np.uint32))
    c.eq(2, np.ones(n, dtype=np.uint32))
    c.eq(3, np.array([[64, max(a[w:w + 64])] for w in range(0, n, 64)], dtype=np.uint32))
    c.eq(4, np.array([(int(c.inp(4, np.uint64)[0]) + sum(x << 20 for x in a)) % (1 << 64)],
                     dtype=np.uint64))


# ----------------------------------------------------------------------------
# ext_vload_vstore

def round_f16_mode(x, mode):
    """float16 of a float under RTE/RTZ/RTP (x finite, within half's normal range)."""
    fr = Fraction(float(x))
    h = np.float16(float(x))
    cands = [np.nextafter(h, np.float16(-np.inf)), h, np.nextafter(h, np.float16(np.inf))]
    val = lambda c: Fraction(float(c))
    if mode == "RTE":
        return min(cands, key=lambda c: (abs(val(c) - fr), int(np.array(c).view(np.uint16)) & 1))
    if mode == "RTZ":
        return max((c for c in cands if abs(val(c)) <= abs(fr)), key=lambda c: abs(val(c)))
    if mode == "RTP":
        return min((c for c in cands if val(c) >= fr), key=val)
    raise ValueError(mode)


@inputs
def ext_vload_vstore(rng):
    f = (rng.choice([-1, 1], 128) * rng.uniform(1e-3, 1000, 128)).astype(np.float32)
    f[:6] = [1.0, -1.0, 1.00048828125, 2049.0, -2049.0, 0.1]   # exact, tie, odd ties, inexact
    return {"src": rng.integers(0, 1 << 32, 512, dtype=np.uint64).astype(np.uint32),
            "hsrc": rng.uniform(-100, 100, 512).astype(np.float16), "f": f}


@check
def ext_vload_vstore(c):
    src = c.inp(0, np.uint32).reshape(-1, 4)
    h = c.inp(1, np.float16).astype(np.float32).reshape(-1, 4)
    f = c.inp(2, np.float32)
    F = np.float32
    c.eq(3, (src + np.array([1, 2, 3, 4], dtype=np.uint32)).reshape(-1))
    c.eq(4, ((h[:, 0] + h[:, 1] * F(2)) + h[:, 2] * F(3)) + h[:, 3] * F(4))
    c.eq(5, np.array([round_f16_mode(x, "RTE") for x in f], dtype=np.float16))
    c.eq(6, np.array([round_f16_mode(x, "RTZ") for x in f], dtype=np.float16))
    c.eq(7, np.array([[round_f16_mode(x, "RTP"), round_f16_mode(-x, "RTP")] for x in f],
                     dtype=np.float16).reshape(-1))


# ----------------------------------------------------------------------------
# sg_loop_reduce_sg16

@inputs
def sg_loop_reduce_sg16(rng):
    return {"a": rng.integers(0, 1 << 32, 64, dtype=np.uint64).astype(np.uint32)}


@check
def sg_loop_reduce_sg16(c):
    S, M = 16, 0xFFFFFFFF
    a = c.inp(0, np.uint32).tolist()
    out = []
    for g in range(c.n):
        b, l = g - g % S, g % S
        out.append([sum(a[b:b + S]) & M, sum(a[b + (l + k) % S] for k in range(l % 4 + 1)) & M])
    c.eq(1, np.array(out, dtype=np.uint32))
