#!/usr/bin/env python3
"""Where a warm JIT call's work goes, per phase: x86 instructions executed (callgrind) by the
load (with its structural checks), each pass (with the analyses it asks for), the structural
check of the output, and the emission, per warm call of a prepared `Optimizer`.

usage: tools/bench/phase_profile.py JIT_LOOP KERNEL.spv PIPELINE [TARGET] [REPS]
       tools/bench/phase_profile.py --first-call JIT_LOOP KERNEL.spv PIPELINE [TARGET]

JIT_LOOP is the `jit_loop` example (`cargo build --release -p spvopt-passes --example
jit_loop`, then `$CARGO_TARGET_DIR/release/examples/jit_loop`). The process runs once with one
call and once with 1 + REPS calls (default 20); a phase's figure is the difference of the two
runs' inclusive counts divided by REPS, so the first call's one-time work (page faults, tables
filled on first use) is left out. Instruction counts do not depend on machine load.

With --first-call, the process runs one call under callgrind's cache simulation and the table
gives, per phase of that first call of a fresh process, the instructions executed and the
last-level cache misses: code lines fetched from memory (the code a phase runs for the first
time) and data lines read or written from memory (fresh heap pages, tables touched for the first
time). Each such miss costs a memory access (on the order of 100 ns), which is what a first
call adds to a warm one.
"""
import re
import subprocess
import sys
import tempfile

PHASES = [
    ("load (with its structural checks)", r"spvopt_ir::loader::load_words$"),
    ("structural check of the output", r"spvopt_ir::verify::verify$"),
    ("emit", r"spvopt_ir::emitter::<impl spvopt_ir::module::Module>::to_words$"),
    ("whole call", r"spvopt_passes::optimizer::Optimizer::run$"),
]
PASS = re.compile(r"<spvopt_passes::(?:[a-z_]+::)*([A-Za-z]+) as spvopt_passes::pass::Pass>::run$")


# Events of the --first-call table: instructions, then last-level misses on code, data reads
# and data writes.
FIRST_CALL_EVENTS = "Ir,ILmr,DLmr,DLmw"


def inclusive(jit_loop, kernel, pipeline, target, reps, cache=False):
    """Inclusive cost per function: an int (instructions), or with `cache` a tuple of the
    FIRST_CALL_EVENTS."""
    with tempfile.NamedTemporaryFile(suffix=".cg") as out:
        sim = ["--cache-sim=yes"] if cache else []
        subprocess.run(
            ["valgrind", "--tool=callgrind", *sim, f"--callgrind-out-file={out.name}",
             jit_loop, kernel, pipeline, target, str(reps)],
            check=True, capture_output=True)
        show = [f"--show={FIRST_CALL_EVENTS}"] if cache else []
        # Run from a directory outside any source tree: inside one, callgrind_annotate lists
        # a function under its absolute and its relative path, and the sums would double.
        text = subprocess.run(["callgrind_annotate", "--inclusive=yes", "--threshold=100",
                               "--show-percs=no", *show, out.name],
                              check=True, capture_output=True, text=True,
                              cwd=tempfile.gettempdir()).stdout
    costs = {}
    n = len(FIRST_CALL_EVENTS.split(",")) if cache else 1
    number = r"([\d,.]+)\s+"
    pattern = re.compile(r"\s*" + number * n + r"\S*?:(.*?)(?: \[.*\])?$")
    for line in text.splitlines():
        m = pattern.match(line)
        if not m:
            continue
        name = m.group(n + 1).strip()
        values = tuple(0 if g == "." else int(g.replace(",", "")) for g in m.groups()[:n])
        old = costs.get(name, (0,) * n)
        costs[name] = tuple(a + b for a, b in zip(old, values))
    return {k: (v if cache else v[0]) for k, v in costs.items()}


def first_call(jit_loop, kernel, pipeline, target):
    costs = inclusive(jit_loop, kernel, pipeline, target, 1, cache=True)
    rows = []
    for label, pat in PHASES:
        r = re.compile(pat)
        rows.append((label, tuple(map(sum, zip((0, 0, 0, 0),
                                               *[v for k, v in costs.items() if r.search(k)])))))
    passes = {}
    for k, v in costs.items():
        m = PASS.search(k)
        if m:
            old = passes.get(m.group(1), (0, 0, 0, 0))
            passes[m.group(1)] = tuple(a + b for a, b in zip(old, v))
    for name, v in sorted(passes.items(), key=lambda kv: -kv[1][0]):
        rows.insert(-1, (f"pass {name}", v))
    print(f"# {kernel} | pipeline {pipeline or '(none: load+emit)'} | target {target} | "
          "first call of a fresh process")
    print("| phase | x86 instructions | code lines from memory | data lines read from memory "
          "| data lines written to memory |")
    print("|---|---:|---:|---:|---:|")
    for label, (ir, il, dr, dw) in rows:
        print(f"| {label} | {ir:,} | {il:,} | {dr:,} | {dw:,} |")


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--first-call":
        if len(sys.argv) < 5:
            sys.exit(__doc__)
        target = sys.argv[5] if len(sys.argv) > 5 else "pvc"
        first_call(*sys.argv[2:5], target)
        return
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    jit_loop, kernel, pipeline = sys.argv[1:4]
    target = sys.argv[4] if len(sys.argv) > 4 else "pvc"
    reps = int(sys.argv[5]) if len(sys.argv) > 5 else 20
    one = inclusive(jit_loop, kernel, pipeline, target, 1)
    many = inclusive(jit_loop, kernel, pipeline, target, 1 + reps)
    rows = []
    for label, pat in PHASES:
        r = re.compile(pat)
        a = sum(v for k, v in one.items() if r.search(k))
        b = sum(v for k, v in many.items() if r.search(k))
        rows.append((label, (b - a) / reps))
    passes = {}
    for costs, sign in ((many, 1), (one, -1)):
        for k, v in costs.items():
            m = PASS.search(k)
            if m:
                passes[m.group(1)] = passes.get(m.group(1), 0) + sign * v
    for name, v in sorted(passes.items(), key=lambda kv: -kv[1]):
        if v > 0:
            rows.insert(-1, (f"pass {name}", v / reps))
    print(f"# {kernel} | pipeline {pipeline or '(none: load+emit)'} | target {target} | "
          f"{reps} warm calls")
    print("| phase | x86 instructions per warm call |")
    print("|---|---:|")
    for label, v in rows:
        print(f"| {label} | {v:,.0f} |")


if __name__ == "__main__":
    main()
