#!/usr/bin/env bash
# Runs every libFuzzer harness (tests/fuzz) for SECONDS (default 300), JOBS at
# a time (default: the number of CPUs), then merges the inputs that found new
# coverage into tests/fuzz/corpus/<harness>/ (libFuzzer -merge=1: only what
# adds coverage, and only inputs up to 8 KiB, so the corpus stays small). Prints one line per harness:
# executions, corpus size before and after, and whether it crashed. A crash,
# leak, sanitizer report or broken invariant leaves the input in
# BUILD_DIR/fuzz-artifacts/ and makes the script exit 1.
#
# usage: scripts/fuzz.sh [SECONDS] [HARNESS...]
# env:   FLASHFIT_FUZZ_BUILD (default build-fuzz): configured here when missing
#        (clang++ -O1, FLASHFIT_FUZZ=ON, ASan + UBSan); FLASHFIT_FUZZ_JOBS;
#        FLASHFIT_FUZZ_NICE (default 10).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
seconds=${1:-300}
shift || true
build=${FLASHFIT_FUZZ_BUILD:-$root/build-fuzz}
jobs=${FLASHFIT_FUZZ_JOBS:-$(nproc)}
niceness=${FLASHFIT_FUZZ_NICE:-10}

if [ ! -f "$build/CMakeCache.txt" ]; then
  launcher=()
  command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  # -O1 with asserts kept, as OSS-Fuzz builds: 5-7x the executions a
  # second of -O0 (docs/testing.md), the sanitizers' reports unchanged.
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=Debug \
    "-DCMAKE_CXX_FLAGS_DEBUG=-O1 -gline-tables-only -fno-omit-frame-pointer" \
    -DFLASHFIT_FUZZ=ON -DFLASHFIT_SANITIZE=address,undefined -DFLASHFIT_TEST_SANITIZED=OFF \
    -DFLASHFIT_BENCH=OFF "${launcher[@]}"
fi
nice -n "$niceness" cmake --build "$build" --target fuzzers

harnesses=("$@")
if [ ${#harnesses[@]} -eq 0 ]; then
  for exe in "$build"/tests/fuzz/fuzz_*; do
    [ -x "$exe" ] && harnesses+=("$(basename "${exe#"$build"/tests/fuzz/fuzz_}")")
  done
fi
artifacts="$build/fuzz-artifacts"
logs="$build/fuzz-logs"
mkdir -p "$artifacts" "$logs"
export ASAN_OPTIONS="abort_on_error=1:detect_stack_use_after_return=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"

run_one() {
  local name=$1 exe="$build/tests/fuzz/fuzz_$1" corpus="$root/tests/fuzz/corpus/$1"
  local seeds="$build/tests/fuzz/seeds/$1" new="$logs/$1.new" dict=()
  [ -f "$root/tests/fuzz/dict/$name.dict" ] && dict=("-dict=$root/tests/fuzz/dict/$name.dict")
  mkdir -p "$corpus"
  rm -rf "$new" && mkdir -p "$new"
  local dirs=("$new" "$corpus")
  [ -d "$seeds" ] && dirs+=("$seeds")
  local status=0
  nice -n "$niceness" "$exe" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$artifacts/$name-" "${dict[@]}" "${dirs[@]}" \
    >"$logs/$name.log" 2>&1 || status=$?
  local before after execs
  before=$(find "$corpus" -type f | wc -l)
  # Only small inputs (the committed corpus stays small and mostly text) that
  # add coverage over the committed corpus go in.
  find "$new" -type f -size +8k -delete
  nice -n "$niceness" "$exe" -merge=1 "$corpus" "$new" >"$logs/$name.merge.log" 2>&1 || true
  after=$(find "$corpus" -type f | wc -l)
  execs=$(awk '/stat::number_of_executed_units:/ { print $2 }' "$logs/$name.log" | tail -n 1)
  printf '%-16s %12s execs  corpus %4d -> %4d  %s\n' "$name" "${execs:-?}" "$before" "$after" \
    "$([ "$status" -eq 0 ] && echo ok || echo "FAILED (exit $status, see $logs/$name.log)")"
  return "$status"
}

rm -f "$logs"/*.failed
for name in "${harnesses[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do sleep 1; done
  { run_one "$name" || touch "$logs/$name.failed"; } &
done
wait
if compgen -G "$logs/*.failed" >/dev/null; then
  echo "fuzz: some harness FAILED; inputs in $artifacts"
  exit 1
fi
echo "fuzz: all ${#harnesses[@]} harnesses ran ${seconds}s without a finding"
