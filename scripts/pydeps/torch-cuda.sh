#!/usr/bin/env bash
# .pydeps/torch-cuda: PyPI's CUDA 13 build of torch 2.14.1 (with the nvidia-* runtime packages
# it depends on) and what a --no-build-isolation source build against it needs (setuptools,
# wheel, ninja, packaging), for the tests that probe a pip-layout CUDA torch and build a real
# extension sdist against it. No GPU is needed to install or import it. About 5.5 GB; the
# figures are in docs/testing.md. Idempotent: a stamp of the pins makes a second run free.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
venv="$root/.pydeps/torch-cuda"
pins=(torch==2.14.1 numpy==2.3.5 setuptools==80.9.0 wheel==0.45.1 ninja==1.13.0 packaging==25.0)
stamp="$venv/.flashfit-pins"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "${pins[*]}" ]; then
  echo "pydeps: torch-cuda up to date"
  exit 0
fi
echo "pydeps: creating $venv (${pins[*]}; about 5.5 GB)"
rm -rf "$venv"
/usr/bin/python3 -m venv "$venv"
"$venv/bin/python" -m pip install -q --disable-pip-version-check "${pins[@]}"
printf '%s' "${pins[*]}" > "$stamp"
