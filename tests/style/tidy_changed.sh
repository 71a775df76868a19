#!/usr/bin/env bash
# The clang-tidy gate: scripts/tidy.sh over the sources changed since the
# commit named in .ci/tidy-base (the last tree whose changes were checked), so
# CI checks what a change touched without paying for all of src/ (about 13 s
# of CPU a file; docs/testing.md). Exit 77 (ctest: skipped, with the reason)
# where the check cannot be made: no clang-tidy, no git history, or a clone
# too shallow to hold the base commit.
#
#   tidy_changed.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
source_dir=$1
build_dir=$2
cd "$source_dir"
if ! command -v clang-tidy >/dev/null && ! command -v clang-tidy-14 >/dev/null; then
  echo "tidy_changed: SKIPPED, clang-tidy is not installed (scripts/install-deps.sh installs it)"
  exit 77
fi
if ! git rev-parse --git-dir >/dev/null 2>&1; then
  echo "tidy_changed: SKIPPED, $source_dir is not a git checkout: nothing says what changed"
  exit 77
fi
base=$(tr -d '[:space:]' <.ci/tidy-base)
if [[ ! $base =~ ^[0-9a-f]{40}$ ]]; then
  echo "tidy_changed: .ci/tidy-base must hold one full commit hash, not '$base'" >&2
  exit 2
fi
if ! git rev-parse -q --verify "$base^{commit}" >/dev/null; then
  echo "tidy_changed: SKIPPED, the base commit $base is not in this clone (shallow?); fetch more history"
  exit 77
fi
exec scripts/tidy.sh -p "$build_dir" -j "$(nproc)" --changed "$base"
