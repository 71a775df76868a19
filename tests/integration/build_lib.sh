# shellcheck shell=bash disable=SC2034
# Shared by test_build*.sh (sourced after lib.sh): the test package
# (tests/fixtures/build_pkg, a torch extension built like flash-attn) as a
# source tree, an sdist and a PEP 503 index entry.

BUILD_PKG="$SOURCE_DIR/tests/fixtures/build_pkg"

# make_sdist VERSION DIR: DIR/ffbuild-VERSION.tar.gz, with PKG-INFO as an sdist has.
make_sdist() {
  local version=$1 dir=$2 stage
  stage=$(mktemp -d "$TMP/sdist.XXXXXX")
  cp -r "$BUILD_PKG" "$stage/ffbuild-$version"
  printf 'Metadata-Version: 2.1\nName: ffbuild\nVersion: %s\nSummary: flashfit test fixture\n' "$version" \
    >"$stage/ffbuild-$version/PKG-INFO"
  # setup.py reads the version from the environment; an sdist carries its own.
  sed -i "s/os.environ.get(\"FFBUILD_VERSION\", \"1.0.0\")/os.environ.get(\"FFBUILD_VERSION\", \"$version\")/" \
    "$stage/ffbuild-$version/setup.py"
  mkdir -p "$dir"
  tar -czf "$dir/ffbuild-$version.tar.gz" -C "$stage" "ffbuild-$version"
  rm -rf "$stage"
}

# make_sdist_index WWW VERSION...: WWW/simple/ffbuild/index.html linking the sdists (with #sha256).
make_sdist_index() {
  local www=$1 v sha
  shift
  mkdir -p "$www/files" "$www/simple/ffbuild"
  {
    echo "<!DOCTYPE html><html><body>"
    for v in "$@"; do
      make_sdist "$v" "$www/files"
      sha=$(sha256sum "$www/files/ffbuild-$v.tar.gz" | cut -d' ' -f1)
      echo "<a href=\"../../files/ffbuild-$v.tar.gz#sha256=$sha\">ffbuild-$v.tar.gz</a>"
    done
    echo "</body></html>"
  } >"$www/simple/ffbuild/index.html"
}

new_venv() {
  rm -rf "$TMP/venv"
  "$TEST_PYTHON" -m venv --system-site-packages "$TMP/venv" || fail "cannot create a venv"
  PY=$TMP/venv/bin/python
}

# Processes of a build under this test's cache dir (their command lines name its temp dir).
build_processes() {
  local file pids=()
  for file in /proc/[0-9]*/cmdline; do
    if tr '\0' ' ' <"$file" 2>/dev/null | grep -q -- "$FLASHFIT_CACHE_DIR/tmp/build-"; then
      pids+=("$(basename "$(dirname "$file")")")
    fi
  done
  ((${#pids[@]} == 0)) || printf '%s ' "${pids[@]}"
}
