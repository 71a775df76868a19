"""The pure wheels the download and install benchmarks serve and install:
one home for writing a wheel with a RECORD whose hashes are right (imported
by fetch_bench.py and install_bench.py, which run from bench/)."""

import base64
import hashlib
import os
import zipfile


def record_hash(data):
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def write_wheel(path, name, members):
    """A py3-none-any wheel of `name` 1.0 at `path` holding `members` (member
    name -> bytes) and its dist-info; .bin members are stored uncompressed (as
    most of a CUDA extension wheel's .so is), the rest deflated. Written to a
    temp name and renamed, so an interrupted run leaves no half wheel."""
    dist_info = f"{name}-1.0.dist-info"
    files = dict(members)
    files[f"{dist_info}/METADATA"] = f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n".encode()
    files[f"{dist_info}/WHEEL"] = (
        b"Wheel-Version: 1.0\nGenerator: bench\nRoot-Is-Purelib: true\nTag: py3-none-any\n")
    files[f"{dist_info}/top_level.txt"] = f"{name}\n".encode()
    record = "".join(f"{member},{record_hash(data)},{len(data)}\n" for member, data in files.items())
    record += f"{dist_info}/RECORD,,\n"
    tmp = path + ".tmp"
    with zipfile.ZipFile(tmp, "w") as z:
        for member, data in files.items():
            stored = member.endswith(".bin")
            z.writestr(member, data, compress_type=zipfile.ZIP_STORED if stored else zipfile.ZIP_DEFLATED)
        z.writestr(f"{dist_info}/RECORD", record)
    os.replace(tmp, path)
