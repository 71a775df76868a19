#!/usr/bin/env bash
# Ctrl-C (SIGINT) and SIGTERM during a replacing install never lose the
# previous version (issue 13 item 10). A real venv with the machine's pip holds
# ffinst 0.9 (the install_wheels fixture); `flashfit install` of 1.0 is
# stopped at two moments:
# - the pip step, after pip has replaced 0.9 by 1.0 and before it exits (the
#   worst moment: the old files are gone, the new ones in place);
# - the import check of 1.0.
# Each time flashfit must exit 130, leave no process behind, and leave 0.9
# installed (pip show), importable, with exactly its own files (no 1.0 file
# left), and no backup left over once the restore is proven. Then `install -r`
# of two compiled packages, SIGINT at the second one's import check: the
# second restored, the first (new) removed.
#
# The moments are made to last by a .pth hook in the venv (Python runs .pth
# `import` lines at every start): with FFTEST_HOLD=pip it holds pip's exit
# (atexit: the install is done), with FFTEST_HOLD=import it holds the import
# check's interpreter before it imports anything; it writes its pid first.
# shellcheck source=tests/integration/lib.sh
source "$(dirname "$0")/lib.sh"

FIX=${FLASHFIT_INSTALL_WHEELS:?the install_wheels fixture sets FLASHFIT_INSTALL_WHEELS}
W09=$(ls "$FIX"/ffinst-0.9-*.whl)
W10=$(ls "$FIX"/ffinst-1.0+pt1*cpu-*.whl)
[[ -f $W09 && -f $W10 ]] || fail "fixture wheels missing in $FIX"

write_ffinst_recipe_config
export FLASHFIT_CONFIG="$TMP/config/config.toml"

"$TEST_PYTHON" -m venv --system-site-packages "$TMP/venv" || fail "cannot create a venv"
PY=$TMP/venv/bin/python
SITE=$("$PY" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
cat >"$SITE/fftest_hold.py" <<'PYEOF'
import atexit, os, sys, time
_stage = os.environ.get("FFTEST_HOLD")
def _hold():
    with open(os.environ["FFTEST_HOLD_MARK"] + ".tmp", "w") as f:
        f.write(str(os.getpid()))
    os.rename(os.environ["FFTEST_HOLD_MARK"] + ".tmp", os.environ["FFTEST_HOLD_MARK"])
    time.sleep(120)
if _stage == "pip" and "install" in sys.argv and "--no-deps" in sys.argv:
    atexit.register(_hold)
elif _stage == "import" and sys.argv[:1] == ["-c"] and sys.argv[2:3] in (["fresh"], ["preloaded"]):
    # The import check's interpreter (started before pip or after it) is held
    # when it comes to import ffinst, after pip's run.
    class _HoldAtImport:
        def find_spec(self, name, path=None, target=None):
            if name == "ffinst":
                _hold()
            return None
    sys.meta_path.insert(0, _HoldAtImport())
PYEOF
echo 'import fftest_hold' >"$SITE/fftest_hold.pth"

installed_version() { "$PY" -m pip show ffinst 2>/dev/null | sed -n 's/^Version: //p'; }
# ffinst's files as pip lists them for 0.9, and what is on disk under ffinst*.
files_now() { (cd "$SITE" && find ffinst* -type f ! -path '*/__pycache__/*' | sort); }

"$PY" -m pip install --no-deps --no-index --disable-pip-version-check -q "$W09" || fail "cannot pre-install 0.9"
files_now >"$TMP/files.09"
[[ $(installed_version) == 0.9 ]] || fail "0.9 is not installed"

# start_held STAGE MARK ARGS...: flashfit ARGS in the background, the hook
# holding STAGE; returns once the held process wrote its pid to MARK (120 s at
# most). Sets FF_PID and HELD.
start_held() {
  local stage=$1 mark=$2 i
  shift 2
  rm -f "$mark"
  FFTEST_HOLD=$stage FFTEST_HOLD_MARK=$mark "$FLASHFIT" "$@" >"$TMP/out" 2>"$TMP/err" &
  FF_PID=$!
  BACKGROUND_PIDS+=("$FF_PID")
  for ((i = 0; i < 1200; i++)); do
    [[ -s $mark ]] && break
    process_running "$FF_PID" || break
    sleep 0.1
  done
  [[ -s $mark ]] || fail "the $stage step was never reached (flashfit $*): $(cat "$TMP/err")"
  HELD=$(<"$mark")
  BACKGROUND_PIDS+=("-$HELD")
}

# signal_and_wait SIGNAL SECONDS: SIGNAL to flashfit (FF_PID), then its exit
# within SECONDS; sets RC.
signal_and_wait() {
  local signal=$1 limit=$(($2 * 10)) i
  kill -s "$signal" "$FF_PID"
  for ((i = 0; i < limit; i++)); do
    process_running "$FF_PID" || break
    sleep 0.1
  done
  process_running "$FF_PID" && fail "flashfit still runs $2 s after SIG$signal"
  RC=0
  wait "$FF_PID" || RC=$?
  forget_background "$FF_PID"
}

# interrupt SIGNAL STAGE: install 1.0 over 0.9, deliver SIGNAL to flashfit while STAGE holds.
interrupt() {
  local signal=$1 stage=$2 held i
  start_held "$stage" "$TMP/hold.$1.$2" install "$W10" --python "$PY" --json
  held=$HELD
  if [[ $stage == pip ]]; then
    [[ $(installed_version) == 1.0* ]] || fail "SIG$signal/pip: pip had not replaced 0.9 yet"
  fi
  signal_and_wait "$signal" 30
  LAST_CMD="install $W10 (SIG$signal during $stage)"
  expect_rc 130 "SIG$signal during $stage"
  expect_err_contains 'interrupted'
  expect_err_contains 'restored 0.9'
  for ((i = 0; i < 50; i++)); do
    process_running "$held" || break
    sleep 0.1
  done
  ! process_running "$held" || fail "SIG$signal/$stage: the held $stage process (pid $held) survived"
  forget_background "-$held"
  [[ $(installed_version) == 0.9 ]] || fail "SIG$signal/$stage: installed is '$(installed_version)', not 0.9"
  "$PY" -c 'import torch, ffinst' || fail "SIG$signal/$stage: the restored 0.9 does not import"
  files_now >"$TMP/files.now"
  diff "$TMP/files.09" "$TMP/files.now" >"$TMP/files.diff" ||
    fail "SIG$signal/$stage: ffinst's files differ from 0.9's: $(cat "$TMP/files.diff")"
  [[ -z $(ls -A "$FLASHFIT_CACHE_DIR/backups" 2>/dev/null) ]] ||
    fail "SIG$signal/$stage: a backup was left although the restore was proven"
  pass_note "SIG$signal during the $stage step: exit 130, 0.9 installed, importable, exactly its files"
}

interrupt INT pip
interrupt TERM pip
interrupt INT import
interrupt TERM import

# Without a signal the same install replaces 0.9 (the hook holds nothing).
ff install "$W10" --python "$PY" --json
expect_rc 0 "the install itself works"
[[ $(installed_version) == 1.0* ]] || fail "1.0 was not installed"
pass_note "the same install without a signal installs 1.0"

# --- install -r: Ctrl-C during a later package rolls back the earlier one --------
# ffdep made a (pure) recipe package, installed first (new), then ffinst 1.0
# over 0.9, held at its import check: SIGINT restores 0.9 and removes ffdep.
write_ffdep_recipe
mkdir -p "$TMP/links"
"$TEST_PYTHON" "$SOURCE_DIR/tests/fixtures/pure_wheel.py" "$TMP/links" 'ffdep==1.2' ||
  fail "cannot write the ffdep wheel"
cp "$W10" "$TMP/links/"
"$PY" -m pip install --no-deps --no-index --disable-pip-version-check -q --force-reinstall "$W09" ||
  fail "cannot put 0.9 back"
files_now >"$TMP/files.09"
printf -- '--find-links %s\n--no-index\nffdep==1.2\nffinst==1.0\n' "$TMP/links" >"$TMP/two.txt"
start_held import "$TMP/hold.requirements" install -r "$TMP/two.txt" --python "$PY"
[[ -n $("$PY" -m pip show ffdep 2>/dev/null) ]] || fail "install -r: ffdep was not installed before ffinst"
signal_and_wait INT 60
LAST_CMD="install -r $TMP/two.txt (SIGINT during ffinst's import check)"
expect_rc 130 "SIGINT during install -r"
expect_err_contains 'restored 0.9'
expect_err_contains 'ffdep: removed ffdep 1.2 (it was not installed before)'
[[ -z $("$PY" -m pip show ffdep 2>/dev/null) ]] || fail "install -r: ffdep was left installed"
[[ $(installed_version) == 0.9 ]] || fail "install -r: installed is '$(installed_version)', not 0.9"
files_now >"$TMP/files.now"
diff "$TMP/files.09" "$TMP/files.now" >"$TMP/files.diff" ||
  fail "install -r: ffinst's files differ from 0.9's: $(cat "$TMP/files.diff")"
pass_note "SIGINT during install -r's second package: 0.9 restored and the first package (new) removed, exit 130"
