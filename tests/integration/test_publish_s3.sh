#!/usr/bin/env bash
# flashfit publish --to s3://BUCKET/PREFIX against a real S3-compatible server:
# s3rver (npm, pinned in scripts/npm/s3rver.sh, installed in .npmdeps/) on
# 127.0.0.1, its bucket configured for website serving, so real pip (23, in a
# venv that sees Debian's torch) reads the published pages over HTTP. The
# fixture torch_ext_wheels' ffext_abi1 (built against Debian's torch) is
# published --for-torch that torch; pip installs it through the simple index
# and through the env page, and the import works. Two publishers at once
# converge (each one's wheels on the pages). Bad input: unknown credentials (403),
# a refused connection, no credentials, a missing or wrong session token for a
# temporary key: clear errors, nothing published. A wheel larger than one part
# goes up as a signed multipart upload; a failed part aborts it.
# s3rver does not check SigV4 signatures, so every publish here goes through
# sigv4_proxy.py, which recomputes each request's signature from AWS's
# specification and forwards only the right ones: a wrong secret or region is
# refused (403 SignatureDoesNotMatch / 400), and the proxy's log proves that
# every request of the good publishes was verified.
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

# pure_wheel NAME [VERSION [MIB]]: a pure wheel in $TMP/pure, RECORD right;
# with MIB, carrying that many MiB of random (incompressible) data.
mkdir -p "$TMP/pure"
pure_wheel() {
  "$TEST_PYTHON" - "$TMP/pure" "$1" "${2:-1.0}" "${3:-0}" <<'PY'
import base64, hashlib, os, sys, zipfile
out, name, version, mib = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
di = f"{name}-{version}.dist-info"
files = {f"{name}/__init__.py": b"VALUE = 1\n",
         f"{di}/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n\n".encode(),
         f"{di}/WHEEL": b"Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n"}
if mib:
    files[f"{name}/blob.bin"] = os.urandom(mib << 20)
rec = "".join(f"{p},sha256={base64.urlsafe_b64encode(hashlib.sha256(d).digest()).rstrip(b'=').decode()},{len(d)}\n" for p, d in files.items())
files[f"{di}/RECORD"] = (rec + f"{di}/RECORD,,\n").encode()
with zipfile.ZipFile(f"{out}/{name}-{version}-py3-none-any.whl", "w") as z:
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
# (The log exists before the background job opens it: the loop below reads it at once.)
: >"$S3/out"
setsid "$S3RVER" -d "$S3/data" -a 127.0.0.1 -p 0 --configure-bucket wheels "$S3/website.xml" \
  >>"$S3/out" 2>&1 &
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

# --- The verifying proxy in front of s3rver: SIGNED is the API endpoint that
# checks signatures; pip still reads the website (anonymous GETs) from s3rver ---
# start_proxy NAME [FAULT OPTION...]: a proxy logging to $TMP/NAME.log; its URL in $PROXY_URL.
start_proxy() {
  local name=$1
  shift
  "$TEST_PYTHON" "$SOURCE_DIR/tests/integration/sigv4_proxy.py" --upstream "127.0.0.1:$PORT" \
    --access-key S3RVER --secret-key S3RVER --region us-east-1 --port-file "$TMP/$name.port" "$@" \
    >/dev/null 2>"$TMP/$name.log" &
  BACKGROUND_PIDS+=("$!")
  disown "$!"
  local i
  for ((i = 0; i < 100; i++)); do
    [[ -s $TMP/$name.port ]] && break
    sleep 0.1
  done
  [[ -s $TMP/$name.port ]] || fail "sigv4_proxy.py $* did not start: $(head -c 800 "$TMP/$name.log")"
  PROXY_URL="http://127.0.0.1:$(cat "$TMP/$name.port")"
}
start_proxy proxy
SIGNED=$PROXY_URL
# bucket_state: every object s3rver holds, with its bytes' sha256.
bucket_state() { (cd "$S3/data" && find . -type f -print0 | sort -z | xargs -0 -r sha256sum); }

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
# Nothing there (no page, no record): not a published index, so nothing was left behind.
expect_clean_error 1 "--list an empty s3 prefix"
expect_err_contains "not a published index"
pass_note "no credentials (exit 2), 403, refused connection, no bucket: clear errors, nothing published"

# --- A wrong secret or region through the verifying proxy: refused, nothing written ---
before=$(bucket_state)
AWS_SECRET_ACCESS_KEY=not-the-secret ff publish --to s3://wheels/team --endpoint-url "$SIGNED" "$TMP/pure/badcase-1.0-py3-none-any.whl"
expect_clean_error 1 "publish to s3:// signed with a wrong secret"
expect_err_contains "HTTP 403, SignatureDoesNotMatch"
expect_err_contains "check AWS_SECRET_ACCESS_KEY belongs to AWS_ACCESS_KEY_ID"
grep -q '^refused SignatureDoesNotMatch GET /wheels?' "$TMP/proxy.log" ||
  fail "the proxy did not refuse the wrongly signed listing: $(cat "$TMP/proxy.log")"
AWS_REGION=eu-west-1 ff publish --to s3://wheels/team --endpoint-url "$SIGNED" "$TMP/pure/badcase-1.0-py3-none-any.whl"
expect_clean_error 1 "publish to s3:// signed for another region"
expect_err_contains "AuthorizationHeaderMalformed"
expect_err_contains "signed for region eu-west-1"
grep -q '^ok ' "$TMP/proxy.log" && fail "the proxy forwarded a wrongly signed request: $(cat "$TMP/proxy.log")"
[[ $(bucket_state) == "$before" ]] || fail "a refused publish changed the bucket"
refused_before=$(grep -c '^refused ' "$TMP/proxy.log")
pass_note "wrong secret (403 SignatureDoesNotMatch) and wrong region: refused by the SigV4 proxy, bucket unchanged"

# --- Publish the torch extension through the verifying proxy; pip installs it over HTTP ---
ff publish --to s3://wheels/team --endpoint-url "$SIGNED" --for-torch "$TORCH" --torch-cxx11-abi "$TORCH_ABI" "$WHEEL1"
expect_rc 0 "publish ffext_abi1 to s3:// (every request signature-checked)"
expect_out_contains "published: $(basename "$WHEEL1")"
AWS_ENDPOINT_URL=$SIGNED ff publish --to s3://wheels/team --for-torch "$TORCH" --torch-cxx11-abi "$TORCH_ABI" "$WHEEL1"
expect_rc 0 "re-publish (AWS_ENDPOINT_URL) is a no-op"
expect_out_contains "unchanged"
# A key with a '+' (a local version): the path as S3 encodes it (%2B) must be what was signed.
pure_wheel plus 1.0+team1
ff publish --to s3://wheels/team --endpoint-url "$SIGNED" "$TMP/pure/plus-1.0+team1-py3-none-any.whl"
expect_rc 0 "publish a wheel whose name has a '+' through the SigV4 proxy"
grep -q '^ok PUT /wheels/team/files/plus-1.0%2Bteam1-py3-none-any.whl$' "$TMP/proxy.log" ||
  fail "the proxy did not verify the PUT of the '+' wheel: $(cat "$TMP/proxy.log")"
ff publish --list s3://wheels/team --endpoint-url "$SIGNED" --json
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
"$FLASHFIT" publish --to s3://wheels/team --endpoint-url "$SIGNED" "$TMP/pure/alpha-1.0-py3-none-any.whl" >"$TMP/a.out" 2>&1 &
pa=$!
"$FLASHFIT" publish --to s3://wheels/team --endpoint-url "$SIGNED" "$TMP/pure/beta-1.0-py3-none-any.whl" >"$TMP/b.out" 2>&1 &
pb=$!
wait "$pa" || fail "publisher alpha failed: $(cat "$TMP/a.out")"
wait "$pb" || fail "publisher beta failed: $(cat "$TMP/b.out")"
# index_names NAME...: the simple index names each NAME, and every link of
# every project page resolves with its sha256 (the tree is consistent).
index_names() {
  "$TEST_PYTHON" - "$URL" "$@" <<'PY'
import hashlib, re, sys, urllib.request
base = sys.argv[1]
root = urllib.request.urlopen(base + "/simple/", timeout=10).read().decode()
for name in sys.argv[2:]:
    assert f'href="{name}/"' in root, (name, root)
for name in re.findall(r'href="([^"/]+)/"', root):
    page = urllib.request.urlopen(f"{base}/simple/{name}/", timeout=10).read().decode()
    for href, digest in re.findall(r'href="([^"#]+)#sha256=([0-9a-f]{64})"', page):
        data = urllib.request.urlopen(f"{base}/simple/{name}/{href}", timeout=30).read()
        assert hashlib.sha256(data).hexdigest() == digest, href
PY
}
index_names alpha beta ffext-abi1 || fail "after two publishers the index does not name every wheel"
pass_note "two concurrent publishers to one prefix: every wheel on the index, every link's sha256 right"

# Every request of the good publishes above was verified and none refused:
# PUTs of wheels, metadata, records and pages, GETs of records, listings.
[[ $(grep -c '^refused ' "$TMP/proxy.log") == "$refused_before" ]] ||
  fail "the SigV4 proxy refused requests of a good publish: $(grep '^refused ' "$TMP/proxy.log")"
for kind in '^ok PUT /wheels/team/files/.*\.whl$' '^ok PUT /wheels/team/files/.*\.variant\.json$' \
  '^ok PUT /wheels/team/simple/index\.html$' '^ok GET /wheels?.*list-type=2' \
  '^ok GET /wheels/team/files/.*\.variant\.json$'; do
  grep -q "$kind" "$TMP/proxy.log" || fail "no verified request matches $kind: $(cat "$TMP/proxy.log")"
done
pass_note "SigV4: $(grep -c '^ok ' "$TMP/proxy.log") requests verified by the proxy (PUT, GET, ListObjectsV2), none refused"

# --- S3 faults: a transient 503 is retried; a lasting 500 fails cleanly, pages intact ---
# (Each behind its own proxy: every request still signature-checked.)
start_proxy flaky --flaky 1
pure_wheel gamma
ff publish --to s3://wheels/team --endpoint-url "$PROXY_URL" "$TMP/pure/gamma-1.0-py3-none-any.whl"
expect_rc 0 "publish while every request's first try answers 503"
grep -q '^faulted 503 PUT /wheels/team/files/gamma-1.0-py3-none-any.whl$' "$TMP/flaky.log" &&
  grep -q '^ok PUT /wheels/team/files/gamma-1.0-py3-none-any.whl$' "$TMP/flaky.log" ||
  fail "the wheel's PUT was not retried after its 503: $(cat "$TMP/flaky.log")"
grep -q '^ok PUT /wheels/team/simple/index\.html$' "$TMP/flaky.log" || fail "the root page was not retried"
index_names alpha beta ffext-abi1 gamma || fail "after retried 503s the index is not consistent"
pass_note "a transient 503 on each of $(grep -c '^faulted 503' "$TMP/flaky.log") requests: retried, published, index consistent"

start_proxy pages500 --fail-matching '^/wheels/team/simple/'
pure_wheel delta
before_pages=$(cd "$S3/data" && find . -path '*simple*' -type f -print0 | sort -z | xargs -0 -r sha256sum)
ff publish --to s3://wheels/team --endpoint-url "$PROXY_URL" "$TMP/pure/delta-1.0-py3-none-any.whl"
expect_clean_error 1 "publish while every page upload answers 500"
expect_err_contains "answered HTTP 500 (InternalError) to each of 4 tries"
[[ $(grep -c '^faulted 500 PUT /wheels/team/simple/' "$TMP/pages500.log") -ge 4 ]] ||
  fail "the page upload was not tried 4 times: $(cat "$TMP/pages500.log")"
[[ $(cd "$S3/data" && find . -path '*simple*' -type f -print0 | sort -z | xargs -0 -r sha256sum) == "$before_pages" ]] ||
  fail "a failed page upload changed a page"
index_names alpha beta ffext-abi1 gamma || fail "after a failed page upload the index is not consistent"
ff publish --to s3://wheels/team --endpoint-url "$SIGNED" "$TMP/pure/delta-1.0-py3-none-any.whl"
expect_rc 0 "publish delta again once the fault is gone"
index_names alpha beta ffext-abi1 gamma delta || fail "delta is not on the index after the fault is gone"
pass_note "a lasting 500 on page uploads: exit 1 after 4 tries, no page changed, index consistent; the next publish converges"

# --- Temporary credentials: AWS_SESSION_TOKEN is sent as x-amz-security-token, signed ---
start_proxy tokened --session-token flashfit-session-token-1
pure_wheel epsilon
before=$(bucket_state)
ff publish --to s3://wheels/team --endpoint-url "$PROXY_URL" "$TMP/pure/epsilon-1.0-py3-none-any.whl"
expect_clean_error 1 "publish with a temporary key and no AWS_SESSION_TOKEN"
expect_err_contains "InvalidAccessKeyId"
expect_err_contains "a temporary key also needs AWS_SESSION_TOKEN"
grep -q '^refused InvalidAccessKeyId .*needs its session token' "$TMP/tokened.log" ||
  fail "the proxy did not refuse for the missing token: $(cat "$TMP/tokened.log")"
AWS_SESSION_TOKEN=not-the-token ff publish --to s3://wheels/team --endpoint-url "$PROXY_URL" "$TMP/pure/epsilon-1.0-py3-none-any.whl"
expect_clean_error 1 "publish with the wrong AWS_SESSION_TOKEN"
expect_err_contains "InvalidToken"
grep -q '^refused InvalidToken ' "$TMP/tokened.log" ||
  fail "the proxy did not refuse for the wrong token: $(cat "$TMP/tokened.log")"
expect_err_contains "get a fresh set of temporary credentials"
grep -q '^ok ' "$TMP/tokened.log" && fail "the proxy forwarded a request without the right token: $(cat "$TMP/tokened.log")"
[[ $(bucket_state) == "$before" ]] || fail "a publish refused for its token changed the bucket"
AWS_SESSION_TOKEN=flashfit-session-token-1 ff publish --to s3://wheels/team --endpoint-url "$PROXY_URL" "$TMP/pure/epsilon-1.0-py3-none-any.whl"
expect_rc 0 "publish with the temporary key's session token"
grep -q '^ok PUT /wheels/team/files/epsilon-1.0-py3-none-any.whl$' "$TMP/tokened.log" ||
  fail "the wheel's PUT did not pass the token check: $(cat "$TMP/tokened.log")"
index_names alpha beta ffext-abi1 gamma delta epsilon || fail "epsilon is not on the index after a publish with a session token"
pass_note "temporary credentials: no token (InvalidAccessKeyId) and a wrong one (InvalidToken) refused with the fix, bucket unchanged; the right one signed and published"

# --- A wheel larger than one part: a multipart upload (initiate, parts, complete) ---
# big_wheel NAME MIB: pure_wheel NAME 1.0 MIB.
big_wheel() { pure_wheel "$1" 1.0 "$2"; }
big_wheel bigpart 11
BIG=$TMP/pure/bigpart-1.0-py3-none-any.whl
BIG_KEY=/wheels/team/files/bigpart-1.0-py3-none-any.whl
# A lasting 500 on the second part: exit 1, the upload aborted, no object.
start_proxy part500 --fail-matching 'partNumber=2&'
FLASHFIT_S3_PART_MIB=5 ff publish --to s3://wheels/team --endpoint-url "$PROXY_URL" "$BIG"
expect_clean_error 1 "a multipart publish whose second part answers 500"
expect_err_contains "part 2 of 3"
expect_err_contains "answered HTTP 500 (InternalError) to each of 4 tries"
grep -q "^ok POST $BIG_KEY?uploads=\$" "$TMP/part500.log" &&
  grep -q "^ok PUT $BIG_KEY?partNumber=1&uploadId=" "$TMP/part500.log" &&
  grep -q "^ok DELETE $BIG_KEY?uploadId=" "$TMP/part500.log" ||
  fail "the failed multipart upload was not started, sent and aborted as expected: $(cat "$TMP/part500.log")"
# s3rver does not implement AbortMultipartUpload (405): flashfit says so, with how to finish it.
expect_err_contains "the upload could not be aborted (HTTP 405"
expect_err_contains "abort-multipart-upload --bucket wheels --key team/files/bigpart-1.0-py3-none-any.whl --upload-id "
grep -q "^ok PUT $BIG_KEY?partNumber=3" "$TMP/part500.log" && fail "parts were sent after one failed"
grep -q "^ok POST $BIG_KEY?uploadId=" "$TMP/part500.log" && fail "a failed upload was completed"
[[ -z $(find "$S3/data" -path '*bigpart-1.0-py3-none-any.whl*' -name '*_S3rver_object*') ]] ||
  fail "an aborted multipart upload left an object"
index_names alpha beta ffext-abi1 gamma delta epsilon || fail "after an aborted multipart upload the index is not consistent"
# Ctrl-C while a part is on its way: exit 130, and the abort still goes out.
start_proxy stall --stall-matching 'partNumber=2&'
FLASHFIT_S3_PART_MIB=5 "$FLASHFIT" publish --to s3://wheels/team --endpoint-url "$PROXY_URL" "$BIG" \
  >"$TMP/stall.out" 2>"$TMP/stall.err" &
stall_pid=$!
for ((i = 0; i < 300; i++)); do
  grep -q "^stalled PUT $BIG_KEY?partNumber=2&" "$TMP/stall.log" && break
  sleep 0.1
done
grep -q "^stalled PUT $BIG_KEY?partNumber=2&" "$TMP/stall.log" || fail "part 2 never reached the stalling proxy: $(cat "$TMP/stall.log")"
kill -INT "$stall_pid"
rc=0
wait "$stall_pid" || rc=$?
((rc == 130)) || fail "an interrupted multipart publish exited $rc, not 130: $(cat "$TMP/stall.err")"
grep -q "^ok DELETE $BIG_KEY?uploadId=" "$TMP/stall.log" ||
  fail "the interrupted upload was not aborted: $(cat "$TMP/stall.log")"
grep -q "^ok POST $BIG_KEY?uploadId=" "$TMP/stall.log" && fail "an interrupted upload was completed"
# The completion takes effect but its answer is lost: the retry is told
# NoSuchUpload, and the object (its size, a 3-part ETag) is found there.
big_wheel bigpart2 11
start_proxy dropped --drop-answer-matching '[?]uploadId='
FLASHFIT_S3_PART_MIB=5 ff publish --to s3://wheels/team --endpoint-url "$PROXY_URL" "$TMP/pure/bigpart2-1.0-py3-none-any.whl"
expect_rc 0 "a multipart publish whose completion's answer was lost"
grep -q '^dropped POST /wheels/team/files/bigpart2-1.0-py3-none-any.whl?uploadId=' "$TMP/dropped.log" &&
  grep -q '^ok POST /wheels/team/files/bigpart2-1.0-py3-none-any.whl?uploadId=' "$TMP/dropped.log" ||
  fail "the completion was not dropped and retried: $(cat "$TMP/dropped.log")"
grep -q '^ok DELETE' "$TMP/dropped.log" && fail "a completed upload was aborted"
# FLASHFIT_S3_PART_MIB outside S3's part sizes: a usage error before anything is sent.
FLASHFIT_S3_PART_MIB=4 ff publish --to s3://wheels/team --endpoint-url "$SIGNED" "$BIG"
expect_clean_error 2 "FLASHFIT_S3_PART_MIB below S3's 5 MiB parts"
expect_err_contains "FLASHFIT_S3_PART_MIB must be a whole number of MiB from 5 to 5120"
# Through the verifying proxy: three signed parts; the object is the wheel's bytes.
FLASHFIT_S3_PART_MIB=5 ff publish --to s3://wheels/team --endpoint-url "$SIGNED" "$BIG"
expect_rc 0 "publish an 11 MiB wheel in 5 MiB parts"
for n in 1 2 3; do
  grep -q "^ok PUT $BIG_KEY?partNumber=$n&uploadId=" "$TMP/proxy.log" ||
    fail "part $n was not a verified UploadPart: $(grep bigpart "$TMP/proxy.log")"
done
grep -q "^ok POST $BIG_KEY?uploadId=" "$TMP/proxy.log" || fail "the upload was not completed (signed)"
grep -q "^ok PUT $BIG_KEY\$" "$TMP/proxy.log" && fail "the wheel also went up in one PUT"
index_names alpha beta ffext-abi1 gamma delta epsilon bigpart bigpart2 ||
  fail "the multipart wheel is not on the index with its sha256"
capture "$TEST_PYTHON" - "$ENDPOINT/wheels/team/files/bigpart-1.0-py3-none-any.whl" "$BIG" <<'PY'
import hashlib, sys, urllib.request
got = urllib.request.urlopen(sys.argv[1], timeout=30).read()
assert got == open(sys.argv[2], "rb").read(), (len(got), "bytes differ from the wheel")
PY
expect_rc 0 "the multipart object is byte for byte the wheel"
# Memory holds one part, not the wheel: a 40 MiB wheel in 5 MiB parts peaks
# below 40 MiB (read whole, it could not). Not under ASan, whose shadow memory
# and quarantine make the resident size say nothing about flashfit's buffers.
if ! nm -D "$FLASHFIT" 2>/dev/null | grep -q ' __asan_init$'; then
  big_wheel bigrss 40
  FLASHFIT_S3_PART_MIB=5 capture /usr/bin/time -f 'maxrss_kib=%M' "$FLASHFIT" publish --to s3://wheels/team \
    --endpoint-url "$SIGNED" "$TMP/pure/bigrss-1.0-py3-none-any.whl"
  expect_rc 0 "publish a 40 MiB wheel in 5 MiB parts"
  rss=$(sed -n 's/^maxrss_kib=//p' "$TMP/err")
  [[ -n $rss ]] && ((rss < 40 * 1024)) || fail "publishing a 40 MiB wheel peaked at ${rss:-?} KiB: not one part's memory"
  pass_note "a 40 MiB wheel in 5 MiB parts: peak RSS $((rss / 1024)) MiB"
fi
pass_note "multipart: a 500 on part 2 aborts (no object, index consistent, the failed abort said); Ctrl-C during a part aborts too (exit 130); 3 signed parts publish an 11 MiB wheel byte for byte; a bad FLASHFIT_S3_PART_MIB is exit 2"

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
