"""Shared pieces of the PEP 440 / 427 differential generators.

Not a differential kind itself (no _cases suffix): version_cases.py,
specifier_cases.py and wheelname_cases.py import it.
"""
import pathlib
import sys
import urllib.parse

# packaging's numbers are Python ints, unbounded in principle; CPython 3.11
# refuses to convert strings of more than 4300 digits unless told otherwise.
# flashfit stores digit strings of any length, so the oracle lifts the guard.
sys.set_int_max_str_digits(0)

DATA = pathlib.Path(__file__).resolve().parents[2] / "data"

# Python's `\s` on ASCII, minus \n and \r, which cannot appear in a case line.
ASCII_SPACE = [" ", "\t", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x1f"]
# A mix: some Python rejects anyway, some it accepts (Unicode whitespace, the
# Kelvin sign that IGNORECASE folds to 'k'); flashfit rejects all non-ASCII,
# and generators drop the lines where that is an intended difference.
NON_ASCII = ["\u00e9", "\u00a0", "\u212a", "\u0131", "\u017f", "\u0661", "\u2003", "\ufeff",
             "\u20ac", "\u00e4", "\u0085", "\u3000"]
PUNCT = list(",;)(=<>~!@#$%^&*/\\'\"?|[]{}`:")


def official_filenames():
    lines = (DATA / "flash-attn-official-wheels.tsv").read_text().splitlines()[1:]
    return [line.split("\t")[1] for line in lines if line.strip()]


def community_filenames():
    lines = (DATA / "flash-attn-community-wheels.tsv").read_text().splitlines()[1:]
    return [urllib.parse.unquote(line.strip().rsplit("/", 1)[1]) for line in lines if line.strip()]


def data_version_strings():
    """Every version-like string in the data files: file name versions and release tags."""
    out = set()
    for line in (DATA / "flash-attn-official-wheels.tsv").read_text().splitlines()[1:]:
        if line.strip():
            tag, filename = line.split("\t")[:2]
            out.add(tag)
            out.add(filename.split("-")[1])
    for line in (DATA / "flash-attn-community-wheels.tsv").read_text().splitlines()[1:]:
        if line.strip():
            parts = line.strip().split("/")
            out.add(parts[-2])  # the release tag in the download path
            out.add(urllib.parse.unquote(parts[-1]).split("-")[1])
    return sorted(out)


def rand_number(rng):
    r = rng.random()
    if r < 0.45:
        return str(rng.randint(0, 9))
    if r < 0.7:
        return str(rng.randint(0, 99))
    if r < 0.8:
        return "0" * rng.randint(1, 3) + str(rng.randint(0, 99))
    if r < 0.95:
        return str(rng.randint(0, 10**6))
    return str(rng.randint(0, 10 ** rng.randint(10, 60)))


def rand_case(rng, word):
    r = rng.random()
    if r < 0.7:
        return word
    if r < 0.8:
        return word.upper()
    return "".join(c.upper() if rng.random() < 0.5 else c for c in word)


def rand_sep(rng, p_empty=0.5):
    return "" if rng.random() < p_empty else rng.choice(".-_")


def rand_space(rng, p=0.1):
    if rng.random() >= p:
        return ""
    return "".join(rng.choice(ASCII_SPACE) for _ in range(rng.randint(1, 3)))


PRE_SPELLINGS = ["a", "b", "c", "rc", "alpha", "beta", "pre", "preview"]
POST_SPELLINGS = ["post", "rev", "r"]


def rand_local(rng):
    flash = ["cu12torch2.8cxx11abiTRUE", "cu12torch2.10cxx11abiFALSE", "cu118torch1.12cxx11abiFALSE",
             "pt112cu113", "pt20cu118", "cpu", "rocm6.1"]
    if rng.random() < 0.25:
        return rng.choice(flash)
    parts = []
    for _ in range(rng.randint(1, 4)):
        r = rng.random()
        if r < 0.35:
            part = rand_number(rng)
        elif r < 0.7:
            part = "".join(rng.choice("abcxyzABCTRUEfalse") for _ in range(rng.randint(1, 6)))
        else:
            part = "".join(rng.choice("abc0123456789XYZ") for _ in range(rng.randint(1, 8)))
        parts.append(part)
    text = parts[0]
    for part in parts[1:]:
        text += rng.choice(".-_") + part
    return text


def rand_version(rng, *, local=True, min_release=1, suffixes=True, spaces=True, vprefix=True):
    """A version in the grammar, in any of its spellings (mostly valid)."""
    out = rand_space(rng) if spaces else ""
    if vprefix and rng.random() < 0.08:
        out += rng.choice("vV")
    if rng.random() < 0.12:
        out += rand_number(rng) + "!"
    n = max(min_release, rng.choice([1, 1, 2, 2, 2, 3, 3, 3, 3, 4, 5, 6]))
    out += ".".join(rand_number(rng) for _ in range(n))
    if suffixes:
        if rng.random() < 0.3:
            out += rand_sep(rng, 0.6) + rand_case(rng, rng.choice(PRE_SPELLINGS))
            out += rand_sep(rng, 0.7)
            if rng.random() < 0.85:
                out += rand_number(rng)
        if rng.random() < 0.25:
            if rng.random() < 0.25:
                out += "-" + rand_number(rng)
            else:
                out += rand_sep(rng, 0.4) + rand_case(rng, rng.choice(POST_SPELLINGS))
                out += rand_sep(rng, 0.7)
                if rng.random() < 0.85:
                    out += rand_number(rng)
        if rng.random() < 0.25:
            out += rand_sep(rng, 0.4) + rand_case(rng, "dev") + rand_sep(rng, 0.7)
            if rng.random() < 0.85:
                out += rand_number(rng)
    if local and rng.random() < 0.3:
        out += "+" + rand_local(rng)
    if spaces:
        out += rand_space(rng)
    return out


def version_family(rng, base=None):
    """Spellings that sort close together: what orderings and specifiers trip on."""
    if base is None:
        base = ".".join(str(rng.randint(0, 3)) for _ in range(rng.randint(1, 3)))
    epoch = rng.choice(["", "", "", "1!", "0!"])
    fam = []
    for _ in range(rng.randint(4, 10)):
        v = epoch + base + ".0" * rng.choice([0, 0, 0, 1, 2])
        r = rng.random()
        if r < 0.15:
            v += rng.choice(["a", "b", "rc", "c"]) + str(rng.randint(0, 2))
        if rng.random() < 0.2:
            v += ".post" + str(rng.randint(0, 2))
        if rng.random() < 0.2:
            v += ".dev" + str(rng.randint(0, 2))
        if rng.random() < 0.25:
            v += "+" + rng.choice(["abc", "abc.5", "abc.xyz", "5", "05", "local.1", "ABC",
                                   "cu12torch2.8cxx11abiTRUE", "cu12torch2.10cxx11abiTRUE"])
        if rng.random() < 0.1:
            v = v.replace("0", "00", 1)
        fam.append(v)
    return fam


def mutate(rng, text, extra_chars=()):
    pool = (list("0123456789..--__++!*abcdeilnoprstvwxyzABCDEPRV") + ASCII_SPACE + PUNCT +
            ["\x00", "\x01", "\x7f"] + NON_ASCII + list(extra_chars))
    for _ in range(rng.randint(1, 3)):
        r = rng.random()
        i = rng.randint(0, len(text)) if text else 0
        if r < 0.3 and text:  # delete a character
            i = min(i, len(text) - 1)
            text = text[:i] + text[i + 1:]
        elif r < 0.6:  # insert one
            text = text[:i] + rng.choice(pool) + text[i:]
        elif r < 0.75 and text:  # double a character (separators included)
            i = min(i, len(text) - 1)
            text = text[:i] + text[i] + text[i:]
        elif r < 0.85 and len(text) > 1:  # swap neighbours
            i = min(i, len(text) - 2)
            text = text[:i] + text[i + 1] + text[i] + text[i + 2:]
        elif r < 0.95:  # cut it short
            text = text[:i]
        else:  # replace a character
            if text:
                i = min(i, len(text) - 1)
                text = text[:i] + rng.choice(pool) + text[i + 1:]
    return text.replace("\n", "").replace("\r", "")


# Grammar tokens: strings glued from them hit the corners of the PEP 440 regex
# (separator placement, spelling prefixes, implicit numbers) far more often
# than character-level noise does.
TOKENS = ["1", "0", "12", "007", ".", "-", "_", "+", "!", "a", "b", "c", "rc", "alpha", "pre", "preview",
          "r", "rev", "post", "dev", "v", "V", "RC", "Post", " ", "x", "*", "\x0b"]


def token_soup(rng, low=1, high=8):
    return "".join(rng.choice(TOKENS) for _ in range(rng.randint(low, high)))


def has_non_ascii_or_nul(text):
    return any(ord(c) >= 0x80 or c == "\x00" for c in text)
