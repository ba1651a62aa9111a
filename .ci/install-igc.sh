#!/usr/bin/env bash
# Installs Intel's offline compiler (ocloc 26.27 + IGC 2.40, from Debian's unstable suite) into a
# cache folder without touching the system, so the tests and `spv-ab` can judge `-O` output by the
# ISA Intel's compiler makes of it (the recipe of the shared note igc-2026.md; no GPU needed).
#
# Usage: .ci/install-igc.sh CACHE_DIR
#
#   Creates CACHE_DIR/igc2 (a private apt state, the downloaded .debs, the unpacked root with its
#   own glibc / libstdc++, which Debian 12 lacks) and the wrapper CACHE_DIR/igc2/ocloc that runs
#   ocloc through the unpacked loader. Writes CACHE_DIR/igc-env.sh:
#       export SPVOPT_OCLOC=CACHE_DIR/igc2/ocloc
#   and prints the same line on stdout (everything else goes to stderr), so both
#   `. CACHE_DIR/igc-env.sh` and `eval "$(.ci/install-igc.sh CACHE_DIR)"` work.
#
# Idempotent: a wrapper that answers `--version` is reused without touching the network.
# Sid moves: a fresh install may get a newer IGC; the tests record `ocloc --version`.
# Exits non-zero with a message on stderr when anything cannot be downloaded or run.
set -euo pipefail

die() { echo "install-igc: error: $*" >&2; exit 1; }
log() { echo "install-igc: $*" >&2; }

[ $# -eq 1 ] || die "usage: $0 CACHE_DIR"
mkdir -p "$1" || die "cannot create cache dir $1"
CACHE_DIR=$(cd "$1" && pwd)
D="$CACHE_DIR/igc2"
WRAPPER="$D/ocloc"
ENV_FILE="$CACHE_DIR/igc-env.sh"

write_env() {
    echo "export SPVOPT_OCLOC=\"$WRAPPER\"" > "$ENV_FILE"
    cat "$ENV_FILE"
}

if [ -x "$WRAPPER" ] && "$WRAPPER" --version >/dev/null 2>&1; then
    log "reusing $WRAPPER ($("$WRAPPER" --version 2>&1 | head -n 1))"
    write_env
    exit 0
fi

command -v apt-get >/dev/null 2>&1 || die "apt-get is needed to download Debian's packages"
command -v dpkg >/dev/null 2>&1 || die "dpkg is needed to unpack Debian's packages"
SOURCES=/etc/apt/sources.list.d/debian.sources
uri=""
[ -r "$SOURCES" ] && uri=$(awk '/^URIs:/{print $2; exit}' "$SOURCES")
uri=${uri:-http://deb.debian.org/debian}
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
[ -r "$KEYRING" ] || die "no Debian archive keyring at $KEYRING"

rm -rf "$D/root" "$D/debs"
mkdir -p "$D/apt/lists/partial" "$D/apt/cache/archives/partial" "$D/apt/parts" "$D/debs" "$D/root"
printf 'Types: deb\nURIs: %s\nSuites: sid\nComponents: main\nSigned-By: %s\n' "$uri" "$KEYRING" \
    > "$D/apt/parts/sid.sources"
o=(-o Dir::Etc::SourceList=/dev/null -o "Dir::Etc::SourceParts=$D/apt/parts"
   -o "Dir::State::Lists=$D/apt/lists" -o "Dir::Cache=$D/apt/cache")
log "apt-get update (Debian sid from $uri, private state in $D/apt)"
apt-get "${o[@]}" update -q >&2 || die "apt-get update of Debian sid failed (no network?)"
log "downloading intel-ocloc, libigc2, libigdfcl2 and sid's runtime libraries"
(cd "$D/debs" && apt-get "${o[@]}" download intel-ocloc libigc2 libigdfcl2 libigdgmm12/sid \
    libc6/sid libstdc++6/sid libgcc-s1/sid zlib1g/sid >&2) || die "apt-get download failed"
for f in "$D"/debs/*.deb; do dpkg -x "$f" "$D/root" || die "cannot unpack $f"; done
L="$D/root/usr/lib/x86_64-linux-gnu"
[ -e "$L/libiga64.so.2" ] || die "libiga64.so.2 missing from the unpacked packages"
ln -sf libiga64.so.2 "$L/libiga64.so"      # the disassembler looks for this name
bin=$(find "$D/root/usr/bin" -maxdepth 1 -name 'ocloc-*' -type f -print -quit)
[ -n "$bin" ] || die "no ocloc binary in the unpacked intel-ocloc package"
[ -x "$L/ld-linux-x86-64.so.2" ] || die "no loader in the unpacked libc6"
cat > "$WRAPPER" <<EOF
#!/bin/sh
exec "$L/ld-linux-x86-64.so.2" --library-path "$L" "$bin" "\$@"
EOF
chmod +x "$WRAPPER"
"$WRAPPER" --version >&2 || die "the unpacked ocloc does not run"
rm -rf "$D/debs" "$D/apt/cache"      # ~70 MB of packages no longer needed
log "installed $WRAPPER"
write_env
