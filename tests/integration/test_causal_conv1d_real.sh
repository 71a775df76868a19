#!/usr/bin/env bash
# The exact-wheel workflow for real (issue 22): PyPI's causal-conv1d 1.7.0
# sdist (.pydeps/sdists, fetched once with its pinned sha256 by
# scripts/pydeps/sdists.sh), PyPI's CUDA torch 2.14.1+cu130 (.pydeps/torch-cuda),
# this machine's nvcc 13.0 and no GPU:
# - resolve finds no prebuilt wheel for that torch and says so (no GPU here:
#   the fallback; for an A100 described with --gpu 8.0: the source build);
# - `flashfit build --archs 80` builds the real sdist through the plan,
#   preflight, governor and nvcc wrapper (setup.py fixes nine -gencode targets:
#   one reaches nvcc), ~4 CPU minutes; the wheel is a cp311 linux_x86_64 one
#   whose fatbins hold sm_80 SASS alone and whose torch symbols all resolve
#   against torch 2.14.1's own libraries (flashfit inspect);
# - `flashfit install` takes it from the cache into a venv that sees that
#   torch, --no-deps, torch's files unchanged, and `import causal_conv1d_cuda`
#   works there;
# - `flashfit publish` puts it in a tree, and a second venv installs it with
#   plain pip from the environment page the tree names for that torch and
#   A100s, byte-identical, and imports it.
# Skipped, saying so, without the torch venv, the sdist or nvcc (a fresh
# machine's scripts/install-deps.sh provides all three).
# shellcheck source=tests/integration/lib.sh
source "$(dirname "$0")/lib.sh"

CUDA_PY="$SOURCE_DIR/.pydeps/torch-cuda/bin/python"
SDISTS="$SOURCE_DIR/.pydeps/sdists"
SDIST="$SDISTS/causal_conv1d-1.7.0.tar.gz"
if [[ ! -x $CUDA_PY ]]; then
  skip_note "$CUDA_PY is missing (scripts/pydeps/torch-cuda.sh): the real build is not checked"
  exit 0
fi
if [[ ! -f $SDIST ]]; then
  skip_note "$SDIST is missing (scripts/pydeps/sdists.sh): the real build is not checked"
  exit 0
fi
if ! command -v nvcc >/dev/null; then
  skip_note "no nvcc on PATH: the real build is not checked"
  exit 0
fi

# A venv seeing the CUDA torch through a .pth line: what is installed goes to
# its own site-packages, never into the shared .pydeps venv other tests read.
torch_site=$("$CUDA_PY" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
base_python=$("$CUDA_PY" -c 'import sys; print(sys._base_executable)')
venv_seeing_torch() {
  local dir=$1 site
  "$base_python" -m venv "$dir" || fail "cannot create the venv $dir"
  site=$("$dir/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
  printf '%s\n' "$torch_site" >"$site/torch_cuda.pth"
  "$dir/bin/python" -c 'import torch' || fail "torch does not import in $dir"
}
venv_seeing_torch "$TMP/a"
PY=$TMP/a/bin/python
torch_version=$("$PY" -c 'import torch; print(torch.__version__)')

# --- resolve: no prebuilt wheel for this torch --------------------------------
ff resolve causal-conv1d==1.7.0 --python "$PY" --find-links "$SDISTS" --offline
expect_rc 1 "resolve with no wheel for torch $torch_version"
expect_out_contains "no wheel fits this environment"
expect_out_contains "[fallback] there is no GPU here"
ff resolve causal-conv1d==1.7.0 --python "$PY" --find-links "$SDISTS" --offline --gpu 8.0
expect_rc 1 "resolve for an A100"
expect_out_contains "[build] build causal-conv1d from source"
pass_note "no prebuilt causal-conv1d 1.7.0 for torch $torch_version; the fallback here, the build for an A100"

# --- bad input first: an arch nvcc cannot take builds nothing -----------------
ff build causal-conv1d==1.7.0 --python "$PY" --find-links "$SDISTS" --offline --archs sm_eighty
expect_clean_error 2 "--archs sm_eighty"
expect_err_contains "sm_eighty is not a GPU arch"
[[ -z $(find "$FLASHFIT_CACHE_DIR" -name '*.whl') ]] || fail "a refused build left a wheel in the cache"

# --- the real build ------------------------------------------------------------
FF_TIMEOUT=2400 ff build causal-conv1d==1.7.0 --python "$PY" --find-links "$SDISTS" --offline --archs 80 --json
[[ $RC == 0 ]] || { tail -n 30 "$TMP/err" >&2; fail "the build failed (exit $RC)"; }
cp "$TMP/out" "$TMP/build.json"
"$TEST_PYTHON" - "$TMP/build.json" <<'PY' || fail "the built wheel is not what --archs 80 asked for"
import json, sys
d = json.load(open(sys.argv[1]))
w = d["wheel"]
assert d["ok"] is True, d
assert w["filename"] == "causal_conv1d-1.7.0-cp311-cp311-linux_x86_64.whl", w["filename"]
assert w["archs"] == ["sm_80"], w["archs"]
assert w["inspect"]["compatible"] is True, w["inspect"]
PY
wheel=$(find "$FLASHFIT_CACHE_DIR/wheels" -name 'causal_conv1d-1.7.0-cp311-cp311-linux_x86_64.whl' | head -n 1)
[[ -f $wheel ]] || fail "the built wheel is not in the cache"

# The wheel read again by inspect against the torch venv: every fatbin image
# is sm_80 SASS, and each torch symbol the module needs is defined by torch
# 2.14.1's own libraries.
ff inspect "$wheel" --python "$PY" --json
expect_rc 0 "inspect of the built wheel"
"$TEST_PYTHON" - "$TMP/out" <<'PY' || fail "inspect does not confirm sm_80 alone and torch's symbols"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["compatible"] is True
(module,) = [m for m in d["modules"] if m["member"].startswith("causal_conv1d_cuda.")]
images = module["cuda"]["images"]
assert images and all(i["name"] == "sm_80" and i["kind"] == "sass" for i in images), images
symbols = module["torch_symbols"]
assert symbols["checked"] > 0 and symbols["missing"] == [], symbols
PY
pass_note "built from the PyPI sdist with --archs 80: $(basename "$wheel"), sm_80 SASS alone, torch symbols resolved"

# --- install from the cache, then import -------------------------------------
torch_record=$("$CUDA_PY" -c 'import hashlib, torch, pathlib; print(hashlib.sha256(pathlib.Path(torch.__file__).read_bytes()).hexdigest())')
FF_TIMEOUT=300 ff install causal-conv1d==1.7.0 --python "$PY" --find-links "$SDISTS" --offline --json
[[ $RC == 0 ]] || { cat "$TMP/err" >&2; fail "install from the cache failed (exit $RC)"; }
[[ $(json_field "$TMP/out" 'd["installed"]["source"]') == cache ]] || fail "install did not take the cached build"
[[ $(json_field "$TMP/out" 'd["torch_untouched"]') == True ]] || fail "install says torch changed"
[[ $("$CUDA_PY" -c 'import hashlib, torch, pathlib; print(hashlib.sha256(pathlib.Path(torch.__file__).read_bytes()).hexdigest())') == "$torch_record" ]] ||
  fail "torch's files changed"
"$PY" -c 'import torch, causal_conv1d_cuda, causal_conv1d' || fail "causal_conv1d_cuda does not import after the install"
[[ ! -e $torch_site/causal_conv1d_cuda.cpython-311-x86_64-linux-gnu.so ]] ||
  fail "the install went into the shared torch venv"
pass_note "installed from the cache --no-deps into a venv with torch $torch_version; import causal_conv1d_cuda works"

# --- publish; plain pip in a second venv ---------------------------------------
FF_TIMEOUT=300 ff publish --to "$TMP/tree" --from-cache causal-conv1d
expect_rc 0 "publish of the built wheel"
page=$TMP/tree/torch-${torch_version}-sm80.html
[[ -f $page ]] || fail "no environment page $(basename "$page"): $(ls "$TMP/tree")"
grep -qF 'causal_conv1d-1.7.0-cp311-cp311-linux_x86_64.whl' "$page" || fail "the sm80 page does not list the wheel"
! grep -qF 'causal_conv1d-1.7.0' "$TMP/tree/torch-${torch_version}.html" ||
  fail "the all-GPU page offers a wheel that holds sm_80 alone"

venv_seeing_torch "$TMP/b"
env -u PIP_FIND_LINKS PIP_CONFIG_FILE=/dev/null timeout 300 "$TMP/b/bin/python" -m pip install \
  --disable-pip-version-check --no-deps --no-index --find-links "$page" causal-conv1d==1.7.0 \
  >"$TMP/pip.log" 2>&1 || { tail -n 20 "$TMP/pip.log" >&2; fail "plain pip cannot install from the published page"; }
"$TMP/b/bin/python" -c 'import torch, causal_conv1d_cuda' || fail "causal_conv1d_cuda does not import in the pip venv"
so_digest() {
  "$1" -c 'import causal_conv1d_cuda, hashlib, pathlib
print(hashlib.sha256(pathlib.Path(causal_conv1d_cuda.__file__).read_bytes()).hexdigest())'
}
[[ $(so_digest "$PY") == "$(so_digest "$TMP/b/bin/python")" ]] ||
  fail "the module plain pip installed differs from the one flashfit installed"
pass_note "published; plain pip installs the same bytes from $(basename "$page") and imports them"
