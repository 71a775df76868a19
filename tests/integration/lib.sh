# shellcheck shell=bash disable=SC2034  # (variables are for the scripts that source this)
# Shared by tests/integration/test_*.sh (sourced, not run). Each test gets
#   $1 the flashfit binary, $2 the source dir, $3 the test python (/usr/bin/python3)
# and sources this file first thing.
set -euo pipefail

FLASHFIT=${1:?usage: $0 FLASHFIT SOURCE_DIR TEST_PYTHON}
SOURCE_DIR=${2:?usage: $0 FLASHFIT SOURCE_DIR TEST_PYTHON}
TEST_PYTHON=${3:?usage: $0 FLASHFIT SOURCE_DIR TEST_PYTHON}
TEST_NAME=$(basename "$0" .sh)
# Absolute, since some tests run it from another directory.
FLASHFIT=$(realpath "$FLASHFIT")
# Every flashfit call is bounded, so no test can hang the suite. A bound on a
# hang, not on speed: CI once saw two install tests, side by side, each wait
# past 60 s on its pip run and on an import of torch in the same minute (a
# stalled machine); 240 s still ends a hung call long before ctest's timeout.
FF_TIMEOUT=${FF_TIMEOUT:-240}

# The caller's shell may have a virtual environment active; the tests that
# want one set it themselves.
unset VIRTUAL_ENV

TMP=$(mktemp -d "${TMPDIR:-/tmp}/flashfit-${TEST_NAME}.XXXXXX")
# A private cache: tests never read or write the user's, nor each other's.
export FLASHFIT_CACHE_DIR="$TMP/cache"
# Processes a test started in the background (-PGID: a whole group), killed
# on the way out, so that even a failing test leaves nothing running.
BACKGROUND_PIDS=()
cleanup() {
  local pid
  for pid in "${BACKGROUND_PIDS[@]}"; do
    kill -KILL -- "$pid" 2>/dev/null || true
  done
  rm -rf "$TMP"
}
trap cleanup EXIT

# forget_background PID: it is gone; do not signal whatever reuses the number.
forget_background() {
  local pid kept=()
  for pid in "${BACKGROUND_PIDS[@]}"; do
    [[ $pid == "$1" ]] || kept+=("$pid")
  done
  BACKGROUND_PIDS=("${kept[@]}")
}

fail() {
  printf 'FAIL [%s]: %s\n' "$TEST_NAME" "$*" >&2
  if [[ -n ${LAST_CMD:-} ]]; then
    printf '  last command: %s\n  exit code: %s\n' "$LAST_CMD" "${RC:-?}" >&2
    printf '  stdout (first 20 lines):\n' >&2
    head -n 20 "$TMP/out" 2>/dev/null | sed 's/^/    | /' >&2 || true
    printf '  stderr (first 20 lines):\n' >&2
    head -n 20 "$TMP/err" 2>/dev/null | sed 's/^/    | /' >&2 || true
  fi
  exit 1
}

skip_note() { printf 'SKIP [%s]: %s\n' "$TEST_NAME" "$*" >&2; }
pass_note() { printf 'ok   [%s]: %s\n' "$TEST_NAME" "$*"; }

# capture CMD ARGS...: runs the command under a timeout; stdout and stderr go
# to $TMP/out and $TMP/err (exact bytes, for cmp), RC holds the exit code.
capture() {
  LAST_CMD="$*"
  RC=0
  timeout "$FF_TIMEOUT" "$@" >"$TMP/out" 2>"$TMP/err" || RC=$?
  if ((RC == 124)); then fail "timed out after ${FF_TIMEOUT}s: $*"; fi
}

# ff ARGS...: capture the flashfit binary.
ff() { capture "$FLASHFIT" "$@"; }

expect_rc() {
  local want=$1 what=$2
  [[ $RC == "$want" ]] || fail "$what: expected exit code $want, got $RC"
}

expect_err_contains() {
  local text=$1
  grep -qF -- "$text" "$TMP/err" || fail "expected stderr to contain '$text'"
}

expect_err_lacks() {
  local text=$1
  ! grep -qF -- "$text" "$TMP/err" || fail "expected stderr NOT to contain '$text'"
}

expect_out_contains() {
  local text=$1
  grep -qF -- "$text" "$TMP/out" || fail "expected stdout to contain '$text'"
}

expect_out_empty() {
  [[ ! -s $TMP/out ]] || fail "expected nothing on stdout (data only), got $(wc -c <"$TMP/out") bytes"
}

expect_err_empty() {
  [[ ! -s $TMP/err ]] || fail "expected nothing on stderr, got $(wc -c <"$TMP/err") bytes"
}

# An error as the design promises it: the given exit code, nothing on
# stdout, one "flashfit: ..." message on stderr, no crash, no bare what(),
# no raw control bytes from hostile input, and a bounded size.
expect_clean_error() {
  local want=$1 what=$2
  expect_rc "$want" "$what"
  expect_out_empty
  [[ -s $TMP/err ]] || fail "$what: expected an error message on stderr, got none"
  head -c 10 "$TMP/err" | grep -qF 'flashfit: ' || fail "$what: stderr does not start with 'flashfit: '"
  local bad
  # (flashfit's own crash shows in the exit code; these are what escaped
  # exceptions and assertion failures print.)
  for bad in 'what()' 'terminate called' 'internal error' 'Assertion'; do
    ! grep -qF -- "$bad" "$TMP/err" || fail "$what: stderr contains '$bad'"
  done
  ! LC_ALL=C grep -q $'[\x01-\x08\x0b-\x1f\x7f]' "$TMP/err" ||
    fail "$what: stderr carries raw control bytes"
  local size
  size=$(wc -c <"$TMP/err")
  ((size < 4096)) || fail "$what: the message is $size bytes; it should be short"
}

# json_field FILE EXPR: prints a value from a JSON document, e.g.
#   json_field "$TMP/out" 'd["interpreter"]["found_by"]'
json_field() {
  "$TEST_PYTHON" -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(eval(sys.argv[2]))' "$1" "$2"
}

# Not running: gone, or a zombie no one has reaped yet (outside our control
# once flashfit has exited and the process was re-parented).
process_running() {
  local pid=$1 stat state
  { read -r stat <"/proc/$pid/stat"; } 2>/dev/null || return 1
  state=${stat##*) }
  state=${state%% *}
  [[ $state != Z && $state != X ]]
}

# Processes (not zombies) whose process group is $1.
group_members() {
  local pgid=$1 file stat rest state _ppid pgrp
  for file in /proc/[0-9]*/stat; do
    { read -r stat <"$file"; } 2>/dev/null || continue
    rest=${stat##*) }
    read -r state _ppid pgrp _ <<<"$rest"
    [[ $pgrp == "$pgid" && $state != Z && $state != X ]] && printf '%s ' "${file//[^0-9]/}"
  done
  return 0
}

# start_http_server DIR [ROUTES_JSON]: tests/fixtures/http_server.py on
# 127.0.0.1, serving DIR, killed on exit; sets HTTP_PORT and HTTP_URL, and
# HTTP_LOG (one line per request). Waits (bounded) for the port.
start_http_server() {
  local root=$1 routes=${2:-}
  local args=(--root "$root" --port-file "$TMP/http.port" --log "$TMP/http.log")
  [[ -n $routes ]] && args+=(--routes "$routes")
  rm -f "$TMP/http.port"
  : >"$TMP/http.log"  # a fresh log per server
  setsid "$TEST_PYTHON" "$SOURCE_DIR/tests/fixtures/http_server.py" "${args[@]}" \
    >"$TMP/http.out" 2>&1 &
  BACKGROUND_PIDS+=("$!")
  disown "$!"  # no "Killed" job notice when cleanup ends it
  local i
  for ((i = 0; i < 100; i++)); do
    [[ -s $TMP/http.port ]] && break
    sleep 0.1
  done
  [[ -s $TMP/http.port ]] || fail "the test HTTP server did not start: $(cat "$TMP/http.out")"
  HTTP_PORT=$(cat "$TMP/http.port")
  HTTP_URL="http://127.0.0.1:$HTTP_PORT"
  HTTP_LOG="$TMP/http.log"
  export no_proxy="127.0.0.1${no_proxy:+,$no_proxy}" NO_PROXY="127.0.0.1${NO_PROXY:+,$NO_PROXY}"
}

# A TCP port on 127.0.0.1 nothing listens on (bound, then released).
closed_port() {
  "$TEST_PYTHON" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# A config whose recipe dir names the install tests' extension, ffinst (a CPU
# torch extension: its binary module is its import name), as
# $TMP/config/config.toml; the caller exports FLASHFIT_CONFIG to use it.
write_ffinst_recipe_config() {
  mkdir -p "$TMP/config/recipes"
  cat >"$TMP/config/recipes/ffinst.toml" <<'TOML'
[package]
name = "ffinst"
summary = "flashfit's install test extension"
import_names = ["ffinst"]
binary_module = "ffinst"
needs_cuda = false

[build]
needs_cuda = false
TOML
  printf 'recipe_dirs = ["%s"]\n' "$TMP/config/recipes" >"$TMP/config/config.toml"
}

# write_ffdep_recipe: makes the pure package ffdep a recipe package too (in
# write_ffinst_recipe_config's recipe dir), a second package flashfit takes
# for the rollback cases; `rm "$TMP/config/recipes/ffdep.toml"` undoes it.
write_ffdep_recipe() {
  cat >"$TMP/config/recipes/ffdep.toml" <<'TOML'
[package]
name = "ffdep"
summary = "a second package flashfit takes, for the rollback case"
import_names = ["ffdep"]
needs_cuda = false

[build]
needs_cuda = false
TOML
}

# use_fault_shim: sets SHIM to the LD_PRELOAD fault shim a crash driver uses
# (the CTest fixture's, or built here when the script is run by hand).
# Returns 1 when flashfit is built with AddressSanitizer, whose interceptors
# of write, rename, ... live in the executable, which the loader searches
# before any preload: the shim cannot interpose there.
use_fault_shim() {
  SHIM=${FLASHFIT_FAULT_SHIM:-}
  if [[ -z $SHIM ]]; then
    SHIM="$TMP/fault_shim.so"
    cc -shared -fPIC -O1 -o "$SHIM" "$SOURCE_DIR/tests/fixtures/fault/fault_shim.c" -ldl ||
      fail "cannot build the fault shim"
  fi
  [[ -f $SHIM ]] || fail "no fault shim at $SHIM"
  ! nm -D "$FLASHFIT" 2>/dev/null | grep -q ' __asan_init'
}

# fault_points N MAX: the call numbers a crash driver interrupts (of the N
# change points its fault shim counted): all of 1..N, or MAX spread evenly.
fault_points() {
  local n=$1 max=$2
  if ((n <= max)); then
    seq 1 "$n"
  else
    "$TEST_PYTHON" -c 'import sys
n, m = int(sys.argv[1]), int(sys.argv[2])
print("\n".join(str(p) for p in sorted({1 + (n - 1) * i // (m - 1) for i in range(m)})))' "$n" "$max"
  fi
}

# faulted MODE N CMD...: runs CMD with the fault shim ($SHIM, which the crash
# driver sets): MODE kill, enospc or eacces at its Nth change point, or count
# (writes the number of change points to $TMP/count). RC as capture sets it.
faulted() {
  local mode=$1 n=$2
  shift 2
  local env=(LD_PRELOAD="$SHIM")
  case $mode in
    kill) env+=(FLASHFIT_FAULT_KILL_AT="$n") ;;
    enospc) env+=(FLASHFIT_FAULT_ENOSPC_AT="$n") ;;
    eacces) env+=(FLASHFIT_FAULT_EACCES_AT="$n") ;;
    count) env+=(FLASHFIT_FAULT_COUNT="$TMP/count") ;;
    spawn) env+=(FLASHFIT_FAULT_KILL_AFTER_SESSION_SPAWN="$n" FLASHFIT_FAULT_SPAWNED="$TMP/spawned") ;;
  esac
  capture env "${env[@]}" "$@"
}
