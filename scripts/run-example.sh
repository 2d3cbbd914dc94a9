#!/usr/bin/env bash
# The main job: builds Decoda, then sends the example decoder block through the graph pipeline
# (the same named pipeline decoda-compile will run) and prints the IR after each pass.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh >/dev/null
example=${1:-examples/llama_block.mlir}
build/bin/decoda-opt "$example" --decoda-graph-opt --mlir-print-ir-after-all \
  --mlir-pass-statistics 2>&1
