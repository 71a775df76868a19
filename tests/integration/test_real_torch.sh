#!/usr/bin/env bash
# doctor / resolve / inspect on the torches users really have, each fact
# compared with what `import torch` itself says in that interpreter (never
# with our own expectations):
# - PyPI's CUDA 13 build of torch 2.14.1 (.pydeps/torch-cuda, pip layout, CUDA
#   runtime from nvidia-* wheels pulled through the cuda-toolkit metapackage);
# - PyPI's CPU build of torch 2.13.0 (.pydeps/torch-cpu);
# - Debian's torch 1.13 (the test python, egg-info layout, libs symlinked into
#   the multiarch dir).
# A missing venv is skipped, saying so (scripts/pydeps/torch-*.sh make them).
# shellcheck source=tests/integration/lib.sh
source "$(dirname "$0")/lib.sh"

# oracle PY OUT: what importing torch says, as JSON.
oracle() {
  "$1" - >"$2" 2>"$TMP/oracle.err" <<'PY' || fail "'$1 -c import torch' failed (the oracle is missing): $(head -c 600 "$TMP/oracle.err")"
import importlib.metadata as md, json, os, re, torch
lib = os.path.join(os.path.dirname(torch.__file__), "lib")
try:
    requires = md.requires("torch") or []
except md.PackageNotFoundError:
    requires = []
# The Requires-Dist that pull CUDA runtime parts (no extras-only lines).
cuda_requires = sorted({re.split(r"[\s\[<>=!~;(]", r, 1)[0] for r in requires
                        if "extra ==" not in r and re.match(r"(nvidia[-_]|cuda[-_]toolkit\b)", r, re.I)})
# Which libcudart the process really mapped (CUDA builds load libtorch_cuda at import).
mapped = sorted({l.split()[-1] for l in open("/proc/self/maps") if "/libcudart.so" in l})
print(json.dumps({
    "version": torch.__version__,
    "cuda": torch.version.cuda,
    "abi": bool(torch._C._GLIBCXX_USE_CXX11_ABI),
    "package": os.path.dirname(torch.__file__),
    "lib": lib,
    "version_py": os.path.join(os.path.dirname(torch.__file__), "version.py"),
    "cuda_requires": cuda_requires,
    "cudart_mapped": mapped,
}))
PY
}

checked=0
probe_one() {
  local label=$1 py=$2
  if [[ ! -x $py ]]; then
    skip_note "$label: $py is missing (run scripts/pydeps/torch-*.sh): not checked"
    return
  fi
  oracle "$py" "$TMP/$label.oracle.json"
  local want
  want=$(<"$TMP/$label.oracle.json")

  # --- doctor: every torch fact equals import torch --------------------------
  ff doctor --python "$py" --json
  expect_rc 0 "$label: doctor --json"
  jcheck "$label: doctor torch facts vs import torch" "
want = json.loads('''$want''')
t = d['torch']
assert t['version']['value'] == want['version'], (t['version'], want['version'])
want_cuda = 'none' if want['cuda'] is None else want['cuda']  # doctor's JSON writes None as "none"
assert t['cuda']['value'] == want_cuda, (t['cuda'], want_cuda)
assert t['cxx11_abi']['value'] is want['abi'], (t['cxx11_abi'], want['abi'])
assert t['package_dir']['value'] == want['package'], (t['package_dir'], want['package'])
assert t['library_dir']['value'] == want['lib'], (t['library_dir'], want['lib'])
assert t['version']['source'] == want['version_py'], t['version']['source']
assert t['cxx11_abi']['source'].startswith(want['lib'] + '/libc10.so'), t['cxx11_abi']['source']
import re
got = sorted(re.split(r'[\s\[<>=!~;(]', r, 1)[0] for r in t['cuda_runtime_packages']['value'])
norm = lambda n: n.lower().replace('_', '-')
assert [norm(n) for n in got] == [norm(n) for n in want['cuda_requires']], (got, want['cuda_requires'])
"
  # A CUDA torch from PyPI needs its runtime from the metadata; a CPU one none.
  if [[ $(json_field "$TMP/$label.oracle.json" 'd["cuda"] is None') == False ]]; then
    jcheck "$label: CUDA runtime requirements" "
names = d['torch']['cuda_runtime_packages']['value']
assert names, 'a CUDA torch without CUDA runtime requirements'
"
  fi

  # --- resolve: the environment it judges against is the same torch -----------
  ff resolve flash-attn --python "$py" --json
  [[ $RC == 0 || $RC == 1 ]] || fail "$label: resolve flash-attn exited $RC"
  jcheck "$label: resolve environment vs import torch" "
want = json.loads('''$want''')
e = d['environment']
assert e['torch']['value'] == want['version'], e['torch']
assert e['torch_cuda']['value'] == ('none' if want['cuda'] is None else want['cuda']), (e['torch_cuda'], want['cuda'])
assert e['cxx11_abi']['value'] is want['abi'], e['cxx11_abi']
assert d['selected'] is not None or d['suggestions'], 'nothing fits and no suggestion'
"

  # --- inspect torch itself: libcudart resolves where import torch mapped it ---
  # (by distribution name for the pip layouts; Debian's torch is an egg-info,
  # which inspect does not read by name: its _C module by path instead.)
  if [[ $label == debian-* ]]; then
    ff inspect "$(json_field "$TMP/$label.oracle.json" 'd["package"]')"/_C.cpython-311-x86_64-linux-gnu.so --python "$py" --json
    expect_rc 0 "$label: inspect torch/_C"
    jcheck "$label: inspect torch/_C: libtorch_python found in torch/lib" "
want = json.loads('''$want''')
found = {n['name']: n['path'] for m in d['modules'] for n in m['needed'] if n['found']}
lib = [p for n, p in found.items() if n.startswith('libtorch_python.so')]
assert lib and os.path.realpath(lib[0]) == os.path.realpath(os.path.join(want['lib'], 'libtorch_python.so')), found
"
    checked=$((checked + 1))
    pass_note "$label: torch $(json_field "$TMP/$label.oracle.json" 'd["version"]'): doctor, resolve and inspect agree with import torch"
    return
  fi
  ff inspect torch --python "$py" --json
  [[ $RC == 0 || $RC == 1 ]] || fail "$label: inspect torch exited $RC"
  jcheck "$label: inspect torch: libraries found as ld.so finds them" "
want = json.loads('''$want''')
mods = {m['member']: m for m in d['modules']}
assert any(k.startswith('torch/_C.') for k in mods), sorted(mods)[:5]
found = {n['name']: n['path'] for m in d['modules'] for n in m['needed'] if n['found']}
for lib in ('libc10.so', 'libtorch_cpu.so'):
    assert found.get(lib) and os.path.realpath(found[lib]) == os.path.realpath(os.path.join(want['lib'], lib)), (lib, found.get(lib))
if want['cudart_mapped']:
    cudart = [p for n, p in found.items() if n.startswith('libcudart.so')]
    assert cudart, 'libcudart not resolved by inspect'
    assert {os.path.realpath(p) for p in cudart} == {os.path.realpath(p) for p in want['cudart_mapped']}, (cudart, want['cudart_mapped'])
# Only a missing driver library may fail here (no GPU on this machine).
for c in d['checks']:
    if c['status'] == 'fail':
        assert c['check'] == 'needed-libraries' and 'libcuda.so.1' in c['summary'], c
        assert 'NVIDIA driver' in c['fix'], c['fix']
"
  checked=$((checked + 1))
  pass_note "$label: torch $(json_field "$TMP/$label.oracle.json" 'd["version"]') (CUDA $(json_field "$TMP/$label.oracle.json" 'd["cuda"]'), ABI $(json_field "$TMP/$label.oracle.json" 'd["abi"]')): doctor, resolve and inspect agree with import torch"
}

jcheck() { # jcheck WHAT PYTHON: asserts over d = the JSON in $TMP/out
  local what=$1 body=$2
  "$TEST_PYTHON" -c "import json, os, sys
d = json.load(open('$TMP/out'))
$body" 2>"$TMP/jcheck.err" || fail "$what: $(tail -n 4 "$TMP/jcheck.err" | tr "\n" " ")"
}

probe_one cuda-2.14.1 "$SOURCE_DIR/.pydeps/torch-cuda/bin/python"
probe_one cpu-2.13.0 "$SOURCE_DIR/.pydeps/torch-cpu/bin/python"
probe_one debian-1.13 "$TEST_PYTHON"
((checked > 0)) || fail "no torch could be checked"
