#!/usr/bin/python3
"""The process floor: whole-process wall time of commands that use no network.

    /usr/bin/python3 bench/startup_bench.py FLASHFIT [FLASHFIT...] [--runs N]

For each binary given (e.g. one built before a change and one after), times
`--version`, `--help` and /bin/true (the machine's own process floor, the
anchor), interleaved, RUNS times each after one priming run, and prints a
markdown table of min/median/max wall and CPU ms plus the number of shared libraries
the loader maps (from `ldd`). Tests never assert on time; this is the record
behind bench/README.md.
"""

import argparse
import os
import statistics
import subprocess
import sys
import time


def timed(argv):
    """(wall ms, CPU ms): the CPU time (user + system, from wait4) is steadier
    than wall time on a shared, loaded machine."""
    start = time.perf_counter()
    pid = os.posix_spawn(argv[0], argv, os.environ, file_actions=[
        (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
        (os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0),
        (os.POSIX_SPAWN_OPEN, 2, os.devnull, os.O_WRONLY, 0)])
    _, status, usage = os.wait4(pid, 0)
    wall = (time.perf_counter() - start) * 1000
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"startup_bench: {' '.join(argv)} failed")
    return wall, (usage.ru_utime + usage.ru_stime) * 1000


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
    print("| command | libraries (ldd) | wall min/median/max ms | CPU min/median/max ms |")
    print("|---|---|---|---|")
    for name, argv in cases:
        libs = len(subprocess.run(["ldd", argv[0]], capture_output=True, text=True).stdout.splitlines())
        row = [f"| {name} | {libs} "]
        for i in (0, 1):
            t = [x[i] for x in times[name]]
            row.append(f"| {min(t):.2f} / {statistics.median(t):.2f} / {max(t):.2f} ")
        print("".join(row) + "|")


if __name__ == "__main__":
    main()
