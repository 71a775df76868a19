#!/usr/bin/env bash
# The layering gate (issue 14): src/cli/*.cpp include headers of install/,
# build/ and resolve/ only as tests/style/cli_layering.allow lists them; the
# workflow layer is how cli reaches them. Fails naming each include not in the
# list, and each entry of the list no file has any more.
# Usage: layering_check.sh SOURCE_DIR [ALLOW_FILE]
#        layering_check.sh --self-test   (the check fails and passes when it should)
set -euo pipefail

check() {
  local src=$1 allow=$2 found listed status=0
  found=$(cd "$src" && grep -HoE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"(install|build|resolve)/[^"]+"' \
    src/cli/*.cpp 2>/dev/null | sed -E 's|^src/(cli/[^:]+):.*"([^"]+)"$|\1 \2|' | sort -u || true)
  listed=$(sed -e 's/#.*//' "$allow" | awk 'NF { print $1, $2 }' | sort -u)
  local extra stale
  extra=$(comm -23 <(printf '%s\n' "$found") <(printf '%s\n' "$listed") | sed '/^$/d')
  stale=$(comm -13 <(printf '%s\n' "$found") <(printf '%s\n' "$listed") | sed '/^$/d')
  if [[ -n $extra ]]; then
    echo "layering_check: cli includes a lower layer's header outside $allow"
    echo "(call a workflow/ entry point instead, or list it there with the reason):"
    sed 's/^/  /' <<<"$extra"
    status=1
  fi
  if [[ -n $stale ]]; then
    echo "layering_check: $allow lists includes no cli file has (remove them):"
    sed 's/^/  /' <<<"$stale"
    status=1
  fi
  return $status
}

self_test() {
  local tmp
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' RETURN
  mkdir -p "$tmp/src/cli"
  printf '#include "workflow/install_package.hpp"\n' >"$tmp/src/cli/ok.cpp"
  printf '#include "install/install.hpp"\n  #include "build/build.hpp"\n' >"$tmp/src/cli/bad.cpp"
  : >"$tmp/allow"
  if check "$tmp" "$tmp/allow" >/dev/null; then
    echo "self-test: an unlisted install/ include passed" >&2
    return 1
  fi
  printf 'cli/bad.cpp install/install.hpp   the reason\n' >"$tmp/allow"
  if check "$tmp" "$tmp/allow" >/dev/null; then
    echo "self-test: an indented build/ include passed" >&2
    return 1
  fi
  printf '# why\ncli/bad.cpp install/install.hpp   why\ncli/bad.cpp build/build.hpp  why\n' \
    >"$tmp/allow"
  check "$tmp" "$tmp/allow" >/dev/null || {
    echo "self-test: a listed include failed" >&2
    return 1
  }
  printf 'cli/bad.cpp install/install.hpp x\ncli/bad.cpp build/build.hpp x\n' >"$tmp/allow"
  printf 'cli/gone.cpp resolve/target.hpp x\n' >>"$tmp/allow"
  if check "$tmp" "$tmp/allow" >/dev/null; then
    echo "self-test: a stale entry passed" >&2
    return 1
  fi
  echo "layering_check: self-test passed"
}

if [[ ${1:-} == --self-test ]]; then
  self_test
  exit
fi
src=$1
allow=${2:-$src/tests/style/cli_layering.allow}
check "$src" "$allow"
echo "layering_check: cli/*.cpp reach install/, build/ and resolve/ only as $allow lists"
