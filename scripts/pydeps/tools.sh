#!/usr/bin/env bash
# .pydeps/tools: the installers flashfit drives, at current versions, beside Debian's pip 23.0.1:
# uv (the `uv pip install --python` path) and the newest pip (which refuses upstream's
# inconsistent-version wheels from indexes, as pip 24+ does). A venv without torch: the tests
# use its `bin/uv` and `bin/pip` as programs (pip 26 is pointed at other environments with
# `--python`). The two wheels are kept in .pydeps/tools/wheels, so a test can give a fresh venv
# pip 26 offline (`pip install --no-index --find-links`). Idempotent: a stamp of the pins makes a second run free.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
venv="$root/.pydeps/tools"
pins=(pip==26.2.1 uv==0.13.9)
stamp="$venv/.flashfit-pins"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "${pins[*]}" ]; then
  echo "pydeps: tools up to date"
  exit 0
fi
echo "pydeps: creating $venv (${pins[*]})"
rm -rf "$venv"
/usr/bin/python3 -m venv "$venv"
"$venv/bin/python" -m pip install -q --disable-pip-version-check "${pins[@]}"
"$venv/bin/python" -m pip download -q --disable-pip-version-check --no-deps --only-binary :all: \
  -d "$venv/wheels" "${pins[@]}"
printf '%s' "${pins[*]}" > "$stamp"
