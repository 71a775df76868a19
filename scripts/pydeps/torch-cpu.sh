#!/usr/bin/env bash
# .pydeps/torch-cpu: PyPI's CPU build of torch 2.13.0 with pytest and hypothesis, for the
# tests that run real torch 2.x code (the runtime fallback) or probe a pip-layout CPU torch.
# Idempotent: a stamp of the pins makes a second run free (scripts/pydeps/README.md).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
venv="$root/.pydeps/torch-cpu"
pins=(torch==2.13.0 pytest==9.1.1 hypothesis==6.168.3 numpy==2.3.5)
stamp="$venv/.flashfit-pins"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "${pins[*]}" ]; then
  echo "pydeps: torch-cpu up to date"
  exit 0
fi
echo "pydeps: creating $venv (${pins[*]})"
rm -rf "$venv"
/usr/bin/python3 -m venv "$venv"
"$venv/bin/python" -m pip install -q --disable-pip-version-check "${pins[@]}"
printf '%s' "${pins[*]}" > "$stamp"
