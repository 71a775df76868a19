#!/usr/bin/python3
"""Whole-process wall time of `flashfit resolve flash-attn` over the full catalog.

    /usr/bin/python3 bench/resolve_bench.py build-rel/src/flashfit [RUNS] [--before MAIN_BINARY]

Every run judges every wheel of the built-in flash-attn catalog: upstream
(2,826) and community (3,464 flash_attn rows; a disabled source's wheels are
still judged, for suggestions), about 6,300 in all. Times, with
time.perf_counter around subprocess.run, RUNS times each (default 21), after a
priming run (so the interpreter's facts come from FLASHFIT_CACHE_DIR: "warm"):

  fit      --python /usr/bin/python3 --offline --python-version 3.12 --torch 2.9.1+cu128
           --gpu 8.9: a
           wheel is selected (exit 0)
  nofit    --python /usr/bin/python3 as probed (Debian's CPU torch 1.13.1):
           nothing fits, so suggestions are computed and nvcc is asked for
           its version (exit 1)
  fit+json the first, with --json (the pick, the nearest rejections, the
           counts per reason: what the text shows)
  fit-all  the first, with --all (text listing every candidate)
  fit-all+json  the first, with --all --json (every candidate serialised)

and prints a markdown table (wall and CPU time, min/median/max), then the ratios of issue 17's
goal 4 computed per interleaved run (fit+json / fit <= 1.5, fit-all+json /
fit-all <= 2) with their min, median and max, and the JSON sizes. With
--before, another build is timed in the same runs (each kind run by both
binaries back to back) and the after / before ratios are printed per run. Tests never
assert on time; this is the record behind bench/README.md.
"""

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

PYTHON = "/usr/bin/python3"
TIMEOUT_S = 60


def children_cpu():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(argv, env, want_rc):
    """Wall time and CPU time (user + system of the child, steadier than wall
    time on a shared machine) of one run."""
    cpu_start = children_cpu()
    start = time.perf_counter()
    proc = subprocess.run(argv, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, timeout=TIMEOUT_S, check=False)
    elapsed = time.perf_counter() - start
    cpu = children_cpu() - cpu_start
    if proc.returncode != want_rc:
        sys.exit(f"resolve_bench: {' '.join(argv)} exited with {proc.returncode}, wanted {want_rc}:\n"
                 f"{proc.stderr.decode(errors='replace')[-2000:]}")
    return elapsed, cpu


def kinds_for(flashfit):
    # --offline: the pick's URL check (a HEAD to github.com, kept once answered)
    # is network time, not resolve's; on a machine without DNS it fails fast
    # but is never kept, so every run would pay it.
    base = [flashfit, "resolve", "flash-attn", "--python", PYTHON, "--offline"]
    fit = base + ["--python-version", "3.12", "--torch", "2.9.1+cu128", "--gpu", "8.9"]
    return {
        "fit": (fit, 0),
        "nofit": (base, 1),
        "fit+json": (fit + ["--json"], 0),
        "fit-all": (fit + ["--all"], 0),
        "fit-all+json": (fit + ["--all", "--json"], 0),
    }


def ms(values):
    return " / ".join(f"{v * 1000:.1f}" for v in
                      (min(values), statistics.median(values), max(values)))


def spread(values):
    return " / ".join(f"{v:.2f}" for v in (min(values), statistics.median(values), max(values)))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("flashfit")
    parser.add_argument("runs", nargs="?", type=int, default=21)
    parser.add_argument("--before", metavar="BINARY",
                        help="another build (main's) timed in the same runs, interleaved "
                             "with FLASHFIT kind by kind; adds a table of per-run ratios")
    args = parser.parse_args()
    binaries = {"": args.flashfit}
    if args.before:
        binaries = {"before": args.before, "after": args.flashfit}
    with tempfile.TemporaryDirectory(prefix="flashfit-resolve-bench-") as cache:
        env = dict(os.environ, FLASHFIT_CACHE_DIR=cache)
        env.pop("FLASHFIT_CONFIG", None)
        kinds = {label: kinds_for(binary) for label, binary in binaries.items()}
        for label in binaries:
            for argv, rc in kinds[label].values():
                timed(argv, env, rc)  # prime the interpreter cache
        names = list(kinds[next(iter(binaries))])
        times = {label: {k: [] for k in names} for label in binaries}
        cpus = {label: {k: [] for k in names} for label in binaries}
        for _ in range(args.runs):
            for name in names:
                for label in binaries:
                    argv, rc = kinds[label][name]
                    wall, cpu = timed(argv, env, rc)
                    times[label][name].append(wall)
                    cpus[label][name].append(cpu)
        last = list(binaries)[-1]
        sizes = {k: len(subprocess.run(kinds[last][k][0], env=env, stdout=subprocess.PIPE,
                                       stderr=subprocess.DEVNULL, check=False).stdout)
                 for k in ("fit", "fit+json", "fit-all", "fit-all+json")}

    for label, binary in binaries.items():
        if label:
            print(f"{label}: {binary}")
        print()
        print("| run | wall min / median / max ms | CPU min / median / max ms |")
        print("| --- | --- | --- |")
        for name in names:
            print(f"| `{name}` | {ms(times[label][name])} | {ms(cpus[label][name])} |")
        print()
        print("| ratio (per run) | wall min / median / max | CPU min / median / max |")
        print("| --- | --- | --- |")
        for num, den in (("fit+json", "fit"), ("fit-all+json", "fit-all")):
            cells = []
            for series in (times[label], cpus[label]):
                cells.append(spread([a / b for a, b in zip(series[num], series[den])]))
            print(f"| `{num}` / `{den}` | {cells[0]} | {cells[1]} |")
        print()
    if args.before:
        print("after / before, per interleaved run:")
        print()
        print("| run | wall min / median / max | CPU min / median / max |")
        print("| --- | --- | --- |")
        for name in names:
            cells = []
            for series in (times, cpus):
                cells.append(spread([a / b for a, b in
                                     zip(series["after"][name], series["before"][name])]))
            print(f"| `{name}` | {cells[0]} | {cells[1]} |")
        print()
    print("output bytes: " + ", ".join(f"`{k}` {v:,}" for k, v in sizes.items()))


if __name__ == "__main__":
    main()
