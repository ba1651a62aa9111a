#!/bin/sh
# Rebuilds the SPIR-V modules of this folder from Ben Ashbaugh's SimpleOpenCLSamples
# (https://github.com/bashbaug/SimpleOpenCLSamples, MIT; see README.md), the classic offline way:
# Debian clang-15 (OpenCL C 1.2, typed pointers) then llvm-spirv-15 with every extension.
#
#   ./build.sh PATH/TO/SimpleOpenCLSamples
#
# Needs: apt-get install -y clang-15 llvm-spirv-15.
# The build options are the ones the samples' main.cpp passes on a PVC device (subgroup sizes
# 16 and 32, DPAS at subgroup size 16): -DHAS_SG8=0 -DEMULATE_tN8=1 -DEMULATE_tN16=0.
# clang-15's opencl-c.h lacks the Intel 2D block IO and MMA builtins: intel_builtins.h
# declares them (overloadable, so they get the drivers' Itanium-mangled names). The cl_intel_*
# extension macros opencl-c.h tests are defined on the command line (they must precede it).
set -eu
SRC=${1:?usage: build.sh PATH/TO/SimpleOpenCLSamples}
HERE=$(cd "$(dirname "$0")" && pwd)
EXT="-Dcl_intel_subgroups=1 -Dcl_intel_subgroups_short=1 -Dcl_intel_subgroups_char=1
     -Dcl_intel_required_subgroup_size=1"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
for v in bf16 i8 tf32; do
    dir="$SRC/samples/20_matrixexperiments-$v"
    case $v in
        tf32) opts="-DEMULATE_tN16=0" ;;
        *) opts="-DHAS_SG8=0 -DEMULATE_tN8=1 -DEMULATE_tN16=0" ;;
    esac
    # shellcheck disable=SC2086
    clang-15 -cc1 -triple spir64 -cl-std=CL1.2 -O2 -no-opaque-pointers -finclude-default-header \
        $EXT -include "$HERE/intel_builtins.h" $opts -I "$dir" \
        -emit-llvm-bc "$dir/matrix_kernels_$v.cl" -o "$TMP/$v.bc"
    llvm-spirv-15 --spirv-ext=+all "$TMP/$v.bc" -o "$HERE/matrix_kernels_$v.spv"
    echo "matrix_kernels_$v.spv"
done
