#!/usr/bin/env bash
# flashfit install with the installers users run today, beside Debian's pip
# 23.0.1 (test_install.sh): the newest pip (26.2.1, in a venv of its own) and
# uv (0.13.9, `uv pip install --python`), both from .pydeps/tools
# (scripts/pydeps/tools.sh; skipped, saying so, when missing). Per installer:
# - from a local index: the ABI-mismatched wheel is refused by inspection, the
#   good one installs and imports;
# - every candidate fails: rolled back, the previous version restored;
# - upstream's inconsistent-version file (+cu12torch..., METADATA says 1.0)
#   installs through flashfit (by path); find-links gives the same choice as
#   the index;
# - the trap itself, without flashfit: pip 23 and pip 26 refuse that file from
#   --find-links and from an index; what uv does is checked and stated.
# shellcheck source=tests/integration/lib.sh
source "$(dirname "$0")/lib.sh"
FF_TIMEOUT=180

TOOLS=$SOURCE_DIR/.pydeps/tools
if [[ ! -x $TOOLS/bin/uv || ! -d $TOOLS/wheels ]]; then
  skip_note "$TOOLS is missing (scripts/pydeps/tools.sh makes it): uv and pip 26 not checked"
  exit 0
fi
FIX=${FLASHFIT_INSTALL_WHEELS:?the install_wheels fixture sets FLASHFIT_INSTALL_WHEELS}
wheel() {
  local found=("$FIX"/$1)
  [[ ${#found[@]} == 1 && -f ${found[0]} ]] || fail "fixture wheel $1 not found in $FIX"
  printf '%s\n' "${found[0]}"
}
W09=$(wheel 'ffinst-0.9-*.whl')
W10=$(wheel 'ffinst-1.0+pt1*cpu-*.whl')
W11=$(wheel 'ffinst-1.1+pt1*cpu-*.whl')
W12=$(wheel 'ffinst-1.2+pt1*cpu-*.whl')
OFFICIAL=$(wheel 'official/ffinst-1.0+cu12torch*cxx11abiTRUE-*.whl')
OFFICIAL_VERSION=$(basename "$OFFICIAL" | cut -d- -f2 | tr 'A-Z' 'a-z')

write_ffinst_recipe_config
export FLASHFIT_CONFIG="$TMP/config/config.toml"

make_index() { # make_index DIR WHEEL...: a PEP 503 page for ffinst
  local dir=$1 w base
  shift
  mkdir -p "$dir/files" "$dir/simple/ffinst"
  {
    echo "<!DOCTYPE html><html><body>"
    for w in "$@"; do
      base=$(basename "$w")
      cp "$w" "$dir/files/$base"
      echo "<a href=\"../../files/${base//+/%2B}\">$base</a>"
    done
    echo "</body></html>"
  } >"$dir/simple/ffinst/index.html"
}
make_index "$TMP/www" "$W11" "$W10"
make_index "$TMP/www-bad" "$W12" "$W11"
make_index "$TMP/www-official" "$OFFICIAL"
mkdir -p "$TMP/links" "$TMP/good-links" && cp "$OFFICIAL" "$TMP/links/" && cp "$W11" "$W10" "$TMP/good-links/"
start_http_server "$TMP/www"
INDEX=$HTTP_URL/simple
start_http_server "$TMP/www-bad"
BAD_INDEX=$HTTP_URL/simple
start_http_server "$TMP/www-official"
OFFICIAL_INDEX=$HTTP_URL/simple

# PATH without any uv, and one whose only uv is the pinned one.
NO_UV_PATH=$(printf '%s' "$PATH" | tr ':' '\n' | while read -r d; do [[ -x $d/uv ]] || printf '%s:' "$d"; done)
mkdir -p "$TMP/uvbin" && ln -s "$TOOLS/bin/uv" "$TMP/uvbin/uv"

# new_venv LANE: a --system-site-packages venv (Debian's torch) for the lane.
new_venv() {
  rm -rf "$TMP/venv"
  "$TEST_PYTHON" -m venv --system-site-packages "$TMP/venv" || fail "cannot create a venv"
  PY=$TMP/venv/bin/python
  case $1 in
    pip26)
      "$PY" -m pip install -q --no-index --find-links "$TOOLS/wheels" --disable-pip-version-check pip==26.2.1 ||
        fail "cannot give the venv pip 26.2.1"
      [[ $("$PY" -m pip --version) == "pip 26.2.1 "* ]] || fail "the venv's pip is not 26.2.1"
      LANE_PATH=$NO_UV_PATH WANT_INSTALLER=pip ;;
    uv) LANE_PATH=$TMP/uvbin:$NO_UV_PATH WANT_INSTALLER=uv ;;
    *) LANE_PATH=$NO_UV_PATH WANT_INSTALLER=pip ;;
  esac
}
installed_version() { "$PY" -m pip show ffinst 2>/dev/null | sed -n 's/^Version: //p'; }
lane_ff() { PATH=$LANE_PATH ff "$@"; }

for lane in pip26 uv; do
  export FLASHFIT_CACHE_DIR=$TMP/cache-$lane
  # --- the mislabelled wheel is refused, the good one installs and imports ---
  new_venv "$lane"
  lane_ff install ffinst --python "$PY" --index-url "$INDEX" --json
  expect_rc 0 "$lane: install from the local index"
  installer=$(json_field "$TMP/out" 'd["installer"]')
  [[ $installer == "$WANT_INSTALLER"* ]] || fail "$lane: installed with '$installer', not $WANT_INSTALLER"
  [[ $(json_field "$TMP/out" 'd["attempts"][0]["stage"]') == inspect ]] || fail "$lane: the ABI-mismatched wheel was not stopped at inspection"
  [[ $(json_field "$TMP/out" 'd["installed"]["filename"]') == "$(basename "$W10")" ]] || fail "$lane: the good wheel was not installed"
  "$PY" -c 'import torch, ffinst' || fail "$lane: the installed extension does not import"
  [[ $(installed_version) == 1.0+pt* ]] || fail "$lane: pip does not show ffinst 1.0"
  pass_note "$lane ($installer): mislabelled wheel refused, good wheel installed and imported"

  # --- every candidate fails: rolled back, 0.9 restored ---------------------
  export FLASHFIT_CACHE_DIR=$TMP/cache-$lane-restore  # (the cache above holds a good 1.0)
  new_venv "$lane"
  "$PY" -m pip install --no-deps --no-index --disable-pip-version-check -q "$W09" || fail "cannot pre-install 0.9"
  lane_ff install ffinst --python "$PY" --index-url "$BAD_INDEX" --json
  expect_rc 1 "$lane: nothing works"
  [[ $(json_field "$TMP/out" '[a["stage"] for a in d["attempts"]]') == "['import', 'inspect']" ]] ||
    fail "$lane: expected an import failure then an inspection failure"
  [[ $(installed_version) == 0.9 ]] || fail "$lane: 0.9 was not restored (now: $(installed_version))"
  "$PY" -c 'import ffinst' || fail "$lane: the restored 0.9 does not import"
  pass_note "$lane: a failing import is rolled back and the previous version restored"

  # --- --find-links: the same choice as from the index ---------------------
  export FLASHFIT_CACHE_DIR=$TMP/cache-$lane-links
  new_venv "$lane"
  lane_ff install ffinst --python "$PY" --find-links "$TMP/good-links" --json
  expect_rc 0 "$lane: install from --find-links"
  [[ $(json_field "$TMP/out" 'd["installed"]["filename"]') == "$(basename "$W10")" ]] || fail "$lane: --find-links did not install the good wheel"
  "$PY" -c 'import torch, ffinst' || fail "$lane: the wheel from --find-links does not import"
  pass_note "$lane: --find-links: the mismatched wheel refused, the good one installed"

  # --- upstream's inconsistent-version file, through flashfit (by path) -----
  # (From an index or find-links the resolver rejects its cu12 label against
  # this CPU torch before any installer sees it.)
  export FLASHFIT_CACHE_DIR=$TMP/cache-$lane-official
  new_venv "$lane"
  lane_ff install "$OFFICIAL" --python "$PY" --json
  expect_rc 0 "$lane: the official-style file by path"
  [[ $(installed_version) == 1.0 ]] || fail "$lane: the official-style file is not installed as 1.0"
  "$PY" -c 'import torch, ffinst' || fail "$lane: the official-style file does not import"
  pass_note "$lane: an upstream +cu12torch...cxx11abiTRUE file (METADATA 1.0) installs by path"
done

# --- the trap without flashfit: pip 23 and pip 26 refuse it ---------------------
for lane in pip23 pip26; do
  new_venv "$lane"
  for how in find-links index; do
    if [[ $how == find-links ]]; then src=(--no-index --find-links "$TMP/links"); else src=(--index-url "$OFFICIAL_INDEX"); fi
    capture env PIP_CONFIG_FILE=/dev/null "$PY" -m pip install --no-deps --disable-pip-version-check "${src[@]}" "ffinst==$OFFICIAL_VERSION"
    ((RC != 0)) || fail "$lane accepted the inconsistent-version file from $how"
    grep -qi 'inconsistent version' "$TMP/err" "$TMP/out" || fail "$lane refused it from $how for another reason: $(tail -n 3 "$TMP/err")"
    [[ -z $(installed_version) ]] || fail "$lane left ffinst installed after refusing it"
  done
  pass_note "$lane ($("$PY" -m pip --version | cut -d' ' -f1-2)) refuses the inconsistent-version file from --find-links and an index"
done

# uv: what it does with the same file from --find-links (stated, not assumed).
new_venv uv
capture "$TOOLS/bin/uv" pip install --python "$PY" --no-deps --offline --no-index --find-links "$TMP/links" "ffinst==$OFFICIAL_VERSION"
if ((RC == 0)); then
  [[ $(installed_version) == 1.0 ]] || fail "uv installed the file but pip shows $(installed_version)"
  pass_note "uv $("$TOOLS/bin/uv" --version | cut -d' ' -f2) installs the inconsistent-version file from --find-links (METADATA 1.0): no trap there"
else
  pass_note "uv $("$TOOLS/bin/uv" --version | cut -d' ' -f2) refuses the inconsistent-version file from --find-links: $(grep -m1 -v '^\s*$' "$TMP/err" | cut -c1-160)"
fi
