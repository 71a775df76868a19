#!/usr/bin/env bash
# --archs for a package whose setup.py fixes its own -gencode list, with the
# real binary:
# - `flashfit nvcc-wrap` (internal) execs the real nvcc (here a fake one that
#   writes its argv to a file) with only the kept targets and a capped
#   --threads; nvcc's exit status comes back; bad arguments and a command whose
#   targets would all be dropped exit 2 and never run nvcc;
# - `flashfit build --archs 80 --dry-run` of a causal-conv1d-shaped source
#   (setup.py: -gencode sm_75 and sm_80, --threads 4): with a torch >= 2.1 the
#   plan sets PYTORCH_NVCC to this binary's nvcc-wrap, counts sm_80 alone, and
#   that command, run by /bin/sh as ninja runs it, reaches nvcc with sm_80 only;
#   with Debian's torch 1.13 (no PYTORCH_NVCC in its cpp_extension) --archs is
#   refused with that reason;
# - a real build of that source (its one small .cu, ~10 s) against PyPI's CUDA
#   torch 2.14.1 (.pydeps/torch-cuda) with the machine's nvcc: the wheel's
#   fatbin holds sm_80 alone, read by `flashfit inspect`, and the cache record
#   says sm_80 (skipped, saying so, without that venv or nvcc).
# shellcheck source=tests/integration/lib.sh
source "$(dirname "$0")/lib.sh"
# shellcheck source=tests/integration/build_lib.sh
source "$(dirname "$0")/build_lib.sh"

# A fake CUDA_HOME: nvcc answers --version as 13.0, else records its argv.
FAKE="$TMP/fakecuda"
mkdir -p "$FAKE/bin"
cat >"$FAKE/bin/nvcc" <<'SH'
#!/bin/sh
if [ "$1" = "--version" ]; then
  echo "nvcc: NVIDIA (R) Cuda compiler driver"
  echo "Cuda compilation tools, release 13.0, V13.0.48"
  exit 0
fi
printf '%s\n' "$@" >"$(dirname "$0")/argv.txt"
exit "${FAKE_NVCC_RC:-0}"
SH
chmod +x "$FAKE/bin/nvcc"
ARGV="$FAKE/bin/argv.txt"

# --- the wrapper alone --------------------------------------------------------
FAKE_NVCC_RC=3 ff nvcc-wrap --archs 80,9.0 --max-threads 2 --nvcc "$FAKE/bin/nvcc" -- \
  -c a.cu -o 'a b.o' -gencode arch=compute_75,code=sm_75 -gencode=arch=compute_80,code=sm_80 \
  --generate-code arch=compute_90,code=sm_90 --threads 4 -O3
expect_rc 3 "nvcc's exit status"
want=$'-c\na.cu\n-o\na b.o\n-gencode\narch=compute_80,code=sm_80\n-gencode\narch=compute_90,code=sm_90\n--threads\n2\n-O3'
[[ $(cat "$ARGV") == "$want" ]] || fail "nvcc got: $(tr '\n' ' ' <"$ARGV")"
pass_note "only sm_80 and sm_90 reach nvcc, --threads 4 capped at 2, nvcc's status kept"

rm -f "$ARGV"
ff nvcc-wrap --archs 90 --nvcc "$FAKE/bin/nvcc" -- -c a.cu -gencode arch=compute_75,code=sm_75
expect_clean_error 2 "every target dropped"
expect_err_contains "none of the targets (arch=compute_75,code=sm_75) is among the requested archs"
[[ ! -e $ARGV ]] || fail "nvcc ran with all its targets dropped"
for bad in "--archs eighty --nvcc $FAKE/bin/nvcc -- -c" "--archs 80 --nvcc nvcc -- -c" \
  "--archs 80 --nvcc $FAKE/bin/nvcc -c" "--nvcc $FAKE/bin/nvcc -- -c" \
  "--archs 80 --max-threads 0 --nvcc $FAKE/bin/nvcc -- -c" \
  "--archs 80 --nvcc $FAKE/bin/nvcc -- -c -gencode arch=compute_80" \
  "--archs 80 --nvcc $FAKE/bin/nvcc -- -c --threads"; do
  # shellcheck disable=SC2086  # word splitting is the point
  ff nvcc-wrap $bad
  expect_clean_error 2 "nvcc-wrap $bad"
  [[ ! -e $ARGV ]] || fail "nvcc ran for: nvcc-wrap $bad"
done
ff nvcc-wrap --archs 80 --nvcc "$TMP/missing/nvcc" -- -c
expect_clean_error 1 "no nvcc there"
expect_err_contains "cannot run $TMP/missing/nvcc"
ff --help
! grep -q nvcc-wrap "$TMP/out" || fail "the internal command shows in --help"
pass_note "bad arguments exit 2 and nvcc never runs; hidden from --help"

# --- the plan -----------------------------------------------------------------
SRC="$TMP/causal-src"
mkdir -p "$SRC/csrc"
printf '__global__ void k(float* x) { x[threadIdx.x] *= 2.0f; }\n' >"$SRC/csrc/kernel.cu"
printf 'Metadata-Version: 2.1\nName: causal-conv1d\nVersion: 0.0.1\n' >"$SRC/PKG-INFO"
cat >"$SRC/setup.py" <<'PY'
from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CUDAExtension

cc_flag = ["-gencode", "arch=compute_75,code=sm_75", "-gencode", "arch=compute_80,code=sm_80"]
setup(
    name="causal_conv1d",
    version="0.0.1",
    ext_modules=[
        CUDAExtension(
            name="causal_conv1d_cuda",
            sources=["csrc/kernel.cu"],
            extra_compile_args={"cxx": ["-O3"], "nvcc": ["-O3", "--threads", "4"] + cc_flag},
        )
    ],
    cmdclass={"build_ext": BuildExtension},
)
PY
SELF=$(readlink -f "$FLASHFIT")

CUDA_HOME="$FAKE" ff build "$SRC" --python "$TEST_PYTHON" --torch 2.14.1+cu130 --archs 80 --dry-run --json
[[ -s $TMP/out ]] || fail "no plan: $(cat "$TMP/err")"
[[ $(json_field "$TMP/out" 'd["plan"]["archs"]["sass"]') == "['sm_80']" ]] ||
  fail "the plan's archs are $(json_field "$TMP/out" 'd["plan"]["archs"]')"
json_field "$TMP/out" 'd["plan"]["archs"]["basis"]' | grep -qF "1 of the 2 -gencode targets" ||
  fail "basis: $(json_field "$TMP/out" 'd["plan"]["archs"]["basis"]')"
PYTORCH_NVCC=$(json_field "$TMP/out" '[e["value"] for e in d["plan"]["env"] if e["name"] == "PYTORCH_NVCC"][0]')
[[ $PYTORCH_NVCC == "$SELF nvcc-wrap --archs 80 --max-threads 1 --nvcc $FAKE/bin/nvcc --" ]] ||
  fail "PYTORCH_NVCC is '$PYTORCH_NVCC'"
# ninja runs `$nvcc ARGS` through /bin/sh -c: so does this.
rm -f "$ARGV"
sh -c "$PYTORCH_NVCC -c csrc/kernel.cu -o k.o -O3 --threads 4 -gencode arch=compute_75,code=sm_75 -gencode arch=compute_80,code=sm_80" ||
  fail "the PYTORCH_NVCC command failed"
[[ $(tr '\n' ' ' <"$ARGV") == "-c csrc/kernel.cu -o k.o -O3 --threads 1 -gencode arch=compute_80,code=sm_80 " ]] ||
  fail "through PYTORCH_NVCC nvcc got: $(tr '\n' ' ' <"$ARGV")"
pass_note "torch 2.14: PYTORCH_NVCC names this binary's wrapper; nvcc sees sm_80 alone"

# 8.6 runs setup.py's sm_80: that target is kept; 7.0 runs neither sm_75 nor sm_80.
CUDA_HOME="$FAKE" ff build "$SRC" --python "$TEST_PYTHON" --torch 2.14.1+cu130 --archs 86 --dry-run --json
[[ $(json_field "$TMP/out" 'd["plan"]["archs"]["sass"]') == "['sm_80']" ]] ||
  fail "--archs 86 did not keep sm_80: $(json_field "$TMP/out" 'd["plan"]["archs"]') $(cat "$TMP/err")"
CUDA_HOME="$FAKE" ff build "$SRC" --python "$TEST_PYTHON" --torch 2.14.1+cu130 --archs 70 --dry-run
expect_clean_error 2 "an arch no target of setup.py runs on"
expect_err_contains "runs on 7.0"

# Debian's torch 1.13 ignores PYTORCH_NVCC (its cpp_extension does not read it).
if grep -q PYTORCH_NVCC "$("$TEST_PYTHON" -c 'import torch.utils.cpp_extension as c; print(c.__file__)' 2>/dev/null || echo /dev/null)"; then
  skip_note "the test python's torch reads PYTORCH_NVCC: the refusal is not checked here"
else
  CUDA_HOME="$FAKE" ff build "$SRC" --python "$TEST_PYTHON" --archs 80 --dry-run
  expect_clean_error 2 "--archs with a torch that ignores PYTORCH_NVCC"
  expect_err_contains "causal-conv1d has no arch variable"
  expect_err_contains "cpp_extension ignores PYTORCH_NVCC"
  CUDA_HOME="$FAKE" ff build "$SRC" --python "$TEST_PYTHON" --dry-run --json
  [[ -s $TMP/out ]] || fail "no plan without --archs: $(cat "$TMP/err")"
  [[ $(json_field "$TMP/out" 'd["plan"]["archs"]["sass"]') == "['sm_75', 'sm_80']" ]] ||
    fail "without --archs: $(json_field "$TMP/out" 'd["plan"]["archs"]')"
  [[ $(json_field "$TMP/out" '[e for e in d["plan"]["env"] if e["name"] == "PYTORCH_NVCC"]') == "[]" ]] ||
    fail "PYTORCH_NVCC set without --archs"
  pass_note "torch 1.13: --archs refused with the reason; setup.py's list without it"
fi

# --- a real build through the wrapper ------------------------------------------
CUDA_PY="$SOURCE_DIR/.pydeps/torch-cuda/bin/python"
if [[ ! -x $CUDA_PY ]]; then
  skip_note "$CUDA_PY is missing (run scripts/pydeps/torch-*.sh): the real build is not checked"
elif ! command -v nvcc >/dev/null; then
  skip_note "no nvcc on PATH: the real build is not checked"
else
  REAL="$TMP/causal-real"
  cp -r "$SRC" "$REAL"
  # A real nvcc compile and torch 2.14's import: on a busy 2-core machine (the suite runs the
  # sanitized build and the real causal-conv1d build beside it) far over the default 60 s.
  FF_TIMEOUT=280 capture env -u CUDA_HOME "$FLASHFIT" build "$REAL" --python "$CUDA_PY" --archs 80 --json
  expect_rc 0 "the real build through the wrapper ($(tail -n 5 "$TMP/err"))"
  [[ $(json_field "$TMP/out" 'd["wheel"]["archs"]') == "['sm_80']" ]] ||
    fail "the built wheel's archs: $(json_field "$TMP/out" 'd["wheel"]')"
  WHEEL=$(json_field "$TMP/out" 'd["wheel"]["path"]')
  grep -h -m1 -o 'nvcc-wrap --archs 80 --max-threads 1' "$FLASHFIT_CACHE_DIR"/logs/build-causal-conv1d-*.log >/dev/null ||
    fail "ninja did not run nvcc through the wrapper (see the build log)"
  ff inspect "$WHEEL" --python "$CUDA_PY" --json
  [[ $(json_field "$TMP/out" 'sorted({i["arch"] for m in d["modules"] for i in m["cuda"]["images"]})') == "[80]" ]] ||
    fail "the wheel's fatbin: $(json_field "$TMP/out" '[m["cuda"] for m in d["modules"]]')"
  ff cache list --json
  grep -q '"sm_80"' "$TMP/out" || fail "the cache record does not say sm_80"
  ! grep -q '"sm_75"' "$TMP/out" || fail "the cache record names sm_75"
  pass_note "real build (torch 2.14.1, nvcc $(nvcc --version | sed -n 's/.*release \([0-9.]*\).*/\1/p')): the wheel's fatbin holds sm_80 alone"
fi
