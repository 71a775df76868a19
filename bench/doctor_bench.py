#!/usr/bin/python3
"""Whole-process wall time of `flashfit doctor` against `import torch`.

    /usr/bin/python3 bench/doctor_bench.py build-rel/src/flashfit [RUNS]

Times, with time.perf_counter around subprocess.run (start-up, probe, output
and exit all included), RUNS times each (default 15):

  cold    flashfit doctor --python PY, a fresh FLASHFIT_CACHE_DIR every run
          (the interpreter is asked)
  warm    the same with one cache dir, after a priming run (the
          interpreter's facts come from the cache)
  import  PY -c "import torch; print(torch.__version__, torch.version.cuda,
          torch._C._GLIBCXX_USE_CXX11_ABI)": what doctor spares the user

and prints a markdown table (median, min, max) and warm/import, whose goal is
at most 1/10. The runs of the three kinds are interleaved, so a change in the
machine's load touches all three alike. Every run must exit 0; the bench stops
at the first that does not. Tests never assert on time (DESIGN.md); this is
the record behind bench/README.md.
"""

import argparse
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

PYTHON = "/usr/bin/python3"
IMPORT_TORCH = ("import torch; print(torch.__version__, torch.version.cuda, "
                "torch._C._GLIBCXX_USE_CXX11_ABI)")
TIMEOUT_S = 120


def timed(argv, env):
    """Seconds one run of argv takes, start to exit; exits on failure."""
    start = time.perf_counter()
    proc = subprocess.run(argv, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, timeout=TIMEOUT_S, check=False)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        sys.exit(f"doctor_bench: {' '.join(argv)} exited with {proc.returncode}:\n"
                 f"{proc.stderr.decode(errors='replace')[-2000:]}")
    return elapsed, proc.stdout


def machine_description():
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    try:
        load = "load average %.2f %.2f %.2f" % os.getloadavg()
    except OSError:
        load = "load average unknown"
    system = f"{platform.system()} {platform.release()}"
    try:
        with open("/etc/os-release", encoding="utf-8") as f:
            for line in f:
                if line.startswith("PRETTY_NAME="):
                    system = line.split("=", 1)[1].strip().strip('"') + f" (kernel {platform.release()})"
    except OSError:
        pass
    return f"{os.cpu_count()} CPUs ({cpu}), {system}, {load}"


def fmt_ms(seconds):
    return f"{seconds * 1000:.1f} ms" if seconds < 1 else f"{seconds:.2f} s"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("flashfit", help="path of a Release flashfit binary")
    parser.add_argument("runs", nargs="?", type=int, default=15, help="runs of each kind (default 15)")
    args = parser.parse_args()
    if args.runs < 1:
        parser.error("runs must be at least 1")
    flashfit = os.path.abspath(args.flashfit)
    if not os.access(flashfit, os.X_OK):
        parser.error(f"{flashfit} is not an executable")

    scratch = tempfile.mkdtemp(prefix="flashfit-doctor-bench.")
    try:
        base_env = dict(os.environ)
        base_env.pop("VIRTUAL_ENV", None)
        doctor = [flashfit, "doctor", "--python", PYTHON]

        warm_env = dict(base_env, FLASHFIT_CACHE_DIR=os.path.join(scratch, "warm"))
        _, report = timed(doctor, warm_env)  # primes the warm cache
        times = {"cold": [], "warm": [], "import": []}
        for run in range(args.runs):
            cold_env = dict(base_env, FLASHFIT_CACHE_DIR=os.path.join(scratch, f"cold-{run}"))
            times["cold"].append(timed(doctor, cold_env)[0])
            times["warm"].append(timed(doctor, warm_env)[0])
            elapsed, torch_out = timed([PYTHON, "-c", IMPORT_TORCH], base_env)
            times["import"].append(elapsed)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)

    version = subprocess.run([flashfit, "--version"], capture_output=True, text=True,
                             check=False).stdout.strip()
    print(f"{time.strftime('%Y-%m-%d')}, {machine_description()}")
    print(f"{version or flashfit}; torch as imported: {torch_out.decode().strip()}; "
          f"{args.runs} runs of each, interleaved\n")
    labels = {
        "cold": f"`flashfit doctor --python {PYTHON}`, cold (fresh FLASHFIT_CACHE_DIR)",
        "warm": f"`flashfit doctor --python {PYTHON}`, warm (cached interpreter facts)",
        "import": f"`{PYTHON} -c \"import torch; print(...)\"`",
    }
    print("| command | median | min | max |")
    print("| --- | --- | --- | --- |")
    for kind, label in labels.items():
        t = times[kind]
        print(f"| {label} | {fmt_ms(statistics.median(t))} | {fmt_ms(min(t))} | {fmt_ms(max(t))} |")
    ratio = statistics.median(times["warm"]) / statistics.median(times["import"])
    cold_ratio = statistics.median(times["cold"]) / statistics.median(times["import"])
    print(f"\nwarm/import = {ratio:.3f} (1/{1 / ratio:.0f}; goal <= 1/10: "
          f"{'met' if ratio <= 0.1 else 'NOT met'}); cold/import = {cold_ratio:.3f} (1/{1 / cold_ratio:.0f})")
    if b"toolkit" not in report:
        sys.exit("doctor_bench: the doctor report lacks its toolkit section; was anything measured?")


if __name__ == "__main__":
    main()
