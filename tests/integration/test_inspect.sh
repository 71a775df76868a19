#!/usr/bin/env bash
# flashfit inspect end to end: the nvcc-built fixtures judged per GPU through
# --gpu, wheels built here with Python's zipfile (good, tampered, zip-slip,
# truncated), garbage and truncated ELF files, and bad usage. Every refusal is
# a clean exit-2 error, every verdict an exit 0 or 1 with the reason.
# The torch C++ extension proof is test_inspect_torch_ext.sh.
source "$(dirname "$0")/lib.sh"

BUILD_DIR=$(dirname "$(dirname "$FLASHFIT")")
FATBIN=$BUILD_DIR/tests/fixtures/fatbin
PY=(--python "$TEST_PYTHON")

# ---- nvcc fixtures: sm_80 + sm_90 SASS + compute_90 PTX, and sm_90a only.
if [[ -f $FATBIN/multi_default.so ]]; then
  ff inspect "$FATBIN/multi_default.so" "${PY[@]}" --gpu 8.6 --json
  expect_rc 0 "sm_80 SASS runs on 8.6"
  [[ $(json_field "$TMP/out" 'd["modules"][0]["cuda"]["gpus"][0]["image"]') == sm_80 ]] ||
    fail "8.6 should load sm_80"
  ff inspect "$FATBIN/multi_default.so" "${PY[@]}" --gpu 9.0 --json
  expect_rc 0 "9.0"
  [[ $(json_field "$TMP/out" 'd["modules"][0]["cuda"]["gpus"][0]["image"]') == sm_90 ]] ||
    fail "9.0 should load sm_90"
  ff inspect "$FATBIN/multi_default.so" "${PY[@]}" --gpu 10.0 --json
  expect_rc 0 "10.0 runs through PTX (a warning, not a failure)"
  [[ $(json_field "$TMP/out" 'd["modules"][0]["cuda"]["gpus"][0]["source"]') == ptx-jit ]] ||
    fail "10.0 should be ptx-jit"
  [[ $(json_field "$TMP/out" '[c["status"] for c in d["checks"] if c["check"]=="kernel-images"][0]') == warn ]] ||
    fail "10.0 should warn"
  ff inspect "$FATBIN/multi_default.so" "${PY[@]}" --gpu 7.5
  expect_rc 1 "7.5 has no kernel image"
  head -n1 "$TMP/out" | grep -q '^incompatible' || fail "the verdict comes first"
  expect_out_contains "no kernel image for compute capability 7.5"
  ff inspect "$FATBIN/sm90a.o" "${PY[@]}" --gpu 9.0
  expect_rc 0 "sm_90a on 9.0"
  for cc in 8.9 10.0 12.0; do
    ff inspect "$FATBIN/sm90a.o" "${PY[@]}" --gpu "$cc"
    expect_rc 1 "sm_90a on $cc"
  done
  # This machine has no GPU: a warning, and the fallback named.
  ff inspect "$FATBIN/multi_default.so" "${PY[@]}" --gpu none
  expect_rc 0 "no GPU is not an import failure"
  expect_out_contains "scaled_dot_product_attention"
else
  skip_note "no nvcc fixtures in $FATBIN"
fi

# ---- wheels written here. make_wheel OUT NAME [MODE]: a one-module wheel
# around a real shared object (libc's own ELF stands in for the module).
make_wheel() {
  "$TEST_PYTHON" - "$@" <<'PY'
import base64, hashlib, sys, zipfile
out, filename, mode = sys.argv[1], sys.argv[2], (sys.argv[3] if len(sys.argv) > 3 else "good")
dist = filename.split("-")[0] + "-" + filename.split("-")[1]
tags = "-".join(filename[:-4].split("-")[2:])
so = open("/bin/true", "rb").read()
files = {
    "demo/__init__.py": b"",
    "demo/_ext.cpython-311-x86_64-linux-gnu.so": so,
    dist + ".dist-info/WHEEL": ("Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: false\nTag: %s\n" % tags).encode(),
    dist + ".dist-info/METADATA": ("Metadata-Version: 2.1\nName: %s\nVersion: %s\n" % tuple(dist.split("-"))).encode(),
}
if mode == "zipslip":
    files["../../evil.py"] = b"print('owned')\n"
def digest(b):
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(b).digest()).rstrip(b"=").decode()
record = "".join("%s,%s,%d\n" % (n, digest(b), len(b)) for n, b in files.items())
if mode == "tampered":
    files["demo/__init__.py"] = b"import os\n"
record += dist + ".dist-info/RECORD,,\n"
path = out + "/" + filename
with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
    for n, b in files.items():
        z.writestr(n, b)
    z.writestr(dist + ".dist-info/RECORD", record)
if mode == "truncated":
    data = open(path, "rb").read()
    open(path, "wb").write(data[: len(data) // 2])
print(path)
PY
}

mkdir -p "$TMP/w"
good=$(make_wheel "$TMP/w" demo-1.0-cp311-cp311-linux_x86_64.whl)
ff inspect "$good" "${PY[@]}" --json
expect_rc 0 "a good wheel"
[[ $(json_field "$TMP/out" 'd["verdict"]') == compatible ]] || fail "verdict"
[[ $(json_field "$TMP/out" 'd["target"]["kind"]') == wheel ]] || fail "target kind"
[[ $(json_field "$TMP/out" '[c["status"] for c in d["checks"] if c["check"]=="record"][0]') == pass ]] ||
  fail "RECORD should verify"
[[ $(json_field "$TMP/out" 'd["modules"][0]["member"]') == demo/_ext.cpython-311-x86_64-linux-gnu.so ]] ||
  fail "module listed"
# Nothing extracted is left behind.
[[ -z $(find "$FLASHFIT_CACHE_DIR" -name '.flashfit-member-*' 2>/dev/null) ]] ||
  fail "temporary files left in the cache"

ff inspect "$good" "${PY[@]}" --python-version 3.12
expect_rc 1 "a cp311 wheel for Python 3.12"
expect_out_contains "does not fit"

tampered=$(make_wheel "$TMP/w" demo-1.1-cp311-cp311-linux_x86_64.whl tampered)
ff inspect "$tampered" "${PY[@]}"
expect_rc 1 "a wheel whose RECORD hash is wrong"
expect_out_contains "demo/__init__.py"

slip=$(make_wheel "$TMP/w" demo-1.2-cp311-cp311-linux_x86_64.whl zipslip)
ff inspect "$slip" "${PY[@]}"
expect_clean_error 2 "zip-slip wheel"
expect_err_contains ".."

truncated=$(make_wheel "$TMP/w" demo-1.3-cp311-cp311-linux_x86_64.whl truncated)
ff inspect "$truncated" "${PY[@]}"
expect_clean_error 2 "truncated wheel"

head -c 4096 /dev/urandom >"$TMP/w/random-1.0-py3-none-any.whl"
ff inspect "$TMP/w/random-1.0-py3-none-any.whl" "${PY[@]}"
expect_clean_error 2 "random bytes as a wheel"

# ---- ELF files: random, truncated, and one with hostile fatbin sizes.
head -c 65536 /dev/urandom >"$TMP/random.so"
ff inspect "$TMP/random.so" "${PY[@]}"
expect_clean_error 2 "random bytes as a .so"
head -c 3000 /bin/true >"$TMP/truncated.so"
ff inspect "$TMP/truncated.so" "${PY[@]}"
expect_clean_error 2 "truncated ELF"
if [[ -f $FATBIN/multi_nocompress.so ]]; then
  # Find the fatbin section and make its first entry claim 1 TB.
  "$TEST_PYTHON" - "$FATBIN/multi_nocompress.so" "$TMP/badfatbin.so" <<'PY'
import struct, sys
data = bytearray(open(sys.argv[1], "rb").read())
at = data.find(struct.pack("<IHH", 0xBA55ED50, 1, 16))  # container magic, version 1, header 16
assert at >= 0, "no fatbin container"
struct.pack_into("<Q", data, at + 8, 1 << 40)  # the container's declared size
open(sys.argv[2], "wb").write(data)
PY
  ff inspect "$TMP/badfatbin.so" "${PY[@]}"
  expect_clean_error 2 "a fatbin whose size points past the end"
fi

# ---- usage.
ff inspect "$TMP/none.whl" "${PY[@]}"
expect_clean_error 2 "missing wheel"
ff inspect 'not a name!' "${PY[@]}"
expect_clean_error 2 "neither a file nor a name"
ff inspect no-such-distribution-xyz "${PY[@]}"
expect_clean_error 2 "not installed"
expect_err_contains "no distribution 'no-such-distribution-xyz'"
ff inspect
expect_clean_error 2 "no target"
ff inspect --help
expect_rc 0 "--help"
expect_out_contains "--json"

pass_note "inspect verdicts, refusals and usage"

# --- installed distributions as importlib.metadata finds them (issue 13 item 8) ---
# Debian's torch and numpy are egg-info directories without a file list: doctor
# read them, inspect called them "not installed".
for dist in torch numpy; do
  ff inspect "$dist" "${PY[@]}" --json
  expect_rc 0 "inspect $dist (Debian's egg-info)"
  want=$("$TEST_PYTHON" -c 'import importlib.metadata as m, sys; print(m.version(sys.argv[1]))' "$dist")
  [[ $(json_field "$TMP/out" 'd["target"]["version"]') == "$want" ]] ||
    fail "$dist: version $(json_field "$TMP/out" 'd["target"]["version"]'), importlib.metadata says $want"
  [[ $(json_field "$TMP/out" 'd["target"]["path"]') == *.egg-info ]] || fail "$dist: not its egg-info"
  # Every regular compiled module under its packages is checked, the one import loads included.
  "$TEST_PYTHON" - "$TMP/out" "$dist" <<'PYEOF' || fail "$dist: the modules inspect checked differ from the files"
import importlib.metadata as m, importlib.util, json, os, sys
d = json.load(open(sys.argv[1]))
dist = sys.argv[2]
site = os.path.dirname(d["target"]["path"])
tops = m.distribution(dist).read_text("top_level.txt").split()
want = sorted(os.path.relpath(os.path.join(r, f), site) for t in tops for r, _, fs in os.walk(os.path.join(site, t))
              for f in fs if f.endswith(".so") and not os.path.islink(os.path.join(r, f)))
got = sorted(x["member"] for x in d["modules"])
assert got == want, (got[:5], want[:5], len(got), len(want))
ext = importlib.util.find_spec({"torch": "torch._C", "numpy": "numpy.core._multiarray_umath"}[dist]).origin
assert os.path.relpath(ext, site) in got, ext
assert any(c["check"] == "files" and c["status"] == "note" for c in d["checks"]), d["checks"]
PYEOF
done
# An egg-info file (PKG-INFO itself) and one without a version in its name, in a venv.
"$TEST_PYTHON" -m venv --without-pip "$TMP/eggvenv"
EGGSITE=$("$TMP/eggvenv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
printf 'Metadata-Version: 1.1
Name: ff-eggfile
Version: 2.0
' >"$EGGSITE/ff_eggfile-2.0.egg-info"
mkdir -p "$EGGSITE/ffnover.egg-info" "$EGGSITE/ffnover"
printf 'Metadata-Version: 2.1
Name: ffnover
Version: 3.1
' >"$EGGSITE/ffnover.egg-info/PKG-INFO"
printf '../ffnover/__init__.py
PKG-INFO
' >"$EGGSITE/ffnover.egg-info/installed-files.txt"
touch "$EGGSITE/ffnover/__init__.py"
for spec in ff-eggfile:2.0 FF_EggFile:2.0 ffnover:3.1; do
  ff inspect "${spec%%:*}" --python "$TMP/eggvenv/bin/python" --json
  expect_rc 0 "inspect ${spec%%:*}"
  want=$("$TMP/eggvenv/bin/python" -c 'import importlib.metadata as m, sys; print(m.version(sys.argv[1]))' "${spec%%:*}")
  [[ $want == "${spec##*:}" && $(json_field "$TMP/out" 'd["target"]["version"]') == "$want" ]] ||
    fail "${spec%%:*}: inspect says $(json_field "$TMP/out" 'd["target"]["version"]'), importlib.metadata $want"
done
ff inspect ff-not-installed --python "$TMP/eggvenv/bin/python"
expect_clean_error 2 "a distribution that is not installed"
pass_note "Debian's egg-info torch and numpy, egg-info files and versionless names: found as importlib.metadata finds them"
