#!/usr/bin/env bash
# The import check's interpreter is started before pip runs (it imports torch
# meanwhile) and its answer counts only with proof that pip changed nothing it
# had loaded (docs/install.md, step 4). Real pip, real venvs, real torch:
# - a normal install is proven in the preloaded interpreter;
# - a wheel that puts a `torch` package into the venv shadows the torch the
#   preloaded interpreter imported: the check is redone in a fresh interpreter
#   and its verdict (the shadowing torch, the extension's failed import, a
#   rollback) is the one reported;
# - a wheel whose .pth file must run at interpreter startup: the preloaded
#   interpreter started without it, so the check is redone and passes.
# shellcheck shell=bash source=tests/integration/lib.sh
source "$(dirname "$0")/lib.sh"
# shellcheck source=tests/integration/ffinst_lib.sh
source "$(dirname "$0")/ffinst_lib.sh"
ffinst_fixture
export FLASHFIT_CACHE_DIR="$TMP/cache"

new_venv() {
  rm -rf "$TMP/venv"
  "$TEST_PYTHON" -m venv --system-site-packages "$TMP/venv" || fail "cannot create a venv"
  PY=$TMP/venv/bin/python
}
site_dir() { "$PY" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])'; }

# rewheel SRC DEST NAME=TEXT...: SRC's members plus the given ones, RECORD rewritten with real hashes.
rewheel() {
  "$TEST_PYTHON" - "$@" <<'PY'
import base64, hashlib, sys, zipfile
src, dest, extra = sys.argv[1], sys.argv[2], sys.argv[3:]
def digest(data):
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
members, record = {}, None
if src != "-":
    with zipfile.ZipFile(src) as z:
        for name in z.namelist():
            if name.endswith(".dist-info/RECORD"):
                record = name
            else:
                members[name] = z.read(name)
for item in extra:
    name, _, text = item.partition("=")
    members[name] = text.replace("\\n", "\n").encode()
    if name.endswith(".dist-info/METADATA"):
        record = name.rsplit("/", 1)[0] + "/RECORD"
lines = "".join(f"{n},{digest(d)},{len(d)}\n" for n, d in members.items()) + f"{record},,\n"
with zipfile.ZipFile(dest, "w", zipfile.ZIP_DEFLATED) as z:
    for n, d in members.items():
        z.writestr(n, d)
    z.writestr(record, lines)
PY
}

# --- the normal case: the interpreter started before pip gives the answer ---------------
new_venv
ff install "$W10" --python "$PY" --json -v
expect_rc 0 "install of the good wheel"
[[ $(json_field "$TMP/out" 'd["attempts"][-1]["import_check"]["interpreter"]') == preloaded ]] ||
  fail "the import check did not use the interpreter started before pip"
[[ $(json_field "$TMP/out" 'd["attempts"][-1]["import_check"]["redone_because"]') == None ]] ||
  fail "a preloaded check was redone with nothing changed"
expect_err_contains "nothing it had loaded changed"
"$PY" -c 'import torch, ffinst' || fail "the installed extension does not import"
pass_note "the preloaded interpreter proves a normal install"

# --- pip's run shadows the torch the preloaded interpreter imported -----------------------
# ffinst 1.0 plus a torch package of its own: in the venv it comes before
# Debian's torch, so a fresh interpreter imports it, and it refuses to load.
# The preloaded interpreter still holds Debian's torch, which imported fine.
mkdir -p "$TMP/shadow"
SHADOW=$TMP/shadow/$(basename "$W10")
rewheel "$W10" "$SHADOW" 'torch/__init__.py=raise ImportError("the shadowing torch")\n'
new_venv
ff install "$SHADOW" --python "$PY" --json -v
expect_rc 1 "a wheel that shadows torch"
[[ $(json_field "$TMP/out" 'd["attempts"][0]["stage"]') == import ]] ||
  fail "the shadowing wheel was not stopped at the import check"
[[ $(json_field "$TMP/out" 'd["attempts"][0]["import_check"]["interpreter"]') == fresh ]] ||
  fail "the stale preloaded interpreter's answer was used"
json_field "$TMP/out" 'd["attempts"][0]["import_check"]["redone_because"]' | grep -q 'torch now resolves to' ||
  fail "the reason for the fresh check does not name the shadowed torch"
json_field "$TMP/out" 'd["attempts"][0]["detail"]' | grep -q 'rolled back: import torch: ImportError: the shadowing torch' ||
  fail "the verdict is not the fresh interpreter's (it did not see the shadowing torch)"
expect_err_contains "checked again in a fresh interpreter"
[[ ! -e "$(site_dir)/torch" ]] || fail "the shadowing torch was not rolled back"
"$PY" -c 'import torch' || fail "the venv's torch is still the shadow"
pass_note "torch shadowed during the run: checked again fresh, the fresh verdict reported"

# --- a .pth file the new package needs at startup -----------------------------------------
PTH=$TMP/shadow/ffpth-1.0-py3-none-any.whl
rewheel - "$PTH" \
  'ffpth-1.0.dist-info/METADATA=Metadata-Version: 2.1\nName: ffpth\nVersion: 1.0\n' \
  'ffpth-1.0.dist-info/WHEEL=Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n' \
  'ffpth_boot.py=import sys\nsys.ffpth_booted = True\n' \
  'ffpth.pth=import ffpth_boot\n' \
  'ffpth/__init__.py=import sys\nif not getattr(sys, "ffpth_booted", False):\n    raise ImportError("ffpth.pth did not run at startup")\n'
printf '# no recipes\n' >"$TMP/empty.toml"
new_venv
FLASHFIT_CONFIG=$TMP/empty.toml ff install "$PTH" --python "$PY" --json -v
expect_rc 0 "a package whose .pth runs at startup"
[[ $(json_field "$TMP/out" 'd["attempts"][0]["import_check"]["interpreter"]') == fresh ]] ||
  fail "the preloaded interpreter, started without the .pth, gave the answer"
json_field "$TMP/out" 'd["attempts"][0]["import_check"]["redone_because"]' | grep -q 'ffpth.pth appeared' ||
  fail "the reason for the fresh check does not name the new .pth"
"$PY" -c 'import ffpth' || fail "ffpth does not import in a fresh interpreter"
pass_note "a new .pth file: checked again fresh, installed"
