#!/usr/bin/python3
"""`flashfit resolve flash-attn` through a pyenv shim vs with a direct --python path.

    /usr/bin/python3 bench/pyenv_shim_bench.py SHIM DIRECT FLASHFIT [FLASHFIT...] [--runs N]

SHIM is a pyenv shim (e.g. ~/.pyenv/shims/python3), DIRECT the interpreter it
execs here (`pyenv which python3`). For each flashfit binary given (e.g. one
built before a change and one after), times whole-process `resolve` with all
what-if flags (--python-version 3.12 --torch 2.9.1+cu128 --gpu 8.9), once with
--python SHIM and once with --python DIRECT, interleaved, after a priming run
each (warm interpreter cache in a private FLASHFIT_CACHE_DIR). Prints a
markdown table of min/median/max in ms and the shim/direct ratio of medians.
Tests never assert on time; this is the record behind bench/README.md.
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time


def timed(argv, env):
    start = time.perf_counter()
    proc = subprocess.run(argv, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, timeout=60, check=False)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        sys.exit(f"pyenv_shim_bench: {' '.join(argv)} exited {proc.returncode}:\n"
                 f"{proc.stderr.decode(errors='replace')[-2000:]}")
    return elapsed * 1000


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("shim")
    parser.add_argument("direct")
    parser.add_argument("flashfit", nargs="+")
    parser.add_argument("--runs", type=int, default=11)
    args = parser.parse_args()
    whatif = ["--python-version", "3.12", "--torch", "2.9.1+cu128", "--gpu", "8.9"]
    print("| binary | --python | min ms | median ms | max ms | shim/direct (median) |")
    print("|---|---|---|---|---|---|")
    for binary in args.flashfit:
        with tempfile.TemporaryDirectory(prefix="flashfit-shim-bench-") as cache:
            env = dict(os.environ, FLASHFIT_CACHE_DIR=cache)
            env.pop("FLASHFIT_CONFIG", None)
            argvs = {k: [binary, "resolve", "flash-attn", "--python", p] + whatif
                     for k, p in (("shim", args.shim), ("direct", args.direct))}
            times = {k: [] for k in argvs}
            for argv in argvs.values():
                timed(argv, env)  # prime the interpreter cache
            for _ in range(args.runs):
                for k, argv in argvs.items():
                    times[k].append(timed(argv, env))
            ratio = statistics.median(times["shim"]) / statistics.median(times["direct"])
            for k, t in times.items():
                print(f"| {binary} | {k} | {min(t):.1f} | {statistics.median(t):.1f} | {max(t):.1f} | "
                      f"{f'{ratio:.2f}x' if k == 'shim' else ''} |")


if __name__ == "__main__":
    main()
