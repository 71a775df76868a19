"""PEP 440 specifiers: flashfit's pkg::SpecifierSet against packaging 23.0's.

Case line:  set<TAB>prereleases (N|T|F)<TAB>version<TAB>version...
Answer:     ERR when the set does not parse, else
  OK str(set)|set.prereleases (N|T|F)|each spec's .prereleases|set.contains per version
     |each spec's .contains per version (one group per spec, ';'-joined)|set.filter(valid versions)
Specs are listed sorted by str(); per version: 1, 0, or E for an invalid version.

X marks a value packaging cannot give: a "===" specifier whose text is not a
version makes `.prereleases` raise InvalidVersion (and with it contains() and
filter() when prereleases is None, depending on set iteration order). flashfit
answers False there; that intended difference is asserted in specifier_test.cpp,
so both sides print X instead.
"""
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).parent))
import pep440_common as common  # noqa: E402
from packaging.specifiers import InvalidSpecifier, SpecifierSet  # noqa: E402
from packaging.version import InvalidVersion, Version  # noqa: E402

OPS = ["==", "==", "!=", "<=", ">=", "<", ">", "~=", "==="]

EDGE_SETS = [
    "", " ", ",", ",,", " , ", "==", "==1.0", "== 1.0", "==1.0 ", " ==1.0", "==1.0,", ",==1.0",
    "===", "=== ", "===1.0", "===1.0,>=2", "===a;b", "===a)", "===a b", "===foo", "===1.0+ABC",
    "~=1", "~=1.0", "~=1.0.*", "~=1.0+abc", "~=1.0a.1", "~=1.0.A1", "~=1.0.0A1", "~=1.0.a1",
    "~=1.0a.rev.1", "~=1.0.pre.1", "~=V1.0", "~=1!1.0", "~=0!1.0", "~=1.0.post1", "~=1.0.0a1",
    "~=2.8.3", "~=2.8", "==1.0.*", "==1.0.*+abc", "==1.0a1.*", "!=1.0.*", ">=1.0.*", "<1.0.*",
    "==1.*", "==0!1.*", "==1!1.0.*", "==1.0.0.*", "==v1.0.*", "==1.0+abc", "!=1.0+abc",
    ">=1.0+abc", "<1.0+abc", "<=1.0+abc", ">1.0+abc", "<3.1", ">3.1", ">=2.6,<3", "<3.1,>3.0",
    ">=1.0a1", "<=1.0.dev0", "==1.0rc1", "!=1.0a1", "<1.0a1", ">1.0.post1", "<=", ">=", "<", ">",
    "~=", "!=", "1.0", ">=1.0;", ">=1.0)", ">=1.0 ,<2", ">=1.0,,<2", ">= 1.0 , < 2.0 ",
    "=>1.0", "=<1.0", "<>1.0", ">==1.0", "<===1.0", "!==1.0", "~==1.0", "= =1.0", "==1.0 1",
    "==1.0,==1.0.0", "==1.0.0,==1.0", "==1.0.*,==1.0.0.*", "===1.0,===1.0.0", "~=1.0,~=1.0.0",
    "~=1.0,~=1.00", ">=1.0,>=1.0.0,>=1", "==1.0+abc,==1.0.0+ABC", "==2.8.3+cu12torch2.8cxx11abiTRUE",
    "<2.8.3+x", ">=2.5.8,<2.9", "==2.8.*", "~=2.8.0", ">=2.8.3.post1", "<=2.8.3", ">2.8.3",
    "==\t1.0\x0b", "\x1c>=1.0\x1f", ">=1.0\x00", "===a\x00b", "===\u00e9", ">=1.0\u00e9", "\u00a0>=1.0",
    ">=" + "9" * 100, "==" + "1." * 2000 + "*", ">=1.0," * 2000 + "<2", "===" + "x" * 20000,
    "==1.0" + " " * 3000 + "x",
]

VERSIONS = ["1.0", "1.0.0", "1.0a1", "1.0.dev0", "1.0.post1", "1.0+abc", "0.9", "1.1", "2.0",
            "3.0.dev0", "3.1.dev0", "3.1", "3.1.post1", "3.1+local", "3.0.5", "1!1.0", "1.0rc1",
            "2.8.3", "2.8.3+cu12torch2.8cxx11abiTRUE", "2.8.3.post1", "2.8.0", "2.9.0a1", "bogus"]


def _version(text):
    try:
        return Version(text)
    except InvalidVersion:
        return None


def _spec_version(rng, op):
    if op == "===":
        r = rng.random()
        if r < 0.5:
            return common.rand_version(rng, spaces=False)
        if r < 0.7:
            return rng.choice(["", "foo", "1.0-custom", "1.0+ABC", "2.8.3+cu12torch2.8cxx11abiTRUE",
                               "dev", "1..0", "V1.0", "=1"])
        return common.mutate(rng, common.rand_version(rng, spaces=False))
    if op in ("==", "!=") and rng.random() < 0.3:
        return common.rand_version(rng, suffixes=False, local=False, spaces=False) + ".*"
    return common.rand_version(rng, local=op in ("==", "!="), spaces=False,
                               min_release=2 if op == "~=" else 1)


def rand_set(rng):
    specs = []
    for _ in range(rng.choice([0, 1, 1, 1, 2, 2, 3, 4])):
        op = rng.choice(OPS)
        specs.append(common.rand_space(rng) + op + common.rand_space(rng, 0.2) + _spec_version(rng, op) +
                     common.rand_space(rng))
    text = ",".join(specs)
    if rng.random() < 0.05:
        text = "," + text
    if rng.random() < 0.05:
        text += ","
    return text


def near_versions(rng, set_text):
    """Candidates around the versions the set mentions, so edges get hit."""
    out = []
    bases = []
    for item in set_text.split(","):
        item = item.strip().lstrip("~=!<>").strip()
        if item.endswith(".*"):
            item = item[:-2]
        v = _version(item)
        if v is not None:
            bases.append(v)
    for _ in range(rng.randint(1, 6)):
        r = rng.random()
        if bases and r < 0.7:
            base = rng.choice(bases)
            release = ".".join(str(x) for x in base.release)
            epoch = f"{base.epoch}!" if base.epoch or rng.random() < 0.05 else ""
            family = common.version_family(rng, release)
            v = rng.choice(family)
            if epoch and "!" not in v:
                v = epoch + v
            if rng.random() < 0.2:
                v = str(base)
            if rng.random() < 0.15:
                v = base.public + rng.choice(["", ".0", ".1", "a1", ".post1", ".dev0", "+abc"])
            out.append(v)
        elif r < 0.85:
            out.append(common.rand_version(rng, spaces=False))
        elif r < 0.95:
            out.append(rng.choice(VERSIONS))
        else:
            out.append(common.mutate(rng, common.rand_version(rng, spaces=False)))
    return [v.replace("\t", " ") for v in out]


def generate(rng, count):
    lines = []
    for text in EDGE_SETS:
        for pre in "NTF":
            lines.append("\t".join([text.replace("\t", " "), pre] + VERSIONS))
    lines = [line for line in lines if not intended_difference(line)]
    while len(lines) < count:
        r = rng.random()
        text = rand_set(rng)
        if r < 0.1:
            text = rng.choice(OPS + ["<=", ">"]) + common.token_soup(rng)
        elif r < 0.3:
            text = common.mutate(rng, text, extra_chars="=<>~!,")
        text = text.replace("\t", " ")
        pre = rng.choice("NNNTF")
        line = "\t".join([text, pre] + near_versions(rng, text))
        if intended_difference(line):
            continue
        lines.append(line)
    return lines[:count]


def intended_difference(line):
    """flashfit rejects NUL and non-ASCII anywhere in a specifier set, and in a version."""
    fields = line.split("\t")
    if common.has_non_ascii_or_nul(fields[0]):
        try:
            SpecifierSet(fields[0])
            return True
        except InvalidSpecifier:
            pass
    return any(common.has_non_ascii_or_nul(v) and _version(v) is not None for v in fields[2:])


def _arbitrary_non_version(spec):
    return spec.operator == "===" and _version(spec.version) is None


def oracle(line):
    fields = line.split("\t")
    text, pre_flag, version_texts = fields[0], fields[1], fields[2:]
    pre = {"N": None, "T": True, "F": False}[pre_flag]
    try:
        spec_set = SpecifierSet(text)
    except InvalidSpecifier:
        return "ERR"
    specs = sorted(spec_set, key=str)
    poisoned = any(_arbitrary_non_version(s) for s in specs)
    set_pre = "X" if poisoned else {None: "N", True: "T", False: "F"}[spec_set.prereleases]
    each_pre = "".join("X" if _arbitrary_non_version(s) else str(int(s.prereleases)) for s in specs)
    versions = [_version(v) for v in version_texts]

    def verdicts(check, raises):
        return "".join("E" if v is None else ("X" if raises else str(int(check(v)))) for v in versions)

    set_contains = verdicts(lambda v: spec_set.contains(v, prereleases=pre), pre is None and poisoned)
    each_contains = ";".join(
        verdicts(lambda v, s=s: s.contains(v, prereleases=pre), pre is None and _arbitrary_non_version(s))
        for s in specs)
    if pre is None and poisoned:
        filtered = "X"
    else:
        filtered = ",".join(str(v) for v in spec_set.filter([v for v in versions if v is not None],
                                                            prereleases=pre))
    return "OK " + "|".join([str(spec_set), set_pre, each_pre, set_contains, each_contains, filtered])
