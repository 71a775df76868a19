#!/usr/bin/env bash
# flashfit build --toolkit: a CUDA toolkit of torch's version assembled from
# NVIDIA's PyPI wheels (nvidia-cuda-nvcc 13.0.88 and its nvvm, crt, runtime and
# cccl parts, pinned to torch 2.14.1's CUDA 13.0) into the cache as a
# CUDA_HOME, used by the plan and preflight; reused on the second build; a
# kernel compiled with it carries sm_80 SASS; `auto` keeps a matching machine
# nvcc; bad values are usage errors. Needs .pydeps/torch-cuda (skipped,
# saying so, when missing) and pip's index (the nvidia wheels, ~45 MB, once
# per machine thanks to pip's cache). Plans only (--dry-run): nothing compiles
# but the one-kernel check.
# shellcheck source=tests/integration/lib.sh
source "$(dirname "$0")/lib.sh"
FF_TIMEOUT=600

PY=$SOURCE_DIR/.pydeps/torch-cuda/bin/python
if [[ ! -x $PY ]]; then
  skip_note "$PY is missing (scripts/pydeps/torch-cuda.sh makes it): nothing checked"
  exit 0
fi
TORCH_CUDA=$("$PY" -c 'import torch; print(torch.version.cuda)') || fail "import torch failed in $PY"

# A one-kernel CUDA extension source: enough for the planner to call it a CUDA build.
SRC=$TMP/src
mkdir -p "$SRC"
cat >"$SRC/setup.py" <<'PY'
from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CUDAExtension
setup(name="fftk", version="0.1", ext_modules=[CUDAExtension("fftk", ["k.cu"])],
      cmdclass={"build_ext": BuildExtension})
PY
printf '#include <cuda_runtime.h>\n__global__ void twice(float* x) { x[threadIdx.x] *= 2.f; }\nint launch(float* x) { twice<<<1, 32>>>(x); return cudaGetLastError(); }\n' >"$SRC/k.cu"

# --- pypi: assembled into the cache, used as CUDA_HOME ------------------------
ff build "$SRC" --python "$PY" --toolkit pypi --dry-run --json
expect_rc 0 "build --toolkit pypi --dry-run"
TK=$FLASHFIT_CACHE_DIR/toolkits/cuda-$TORCH_CUDA
json_field "$TMP/out" '[e["value"] for e in d["plan"]["env"] if e["name"] == "CUDA_HOME"]' >"$TMP/cuda_home"
grep -qF "$TK" "$TMP/cuda_home" || fail "the plan's CUDA_HOME is not the assembled toolkit: $(cat "$TMP/cuda_home")"
for f in bin/nvcc nvvm/bin/cicc include/cuda_runtime_api.h lib64/libcudart.so; do
  [[ -e $TK/$f ]] || fail "the assembled toolkit lacks $f"
done
"$TK/bin/nvcc" --version >"$TMP/nvcc.txt" || fail "the assembled nvcc does not run"
grep -q "release $TORCH_CUDA," "$TMP/nvcc.txt" || fail "the assembled nvcc is not CUDA $TORCH_CUDA: $(tail -n 2 "$TMP/nvcc.txt")"
grep -q '^nvidia-cuda-nvcc==' "$TK/.flashfit-toolkit" || fail "the toolkit stamp does not list nvidia-cuda-nvcc"
json_field "$TMP/out" '[c for c in d["preflight"] if c["id"] == "nvcc"][0]' | grep -qF "$TK" ||
  fail "the preflight did not check the assembled nvcc"
pass_note "torch's CUDA $TORCH_CUDA assembled from PyPI into $TK; plan and preflight use it"

# A kernel compiled with it carries sm_80 SASS (flashfit inspect reads the fatbin).
(cd "$TMP" && nice "$TK/bin/nvcc" -gencode arch=compute_80,code=sm_80 -Xcompiler -fPIC -shared "$SRC/k.cu" \
  -o "$TMP/k.so" -L"$TK/lib64" -lcudart) >"$TMP/nvcc.log" 2>&1 || fail "compiling with the assembled nvcc failed: $(tail -n 5 "$TMP/nvcc.log")"
ff inspect "$TMP/k.so" --gpu 8.0 --json
json_field "$TMP/out" 'sorted({i["name"] for m in d["modules"] for i in m["cuda"]["images"]})' >"$TMP/archs"
grep -q 'sm_80' "$TMP/archs" || fail "no sm_80 image in the kernel built with the assembled toolkit: $(cat "$TMP/archs")"
pass_note "a kernel built with the assembled nvcc carries sm_80"

# --- the second build reuses it (no pip run) ----------------------------------
ff build "$SRC" --python "$PY" --toolkit pypi --dry-run
expect_rc 0 "second build --toolkit pypi --dry-run"
expect_err_contains "toolkit: reusing CUDA"
pass_note "the cached toolkit is reused"

# --- auto: an nvcc of another major (CUDA_HOME, as a user has it) -> assembled ---
mkdir -p "$TMP/cuda-12.4/bin"
printf '#!/bin/sh\necho "Cuda compilation tools, release 12.4, V12.4.131"\n' >"$TMP/cuda-12.4/bin/nvcc"
chmod +x "$TMP/cuda-12.4/bin/nvcc"
CUDA_HOME=$TMP/cuda-12.4 ff build "$SRC" --python "$PY" --dry-run --json
expect_rc 1 "nvcc 12.4 against torch cu130 without --toolkit"
json_field "$TMP/out" '[c["fix"] for c in d["preflight"] if c["id"] == "nvcc-cuda-major"][0]' | grep -q -- '--toolkit auto' ||
  fail "the nvcc-cuda-major fix does not offer --toolkit auto"
CUDA_HOME=$TMP/cuda-12.4 ff build "$SRC" --python "$PY" --toolkit auto --dry-run --json
expect_rc 0 "nvcc 12.4 against torch cu130 with --toolkit auto"
[[ $(json_field "$TMP/out" '[c["status"] for c in d["preflight"] if c["id"] == "nvcc-cuda-major"][0]') == ok ]] ||
  fail "--toolkit auto did not fix nvcc-cuda-major"
grep -qF "$TK" <(json_field "$TMP/out" '[e["value"] for e in d["plan"]["env"] if e["name"] == "CUDA_HOME"]') ||
  fail "--toolkit auto did not use the assembled toolkit"
pass_note "nvcc 12.4 vs torch's CUDA 13.0: the preflight offers --toolkit auto, which builds with the assembled toolkit"

# --- auto keeps the machine's nvcc when its major is torch's ---------------
if nvcc_version=$(nvcc --version 2>/dev/null | sed -n 's/.*release \([0-9]*\)\..*/\1/p') && [[ $nvcc_version == "${TORCH_CUDA%%.*}" ]]; then
  export FLASHFIT_CACHE_DIR=$TMP/cache-auto
  ff build "$SRC" --python "$PY" --toolkit auto --dry-run
  expect_rc 0 "build --toolkit auto --dry-run"
  expect_err_contains "the machine's nvcc"
  [[ ! -e $FLASHFIT_CACHE_DIR/toolkits/cuda-$TORCH_CUDA ]] || fail "--toolkit auto assembled a toolkit although nvcc matches"
  pass_note "--toolkit auto keeps the machine's matching nvcc"
else
  skip_note "no nvcc of torch's CUDA major on PATH: --toolkit auto's keep case not checked"
fi

# --- bad values ------------------------------------------------------------------
ff build "$SRC" --python "$PY" --toolkit cuda-12.8 --dry-run
expect_rc 2 "--toolkit cuda-12.8"
expect_err_contains "not auto, pypi, machine or a path"
ff build "$SRC" --python "$PY" --toolkit "$TMP/nowhere" --dry-run
expect_rc 2 "--toolkit with no nvcc"
expect_err_contains "no bin/nvcc there"
if [[ -x $SOURCE_DIR/.pydeps/torch-cpu/bin/python ]]; then
  ff build "$SRC" --python "$SOURCE_DIR/.pydeps/torch-cpu/bin/python" --toolkit pypi --dry-run
  expect_rc 1 "--toolkit pypi with a CPU torch"
  expect_err_contains "torch is not a CUDA build"
fi
pass_note "bad --toolkit values are clear errors"

# --- what-if flags for another machine: nothing is downloaded for it ----------
export FLASHFIT_CACHE_DIR=$TMP/cache-whatif
ff build "$SRC" --python "$PY" --toolkit pypi --torch 2.4.0+cu121 --dry-run
expect_err_contains "not assembled: the what-if flags describe another machine"
[[ ! -e $FLASHFIT_CACHE_DIR/toolkits/cuda-12.1 ]] || fail "a toolkit was assembled for the machine described"
pass_note "--toolkit under what-if flags for another machine: named, not downloaded"
