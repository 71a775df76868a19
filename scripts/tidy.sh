#!/usr/bin/env bash
# clang-tidy with the repository's .clang-tidy over flashfit's sources, in
# parallel; every finding fails the run (warnings as errors). Not a ctest: over
# all of src/ it takes far longer than a test should (docs/testing.md).
#
#   scripts/tidy.sh [-p BUILD_DIR] [-j JOBS] [--changed [BASE]] [FILE...]
#
# No FILE: every .cpp under src/. --changed: the src/ .cpp files that differ
# from BASE (default origin/main, else main), plus the .cpp beside each changed
# header, for a quick check before a commit (the tidy_changed test runs this
# with BASE from .ci/tidy-base).
# BUILD_DIR (default build) must hold compile_commands.json: configure first.
set -euo pipefail
cd "$(dirname "$0")/.."
build=build
jobs=$(nproc)
changed=""
files=()
while (($#)); do
  case $1 in
    -p) build=$2; shift 2 ;;
    -j) jobs=$2; shift 2 ;;
    -j*) jobs=${1#-j}; shift ;;
    --changed)
      changed=main
      git rev-parse -q --verify origin/main >/dev/null && changed=origin/main
      if (($# > 1)) && [[ $2 != -* ]]; then changed=$2; shift; fi
      shift ;;
    -h|--help) sed -n '2,10p' "$0"; exit 0 ;;
    *) files+=("$1"); shift ;;
  esac
done
if [[ ! -f $build/compile_commands.json ]]; then
  echo "tidy.sh: no $build/compile_commands.json; configure first: cmake -S . -B $build -G Ninja" >&2
  exit 2
fi
tidy=$(command -v clang-tidy || command -v clang-tidy-14 || true)
if [[ -z $tidy ]]; then
  echo "tidy.sh: clang-tidy is not installed (scripts/install-deps.sh installs it)" >&2
  exit 2
fi
if [[ -n $changed ]]; then
  if ! git rev-parse -q --verify "$changed^{commit}" >/dev/null; then
    echo "tidy.sh: $changed is not a commit in this clone" >&2
    exit 2
  fi
  # A changed header is checked through the .cpp of the same name, when there
  # is one (HeaderFilterRegex reports the header's findings from there).
  mapfile -t files < <(git diff --name-only --diff-filter=d "$changed" -- 'src/*.cpp' 'src/*.hpp' |
    sed 's/\.hpp$/.cpp/' | while read -r f; do [[ -f $f ]] && echo "$f"; done | sort -u)
elif ((${#files[@]} == 0)); then
  mapfile -t files < <(find src -name '*.cpp' | sort)
fi
if ((${#files[@]} == 0)); then
  echo "tidy.sh: no files to check"
  exit 0
fi
echo "tidy.sh: ${#files[@]} files, $jobs at a time"
# --quiet drops the "N warnings generated" noise; findings still print.
printf '%s\0' "${files[@]}" |
  xargs -0 -n 1 -P "$jobs" "$tidy" -p "$build" --quiet --warnings-as-errors='*'
echo "tidy.sh: clean"
