#!/usr/bin/env bash
# flashfit publish into a directory, served by Debian's nginx on 127.0.0.1
# with its own config and prefix (PEP 691 negotiation: docs/nginx-simple-index.conf),
# installed from by real pip 23 in a venv that sees Debian's torch. The
# fixture (CTest fixture torch_ext_wheels, $FLASHFIT_TORCH_EXT_WHEELS) holds one
# torch extension built twice against Debian's torch (C++11 ABI=1):
#   ffext_abi1  published --for-torch Debian's torch: on its env page, pip
#               installs it through the simple index and through the page, import works;
#   ffext_abi0  the same --for-torch: refused (pre-C++11 ABI), on no page.
# Also: the tree checker (check_published_tree.py, an oracle independent of
# flashfit) passes on every tree and fails on a corrupted one; re-publish is a
# no-op; two concurrent publishes stay consistent; a hostile wheel, a name
# collision and an unwritable target are clear errors that publish nothing.
# shellcheck source=tests/integration/lib.sh
source "$(dirname "$0")/lib.sh"

unset "${!PIP_@}" NO_COLOR PYTHONPATH PYTHONHOME
export PIP_CONFIG_FILE=/dev/null PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_CACHE_DIR=1 PYTHONNOUSERSITE=1
export no_proxy="127.0.0.1${no_proxy:+,$no_proxy}" NO_PROXY="127.0.0.1${NO_PROXY:+,$NO_PROXY}"
CHECK=("$TEST_PYTHON" "$SOURCE_DIR/tests/integration/check_published_tree.py")
NGINX=$(command -v nginx || echo /usr/sbin/nginx)
[[ -x $NGINX ]] || fail "nginx is not installed (nginx-light, scripts/install-deps.sh)"

WHEELS=${FLASHFIT_TORCH_EXT_WHEELS:-}
if [[ -z $WHEELS ]]; then
  WHEELS=$TMP/wheels
  timeout 900 bash "$SOURCE_DIR/tests/fixtures/torch_ext/build_wheels.sh" "$WHEELS" "$TEST_PYTHON" \
    >"$TMP/build.log" 2>&1 || fail "building the fixture wheels failed: $(tail -n 20 "$TMP/build.log")"
fi
one_wheel() {
  local found=()
  shopt -s nullglob
  found=("$WHEELS"/ffext_abi"$1"-*.whl)
  shopt -u nullglob
  ((${#found[@]} == 1)) || fail "expected one ffext_abi$1-*.whl in $WHEELS, found ${#found[@]}"
  printf '%s\n' "${found[0]}"
}
WHEEL1=$(one_wheel 1)
WHEEL0=$(one_wheel 0)
TORCH=$("$TEST_PYTHON" -c 'import torch; print(torch.__version__)') || fail "no torch for $TEST_PYTHON"
TORCH_ABI=$("$TEST_PYTHON" -c 'import torch; print(int(torch._C._GLIBCXX_USE_CXX11_ABI))')
PAGE="torch-$TORCH.html"
[[ $TORCH_ABI == 0 ]] && PAGE="torch-$TORCH-cxx11abi0.html"

# make_wheel OUT NAME VERSION [EVIL_MEMBER]: a small pure wheel, RECORD right.
make_wheel() {
  "$TEST_PYTHON" - "$@" <<'PY'
import base64, hashlib, sys, zipfile
out, name, version = sys.argv[1:4]
evil = sys.argv[4] if len(sys.argv) > 4 and sys.argv[4] else None
meta_version = sys.argv[5] if len(sys.argv) > 5 else version
di = f"{name}-{meta_version}.dist-info"
files = {f"{name}/__init__.py": b"VALUE = 1\n",
         f"{di}/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: {meta_version}\nRequires-Python: >=3.8\n\n".encode(),
         f"{di}/WHEEL": b"Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n"}
if evil:
    files[evil] = b"x"
rec = "".join(f"{p},sha256={base64.urlsafe_b64encode(hashlib.sha256(d).digest()).rstrip(b'=').decode()},{len(d)}\n" for p, d in files.items())
files[f"{di}/RECORD"] = (rec + f"{di}/RECORD,,\n").encode()
with zipfile.ZipFile(f"{out}/{name}-{version}-py3-none-any.whl", "w") as z:
    for p, d in files.items():
        z.writestr(p, d)
PY
}

OUT=$TMP/published
# --- Publish: the ABI=1 wheel placed on Debian's torch, the ABI=0 one refused --
ff publish --to "$OUT" --for-torch "$TORCH" --torch-cxx11-abi "$TORCH_ABI" "$WHEEL1" "$WHEEL0"
expect_rc 1 "publish with one refused wheel"
expect_out_contains "published: $(basename "$WHEEL1")"
expect_out_contains "refused: $(basename "$WHEEL0")"
expect_out_contains "pre-C++11 ABI"
[[ -f $OUT/$PAGE ]] || fail "no env page $PAGE"
grep -qF "ffext_abi1-" "$OUT/$PAGE" || fail "$PAGE does not list ffext_abi1"
! grep -rqF "ffext_abi0" "$OUT" --include='*.html' --include='*.json' || fail "ffext_abi0 appears on a page"
[[ ! -e $OUT/files/$(basename "$WHEEL0") ]] || fail "the refused wheel was uploaded"
capture "${CHECK[@]}" "$OUT"
expect_rc 0 "the tree checker on the published tree"
pass_note "published ffext_abi1 on $PAGE, refused ffext_abi0; the checker agrees"

# --- Re-publish is a no-op; other bytes under the name need --replace ------------
before=$(find "$OUT" -type f -printf '%P %T@\n' | sort)
ff publish --to "file://$OUT" --for-torch "$TORCH" --torch-cxx11-abi "$TORCH_ABI" "$WHEEL1"
expect_rc 0 "re-publish"
expect_out_contains "unchanged: $(basename "$WHEEL1")"
[[ $(find "$OUT" -type f -printf '%P %T@\n' | sort) == "$before" ]] || fail "re-publish wrote files"
mkdir -p "$TMP/collide"
cp "$WHEEL1" "$TMP/collide/"
# Same name, other bytes, still a valid wheel: a zip comment.
"$TEST_PYTHON" -c 'import sys, zipfile
with zipfile.ZipFile(sys.argv[1], "a") as z: z.comment = b"other bytes"' "$TMP/collide/$(basename "$WHEEL1")"
sha_before=$(sha256sum "$OUT/files/$(basename "$WHEEL1")")
ff publish --to "$OUT" "$TMP/collide/$(basename "$WHEEL1")"
expect_rc 1 "a name collision"
expect_out_contains "--replace"
[[ $(sha256sum "$OUT/files/$(basename "$WHEEL1")") == "$sha_before" ]] || fail "the collision overwrote the file"
pass_note "re-publish is a no-op; a collision is refused"

# --- Bad input: hostile wheel, unwritable target, no inputs ---------------------
mkdir -p "$TMP/evil"
make_wheel "$TMP/evil" evilpkg 1.0 "../../escape.py"
ff publish --to "$OUT" "$TMP/evil/evilpkg-1.0-py3-none-any.whl"
expect_rc 1 "a zip-slip wheel"
expect_out_contains "refused: evilpkg-1.0-py3-none-any.whl"
ff publish --to "$TMP/fresh" "$TMP/evil/evilpkg-1.0-py3-none-any.whl"
expect_rc 1 "every input refused, into a new directory"
[[ ! -e $TMP/fresh ]] || fail "a run that published nothing created its target: $(ls -A "$TMP/fresh")"
[[ ! -e $OUT/simple/evilpkg ]] || fail "the hostile wheel got a page"
touch "$TMP/plainfile"
ff publish --to "$TMP/plainfile/sub" "$WHEEL1"
expect_clean_error 1 "an unwritable target"
ff publish --to "$OUT"
expect_clean_error 2 "no inputs"
ff publish --to s3://bucket/x "$WHEEL1"
expect_clean_error 2 "s3 (not implemented)"
ff publish
expect_clean_error 2 "no target"
! grep -qF "publish: publish:" "$TMP/err" || fail "the command's name twice: $(cat "$TMP/err")"
for not_index in "$TMP/no-such-dir" "$TMP/evil" "$TMP/plainfile"; do
  ff publish --list "$not_index"
  expect_clean_error 1 "publish --list $not_index (not a published index)"
  grep -qF "not a published index" "$TMP/err" || fail "--list $not_index: $(cat "$TMP/err")"
done
[[ ! -e $TMP/no-such-dir ]] || fail "publish --list created the directory it was asked about"
ff publish --list "$OUT" --to "$OUT"
expect_clean_error 2 "--list with --to"
ff publish --list "$OUT" "$WHEEL1"
expect_clean_error 2 "--list with wheels"
capture "${CHECK[@]}" "$OUT"
expect_rc 0 "the tree checker after bad input"
pass_note "hostile wheel, unwritable target, no inputs, --list of no index, --list with --to: clear errors, tree intact"

# --- Upstream's trap: a local label in the file name, not in METADATA ----------
mkdir -p "$TMP/up"
UP=upstreamish-2.8.3+cu12torch1.13cxx11abiTRUE-py3-none-any.whl
make_wheel "$TMP/up" upstreamish 2.8.3+cu12torch1.13cxx11abiTRUE "" 2.8.3
ff publish --to "$OUT" "$TMP/up/$UP"
expect_rc 0 "publishing an upstream-style labelled wheel"
[[ -f $OUT/torch-1.13+cu12.html ]] || fail "no page for the label's torch build (torch-1.13+cu12.html)"
"$TEST_PYTHON" - "$OUT/files/$UP" "$TMP/up/$UP" <<'PY' || fail "the rewritten wheel is wrong"
import hashlib, json, sys, zipfile
pub, orig = sys.argv[1:3]
meta = zipfile.ZipFile(pub).read("upstreamish-2.8.3.dist-info/METADATA").decode()
assert "version: 2.8.3+cu12torch1.13cxx11abitrue" in meta.lower(), meta
rec = json.load(open(pub + ".variant.json"))
assert rec["original_sha256"] == hashlib.sha256(open(orig, "rb").read()).hexdigest(), rec
PY
capture "${CHECK[@]}" "$OUT"
expect_rc 0 "the tree checker with the rewritten wheel"
sleep 2  # zip times have a 2-second grain: a rewrite stamping the clock would give other bytes
ff publish --to "$OUT" "$TMP/up/$UP"
expect_rc 0 "publishing the upstream-style wheel again"
expect_out_contains "unchanged: $UP"
pass_note "upstream-style wheel: METADATA rewritten to its file name's version, original sha256 recorded, re-publish a no-op"

# --- A version written two ways: 1.0 in the file name, 1.0.0 in METADATA ----------
mkdir -p "$TMP/zero"
make_wheel "$TMP/zero" zerodemo 1.0 "" 1.0.0
ff publish --to "$OUT" "$TMP/zero/zerodemo-1.0-py3-none-any.whl"
expect_rc 0 "publishing a wheel whose METADATA writes its version 1.0.0 (pip: the same version)"
expect_out_contains "published: zerodemo-1.0-py3-none-any.whl"
# METADATA Name under_score, project under-score: pip 23.0 refuses it through metadata attributes.
make_wheel "$TMP/zero" under_score 1.0
ff publish --to "$OUT" "$TMP/zero/under_score-1.0-py3-none-any.whl"
expect_rc 0 "publishing a wheel whose METADATA Name is not normalised"
! grep -q "core-metadata" "$OUT/simple/under-score/index.html" "$OUT/simple/under-score/index.json" ||
  fail "metadata attributes for a wheel whose METADATA Name is not its normalised name"
grep -q "data-core-metadata" "$OUT/simple/zerodemo/index.html" || fail "no metadata attributes for zerodemo"

# --- The checker can fail: a corrupted copy of the tree -------------------------
cp -a "$OUT" "$TMP/corrupt"
printf 'junk' >>"$TMP/corrupt/files/$(basename "$WHEEL1")"
capture "${CHECK[@]}" "$TMP/corrupt"
expect_rc 1 "the tree checker on a corrupted tree"
expect_out_contains "wrong sha256"

# --- Two publishers at once ------------------------------------------------------
mkdir -p "$TMP/a" "$TMP/b"
for i in 1 2 3; do make_wheel "$TMP/a" "pkga$i" 1.0; make_wheel "$TMP/b" "pkgb$i" 1.0; done
timeout 120 "$FLASHFIT" publish --to "$OUT" "$TMP/a" >"$TMP/pa.out" 2>&1 &
pa=$!
timeout 120 "$FLASHFIT" publish --to "$OUT" "$TMP/b" >"$TMP/pb.out" 2>&1 &
pb=$!
wait "$pa" || fail "concurrent publish A failed: $(cat "$TMP/pa.out")"
wait "$pb" || fail "concurrent publish B failed: $(cat "$TMP/pb.out")"
for i in 1 2 3; do
  grep -qF "pkga$i/" "$OUT/simple/index.html" && grep -qF "pkgb$i/" "$OUT/simple/index.html" ||
    fail "simple/index.html lost a concurrent publisher's project"
done
capture "${CHECK[@]}" "$OUT"
expect_rc 0 "the tree checker after concurrent publishes"
pass_note "two concurrent publishers: both present, tree consistent"

# --- --list ------------------------------------------------------------------------
ff publish --list "$OUT" --json
expect_rc 0 "publish --list --json"
[[ $(json_field "$TMP/out" 'len(d["wheels"])') == 10 ]] || fail "--list does not show 10 wheels"
[[ $(json_field "$TMP/out" "sorted(p['page'] for p in d['env_pages']) == sorted(['torch-1.13+cu12.html', '$PAGE'])") == True ]] ||
  fail "--list env pages: $(json_field "$TMP/out" '[p["page"] for p in d["env_pages"]]')"

# --- nginx serves it; pip installs through the index and through the env page ---
NG=$TMP/nginx
mkdir -p "$NG/logs" "$NG/tmp"
# Started by root, nginx's workers would run as nobody, who cannot read the test's 0700 temp dir.
USER_LINE=""
[[ $(id -u) == 0 ]] && USER_LINE="user root;"
started=0
for attempt in 1 2 3; do
  PORT=$(closed_port)
  cat >"$NG/nginx.conf" <<CONF
daemon off;
$USER_LINE
worker_processes 1;
pid $NG/nginx.pid;
error_log $NG/logs/error.log;
events { worker_connections 64; }
http {
  access_log $NG/logs/access.log;
  client_body_temp_path $NG/tmp/body;
  proxy_temp_path $NG/tmp/proxy;
  fastcgi_temp_path $NG/tmp/fastcgi;
  uwsgi_temp_path $NG/tmp/uwsgi;
  scgi_temp_path $NG/tmp/scgi;
  types { text/html html; application/json json; }
  default_type application/octet-stream;
  server {
    listen 127.0.0.1:$PORT;
    root $OUT;
    include $SOURCE_DIR/docs/nginx-simple-index.conf;
  }
}
CONF
  setsid "$NGINX" -p "$NG" -c "$NG/nginx.conf" >"$NG/out" 2>&1 &
  BACKGROUND_PIDS+=("$!")
  disown "$!"
  for ((i = 0; i < 50; i++)); do
    if "$TEST_PYTHON" -c "import socket,sys; socket.create_connection(('127.0.0.1', $PORT), 0.2)" 2>/dev/null; then
      started=1
      break
    fi
    sleep 0.1
  done
  ((started)) && break
done
((started)) || fail "nginx did not start: $(cat "$NG/out" "$NG/logs/error.log" 2>/dev/null | head -c 800)"
URL="http://127.0.0.1:$PORT"
"$TEST_PYTHON" - "$URL" <<'PY' || fail "PEP 691 negotiation through nginx"
import json, sys, urllib.request
url = sys.argv[1] + "/simple/ffext-abi1/"
req = urllib.request.Request(url, headers={"Accept": "application/vnd.pypi.simple.v1+json"})
with urllib.request.urlopen(req, timeout=10) as r:
    assert r.headers["Content-Type"] == "application/vnd.pypi.simple.v1+json", r.headers["Content-Type"]
    assert json.load(r)["name"] == "ffext-abi1"
with urllib.request.urlopen(url, timeout=10) as r:
    assert r.headers["Content-Type"].startswith("text/html"), r.headers["Content-Type"]
PY

VENV=$TMP/venv
timeout 120 "$TEST_PYTHON" -m venv --system-site-packages "$VENV" || fail "cannot create a venv"
VPY=$VENV/bin/python
capture "$VPY" -m pip install --index-url "$URL/simple/" ffext_abi1
expect_rc 0 "pip install --index-url (the published simple index)"
capture "$VPY" -c 'import torch, ffext_abi1 as m; print(m.scale(torch.ones(2), 3.0).tolist())'
expect_rc 0 "import ffext_abi1 installed through the index"
expect_out_contains "[3.0, 3.0]"
grep -q '"GET /simple/ffext-abi1/ ' "$NG/logs/access.log" || fail "pip did not read the simple index page"
"$VPY" -m pip uninstall -y -q ffext_abi1 >/dev/null 2>&1 || fail "uninstall"
capture "$VPY" -m pip install --no-index --find-links "$URL/$PAGE" ffext_abi1
expect_rc 0 "pip install --find-links the env page"
capture "$VPY" -c 'import torch, ffext_abi1 as m; print(m.cxx11_abi())'
expect_rc 0 "import ffext_abi1 installed through the env page"
capture "$VPY" -m pip install --index-url "$URL/simple/" upstreamish
expect_rc 0 "pip install the rewritten upstream-style wheel through the index"
capture "$VPY" -m pip install --force-reinstall --no-deps --no-index --find-links "$URL/torch-1.13+cu12.html" upstreamish
expect_rc 0 "pip install the rewritten upstream-style wheel through its env page"
capture "$VPY" -m pip install --index-url "$URL/simple/" zerodemo
expect_rc 0 "pip install zerodemo 1.0 (METADATA 1.0.0) through the index"
capture "$VPY" -m pip install --index-url "$URL/simple/" under-score
expect_rc 0 "pip install under-score (METADATA Name under_score) through the index"
capture "$VPY" -m pip install --no-index --find-links "$URL/$PAGE" ffext_abi0
[[ $RC != 0 ]] || fail "ffext_abi0 installed through the env page it must not be on"
pass_note "nginx on 127.0.0.1:$PORT; pip installed ffext_abi1 through the index and $PAGE; imports"
