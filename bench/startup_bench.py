#!/usr/bin/python3
"""The process floor: whole-process wall time of commands that use no network.

    /usr/bin/python3 bench/startup_bench.py FLASHFIT [FLASHFIT...] [--runs N]

For each binary given (e.g. one built before a change and one after), times
`--version`, `--help` and /bin/true (the machine's own process floor, the
anchor), interleaved, RUNS times each after one priming run, and prints a
markdown table of min/median/max in ms plus the number of shared libraries
the loader maps (from `ldd`). Tests never assert on time; this is the record
behind bench/README.md.
"""

import argparse
import statistics
import subprocess
import time


def timed(argv):
    start = time.perf_counter()
    subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, timeout=60, check=True)
    return (time.perf_counter() - start) * 1000


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("flashfit", nargs="+")
    parser.add_argument("--runs", type=int, default=21)
    args = parser.parse_args()
    cases = [("/bin/true", ["/bin/true"])]
    for binary in args.flashfit:
        cases += [(f"{binary} --version", [binary, "--version"]),
                  (f"{binary} --help", [binary, "--help"])]
    times = {name: [] for name, _ in cases}
    for _, argv in cases:
        timed(argv)
    for _ in range(args.runs):
        for name, argv in cases:
            times[name].append(timed(argv))
    print("| command | libraries (ldd) | min ms | median ms | max ms |")
    print("|---|---|---|---|---|")
    for name, argv in cases:
        libs = len(subprocess.run(["ldd", argv[0]], capture_output=True, text=True).stdout.splitlines())
        t = times[name]
        print(f"| {name} | {libs} | {min(t):.2f} | {statistics.median(t):.2f} | {max(t):.2f} |")


if __name__ == "__main__":
    main()
