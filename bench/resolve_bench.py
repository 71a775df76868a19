#!/usr/bin/python3
"""Whole-process wall time of `flashfit resolve flash-attn` over the full catalog.

    /usr/bin/python3 bench/resolve_bench.py build-rel/src/flashfit [RUNS]

Every run judges every wheel of the built-in flash-attn catalog: upstream
(2,826) and community (3,464 flash_attn rows; a disabled source's wheels are
still judged, for suggestions), about 6,300 in all. Times, with
time.perf_counter around subprocess.run, RUNS times each (default 21), after a
priming run (so the interpreter's facts come from FLASHFIT_CACHE_DIR: "warm"):

  fit      --python /usr/bin/python3 --python-version 3.12 --torch 2.9.1+cu128
           --gpu 8.9: a
           wheel is selected (exit 0)
  nofit    --python /usr/bin/python3 as probed (Debian's CPU torch 1.13.1):
           nothing fits, so suggestions are computed and nvcc is asked for
           its version (exit 1)
  fit+json the first, with --json (the pick, the nearest rejections, the
           counts per reason: what the text shows)
  fit-all  the first, with --all (text listing every candidate)
  fit-all+json  the first, with --all --json (every candidate serialised)

and prints a markdown table (median, min, max), then the ratios of issue 17's
goal 4 computed per interleaved run (fit+json / fit <= 1.5, fit-all+json /
fit-all <= 2) with their min, median and max, and the JSON sizes. Tests never
assert on time; this is the record behind bench/README.md.
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

PYTHON = "/usr/bin/python3"
TIMEOUT_S = 60


def timed(argv, env, want_rc):
    start = time.perf_counter()
    proc = subprocess.run(argv, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, timeout=TIMEOUT_S, check=False)
    elapsed = time.perf_counter() - start
    if proc.returncode != want_rc:
        sys.exit(f"resolve_bench: {' '.join(argv)} exited with {proc.returncode}, wanted {want_rc}:\n"
                 f"{proc.stderr.decode(errors='replace')[-2000:]}")
    return elapsed


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("flashfit")
    parser.add_argument("runs", nargs="?", type=int, default=21)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="flashfit-resolve-bench-") as cache:
        env = dict(os.environ, FLASHFIT_CACHE_DIR=cache)
        env.pop("FLASHFIT_CONFIG", None)
        base = [args.flashfit, "resolve", "flash-attn", "--python", PYTHON]
        fit = base + ["--python-version", "3.12", "--torch", "2.9.1+cu128", "--gpu", "8.9"]
        kinds = {
            "fit": (fit, 0),
            "nofit": (base, 1),
            "fit+json": (fit + ["--json"], 0),
            "fit-all": (fit + ["--all"], 0),
            "fit-all+json": (fit + ["--all", "--json"], 0),
        }
        for argv, rc in kinds.values():
            timed(argv, env, rc)  # prime the interpreter cache
        times = {k: [] for k in kinds}
        for _ in range(args.runs):
            for name, (argv, rc) in kinds.items():
                times[name].append(timed(argv, env, rc))
        sizes = {k: len(subprocess.run(kinds[k][0], env=env, stdout=subprocess.PIPE,
                                       stderr=subprocess.DEVNULL, check=False).stdout)
                 for k in ("fit", "fit+json", "fit-all", "fit-all+json")}
    print("| run | median | min | max |")
    print("| --- | --- | --- | --- |")
    for name, values in times.items():
        print(f"| `{name}` | {statistics.median(values) * 1000:.1f} ms | {min(values) * 1000:.1f} ms | "
              f"{max(values) * 1000:.1f} ms |")
    print()
    print("| ratio (per run) | median | min | max |")
    print("| --- | --- | --- | --- |")
    for num, den in (("fit+json", "fit"), ("fit-all+json", "fit-all")):
        ratios = [a / b for a, b in zip(times[num], times[den])]
        print(f"| `{num}` / `{den}` | {statistics.median(ratios):.2f} | {min(ratios):.2f} | "
              f"{max(ratios):.2f} |")
    print()
    print("output bytes: " + ", ".join(f"`{k}` {v:,}" for k, v in sizes.items()))


if __name__ == "__main__":
    main()
