"""Differential cases for pkg/tags: supported-tag lists and wheel ranks.

Each line is compact JSON: {"facts": {...}, "rules": "pip"|"sys_tags", "wheel": "<tag set>"}.
The answer is "<count> <sha256 of the newline-joined list> <best rank or -1>".

The oracle is pip 23's own code, packaging 21.3 included, run on a simulated
interpreter: the module globals that tags.py, _manylinux.py and _musllinux.py
read (sys, sysconfig, platform, EXTENSION_SUFFIXES, the glibc/musl/ELF probes,
the optional `_manylinux` module) are swapped for the facts of the case while
pip's get_supported() or packaging's sys_tags() runs. Free-threaded 3.13+
facts are never generated: flashfit deliberately differs from 21.3 there
(see tests/unit/pkg/tags_test.cpp).

Cases come in groups that share one fact set, so the oracle computes each
list once and the run stays well under a minute.
"""
import contextlib
import functools
import hashlib
import json
import pathlib
import sys
import types

from pip._internal.utils import compatibility_tags
from pip._vendor.packaging import _manylinux, _musllinux, tags

_DATA = pathlib.Path(__file__).resolve().parents[2] / "data"
_LEGACY = {"manylinux1": (2, 5), "manylinux2010": (2, 12), "manylinux2014": (2, 17)}


# ---------------------------------------------------------------- the oracle

def _fake_manylinux_module(spec):
    module = types.ModuleType("_manylinux")
    if "compatible" in spec:
        answers = {(a, b): r for a, b, r in spec["compatible"]["answers"]}
        default = spec["compatible"]["default"]
        module.manylinux_compatible = lambda major, minor, arch: answers.get((major, minor), default)
    for name, value in spec.get("legacy", {}).items():
        setattr(module, name + "_compatible", value)
    return module


@contextlib.contextmanager
def _simulated(facts):
    fake_sys = types.SimpleNamespace(
        version_info=(facts["major"], facts["minor"], 0, "final", 0),
        implementation=types.SimpleNamespace(name=facts["impl"]),
        maxunicode=0x10FFFF if facts["ucs4"] else 0xFFFF,
        maxsize=2**31 - 1 if facts["is_32bit"] else 2**63 - 1)
    if facts["refcount"]:
        fake_sys.gettotalrefcount = lambda: 0
    config = {"py_version_nodot": facts["nodot"], "Py_DEBUG": facts["debug"],
              "WITH_PYMALLOC": facts["pymalloc"], "Py_UNICODE_SIZE": facts["unicode_size"],
              "Py_GIL_DISABLED": facts["gil"], "SOABI": facts["soabi"]}
    glibc = tuple(facts["glibc"]) if facts["glibc"] else (-1, -1)
    musl = _musllinux._MuslVersion(*facts["musl"]) if facts["musl"] else None
    spec = facts["manylinux_module"]
    patches = [
        (tags, "sys", fake_sys),
        (tags, "sysconfig", types.SimpleNamespace(get_config_var=config.get,
                                                  get_platform=lambda: facts["platform"])),
        (tags, "platform", types.SimpleNamespace(system=lambda: facts["system"])),
        (tags, "EXTENSION_SUFFIXES", [".so", "_d.pyd"] if facts["d_pyd"] else [".so"]),
        (tags._linux_platforms, "__defaults__", (facts["is_32bit"],)),
        (_manylinux, "_get_glibc_version", lambda: glibc),
        (_manylinux, "_is_linux_armhf", lambda: facts["armhf"]),
        (_manylinux, "_is_linux_i686", lambda: facts["i686"]),
        (_musllinux, "_get_musl_version", lambda executable: musl),
    ]
    saved = [(obj, name, getattr(obj, name)) for obj, name, _ in patches]
    had_module, saved_module = "_manylinux" in sys.modules, sys.modules.get("_manylinux")
    try:
        for obj, name, value in patches:
            setattr(obj, name, value)
        # None in sys.modules makes `import _manylinux` fail, as on a normal system.
        sys.modules["_manylinux"] = _fake_manylinux_module(spec) if spec is not None else None
        yield
    finally:
        for obj, name, value in saved:
            setattr(obj, name, value)
        if had_module:
            sys.modules["_manylinux"] = saved_module
        else:
            del sys.modules["_manylinux"]


@functools.lru_cache(maxsize=8)
def _supported(facts_json, rules):
    """(tag list, count, sha256, first index of each tag) for one fact set."""
    with _simulated(json.loads(facts_json)):
        if rules == "pip":
            supported = list(compatibility_tags.get_supported())
        else:
            supported = list(tags.sys_tags())
    digest = hashlib.sha256("\n".join(map(str, supported)).encode()).hexdigest()
    first = {}
    for index, tag in enumerate(supported):
        first.setdefault(tag, index)  # pip's support_index_min uses list.index()
    return supported, len(supported), digest, first


def oracle(line):
    case = json.loads(line)
    facts_json = json.dumps(case["facts"], sort_keys=True, separators=(",", ":"))
    _, count, digest, first = _supported(facts_json, case["rules"])
    ranks = [first[tag] for tag in tags.parse_tag(case["wheel"]) if tag in first]
    return f"{count} {digest} {min(ranks) if ranks else -1}"


# ------------------------------------------------------------- the generator

def _choice(rng, weighted):
    values, weights = zip(*weighted)
    return rng.choices(values, weights)[0]


def _vetoed(spec, glibc):
    """What the interpreter probe reports: glibc versions the module refuses."""
    if spec is None or glibc is None:
        return []
    vetoed = []
    for major in range(0, glibc[0] + 1):
        for minor in range(0, max(glibc[1], 50) + 1):
            if "compatible" in spec:
                answers = {(a, b): r for a, b, r in spec["compatible"]["answers"]}
                result = answers.get((major, minor), spec["compatible"]["default"])
                refused = result is not None and not result
            else:
                refused = any(_LEGACY[name] == (major, minor) and not value
                              for name, value in spec.get("legacy", {}).items())
            if refused:
                vetoed.append([major, minor])
    return vetoed


def _manylinux_module(rng, glibc):
    if rng.random() > 0.08:
        return None
    spec = {}
    if rng.random() < 0.6:
        top = glibc[1] if glibc else 30
        answers = [[2, rng.randint(0, max(top, 5)), rng.choice([True, False, None, 0, 1])]
                   for _ in range(rng.randint(0, 4))]
        spec["compatible"] = {"answers": answers,
                              "default": _choice(rng, [(None, 5), (True, 3), (False, 1)])}
    if rng.random() < 0.5:
        spec["legacy"] = {name: rng.choice([True, False, 0])
                          for name in _LEGACY if rng.random() < 0.6}
    return spec


def _random_facts(rng):
    impl = _choice(rng, [("cpython", 70), ("pypy", 15), ("graalpy", 3), ("python", 2),
                         ("ironpython", 2), ("jython", 2), ("PyPy", 1), ("pyston", 2)])
    if rng.random() < 0.03:
        major, minor = 2, rng.choice([6, 7])
    elif impl == "cpython":
        major, minor = 3, rng.randint(0, 14)
    else:
        major, minor = 3, rng.randint(5, 11)
    nodot = _choice(rng, [(f"{major}{minor}", 85), (None, 8), ("", 3), (f"{major}_{minor}", 4)])
    arch = _choice(rng, [("x86_64", 30), ("aarch64", 15), ("i686", 8), ("armv7l", 8),
                         ("ppc64le", 6), ("s390x", 5), ("ppc64", 3), ("riscv64", 3),
                         ("armv6l", 2), ("X86_64", 1), ("x86_64.v2", 1)])
    system = _choice(rng, [("Linux", 88), ("Windows", 7), ("FreeBSD", 3), ("", 2)])
    if system == "Linux":
        platform = "linux-" + arch
    elif system == "Windows":
        platform = rng.choice(["win-amd64", "win32", "win-arm64"])
    else:
        platform = rng.choice(["freebsd-14.0-RELEASE-amd64", "openbsd-7.4-amd64", "sunos-5.11-i86pc"])
    is_32bit = rng.random() < 0.12
    effective = {"x86_64": "i686", "aarch64": "armv7l"}.get(arch, arch) if is_32bit else arch
    glibc = None
    roll = rng.random()
    if roll < 0.80:
        glibc = [2, _choice(rng, [(rng.randint(5, 40), 80), (rng.randint(0, 4), 5),
                                  (rng.choice([5, 12, 16, 17, 50]), 15)])]
    elif roll < 0.83:
        glibc = [rng.choice([1, 3]), rng.randint(0, 3)]
    musl = None
    if rng.random() < 0.2:
        musl = _choice(rng, [([1, 2], 45), ([1, 1], 40), ([1, 0], 10), ([2, 0], 5)])
    debug = _choice(rng, [(0, 70), (1, 12), (None, 18)])
    soabi_by_impl = {"cpython": f"cpython-{major}{minor}-{arch}-linux-gnu",
                     "pypy": f"pypy{major}{minor}-pp73", "PyPy": f"pypy{major}{minor}-pp73",
                     "graalpy": f"graalpy231-{major}{minor}-native-{arch}-linux"}
    soabi = _choice(rng, [(soabi_by_impl.get(impl, f"{impl}-{major}{minor}"), 75), (None, 12),
                          ("", 3), ("none", 2), ("NONE", 1), ("pypy-73", 4), ("PyPy.Test-1", 3)])
    spec = _manylinux_module(rng, glibc)
    return {
        "impl": impl, "major": major, "minor": minor, "nodot": nodot,
        "debug": debug, "refcount": rng.random() < (0.7 if debug else 0.08),
        "d_pyd": rng.random() < 0.05, "pymalloc": _choice(rng, [(1, 70), (0, 15), (None, 15)]),
        "unicode_size": _choice(rng, [(None, 40), (4, 35), (2, 25)]), "ucs4": rng.random() < 0.6,
        # Py_GIL_DISABLED only matters from 3.13, where flashfit differs on purpose.
        "gil": _choice(rng, [(None, 60), (0, 30), (1, 10)]) if (major, minor) < (3, 13) or
        impl != "cpython" else rng.choice([None, 0]),
        "soabi": soabi, "system": system, "platform": platform, "is_32bit": is_32bit,
        "glibc": glibc, "musl": musl,
        "armhf": rng.random() < (0.75 if effective == "armv7l" else 0.1),
        "i686": rng.random() < (0.75 if effective == "i686" else 0.1),
        "manylinux_module": spec, "vetoed": _vetoed(spec, glibc),
    }


@functools.lru_cache(maxsize=1)
def _real_tag_sets():
    """Tag sets of the flash-attn wheels in data/ (official and community)."""
    found = set()
    for path in sorted(_DATA.glob("flash-attn-*-wheels.tsv")):
        for word in path.read_text().split():
            name = word.rsplit("/", 1)[-1]
            if name.endswith(".whl"):
                found.add("-".join(name[:-4].split("-")[-3:]))
    return sorted(found) or ["cp311-cp311-linux_x86_64"]


def _compress(chosen):
    parts = [sorted({getattr(t, field) for t in chosen})
             for field in ("interpreter", "abi", "platform")]
    return "-".join(".".join(p) for p in parts)


def _wheel(rng, facts, supported):
    kind = rng.random()
    if kind < 0.45:  # from the list itself, so ranks spread over it
        limit = len(supported) if rng.random() < 0.5 else max(1, len(supported) // 5)
        return _compress([supported[rng.randrange(limit)] for _ in range(rng.randint(1, 3))])
    if kind < 0.70:  # real flash-attn wheels, sometimes retargeted at this Python
        tag_set = rng.choice(_real_tag_sets())
        if rng.random() < 0.5:
            ours = f"cp{facts['major']}{facts['minor']}"
            python, abi, plat = tag_set.split("-")
            tag_set = "-".join([ours, abi.replace(python, ours), plat])
        return tag_set
    major, minor = facts["major"], facts["minor"]
    near = [f"{major}{m}" for m in range(max(0, minor - 2), minor + 2)]
    arch = rng.choice(["x86_64", "aarch64", "i686", "armv7l", "ppc64le"])
    interps = [f"cp{v}" for v in near] + ["py3", "py2", f"py{major}{minor}", "pp39", "pp3", "py30"]
    abis = [f"cp{v}{flag}" for v in near for flag in ("", "m", "d", "t", "dm", "mu")] + [
        "abi3", "none", "pypy39_pp73", "abi3t"]
    plats = [f"manylinux_2_{rng.randint(4, 42)}_{arch}", f"manylinux2014_{arch}",
             f"manylinux2010_{arch}", f"manylinux1_{arch}", f"musllinux_1_{rng.randint(0, 3)}_{arch}",
             f"linux_{arch}", "any", "win_amd64", "macosx_11_0_arm64"]
    if kind < 0.90:  # plausible names, mostly unsupported
        return "-".join(".".join(sorted(set(rng.sample(pool, rng.randint(1, 2)))))
                        for pool in (interps, abis, plats))
    tag = supported[rng.randrange(len(supported))]  # a supported tag, upper-cased or spoiled
    if rng.random() < 0.5:
        return str(tag).upper()
    return f"{tag.interpreter}x-{tag.abi}-{tag.platform}"


def _check_simulation():
    """The simulated running interpreter must get pip's real lists, or the
    patches above no longer reach what this pip's packaging reads."""
    import importlib.machinery
    import platform
    import sysconfig
    glibc = _manylinux._get_glibc_version()
    musl = _musllinux._get_musl_version(sys.executable)
    config = sysconfig.get_config_var
    facts = {
        "impl": sys.implementation.name, "major": sys.version_info[0],
        "minor": sys.version_info[1], "nodot": config("py_version_nodot"),
        "debug": config("Py_DEBUG"), "refcount": hasattr(sys, "gettotalrefcount"),
        "d_pyd": "_d.pyd" in importlib.machinery.EXTENSION_SUFFIXES,
        "pymalloc": config("WITH_PYMALLOC"), "unicode_size": config("Py_UNICODE_SIZE"),
        "ucs4": sys.maxunicode == 0x10FFFF, "gil": config("Py_GIL_DISABLED"),
        "soabi": config("SOABI"), "system": platform.system(),
        "platform": sysconfig.get_platform(), "is_32bit": sys.maxsize <= 2**32,
        "glibc": list(glibc) if glibc != (-1, -1) else None,
        "musl": list(musl) if musl else None, "armhf": _manylinux._is_linux_armhf(),
        "i686": _manylinux._is_linux_i686(), "manylinux_module": None, "vetoed": [],
    }
    facts_json = json.dumps(facts, sort_keys=True, separators=(",", ":"))
    real = {"pip": compatibility_tags.get_supported(), "sys_tags": list(tags.sys_tags())}
    for rules, expected in real.items():
        if _supported(facts_json, rules)[0] != expected:
            sys.exit(f"tags oracle: the simulated running interpreter ({rules}) differs from "
                     f"this pip's real list; update the patches in {__file__}")


def generate(rng, count):
    _check_simulation()
    lines = []
    while len(lines) < count:
        facts = _random_facts(rng)
        rules = rng.choice(["pip", "sys_tags"])
        facts_json = json.dumps(facts, sort_keys=True, separators=(",", ":"))
        supported = _supported(facts_json, rules)[0]
        for _ in range(min(rng.randint(2, 6), count - len(lines))):
            case = {"facts": facts, "rules": rules, "wheel": _wheel(rng, facts, supported)}
            lines.append(json.dumps(case, sort_keys=True, separators=(",", ":")))
    return lines
