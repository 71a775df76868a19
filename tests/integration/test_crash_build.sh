#!/usr/bin/env bash
# Crash consistency of `flashfit build` (issue 18), with the suite's torch
# extension (tests/fixtures/build_pkg, built against the test python's torch):
#   1. SIGKILL of flashfit while a compiler runs: the build sentinel
#      (build/sentinel.hpp) stops every process of the build within seconds
#      (no compiler goes on unwatched), then exits itself; the killed run's
#      temp dir is one `cache gc` names (owner gone); the same build run again
#      succeeds and caches its wheel.
#   2. The check of 1 can fail: with the sentinel killed too, the build's
#      processes are found still running (then stopped by the test).
#   3. SIGKILL at change points spread over the build (the LD_PRELOAD fault
#      shim counts flashfit's own file changes: log, temp dir, cache entry):
#      after each, nothing of the build runs, the cache reads cleanly and
#      holds only whole entries, and the build run again succeeds.
#   4. SIGKILL right after flashfit spawned the build, before the sentinel
#      starts (the fault shim, after the spawn of the build's session): the
#      build waits behind its gate (build/gate.hpp), so what was spawned exits
#      without ever running the build program; the build run again succeeds.
#      (Without the gate, the spawned process is the build program itself:
#      the check sees it and fails.) And the gate itself: it runs its program
#      only after the byte, with /dev/null as stdin, and nothing at EOF.
# Compilers run through ccache (a masquerade directory first on PATH, its
# cache in the test's temp dir) so the repeated builds take seconds.
# $FAULT_MAX_POINTS (default 6) bounds the points of 3.
# shellcheck source=tests/integration/lib.sh
source "$(dirname "$0")/lib.sh"
# shellcheck source=tests/integration/build_lib.sh
source "$(dirname "$0")/build_lib.sh"
FF_TIMEOUT=280

MAX_POINTS=${FAULT_MAX_POINTS:-6}
SANITIZED=0
use_fault_shim || SANITIZED=1
"$TEST_PYTHON" -c 'import torch' 2>/dev/null || fail "no torch for $TEST_PYTHON"

if command -v ccache >/dev/null; then
  mkdir -p "$TMP/ccbin"
  for cc in c++ g++ cc gcc x86_64-linux-gnu-g++ x86_64-linux-gnu-gcc; do
    ln -s "$(command -v ccache)" "$TMP/ccbin/$cc"
  done
  export PATH="$TMP/ccbin:$PATH" CCACHE_DIR="$TMP/ccache" CCACHE_NOHASHDIR=1 CCACHE_BASEDIR="$TMP"
fi

SRC=$TMP/src
# A fresh copy before each build: setup.py keeps its objects in the source
# tree, and a build that finds them compiles nothing.
fresh_source() { rm -rf "$SRC" && cp -r "$BUILD_PKG" "$SRC"; }

# Processes of the build of $SRC: build_processes (by the cache's temp dir)
# and any compiler of its sources.
build_left() {
  local left
  left=$(build_processes)
  left+=$(pgrep -f "$SRC/" | tr '\n' ' ' || true)
  printf '%s' "$left"
}

# gone_within SECONDS: until nothing of the build runs; fails naming what does.
gone_within() {
  local i
  for ((i = 0; i < $1 * 10; i++)); do
    [[ -z $(build_left) ]] && return 0
    sleep 0.1
  done
  return 1
}

# start_build: flashfit build of a fresh $SRC in the background, $FF_PID;
# returns once a compiler of torch's headers (binding.cpp) has been running a
# second (a real one: ccache is bypassed).
start_build() {
  fresh_source
  CCACHE_DISABLE=1 "$FLASHFIT" build "$SRC" --python "$TEST_PYTHON" --jobs 2 >"$TMP/bg.out" 2>"$TMP/bg.err" &
  FF_PID=$!
  BACKGROUND_PIDS+=("$FF_PID")
  local i compiling=0
  for ((i = 0; i < 1200; i++)); do
    if pgrep -f "$SRC/csrc/binding.cpp" >/dev/null; then
      ((++compiling >= 10)) && return 0
    fi
    process_running "$FF_PID" || fail "the build ended before compiling: $(tail -n 5 "$TMP/bg.err")"
    sleep 0.1
  done
  fail "no compiler of binding.cpp within 120 s: $(tail -n 5 "$TMP/bg.err")"
}

# sentinel_of PID: the build sentinel flashfit PID started (its child).
sentinel_of() {
  pgrep -P "$1" -f build-sentinel || true
}

# check_cache WHAT: the cache reads cleanly and every entry is whole.
check_cache() {
  capture "$FLASHFIT" cache list --json
  expect_rc 0 "$1: cache list"
  "$TEST_PYTHON" - "$TMP/out" <<'PY' || fail "$1: an entry is not whole"
import hashlib, json, sys
for e in json.load(open(sys.argv[1]))["entries"]:
    if hashlib.sha256(open(e["path"], "rb").read()).hexdigest() != e["sha256"]:
        sys.exit("not whole: %s" % e["path"])
PY
}

# build_again WHAT: the build run to the end succeeds, its wheel cached.
build_again() {
  ff build "$SRC" --python "$TEST_PYTHON" --jobs 2 --json
  expect_rc 0 "$1: the build run again"
  [[ -f $(json_field "$TMP/out" 'd["wheel"]["path"]') ]] || fail "$1: no wheel in the cache"
  check_cache "$1"
}

if ((SANITIZED)); then
  skip_note "flashfit is built with AddressSanitizer: the fault shim cannot interpose (part 3)"
fi

# --- 1. SIGKILL while compiling: the sentinel stops the build ----------------
start_build
SENTINEL=$(sentinel_of "$FF_PID")
[[ -n $SENTINEL ]] || fail "no build sentinel beside the running build"
TEMP_DIRS=$(compgen -G "$FLASHFIT_CACHE_DIR/tmp/build-$FF_PID-*" || true)
[[ -n $TEMP_DIRS ]] || fail "no temp dir of the running build"
kill -KILL "$FF_PID"
wait "$FF_PID" 2>/dev/null || true
forget_background "$FF_PID"
gone_within 15 || fail "the build still runs 15 s after flashfit was killed: $(build_left)"
for ((i = 0; i < 50; i++)); do
  process_running "$SENTINEL" || break
  sleep 0.1
done
process_running "$SENTINEL" && fail "the sentinel did not exit once the build was stopped"
ff cache gc --keep-days 0 --dry-run --json
expect_rc 0 "cache gc --dry-run"
json_field "$TMP/out" '[t["name"] + ":" + t["reason"] for t in d["stale_run_dirs"]]' |
  grep -q "build-$FF_PID-.*owner-gone" || fail "cache gc does not name the killed run's temp dir"
build_again "after a SIGKILL while compiling"
pass_note "SIGKILL of flashfit while compiling: the sentinel stopped the build, gc names its temp dir, the rerun builds"

# --- 2. the same without the sentinel: the build goes on (the check can fail) -
start_build
SENTINEL=$(sentinel_of "$FF_PID")
SID=$(ps -o sid= -p "$(pgrep -f "$SRC/csrc/binding.cpp" | head -n 1)" | tr -d ' ')
kill -KILL "$SENTINEL" "$FF_PID"
wait "$FF_PID" 2>/dev/null || true
forget_background "$FF_PID"
sleep 1
left=$(build_left)
pkill -KILL -s "$SID" 2>/dev/null || true  # the test's own clean-up
[[ -n $left ]] || fail "without the sentinel the build stopped anyway: the check of part 1 proves nothing"
gone_within 15 || fail "cannot clean up after part 2: $(build_left)"
pass_note "without the sentinel the killed flashfit's build went on (pids $left): the check can fail"

# --- 3. SIGKILL at change points spread over the build --------------------------
if ((!SANITIZED)); then
  # Counted twice, the smaller count kept: the first run fills ccache and
  # compiles for real, so it runs longer and its progress lines add log
  # writes that the later (cached) runs never reach.
  total=
  for _ in 1 2; do
    fresh_source
    faulted count 0 "$FLASHFIT" build "$SRC" --python "$TEST_PYTHON" --jobs 2
    expect_rc 0 "build under the shim"
    n=$(cat "$TMP/count")
    [[ -z $total ]] || ((n < total)) && total=$n
  done
  ((total > 0)) || fail "the shim saw no file change in build"
  tested=0
  killed=0
  for n in $(fault_points "$total" "$MAX_POINTS"); do
    fresh_source
    faulted kill "$n" "$FLASHFIT" build "$SRC" --python "$TEST_PYTHON" --jobs 2
    # The log's write count varies with how the build's output arrives: the
    # last point may lie past the end of a run, which then simply completes.
    [[ $RC == 137 || $RC == 0 ]] || fail "build: exit $RC with a kill at change $n of $total"
    [[ $RC == 137 ]] && killed=$((killed + 1))
    gone_within 15 || fail "the build still runs 15 s after a kill at change $n of $total: $(build_left)"
    check_cache "build killed at change $n of $total"
    build_again "after a kill at change $n of $total"
    tested=$((tested + 1))
  done
  ((killed >= tested - 1)) || fail "only $killed of $tested faulted builds were killed: the points miss the build"
  pass_note "build: $total change points, killed at $killed of $tested spread over them, 0 violations (nothing left running, the cache whole, the rerun builds)"
fi

# --- 4. SIGKILL between the build's spawn and its sentinel's --------------------
GATE_OUT=$TMP/gate-ran
rc=0
"$FLASHFIT" build-gate /bin/sh -- sh -c 'readlink /proc/self/fd/0 >"$0"' "$GATE_OUT" </dev/null || rc=$?
((rc == 125)) || fail "the gate at EOF: exit $rc, not 125"
[[ ! -e $GATE_OUT ]] || fail "the gate ran its program without the byte"
rc=0
printf g | "$FLASHFIT" build-gate /bin/sh -- sh -c 'readlink /proc/self/fd/0 >"$0"' "$GATE_OUT" || rc=$?
((rc == 0)) || fail "the opened gate: exit $rc"
[[ $(cat "$GATE_OUT") == /dev/null ]] || fail "the gated program's stdin: $(cat "$GATE_OUT"), not /dev/null"
capture "$FLASHFIT" build-gate /bin/true
expect_rc 2 "build-gate without --"
expect_err_contains "expected PROGRAM -- ARGV"
if ((!SANITIZED)); then
  fresh_source
  rm -f "$TMP/spawned"
  faulted spawn 1 "$FLASHFIT" build "$SRC" --python "$TEST_PYTHON" --jobs 2
  expect_rc 137 "build killed right after spawning its build"
  [[ -s $TMP/spawned ]] || fail "the shim did not name the spawned build"
  ROOT=$(cat "$TMP/spawned")
  for ((i = 0; i < 100; i++)); do
    process_running "$ROOT" || break
    cmd=$(tr '\0' ' ' <"/proc/$ROOT/cmdline" 2>/dev/null || true)
    [[ -z $cmd || $cmd == *" build-gate "* ]] || fail "the build ran with no sentinel: $cmd"
    sleep 0.1
  done
  process_running "$ROOT" && fail "the gate of a killed flashfit is still there after 10 s"
  gone_within 15 || fail "something of the build runs after a kill before its sentinel: $(build_left)"
  build_again "after a kill between the build's spawn and its sentinel's"
  pass_note "build killed between its spawn and its sentinel's: the gate exited, the build program never ran, the rerun builds"
fi
