"""PEP 508 requirements and markers: flashfit's parse_requirement and
Marker::evaluate against packaging 23.0's Requirement and marker evaluation.

Case line:  requirement<TAB>environment as compact JSON
  (the requirement may itself hold tabs; the JSON never does, so the last tab splits)
Answer:     ERR when packaging rejects the requirement, else
  OK name|extras (sorted, ','-joined)|str(specifier)|url or ''|str(marker) or ''|evaluation|str(req)
  evaluation: True or False, ERR when evaluating raises, None when there is no marker.
Backslashes, newlines and carriage returns inside fields are escaped (\\\\, \\n, \\r).

The environment holds exactly the variables the case gives: packaging's
default_environment() (the machine running the test) is not consulted, so a
missing variable is an error on both sides. `extra` defaults to "" as in
Marker.evaluate.

Lines where flashfit differs from packaging on purpose are not generated
(intended_difference below); each class is asserted in requirement_test.cpp or
marker_test.cpp (and, for specifiers, in the PEP 440 tests).
"""
import json
import pathlib
import sys
import urllib.parse

sys.path.insert(0, str(pathlib.Path(__file__).parent))
import pep440_common as common  # noqa: E402
import requirement_gen as gen  # noqa: E402
from packaging import _parser  # noqa: E402
from packaging._parser import Value, Variable  # noqa: E402
from packaging.markers import _evaluate_markers  # noqa: E402
from packaging.requirements import Requirement  # noqa: E402
from packaging.specifiers import Specifier  # noqa: E402
from packaging.utils import canonicalize_name  # noqa: E402
from packaging.version import Version  # noqa: E402

MAX_DEPTH = 64  # pkg::kMaxMarkerDepth


def _escape(text):
    return text.replace("\\", "\\\\").replace("\n", "\\n").replace("\r", "\\r")


def _split(line):
    text, _, env_json = line.rpartition("\t")
    return text, json.loads(env_json)


def _eval_env(env):
    out = dict(env)
    out.setdefault("extra", "")
    return out


def oracle(line):
    text, env = _split(line)
    try:
        req = Requirement(text)
    except Exception:  # InvalidRequirement, InvalidSpecifier, ValueError, SyntaxError, RecursionError
        return "ERR"
    evaluation = "None"
    if req.marker is not None:
        try:
            evaluation = str(bool(_evaluate_markers(req.marker._markers, _eval_env(env))))
        except Exception:  # KeyError, InvalidVersion, UndefinedComparison
            evaluation = "ERR"
    fields = [req.name, ",".join(sorted(req.extras)), str(req.specifier), req.url or "",
              str(req.marker) if req.marker is not None else "", evaluation, str(req)]
    return "OK " + "|".join(_escape(f) for f in fields)


# ---------------------------------------------------------------------------
# Intended differences (see the module docstring)
# ---------------------------------------------------------------------------
def _comparisons(markers):
    for item in markers:
        if isinstance(item, list):
            yield from _comparisons(item)
        elif isinstance(item, tuple):
            yield item


def _depth(markers):
    return 1 + max((_depth(m) for m in markers if isinstance(m, list)), default=0)


def _non_ascii(text):
    return any(ord(c) >= 0x80 for c in text)


def _python_only_specifier(text):
    """packaging's Specifier accepts it, flashfit's (ASCII-only) does not."""
    if not common.has_non_ascii_or_nul(text):
        return False
    try:
        Specifier(text)
        return True
    except Exception:
        return False


def _evaluation_difference(markers, env):
    for lhs, op, rhs in _comparisons(markers):
        if isinstance(lhs, Variable):
            key, lv, rv = lhs.value, env.get(lhs.value), rhs.value
        else:
            key, lv, rv = rhs.value, lhs.value, env.get(rhs.value)
        if lv is None or rv is None:
            continue  # an error on both sides
        if key == "extra":
            if _non_ascii(lv) or _non_ascii(rv):
                return True  # flashfit knows ASCII case rules only
            lv, rv = canonicalize_name(lv), canonicalize_name(rv)
        if op.value in ("in", "not in"):
            continue
        if _python_only_specifier(op.value + rv):
            return True
        try:
            Specifier(op.value + rv)
            Version(lv)
        except Exception:
            continue
        if common.has_non_ascii_or_nul(lv):
            return True  # a version packaging's Unicode \s accepts, flashfit's ASCII one does not
    return False


def intended_difference(line):
    text, env = _split(line)
    try:
        parsed = _parser.parse_requirement(text)
        req = Requirement(text)
    except Exception:
        return False  # flashfit is only ever narrower: it must reject too
    if common.has_non_ascii_or_nul(parsed.specifier):
        return True  # non-ASCII or NUL in a specifier (e.g. "===é", "==\u00a01.0")
    if req.url is not None:
        if any(ord(c) < 0x20 or ord(c) == 0x7f for c in req.url):
            return True  # control characters in a URL
        if _non_ascii(urllib.parse.urlsplit(req.url).netloc):
            return True  # a non-ASCII URL host
    if "\\N" in text:
        return True  # named escapes need the Unicode name database
    if any(0xD800 <= ord(c) < 0xE000 for c in str(req)):
        return True  # a lone surrogate from an escape cannot be UTF-8
    if req.marker is not None:
        markers = req.marker._markers
        if _depth(markers) - 1 > MAX_DEPTH:
            return True
        for lhs, _, rhs in _comparisons(markers):
            for a, b in ((lhs, rhs), (rhs, lhs)):
                if isinstance(a, Variable) and a.value == "extra" and isinstance(b, Value) \
                        and _non_ascii(b.value):
                    return True  # an extra name that is not ASCII
        if _evaluation_difference(markers, _eval_env(env)):
            return True
    return False


def generate(rng, count):
    lines = []
    for text in gen.EDGE_REQUIREMENTS:
        lines.append(text + "\t" + json.dumps(gen.rand_env(rng), separators=(",", ":")))
    lines = [line for line in lines if not intended_difference(line)]
    while len(lines) < count:
        text = gen.rand_requirement(rng) if rng.random() < 0.9 else gen.rand_token_soup(rng)
        if rng.random() < 0.3:
            text = common.mutate(rng, text, extra_chars=gen.MUTATION_CHARS)
        line = text + "\t" + json.dumps(gen.rand_env(rng), separators=(",", ":"))
        if "\n" in line or "\r" in line or intended_difference(line):
            continue
        lines.append(line)
    return lines[:count]
