#!/usr/bin/env bash
# flashfit uninstall and install --undo with the machine's real pip in a
# `--system-site-packages` venv (the install_wheels fixture's ffinst):
# - install 1.0 over 0.9 keeps 0.9's backup; doctor then says 1.0 is installed
#   and importable (checked); --undo puts 0.9 back (pip shows it, it imports,
#   exactly its files), and says "nothing to undo" the second time;
# - an install that replaced nothing: --undo says so and changes nothing;
# - --undo refuses when the version changed since the install;
# - uninstall removes it (pip shows nothing, the import fails); Ctrl-C while
#   pip uninstalls restores it; a package that is not installed is an error;
# - bad usage: what-if flags, a requirement instead of a name, --undo + SPEC.
# shellcheck source=tests/integration/lib.sh
source "$(dirname "$0")/lib.sh"

FIX=${FLASHFIT_INSTALL_WHEELS:?the install_wheels fixture sets FLASHFIT_INSTALL_WHEELS}
W09=$(ls "$FIX"/ffinst-0.9-*.whl)
W10=$(ls "$FIX"/ffinst-1.0+pt1*cpu-*.whl)
W11=$(ls "$FIX"/ffinst-1.1+pt1*cpu-*.whl)
[[ -f $W09 && -f $W10 && -f $W11 ]] || fail "fixture wheels missing in $FIX"

write_ffinst_recipe_config
export FLASHFIT_CONFIG="$TMP/config/config.toml"

"$TEST_PYTHON" -m venv --system-site-packages "$TMP/venv" || fail "cannot create a venv"
PY=$TMP/venv/bin/python
SITE=$("$PY" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
# A hook that holds pip at exit after it uninstalled (for the Ctrl-C case only).
cat >"$SITE/fftest_hold.py" <<'PYEOF'
import atexit, os, sys, time
def _hold():
    with open(os.environ["FFTEST_HOLD_MARK"] + ".tmp", "w") as f:
        f.write(str(os.getpid()))
    os.rename(os.environ["FFTEST_HOLD_MARK"] + ".tmp", os.environ["FFTEST_HOLD_MARK"])
    time.sleep(120)
if os.environ.get("FFTEST_HOLD") == "uninstall" and "uninstall" in sys.argv:
    atexit.register(_hold)
PYEOF
echo 'import fftest_hold' >"$SITE/fftest_hold.pth"

installed_version() { "$PY" -m pip show ffinst 2>/dev/null | sed -n 's/^Version: //p'; }
files_now() { (cd "$SITE" && find ffinst* -type f ! -path '*/__pycache__/*' 2>/dev/null | sort); }
pip_install() { "$PY" -m pip install --no-deps --no-index --disable-pip-version-check -q "$1" || fail "cannot pip install $1"; }

# --- install over 0.9, doctor says importable, --undo puts 0.9 back ---
pip_install "$W09"
files_now >"$TMP/files.09"
ff install "$W10" --python "$PY" --json
expect_rc 0 "install 1.0 over 0.9"
[[ $(installed_version) == 1.0* ]] || fail "1.0 was not installed"
[[ -f $FLASHFIT_CACHE_DIR/backups/last-install.json ]] || fail "the install left no record for --undo"
kept=$(json_field "$FLASHFIT_CACHE_DIR/backups/last-install.json" 'd["replaced"]["dir"]')
[[ -d $kept ]] || fail "0.9's backup was not kept"

ff doctor ffinst --python "$PY" --json
expect_rc 0 "doctor ffinst"
[[ $(json_field "$TMP/out" 'd["answers"][0]["answer"]') == works ]] || fail "doctor does not say ffinst works"
[[ $(json_field "$TMP/out" 'd["answers"][0]["importable"]') == True ]] || fail "doctor's import check is not recorded"
[[ $(json_field "$TMP/out" 'd["answers"][0]["installed"]') == "$(installed_version)" ]] || fail "doctor's installed version is not pip's"
ff doctor ffinst --python "$PY"
expect_out_contains "  ffinst: installed $(installed_version), imports ffinst (checked in a fresh interpreter)"
pass_note "doctor: installed and importable, checked"

ff install --undo --python "$PY" --json
expect_rc 0 "install --undo"
[[ $(json_field "$TMP/out" 'd["restored"]') == 0.9 ]] || fail "--undo does not say it restored 0.9"
[[ $(installed_version) == 0.9 ]] || fail "after --undo pip shows '$(installed_version)', not 0.9"
"$PY" -c 'import torch, ffinst' || fail "the restored 0.9 does not import"
files_now >"$TMP/files.now"
diff "$TMP/files.09" "$TMP/files.now" || fail "ffinst's files after --undo are not 0.9's"
[[ ! -e $kept ]] || fail "the backup outlived a proven undo"
ff install --undo --python "$PY"
expect_rc 1 "a second --undo"
expect_out_contains "nothing to undo"
[[ $(installed_version) == 0.9 ]] || fail "a second --undo changed something"
pass_note "install --undo: 0.9 back, importable, exactly its files; then nothing to undo"

# --- --undo refuses when the version changed since ---
ff install "$W10" --python "$PY"
expect_rc 0 "install 1.0 again"
pip_install "$W09"
ff install --undo --python "$PY"
expect_clean_error 1 "--undo after someone else changed the version"
expect_err_contains "not 1.0"
[[ $(installed_version) == 0.9 ]] || fail "a refused --undo changed something"
pass_note "--undo refuses to replace a version installed since"

# --- uninstall: Ctrl-C while pip uninstalls restores; then it goes ---
mark=$TMP/hold.mark
FFTEST_HOLD=uninstall FFTEST_HOLD_MARK=$mark "$FLASHFIT" uninstall ffinst --python "$PY" >"$TMP/out" 2>"$TMP/err" &
ff_pid=$!
BACKGROUND_PIDS+=("$ff_pid")
for ((i = 0; i < 600; i++)); do
  [[ -s $mark ]] && break
  process_running "$ff_pid" || break
  sleep 0.1
done
[[ -s $mark ]] || fail "pip uninstall was never reached: $(cat "$TMP/err")"
held=$(<"$mark")
BACKGROUND_PIDS+=("-$held")
[[ -z $(installed_version) ]] || fail "pip had not uninstalled yet"
kill -INT "$ff_pid"
for ((i = 0; i < 300; i++)); do
  process_running "$ff_pid" || break
  sleep 0.1
done
process_running "$ff_pid" && fail "flashfit still runs 30 s after SIGINT"
RC=0
wait "$ff_pid" || RC=$?
forget_background "$ff_pid"
expect_rc 130 "SIGINT during pip uninstall"
expect_err_contains 'restored 0.9'
[[ $(installed_version) == 0.9 ]] || fail "after Ctrl-C pip shows '$(installed_version)', not 0.9"
files_now >"$TMP/files.now"
diff "$TMP/files.09" "$TMP/files.now" || fail "ffinst's files after the interrupted uninstall are not 0.9's"
pass_note "Ctrl-C during pip uninstall: 0.9 restored, exactly its files"

ff uninstall ffinst --python "$PY" --json
expect_rc 0 "uninstall ffinst"
[[ $(json_field "$TMP/out" 'd["version"]') == 0.9 ]] || fail "uninstall does not name 0.9"
[[ -z $(installed_version) ]] || fail "pip still shows ffinst after uninstall"
! "$PY" -c 'import ffinst' 2>/dev/null || fail "ffinst still imports after uninstall"
[[ -z $(files_now) ]] || fail "ffinst's files are left: $(files_now)"
ff uninstall ffinst --python "$PY"
expect_clean_error 2 "uninstalling what is not installed"
expect_err_contains "not installed"
pass_note "uninstall: gone (pip, import, files); a second time: a clear error"

# --- an install that replaced nothing: nothing to undo ---
ff install "$W10" --python "$PY"
expect_rc 0 "a fresh install"
ff install --undo --python "$PY" --json
expect_rc 1 "--undo of a fresh install"
[[ $(json_field "$TMP/out" 'd["undone"]') == False ]] || fail "--undo claims to have undone a fresh install"
json_field "$TMP/out" 'd["message"]' | grep -q "replaced nothing" || fail "--undo does not say the install replaced nothing"
[[ $(installed_version) == 1.0* ]] || fail "--undo of a fresh install changed something"
pass_note "--undo after an install that replaced nothing: said, nothing changed"

# --- cache list shows the inspect verdicts install recorded ---
ff install "$W11" --python "$PY"
expect_rc 1 "the ABI-mismatched 1.1 is refused by inspection"
[[ $(installed_version) == 1.0* ]] || fail "a refused install changed something"
ff cache list --json
expect_rc 0 "cache list --json"
"$TEST_PYTHON" - "$TMP/out" "$(basename "$W10")" "$(basename "$W11")" <<'PYEOF' || fail "cache list --json lacks the verdicts"
import json, sys
d = json.load(open(sys.argv[1]))
by_file = {e["filename"]: e for e in d["entries"]}
good, bad = by_file[sys.argv[2]]["inspections"], by_file[sys.argv[3]]["inspections"]
assert good and all(i["compatible"] and i["verdict"] == "compatible" for i in good), good
assert bad and not bad[0]["compatible"] and bad[0]["verdict"] == "incompatible", bad
assert "torch-symbols" in bad[0]["summary"], bad
assert bad[0]["environment"] and bad[0]["at"], bad
PYEOF
ff cache list
expect_rc 0 "cache list"
expect_out_contains "inspect verdicts (per environment judged):"
grep -A1 -F "($(basename "$W11"))" "$TMP/out" | grep -q '^    FAIL .*torch-symbols' || fail "cache list does not show 1.1's FAIL verdict"
grep -A1 -F "($(basename "$W10"))" "$TMP/out" | grep -q '^    ok ' || fail "cache list does not show 1.0's ok verdict"
pass_note "cache list: each entry's inspect verdicts, text and JSON"

# --- bad usage ---
ff uninstall ffinst --python "$PY" --torch 2.9.1
expect_clean_error 2 "uninstall with a what-if flag"
ff uninstall 'ffinst>=1' --python "$PY"
expect_clean_error 2 "uninstall with a requirement"
ff install --undo ffinst --python "$PY"
expect_clean_error 2 "--undo with a SPEC"
ff install --python "$PY"
expect_clean_error 2 "install without SPEC or --undo"
ff install --undo --dry-run --python "$PY"
expect_clean_error 2 "--undo with --dry-run"
[[ $(installed_version) == 1.0* ]] || fail "a usage error changed something"
pass_note "bad usage: clear errors, nothing changed"
