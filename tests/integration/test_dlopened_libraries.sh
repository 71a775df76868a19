#!/usr/bin/env bash
# The libraries flashfit loads only when a command needs them (the process
# floor, bench/README.md): libcurl, libzip and libcrypto are no NEEDED entry
# of the binary (nor libstdc++, linked statically, nor fmt's and toml++'s
# shared libraries), yet reading a wheel and hashing work; a library that
# cannot be used is a clear error naming the package to install (a stand-in
# library without the functions, first on LD_LIBRARY_PATH), never an
# internal error.
# shellcheck source=tests/integration/lib.sh
source "$(dirname "$0")/lib.sh"

SANITIZED=0
nm -D "$FLASHFIT" 2>/dev/null | grep -q ' __asan_init' && SANITIZED=1

needed=$(readelf -d "$FLASHFIT" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')
for lib in libcurl libzip libcrypto libfmt libtomlplusplus; do
  [[ $needed != *"$lib."* ]] || fail "$lib is a NEEDED entry again (loaded at every start): $needed"
done
if ((!SANITIZED)); then
  [[ $needed != *libstdc++* ]] || fail "libstdc++ is loaded at every start again: $needed"
fi
pass_note "loaded at start: $needed"

WHEEL=$TMP/demo_pkg-1.0-py3-none-any.whl
"$TEST_PYTHON" - "$WHEEL" <<'PY'
import base64, hashlib, sys, zipfile
files = {
    "demo_pkg/__init__.py": b"x = 1\n",
    "demo_pkg-1.0.dist-info/METADATA": b"Metadata-Version: 2.1\nName: demo-pkg\nVersion: 1.0\n",
    "demo_pkg-1.0.dist-info/WHEEL": b"Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
}
record = ""
with zipfile.ZipFile(sys.argv[1], "w") as z:
    for name, data in files.items():
        z.writestr(name, data)
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record += f"{name},sha256={digest},{len(data)}\n"
    z.writestr("demo_pkg-1.0.dist-info/RECORD", record + "demo_pkg-1.0.dist-info/RECORD,,\n")
PY

# Loaded at first use: a wheel is read and hashed.
ff inspect "$WHEEL" --python "$TEST_PYTHON"
expect_rc 0 "inspect with libzip and libcrypto loaded on demand"
expect_out_contains "WHEEL and METADATA agree"
ff cache add "$WHEEL" --json
expect_rc 0 "cache add (hashes the wheel)"
[[ $(json_field "$TMP/out" 'd["sha256"]') == "$(sha256sum "$WHEEL" | cut -d' ' -f1)" ]] ||
  fail "cache add hashed otherwise than sha256sum: $(cat "$TMP/out")"

# Stand-ins without the functions, found before the system's.
echo 'int flashfit_stand_in;' >"$TMP/stand_in.c"
for soname in libzip.so.4 libcrypto.so.3; do
  mkdir -p "$TMP/$soname"
  cc -shared -fPIC -o "$TMP/$soname/$soname" "$TMP/stand_in.c" || fail "cannot build a stand-in $soname"
done
capture env LD_LIBRARY_PATH="$TMP/libzip.so.4" "$FLASHFIT" inspect "$WHEEL" --python "$TEST_PYTHON"
expect_rc 1 "inspect without a usable libzip"
expect_err_contains "cannot read wheels: libzip.so.4 has no zip_open"
expect_err_contains "apt install libzip4"
expect_err_lacks "internal error"
rm -rf "$FLASHFIT_CACHE_DIR"
capture env LD_LIBRARY_PATH="$TMP/libcrypto.so.3" "$FLASHFIT" cache add "$WHEEL"
expect_rc 1 "cache add without a usable libcrypto"
expect_err_contains "cannot compute SHA-256: libcrypto.so.3 has no EVP_MD_CTX_new"
expect_err_contains "apt install libssl3"
expect_err_lacks "internal error"
pass_note "wheels read and hashed on demand; a libzip or libcrypto without its functions is an error naming the package"
