#!/usr/bin/env bash
# Installs the spv-opt C library: PREFIX/include/spvopt/spvopt.h, PREFIX/lib/libspvopt.a,
# PREFIX/lib/libspvopt.so.N (N: the ABI version, the library's SONAME) with the link
# libspvopt.so -> libspvopt.so.N, PREFIX/lib/pkgconfig/spvopt.pc. Then:
#   cc app.c $(pkg-config --cflags --libs spvopt) -Wl,-rpath,PREFIX/lib      (shared; the rpath,
#       or LD_LIBRARY_PATH, unless PREFIX/lib is a folder the loader searches)
#   cc app.c -IPREFIX/include/spvopt PREFIX/lib/libspvopt.a -lstdc++ -lpthread -ldl -lm -lrt -lgcc_s
#       (static: name the archive; with the .so beside it, -lspvopt finds the .so)
#
#   capi/install.sh PREFIX            builds with `cargo build --release -p spvopt-capi` first
#   SPVOPT_LIB_DIR=DIR capi/install.sh PREFIX    takes the libraries already built in DIR
#
# Why not cargo-c (the ecosystem's `cargo cinstall`): it is a cargo subcommand that must be
# installed first (`cargo install cargo-c` compiles cargo itself, minutes on 2 cores), while the
# rest of the project builds with plain cargo; all we need is the committed cbindgen header and
# one .pc file, which this script writes in the same layout cargo-c uses.
set -euo pipefail
prefix="${1:?usage: capi/install.sh PREFIX}"
here="$(cd "$(dirname "$0")" && pwd)"
version="$(sed -n 's/^version = "\(.*\)"/\1/p' "$here/../Cargo.toml" | head -1)"
abi="$(sed -n 's/^const ABI_VERSION: u32 = \([0-9]*\);/\1/p' "$here/src/abi_version.rs")"
if [ -z "${SPVOPT_LIB_DIR:-}" ]; then
    (cd "$here/.." && cargo build --release -p spvopt-capi)
    SPVOPT_LIB_DIR="${CARGO_TARGET_DIR:-$here/../target}/release"
fi
mkdir -p "$prefix/include/spvopt" "$prefix/lib/pkgconfig"
cp "$here/include/spvopt.h" "$prefix/include/spvopt/"
cp "$SPVOPT_LIB_DIR/libspvopt.a" "$prefix/lib/"
if [ -f "$SPVOPT_LIB_DIR/libspvopt.so" ]; then
    cp "$SPVOPT_LIB_DIR/libspvopt.so" "$prefix/lib/libspvopt.so.$abi"
    ln -sfn "libspvopt.so.$abi" "$prefix/lib/libspvopt.so"
fi
cat > "$prefix/lib/pkgconfig/spvopt.pc" <<PC
prefix=$prefix
libdir=\${prefix}/lib
includedir=\${prefix}/include

Name: spvopt
Description: spv-opt, a SPIR-V optimizer for Intel GPU compute kernels (C API)
Version: $version
Cflags: -I\${includedir}/spvopt
Libs: -L\${libdir} -lspvopt
Libs.private: -lstdc++ -lpthread -ldl -lm -lrt -lgcc_s
PC
echo "installed spvopt $version into $prefix"
