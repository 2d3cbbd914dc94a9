#!/usr/bin/env bash
# The test suite under AddressSanitizer + UndefinedBehaviorSanitizer (LeakSanitizer included):
# configures (once) build-san/ with clang-22, DECODA_SANITIZE=address,undefined and DECODA_FUZZ=ON,
# builds it, and runs lit on build-san/test (lit, Python and fuzz-regression tests) and the unit
# tests. Every sanitizer report fails its test. docs/Reliability.md.
#
#   bash scripts/test-sanitized.sh [--fast] [lit options]
#
# --fast leaves out the numerical end-to-end directories (test/e2e, test/Frontend/ONNX/e2e), which
# compile and run whole models through Python; it is what CI runs.
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh || exit 1
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$(pwd)}" # as in scripts/build.sh
B=build-san
if [ ! -f $B/build.ninja ]; then
  cmake -G Ninja -S . -B $B -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_COMPILER=clang-22 \
    -DCMAKE_CXX_COMPILER=clang++-22 -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
    -DDECODA_SANITIZE=address,undefined -DDECODA_FUZZ=ON >$B-configure.log 2>&1 ||
    { cat $B-configure.log; echo "0 passed, 1 failed"; exit 1; }
  rm -f $B-configure.log
fi
ninja -C $B -j "$(nproc)" decoda-test-depends decoda-fuzzers all ||
  { echo "0 passed, 1 failed"; exit 1; }

filter=()
if [ "${1:-}" = "--fast" ]; then
  shift
  filter=(--filter-out '(^|[ /])e2e/')
fi
/usr/lib/llvm-22/bin/lit -sv --no-progress-bar --order=lexical -j "$(nproc)" "${filter[@]}" \
  $B/test $B/test/unittests "$@"
