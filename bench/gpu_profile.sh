#!/usr/bin/env bash
# On the GPU machine, after `bash bench/gpu_check.sh prepare DIR` here: Nsight Compute reports
# of the kernels that bound the timed cases of gpu_check.sh (docs/GPU.md, "Profiling on the
# H200"), the host <-> device copy rates the call timings depend on, and the outputs of every
# checked program kept for a comparison here.
#
#   bash bench/gpu_profile.sh DIR OUT
#
# OUT/ncu.txt        ncu (--clock-control none: the clocks as found) of every kernel of the
#                    prefill block (T = 2048), the T = 4096 head
#                    dim 128 attention at 128 and 64 rows a block, and the decode step's
#                    flash-decoding kernel
# OUT/copies.txt     pageable and pinned host <-> device copy rates (PyTorch), the ceiling of a
#                    call whose inputs and outputs live on the host
# OUT/outputs.tar    every checked program's CUDA outputs on its check inputs (NAME/OUT.npy)
set -uo pipefail
dir=${1:?usage: gpu_profile.sh DIR OUT}
out=${2:?usage: gpu_profile.sh DIR OUT}
PY=${PYTHON:-python3}
run="$dir/bin/decoda-run"
export LD_LIBRARY_PATH="$dir/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
mkdir -p "$out" "$dir/prof"
for z in "$dir"/models/*.weights.z; do
  [[ -e "$z" && ! -e "${z%.z}" ]] || continue
  "$PY" -c "import sys, zlib; open(sys.argv[2], 'wb').write(zlib.decompress(open(sys.argv[1], 'rb').read()))" "$z" "${z%.z}"
done

# Outputs of the checked programs (the same inputs as gpu_check.sh run).
mkdir -p "$dir/prof/outputs"
for refdir in "$dir"/ref/*/; do
  key=$(basename "$refdir")
  name=${key%%.*}
  entry_flag=()
  [[ -f "$dir/inputs/$key.entry" ]] && entry_flag=(--entry "$(cat "$dir/inputs/$key.entry")")
  inputs="$dir/inputs/$key.npz"
  [[ -f "$dir/inputs/$key.same" ]] && inputs="$dir/inputs/$(cat "$dir/inputs/$key.same").npz"
  timeout -k 5 60 "$run" "$dir/models/$name.cuda.so" "${entry_flag[@]}" --inputs "$inputs" \
      --output-dir "$dir/prof/outputs/$key" >/dev/null || echo "gpu_profile: $key did not run"
done
# The large donated caches are not compared: drop them.
find "$dir/prof/outputs" -name '*cache_out.npy' -size +1M -delete
tar -C "$dir/prof" -cf "$out/outputs.tar" outputs

# Inputs of the profiled calls.
"$PY" - "$dir/prof" <<'PYEOF'
import sys
import numpy as np
d = sys.argv[1]
rng = np.random.default_rng(0)
def bf16(shape):
    return ((rng.standard_normal(shape) * 0.05).astype("<f4").view("<u4") >> 16).astype("<u2")
H, KV, D, F, T, S = 2048, 8, 64, 8192, 2048, 4096
w = {"attn_norm": bf16((H,)), "wq": bf16((H, H)), "wk": bf16((KV * D, H)),
     "wv": bf16((KV * D, H)), "wo": bf16((H, H)), "mlp_norm": bf16((H,)),
     "w_gate": bf16((F, H)), "w_up": bf16((F, H)), "w_down": bf16((H, F))}
# The block's arguments are unnamed (arg0 ..., in the order of the function's parameters).
np.savez(f"{d}/prefill.npz", **{f"arg{i}": a for i, a in enumerate([bf16((1, T, H))] + list(w.values()))})
np.savez(f"{d}/step.npz", h=bf16((1, 1, H)), k_cache=bf16((1, S, KV, D)),
         v_cache=bf16((1, S, KV, D)), offset=np.array(S - 1, np.int64), **w)
N = 4096
np.savez(f"{d}/attn.npz", q=bf16((1, N, 32, 128)), k=bf16((1, N, 8, 128)), v=bf16((1, N, 8, 128)))
PYEOF

sections=(--section SpeedOfLight --section MemoryWorkloadAnalysis --section ComputeWorkloadAnalysis
          --section WarpStateStats --section SchedulerStats --section Occupancy --section LaunchStats)
ncu_one() { # LABEL MODEL KERNEL-REGEX INPUTS [decoda-run flags...]
  local label=$1 model=$2 regex=$3 inputs=$4
  shift 4
  echo "==== $label: $(basename "$model") kernels /$regex/"
  timeout -k 5 120 ncu --clock-control none "${sections[@]}" -k "regex:$regex" \
      "$run" "$dir/models/$model" --inputs "$inputs" "$@" 2>&1 |
    grep -v '^output \|^==PROF==' || echo "ncu failed for $label"
}
{
  command -v ncu >/dev/null || echo "ncu not found"
  ncu_one prefill llama32_1b_block.cuda.so 'kernel' "$dir/prof/prefill.npz"
  ncu_one attention_rows128 attention_d128.cuda.so 'kernel_3$' "$dir/prof/attn.npz"
  ncu_one attention_rows64 attention_d128_rows64.cuda.so 'kernel_3$' "$dir/prof/attn.npz"
  ncu_one decode_step llama32_1b_step.cuda.so 'kernel_4$' "$dir/prof/step.npz"
} >"$out/ncu.txt"

"$PY" - >"$out/copies.txt" 2>&1 <<'PYEOF'
import torch
n = 64 << 20
dev = torch.empty(n, dtype=torch.uint8, device="cuda")
def rate(src_fn, label):
    times = []
    for _ in range(6):
        a = src_fn()
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record(); a[0].copy_(a[1], non_blocking=False); e.record(); torch.cuda.synchronize()
        times.append(s.elapsed_time(e))
    ms = sorted(times)[len(times) // 2]
    print(f"{label}: {ms:.3f} ms for 64 MiB, {n / ms / 1e6:.1f} GB/s")
pageable = torch.empty(n, dtype=torch.uint8).fill_(1)
pinned = torch.empty(n, dtype=torch.uint8, pin_memory=True).fill_(1)
rate(lambda: (dev, pageable), "host->device pageable")
rate(lambda: (dev, pinned), "host->device pinned")
rate(lambda: (pageable, dev), "device->host pageable")
rate(lambda: (pinned, dev), "device->host pinned")
# A fresh pageable destination each time (the first touch of new pages inside the copy).
rate(lambda: (torch.empty(n, dtype=torch.uint8), dev), "device->host fresh pageable")
PYEOF
cat "$out/copies.txt"
grep -E '^====|Duration|Memory Throughput|DRAM Throughput|Compute \(SM\) Throughput|Registers Per|Achieved Occupancy|Theoretical Occupancy|Block Limit|Dynamic Shared|Waves Per SM|Issue Slots Busy|No Eligible|Stall' "$out/ncu.txt" | head -150
