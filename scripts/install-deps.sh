#!/usr/bin/env bash
# Installs every Debian package flashfit's build, tests and benchmarks need,
# then what the tests need from PyPI and npm. This is the only place that
# lists them. Idempotent: packages already present are skipped, so a second
# run costs only the dpkg query.
#
#   scripts/install-deps.sh           everything (the README's test command)
#   scripts/install-deps.sh --build   only what building and running the
#                                     flashfit binary needs (the README's main
#                                     job: configure with -DFLASHFIT_TESTS=OFF
#                                     -DFLASHFIT_BENCH=OFF)
set -euo pipefail

build_only=0
case ${1:-} in
  "") ;;
  --build) build_only=1 ;;
  -h | --help)
    sed -n '2,11p' "$0"
    exit 0
    ;;
  *)
    echo "install-deps: unknown argument '$1' (give --build, or nothing for everything)" >&2
    exit 2
    ;;
esac

build_packages=(
  # toolchain
  build-essential cmake ninja-build pkg-config git
  # C++ libraries (see docs/background.md §22)
  libfmt-dev libexpected-dev libcli11-dev nlohmann-json3-dev libelf-dev
  libzip-dev libssl-dev liblz4-dev libzstd-dev libtomlplusplus-dev libcurl4-openssl-dev libarchive-dev
  # the runtime fallback's wheel is written at build time by a standard-library script
  python3
)
test_packages=(
  # tests and benchmarks
  libgtest-dev libgmock-dev libbenchmark-dev
  # the fuzz harnesses and the sanitized build (tests/fuzz, tests/sanitize): clang 14 with
  # libFuzzer and the sanitizer runtimes
  clang libclang-rt-14-dev
  # the style gates: format_check (tests/style) and scripts/tidy.sh
  clang-format clang-tidy
  # integration.crash_build's repeated builds of the test extension compile through ccache
  ccache
  # the inspect benchmark compares with unzip and reads peak RSS through time(1)
  unzip time binutils
  # the Python side: interpreters and oracles the tests run against
  python3-pip python3-venv python3-setuptools python3-wheel python3-packaging
  # the runtime fallback's tests on Debian's torch 1.13 (tests/python)
  python3-pytest python3-hypothesis
  # a real torch and libtorch to probe and build against (CPU, C++11 ABI = 1)
  python3-torch libtorch-dev
  # torch's extension headers include pybind11 (tests/fixtures/torch_ext)
  pybind11-dev
  # the package test (tests/package): dpkg-shlibdeps, man pages read with man -l,
  # and the shells whose completion scripts are checked
  dpkg-dev man-db groff-base zsh fish
  # flashfit publish's tests serve the published tree over HTTP (tests/integration/test_publish.sh)
  nginx-light
)
packages=("${build_packages[@]}")
((build_only)) || packages+=("${test_packages[@]}")

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
else
  echo "install-deps: installing ${missing[*]}"
  sudo_cmd=()
  if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi
  export DEBIAN_FRONTEND=noninteractive
  "${sudo_cmd[@]}" apt-get update -q
  "${sudo_cmd[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

((build_only)) && exit 0

# What the tests need from PyPI, each in its own project-local venv (scripts/pydeps/README.md).
for script in "$(dirname "$0")"/pydeps/*.sh; do
  [ -e "$script" ] || continue
  "$script"
done

# What the tests need from npm (pinned, into the git-ignored .npmdeps/): s3rver for publish --to s3://.
for script in "$(dirname "$0")"/npm/*.sh; do
  [ -e "$script" ] || continue
  "$script"
done
