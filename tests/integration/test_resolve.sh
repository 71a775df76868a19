#!/usr/bin/env bash
# flashfit resolve over the real built-in catalog, with real local indexes on
# 127.0.0.1 (PEP 503 HTML, PEP 691 JSON, find-links directories), broken and
# unreachable ones, suggestions, usage errors, and `flashfit catalog update`
# from a GitHub-releases-style API (garbage keeps the previous catalog).
# shellcheck source=tests/integration/lib.sh
source "$(dirname "$0")/lib.sh"

export FLASHFIT_CONFIG="$TMP/no-config.toml"
printf '# empty\n' >"$FLASHFIT_CONFIG"
PY=(--python "$TEST_PYTHON")
L4=("${PY[@]}" --python-version 3.12 --torch 2.9.1+cu128 --cxx11-abi TRUE --gpu 8.9)
HASH=0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef
WHEEL283=flash_attn-2.8.3+cu12torch2.9cxx11abiTRUE-cp312-cp312-linux_x86_64.whl

# --- the real catalog, what-if environments ---------------------------------
ff resolve flash-attn "${L4[@]}"
expect_rc 0 "Python 3.12 + torch 2.9.1+cu128 + L4"
expect_out_contains "selected: flash_attn-2.8.3+cu12torch2.9cxx11abiTRUE-cp312-cp312-linux_x86_64.whl"
expect_out_contains "nearest rejected"
ff resolve flash-attn "${L4[@]}" --json
expect_rc 0 "--json"
[[ $(json_field "$TMP/out" 'd["selected"]["source"]') == upstream ]] || fail "selected source"
[[ $(json_field "$TMP/out" 'd["environment"]["torch"]["overridden"]') == True ]] || fail "torch not marked overridden"
# Default JSON: what the text shows (the pick, the 8 nearest rejections with
# messages, counts per reason), not every candidate (issue 17: <= 100 KB).
[[ $(json_field "$TMP/out" 'd["all_candidates"]') == False ]] || fail "default JSON claims every candidate"
[[ $(json_field "$TMP/out" 'd["counts"]["considered"] > 6000') == True ]] || fail "the whole catalog was not judged"
[[ $(json_field "$TMP/out" 'd["counts"]["considered"] == d["counts"]["compatible"] + d["counts"]["uncertain"] + d["counts"]["rejected"]') == True ]] ||
  fail "counts do not add up: $(json_field "$TMP/out" 'd["counts"]')"
[[ $(json_field "$TMP/out" '[c["verdict"] for c in d["candidates"]] == ["compatible"] + ["rejected"] * 8') == True ]] ||
  fail "default candidates are not the pick + 8 nearest rejections: $(json_field "$TMP/out" '[c["verdict"] for c in d["candidates"]]')"
[[ $(json_field "$TMP/out" 'd["candidates"][0]["filename"] == d["selected"]["filename"]') == True ]] || fail "the pick is not the first candidate"
[[ $(json_field "$TMP/out" 'all(r["message"] for c in d["candidates"] for r in c["reasons"])') == True ]] ||
  fail "a shown rejection has a reason without its message"
(($(stat -c %s "$TMP/out") <= 102400)) || fail "default resolve --json is $(stat -c %s "$TMP/out") bytes (> 100 KB)"
cp "$TMP/out" "$TMP/default.json"
ff resolve flash-attn "${L4[@]}"
json_field "$TMP/default.json" '"rejections by reason: " + ", ".join(f"{k} {v}" for k, v in sorted(d["rejections_by_reason"].items(), key=lambda kv: -kv[1]))' >"$TMP/by_reason"
grep -qxF -f "$TMP/by_reason" "$TMP/out" || fail "text and JSON counts per reason differ: $(cat "$TMP/by_reason") vs $(grep 'by reason' "$TMP/out")"
ff resolve flash-attn "${L4[@]}" --json --all
expect_rc 0 "--json --all"
[[ $(json_field "$TMP/out" 'd["all_candidates"]') == True ]] || fail "--all JSON does not say it holds every candidate"
[[ $(json_field "$TMP/out" 'len(d["candidates"]) == d["counts"]["considered"] > 6000') == True ]] || fail "--all: not every candidate"
python3 - "$TMP/default.json" "$TMP/out" <<'PY' || fail "default JSON disagrees with --all"
import collections, json, sys
small, full = (json.load(open(p)) for p in sys.argv[1:])
rejected = [c for c in full["candidates"] if c["verdict"] == "rejected"]
assert [c["filename"] for c in small["candidates"][1:]] == [c["filename"] for c in rejected[:8]]
assert small["candidates"][1:] == rejected[:8]
counts = collections.Counter(code for c in rejected for code in {r["code"] for r in c["reasons"]})
assert small["rejections_by_reason"] == full["rejections_by_reason"] == dict(counts), (small["rejections_by_reason"], counts)
assert small["counts"] == full["counts"] and full["counts"]["rejected"] == len(rejected)
PY
codes=$(json_field "$TMP/out" '" ".join(sorted({r["code"] for c in d["candidates"] for r in c["reasons"]}))')
for code in $codes; do
  case $code in
    version | yanked | known-broken | source-disabled | python | platform | glibc | torch | cuda | cxx11-abi | \
      gpu-arch | compute-capability | pure-wheel) ;;
    *) fail "undocumented reason code '$code'" ;;
  esac
done
[[ $(json_field "$TMP/out" 'd["suggestions"]') == "[]" ]] || fail "suggestions despite a pick"
pass_note "real catalog: pick, JSON shape, reason codes"

ff catalog list --json
expect_rc 0 "catalog list"
fa_community=$(json_field "$TMP/out" '[r["wheels"] for r in d if r["package"] == "flash-attn" and r["source"] == "community"][0]')
fa3_community=$(json_field "$TMP/out" '[r["wheels"] for r in d if r["package"] == "flash-attn-3" and r["source"] == "community"][0]')
fa3_rows=$(grep -c '/flash_attn_3-' "$SOURCE_DIR/data/flash-attn-community-wheels.tsv")
[[ $fa3_community == "$fa3_rows" && $((fa_community + fa3_community)) == 3567 ]] ||
  fail "catalog list counts: flash-attn $fa_community, flash-attn-3 $fa3_community (rows $fa3_rows)"
for pkg in causal-conv1d mamba-ssm; do
  [[ $(json_field "$TMP/out" '[r["wheels"] for r in d if r["package"] == "'$pkg'"][0] > 2000') == True ]] ||
    fail "$pkg has no built-in catalog"
done
ff resolve mamba-ssm "${PY[@]}" --python-version 3.12 --torch 2.6.0+cu124 --gpu 8.0 --offline --json
expect_rc 0 "mamba-ssm from its built-in catalog"
[[ $(json_field "$TMP/out" 'd["selected"]["filename"].startswith("mamba_ssm-")') == True ]] || fail "mamba-ssm pick"
pass_note "catalog list counts per package; causal-conv1d and mamba-ssm catalogs built in"

# An unprobed torch's ABI is derived for an official build (torch 2.6 cu124: pre-C++11), said so.
ff resolve flash-attn "${PY[@]}" --python-version 3.11 --torch 2.6.0+cu124 --gpu 8.0 --json
expect_rc 0 "torch 2.6.0+cu124, ABI not given"
[[ $(json_field "$TMP/out" '"cxx11abiFALSE" in d["selected"]["filename"]') == True ]] ||
  fail "derived-ABI pick carries the C++11 ABI: $(json_field "$TMP/out" 'd["selected"]["filename"]')"
[[ $(json_field "$TMP/out" 'd["environment"]["cxx11_abi"]["source"].startswith("derived from torch 2.6.0+cu124")') == True ]] ||
  fail "the derived ABI does not say where it came from"
[[ $(json_field "$TMP/out" 'd["selected"]["certain"]') == True ]] || fail "a derived ABI made the pick uncertain"
ff resolve flash-attn "${PY[@]}" --python-version 3.11 --torch 2.6.0+cu124 --gpu 8.0
expect_out_contains "derived from torch 2.6.0+cu124"
# A source-built torch: the ABI stays unknown, and the pick says it is uncertain and which flag fixes it.
ff resolve flash-attn "${PY[@]}" --python-version 3.12 --torch 2.6.0+git1a2b3c --cuda 12.4 --gpu 8.0 --json
expect_rc 0 "torch +git, ABI unknown"
[[ $(json_field "$TMP/out" 'd["selected"]["certain"]') == False ]] || fail "an unknown ABI gave a certain pick"
[[ $(json_field "$TMP/out" '[a["flag"] for a in d["selected"]["assumptions"]]') == "['--cxx11-abi TRUE|FALSE']" ]] ||
  fail "assumptions: $(json_field "$TMP/out" 'd["selected"]["assumptions"]')"
ff resolve flash-attn "${PY[@]}" --python-version 3.12 --torch 2.6.0+git1a2b3c --cuda 12.4 --gpu 8.0
expect_out_contains "uncertain: no wheel fits for certain"
pass_note "ABI derived for official torches; unknown facts give an uncertain pick with the flag"

ff resolve 'flash-attn==2.8.3' "${L4[@]}" --all
expect_rc 0 "--all"
expect_out_contains "every candidate:"
[[ $(grep -c 'compatible$' "$TMP/out") -ge 1 ]] || fail "--all does not list the compatible candidates"

ff resolve flash-attn "${PY[@]}" --python-version 3.11 --torch 2.5.1+cu124 --cxx11-abi FALSE --gpu 7.5 --json
expect_rc 1 "T4"
[[ $(json_field "$TMP/out" 'd["selected"]') == None ]] || fail "T4 got a pick"
[[ $(json_field "$TMP/out" '[s["kind"] for s in d["suggestions"]]') == "['fallback']" ]] ||
  fail "T4: expected only the SDPA fallback, got $(json_field "$TMP/out" '[s["kind"] for s in d["suggestions"]]')"
ff resolve flash-attn "${PY[@]}" --python-version 3.11 --torch 2.5.1+cu124 --cxx11-abi FALSE --gpu 7.5
expect_out_contains "scaled_dot_product_attention"
expect_out_contains "\$ flashfit fallback"
pass_note "T4: fallback, no build"

# A ROCm torch (what-if): no CUDA, said in its own words, never "a CPU build";
# no CUDA wheel fits it.
ff resolve flash-attn "${PY[@]}" --offline --python-version 3.11 --torch 2.5.1+rocm6.2
expect_rc 1 "a ROCm torch"
expect_out_contains "torch 2.5.1+rocm6.2 (ROCm 6.2)"
expect_out_contains "is a ROCm build"
! grep -qF "CPU build" "$TMP/out" || fail "a ROCm torch was called a CPU build: $(grep -F 'CPU build' "$TMP/out" | head -n 2)"
pass_note "a ROCm torch: no CUDA wheel, ROCm in the words"

# Debian's own torch, as probed: a CPU build.
ff resolve flash-attn "${PY[@]}" --json --all
expect_rc 1 "Debian's CPU torch"
[[ $(json_field "$TMP/out" 'all(any(r["code"] == "cuda" for r in c["reasons"]) for c in d["candidates"])') == True ]] ||
  fail "a CUDA wheel was not rejected for the CPU torch"

# Advice runs this interpreter's pip; an externally managed one (PEP 668) gets a venv.
marker=$("$TEST_PYTHON" -c 'import sys, sysconfig; print(sysconfig.get_path("stdlib") + "/EXTERNALLY-MANAGED" if sys.prefix == sys.base_prefix else "")')
torch_cmd=$(json_field "$TMP/out" '[s["command"] for s in d["suggestions"] if s["kind"] == "torch"][0]')
interp=$(json_field "$TMP/out" 'd["environment"]["interpreter"]["value"]')
if [[ -n $marker && -f $marker ]]; then
  [[ $torch_cmd == "$interp -m venv --system-site-packages .venv && .venv/bin/python -m pip install torch=="* ]] ||
    fail "externally managed interpreter: $torch_cmd"
else
  [[ $torch_cmd == "$interp -m pip install torch=="* ]] || fail "torch advice does not use the probed pip: $torch_cmd"
fi
# Copy-paste commands keep the what-if flags they were computed under.
ff resolve 'flash-attn==2.8.2' "${L4[@]}" --json
expect_rc 1 "2.8.2 on torch 2.9"
version_cmd=$(json_field "$TMP/out" '[s["command"] for s in d["suggestions"] if s["kind"] == "version"][0]')
[[ $version_cmd == *"--python $TEST_PYTHON --python-version 3.12 --torch 2.9.1+cu128 --cxx11-abi TRUE --gpu 8.9"* ]] ||
  fail "the version suggestion lost the what-if flags: $version_cmd"
build_cmd=$(json_field "$TMP/out" '[s["command"] for s in d["suggestions"] if s["kind"] == "build"][0]')
# The build command keeps them too: pasted, it plans for the L4 described
# instead of building for this interpreter.
[[ $build_cmd == "flashfit build flash-attn==2.8.2 --archs 80 --python $TEST_PYTHON --python-version 3.12 --torch 2.9.1+cu128 --cxx11-abi TRUE --gpu 8.9" ]] ||
  fail "build advice: $build_cmd"
# Under what-if flags the torch suggestion asks again with that torch; it
# installs nothing into this interpreter, which is not the L4 described.
torch_cmd=$(json_field "$TMP/out" '[s["command"] for s in d["suggestions"] if s["kind"] == "torch"][0]')
[[ $torch_cmd == "flashfit resolve flash-attn==2.8.2 --torch 2."*"+cu12"*" --python $TEST_PYTHON --python-version 3.12 --gpu 8.9" ]] ||
  fail "torch advice under what-if flags: $torch_cmd"
pasted=$(eval "printf '%s\n' ${torch_cmd#flashfit }")
mapfile -t pasted_args <<<"$pasted"
ff "${pasted_args[@]}" --offline --json
expect_rc 0 "the torch suggestion's command, pasted: a wheel fits with that torch"
pass_note "advice: the probed interpreter's pip (a venv under PEP 668), what-if flags kept (build plans; torch asks again)"

# Only a disabled source fits: cp311 + torch 2.9 (upstream has none, #2212).
CP311=("${PY[@]}" --python-version 3.11 --torch 2.9.1+cu128 --cxx11-abi TRUE --gpu 8.9)
ff resolve flash-attn "${CP311[@]}" --json
expect_rc 1 "cp311 torch 2.9 without community"
[[ $(json_field "$TMP/out" '[s["kind"] for s in d["suggestions"]][0]') == source ]] || fail "no 'enable community' suggestion first"
ff resolve flash-attn "${CP311[@]}" --source community --json
expect_rc 0 "--source community"
[[ $(json_field "$TMP/out" 'd["selected"]["source"]') == community ]] || fail "community not picked"
ff resolve flash-attn "${L4[@]}" --no-source upstream
expect_rc 1 "--no-source upstream"
pass_note "sources: community off by default, suggested, enabled"

# --- usage errors --------------------------------------------------------------
ff resolve 'flash-attn>>2' "${L4[@]}"
expect_clean_error 2 "an invalid specifier"
ff resolve flash-atn "${L4[@]}"
expect_clean_error 2 "an unknown package"
expect_err_contains "did you mean 'flash-attn'"
ff resolve flash-attn --source nosuch "${L4[@]}"
expect_clean_error 2 "an unknown source"
ff resolve 'flash-attn @ https://example.org/x.whl' "${L4[@]}"
expect_clean_error 2 "a URL requirement"
pass_note "usage errors"

# --- local indexes on 127.0.0.1 ----------------------------------------------------
mkdir -p "$TMP/www/files"
cat >"$TMP/www/simple.html" <<HTML
<!DOCTYPE html><html><body><h1>Links for flash-attn</h1>
<a href="../../files/$WHEEL283#sha256=$HASH">$WHEEL283</a>
<a href="../../files/flash_attn-2.9.0+cu12torch2.9cxx11abiTRUE-cp312-cp312-linux_x86_64.whl" data-yanked="broken build">yanked</a>
<a href="../../files/flash_attn-2.8.3.tar.gz">sdist</a>
</body></html>
HTML
cat >"$TMP/www/simple.json" <<JSON
{"meta": {"api-version": "1.1"}, "name": "flash-attn", "files": [
  {"filename": "$WHEEL283", "url": "../../files/$WHEEL283", "hashes": {"sha256": "$HASH"}}]}
JSON
cat >"$TMP/routes.json" <<JSON
{"/simple/flash-attn/": {"body_file": "simple.html", "content_type": "text/html"},
 "/json/flash-attn/": {"body_file": "simple.json", "content_type": "application/vnd.pypi.simple.v1+json"},
 "/bad/flash-attn/": {"body": "{\"meta\": [garbage", "content_type": "application/vnd.pypi.simple.v1+json"},
 "/html-garbage/flash-attn/": {"body": "<a href=<<<\u0001 <a <a href='x", "content_type": "text/html"},
 "/down/flash-attn/": {"status": 503}}
JSON
start_http_server "$TMP/www" "$TMP/routes.json"

ff resolve 'flash-attn==2.8.3' "${L4[@]}" --index-url "$HTTP_URL/simple" --json
expect_rc 0 "PEP 503 index"
[[ $(json_field "$TMP/out" 'd["selected"]["source"]') == index ]] || fail "the index did not win over upstream"
[[ $(json_field "$TMP/out" 'd["selected"]["sha256"]') == "$HASH" ]] || fail "the #sha256 fragment was lost"
[[ $(json_field "$TMP/out" 'd["selected"]["url"]') == "$HTTP_URL/files/$WHEEL283" ]] || fail "relative link not resolved"
ff resolve 'flash-attn>=2.8.3' "${L4[@]}" --index-url "$HTTP_URL/simple" --json --all
[[ $(json_field "$TMP/out" '[r["code"] for c in d["candidates"] if c["filename"].startswith("flash_attn-2.9.0") for r in c["reasons"]]') == "['yanked']" ]] ||
  fail "the yanked wheel was not rejected as yanked"
grep -q 'GET /simple/flash-attn/' "$HTTP_LOG" || fail "the index was not asked for /simple/flash-attn/"

ff resolve 'flash-attn==2.8.3' "${L4[@]}" --extra-index-url "$HTTP_URL/json" --json
expect_rc 0 "PEP 691 index"
[[ $(json_field "$TMP/out" 'd["selected"]["source"]') == extra-index-1 ]] || fail "the JSON index did not win"

mkdir -p "$TMP/wheels"
: >"$TMP/wheels/$WHEEL283"
ff resolve 'flash-attn==2.8.3' "${L4[@]}" --find-links "$TMP/wheels" --json
expect_rc 0 "find-links directory"
[[ $(json_field "$TMP/out" 'd["selected"]["url"]') == "$TMP/wheels/$WHEEL283" ]] || fail "find-links dir wheel not picked"
pass_note "indexes: PEP 503, PEP 691, find-links, yanked, sha256"

for broken in bad html-garbage down; do
  ff resolve 'flash-attn==2.8.3' "${L4[@]}" --index-url "$HTTP_URL/$broken" --json
  expect_rc 0 "index '$broken' must not stop the other sources"
  [[ $(json_field "$TMP/out" 'd["selected"]["source"]') == upstream ]] || fail "$broken: upstream not picked"
done
ff resolve 'flash-attn==2.8.3' "${L4[@]}" --index-url "$HTTP_URL/bad"
# Diagnostics go to stderr (issue 13 item 17), the report to stdout.
expect_err_contains "flashfit: warning: source 'index' sent a page flashfit cannot read"
! grep -q 'warning' "$TMP/out" || fail "a warning was printed on stdout"
ff resolve 'flash-attn==2.8.3' "${L4[@]}" --index-url "http://127.0.0.1:$(closed_port)/simple"
expect_rc 0 "an unreachable index"
expect_err_contains "could not be reached"
! grep -q 'could not be reached' "$TMP/out" || fail "the unreachable index's warning is on stdout"
ff resolve 'flash-attn==2.8.3' "${L4[@]}" --index-url "http://127.0.0.1:$(closed_port)/simple" --json
expect_err_contains "could not be reached"
[[ $(json_field "$TMP/out" 'any("could not be reached" in w for w in d["warnings"])') == True ]] ||
  fail "--json lost the warning"
pass_note "broken and unreachable indexes are warnings"

# A package without a recipe resolves from an index alone.
mkdir -p "$TMP/plain"
: >"$TMP/plain/tinyext-1.0-cp312-cp312-linux_x86_64.whl"
: >"$TMP/plain/tinyext-1.1-cp39-cp39-linux_x86_64.whl"
ff resolve tinyext "${L4[@]}" --find-links "$TMP/plain" --json
expect_rc 0 "a package without a recipe"
[[ $(json_field "$TMP/out" 'd["selected"]["version"]') == 1.0 ]] || fail "recipe-less pick"
[[ $(json_field "$TMP/out" 'd["package"]["recipe"]') == None ]] || fail "recipe-less package claims a recipe"

# A pure or non-torch wheel needs no torch: resolve agrees with install (a venv without torch).
"$TEST_PYTHON" -m venv --without-pip "$TMP/notorch"
: >"$TMP/plain/purepkg-1.0-py3-none-any.whl"
ff resolve purepkg --python "$TMP/notorch/bin/python" --find-links "$TMP/plain" --json
expect_rc 0 "a pure wheel without torch"
[[ $(json_field "$TMP/out" 'd["selected"]["certain"]') == True ]] || fail "pure wheel pick not certain"
cp=$("$TEST_PYTHON" -c 'import sys; print("cp%d%d" % sys.version_info[:2])')
: >"$TMP/plain/nontorch-1.0-$cp-$cp-linux_x86_64.whl"
ff resolve nontorch --python "$TMP/notorch/bin/python" --find-links "$TMP/plain" --json --all
expect_rc 0 "a non-torch binary wheel without torch"
[[ $(json_field "$TMP/out" '[r["code"] for c in d["candidates"] for r in c["reasons"]]') != *torch* ]] ||
  fail "a non-torch wheel was rejected for torch"
pass_note "torch-free wheels: resolve does not apply the torch rules"

# --- catalog update ---------------------------------------------------------------
mkdir -p "$TMP/api"
NEW=flash_attn-9.9.9+cu12torch2.9cxx11abiTRUE-cp312-cp312-linux_x86_64.whl
cat >"$TMP/api/page1.json" <<JSON
[{"tag_name": "v9.9.9", "assets": [
   {"name": "$NEW", "digest": "sha256:$HASH",
    "browser_download_url": "https://github.com/Dao-AILab/flash-attention/releases/download/v9.9.9/${NEW/+/%2B}"},
   {"name": "flash_attn-9.9.9.tar.gz", "browser_download_url": "https://github.com/x/y/releases/download/v9.9.9/flash_attn-9.9.9.tar.gz"}]}]
JSON
cat >"$TMP/api-routes.json" <<JSON
{"/repos/Dao-AILab/flash-attention/releases?per_page=100&page=1": {"body_file": "page1.json", "content_type": "application/json"},
 "/repos/Dao-AILab/flash-attention/releases?per_page=100&page=2": {"body": "[]", "content_type": "application/json"}}
JSON
start_http_server "$TMP/api" "$TMP/api-routes.json"
FLASHFIT_GITHUB_API=$HTTP_URL ff catalog update --package flash-attn --source upstream
expect_rc 0 "catalog update"
expect_out_contains "1 wheels from 1 releases"
ff resolve flash-attn "${L4[@]}" --json
[[ $(json_field "$TMP/out" 'd["selected"]["filename"]') == "$NEW" ]] || fail "the refreshed catalog does not take precedence"
[[ $(json_field "$TMP/out" 'd["selected"]["sha256"]') == "$HASH" ]] || fail "the API digest was lost"
cached=$(find "$FLASHFIT_CACHE_DIR" -path '*catalogs*' -name 'upstream.tsv')
[[ -f $cached ]] || fail "no refreshed catalog file in the cache"
cp "$cached" "$TMP/catalog-before"

cat >"$TMP/bad-routes.json" <<JSON
{"/repos/Dao-AILab/flash-attention/releases?per_page=100&page=1": {"body": "[{\"tag_name\": 7, \"assets\": \"no\"}]", "content_type": "application/json"}}
JSON
start_http_server "$TMP/api" "$TMP/bad-routes.json"
ff catalog update --package flash-attn --source upstream --api-url "$HTTP_URL"
expect_rc 1 "catalog update from garbage"
grep -qF "previous catalog" "$TMP/out" "$TMP/err" || fail "the failed update does not say the previous catalog stays"
cmp -s "$cached" "$TMP/catalog-before" || fail "garbage from the API changed the cached catalog"
ff catalog update --package flash-attn --source upstream --api-url "http://127.0.0.1:$(closed_port)"
expect_rc 1 "catalog update from an unreachable API"
cmp -s "$cached" "$TMP/catalog-before" || fail "an unreachable API changed the cached catalog"
# libcurl is dlopened at the first transfer: a libcurl.so.4 without curl's
# functions (a real shared library the loader finds first) is a clear error
# naming the fix, and nothing is lost.
printf 'int not_curl(void) { return 0; }\n' >"$TMP/notcurl.c"
mkdir -p "$TMP/notcurl"
cc -shared -fPIC -Wl,-soname,libcurl.so.4 -o "$TMP/notcurl/libcurl.so.4" "$TMP/notcurl.c" ||
  fail "cannot build the fake libcurl.so.4"
LD_LIBRARY_PATH=$TMP/notcurl ff catalog update --package flash-attn --source upstream --api-url "$HTTP_URL"
expect_rc 1 "catalog update without a usable libcurl"
for text in "libcurl.so.4 has no curl_global_init" "apt install libcurl4"; do
  grep -qF -- "$text" "$TMP/out" "$TMP/err" || fail "the report lacks '$text'"
done
cmp -s "$cached" "$TMP/catalog-before" || fail "a missing libcurl changed the cached catalog"
ff resolve flash-attn "${L4[@]}" --json
[[ $(json_field "$TMP/out" 'd["selected"]["filename"]') == "$NEW" ]] || fail "the previous catalog did not stay"
ff catalog list --json
expect_rc 0 "catalog list"
[[ $(json_field "$TMP/out" '[r["wheels"] for r in d if r["package"] == "flash-attn" and r["source"] == "upstream"][0]') == 1 ]] ||
  fail "catalog list does not show the refreshed catalog"
ff catalog update --package nosuch
expect_clean_error 2 "catalog update of an unknown package"
pass_note "catalog update: refresh wins, garbage and outages keep the previous catalog"

# --- confirming the pick's URL (HEAD against a real server) -------------------------
mkdir -p "$TMP/rel/dl"
GONE=flash_attn-9.9.9+cu12torch2.9cxx11abiTRUE-cp312-cp312-linux_x86_64.whl
HERE=flash_attn-9.9.8+cu12torch2.9cxx11abiTRUE-cp312-cp312-linux_x86_64.whl
: >"$TMP/rel/dl/$HERE"
cat >"$TMP/rel-routes.json" <<JSON
{"/repos/Dao-AILab/flash-attention/releases?per_page=100&page=1": {"body_file": "page1.json", "content_type": "application/json"},
 "/repos/Dao-AILab/flash-attention/releases?per_page=100&page=2": {"body": "[]", "content_type": "application/json"}}
JSON
start_http_server "$TMP/rel" "$TMP/rel-routes.json"
# The page names the server's own URLs, so it is written once the port is known (read per request).
cat >"$TMP/rel/page1.json" <<JSON
[{"tag_name": "v9.9.9", "assets": [{"name": "$GONE", "browser_download_url": "$HTTP_URL/dl/${GONE/+/%2B}"}]},
 {"tag_name": "v9.9.8", "assets": [{"name": "$HERE", "browser_download_url": "$HTTP_URL/dl/${HERE/+/%2B}"}]}]
JSON
FLASHFIT_GITHUB_API=$HTTP_URL ff catalog update --package flash-attn --source upstream
expect_rc 0 "catalog update with local download URLs"
ff resolve flash-attn "${L4[@]}" --offline --json
expect_rc 0 "--offline"
[[ $(json_field "$TMP/out" 'd["selected"]["filename"]') == "$GONE" ]] || fail "--offline: not the best candidate"
[[ $(grep -c '^HEAD ' "$HTTP_LOG") == 0 ]] || fail "--offline sent a HEAD"
ff resolve flash-attn "${L4[@]}" --json
expect_rc 0 "a 404 falls back"
[[ $(json_field "$TMP/out" 'd["selected"]["filename"]') == "$HERE" ]] ||
  fail "the 404 file was presented: $(json_field "$TMP/out" 'd["selected"]["filename"]')"
[[ $(json_field "$TMP/out" '[r["code"] for c in d["candidates"] if c["filename"] == "'"$GONE"'" for r in c["reasons"]]') == "['missing']" ]] ||
  fail "the 404 file is not rejected as missing"
[[ $(grep -c '^HEAD ' "$HTTP_LOG") == 2 ]] || fail "expected 2 HEADs, got: $(cat "$HTTP_LOG")"
ff resolve flash-attn "${L4[@]}"
expect_out_contains "its URL was confirmed to exist"
[[ $(grep -c '^HEAD ' "$HTTP_LOG") == 2 ]] || fail "the answers were not kept: $(cat "$HTTP_LOG")"
ff resolve flash-attn "${L4[@]}" --offline --json
[[ $(json_field "$TMP/out" 'd["selected"]["filename"]') == "$HERE" ]] || fail "--offline forgot the kept 404"
pass_note "the pick's URL is confirmed with HEAD, a 404 falls back, answers kept, --offline asks nothing"
