#!/usr/bin/python3
"""`flashfit inspect` of a wheel holding a ~1 GB extension module, against
`unzip -p` of the same member to /dev/null.

    /usr/bin/python3 bench/inspect_wheel_bench.py build-rel/src/flashfit [--size-mb 1024] [--runs 3]

The wheel is generated once into bench/.work (ignored by git): a real shared
object compiled here, grown with objcopy by a section of SIZE MB of
pseudo-random bytes that deflate about 2:1 (like a CUDA extension), zipped
with RECORD as pip would. Each run is a fresh process under /usr/bin/time
(wall seconds, peak RSS). inspect does everything it does for a real wheel:
opens it, verifies every RECORD hash while streaming, extracts the module to
a temporary file in the same pass, reads its ELF tables and fatbin sections,
resolves NEEDED and checks symbol versions. unzip only inflates.

Goal (issue 4): wall ratio inspect/unzip <= 1.5 and inspect peak RSS < 200 MB.
Prints a markdown table for bench/README.md. Tests never assert on time.
"""

import argparse
import base64
import hashlib
import os
import random
import subprocess
import sys
import tempfile
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
WORK = os.path.join(HERE, ".work")
MEMBER = "bigext/_C.cpython-311-x86_64-linux-gnu.so"


def make_blob(path, size_mb):
    """SIZE MB that deflate roughly 2:1: random bytes over a 16-symbol alphabet."""
    rng = random.Random(4)
    alphabet = bytes(range(0x30, 0x40))
    chunk = bytes(rng.choice(alphabet) for _ in range(1 << 20))
    with open(path, "wb") as out:
        for i in range(size_mb):
            # Rotate the chunk so deflate cannot match whole megabytes.
            k = (i * 7919) % len(chunk)
            out.write(chunk[k:] + chunk[:k])


def make_wheel(size_mb):
    os.makedirs(WORK, exist_ok=True)
    # A wheel's file name cannot carry the size; the directory does.
    wheel_dir = os.path.join(WORK, f"{size_mb}mb")
    wheel = os.path.join(wheel_dir, "bigext-1.0-cp311-cp311-linux_x86_64.whl")
    if os.path.exists(wheel):
        return wheel
    os.makedirs(wheel_dir, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=WORK) as tmp:
        src = os.path.join(tmp, "ext.c")
        with open(src, "w") as f:
            f.write("int PyInit__C(void) { return 0; }\n")
        small = os.path.join(tmp, "small.so")
        subprocess.run(["gcc", "-shared", "-fPIC", "-O2", src, "-o", small], check=True)
        blob = os.path.join(tmp, "blob")
        make_blob(blob, size_mb)
        big = os.path.join(tmp, "big.so")
        subprocess.run(["objcopy", "--add-section", f".flashfit_bench={blob}",
                        "--set-section-flags", ".flashfit_bench=readonly,data", small, big],
                       check=True)
        os.unlink(blob)
        digest = hashlib.sha256()
        with open(big, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                digest.update(block)
        size = os.path.getsize(big)
        dist = "bigext-1.0.dist-info"
        files = {
            "bigext/__init__.py": b"from . import _C\n",
            f"{dist}/WHEEL": b"Wheel-Version: 1.0\nGenerator: bench\nRoot-Is-Purelib: false\n"
                             b"Tag: cp311-cp311-linux_x86_64\n",
            f"{dist}/METADATA": b"Metadata-Version: 2.1\nName: bigext\nVersion: 1.0\n",
        }

        def b64(d):
            return base64.urlsafe_b64encode(d).rstrip(b"=").decode()
        record = "".join(f"{n},sha256={b64(hashlib.sha256(b).digest())},{len(b)}\n"
                         for n, b in files.items())
        record += f"{MEMBER},sha256={b64(digest.digest())},{size}\n{dist}/RECORD,,\n"
        partial = wheel + ".part"
        with zipfile.ZipFile(partial, "w", zipfile.ZIP_DEFLATED, compresslevel=6) as z:
            z.write(big, MEMBER)
            for n, b in files.items():
                z.writestr(n, b)
            z.writestr(f"{dist}/RECORD", record)
        os.replace(partial, wheel)
    return wheel


def timed(argv, env=None):
    """(wall seconds, peak RSS MB) of one run, via GNU time; exits on failure."""
    with tempfile.NamedTemporaryFile("r") as report:
        proc = subprocess.run(["/usr/bin/time", "-f", "%e %M", "-o", report.name] + argv,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
        if proc.returncode not in (0, 1):  # inspect exits 1 on an incompatible verdict
            sys.exit(f"failed ({proc.returncode}): {' '.join(argv)}\n{proc.stderr.decode()}")
        wall, rss_kb = report.read().split()
    return float(wall), int(rss_kb) / 1024


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("flashfit")
    parser.add_argument("--size-mb", type=int, default=1024)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    wheel = make_wheel(args.size_mb)
    env = dict(os.environ, FLASHFIT_CACHE_DIR=os.path.join(WORK, "cache"))
    inspect = [args.flashfit, "inspect", wheel, "--python", "/usr/bin/python3", "--json"]
    unzip = ["sh", "-c", f"unzip -p '{wheel}' '{MEMBER}' > /dev/null"]
    timed(inspect, env)  # prime the interpreter cache and the page cache
    rows = {"inspect": [], "unzip": []}
    for _ in range(args.runs):  # interleaved: load changes touch both alike
        rows["inspect"].append(timed(inspect, env))
        rows["unzip"].append(timed(unzip))
    best = {k: min(v) for k, v in rows.items()}
    module_mb = os.path.getsize(wheel) / 2**20
    print(f"wheel {os.path.basename(wheel)}: {module_mb:.0f} MB compressed, member "
          f"{args.size_mb} MB + ELF; best of {args.runs}\n")
    print("| run | wall s (best) | wall s (all) | peak RSS MB |")
    print("| --- | --- | --- | --- |")
    for k, v in rows.items():
        print(f"| {k} | {best[k][0]:.2f} | {', '.join(f'{w:.2f}' for w, _ in v)} | "
              f"{max(r for _, r in v):.1f} |")
    ratio = best["inspect"][0] / best["unzip"][0]
    print(f"\nratio inspect/unzip: {ratio:.2f} (goal <= 1.5); inspect peak RSS "
          f"{max(r for _, r in rows['inspect']):.1f} MB (goal < 200)")


if __name__ == "__main__":
    main()
