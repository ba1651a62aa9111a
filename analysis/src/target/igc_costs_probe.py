#!/usr/bin/env python3
"""igc_costs_probe.py -- measure what IGC makes of each 2D block load / prefetch shape.

    OCLOC=/root/.cache/spvopt/igc2/ocloc python3 igc_costs_probe.py --device pvc [--out costs.json]

For every shape a device's table accepts (op, element size, block width, height, count; the
tables are restated below from `profiles.rs`, SIMD16, the subgroup size Triton uses on pvc and
Xe2), one kernel is generated that issues exactly that one operation with run-time surface and
coordinate operands (so nothing folds) and copies the loaded data to global memory. All kernels
go into one module, compiled once with `-cl-intel-256-GRF-per-thread` and disassembled. For each
kernel the script counts the `send` lines whose message is `load_block2d` (a destination: load;
`null`: prefetch) and sums their `rd:N` (registers written back). Prints Rust rows
(`igc_costs.rs`'s format) or JSON. `ocloc --version` and IGC's package version are recorded by
the caller in the table's source string.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

P1_32 = [1, 2, 4, 8, 16, 32]
P1_8 = [1, 2, 4, 8]
P1_16 = [1, 2, 4, 8, 16]
P2_32 = [2, 4, 8, 16, 32]
P4_32 = [4, 8, 16, 32]
P4_64 = [4, 8, 16, 32, 64]
P2_16 = [2, 4, 8, 16]
P4_16 = [4, 8, 16]

# (op, elem, widths, heights, counts, max W*C) -- restated from profiles.rs (loads, prefetches).
XE_HPC = [
    ("load", 1, P4_64, P1_32, [1, 2, 4], 64),
    ("load", 2, P2_32, P1_32, [1, 2, 4], 32),
    ("load", 4, P1_16, P1_32, [1, 2], 16),
    ("load", 8, P1_8, P1_32, [1], None),
    ("transform", 1, P4_16, P4_32, [1, 2, 4], 64),
    ("transform", 2, P2_16, P2_32, [1, 2, 4], 32),
    ("transpose", 4, P1_8, P1_32, [1], None),
    ("transpose", 8, [1, 2, 4], [8], [1], None),
    ("prefetch", 1, P4_64, P1_32, [1, 2, 4], 64),
    ("prefetch", 2, P2_32, P1_32, [1, 2, 4], 32),
    ("prefetch", 4, P1_16, P1_32, [1, 2], 16),
    ("prefetch", 8, P1_8, P1_32, [1], None),
]
XE2 = XE_HPC + [
    ("transform", 1, [32], P4_32, [1, 2], None),
    ("transform", 1, [64], P4_32, [1], None),
    ("transform", 2, [32], P2_16, [1], None),
]
TABLES = {"pvc": XE_HPC, "bmg": XE2}
DEVICE = {"pvc": "pvc", "bmg": "bmg-g21"}
SG = 16


def shapes(table):
    seen = set()
    for op, elem, ws, hs, cs, cap in table:
        for w in ws:
            for h in hs:
                for c in cs:
                    if cap is not None and w * c > cap:
                        continue
                    key = (op, elem, w, h, c)
                    if key not in seen:
                        seen.add(key)
                        yield key


def pow2(v):
    p = 1
    while p < v:
        p *= 2
    return p


def bytes_per_invocation(op, elem, w, h, c):
    """Per-invocation bytes of one block (BlockShape::bytes_per_invocation_per_block), x count."""
    if op == "prefetch":
        return 0
    if op == "transpose":
        n = w * pow2(h)
        return -(-n // SG) * elem * c
    if op == "transform":
        rows = {1: 4, 2: 2}.get(elem, 1)
        dwords = pow2(w) * -(-h // rows)
        return -(-dwords // SG) * 4 * c
    n = pow2(w) * h
    return -(-n // SG) * elem * c


OPS = {
    "load": "OpSubgroup2DBlockLoadINTEL",
    "transform": "OpSubgroup2DBlockLoadTransformINTEL",
    "transpose": "OpSubgroup2DBlockLoadTransposeINTEL",
    "prefetch": "OpSubgroup2DBlockPrefetchINTEL",
}


def module(shape_list, names):
    consts = set([0, 1])
    for op, elem, w, h, c in shape_list:
        consts.update([elem, w, h, c, bytes_per_invocation(op, elem, w, h, c)])
    head = [
        "OpCapability Addresses", "OpCapability Kernel", "OpCapability Int64",
        "OpCapability Int8", "OpCapability SubgroupDispatch",
        "OpCapability Subgroup2DBlockIOINTEL", "OpCapability Subgroup2DBlockTransformINTEL",
        "OpCapability Subgroup2DBlockTransposeINTEL",
        'OpExtension "SPV_INTEL_2d_block_io"', "OpMemoryModel Physical64 OpenCL",
    ]
    for n in names:
        head.append(f'OpEntryPoint Kernel %{n} "{n}" %gid_var')
    for n in names:
        head.append(f"OpExecutionMode %{n} SubgroupSize {SG}")
    head += [
        "OpDecorate %gid_var BuiltIn GlobalInvocationId", "OpDecorate %gid_var Constant",
        "%void = OpTypeVoid", "%uint = OpTypeInt 32 0", "%ulong = OpTypeInt 64 0",
        "%uchar = OpTypeInt 8 0", "%v2uint = OpTypeVector %uint 2",
        "%v3ulong = OpTypeVector %ulong 3",
        "%ptr_cw = OpTypePointer CrossWorkgroup %uchar",
        "%ptr_fn = OpTypePointer Function %uchar",
        "%ptr_in = OpTypePointer Input %v3ulong",
        "%gid_var = OpVariable %ptr_in Input",
        "%fnty = OpTypeFunction %void %ptr_cw %ptr_cw %uint %uint %uint %uint %uint",
    ]
    for v in sorted(consts):
        head.append(f"%u{v} = OpConstant %uint {v}")
    arrays = sorted({bytes_per_invocation(*s) for s in shape_list} - {0})
    for b in arrays:
        head.append(f"%arr{b} = OpTypeArray %uchar %u{b}")
        head.append(f"%parr{b} = OpTypePointer Function %arr{b}")
    body = []
    for n, (op, elem, w, h, c) in zip(names, shape_list):
        b = bytes_per_invocation(op, elem, w, h, c)
        body += [
            f"%{n} = OpFunction %void None %fnty",
            f"%{n}_src = OpFunctionParameter %ptr_cw", f"%{n}_dst = OpFunctionParameter %ptr_cw",
            f"%{n}_mw = OpFunctionParameter %uint", f"%{n}_mh = OpFunctionParameter %uint",
            f"%{n}_mp = OpFunctionParameter %uint", f"%{n}_x = OpFunctionParameter %uint",
            f"%{n}_y = OpFunctionParameter %uint", f"%{n}_e = OpLabel",
        ]
        if b:
            body.append(f"%{n}_v = OpVariable %parr{b} Function")
        body.append(f"%{n}_c = OpCompositeConstruct %v2uint %{n}_x %{n}_y")
        operands = f"%u{elem} %u{w} %u{h} %u{c} %{n}_src %{n}_mw %{n}_mh %{n}_mp %{n}_c"
        if b:
            body += [
                f"%{n}_p = OpBitcast %ptr_fn %{n}_v",
                f"{OPS[op]} {operands} %{n}_p",
                f"%{n}_g3 = OpLoad %v3ulong %gid_var",
                f"%{n}_g = OpCompositeExtract %ulong %{n}_g3 0",
                f"%{n}_gb = OpIMul %ulong %{n}_g %{n}_bl",
                f"%{n}_o = OpInBoundsPtrAccessChain %ptr_cw %{n}_dst %{n}_gb",
                f"OpCopyMemorySized %{n}_o %{n}_p %u{b}",
            ]
            body.insert(body.index(f"%{n}_p = OpBitcast %ptr_fn %{n}_v"),
                        f"%{n}_bl = OpUConvert %ulong %u{b}")
        else:
            body.append(f"{OPS[op]} {operands}")
        body += ["OpReturn", "OpFunctionEnd"]
    return "\n".join(head + body) + "\n"


SEND_RE = re.compile(r"^\s*(?:\([^)]*\)\s*)?send\S*\s+\([^)]*\)\s+(\S+).*//.*rd:(\d+);\s*(\S+)")


def count(asm_text):
    msgs, regs = 0, 0
    for line in asm_text.splitlines():
        m = SEND_RE.match(line)
        if not m or "load_block2d" not in m.group(3):
            continue
        msgs += 1
        regs += int(m.group(2))
    return msgs, regs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--device", required=True, choices=sorted(TABLES))
    ap.add_argument("--ocloc", default=os.environ.get("OCLOC", "ocloc"))
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--keep")
    a = ap.parse_args()
    shape_list = list(shapes(TABLES[a.device]))
    d = a.keep or tempfile.mkdtemp()
    os.makedirs(d, exist_ok=True)
    dev = DEVICE[a.device]
    # IGC rejects some shapes the tables accept ("not supported due to hardware constraints"):
    # those kernels are dropped and recorded as rejected, and the rest compiled again.
    live = list(range(len(shape_list)))
    rejected = set()
    while True:
        with open(f"{d}/p.spvasm", "w") as f:
            f.write(module([shape_list[i] for i in live], [f"k{i}" for i in live]))
        subprocess.run(["spirv-as", "--target-env", "spv1.4", f"{d}/p.spvasm", "-o",
                        f"{d}/p.spv"], check=True)
        subprocess.run(["spirv-val", "--target-env", "spv1.4", f"{d}/p.spv"], check=True)
        r = subprocess.run([a.ocloc, "compile", "-q", "-file", f"{d}/p.spv", "-spirv_input",
                            "-device", dev, "-out_dir", f"{d}/o", "-output", "p", "-options",
                            "-cl-intel-256-GRF-per-thread"], capture_output=True, text=True)
        if r.returncode == 0:
            break
        bad = {int(k) for k in re.findall(r"in kernel 'k(\d+)'", r.stdout + r.stderr)}
        if not bad:
            sys.exit(f"ocloc failed: {r.stdout[-2000:]} {r.stderr[-2000:]}")
        rejected |= bad
        live = [i for i in live if i not in bad]
    binf = [x for x in os.listdir(f"{d}/o") if x.endswith(".bin")][0]
    subprocess.run([a.ocloc, "disasm", "-file", f"{d}/o/{binf}", "-device", dev, "-dump",
                    f"{d}/d"], check=True, stdout=subprocess.DEVNULL)
    rows = []
    for i, (op, elem, w, h, c) in enumerate(shape_list):
        if i in rejected:
            msgs, regs = 0, 0
        else:
            with open(f"{d}/d/.text.k{i}.asm") as f:
                msgs, regs = count(f.read())
        rows.append({"op": op, "elem": elem, "w": w, "h": h, "c": c, "messages": msgs,
                     "registers": regs, "rejected": i in rejected})
    if a.json:
        json.dump(rows, sys.stdout, indent=0)
        return
    kinds = {"load": "Load", "transform": "LoadTransform", "transpose": "LoadTranspose",
             "prefetch": "Prefetch"}
    for r in rows:
        if r["rejected"]:
            print(f"    rejected({kinds[r['op']]}, {r['elem']}, {r['w']}, {r['h']}, {r['c']}),")
        else:
            print(f"    c({kinds[r['op']]}, {r['elem']}, {r['w']}, {r['h']}, {r['c']}, "
                  f"{r['messages']}, {r['registers']}),")


if __name__ == "__main__":
    main()
