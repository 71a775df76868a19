#!/usr/bin/env bash
# flashfit inspect against real torch extension wheels: the prediction and the
# import, both ways. The fixture (tests/fixtures/torch_ext, CTest fixture
# torch_ext_wheels, directory in $FLASHFIT_TORCH_EXT_WHEELS) holds the same
# small extension built against Debian's torch (C++11 ABI=1) twice:
#   ffext_abi1  -D_GLIBCXX_USE_CXX11_ABI=1  must be "compatible", exit 0;
#   ffext_abi0  -D_GLIBCXX_USE_CXX11_ABI=0  must be "incompatible", exit 1,
#               naming the missing torch symbols, diagnosis cxx11-abi-mismatch.
# The oracles are independent of flashfit: nm -D (what the module needs, what
# torch's libraries define), c++filt, and the real import in a venv with both
# wheels installed: ffext_abi1 imports and runs, ffext_abi0 fails with
# "undefined symbol: X" and X must be among the symbols inspect named. The
# installed distributions (by name) and the bare .so files are inspected too.
# Run by hand without FLASHFIT_TORCH_EXT_WHEELS, it builds the wheels itself
# (about a minute).
# shellcheck source=tests/integration/lib.sh
source "$(dirname "$0")/lib.sh"

unset "${!FLASHFIT_STUB_@}" "${!PIP_@}" NO_COLOR PYTHONPATH PYTHONHOME
# pip must not read the caller's configuration (an index, find-links, a cache).
export PIP_CONFIG_FILE=/dev/null PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_CACHE_DIR=1
export PYTHONNOUSERSITE=1 XDG_CACHE_HOME=$TMP/xdg-cache
PY_TIMEOUT=120

for tool in nm c++filt; do
  command -v "$tool" >/dev/null || fail "'$tool' is not on PATH (binutils): it is this test's oracle"
done

# --- The fixture wheels ------------------------------------------------------
WHEELS=${FLASHFIT_TORCH_EXT_WHEELS:-}
if [[ -z $WHEELS ]]; then
  WHEELS=$TMP/wheels
  printf 'note [%s]: FLASHFIT_TORCH_EXT_WHEELS is not set; building the wheels into %s\n' \
    "$TEST_NAME" "$WHEELS"
  timeout 900 bash "$SOURCE_DIR/tests/fixtures/torch_ext/build_wheels.sh" "$WHEELS" "$TEST_PYTHON" \
    >"$TMP/build.log" 2>&1 ||
    fail "building the fixture wheels failed: $(tail -n 20 "$TMP/build.log")"
fi
[[ -d $WHEELS ]] || fail "FLASHFIT_TORCH_EXT_WHEELS=$WHEELS is not a directory (run fixture.torch_ext_wheels)"

# one_wheel ABI: the path of the single ffext_abi<ABI>-*.whl.
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

# --- The oracles: torch's facts, the modules' needs ---------------------------
timeout "$PY_TIMEOUT" "$TEST_PYTHON" -c '
import os, torch
print(int(torch._C._GLIBCXX_USE_CXX11_ABI))
print(os.path.join(os.path.dirname(torch.__file__), "lib"))' >"$TMP/torch.txt" 2>"$TMP/torch.err" ||
  fail "'$TEST_PYTHON -c \"import torch\"' failed: $(head -c 500 "$TMP/torch.err")"
{ read -r TORCH_ABI; read -r TORCH_LIB; } <"$TMP/torch.txt"
[[ $TORCH_ABI == 1 ]] ||
  fail "this test expects a torch built with the C++11 ABI (Debian's); $TEST_PYTHON's torch has ABI=$TORCH_ABI"

CTX=$TMP/ctx
mkdir -p "$CTX"
# Everything torch's libraries define (symlinks followed; Debian's torch/lib
# also holds dangling links to packages not installed), version suffixes cut.
torch_libs=()
for lib in "$TORCH_LIB"/lib*.so; do
  [[ -e $lib ]] && torch_libs+=("$lib")
done
[[ " ${torch_libs[*]} " == *"/libc10.so "* ]] || fail "no libc10.so in $TORCH_LIB"
for lib in "${torch_libs[@]}"; do
  nm -D --defined-only "$lib" || fail "nm failed on $lib"
done | awk 'NF >= 3 {print $NF}' | sed 's/@.*//' | sort -u >"$CTX/torch_defined.txt"

# Each wheel's module, unpacked, and what it leaves undefined.
for abi in 1 0; do
  wheel_var=WHEEL$abi
  timeout "$PY_TIMEOUT" "$TEST_PYTHON" -m zipfile -e "${!wheel_var}" "$TMP/unpacked$abi" ||
    fail "cannot unpack ${!wheel_var}"
  so=$(find "$TMP/unpacked$abi" -maxdepth 1 -name "ffext_abi$abi.*.so" -print -quit)
  [[ -n $so ]] || fail "$(basename "${!wheel_var}") holds no ffext_abi$abi.*.so"
  printf -v "SO$abi" '%s' "$so"
  nm -D --undefined-only "$so" | awk '{print $NF}' | sed 's/@.*//' | sort -u >"$CTX/undefined$abi.txt" ||
    fail "nm failed on $so"
  # The undefined symbols in torch's namespaces (functions, data, vtables,
  # typeinfo) that no torch library defines: what `ldd -r` and the loader miss.
  grep -E '^_Z(T[VIS])?N[rVK]*(3c10|2at|5torch|6caffe2)' "$CTX/undefined$abi.txt" |
    comm -23 - "$CTX/torch_defined.txt" >"$CTX/oracle_missing$abi.txt" || true
done
# The fixture itself, before flashfit is asked anything: ABI=1 resolves fully,
# ABI=0 misses at least the two symbols ffext.cpp was written to need.
[[ ! -s $CTX/oracle_missing1.txt ]] ||
  fail "fixture: ffext_abi1 needs torch symbols torch lacks: $(tr '\n' ' ' <"$CTX/oracle_missing1.txt")"
for sym in _ZNK2at10TensorBase8toStringEv _ZN3c106detail14torchCheckFailEPKcS2_jRKSs; do
  grep -qx -- "$sym" "$CTX/oracle_missing0.txt" ||
    fail "fixture: ffext_abi0 does not miss $sym; it misses: $(tr '\n' ' ' <"$CTX/oracle_missing0.txt")"
done
pass_note "oracle (nm): ffext_abi0 misses $(wc -l <"$CTX/oracle_missing0.txt") torch symbols: $(tr '\n' ' ' <"$CTX/oracle_missing0.txt")"

# --- The JSON checker ------------------------------------------------------------
# icheck WHAT CODE: runs the Python CODE with `d` = the JSON document on
# stdout, RC = the exit code, and the helpers below; a failed assert fails the
# test with its message (and so does output that is not JSON, or a shape that
# breaks the contract).
icheck() {
  local what=$1 code=$2 msg
  if ! msg=$(timeout "$PY_TIMEOUT" "$TEST_PYTHON" - "$TMP/out" "$CTX" "$RC" "$code" 2>&1 <<'PY'
import json, os, re, subprocess, sys

out, ctx, rc, code = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]

def lines(name):
    with open(os.path.join(ctx, name + ".txt"), encoding="utf-8") as f:
        return set(f.read().split())

def demangle(symbol):
    return subprocess.run(["c++filt", symbol], capture_output=True, text=True,
                          check=True).stdout.strip()

def normal(text):
    # c++filt spells the old std::string out; libstdc++'s __cxa_demangle
    # writes "std::string". The same name either way.
    return text.replace("std::basic_string<char, std::char_traits<char>, std::allocator<char> >",
                        "std::string")

STATUSES = {"pass", "fail", "warn", "skip"}
DIAGNOSES = {"cxx11-abi-mismatch", "torch-version-mismatch", None}

def shape(d):
    """The contract of `inspect --json` (the keys it names; more are allowed),
    and the exit code that goes with it."""
    assert isinstance(d, dict), f"not an object: {type(d).__name__}"
    assert d["schema"] == 1, f"schema {d['schema']!r}"
    t = d["target"]
    assert t["kind"] in ("wheel", "library", "installed"), f"target.kind {t['kind']!r}"
    for k in ("path", "name", "version"):
        assert k in t, f"target lacks {k!r}: {t}"
    assert isinstance(d["compatible"], bool), f"compatible {d['compatible']!r}"
    assert d["verdict"] == ("compatible" if d["compatible"] else "incompatible"), \
        f"verdict {d['verdict']!r} with compatible={d['compatible']}"
    assert rc == (0 if d["compatible"] else 1), f"exit code {rc} with compatible={d['compatible']}"
    assert isinstance(d["checks"], list) and d["checks"], f"checks {d['checks']!r}"
    for c in d["checks"]:
        assert {"check", "status", "summary", "fix"} <= set(c), f"check shape: {c}"
        assert isinstance(c["check"], str) and re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", c["check"]), \
            f"check id {c['check']!r}"
        assert c["status"] in STATUSES, f"{c['check']}: status {c['status']!r}"
        assert isinstance(c["summary"], str) and c["summary"].strip(), f"{c['check']}: summary {c['summary']!r}"
        assert c["fix"] is None or isinstance(c["fix"], str), f"{c['check']}: fix {c['fix']!r}"
    ids = {c["check"] for c in d["checks"]}
    assert "torch-symbols" in ids, f"no torch-symbols check among {sorted(ids)}"
    failed = [c["check"] for c in d["checks"] if c["status"] == "fail"]
    assert d["compatible"] == (not failed), f"compatible={d['compatible']} with failed checks {failed}"
    assert isinstance(d["modules"], list), f"modules {d['modules']!r}"
    for m in d["modules"]:
        assert isinstance(m["member"], str) and m["member"], f"module member {m.get('member')!r}"
        ts = m["torch_symbols"]
        assert isinstance(ts, dict), f"{m['member']}: torch_symbols {ts!r}"
        assert isinstance(ts["checked"], int) and not isinstance(ts["checked"], bool), ts
        assert ts["diagnosis"] in DIAGNOSES, f"diagnosis {ts['diagnosis']!r}"
        for s in ts["missing"]:
            assert {"symbol", "demangled"} <= set(s), f"missing entry shape: {s}"
            assert isinstance(s["symbol"], str) and isinstance(s["demangled"], str), s
    return [c for c in d["checks"] if c["check"] == "torch-symbols"]

def the_module(d, abi):
    mods = [m for m in d["modules"] if f"ffext_abi{abi}." in os.path.basename(m["member"])]
    assert len(mods) == 1, f"expected one module ffext_abi{abi}.*.so, got {[m['member'] for m in d['modules']]}"
    assert mods[0]["member"].endswith(".so"), mods[0]["member"]
    return mods[0]

def canonical(name):
    return re.sub(r"[-_.]+", "-", name).lower()

def target_is(d, kind, abi, path=None):
    t = d["target"]
    assert t["kind"] == kind, f"target.kind {t['kind']!r}, expected {kind!r}"
    if kind != "library":
        assert canonical(t["name"] or "") == f"ffext-abi{abi}", f"target.name {t['name']!r}"
        assert t["version"] == "0.1.0", f"target.version {t['version']!r}"
    if path is not None:
        assert t["path"] and os.path.realpath(t["path"]) == os.path.realpath(path), \
            f"target.path {t['path']!r}, expected {path!r}"

def expect_compatible(d, abi):
    torch_checks = shape(d)
    assert d["compatible"] is True and d["verdict"] == "compatible", \
        f"verdict {d['verdict']!r}; failed: {[c for c in d['checks'] if c['status'] == 'fail']}"
    assert all(c["status"] == "pass" for c in torch_checks), f"torch-symbols checks: {torch_checks}"
    ts = the_module(d, abi)["torch_symbols"]
    assert ts["missing"] == [], f"missing symbols for the ABI=1 module: {ts['missing']}"
    assert ts["diagnosis"] is None, f"diagnosis {ts['diagnosis']!r} with nothing missing"
    assert ts["checked"] > 0, f"checked {ts['checked']}: the module's torch symbols were not looked at"

def expect_abi_mismatch(d, abi, undefined, oracle, must_name=()):
    """`undefined`: the module's undefined symbols (nm); `oracle`: those in
    torch's namespaces that torch does not define; `must_name`: symbols the
    real import reported."""
    torch_checks = shape(d)
    assert d["compatible"] is False and d["verdict"] == "incompatible", f"verdict {d['verdict']!r}"
    failed = [c for c in torch_checks if c["status"] == "fail"]
    assert failed, f"no failed torch-symbols check: {torch_checks}"
    for c in failed:
        assert c["fix"] and c["fix"].strip(), f"a failed torch-symbols check has no fix: {c}"
    ts = the_module(d, abi)["torch_symbols"]
    missing = [s["symbol"] for s in ts["missing"]]
    assert missing, "no missing symbols reported for the ABI=0 module"
    assert len(missing) == len(set(missing)), f"a symbol listed twice: {missing}"
    assert ts["checked"] >= len(missing), f"checked {ts['checked']} < {len(missing)} missing"
    assert ts["diagnosis"] == "cxx11-abi-mismatch", f"diagnosis {ts['diagnosis']!r}"
    torch_defined = lines("torch_defined")
    # Every symbol named is really needed by the module and really absent
    # from torch, and is missing because of the ABI: it spells std::string
    # the old way (c++filt: std::basic_string<...> without __cxx11), or torch
    # defines the same function with the [abi:cxx11] tag (a function that
    # returns a std::string, like at::TensorBase::toString).
    tagged = {s.replace("B5cxx11", "", 1) for s in torch_defined if "B5cxx11" in s}
    for s in ts["missing"]:
        sym = s["symbol"]
        assert sym in undefined, f"{sym} is not an undefined symbol of the module"
        assert sym not in torch_defined, f"{sym} is defined by torch, yet reported missing"
        dm = demangle(sym)
        old_string = "std::basic_string<" in dm and "__cxx11" not in dm
        assert old_string or sym in tagged, \
            f"{sym} ({dm}) is neither old-ABI std::string nor a function torch has only with [abi:cxx11]"
        assert normal(s["demangled"]) == normal(dm), f"demangled {s['demangled']!r}, c++filt says {dm!r}"
    # ... and none is left out: all that `ldd -r` would report, and the one
    # the loader actually reported.
    left_out = sorted(set(oracle) - set(missing))
    assert not left_out, f"missing symbols not reported: {left_out} (reported {missing})"
    for sym in must_name:
        assert sym in missing, f"the import failed on {sym}, which inspect did not name: {missing}"

try:
    with open(out, encoding="utf-8") as f:
        d = json.load(f)
except ValueError as e:
    print("stdout is not JSON:", e)
    sys.exit(1)
try:
    exec(code, dict(globals(), d=d))
except AssertionError as e:
    print(e)
    sys.exit(1)
except (KeyError, TypeError, IndexError, AttributeError) as e:
    print("unexpected JSON shape:", type(e).__name__, e)
    sys.exit(1)
PY
  ); then
    fail "$what: $msg"
  fi
}

# expect_verdict_line WORD: the text report's first line is the verdict.
expect_verdict_line() {
  local want=$1 first
  first=$(head -n 1 "$TMP/out")
  if [[ $want == compatible ]]; then
    [[ $first == *compatible* && $first != *incompatible* ]] ||
      fail "the text report does not open with a 'compatible' verdict: '$first'"
  else
    [[ $first == *incompatible* ]] ||
      fail "the text report does not open with an 'incompatible' verdict: '$first'"
  fi
}

# expect_names_missing JSONFILE: every demangled name in that JSON's missing
# lists appears in the text report on stdout.
expect_names_missing() {
  local name
  while IFS= read -r name; do
    [[ -n $name ]] || continue
    grep -qF -- "$name" "$TMP/out" || fail "the text report does not name the missing symbol '$name'"
  done < <(json_field "$1" '"\n".join(s["demangled"] for m in d["modules"] for s in m["torch_symbols"]["missing"])')
}

# --- The wheels, against Debian's python ------------------------------------------
ff inspect "$WHEEL1" --python "$TEST_PYTHON" --json
expect_rc 0 "inspect ffext_abi1 wheel --json"
icheck "ffext_abi1 wheel" "
expect_compatible(d, 1)
target_is(d, 'wheel', 1, '$WHEEL1')
"
ff inspect "$WHEEL1" --python "$TEST_PYTHON"
expect_rc 0 "inspect ffext_abi1 wheel (text)"
expect_verdict_line compatible
pass_note "ffext_abi1 wheel: compatible, exit 0, nothing missing"

ff inspect "$WHEEL0" --python "$TEST_PYTHON" --json
expect_rc 1 "inspect ffext_abi0 wheel --json"
icheck "ffext_abi0 wheel" "
expect_abi_mismatch(d, 0, lines('undefined0'), lines('oracle_missing0'))
target_is(d, 'wheel', 0, '$WHEEL0')
"
cp "$TMP/out" "$TMP/abi0_wheel.json"
MISSING0=$(json_field "$TMP/abi0_wheel.json" \
  '" ".join(s["symbol"] for m in d["modules"] for s in m["torch_symbols"]["missing"])')
ff inspect "$WHEEL0" --python "$TEST_PYTHON"
expect_rc 1 "inspect ffext_abi0 wheel (text)"
expect_verdict_line incompatible
expect_names_missing "$TMP/abi0_wheel.json"
pass_note "ffext_abi0 wheel: incompatible, exit 1, cxx11-abi-mismatch, missing: $MISSING0"

# --- The real thing: both wheels installed in a venv that sees Debian's torch -------
timeout "$PY_TIMEOUT" "$TEST_PYTHON" -m venv --system-site-packages "$TMP/venv" >"$TMP/venv.log" 2>&1 ||
  fail "could not create a venv: $(tail -n 5 "$TMP/venv.log")"
VPY=$TMP/venv/bin/python
timeout "$PY_TIMEOUT" "$VPY" -m pip install --no-deps --no-index "$WHEEL1" "$WHEEL0" \
  >"$TMP/pip.log" 2>&1 || fail "pip install of the fixture wheels failed: $(tail -n 10 "$TMP/pip.log")"

timeout "$PY_TIMEOUT" "$VPY" -c '
import torch
import ffext_abi1 as m
x = torch.ones(3)
assert torch.equal(m.scale(x, 2.5), torch.full((3,), 2.5)), m.scale(x, 2.5)
assert torch.equal(m.add(x, x), torch.full((3,), 2.0)), m.add(x, x)
text = m.describe(x)
assert isinstance(text, str) and text, repr(text)
assert m.cxx11_abi() == 1, m.cxx11_abi()
# TORCH_CHECK across the module/libc10 boundary: the message (a std::string)
# must arrive intact as a RuntimeError.
try:
    m.scale(torch.ones(3, dtype=torch.int64), 2.0)
except RuntimeError as e:
    assert "scale expects a floating-point tensor" in str(e), str(e)
else:
    raise AssertionError("TORCH_CHECK did not raise")
try:
    m.add(torch.ones(2), torch.ones(3))
except RuntimeError as e:
    assert "add expects tensors of the same shape" in str(e), str(e)
else:
    raise AssertionError("TORCH_CHECK did not raise")
print("describe:", text)
' >"$TMP/import1.out" 2>&1 || fail "import and use of ffext_abi1 failed: $(tail -n 15 "$TMP/import1.out")"
pass_note "import ffext_abi1 in the venv: works (scale, add, TORCH_CHECK, $(<"$TMP/import1.out"))"

IMPORT_RC=0
timeout "$PY_TIMEOUT" "$VPY" -c '
import sys, torch
try:
    import ffext_abi0
except ImportError as e:
    print(e)
    sys.exit(3)
' >"$TMP/import0.out" 2>&1 || IMPORT_RC=$?
((IMPORT_RC != 0)) || fail "import ffext_abi0 succeeded; the ABI=0 module was expected to fail against an ABI=1 torch"
((IMPORT_RC == 3)) || fail "import ffext_abi0 failed other than with ImportError (exit $IMPORT_RC): $(tail -n 15 "$TMP/import0.out")"
IMPORT_ERROR=$(<"$TMP/import0.out")
[[ $IMPORT_ERROR =~ undefined\ symbol:\ ([^[:space:]]+) ]] ||
  fail "the ImportError does not name an undefined symbol: $IMPORT_ERROR"
IMPORT_SYMBOL=${BASH_REMATCH[1]}
grep -qx -- "$IMPORT_SYMBOL" "$CTX/oracle_missing0.txt" ||
  fail "the import failed on $IMPORT_SYMBOL, which the nm oracle does not list: $(tr '\n' ' ' <"$CTX/oracle_missing0.txt")"
cp "$TMP/abi0_wheel.json" "$TMP/out"
RC=1
icheck "the import's symbol vs the wheel's report" "
expect_abi_mismatch(d, 0, lines('undefined0'), lines('oracle_missing0'), ['$IMPORT_SYMBOL'])
"
pass_note "import ffext_abi0 in the venv: '$IMPORT_ERROR'; inspect had named $IMPORT_SYMBOL"

# --- Installed distributions, by name, in the venv ------------------------------------
SITE_SO1=$(find "$TMP/venv/lib" -name 'ffext_abi1.*.so' -print -quit)
SITE_SO0=$(find "$TMP/venv/lib" -name 'ffext_abi0.*.so' -print -quit)
[[ -n $SITE_SO1 && -n $SITE_SO0 ]] || fail "pip installed no ffext_abi*.so into the venv"
ff inspect ffext_abi1 --python "$VPY" --json
expect_rc 0 "inspect ffext_abi1 (installed) --json"
icheck "ffext_abi1 installed" "
expect_compatible(d, 1)
target_is(d, 'installed', 1)
"
for name in ffext_abi0 ffext-abi0; do
  ff inspect "$name" --python "$VPY" --json
  expect_rc 1 "inspect $name (installed) --json"
  icheck "$name installed" "
expect_abi_mismatch(d, 0, lines('undefined0'), lines('oracle_missing0'), ['$IMPORT_SYMBOL'])
target_is(d, 'installed', 0)
"
done
ff inspect ffext_abi0 --python "$VPY"
expect_rc 1 "inspect ffext_abi0 (installed, text)"
expect_verdict_line incompatible
expect_names_missing "$TMP/abi0_wheel.json"
pass_note "installed by name: ffext_abi1 compatible, ffext_abi0 (and ffext-abi0) incompatible"

# --- The bare extension modules, by path ----------------------------------------------
ff inspect "$SO0" --python "$TEST_PYTHON" --json
expect_rc 1 "inspect the ffext_abi0 .so --json"
icheck "ffext_abi0 .so" "
expect_abi_mismatch(d, 0, lines('undefined0'), lines('oracle_missing0'), ['$IMPORT_SYMBOL'])
target_is(d, 'library', 0, '$SO0')
"
ff inspect "$SITE_SO0" --python "$VPY"
expect_rc 1 "inspect the installed ffext_abi0 .so (text)"
expect_verdict_line incompatible
expect_names_missing "$TMP/abi0_wheel.json"
ff inspect "$SO1" --python "$TEST_PYTHON" --json
expect_rc 0 "inspect the ffext_abi1 .so --json"
icheck "ffext_abi1 .so" "
expect_compatible(d, 1)
target_is(d, 'library', 1, '$SO1')
"
pass_note "bare modules: ffext_abi0.so incompatible (exit 1), ffext_abi1.so compatible (exit 0)"

# --- Unreadable input: exit 2, a message, nothing on stdout ---------------------------
ff inspect "$TMP/no-such-dir/ffext_abi1-0.1.0-cp311-cp311-linux_x86_64.whl" --python "$TEST_PYTHON" --json
expect_clean_error 2 "a wheel that does not exist"
printf 'this is not a zip archive\n' >"$TMP/ffext_abi9-0.1.0-cp311-cp311-linux_x86_64.whl"
ff inspect "$TMP/ffext_abi9-0.1.0-cp311-cp311-linux_x86_64.whl" --python "$TEST_PYTHON" --json
expect_clean_error 2 "a .whl that is not a zip archive"
ff inspect
expect_clean_error 2 "inspect without a target"
pass_note "unreadable input and a missing target: exit 2, clean errors"
