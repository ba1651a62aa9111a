#!/usr/bin/env bash
# Installs the spv-opt C library: PREFIX/include/spvopt/spvopt.h, PREFIX/lib/libspvopt.a,
# PREFIX/lib/libspvopt.so.N (N: the ABI version, the library's SONAME) with the link
# libspvopt.so -> libspvopt.so.N, and two pkg-config files in PREFIX/lib/pkgconfig:
#   spvopt.pc          the shared library, with an rpath to PREFIX/lib (runs without
#                      LD_LIBRARY_PATH):  cc app.c $(pkg-config --cflags --libs spvopt)
#   spvopt-static.pc   the static archive and what it needs from the system:
#                      cc app.c $(pkg-config --cflags --libs spvopt-static)
# pkg-config --static can only add flags (Libs.private) to a package's, never drop its
# -lspvopt, and the linker takes the .so for -lspvopt when both files are in one folder: so a
# static link names spvopt-static (SPIRV-Tools ships SPIRV-Tools.pc / SPIRV-Tools-shared.pc the
# same way). With --no-shared only the archive is installed, and then
# `pkg-config --static --libs spvopt` links it.
#
# The archive is installed without debug information, without local symbols no relocation
# needs, and without the LLVM bitcode Rust's standard library carries for LTO (objcopy
# --strip-unneeded -R .llvmbc -R .llvmcmd; the archive's global symbols all stay): 38 MB in
# target/release, 20.5 MB installed on 2026-12-02 (--strip-debug alone: 21.0 MB).
# SPVOPT_KEEP_DEBUG=1 keeps them.
#
#   capi/install.sh [--no-shared] PREFIX      builds with `cargo build --release -p spvopt-capi`
#   SPVOPT_LIB_DIR=DIR capi/install.sh PREFIX   takes the libraries already built in DIR
#
# Why not cargo-c (the ecosystem's `cargo cinstall`): it is a cargo subcommand that must be
# installed first (`cargo install cargo-c` compiles cargo itself, minutes on 2 cores), while the
# rest of the project builds with plain cargo; all we need is the committed cbindgen header and
# the .pc files, which this script writes in the layout cargo-c uses.
set -euo pipefail
shared=1
if [ "${1:-}" = "--no-shared" ]; then
    shared=0
    shift
fi
prefix="${1:?usage: capi/install.sh [--no-shared] PREFIX}"
here="$(cd "$(dirname "$0")" && pwd)"
version="$(sed -n 's/^version = "\(.*\)"/\1/p' "$here/../Cargo.toml" | head -1)"
abi="$(sed -n 's/^const ABI_VERSION: u32 = \([0-9]*\);/\1/p' "$here/src/abi_version.rs")"
if [ -z "${SPVOPT_LIB_DIR:-}" ]; then
    (cd "$here/.." && cargo build --release -p spvopt-capi)
    SPVOPT_LIB_DIR="${CARGO_TARGET_DIR:-$here/../target}/release"
fi
mkdir -p "$prefix/include/spvopt" "$prefix/lib/pkgconfig"
prefix="$(cd "$prefix" && pwd)"
cp "$here/include/spvopt.h" "$prefix/include/spvopt/"
objcopy="${OBJCOPY:-objcopy}"
if [ "${SPVOPT_KEEP_DEBUG:-0}" = 1 ]; then
    cp "$SPVOPT_LIB_DIR/libspvopt.a" "$prefix/lib/"
elif command -v "$objcopy" >/dev/null 2>&1; then
    "$objcopy" --strip-unneeded -R .llvmbc -R .llvmcmd "$SPVOPT_LIB_DIR/libspvopt.a" \
        "$prefix/lib/libspvopt.a"
else
    echo "install.sh: no $objcopy: libspvopt.a installed with its debug information" >&2
    cp "$SPVOPT_LIB_DIR/libspvopt.a" "$prefix/lib/"
fi
rm -f "$prefix/lib/libspvopt.so" "$prefix/lib/libspvopt.so.$abi"
if [ "$shared" = 1 ] && [ -f "$SPVOPT_LIB_DIR/libspvopt.so" ]; then
    cp "$SPVOPT_LIB_DIR/libspvopt.so" "$prefix/lib/libspvopt.so.$abi"
    ln -sfn "libspvopt.so.$abi" "$prefix/lib/libspvopt.so"
fi
system_libs="-lstdc++ -lpthread -ldl -lm -lrt -lgcc_s"
pc_head() {
    cat <<PC
prefix=$prefix
libdir=\${prefix}/lib
includedir=\${prefix}/include

Name: $1
Description: spv-opt, a SPIR-V optimizer for Intel GPU compute kernels (C API$2)
Version: $version
Cflags: -I\${includedir}/spvopt
PC
}
if [ "$shared" = 1 ]; then
    { pc_head spvopt ""
      echo "Libs: -L\${libdir} -lspvopt -Wl,-rpath,\${libdir}"
      echo "Libs.private: $system_libs"
    } > "$prefix/lib/pkgconfig/spvopt.pc"
else
    { pc_head spvopt ", static archive only"
      echo "Libs: -L\${libdir} -lspvopt"
      echo "Libs.private: $system_libs"
    } > "$prefix/lib/pkgconfig/spvopt.pc"
fi
{ pc_head spvopt-static ", static archive"
  echo "Libs: \${libdir}/libspvopt.a $system_libs"
} > "$prefix/lib/pkgconfig/spvopt-static.pc"
echo "installed spvopt $version into $prefix ($(wc -c < "$prefix/lib/libspvopt.a") bytes libspvopt.a)"
