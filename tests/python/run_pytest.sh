#!/usr/bin/env bash
# ctest's entry to the flashfit_attention tests (tests/python/CMakeLists.txt) on one interpreter:
#   run_pytest.sh PYTHON [pytest args...]
# Exits 77 (ctest: skipped), saying why, when that interpreter or its torch, pytest or hypothesis
# is missing: scripts/install-deps.sh installs them (Debian's packages, scripts/pydeps/torch-cpu.sh).
set -u
python=$1
shift
if [ ! -x "$python" ]; then
  echo "SKIP: $python does not exist: run scripts/install-deps.sh"
  exit 77
fi
if ! missing=$("$python" -c 'import torch, pytest, hypothesis' 2>&1); then
  echo "SKIP: $python cannot import torch, pytest and hypothesis (${missing##*$'\n'}):" \
    "run scripts/install-deps.sh"
  exit 77
fi
"$python" -c 'import torch; print("torch", torch.__version__, "from", torch.__file__)'
export OMP_NUM_THREADS=1 PYTHONDONTWRITEBYTECODE=1
exec "$python" -m pytest -q -rs -p no:cacheprovider "$(dirname "$0")" "$@"
