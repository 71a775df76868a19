#!/usr/bin/env bash
# flashfit doctor's GPU facts through the real dlopen path, on any machine:
# stub libnvidia-ml.so.1 / libcuda.so.1 (tests/fixtures/gpu_stubs, configured
# by FLASHFIT_STUB_* as stub_common.h documents) on LD_LIBRARY_PATH. Doctor
# must list the GPUs, fall back from NVML to the CUDA driver API, read old
# drivers right, exit 0 whatever the driver says, and never call what it must
# not (the stubs abort on a forbidden call, which shows as a non-zero exit).
# shellcheck source=tests/integration/lib.sh
source "$(dirname "$0")/lib.sh"

# $1 is <build>/src/flashfit; the stubs are built beside it.
BUILD_DIR=$(dirname "$(dirname "$FLASHFIT")")
STUBS=$BUILD_DIR/tests/fixtures/gpu_stubs
for lib in nvml/libnvidia-ml.so.1 nvml_old/libnvidia-ml.so.1 cuda/libcuda.so.1; do
  [[ -f $STUBS/$lib ]] ||
    fail "GPU stub $STUBS/$lib is missing: build the flashfit_nvml_stub, flashfit_nvml_old_stub and flashfit_cuda_stub targets (cmake --build $BUILD_DIR)"
done
NVML=$STUBS/nvml
NVML_OLD=$STUBS/nvml_old
CUDA=$STUBS/cuda

unset "${!FLASHFIT_STUB_@}" LD_PRELOAD
export XDG_CACHE_HOME=$TMP/xdg-cache
FLASHFIT_CACHE_DIR=$(mktemp -d "$TMP/cache.XXXXXX")
export FLASHFIT_CACHE_DIR
LOG=$TMP/stub-calls.log

A100='NVIDIA A100-SXM4-80GB:8.0:85899345920'
L40S='NVIDIA L40S:8.9:48305799168'
T4='Tesla T4:7.5:16106127360'

# gpu_doctor LIBDIRS [VAR=VALUE...] [ARGS...]: doctor --json with the stub
# directories LIBDIRS (colon-separated) first on the loader's path, the
# variables set, and each stub call logged to $LOG.
gpu_doctor() {
  local libdirs=$1 vars=()
  shift
  while (($#)) && [[ $1 == [A-Z_]*=* ]]; do
    vars+=("$1")
    shift
  done
  : >"$LOG"
  capture env LD_LIBRARY_PATH="$libdirs" FLASHFIT_STUB_LOG="$LOG" "${vars[@]}" \
    "$FLASHFIT" doctor --python "$TEST_PYTHON" --json "$@"
}

# jcheck WHAT CODE: Python asserts on `d` (the JSON on stdout), `findings`
# ({id: finding}) and `calls` (the stub calls, in order).
jcheck() {
  local what=$1 code=$2 msg
  if ! msg=$(timeout 30 "$TEST_PYTHON" - "$TMP/out" "$LOG" "$code" 2>&1 <<'PY'
import json, sys
try:
    d = json.load(open(sys.argv[1], encoding="utf-8"))
except ValueError as e:
    print("stdout is not JSON:", e)
    sys.exit(1)
findings = {f["id"]: f for f in d.get("findings", [])}
calls = open(sys.argv[2]).read().split()
try:
    exec(sys.argv[3], {"d": d, "findings": findings, "calls": calls, "json": json})
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

# Doctor finished normally: exit 0 (an abort in a stub would be 134), and no
# stub complained on stderr.
expect_ok() {
  expect_rc 0 "$1"
  expect_err_lacks 'flashfit gpu stub'
  expect_err_empty
}

# NVML's protocol, whatever the scenario: init before anything, one
# shutdown after a successful init, last.
NVML_BALANCED='
n = [c for c in calls if c.startswith("nvml") and c != "nvmlErrorString"]
assert n and n[0] == "nvmlInit_v2", f"NVML calls do not start with nvmlInit_v2: {n}"
assert n[-1] == "nvmlShutdown" and n.count("nvmlShutdown") == 1, f"NVML not shut down exactly once, last: {n}"
'

# --- The guard is live: a forbidden call shows as a failed run ------------------
# (bash's own "Aborted" notice for the killed child is silenced.)
{ gpu_doctor "$NVML:$CUDA" FLASHFIT_STUB_GPUS="$A100" FLASHFIT_STUB_CRASH_ON=nvmlInit_v2; } 2>/dev/null
((RC != 0)) || fail "FLASHFIT_STUB_CRASH_ON=nvmlInit_v2 did not crash flashfit: the stubs are not the libraries loaded"
expect_err_contains 'flashfit gpu stub: forbidden call: nvmlInit_v2'
pass_note "the stubs are the libraries loaded (a forbidden call aborts, exit $RC)"

# --- Two Ampere/Ada GPUs through NVML; libcuda never initialised ---------------
gpu_doctor "$NVML:$CUDA" FLASHFIT_STUB_GPUS="$A100;$L40S" FLASHFIT_STUB_CRASH_ON=cuInit,cuDeviceGetCount
expect_ok "two GPUs"
jcheck "two GPUs" "
g = d['gpu']
assert g['presence'] == 'gpus-found', g['presence']
assert g['gpus']['source'] == 'NVML' and g['gpus']['overridden'] is False, g['gpus']
got = [(x['index'], x['name']['value'], x['compute_capability']['value'], x['memory_bytes']['value'])
       for x in g['gpus']['value']]
want = [(0, 'NVIDIA A100-SXM4-80GB', '8.0', 85899345920), (1, 'NVIDIA L40S', '8.9', 48305799168)]
assert got == want, f'gpus {got} != {want}'
assert g['driver_version']['value'] == '570.124.06' and g['driver_version']['source'] == 'NVML', g['driver_version']
assert g['driver_cuda']['value'] == '12.8' and g['driver_cuda']['source'] == 'NVML', g['driver_cuda']
assert '2 NVIDIA GPUs' in g['summary'], g['summary']
for bad in ('no-gpu', 'gpu-too-old', 'driver-too-old', 'driver-older-minor'):
    assert bad not in findings, f'{bad} with two Ampere/Ada GPUs: {findings[bad]}'
assert not any(c.startswith('cu') for c in calls), f'libcuda was called although NVML answered: {calls}'
$NVML_BALANCED"
capture env LD_LIBRARY_PATH="$NVML:$CUDA" FLASHFIT_STUB_GPUS="$A100;$L40S" \
  "$FLASHFIT" doctor --python "$TEST_PYTHON"
expect_ok "two GPUs (text)"
expect_out_contains 'gpu            0: NVIDIA A100-SXM4-80GB (compute capability 8.0, 80.0 GiB)  (NVML)'
expect_out_contains 'gpu            1: NVIDIA L40S (compute capability 8.9, 45.0 GiB)  (NVML)'
expect_out_contains 'driver         570.124.06  (NVML)'
pass_note "A100 + L40S through NVML: both listed, no GPU finding, libcuda untouched"

# --- A T4 (Turing): gpu-too-old, naming the GPU ---------------------------------
gpu_doctor "$NVML:$CUDA" FLASHFIT_STUB_GPUS="$T4" FLASHFIT_STUB_CRASH_ON=cuInit
expect_ok "a T4"
jcheck "a T4" "
f = findings.get('gpu-too-old')
assert f, f'no gpu-too-old for a T4: {sorted(findings)}'
assert f['severity'] == 'problem', f
assert 'Tesla T4' in f['message'] and '7.5' in f['message'] and 'GPU 0 ' in f['message'], f
assert 'scaled_dot_product_attention' in f['fix'], f
assert 'no-gpu' not in findings, findings
$NVML_BALANCED"
gpu_doctor "$NVML:$CUDA" FLASHFIT_STUB_GPUS="$A100;$T4"
expect_ok "an A100 and a T4"
jcheck "an A100 and a T4" "
f = findings.get('gpu-too-old')
assert f and 'GPU 1 (Tesla T4)' in f['message'], f'gpu-too-old must name GPU 1: {f}'
assert 'A100' not in f['message'], f
"
pass_note "T4 (7.5) -> gpu-too-old naming it; A100 + T4 -> only GPU 1"

# --- NVML says the driver is not loaded: the CUDA driver API answers -------------
# After a failed init, NVML must be neither queried nor shut down.
gpu_doctor "$NVML:$CUDA" FLASHFIT_STUB_GPUS="$A100;$L40S" FLASHFIT_STUB_FAIL_ON=nvmlInit_v2=9 \
  FLASHFIT_STUB_CRASH_ON=nvmlShutdown,nvmlDeviceGetCount_v2,nvmlSystemGetDriverVersion
expect_ok "NVML init fails"
jcheck "CUDA driver API fallback" "
g = d['gpu']
assert g['presence'] == 'gpus-found', g['presence']
assert g['gpus']['source'] == 'CUDA driver API', g['gpus']
got = [(x['name']['value'], x['compute_capability']['value'], x['name']['source']) for x in g['gpus']['value']]
want = [('NVIDIA A100-SXM4-80GB', '8.0', 'CUDA driver API'), ('NVIDIA L40S', '8.9', 'CUDA driver API')]
assert got == want, f'{got} != {want}'
assert g['driver_cuda']['value'] == '12.8' and g['driver_cuda']['source'] == 'CUDA driver API', g['driver_cuda']
# The driver version only NVML (or /proc) knows: unknown, saying why.
dv = g['driver_version']
if dv['value'] is None:
    assert 'Driver Not Loaded' in dv['unknown_reason'], dv
assert 'no-gpu' not in findings, findings
assert calls.count('nvmlInit_v2') == 1 and 'cuInit' in calls, calls
"
pass_note "nvmlInit_v2 fails (9): GPUs and CUDA version from the CUDA driver API, NVML left alone"

# --- NVML lacks the CUDA version: libcuda asked for it, without cuInit -----------
gpu_doctor "$NVML:$CUDA" FLASHFIT_STUB_GPUS="$A100" \
  FLASHFIT_STUB_FAIL_ON=nvmlSystemGetCudaDriverVersion_v2=3 \
  FLASHFIT_STUB_CRASH_ON=cuInit,cuDeviceGetCount,cuDeviceGet
expect_ok "NVML without the CUDA version"
jcheck "CUDA version from libcuda" "
g = d['gpu']
assert g['gpus']['source'] == 'NVML', g['gpus']
assert g['driver_cuda']['value'] == '12.8' and g['driver_cuda']['source'] == 'CUDA driver API', g['driver_cuda']
assert 'cuDriverGetVersion' in calls, calls
$NVML_BALANCED"

# --- An older libnvidia-ml: no _v2 CUDA call, no memory info ---------------------
gpu_doctor "$NVML_OLD:$CUDA" FLASHFIT_STUB_GPUS="$A100" FLASHFIT_STUB_CRASH_ON=cuInit
expect_ok "old NVML"
jcheck "old NVML" "
g = d['gpu']
assert g['driver_cuda']['value'] == '12.8' and g['driver_cuda']['source'] == 'NVML', g['driver_cuda']
assert 'nvmlSystemGetCudaDriverVersion' in calls, calls
x = g['gpus']['value'][0]
assert x['compute_capability']['value'] == '8.0', x
m = x['memory_bytes']
assert m['value'] is None and 'nvmlDeviceGetMemoryInfo' in m['unknown_reason'], m
$NVML_BALANCED"
pass_note "NVML without the CUDA version -> cuDriverGetVersion only; old NVML -> v1 call, memory unknown"

# --- An old driver: 470.82.01, CUDA 11.4 -----------------------------------------
gpu_doctor "$NVML:$CUDA" FLASHFIT_STUB_GPUS="$A100" FLASHFIT_STUB_DRIVER=470.82.01 \
  FLASHFIT_STUB_CUDA=11040
expect_ok "driver 470.82.01"
jcheck "driver 470.82.01" "
g = d['gpu']
assert g['driver_version']['value'] == '470.82.01', g['driver_version']
assert g['driver_cuda']['value'] == '11.4', g['driver_cuda']
assert 'driver-too-old' not in findings, 'driver-too-old for a CPU torch'
"
# ...with a what-if torch built for CUDA 12.8: too old; for 11.8: minor-version compat.
gpu_doctor "$NVML:$CUDA" FLASHFIT_STUB_GPUS="$A100" FLASHFIT_STUB_DRIVER=470.82.01 \
  FLASHFIT_STUB_CUDA=11040 --torch 2.8.0+cu128
expect_ok "driver 470.82.01, torch cu128"
jcheck "driver 470 vs cu128" "
f = findings.get('driver-too-old')
assert f and '11.4' in f['message'] and '12.8' in f['message'], f'driver-too-old: {sorted(findings)}'
assert d['gpu']['driver_cuda']['overridden'] is False, 'the probed driver CUDA was replaced'
"
gpu_doctor "$NVML:$CUDA" FLASHFIT_STUB_GPUS="$A100" FLASHFIT_STUB_DRIVER=470.82.01 \
  FLASHFIT_STUB_CUDA=11040 --torch 2.1.0+cu118
expect_ok "driver 470.82.01, torch cu118"
jcheck "driver 470 vs cu118" "
f = findings.get('driver-older-minor')
assert f and f['severity'] == 'warning', f'driver-older-minor: {sorted(findings)}'
assert 'driver-too-old' not in findings, findings
"
pass_note "driver 470.82.01 (CUDA 11.4): read as 11.4; cu128 -> driver-too-old, cu118 -> driver-older-minor"

# --- A driver with no GPU, and broken answers ------------------------------------
gpu_doctor "$NVML:$CUDA" FLASHFIT_STUB_GPUS=
expect_ok "no GPU"
jcheck "no GPU" "
g = d['gpu']
assert g['presence'] == 'no-gpu' and g['gpus']['value'] == [], g
assert 'no-gpu' in findings, sorted(findings)
$NVML_BALANCED"

gpu_doctor "$NVML:$CUDA" FLASHFIT_STUB_GPUS="$A100" \
  FLASHFIT_STUB_FAIL_ON=nvmlDeviceGetCudaComputeCapability=999 FLASHFIT_STUB_CRASH_ON=cuInit
expect_ok "capability query fails"
jcheck "capability unknown" "
x = d['gpu']['gpus']['value'][0]
c = x['compute_capability']
assert c['value'] is None and 'NVML error 999' in c['unknown_reason'], c
assert x['name']['value'] == 'NVIDIA A100-SXM4-80GB', x
assert 'gpu-too-old' not in findings, 'gpu-too-old from an unknown capability'
$NVML_BALANCED"

gpu_doctor "$NVML:$CUDA" FLASHFIT_STUB_GPUS="$A100" \
  FLASHFIT_STUB_FAIL_ON=nvmlInit_v2=999,cuInit=999
expect_ok "both libraries fail"
jcheck "both fail" "
g = d['gpu']
assert g['gpus']['value'] is None and g['gpus']['unknown_reason'], g['gpus']
assert 'NVML error 999' in g['gpus']['unknown_reason'] or 'CUDA error 999' in g['gpus']['unknown_reason'], g['gpus']
assert 'gpus-found' != g['presence'], g['presence']
"
pass_note "no GPU -> no-gpu; failing queries -> unknown facts with the library's error, exit 0"

# --- Calls flashfit must never make ----------------------------------------------
# Doctor only reads: it must not initialise libcuda when NVML answered, nor
# shut NVML down after a failed init, nor call anything on a GPU-less driver
# beyond counting. The stubs abort on each listed call.
gpu_doctor "$NVML:$CUDA" FLASHFIT_STUB_GPUS="$A100;$L40S" \
  FLASHFIT_STUB_CRASH_ON=cuInit,cuDeviceGetCount,cuDeviceGet,cuDeviceGetName,cuDeviceGetAttribute,cuDeviceTotalMem_v2
expect_ok "libcuda forbidden while NVML answers"
gpu_doctor "$NVML:$CUDA" FLASHFIT_STUB_GPUS= \
  FLASHFIT_STUB_CRASH_ON=nvmlDeviceGetHandleByIndex_v2,nvmlDeviceGetName,cuDeviceGet
expect_ok "no per-device calls without devices"
gpu_doctor "$NVML:$CUDA" FLASHFIT_STUB_GPUS="$A100" FLASHFIT_STUB_FAIL_ON=nvmlInit_v2=9 \
  FLASHFIT_STUB_CRASH_ON=nvmlShutdown
expect_ok "no shutdown after a failed init"
pass_note "forbidden calls (libcuda after NVML answered, shutdown after failed init, per-device calls without devices): never made"

# --- Both GPU what-ifs given: the driver libraries are not touched ----------------
# --gpu and --driver replace every GPU fact, so neither library is loaded (the
# log stays empty); with --gpu alone the driver's CUDA is still this machine's
# and NVML is asked for it.
gpu_doctor "$NVML:$CUDA" FLASHFIT_STUB_GPUS="$A100" FLASHFIT_STUB_CRASH_ON=nvmlInit_v2,cuInit \
  --gpu 8.9 --driver 570.124.06
expect_ok "--gpu and --driver"
jcheck "--gpu and --driver" "
g = d['gpu']
assert g['gpus']['source'] == '--gpu' and g['gpus']['overridden'] is True, g['gpus']
assert g['driver_version']['value'] == '570.124.06' and g['driver_version']['source'] == '--driver', g['driver_version']
assert g['presence'] == 'gpus-found', g['presence']
assert calls == [], f'driver libraries called with every GPU fact given: {calls}'
"
gpu_doctor "$NVML:$CUDA" FLASHFIT_STUB_GPUS="$A100" FLASHFIT_STUB_CRASH_ON=cuInit --gpu 8.9
expect_ok "--gpu alone"
jcheck "--gpu alone" "
g = d['gpu']
assert g['gpus']['source'] == '--gpu', g['gpus']
assert g['driver_version']['source'] == 'NVML', g['driver_version']
$NVML_BALANCED"
pass_note "--gpu with --driver loads no driver library; --gpu alone still reads the driver through NVML"
