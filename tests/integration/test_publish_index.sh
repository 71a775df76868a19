#!/usr/bin/env bash
# flashfit reading an index flashfit published: a label-less torch extension
# (ffext_abi1 from the torch_ext_wheels fixture, built against Debian's torch,
# C++11 ABI=1) is published --for-torch Debian's torch into a directory, which
# the test HTTP server serves on 127.0.0.1. `flashfit resolve --index-url` (and
# --find-links on the directory) must judge it by its variant record
# (<wheel>.variant.json) as it judges its own cache:
#   - picked for certain with the record's facts (torch, ABI) for the torch here;
#   - refused with the reason when the what-if torch is another minor;
#   - a corrupted record, a record whose sha256 the index contradicts, or none:
#     the wheel's facts stay unknown and the pick is uncertain, never a crash;
#   - --offline on the directory reads the records there without any network.
# shellcheck source=tests/integration/lib.sh
source "$(dirname "$0")/lib.sh"

unset "${!PIP_@}" NO_COLOR PYTHONPATH PYTHONHOME
export PYTHONNOUSERSITE=1

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
WHEEL=${found[0]}
FILE=$(basename "$WHEEL")
[[ $FILE != *+* ]] || fail "the fixture wheel carries a label ($FILE); this test needs a label-less one"
TORCH=$("$TEST_PYTHON" -c 'import torch; print(torch.__version__)') || fail "no torch for $TEST_PYTHON"
TORCH_ABI=$("$TEST_PYTHON" -c 'import torch; print(int(torch._C._GLIBCXX_USE_CXX11_ABI))')
TORCH_MINOR=$("$TEST_PYTHON" -c 'import torch; print(".".join(torch.__version__.split(".")[:2]))')
OTHER_TORCH=9.1.0  # a minor no record here names
[[ $TORCH_MINOR != 9.1 ]] || OTHER_TORCH=9.2.0

# A recipe for the fixture's package (records are read for packages with a recipe).
mkdir -p "$TMP/config/recipes"
cat >"$TMP/config/recipes/ffext-abi1.toml" <<'TOML'
[package]
name = "ffext-abi1"
summary = "flashfit's torch extension test wheel"
import_names = ["ffext_abi1"]
binary_module = "ffext_abi1"
needs_cuda = false

[build]
needs_cuda = false
TOML
printf 'recipe_dirs = ["%s"]\n' "$TMP/config/recipes" >"$TMP/config/config.toml"
export FLASHFIT_CONFIG=$TMP/config/config.toml

OUT=$TMP/published
ff publish --to "$OUT" --for-torch "$TORCH" --torch-cxx11-abi "$TORCH_ABI" "$WHEEL"
expect_rc 0 "publish the label-less wheel"
RECORD=$OUT/files/$FILE.variant.json
[[ -f $RECORD ]] || fail "no variant record at $RECORD"
cp "$RECORD" "$TMP/record.good"
start_http_server "$OUT"
INDEX=(--index-url "$HTTP_URL/simple" --python "$TEST_PYTHON")

# selected FIELD: a field of the selected wheel in $TMP/out (JSON); judged FIELD: of its
# entry in "candidates" (which carries the variant label and the ABI's basis).
selected() { json_field "$TMP/out" "d['selected']$1"; }
judged() { json_field "$TMP/out" "[c for c in d['candidates'] if c['filename'] == '$FILE'][0]$1"; }

# --- The record's facts: picked for certain ----------------------------------
ff resolve ffext-abi1 "${INDEX[@]}" --json
expect_rc 0 "resolve through the published index"
[[ $(selected "['filename']") == "$FILE" ]] || fail "did not pick $FILE: $(head -c 600 "$TMP/out")"
[[ $(selected "['certain']") == True ]] || fail "the pick is not certain: $(selected "['assumptions']")"
[[ $(judged "['variant']['label']") == "its variant record" ]] ||
  fail "the pick was not judged by its record: $(judged "['variant']")"
[[ $(judged "['abi_basis']") == "its variant record" ]] || fail "ABI basis: $(judged "['abi_basis']")"
grep -qF "GET /files/$FILE.variant.json" "$HTTP_LOG" || fail "the record was not fetched: $(cat "$HTTP_LOG")"
pass_note "picked $FILE for torch $TORCH by its variant record"

# --- Another torch: refused with the reason ----------------------------------
ff resolve ffext-abi1 "${INDEX[@]}" --torch "$OTHER_TORCH" --cxx11-abi TRUE --json --all
expect_rc 1 "resolve for another torch"
[[ $(json_field "$TMP/out" "d['selected']") == None ]] || fail "something was selected for torch $OTHER_TORCH"
reason=$(json_field "$TMP/out" "[r for c in d['candidates'] if c['filename'] == '$FILE' for r in c['reasons'] if r['code'] == 'torch'][0]['message']")
[[ $reason == *"built for torch $TORCH_MINOR"* ]] || fail "the torch reason: $reason"
ff resolve ffext-abi1 "${INDEX[@]}" --torch "$OTHER_TORCH" --cxx11-abi TRUE
expect_rc 1 "resolve for another torch (text)"
expect_out_contains "built for torch $TORCH_MINOR"
pass_note "refused for torch $OTHER_TORCH: $reason"

# --- The directory as --find-links, offline: the record read from the disk ---
: >"$HTTP_LOG"
ff resolve ffext-abi1 --find-links "$OUT/files" --python "$TEST_PYTHON" --offline --json
expect_rc 0 "resolve from the directory"
[[ $(selected "['certain']") == True ]] || fail "not certain from the directory: $(selected "['assumptions']")"
[[ $(judged "['variant']['label']") == "its variant record" ]] || fail "the directory's record was not read"
[[ ! -s $HTTP_LOG ]] || fail "--offline contacted the server: $(cat "$HTTP_LOG")"
pass_note "--find-links DIR --offline reads the records beside the wheels"

# expect_uncertain WHAT TEXT: the wheel is picked, uncertain, its assumption names TEXT.
expect_uncertain() {
  local what=$1 text=$2
  ff resolve ffext-abi1 "${INDEX[@]}" --json
  expect_rc 0 "$what"
  [[ $(selected "['filename']") == "$FILE" ]] || fail "$what: $FILE not picked"
  [[ $(selected "['certain']") == False ]] || fail "$what: picked as certain"
  local message
  message=$(json_field "$TMP/out" "[a for a in d['selected']['assumptions'] if a['fact'] == 'variant-record'][0]['message']")
  [[ $message == *"$text"* ]] || fail "$what: the assumption says '$message'"
  for bad in 'what()' 'terminate called' 'internal error'; do
    ! grep -qF -- "$bad" "$TMP/err" || fail "$what: stderr contains '$bad'"
  done
}

# --- A corrupted record: uncertain, with a warning, no crash -----------------
head -c 100 "$TMP/record.good" >"$RECORD"
expect_uncertain "a truncated record" "refused"
json_field "$TMP/out" "d['warnings']" | grep -qF "the variant record beside it was refused" ||
  fail "no warning about the refused record: $(json_field "$TMP/out" "d['warnings']")"
ff resolve ffext-abi1 "${INDEX[@]}"
expect_rc 0 "a truncated record (text)"
expect_out_contains "uncertain"
pass_note "a truncated record: uncertain, warned"

"$TEST_PYTHON" - "$TMP/record.good" "$RECORD" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
doc["sha256"] = "0" * 64
json.dump(doc, open(sys.argv[2], "w"))
PY
expect_uncertain "a record with another sha256" "sha256"
pass_note "a record whose sha256 the index contradicts: refused, uncertain"

printf '{"schema": 1, "filename": "%s", "name": 5}' "$FILE" >"$RECORD"
expect_uncertain "a record with a wrong type" "refused"

rm -f "$RECORD"
expect_uncertain "no record" "no variant record"
pass_note "a wrong-typed record and a missing one: uncertain"
