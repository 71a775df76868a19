"""The pure wheels the download and install benchmarks serve and install:
one home for writing a wheel with a RECORD whose hashes are right, and for
the local server they fetch it from (imported by fetch_bench.py and
install_bench.py, which run from bench/)."""

import base64
import contextlib
import hashlib
import os
import subprocess
import time
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))


@contextlib.contextmanager
def serving(root, tmp):
    """tests/fixtures/http_server.py serving `root` on 127.0.0.1 (a free port,
    written to a file in `tmp`) while the block runs; yields its base URL.
    Waits at most 10 s for the port."""
    port_file = os.path.join(tmp, "port")
    server = subprocess.Popen(["/usr/bin/python3", os.path.join(HERE, "..", "tests", "fixtures", "http_server.py"),
                               "--root", root, "--port-file", port_file],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(100):
            if os.path.exists(port_file) and open(port_file).read().strip():
                break
            time.sleep(0.1)
        else:
            raise RuntimeError("the local HTTP server did not start within 10 s")
        yield f"http://127.0.0.1:{open(port_file).read().strip()}"
    finally:
        server.terminate()
        server.wait()


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
