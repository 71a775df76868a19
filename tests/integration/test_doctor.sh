#!/usr/bin/env bash
# flashfit doctor against real components: Debian's torch (its facts must
# equal what `import torch` says), the interpreter cache, every what-if
# override, bad flag values, and broken environments (no interpreter, a
# garbage one, a venv without torch, a garbled torch, a fake CUDA toolkit, a
# PATH without ninja) in which doctor must still finish with exit 0 and say
# what it could not learn. GPU facts through stub drivers: test_doctor_gpu_stubs.sh.
# shellcheck source=tests/integration/lib.sh
source "$(dirname "$0")/lib.sh"

# Nothing of the caller's cache or GPU stubs leaks in; each part gets a fresh
# cache dir (new_cache) so no run sees another's interpreter facts.
unset "${!FLASHFIT_STUB_@}" NO_COLOR
export XDG_CACHE_HOME=$TMP/xdg-cache
new_cache() {
  FLASHFIT_CACHE_DIR=$(mktemp -d "$TMP/cache.XXXXXX")
  export FLASHFIT_CACHE_DIR
}
new_cache

# doctor [VAR=VALUE...] ARGS...: flashfit doctor with those variables set
# (through env, so timeout and env themselves are still found on PATH).
doctor() {
  local vars=()
  while (($#)) && [[ $1 == [A-Z_]*=* ]]; do
    vars+=("$1")
    shift
  done
  capture env "${vars[@]}" "$FLASHFIT" doctor "$@"
}

# jcheck WHAT CODE: runs the Python CODE with `d` = the JSON document on
# stdout and `findings` = {id: finding}; a failed assert fails the test with
# its message (and so does output that is not JSON).
jcheck() {
  local what=$1 code=$2 msg
  if ! msg=$(timeout 30 "$TEST_PYTHON" - "$TMP/out" "$code" 2>&1 <<'PY'
import json, sys
try:
    d = json.load(open(sys.argv[1], encoding="utf-8"))
except ValueError as e:
    print("stdout is not JSON:", e)
    sys.exit(1)
findings = {f["id"]: f for f in d.get("findings", [])}
try:
    exec(sys.argv[2], {"d": d, "findings": findings, "json": json})
except AssertionError as e:
    print(e)
    sys.exit(1)
except (KeyError, TypeError, IndexError) as e:
    print("unexpected JSON shape:", type(e).__name__, e)
    sys.exit(1)
PY
  ); then
    fail "$what: $msg"
  fi
}

# A doctor run that must finish: exit 0, JSON on stdout, no crash text.
expect_doctor_ok() {
  local what=$1 bad
  expect_rc 0 "$what"
  [[ -s $TMP/out ]] || fail "$what: nothing on stdout"
  for bad in 'what()' 'terminate called' 'internal error' 'Assertion' 'Traceback'; do
    ! grep -qF -- "$bad" "$TMP/err" || fail "$what: stderr contains '$bad'"
  done
}

# --- The real machine: facts agree with `import torch` ------------------------
timeout 120 "$TEST_PYTHON" -c '
import json, os, torch
print(json.dumps({
    "version": torch.__version__,
    "cuda": torch.version.cuda,
    "abi": bool(torch._C._GLIBCXX_USE_CXX11_ABI),
    "lib": os.path.dirname(torch.__file__) + "/lib",
}))' >"$TMP/torch.json" 2>"$TMP/torch.err" ||
  fail "'$TEST_PYTHON -c \"import torch\"' failed (the oracle is missing): $(head -c 500 "$TMP/torch.err")"
TORCH_FACTS=$(<"$TMP/torch.json")

doctor --python "$TEST_PYTHON" --json
expect_doctor_ok "doctor --json"
expect_err_empty
jcheck "torch facts vs import torch" "
want = json.loads('''$TORCH_FACTS''')
t = d['torch']
assert t['version']['value'] == want['version'], f\"torch.version {t['version']} != {want['version']!r}\"
want_cuda = 'none' if want['cuda'] is None else want['cuda']
assert t['cuda']['value'] == want_cuda, f\"torch.cuda {t['cuda']} != {want_cuda!r}\"
assert t['cxx11_abi']['value'] is want['abi'], f\"torch.cxx11_abi {t['cxx11_abi']} != {want['abi']}\"
assert t['library_dir']['value'] == want['lib'], f\"torch.library_dir {t['library_dir']} != {want['lib']!r}\"
for k in ('version', 'cuda', 'cxx11_abi', 'library_dir'):
    assert t[k]['overridden'] is False, f'torch.{k} marked overridden without a flag'
    assert t[k]['source'], f'torch.{k} has no source'
"
jcheck "python facts" "
i = d['python']['interpreter']
assert i['value'] is not None, f'interpreter unknown: {i}'
assert i['value']['executable'] == '$TEST_PYTHON', f\"executable {i['value']['executable']!r}\"
assert i['value']['found_by'] == '--python', i['value']['found_by']
v = d['python']['version']['value']
assert i['value']['version'].startswith(v + '.'), f'python.version {v!r} vs interpreter {i[\"value\"][\"version\"]!r}'
assert d['what_if'] == [], f\"what_if {d['what_if']} without flags\"
"
if [[ $(json_field "$TMP/torch.json" 'd["cuda"] is None') == True ]]; then
  jcheck "cpu-only-torch" "
f = findings.get('cpu-only-torch')
assert f, f'no cpu-only-torch finding for a CPU torch: {sorted(findings)}'
assert f['severity'] == 'problem', f
assert f['fix'], 'cpu-only-torch without a fix'
"
else
  skip_note "torch is a CUDA build here: cpu-only-torch not checked"
fi
if [[ ! -e /proc/driver/nvidia/version ]]; then
  jcheck "no-gpu" "
f = findings.get('no-gpu')
assert f, f'no no-gpu finding on a machine without an NVIDIA driver: {sorted(findings)}'
assert f['severity'] == 'warning', f
assert 'scaled_dot_product_attention' in f['fix'], f
assert 'flashfit fallback' in f['fix'], f
assert d['gpu']['presence'] in ('no-driver', 'no-gpu'), d['gpu']['presence']
"
else
  skip_note "an NVIDIA driver is loaded here: no-gpu not checked (see test_doctor_gpu_stubs)"
fi

# Every fact has value/source/overridden, and unknown_reason exactly when the
# value is null; the walk must meet every top-level fact the schema names.
FACT_WALK='
seen = set()
def walk(node, path):
    if isinstance(node, dict):
        if {"value", "source", "overridden", "unknown_reason"} & node.keys():
            for key in ("value", "source", "overridden"):
                assert key in node, f"{path}: fact lacks {key!r}: {node}"
            assert isinstance(node["source"], str), f"{path}: source is not a string"
            assert isinstance(node["overridden"], bool), f"{path}: overridden is not a bool"
            if node["value"] is None:
                r = node.get("unknown_reason")
                assert isinstance(r, str) and r.strip(), f"{path}: null value without an unknown_reason: {node}"
            else:
                assert "unknown_reason" not in node, f"{path}: known value with an unknown_reason: {node}"
            seen.add(path)
            walk(node["value"], path + ".value")
        else:
            for k, v in node.items():
                walk(v, f"{path}.{k}" if path else k)
    elif isinstance(node, list):
        for n, v in enumerate(node):
            walk(v, f"{path}[{n}]")
walk({k: v for k, v in d.items() if k != "findings"}, "")
expected = """machine.os machine.kernel machine.arch machine.libc machine.cpu_count
machine.memory_total_bytes machine.memory_available_bytes python.interpreter python.version
python.uv torch.package_dir torch.version torch.cuda torch.hip torch.cxx11_abi
torch.pybind11_internals_id torch.cuda_runtime_packages torch.library_dir gpu.driver_version
gpu.driver_cuda gpu.gpus toolkit.nvcc toolkit.cuda_home toolkit.cuda_version toolkit.host_compiler
toolkit.host_compiler_version toolkit.host_compiler_max_major toolkit.ninja toolkit.ninja_version""".split()
missing = [p for p in expected if p not in seen]
assert not missing, f"facts missing from the JSON: {missing}"
for f in d["findings"]:
    assert set(f) == {"id", "severity", "message", "fix"}, f"finding shape: {f}"
    assert f["severity"] in ("problem", "warning", "note"), f
    assert f["id"] and f["message"], f
'
jcheck "fact shape" "$FACT_WALK"
pass_note "doctor --json: torch $(json_field "$TMP/torch.json" 'd["version"]') facts equal import torch; every fact well formed"

# --- The text report ------------------------------------------------------------
doctor --python "$TEST_PYTHON"
expect_rc 0 "doctor (text)"
expect_err_empty
for section in machine python torch 'GPU and driver' toolkit findings; do
  grep -qx -- "$section" "$TMP/out" || fail "the text report has no '$section' section line"
done
order=$(grep -xE 'machine|python|torch|GPU and driver|toolkit|findings' "$TMP/out" | tr '\n' '/')
[[ $order == 'machine/python/torch/GPU and driver/toolkit/findings/' ]] ||
  fail "sections out of order: $order"
expect_out_contains "interpreter    $TEST_PYTHON"
expect_out_contains "version        $(json_field "$TMP/torch.json" 'd["version"]')"
! grep -q '^what-if:' "$TMP/out" || fail "a what-if header without what-if flags"
! grep -qF '[what-if' "$TMP/out" || fail "a what-if marker without what-if flags"
! LC_ALL=C grep -q $'[\x01-\x08\x0b-\x1f\x7f]' "$TMP/out" || fail "control bytes in the text report"
pass_note "text report: six sections in order, stdout only"

# --- The interpreter cache --------------------------------------------------------
new_cache
doctor --python "$TEST_PYTHON" --json
expect_doctor_ok "first run, empty cache"
jcheck "first run" "
i = d['python']['interpreter']
assert i['value']['from_cache'] is False, f'first run with an empty cache says from_cache: {i}'
assert 'cached' not in i['source'], i['source']
"
cp "$TMP/out" "$TMP/cold.json"
[[ -n $(find "$FLASHFIT_CACHE_DIR" -type f) ]] || fail "the first run wrote nothing to the cache"
doctor --python "$TEST_PYTHON" --json
expect_doctor_ok "second run"
jcheck "second run" "
i = d['python']['interpreter']
assert i['value']['from_cache'] is True, f'second run did not use the cache: {i}'
cold = json.load(open('$TMP/cold.json'))['python']['interpreter']['value']
warm = dict(i['value'])
for k in ('from_cache',):
    cold.pop(k); warm.pop(k)
assert cold == warm, f'cached facts differ from fresh ones: {cold} vs {warm}'
"
# A corrupt entry is a miss, not an error, and the next run repairs it.
while IFS= read -r -d '' entry; do
  printf '\xff\x00{"garbage' >"$entry"
done < <(find "$FLASHFIT_CACHE_DIR" -type f ! -name CACHEDIR.TAG -print0)
doctor --python "$TEST_PYTHON" --json
expect_doctor_ok "corrupt cache entry"
jcheck "corrupt cache" "assert d['python']['interpreter']['value']['from_cache'] is False, 'a corrupt entry was used'"
doctor --python "$TEST_PYTHON" --json
jcheck "repaired cache" "assert d['python']['interpreter']['value']['from_cache'] is True, 'the corrupt entry was not rewritten'"
# A cache that cannot be created only costs speed.
: >"$TMP/a-file"
doctor FLASHFIT_CACHE_DIR="$TMP/a-file/cache" --python "$TEST_PYTHON" --json
expect_doctor_ok "an impossible cache dir"
jcheck "impossible cache dir" "assert d['python']['interpreter']['value']['from_cache'] is False"
pass_note "cache: from_cache false then true; corrupt entries are misses; an impossible cache dir is harmless"

# --- What-if overrides ------------------------------------------------------------
new_cache
# shellcheck disable=SC2054  # the commas belong to --gpu 8.0,8.9
WHAT_IF=(--torch 2.8.0+cu128 --gpu 8.0,8.9 --driver 570.124.06 --cxx11-abi FALSE --glibc 2.31
         --arch aarch64 --python-version 3.12)
doctor --python "$TEST_PYTHON" "${WHAT_IF[@]}" --json
expect_doctor_ok "what-if"
expect_err_empty
jcheck "what-if facts" "
def fact(path):
    node = d
    for k in path.split('.'):
        node = node[k]
    return node
want = {
    'torch.version': ('2.8.0+cu128', '--torch'),
    'torch.cuda': ('12.8', '--torch'),
    'torch.cxx11_abi': (False, '--cxx11-abi'),
    'gpu.driver_version': ('570.124.06', '--driver'),
    'gpu.driver_cuda': ('12.8', '--driver'),
    'machine.libc': ({'name': 'glibc', 'version': '2.31'}, '--glibc'),
    'machine.arch': ('aarch64', '--arch'),
    'python.version': ('3.12', '--python-version'),
}
for path, (value, flag) in want.items():
    f = fact(path)
    assert f['value'] == value, f'{path}: {f} (wanted {value!r})'
    assert f['overridden'] is True, f'{path} not marked overridden: {f}'
    assert flag in f['source'], f'{path}: source {f[\"source\"]!r} does not name {flag}'
g = d['gpu']
assert g['presence'] == 'gpus-found', g['presence']
assert g['gpus']['overridden'] is True and g['gpus']['source'] == '--gpu', g['gpus']
caps = [x['compute_capability']['value'] for x in g['gpus']['value']]
assert caps == ['8.0', '8.9'], caps
for x in g['gpus']['value']:
    assert x['compute_capability']['overridden'] is True, x
# Facts no flag touched stay probed.
for path in ('machine.os', 'machine.kernel', 'torch.library_dir', 'python.interpreter'):
    assert fact(path)['overridden'] is False, f'{path} marked overridden: {fact(path)}'
assert d['python']['interpreter']['value']['executable'] == '$TEST_PYTHON'
assert 'cpu-only-torch' not in findings, 'cpu-only-torch with --torch 2.8.0+cu128'
assert 'no-gpu' not in findings, 'no-gpu with --gpu 8.0,8.9'
assert 'gpu-too-old' not in findings, findings.get('gpu-too-old')
assert 'driver-too-old' not in findings, findings.get('driver-too-old')
f = findings.get('old-glibc')
assert f and '2.31' in f['message'], f'no old-glibc finding for --glibc 2.31: {sorted(findings)}'
for flag in ('--torch 2.8.0+cu128', '--gpu 8.0,8.9', '--driver 570.124.06', '--cxx11-abi FALSE',
             '--glibc 2.31', '--arch aarch64', '--python-version 3.12'):
    assert flag in d['what_if'], f'what_if {d[\"what_if\"]} lacks {flag!r}'
"
jcheck "what-if fact shape" "$FACT_WALK"

doctor --python "$TEST_PYTHON" "${WHAT_IF[@]}"
expect_rc 0 "what-if (text)"
expect_err_empty
head -n 1 "$TMP/out" | grep -q '^what-if: .*--torch 2.8.0+cu128' ||
  fail "the text report does not open with the 'what-if:' line: $(head -n 1 "$TMP/out")"
for marker in '[what-if --torch]' '[what-if --cxx11-abi]' '[what-if --gpu]' '[what-if --driver]' \
              '[what-if --glibc]' '[what-if --arch]' '[what-if --python-version]'; do
  expect_out_contains "$marker"
done
grep -q '^  arch  .*aarch64  \[what-if --arch\]$' "$TMP/out" || fail "the arch line is not marked what-if"
! grep -q 'cpu-only-torch' "$TMP/out" || fail "cpu-only-torch in the what-if text report"
expect_out_contains 'old-glibc'

# An explicit --cuda wins over the torch label and says so.
doctor --python "$TEST_PYTHON" --torch 2.8.0+cu128 --cuda 12.6 --json
expect_doctor_ok "--cuda over the label"
jcheck "--cuda 12.6" "
c = d['torch']['cuda']
assert c['value'] == '12.6' and c['source'] == '--cuda' and c['overridden'] is True, c
"
doctor --python "$TEST_PYTHON" --cuda none --json
jcheck "--cuda none" "
c = d['torch']['cuda']
assert c['value'] == 'none' and c['source'] == '--cuda', c
assert 'cpu-only-torch' in findings, sorted(findings)
"
pass_note "what-if: every override marked with its flag, findings follow the overrides"

doctor --python "$TEST_PYTHON" --gpu 7.5 --json
expect_doctor_ok "--gpu 7.5"
jcheck "--gpu 7.5" "
f = findings.get('gpu-too-old')
assert f, f'no gpu-too-old for a 7.5 GPU: {sorted(findings)}'
assert f['severity'] == 'problem', f
assert '7.5' in f['message'], f
assert 'scaled_dot_product_attention' in f['message'] + f['fix'], f
assert 'no-gpu' not in findings, findings
"
doctor --python "$TEST_PYTHON" --gpu 8.0,7.0 --json
jcheck "--gpu 8.0,7.0" "
f = findings.get('gpu-too-old')
assert f and 'GPU 1 ' in f['message'] and '7.0' in f['message'], f'gpu-too-old must name GPU 1: {f}'
assert 'GPU 0 ' not in f['message'], f
"
doctor --python "$TEST_PYTHON" --torch 2.8.0+cu128 --driver 470.82.01 --json
expect_doctor_ok "--driver 470.82.01"
jcheck "driver-too-old" "
f = findings.get('driver-too-old')
assert f, f'no driver-too-old for a 470 driver and a cu128 torch: {sorted(findings)}'
assert f['severity'] == 'problem' and '12.8' in f['message'], f
assert '525.60.13' in f['fix'], f
assert d['gpu']['driver_cuda']['value'] == '11.4', f\"driver 470.82.01 supports CUDA 11.4, not {d['gpu']['driver_cuda']}\"
"
doctor --python "$TEST_PYTHON" --torch 2.4.0+cu121 --driver 535.54.03 --json
jcheck "a driver that runs the build" "
assert d['gpu']['driver_cuda']['value'] == '12.2', d['gpu']['driver_cuda']
assert 'driver-too-old' not in findings and 'driver-older-minor' not in findings, sorted(findings)
"
doctor --python "$TEST_PYTHON" --torch 2.8.0+cu128 --driver 560.28.03 --json
jcheck "driver-older-minor" "
f = findings.get('driver-older-minor')
assert f and f['severity'] == 'warning', f'no driver-older-minor for a CUDA 12.6 driver and cu128: {sorted(findings)}'
assert '12.8' in f['fix'], f
"
doctor --python "$TEST_PYTHON" --gpu none --json
expect_doctor_ok "--gpu none"
jcheck "--gpu none" "
assert 'no-gpu' in findings, f'no no-gpu finding for --gpu none: {sorted(findings)}'
g = d['gpu']
assert g['presence'] == 'no-gpu' and g['gpus']['value'] == [] and g['gpus']['overridden'] is True, g
"
pass_note "what-if: gpu-too-old, driver-too-old, driver-older-minor, --gpu none"

# --- Bad flag values: exit 2, the flag named, nothing on stdout ------------------
bad_flag() {
  local flag=$1 value=$2
  doctor --python "$TEST_PYTHON" "$flag" "$value"
  expect_clean_error 2 "$flag '$value'"
  expect_err_contains "$flag"
  doctor --python "$TEST_PYTHON" --json "$flag" "$value"
  expect_clean_error 2 "$flag '$value' --json"
}
bad_flag --gpu sm_8x
expect_err_contains "'sm_8x'"
bad_flag --gpu H1000
expect_err_contains "did you mean H100"
bad_flag --gpu 8.0,
bad_flag --gpu 8
bad_flag --cuda 12
bad_flag --cuda cu128
bad_flag --torch 2.8.0+
bad_flag --torch 'not a version'
bad_flag --cxx11-abi yes
bad_flag --driver 570
bad_flag --driver 570.x.06
bad_flag --glibc 2
bad_flag --glibc 3.1
bad_flag --arch riscv64
bad_flag --python-version 2.7
bad_flag --python-version 3
bad_flag --gpu $'8.0\e[31m'
pass_note "bad what-if values: exit 2, the flag named, stdout empty"

# --- An interpreter that cannot be asked: an error, never a report without it ----
# (the same for every command: test_bad_interpreters.sh; issue 13 item 3.) A named
# --python that does not exist is exit 2, one that runs and cannot answer exit 1,
# and a what-if --python-version does not replace the interpreter the user named.
doctor --python /nonexistent --json
expect_clean_error 2 "--python /nonexistent"
expect_err_contains "no executable interpreter at '/nonexistent'"
expect_err_contains 'hint: pass --python'
doctor --python /nonexistent
expect_clean_error 2 "--python /nonexistent (text)"

mkdir -p "$TMP/bin"
printf '#!/bin/sh\necho "I am not python, here is garbage: {{{"\n' >"$TMP/bin/garbage"
chmod +x "$TMP/bin/garbage"
doctor --python "$TMP/bin/garbage" --json
expect_clean_error 1 "a garbage interpreter"
expect_err_contains 'not a JSON object'
printf '#!/bin/sh\nexit 3\n' >"$TMP/bin/exit3"
chmod +x "$TMP/bin/exit3"
doctor --python "$TMP/bin/exit3" --json
expect_clean_error 1 "an interpreter that exits 3"
expect_err_contains 'status 3'

doctor --python /nonexistent --python-version 3.12 --json
expect_clean_error 2 "--python /nonexistent --python-version 3.12"
pass_note "no interpreter, a garbage one, one that fails, with --python-version: clean errors"

"$TEST_PYTHON" -m venv --without-pip "$TMP/venv" || fail "could not create a venv"
doctor --python "$TMP/venv/bin/python" --json
expect_doctor_ok "a venv without torch"
jcheck "venv without torch" "
i = d['python']['interpreter']['value']
assert i['in_venv'] is True and i['executable'] == '$TMP/venv/bin/python', i
assert not any(s.startswith('/usr/lib/python3') for s in i['site_dirs']), i['site_dirs']
p = d['torch']['package_dir']
assert p['value'] is None and 'not installed' in p['unknown_reason'], p
f = findings.get('no-torch')
assert f and f['severity'] == 'problem' and '$TMP/venv/bin/python' in f['message'], f'no-torch: {sorted(findings)}'
assert 'cpu-only-torch' not in findings, findings
"
doctor --python "$TMP/venv/bin/python"
expect_rc 0 "a venv without torch (text)"
expect_out_contains 'not installed'

# The same venv sees Debian's torch once it may use the system site-packages.
"$TEST_PYTHON" -m venv --without-pip --system-site-packages "$TMP/venv-sys" || fail "could not create a venv"
doctor --python "$TMP/venv-sys/bin/python" --json
expect_doctor_ok "a venv with system site-packages"
jcheck "venv with system site-packages" "
want = json.loads('''$TORCH_FACTS''')
assert d['torch']['version']['value'] == want['version'], d['torch']['version']
assert 'no-torch' not in findings, sorted(findings)
"

# A torch package whose version.py is garbled and which has no lib dir.
"$TEST_PYTHON" -m venv --without-pip "$TMP/venv-garbled" || fail "could not create a venv"
SITE=$(ls -d "$TMP"/venv-garbled/lib/python3.*/site-packages) || fail "no site-packages in the venv"
mkdir -p "$SITE/torch"
: >"$SITE/torch/__init__.py"
# (printf formats, so that NUL bytes survive.)
garbled_versions=(
  '__version__ = (((garbled\ncuda = \n'
  '__version__ = "2.8.0+cu128\ncuda = "12.8\n'
  '__version__ = 42\n'
  'this is not python {{{\n'
  "__version__ = '2.8.0'\\000\\377\\376\\ncuda = None\\n"
  ''
)
for format in "${garbled_versions[@]}"; do
  # shellcheck disable=SC2059  # the format is the fixture
  printf -- "$format" >"$SITE/torch/version.py"
  doctor --python "$TMP/venv-garbled/bin/python" --json
  expect_doctor_ok "garbled version.py '$format'"
  jcheck "garbled version.py '$format'" "
t = d['torch']
assert t['package_dir']['value'] == '$SITE/torch', t['package_dir']
assert t['version']['value'] is None and t['version']['unknown_reason'], f'version read from garbage: {t[\"version\"]}'
assert t['library_dir']['value'] is None and 'lib' in t['library_dir']['unknown_reason'], t['library_dir']
assert t['cxx11_abi']['value'] is None, t['cxx11_abi']
assert 'no-torch' not in findings, 'torch is there, only garbled'
assert 'torch-abi-unknown' in findings, sorted(findings)
"
  jcheck "garbled version.py shape" "$FACT_WALK"
done
doctor --python "$TMP/venv-garbled/bin/python"
expect_rc 0 "garbled torch (text)"
grep -q '^  version        unknown: ' "$TMP/out" || fail "the text report does not say the torch version is unknown"
pass_note "venvs: no torch -> no-torch; garbled torch/version.py and no lib dir -> unknown with reasons"

# A fake CUDA 11.8 toolkit: nvcc 11.8 accepts GCC up to 11.
mkdir -p "$TMP/cuda-11.8/bin"
cat >"$TMP/cuda-11.8/bin/nvcc" <<'EOF'
#!/bin/sh
echo "nvcc: NVIDIA (R) Cuda compiler driver"
echo "Copyright (c) 2005-2022 NVIDIA Corporation"
echo "Cuda compilation tools, release 11.8, V11.8.89"
echo "Build cuda_11.8.r11.8/compiler.31833905_0"
EOF
chmod +x "$TMP/cuda-11.8/bin/nvcc"
GXX=$(command -v g++) || fail "no g++ on PATH"
GXX_MAJOR=$("$GXX" -dumpversion | cut -d. -f1)
doctor CUDA_HOME="$TMP/cuda-11.8" CUDA_PATH= CUDAHOSTCXX= CXX= --python "$TEST_PYTHON" --json
expect_doctor_ok "CUDA_HOME with nvcc 11.8"
jcheck "nvcc 11.8" "
t = d['toolkit']
assert t['nvcc']['value'] == '$TMP/cuda-11.8/bin/nvcc' and t['nvcc']['source'] == 'CUDA_HOME', t['nvcc']
assert t['cuda_version']['value'].startswith('11.8'), t['cuda_version']
assert t['host_compiler_version']['value']['version'].split('.')[0] == '$GXX_MAJOR', t['host_compiler_version']
if $GXX_MAJOR > 11:
    # ('too-new' in the JSON; builds before the kebab-case fix printed 'too new')
    assert t['host_compiler_check']['verdict'] in ('too new', 'too-new'), t['host_compiler_check']
    f = findings.get('host-compiler-too-new')
    assert f and '11' in f['message'] and 'g++-11' in f['fix'], f'host-compiler-too-new: {sorted(findings)}'
else:
    assert 'host-compiler-too-new' not in findings, findings
"
[[ $GXX_MAJOR -gt 11 ]] || skip_note "g++ $GXX_MAJOR is not newer than 11: host-compiler-too-new not exercised"
doctor CUDA_HOME="$TMP/cuda-11.8" --python "$TEST_PYTHON" --torch 2.8.0+cu128 --json
jcheck "nvcc 11.8 vs a cu128 torch" "
f = findings.get('nvcc-major-mismatch')
assert f and '11.8' in f['message'] and '12.8' in f['message'], f'nvcc-major-mismatch: {sorted(findings)}'
"
# nvcc that answers garbage, or fails: the version is unknown with a reason.
mkdir -p "$TMP/cuda-bad/bin"
printf '#!/bin/sh\necho "hello from a very strange nvcc"\n' >"$TMP/cuda-bad/bin/nvcc"
chmod +x "$TMP/cuda-bad/bin/nvcc"
doctor CUDA_HOME="$TMP/cuda-bad" --python "$TEST_PYTHON" --json
expect_doctor_ok "nvcc printing garbage"
jcheck "nvcc garbage" "
c = d['toolkit']['cuda_version']
assert c['value'] is None and c['unknown_reason'], c
"
printf '#!/bin/sh\necho boom >&2\nexit 1\n' >"$TMP/cuda-bad/bin/nvcc"
doctor CUDA_HOME="$TMP/cuda-bad" --python "$TEST_PYTHON" --json
expect_doctor_ok "nvcc exiting 1"
jcheck "nvcc exit 1" "
c = d['toolkit']['cuda_version']
assert c['value'] is None and c['unknown_reason'], c
"
pass_note "fake toolkits: nvcc 11.8 -> host-compiler-too-new (g++ $GXX_MAJOR), nvcc-major-mismatch; garbage nvcc -> unknown"

# A PATH with python3 and g++ only: no ninja.
mkdir -p "$TMP/path-no-ninja"
ln -s "$TEST_PYTHON" "$TMP/path-no-ninja/python3"
ln -s "$GXX" "$TMP/path-no-ninja/g++"
doctor PATH="$TMP/path-no-ninja" --python "$TEST_PYTHON" --json
expect_doctor_ok "PATH without ninja"
jcheck "no ninja" "
n = d['toolkit']['ninja']
assert n['value'] is None and 'ninja' in n['unknown_reason'], n
f = findings.get('no-ninja')
assert f and f['severity'] == 'warning' and 'ninja' in f['fix'], f'no-ninja: {sorted(findings)}'
assert d['toolkit']['host_compiler']['value'] == '$TMP/path-no-ninja/g++', d['toolkit']['host_compiler']
"
# And the python3 on that PATH is the interpreter doctor picks by itself.
doctor PATH="$TMP/path-no-ninja" --json
expect_doctor_ok "PATH without ninja, no --python"
jcheck "python3 from PATH" "
i = d['python']['interpreter']['value']
assert i is not None and i['executable'] == '$TMP/path-no-ninja/python3', d['python']['interpreter']
"
pass_note "PATH without ninja -> no-ninja"

# --- The user site: where Python looks now, even from a cached answer ---
# site.py puts ~/.local/lib/pythonX.Y/site-packages on sys.path only when it
# exists at start; an answer cached before `pip install --user` created it must
# not hide a torch installed there (it comes before the system's).
USER_HOME=$TMP/user-home
mkdir -p "$USER_HOME"
user_torch() { capture env HOME="$USER_HOME" "$@" "$FLASHFIT" doctor --python "$TEST_PYTHON" --json; }
user_torch env
expect_rc 0 "doctor with an empty home"
[[ $(json_field "$TMP/out" 'd["torch"]["version"]["value"]') == 1.13* ]] ||
  fail "without a user site, not Debian's torch: $(json_field "$TMP/out" 'd["torch"]["version"]')"
USER_SITE=$(HOME=$USER_HOME "$TEST_PYTHON" -c 'import site; print(site.getusersitepackages())')
mkdir -p "$USER_SITE/torch"
: >"$USER_SITE/torch/__init__.py"
printf '__version__ = "2.9.1+cu128"\ncuda = "12.8"\n' >"$USER_SITE/torch/version.py"
python_sees=$(HOME=$USER_HOME "$TEST_PYTHON" -c 'import torch.version as v; print(v.__version__)')
[[ $python_sees == 2.9.1+cu128 ]] || fail "Python itself does not see the user site's torch: $python_sees"
user_torch env
expect_rc 0 "doctor after the user site was created (the interpreter's answer cached before)"
[[ $(json_field "$TMP/out" 'd["torch"]["version"]["value"]') == 2.9.1+cu128 ]] ||
  fail "the user site's torch, which Python imports, is not the one found: $(json_field "$TMP/out" 'd["torch"]["version"]')"
user_torch env PYTHONNOUSERSITE=1
expect_rc 0 "doctor with PYTHONNOUSERSITE=1"
[[ $(json_field "$TMP/out" 'd["torch"]["version"]["value"]') == 1.13* ]] ||
  fail "PYTHONNOUSERSITE=1 still found the user site's torch"
rm -rf "$USER_SITE"
user_torch env
[[ $(json_field "$TMP/out" 'd["torch"]["version"]["value"]') == 1.13* ]] ||
  fail "the user site is gone, but its torch is still found"
pass_note "user site: a torch put there after the interpreter's answer was cached is found (as Python imports it); PYTHONNOUSERSITE and its removal are followed"

# --- Version-manager shims: asdf's followed without running it; any other
# launcher runs in the caller's working directory, as when they run it ---
# An asdf tree as asdf leaves it (its Go line's shim template, the python
# plugin without callbacks); asdf itself is not installed here, so `asdf` on
# PATH is a stand-in that notes each run and execs what asdf would.
new_cache
AH=$TMP/asdf-home
mkdir -p "$AH/.asdf/shims" "$AH/.asdf/plugins/python/bin" "$AH/.asdf/installs/python/3.11.99/bin" \
  "$AH/bin" "$AH/project/sub"
ln -s "$(readlink -f "$TEST_PYTHON")" "$AH/.asdf/installs/python/3.11.99/bin/python3"
printf '#!/usr/bin/env bash\n# asdf-plugin: python 3.11.99\nexec asdf exec "python3" "$@"' \
  >"$AH/.asdf/shims/python3"
printf '#!/bin/sh\necho "$PWD" >>"%s/asdf-ran"\nshift 2\nexec "%s" "$@"\n' "$AH" \
  "$AH/.asdf/installs/python/3.11.99/bin/python3" >"$AH/bin/asdf"
chmod +x "$AH/.asdf/shims/python3" "$AH/bin/asdf"
echo "python 3.11.99" >"$AH/project/.tool-versions"
asdf_doctor() {
  capture env HOME="$AH" PATH="$AH/.asdf/shims:$AH/bin:/usr/bin:/bin" "$@" \
    sh -c 'cd "$1/project/sub" && exec "$2" doctor --python "$1/.asdf/shims/python3" --json' \
    sh "$AH" "$FLASHFIT"
}
asdf_doctor
expect_doctor_ok "doctor through an asdf shim"
jcheck "doctor through an asdf shim" '
i = d["python"]["interpreter"]["value"]
assert i["executable"].endswith("/installs/python/3.11.99/bin/python3"), i'
[[ ! -e $AH/asdf-ran ]] || fail "the asdf shim was run: its rules were not followed here"
asdf_doctor
jcheck "doctor through the asdf shim again" 'assert d["python"]["interpreter"]["value"]["from_cache"], d["python"]'
# A pre-exec hook in ~/.asdfrc runs before the interpreter: the shim must run.
echo "pre_python_python3 = true" >"$AH/.asdfrc"
asdf_doctor
expect_doctor_ok "doctor through an asdf shim with a hook"
[[ $(cat "$AH/asdf-ran" 2>/dev/null) == "$AH/project/sub" ]] ||
  fail "with a hook the shim did not run, or not in the caller's directory: $(cat "$AH/asdf-ran" 2>&1)"
pass_note "an asdf shim is followed to installs/python/3.11.99 without running asdf (then cached); with a pre-exec hook the shim runs, in the caller's directory"

# A launcher flashfit cannot follow picks by the working directory; a
# project's json.py there does not stand in for the standard library.
VENV_PICK=$TMP/venv-pick
timeout 120 "$TEST_PYTHON" -m venv --without-pip "$VENV_PICK" || fail "cannot create a venv"
printf '#!/bin/sh\nif [ -f .use-venv ]; then exec "%s" "$@"; fi\nexec "%s" "$@"\n' \
  "$VENV_PICK/bin/python3" "$TEST_PYTHON" >"$AH/bin/pick-python"
chmod +x "$AH/bin/pick-python"
mkdir -p "$TMP/pick-project"
: >"$TMP/pick-project/.use-venv"
echo 'raise SystemExit("the project json.py was imported")' >"$TMP/pick-project/json.py"
echo 'raise SystemExit("the project platform.py was imported")' >"$TMP/pick-project/platform.py"
capture sh -c 'cd "$1" && exec "$2" doctor --python "$3" --json' sh "$TMP/pick-project" "$FLASHFIT" \
  "$AH/bin/pick-python"
expect_doctor_ok "doctor through a launcher that picks by the working directory"
jcheck "the launcher's pick in the caller's directory" "
assert d['python']['interpreter']['value']['prefix'] == '$VENV_PICK', d['python']['interpreter']"
capture sh -c 'cd / && exec "$1" doctor --python "$2" --json' sh "$FLASHFIT" "$AH/bin/pick-python"
jcheck "the launcher's pick elsewhere" "
assert d['python']['interpreter']['value']['prefix'] != '$VENV_PICK', d['python']['interpreter']"
# The same as an ELF file named python3 (rye's and proto's shims are ELF
# copies of their tool under Python's name): known by its answer, not its name.
mkdir -p "$AH/elf"
cc -x c -o "$AH/elf/python3" - <<C || fail "cannot compile the launcher with cc"
#include <unistd.h>
int main(int argc, char **argv) {
  (void)argc;
  const char *python = access(".use-venv", F_OK) == 0 ? "$VENV_PICK/bin/python3" : "$TEST_PYTHON";
  argv[0] = (char *)python;
  execv(python, argv);
  return 127;
}
C
capture sh -c 'cd "$1" && exec "$2" doctor --python "$3" --json' sh "$TMP/pick-project" "$FLASHFIT" \
  "$AH/elf/python3"
expect_doctor_ok "doctor through an ELF launcher named python3"
jcheck "the ELF launcher's pick in the caller's directory" "
assert d['python']['interpreter']['value']['prefix'] == '$VENV_PICK', d['python']['interpreter']"
# Python itself is asked from /: with an empty PYTHONPATH entry (as
# `export PYTHONPATH=$PYTHONPATH:/opt` leaves) Python puts the working
# directory on sys.path before site runs, and would import these.
echo 'raise SystemExit("the project sitecustomize.py was imported")' >"$TMP/pick-project/sitecustomize.py"
echo 'raise SystemExit("the project usercustomize.py was imported")' >"$TMP/pick-project/usercustomize.py"
capture env PYTHONPATH=":$TMP/nonexistent" sh -c 'cd "$1" && exec "$2" doctor --python "$3" --json' sh \
  "$TMP/pick-project" "$FLASHFIT" "$VENV_PICK/bin/python3"
expect_doctor_ok "doctor of a venv's python from a project directory, PYTHONPATH with an empty entry"
jcheck "the venv's facts from a project directory" "
assert d['python']['interpreter']['value']['prefix'] == '$VENV_PICK', d['python']['interpreter']"
# A relative PYTHONPATH entry names a directory under the caller's, as their
# Python reads it (flashfit asks from /), and the answer is not reused elsewhere.
mkdir -p "$TMP/pp-project/vendor/site-packages/torch"
: >"$TMP/pp-project/vendor/site-packages/torch/__init__.py"
printf '__version__ = "2.9.1+cu128"\ncuda = "12.8"\n' >"$TMP/pp-project/vendor/site-packages/torch/version.py"
python_sees=$(cd "$TMP/pp-project" && PYTHONPATH=vendor/site-packages "$TEST_PYTHON" -c 'import torch.version as v; print(v.__version__)')
[[ $python_sees == 2.9.1+cu128 ]] || fail "Python does not see the vendored torch: $python_sees"
new_cache
capture env PYTHONPATH=vendor/site-packages sh -c 'cd "$1" && exec "$2" doctor --python "$3" --json' sh \
  "$TMP/pp-project" "$FLASHFIT" "$TEST_PYTHON"
expect_doctor_ok "doctor with a relative PYTHONPATH entry"
[[ $(json_field "$TMP/out" 'd["torch"]["version"]["value"]') == 2.9.1+cu128 ]] ||
  fail "the torch a relative PYTHONPATH entry names is not the one found: $(json_field "$TMP/out" 'd["torch"]["version"]')"
capture env PYTHONPATH=vendor/site-packages sh -c 'cd / && exec "$1" doctor --python "$2" --json' sh \
  "$FLASHFIT" "$TEST_PYTHON"
[[ $(json_field "$TMP/out" 'd["torch"]["version"]["value"]') == 1.13* ]] ||
  fail "from /, the same relative PYTHONPATH still found the vendored torch (a cached answer reused)"
pass_note "a launcher is asked in the caller's directory (it picked the project's venv there, not from /); Python itself from / (a project's json.py, platform.py, sitecustomize.py are not imported, even with an empty PYTHONPATH entry)"
