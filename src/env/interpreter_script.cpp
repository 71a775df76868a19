#include "env/interpreter_script.hpp"

namespace flashfit::env {

// Each fact mirrors what pip (packaging 21.3) or PEP 508 reads, so the tag
// list and marker values computed from them match pip's own.
const char* const interpreter_script = R"PY(
import sys
# `-c` puts the working directory first on sys.path; flashfit runs a
# launcher in the caller's (it picks its interpreter by it), and a project's
# json.py or _manylinux.py must not stand in for what is imported below.
if sys.path and sys.path[0] == "":
    del sys.path[0]
import importlib.machinery, json, os, platform, site, struct, subprocess, sys, sysconfig

facts = {"script_version": 3}

def fact(name, compute):
    try:
        facts[name] = compute()
    except Exception:
        facts[name] = None

def config_var(name):
    value = sysconfig.get_config_var(name)
    return value if value is None or isinstance(value, (int, str)) else str(value)

fact("executable", lambda: sys.executable)
fact("realpath", lambda: os.path.realpath(sys.executable))
fact("implementation", lambda: sys.implementation.name)
fact("version_info", lambda: list(sys.version_info[:3]) + [sys.version_info[3], sys.version_info[4]])
fact("version", lambda: sys.version)
fact("abiflags", lambda: getattr(sys, "abiflags", None))
fact("config_vars", lambda: {n: config_var(n) for n in (
    "py_version_nodot", "Py_DEBUG", "WITH_PYMALLOC", "Py_UNICODE_SIZE", "Py_GIL_DISABLED",
    "SOABI", "EXT_SUFFIX", "MULTIARCH")})
fact("has_gettotalrefcount", lambda: hasattr(sys, "gettotalrefcount"))
fact("extension_suffixes", lambda: list(importlib.machinery.EXTENSION_SUFFIXES))
fact("maxunicode", lambda: sys.maxunicode)
fact("is_32bit", lambda: sys.maxsize <= 2 ** 32)
fact("sysconfig_platform", lambda: sysconfig.get_platform())
fact("prefix", lambda: sys.prefix)
fact("base_prefix", lambda: getattr(sys, "base_prefix", sys.prefix))
fact("paths", lambda: {k: v for k, v in sysconfig.get_paths().items()
                       if k in ("purelib", "platlib", "include", "scripts")})
# Where installed distributions live, in import order (torch, pip, flash_attn).
fact("site_dirs", lambda: [p for p in sys.path if p and os.path.basename(p) in
                           ("site-packages", "dist-packages") and os.path.isdir(p)])
# The user site is on sys.path only if it existed when Python started: flashfit
# places it by whether it exists when the answer is used (a cached answer
# outlives `pip install --user` creating it).
fact("user_site", lambda: {"enabled": site.ENABLE_USER_SITE is True,
                           "path": site.getusersitepackages()})

def glibc():
    try:
        text = os.confstr("CS_GNU_LIBC_VERSION")
        if text:
            return text.split()[1]
    except (AttributeError, OSError, ValueError):
        pass
    import ctypes
    try:
        fn = ctypes.CDLL(None).gnu_get_libc_version
    except (OSError, AttributeError):
        return None
    fn.restype = ctypes.c_char_p
    return fn().decode("ascii")
fact("glibc", glibc)

def elf_header():
    with open(sys.executable, "rb") as f:
        return f.read(64)

def program_interpreter():
    # PT_INTERP of sys.executable, the way packaging finds the musl loader.
    with open(sys.executable, "rb") as f:
        ident = f.read(16)
        if ident[:4] != b"\x7fELF" or ident[4] not in (1, 2):
            return None
        is64 = ident[4] == 2
        f.seek(32 if is64 else 28)
        phoff = struct.unpack("Q" if is64 else "I", f.read(8 if is64 else 4))[0]
        f.seek(54 if is64 else 42)
        phentsize, phnum = struct.unpack("HH", f.read(4))
        for i in range(phnum):
            f.seek(phoff + i * phentsize)
            entry = f.read(phentsize)
            if struct.unpack_from("I", entry, 0)[0] != 3:
                continue
            if is64:
                offset, size = struct.unpack_from("Q", entry, 8)[0], struct.unpack_from("Q", entry, 32)[0]
            else:
                offset, size = struct.unpack_from("I", entry, 4)[0], struct.unpack_from("I", entry, 16)[0]
            f.seek(offset)
            return f.read(size).strip(b"\0").decode()
    return None

def musl():
    ld = program_interpreter()
    if not ld or "musl" not in ld:
        return None
    run = subprocess.run([ld], stderr=subprocess.PIPE, universal_newlines=True, timeout=10)
    lines = [l.strip() for l in run.stderr.splitlines() if l.strip()]
    if len(lines) < 2 or not lines[0].startswith("musl") or not lines[1].startswith("Version "):
        return None
    return lines[1].split()[1]
fact("musl", musl)

def elf_flags():
    h = elf_header()
    if len(h) < 52 or h[:4] != b"\x7fELF" or h[4] != 1 or h[5] != 1:
        return {"armhf": False, "i686": False}
    machine = struct.unpack_from("<H", h, 18)[0]
    flags = struct.unpack_from("<I", h, 36)[0]
    return {"armhf": machine == 40 and flags & 0xFF000000 == 0x05000000 and flags & 0x400 == 0x400,
            "i686": machine == 3}
fact("elf", elf_flags)

def manylinux_vetoes():
    try:
        import _manylinux
    except ImportError:
        return []
    text = facts.get("glibc") or ""
    parts = text.split(".")
    if len(parts) < 2:
        return []
    major, minor = int(parts[0]), int("".join(c for c in parts[1] if c.isdigit()) or 0)
    arch = sysconfig.get_platform().replace(".", "_").replace("-", "_")
    if facts.get("is_32bit"):
        arch = {"linux_x86_64": "linux_i686", "linux_aarch64": "linux_armv7l"}.get(arch, arch)
    arch = arch.split("_", 1)[1] if "_" in arch else arch
    versions = [(major, m) for m in range(minor, -1, -1)]
    versions += [(k, m) for k in range(major - 1, 1, -1) for m in range(50, -1, -1)]
    vetoed = []
    if hasattr(_manylinux, "manylinux_compatible"):
        for v in versions:
            answer = _manylinux.manylinux_compatible(v[0], v[1], arch)
            if answer is not None and not answer:
                vetoed.append(list(v))
    else:
        for v, attr in (((2, 5), "manylinux1_compatible"), ((2, 12), "manylinux2010_compatible"),
                        ((2, 17), "manylinux2014_compatible")):
            if hasattr(_manylinux, attr) and not getattr(_manylinux, attr):
                vetoed.append(list(v))
    return vetoed
fact("manylinux_vetoed", manylinux_vetoes)

def markers():
    impl = sys.implementation
    iv = impl.version
    impl_version = "{}.{}.{}".format(iv.major, iv.minor, iv.micro)
    if iv.releaselevel != "final":
        impl_version += iv.releaselevel[0] + str(iv.serial)
    return {
        "implementation_name": impl.name,
        "implementation_version": impl_version,
        "os_name": os.name,
        "platform_machine": platform.machine(),
        "platform_python_implementation": platform.python_implementation(),
        "platform_release": platform.release(),
        "platform_system": platform.system(),
        "platform_version": platform.version(),
        "python_full_version": platform.python_version(),
        "python_version": ".".join(platform.python_version_tuple()[:2]),
        "sys_platform": sys.platform,
    }
fact("markers", markers)

sys.stdout.write(json.dumps(facts))
)PY";

}  // namespace flashfit::env
