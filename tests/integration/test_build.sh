#!/usr/bin/env bash
# flashfit build, end to end and offline, with a real torch C++ extension
# built like flash-attn (tests/fixtures/build_pkg: setup.py + BuildExtension +
# ninja, several C++ units, recording the build environment it saw) against
# Debian's torch:
# - `flashfit build ffbuild==1.0.0` fetches the sdist from a local index
#   (sha256 checked), plans, preflights, builds under the supervisor with
#   progress, and the wheel (cp311-cp311-linux_x86_64, never py3-none-any)
#   inspects compatible and lands in the cache with its variant key;
# - `flashfit install ffbuild` then takes it from the cache (no index, no
#   build) and the import works;
# - `flashfit install ffbuild==1.1.0` with only an sdist on the index hands
#   over to the same build code and installs the result.
# shellcheck source=tests/integration/lib.sh
source "$(dirname "$0")/lib.sh"
# shellcheck source=tests/integration/build_lib.sh
source "$(dirname "$0")/build_lib.sh"
FF_TIMEOUT=280  # a real compile of torch's headers on a busy 2-core machine

make_sdist_index "$TMP/www" 1.0.0 1.1.0
# 1.1.0 is offered only to the hand-over part, below.
start_http_server "$TMP/www"
new_venv

# --- flashfit build from an index -----------------------------------------
ff build 'ffbuild==1.0.0' --python "$PY" --index-url "$HTTP_URL/simple" --json --publish "$TMP/published"
expect_rc 0 "build ffbuild 1.0.0"
[[ $(json_field "$TMP/out" 'd["stage"]') == done ]] || fail "the build did not finish"
[[ $(json_field "$TMP/out" 'd["source"]["kind"]') == requirement ]] || fail "not built from the index's sdist"
[[ $(json_field "$TMP/out" 'd["source"]["sha256"] is not None') == True ]] || fail "no sha256 of the sdist"
WHEEL=$(json_field "$TMP/out" 'd["wheel"]["path"]')
[[ $(basename "$WHEEL") == ffbuild-1.0.0-cp311-cp311-linux_x86_64.whl ]] || fail "wrong wheel tags: $WHEEL"
[[ -f $WHEEL ]] || fail "the wheel is not in the cache"
[[ $(json_field "$TMP/out" 'd["wheel"]["inspect"]["compatible"]') == True ]] || fail "the built wheel does not inspect compatible"
[[ $(json_field "$TMP/out" 'd["wheel"]["key"]["torch"]') == 1.13* ]] || fail "the cache key lacks torch"
[[ $(json_field "$TMP/out" 'd["wheel"]["key"]["cuda"]') == cpu ]] || fail "the cache key lacks the CPU build"
[[ $(json_field "$TMP/out" 'd["wheel"]["key"]["cxx11_abi"]') == True ]] || fail "the cache key lacks the C++11 ABI"
[[ $(json_field "$TMP/out" 'd["wheel"]["key"]["python"]') == cp311 ]] || fail "the cache key lacks Python"
[[ $(json_field "$TMP/out" 'd["plan"]["cuda"]') == False ]] || fail "a C++-only extension planned as a CUDA build"
# The plan's numbers reached the build: MAX_JOBS as planned, ninja used.
JOBS=$(json_field "$TMP/out" 'd["plan"]["jobs"]')
unzip -p "$WHEEL" ffbuild/_build_env.json >"$TMP/seen.json" || fail "no _build_env.json in the wheel"
[[ $(json_field "$TMP/seen.json" 'd["MAX_JOBS"]') == "$JOBS" ]] || fail "the build did not see MAX_JOBS=$JOBS"
[[ $(json_field "$TMP/seen.json" 'd["ninja"]') == True ]] || fail "the build did not use ninja"
# Progress on stderr (plain lines, not a TTY), the full log in the cache dir.
grep -q '4/4 compiled' "$TMP/err" || fail "no build progress on stderr"
LOG=$(json_field "$TMP/out" 'd["log"]')
grep -q '\[4/4\]' "$LOG" || fail "the log lacks ninja's lines"
grep -q 'running bdist_wheel' "$LOG" || fail "the log lacks setup.py's output"
compgen -G "$FLASHFIT_CACHE_DIR/tmp/build-*" >/dev/null && fail "the temp dir was not removed"
pass_note "built from the index's sdist: cp311 wheel, inspected, cached with its key, progress and log"
# --publish: the built wheel published with its build record as the variant facts, on its torch's page.
RECORD="$TMP/published/files/$(basename "$WHEEL").variant.json"
[[ $(json_field "$RECORD" 'd["source"]') == build ]] || fail "build --publish: the record does not say source=build"
TORCH_VERSION=$("$PY" -c 'import torch; print(torch.__version__.split("+")[0])')
grep -qF "$(basename "$WHEEL")" "$TMP/published/torch-$TORCH_VERSION.html" ||
  fail "build --publish: the wheel is not on torch-$TORCH_VERSION.html"
[[ $(json_field "$TMP/out" 'd["publish"]["ok"], d["publish"]["target"]') == "(True, '$TMP/published')" ]] ||
  fail "build --json does not say the wheel was published: $(json_field "$TMP/out" 'd["publish"]')"
pass_note "build --publish put the wheel, its build record and its torch page in $TMP/published"
# A target that cannot take it is refused before anything is built.
ff build 'ffbuild==1.0.0' --python "$PY" --index-url "$HTTP_URL/simple" --publish ftp://nowhere
expect_rc 2 "build --publish ftp://"
expect_err_contains "--publish: ftp://nowhere: unsupported target scheme"
grep -q "getting the source" "$TMP/err" && fail "build --publish ftp:// started the build before refusing the target"
pass_note "build --publish with a target it cannot publish to: refused before the build"

# --- the next install takes it from the cache --------------------------------
ff install ffbuild --python "$PY" --json
expect_rc 0 "install the built wheel"
[[ $(json_field "$TMP/out" 'd["installed"]["source"]') == cache ]] || fail "not installed from the cache"
[[ $(json_field "$TMP/out" 'd["build"]') == None ]] || fail "install built again"
"$PY" -c 'import ffbuild; assert ffbuild.add(1, 2) == 3; assert ffbuild.build_env()["ninja"]' ||
  fail "the installed build does not work"
ff resolve ffbuild --python "$PY" --torch 2.1.0 --json
expect_rc 1 "another torch"
json_field "$TMP/out" '[r["code"] for c in d["candidates"] for r in c["reasons"]]' | grep -q torch ||
  fail "the cached build was not rejected for another torch"
pass_note "install takes the build from the cache; another torch does not"

# --- install hands over to the build when no wheel exists ---------------------
ff install 'ffbuild==1.1.0' --python "$PY" --index-url "$HTTP_URL/simple" --json
expect_rc 0 "install 1.1.0 through a source build"
[[ $(json_field "$TMP/out" 'd["build"]["ok"]') == True ]] || fail "install did not build"
[[ $(json_field "$TMP/out" 'd["installed"]["filename"]') == ffbuild-1.1.0-cp311-cp311-linux_x86_64.whl ]] ||
  fail "the built 1.1.0 was not installed"
"$PY" -c 'import ffbuild, importlib.metadata as m; assert m.version("ffbuild") == "1.1.0"; assert ffbuild.add(2, 2) == 4' ||
  fail "1.1.0 does not import"
pass_note "install hands over to the build and installs what it built"
