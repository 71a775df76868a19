#!/usr/bin/env bash
# The fixture wheels of `flashfit install` (tests/fixtures/torch_ext/
# build_install_wheels.sh, CTest fixture install_wheels, directory in
# $FLASHFIT_INSTALL_WHEELS) behave as their names promise, judged by the real
# pip and the real import, without flashfit:
#   ffinst-0.9, ffinst-1.0+ptTcpu   install and import;
#   ffinst-1.1+ptTcpu                installs, import fails: "undefined symbol"
#                                    (and nm agrees: torch lacks what it needs);
#   ffinst-1.2+ptTcpu                installs, every torch symbol resolves, the
#                                    import raises the deliberate ImportError;
#   official/ffinst-1.0+cu12torchM.mcxx11abiTRUE
#                                    METADATA 1.0: installs by path (pip show
#                                    says 1.0), but through --find-links pinned
#                                    to the file's version pip refuses it,
#                                    "inconsistent version": the upstream trap
#                                    the installer must avoid.
# And pip, left to rank the directory, picks the broken ones first.
# Run by hand without FLASHFIT_INSTALL_WHEELS, it builds the wheels itself
# (one to two minutes).
# shellcheck source=tests/integration/lib.sh
source "$(dirname "$0")/lib.sh"

unset "${!PIP_@}" PYTHONPATH PYTHONHOME
# pip must not read the caller's configuration (an index, find-links, a cache).
export PIP_CONFIG_FILE=/dev/null PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_CACHE_DIR=1
export PYTHONNOUSERSITE=1 XDG_CACHE_HOME=$TMP/xdg-cache
PY_TIMEOUT=120

command -v nm >/dev/null || fail "'nm' is not on PATH (binutils): it is this test's oracle"

# --- The fixture ------------------------------------------------------------------
WHEELS=${FLASHFIT_INSTALL_WHEELS:-}
if [[ -z $WHEELS ]]; then
  WHEELS=$TMP/wheels
  printf 'note [%s]: FLASHFIT_INSTALL_WHEELS is not set; building the wheels into %s\n' \
    "$TEST_NAME" "$WHEELS"
  timeout 900 bash "$SOURCE_DIR/tests/fixtures/torch_ext/build_install_wheels.sh" "$WHEELS" \
    "$TEST_PYTHON" >"$TMP/build.log" 2>&1 ||
    fail "building the fixture wheels failed: $(tail -n 20 "$TMP/build.log")"
fi
[[ -d $WHEELS ]] || fail "FLASHFIT_INSTALL_WHEELS=$WHEELS is not a directory (run fixture.install_wheels)"

# The labels, from the torch the test python imports (as the fixture does).
timeout "$PY_TIMEOUT" "$TEST_PYTHON" -c '
import os, re, torch
m = re.match(r"(\d+)\.(\d+)", torch.__version__)
print(m.group(1)); print(m.group(2)); print(int(torch._C._GLIBCXX_USE_CXX11_ABI))
print(os.path.join(os.path.dirname(torch.__file__), "lib"))' >"$TMP/torch.txt" 2>"$TMP/torch.err" ||
  fail "'$TEST_PYTHON -c \"import torch\"' failed: $(head -c 500 "$TMP/torch.err")"
{ read -r TORCH_MAJOR; read -r TORCH_MINOR; read -r TORCH_ABI; read -r TORCH_LIB; } <"$TMP/torch.txt"
LOCAL=pt$TORCH_MAJOR${TORCH_MINOR}cpu
ABI_WORD=FALSE
((TORCH_ABI == 1)) && ABI_WORD=TRUE
OFFICIAL_LABEL=cu12torch$TORCH_MAJOR.${TORCH_MINOR}cxx11abi$ABI_WORD

# one_wheel PREFIX: the path of the single $WHEELS/PREFIX-*.whl.
one_wheel() {
  local found=()
  shopt -s nullglob
  found=("$WHEELS/$1"-*.whl)
  shopt -u nullglob
  ((${#found[@]} == 1)) || fail "expected one $1-*.whl in $WHEELS, found ${#found[@]}"
  printf '%s\n' "${found[0]}"
}
W09=$(one_wheel ffinst-0.9)
W10=$(one_wheel "ffinst-1.0+$LOCAL")
W11=$(one_wheel "ffinst-1.1+$LOCAL")
W12=$(one_wheel "ffinst-1.2+$LOCAL")
WOFF=$(one_wheel "official/ffinst-1.0+$OFFICIAL_LABEL")
# Nothing else: --find-links below ranks whatever the directories hold.
count=$(find "$WHEELS" -name '*.whl' | wc -l)
((count == 5)) || fail "expected 5 wheels under $WHEELS, found $count: $(find "$WHEELS" -name '*.whl')"
pass_note "fixture: $(basename "$W09") $(basename "$W10") $(basename "$W11") $(basename "$W12") official/$(basename "$WOFF")"

# --- Static oracle: METADATA, RECORD, and what the modules need (nm) ---------------
# The official file's METADATA says 1.0 while its name says 1.0+label; the
# others agree with their names. Every RECORD is valid.
timeout "$PY_TIMEOUT" "$TEST_PYTHON" - "$W09" 0.9 "$W10" "1.0+$LOCAL" "$W11" "1.1+$LOCAL" \
  "$W12" "1.2+$LOCAL" "$WOFF" 1.0 >"$TMP/meta.out" 2>&1 <<'PY' || fail "$(cat "$TMP/meta.out")"
import base64, csv, hashlib, io, sys, zipfile
args = sys.argv[1:]
for path, version in zip(args[::2], args[1::2]):
    z = zipfile.ZipFile(path)
    info = f"ffinst-{version}.dist-info"
    if f"{info}/METADATA" not in z.namelist():
        sys.exit(f"{path}: no {info}/METADATA; its dist-info is {sorted({n.split('/')[0] for n in z.namelist() if '.dist-info/' in n})}")
    meta = z.read(f"{info}/METADATA").decode()
    assert f"\nVersion: {version}\n" in meta, f"{path}: METADATA lacks 'Version: {version}'"
    for name, digest, size in csv.reader(io.StringIO(z.read(f"{info}/RECORD").decode())):
        if name == f"{info}/RECORD":
            continue
        data = z.read(name)
        want = "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        assert (digest, size) == (want, str(len(data))), f"{path}: RECORD is wrong for {name}"
PY

# Everything torch's libraries define (symlinks followed; Debian's torch/lib
# also holds dangling links), version suffixes cut.
for lib in "$TORCH_LIB"/lib*.so; do
  [[ -e $lib ]] || continue
  nm -D --defined-only "$lib" || fail "nm failed on $lib"
done | awk 'NF >= 3 {print $NF}' | sed 's/@.*//' | sort -u >"$TMP/torch_defined.txt"
[[ -s $TMP/torch_defined.txt ]] || fail "no symbols defined by the libraries in $TORCH_LIB"
# missing_torch_symbols WHEEL: the module's undefined torch symbols that no
# torch library defines, one a line.
missing_torch_symbols() {
  local dir
  dir=$TMP/unpacked/$(basename "$1")
  timeout "$PY_TIMEOUT" "$TEST_PYTHON" -m zipfile -e "$1" "$dir" || fail "cannot unpack $1"
  nm -D --undefined-only "$dir"/ffinst.*.so | awk '{print $NF}' | sed 's/@.*//' | sort -u |
    grep -E '^_Z(T[VIS])?N[rVK]*(3c10|2at|5torch|6caffe2)' | comm -23 - "$TMP/torch_defined.txt" || true
}
for wheel in "$W09" "$W10" "$W12" "$WOFF"; do
  missing=$(missing_torch_symbols "$wheel")
  [[ -z $missing ]] || fail "$(basename "$wheel") needs torch symbols torch lacks: $missing"
done
MISSING11=$(missing_torch_symbols "$W11")
[[ -n $MISSING11 ]] || fail "$(basename "$W11") needs no symbol torch lacks; it was meant to have the other C++ ABI"
pass_note "static: METADATA and RECORD as named; 0.9, 1.0, 1.2 and official resolve against torch, 1.1 misses $(wc -l <<<"$MISSING11") symbols"

# --- The real pip and the real import -------------------------------------------------
timeout "$PY_TIMEOUT" "$TEST_PYTHON" -m venv --system-site-packages "$TMP/venv" >"$TMP/venv.log" 2>&1 ||
  fail "could not create a venv: $(tail -n 5 "$TMP/venv.log")"
VPY=$TMP/venv/bin/python

# pip_install ARGS...: pip install --no-deps --no-index ARGS in the venv;
# output in $TMP/pip.log, exit code in PIP_RC.
pip_install() {
  PIP_RC=0
  timeout "$PY_TIMEOUT" "$VPY" -m pip install --no-deps --no-index "$@" >"$TMP/pip.log" 2>&1 || PIP_RC=$?
  ((PIP_RC != 124)) || fail "pip install $* timed out"
}
# installed_version: what pip show says, or nothing.
installed_version() {
  timeout "$PY_TIMEOUT" "$VPY" -m pip show ffinst 2>/dev/null | sed -n 's/^Version: //p'
}
# expect_installed WHEEL VERSION: installing it by path works and pip show
# says VERSION.
expect_installed() {
  pip_install "$1"
  ((PIP_RC == 0)) || fail "pip install $(basename "$1") failed: $(tail -n 10 "$TMP/pip.log")"
  local got
  got=$(installed_version)
  [[ $got == "$2" ]] || fail "after installing $(basename "$1"), pip show says version '$got', expected '$2'"
}
# import_ffinst: `import torch, ffinst` and a call; output in $TMP/import.out,
# exit code in IMPORT_RC (3: ImportError).
import_ffinst() {
  IMPORT_RC=0
  timeout "$PY_TIMEOUT" "$VPY" -c '
import sys, torch
try:
    import ffinst
except ImportError as e:
    print(e)
    sys.exit(3)
assert torch.equal(ffinst.scale(torch.ones(2), 2.0), torch.full((2,), 2.0))
print("ok")' >"$TMP/import.out" 2>&1 || IMPORT_RC=$?
}

for pair in "$W09 0.9" "$W10 1.0+$LOCAL"; do
  read -r wheel version <<<"$pair"
  expect_installed "$wheel" "$version"
  import_ffinst
  ((IMPORT_RC == 0)) || fail "import of ffinst $version failed: $(tail -n 10 "$TMP/import.out")"
done
pass_note "ffinst 0.9 and 1.0+$LOCAL install and import"

expect_installed "$W11" "1.1+$LOCAL"
import_ffinst
((IMPORT_RC == 3)) || fail "import of ffinst 1.1+$LOCAL: expected an ImportError, got exit $IMPORT_RC: $(tail -n 10 "$TMP/import.out")"
IMPORT_ERROR=$(<"$TMP/import.out")
[[ $IMPORT_ERROR =~ undefined\ symbol:\ ([^[:space:]]+) ]] ||
  fail "the ImportError of ffinst 1.1+$LOCAL does not name an undefined symbol: $IMPORT_ERROR"
grep -qxF -- "${BASH_REMATCH[1]}" <<<"$MISSING11" ||
  fail "the import failed on ${BASH_REMATCH[1]}, which nm does not list as missing: $MISSING11"
pass_note "ffinst 1.1+$LOCAL installs, import fails: $IMPORT_ERROR"

expect_installed "$W12" "1.2+$LOCAL"
import_ffinst
((IMPORT_RC == 3)) || fail "import of ffinst 1.2+$LOCAL: expected an ImportError, got exit $IMPORT_RC: $(tail -n 10 "$TMP/import.out")"
[[ $(<"$TMP/import.out") == "ffinst: deliberately broken import" ]] ||
  fail "the ImportError of ffinst 1.2+$LOCAL is not the deliberate one: $(<"$TMP/import.out")"
pass_note "ffinst 1.2+$LOCAL installs, import fails on purpose: $(<"$TMP/import.out")"

# The official-style file by path: pip 23 takes the version from METADATA.
expect_installed "$WOFF" 1.0
import_ffinst
((IMPORT_RC == 0)) || fail "import of the official-style ffinst 1.0 failed: $(tail -n 10 "$TMP/import.out")"
pass_note "official/$(basename "$WOFF") installs by path; pip show says 1.0"

# ... and through an index-like source, pinned to the version its name says:
# pip discards it for the name/METADATA mismatch and installs nothing.
timeout "$PY_TIMEOUT" "$VPY" -m pip uninstall -y ffinst >"$TMP/pip.log" 2>&1 ||
  fail "pip uninstall ffinst failed: $(tail -n 5 "$TMP/pip.log")"
PIN="ffinst==1.0+cu12torch$TORCH_MAJOR.${TORCH_MINOR}cxx11abi${ABI_WORD,,}"
pip_install --find-links "$(dirname "$WOFF")" "$PIN"
((PIP_RC != 0)) || fail "pip install --find-links ... $PIN succeeded; pip was expected to refuse the inconsistent version"
want="has inconsistent version: expected '1.0+$OFFICIAL_LABEL', but metadata has '1.0'"
grep -qiF -- "$want" "$TMP/pip.log" || fail "pip's output lacks \"$want\": $(tail -n 10 "$TMP/pip.log")"
[[ -z $(installed_version) ]] || fail "pip installed ffinst $(installed_version) after refusing the wheel"
pass_note "--find-links $PIN: pip refuses it ($(grep -oiF -- "$want" "$TMP/pip.log"))"

# --- The ranking trap: pip's own pick from the directory is the broken one ------------
# pip_pick REQ: the version `pip install --dry-run` would install from $WHEELS.
pip_pick() {
  pip_install --dry-run --find-links "$WHEELS" "$1"
  ((PIP_RC == 0)) || fail "pip install --dry-run $1 failed: $(tail -n 10 "$TMP/pip.log")"
  sed -n 's/^Would install ffinst-//p' "$TMP/pip.log"
}
pick=$(pip_pick ffinst)
[[ $pick == "1.2+$LOCAL" ]] || fail "pip's pick for 'ffinst' is '$pick', expected the broken 1.2+$LOCAL"
pick=$(pip_pick "ffinst!=1.2+$LOCAL")
[[ $pick == "1.1+$LOCAL" ]] || fail "pip's pick without 1.2 is '$pick', expected the mismatched 1.1+$LOCAL"
pass_note "pip ranks 1.2+$LOCAL, then 1.1+$LOCAL, above the good 1.0+$LOCAL"
