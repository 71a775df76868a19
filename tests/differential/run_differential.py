#!/usr/bin/env python3
"""Runs one differential kind: generated inputs through flashfit and the oracle.

<kind>_cases.py beside this file provides:
  generate(rng: random.Random, count: int) -> list[str]   # one input per line, no newlines
  oracle(line: str) -> str                                 # the reference answer, one line
The C++ evaluator diff_<kind> reads the same lines on stdin and prints one
answer line per input. Any disagreement fails the test.
"""
import argparse
import importlib.util
import pathlib
import random
import subprocess
import sys


def load_kind(kind):
    path = pathlib.Path(__file__).with_name(f"{kind}_cases.py")
    spec = importlib.util.spec_from_file_location(f"{kind}_cases", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--kind", required=True)
    parser.add_argument("--eval", required=True, help="path of the C++ evaluator")
    parser.add_argument("--cases", type=int, default=25000)
    parser.add_argument("--seed", type=int, default=20261121)
    args = parser.parse_args()

    cases = load_kind(args.kind)
    lines = cases.generate(random.Random(args.seed), args.cases)
    for line in lines:
        if "\n" in line or "\r" in line:
            sys.exit(f"generator produced a line with a newline: {line!r}")
    expected = [cases.oracle(line) for line in lines]

    run = subprocess.run([args.eval], input="\n".join(lines) + "\n", capture_output=True,
                         text=True, errors="surrogateescape", timeout=540)
    if run.returncode != 0:
        sys.exit(f"evaluator exited {run.returncode}: {run.stderr[-2000:]}")
    actual = run.stdout.split("\n")
    if actual and actual[-1] == "":
        actual.pop()
    if len(actual) != len(lines):
        sys.exit(f"evaluator answered {len(actual)} lines for {len(lines)} inputs")

    disagreements = [(line, want, got) for line, want, got in zip(lines, expected, actual)
                     if want != got]
    for line, want, got in disagreements[:20]:
        print(f"input:    {line!r}\n  oracle: {want}\n  ours:   {got}")
    print(f"{args.kind}: {len(lines)} cases, {len(disagreements)} disagreements")
    sys.exit(1 if disagreements else 0)


if __name__ == "__main__":
    main()
