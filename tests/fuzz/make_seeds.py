#!/usr/bin/env python3
"""Writes the binary seed inputs of the fuzz harnesses at build time, so no
binary blob is committed: wheels and source archives (good and hostile), a
small ld.so.cache in the new, old and compat layouts, and, when given, ELF
files and the fatbin sections nvcc wrote into the test fixtures.

usage: make_seeds.py OUT_DIR [--elf FILE]... [--fatbin FILE]...
Writes OUT_DIR/<harness>/<name> and touches OUT_DIR/stamp.
"""
import argparse
import base64
import hashlib
import io
import os
import struct
import subprocess
import sys
import tarfile
import tempfile
import zipfile


def put(out, harness, name, data):
    d = os.path.join(out, harness)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def record_hash(data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
    return "sha256=" + digest.decode()


def wheel(files, record=True, tamper=None, compression=zipfile.ZIP_DEFLATED):
    """A wheel with the dist-info files of demo 1.0 plus `files` (name -> bytes)."""
    di = "demo-1.0.dist-info"
    members = dict(files)
    members[di + "/WHEEL"] = b"Wheel-Version: 1.0\nGenerator: seed\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    members[di + "/METADATA"] = b"Metadata-Version: 2.1\nName: demo\nVersion: 1.0\nRequires-Dist: torch>=2.0\n"
    if record:
        rows = [f"{n},{record_hash(d)},{len(d)}" for n, d in members.items()]
        rows.append(di + "/RECORD,,")
        text = "\n".join(rows) + "\n"
        if tamper:
            text = text.replace(record_hash(members[tamper]), record_hash(b"other"))
        members[di + "/RECORD"] = text.encode()
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression) as z:
        for name, data in members.items():
            z.writestr(name, data)
    return buf.getvalue()


def wheels(out):
    put(out, "wheel", "good.whl", wheel({"demo/__init__.py": b"x = 1\n", "demo/_ext.so": b"\x7fELF"}))
    put(out, "wheel", "stored.whl", wheel({"demo/__init__.py": b""}, compression=zipfile.ZIP_STORED))
    put(out, "wheel", "tampered.whl", wheel({"demo/__init__.py": b"x = 1\n"}, tamper="demo/__init__.py"))
    put(out, "wheel", "no_record.whl", wheel({"demo/__init__.py": b"x = 1\n"}, record=False))
    put(out, "wheel", "zip_slip.whl", wheel({"../escape.py": b"x", "demo/a.py": b""}))
    put(out, "wheel", "absolute.whl", wheel({"/tmp/escape.py": b"x"}))
    put(out, "wheel", "duplicate.whl", wheel({"demo/a.py": b"1", "demo//a.py": b"2"}))
    good = wheel({"demo/__init__.py": b"x = 1\n"})
    put(out, "wheel", "truncated.whl", good[: len(good) // 2])


def tar_bytes(items, mode):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode=mode, format=tarfile.GNU_FORMAT) as t:
        for kind, name, data in items:
            info = tarfile.TarInfo(name)
            if kind == "f":
                info.size = len(data)
                t.addfile(info, io.BytesIO(data))
            elif kind == "d":
                info.type = tarfile.DIRTYPE
                info.mode = 0o755
                t.addfile(info)
            elif kind == "l":
                info.type = tarfile.SYMTYPE
                info.linkname = data.decode()
                t.addfile(info)
            elif kind == "h":
                info.type = tarfile.LNKTYPE
                info.linkname = data.decode()
                t.addfile(info)
    data = buf.getvalue()
    if mode == "w":
        # tarfile pads to a 10 KiB record; the two zero end blocks are enough.
        body = data.rstrip(b"\0")
        data = body + b"\0" * ((-len(body)) % 512) + b"\0" * 1024
    return data


def archives(out):
    sdist = [("d", "demo-1.0", b""), ("f", "demo-1.0/setup.py", b"print(1)\n"),
             ("f", "demo-1.0/csrc/a.cu", b"// kernel\n"), ("l", "demo-1.0/link", b"setup.py"),
             ("h", "demo-1.0/hard", b"demo-1.0/setup.py")]
    put(out, "archive", "sdist.tar", tar_bytes(sdist, "w"))
    put(out, "archive", "sdist.tar.gz", tar_bytes(sdist, "w:gz"))
    put(out, "archive", "sdist.tar.xz", tar_bytes(sdist[:3], "w:xz"))
    put(out, "archive", "sdist.tar.bz2", tar_bytes(sdist[:3], "w:bz2"))
    put(out, "archive", "dotdot.tar", tar_bytes([("f", "../escape", b"x")], "w"))
    put(out, "archive", "absolute.tar", tar_bytes([("f", "/tmp/flashfit-fuzz-escape", b"x")], "w"))
    put(out, "archive", "link_out.tar",
        tar_bytes([("d", "d", b""), ("l", "d/out", b"../../escape"), ("f", "d/out/x", b"x")], "w"))
    put(out, "archive", "link_abs.tar", tar_bytes([("l", "abs", b"/etc"), ("f", "abs/x", b"x")], "w"))
    put(out, "archive", "hard_out.tar", tar_bytes([("h", "h", b"../escape")], "w"))
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("demo-1.0/setup.py", b"print(1)\n")
        z.writestr("demo-1.0/README", b"readme\n")
    put(out, "archive", "sdist.zip", buf.getvalue())
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("../escape", b"x")
    put(out, "archive", "zip_slip.zip", buf.getvalue())


def ld_cache_new(entries, hwcap=0):
    """glibc-ld.so.cache1.1: header, 24-byte entries, strings; offsets from the start."""
    strings = b""
    offsets = []
    header_size = 48
    table = header_size + 24 * len(entries)
    for soname, path, _ in entries:
        k = table + len(strings)
        strings += soname.encode() + b"\0"
        v = table + len(strings)
        strings += path.encode() + b"\0"
        offsets.append((k, v))
    out = b"glibc-ld.so.cache" + b"1.1"
    out += struct.pack("<IIB3sI12s", len(entries), len(strings), 2, b"\0" * 3, 0, b"\0" * 12)
    for (k, v), (_, _, flags) in zip(offsets, entries):
        out += struct.pack("<iIIIQ", flags, k, v, 0, hwcap)
    return out + strings


def ld_cache_old(entries):
    """ld.so-1.7.0: header, 12-byte entries; string offsets from the string table."""
    strings = b""
    rows = []
    for soname, path, flags in entries:
        k = len(strings)
        strings += soname.encode() + b"\0"
        v = len(strings)
        strings += path.encode() + b"\0"
        rows.append(struct.pack("<iII", flags, k, v))
    return b"ld.so-1.7.0\0" + struct.pack("<I", len(entries)) + b"".join(rows) + strings


def ld_caches(out):
    libs = [("libz.so.1", "/lib/x86_64-linux-gnu/libz.so.1", 0x0303),
            ("libc.so.6", "/lib/x86_64-linux-gnu/libc.so.6", 0x0303),
            ("libc.so.6", "/lib/i386-linux-gnu/libc.so.6", 0x0003)]
    new = ld_cache_new(libs)
    put(out, "ld_cache", "new.cache", new)
    put(out, "ld_cache", "hwcap.cache", ld_cache_new(libs[:1], hwcap=1 << 62))
    old = ld_cache_old(libs)
    put(out, "ld_cache", "old.cache", old)
    pad = (-len(old)) % 8
    put(out, "ld_cache", "compat.cache", old + b"\0" * pad + new)


def section(path, name):
    with tempfile.TemporaryDirectory() as tmp:
        dest = os.path.join(tmp, "section")
        done = subprocess.run(["objcopy", "-O", "binary", "--only-section=" + name, path, dest],
                              capture_output=True)
        if done.returncode != 0 or not os.path.exists(dest):
            return b""
        with open(dest, "rb") as f:
            return f.read()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("--elf", action="append", default=[])
    parser.add_argument("--fatbin", action="append", default=[])
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    wheels(args.out)
    archives(args.out)
    ld_caches(args.out)
    for path in args.elf:
        with open(path, "rb") as f:
            put(args.out, "elf", os.path.basename(path), f.read())
    for path in args.fatbin:
        for name in (".nv_fatbin", "__nv_relfatbin"):
            data = section(path, name)
            if data:
                put(args.out, "fatbin", os.path.basename(path) + name, data)
    with open(os.path.join(args.out, "stamp"), "w") as f:
        f.write("seeds\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
