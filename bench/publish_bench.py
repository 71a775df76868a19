#!/usr/bin/env python3
"""publish_bench.py FLASHFIT [N] [SIZE_MB] [--before OTHER_FLASHFIT] [--runs R]:
`flashfit publish` of N wheels of SIZE_MB each (default 200 x 1) into a fresh
directory, against `cp` of the same files plus a minimal PEP 503 generator
(sha256 of each file, one page per project) written here: the baseline a team
would script by hand. flashfit also inspects every wheel (RECORD hashes),
writes metadata files, variant records and JSON pages, and makes its files
durable before the pages that name them (the baseline does not): the same
baseline with `sync -f` (syncfs) after the files and after the pages is timed
too, as the like-for-like one. --before: another flashfit binary timed in the
same runs (interleaved), e.g. the previous commit's. Prints the median of R
runs (default 3) of each and the ratios, all measured in one run.
"""
import base64, hashlib, os, random, resource, statistics, subprocess, sys, tempfile, time, zipfile


def make_wheels(dir, n, size):
    rnd = random.Random(1)
    for i in range(n):
        name, version = f"benchpkg{i}", "1.0"
        di = f"{name}-{version}.dist-info"
        # (randbytes takes at most 256 MiB at once)
        data = b"".join(rnd.randbytes(min(size - o, 1 << 26)) for o in range(0, size, 1 << 26))
        files = {f"{name}/data.bin": data,
                 f"{name}/__init__.py": b"",
                 f"{di}/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n\n".encode(),
                 f"{di}/WHEEL": b"Wheel-Version: 1.0\nGenerator: bench\nRoot-Is-Purelib: true\nTag: py3-none-any\n"}
        rec = "".join(f"{p},sha256={base64.urlsafe_b64encode(hashlib.sha256(d).digest()).rstrip(b'=').decode()},{len(d)}\n"
                      for p, d in files.items())
        files[f"{di}/RECORD"] = (rec + f"{di}/RECORD,,\n").encode()
        with zipfile.ZipFile(os.path.join(dir, f"{name}-{version}-py3-none-any.whl"), "w") as z:
            for p, d in files.items():
                z.writestr(p, d)


def cp_and_generate(src, out, durable=False):
    os.makedirs(out)
    subprocess.run(["cp", "-r", src, os.path.join(out, "files")], check=True)
    if durable:
        subprocess.run(["sync", "-f", os.path.join(out, "files")], check=True)
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
    if durable:
        subprocess.run(["sync", "-f", os.path.join(out, "simple")], check=True)


def cpu_seconds():
    """User + system CPU of this process and its finished children."""
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def publish(flashfit, src, out, tmp):
    subprocess.run([flashfit, "publish", "--to", out, src], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   env=dict(os.environ, FLASHFIT_CACHE_DIR=os.path.join(tmp, "cache")))


def main():
    args = [a for a in sys.argv[1:]]
    before = runs = None
    if "--before" in args:
        i = args.index("--before")
        before = os.path.abspath(args[i + 1])
        del args[i:i + 2]
    if "--runs" in args:
        i = args.index("--runs")
        runs = int(args[i + 1])
        del args[i:i + 2]
    flashfit = os.path.abspath(args[0])
    n = int(args[1]) if len(args) > 1 else 200
    size = int(float(args[2]) * (1 << 20)) if len(args) > 2 else 1 << 20
    runs = runs or 3
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "wheels")
        os.makedirs(src)
        make_wheels(src, n, size)
        steps = {"flashfit publish": lambda out: publish(flashfit, src, out, tmp)}
        if before:
            steps["flashfit publish (--before)"] = lambda out: publish(before, src, out, tmp)
        steps["cp + PEP 503 generator"] = lambda out: cp_and_generate(src, out)
        steps["cp + PEP 503 generator + sync -f"] = lambda out: cp_and_generate(src, out, True)
        times = {k: [] for k in steps}
        cpu = {k: [] for k in steps}
        # Every output is kept until the end: ext4's inode allocator skips
        # inodes freed in the last minute, so deleting one step's ~1,000
        # files just before the next step made every create slower (60% of
        # publish's time in find_inode_bit / recently_deleted, perf).
        for run in range(runs):
            for i, (k, step) in enumerate(steps.items()):
                out = os.path.join(tmp, f"out-{run}-{i}")
                subprocess.run(["sync"], check=True)  # no other step's dirty pages in the timing
                t, c = time.monotonic(), cpu_seconds()
                step(out)
                times[k].append(time.monotonic() - t)
                cpu[k].append(cpu_seconds() - c)
        med = {k: statistics.median(v) for k, v in times.items()}
        for k, v in med.items():
            print(f"{k}: {v:.2f} s (median of {runs}, {n} wheels x {size / (1 << 20):g} MB; "
                  f"min {min(times[k]):.2f}, max {max(times[k]):.2f}; "
                  f"CPU user+sys {statistics.median(cpu[k]):.2f} s)")
        # The machine's page-cache writes vary several-fold from minute to
        # minute (cp -r of the same 200 MB: 0.1 to 1.2 s), so besides the
        # ratio of the medians, each run's own ratio (its steps ran back to
        # back) and their median.
        for k in [k for k in med if k.startswith("flashfit")]:
            for base, label in (("cp + PEP 503 generator", "cp + generator"),
                                ("cp + PEP 503 generator + sync -f", "cp + generator + sync")):
                per_run = [a / b for a, b in zip(times[k], times[base])]
                print(f"ratio {k} / {label}: {med[k] / med[base]:.2f}x; per run: median "
                      f"{statistics.median(per_run):.2f}x, min {min(per_run):.2f}x, "
                      f"max {max(per_run):.2f}x")


if __name__ == "__main__":
    main()
