#!/usr/bin/env bash
# Installs s3rver, the S3-compatible server flashfit publish's s3:// tests run
# against (tests/integration/test_publish_s3.sh), into <repo>/.npmdeps (git-ignored).
# Pinned: a new s3rver must be chosen on purpose. Idempotent.
set -euo pipefail
S3RVER_VERSION=3.7.1
root=$(cd "$(dirname "$0")/../.." && pwd)
dest=$root/.npmdeps
installed=$(node -p "require('$dest/node_modules/s3rver/package.json').version" 2>/dev/null || true)
if [[ $installed == "$S3RVER_VERSION" ]]; then
  echo "s3rver: $S3RVER_VERSION present"
  exit 0
fi
command -v npm >/dev/null || { echo "s3rver: npm is not installed (Node.js)" >&2; exit 1; }
mkdir -p "$dest"
npm install --no-audit --no-fund --prefix "$dest" "s3rver@$S3RVER_VERSION"
echo "s3rver: $S3RVER_VERSION installed in $dest"
