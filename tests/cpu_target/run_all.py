#!/usr/bin/env python3
"""Kernels for Intel GPUs on Intel's OpenCL CPU runtime, through `spv-opt -O --target cpu`:

- every Triton kernel of tests/corpus/triton (both line-info forms), run twice on the same
  inputs: on the CPU runtime and on spv-sim. The buffers must agree: bit for bit for integer
  buffers, within MAX_ULP units in the last place for float buffers (the buffer's type, from
  the launch or the kernel's parameter; the CPU compiler may evaluate exp/division differently
  from the simulator's correctly rounded operations);
- every tests/corpus/tensor-hw case (SPV_NV_tensor_addressing kernels; -O runs
  convert-tensor-addressing): the CPU runtime must write expected_<i>.bin byte for byte (the
  H100-checked results).

An `-O --target cpu` output above --max-bytes (default 2 MiB) is not given to the runtime:
the line says SKIP and why, and the summary counts it. A guard against builds of many minutes:
the runtime's LLVM optimizer took over 10 minutes on the 1.5 MB output for tensor-hw
bg_f16_64x48x80 while lower-mma emulated MMAs with subgroup shuffles (4 min 23 s for
`-k bg_f16` with the broadcasts it uses now), and -cl-opt-disable is no way around it:
without its vectorizer the runtime runs subgroup kernels with wrong results.

    run_all.py [--spv-opt PATH] [--spv-sim PATH] [-k SUBSTRING] [--keep DIR] [--max-bytes N]

Needs the environment from .ci/install-opencl-cpu.sh and its venv's python (pyopencl, numpy).
Ends with 'N passed, N failed, N skipped (above --max-bytes)' (exit status 1 if anything failed).
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tests", "crosscheck"))
import run_opencl  # noqa: E402

MAX_ULP = 4
MAX_BYTES = 2 << 20


class TooLarge(Exception):
    """The module is above --max-bytes: not given to the runtime."""


def size_check(spv, max_bytes):
    size = os.path.getsize(spv)
    if size > max_bytes:
        raise TooLarge(f"the -O --target cpu output has {size:,} bytes, above --max-bytes "
                       f"{max_bytes:,}: not given to the runtime's compiler")

FLOAT_TYPES = {"f32": (np.float32, np.int32), "f16": (np.float16, np.int16)}


def cases():
    corpus = os.path.join(ROOT, "tests", "corpus", "triton")
    launches = os.path.join(corpus, "launches")
    for sub in ["", "nodbg"]:
        d = os.path.join(corpus, sub)
        for f in sorted(os.listdir(d)):
            if not f.endswith(".spv"):
                continue
            launch = os.path.join(launches, f[:-4] + ".launch.json")
            if os.path.exists(launch):
                yield (os.path.join(sub, f) if sub else f), os.path.join(d, f), launch


def run_on_cpu(spv, launch_path, outdir):
    """Builds the binary with clCreateProgramWithIL and runs the launch (buffers from files)."""
    import pyopencl as cl
    launch = json.load(open(launch_path))
    ctx, queue, dev = run_opencl.context()
    prg = cl.Program(ctx, open(spv, "rb").read()).build()
    kernel = getattr(prg, launch["kernel"])
    args, buffers = run_opencl.make_args(launch, os.path.dirname(launch_path), ctx)
    kernel(queue, tuple(launch["global_size"]), tuple(launch["local_size"]), *args)
    queue.finish()
    os.makedirs(outdir, exist_ok=True)
    for i, (buf, n) in buffers.items():
        host = np.empty(n, dtype=np.uint8)
        cl.enqueue_copy(queue, host, buf)
        open(os.path.join(outdir, f"arg{i}.bin"), "wb").write(host.tobytes())


def ulp_distance(a, b, ftype, itype):
    x = np.frombuffer(a, dtype=ftype)
    y = np.frombuffer(b, dtype=ftype)
    xi = x.view(itype).astype(np.int64)
    yi = y.view(itype).astype(np.int64)
    # Map the sign-magnitude encoding onto a monotonic integer line.
    bits = 8 * np.dtype(itype).itemsize
    xi = np.where(xi < 0, -(xi & ((1 << (bits - 1)) - 1)), xi)
    yi = np.where(yi < 0, -(yi & ((1 << (bits - 1)) - 1)), yi)
    both_nan = np.isnan(x) & np.isnan(y)
    d = np.abs(xi - yi)
    d[both_nan] = 0
    return int(d.max()) if d.size else 0


def check(name, spv, launch, tools, work, max_bytes):
    out_spv = os.path.join(work, "cpu.spv")
    subprocess.run([tools["spv-opt"], "-O", "--target", "cpu", spv, "-o", out_spv],
                   check=True, capture_output=True)
    size_check(out_spv, max_bytes)
    sim_out, inputs, cpu_out = (os.path.join(work, d) for d in ("sim", "in", "cpu"))
    subprocess.run([tools["spv-sim"], "run", out_spv, "--launch", launch, "--out", sim_out,
                    "--inputs", inputs], check=True, capture_output=True)
    run_on_cpu(out_spv, os.path.join(inputs, "launch.json"), cpu_out)
    args = json.load(open(os.path.join(inputs, "launch.json")))["args"]
    notes = []
    for i, a in enumerate(args):
        if "buffer" not in a:
            continue
        s = open(os.path.join(sim_out, f"arg{i}.bin"), "rb").read()
        c = open(os.path.join(cpu_out, f"arg{i}.bin"), "rb").read()
        if s == c:
            continue
        t = a.get("type")
        if t not in FLOAT_TYPES:
            raise AssertionError(f"arg{i} ({t or 'bytes'}): CPU runtime and spv-sim differ")
        u = ulp_distance(s, c, *FLOAT_TYPES[t])
        if u > MAX_ULP:
            raise AssertionError(f"arg{i} ({t}): {u} ulp apart (bound {MAX_ULP})")
        notes.append(f"arg{i} within {u} ulp")
    return "bit-identical" if not notes else ", ".join(notes)


def check_tensor_hw(case_dir, tools, work, max_bytes):
    src = os.path.join(case_dir, "kernel.spvasm")
    out_spv = os.path.join(work, "cpu.spv")
    subprocess.run([tools["spv-opt"], "-O", "--target", "cpu", "--skip-validation", src,
                    "-o", out_spv], check=True, capture_output=True)
    size_check(out_spv, max_bytes)
    cpu_out = os.path.join(work, "cpu")
    run_on_cpu(out_spv, os.path.join(case_dir, "launch.json"), cpu_out)
    compared = 0
    for f in sorted(os.listdir(case_dir)):
        if f.startswith("expected_") and f.endswith(".bin"):
            i = f[len("expected_"):-4]
            want = open(os.path.join(case_dir, f), "rb").read()
            got = open(os.path.join(cpu_out, f"arg{i}.bin"), "rb").read()
            if want != got:
                first = next(k for k, (a, b) in enumerate(zip(want, got)) if a != b)
                raise AssertionError(f"arg{i} differs from expected_{i}.bin at byte {first}")
            compared += 1
    if not compared:
        raise AssertionError("no expected_<i>.bin")
    return f"{compared} buffer(s) = expected"


def main():
    ap = argparse.ArgumentParser()
    target_dir = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
    ap.add_argument("--spv-opt", default=os.path.join(target_dir, "release", "spv-opt"))
    ap.add_argument("--spv-sim", default=os.path.join(target_dir, "release", "spv-sim"))
    ap.add_argument("-k", default="")
    ap.add_argument("--keep")
    ap.add_argument("--max-bytes", type=int, default=MAX_BYTES)
    o = ap.parse_args()
    tools = {"spv-opt": o.spv_opt, "spv-sim": o.spv_sim}
    passed = failed = skipped = 0
    for name, spv, launch in cases():
        if o.k not in name:
            continue
        work = o.keep and os.path.join(o.keep, name.replace("/", "_"))
        with tempfile.TemporaryDirectory() as tmp:
            w = work or tmp
            os.makedirs(w, exist_ok=True)
            try:
                how = check(name, spv, launch, tools, w, o.max_bytes)
                print(f"PASS {name}: -O --target cpu on the OpenCL CPU runtime = spv-sim ({how})")
                passed += 1
            except TooLarge as e:
                print(f"SKIP {name}: {e}")
                skipped += 1
            except Exception as e:  # noqa: BLE001 - report every failure, keep going
                print(f"FAIL {name}: {e}")
                failed += 1
    hw = os.path.join(ROOT, "tests", "corpus", "tensor-hw")
    for case in sorted(os.listdir(hw)):
        d = os.path.join(hw, case)
        if o.k not in case or not os.path.exists(os.path.join(d, "kernel.spvasm")):
            continue
        with tempfile.TemporaryDirectory() as tmp:
            try:
                how = check_tensor_hw(d, tools, tmp, o.max_bytes)
                print(f"PASS tensor-hw/{case}: -O --target cpu on the OpenCL CPU runtime: {how}")
                passed += 1
            except TooLarge as e:
                print(f"SKIP tensor-hw/{case}: {e}")
                skipped += 1
            except Exception as e:  # noqa: BLE001
                print(f"FAIL tensor-hw/{case}: {e}")
                failed += 1
    print(f"{passed} passed, {failed} failed, {skipped} skipped (above --max-bytes)")
    sys.exit(1 if failed or not passed else 0)


if __name__ == "__main__":
    main()
