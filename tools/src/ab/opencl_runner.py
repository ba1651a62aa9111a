"""spv-ab's OpenCL runner (embedded in the spv-ab binary, run with the python given by
--python / $OPENCL_VENV/bin/python / python3, which needs pyopencl and numpy).

    python opencl_runner.py info DEVICE
    python opencl_runner.py run REQUEST.json

DEVICE is an index into every device of every platform, in platform order. `info` prints
{"device", "platform", "extensions", "il_version"} as JSON. `run` reads
{"device": N, "reps": R, "warmup": W, "runs": [{"name", "spv", "launch", "out"}]}: for each
run, the SPIR-V module `spv` is built with clCreateProgramWithIL (a module identical to the
previous run's reuses its build), the launch (spv-sim's
format, as `spv-sim run --inputs` writes it: buffer files, local sizes, scalars) runs once
from its initial buffers, whose final bytes go to OUT/arg<i>.bin; then W warm-up runs and R
timed runs, each from freshly uploaded initial buffers, timed by the kernel's profiling event
(start to end on the device). Prints {"device", "results": [{"name", "times_ns"},
{"name", "rejected"} (the device's compiler rejected the module: its log) or
{"name", "error"}]} as JSON on stdout; an error of one run does not stop the others.
"""
import hashlib
import json
import os
import sys
import warnings

import numpy as np
import pyopencl as cl

SCALARS = {
    "i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64,
    "u8": np.uint8, "u16": np.uint16, "u32": np.uint32, "u64": np.uint64,
    "f16": np.float16, "f32": np.float32, "f64": np.float64,
}


def devices():
    out = []
    for p in cl.get_platforms():
        for d in p.get_devices():
            out.append((p, d))
    return out


def pick(index):
    found = devices()
    if not found:
        raise RuntimeError("no OpenCL platform or device")
    if index >= len(found):
        raise RuntimeError(f"no OpenCL device {index} (found {len(found)})")
    return found[index]


def info(index):
    p, d = pick(index)
    il = ""
    try:
        il = d.get_info(cl.device_info.IL_VERSION)
    except cl.Error:
        pass
    return {"device": d.name.strip(), "platform": p.name.strip(),
            "extensions": d.extensions.split(), "il_version": il}


class Launch:
    """The arguments of one launch: initial host bytes of each buffer, other arguments."""

    def __init__(self, path):
        spec = json.load(open(path))
        base = os.path.dirname(os.path.abspath(path))
        self.kernel = spec["kernel"]
        self.global_size = tuple(int(x) for x in spec["global_size"])
        self.local_size = tuple(int(x) for x in spec["local_size"])
        self.args = []
        for i, a in enumerate(spec["args"]):
            if "buffer" in a:
                data = open(os.path.join(base, a["buffer"]), "rb").read()
                self.args.append(("buffer", np.frombuffer(data, dtype=np.uint8).copy()))
            elif "buffer_zeros" in a:
                self.args.append(("buffer", np.zeros(int(a["buffer_zeros"]), dtype=np.uint8)))
            elif "local" in a:
                self.args.append(("local", int(a["local"])))
            elif "scalar" in a:
                self.args.append(("scalar", SCALARS[a["scalar"]](a["value"])))
            else:
                raise ValueError(f"arg {i}: unsupported argument {a}")

    def bind(self, ctx, queue, kernel, buffers):
        """Sets the kernel's arguments; (re)uploads the initial bytes into `buffers`."""
        mf = cl.mem_flags
        for i, (kind, v) in enumerate(self.args):
            if kind == "buffer":
                if i not in buffers:
                    # A zero-sized buffer is not allowed: keep one byte.
                    buffers[i] = cl.Buffer(ctx, mf.READ_WRITE, size=max(len(v), 1))
                if len(v):
                    cl.enqueue_copy(queue, buffers[i], v)
                kernel.set_arg(i, buffers[i])
            elif kind == "local":
                kernel.set_arg(i, cl.LocalMemory(v))
            else:
                kernel.set_arg(i, v)


class Rejected(Exception):
    """The device's compiler rejected the module."""


def compile_il(ctx, device, il):
    prg = cl.Program(ctx, il)
    try:
        return prg.build()
    except cl.Error as e:
        log = prg.get_build_info(device, cl.program_build_info.LOG)
        lines = [l.strip() for l in log.splitlines()
                 if l.strip() and not l.startswith("(options:")
                 and l.strip() not in ("Compilation started", "Compilation failed")]
        return Rejected("; ".join(lines) or str(e))


# The last module built and its program (or Rejected): a run whose module is byte for byte the
# previous run's (B = A when the two pipelines agree on a kernel, the usual case) reuses the
# build instead of paying the JIT compiler again (minutes for a large kernel on a CPU runtime).
# Only one is kept, so memory stays that of one program.
_last_build = (None, None)


def build(ctx, device, il):
    global _last_build
    key = hashlib.sha256(il).digest()
    if _last_build[0] != key:
        _last_build = (None, None)  # the previous program is freed before the next build
        _last_build = (key, compile_il(ctx, device, il))
    built = _last_build[1]
    if isinstance(built, Rejected):
        raise built
    return built


def run_one(ctx, device, queue, run, reps, warmup):
    launch = Launch(run["launch"])
    prg = build(ctx, device, open(run["spv"], "rb").read())
    kernel = getattr(prg, launch.kernel)
    if kernel.num_args != len(launch.args):
        raise ValueError(f"kernel has {kernel.num_args} parameters, launch gives {len(launch.args)}")
    buffers = {}

    def once():
        launch.bind(ctx, queue, kernel, buffers)
        ev = cl.enqueue_nd_range_kernel(queue, kernel, launch.global_size, launch.local_size)
        ev.wait()
        return ev.profile.end - ev.profile.start

    once()
    os.makedirs(run["out"], exist_ok=True)
    for i, (kind, v) in enumerate(launch.args):
        if kind == "buffer":
            host = np.empty(len(v), dtype=np.uint8)
            if len(v):
                cl.enqueue_copy(queue, host, buffers[i])
            with open(os.path.join(run["out"], f"arg{i}.bin"), "wb") as f:
                f.write(host.tobytes())
    for _ in range(warmup):
        once()
    return [once() for _ in range(reps)]


def run(request_path):
    req = json.load(open(request_path))
    p, d = pick(int(req["device"]))
    ctx = cl.Context(devices=[d])
    queue = cl.CommandQueue(ctx, properties=cl.command_queue_properties.PROFILING_ENABLE)
    results = []
    for r in req["runs"]:
        try:
            times = run_one(ctx, d, queue, r, int(req["reps"]), int(req["warmup"]))
            results.append({"name": r["name"], "times_ns": times})
        except Rejected as e:
            results.append({"name": r["name"], "rejected": " ".join(str(e).split())[:400]})
        except Exception as e:  # one kernel's failure is reported, the others still run
            msg = " ".join(str(e).split()) or type(e).__name__
            results.append({"name": r["name"], "error": msg[:400]})
    return {"device": d.name.strip(), "results": results}


def main():
    warnings.filterwarnings("ignore")
    try:
        if len(sys.argv) == 3 and sys.argv[1] == "info":
            out = info(int(sys.argv[2]))
        elif len(sys.argv) == 3 and sys.argv[1] == "run":
            out = run(sys.argv[2])
        else:
            raise RuntimeError("usage: opencl_runner.py info DEVICE | run REQUEST.json")
    except Exception as e:
        print(" ".join(str(e).split()) or type(e).__name__, file=sys.stderr)
        sys.exit(1)
    json.dump(out, sys.stdout)
    print()


if __name__ == "__main__":
    main()
