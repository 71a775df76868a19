# shellcheck shell=bash disable=SC2034
# Shared by the scripts that install, lock and serve the install_wheels
# fixture's ffinst wheels (sourced after lib.sh): the wheels by name, the
# recipe config that makes ffinst a compiled package, and a PEP 503 index of
# them with two pure packages, served on 127.0.0.1.

# ffinst_fixture: FIX, W10, W11, OFFICIAL (the upstream-style labelled CUDA
# wheel), the functions wheel PATTERN and sha FILE; FLASHFIT_CONFIG exported
# with the ffinst recipe.
ffinst_fixture() {
  FIX=${FLASHFIT_INSTALL_WHEELS:?the install_wheels fixture sets FLASHFIT_INSTALL_WHEELS}
  W10=$(wheel 'ffinst-1.0+pt1*cpu-*.whl')
  W11=$(wheel 'ffinst-1.1+pt1*cpu-*.whl')
  OFFICIAL=$(wheel 'official/ffinst-1.0+cu12torch*cxx11abiTRUE-*.whl')
  write_ffinst_recipe_config
  export FLASHFIT_CONFIG="$TMP/config/config.toml"
}

wheel() { # wheel PATTERN: the one fixture wheel matching
  local found=("$FIX"/$1)
  [[ ${#found[@]} == 1 && -f ${found[0]} ]] || fail "fixture wheel $1 not found in $FIX"
  printf '%s\n' "${found[0]}"
}

sha() { sha256sum "$1" | cut -d' ' -f1; }

page() { # page NAME WHEEL...: $TMP/www/simple/NAME/, #sha256= on every link
  local name=$1 w base
  shift
  mkdir -p "$TMP/www/simple/$name" "$TMP/www/files"
  {
    echo "<!DOCTYPE html><html><body>"
    for w in "$@"; do
      base=$(basename "$w")
      cp "$w" "$TMP/www/files/$base"
      echo "<a href=\"../../files/${base//+/%2B}#sha256=$(sha "$w")\">$base</a>"
    done
    echo "</body></html>"
  } >"$TMP/www/simple/$name/index.html"
}

# ffinst_index FFINST_WHEEL...: pure wheels ffpure 1.0 (needs ffdep>=1.0) and
# ffdep 1.2 in $TMP/links; an index in $TMP/www with the given ffinst wheels,
# ffpure and ffdep, and OFFICIAL's file unlisted; served: INDEX, HTTP_URL,
# OFFICIAL_NAME.
ffinst_index() {
  mkdir -p "$TMP/links" "$TMP/www/files"
  "$TEST_PYTHON" "$SOURCE_DIR/tests/fixtures/pure_wheel.py" "$TMP/links" 'ffpure==1.0;ffdep>=1.0' 'ffdep==1.2' ||
    fail "cannot write the pure wheels"
  page ffinst "$@"
  page ffpure "$TMP/links/ffpure-1.0-py3-none-any.whl"
  page ffdep "$TMP/links/ffdep-1.2-py3-none-any.whl"
  cp "$OFFICIAL" "$TMP/www/files/"
  start_http_server "$TMP/www"
  INDEX=$HTTP_URL/simple
  OFFICIAL_NAME=$(basename "$OFFICIAL")
}

venv() { # venv NAME: a fresh --system-site-packages venv; prints its python
  "$TEST_PYTHON" -m venv --system-site-packages "$TMP/$1" || fail "cannot create the venv $1"
  printf '%s\n' "$TMP/$1/bin/python"
}

# needy_wheel WHEEL OUT_DIR [REQUIREMENT]: WHEEL copied into OUT_DIR with one
# more line in its METADATA, `Requires-Dist: REQUIREMENT` (default ffdep>=2.0,
# which no source has), and its RECORD row rewritten to match.
needy_wheel() {
  mkdir -p "$2"
  "$TEST_PYTHON" - "$1" "$2" "${3:-ffdep>=2.0}" <<'PY'
import base64, hashlib, os, sys, zipfile
src, out, needs = sys.argv[1], sys.argv[2], sys.argv[3]
zin = zipfile.ZipFile(src)
members = {i.filename: zin.read(i.filename) for i in zin.infolist()}
meta = next(n for n in members if n.endswith(".dist-info/METADATA"))
record = next(n for n in members if n.endswith(".dist-info/RECORD"))
head, sep, body = members[meta].decode().partition("\n\n")
members[meta] = (head + "\nRequires-Dist: " + needs + sep + body).encode()
digest = base64.urlsafe_b64encode(hashlib.sha256(members[meta]).digest()).rstrip(b"=").decode()
rows = [f"{meta},sha256={digest},{len(members[meta])}" if r.startswith(meta + ",") else r
        for r in members[record].decode().splitlines()]
members[record] = ("\n".join(rows) + "\n").encode()
with zipfile.ZipFile(os.path.join(out, os.path.basename(src)), "w", zipfile.ZIP_DEFLATED) as z:
    for name, data in members.items():
        z.writestr(name, data)
PY
}
