#!/usr/bin/env bash
# The format gate: every C++ file of src/ and tests/ is as the repository's
# .clang-format writes it (clang-format --dry-run -Werror prints each
# difference and fails). tests/fixtures/ is left out: its files are inputs
# that tests compile and read back, kept as they are.
# Usage: format_check.sh CLANG_FORMAT SOURCE_DIR
set -euo pipefail
clang_format=$1
cd "$2"
mapfile -d '' files < <(find src tests -path tests/fixtures -prune -o -type f \
  \( -name '*.cpp' -o -name '*.hpp' -o -name '*.h' -o -name '*.cc' \) \
  -print0 | sort -z)
if ((${#files[@]} == 0)); then
  echo "format_check: no C++ files found under src/ and tests/" >&2
  exit 1
fi
echo "format_check: ${#files[@]} files"
"$clang_format" --dry-run -Werror --style=file "${files[@]}"
