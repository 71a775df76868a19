#!/usr/bin/python3
"""flashfit's download into the cache against `curl -o`, from one local server.

    /usr/bin/python3 bench/fetch_bench.py build/src/flashfit [--before OTHER] [--runs N]
                                          [--size-mb M]

Generates (once) bench/.work/wheels/fffetch-1.0-py3-none-any.whl: a wheel whose
M MB blob (default 100) is stored uncompressed, and serves its directory with
tests/fixtures/http_server.py on 127.0.0.1. Then N times (default 7),
interleaved in one round each:

  after    FLASHFIT cache add http://127.0.0.1:PORT/fffetch-...whl into an empty
           cache: download, sha256, the bytes durable, the entry renamed into place
  before   the same with OTHER (e.g. main's binary), when given
  curl     curl -s -o FILE of the same URL
  curl+sync  the same, then `sync -f FILE` (curl with the durability flashfit gives)

Every output is removed after its step. Prints min / median / max wall time,
the CPU (user + sys of the step and its children) and the ratios of the
medians against curl (issue 17's goal: at most 1.1x). Tests never assert on
time; bench/README.md has the record.
"""

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

from bench_wheel import serving, write_wheel

HERE = os.path.dirname(os.path.abspath(__file__))
WORK = os.path.join(HERE, ".work")


def make_wheel(path, size):
    if os.path.exists(path) and os.path.getsize(path) > size:
        return
    write_wheel(path, "fffetch", {"fffetch/__init__.py": b"", "fffetch/blob.bin": os.urandom(size)})


def timed(argv, env=None):
    """Wall seconds and CPU seconds (user + sys of the child) of one command."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(argv, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, check=False, timeout=600)
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        sys.exit(f"fetch_bench: {' '.join(argv)} failed ({proc.returncode}):\n{proc.stderr.decode()[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return elapsed, cpu


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("flashfit")
    parser.add_argument("--before", help="a second flashfit binary timed in the same rounds")
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--size-mb", type=int, default=100)
    args = parser.parse_args()
    binaries = {"after": os.path.abspath(args.flashfit)}
    if args.before:
        binaries["before"] = os.path.abspath(args.before)
    wheels = os.path.join(WORK, "wheels")
    os.makedirs(wheels, exist_ok=True)
    wheel = os.path.join(wheels, "fffetch-1.0-py3-none-any.whl")
    make_wheel(wheel, args.size_mb * 1024 * 1024)
    size = os.path.getsize(wheel)
    with tempfile.TemporaryDirectory(prefix="flashfit-fetch-bench-", dir=WORK) as tmp:
        config = os.path.join(tmp, "empty.toml")
        with open(config, "w") as f:
            f.write("# no recipes, no indexes\n")
        with serving(wheels, tmp) as base:
            url = f"{base}/fffetch-1.0-py3-none-any.whl"
            env = dict(os.environ, FLASHFIT_CONFIG=config, no_proxy="127.0.0.1")
            out = os.path.join(tmp, "curl.out")
            curl = ["curl", "-s", "--noproxy", "127.0.0.1", "-o", out, url]
            steps = {}
            for name, binary in binaries.items():
                steps[name] = lambda i, b=binary, n=name: timed(
                    [b, "cache", "add", url], dict(env, FLASHFIT_CACHE_DIR=os.path.join(tmp, f"{n}-{i}")))
            steps["curl"] = lambda i: timed(curl)

            def curl_sync(i):
                wall, cpu = timed(curl)
                wall2, cpu2 = timed(["sync", "-f", out])
                return wall + wall2, cpu + cpu2
            steps["curl+sync"] = curl_sync
            timed(curl)  # the file into the server's and the page cache once
            times = {name: [] for name in steps}
            cpus = {name: [] for name in steps}
            for i in range(args.runs):
                for name, step in steps.items():
                    wall, cpu = step(i)
                    times[name].append(wall)
                    cpus[name].append(cpu)
                    shutil.rmtree(os.path.join(tmp, f"{name}-{i}"), ignore_errors=True)
                    if os.path.exists(out):
                        os.remove(out)
    med = {k: statistics.median(v) for k, v in times.items()}
    print(f"{size / 1e6:.0f} MB, {args.runs} runs, load average {os.getloadavg()[0]:.2f} at the end")
    print("| step | min | median | max | CPU (median) | MB/s (median) | median / curl |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for k, v in times.items():
        print(f"| {k} | {min(v):.3f} s | {med[k]:.3f} s | {max(v):.3f} s | "
              f"{statistics.median(cpus[k]):.3f} s | {size / med[k] / 1e6:.0f} | {med[k] / med['curl']:.2f}x |")
    for k in binaries:
        ratios = sorted(a / c for a, c in zip(times[k], times["curl"]))
        print(f"{k} / curl per round: min {ratios[0]:.2f} median {statistics.median(ratios):.2f} "
              f"max {ratios[-1]:.2f} (goal <= 1.1)")


if __name__ == "__main__":
    main()
