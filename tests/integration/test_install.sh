#!/usr/bin/env bash
# flashfit install, end to end and offline: wheels of a real torch C++
# extension (tests/fixtures/torch_ext, built against Debian's torch) served by
# a local index on 127.0.0.1, installed into a fresh
# `python3 -m venv --system-site-packages` venv with the machine's pip:
# - an ABI-mismatched wheel labelled as fitting and ranked first is rejected
#   by inspection before it is installed; the good one installs and imports;
# - a wheel that passes inspection but fails its import is rolled back;
# - when every candidate fails, the previously installed version is restored;
# - torch's files are the same before and after;
# - an upstream-style file name (+cu12torch1.13cxx11abiTRUE, plain METADATA
#   version) installs with this pip, by path;
# - with and without a recipe (a test recipe from a config dir).
# shellcheck source=tests/integration/lib.sh
source "$(dirname "$0")/lib.sh"

FIX=${FLASHFIT_INSTALL_WHEELS:?the install_wheels fixture sets FLASHFIT_INSTALL_WHEELS}
wheel() { # wheel PATTERN: the one fixture wheel matching
  local found=("$FIX"/$1)
  [[ ${#found[@]} == 1 && -f ${found[0]} ]] || fail "fixture wheel $1 not found in $FIX"
  printf '%s\n' "${found[0]}"
}
W09=$(wheel 'ffinst-0.9-*.whl')
W10=$(wheel 'ffinst-1.0+pt1*cpu-*.whl')
W11=$(wheel 'ffinst-1.1+pt1*cpu-*.whl')
W12=$(wheel 'ffinst-1.2+pt1*cpu-*.whl')
OFFICIAL=$(wheel 'official/ffinst-1.0+cu12torch*cxx11abiTRUE-*.whl')

# A test recipe from a config dir: the production recipe path, for a test package.
write_ffinst_recipe_config
printf '# empty\n' >"$TMP/empty.toml"
export FLASHFIT_CONFIG="$TMP/config/config.toml"

# index DIR NAME WHEEL...: a PEP 503 project page for the given wheels.
make_index() {
  local dir=$1 name=$2 w base
  shift 2
  mkdir -p "$dir/files" "$dir/simple/$name"
  {
    echo "<!DOCTYPE html><html><body>"
    for w in "$@"; do
      base=$(basename "$w")
      cp "$w" "$dir/files/$base"
      echo "<a href=\"../../files/${base//+/%2B}\">$base</a>"
    done
    echo "</body></html>"
  } >"$dir/simple/$name/index.html"
}

# The installed ffinst's version (sed reads everything: no SIGPIPE under pipefail).
installed_version() { "$PY" -m pip show ffinst 2>/dev/null | sed -n 's/^Version: //p'; }

new_venv() {
  rm -rf "$TMP/venv"
  "$TEST_PYTHON" -m venv --system-site-packages "$TMP/venv" || fail "cannot create a venv"
  PY=$TMP/venv/bin/python
}

torch_dir=$("$TEST_PYTHON" -c 'import os, torch; print(os.path.dirname(torch.__file__))')
torch_files() { find "$torch_dir" -type f -printf '%p %s %T@\n' | sort; }
torch_files >"$TMP/torch.before"

make_index "$TMP/www" ffinst "$W11" "$W10"
start_http_server "$TMP/www"
INDEX=$HTTP_URL/simple

# --- the mislabelled wheel is refused before installing; the good one works ---
new_venv
ff install ffinst --python "$PY" --index-url "$INDEX" --json
expect_rc 0 "install from the local index"
[[ $(json_field "$TMP/out" 'd["attempts"][0]["filename"]') == "$(basename "$W11")" ]] || fail "the ABI-mismatched wheel was not tried first"
[[ $(json_field "$TMP/out" 'd["attempts"][0]["stage"]') == inspect ]] || fail "the ABI-mismatched wheel was not stopped at inspection"
json_field "$TMP/out" 'd["attempts"][0]["detail"]' | grep -q 'torch-symbols' || fail "the rejection does not name the torch symbols"
[[ $(json_field "$TMP/out" 'd["installed"]["filename"]') == "$(basename "$W10")" ]] || fail "the good wheel was not installed"
[[ $(json_field "$TMP/out" 'd["torch_untouched"]') == True ]] || fail "flashfit says torch changed"
"$PY" -c 'import torch, ffinst' || fail "the installed extension does not import"
[[ $(installed_version) == 1.0+pt* ]] || fail "pip does not show ffinst 1.0"
grep -c "GET /files/$(basename "${W11//+/%2B}")" "$HTTP_LOG" >/dev/null || fail "the bad wheel was never downloaded"
torch_files >"$TMP/torch.after"
cmp -s "$TMP/torch.before" "$TMP/torch.after" || fail "torch's files changed"
pass_note "mislabelled wheel rejected by inspection, good wheel installed, torch untouched"

# A second install of the same wheel downloads nothing (the cache has it).
requests_before=$(wc -l <"$HTTP_LOG")
ff install ffinst --python "$PY" --index-url "$INDEX" --json
expect_rc 0 "reinstall"
[[ $(grep -c 'GET /files/' <(tail -n +"$((requests_before + 1))" "$HTTP_LOG")) == 0 ]] || fail "a cached wheel was downloaded again"
# The cache is a source of its own: no index needed any more.
ff resolve ffinst --python "$PY" --json
expect_rc 0 "resolve from the cache alone"
[[ $(json_field "$TMP/out" 'd["selected"]["source"]') == cache ]] || fail "the cached wheel is not a cache candidate"
# (1.1 ranks first again: the resolver judges labels; install re-inspects it and moves on.)
ff install ffinst --python "$PY" --json
expect_rc 0 "install from the cache alone"
[[ $(json_field "$TMP/out" 'd["installed"]["source"]') == cache ]] || fail "not installed from the cache"
[[ $(json_field "$TMP/out" 'd["attempts"][0]["stage"]') == inspect ]] || fail "the cached mismatched wheel was not re-inspected"
pass_note "cached wheels are not downloaded twice; the cache is a source"

# --- every candidate fails: the previous version is restored -------------------
export FLASHFIT_CACHE_DIR="$TMP/cache-restore"  # (the cache above holds a good 1.0)
new_venv
"$PY" -m pip install --no-deps --no-index --disable-pip-version-check -q "$W09" || fail "cannot pre-install 0.9"
make_index "$TMP/www2" ffinst "$W12" "$W11"
start_http_server "$TMP/www2"
ff install ffinst --python "$PY" --index-url "$HTTP_URL/simple" --json
expect_rc 1 "nothing works"
[[ $(json_field "$TMP/out" '[a["stage"] for a in d["attempts"]]') == "['import', 'inspect']" ]] ||
  fail "expected an import failure then an inspection failure, got $(json_field "$TMP/out" '[a["stage"] for a in d["attempts"]]')"
json_field "$TMP/out" 'd["attempts"][0]["detail"]' | grep -q 'deliberately broken import' || fail "the import failure is not reported"
[[ $(json_field "$TMP/out" 'd["previous"]') == 0.9 ]] || fail "the previous version was not noticed"
[[ $(json_field "$TMP/out" 'd["restore"]') == "restored 0.9" ]] || fail "the previous version was not restored"
[[ $(installed_version) == "0.9" ]] || fail "0.9 is not installed any more"
"$PY" -c 'import torch, ffinst' || fail "the restored 0.9 does not import"
pass_note "import failure rolled back, previous version restored"

# --- dry run changes nothing --------------------------------------------------------
ff install ffinst --python "$PY" --index-url "$INDEX" --dry-run
expect_rc 0 "--dry-run"
expect_out_contains "dry run"
# The plan (issue 19 item 8): the target interpreter, its site-packages, the
# installer's exact command line, what is backed up and how it is restored.
expect_out_contains "interpreter:   $("$PY" -c 'import sys; print(sys.executable)')"
expect_out_contains "site-packages: $("$PY" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
expect_out_contains "command: "
expect_out_contains "install --no-deps"
expect_out_contains "installed now: ffinst 0.9"
grep -qE '^ +sha256: +([0-9a-f]{64}|unknown)' "$TMP/out" || fail "the dry run names no sha256 (nor says it is unknown)"
[[ $(installed_version) == "0.9" ]] || fail "--dry-run changed the environment"
ff install ffinst --python "$PY" --index-url "$INDEX" --dry-run --json
expect_rc 0 "--dry-run --json"
[[ $(json_field "$TMP/out" 'd["plan"]["candidates"][0]["installer_argv"][-1].endswith((".whl", ".whl>"))') == True ]] ||
  fail "the JSON plan holds no installer argv for the wheel"

# --- what-if flags describe another environment: a dry run, said on stderr ---------
# (issue 13 item 5: they used to fetch, install and build into this interpreter.)
requests_before=$(wc -l <"$HTTP_LOG")
ff install ffinst --python "$PY" --index-url "$INDEX" --gpu none --json
expect_rc 0 "--gpu none: something would be installed"
expect_err_contains 'another environment'
expect_err_contains 'dry run'
[[ $(json_field "$TMP/out" 'd["dry_run"]') == True ]] || fail "--gpu none: not a dry run"
[[ $(json_field "$TMP/out" '[a["stage"] for a in d["attempts"]]') == "['would install']" ]] ||
  fail "--gpu none: attempts $(json_field "$TMP/out" '[a["stage"] for a in d["attempts"]]')"
ff install ffinst --python "$PY" --index-url "$INDEX" --python-version 3.12 --json
expect_rc 1 "--python-version 3.12: no cp312 wheel"
expect_err_contains 'another environment'
[[ $(json_field "$TMP/out" 'd["dry_run"] and d["build"] is None and d["attempts"] == []') == True ]] ||
  fail "--python-version 3.12: not a dry run without a build: $(head -c 400 "$TMP/out")"
! grep -q 'building' "$TMP/err" || fail "--python-version 3.12 handed over to a build"
[[ $(grep -c 'GET /files/' <(tail -n +"$((requests_before + 1))" "$HTTP_LOG")) == 0 ]] ||
  fail "a what-if install downloaded a wheel"
[[ $(installed_version) == "0.9" ]] || fail "a what-if install changed the environment"
pass_note "what-if flags make install a dry run: nothing fetched, installed or built"

# --- no recipe: the wheel's own modules prove it --------------------------------
new_venv
FLASHFIT_CONFIG="$TMP/empty.toml" ff install ffinst --python "$PY" --index-url "$INDEX" --json
expect_rc 0 "install without a recipe"
[[ $(json_field "$TMP/out" 'd["installed"]["filename"]') == "$(basename "$W10")" ]] || fail "no-recipe install picked another wheel"
json_field "$TMP/out" '[m["module"] for a in d["attempts"] if a["ok"] for m in a["import_check"]["modules"]]' |
  grep -q ffinst || fail "the no-recipe import check did not import the wheel's module"
pass_note "a package without a recipe installs through the same path"

# --- no top_level.txt: the import check imports what the paths say; never an import that did not happen ---
# (issue 13 item 7.) pure_wheel DIR NAME FILE...: a py3-none-any wheel with those
# (empty) members and no top_level.txt, as flit and hatchling write them.
pure_wheel() {
  "$TEST_PYTHON" - "$@" <<'PYEOF'
import base64, hashlib, os, sys, zipfile
out, name, members = sys.argv[1], sys.argv[2], sys.argv[3:]
os.makedirs(out, exist_ok=True)
di = name + "-1.0.dist-info/"
files = {m: b"" for m in members}
files[di + "METADATA"] = ("Metadata-Version: 2.1\nName: %s\nVersion: 1.0\n" % name).encode()
files[di + "WHEEL"] = b"Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
record = ""
for path, data in files.items():
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    record += "%s,sha256=%s,%d\n" % (path, digest, len(data))
record += di + "RECORD,,\n"
files[di + "RECORD"] = record.encode()
path = os.path.join(out, name + "-1.0-py3-none-any.whl")
with zipfile.ZipFile(path, "w") as z:
    for member, data in files.items():
        z.writestr(member, data)
print(path)
PYEOF
}
new_venv
NOTOP=$(pure_wheel "$TMP/pure" fftoplessd fftoplessd/__init__.py fftoplessd/util.py fftoplessextra.py)
FLASHFIT_CONFIG="$TMP/empty.toml" ff install "$NOTOP" --python "$PY" --json
expect_rc 0 "a pure wheel without top_level.txt"
[[ $(json_field "$TMP/out" '[m["module"] for m in d["attempts"][-1]["import_check"]["modules"]]') == "['fftoplessd', 'fftoplessextra']" ]] ||
  fail "modules imported: $(json_field "$TMP/out" 'd["attempts"][-1].get("import_check")')"
json_field "$TMP/out" 'd["attempts"][-1]["detail"]' | grep -q 'imports fftoplessd, fftoplessextra' ||
  fail "detail: $(json_field "$TMP/out" 'd["attempts"][-1]["detail"]')"
DATAONLY=$(pure_wheel "$TMP/pure" ffdataonly ffdataonly-1.0.data/scripts/fftool)
FLASHFIT_CONFIG="$TMP/empty.toml" ff install "$DATAONLY" --python "$PY" --json
expect_rc 0 "a wheel with nothing importable"
[[ $(json_field "$TMP/out" 'd["attempts"][-1]["import_check"]["modules"]') == "[]" ]] || fail "a data-only wheel listed modules"
json_field "$TMP/out" 'd["attempts"][-1]["detail"]' | grep -q 'no import was checked' ||
  fail "a data-only wheel: $(json_field "$TMP/out" 'd["attempts"][-1]["detail"]')"
! grep -q 'imports' <(json_field "$TMP/out" 'd["attempts"][-1]["detail"]') || fail "an import was reported that did not happen"
pass_note "without top_level.txt the paths give the modules; nothing importable is said, not 'imports'"

# --- an upstream-style file name with a local label pip would call inconsistent ----
new_venv
ff install "$OFFICIAL" --python "$PY" --json
expect_rc 0 "official-style file name"
[[ $(installed_version) == "1.0" ]] || fail "the official-style wheel is not installed as 1.0"
"$PY" -c 'import torch, ffinst' || fail "the official-style wheel does not import"
pass_note "an upstream-style +cu12torch...cxx11abiTRUE file installs with this pip"

# --- bad input -----------------------------------------------------------------------
ff install "$TMP/nonexistent.whl" --python "$PY"
expect_clean_error 2 "a missing wheel file"
ff install 'ffinst>>1' --python "$PY" --index-url "$INDEX"
expect_clean_error 2 "an invalid requirement"
printf 'not a zip' >"$TMP/ffinst-3.0-py3-none-any.whl"
ff install "$TMP/ffinst-3.0-py3-none-any.whl" --python "$PY" --json
expect_rc 1 "a garbage wheel"
[[ $(installed_version) == "1.0" ]] || fail "a garbage wheel changed the environment"
pass_note "bad input"

# --- two concurrent installs share one download; a killed one leaves no entry ---------
W10NAME=$(basename "$W10")
mkdir -p "$TMP/www3"
make_index "$TMP/www3" ffinst "$W10"
printf '{"/files/%s": {"delay": 1.5}}\n' "${W10NAME//+/%2B}" >"$TMP/slow.json"
start_http_server "$TMP/www3" "$TMP/slow.json"
export FLASHFIT_CACHE_DIR="$TMP/cache-concurrent"
for n in 1 2; do
  rm -rf "$TMP/venv$n"
  "$TEST_PYTHON" -m venv --system-site-packages "$TMP/venv$n" || fail "venv $n"
done
timeout "$FF_TIMEOUT" "$FLASHFIT" install 'ffinst==1.0' --python "$TMP/venv1/bin/python" --index-url "$HTTP_URL/simple" \
  >"$TMP/c1.out" 2>"$TMP/c1.err" &
p1=$!
timeout "$FF_TIMEOUT" "$FLASHFIT" install 'ffinst==1.0' --python "$TMP/venv2/bin/python" --index-url "$HTTP_URL/simple" \
  >"$TMP/c2.out" 2>"$TMP/c2.err" &
p2=$!
rc1=0 rc2=0
wait "$p1" || rc1=$?
wait "$p2" || rc2=$?
((rc1 == 0 && rc2 == 0)) || fail "concurrent installs: exit codes $rc1 and $rc2 ($(tail -n 3 "$TMP/c1.err" "$TMP/c2.err"))"
gets=$(grep -c "GET /files/${W10NAME//+/%2B}" "$HTTP_LOG" || true)
[[ $gets == 1 ]] || fail "two concurrent installs downloaded the wheel $gets times"
for n in 1 2; do "$TMP/venv$n/bin/python" -c 'import torch, ffinst' || fail "concurrent install $n does not import"; done
pass_note "two concurrent installs: one download, both installed"

export FLASHFIT_CACHE_DIR="$TMP/cache-killed"
printf '{"/files/%s": {"delay": 30, "times": 1}}\n' "${W10NAME//+/%2B}" >"$TMP/stall.json"
start_http_server "$TMP/www3" "$TMP/stall.json"
new_venv
setsid "$FLASHFIT" install 'ffinst==1.0' --python "$PY" --index-url "$HTTP_URL/simple" >"$TMP/k.out" 2>&1 &
killed=$!
for ((i = 0; i < 100; i++)); do
  grep -q "GET /files/" "$HTTP_LOG" 2>/dev/null && break
  sleep 0.1
done
kill -KILL -- "-$killed" 2>/dev/null || kill -KILL "$killed"
wait "$killed" 2>/dev/null || true
ff cache list --json
[[ $(json_field "$TMP/out" 'len(d if isinstance(d, list) else d.get("entries", []))') == 0 ]] ||
  fail "a killed download left a cache entry"
ff install 'ffinst==1.0' --python "$PY" --index-url "$HTTP_URL/simple" --json
expect_rc 0 "install after a killed download"
"$PY" -c 'import torch, ffinst' || fail "the install after a kill does not import"
pass_note "a killed download leaves no entry; the next run recovers"

# --- a wrong sha256 from the index: refused, nothing installed, nothing cached ---------
export FLASHFIT_CACHE_DIR="$TMP/cache-badhash"
mkdir -p "$TMP/www4/files" "$TMP/www4/simple/ffinst"
cp "$W10" "$TMP/www4/files/"
printf '<a href="../../files/%s#sha256=%s">x</a>\n' "${W10NAME//+/%2B}" \
  0000000000000000000000000000000000000000000000000000000000000000 >"$TMP/www4/simple/ffinst/index.html"
start_http_server "$TMP/www4"
new_venv
ff install ffinst --python "$PY" --index-url "$HTTP_URL/simple" --json
expect_rc 1 "a wrong sha256"
json_field "$TMP/out" 'd["attempts"][0]["detail"]' | grep -q 'sha256 mismatch' || fail "the hash mismatch is not reported"
[[ -z $(installed_version) ]] || fail "a wheel with a wrong hash was installed"
ff cache list --json
[[ $(json_field "$TMP/out" 'len(d if isinstance(d, list) else d.get("entries", []))') == 0 ]] ||
  fail "a wheel with a wrong hash was cached"
pass_note "a wrong sha256 is refused: nothing installed, nothing cached"
