#!/usr/bin/python3
"""flashfit install of a cached ~100 MB wheel against a bare pip install, and
flashfit's download throughput against curl.

    /usr/bin/python3 bench/install_bench.py build-rel/src/flashfit [RUNS] [--before OTHER] [--no-fetch]

Generates bench/.work/ffbig-1.0-py3-none-any.whl: a package whose 100 MB
blob is stored uncompressed, as a flash-attn wheel's big .so mostly is
(RECORD hashes real). Then, RUNS times each (default 7), interleaved:

  install  flashfit install ffbig --find-links DIR --python VENV_PY (the wheel
           already in flashfit's cache: resolve, inspect the bytes, pip
           install --no-deps, import check)
  pip      VENV_PY -m pip install --no-deps --no-index --force-reinstall WHEEL
           (what the install step itself costs)
  fetch    flashfit cache add http://127.0.0.1:PORT/ffbig-...whl into an empty
           cache (download, sha256, rename) from tests/fixtures/http_server.py
  curl     curl -s -o FILE of the same URL

With --before, OTHER (main's binary, say) runs the same install in each
round too, interleaved ("before"); --no-fetch leaves out fetch and curl.

Both installs replace the previous install in the same venv, so both pay an
uninstall. Prints medians and the ratios install/pip (goal <= 1.1, issue 17) and
fetch/curl (goal <= 1.1). Tests never assert on time; bench/README.md has the
record.
"""

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

from bench_wheel import serving, write_wheel

PYTHON = "/usr/bin/python3"
HERE = os.path.dirname(os.path.abspath(__file__))
WORK = os.path.join(HERE, ".work")
SIZE = 100 * 1024 * 1024


def make_wheel(path):
    if os.path.exists(path):
        return
    write_wheel(path, "ffbig", {"ffbig/__init__.py": b"BLOB = __file__\n", "ffbig/blob.bin": os.urandom(SIZE)})


def timed(argv, env=None):
    start = time.perf_counter()
    proc = subprocess.run(argv, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, check=False, timeout=600)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        sys.exit(f"install_bench: {' '.join(argv)} failed ({proc.returncode}):\n{proc.stderr.decode()[-2000:]}")
    return elapsed


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("flashfit")
    parser.add_argument("runs", nargs="?", type=int, default=7)
    parser.add_argument("--before", help="another flashfit binary, run interleaved as 'before'")
    parser.add_argument("--no-fetch", action="store_true", help="time the installs only")
    args = parser.parse_args()
    flashfit = os.path.abspath(args.flashfit)
    os.makedirs(os.path.join(WORK, "wheels"), exist_ok=True)
    wheel = os.path.join(WORK, "wheels", "ffbig-1.0-py3-none-any.whl")
    make_wheel(wheel)
    with tempfile.TemporaryDirectory(prefix="flashfit-install-bench-", dir=WORK) as tmp:
        venv = os.path.join(tmp, "venv")
        subprocess.run([PYTHON, "-m", "venv", "--system-site-packages", venv], check=True)
        py = os.path.join(venv, "bin", "python")
        cache = os.path.join(tmp, "cache")
        config = os.path.join(tmp, "empty.toml")
        with open(config, "w") as f:
            f.write("# no recipes, no indexes\n")
        env = dict(os.environ, FLASHFIT_CACHE_DIR=cache, FLASHFIT_CONFIG=config)
        install = [flashfit, "install", "ffbig", "--find-links", os.path.dirname(wheel), "--python", py]
        pip = [py, "-m", "pip", "install", "--no-deps", "--no-index", "--force-reinstall",
               "--disable-pip-version-check", "-q", wheel]
        timed(install, env)  # fills the cache and the interpreter facts
        with serving(os.path.dirname(wheel), tmp) as base:
            url = f"{base}/ffbig-1.0-py3-none-any.whl"
            fetch_env = dict(env, no_proxy="127.0.0.1")
            times = {"install": [], "pip": []}
            before = None
            if args.before:
                before = [os.path.abspath(args.before)] + install[1:]
                timed(before, env)
                times["before"] = []
            if not args.no_fetch:
                times.update({"fetch": [], "curl": []})
            for i in range(args.runs):
                if before:
                    times["before"].append(timed(before, env))
                times["install"].append(timed(install, env))
                times["pip"].append(timed(pip))
                if args.no_fetch:
                    continue
                fetch_cache = os.path.join(tmp, f"fetch-cache-{i}")
                times["fetch"].append(timed([flashfit, "cache", "add", url],
                                            dict(fetch_env, FLASHFIT_CACHE_DIR=fetch_cache)))
                shutil.rmtree(fetch_cache, ignore_errors=True)
                out = os.path.join(tmp, "curl.out")
                times["curl"].append(timed(["curl", "-s", "--noproxy", "127.0.0.1", "-o", out, url]))
                os.remove(out)
    med = {k: statistics.median(v) for k, v in times.items()}
    print("| run | median | min | max |")
    print("| --- | --- | --- | --- |")
    for k, v in times.items():
        print(f"| `{k}` | {med[k]:.2f} s | {min(v):.2f} s | {max(v):.2f} s |")
    ratios = sorted(i / p for i, p in zip(times["install"], times["pip"]))
    print(f"\ninstall / pip = {med['install'] / med['pip']:.2f} (goal <= 1.1; per run min "
          f"{ratios[0]:.2f}, median {statistics.median(ratios):.2f}, max {ratios[-1]:.2f})")
    if "before" in times:
        was = sorted(b / p for b, p in zip(times["before"], times["pip"]))
        print(f"before / pip = {med['before'] / med['pip']:.2f} (per run min {was[0]:.2f}, "
              f"median {statistics.median(was):.2f}, max {was[-1]:.2f})")
    if "fetch" in times:
        print(f"fetch / curl = {med['fetch'] / med['curl']:.2f} (goal <= 1.1); "
              f"throughput {SIZE / med['fetch'] / 1e6:.0f} MB/s vs curl {SIZE / med['curl'] / 1e6:.0f} MB/s")


if __name__ == "__main__":
    main()
