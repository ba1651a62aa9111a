#!/bin/bash
# Runs one fuzz target until it has executed TOTAL inputs or MAX_SECONDS have passed, restarting
# libFuzzer after each finding (the finding stays in artifacts/TARGET/) so that one report does
# not end a long run. Every run's log goes to LOGDIR (default /tmp/spvopt-fuzz); one line per run
# and a final total are appended to LOGDIR/summary.txt. Build first (from fuzz/):
#   RUSTC_BOOTSTRAP=1 cargo fuzz build -s none -a
# Usage (from fuzz/): ./run_until.sh TARGET TOTAL MAX_SECONDS [libFuzzer flags...]
#   ./run_until.sh pipeline 10000000 20000 -timeout=3 -max_len=40000
# Later flags override earlier ones (-timeout=1 is the default here).
set -u
t=$1; total=$2; maxs=$3; shift 3
bin=${FUZZ_BIN_DIR:-${CARGO_TARGET_DIR:-target}/x86_64-unknown-linux-gnu/release}/$t
logs=${LOGDIR:-/tmp/spvopt-fuzz}
mkdir -p "$logs" "artifacts/$t" "corpus/$t"
[ -x "$bin" ] || { echo "run_until.sh: no fuzz binary $bin (cargo fuzz build -s none -a)" >&2; exit 2; }
done_execs=0; start=$(date +%s); k=0
while [ "$done_execs" -lt "$total" ]; do
  left=$(( maxs - ($(date +%s) - start) ))
  [ "$left" -le 10 ] && break
  k=$((k + 1))
  log="$logs/$t.$(date +%H%M%S).run$k.log"
  nice -n 10 "$bin" "corpus/$t" -runs=$((total - done_execs)) -max_total_time="$left" -timeout=1 \
    -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="artifacts/$t/" "$@" > "$log" 2>&1
  rc=$?
  # A SIGSEGV (stack overflow) is written by the targets' own handler to ./sigsegv-PID.input.
  for f in sigsegv-*.input; do [ -e "$f" ] && mv "$f" "artifacts/$t/"; done
  n=$(grep -a 'stat::number_of_executed_units' "$log" | awk '{print $2}')
  # A crash ends the run before the final statistics: take the last status line's count.
  [ -z "$n" ] && n=$(grep -aoE '^#[0-9]+' "$log" | tail -1 | tr -d '#')
  done_execs=$((done_execs + ${n:-0}))
  echo "$(date +%T) $t run $k rc=$rc execs=${n:-0} total=$done_execs log=$log" >> "$logs/summary.txt"
done
echo "$(date +%T) $t FINISHED total=$done_execs seconds=$(( $(date +%s) - start ))" >> "$logs/summary.txt"
