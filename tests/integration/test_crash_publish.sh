#!/usr/bin/env bash
# Crash consistency of `flashfit publish` into a directory (issue 18): a tree
# already holding a pure wheel and a torch-extension wheel (on its environment
# page) gets two more wheels, and that publish is interrupted at every call
# through which flashfit changes a file (the LD_PRELOAD fault shim
# tests/fixtures/fault/fault_shim.c counts write, rename, unlink, mkdir, fsync,
# creating opens), by SIGKILL, by ENOSPC or by EACCES there. After each
# interruption:
#   - the tree is consistent by the independent checker (every link on every
#     page resolves to a file with that sha256, metadata files match, env
#     pages list only fitting wheels: tests/integration/check_published_tree.py);
#   - nothing published before is lost: the earlier wheels are still listed;
#   - a failure other than SIGKILL is a clean error (exit 1 or 2);
#   - the same publish run again succeeds, and the tree then lists all four
#     wheels and is consistent.
# Prints the number of change points. More than $FAULT_MAX_POINTS (default 40)
# are cut to that many, spread evenly.
# shellcheck source=tests/integration/lib.sh
source "$(dirname "$0")/lib.sh"

MAX_POINTS=${FAULT_MAX_POINTS:-40}
if ! use_fault_shim; then
  skip_note "flashfit is built with AddressSanitizer: the fault shim cannot interpose"
  exit 0
fi
CHECK=("$TEST_PYTHON" "$SOURCE_DIR/tests/integration/check_published_tree.py")

# The wheels: pure ones, and the suite's torch extension built against the test
# python's torch (CTest fixture torch_ext_wheels; built here when run by hand).
WHEELS=$TMP/wheels
mkdir -p "$WHEELS"
"$TEST_PYTHON" "$SOURCE_DIR/tests/fixtures/pure_wheel.py" "$WHEELS" 'ffa==1.0' 'ffb==1.0' 'ffb==2.0' ||
  fail "cannot write the pure wheels"
EXT=${FLASHFIT_TORCH_EXT_WHEELS:-}
if [[ -z $EXT ]]; then
  EXT=$TMP/ext
  timeout 900 bash "$SOURCE_DIR/tests/fixtures/torch_ext/build_wheels.sh" "$EXT" "$TEST_PYTHON" \
    >"$TMP/build.log" 2>&1 || fail "building the fixture wheels failed: $(tail -n 20 "$TMP/build.log")"
fi
shopt -s nullglob
ext_wheels=("$EXT"/ffext_abi1-*.whl)
shopt -u nullglob
((${#ext_wheels[@]} == 1)) || fail "expected one ffext_abi1-*.whl in $EXT"
EXT_WHEEL=${ext_wheels[0]}
TORCH=$("$TEST_PYTHON" -c 'import torch; print(torch.__version__)') || fail "no torch for $TEST_PYTHON"
TORCH_ABI=$("$TEST_PYTHON" -c 'import torch; print(int(torch._C._GLIBCXX_USE_CXX11_ABI))')
PAGE="torch-$TORCH.html"
[[ $TORCH_ABI == 0 ]] && PAGE="torch-$TORCH-cxx11abi0.html"
FOR_TORCH=(--for-torch "$TORCH" --torch-cxx11-abi "$TORCH_ABI")
NEW=("$WHEELS/ffb-1.0-py3-none-any.whl" "$WHEELS/ffb-2.0-py3-none-any.whl")

# The tree before: ffa and the extension.
BASE=$TMP/base
ff publish --to "$BASE" "${FOR_TORCH[@]}" "$WHEELS/ffa-1.0-py3-none-any.whl" "$EXT_WHEEL"
expect_rc 0 "publishing the base tree"
[[ -f $BASE/$PAGE ]] || fail "the base tree has no $PAGE"

# check_tree [--interrupted] DIR WHAT WANT...: consistent (after an
# interrupted publish a wheel may be uploaded but not listed yet), and each
# WANT file listed on the simple pages.
check_tree() {
  local mode=()
  if [[ $1 == --interrupted ]]; then
    mode=(--interrupted)
    shift
  fi
  local dir=$1 what=$2 want
  shift 2
  capture "${CHECK[@]}" "${mode[@]}" "$dir"
  [[ $RC == 0 ]] || fail "$what: the tree is inconsistent: $(head -n 5 "$TMP/out")"
  for want in "$@"; do
    grep -rqF -- "$want" "$dir/simple" --include=index.html || fail "$what: $want is no longer listed"
  done
  grep -qF -- "$(basename "$EXT_WHEEL")" "$dir/$PAGE" || fail "$what: $PAGE lost the extension wheel"
}
check_tree "$BASE" "base tree" ffa-1.0-py3-none-any.whl "$(basename "$EXT_WHEEL")"

# The checker itself: a page naming a file that is not there is caught.
rm -rf "$TMP/t" && cp -a "$BASE" "$TMP/t"
rm "$TMP/t/files/ffa-1.0-py3-none-any.whl"
if (check_tree "$TMP/t" "self-test" ffa-1.0-py3-none-any.whl) 2>/dev/null; then
  fail "check_tree misses a page that names a missing file"
fi

# failed_cleanly WHAT: exit 1 or 2 with a "flashfit: " error line on stderr
# (after publish's progress lines), no escaped exception or assertion.
failed_cleanly() {
  [[ $RC == 1 || $RC == 2 ]] || fail "$1: exit $RC, not 1 or 2"
  grep -q '^flashfit: ' "$TMP/err" || fail "$1: no 'flashfit: ' error on stderr: $(tail -n 3 "$TMP/err")"
  local bad
  for bad in 'what()' 'terminate called' 'internal error' 'Assertion'; do
    ! grep -qF -- "$bad" "$TMP/err" || fail "$1: stderr contains '$bad'"
  done
}

# publish_faulted MODE N: the publish of the two ffb wheels into $TMP/t under the shim.
publish_faulted() {
  faulted "$1" "$2" "$FLASHFIT" publish --to "$TMP/t" "${FOR_TORCH[@]}" "${NEW[@]}"
}

rm -rf "$TMP/t" && cp -a "$BASE" "$TMP/t"
publish_faulted count 0
expect_rc 0 "publish under the shim"
total=$(cat "$TMP/count")
((total > 0)) || fail "the shim saw no file change in publish"
OLD_FILES=(ffa-1.0-py3-none-any.whl "$(basename "$EXT_WHEEL")")
ALL_FILES=("${OLD_FILES[@]}" ffb-1.0-py3-none-any.whl ffb-2.0-py3-none-any.whl)
tested=0
failed=0
for n in $(fault_points "$total" "$MAX_POINTS"); do
  for mode in kill enospc eacces; do
    rm -rf "$TMP/t" && cp -a "$BASE" "$TMP/t"
    publish_faulted "$mode" "$n"
    if [[ $mode == kill ]]; then
      [[ $RC == 137 ]] || fail "publish: not killed at call $n of $total (exit $RC)"
    elif [[ $RC != 0 ]]; then
      failed_cleanly "publish with $mode from call $n"
      failed=$((failed + 1))
    fi
    check_tree --interrupted "$TMP/t" "publish, $mode at call $n of $total" "${OLD_FILES[@]}"
    capture "$FLASHFIT" publish --to "$TMP/t" "${FOR_TORCH[@]}" "${NEW[@]}"
    expect_rc 0 "publish again after $mode at call $n"
    check_tree "$TMP/t" "publish again after $mode at call $n" "${ALL_FILES[@]}"
    tested=$((tested + 1))
  done
done
((failed > 0)) || fail "no ENOSPC or EACCES made publish fail: those checks cannot fail"
pass_note "publish into a directory: $total change points, $tested faults (SIGKILL, ENOSPC, EACCES; $failed clean errors), 0 violations"
