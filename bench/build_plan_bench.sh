#!/usr/bin/env bash
# The build plan's time estimate against a measured build of the suite's test extension
# (tests/fixtures/build_pkg: 4 C++ units against the system torch, built like flash-attn
# with BuildExtension + ninja). Prints estimate, actual and the ratio estimate/actual for each
# run, and the CPU seconds per unit (user + sys of the whole build over its units), which a
# loaded machine does not inflate; record them in bench/README.md. Not CI: a real build, a minute or two here.
#   bench/build_plan_bench.sh [BUILD_DIR] [RUNS]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
runs=${2:-3}
work=$(mktemp -d "${TMPDIR:-/tmp}/flashfit-planbench-XXXXXX")
trap 'rm -rf "$work"' EXIT
/usr/bin/python3 -m venv --system-site-packages "$work/venv"
export FLASHFIT_CACHE_DIR=$work/cache
for i in $(seq "$runs"); do
  rm -rf "$work/src" "$FLASHFIT_CACHE_DIR"
  cp -r "$root/tests/fixtures/build_pkg" "$work/src"
  /usr/bin/time -f "%U %S" -o "$work/cpu" \
    "$build/src/flashfit" build "$work/src" --python "$work/venv/bin/python" --json >"$work/out.json" 2>/dev/null || true
  /usr/bin/python3 - "$work/out.json" "$work/cpu" <<'PY'
import json, os, sys
d = json.load(open(sys.argv[1]))
cpu = sum(float(x) for x in open(sys.argv[2]).read().split()[-2:])
p, r = d["plan"], d.get("run") or {}
est, act = p["time_estimate_s"], r.get("elapsed_s")
load = os.getloadavg()[0]
print(f"units {p['units']['cxx']} C++ ({p['units']['basis']}), jobs {p['jobs']}, estimate {est} s, "
      f"actual {act:.1f} s, estimate/actual {est / act:.2f}, peak {r.get('peak_group_bytes', 0) / 2**30:.2f} GiB "
      f"(plan {p['expected_peak_bytes'] / 2**30:.2f} GiB), CPU {cpu:.1f} s = {cpu / p['units']['cxx']:.1f} s per unit, "
      f"load {load:.1f}, ok {d['ok']}")
PY
done
