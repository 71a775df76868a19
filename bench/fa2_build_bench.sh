#!/usr/bin/env bash
# FlashAttention-2 source build (issue 22, item 6): `flashfit build
# flash-attn==2.8.3 --archs 80` (plan, preflight, memory governor) against
# `MAX_JOBS=N pip wheel` at the static settings a user would try, all against
# PyPI's CUDA torch 2.14.1 (.pydeps/torch-cuda) and this machine's nvcc 13.0.
# A full run takes hours on 2 cores (about 1 h 50 min per configuration for
# one arch at 2 jobs, docs/background.md §11.1): not CI, and not something to run
# on a shared machine without saying so. Figures: bench/README.md.
#
#   bench/fa2_build_bench.sh plan                # the plans only (seconds)
#   bench/fa2_build_bench.sh flashfit [LIMIT_S]  # flashfit build, stopped after LIMIT_S (default: none)
#   bench/fa2_build_bench.sh static N [LIMIT_S]  # MAX_JOBS=N pip wheel, NVCC_THREADS=1, FLASH_ATTN_CUDA_ARCHS=80
#   N = 1, 2, or "upstream" (flash-attn's own formula: min(nproc, (free GiB)/9) jobs... see README)
#
# Each run records wall time, peak RSS of the tree (/usr/bin/time -v), ninja's
# [N/M] progress reached, and for flashfit the governor's pauses (from --json).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
FLASHFIT=${FLASHFIT:-$root/build/src/flashfit}
PY=$root/.pydeps/torch-cuda/bin/python
[[ -x $PY ]] || { echo "no $PY: run scripts/pydeps/torch-cuda.sh first" >&2; exit 2; }
INDEX=https://pypi.org/simple
SPEC=flash-attn==2.8.3
mode=${1:?usage: $0 plan | flashfit [LIMIT_S] | static N [LIMIT_S]}
out=$root/bench/.work/fa2/$(date -u +%Y%m%dT%H%M%SZ)-$mode
mkdir -p "$out"
export FLASHFIT_CACHE_DIR=${FLASHFIT_CACHE_DIR:-$root/bench/.work/fa2/cache}

limit() { # limit SECONDS CMD...: run bounded (0 = unbounded); exit 124 when cut
  local s=$1
  shift
  if [[ $s == 0 ]]; then "$@"; else timeout --signal=INT --kill-after=60 "$s" "$@"; fi
}

progress() { grep -oE '\[[0-9]+/[0-9]+\]' "$1" | tail -n 1 || true; }

case $mode in
  plan)
    for budget in "" 8G 4G; do
      "$FLASHFIT" build "$SPEC" --python "$PY" --index-url "$INDEX" --archs 80 --dry-run --json \
        ${budget:+--memory-budget $budget} >"$out/plan${budget:+-$budget}.json" 2>"$out/plan.err" || true
      /usr/bin/python3 - "$out/plan${budget:+-$budget}.json" "${budget:-available}" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
p = d["plan"]
print(f"budget {sys.argv[2]:>9}: jobs {p['jobs']} x threads {p.get('threads')}, "
      f"peak {p.get('expected_peak_bytes', 0) / 2**30:.1f} GiB, time {p.get('time_estimate_s') or p.get('time_basis')}")
PY
    done ;;
  flashfit)
    rc=0
    limit "${2:-0}" /usr/bin/time -v -o "$out/time" nice "$FLASHFIT" build "$SPEC" --python "$PY" --index-url "$INDEX" \
      --archs 80 --json >"$out/build.json" 2>"$out/build.err" || rc=$?
    echo "flashfit build: exit $rc, progress $(progress "$out/build.err"), peak RSS $(sed -n 's/.*Maximum resident set size (kbytes): //p' "$out/time") kB"
    sed -n 's/.*Elapsed (wall clock) time.*: //p' "$out/time" ;;
  static)
    n=${2:?static needs N}
    src=$out/src
    mkdir -p "$src"
    "$PY" -m pip download -q --no-deps --no-binary :all: --no-build-isolation -d "$src" "$SPEC" ||
      { echo "cannot download the sdist" >&2; exit 1; }
    tar -xzf "$src"/flash_attn-*.tar.gz -C "$src"
    if [[ $n == upstream ]]; then n=$(
      "$PY" -c 'import os, psutil; print(max(1, min(os.cpu_count() // 2, int(psutil.virtual_memory().available / 2**30 / 9))))'
    ); fi
    rc=0
    limit "${3:-0}" /usr/bin/time -v -o "$out/time" env MAX_JOBS="$n" NVCC_THREADS=1 FLASH_ATTN_CUDA_ARCHS=80 \
      FLASH_ATTENTION_FORCE_BUILD=TRUE nice "$PY" -m pip wheel -v --no-deps --no-build-isolation -w "$out/wheel" \
      "$src"/flash_attn-2.8.3 >"$out/pip.log" 2>&1 || rc=$?
    echo "MAX_JOBS=$n pip wheel: exit $rc, progress $(progress "$out/pip.log"), peak RSS $(sed -n 's/.*Maximum resident set size (kbytes): //p' "$out/time") kB"
    sed -n 's/.*Elapsed (wall clock) time.*: //p' "$out/time" ;;
  *) echo "unknown mode $mode" >&2; exit 2 ;;
esac
echo "records: $out"
