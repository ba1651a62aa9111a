#!/usr/bin/env python3
"""Where a warm JIT call's work goes, per phase: x86 instructions executed (callgrind) by the
load (with its structural checks), each pass (with the analyses it asks for), the structural
check of the output, and the emission, per warm call of a prepared `Optimizer`.

usage: tools/bench/phase_profile.py JIT_LOOP KERNEL.spv PIPELINE [TARGET] [REPS]

JIT_LOOP is the `jit_loop` example (`cargo build --release -p spvopt-passes --example
jit_loop`, then `$CARGO_TARGET_DIR/release/examples/jit_loop`). The process runs once with one
call and once with 1 + REPS calls (default 20); a phase's figure is the difference of the two
runs' inclusive counts divided by REPS, so the first call's one-time work (page faults, tables
filled on first use) is left out. Instruction counts do not depend on machine load.
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


def inclusive(jit_loop, kernel, pipeline, target, reps):
    with tempfile.NamedTemporaryFile(suffix=".cg") as out:
        subprocess.run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out.name}",
             jit_loop, kernel, pipeline, target, str(reps)],
            check=True, capture_output=True)
        text = subprocess.run(["callgrind_annotate", "--inclusive=yes", "--threshold=100", out.name],
                              check=True, capture_output=True, text=True).stdout
    costs = {}
    for line in text.splitlines():
        m = re.match(r"\s*([\d,]+) \([ \d.]+%\)\s+\S*?:(.*?)(?: \[.*\])?$", line)
        if not m:
            continue
        name = m.group(2).strip()
        costs[name] = costs.get(name, 0) + int(m.group(1).replace(",", ""))
    return costs


def main():
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
