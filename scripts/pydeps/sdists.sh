#!/usr/bin/env bash
# .pydeps/sdists: the real PyPI sdists of flash-attn, causal-conv1d and mamba-ssm, for the
# build-plan tests (unit counts from their setup.py, setup_requires, FORCE_BUILD variables).
# Fetched from files.pythonhosted.org by pinned URL and checked against PyPI's sha256: `pip
# download --no-binary :all:` would run each setup.py to get its metadata, and those import
# torch. Idempotent: files already present with the right hash are kept (README.md here).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
dir="$root/.pydeps/sdists"
mkdir -p "$dir"
base=https://files.pythonhosted.org/packages
# file  sha256 (PyPI's)  path under $base
sdists=(
  "flash_attn-2.8.3.tar.gz 1e71dd64a9e0280e0447b8a0c2541bad4bf6ac65bdeaa2f90e51a9e57de0370d 3b/b2/8d76c41ad7974ee264754709c22963447f7f8134613fd9ce80984ed0dab7"
  "causal_conv1d-1.7.0.tar.gz 3202758494eaa7b597ce1c282dfa188889506bfcb92cad3c407d26736bfcd32b f4/d1/eba27735f31bd5527d39a3c7f693e6ded7b844cab275db719a15ad37b6cd"
  "mamba_ssm-2.3.2.post1.tar.gz 104cc47e9101e5401a675fa2b784f2952b9b037f3b1dd83b5ac544394e95d028 af/48/aa7bec0efc7453fa0512276c0069c854bf684219050294266534bfef34bb"
)
for entry in "${sdists[@]}"; do
  read -r file sha path <<<"$entry"
  if [ -f "$dir/$file" ] && echo "$sha  $dir/$file" | sha256sum -c --status; then
    continue
  fi
  echo "pydeps: downloading $file"
  /usr/bin/python3 -c 'import shutil, sys, urllib.request
with urllib.request.urlopen(sys.argv[1], timeout=300) as r, open(sys.argv[2], "wb") as f:
    shutil.copyfileobj(r, f)' "$base/$path/$file" "$dir/$file.part"
  if ! echo "$sha  $dir/$file.part" | sha256sum -c --status; then
    rm -f "$dir/$file.part"
    echo "pydeps: $file does not have the pinned sha256 $sha" >&2
    exit 1
  fi
  mv "$dir/$file.part" "$dir/$file"
done
echo "pydeps: sdists up to date ($dir)"
