#!/usr/bin/env bash
# flashfit build's checks, each with its fix, and its behaviour on bad input
# and on interruption, with the real binary:
# - preflight failures before the first compile: Debian's CPU torch for a
#   CUDA source, a fake nvcc of another CUDA major, a fake g++ newer than
#   nvcc 13.0 accepts (the fix names the g++-12 that is installed), a missing
#   build dependency (a recipe's build_requires); no ninja is a warning;
# - usage and input errors: sizes, zero jobs, missing or hostile sources
#   (zip-slip sdist: nothing written outside);
# - a compile error is diagnosed with the lines that show it;
# - SIGTERM during a build whose compilers the memory governor has paused
#   leaves no process behind and removes the temp dir.
# shellcheck source=tests/integration/lib.sh
source "$(dirname "$0")/lib.sh"
# shellcheck source=tests/integration/build_lib.sh
source "$(dirname "$0")/build_lib.sh"
unset CXX CC CUDAHOSTCXX

# check_status ID: the preflight check's status in $TMP/out (JSON).
check_status() { json_field "$TMP/out" "[c['status'] for c in d['preflight'] if c['id'] == '$1'] or ['absent']" | tr -d "[]'"; }
check_fix() { json_field "$TMP/out" "[c['fix'] for c in d['preflight'] if c['id'] == '$1']"; }

# A source with a CUDA file: preflight's CUDA checks apply (no recipe needed).
CUDA_SRC="$TMP/cuda-src"
cp -r "$BUILD_PKG" "$CUDA_SRC"
printf '__global__ void k(float* x) { x[threadIdx.x] *= 2.0f; }\n' >"$CUDA_SRC/csrc/kernel.cu"
# setup.py must list it: the planner counts the units setup.py compiles, not the tree's files.
sed -i 's|"csrc/binding.cpp",|"csrc/binding.cpp", "csrc/kernel.cu",|' "$CUDA_SRC/setup.py"
grep -q '"csrc/kernel.cu"' "$CUDA_SRC/setup.py" || fail "could not add kernel.cu to the fixture's sources"

# --- Debian's torch is a CPU build -------------------------------------------
ff build "$CUDA_SRC" --python "$TEST_PYTHON" --json
expect_rc 1 "a CUDA source with a CPU torch"
[[ $(json_field "$TMP/out" 'd["stage"]') == preflight ]] || fail "did not stop at preflight"
[[ $(json_field "$TMP/out" '(d["plan"]["units"]["basis"], d["plan"]["units"]["cuda"], d["plan"]["units"]["cxx"])') == "('setup.py', 1, 4)" ]] ||
  fail "the units are not setup.py's 1 .cu + 4 C++"
[[ $(check_status torch-cuda) == failed ]] || fail "torch-cuda is $(check_status torch-cuda)"
check_fix torch-cuda | grep -q 'download.pytorch.org' || fail "the fix does not say how to get a CUDA torch"
[[ $(json_field "$TMP/out" 'd["run"]') == None ]] || fail "something was compiled"
ff build "$CUDA_SRC" --python "$TEST_PYTHON"
expect_rc 1 "text report"
expect_out_contains "FAILED"
expect_out_contains "torch-cuda"
expect_out_contains "1 .cu + 4 C++ (counted from setup.py"
pass_note "CPU torch: stopped before compiling, with the fix"

# --- a fake nvcc of another CUDA major (torch cu130 as a what-if) -----------
mkdir -p "$TMP/fakecuda/bin"
cat >"$TMP/fakecuda/bin/nvcc" <<'SH'
#!/bin/sh
echo "nvcc: NVIDIA (R) Cuda compiler driver"
echo "Cuda compilation tools, release 12.4, V12.4.131"
SH
chmod +x "$TMP/fakecuda/bin/nvcc"
CUDA_HOME="$TMP/fakecuda" ff build "$CUDA_SRC" --python "$TEST_PYTHON" --torch 2.9.1+cu130 --json
expect_rc 1 "nvcc 12.4 against torch cu130"
# A what-if torch is not this environment: a plan only, said on stderr with --json too.
expect_err_contains '--torch 2.9.1+cu130 describes another environment'
expect_err_contains 'planning only (--dry-run)'
[[ $(check_status nvcc-cuda-major) == failed ]] || fail "nvcc-cuda-major is $(check_status nvcc-cuda-major)"
check_fix nvcc-cuda-major | grep -q '13' || fail "the fix does not name CUDA 13"
pass_note "nvcc major != torch CUDA major: failed with the fix"

# --- a fake g++ newer than nvcc 13.0 accepts; g++-12 is installed ---------------
if [[ -x /usr/local/cuda/bin/nvcc && -x /usr/bin/g++-12 ]]; then
  mkdir -p "$TMP/newgcc"
  printf '#!/bin/sh\necho "g++ (GCC) 16.1.0"\necho "Copyright (C) 2026 Free Software Foundation, Inc."\n' >"$TMP/newgcc/g++"
  printf '#!/bin/sh\necho "gcc (GCC) 16.1.0"\n' >"$TMP/newgcc/gcc"
  chmod +x "$TMP/newgcc/g++" "$TMP/newgcc/gcc"
  PATH="$TMP/newgcc:$PATH" CUDA_HOME=/usr/local/cuda ff build "$CUDA_SRC" --python "$TEST_PYTHON" --torch 2.9.1+cu130 --json
  expect_rc 1 "g++ 16 with nvcc 13.0"
  [[ $(check_status host-compiler) == failed ]] || fail "host-compiler is $(check_status host-compiler)"
  check_fix host-compiler | grep -q 'g++-12' || fail "the fix does not name the installed g++-12: $(check_fix host-compiler)"
  check_fix host-compiler | grep -q 'CUDAHOSTCXX' || fail "the fix does not say what to set"
  pass_note "host compiler too new: the fix names g++-12 and CUDAHOSTCXX"
else
  skip_note "no /usr/local/cuda/bin/nvcc or g++-12: host compiler check not run"
fi

# --- no ninja: a warning, the build would be serial ---------------------------
mkdir -p "$TMP/noninja"
for tool in g++ gcc c++ cc sh; do
  [[ -x /usr/bin/$tool ]] && ln -s "/usr/bin/$tool" "$TMP/noninja/$tool"
done
capture env PATH="$TMP/noninja" "$FLASHFIT" build "$BUILD_PKG" --python "$TEST_PYTHON" --dry-run --json
expect_rc 0 "a dry run without ninja"
[[ $(check_status ninja) == warning ]] || fail "ninja is $(check_status ninja)"
check_fix ninja | grep -qi 'ninja' || fail "no fix for ninja"
json_field "$TMP/out" "[c['message'] for c in d['preflight'] if c['id'] == 'ninja']" | grep -qi 'serial' ||
  fail "does not say the build would be serial"
pass_note "no ninja: a warning that the build is serial"

# --- a recipe whose build dependency is missing --------------------------------
mkdir -p "$TMP/config/recipes"
cat >"$TMP/config/recipes/ffbuild.toml" <<'TOML'
[package]
name = "ffbuild"
summary = "flashfit's build test extension"
import_names = ["ffbuild"]
binary_module = "ffbuild._C"
needs_cuda = false

[build]
needs_cuda = false
build_requires = ["torch", "setuptools", "flashfit_no_such_module"]
TOML
printf 'recipe_dirs = ["%s"]\n' "$TMP/config/recipes" >"$TMP/config/config.toml"
FLASHFIT_CONFIG="$TMP/config/config.toml" ff build "$BUILD_PKG" --python "$TEST_PYTHON" --dry-run --json
expect_rc 1 "a missing build dependency"
[[ $(check_status build-deps) == failed ]] || fail "build-deps is $(check_status build-deps)"
json_field "$TMP/out" "[c['message'] for c in d['preflight'] if c['id'] == 'build-deps']" | grep -q flashfit_no_such_module ||
  fail "the missing module is not named"
check_fix build-deps | grep -q 'pip install' || fail "no install command in the fix"
[[ $(check_status build-deps) != ok ]] && [[ $(check_status torch) == ok ]] || fail "torch should pass"
pass_note "missing build dependency: failed, named, with the install command"

# --- usage and input errors ----------------------------------------------------
ff build "$BUILD_PKG" --python "$TEST_PYTHON" --memory-budget 12XB
expect_clean_error 2 "a garbage --memory-budget"
ff build "$BUILD_PKG" --python "$TEST_PYTHON" --jobs 0
expect_clean_error 2 "--jobs 0"
ff build "$TMP/no-such-dir" --python "$TEST_PYTHON"
expect_clean_error 2 "a missing source"
mkdir -p "$TMP/empty-src"
ff build "$TMP/empty-src" --python "$TEST_PYTHON"
expect_clean_error 2 "a directory without setup.py"
"$TEST_PYTHON" - "$TMP/evil-1.0.tar.gz" <<'PY'
import io, sys, tarfile
with tarfile.open(sys.argv[1], "w:gz") as t:
    for name in ("evil-1.0/setup.py", "evil-1.0/../../escaped.txt"):
        data = b"print('x')\n"
        info = tarfile.TarInfo(name)
        info.size = len(data)
        t.addfile(info, io.BytesIO(data))
PY
ff build "$TMP/evil-1.0.tar.gz" --python "$TEST_PYTHON"
expect_clean_error 2 "a zip-slip sdist"
[[ -e $TMP/escaped.txt || -e $FLASHFIT_CACHE_DIR/escaped.txt || -e $FLASHFIT_CACHE_DIR/tmp/escaped.txt ]] &&
  fail "the zip-slip entry was written"
head -c 3000 /dev/urandom >"$TMP/garbage-1.0.tar.gz"
ff build "$TMP/garbage-1.0.tar.gz" --python "$TEST_PYTHON"
expect_clean_error 2 "a garbage sdist"
compgen -G "$FLASHFIT_CACHE_DIR/tmp/build-*" >/dev/null && fail "a failed source left its temp dir"
pass_note "bad sizes, zero jobs, missing, empty, hostile and garbage sources: clean errors, nothing left"

# --- a compile error is diagnosed ---------------------------------------------
FF_TIMEOUT=280
cp -r "$BUILD_PKG" "$TMP/broken-src"
FFBUILD_FAIL=syntax ff build "$TMP/broken-src" --python "$TEST_PYTHON" --json
expect_rc 1 "a compile error"
[[ $(json_field "$TMP/out" 'd["stage"]') == build ]] || fail "did not fail in the build"
[[ $(json_field "$TMP/out" 'd["diagnosis"]["id"]') == compile-error ]] ||
  fail "diagnosis is $(json_field "$TMP/out" 'd["diagnosis"]')"
json_field "$TMP/out" 'd["failure_lines"]' | grep -q 'add.cpp' || fail "the failing unit is not shown"
LOG=$(json_field "$TMP/out" 'd["log"]')
[[ -s $LOG ]] || fail "the log of a failed build was not kept"
pass_note "compile error: diagnosed, the lines shown, the log kept"

# --- SIGTERM while the governor holds compilers stopped ---------------------------
cp -r "$BUILD_PKG" "$TMP/slow-src"
timeout 280 "$FLASHFIT" build "$TMP/slow-src" --python "$TEST_PYTHON" --jobs 4 --memory-budget 200M \
  >"$TMP/int.out" 2>"$TMP/int.err" &
FF_PID=$!
BACKGROUND_PIDS+=("$FF_PID")
# Until the governor has stopped a compiler, or the slow unit (torch's
# headers) has been compiling for a few seconds, whichever comes first.
compiling=0
for ((i = 0; i < 1200; i++)); do
  ps -eo stat=,args= >"$TMP/ps" 2>/dev/null || true  # (no pipe: grep -q would SIGPIPE ps under pipefail)
  grep -q '^T.*slow-src' "$TMP/ps" && break
  if pgrep -f "slow-src/csrc/binding.cpp" >/dev/null; then
    ((++compiling >= 30)) && break
  fi
  sleep 0.1
done
[[ -n $(build_processes) ]] || fail "the build is not running: $(tail -5 "$TMP/int.err")"
ps -eo stat=,args= >"$TMP/ps" 2>/dev/null || true
stopped=$(grep -c '^T.*slow-src' "$TMP/ps" || true)
running=$(grep -v '^T' "$TMP/ps" | grep -c 'cc1plus.*slow-src' || true)
# A 200 MiB budget holds no compile of torch's headers (~1.5 GiB, the plan's
# estimate for binding.cpp): beside it, every other compiler must be held. The
# three plain units are a light kind now (units from setup.py) and may all have
# finished before the pressure came; then there is nothing left to stop, but
# never two compilers running at once.
((stopped > 0 || running <= 1)) ||
  fail "the governor let $running compilers run and stopped none under a 200 MiB budget"
kill -TERM "$FF_PID"
RC=0
wait "$FF_PID" || RC=$?
forget_background "$FF_PID"
((RC == 130)) || fail "flashfit exited $RC after SIGTERM, not 130: $(tail -5 "$TMP/int.err")"
for ((i = 0; i < 50; i++)); do
  [[ -z $(build_processes) ]] && break
  sleep 0.1
done
[[ -z $(build_processes) ]] || fail "processes left behind: $(build_processes)"
pgrep -f "$TMP/slow-src" >/dev/null && fail "compilers of the source left behind"
compgen -G "$FLASHFIT_CACHE_DIR/tmp/build-*" >/dev/null && fail "the temp dir was not removed"
pass_note "SIGTERM: nothing left running ($stopped stopped compiler(s) at the time), temp dir removed"
