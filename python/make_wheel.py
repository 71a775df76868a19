#!/usr/bin/env python3
"""Writes flashfit_attention's pure wheel (py3-none-any) with the standard library only.

    make_wheel.py MODULE.py OUTDIR

The wheel holds the one module file plus its .dist-info (METADATA, WHEEL, RECORD with sha256
hashes, PEP 376/427). The version is the module's __version__; torch is its only requirement.
Members carry a fixed timestamp, so the same source gives the same bytes."""

import base64
import hashlib
import os
import re
import sys
import zipfile

NAME = "flashfit_attention"
EPOCH = (1980, 1, 1, 0, 0, 0)


def record_hash(data):
    digest = hashlib.sha256(data).digest()
    return "sha256=" + base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def main(argv):
    if len(argv) != 3:
        sys.stderr.write("usage: make_wheel.py MODULE.py OUTDIR\n")
        return 2
    module_path, outdir = argv[1], argv[2]
    with open(module_path, "rb") as f:
        source = f.read()
    match = re.search(rb'^__version__ = "([^"]+)"$', source, re.M)
    if not match:
        sys.stderr.write("make_wheel.py: %s has no __version__ = \"...\" line\n" % module_path)
        return 1
    version = match.group(1).decode()
    dist_info = "%s-%s.dist-info" % (NAME, version)
    metadata = (
        "Metadata-Version: 2.1\n"
        "Name: flashfit-attention\n"
        "Version: %s\n"
        "Summary: flash-attn's attention semantics, on flash-attn when it can run, "
        "else PyTorch SDPA\n"
        "Requires-Python: >=3.8\n"
        "Requires-Dist: torch\n" % version).encode()
    wheel = ("Wheel-Version: 1.0\nGenerator: flashfit make_wheel.py\nRoot-Is-Purelib: true\n"
             "Tag: py3-none-any\n").encode()
    members = [(NAME + ".py", source), (dist_info + "/METADATA", metadata),
               (dist_info + "/WHEEL", wheel)]
    record = "".join("%s,%s,%d\n" % (name, record_hash(data), len(data))
                     for name, data in members) + dist_info + "/RECORD,,\n"
    members.append((dist_info + "/RECORD", record.encode()))
    os.makedirs(outdir, exist_ok=True)
    target = os.path.join(outdir, "%s-%s-py3-none-any.whl" % (NAME, version))
    temp = target + ".tmp"
    with zipfile.ZipFile(temp, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in members:
            info = zipfile.ZipInfo(name, EPOCH)
            info.external_attr = 0o644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(info, data)
    os.replace(temp, target)
    print(target)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
