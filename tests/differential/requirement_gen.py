"""Grammar-driven random PEP 508 requirements and marker environments for
requirement_cases.py (not a differential kind itself: no _cases suffix)."""
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).parent))
import pep440_common as common  # noqa: E402

NAMES = ["flash-attn", "flash_attn", "causal-conv1d", "mamba-ssm", "torch", "numpy", "xformers",
         "Flash_Attn", "flash.attn", "flash_attn_3", "nvidia-cuda-runtime-cu12", "triton", "a", "A",
         "1", "z9", "foo-bar.baz_qux", "pkg_", "pkg-", "pkg.", "pkg-.", "-pkg", "_pkg", ".pkg",
         "a-", "a_b-c.d", "x" * 300]
EXTRAS = ["cuda", "test", "dev", "all", "Foo_Bar", "foo-bar", "FOO.BAR", "a.b", "x1", "cu12",
          "CUDA", "a", "a-", "a_", "_a", "1"]
WS = [" ", " ", " ", "\t", "  ", " \t "]
OPS = ["==", "==", ">=", ">=", "<", "<=", ">", "!=", "~=", "==="]
MARKER_OPS = ["==", "!=", "<", "<=", ">", ">=", "~=", "===", "in", "not in", "not in", "in"]
VARIABLES = ["python_version", "python_full_version", "os_name", "os.name", "sys_platform",
             "sys.platform", "platform_release", "platform_system", "platform_version",
             "platform.version", "platform_machine", "platform.machine",
             "platform_python_implementation", "platform.python_implementation",
             "python_implementation", "implementation_name", "implementation_version", "extra"]
BAD_VARIABLES = ["python_versions", "platform.release", "platform.system", "Python_version",
                 "os_name2", "implementation", "extras", "python-version", "sys_platform_"]
VERSION_VARIABLES = {"python_version", "python_full_version", "implementation_version",
                     "platform_release"}
VERSION_OPS = ["==", "!=", "<", "<=", ">", ">=", "~=", "===", "<", ">="]
STRING_OPS = ["==", "!=", "in", "not in", "==", "<"]
VALUES = {
    "python_version": ["3.8", "3.9", "3.10", "3.11", "3.12", "3", "3.11.2", "2.7", "3.*", "3.11.*",
                       "", "foo", "3.11a1", "1!3.11", "3.1", "v3.11", " 3.11 ", "3.11+local"],
    "python_full_version": ["3.11.2", "3.11.0rc1", "3.12.0a1", "3.8.10", "3.11.2+", "3.11", "3.*"],
    "os_name": ["posix", "nt", "java", "pos", "", "Posix"],
    "sys_platform": ["linux", "win32", "darwin", "cygwin", "linux2", "lin", "LINUX"],
    "platform_release": ["6.1.0-18-amd64", "5.15.0", "22.04", "10", "6.1"],
    "platform_system": ["Linux", "Windows", "Darwin", "Java"],
    "platform_version": ["#1 SMP PREEMPT_DYNAMIC Debian 6.1.76-1 (2024-02-01)", "10.0.19045",
                         "Darwin Kernel Version 23.1.0", "1.0"],
    "platform_machine": ["x86_64", "aarch64", "AMD64", "arm64", "ppc64le", "i686", "x86"],
    "platform_python_implementation": ["CPython", "PyPy", "Jython", "cpython"],
    "implementation_name": ["cpython", "pypy", "CPython"],
    "implementation_version": ["3.11.2", "7.3.12", "3.12.0b1", "3.11"],
    "extra": ["cuda", "test", "Foo_Bar", "foo-bar", "FOO.BAR", "", "a__b", "dev", "foo--bar", "x.y"],
}
ODD_VALUES = ["\\x41", "a\\nb", "\\t", "\\\\", "\\101", "\\8", "\\q", "\\x4", "\\u00e9", "\\U0001F600",
              "\\U00110000", "\\777", "\\0", "a\\", "\u00e9", "\u4e2d", "\u20ac", "\U0001f600",
              "'", '"', "posix'", 'a"b', "x" * 200, "3.11\u00e9", "\\x00", "\x01", "\x7f"]
SAFE_NON_ASCII = ["\u00e9", "\u4e2d", "\u20ac", "\U0001f600"]
MUTATION_CHARS = list("()[];,@'\"\\") + ["and", "or", "not", "in", " ", "\t"] + SAFE_NON_ASCII

PROFILES = [
    {"implementation_name": "cpython", "implementation_version": "3.11.2", "os_name": "posix",
     "platform_machine": "x86_64", "platform_python_implementation": "CPython",
     "platform_release": "6.1.0-18-amd64", "platform_system": "Linux",
     "platform_version": "#1 SMP PREEMPT_DYNAMIC Debian 6.1.76-1 (2024-02-01)",
     "python_full_version": "3.11.2", "python_version": "3.11", "sys_platform": "linux"},
    {"implementation_name": "cpython", "implementation_version": "3.8.10", "os_name": "nt",
     "platform_machine": "AMD64", "platform_python_implementation": "CPython",
     "platform_release": "10", "platform_system": "Windows", "platform_version": "10.0.19045",
     "python_full_version": "3.8.10", "python_version": "3.8", "sys_platform": "win32"},
    {"implementation_name": "cpython", "implementation_version": "3.12.0rc1", "os_name": "posix",
     "platform_machine": "arm64", "platform_python_implementation": "CPython",
     "platform_release": "23.1.0", "platform_system": "Darwin",
     "platform_version": "Darwin Kernel Version 23.1.0", "python_full_version": "3.12.0rc1",
     "python_version": "3.12", "sys_platform": "darwin"},
    {"implementation_name": "pypy", "implementation_version": "7.3.12", "os_name": "posix",
     "platform_machine": "aarch64", "platform_python_implementation": "PyPy",
     "platform_release": "5.15.0", "platform_system": "Linux", "platform_version": "#1 SMP",
     "python_full_version": "3.9.17", "python_version": "3.9", "sys_platform": "linux"},
]

EDGE_REQUIREMENTS = [
    "flash-attn==2.8.3", "flash_attn>=2.6,<2.9", "causal-conv1d>=1.4", "flash-attn", "flash-attn==",
    "flash-attn ==2.8.3", "flash-attn (==2.8.3)", "flash-attn ( >=2.6 , <2.9 )", "flash-attn(>=2.6",
    "flash-attn==2.8.3+cu12torch2.8cxx11abiTRUE", "flash-attn>=2.8.3+cu12", "flash-attn==2.8.*",
    "flash-attn>=2.8.*", "flash-attn~=2", "flash-attn~=2.8", "flash-attn===2.8.3", "flash-attn===",
    "flash-attn=== ; python_version>'3'", "flash-attn===a,b", "flash-attn===a,>=1", "name>=1.0,",
    "name>=1.0,,<2", "name>=1.0 <2", "name 1.0", "name=1.0", "name=>1.0", "name()", "name[]",
    "name[ ]", "name[a,b]", "name[a, b ,a]", "name[b,a]>=1", "name[a b]", "name[a,]", "name[,a]",
    "name[", "name[a", "name]", "name[a](>=1)", "name [a] (>=1) ; os_name=='posix'", "", " ", "\t",
    "name;", "name; ", "name; python_version <", "name; python_version", "name; python_version < '3",
    "name;python_version<'3.9'", "name ; python_version < '3.9' ", "name@http://x.com",
    "name @ http://x.com", "name @", "name @ ", "name @ http://x.com;os_name=='a'",
    "name @ http://x.com ; os_name=='a'", "name @ http://x.com ;os_name=='a' ", "name@ file:///x",
    "name @ file:/x", "name @ file:x", "name @ FILE:///x", "name @ file:///x?", "name @ file:///x#",
    "name @ file://host/x?q#f", "name @ x:y", "name @ //host/x", "name @ http://[::1]/x",
    "name @ http://[::1]:80/x", "name @ http://[1.2.3.4]/x", "name @ http://[::1]@h/x",
    "name @ http://[v1.x]/", "name @ http://[v1]/", "name @ http://[::1/x", "name @ http://::1]/x",
    "name @ http://[fe80::1%eth0]/x", "name @ http://[::ffff:1.2.3.4]/x", "name @ http://[1::2::3]/",
    "name @ https://h/\u00e9.whl", "name>=1 @ http://x.com", "name @ http://x.com >=1",
    "name; os_name == 'a' and", "name; (os_name == 'a'", "name; os_name == 'a')", "name; ()",
    "name; os_name = 'a'", "name; os_name <> 'a'", "name; os_name notin 'a'", "name; os_name not in'a'",
    "name; 'a' not  in os_name", "name; 'a' not\tin os_name", "name; os_name=='a'or os_name=='b'",
    "name; os_name=='a'and(os_name=='b')", "name; os_name == posix", "name; python_versio == '3'",
    "name; extra == 'Foo_Bar'", "name; os_name == 'a' and extra == 'Foo_Bar'",
    "name; python_version == extra", "name; extra == python_version", "name; extra == extra",
    "name; 'a' == 'b'", "name; '3' < 'python_version'", "name; 'x' == 'extra'",
    "name; os_name == 'x' and ((os_name == 'y' or os_name == 'z'))", "name; ((os_name == 'x'))",
    "name; os_name == '1.0'", "name; os_name === 'posix'", "name; python_version ~= '3'",
    "name; python_version === '3.11'", "name; python_version > '3' or 'a' == 'b'",
    "name; os_name == 'a\\x00'", "name; os_name == \"a'b\"", "name; os_name == 'a\"b'",
    "name; python_version AND os_name", "name; python_version >= '3' AND os_name == 'posix'",
    "name; implementation_name == 'cpython' and platform.python_implementation == 'CPython'",
    "name; " + "(" * 50 + "os_name == 'a'" + ")" * 50, "name; " + "(" * 600 + "os_name == 'a'" + ")" * 600,
    "name; " + " and ".join(["os_name == 'posix'"] * 300), "x" * 5000 + "==1.0", "name==" + "1." * 500 + "0",
]


def ws(rng, p=0.5):
    return rng.choice(WS) if rng.random() < p else ""


def rand_name(rng):
    if rng.random() < 0.7:
        return rng.choice(NAMES[:15] if rng.random() < 0.8 else NAMES)
    alnum = "abcxyzABCXYZ0189"
    out = rng.choice(alnum)
    for _ in range(rng.randint(0, 12)):
        out += rng.choice(alnum + "._-")
    if rng.random() < 0.8:
        out += rng.choice(alnum)
    return out


def rand_extras(rng):
    names = [rng.choice(EXTRAS) for _ in range(rng.choice([0, 1, 1, 2, 3]))]
    inner = ""
    for i, name in enumerate(names):
        inner += (ws(rng, 0.3) + "," + ws(rng, 0.3) if i else "") + name
    return "[" + ws(rng, 0.2) + inner + ws(rng, 0.2) + "]"


def rand_spec_version(rng, op):
    if op == "===":
        return rng.choice(["2.8.3", "foo", "1.0+ABC", "", "2.8.3+cu12torch2.8cxx11abiTRUE"])
    if op in ("==", "!=") and rng.random() < 0.25:
        return common.rand_version(rng, suffixes=False, local=False, spaces=False) + ".*"
    return common.rand_version(rng, local=op in ("==", "!=") or rng.random() < 0.05, spaces=False,
                               min_release=2 if op == "~=" else 1)


def rand_specifier(rng):
    specs = []
    for _ in range(rng.choice([1, 1, 1, 2, 2, 3])):
        op = rng.choice(OPS)
        inner_space = rng.choice(common.ASCII_SPACE) if rng.random() < 0.1 else ""
        specs.append(op + inner_space + rand_spec_version(rng, op))
    text = ""
    for i, spec in enumerate(specs):
        text += (ws(rng, 0.3) + "," + ws(rng, 0.3) if i else "") + spec
    if rng.random() < 0.05:
        text += ","
    if rng.random() < 0.2:
        return "(" + ws(rng, 0.3) + text + ws(rng, 0.3) + ")"
    return text


GOOD_URLS = [
    "https://github.com/Dao-AILab/flash-attention/releases/download/v2.8.3/flash_attn-2.8.3+cu12"
    "torch2.8cxx11abiTRUE-cp311-cp311-linux_x86_64.whl",
    "https://example.com/x.whl", "http://localhost:8000/simple/flash-attn/", "file:///tmp/x.whl",
    "file://localhost/tmp/x.whl", "git+https://github.com/Dao-AILab/flash-attention.git@v2.8.3",
    "https://h/%2B.whl#sha256=00ff", "http://[::1]:8080/x.whl", "https://user:pw@host/x?y=1",
]


def rand_url(rng):
    if rng.random() < 0.5:
        return rng.choice(GOOD_URLS)
    scheme = rng.choice(["https", "https", "http", "file", "git+https", "HTTPS", "ftp", "", "x", "1x"])
    sep = rng.choice(["://", "://", "://", ":", ":/", ""])
    host = rng.choice(["github.com", "example.com:8080", "[::1]", "[::1]:80", "[2001:db8::1]",
                       "[1.2.3.4]", "[v1.fe]", "[::ffff:1.2.3.4]", "user:pw@host", "[::1", "host]",
                       "localhost", "", "[fe80::1%eth0]", "[::1]x", "[1:2:3:4:5:6:7:8]",
                       "[1:2:3:4:5:6:7:8:9]", "[::]", "[:1]", "[1::]", "[01.2.3.4]", "h\u00e9"])
    path = rng.choice(["/x.whl", "/releases/download/v2.8.3/flash_attn-2.8.3+cu12torch2.8cxx11abi"
                       "TRUE-cp311-cp311-linux_x86_64.whl", "", "/", "/a;b", "/\u00e9/\u00fc.whl",
                       "/p?q=1#frag", "?x", "#y", "/%2B", "/x.git@v2.8.3#egg=flash-attn", "//x"])
    return scheme + sep + host + path


def rand_value(rng, variable=None):
    r = rng.random()
    if variable and r < 0.7:
        value = rng.choice(VALUES[variable])
    elif r < 0.85:
        value = rng.choice(ODD_VALUES)
    else:
        value = common.rand_version(rng, spaces=False)
    quote = rng.choice("'\"")
    if quote in value and rng.random() < 0.8:
        quote = "'" if quote == '"' else '"'
    return quote + value + quote


def rand_comparison(rng):
    spelling = rng.choice(VARIABLES) if rng.random() < 0.97 else rng.choice(BAD_VARIABLES)
    variable = spelling.replace(".", "_")
    variable = {"python_implementation": "platform_python_implementation"}.get(variable, variable)
    variable = variable if variable in VALUES else None
    r = rng.random()
    if variable in VERSION_VARIABLES and r < 0.8:
        op = rng.choice(VERSION_OPS)
    elif variable and r < 0.8:
        op = rng.choice(STRING_OPS)
    else:
        op = rng.choice(MARKER_OPS)
    if op == "not in" and rng.random() < 0.1:
        op = rng.choice(["not\tin", "not  in", "notin", "not"])
    left, right = spelling, rand_value(rng, variable)
    r = rng.random()
    if r < 0.15:
        left, right = right, left
    elif r < 0.2:
        left = rand_value(rng, variable)
    elif r < 0.25:
        right = rng.choice(VARIABLES)
    # Words next to words need space between them, most of the time.
    p = 0.97 if op[0].isalpha() else 0.8
    return left + ws(rng, p) + op + ws(rng, p) + right


def rand_marker(rng, depth=0):
    atoms = []
    for _ in range(rng.choice([1, 1, 1, 2, 2, 3, 4])):
        if depth < 4 and rng.random() < 0.2:
            atoms.append("(" + ws(rng, 0.2) + rand_marker(rng, depth + 1) + ws(rng, 0.2) + ")")
        else:
            atoms.append(rand_comparison(rng))
    text = atoms[0]
    for atom in atoms[1:]:
        text += rng.choice([" ", " ", " ", "", "  ", "\t"]) + rng.choice(["and", "or"]) + \
            rng.choice([" ", " ", " ", "", "  ", "\t"]) + atom
    return text


def rand_requirement(rng):
    out = ws(rng, 0.1) + rand_name(rng)
    if rng.random() < 0.25:
        out += ws(rng, 0.2) + rand_extras(rng)
    r = rng.random()
    has_url = r < 0.2
    if has_url:
        out += ws(rng, 0.7) + "@" + ws(rng, 0.9) + rand_url(rng)
    elif r < 0.75:
        out += ws(rng, 0.3) + rand_specifier(rng)
    if rng.random() < 0.45:
        out += (rng.choice(WS) if has_url else ws(rng, 0.5)) + ";" + ws(rng, 0.7) + rand_marker(rng)
    return out + ws(rng, 0.1)


SOUP_MARKER = VARIABLES + ["and", "or", "not", "in", "(", ")", "'3.9'", '"posix"', "'linux'", "==",
                         "<", ">=", "~=", "===", "!=", "'3.11.*'", "'a\\x41'", "'Foo_Bar'", " ",
                         " ", "\t", "", "'3.*'", "'\\u00e9'", "'"]
SOUP_SPECIFIER = list("0123456789" * 3 + ".*+!vV-_abcdeilnoprstvwxyzABCDEPRV" + "==<>~! ,;()\t\x0b\x1c")


def rand_token_soup(rng):
    """Tokens in random order: where the tokenizer's regex quirks show."""
    if rng.random() < 0.5:
        sep = rng.choice([" ", "", " "])
        return "name;" + sep.join(rng.choice(SOUP_MARKER) for _ in range(rng.randint(1, 14)))
    soup = "".join(rng.choice(SOUP_SPECIFIER) for _ in range(rng.randint(1, 25)))
    if rng.random() < 0.7:
        soup = rng.choice(["==", ">=", "~=", "!=", "<", "===", "<=", ">"]) + soup
    return "name" + rng.choice(["", " ", "(", " ("]) + soup


def rand_env(rng):
    env = dict(rng.choice(PROFILES))
    for key in list(env):
        r = rng.random()
        if r < 0.02:
            del env[key]
        elif r < 0.06:
            env[key] = rng.choice(VALUES.get(key, ["x"]) + ["", "foo", "3.11+local", "\u00e9",
                                                             "3.11 ", "\\x41", "a'b"])
    r = rng.random()
    if r < 0.5:
        env["extra"] = rng.choice(VALUES["extra"] + ["\u00e9", "Caf\u00e9"])
    return env
