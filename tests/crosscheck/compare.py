#!/usr/bin/env python3
"""Compare a run's output buffers with the committed reference outputs, the way
the Rust cross-check test does (numpy only, no OpenCL needed):

    compare.py NAME OUTDIR      e.g. after
    spv-sim run NAME.spv --launch kernels/NAME.launch.json --out OUTDIR

Every expected/NAME/arg<i>.bin must exist in OUTDIR with the same size and be
bit-identical, except buffers whose launch entry has "ulp": N (and "type"):
those are compared element-wise as that float type and may differ by at most
N units in the last place (NaN matches NaN).
"""
import json
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
NP_TYPES = {
    "i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64,
    "u8": np.uint8, "u16": np.uint16, "u32": np.uint32, "u64": np.uint64,
    "f16": np.float16, "f32": np.float32, "f64": np.float64,
}


def ulp_diff(a, b):
    """|a - b| in units in the last place (distance of the ordered integer
    encodings); NaN vs NaN is 0, NaN vs a number is 2**62."""
    ib = {2: np.int16, 4: np.int32, 8: np.int64}[a.dtype.itemsize]
    sign = 1 << (8 * a.dtype.itemsize - 1)
    ia = [int(x) for x in a.view(ib)]
    jb = [int(x) for x in b.view(ib)]
    d = np.array([abs((-(x + sign) if x < 0 else x) - (-(y + sign) if y < 0 else y))
                  for x, y in zip(ia, jb)], dtype=object)
    na, nb = np.isnan(a), np.isnan(b)
    d = np.where(na & nb, 0, np.where(na | nb, 1 << 62, d))
    return d.astype(np.int64)


def read_args(d):
    return {int(f[3:-4]): open(os.path.join(d, f), "rb").read()
            for f in os.listdir(d) if f.startswith("arg") and f.endswith(".bin")}


def compare(name, launch, got, expected):
    """Raises AssertionError on the first mismatching buffer."""
    if sorted(expected) != sorted(got):
        raise AssertionError(f"{name}: buffers {sorted(got)} written, expected {sorted(expected)}")
    for i, data in sorted(got.items()):
        want = expected[i]
        if data == want:
            continue
        if len(data) != len(want):
            raise AssertionError(f"{name}: arg{i} has {len(data)} bytes, expected {len(want)}")
        arg = launch["args"][i]
        if "ulp" not in arg:
            j = next(k for k in range(len(data)) if data[k] != want[k])
            raise AssertionError(f"{name}: arg{i} differs first at byte {j}")
        dt = np.dtype(NP_TYPES[arg["type"]])
        d = ulp_diff(np.frombuffer(data, dt), np.frombuffer(want, dt))
        if d.max() > arg["ulp"]:
            j = int(np.argmax(d))
            raise AssertionError(f"{name}: arg{i} element {j} is {d[j]} ulp off (> {arg['ulp']})")


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    name, outdir = sys.argv[1], sys.argv[2]
    launch = json.load(open(os.path.join(HERE, "kernels", name + ".launch.json")))
    try:
        compare(name, launch, read_args(outdir), read_args(os.path.join(HERE, "expected", name)))
    except AssertionError as e:
        sys.exit(f"MISMATCH {e}")
    print(f"OK {name}")


if __name__ == "__main__":
    main()
