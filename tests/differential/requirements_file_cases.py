"""pip requirements files: flashfit's parse_requirements_file against pip
23.0.1's own pip._internal.req.req_file.parse_requirements (Debian's pip, run
by the test's /usr/bin/python3).

Case line:  the file's content as a JSON string (one line); an include names
  "inc.txt", which the driver writes beside it with fixed content.
Answer:     ERR when parsing fails, else a JSON list of
  [requirement text, constraint, sorted hashes] per requirement line.

Not generated (intended differences, asserted in requirements_file_test.cpp):
a continuation at end of file, malformed hash values, include loops, a
`--hash` line with no requirement (pip ignores it), an option such as `-r`
after a requirement on its line (pip ignores it). pip checks requirement
strings only later (install_req_from_line), so the generator writes valid
ones.
"""
import contextlib
import io
import json
import os
import tempfile

from pip._internal.network.session import PipSession
from pip._internal.req.req_file import parse_requirements

INCLUDE = "pandas==2.0 --hash=sha256:" + "b" * 64 + "\n# included\n"
SHA = "sha256:" + "a" * 64

PIECES = [
    "numpy", "numpy>=1.24", "requests[socks] >=2,<3", 'torch==2.6.0 ; python_version >= "3.9"',
    "flash-attn @ https://h/flash_attn-2.8.3-cp310-cp310-linux_x86_64.whl",
    "./wheels/x-1.0-py3-none-any.whl", "https://h/pkg-1.0.tar.gz", "pkg-1.0.tar.gz",
    "# comment", "", "   ", "x  # trailing", "--index-url https://i/simple",
    "-i https://i/simple", "--extra-index-url=https://e/simple", "-f ./links", "--no-index",
    "-r inc.txt", "-c inc.txt", "--requirement=inc.txt", "-r missing.txt", "--frobnicate",
    "y --hash=" + SHA, "y --hash " + SHA + " --hash=" + SHA.replace("a", "c"),
    "y --hash=md5:" + "0" * 32, "torch \\\n==2.6.0", "a\\\n[b] >=1 \\\n--hash=" + SHA, "\tindented", "--pre",
    "--no-index=1",
    # Read as pip reads them: shlex-split options, unique prefixes, an
    # include line's other options ignored, per-line options, legacy
    # specifiers, a marker after a URL without a space, a path's extras.
    "--find-links='./wh eels'", '--extra-index-url "https://e/simple"',
    "--extra-index https://e/simple", "--no-i", "--pr", "--find-links 'unclosed",
    "--pre -r inc.txt", "-c inc.txt --pre", "six --global-option=--foo --install-option='--p=/x y'",
    "six>=1.0.*", "six (>=1.0.*)", "x @ https://h/x-1.0-py3-none-any.whl;python_version>'3'",
    "./wh/x-1.0-py3-none-any.whl[extra]",
]


def generate(rng, count):
    cases = []
    for _ in range(min(count, 1500)):
        lines = [rng.choice(PIECES) for _ in range(rng.randint(1, 6))]
        # str.splitlines() separators, and a BOM pip's auto_decode drops.
        separator = rng.choice(["\n", "\n", "\r\n", "\r", "\f"])
        text = rng.choice(["", "", "\ufeff"]) + separator.join(lines)
        text += rng.choice(["", separator])
        cases.append(json.dumps(text))
    return cases


_session = PipSession()


def oracle(line):
    text = json.loads(line)
    with tempfile.TemporaryDirectory() as tmp:
        with open(os.path.join(tmp, "inc.txt"), "w") as handle:
            handle.write(INCLUDE)
        path = os.path.join(tmp, "req.txt")
        with open(path, "w", newline="") as handle:
            handle.write(text)
        try:
            out = []
            # pip's optparse prints its usage on a bad option before raising.
            with contextlib.redirect_stderr(io.StringIO()):
                parsed_lines = list(parse_requirements(path, _session))
            for parsed in parsed_lines:
                hashes = sorted(
                    f"{algo}:{value}"
                    for algo, values in (parsed.options or {}).get("hashes", {}).items()
                    for value in values)
                out.append([parsed.requirement, parsed.constraint, hashes])
        except Exception:  # noqa: BLE001 - any pip error is a rejection
            return "ERR"
    return json.dumps(out, separators=(",", ":"))
