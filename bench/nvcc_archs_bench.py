#!/usr/bin/python3
"""What arch narrowing saves: nvcc compiling one real CUDA file for the four
FlashAttention-2 archs against only the arch flashfit picks for the GPU.

    /usr/bin/python3 bench/nvcc_archs_bench.py [--nvcc PATH] [--runs 3] [--source FILE]

Compiles FILE (default bench/fixtures/attn_kernel.cu: a template-heavy tiled
attention forward pass: 48 kernels over fp16/bf16 x head dims 64/128/256 x
causal x even/uneven key tiles x split-KV, plus 12 split-KV combine kernels) with the nvcc flags flash-attn's setup.py
passes (-O3, -std=c++17, the half/bfloat16 -U flags, --expt-relaxed-constexpr,
--expt-extended-lambda, --use_fast_math) and --threads 1, RUNS times each,
interleaved:

  four   -gencode arch=compute_{80,90,100,120},code=sm_{same}: flash-attn
         v2.7.3-v2.8.3's default FLASH_ATTN_CUDA_ARCHS="80;90;100;120"
  one    -gencode arch=compute_80,code=sm_80: what flashfit builds for an
         8.9 GPU (L40S, RTX 4090), which runs the sm_80 SASS

Prints the median wall time of each (min-max beside it), the ratio, the
object size and the peak RSS of the largest child (cicc or ptxas), and, from
nvcc --time of the last run, where the time went per phase. No GPU needed.
Tests never assert on time; bench/README.md has the record.
"""

import argparse
import csv
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_SOURCE = os.path.join(HERE, "fixtures", "attn_kernel.cu")

# flash-attn's setup.py nvcc flags (the -gencode list aside), v2.7.3-v2.8.3.
UPSTREAM_FLAGS = [
    "-O3",
    "-std=c++17",
    "-U__CUDA_NO_HALF_OPERATORS__",
    "-U__CUDA_NO_HALF_CONVERSIONS__",
    "-U__CUDA_NO_HALF2_OPERATORS__",
    "-U__CUDA_NO_BFLOAT16_CONVERSIONS__",
    "--expt-relaxed-constexpr",
    "--expt-extended-lambda",
    "--use_fast_math",
]
CONFIGS = {
    "four": ["80", "90", "100", "120"],
    "one": ["80"],
}


def gencode(archs):
    flags = []
    for arch in archs:
        flags += ["-gencode", f"arch=compute_{arch},code=sm_{arch}"]
    return flags


def compile_once(nvcc, source, archs, out_dir, time_csv=None):
    """Wall seconds, object bytes and the largest child's peak RSS (KiB) of one compile."""
    obj = os.path.join(out_dir, f"attn_{'_'.join(archs)}.o")
    argv = [nvcc, *UPSTREAM_FLAGS, "--threads", "1", *gencode(archs), "-c", source, "-o", obj]
    if time_csv:
        argv += ["--time", time_csv]
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    output = proc.stdout.read()
    # wait4: this child's own rusage, whose ru_maxrss is the largest RSS among
    # it and the children it waited for (cicc, ptxas, gcc).
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        sys.exit(f"nvcc_archs_bench: {' '.join(argv)} failed ({proc.returncode}):\n{output.decode()[-3000:]}")
    size = os.path.getsize(obj)
    os.unlink(obj)
    return elapsed, size, usage.ru_maxrss


def phase_summary(time_csv):
    """From nvcc --time: host seconds (gcc, cudafe++, fatbinary) and, per arch, cicc and ptxas seconds."""
    host, per_arch = 0.0, {}
    with open(time_csv, newline="") as f:
        rows = list(csv.reader(f))
    for row in rows[1:]:
        if len(row) < 8:
            continue
        name, arch, seconds = row[1].strip(), row[4].strip(), float(row[6]) / 1000.0
        tool = "cicc" if name.startswith("cicc") else "ptxas" if name.startswith("ptxas") else None
        if tool is None:
            host += seconds
            continue
        number = arch.split("_")[-1]
        per_arch.setdefault(number, {"cicc": 0.0, "ptxas": 0.0})[tool] += seconds
    return host, per_arch


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--nvcc", default="/usr/local/cuda/bin/nvcc")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--source", default=DEFAULT_SOURCE)
    args = parser.parse_args()
    if not os.access(args.nvcc, os.X_OK):
        sys.exit(f"nvcc_archs_bench: no nvcc at {args.nvcc} (pass --nvcc PATH)")

    version = subprocess.run([args.nvcc, "--version"], capture_output=True, text=True).stdout.strip().splitlines()
    print(f"nvcc: {version[-1] if version else '?'}")
    print(f"source: {os.path.relpath(args.source)}; {args.runs} runs each, interleaved; "
          f"load average before: {os.getloadavg()[0]:.2f}")

    results = {name: [] for name in CONFIGS}
    sizes, peaks = {}, {name: 0 for name in CONFIGS}
    with tempfile.TemporaryDirectory(prefix="nvcc-archs-bench-") as work:
        csvs = {name: os.path.join(work, f"{name}.csv") for name in CONFIGS}
        for run in range(args.runs):
            for name, archs in CONFIGS.items():
                last = run == args.runs - 1
                elapsed, size, peak = compile_once(args.nvcc, args.source, archs, work, csvs[name] if last else None)
                results[name].append(elapsed)
                sizes[name] = size
                peaks[name] = max(peaks[name], peak)
                print(f"  run {run + 1} {name:4} ({';'.join(archs)}): {elapsed:6.1f} s", flush=True)
        phases = {name: phase_summary(csvs[name]) for name in CONFIGS}
    print(f"load average after: {os.getloadavg()[0]:.2f}")

    print()
    print("| archs | wall (median) | min-max | object | peak RSS (largest child) |")
    print("| --- | --- | --- | --- | --- |")
    for name, archs in CONFIGS.items():
        times = results[name]
        print(f"| {', '.join('sm_' + a for a in archs)} | {statistics.median(times):.1f} s | "
              f"{min(times):.1f}-{max(times):.1f} s | {sizes[name] / 1e6:.1f} MB | {peaks[name] / 1024:.0f} MiB |")
    ratio = statistics.median(results["four"]) / statistics.median(results["one"])
    print(f"\nratio four/one: {ratio:.2f}x (narrowing to one arch saves {100 * (1 - 1 / ratio):.0f}% of the wall time)")

    print("\nwhere the time went (nvcc --time, last run):")
    for name in CONFIGS:
        host, per_arch = phases[name]
        parts = [f"sm_{arch} cicc {t['cicc']:.1f} s + ptxas {t['ptxas']:.1f} s"
                 for arch, t in sorted(per_arch.items(), key=lambda item: int(item[0]))]
        print(f"  {name}: {'; '.join(parts)}; host side {host:.1f} s")

if __name__ == "__main__":
    main()
