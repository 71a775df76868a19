#!/usr/bin/env bash
# Network faults (issue 18 item 5): a misbehaving local server
# (tests/fixtures/fault_server.py on 127.0.0.1) drops, stalls, trickles
# (slowloris), truncates, sends wrong Content-Lengths, loops redirects, sends
# 16 MiB of headers and a gzip bomb, to `resolve --index-url` and to the
# download of `cache add`. Each must end within this script's own bound
# (FF_TIMEOUT) with a clear error, a warning, or a resumed download; the peak
# RSS of flashfit (getrusage of the child) stays under 256 MiB; nothing
# half-written is left in the cache.
# shellcheck source=tests/integration/lib.sh
source "$(dirname "$0")/lib.sh"

export FLASHFIT_CONFIG="$TMP/no-config.toml"
printf '# empty\n' >"$FLASHFIT_CONFIG"
L4=(--python "$TEST_PYTHON" --python-version 3.12 --torch 2.9.1+cu128 --cxx11-abi TRUE --gpu 8.9)
RSS_LIMIT_KIB=$((256 * 1024))

ROOT="$TMP/www"
mkdir -p "$ROOT/simple/flash-attn"
WHEEL=demo_pkg-1.0-py3-none-any.whl
"$TEST_PYTHON" - "$ROOT" "$WHEEL" <<'PY'
import os, sys, zipfile
root, name = sys.argv[1:]
with zipfile.ZipFile(os.path.join(root, name), "w", zipfile.ZIP_STORED) as z:
    z.writestr("demo_pkg/__init__.py", "x = 1\n")
    z.writestr("demo_pkg/blob.bin", os.urandom(400_000))
    z.writestr("demo_pkg-1.0.dist-info/METADATA", "Metadata-Version: 2.1\nName: demo-pkg\nVersion: 1.0\n")
PY
printf '<!DOCTYPE html><html><body></body></html>\n' >"$ROOT/simple/flash-attn/index.html"

setsid "$TEST_PYTHON" "$SOURCE_DIR/tests/fixtures/fault_server.py" --root "$ROOT" \
  --port-file "$TMP/fault.port" --log "$TMP/fault.log" >"$TMP/fault.out" 2>&1 &
BACKGROUND_PIDS+=("$!")
disown "$!"
for ((i = 0; i < 200; i++)); do
  [[ -s $TMP/fault.port ]] && break
  sleep 0.1
done
[[ -s $TMP/fault.port ]] || fail "the fault server did not start: $(cat "$TMP/fault.out")"
URL="http://127.0.0.1:$(cat "$TMP/fault.port")"
export no_proxy="127.0.0.1${no_proxy:+,$no_proxy}" NO_PROXY="127.0.0.1${NO_PROXY:+,$NO_PROXY}"

# ff_rss ARGS...: flashfit under capture's timeout; $TMP/rss gets its peak RSS (KiB).
cat >"$TMP/rss.py" <<'PY'
import resource, subprocess, sys
rc = subprocess.call(sys.argv[2:])
with open(sys.argv[1], "w") as f:
    f.write(str(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss))
sys.exit(rc)
PY
ff_rss() { capture "$TEST_PYTHON" "$TMP/rss.py" "$TMP/rss" "$FLASHFIT" "$@"; }
expect_rss_bounded() {
  local kib
  kib=$(cat "$TMP/rss")
  ((kib < RSS_LIMIT_KIB)) || fail "$1: peak RSS ${kib} KiB, over ${RSS_LIMIT_KIB} KiB"
}
cache_clean() {
  local tmp="$FLASHFIT_CACHE_DIR/wheels/tmp"
  [[ ! -d $tmp || -z $(ls -A "$tmp") ]] || fail "$1: cache tmp/ not empty: $(ls -A "$tmp")"
}

# --- the index of resolve: every fault is a warning, upstream still wins ---------
FF_TIMEOUT=150
for fault in ${INDEX_FAULTS:-ok drop stall trickle short long loop bighdr bomb}; do
  ff_rss resolve 'flash-attn==2.8.3' "${L4[@]}" --index-url "$URL/$fault/simple" --json
  expect_rc 0 "index fault '$fault'"
  expect_rss_bounded "index fault '$fault'"
  [[ $(json_field "$TMP/out" 'd["selected"]["source"]') == upstream ]] || fail "$fault: upstream not picked"
  # A Content-Length shorter than the page is the page, as HTTP defines it:
  # a truncated page that names no wheel, no warning.
  if [[ $fault != ok && $fault != long ]]; then
    [[ $(json_field "$TMP/out" 'len(d["warnings"]) > 0') == True ]] || fail "index fault '$fault' gave no warning"
  fi
  pass_note "index fault '$fault': bounded, rss $(cat "$TMP/rss") KiB"
done

# --- catalog update from a GitHub-releases API: an error, no catalog written -----
# (stall and trickle go through the same net::get as the index above.)
mkdir -p "$ROOT/repos/Dao-AILab/flash-attention"
cat >"$ROOT/repos/Dao-AILab/flash-attention/releases" <<JSON
[{"tag_name": "v9.9.9", "assets": [{"name": "flash_attn-9.9.9+cu12torch2.9cxx11abiTRUE-cp312-cp312-linux_x86_64.whl",
  "browser_download_url": "https://github.com/Dao-AILab/flash-attention/releases/download/v9.9.9/x.whl"}]}]
JSON
# The control: the same API served plainly gives a catalog (every page repeats
# the one release, so the update stops at its page bound).
export FLASHFIT_CACHE_DIR="$TMP/cache-catalog-ok"
ff_rss catalog update --package flash-attn --source upstream --api-url "$URL/ok"
expect_rc 0 "catalog update from a plain API"
[[ -n $(find "$FLASHFIT_CACHE_DIR" -path '*catalogs*' -name upstream.tsv) ]] || fail "the control wrote no catalog"
for fault in ${CATALOG_FAULTS:-drop short long loop bighdr bomb}; do
  export FLASHFIT_CACHE_DIR="$TMP/cache-catalog-$fault"
  ff_rss catalog update --package flash-attn --source upstream --api-url "$URL/$fault"
  expect_rc 1 "catalog update fault '$fault'"
  expect_rss_bounded "catalog update fault '$fault'"
  [[ -z $(find "$FLASHFIT_CACHE_DIR" -path '*catalog*' -type f 2>/dev/null) ]] ||
    fail "catalog update fault '$fault' left files: $(find "$FLASHFIT_CACHE_DIR" -path '*catalog*' -type f)"
  pass_note "catalog update fault '$fault': error, nothing written, rss $(cat "$TMP/rss") KiB"
done

# --- the download of cache add ---------------------------------------------------
SHA=$(sha256sum "$ROOT/$WHEEL" | cut -d' ' -f1)
# Faults that a retry or a resume survives (the first request only).
for fault in ${RESUME_FAULTS:-drop-once short-once stall-once trickle-once}; do
  export FLASHFIT_CACHE_DIR="$TMP/cache-$fault"  # a fresh cache: the download happens
  ff_rss cache add "$URL/$fault/$WHEEL" --sha256 "$SHA"
  expect_rc 0 "download fault '$fault' must resume or retry"
  expect_rss_bounded "download fault '$fault'"
  cache_clean "$fault"
  [[ $(grep -c "^${fault%-once} " "$TMP/fault.log") -ge 1 ]] || fail "$fault: the fault was never served"
  pass_note "download fault '$fault': completed, rss $(cat "$TMP/rss") KiB"
done
# Faults with no good answer: a clear error, nothing stored. A redirect loop and
# oversized headers are network errors (1); a gzip bomb (a download asks for no
# encoding, so the bytes stay compressed) and a short Content-Length give bytes
# that are not the wheel: a sha256 mismatch (2).
declare -A WANT_RC=([loop]=1 [bighdr]=1 [bomb]=2 [long]=2)
for fault in ${ERROR_FAULTS:-loop bighdr bomb long}; do
  export FLASHFIT_CACHE_DIR="$TMP/cache-$fault"
  ff_rss cache add -q "$URL/$fault/$WHEEL" --sha256 "$SHA"
  expect_clean_error "${WANT_RC[$fault]}" "download fault '$fault'"
  expect_rss_bounded "download fault '$fault'"
  cache_clean "$fault"
  [[ -z $(find "$FLASHFIT_CACHE_DIR" -name '*.whl') ]] || fail "$fault: a wheel was stored"
  pass_note "download fault '$fault': clean error, rss $(cat "$TMP/rss") KiB"
done
