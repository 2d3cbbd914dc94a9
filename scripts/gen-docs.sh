#!/usr/bin/env bash
# Regenerates the dialect reference in docs/ from the ODS (test/docs/fresh.mlir checks it is current).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh >/dev/null
mkdir -p docs/Dialects
cp build/dialects/Decoda/Decoda.md docs/Dialects/Decoda.md
echo "docs/Dialects/Decoda.md updated"
