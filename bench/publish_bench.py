#!/usr/bin/env python3
"""publish_bench.py FLASHFIT [N] [SIZE_MB]: `flashfit publish` of N wheels of
SIZE_MB each (default 200 x 1) into a fresh directory, against `cp` of the
same files plus a minimal PEP 503 generator (sha256 of each file, one page per
project) written here: the baseline a team would script by hand. flashfit also
inspects every wheel (RECORD hashes), writes metadata files, variant records
and JSON pages. Prints the median of 3 runs of each and the ratio.
"""
import base64, hashlib, os, random, shutil, statistics, subprocess, sys, tempfile, time, zipfile


def make_wheels(dir, n, size):
    rnd = random.Random(1)
    for i in range(n):
        name, version = f"benchpkg{i}", "1.0"
        di = f"{name}-{version}.dist-info"
        files = {f"{name}/data.bin": rnd.randbytes(size),
                 f"{name}/__init__.py": b"",
                 f"{di}/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n\n".encode(),
                 f"{di}/WHEEL": b"Wheel-Version: 1.0\nGenerator: bench\nRoot-Is-Purelib: true\nTag: py3-none-any\n"}
        rec = "".join(f"{p},sha256={base64.urlsafe_b64encode(hashlib.sha256(d).digest()).rstrip(b'=').decode()},{len(d)}\n"
                      for p, d in files.items())
        files[f"{di}/RECORD"] = (rec + f"{di}/RECORD,,\n").encode()
        with zipfile.ZipFile(os.path.join(dir, f"{name}-{version}-py3-none-any.whl"), "w") as z:
            for p, d in files.items():
                z.writestr(p, d)


def cp_and_generate(src, out):
    os.makedirs(out)
    subprocess.run(["cp", "-r", src, os.path.join(out, "files")], check=True)
    projects = {}
    for f in sorted(os.listdir(os.path.join(out, "files"))):
        h = hashlib.sha256(open(os.path.join(out, "files", f), "rb").read()).hexdigest()
        projects.setdefault(f.split("-")[0], []).append((f, h))
    for p, files in projects.items():
        os.makedirs(os.path.join(out, "simple", p))
        with open(os.path.join(out, "simple", p, "index.html"), "w") as page:
            page.write("".join(f'<a href="../../files/{f}#sha256={h}">{f}</a><br>\n' for f, h in files))
    with open(os.path.join(out, "simple", "index.html"), "w") as page:
        page.write("".join(f'<a href="{p}/">{p}</a><br>\n' for p in projects))


def main():
    flashfit = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 200
    size = int(float(sys.argv[3]) * (1 << 20)) if len(sys.argv) > 3 else 1 << 20
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "wheels")
        os.makedirs(src)
        make_wheels(src, n, size)
        times = {"flashfit publish": [], "cp + PEP 503 generator": []}
        for run in range(3):
            out = os.path.join(tmp, f"ff{run}")
            t = time.monotonic()
            subprocess.run([flashfit, "publish", "--to", out, src], check=True,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                           env=dict(os.environ, FLASHFIT_CACHE_DIR=os.path.join(tmp, "cache")))
            times["flashfit publish"].append(time.monotonic() - t)
            out = os.path.join(tmp, f"cp{run}")
            t = time.monotonic()
            cp_and_generate(src, out)
            times["cp + PEP 503 generator"].append(time.monotonic() - t)
            shutil.rmtree(os.path.join(tmp, f"ff{run}"))
            shutil.rmtree(out)
        med = {k: statistics.median(v) for k, v in times.items()}
        for k, v in med.items():
            print(f"{k}: {v:.2f} s (median of 3, {n} wheels x {size >> 20} MB)")
        print(f"ratio: {med['flashfit publish'] / med['cp + PEP 503 generator']:.2f}x")


if __name__ == "__main__":
    main()
