#!/usr/bin/env bash
# Runs one libFuzzer target of fuzz/ for a time budget (docs/Reliability.md):
#
#   bash scripts/fuzz.sh TARGET SECONDS [libFuzzer options]    TARGET: onnx mlir npy runtime
#
# Needs build-san/ (scripts/test-sanitized.sh configures and builds it). Seeds come from
# scripts/fuzz-corpus.py (build-san/fuzz/seeds/TARGET, written once); inputs that find new
# coverage go to build-san/fuzz/corpus/TARGET, crashes, leaks, timeouts and out-of-memory inputs
# to build-san/fuzz/findings/TARGET/. One process: the machine's cores are shared.
set -euo pipefail
cd "$(dirname "$0")/.."
target=${1:?usage: fuzz.sh TARGET SECONDS}
seconds=${2:?usage: fuzz.sh TARGET SECONDS}
shift 2
B=build-san
exe=$B/bin/decoda-fuzz-$target
case $target in onnx | mlir | npy | runtime) ;; *)
  echo "fuzz.sh: unknown target '$target' (onnx, mlir, npy, runtime)" >&2; exit 2 ;;
esac
ninja -C $B -j 2 "decoda-fuzz-$target"
[ -d $B/fuzz/seeds/onnx ] || /usr/bin/python3 scripts/fuzz-corpus.py $B/fuzz/seeds
mkdir -p "$B/fuzz/corpus/$target" "$B/fuzz/findings/$target"
# Leaks are findings; each input gets 10 s and 2 GiB.
ASAN_OPTIONS=${ASAN_OPTIONS:-verify_asan_link_order=0:detect_leaks=1:detect_odr_violation=0} \
UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
  "$exe" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
  -artifact_prefix="$B/fuzz/findings/$target/" "$@" \
  "$B/fuzz/corpus/$target" "$B/fuzz/seeds/$target"
