#!/usr/bin/env bash
# truncations.sh MODEL.so WORKDIR STEP: runs `decoda-run PREFIX --list` on every prefix of MODEL.so
# whose length is a multiple of STEP and prints each one that ends in anything but a clean load
# (exit 0) or a clean error (exit 2), then "checked N prefixes".
model=$1 work=$2 step=$3
size=$(stat -c %s "$model")
n=0
for ((len = 0; len < size; len += step)); do
  head -c "$len" "$model" >"$work/prefix.so"
  "$DECODA_BIN_DIR/decoda-run" "$work/prefix.so" --list >"$work/out.txt" 2>&1
  rc=$?
  if [ "$rc" -ne 0 ] && [ "$rc" -ne 2 ]; then
    echo "prefix of $len bytes: exit code $rc: $(head -c 200 "$work/out.txt")"
  fi
  n=$((n + 1))
done
echo "checked $n prefixes"
