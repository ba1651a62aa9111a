#!/bin/sh
# Rebuilds the SPIR-V modules of this folder from their OpenCL C sources, the way a user brings
# a kernel of their own (README.md "Bring your own OpenCL C kernel"): Debian clang-15 (OpenCL C
# 1.2, typed pointers) then llvm-spirv-15 with every extension. The Intel 2D block IO and DPAS
# builtins clang-15's opencl-c.h lacks are declared by ../opencl-samples/intel_builtins.h.
#
#   ./build.sh            (needs: apt-get install -y clang-15 llvm-spirv-15)
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
EXT="-Dcl_intel_subgroups=1 -Dcl_intel_subgroups_short=1 -Dcl_intel_subgroups_char=1
     -Dcl_intel_required_subgroup_size=1"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
for src in "$HERE"/*.cl; do
    name=$(basename "$src" .cl)
    # shellcheck disable=SC2086
    clang-15 -cc1 -triple spir64 -cl-std=CL1.2 -O2 -no-opaque-pointers -finclude-default-header \
        $EXT -include "$HERE/../opencl-samples/intel_builtins.h" \
        -emit-llvm-bc "$src" -o "$TMP/$name.bc"
    llvm-spirv-15 --spirv-ext=+all "$TMP/$name.bc" -o "$HERE/$name.spv"
    echo "$name.spv"
done
