#!/usr/bin/env bash
# flashfit lock --format pylock (PEP 751), end to end and offline, with uv as
# the oracle: real --system-site-packages venvs (Debian's torch), the
# machine's pip, uv 0.13.9 from .pydeps/tools and an index on 127.0.0.1
# (sha256 fragments), the same served wheels as test_lock.sh:
# - a project's requirements (a pure package with a dependency, a URL pin for
#   "someone else's" variant of the recipe package ffinst) locked as
#   pylock.toml: lock-version, created-by, environments and requires-python
#   for this interpreter, each package's one wheel with its sha256, the
#   environment key under [tool.flashfit] (read with Python's tomllib);
# - `uv pip install -r pylock.toml` into a fresh venv installs it, and every
#   file installed is the locked wheel's bytes (the wheel's sha256 is the
#   locked one, each member's sha256 equals the installed file's); uv refuses
#   the file with a byte flipped in a hash;
# - a find-links pick (file:// URL) installed by uv with --offline;
# - `lock --dir --format pylock`: pylock.<key>.toml (PEP 751's name rule) and
#   its index entry; `install --lock DIR` picks it and installs the same
#   bytes uv installed; `lock --check` reads a pylock (0 here, 1 elsewhere);
# - a pick without a known sha256 (--no-download) is refused (PEP 751 needs a
#   hash), nothing written; -o with a non-pylock name: exit 2;
# - bad pylock input for --check and install --lock: bad TOML, another
#   lock-version, a file without hashes, a pylock from another tool: exit 2;
# - uv as the resolver of the installer's lines (on PATH, or --resolver uv):
#   `uv pip compile` locks the same files with the same hashes pip's
#   resolution locks; uv installs that pylock; --resolver uv without uv: exit 2.
# shellcheck source=tests/integration/lib.sh
source "$(dirname "$0")/lib.sh"
FF_TIMEOUT=180

UV=$SOURCE_DIR/.pydeps/tools/bin/uv
if [[ ! -x $UV ]]; then
  skip_note "$UV is missing (scripts/pydeps/tools.sh makes it): the pylock is not checked with uv"
  exit 0
fi
# pip and uv read only what the test gives them (not the machine's find-links,
# indexes or config files).
export PIP_CONFIG_FILE=/dev/null PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_CACHE_DIR=1 PYTHONNOUSERSITE=1
unset PIP_FIND_LINKS PIP_INDEX_URL PIP_EXTRA_INDEX_URL PIP_CONSTRAINT
unset UV_INDEX_URL UV_EXTRA_INDEX_URL UV_FIND_LINKS UV_INDEX UV_DEFAULT_INDEX UV_CONSTRAINT
export UV_NO_CONFIG=1 UV_CACHE_DIR=$TMP/uv-cache UV_PYTHON_DOWNLOADS=never

# The ffinst wheels, the recipe config, and a served index of them with two
# pure packages (ffinst_lib.sh).
# shellcheck source=tests/integration/ffinst_lib.sh
source "$(dirname "$0")/ffinst_lib.sh"
ffinst_fixture
ffinst_index "$W11" "$W10"
cp "$W10" "$W11" "$TMP/links/"
W10_NAME=$(basename "$W10")

PYA=$(venv a)
TORCH=$("$PYA" -c 'import torch; print(torch.__version__)') || fail "Debian's torch does not import in the venv"
PYVER=$("$PYA" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
MACHINE=$("$PYA" -c 'import platform; print(platform.machine())')
# toml PY-EXPR FILE: the expression over the file parsed by Python's tomllib (d).
toml() {
  "$TEST_PYTHON" -c 'import sys, tomllib
d = tomllib.load(open(sys.argv[2], "rb"))
print(eval(sys.argv[1]))' "$1" "$2"
}

cat >"$TMP/requirements.txt" <<EOF
--index-url $INDEX
ffpure>=1.0
# built for someone else's torch (CUDA 12):
ffinst @ $HTTP_URL/files/${OFFICIAL_NAME//+/%2B}
EOF

# --- lock as pylock.toml ------------------------------------------------------------
LOCK=$TMP/project/pylock.toml
mkdir -p "$TMP/project"
ff lock -r "$TMP/requirements.txt" --python "$PYA" --format pylock -o "$LOCK"
expect_rc 0 "lock --format pylock"
expect_out_empty
toml 'd["lock-version"]' "$LOCK" >/dev/null || fail "tomllib cannot read the pylock: $(cat "$LOCK")"
[[ $(toml 'd["lock-version"], d["created-by"]' "$LOCK") == "('1.0', 'flashfit')" ]] ||
  fail "lock-version / created-by: $(toml '(d["lock-version"], d["created-by"])' "$LOCK")"
[[ $(toml 'd["requires-python"]' "$LOCK") == "==$PYVER.*" ]] || fail "requires-python: $(toml 'd["requires-python"]' "$LOCK")"
want_env="['implementation_name == \"cpython\" and python_version == \"$PYVER\" and sys_platform == \"linux\" and platform_machine == \"$MACHINE\"']"
[[ $(toml 'd["environments"]' "$LOCK") == "$want_env" ]] || fail "environments: $(toml 'd["environments"]' "$LOCK")"
[[ $(toml 'd["tool"]["flashfit"]["environment"]["torch"]' "$LOCK") == "$TORCH" ]] ||
  fail "[tool.flashfit.environment] does not name torch $TORCH"
[[ $(toml 'd["tool"]["flashfit"]["environment"]["cuda"]' "$LOCK") == cpu ]] || fail "Debian's CPU torch is not cuda = cpu"
grep -qxF "#   torch: $TORCH" "$LOCK" || fail "the comment header does not name torch $TORCH: $(head -8 "$LOCK")"
packages='[(p["name"], p["tool"]["flashfit"]["picked-by"], [(w["url"], w["hashes"]["sha256"]) for w in p["wheels"]]) for p in d["packages"]]'
want="[('ffinst', 'flashfit', [('$HTTP_URL/files/${W10_NAME//+/%2B}', '$(sha "$W10")')]), "
want+="('ffpure', 'installer', [('$HTTP_URL/files/ffpure-1.0-py3-none-any.whl', '$(sha "$TMP/links/ffpure-1.0-py3-none-any.whl")')]), "
want+="('ffdep', 'installer', [('$HTTP_URL/files/ffdep-1.2-py3-none-any.whl', '$(sha "$TMP/links/ffdep-1.2-py3-none-any.whl")')])]"
[[ $(toml "$packages" "$LOCK") == "$want" ]] || fail "the packages are not the fitting wheels with their sha256:
$(toml "$packages" "$LOCK")
want $want"
! grep -qF "$OFFICIAL_NAME" "$LOCK" || fail "the other environment's URL was locked"
pass_note "lock --format pylock: PEP 751 keys, environments for $PYVER/$MACHINE, each wheel with its sha256, the key under [tool.flashfit]"

# --- uv installs it: the installed files are the locked wheels' bytes ----------------
# wheel_bytes_installed PY NAME WHEEL: each member of WHEEL (but the
# dist-info's RECORD) is a file in PY's site-packages with the same sha256.
wheel_bytes_installed() {
  "$1" - "$2" "$3" <<'PY'
import hashlib, importlib.metadata as md, sys, zipfile
name, wheel = sys.argv[1], sys.argv[2]
dist = md.distribution(name)
compared = 0
with zipfile.ZipFile(wheel) as z:
    for member in z.namelist():
        if member.endswith("/") or member.endswith(".dist-info/RECORD"):
            continue
        with open(dist.locate_file(member), "rb") as f:
            if hashlib.sha256(f.read()).hexdigest() != hashlib.sha256(z.read(member)).hexdigest():
                sys.exit(f"{name}: {member} is not the locked wheel's")
        compared += 1
if compared < 2:
    sys.exit(f"{name}: only {compared} files compared")
print(compared)
PY
}
PYU=$(venv uv)
"$UV" pip install --python "$PYU" --no-progress -r "$LOCK" >"$TMP/uv.out" 2>&1 ||
  fail "uv does not install flashfit's pylock.toml: $(cat "$TMP/uv.out")"
for pair in "ffinst:$W10" "ffpure:$TMP/links/ffpure-1.0-py3-none-any.whl" "ffdep:$TMP/links/ffdep-1.2-py3-none-any.whl"; do
  n=$(wheel_bytes_installed "$PYU" "${pair%%:*}" "${pair#*:}") || fail "uv's venv: $n"
  [[ $(toml "[p['wheels'][0]['hashes']['sha256'] for p in d['packages'] if p['name'] == '${pair%%:*}'][0]" "$LOCK") == "$(sha "${pair#*:}")" ]] ||
    fail "${pair%%:*}: the locked sha256 is not the served wheel's"
done
"$PYU" -c 'import ffinst, ffpure, ffdep' || fail "the packages uv installed from the pylock do not import"
pass_note "uv pip install -r pylock.toml: a fresh venv holds exactly the locked wheels' bytes, imports work"

# uv checks the hashes flashfit wrote: one digit changed, uv installs nothing.
PYV=$(venv uv-bad)
sed "s/$(sha "$TMP/links/ffdep-1.2-py3-none-any.whl")/$(sha "$TMP/links/ffdep-1.2-py3-none-any.whl" | tr 0-9a-f 1-9a-f0)/" \
  "$LOCK" >"$TMP/project/pylock.bad.toml"
! "$UV" pip install --python "$PYV" --no-progress -r "$TMP/project/pylock.bad.toml" >"$TMP/uv.out" 2>&1 ||
  fail "uv installed a pylock whose hash is not the file's"
grep -qi "hash" "$TMP/uv.out" || fail "uv's refusal does not name the hash: $(cat "$TMP/uv.out")"
"$PYV" -c 'import ffdep' 2>/dev/null && fail "ffdep was installed from a pylock with a wrong hash"
pass_note "uv refuses flashfit's pylock with a changed sha256"

# A find-links pick is locked as a file:// URL, which uv installs --offline.
ff lock ffinst==1.0 --find-links "$TMP/links" --python "$PYA" --format pylock -o "$TMP/project/pylock.links.toml"
expect_rc 0 "lock --format pylock from find-links"
[[ $(toml 'd["packages"][0]["wheels"][0]["url"]' "$TMP/project/pylock.links.toml") == "file://$TMP/links/${W10_NAME//+/%2B}" ]] ||
  fail "the find-links pick is not a file:// URL: $(grep url "$TMP/project/pylock.links.toml")"
PYO=$(venv uv-offline)
"$UV" pip install --python "$PYO" --offline --no-progress -r "$TMP/project/pylock.links.toml" >"$TMP/uv.out" 2>&1 ||
  fail "uv --offline does not install the file:// pylock: $(cat "$TMP/uv.out")"
n=$(wheel_bytes_installed "$PYO" ffinst "$W10") || fail "uv --offline: $n"
pass_note "a find-links pick: a file:// URL in the pylock, installed by uv --offline, the locked bytes"

# --- lock --dir --format pylock, install --lock DIR ------------------------------------
# (The find-links lock above put ffinst's bytes in the cache, a source of its
# own whose only URL is file://: without it the pick is the index's, as for -o.)
rm -rf "$FLASHFIT_CACHE_DIR/wheels"
ff lock -r "$TMP/requirements.txt" --python "$PYA" --format pylock --dir "$TMP/locks"
expect_rc 0 "lock --dir --format pylock"
mapfile -t files < <(cd "$TMP/locks" && ls pylock.*.toml)
[[ ${#files[@]} == 1 ]] || fail "lock --dir --format pylock wrote ${#files[@]} files: ${files[*]}"
HERE_FILE=${files[0]}
[[ $HERE_FILE =~ ^pylock\.[^.]+\.toml$ ]] || fail "$HERE_FILE breaks PEP 751's name rule"
[[ $HERE_FILE == pylock.cp${PYVER/./}-*-torch${TORCH//[+.]/_}-cudacpu-abi*-gpu*.toml ]] ||
  fail "the pylock's name does not render this environment's key: $HERE_FILE"
[[ $(json_field "$TMP/locks/flashfit-locks.json" '[(e["file"], e["key"]["torch"]) for e in d["locks"]]') == "[('$HERE_FILE', '$TORCH')]" ]] ||
  fail "the index does not map this key to the pylock: $(cat "$TMP/locks/flashfit-locks.json")"
diff "$LOCK" "$TMP/locks/$HERE_FILE" >&2 || fail "the --dir pylock is not the -o one"
PYB=$(venv b)
ff install --lock "$TMP/locks" --python "$PYB"
expect_rc 0 "install --lock DIR of a pylock"
expect_out_contains "lock: $TMP/locks/$HERE_FILE (fits this environment)"
expect_out_contains "installed exactly the locked files"
for pair in "ffinst:$W10" "ffpure:$TMP/links/ffpure-1.0-py3-none-any.whl" "ffdep:$TMP/links/ffdep-1.2-py3-none-any.whl"; do
  n=$(wheel_bytes_installed "$PYB" "${pair%%:*}" "${pair#*:}") || fail "install --lock's venv: $n"
done
pass_note "lock --dir --format pylock: $HERE_FILE in the index; install --lock DIR installs the bytes uv installed"

ff lock --check "$LOCK" --python "$PYA"
expect_rc 0 "lock --check of a pylock here"
expect_out_contains "fits this environment"
ff lock --check "$LOCK" --python "$PYA" --torch 2.9.1+cu128
expect_rc 1 "lock --check of a pylock with another torch"
expect_out_contains "torch: locked $TORCH, here 2.9.1+cu128"
ff install --lock "$LOCK" --python "$PYB" --torch 2.9.1+cu128
expect_rc 1 "install --lock of a pylock for another torch"
expect_out_contains "torch: locked $TORCH, here 2.9.1+cu128"
pass_note "lock --check and install --lock read a pylock's key: 0 here, 1 naming the fact under another --torch"

# --- refusals ---------------------------------------------------------------------------
rm -rf "$FLASHFIT_CACHE_DIR/wheels"  # (else the cache, which knows the bytes' sha256, is the pick)
ff lock ffinst==1.0 --find-links "$TMP/links" --python "$PYA" --format pylock --no-download -o "$TMP/project/pylock.nohash.toml"
expect_rc 1 "a pylock without a known sha256"
expect_err_contains "PEP 751 requires a hash for every file"
! grep -qF "its --hash is left out" "$TMP/err" || fail "a pylock lock warns that --hash is left out: $(cat "$TMP/err")"
[[ ! -e $TMP/project/pylock.nohash.toml ]] || fail "a pylock without a hash was written"
ff lock ffinst==1.0 --find-links "$TMP/links" --python "$PYA" --format pylock -o "$TMP/lock.toml"
expect_clean_error 2 "-o with a name PEP 751 does not allow"
expect_err_contains "pylock.<name>.toml"
ff lock ffinst==1.0 --find-links "$TMP/links" --python "$PYA" --format toml
expect_clean_error 2 "an unknown --format"
pass_note "no sha256 known: exit 1, nothing written (PEP 751 needs one); a bad -o name or --format: exit 2"

bad_pylock() { # bad_pylock NAME TEXT EXPECTED...: lock --check and install --lock refuse it
  local name=$1 text=$2
  shift 2
  local file=$TMP/bad/pylock.$name.toml
  mkdir -p "$TMP/bad"
  printf '%s' "$text" >"$file"
  ff lock --check "$file" --python "$PYA"
  expect_clean_error 2 "lock --check: $name"
  local want
  for want in "$@"; do expect_err_contains "$want"; done
  ff install --lock "$file" --python "$PYB"
  expect_clean_error 2 "install --lock: $name"
  for want in "$@"; do expect_err_contains "$want"; done
}
bad_pylock syntax $'lock-version = "1.0\n' "pylock.syntax.toml" "invalid TOML at line 1"
bad_pylock version "$(sed 's/^lock-version = "1.0"/lock-version = "2.0"/' "$LOCK")" "lock-version" "unknown version '2.0'"
bad_pylock nohashes "$(sed 's/, hashes = { sha256 = "[0-9a-f]*" }//' "$LOCK")" "packages[0].wheels[0].hashes" "missing"
bad_pylock foreign $'lock-version = "1.0"\ncreated-by = "uv"\n[[packages]]\nname = "ffdep"\n' "tool.flashfit" "no flashfit environment key"
pass_note "bad pylock input (bad TOML, lock-version 2.0, no hashes, another tool's file): exit 2, naming file and key"

# --- uv as the resolver of the installer's lines ------------------------------------------
# PATH without any uv, and one whose only uv is the pinned one.
NO_UV_PATH=$(printf '%s' "$PATH" | tr ':' '\n' | while read -r d; do [[ -x $d/uv ]] || printf '%s:' "$d"; done)
mkdir -p "$TMP/uvbin" && ln -s "$UV" "$TMP/uvbin/uv"
rm -rf "$FLASHFIT_CACHE_DIR/wheels"
PATH=$NO_UV_PATH ff lock -r "$TMP/requirements.txt" --python "$PYA" -o "$TMP/by-pip.txt"
expect_rc 0 "lock with no uv on PATH"
expect_err_contains "resolving 1 line with pip"
PATH=$TMP/uvbin:$NO_UV_PATH ff lock -r "$TMP/requirements.txt" --python "$PYA" -o "$TMP/by-uv.txt"
expect_rc 0 "lock with uv on PATH"
expect_err_contains "resolving 1 line with uv"
grep -qxF "# ffdep 1.2 (uv's resolution)" "$TMP/by-uv.txt" || fail "the lock does not say uv resolved ffdep: $(cat "$TMP/by-uv.txt")"
# The same files and hashes, whoever resolved them (uv writes them in name order).
diff <(grep -v '^#\|^$' "$TMP/by-pip.txt" | sort) <(grep -v '^#\|^$' "$TMP/by-uv.txt" | sort) >&2 ||
  fail "uv's resolution locks other files than pip's"
[[ $(grep -vc '^#\|^$' "$TMP/by-uv.txt") == 3 ]] || fail "uv's lock has other lines than ffinst, ffpure, ffdep"
PATH=$TMP/uvbin:$NO_UV_PATH ff lock -r "$TMP/requirements.txt" --python "$PYA" --resolver pip -o "$TMP/by-pip-asked.txt"
expect_rc 0 "lock --resolver pip with uv on PATH"
expect_err_contains "resolving 1 line with pip"
cmp -s "$TMP/by-pip.txt" "$TMP/by-pip-asked.txt" || fail "--resolver pip with uv on PATH is not pip's lock"
pass_note "uv on PATH resolves the installer's lines (uv pip compile): the same files and sha256 as pip's; --resolver pip keeps pip"

PATH=$NO_UV_PATH ff lock -r "$TMP/requirements.txt" --python "$PYA" --resolver uv --format pylock -o "$TMP/project/pylock.by-uv.toml"
expect_clean_error 2 "--resolver uv without uv"
expect_err_contains "uv is not on PATH"
PATH=$TMP/uvbin:$NO_UV_PATH ff lock -r "$TMP/requirements.txt" --python "$PYA" --resolver uv --format pylock -o "$TMP/project/pylock.by-uv.toml" --json
expect_rc 0 "lock --resolver uv --format pylock"
[[ $(json_field "$TMP/out" 'd["resolver"], d["format"]') == "('uv', 'pylock')" ]] || fail "--json: $(json_field "$TMP/out" 'd["resolver"], d["format"]')"
PYW=$(venv uv-resolved)
"$UV" pip install --python "$PYW" --no-progress -r "$TMP/project/pylock.by-uv.toml" >"$TMP/uv.out" 2>&1 ||
  fail "uv does not install the pylock of its own resolution: $(cat "$TMP/uv.out")"
for pair in "ffinst:$W10" "ffpure:$TMP/links/ffpure-1.0-py3-none-any.whl" "ffdep:$TMP/links/ffdep-1.2-py3-none-any.whl"; do
  n=$(wheel_bytes_installed "$PYW" "${pair%%:*}" "${pair#*:}") || fail "uv-resolved venv: $n"
done
pass_note "--resolver uv --format pylock: uv installs it, the locked bytes; --resolver uv without uv: exit 2"
