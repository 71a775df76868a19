#!/usr/bin/env bash
# Crash consistency of `flashfit install` (issue 18 item 4): a real venv
# (--system-site-packages, the machine's pip) holds ffinst 0.9 (the
# install_wheels fixture); `flashfit install` of 1.0 is SIGKILLed at every call
# through which flashfit itself changes a file (the LD_PRELOAD shim
# tests/fixtures/fault/fault_shim.c: it affects flashfit only, never pip) and
# at time offsets (pip's and the import check's moments included). After each
# kill, once every process flashfit started has ended:
# - site-packages holds exactly 0.9's files or exactly 1.0's (never a mix),
#   pip names that one version, and it imports;
# - the cache reads cleanly (`cache list --json`);
# - the same install run again succeeds, leaves 1.0 with exactly its files,
#   no backup and no lock held (a third, no-op install succeeds at once);
# - `cache gc --keep-days 0` then reclaims the killed run's orphaned backup and
#   keeps the one install --undo needs.
# Prints the number of kill points. $FAULT_MAX_POINTS (default 24) caps the
# shim points (spread evenly); each point costs a pip run and an import of torch.
# shellcheck source=tests/integration/lib.sh
source "$(dirname "$0")/lib.sh"

MAX_POINTS=${FAULT_MAX_POINTS:-12}
FIX=${FLASHFIT_INSTALL_WHEELS:?the install_wheels fixture sets FLASHFIT_INSTALL_WHEELS}
W09=$(ls "$FIX"/ffinst-0.9-*.whl)
W10=$(ls "$FIX"/ffinst-1.0+pt1*cpu-*.whl)
[[ -f $W09 && -f $W10 ]] || fail "fixture wheels missing in $FIX"
if ! use_fault_shim; then
  skip_note "flashfit is built with AddressSanitizer: the fault shim cannot interpose"
  exit 0
fi

write_ffinst_recipe_config
export FLASHFIT_CONFIG="$TMP/config/config.toml"

VENV="$TMP/venv"
PY=$VENV/bin/python
"$TEST_PYTHON" -m venv --system-site-packages "$VENV" || fail "cannot create a venv"
SITE=$("$PY" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
pipq() { "$PY" -m pip --disable-pip-version-check -q "$@"; }
# Neither may fail (set -e would end the script with no FAIL line, as one CI
# run did): a site-packages with no ffinst at all is a state check_state names.
installed_versions() {
  { "$PY" -m pip list --format=freeze 2>/dev/null || true; } | sed -n 's/^ffinst==//p' | tr '\n' ' '
}
files_now() {
  (cd "$SITE" && { find ffinst* -type f ! -path '*/__pycache__/*' 2>/dev/null || true; } | sort)
}

# The two allowed states, as pip leaves them.
pipq install --no-deps --no-index "$W10" || fail "cannot install 1.0"
files_now >"$TMP/files.10"
pipq install --no-deps --no-index --force-reinstall "$W09" || fail "cannot install 0.9"
files_now >"$TMP/files.09"
cmp -s "$TMP/files.09" "$TMP/files.10" && fail "0.9 and 1.0 have the same files: the check could not tell a mix"
rm -rf "$TMP/venv.09" && cp -a "$VENV" "$TMP/venv.09"
reset_venv() { rm -rf "$VENV" && cp -a "$TMP/venv.09" "$VENV"; }

# Any process whose command line names the venv (pip, the import check): the
# kill leaves them orphaned; the invariant is about what they leave behind.
wait_orphans() {
  local i
  for ((i = 0; i < 600; i++)); do
    pgrep -f -- "$VENV/" >/dev/null || return 0
    sleep 0.1
  done
  fail "$1: a child of the killed flashfit still runs after 60 s: $(pgrep -af -- "$VENV/")"
}

# check_state WHAT: exactly one version's files, that version listed, importable.
check_state() {
  local what=$1 v
  files_now >"$TMP/files.now"
  v=$(installed_versions)
  if cmp -s "$TMP/files.now" "$TMP/files.09"; then
    [[ $v == "0.9 " ]] || fail "$what: 0.9's files but pip lists '$v'"
  elif cmp -s "$TMP/files.now" "$TMP/files.10"; then
    [[ $v == 1.0* && $v != *" "?* ]] || fail "$what: 1.0's files but pip lists '$v'"
  elif [[ ! -s $TMP/files.now ]]; then
    fail "$what: site-packages holds neither version (pip lists '$v'; left there: $(ls -A "$SITE" | grep -i 'finst' | head -5 | tr '\n' ' '))"
  else
    fail "$what: site-packages holds a mix: $(diff "$TMP/files.09" "$TMP/files.now" | head -20)"
  fi
  "$PY" -c 'import torch, ffinst' 2>"$TMP/import.err" || fail "$what: ffinst ($v) does not import: $(tail -3 "$TMP/import.err")"
  capture "$FLASHFIT" cache list --json
  expect_rc 0 "$what: cache list"
}

# again WHAT: the next install succeeds and leaves 1.0 whole, nothing held.
again() {
  local what=$1
  ff install "$W10" --python "$PY" --json
  expect_rc 0 "$what: the next install"
  cmp -s "$TMP/files.10" <(files_now) || fail "$what: after the next install, not exactly 1.0's files"
  [[ $(installed_versions) == 1.0* ]] || fail "$what: after the next install, pip lists '$(installed_versions)'"
  # The killed run's own backup (backups/ffinst-<its pid>) is not reclaimed by
  # any later run (cache gc reclaims it: below); the next run leaves none of its
  # own but the one `install --undo` needs: the replaced version's, named in
  # last-install.json.
  local left kept=""
  if [[ -f $FLASHFIT_CACHE_DIR/backups/last-install.json ]]; then
    kept=$(python3 -c 'import json, os, sys
r = json.load(open(sys.argv[1])).get("replaced")
print(os.path.basename(r["dir"]) if r else "")' "$FLASHFIT_CACHE_DIR/backups/last-install.json")
  fi
  left=$(comm -23 <({ ls -A "$FLASHFIT_CACHE_DIR/backups" 2>/dev/null || true; } | sort) "$TMP/stale" |
    grep -vx -e last-install.json ${kept:+-e "$kept"} || true)
  [[ -z $left ]] || fail "$what: the next install left a backup: $left"
  # The killed run's backup is an orphan now (its process is gone): gc
  # reclaims it, and keeps the one install --undo needs. A temp file of
  # last-install.json left by a write killed midway gets an hour's grace:
  # age it past that.
  find "$FLASHFIT_CACHE_DIR/backups" -maxdepth 1 -name '.last-install.json.*' -exec touch -d '2 hours ago' {} + 2>/dev/null || true
  ff cache gc --keep-days 0 --json
  expect_rc 0 "$what: cache gc"
  reclaimed=$((reclaimed + $(json_field "$TMP/out" 'len(d["stale_backups"])')))
  left=$({ ls -A "$FLASHFIT_CACHE_DIR/backups" 2>/dev/null || true; } |
    grep -vx -e last-install.json ${kept:+-e "$kept"} || true)
  [[ -z $left ]] || fail "$what: cache gc --keep-days 0 left a stale backup: $left"
  [[ -z $kept || -d $FLASHFIT_CACHE_DIR/backups/$kept ]] || fail "$what: cache gc took install --undo's backup $kept"
  FF_TIMEOUT=60 ff install "$W10" --python "$PY" --json
  expect_rc 0 "$what: an install right after (no lock left held)"
}

# The shim's points: every call through which flashfit changes a file.
reset_venv
rm -rf "$FLASHFIT_CACHE_DIR"
capture env LD_PRELOAD="$SHIM" FLASHFIT_FAULT_COUNT="$TMP/count" "$FLASHFIT" install "$W10" --python "$PY" --json
expect_rc 0 "install under the shim"
total=$(cat "$TMP/count")
((total > 0)) || fail "the shim saw no file change in install"
points=$("$TEST_PYTHON" -c 'import sys
n, m = int(sys.argv[1]), int(sys.argv[2])
print(" ".join(str(p) for p in sorted({1 + (n - 1) * i // max(1, m - 1) for i in range(min(n, m))})))' "$total" "$MAX_POINTS")
tested=0
killed=0
stale=0
reclaimed=0
states=""
for n in $points; do
  reset_venv
  rm -rf "$FLASHFIT_CACHE_DIR"
  capture env LD_PRELOAD="$SHIM" FLASHFIT_FAULT_KILL_AT="$n" "$FLASHFIT" install "$W10" --python "$PY" --json
  [[ $RC == 137 || $RC == 0 ]] || fail "install: exit $RC with a kill at call $n of $total: $(cat "$TMP/err")"
  [[ $RC == 137 ]] && killed=$((killed + 1))
  wait_orphans "kill at call $n"
  { ls -A "$FLASHFIT_CACHE_DIR/backups" 2>/dev/null || true; } | sort >"$TMP/stale"
  [[ -s $TMP/stale ]] && stale=$((stale + 1))
  check_state "install, kill at call $n of $total"
  states+="$(installed_versions | cut -c1-3)"
  again "install, kill at call $n"
  tested=$((tested + 1))
done
((killed * 2 > tested)) || fail "install: only $killed of $tested runs were killed"
pass_note "install: $total change points, $tested SIGKILLs at them ($killed mid-run), 0 violations"

# kill_install T [pip]: install 1.0 over 0.9 in the background, SIGKILL it T
# seconds later (counted from the installer's start with "pip": no pip process
# seen means the run had already ended), then the invariants and the next run.
kill_install() {
  local t=$1 from=${2:-} what i pid
  reset_venv
  rm -rf "$FLASHFIT_CACHE_DIR"
  "$FLASHFIT" install "$W10" --python "$PY" --json >"$TMP/out" 2>"$TMP/err" &
  pid=$!
  BACKGROUND_PIDS+=("$pid")
  what="after ${t}s"
  if [[ $from == pip ]]; then
    what="${t}s after the installer started"
    for ((i = 0; i < 3000; i++)); do
      pgrep -f -- "$PY -m pip install" >/dev/null && break
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.01
    done
  fi
  sleep "$t"
  kill -KILL "$pid" 2>/dev/null || true
  RC=0
  wait "$pid" || RC=$?
  forget_background "$pid"
  LAST_CMD="install killed $what"
  wait_orphans "kill $what"
  { ls -A "$FLASHFIT_CACHE_DIR/backups" 2>/dev/null || true; } | sort >"$TMP/stale"
  [[ -s $TMP/stale ]] && stale=$((stale + 1))
  check_state "install, kill $what (exit $RC)"
  again "install, kill $what"
}

# Time offsets: across pip's run and the import check (which the shim cannot
# see: they are children).
offsets="0.05 0.2 0.4 0.7 1 1.5 2 3 4 5 6 8"
timed=0
for t in $offsets; do
  kill_install "$t"
  timed=$((timed + 1))
done
pass_note "install: $timed SIGKILLs at time offsets ($offsets s), 0 violations"

# Offsets from the moment the installer starts, across its transaction: CI
# once found a kill there leaving neither version (pip, orphaned, died of its
# broken output pipe between moving 0.9 away and putting 1.0 in; its output now
# goes to files).
pip_offsets="0 0.1 0.2 0.3 0.4 0.5 0.6 0.7 0.8 0.9 1 1.2 1.5"
relative=0
for t in $pip_offsets; do
  kill_install "$t" pip
  relative=$((relative + 1))
done
pass_note "install: $relative SIGKILLs from the installer's start ($pip_offsets s), 0 violations"
printf 'install: %s change points, %s shim kills (%s mid-run), %s timed kills, %s from the installer start, 0 violations; %s kills left a stale backup, cache gc reclaimed %s\n' \
  "$total" "$tested" "$killed" "$timed" "$relative" "$stale" "$reclaimed"
