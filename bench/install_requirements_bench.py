#!/usr/bin/python3
"""flashfit install -r of a 20-line requirements file from a warm cache,
against pip install -r of the same resolved lines.

    /usr/bin/python3 bench/install_requirements_bench.py build-rel/src/flashfit \
        INSTALL_WHEELS_DIR [RUNS] [--before OTHER_FLASHFIT]

INSTALL_WHEELS_DIR is the install_wheels test fixture (ctest builds it under
build/tests/fixtures/install_wheels): its ffinst-1.0+pt...cpu wheel is the
compiled package, a CPU torch extension for Debian's torch 1.13.

Generates 19 pure wheels (bfpkg01..bfpkg19, some depending on others) in a
find-links directory beside that ffinst wheel, and a requirements file of 20
lines: the 19 pure packages unpinned and `ffinst` (a recipe package, taken by
flashfit). Then RUNS times each (default 5), interleaved, each into a fresh
--system-site-packages venv made before the clock starts:

  flashfit  flashfit install -r requirements.txt --python VENV_PY
            (pip installs the 19 lines in one run, then ffinst through
            flashfit's flow: resolve from the find-links, the wheel already in
            flashfit's cache, the cached inspect verdict, pip --no-deps, the
            import check, the dependency check)
  pip       VENV_PY -m pip install -r resolved.txt: the same 20 packages
            pinned to what flashfit installed (ffinst==1.0+pt113cpu), from
            the same find-links, no index
  import    VENV_PY -c 'import torch, ffinst' after that pip run: the proof
            flashfit's import check gives and pip does not (reported beside, and
            as the ratio flashfit / (pip + import))

With --before, OTHER_FLASHFIT (main's binary, say) runs the same flashfit
step in each round too, interleaved, so that before and after are measured
side by side.

pip reads no configuration (PIP_CONFIG_FILE=/dev/null). Prints min, median
and max of each and the ratio of the medians (goal <= 1.2). Tests never
assert on time; bench/README.md has the record.
"""

import argparse
import glob
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

PYTHON = "/usr/bin/python3"
HERE = os.path.dirname(os.path.abspath(__file__))
WORK = os.path.join(HERE, ".work")
PURE = 19


def run(argv, env, what):
    start = time.perf_counter()
    proc = subprocess.run(argv, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, check=False, timeout=600)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        sys.exit(f"install_requirements_bench: {what} failed ({proc.returncode}):\n"
                 f"{proc.stdout.decode()[-2000:]}\n{proc.stderr.decode()[-2000:]}")
    return elapsed


def venv(path):
    # No pip of its own: the system's pip (python3-pip) serves it through --system-site-packages.
    subprocess.run([PYTHON, "-m", "venv", "--system-site-packages", "--without-pip", path], check=True)
    return os.path.join(path, "bin", "python")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("flashfit")
    parser.add_argument("install_wheels")
    parser.add_argument("runs", nargs="?", type=int, default=5)
    parser.add_argument("--before", help="another flashfit binary, run interleaved as 'before'")
    args = parser.parse_args()
    flashfit = os.path.abspath(args.flashfit)
    found = glob.glob(os.path.join(args.install_wheels, "ffinst-1.0+pt*cpu-*.whl"))
    if len(found) != 1:
        sys.exit(f"install_requirements_bench: no single ffinst-1.0+pt...cpu wheel in {args.install_wheels}")
    ffinst = found[0]
    ffinst_version = os.path.basename(ffinst).split("-")[1]
    os.makedirs(WORK, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="flashfit-install-r-bench-", dir=WORK) as tmp:
        links = os.path.join(tmp, "links")
        os.makedirs(links)
        specs = []
        for i in range(1, PURE + 1):
            spec = f"bfpkg{i:02d}==1.0"
            if i % 4 == 0:  # every fourth depends on the one before it
                spec += f";bfpkg{i - 1:02d}>=1.0"
            specs.append(spec)
        subprocess.run([PYTHON, os.path.join(HERE, "..", "tests", "fixtures", "pure_wheel.py"), links, *specs],
                       check=True)
        shutil.copy(ffinst, links)

        recipes = os.path.join(tmp, "recipes")
        os.makedirs(recipes)
        with open(os.path.join(recipes, "ffinst.toml"), "w") as f:
            f.write('[package]\nname = "ffinst"\nsummary = "bench"\nimport_names = ["ffinst"]\n'
                    'binary_module = "ffinst"\nneeds_cuda = false\n\n[build]\nneeds_cuda = false\n')
        config = os.path.join(tmp, "config.toml")
        with open(config, "w") as f:
            f.write(f'recipe_dirs = ["{recipes}"]\n')

        requirements = os.path.join(tmp, "requirements.txt")
        with open(requirements, "w") as f:
            f.write(f"--no-index\n--find-links {links}\n")
            f.write("".join(f"bfpkg{i:02d}\n" for i in range(1, PURE + 1)))
            f.write("ffinst\n")
        resolved = os.path.join(tmp, "resolved.txt")
        with open(resolved, "w") as f:
            f.write(f"--no-index\n--find-links {links}\n")
            f.write("".join(f"bfpkg{i:02d}==1.0\n" for i in range(1, PURE + 1)))
            f.write(f"ffinst=={ffinst_version}\n")

        env = dict(os.environ, FLASHFIT_CACHE_DIR=os.path.join(tmp, "cache"), FLASHFIT_CONFIG=config,
                   PIP_CONFIG_FILE="/dev/null", PIP_DISABLE_PIP_VERSION_CHECK="1")
        for name in ("PIP_FIND_LINKS", "PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL", "PIP_CONSTRAINT", "VIRTUAL_ENV"):
            env.pop(name, None)
        # Warm: flashfit's cache holds ffinst, its verdict and the interpreter's facts.
        warm = venv(os.path.join(tmp, "warm"))
        run([flashfit, "install", "-r", requirements, "--python", warm], env, "the warm-up install -r")
        before = os.path.abspath(args.before) if args.before else None
        if before:
            warm = venv(os.path.join(tmp, "warm-before"))
            run([before, "install", "-r", requirements, "--python", warm], env, "the warm-up install -r (before)")

        times = {"flashfit": [], "pip": [], "import": []}
        if before:
            times["before"] = []
        for i in range(args.runs):
            if before:
                py = venv(os.path.join(tmp, f"before-{i}"))
                times["before"].append(
                    run([before, "install", "-r", requirements, "--python", py], env, "before: install -r"))
            py = venv(os.path.join(tmp, f"ff-{i}"))
            times["flashfit"].append(
                run([flashfit, "install", "-r", requirements, "--python", py], env, "flashfit install -r"))
            py = venv(os.path.join(tmp, f"pip-{i}"))
            times["pip"].append(run([py, "-m", "pip", "install", "-q", "-r", resolved], env, "pip install -r"))
            times["import"].append(run([py, "-c", "import torch, ffinst, bfpkg19"], env, "the import in pip's venv"))

    print("| run | min | median | max |")
    print("| --- | --- | --- | --- |")
    for k, v in times.items():
        print(f"| `{k}` | {min(v):.2f} s | {statistics.median(v):.2f} s | {max(v):.2f} s |")
    med = {k: statistics.median(v) for k, v in times.items()}
    ratios = [f / p for f, p in zip(times["flashfit"], times["pip"])]
    proven = [f / (p + i) for f, p, i in zip(times["flashfit"], times["pip"], times["import"])]
    print(f"\nflashfit / pip (medians) = {med['flashfit'] / med['pip']:.2f} (goal <= 1.2); per interleaved run:"
          f" min {min(ratios):.2f}, median {statistics.median(ratios):.2f}, max {max(ratios):.2f}")
    print(f"flashfit / (pip + import) (medians) = {med['flashfit'] / (med['pip'] + med['import']):.2f}; per run:"
          f" min {min(proven):.2f}, median {statistics.median(proven):.2f}, max {max(proven):.2f}")
    if "before" in times:
        was = [b / p for b, p in zip(times["before"], times["pip"])]
        print(f"before / pip (medians) = {med['before'] / med['pip']:.2f}; per run:"
              f" min {min(was):.2f}, median {statistics.median(was):.2f}, max {max(was):.2f}")


if __name__ == "__main__":
    main()
