#!/usr/bin/env bash
# Crash consistency (issue 18): `cache add` (a local wheel and a download),
# `catalog update` and a disk that fills up or turns read-only, each interrupted at every call
# through which flashfit changes a file (write, rename, unlink, mkdir, fsync,
# creating opens; counted by the LD_PRELOAD shim tests/fixtures/fault/
# fault_shim.c), by SIGKILL, by ENOSPC or by EACCES there. After each interruption the
# cache must read cleanly (`cache list --json`), hold only whole entries (a
# wheel whose sha256 is its name, beside its entry.json), the refreshed
# catalog must be the old file or the new one byte for byte, and the same
# command run again must succeed (locks released, downloads resumed).
# Prints the number of points per command. Commands with more points than
# $FAULT_MAX_POINTS (default 40) are cut at that many points spread evenly.
# shellcheck source=tests/integration/lib.sh
source "$(dirname "$0")/lib.sh"

MAX_POINTS=${FAULT_MAX_POINTS:-40}
if ! use_fault_shim; then
  skip_note "flashfit is built with AddressSanitizer: the fault shim cannot interpose"
  exit 0
fi

WHEELS="$TMP/wheels"
mkdir -p "$WHEELS"
OLD=demo_pkg-1.0-py3-none-any.whl
NEW=demo_pkg-2.0-py3-none-any.whl
BIG=big_pkg-1.0-py3-none-any.whl
"$TEST_PYTHON" - "$WHEELS" "$OLD" "$NEW" "$BIG" <<'PY'
import os, sys, zipfile
root, old, new, big = sys.argv[1:]
for name in (old, new):
    with zipfile.ZipFile(os.path.join(root, name), "w") as z:
        z.writestr("demo_pkg/__init__.py", "x = %r\n" % name)
with zipfile.ZipFile(os.path.join(root, big), "w", zipfile.ZIP_STORED) as z:
    z.writestr("big_pkg/blob.bin", os.urandom(2_000_000))
PY
sha_of() { sha256sum "$1" | cut -d' ' -f1; }

# check_cache DIR WHAT ALLOWED...: the cache reads cleanly and every entry is
# whole and one of the ALLOWED wheels (by sha256).
check_cache() {
  local dir=$1 what=$2
  shift 2
  FLASHFIT_CACHE_DIR=$dir capture "$FLASHFIT" cache list --json
  expect_rc 0 "$what: cache list after the fault"
  "$TEST_PYTHON" - "$TMP/out" "$dir/wheels" "$@" <<'PY' || fail "$what: $(cat "$TMP/why")"
import hashlib, json, os, sys
out, root, allowed = sys.argv[1], sys.argv[2], set(sys.argv[3:])
why = open(os.path.join(os.path.dirname(out), "why"), "w")
def bad(text):
    why.write(text)
    sys.exit(1)
for e in json.load(open(out))["entries"]:
    if e["sha256"] not in allowed:
        bad("an unexpected entry %s" % e["sha256"])
    data = open(e["path"], "rb").read()
    if hashlib.sha256(data).hexdigest() != e["sha256"]:
        bad("a listed entry is not whole: %s" % e["path"])
# Nothing half-made in sight: every <sha[0:2]>/<sha> directory is a whole entry.
if os.path.isdir(root):
    for two in os.listdir(root):
        if len(two) != 2:
            continue
        for sha in os.listdir(os.path.join(root, two)):
            d = os.path.join(root, two, sha)
            files = set(os.listdir(d))
            wheels = [f for f in files if f.endswith(".whl")]
            if "entry.json" not in files or len(wheels) != 1:
                bad("a partial entry is visible: %s holds %s" % (d, sorted(files)))
            if hashlib.sha256(open(os.path.join(d, wheels[0]), "rb").read()).hexdigest() != sha:
                bad("a visible wheel is not whole: %s" % d)
PY
}

report=()

# --- cache add of a local file, into a cache that holds another entry -------------
BASE="$TMP/base-local"
FLASHFIT_CACHE_DIR=$BASE capture "$FLASHFIT" cache add "$WHEELS/$OLD"
expect_rc 0 "seeding the cache"
OLD_SHA=$(sha_of "$WHEELS/$OLD")
NEW_SHA=$(sha_of "$WHEELS/$NEW")
# The checker itself: a hand-made half entry (a wheel without its entry.json) is caught.
rm -rf "$TMP/c" && cp -a "$BASE" "$TMP/c"
mkdir -p "$TMP/c/wheels/${NEW_SHA:0:2}/$NEW_SHA"
cp "$WHEELS/$NEW" "$TMP/c/wheels/${NEW_SHA:0:2}/$NEW_SHA/"
if (check_cache "$TMP/c" "self-test" "$OLD_SHA" "$NEW_SHA") 2>/dev/null; then
  fail "check_cache misses a partial entry"
fi
rm -rf "$TMP/c" && cp -a "$BASE" "$TMP/c"
FLASHFIT_CACHE_DIR=$TMP/c faulted count 0 "$FLASHFIT" cache add "$WHEELS/$NEW"
expect_rc 0 "cache add under the shim"
total=$(cat "$TMP/count")
((total > 0)) || fail "the shim saw no file change in cache add"
tested=0
eacces_failed=0
for n in $(fault_points "$total" "$MAX_POINTS"); do
  for mode in kill enospc eacces; do
    rm -rf "$TMP/c" && cp -a "$BASE" "$TMP/c"
    FLASHFIT_CACHE_DIR=$TMP/c faulted "$mode" "$n" "$FLASHFIT" cache add "$WHEELS/$NEW"
    if [[ $mode == kill ]]; then
      [[ $RC == 137 ]] || fail "cache add: not killed at call $n of $total (exit $RC)"
    elif [[ $RC != 0 ]]; then  # (a write it could do without, e.g. a tag file, may fail silently)
      expect_clean_error "$RC" "cache add with $mode from call $n"
      if [[ $mode == eacces ]]; then
        expect_err_contains "Permission denied"
        eacces_failed=$((eacces_failed + 1))
      fi
    fi
    check_cache "$TMP/c" "cache add, $mode at call $n" "$OLD_SHA" "$NEW_SHA"
    FLASHFIT_CACHE_DIR=$TMP/c capture "$FLASHFIT" cache add "$WHEELS/$NEW"
    expect_rc 0 "cache add again after $mode at call $n"
    check_cache "$TMP/c" "cache add again after $mode at call $n" "$OLD_SHA" "$NEW_SHA"
    [[ $(FLASHFIT_CACHE_DIR=$TMP/c "$FLASHFIT" cache list --json | "$TEST_PYTHON" -c 'import json,sys; print(len(json.load(sys.stdin)["entries"]))') == 2 ]] ||
      fail "cache add again after $mode at call $n: not both entries"
    tested=$((tested + 1))
  done
done
((eacces_failed > 0)) || fail "cache add: no EACCES made it fail: the EACCES check cannot fail"
report+=("cache add (file): $total change points, $tested faults (SIGKILL, ENOSPC, EACCES), 0 violations")
pass_note "${report[-1]}"

# --- cache add of a URL: a download killed anywhere resumes -----------------------
start_http_server "$WHEELS"
BIG_SHA=$(sha_of "$WHEELS/$BIG")
rm -rf "$TMP/c" && mkdir -p "$TMP/c"
FLASHFIT_CACHE_DIR=$TMP/c faulted count 0 "$FLASHFIT" cache add "$HTTP_URL/$BIG" --sha256 "$BIG_SHA"
expect_rc 0 "cache add URL under the shim"
total=$(cat "$TMP/count")
tested=0
killed=0
for n in $(fault_points "$total" "$MAX_POINTS"); do
  rm -rf "$TMP/c" && mkdir -p "$TMP/c"
  FLASHFIT_CACHE_DIR=$TMP/c faulted kill "$n" "$FLASHFIT" cache add "$HTTP_URL/$BIG" --sha256 "$BIG_SHA"
  # A download's write count varies with how the bytes arrive: the last points
  # may lie past the end of a run, which then simply completes.
  [[ $RC == 137 || $RC == 0 ]] || fail "cache add URL: exit $RC with a kill at call $n of $total"
  [[ $RC == 137 ]] && killed=$((killed + 1))
  check_cache "$TMP/c" "cache add URL, kill at call $n" "$BIG_SHA"
  FLASHFIT_CACHE_DIR=$TMP/c capture "$FLASHFIT" cache add "$HTTP_URL/$BIG" --sha256 "$BIG_SHA"
  expect_rc 0 "cache add URL again after a kill at call $n"
  check_cache "$TMP/c" "cache add URL again after a kill at call $n" "$BIG_SHA"
  tested=$((tested + 1))
done
((killed * 2 > tested)) || fail "cache add URL: only $killed of $tested runs were killed"
report+=("cache add (download): about $total change points, $tested SIGKILLs ($killed mid-run), 0 violations")
pass_note "${report[-1]}"

# --- catalog update: the old catalog or the new one, never a mix ------------------
HASH=$(printf 'x' | sha256sum | cut -d' ' -f1)
mkdir -p "$TMP/api"
api_page() {  # api_page FILE VERSION
  local wheel="flash_attn-$2+cu12torch2.9cxx11abiTRUE-cp312-cp312-linux_x86_64.whl"
  cat >"$1" <<JSON
[{"tag_name": "v$2", "assets": [
   {"name": "$wheel", "digest": "sha256:$HASH",
    "browser_download_url": "https://github.com/Dao-AILab/flash-attention/releases/download/v$2/${wheel/+/%2B}"}]}]
JSON
}
api_page "$TMP/api/old.json" 9.9.8
api_page "$TMP/api/new.json" 9.9.9
routes() {  # routes PAGE_FILE
  cat <<JSON
{"/repos/Dao-AILab/flash-attention/releases?per_page=100&page=1": {"body_file": "$1", "content_type": "application/json"},
 "/repos/Dao-AILab/flash-attention/releases?per_page=100&page=2": {"body": "[]", "content_type": "application/json"}}
JSON
}
routes old.json >"$TMP/old-routes.json"
routes new.json >"$TMP/new-routes.json"
BASE="$TMP/base-catalog"
start_http_server "$TMP/api" "$TMP/old-routes.json"
FLASHFIT_CACHE_DIR=$BASE capture "$FLASHFIT" catalog update --package flash-attn --source upstream --api-url "$HTTP_URL"
expect_rc 0 "the first catalog update"
catalog=$(cd "$BASE" && find . -path '*catalogs*' -name upstream.tsv)
[[ -n $catalog ]] || fail "no catalog file after an update"
cp "$BASE/$catalog" "$TMP/catalog-old"
start_http_server "$TMP/api" "$TMP/new-routes.json"
rm -rf "$TMP/c" && cp -a "$BASE" "$TMP/c"
FLASHFIT_CACHE_DIR=$TMP/c faulted count 0 "$FLASHFIT" catalog update --package flash-attn --source upstream --api-url "$HTTP_URL"
expect_rc 0 "catalog update under the shim"
total=$(cat "$TMP/count")
grep -qF 9.9.9 "$TMP/c/$catalog" || fail "the second update did not write the new catalog"
tested=0
eacces_failed=0
for n in $(fault_points "$total" "$MAX_POINTS"); do
  for mode in kill enospc eacces; do
    rm -rf "$TMP/c" && cp -a "$BASE" "$TMP/c"
    FLASHFIT_CACHE_DIR=$TMP/c faulted "$mode" "$n" "$FLASHFIT" catalog update --package flash-attn --source upstream --api-url "$HTTP_URL"
    if [[ $mode == kill ]]; then
      [[ $RC == 137 ]] || fail "catalog update: not killed at call $n of $total (exit $RC)"
    elif [[ $RC != 0 ]]; then
      # (catalog update reports each source on stdout, its error included)
      local_text='No space left on device'
      [[ $mode == eacces ]] && local_text='Permission denied' && eacces_failed=$((eacces_failed + 1))
      grep -qF "$local_text" "$TMP/out" "$TMP/err" ||
        fail "catalog update with $mode from call $n: the error does not say '$local_text'"
    fi
    # Old or new, byte for byte (the new one differs only in its time stamp and version).
    if ! cmp -s "$TMP/c/$catalog" "$TMP/catalog-old"; then
      FLASHFIT_CACHE_DIR=$TMP/c capture "$FLASHFIT" catalog list --json
      expect_rc 0 "catalog list after $mode at call $n"
      grep -q 'v9.9.9' "$TMP/c/$catalog" && ! grep -q 'v9.9.8' "$TMP/c/$catalog" ||
        fail "catalog update, $mode at call $n: the catalog file is neither the old nor the new one"
    fi
    FLASHFIT_CACHE_DIR=$TMP/c capture "$FLASHFIT" catalog update --package flash-attn --source upstream --api-url "$HTTP_URL"
    expect_rc 0 "catalog update again after $mode at call $n"
    grep -q 'v9.9.9' "$TMP/c/$catalog" || fail "catalog update again after $mode at call $n: not the new catalog"
    tested=$((tested + 1))
  done
done
((eacces_failed > 0)) || fail "catalog update: no EACCES made it fail"
report+=("catalog update: $total change points, $tested faults (SIGKILL, ENOSPC, EACCES), 0 violations")
pass_note "${report[-1]}"

printf '%s\n' "${report[@]}"
