"""PEP 427 wheel file names: flashfit's pkg::parse_wheel_filename against
packaging 23.0's packaging.utils.parse_wheel_filename.

Case line: a file name.
Answer:    OK name-as-written|canonical name|str(version)|build|tags   or   ERR
  build: "-" or "number,rest"; tags: sorted by (interpreter, abi, platform), ' '-joined.

Intended differences (flashfit rejects, packaging accepts; asserted in
wheel_name_test.cpp, never generated here): non-ASCII anywhere; whitespace or
control characters anywhere; an empty name part; a name part that does not
start and end with a letter or digit; an empty tag in the tag set.
"""
import pathlib
import re
import sys

sys.path.insert(0, str(pathlib.Path(__file__).parent))
import pep440_common as common  # noqa: E402
from packaging.utils import parse_wheel_filename  # noqa: E402

EDGE = [
    "", ".whl", "a.whl", "foo-1.0-py3-none-any.whl", "foo-1.0-py3-none-any.WHL",
    "foo-1.0-py3-none-any.zip", "foo-1.0-py3-none-any", "foo-1.0-1-py3-none-any.whl",
    "foo-1.0-1abc-py3-none-any.whl", "foo-1.0-007_x-py3-none-any.whl", "foo-1.0-abc-py3-none-any.whl",
    "foo-1.0--py3-none-any.whl", "foo-1.0-py3-none.whl", "foo-1.0-1-2-py3-none-any.whl",
    "foo-bar-1.0-py3-none-any.whl", "foo_bar-1.0-py3-none-any.whl", "Foo.Bar_baz-1.0-py3-none-any.whl",
    "foo__bar-1.0-py3-none-any.whl", "-1.0-py3-none-any.whl", "_foo-1.0-py3-none-any.whl",
    "foo_-1.0-py3-none-any.whl", ".foo-1.0-py3-none-any.whl", "foo+bar-1.0-py3-none-any.whl",
    "foo-1.0.-py3-none-any.whl", "foo-v1.0-py3-none-any.whl", "foo-1.0+local-py3-none-any.whl",
    "foo-1.0_post1-py3-none-any.whl", "foo-2!1.0rc1.dev2-py2.py3-none-any.whl",
    "foo-1.0-py2.py3-none.abi3-any.manylinux1_x86_64.whl", "foo-1.0-PY3-NONE-ANY.whl",
    "foo-1.0-py3-none-any.whl.whl", "foo-1.0-py3-none-any-.whl", "foo-1.0-py3..py2-none-any.whl",
    "foo-1.0-py3--any.whl", "foo-1.0--py3-none.whl", "foo-1.0-py3-none-.whl",
    "foo-1.0-py3-none-any.py3-none-any.whl", "foo- 1.0-py3-none-any.whl", "foo-1.0 -py3-none-any.whl",
    "foo-1.0-py3-none-any .whl", "foo-1.0-py3-none-any\x00.whl", "f\u00f6o-1.0-py3-none-any.whl",
    "foo-1.0-1\u0661-py3-none-any.whl", "foo-1.0-py3-none-\u00e9.whl",
    "flash_attn-2.8.3+cu12torch2.8cxx11abiTRUE-cp312-cp312-linux_x86_64.whl",
    "flash_attn-2.8.3+cu12torch2.8cxx11abiTRUE-1-cp312-cp312-linux_x86_64.whl",
    "flash_attn-2.5.0+cu118torch1.12cxx11abiFALSE-cp37-cp37m-linux_x86_64.whl",
    "foo-1.0-" + "9" * 5000 + "-py3-none-any.whl", "foo-1." + "0" * 5000 + "-py3-none-any.whl",
    "f" * 20000 + "-1.0-py3-none-any.whl", "foo-1.0-py3-none-" + "any." * 3000 + "any.whl",
    "-" * 5 + ".whl", "-" * 4 + ".whl", "-" * 6 + ".whl", "a-b-c-d-e.whl", "a-1-c-d-e-f.whl",
]

NAMES = ["foo", "flash_attn", "Flash_Attn", "torch", "a", "A1", "zope.interface", "ruamel.yaml.clib",
         "x_y.z", "pkg9", "9pkg", "nvidia_cuda_runtime_cu12"]
PYTHONS = ["py3", "py2", "cp311", "cp312", "cp37", "pp39", "py2.py3", "cp310.cp311", "PY3"]
ABIS = ["none", "abi3", "cp311", "cp37m", "cp313t", "none.abi3", "CP311"]
PLATFORMS = ["any", "linux_x86_64", "manylinux_2_28_x86_64", "manylinux2014_x86_64",
             "manylinux_2_24_x86_64.manylinux_2_28_x86_64", "macosx_11_0_arm64", "win_amd64",
             "manylinux2014_x86_64.manylinux_2_17_x86_64.manylinux_2_28_x86_64", "Linux_X86_64"]


def rand_filename(rng):
    name = rng.choice(NAMES) if rng.random() < 0.7 else "".join(
        rng.choice("abcXYZ019_.") for _ in range(rng.randint(1, 10)))
    version = common.rand_version(rng, spaces=False)
    parts = [name, version]
    if rng.random() < 0.2:
        build = rng.choice(["1", "2", "01", "10", "1abc", "3_x", "0", str(rng.randint(0, 10**30))])
        parts.append(build)
    parts += [rng.choice(PYTHONS), rng.choice(ABIS), rng.choice(PLATFORMS)]
    return "-".join(parts) + ".whl"


def generate(rng, count):
    real = common.official_filenames() + common.community_filenames()
    lines = [line for line in EDGE + real if not intended_difference(line)]
    while len(lines) < count:
        r = rng.random()
        if r < 0.45:
            line = rand_filename(rng)
        elif r < 0.75:
            line = common.mutate(rng, rand_filename(rng))
        else:
            line = common.mutate(rng, rng.choice(real))
        if intended_difference(line):
            continue
        lines.append(line)
    return lines[:count]


def _parse(text):
    try:
        return parse_wheel_filename(text)
    except ValueError:  # InvalidWheelFilename and InvalidVersion
        return None


def intended_difference(line):
    if _parse(line) is None:
        return False
    stem = line[:-4]
    parts = stem.split("-", stem.count("-") - 2)
    name = parts[0]
    tag_items = [item for field in parts[-1].split("-") for item in field.split(".")]
    return (common.has_non_ascii_or_nul(line)
            or re.search(r"[\x00-\x20\x7f]", line) is not None
            or not re.fullmatch(r"[A-Za-z0-9](?:.*[A-Za-z0-9])?", name)
            or "" in tag_items)


def oracle(line):
    parsed = _parse(line)
    if parsed is None:
        return "ERR"
    name, version, build, tags = parsed
    stem = line[:-4]
    name_part = stem.split("-", 1)[0]
    build_text = f"{build[0]},{build[1]}" if build else "-"
    tag_text = " ".join(str(t) for t in sorted(tags, key=lambda t: (t.interpreter, t.abi, t.platform)))
    return f"OK {name_part}|{name}|{version}|{build_text}|{tag_text}"
