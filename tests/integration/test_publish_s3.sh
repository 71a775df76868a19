#!/usr/bin/env bash
# flashfit publish --to s3://BUCKET/PREFIX against a real S3-compatible server:
# s3rver (npm, pinned in scripts/npm/s3rver.sh, installed in .npmdeps/) on
# 127.0.0.1, its bucket configured for website serving, so real pip (23, in a
# venv that sees Debian's torch) reads the published pages over HTTP. The
# fixture torch_ext_wheels' ffext_abi1 (built against Debian's torch) is
# published --for-torch that torch; pip installs it through the simple index
# and through the env page, and the import works. Two publishers at once
# converge (each one's wheels on the pages). Bad input: unknown credentials (403),
# a refused connection, no credentials: clear errors, nothing published.
# shellcheck source=tests/integration/lib.sh
source "$(dirname "$0")/lib.sh"

unset "${!PIP_@}" "${!AWS_@}" NO_COLOR PYTHONPATH PYTHONHOME
export PIP_CONFIG_FILE=/dev/null PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_CACHE_DIR=1 PYTHONNOUSERSITE=1
export no_proxy="127.0.0.1${no_proxy:+,$no_proxy}" NO_PROXY="127.0.0.1${NO_PROXY:+,$NO_PROXY}"
S3RVER=$SOURCE_DIR/.npmdeps/node_modules/.bin/s3rver
[[ -x $S3RVER ]] || fail "s3rver is not installed: run scripts/npm/s3rver.sh (scripts/install-deps.sh does)"

WHEELS=${FLASHFIT_TORCH_EXT_WHEELS:-}
if [[ -z $WHEELS ]]; then
  WHEELS=$TMP/wheels
  timeout 900 bash "$SOURCE_DIR/tests/fixtures/torch_ext/build_wheels.sh" "$WHEELS" "$TEST_PYTHON" \
    >"$TMP/build.log" 2>&1 || fail "building the fixture wheels failed: $(tail -n 20 "$TMP/build.log")"
fi
shopt -s nullglob
found=("$WHEELS"/ffext_abi1-*.whl)
shopt -u nullglob
((${#found[@]} == 1)) || fail "expected one ffext_abi1-*.whl in $WHEELS, found ${#found[@]}"
WHEEL1=${found[0]}
TORCH=$("$TEST_PYTHON" -c 'import torch; print(torch.__version__)') || fail "no torch for $TEST_PYTHON"
TORCH_ABI=$("$TEST_PYTHON" -c 'import torch; print(int(torch._C._GLIBCXX_USE_CXX11_ABI))')
PAGE="torch-$TORCH.html"
[[ $TORCH_ABI == 0 ]] && PAGE="torch-$TORCH-cxx11abi0.html"

# pure_wheel NAME: a small pure wheel in $TMP/pure, RECORD right.
mkdir -p "$TMP/pure"
pure_wheel() {
  "$TEST_PYTHON" - "$TMP/pure" "$1" <<'PY'
import base64, hashlib, sys, zipfile
out, name = sys.argv[1:3]
di = f"{name}-1.0.dist-info"
files = {f"{name}/__init__.py": b"VALUE = 1\n",
         f"{di}/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n\n".encode(),
         f"{di}/WHEEL": b"Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n"}
rec = "".join(f"{p},sha256={base64.urlsafe_b64encode(hashlib.sha256(d).digest()).rstrip(b'=').decode()},{len(d)}\n" for p, d in files.items())
files[f"{di}/RECORD"] = (rec + f"{di}/RECORD,,\n").encode()
with zipfile.ZipFile(f"{out}/{name}-1.0-py3-none-any.whl", "w") as z:
    for p, d in files.items():
        z.writestr(p, d)
PY
}

# --- s3rver on a free port, bucket "wheels" served as a website ---
S3=$TMP/s3rver
mkdir -p "$S3/data"
cat >"$S3/website.xml" <<'XML'
<WebsiteConfiguration xmlns="http://s3.amazonaws.com/doc/2006-03-01/">
  <IndexDocument><Suffix>index.html</Suffix></IndexDocument>
</WebsiteConfiguration>
XML
setsid "$S3RVER" -d "$S3/data" -a 127.0.0.1 -p 0 --configure-bucket wheels "$S3/website.xml" \
  >"$S3/out" 2>&1 &
BACKGROUND_PIDS+=("$!")
disown "$!"
PORT=""
for ((i = 0; i < 100; i++)); do
  PORT=$(sed -n 's/.*listening on 127\.0\.0\.1:\([0-9]*\).*/\1/p' "$S3/out" | head -n 1)
  [[ -n $PORT ]] && break
  sleep 0.1
done
[[ -n $PORT ]] || fail "s3rver did not start: $(head -c 800 "$S3/out")"
ENDPOINT="http://127.0.0.1:$PORT"
URL="$ENDPOINT/wheels/team"
# s3rver's built-in credentials.
export AWS_ACCESS_KEY_ID=S3RVER AWS_SECRET_ACCESS_KEY=S3RVER AWS_REGION=us-east-1

# --- Bad input first: nothing may be published by them ---
pure_wheel badcase
AWS_ACCESS_KEY_ID= AWS_SECRET_ACCESS_KEY= ff publish --to s3://wheels/team --endpoint-url "$ENDPOINT" "$TMP/pure/badcase-1.0-py3-none-any.whl"
expect_clean_error 2 "publish to s3:// without credentials"
expect_err_contains "AWS_ACCESS_KEY_ID"
# (s3rver checks the access key id but not the SigV4 signature itself, so the
# 403 is provoked with an unknown key id; a wrong secret passes on s3rver.)
AWS_ACCESS_KEY_ID=NOSUCHKEY ff publish --to s3://wheels/team --endpoint-url "$ENDPOINT" "$TMP/pure/badcase-1.0-py3-none-any.whl"
expect_clean_error 1 "publish to s3:// with unknown credentials"
expect_err_contains "403"
ff publish --to s3://wheels/team --endpoint-url "http://127.0.0.1:$(closed_port)" "$TMP/pure/badcase-1.0-py3-none-any.whl"
expect_clean_error 1 "publish to s3:// on a refused connection"
expect_err_contains "cannot reach the S3 endpoint"
ff publish --to s3://nosuchbucket/team --endpoint-url "$ENDPOINT" "$TMP/pure/badcase-1.0-py3-none-any.whl"
expect_clean_error 1 "publish to a bucket that does not exist"
expect_err_contains "no such S3 bucket"
ff publish --list s3://wheels/team --endpoint-url "$ENDPOINT" --json
expect_rc 0 "--list an empty s3 prefix"
[[ $(json_field "$TMP/out" 'len(d["wheels"])') == 0 ]] || fail "a failed publish left wheels behind"
pass_note "no credentials (exit 2), 403, refused connection, no bucket: clear errors, nothing published"

# --- Publish the torch extension; pip installs it over HTTP ---
ff publish --to s3://wheels/team --endpoint-url "$ENDPOINT" --for-torch "$TORCH" --torch-cxx11-abi "$TORCH_ABI" "$WHEEL1"
expect_rc 0 "publish ffext_abi1 to s3://"
expect_out_contains "published: $(basename "$WHEEL1")"
AWS_ENDPOINT_URL=$ENDPOINT ff publish --to s3://wheels/team --for-torch "$TORCH" --torch-cxx11-abi "$TORCH_ABI" "$WHEEL1"
expect_rc 0 "re-publish (AWS_ENDPOINT_URL) is a no-op"
expect_out_contains "unchanged"
ff publish --list s3://wheels/team --endpoint-url "$ENDPOINT" --json
expect_rc 0 "--list s3://"
[[ $(json_field "$TMP/out" '[p["page"] for p in d["env_pages"] if any("ffext_abi1" in w for w in p["wheels"])]') == *"$PAGE"* ]] ||
  fail "--list: ffext_abi1 is not on $PAGE: $(cat "$TMP/out")"

VENV=$TMP/venv
timeout 120 "$TEST_PYTHON" -m venv --system-site-packages "$VENV" || fail "cannot create a venv"
VPY=$VENV/bin/python
# (The normalized name: Debian's pip 23.0.1 compares the requested name with
# PEP 658 metadata unnormalized, pip issue 11847.)
capture "$VPY" -m pip install --index-url "$URL/simple/" ffext-abi1
expect_rc 0 "pip install --index-url (the simple index on s3rver)"
capture "$VPY" -c 'import torch, ffext_abi1 as m; print(m.scale(torch.ones(2), 3.0).tolist())'
expect_rc 0 "import ffext_abi1 installed through the s3 index"
expect_out_contains "[3.0, 3.0]"
"$VPY" -m pip uninstall -y -q ffext_abi1 >/dev/null 2>&1 || fail "uninstall"
capture "$VPY" -m pip install --no-index --find-links "$URL/$PAGE" ffext-abi1
expect_rc 0 "pip install --find-links the env page on s3rver"
capture "$VPY" -c 'import torch, ffext_abi1 as m; print(m.scale(torch.ones(2), 2.0).tolist())'
expect_rc 0 "import ffext_abi1 installed through the s3 env page"
expect_out_contains "[2.0, 2.0]"
pass_note "s3rver on 127.0.0.1:$PORT; pip installed ffext_abi1 through the index and $PAGE; imports"

# --- Two publishers at once converge: both wheels on the pages ---
pure_wheel alpha
pure_wheel beta
"$FLASHFIT" publish --to s3://wheels/team --endpoint-url "$ENDPOINT" "$TMP/pure/alpha-1.0-py3-none-any.whl" >"$TMP/a.out" 2>&1 &
pa=$!
"$FLASHFIT" publish --to s3://wheels/team --endpoint-url "$ENDPOINT" "$TMP/pure/beta-1.0-py3-none-any.whl" >"$TMP/b.out" 2>&1 &
pb=$!
wait "$pa" || fail "publisher alpha failed: $(cat "$TMP/a.out")"
wait "$pb" || fail "publisher beta failed: $(cat "$TMP/b.out")"
"$TEST_PYTHON" - "$URL" <<'PY' || fail "after two publishers the index does not name every wheel"
import hashlib, re, sys, urllib.request
base = sys.argv[1]
root = urllib.request.urlopen(base + "/simple/", timeout=10).read().decode()
for name in ("alpha", "beta", "ffext-abi1"):
    assert f'href="{name}/"' in root, (name, root)
    page = urllib.request.urlopen(f"{base}/simple/{name}/", timeout=10).read().decode()
    for href, digest in re.findall(r'href="([^"#]+)#sha256=([0-9a-f]{64})"', page):
        data = urllib.request.urlopen(f"{base}/simple/{name}/{href}", timeout=30).read()
        assert hashlib.sha256(data).hexdigest() == digest, href
PY
pass_note "two concurrent publishers to one prefix: every wheel on the index, every link's sha256 right"

# --- --from-cache: the cache's wheels, their entries as the variant facts ---
ff cache add "$WHEEL1"
expect_rc 0 "cache add ffext_abi1"
ff publish --to "$TMP/fromcache" --from-cache ffext_abi1
expect_rc 0 "publish --from-cache ffext_abi1"
expect_out_contains "published: $(basename "$WHEEL1")"
[[ $(json_field "$TMP/fromcache/files/$(basename "$WHEEL1").variant.json" 'd["source"]') == cache ]] ||
  fail "the variant record does not say the wheel came from the cache"
ff publish --to "$TMP/fromcache" --from-cache nosuchpackage
expect_clean_error 2 "publish --from-cache with a spec nothing in the cache matches"
expect_err_contains "no wheel in the cache matches"
pass_note "--from-cache publishes the cache's wheel with source=cache; an unmatched spec is a clear error"
