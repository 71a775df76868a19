#!/usr/bin/env bash
# The Debian package: cpack builds flashfit_<version>_<arch>.deb from the
# build tree; its Depends (computed by dpkg-shlibdeps) must name the package
# of every library the binary links, apt must accept it on this system, and
# the binary, man pages and bash completion it unpacks must work from there.
#   test_deb.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
BUILD_DIR=$(realpath "${1:?usage: $0 BUILD_DIR SOURCE_DIR}")
SOURCE_DIR=$(realpath "${2:?usage: $0 BUILD_DIR SOURCE_DIR}")
TMP=$(mktemp -d "${TMPDIR:-/tmp}/flashfit-package.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
fail() { printf 'FAIL [package.deb]: %s\n' "$*" >&2; exit 1; }
pass_note() { printf 'ok   [package.deb]: %s\n' "$*"; }
export MANWIDTH=100 LC_ALL=C.UTF-8

VERSION=$(sed -n 's/^project(flashfit VERSION \([0-9][0-9.]*\).*/\1/p' "$SOURCE_DIR/CMakeLists.txt")
[[ -f $BUILD_DIR/share/generated.stamp ]] ||
  fail "no man pages or completions in $BUILD_DIR/share: build everything first (cmake --build $BUILD_DIR)"

# --- cmake --install: the same files under any prefix ------------------------------
cmake --install "$BUILD_DIR" --prefix "$TMP/prefix" >"$TMP/install.log" 2>&1 ||
  fail "cmake --install failed: $(tail -n 10 "$TMP/install.log")"
for path in bin/flashfit share/man/man1/flashfit.1.gz share/man/man1/flashfit-cache-list.1.gz \
  share/bash-completion/completions/flashfit share/zsh/vendor-completions/_flashfit \
  share/fish/vendor_completions.d/flashfit.fish; do
  [[ -f $TMP/prefix/$path ]] || fail "cmake --install put no $path under the prefix"
done
[[ $("$TMP/prefix/bin/flashfit" -V) == "flashfit $VERSION" ]] || fail "the installed binary's -V is wrong"
pass_note "cmake --install --prefix puts the binary, man pages and completions in place"

# --- build it -------------------------------------------------------------------
cpack --config "$BUILD_DIR/CPackConfig.cmake" -B "$TMP/out" >"$TMP/cpack.log" 2>&1 ||
  fail "cpack failed: $(tail -n 20 "$TMP/cpack.log")"
debs=("$TMP"/out/flashfit_*.deb)
[[ ${#debs[@]} == 1 && -f ${debs[0]} ]] || fail "expected one flashfit_*.deb, got: $(ls "$TMP/out")"
deb=${debs[0]}
arch=$(dpkg --print-architecture)
[[ $(basename "$deb") == "flashfit_${VERSION}_${arch}.deb" ]] || fail "unexpected file name $(basename "$deb")"
[[ $(dpkg-deb -f "$deb" Package) == flashfit ]] || fail "Package is not flashfit"
[[ $(dpkg-deb -f "$deb" Version) == "$VERSION" ]] || fail "Version is not $VERSION"
pass_note "cpack wrote $(basename "$deb") ($(du -k "$deb" | cut -f1) KiB)"

# --- Depends: one package per linked library, as dpkg-shlibdeps computed ------
depends=$(dpkg-deb -f "$deb" Depends)
[[ -n $depends ]] || fail "the package has no Depends (shlibdeps did not run)"
dpkg-deb -x "$deb" "$TMP/root"
binary=$TMP/root/usr/bin/flashfit
[[ -x $binary ]] || fail "no /usr/bin/flashfit in the package"
# Every NEEDED library, resolved as the loader does, belongs to a package that Depends names.
needed=$(readelf -d "$binary" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
[[ -n $needed ]] || fail "readelf finds no NEEDED entries in the packaged binary"
ldd "$binary" >"$TMP/ldd" || fail "ldd cannot read the packaged binary"
for name in $needed; do
  path=$(sed -n "s/^[[:space:]]*${name//./\\.} => \(\/[^ ]*\) .*/\1/p" "$TMP/ldd")
  # The dynamic loader itself (NEEDED once libgcc's unwinder is linked in
  # statically: it calls _dl_find_object) is listed by its path alone.
  [[ -n $path ]] || path=$(sed -n "s/^[[:space:]]*\(\/[^ ]*\/${name//./\\.}\) (.*/\1/p" "$TMP/ldd")
  [[ -n $path ]] || fail "the loader does not find $name for the packaged binary"
  owner=""
  for candidate in "$path" "$(realpath "$path")" "${path#/usr}" "/usr${path}"; do
    owner=$(dpkg -S "$candidate" 2>/dev/null | head -n 1 | cut -d: -f1) && [[ -n $owner ]] && break
  done
  [[ -n $owner ]] || fail "no Debian package owns $path"
  grep -qE "(^|, )${owner//+/\\+}( |,|$)" <<<"$depends" ||
    fail "Depends lacks $owner (for $path): $depends"
done
grep -qE '(^|, )libc6 \(>= [0-9.]+\)' <<<"$depends" || fail "Depends lacks a versioned libc6: $depends"
# libcurl, libzip and libcrypto are dlopened at their first use
# (src/net/curl_common.cpp, src/binary/zip_library.cpp, src/util/sha256.cpp),
# so no NEEDED entry names them and shlibdeps cannot see them: they must be
# named anyway, each the package of the soname the code opens.
for dlopened in libcurl.so.4:libcurl4 libzip.so.4:libzip4 libcrypto.so.3:libssl3; do
  soname=${dlopened%%:*} package=${dlopened#*:}
  grep -qF "\"$soname\"" "$SOURCE_DIR"/src/*/*.cpp || fail "no source dlopens $soname any more: update this list"
  if readelf -d "$binary" 2>/dev/null | grep -qF "NEEDED) Shared library: [$soname]"; then continue; fi
  grep -qE "(^|, )${package}(t64)? \\(>= [0-9.]+\\)" <<<"$depends" ||
    fail "Depends lacks $package, whose $soname the binary dlopens: $depends"
done
pass_note "Depends names the package of each of $(wc -w <<<"$needed") linked libraries: $depends"

# apt accepts it here: every dependency resolvable (simulated; nothing changes).
apt-get install --simulate --no-install-recommends "$deb" >"$TMP/apt.log" 2>&1 ||
  fail "apt-get install --simulate refused it: $(tail -n 10 "$TMP/apt.log")"
grep -qE '^Inst flashfit ' "$TMP/apt.log" || fail "apt would not install flashfit: $(tail -n 10 "$TMP/apt.log")"
pass_note "apt-get install --simulate ./$(basename "$deb") resolves every dependency"

# --- contents: under /usr, owned by root ------------------------------------------
dpkg-deb -c "$deb" >"$TMP/contents"
! awk '$2 != "root/root"' "$TMP/contents" | grep -q . ||
  fail "files not owned by root: $(awk '$2 != "root/root"' "$TMP/contents" | head -n 3)"
! awk 'substr($1, 6, 1) == "w" || substr($1, 9, 1) == "w"' "$TMP/contents" | grep -q . ||
  fail "group- or world-writable files in the package"
! awk '{print $6}' "$TMP/contents" | grep -vE '^\./(usr/?.*)?$' | grep -q . || fail "files outside /usr"
for path in usr/share/man/man1/flashfit.1.gz usr/share/man/man1/flashfit-resolve.1.gz \
  usr/share/bash-completion/completions/flashfit usr/share/zsh/vendor-completions/_flashfit \
  usr/share/fish/vendor_completions.d/flashfit.fish; do
  [[ -f $TMP/root/$path ]] || fail "the package lacks /$path"
done
! readelf -S "$binary" | grep -qE '\.(symtab|debug_info) ' || fail "the binary is not stripped"
pass_note "binary (stripped), man pages and completions under /usr, owned by root"

# --- the unpacked binary, pages and completion work -----------------------------------
[[ $("$binary" --version) == "flashfit $VERSION" ]] || fail "installed flashfit --version: $("$binary" --version)"
FLASHFIT_CACHE_DIR=$TMP/cache timeout 60 "$binary" doctor --python /usr/bin/python3 >"$TMP/doctor" 2>"$TMP/doctor.err" ||
  fail "installed flashfit doctor failed: $(cat "$TMP/doctor.err")"
grep -q '^findings' "$TMP/doctor" || fail "installed doctor printed no findings: $(head "$TMP/doctor")"
grep -q '^  flash-attn: ' "$TMP/doctor" || fail "installed doctor gave no answer line for flash-attn: $(tail "$TMP/doctor")"
pages=0
for page in "$TMP"/root/usr/share/man/man1/*.1.gz; do
  man --warnings -l "$page" >"$TMP/page" 2>"$TMP/page.err" || fail "man -l $(basename "$page") failed"
  [[ ! -s $TMP/page.err ]] || fail "man -l $(basename "$page") warns: $(head -n 3 "$TMP/page.err")"
  pages=$((pages + 1))
done
((pages >= 10)) || fail "only $pages man pages"
got=$(bash --norc --noprofile -c '
  source "$1"; COMP_WORDS=(flashfit resolve --gpu RTX-409); COMP_CWORD=3; _flashfit; echo "${COMPREPLY[*]}"' \
  _ "$TMP/root/usr/share/bash-completion/completions/flashfit")
[[ $got == RTX-4090 ]] || fail "the installed bash completion offers '$got' for --gpu RTX-409"
pass_note "installed flashfit --version, doctor, man -l on $pages pages and bash completion work"
