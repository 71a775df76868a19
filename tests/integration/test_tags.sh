#!/usr/bin/env bash
# flashfit tags against the real oracles: pip's own "Compatible tags" list and
# packaging's sys_tags(), for Debian's python and for the python3 first on
# PATH; which interpreter is chosen (--python, $VIRTUAL_ENV, PATH); --json;
# and a reader that closes the pipe early.
# shellcheck source=tests/integration/lib.sh
source "$(dirname "$0")/lib.sh"

# pip's list: the lines after "Compatible tags: N", leading spaces stripped;
# fails unless exactly N lines follow. Run from /: a pyenv shim picks its
# version by the working directory, and flashfit (run in the suite's, which
# sets none) must be compared with the interpreter the shim picks by default.
pip_compatible_tags() {
  local python=$1 dest=$2
  (cd / && timeout "$FF_TIMEOUT" "$python" -m pip debug --verbose 2>/dev/null) >"$TMP/pip-debug" ||
    fail "'$python -m pip debug --verbose' failed; the oracle is missing"
  awk '
    found { sub(/^ +/, ""); print; next }
    /^Compatible tags: [0-9]+$/ { found = 1; want = $3 }
    END { if (!found) exit 3 }
  ' "$TMP/pip-debug" >"$dest" || fail "no 'Compatible tags: N' line in pip debug output of $python"
  local want have
  want=$(sed -n 's/^Compatible tags: \([0-9]*\)$/\1/p' "$TMP/pip-debug")
  have=$(wc -l <"$dest")
  [[ $want == "$have" && $have -gt 100 ]] ||
    fail "pip debug of $python announced $want tags but listed $have"
}

sys_tags_oracle() {
  local python=$1 dest=$2
  (cd / && timeout "$FF_TIMEOUT" "$python" -c \
    "from pip._vendor.packaging import tags; print('\n'.join(map(str, tags.sys_tags())))") \
    >"$dest" || fail "$python could not list packaging's sys_tags()"
}

compare_lists() {
  local what=$1 expected=$2 actual=$3
  if ! cmp -s "$expected" "$actual"; then
    printf '%s: flashfit (+) differs from the oracle (-):\n' "$what" >&2
    diff "$expected" "$actual" | head -n 20 >&2 || true
    fail "$what: $(wc -l <"$actual") lines from flashfit, $(wc -l <"$expected") from the oracle"
  fi
}

check_interpreter_against_pip() {
  local python=$1 label=$2
  pip_compatible_tags "$python" "$TMP/expected-pip"
  ff tags --python "$python"
  expect_rc 0 "tags --python $python"
  expect_err_empty
  compare_lists "$label: tags vs pip debug" "$TMP/expected-pip" "$TMP/out"
  cp "$TMP/out" "$TMP/plain-$label"

  sys_tags_oracle "$python" "$TMP/expected-sys"
  ff tags --sys-tags --python "$python"
  expect_rc 0 "tags --sys-tags --python $python"
  compare_lists "$label: --sys-tags vs packaging.tags.sys_tags()" "$TMP/expected-sys" "$TMP/out"
  cp "$TMP/out" "$TMP/sys-$label"
  pass_note "$label ($python): $(wc -l <"$TMP/plain-$label") pip tags and $(wc -l <"$TMP/sys-$label") sys_tags identical"
}

# --- 1. Byte-identical to the oracles --------------------------------------
check_interpreter_against_pip "$TEST_PYTHON" debian

PATH_PYTHON=$(command -v python3 || true)
if [[ -z $PATH_PYTHON ]]; then
  skip_note "no python3 on PATH; only $TEST_PYTHON was compared"
elif [[ $(realpath "$PATH_PYTHON") == $(realpath "$TEST_PYTHON") ]]; then
  skip_note "python3 on PATH is $TEST_PYTHON itself ($PATH_PYTHON); nothing more to compare"
else
  vendored=$(cd / && "$PATH_PYTHON" -c 'from pip._vendor import packaging; print(packaging.__version__)' 2>/dev/null || true)
  if [[ $vendored != 21.3 ]]; then
    # flashfit reproduces packaging 21.3 (pip 23.x); other pips rank differently by design.
    skip_note "$PATH_PYTHON vendors packaging '${vendored:-none}', not 21.3; not compared"
  else
    check_interpreter_against_pip "$PATH_PYTHON" path-python3
    # The shim is followed to the real interpreter, and flashfit says which.
    real=$(cd / && "$PATH_PYTHON" -c 'import sys; print(sys.executable)')
    ff tags --json --python "$PATH_PYTHON"
    expect_rc 0 "tags --json --python $PATH_PYTHON"
    [[ $(json_field "$TMP/out" 'd["interpreter"]["executable"]') == "$real" ]] ||
      fail "--json names $(json_field "$TMP/out" 'd["interpreter"]["executable"]'), expected $real"
  fi
fi

# --- 2. Which interpreter -------------------------------------------------
# A real venv (no pip of its own: --system-site-packages lends Debian's, and
# ensurepip would cost seconds).
"$TEST_PYTHON" -m venv --system-site-packages --without-pip "$TMP/venv" ||
  fail "could not create a venv with $TEST_PYTHON -m venv"
[[ -x $TMP/venv/bin/python ]] || fail "the venv has no bin/python"

# A PATH holding only a python3 symlink.
mkdir -p "$TMP/pathbin"
ln -s "$TEST_PYTHON" "$TMP/pathbin/python3"

capture env VIRTUAL_ENV="$TMP/venv" PATH="$TMP/pathbin" "$FLASHFIT" tags --json
expect_rc 0 "tags --json with VIRTUAL_ENV set"
[[ $(json_field "$TMP/out" 'd["interpreter"]["executable"]') == "$TMP/venv/bin/python" ]] ||
  fail "with VIRTUAL_ENV=$TMP/venv, --json names $(json_field "$TMP/out" 'd["interpreter"]["executable"]')"
[[ $(json_field "$TMP/out" 'd["interpreter"]["found_by"]') == '$VIRTUAL_ENV' ]] ||
  fail "with VIRTUAL_ENV set, found_by is $(json_field "$TMP/out" 'd["interpreter"]["found_by"]')"
# In the venv, flashfit's list is still the one pip (run by the venv) ranks against.
pip_compatible_tags "$TMP/venv/bin/python" "$TMP/expected-venv"
capture env VIRTUAL_ENV="$TMP/venv" "$FLASHFIT" tags
expect_rc 0 "tags with VIRTUAL_ENV set"
compare_lists "venv: tags vs the venv's pip debug" "$TMP/expected-venv" "$TMP/out"
pass_note "VIRTUAL_ENV selects the venv's python, whose list matches its pip"

# A relative VIRTUAL_ENV (the query runs from /, so it must be made absolute).
capture bash -c 'cd "$1" && VIRTUAL_ENV=venv exec "$2" tags --json' _ "$TMP" "$FLASHFIT"
expect_rc 0 "tags --json with a relative VIRTUAL_ENV"
[[ $(json_field "$TMP/out" 'd["interpreter"]["executable"]') == "$TMP/venv/bin/python" ]] ||
  fail "relative VIRTUAL_ENV: --json names $(json_field "$TMP/out" 'd["interpreter"]["executable"]')"

# A stale VIRTUAL_ENV: the directory is there, its python is not.
mkdir -p "$TMP/stale/bin"
capture env VIRTUAL_ENV="$TMP/stale" PATH="$TMP/pathbin" "$FLASHFIT" tags
expect_clean_error 2 "stale VIRTUAL_ENV"
expect_err_contains 'VIRTUAL_ENV'
expect_err_contains "$TMP/stale"
# ... and --python still wins over it.
capture env VIRTUAL_ENV="$TMP/stale" "$FLASHFIT" tags --json --python "$TEST_PYTHON"
expect_rc 0 "--python with a stale VIRTUAL_ENV"
[[ $(json_field "$TMP/out" 'd["interpreter"]["found_by"]') == '--python' ]] ||
  fail "--python should win over VIRTUAL_ENV"
pass_note "a stale VIRTUAL_ENV is exit 2 and names VIRTUAL_ENV; --python wins over it"

# No VIRTUAL_ENV: python3 from PATH.
capture env -u VIRTUAL_ENV PATH="$TMP/pathbin" "$FLASHFIT" tags --json
expect_rc 0 "tags --json from PATH"
[[ $(json_field "$TMP/out" 'd["interpreter"]["found_by"]') == PATH ]] ||
  fail "found_by is $(json_field "$TMP/out" 'd["interpreter"]["found_by"]'), expected PATH"
[[ $(json_field "$TMP/out" 'd["interpreter"]["executable"]') == "$TMP/pathbin/python3" ]] ||
  fail "from PATH, --json names $(json_field "$TMP/out" 'd["interpreter"]["executable"]')"
# An empty VIRTUAL_ENV counts as unset.
capture env VIRTUAL_ENV= PATH="$TMP/pathbin" "$FLASHFIT" tags --json
expect_rc 0 "tags --json with VIRTUAL_ENV empty"
[[ $(json_field "$TMP/out" 'd["interpreter"]["found_by"]') == PATH ]] ||
  fail "an empty VIRTUAL_ENV should fall through to PATH"
# A PATH without python3.
mkdir -p "$TMP/empty"
capture env -u VIRTUAL_ENV PATH="$TMP/empty" "$FLASHFIT" tags
expect_clean_error 2 "no python3 on PATH"
expect_err_contains 'not on PATH'
# Relative paths, from a PATH entry or --python, work although the query runs from /.
capture bash -c 'cd "$1" && PATH=pathbin exec "$2" tags --json' _ "$TMP" "$FLASHFIT"
expect_rc 0 "tags --json with a relative PATH entry"
[[ $(json_field "$TMP/out" 'd["interpreter"]["executable"]') == "$TMP/pathbin/python3" ]] ||
  fail "relative PATH entry: --json names $(json_field "$TMP/out" 'd["interpreter"]["executable"]')"
capture bash -c 'cd "$1" && exec "$2" tags --python ./pathbin/python3' _ "$TMP" "$FLASHFIT"
expect_rc 0 "tags --python ./pathbin/python3"
cmp -s "$TMP/out" "$TMP/plain-debian" || fail "--python ./pathbin/python3 gave a different list"
pass_note "PATH lookup, empty VIRTUAL_ENV, missing python3 and relative paths"

# --- 3. --json -------------------------------------------------------------
check_json() {
  local rules=$1 plain=$2
  "$TEST_PYTHON" - "$TMP/out" "$plain" "$rules" <<'PY' || fail "--json ($rules) is not what the plain list says"
import json, sys
doc = json.load(open(sys.argv[1]))   # raises (and fails the test) unless it is JSON
plain = open(sys.argv[2]).read().splitlines()
problems = []
if not isinstance(doc, dict):
    problems.append("not an object")
else:
    if doc.get("rules") != sys.argv[3]:
        problems.append("rules is %r, expected %r" % (doc.get("rules"), sys.argv[3]))
    if doc.get("tags") != plain:
        problems.append("tags (%d) differ from the plain list (%d)" % (len(doc.get("tags") or []), len(plain)))
    interp = doc.get("interpreter") or {}
    for key in ("executable", "found_by", "implementation", "version"):
        if not isinstance(interp.get(key), str) or not interp.get(key):
            problems.append("interpreter.%s missing" % key)
    if interp.get("implementation") != "cpython":
        problems.append("implementation %r" % interp.get("implementation"))
    if interp.get("version") != "%d.%d.%d" % sys.version_info[:3]:
        problems.append("version %r" % interp.get("version"))
for p in problems:
    print("  " + p, file=sys.stderr)
sys.exit(1 if problems else 0)
PY
}
ff tags --json --python "$TEST_PYTHON"
expect_rc 0 "tags --json"
expect_err_empty
check_json pip "$TMP/plain-debian"
ff tags --json --sys-tags --python "$TEST_PYTHON"
expect_rc 0 "tags --json --sys-tags"
check_json packaging-sys-tags "$TMP/sys-debian"
pass_note "--json parses, its tags equal the plain lists, rules named"

# --- 4. A reader that goes away ----------------------------------------------
# head -1 takes the first tag and exits.
LAST_CMD=
set +o pipefail
first=$(timeout "$FF_TIMEOUT" "$FLASHFIT" tags --python "$TEST_PYTHON" 2>"$TMP/pipe-err" | head -n 1)
status=${PIPESTATUS[0]}
set -o pipefail
[[ $first == "$(head -n 1 "$TMP/plain-debian")" ]] || fail "| head -1 printed '$first'"
[[ $status == 0 ]] || fail "flashfit tags | head -1: flashfit exited with $status (141 = SIGPIPE)"
[[ ! -s $TMP/pipe-err ]] || fail "flashfit tags | head -1 wrote to stderr: $(head -c 300 "$TMP/pipe-err")"
# A reader that is gone before flashfit writes a byte: the write hits EPIPE for sure.
set +o pipefail
timeout "$FF_TIMEOUT" "$FLASHFIT" tags --python "$TEST_PYTHON" 2>"$TMP/pipe-err" | true
status=${PIPESTATUS[0]}
set -o pipefail
[[ $status == 0 ]] || fail "flashfit tags | true: flashfit exited with $status (141 = SIGPIPE)"
[[ ! -s $TMP/pipe-err ]] || fail "flashfit tags | true wrote to stderr: $(head -c 300 "$TMP/pipe-err")"
pass_note "a closed pipe is neither a crash nor an error"

# --- --python-version --json: what docs/json.md says (issue 13 item 17) --------
ff tags --python "$TEST_PYTHON" --python-version 3.12 --json
expect_rc 0 "tags --python-version 3.12 --json"
json_field "$TMP/out" 'd["interpreter"]["found_by"] == "--python" and d["interpreter"]["version"].startswith("3.11.") and d["python_version"] == "3.12" and d["what_if"] == ["--python-version 3.12"] and d["tags"][0].startswith("cp312-cp312-")' |
  grep -qx True || fail "--python-version --json: $(head -c 400 "$TMP/out")"
pass_note "--python-version --json: the interpreter asked, the version the tags are for, the flags"
