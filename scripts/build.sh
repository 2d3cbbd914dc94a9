#!/usr/bin/env bash
# Configures (once) and builds Decoda into build/; tools land in build/bin/.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
# ccache hashes paths under the checkout relative to it, so a clone elsewhere (CI's) reuses the
# objects of this one.
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$(pwd)}"
if [ ! -f build/build.ninja ]; then
  cmake -G Ninja -S . -B build -DCMAKE_BUILD_TYPE=Release \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir >build-configure.log 2>&1 ||
    { cat build-configure.log; exit 1; }
  rm -f build-configure.log
fi
# One build at a time in this tree: concurrent ninja runs in one build directory would compile the
# same objects twice and race on them; a second caller waits here for the first.
mkdir -p build
exec 9>build/.build-lock
flock 9
ninja -C build decoda-test-depends all
