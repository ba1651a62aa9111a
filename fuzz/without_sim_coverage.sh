#!/bin/bash
# RUSTC_WRAPPER for the `differential` target: compiles the simulator crate (spvopt_sim) without
# libFuzzer's coverage instrumentation. The target spends most of its time simulating the kernel
# before and after the pipeline; coverage of the interpreter tells libFuzzer little about the
# passes under test (which stay instrumented, as do the kernel generator and the loader), and
# instrumenting it costs about a third of the executions per second. Everything else is passed
# through unchanged. Usage (from fuzz/):
#   RUSTC_WRAPPER=$PWD/without_sim_coverage.sh RUSTC_BOOTSTRAP=1 cargo fuzz build -s none -a \
#     --no-trace-compares --target-dir target-differential differential
rustc=$1; shift
case " $* " in
  *" --crate-name spvopt_sim "*)
    args=()
    for a in "$@"; do
      case "$a" in
        -Cpasses=sancov-module|-Cllvm-args=-sanitizer-coverage-*) ;;
        *) args+=("$a") ;;
      esac
    done
    exec "$rustc" "${args[@]}" ;;
  *) exec "$rustc" "$@" ;;
esac
