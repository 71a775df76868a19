#!/usr/bin/env bash
# doctor's answer lines (issue 19 item 7): one line per package, from the same
# resolver as `flashfit resolve`:
# - the L4 / torch 2.9 what-if: the wheel that fits (the one resolve selects)
#   and the command that installs it, with the what-if flags repeated;
# - Debian's CPU torch (/usr/bin/python3): nothing fits, why, and the next step;
# - every recipe's package when none is named; text and --json agree;
# - an unreachable index is said to be unreachable; --offline is said;
# - an unknown package is a usage error with did-you-mean.
# (Installed and importable: test_uninstall.sh, with a real install.)
# shellcheck source=tests/integration/lib.sh
source "$(dirname "$0")/lib.sh"
unset NO_COLOR CLICOLOR_FORCE

PY=(--python "$TEST_PYTHON")
L4=("${PY[@]}" --python-version 3.12 --torch 2.9.1+cu128 --cxx11-abi TRUE --gpu L4)

# --- L4 / torch 2.9 what-if: the pick and its command ---
ff resolve flash-attn "${L4[@]}" --offline --json
expect_rc 0 "resolve for the L4 what-if"
picked=$(json_field "$TMP/out" 'd["selected"]["filename"]')
ff doctor flash-attn "${L4[@]}" --offline --json
expect_rc 0 "doctor flash-attn for the L4 what-if"
[[ $(json_field "$TMP/out" 'len(d["answers"])') == 1 ]] || fail "one package asked, not one answer"
[[ $(json_field "$TMP/out" 'd["answers"][0]["package"]') == flash-attn ]] || fail "the answer is not for flash-attn"
[[ $(json_field "$TMP/out" 'd["answers"][0]["answer"]') == fits ]] || fail "the L4 what-if answer is not 'fits'"
[[ $(json_field "$TMP/out" 'd["answers"][0]["wheel"]') == "$picked" ]] || fail "doctor's wheel is not resolve's pick ($picked)"
[[ $(json_field "$TMP/out" 'd["answers"][0]["importable"]') == None ]] || fail "an import was claimed that was never checked"
cmd=$(json_field "$TMP/out" 'd["answers"][0]["command"]')
[[ $cmd == "flashfit install flash-attn --python $TEST_PYTHON --python-version 3.12 --torch 2.9.1+cu128 --cxx11-abi TRUE --gpu 8.9" ]] ||
  fail "the install command does not repeat the question: $cmd"
json_field "$TMP/out" 'd["answers"][0]["notes"]' | grep -q -- '--offline' || fail "--offline is not said"
ff doctor flash-attn "${L4[@]}" --offline
expect_rc 0 "doctor flash-attn text"
expect_out_contains "answer:"
expect_out_contains "  flash-attn: not installed; $picked fits"
expect_out_contains "      \$ $cmd"
pass_note "L4 / torch 2.9 what-if: the fitting wheel and its command"

# --- Debian's CPU torch: nothing fits, the reason, the next step ---
ff doctor --python "$TEST_PYTHON" --offline --json
expect_rc 0 "doctor on Debian's torch"
json_field "$TMP/out" '"\n".join(a["package"] for a in d["answers"])' >"$TMP/answered"
grep -qx flash-attn "$TMP/answered" || fail "no answer for flash-attn without a package named"
grep -qx causal-conv1d "$TMP/answered" || fail "no answer for causal-conv1d without a package named"
"$TEST_PYTHON" - "$TMP/out" <<'PYEOF' || fail "Debian's CPU torch answers are wrong"
import json, sys
d = json.load(open(sys.argv[1]))
for a in d["answers"]:
    if a["package"] != "flash-attn":
        continue
    assert a["answer"] == "none-fits", a
    assert a["installed"] is None and a["importable"] is None, a
    assert a["wheel"] is None, a
    assert "no wheel fits" in a["summary"] and "next:" in a["summary"], a
    assert a["command"], a  # the next step has a command
    break
else:
    raise SystemExit("no flash-attn answer")
PYEOF
ff doctor --python "$TEST_PYTHON" --offline
expect_rc 0 "doctor text on Debian's torch"
grep -E '^  flash-attn: not installed; no wheel fits \(nearest: .*\); next: \[' "$TMP/out" >/dev/null ||
  fail "the text answer for flash-attn is not 'no wheel fits ... next:'"
# Text and JSON agree: every package answered in JSON has its text line.
while read -r package; do
  grep -q "^  $package: " "$TMP/out" || fail "no text answer line for $package"
done <"$TMP/answered"
pass_note "Debian's CPU torch: why nothing fits and the next step, text and JSON"

# --- installed and importable, but no GPU can run it: not "works" ---
# A stand-in flash-attn 2.8.3 (its dist-info and a flash_attn_2_cuda module
# that imports) in a venv on Debian's CPU torch, on this machine without a
# GPU: the import passes, the kernels cannot run, and the answer says so.
"$TEST_PYTHON" -m venv --system-site-packages --without-pip "$TMP/stand-in" || fail "venv"
site=$("$TMP/stand-in/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
mkdir -p "$site/flash_attn" "$site/flash_attn-2.8.3.dist-info"
: >"$site/flash_attn/__init__.py"
: >"$site/flash_attn_2_cuda.py"
printf 'Metadata-Version: 2.1\nName: flash_attn\nVersion: 2.8.3\n' >"$site/flash_attn-2.8.3.dist-info/METADATA"
printf 'flash_attn\nflash_attn_2_cuda\n' >"$site/flash_attn-2.8.3.dist-info/top_level.txt"
printf 'flash_attn/__init__.py,,\nflash_attn_2_cuda.py,,\nflash_attn-2.8.3.dist-info/METADATA,,\n' \
  >"$site/flash_attn-2.8.3.dist-info/RECORD"
ff doctor flash-attn --python "$TMP/stand-in/bin/python" --offline --json
expect_rc 0 "doctor on an importable flash-attn without a GPU"
python3 - "$TMP/out" <<'PYEOF' || fail "an importable flash-attn that cannot run here was answered as working"
import json, sys
a = json.load(open(sys.argv[1]))["answers"][0]
assert a["answer"] == "installed", a
assert a["importable"] is True and a["installed"] == "2.8.3", a
assert "kernels cannot run here" in a["summary"], a
assert a["command"] == "flashfit fallback", a
PYEOF
pass_note "an importable flash-attn with no GPU to run it: 'installed', its kernels cannot run, the fallback"

# --- an index that cannot be reached is said, the answer still given ---
port=$(closed_port)
ff doctor flash-attn "${L4[@]}" --extra-index-url "http://127.0.0.1:$port/simple" --json
expect_rc 0 "doctor with an unreachable index"
json_field "$TMP/out" 'd["answers"][0]["notes"]' | grep -q 'network unavailable' ||
  fail "an unreachable index is not said"
[[ $(json_field "$TMP/out" 'd["answers"][0]["answer"]') == fits ]] || fail "the catalog's answer is lost when an index is unreachable"
pass_note "an unreachable index: said, and the catalogs still answer"

# --- bad input ---
ff doctor flash-atn "${PY[@]}" --offline
expect_clean_error 2 "an unknown package"
expect_err_contains "did you mean 'flash-attn'"
pass_note "an unknown package: usage error with did-you-mean"
