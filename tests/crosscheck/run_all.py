#!/usr/bin/env python3
"""Run every cross-check kernel on the OpenCL CPU runtime, check the results
against an independent numpy model of what each kernel computes (cases.py),
and write the reference outputs to expected/NAME/arg<i>.bin.

    run_all.py [--write-inputs] [--verify] [-k SUBSTRING]

  --write-inputs  regenerate kernels/data/*.bin from cases.py (deterministic seeds)
  --verify        do not write expected/; instead require the runtime's output to
                  equal the committed expected/ files (bit-exact, or within the
                  launch's "ulp" for buffers marked so)
  -k SUBSTRING    only kernels whose name contains SUBSTRING
  --selftest      also prove the models are sharp: flip one bit in each output
                  buffer (start, middle, end) and require the check to fail

Each kernel is also assembled and validated with spirv-val (OpenCL 2.2 rules
for SPIR-V 1.2 modules, `--target-env spv1.3` for the SPIR-V 1.3 ones: spirv-val
has no OpenCL environment for 1.3; a kernel may override this with a
`; val-env: ENV` line saying why), and run twice to catch nondeterminism.
Ends with a line 'N passed, N failed'; exit status 1 if anything failed.
Run with the venv python and environment from .ci/install-opencl-cpu.sh.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import traceback
import warnings
import zlib

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import cases  # noqa: E402
import compare  # noqa: E402
import run_opencl  # noqa: E402

KDIR = os.path.join(HERE, "kernels")
EXPECTED = os.path.join(HERE, "expected")


def kernel_names():
    return sorted(f[:-len(".spvasm")] for f in os.listdir(KDIR) if f.endswith(".spvasm"))


def validate(name, tmp):
    src = os.path.join(KDIR, name + ".spvasm")
    spv = os.path.join(tmp, name + ".spv")
    env = run_opencl.assemble(src, spv)
    m = re.search(r"^\s*;\s*val-env:\s*(\S+)", open(src).read(), re.M)
    if m:       # the kernel says why it cannot use the default
        val_env = m.group(1)
    else:
        val_env = "opencl2.2" if env in ("spv1.0", "spv1.1", "spv1.2") else env
    r = subprocess.run([run_opencl.spirv_tool("spirv-val"), "--target-env", val_env, spv],
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise AssertionError(f"spirv-val --target-env {val_env} failed:\n{r.stdout}{r.stderr}")
    return env, val_env


def write_inputs(name):
    gen = cases.INPUTS.get(name)
    if gen is None:
        return
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    os.makedirs(os.path.join(KDIR, "data"), exist_ok=True)
    for key, arr in gen(rng).items():
        path = os.path.join(KDIR, "data", f"{name}.{key}.bin")
        with open(path, "wb") as f:
            f.write(np.ascontiguousarray(arr).tobytes())


def compare_expected(name, launch, got):
    """Compare against committed expected/NAME the way the Rust test will."""
    compare.compare(name, launch, got, compare.read_args(os.path.join(EXPECTED, name)))


def run_subprocess(spvasm, launch_path, outdir):
    """run_opencl.py in a child process: a runtime crash fails one kernel, not the suite."""
    r = subprocess.run([sys.executable, os.path.join(HERE, "run_opencl.py"), spvasm, launch_path, outdir],
                       capture_output=True, text=True)
    if r.returncode != 0:
        lines = [l for l in (r.stdout + r.stderr).splitlines()
                 if l.strip() and "CompilerWarning" not in l and "_prg.build" not in l]
        raise AssertionError(f"run_opencl.py exited with {r.returncode}:\n  " + "\n  ".join(lines[-12:]))
    m = re.search(r"subgroup size (\d+)", r.stdout)
    return {"subgroup_size": int(m.group(1)) if m else None}


def selftest(name, launch, launch_path, got, check):
    for i, data in got.items():
        t = launch["args"][i].get("type")
        e = np.dtype(cases.NP_TYPES[t]).itemsize if t else 1
        for pos in (0, len(data) // 2, len(data) - 1):
            p = (pos // e) * e + e - 1          # top byte: sign/exponent for floats
            bad = bytearray(data)
            bad[p] ^= 0x40
            outs = dict(got)
            outs[i] = bytes(bad)
            ctx = cases.Ctx(name, launch, os.path.dirname(launch_path), outs, None)
            try:
                check(ctx)
                ctx.finish()
            except AssertionError:
                continue
            raise AssertionError(f"selftest: a flipped bit in arg{i} byte {p} went unnoticed")


def run_one(name, args, tmp):
    spvasm = os.path.join(KDIR, name + ".spvasm")
    launch_path = os.path.join(KDIR, name + ".launch.json")
    launch = json.load(open(launch_path))
    env, val_env = validate(name, tmp)
    out1 = os.path.join(tmp, name + ".1")
    out2 = os.path.join(tmp, name + ".2")
    info = run_subprocess(spvasm, launch_path, out1)
    run_subprocess(spvasm, launch_path, out2)
    got, again = compare.read_args(out1), compare.read_args(out2)
    if got != again:
        raise AssertionError("two runs gave different outputs (nondeterministic kernel)")
    check = cases.CHECKS.get(name)
    if check is None:
        raise AssertionError(f"no reference check for {name} in cases.py")
    ctx = cases.Ctx(name, launch, os.path.dirname(launch_path), got, info["subgroup_size"])
    check(ctx)
    ctx.finish()
    if args.selftest:
        selftest(name, launch, launch_path, got, check)
    if args.verify:
        compare_expected(name, launch, got)
    else:
        d = os.path.join(EXPECTED, name)
        os.makedirs(d, exist_ok=True)
        for f in os.listdir(d):
            os.remove(os.path.join(d, f))
        for i, data in got.items():
            with open(os.path.join(d, f"arg{i}.bin"), "wb") as f:
                f.write(data)
    req = re.search(r"OpExecutionMode\s+%\S+\s+SubgroupSize\s+(\d+)", open(spvasm).read())
    if req and int(req.group(1)) != info["subgroup_size"]:
        raise AssertionError(f"runtime used subgroup size {info['subgroup_size']}, kernel requires {req.group(1)}")
    sg = f"subgroup size {req.group(1)}" if req else "no required subgroup size"
    return f"{env}, spirv-val {val_env}, {sg}" + ctx.note()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--write-inputs", action="store_true")
    ap.add_argument("--verify", action="store_true")
    ap.add_argument("-k", default="")
    ap.add_argument("--selftest", action="store_true")
    args = ap.parse_args()
    warnings.filterwarnings("ignore", module="pyopencl")
    warnings.filterwarnings("ignore", message=".*compiler output.*")
    names = [n for n in kernel_names() if args.k in n]
    passed, failed = 0, []
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            if args.write_inputs:
                write_inputs(name)
            try:
                note = run_one(name, args, tmp)
                print(f"PASS {name}: {note}")
                passed += 1
            except Exception as e:  # report every kernel, then fail at the end
                print(f"FAIL {name}: {e}")
                if os.environ.get("CROSSCHECK_TRACEBACK"):
                    traceback.print_exc()
                failed.append(name)
    print(f"{passed} passed, {len(failed)} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
