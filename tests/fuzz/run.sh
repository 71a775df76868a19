#!/usr/bin/env bash
# One fuzz.<name> test: replays the harness's corpus (tests/fuzz/corpus/<name>/,
# plus the generated seeds) and then fuzzes for SECONDS from it, in one run, writing new
# inputs only to a temporary directory. The fuzzing is reproducible: a fixed
# seed ($FLASHFIT_FUZZ_SEED, default 1) and a fixed number of runs (200 per
# second asked for), with the time only as a bound, so the suite's verdict does
# not depend on the machine's speed (scripts/fuzz.sh explores with random
# seeds and no run limit). Fails on any crash, leak, sanitizer
# report, timeout or broken invariant; the input that did it is kept in
# $FLASHFIT_FUZZ_ARTIFACTS (default: the build dir's fuzz-artifacts/) and its
# path printed.
#
# usage: run.sh HARNESS SOURCE_DIR SEEDS_DIR SECONDS
set -euo pipefail
harness=${1:?usage: $0 HARNESS SOURCE_DIR SEEDS_DIR SECONDS}
source_dir=${2:?}
seeds_dir=${3:?}
seconds=${4:?}
name=$(basename "$harness")
name=${name#fuzz_}

corpus=()
for dir in "$source_dir/corpus/$name" "$seeds_dir/$name"; do
  [ -d "$dir" ] && corpus+=("$dir")
done
dict=()
[ -f "$source_dir/dict/$name.dict" ] && dict=("-dict=$source_dir/dict/$name.dict")
artifacts=${FLASHFIT_FUZZ_ARTIFACTS:-$(dirname "$(dirname "$harness")")/fuzz-artifacts}
mkdir -p "$artifacts"
work=$(mktemp -d)
trap 'rm -rf "$work" "$work.log"' EXIT

# Leaks are reports too; each input gets 10 s and 2 GB.
common=(-artifact_prefix="$artifacts/$name-" -timeout=10 -rss_limit_mb=2048 -detect_leaks=1
  -print_final_stats=1 "${dict[@]}")
export ASAN_OPTIONS="abort_on_error=1:detect_stack_use_after_return=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"

status=0
if [ "$seconds" -le 0 ]; then
  echo "== replay ${corpus[*]}"
  "$harness" "${common[@]}" -runs=0 "${corpus[@]}" "$work" >"$work.log" 2>&1 || status=$?
  tail -n 40 "$work.log"
  if [ "$status" -ne 0 ]; then
    echo "fuzz.$name: replaying the corpus FAILED (exit $status)"
    exit 1
  fi
else
  # One run replays and then fuzzes: libFuzzer executes every corpus input
  # before it mutates any (up to its INITED line), and counts those
  # executions in -runs, so the runs asked for are the inputs plus 200 per
  # second. (Asking for 200 per second alone left no fuzzing at all to a
  # corpus larger than that, only a second replay; -max_total_time does not
  # stop the replay, so it bounds the whole run below the test's timeout.)
  seed=${FLASHFIT_FUZZ_SEED:-1}
  inputs=$(find "${corpus[@]}" -type f | wc -l)
  mutations=$((seconds * 200))
  echo "== replay ${corpus[*]} ($inputs inputs), then fuzz: $mutations runs from seed $seed"
  # New inputs go to $work (first directory), never into the source tree.
  "$harness" "${common[@]}" -seed="$seed" -runs=$((inputs + 1 + mutations)) \
    -max_total_time=240 "$work" "${corpus[@]}" >"$work.log" 2>&1 || status=$?
  tail -n 40 "$work.log"
  if [ "$status" -ne 0 ]; then
    if grep -qE "^#[0-9]+[[:space:]]+INITED " "$work.log"; then
      echo "fuzz.$name: fuzzing FAILED (exit $status); the input is under $artifacts"
    else
      echo "fuzz.$name: replaying the corpus FAILED (exit $status); the input is under $artifacts"
    fi
    exit 1
  fi
fi
echo "fuzz.$name passed"
