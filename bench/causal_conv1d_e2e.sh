#!/usr/bin/env bash
# The exact-wheel workflow end to end, for real (issue 22, item 2), with the
# sdist fetched from PyPI's live index (the CI test integration.causal_conv1d_real
# runs the same workflow from the pinned local sdist, offline). The build is
# `--archs 80` through flashfit's nvcc wrapper: one of the 9 -gencode targets
# causal-conv1d 1.7.0's setup.py gives nvcc 13 (bench/README.md: figures).
# Not run by ctest. It installs into .pydeps/torch-cuda itself.
#
#   bench/causal_conv1d_e2e.sh [FLASHFIT] [VERSION]
#
# Into the venv with PyPI's CUDA torch 2.14.1 (.pydeps/torch-cuda,
# scripts/pydeps/torch-cuda.sh), with its own cache:
#  1. `flashfit resolve` from PyPI's index: no prebuilt wheel fits (says so);
#  2. `flashfit build causal-conv1d==VERSION` from PyPI's sdist under the plan,
#     preflight and governor, --archs 80, timed, with the peak RSS of the whole tree;
#  3. the wheel's checks (binary tags, inspect against torch 2.14.1's libraries,
#     the fatbin's SASS list with sm_80) from `flashfit build --json`;
#  4. `flashfit install causal-conv1d==VERSION` takes it from the cache
#     (--no-deps, torch untouched) and imports causal_conv1d_cuda (no GPU
#     needed to import).
# Every step's figures go to bench/.work/causal-conv1d/<timestamp>/.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
FLASHFIT=${1:-$root/build/src/flashfit}
VERSION=${2:-1.7.0}
PY=$root/.pydeps/torch-cuda/bin/python
[[ -x $PY ]] || { echo "no $PY: run scripts/pydeps/torch-cuda.sh first" >&2; exit 2; }
out=$root/bench/.work/causal-conv1d/$(date -u +%Y%m%dT%H%M%SZ)
mkdir -p "$out"
export FLASHFIT_CACHE_DIR=$out/cache
INDEX=https://pypi.org/simple

echo "== resolve (no prebuilt wheel expected for torch $("$PY" -c 'import torch; print(torch.__version__)'))"
rc=0
"$FLASHFIT" resolve "causal-conv1d==$VERSION" --python "$PY" --index-url "$INDEX" --gpu 8.0 --json >"$out/resolve.json" || rc=$?
echo "resolve exit $rc (1 = nothing fits)"

echo "== build (nice; the plan picks the jobs from the memory here)"
start=$(date +%s)
rc=0
/usr/bin/time -v -o "$out/build.time" nice "$FLASHFIT" build "causal-conv1d==$VERSION" --python "$PY" \
  --index-url "$INDEX" --archs 80 --json >"$out/build.json" 2>"$out/build.err" || rc=$?
end=$(date +%s)
echo "build exit $rc after $((end - start)) s; peak RSS of flashfit's tree: $(sed -n 's/.*Maximum resident set size (kbytes): //p' "$out/build.time") kB"
[[ $rc == 0 ]] || { tail -n 20 "$out/build.err"; exit 1; }
/usr/bin/python3 - "$out/build.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
w = d["wheel"]
print("wheel   ", w["filename"])
print("archs   ", ", ".join(w["archs"]) or "(none found)")
print("inspect ", w["inspect"]["summary"])
print("toolkit ", w.get("toolkit"))
assert "linux_x86_64" in w["filename"] and "-cp311-" in w["filename"], "not a binary cp311 linux wheel"
assert "sm_80" in w["archs"], "no sm_80 SASS in the wheel"
assert w["inspect"]["compatible"], "the built wheel does not pass inspect"
PY

echo "== install from the cache, then import"
"$FLASHFIT" install "causal-conv1d==$VERSION" --python "$PY" --json >"$out/install.json"
"$PY" -c 'import torch, causal_conv1d_cuda, causal_conv1d; print("imported", causal_conv1d_cuda.__file__)'
echo "figures and logs: $out"
