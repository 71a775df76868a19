#!/usr/bin/env bash
# The sanitized.binary test (tests/sanitize/CMakeLists.txt): configures a
# sub-build of the lower layers with FLASHFIT_SANITIZE, builds their unit tests
# and runs them through ctest there. Fails on a failing test and on any
# sanitizer report, including one from a child process whose exit status
# nobody checks: ASan and LSan write their reports to files (log_path), and
# any file is a failure; UBSan beside ASan ignores log_path and writes to
# stderr, so every test's output (ctest's JUnit file keeps it, passed or not)
# is searched for reports too.
#
# usage: run.sh SOURCE_DIR SUB_BUILD_DIR CMAKE CTEST TARGETS [cmake configure args...]
#   TARGETS: comma-separated targets to build, e.g. unit_util,unit_pkg,unit_binary,fuzzers;
#   unit_<layer> runs unit.<layer>.*, fuzzers runs fuzz.*, and an item test:REGEX
#   runs the tests REGEX matches (built by the other targets).
# The sub-build is kept, so a second run is incremental. Build and test
# parallelism follow CMAKE_BUILD_PARALLEL_LEVEL / CTEST_PARALLEL_LEVEL, else
# the generator's default and the number of CPUs. ASAN_OPTIONS / UBSAN_OPTIONS
# from the caller are appended (later settings win).
set -euo pipefail

source_dir=${1:?usage: $0 SOURCE_DIR SUB_BUILD_DIR CMAKE CTEST TARGETS [configure args...]}
build_dir=${2:?}
cmake=${3:?}
ctest=${4:?}
IFS=, read -r -a items <<<"${5:?}"
shift 5
# An item "test:REGEX" selects tests without building anything.
targets=()
test_regexes=()
for item in "${items[@]}"; do
  if [[ $item == test:* ]]; then
    test_regexes+=("${item#test:}")
  else
    targets+=("$item")
  fi
done

reports="$build_dir/sanitizer-reports"
configure_log="$build_dir/flashfit-configure.log"
junit="$build_dir/flashfit-tests.xml"
# Every report is fatal (abort_on_error, halt_on_error and the build's
# -fno-sanitize-recover=all) and goes to a file (asan.EXE.PID) where the runtime
# honours log_path. LSan runs at each process's exit.
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:check_initialization_order=1:strict_init_order=1:detect_stack_use_after_return=1:log_path=$reports/asan:log_exe_name=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:log_path=$reports/ubsan${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
jobs=${CTEST_PARALLEL_LEVEL:-$(nproc)}
# The integration scripts bound each flashfit call (tests/integration/lib.sh);
# unoptimised and sanitized it runs up to ~90x slower on hostile input (13 s of
# CPU to refuse a 4 MiB, 2-million-deep JSON answer, against 0.15 s), so the
# bound is wider here.
export FF_TIMEOUT=${FF_TIMEOUT:-240}

mkdir -p "$build_dir"
rm -rf "$reports" "$junit"
mkdir -p "$reports"

status=0
echo "== configure $build_dir"
"$cmake" -S "$source_dir" -B "$build_dir" "$@" >"$configure_log" 2>&1 || {
  cat "$configure_log"
  exit 1
}
echo "== build ${targets[*]}"
# Building runs each test executable once (gtest_discover_tests), sanitized too.
"$cmake" --build "$build_dir" --target "${targets[@]}" || status=$?
if [ "$status" -eq 0 ]; then
  echo "== test"
  regex=""
  for target in "${targets[@]}"; do
    case $target in
      fuzzers) regex+="${regex:+|}^fuzz\\." ;;  # every harness's fuzz.<name> test
      unit_*) regex+="${regex:+|}^${target/_/\\.}\\." ;;  # unit_binary -> ^unit\.binary\.
    esac
  done
  for extra in "${test_regexes[@]}"; do
    regex+="${regex:+|}$extra"
  done
  "$ctest" --test-dir "$build_dir" --output-on-failure --timeout 300 --parallel "$jobs" \
    --no-tests=error --output-junit "$junit" -R "$regex" || status=$?
fi

shopt -s nullglob
files=("$reports"/*)
if [ ${#files[@]} -gt 0 ]; then
  echo "== ${#files[@]} sanitizer report file(s):"
  for file in "${files[@]}"; do
    echo "---- $file"
    cat "$file"
  done
  status=1
fi
# Reports on stderr: "file:line:col: runtime error: ..." (UBSan) and
# "==PID==ERROR: AddressSanitizer: ..." (a runtime that ignored log_path).
if [ -f "$junit" ]; then
  marked=$(awk '
    /<testcase name="/ { name = $0; sub(/.*<testcase name="/, "", name); sub(/".*/, "", name) }
    /: runtime error: |==[0-9]+==ERROR: [A-Za-z]+Sanitizer/ { print name ": " $0 }
  ' "$junit")
  if [ -n "$marked" ]; then
    echo "== sanitizer reports in the tests' output (all of it: $junit):"
    echo "$marked"
    status=1
  fi
fi

if [ "$status" -ne 0 ]; then
  echo "sanitized run FAILED"
  exit 1
fi
echo "sanitized run passed: no failures, no sanitizer reports"
