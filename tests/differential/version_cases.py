"""PEP 440 versions: flashfit's pkg::Version against packaging 23.0's Version.

Case lines:
  S<TAB>text          parse one version (text may itself hold tabs)
  P<TAB>a<TAB>b       parse two and compare them
Answers:
  OK str|public|base|epoch|release|pre|post|dev|local|is_pre|is_post|is_dev|has_local
  CMP <|=|>           (also checks a == b agrees with the ordering)
  ERR                 (for a pair: either side is invalid)
"""
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).parent))
import pep440_common as common  # noqa: E402
from packaging.version import InvalidVersion, Version  # noqa: E402

EDGE = [
    "", " ", "\t", "1", "1.0", "1.0.", "1.0+", "1.0-", "1.0_", ".1", "v", "V1", "vv1", "v 1",
    "1!", "!1", "1!1", "1!!1", "1!1!1", "01.02.003", "0", "0.0", "00", "000!000.000",
    "1.0a", "1.0a.", "1.0a-", "1.0a_", "1.0a.-1", "1.0a--1", "1.0a..1", "1.0a...post",
    "1.0.dev.+abc", "1.0a-1", "1.0-1", "1.0-r1", "1.0-rev", "1.0revdev", "1.0post-1",
    "1.0-1dev", "1.0-1-dev", "1.0-1-1", "1.0c1", "1.0pre1", "1.0preview1", "1.0prev", "1.0alpha",
    "1.0alph", "1.0rc", "1.0r", "1.0cr", "1.0ab", "1.0a1b2", "1.0.post1.post2", "1.0.dev1.dev2",
    "1.0.dev1a1", "1.0.post1a1", "1.0.dev1.post1", "1.0+abc.5", "1.0+abc.xyz", "1.0+ABC",
    "1.0+a..b", "1.0+a.", "1.0++a", "1.0+a+b", "1.0+-a", "1.0+0001", "1.0+a_b-c.d", "1.0.*",
    "1.0 .1", " 1.0 ", "\t1.0\x0b", "\x1c1.0\x1f", "1.0\x00", "\x001.0", "1.0\u00e9", "1.0+\u212a",
    "\u00a01.0", "1.0\u3000", "a", "abc", "dev", "1.0dev", "1dev", "1.0.DEV1", "RC1", "1.0RC1",
    "1.0-RC-1", "1.0_rc_1", "1.0.rc.1", "1.0.Post.1", "1.0-POST-1", "1.0.r.", "1.0.rev_",
    "1!2.0.0rc1.post2.dev3+cu12torch2.8cxx11abiTRUE", "2.8.3", "2.8.3+cu12torch2.10cxx11abiTRUE",
    "2.8.3+cu12torch2.8cxx11abiFALSE", "2.8.3.post1", "1.0+pt112cu113", "1.0+pt20cu118",
    "1." + "9" * 100, "9" * 40 + "!1", "1.0a" + "0" * 50 + "7", "1.0+" + "0" * 30 + "12",
    "1" * 5000, "1." * 2000 + "1", "1" + ".0" * 3000, "a" * 10000, "1.0+" + "a." * 3000 + "b",
    "1.0+" + "a" * 20000, "1.0" + " " * 3000 + "x", "1.0.0.0.0.0.0.0.0.0.0.0.1", "0!0.0a0.post0.dev0+0",
    "1.0-a1", "1.0_a1", "1.0.a1", "1.0-post1", "1.0_post1", "1.0-dev1", "1.0_dev1", "1.0devv",
    "1.0.dev-1", "1.0.dev_", "1.0-", "1.0--1", "1.0.-1", "1.0+_", "1.0+.", "1.0+a-", "+1.0",
    "1.0,", "1.0;", ">=1.0", "==1.0", "1.0-1.0", "1.0_1", "1.0.1a", "1.0.1.a.1.post.1.dev.1",
]

PAIRS = [
    ("2.8.3", "2.8.3+anything"), ("2.8.3+anything", "2.8.3.post1"),
    ("2.8.3+cu12torch2.10cxx11abiTRUE", "2.8.3+cu12torch2.8cxx11abiFALSE"),
    ("2.8.3+cu12torch2.8cxx11abiFALSE", "2.8.3+cu12torch2.8cxx11abiTRUE"),
    ("2.8.3+cu12torch2.8cxx11abiTRUE", "2.8.3+cu13torch2.9cxx11abiTRUE"),
    ("1.0+pt112cu113", "1.0+pt113cu117"), ("1.0+pt113cu117", "1.0+pt20cu118"),
    ("1.0+abc.5", "1.0+abc.xyz"), ("1.0", "1.0.0"), ("1.0.dev0", "1.0a0"), ("1.0a0", "1.0b0"),
    ("1.0b0", "1.0rc0"), ("1.0rc0", "1.0"), ("1.0", "1.0.post0"), ("1.0.post0.dev0", "1.0.post0"),
    ("1.0a1.dev0", "1.0a1"), ("1.0a1.post1", "1.0a2"), ("1!0.1", "2.0"), ("1.0+abc", "1.0+ABC"),
    ("1.0+a.1", "1.0+a-01"), ("1.0+1", "1.0+a"), ("1.0+a", "1.0+a.0"), ("1.0c1", "1.0rc1"),
    ("1.0.dev1", "1.0a1.dev1"), ("0.0", "0"), ("1." + "9" * 30, "1." + "9" * 29 + "8"),
    ("1.0.post1", "1.0-1"), ("1.0+local", "1.0.post0"),
]


def generate(rng, count):
    lines = ["S\t" + text for text in EDGE]
    lines += ["S\t" + text for text in common.data_version_strings()]
    lines += [f"P\t{a}\t{b}" for a, b in PAIRS] + [f"P\t{b}\t{a}" for a, b in PAIRS]
    # Hand-picked lines may show an intended difference; those live in version_test.cpp.
    lines = [line for line in lines if not intended_difference(line)]
    data_versions = common.data_version_strings()
    while len(lines) < count:
        r = rng.random()
        if r < 0.12:
            line = "S\t" + common.token_soup(rng)
        elif r < 0.35:
            line = "S\t" + common.rand_version(rng)
        elif r < 0.65:
            line = "S\t" + common.mutate(rng, common.rand_version(rng))
        elif r < 0.7:
            line = "S\t" + common.mutate(rng, rng.choice(data_versions))
        elif r < 0.92:
            family = common.version_family(rng)
            line = f"P\t{rng.choice(family)}\t{rng.choice(family)}"
        else:
            a = common.rand_version(rng, spaces=False)
            b = common.rand_version(rng, spaces=False) if rng.random() < 0.5 else rng.choice(data_versions)
            line = f"P\t{a}\t{b}"
        if intended_difference(line):
            continue
        lines.append(line)
    return lines[:count]


def _parse(text):
    try:
        return Version(text)
    except InvalidVersion:
        return None


def intended_difference(line):
    """flashfit rejects every non-ASCII byte; Python accepts Unicode whitespace
    around a version and a few letters that IGNORECASE folds to ASCII."""
    fields = line.split("\t", 1)[1] if line.startswith("S\t") else line.split("\t")[1:]
    texts = [fields] if isinstance(fields, str) else fields
    return any(common.has_non_ascii_or_nul(t) and _parse(t) is not None for t in texts)


def _yn(flag):
    return "1" if flag else "0"


def describe(v):
    pre = "".join(str(x) for x in v.pre) if v.pre is not None else "-"
    post = str(v.post) if v.post is not None else "-"
    dev = str(v.dev) if v.dev is not None else "-"
    local = v.local if v.local is not None else "-"
    release = ".".join(str(x) for x in v.release)
    return "|".join([str(v), v.public, v.base_version, str(v.epoch), release, pre, post, dev, local,
                     _yn(v.is_prerelease), _yn(v.is_postrelease), _yn(v.is_devrelease),
                     _yn(v.local is not None)])


def oracle(line):
    kind, rest = line.split("\t", 1)
    if kind == "S":
        v = _parse(rest)
        return "ERR" if v is None else "OK " + describe(v)
    a_text, b_text = rest.split("\t")
    a, b = _parse(a_text), _parse(b_text)
    if a is None or b is None:
        return "ERR"
    if a < b:
        sign = "<"
    elif a == b:
        sign = "="
    else:
        sign = ">"
    return f"CMP {sign}"
