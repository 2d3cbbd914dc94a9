#!/usr/bin/env bash
# The GPU check of issue 6, in two steps (docs/GPU.md):
#
#   bash bench/gpu_check.sh prepare DIR    here (no GPU needed): compiles every example block
#       and the bench programs for --target=cuda --gpu-arch=sm_90a and for the CPU, makes inputs
#       (dynamic sequence length T=16 for the checks; the small bf16 block also as a static
#       T = 1 decode step, whose projections are GEMV kernels), runs the CPU artifacts for the reference
#       outputs, and copies decoda-run, libdecoda_runtime.so and this script into DIR. The timed
#       block is also compiled with constant weights (bench/gpu/make_const_block.py,
#       --weights=file): its 121 MiB side file is a repeated pattern, carried zlib-compressed
#       (< 1 MiB) and inflated by `run`. The tensor-core kernels' cubins (ptxas sm_90a) go to
#       DIR/sass for cuobjdump there. DIR and the working tree must stay under 64 MiB together, what
#       travels to the GPU machine (checked at the end): inputs of more than 2^19 elements (a
#       decode step's 16 MiB of KV caches) come from a portable generator (bench/gpu/bigarrays.py)
#       and travel as recipes (inputs/KEY.big), rebuilt bit for bit by `run`. An
#       INT8 projection (bench/gpu/make_int8_proj.py, constant weight, --quantize=int8) is
#       compiled for both targets too: its CUDA artifact runs the integer tensor-core kernel,
#       and its static T = 1 build (int8_proj_decode) the dp4a GEMV kernel. The small bf16 block
#       is also built with --gpu-tma=false (NAME_cpasync: the wgmma kernels' cp.async loads
#       instead of TMA), both blocks with --gpu-warp-specialize (NAME_ws: the producer/consumer
#       TMA kernel), the Llama-3.2-1B-shaped one with --gpu-gate-up=false (NAME_nogateup: gate
#       and up as two kernels), checked and timed beside the default. onnxruntime-genai's
#       GroupQueryAttention (bench/gpu/make_gqa_case.py: f16, Llama-3.2-1B's heads, run-time
#       row lengths; checked on a decode step into a 256-entry past buffer with its own inputs,
#       NAME.inputs.npz) is built as it is and with --shared-kv-buffers (NAME_shared), and
#       timed in `run` at context 4096 over a 4096-entry buffer (gqa_decode_t4096[_shared]);
#       a small decoder layer as genai exports an int4 Llama (bench/gpu/make_genai_layer_case.py:
#       MatMulNBits, GQA from the attention_mask, f16) is checked on a decode step of a batch
#       of two and on one of batch 1 (genai_int4_layer_f16_b1: the one-row GEMV kernels with
#       the norms folded in). The
#       Llama-3.2-1B-shaped block with int4 weights (make_const_block.py --int4, 36 MiB side
#       file carried compressed): its decode build (GEMV kernels reading the codes) checked
#       against the CPU and timed (int4_decode_T1), as is its build with the SIMT GEMV
#       (--gpu-gemv-mma=false: int4_decode_T1_simt, the same side file copied on the GPU
#       machine), its dynamic build timed at T = 2048.
#   bash DIR/gpu_check.sh run DIR [all|checks|timings]
#       on the GPU machine, within GPU_CHECK_BUDGET seconds (480; the checks stop starting after
#       GPU_CHECK_CHECK_BUDGET, 200; the headline timings and PyTorch's run before the variants,
#       and a summary table of every figure ends the run): SASS instruction counts of the
#       tensor-core kernels (HMMA expected; IMMA for the INT8 one), numerical check of every CUDA artifact against the
#       CPU reference outputs (decoda-run --check; bf16 models at rtol/atol 3e-2, others 2e-3 /
#       2e-4), then timings: the Llama-3.2-1B-shaped block in bf16 with resident constant weights
#       (prefill T=2048 in TFLOP/s; decode T=1 in GB/s of weights read, from a build with a
#       static T = 1 (--static-dims, GEMV projections; the dynamic build at T = 1 is timed too
#       for comparison): the block has no KV-cache input, so that "decode" is one token over its
#       own context of one), the same block with the weights as inputs, the real decode step
#       at context 4096 (bench/gpu/llama32_1b_step.mlir: the block with a 4096-entry KV cache;
#       decode_step_S4096_nofold with its norms as kernels of their own,
#       GB/s of weights + cache read; prefill_T2048, decode_T1 and decode_step_S4096 also with
#       DECODA_CUDA_DEPENDENT_LAUNCH=0 as NAME_nopdl: every kernel launched after the one
#       before ended, instead of as a programmatic dependent; the dynamic build at T = 8, a
#       speculative-decoding or small-batch step, block_T8 in GB/s of weights: its projections
#       on the 16-row tensor-core GEMV, and on the 8-row SIMT one as block_T8_gemvsimt from
#       the build with --gpu-gemv-mma=false, NAME_gemvsimt), causal attention alone at T=4096, head dim 128 (one
#       flash-attention kernel: the wgmma one with one warpgroup of 64 rows per block, the same
#       with two sharing each K/V tile as attention_d128_rows128 (the block too, as
#       prefill_T2048_rows128), with 128-key tiles as attention_d128_keys128 (the block too,
#       prefill_T2048_keys128; the block with 256-column projection tiles as prefill_T2048_n256,
#       with FA3's attention configuration as prefill_T2048_rows128_keys128_tma), with K/V tiles loaded by TMA from a producer warp as
#       attention_d128_tma (the block too, prefill_T2048_tma; with 128-row blocks, FA3's
#       shape, attention_d128_rows128_tma, its warpgroups in ping-pong, and without it
#       attention_d128_rows128_tma_nopp; with 128-key tiles too, FA3's configuration at head
#       dim 128, attention_d128_rows128_keys128_tma), and the mma.sync one as attention_d128_mmasync;
#       at head dims 256 and 96 as attention_T4096_d256_causal / _d96_causal; a decode step of
#       absorbed MLA over 4096 latent entries, mla_absorbed_decode_S4096: D = 576, Dv = 512,
#       16 heads, the SIMT split form with dynamic shared memory; mla128_absorbed_decode_S4096
#       with DeepSeek-V3's 128 heads, 8 row blocks a split; both again as decoda-absorb-mla
#       writes them, V the first 512 columns of K, mla_latent_decode_S4096 and
#       mla128_latent_decode_S4096: K staged alone, P·V from the K tile; and the whole step
#       as decoda.mla states it, weights as inputs, mla_step_decode_S4096 and, with 128 heads,
#       mla128_step_decode_S4096: W_UK's column GEMV, the latent attention, W_UV's per-head
#       GEMV), the
#       fused residual add + RMSNorm alone (one row kernel) and one
#       cached-attention decode step over 4096 keys (flash decoding: the keys split over blocks
#       per K/V head, then the combine), a speculative-decoding step of eight tokens over the
#       same cache (spec_decode_attention_d128: 32 rows per K/V head, the tensor-core kernel's
#       split form; checked at a small size, spec_attention_small), and both attentions in INT8
#       (attention_int8_d128,
#       decode_attention_int8_d128: constant scales, the quantisation launch and the integer
#       tensor-core kernels, IMMA); PyTorch on that machine (if importable) times the same
#       shapes as the peer (scaled_dot_product_attention, rms_norm). Models whose inputs are
#       weights or caches run with `decoda-run --device-inputs` (inputs uploaded once, donated
#       caches written in place on the device: docs/ABI.md, "Device-resident tensors"), the
#       others (add + RMSNorm, attention alone) with host inputs, so their call timings include
#       the per-call copies; every case is also run with --profile (CUDA events around each
#       launch: docs/ABI.md, "Kernel profiles"), and its TFLOP/s or GB/s are printed from the
#       call's median and from the kernels' median span, the figure that compares with
#       PyTorch's event-timed kernels.
#
# decoda-run and the runtime link neither MLIR nor LLVM (checked with ldd in `prepare`).
set -euo pipefail
mode=${1:-}
dir=${2:-}
if [[ -z "$mode" || -z "$dir" ]]; then
  echo "usage: $0 prepare|run DIR" >&2
  exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
# Debian's interpreter here (numpy, onnx); on the GPU machine the python3 on PATH (numpy, PyTorch).
if [[ "${1:-}" == run ]]; then PY=${PYTHON:-python3}; else PY=${PYTHON:-/usr/bin/python3}; fi

if [[ "$mode" == prepare ]]; then
  root=$(cd "$here/.." && pwd)
  bin=${DECODA_BIN_DIR:-$root/build/bin}
  mkdir -p "$dir"/{models,inputs,ref,bin,lib}
  cp "$bin/decoda-run" "$dir/bin/"
  cp "$root/build/lib/libdecoda_runtime.so" "$dir/lib/"
  cp "$0" "$dir/gpu_check.sh"
  cp "$here/gpu/bigarrays.py" "$dir/bin/"
  if ldd "$dir/bin/decoda-run" "$dir/lib/libdecoda_runtime.so" | grep -Ei 'libMLIR|libLLVM'; then
    echo "gpu_check: decoda-run or the runtime links MLIR/LLVM" >&2
    exit 1
  fi
  # The INT8 projection (constant weight, compiled with --quantize=int8 for both targets).
  gen=$(mktemp -d)
  "$PY" "$here/gpu/make_int8_proj.py" "$gen/int8_proj.mlir"
  # onnxruntime-genai's GroupQueryAttention (f16, Llama-3.2-1B's heads) and its check's inputs
  # (a decode step into a past buffer; NAME.inputs.npz next to a program replaces the random
  # inputs below).
  PYTHONPATH="$root/python" "$PY" "$here/gpu/make_gqa_case.py" "$gen/gqa_genai_f16_decode.onnx" \
    "$gen/gqa_genai_f16_decode.inputs.npz"
  # A decoder layer as genai exports an int4 Llama (MatMulNBits, GQA from the mask; small, f16)
  # and its check's inputs (a decode step, batch 2, full rows).
  PYTHONPATH="$root/python" "$PY" "$here/gpu/make_genai_layer_case.py" \
    "$gen/genai_int4_layer_f16.onnx" "$gen/genai_int4_layer_f16.inputs.npz"
  # A whole decoder-only model as Hugging Face / Optimum export it (embedding, attention_mask,
  # position_ids, past concatenated into present, lm_head) and its check's inputs: a batch of
  # two with row 1 left-padded (rows of padding-only logits).
  PYTHONPATH="$root/python" "$PY" "$here/gpu/make_decoder_case.py" "$gen/hf_decoder_kv.onnx" \
    "$gen/hf_decoder_kv.inputs.npz"
  # The same model as the other architectures export it (onnx_models.DECODER_VARIANTS: Qwen2,
  # Phi-3, Gemma, Mistral, GPT-2, GPT-NeoX, Phi-2), each checked in bf16.
  variants=()
  for arch in $(PYTHONPATH="$root/python" "$PY" -c \
      "from decoda import onnx_models as M; print(' '.join(M.DECODER_VARIANTS))"); do
    PYTHONPATH="$root/python" "$PY" "$here/gpu/make_decoder_case.py" \
      "$gen/hf_decoder_kv_$arch.onnx" "$gen/hf_decoder_kv_$arch.inputs.npz" "$arch"
    variants+=("$gen/hf_decoder_kv_$arch.onnx:bf16")
  done
  # The same layer at batch 1 (a decode step into a past buffer): the GEMV dispatch's one-row
  # kernels, which compute the layer's two norms themselves.
  PYTHONPATH="$root/python" "$PY" "$here/gpu/make_genai_layer_case.py" \
    "$gen/genai_int4_layer_f16_b1.onnx" "$gen/genai_int4_layer_f16_b1.inputs.npz" 7
  # PATH:decode is the program as a decode step, a static T = 1 (--static-dims), named
  # NAME_decode: its projections are GEMV kernels (decoda-gpu-gemv), not 128-row tensor-core
  # tiles. PATH:cpasync is the program with the wgmma kernels' cp.async loads instead of TMA
  # (--gpu-tma=false), named NAME_cpasync, and PATH:ws the warp-specialised TMA kernel
  # (--gpu-warp-specialize), NAME_ws: checked and timed side by side with the default;
  # PATH:nogateup the program with a GLU's gate and up projections as two kernels, the f32
  # gate through memory (--gpu-gate-up=false), NAME_nogateup (the Llama-3.2-1B-shaped block's
  # cp.async build ran 113 TFLOP/s against 374 on 4 Dec 2026: the small block keeps checking
  # that path, the big one times gate-up against its absence instead).
  # PATH:mmasync is the program with the mma.sync attention kernel instead of the sm_90a
  # wgmma one (--gpu-attention-wgmma=false), NAME_mmasync; PATH:rows128 the wgmma kernel with
  # two warpgroups of 64 rows per block sharing each K/V tile instead of one
  # (--gpu-attention-rows=128), NAME_rows128; PATH:keys128 the wgmma kernel with 128-key K/V
  # tiles (--gpu-attention-keys=128), NAME_keys128; PATH:tma the wgmma kernel's K/V tiles loaded
  # by TMA from a producer warp (--gpu-attention-tma), NAME_tma, PATH:rows128tma that with
  # 128-row blocks (its two warpgroups taking turns at the tensor cores, the ping-pong),
  # NAME_rows128_tma, and PATH:rows128tmanopp the same without the ping-pong
  # (--gpu-attention-pingpong=false), NAME_rows128_tma_nopp; PATH:fa3 128-row blocks, 128-key
  # tiles and TMA (FlashAttention-3's configuration at head dim 128), NAME_rows128_keys128_tma;
  # PATH:n256 the TMA wgmma projections with 256 columns a block (--gpu-matmul-tile-n=256),
  # NAME_n256; PATH:gemvsimt the GEMV kernels of 2 to 8 rows on SIMT rather than tensor cores
  # (--gpu-gemv-mma=false), NAME_gemvsimt; PATH:nofold the RMSNorms in kernels of their own rather than computed by the
  # GEMV kernels that read them (--gpu-fold-norms=false), NAME_nofold. The PyTorch-exported
  # Llama decoder layer (test/Frontend/ONNX/models, f32) is checked as exported and, as
  # PATH:bf16, stored and computed in bf16 (--float-type=bf16, both targets), NAME_bf16, and
  # as PATH:bf16io with bf16 inputs and outputs as well (--float-type-io), NAME_bf16io; the
  # same layer as an fp16 export has it (f16_llama_decoder_layer_dynamic, rtol/atol 1e-2); the
  # exported GPT-2 block (dynamic shapes) and its fp16 form (f16_gpt2_block_dynamic);
  # GroupQueryAttention as genai exports it (gqa_genai_f16_decode, bench/gpu/make_gqa_case.py)
  # and, as PATH:shared, compiled with --shared-kv-buffers (the past donated, updated in
  # place), NAME_shared; a decoder layer as genai exports an int4 Llama
  # (genai_int4_layer_f16, bench/gpu/make_genai_layer_case.py); a whole decoder-only model as
  # Hugging Face exports it (hf_decoder_kv, bench/gpu/make_decoder_case.py: left padding), as
  # exported and, as PATH:bf16, in bf16 (hf_decoder_kv_bf16), and its other architectures'
  # forms in bf16 (hf_decoder_kv_ARCH_bf16, make_decoder_case.py ARCH: about 1 MiB of cubins
  # each, room made by carrying the large inputs as recipes).
  programs=("$root"/examples/*.mlir "$here/gpu/bf16_block_small.mlir"
            "$here/gpu/bf16_block_small.mlir:decode" "$here/gpu/bf16_block_small.mlir:cpasync"
            "$here/gpu/bf16_block_small.mlir:ws" "$here/gpu/llama32_1b_block.mlir"
            "$here/gpu/llama32_1b_block.mlir:decode" "$here/gpu/llama32_1b_block.mlir:nogateup"
            "$here/gpu/llama32_1b_block.mlir:ws" "$here/gpu/llama32_1b_block.mlir:rows128"
            "$here/gpu/llama32_1b_block.mlir:keys128" "$here/gpu/llama32_1b_block.mlir:tma"
            "$here/gpu/llama32_1b_block.mlir:n256" "$here/gpu/llama32_1b_block.mlir:fa3"
            "$here/gpu/llama32_1b_block.mlir:gemvsimt"
            "$here/gpu/llama32_1b_step.mlir" "$here/gpu/llama32_1b_step.mlir:nofold"
            "$here/gpu/attention_d128.mlir" "$here/gpu/attention_d128.mlir:mmasync"
            "$here/gpu/attention_d128.mlir:rows128" "$here/gpu/attention_d128.mlir:keys128"
            "$here/gpu/attention_d128.mlir:tma" "$here/gpu/attention_d128.mlir:rows128tma"
            "$here/gpu/attention_d128.mlir:rows128tmanopp" "$here/gpu/attention_d128.mlir:fa3"
            "$here/gpu/attention_d256.mlir" "$here/gpu/attention_d96.mlir"
            "$here/gpu/mla_absorbed_decode.mlir" "$here/gpu/mla128_absorbed_decode.mlir"
            "$here/gpu/mla_latent_decode.mlir" "$here/gpu/mla128_latent_decode.mlir"
            "$here/gpu/mla_step_decode.mlir:absorb" "$here/gpu/mla128_step_decode.mlir:absorb"
            "$here/gpu/attention_int8_d128.mlir"
            "$here/gpu/add_rms_norm_2048.mlir"
            "$here/gpu/decode_attention_d128.mlir" "$here/gpu/spec_decode_attention_d128.mlir"
            "$here/gpu/spec_attention_small.mlir"
            "$here/gpu/decode_attention_int8_d128.mlir"
            "$gen/int8_proj.mlir"
            "$gen/int8_proj.mlir:decode"
            "$root/test/Frontend/ONNX/models/torch_llama_decoder_layer_dynamic.onnx"
            "$root/test/Frontend/ONNX/models/torch_llama_decoder_layer_dynamic.onnx:bf16"
            "$root/test/Frontend/ONNX/models/torch_llama_decoder_layer_dynamic.onnx:bf16io"
            "$root/test/Frontend/ONNX/models/f16_llama_decoder_layer_dynamic.onnx"
            "$root/test/Frontend/ONNX/models/torch_gpt2_block_dynamic.onnx"
            "$root/test/Frontend/ONNX/models/f16_gpt2_block_dynamic.onnx"
            "$gen/gqa_genai_f16_decode.onnx" "$gen/gqa_genai_f16_decode.onnx:shared"
            "$gen/genai_int4_layer_f16.onnx" "$gen/genai_int4_layer_f16_b1.onnx"
            "$gen/hf_decoder_kv.onnx" "$gen/hf_decoder_kv.onnx:bf16" "${variants[@]}")
  for entry in "${programs[@]}"; do
    p=${entry%:decode}
    p=${p%:cpasync}
    p=${p%:ws}
    p=${p%:nogateup}
    p=${p%:mmasync}
    p=${p%:rows128}
    p=${p%:keys128}
    p=${p%:tma}
    p=${p%:rows128tma}
    p=${p%:rows128tmanopp}
    p=${p%:fa3}
    p=${p%:n256}
    p=${p%:nofold}
    p=${p%:gemvsimt}
    p=${p%:bf16}
    p=${p%:bf16io}
    p=${p%:shared}
    p=${p%:absorb}
    name=$(basename "$p")
    name=${name%.mlir}
    name=${name%.onnx}
    dims=()
    gpuflags=()
    if [[ "$entry" == *:decode ]]; then
      name=${name}_decode
      dims=(--static-dims=0:1=1)
    elif [[ "$entry" == *:cpasync ]]; then
      name=${name}_cpasync
      gpuflags=(--gpu-tma=false)
    elif [[ "$entry" == *:ws ]]; then
      name=${name}_ws
      gpuflags=(--gpu-warp-specialize)
    elif [[ "$entry" == *:nogateup ]]; then
      name=${name}_nogateup
      gpuflags=(--gpu-gate-up=false)
    elif [[ "$entry" == *:mmasync ]]; then
      name=${name}_mmasync
      gpuflags=(--gpu-attention-wgmma=false)
    elif [[ "$entry" == *:rows128 ]]; then
      name=${name}_rows128
      gpuflags=(--gpu-attention-rows=128)
    elif [[ "$entry" == *:keys128 ]]; then
      name=${name}_keys128
      gpuflags=(--gpu-attention-keys=128)
    elif [[ "$entry" == *:tma ]]; then
      name=${name}_tma
      gpuflags=(--gpu-attention-tma)
    elif [[ "$entry" == *:rows128tma ]]; then
      name=${name}_rows128_tma
      gpuflags=(--gpu-attention-rows=128 --gpu-attention-tma)
    elif [[ "$entry" == *:rows128tmanopp ]]; then
      name=${name}_rows128_tma_nopp
      gpuflags=(--gpu-attention-rows=128 --gpu-attention-tma --gpu-attention-pingpong=false)
    elif [[ "$entry" == *:fa3 ]]; then
      name=${name}_rows128_keys128_tma
      gpuflags=(--gpu-attention-rows=128 --gpu-attention-keys=128 --gpu-attention-tma)
    elif [[ "$entry" == *:n256 ]]; then
      name=${name}_n256
      gpuflags=(--gpu-matmul-tile-n=256)
    elif [[ "$entry" == *:gemvsimt ]]; then
      name=${name}_gemvsimt
      gpuflags=(--gpu-gemv-mma=false)
    elif [[ "$entry" == *:nofold ]]; then
      name=${name}_nofold
      gpuflags=(--gpu-fold-norms=false)
    elif [[ "$entry" == *:bf16 ]]; then
      name=${name}_bf16
      dims=(--float-type=bf16)
    elif [[ "$entry" == *:bf16io ]]; then
      name=${name}_bf16io
      dims=(--float-type=bf16 --float-type-io)
    elif [[ "$entry" == *:shared ]]; then
      name=${name}_shared
      dims=(--shared-kv-buffers)
    elif [[ "$entry" == *:absorb ]]; then
      # decoda-absorb-mla on the CUDA build only: the CPU reference computes MLA unabsorbed.
      gpuflags=(--graph-opt-options=absorb-mla=true)
    fi
    case "$name" in int8_*) dims+=(--quantize=int8 --no-smooth --quant-attention=false) ;; esac
    if ! "$bin/decoda-compile" "$p" "${dims[@]}" --target=cuda --gpu-arch=sm_90a \
        "${gpuflags[@]}" -o "$dir/models/$name.cuda.so" 2>"$dir/models/$name.cuda.log"; then
      echo "gpu_check: $name does not compile for CUDA yet (see models/$name.cuda.log)"
      rm -f "$dir/models/$name.cuda.so"
      continue
    fi
    rm -f "$dir/models/$name.cuda.log" "$dir/models/$name.cuda.h"
    # Timed only (the others: checked at T=16 too; spec_decode_attention_d128's 16 MiB of
    # caches would not fit DIR: spec_attention_small checks its kernels instead).
    case "$name" in llama32_1b_*|spec_decode_attention_d128) continue ;; esac
    "$bin/decoda-compile" "$p" "${dims[@]}" -o "$dir/models/$name.cpu.so" 2>/dev/null || continue
    # Inputs from the signature (dynamic extents = 16), then the CPU reference outputs; a model
    # with several entry points gets one check per entry (key NAME.ENTRY, the entry recorded in
    # inputs/KEY.entry for `run`).
    "$bin/decoda-run" "$dir/models/$name.cpu.so" --list >"$dir/inputs/$name.list"
    entries=$(sed -n 's/^entry \([^ ]*\).*/\1/p' "$dir/inputs/$name.list")
    nentries=$(echo "$entries" | wc -l)
    for e in $entries; do
    key=$name
    entry_flag=()
    if (( nentries > 1 )); then
      key=$name.$e
      entry_flag=(--entry "$e")
      echo "$e" >"$dir/inputs/$key.entry"
    fi
    awk -v e="$e" '/^entry /{on=($2==e)} on' "$dir/inputs/$name.list" >"$dir/inputs/$key.sig"
    if [[ -f "${p%.*}.inputs.npz" ]]; then
      cp "${p%.*}.inputs.npz" "$dir/inputs/$key.npz"
    else
    "$PY" - "$dir/inputs/$key.sig" "$dir/inputs/$key.npz" "$here/gpu" <<'PYEOF'
import json, re, sys
import numpy as np
sys.path.insert(0, sys.argv[3])
import bigarrays
rng = np.random.default_rng(0)
arrays = {}
# Float arrays of more than bigarrays.LIMIT elements (a decode step's KV caches) from its
# portable generator: not carried, rebuilt on the GPU machine from KEY.big.
big = {}
for line in open(sys.argv[1]):
    m = re.match(r"\s*input\s+([^\s:]+):?\s+(\S+)\s+\[([^\]]*)\]", line)
    if not m:
        continue
    name, dtype, dims = m.group(1), m.group(2), m.group(3)
    extents = [d.strip() for d in dims.replace("x", ",").split(",") if d.strip()]
    shape = [16 if d in ("?", "-1") else int(d) for d in extents]
    # Activations (a dynamic extent) and vectors: 0.5 N(0, 1). Static matrices and up (the
    # weights, caches): N(0, 1 / last extent), as models are initialised, so that every
    # projection keeps its activations near 1: with 0.5 N(0, 1) weights a block's outputs
    # reach hundreds, and one bf16 ulp there (2 at 256) exceeds any tolerance meant for
    # values near 1 where two correct programs round differently.
    scale = 0.5
    if len(shape) >= 2 and all(d not in ("?", "-1") for d in extents):
        scale = shape[-1] ** -0.5
    if dtype in ("f32", "f16", "f64", "bf16") and int(np.prod(shape)) > bigarrays.LIMIT:
        big[name] = bigarrays.recipe(name, dtype, shape, scale)
        arrays[name] = bigarrays.array(big[name])
    elif dtype in ("f32", "f16", "f64"):
        arrays[name] = (rng.standard_normal(shape) * scale).astype({"f32": "<f4", "f16": "<f2", "f64": "<f8"}[dtype])
    elif dtype == "bf16":
        arrays[name] = ((rng.standard_normal(shape) * scale).astype("<f4").view("<u4") >> 16).astype("<u2")
    elif dtype in ("i32", "i64"):
        arrays[name] = rng.integers(0, 8, shape).astype("<i4" if dtype == "i32" else "<i8")
    else:
        raise SystemExit(f"gpu_check: no input generator for {dtype}")
np.savez(sys.argv[2], **arrays)
if big:
    json.dump(big, open(sys.argv[2][:-len(".npz")] + ".big", "w"), indent=1)
PYEOF
    fi
    if ! "$bin/decoda-run" "$dir/models/$name.cpu.so" "${entry_flag[@]}" \
        --inputs "$dir/inputs/$key.npz" --output-dir "$dir/ref/$key" >/dev/null; then
      echo "gpu_check: no CPU reference for $key (random inputs rejected); not checked"
      rm -rf "$dir/ref/$key"
    fi
    # A donated output (a KV cache) is its input with the new rows written: a large one's
    # reference is dropped to keep DIR under 64 MiB (the cache append is checked numerically on
    # the PTX interpreter, test/GPU/gemv-sim.mlir), the step's other outputs are still checked.
    for out in $(sed -n 's/^ *donate [^ ]* -> \([^ ]*\)$/\1/p' "$dir/inputs/$key.sig"); do
      f="$dir/ref/$key/$out.npy"
      if [[ -f "$f" ]] && (( $(stat -c %s "$f") > 1048576 )); then
        rm -f "$f"
        echo "gpu_check: $key: output $out (donated, over 1 MiB) not checked"
      fi
    done
    # Large inputs (KEY.big: their recipes) are rebuilt by `run`, not carried.
    if [[ -f "$dir/inputs/$key.big" ]]; then
      "$PY" "$here/gpu/bigarrays.py" strip "$dir/inputs/$key.npz" "$dir/inputs/$key.small.npz" \
          "$dir/inputs/$key.big" || exit 1
      mv "$dir/inputs/$key.small.npz" "$dir/inputs/$key.npz"
    fi
    # Inputs identical to an earlier program's (the same signature: e.g. a decode step and its
    # INT8 build) are carried once; inputs/KEY.same names the file to read.
    for other in "$dir"/inputs/*.npz; do
      [[ "$other" == "$dir/inputs/$key.npz" ]] && continue
      [[ $(stat -c %s "$other") == $(stat -c %s "$dir/inputs/$key.npz") ]] || continue
      # (the same large-input recipes too, or none on either side)
      if [[ -f "${other%.npz}.big" || -f "$dir/inputs/$key.big" ]]; then
        cmp -s "${other%.npz}.big" "$dir/inputs/$key.big" || continue
      fi
      if "$PY" -c "import sys, numpy as np; a, b = np.load(sys.argv[1]), np.load(sys.argv[2]); sys.exit(0 if sorted(a.files) == sorted(b.files) and all(a[k].dtype == b[k].dtype and np.array_equal(a[k], b[k]) for k in a.files) else 1)" \
          "$other" "$dir/inputs/$key.npz"; then
        basename "$other" .npz >"$dir/inputs/$key.same"
        rm -f "$dir/inputs/$key.npz" "$dir/inputs/$key.big"
        break
      fi
    done
    done
    rm -f "$dir/inputs/$name.list"
    rm -f "$dir/models/$name.cpu.so" "$dir/models/$name.cpu.h"
  done
  # The timed block with constant weights: resident on the device after the first call; the
  # prefill build (dynamic T) and the decode build (static T = 1). The same block with int4
  # weights (make_const_block.py --int4: decoda.dequantize_blocks of 4-bit codes with bf16
  # scales and zero points per 32, as MatMulNBits stores them): its decode build, whose GEMV
  # kernels read the codes, is checked against the CPU build (its weights folded to bf16) on one
  # token and timed beside const_decode_T1 (its GEMV kernels on tensor cores, and SIMT:
  # int4_decode_simt, --gpu-gemv-mma=false, whose side file is the same bytes and is copied
  # from int4_decode's on the GPU machine: models/NAME.cuda.weights.same names the model); its
  # dynamic build (a dequantisation kernel per weight, then the tensor cores) is timed at
  # T = 2048.
  tmp=$(mktemp -d)
  "$PY" "$here/gpu/make_const_block.py" "$tmp/const.mlir"
  "$PY" "$here/gpu/make_const_block.py" --int4 "$tmp/int4.mlir"
  for variant in const const_decode int4 int4_decode int4_decode_simt; do
    m=llama32_1b_$variant
    dims=() extra=()
    [[ $variant == *_decode* ]] && dims=(--static-dims=0:1=1)
    [[ $variant == *_simt ]] && extra=(--gpu-gemv-mma=false)
    src=${variant%_simt}
    if "$bin/decoda-compile" "$tmp/${src%_decode}.mlir" "${dims[@]}" "${extra[@]}" --target=cuda \
        --gpu-arch=sm_90a --weights=file -o "$dir/models/$m.cuda.so" \
        2>"$dir/models/$m.cuda.log"; then
      rm -f "$dir/models/$m.cuda.log" "$dir/models/$m.cuda.h"
    else
      echo "gpu_check: the constant-weight block ($variant) does not compile (see models/$m.cuda.log)"
    fi
  done
  same=llama32_1b_int4_decode
  if [[ -e "$dir/models/llama32_1b_int4_decode_simt.cuda.weights" ]] &&
      cmp -s "$dir/models/$same.cuda.weights" "$dir/models/llama32_1b_int4_decode_simt.cuda.weights"; then
    rm -f "$dir/models/llama32_1b_int4_decode_simt.cuda.weights"
    echo "$same" >"$dir/models/llama32_1b_int4_decode_simt.cuda.weights.same"
  fi
  for w in "$dir"/models/llama32_1b_*.cuda.weights; do
    [[ -e "$w" ]] || continue
    "$PY" -c "import sys, zlib; d = open(sys.argv[1], 'rb').read(); open(sys.argv[2], 'wb').write(zlib.compress(d, 6))" \
      "$w" "$w.z"
    rm -f "$w"
  done
  m=llama32_1b_int4_decode
  if [[ -e "$dir/models/$m.cuda.so" ]] &&
      "$bin/decoda-compile" "$tmp/int4.mlir" --static-dims=0:1=1 --weights=file \
        -o "$tmp/$m.cpu.so" >/dev/null 2>&1; then
    "$PY" -c "import sys, numpy as np; x = (np.random.default_rng(0).standard_normal((1, 1, 2048)) * 0.5).astype('<f4'); np.savez(sys.argv[1], h=(x.view('<u4') >> 16).astype('<u2'))" \
      "$dir/inputs/$m.npz"
    echo "input h: bf16 [1x1x2048]" >"$dir/inputs/$m.sig"
    if ! "$bin/decoda-run" "$tmp/$m.cpu.so" --inputs "$dir/inputs/$m.npz" \
        --output-dir "$dir/ref/$m" >/dev/null; then
      echo "gpu_check: no CPU reference for $m; not checked"
      rm -rf "$dir/ref/$m"
    fi
    rm -f "$tmp/$m".cpu.*
  fi
  # The SIMT build of the int4 decode step is checked against the same reference.
  if [[ -d "$dir/ref/$m" && -e "$dir/models/${m}_simt.cuda.so" ]]; then
    cp -r "$dir/ref/$m" "$dir/ref/${m}_simt"
    cp "$dir/inputs/$m.sig" "$dir/inputs/${m}_simt.sig"
    echo "$m" >"$dir/inputs/${m}_simt.same"
  fi
  # Cubins of the bf16 block's tensor-core, row-norm and flash-attention kernels and of the
  # bench attention (head dim 128), for SASS instruction counts on the GPU machine.
  mkdir -p "$dir/sass"
  "$bin/decoda-compile" "$here/gpu/llama32_1b_block.mlir" --target=cuda --gpu-arch=sm_90a \
      --emit=ptx -o "$tmp/block.ptx"
  "$bin/decoda-compile" "$here/gpu/attention_d128.mlir" --target=cuda --gpu-arch=sm_90a \
      --emit=ptx -o "$tmp/attn.ptx"
  "$bin/decoda-compile" "$gen/int8_proj.mlir" --quantize=int8 --no-smooth --quant-attention=false \
      --target=cuda --gpu-arch=sm_90a --emit=ptx -o "$tmp/int8.ptx"
  cat "$tmp/attn.ptx" "$tmp/int8.ptx" >>"$tmp/block.ptx"
  # The T = 1 block's GEMV kernels, renamed decode_* (same function, same kernel names).
  "$bin/decoda-compile" "$here/gpu/llama32_1b_block.mlir" --static-dims=0:1=1 --target=cuda \
      --gpu-arch=sm_90a --emit=ptx -o "$tmp/decode.ptx"
  sed 's|^// gpu.binary @|// gpu.binary @decode_|' "$tmp/decode.ptx" >>"$tmp/block.ptx"
  # The int4 block's decode GEMV kernels, on tensor cores (int4_*) and SIMT (int4_simt_*).
  "$bin/decoda-compile" "$tmp/int4.mlir" --static-dims=0:1=1 --target=cuda --gpu-arch=sm_90a \
      --emit=ptx -o "$tmp/int4.ptx"
  sed 's|^// gpu.binary @|// gpu.binary @int4_|' "$tmp/int4.ptx" >>"$tmp/block.ptx"
  "$bin/decoda-compile" "$tmp/int4.mlir" --static-dims=0:1=1 --target=cuda --gpu-arch=sm_90a \
      --gpu-gemv-mma=false --emit=ptx -o "$tmp/int4_simt.ptx"
  sed 's|^// gpu.binary @|// gpu.binary @int4_simt_|' "$tmp/int4_simt.ptx" >>"$tmp/block.ptx"
  "$PY" - "$tmp/block.ptx" "$dir/sass" "${CUDA_HOME:-/usr/local/cuda}/bin/ptxas" <<'PYEOF'
import re, subprocess, sys
t = open(sys.argv[1]).read()
parts = re.split(r"^// gpu.binary @(\S+)\n", t, flags=re.M)[1:]
for name, ptx in zip(parts[0::2], parts[1::2]):
    if "mma.sync" not in ptx and "wgmma.mma_async" not in ptx and "shfl.sync" not in ptx:
        continue
    open(f"/tmp/{name}.ptx", "w").write(ptx)
    out = subprocess.run([sys.argv[3], "-arch=sm_90a", "-v", f"/tmp/{name}.ptx", "-o", f"{sys.argv[2]}/{name}.cubin"],
                         capture_output=True, text=True)
    info = " ".join(l.split("info    : ")[-1] for l in out.stderr.splitlines() if "Used" in l or "spill" in l)
    print(f"gpu_check: {name}: {info}")
PYEOF
  rm -rf "$tmp" "$gen"
  # What travels to the GPU machine is DIR and the working tree (tracked files and untracked
  # ones not ignored), 64 MiB together.
  bytes=$(du -sb "$dir" | cut -f1)
  tree=$("$PY" - "$root" "$dir" <<'PYEOF'
import os, subprocess, sys
root, d = os.path.realpath(sys.argv[1]), os.path.realpath(sys.argv[2]) + os.sep
names = subprocess.run(["git", "-C", root, "ls-files", "-z", "--cached", "--others",
                        "--exclude-standard"], capture_output=True, check=True).stdout
total = 0
for n in set(filter(None, names.decode().split("\0"))):
    path = os.path.join(root, n)
    if os.path.isfile(path) and not path.startswith(d):  # DIR is counted on its own
        total += os.path.getsize(path)
print(total)
PYEOF
)
  echo "gpu_check: prepared $dir ($((bytes >> 20)) MiB; with the working tree $(((bytes + tree) >> 20)) MiB of the 64 that travel)"
  if ((bytes + tree > 64 * 1024 * 1024)); then
    echo "gpu_check: $dir and the working tree exceed the 64 MiB that travel" >&2
    exit 1
  fi
  exit 0
fi

if [[ "$mode" != run ]]; then
  echo "usage: $0 prepare DIR | run DIR [all|checks|timings]" >&2
  exit 2
fi
# What to run (all, the default: SASS counts, checks, timings) and the time it may take: a lent
# GPU gives a session minutes, not hours, so the run keeps to GPU_CHECK_BUDGET seconds (default
# 480) from its start. The numerical checks stop starting new ones after GPU_CHECK_CHECK_BUDGET
# (default 200; the rest are listed as SKIPPED and the run fails); the timings run the headline
# cases first (the issue's anchors: prefill T = 2048, decode with and without a KV cache,
# attention T = 4096, FlashAttention-3's configuration, the int4 decode step), then PyTorch's
# figures for the same shapes, then the variants, each skipped once the budget is spent; a
# summary table of every figure ends the run.
what=${3:-all}
case "$what" in all|checks|timings) ;; *)
  echo "gpu_check: run DIR [all|checks|timings]: unknown '$what'" >&2
  exit 2 ;;
esac
budget=${GPU_CHECK_BUDGET:-480}
check_budget=${GPU_CHECK_CHECK_BUDGET:-200}
stamp() { echo "[gpu_check +${SECONDS}s] $*"; }
run="$dir/bin/decoda-run"
export LD_LIBRARY_PATH="$dir/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
status=0
for z in "$dir"/models/*.weights.z; do
  [[ -e "$z" ]] || continue
  "$PY" -c "import sys, zlib; open(sys.argv[2], 'wb').write(zlib.decompress(open(sys.argv[1], 'rb').read()))" "$z" "${z%.z}"
done
# Side files that are another model's bytes (models/NAME.cuda.weights.same: that model's name).
for same in "$dir"/models/*.weights.same; do
  [[ -e "$same" ]] || continue
  cp "$dir/models/$(cat "$same").cuda.weights" "${same%.same}"
done
stamp "== SASS of the tensor-core, GEMV (decode_*), row-norm and flash-attention kernels (cuobjdump)"
if [[ "$what" == timings ]]; then
  echo "(not asked for)"
elif command -v cuobjdump >/dev/null 2>&1; then
  for c in "$dir"/sass/*.cubin; do
    [[ -e "$c" ]] || continue
    counts=$(cuobjdump -sass "$c" | grep -oE "HMMA|IMMA|HGMMA|IGMMA|WARPGROUP|IDP|LDSM|LDGSTS|BAR|STL|LDL|SHFL|LDS|STS|LDG\.E\.128|LDG\.E\.64|FFMA|MUFU|LOP3|PRMT|HFMA2|HADD2|HMUL2|SHF|IMAD|F2FP" | sort | uniq -c | tr '\n' ' ')
    total=$(cuobjdump -sass "$c" | grep -cE '^[[:space:]]+/\*[0-9a-f]{4}\*/')
    echo "$(basename "$c" .cubin): $total instructions; $counts"
  done
else
  echo "cuobjdump not found: no SASS counts"
fi
stamp "== numerical checks (CUDA vs CPU reference; bf16 models rtol/atol 3e-2, the f16 export 1e-2, others rtol 2e-3 atol 2e-4)"
skipped=()
[[ "$what" == timings ]] && echo "(not asked for)"
for refdir in "$dir"/ref/*/; do
  [[ "$what" == timings ]] && break
  key=$(basename "$refdir")
  name=${key%%.*}
  if ((SECONDS > check_budget)); then
    skipped+=("$key")
    continue
  fi
  m="$dir/models/$name.cuda.so"
  if [[ ! -e "$m" ]]; then
    echo "FAIL $key (no CUDA artifact)"
    status=1
    continue
  fi
  entry_flag=()
  [[ -f "$dir/inputs/$key.entry" ]] && entry_flag=(--entry "$(cat "$dir/inputs/$key.entry")")
  checks=()
  for r in "$refdir"*.npy; do
    checks+=(--check "$(basename "$r" .npy)=$r")
  done
  tol=(--rtol 2e-3 --atol 2e-4)
  { grep -q "bf16" "$dir/inputs/$key.sig" || [[ "$key" == *_bf16* ]]; } && tol=(--rtol 3e-2 --atol 3e-2)
  # The f16 export: outputs near 4, where one f16 ulp is 3.9e-3.
  [[ "$key" == f16_* || "$key" == gqa_*f16* || "$key" == genai_*f16* ]] && tol=(--rtol 1e-2 --atol 1e-2)
  # Gemma's logits reach 59 through its tied head, sums of large terms: a small logit moves by
  # 0.065 when the bf16 sums round in another order (the PTX interpreter against the CPU build,
  # 7 Dec 2026; test/GPU/onnx-decoder-variants-sim.mlir holds it to 0.3 against ONNX Runtime).
  [[ "$key" == hf_decoder_kv_gemma* ]] && tol=(--rtol 3e-2 --atol 0.3)
  inputs="$dir/inputs/$key.npz"
  [[ -f "$dir/inputs/$key.same" ]] && inputs="$dir/inputs/$(cat "$dir/inputs/$key.same").npz"
  # Large inputs rebuilt from their recipes (bigarrays.py), bit for bit those of the reference.
  full=""
  if [[ -f "${inputs%.npz}.big" ]]; then
    full="$dir/inputs/$key.full.npz"
    if ! "$PY" "$dir/bin/bigarrays.py" expand "$inputs" "${inputs%.npz}.big" "$full"; then
      echo "FAIL $key (its large inputs not rebuilt)"
      status=1
      continue
    fi
    inputs=$full
  fi
  # A time limit per check (GPU_CHECK_TIMEOUT seconds, default 60): a kernel that never
  # finishes (a barrier or mbarrier wait gone wrong) fails its check, not the whole run.
  if timeout -k 5 "${GPU_CHECK_TIMEOUT:-60}" "$run" "$m" "${entry_flag[@]}" --inputs "$inputs" \
      "${checks[@]}" "${tol[@]}"; then
    echo "PASS $key"
  else
    echo "FAIL $key"
    status=1
  fi
  # Decode-shaped programs again with launch graphs: the checked outputs are those of the last
  # of four calls, the graph built by the first, its temporaries moved to the arena by the
  # second (every node updated), replayed as it is by the third and fourth.
  if [[ $key == *decode* || $key == *step* ]]; then
    if timeout -k 5 "${GPU_CHECK_TIMEOUT:-60}" "$run" "$m" "${entry_flag[@]}" --inputs "$inputs"         --cuda-graphs --bench 2 --warmup 1 "${checks[@]}" "${tol[@]}"; then
      echo "PASS $key (launch graphs)"
    else
      echo "FAIL $key (launch graphs)"
      status=1
    fi
  fi
  if [[ -n "$full" ]]; then rm -f "$full"; fi
done
if ((${#skipped[@]})); then
  echo "SKIPPED (GPU_CHECK_CHECK_BUDGET=${check_budget}s spent): ${skipped[*]}"
  status=1
fi

if [[ "$what" == checks ]]; then
  stamp "done"
  exit $status
fi
stamp "== timings (until GPU_CHECK_BUDGET=${budget}s)"
GPU_CHECK_DEADLINE=$(($(date +%s) + budget - SECONDS)) "$PY" - "$dir" "$run" <<'PYEOF' || status=1
import os, subprocess, sys, time
import numpy as np
d, run = sys.argv[1], sys.argv[2]
deadline = float(os.environ["GPU_CHECK_DEADLINE"])
start = time.time()
rng = np.random.default_rng(0)
def bf16(shape):
    return ((rng.standard_normal(shape) * 0.05).astype("<f4").view("<u4") >> 16).astype("<u2")
# Every timed case, queued with its priority (1: the headline figures, run first; 2: the rest),
# and what each gave, for the summary at the end.
CASES, RESULTS, PEER = [], [], []
def bench(*args, prio=2, **kwargs):
    CASES.append((prio, args, kwargs))
def say(line):
    print(line, flush=True)
    PEER.append(line)
def run_case(model, arrays, label, flops=None, bytes_=None, device=False, graphs=False,
             plain=False, host=("offset",)):
    """device: the inputs uploaded once (decoda-run --device-inputs), donated caches written in
    place on the device (--donate); else host inputs copied by every call. graphs: launch
    graphs (--cuda-graphs; timed calls only: profiled runs launch kernel by kernel). plain:
    DECODA_CUDA_DEPENDENT_LAUNCH=0, every kernel launched after the one before has ended (the
    default launches them as programmatic dependents; the profiled runs are plain either
    way, so compare the call figures). host: inputs kept in host memory with device=True
    (scalars the host code reads)."""
    if time.time() > deadline:
        print(label, "SKIPPED (GPU_CHECK_BUDGET spent)", flush=True)
        RESULTS.append((label, None, None, "skipped: budget spent"))
        return
    path = os.path.join(d, "inputs", label + ".npz")
    np.savez(path, **arrays)
    # The cache offset stays in host memory: the host code reads it (a device one would be
    # copied back by every call).
    names = ",".join(k for k in arrays if k not in host)
    flags = ["--device-inputs=" + names, "--donate"] if device else []
    # --profile: 10 more runs with CUDA events around every launch (before the timed ones): the
    # kernels' span without the per-call copies of host inputs and outputs, and each launch.
    flags += ["--cuda-graphs", "--bench", "50"] if graphs else ["--profile", "--bench", "10"]
    try:
        env = dict(os.environ, DECODA_CUDA_DEPENDENT_LAUNCH="0" if plain else "1")
        out = subprocess.run([run, model, "--inputs", path, "--warmup", "2"] + flags,
                             capture_output=True, text=True, env=env,
                             timeout=float(os.environ.get("GPU_CHECK_TIMEOUT", "60")) * 2)
    except subprocess.TimeoutExpired:
        os.remove(path)
        print(label, "TIMEOUT (no result)", flush=True)
        RESULTS.append((label, None, None, "timeout"))
        return
    os.remove(path)
    print(label, out.stdout.strip(), out.stderr.strip(), flush=True)
    import re
    found = {}
    for what, pattern in (("call", r"^bench .*median ([0-9.]+) ms"),
                          ("kernels", r"^profile .*kernels median ([0-9.]+) ms")):
        m = re.search(pattern, out.stdout, re.M)
        if not m:
            continue
        ms = found[what] = float(m.group(1))
        if flops: print(f"  {label} ({what}): {flops / ms / 1e9:.1f} TFLOP/s (H200 bf16 dense peak 989)")
        if bytes_: print(f"  {label} ({what}): {bytes_ / ms / 1e6:.1f} GB/s (H200 HBM 4800)")
    def rate(ms):
        if ms is None: return "-"
        if flops: return f"{flops / ms / 1e9:.1f} TFLOP/s ({flops / ms / 1e9 / 989:.0%})"
        if bytes_: return f"{bytes_ / ms / 1e6:.0f} GB/s ({bytes_ / ms / 1e6 / 4800:.0%})"
        return "-"
    note = "" if out.returncode == 0 else f"exit {out.returncode}"
    RESULTS.append((label, found.get("kernels"), found.get("call"),
                    note or f"{rate(found.get('kernels'))} | {rate(found.get('call'))}"))
H, KV, D, F = 2048, 8, 64, 8192
block = os.path.join(d, "models", "llama32_1b_block.cuda.so")
if os.path.exists(block):
    sig = subprocess.run([run, block, "--list"], capture_output=True, text=True).stdout
    names = [l.split()[1].rstrip(":") for l in sig.splitlines() if l.strip().startswith("input")]
    made = {}
    def inputs(T):
        # One set of inputs per T, shared by the builds timed at it (the cases are queued first
        # and run later; making 121 MB of weights for each would eat the budget).
        if T in made:
            return made[T]
        w = made[T] = {}
        dims = [("h", (1, T, H)), ("attn_norm", (H,)), ("wq", (H, H)), ("wk", (KV * D, H)),
                ("wv", (KV * D, H)), ("wo", (H, H)), ("mlp_norm", (H,)), ("w_gate", (F, H)),
                ("w_up", (F, H)), ("w_down", (H, F))]
        for (n, s), name in zip(dims, names):
            w[name] = bf16(s)
        return w
    weights = 2 * (2 * H * H + 2 * KV * D * H + 3 * F * H)
    T = 2048
    flops = 2 * T * (2 * H * H + 2 * KV * D * H + 3 * F * H) + 2 * 2 * T * T * H / 2
    bench(block, inputs(T), "prefill_T2048", flops=flops, device=True, prio=1)
    bench(block, inputs(T), "prefill_T2048_nopdl", flops=flops, device=True, plain=True)
    for variant in ("nogateup", "ws", "rows128", "keys128", "tma", "rows128_keys128_tma", "n256"):
        other = os.path.join(d, "models", f"llama32_1b_block_{variant}.cuda.so")
        if os.path.exists(other):
            bench(other, inputs(T), f"prefill_T2048_{variant}", flops=flops, device=True)
    # Decode: the static T = 1 build (GEMV projections) when there is one.
    dec = os.path.join(d, "models", "llama32_1b_block_decode.cuda.so")
    bench(dec if os.path.exists(dec) else block, inputs(1), "decode_T1", bytes_=weights,
          device=True, prio=1)
    # The same calls as launch graphs (one graph launch a call; compare the call figures).
    bench(dec if os.path.exists(dec) else block, inputs(1), "decode_T1_graphs", bytes_=weights,
          device=True, graphs=True, prio=1)
    # Without programmatic dependent launch (the call figures differ; the profiles do not).
    bench(dec if os.path.exists(dec) else block, inputs(1), "decode_T1_nopdl", bytes_=weights,
          device=True, plain=True)
    bench(dec if os.path.exists(dec) else block, inputs(1), "decode_T1_graphs_nopdl",
          bytes_=weights, device=True, graphs=True, plain=True)
    if os.path.exists(dec):
        bench(block, inputs(1), "decode_T1_dynamic_build", bytes_=weights, device=True)
    # Eight tokens at once (speculative decoding, small batches): the dynamic build's 16-row
    # tensor-core GEMV, and the 8-row SIMT GEMV (--gpu-gemv-mma=false).
    bench(block, inputs(8), "block_T8", bytes_=weights, device=True)
    simt = os.path.join(d, "models", "llama32_1b_block_gemvsimt.cuda.so")
    if os.path.exists(simt):
        bench(simt, inputs(8), "block_T8_gemvsimt", bytes_=weights, device=True)
step = os.path.join(d, "models", "llama32_1b_step.cuda.so")
if os.path.exists(step):
    # The decode step at context 4096: weights and caches device-resident, the token at 4095.
    S = 4096
    arrays = {"h": bf16((1, 1, H)), "attn_norm": bf16((H,)), "wq": bf16((H, H)),
              "wk": bf16((KV * D, H)), "wv": bf16((KV * D, H)), "wo": bf16((H, H)),
              "mlp_norm": bf16((H,)), "w_gate": bf16((F, H)), "w_up": bf16((F, H)),
              "w_down": bf16((H, F)), "k_cache": bf16((1, S, KV, D)),
              "v_cache": bf16((1, S, KV, D)), "offset": np.array(S - 1, np.int64)}
    weights = 2 * (2 * H * H + 2 * KV * D * H + 3 * F * H)
    bench(step, arrays, "decode_step_S4096", bytes_=weights + 2 * S * KV * D * 2, device=True, prio=1)
    bench(step, arrays, "decode_step_S4096_graphs", bytes_=weights + 2 * S * KV * D * 2,
          device=True, graphs=True, prio=1)
    bench(step, arrays, "decode_step_S4096_nopdl", bytes_=weights + 2 * S * KV * D * 2,
          device=True, plain=True)
    bench(step, arrays, "decode_step_S4096_graphs_nopdl", bytes_=weights + 2 * S * KV * D * 2,
          device=True, graphs=True, plain=True)
    # The same with its two RMSNorms as kernels of their own (9 launches instead of 7).
    nofold = os.path.join(d, "models", "llama32_1b_step_nofold.cuda.so")
    if os.path.exists(nofold):
        bench(nofold, arrays, "decode_step_S4096_nofold", bytes_=weights + 2 * S * KV * D * 2,
              device=True)
        bench(nofold, arrays, "decode_step_S4096_nofold_graphs",
              bytes_=weights + 2 * S * KV * D * 2, device=True, graphs=True)
# onnxruntime-genai's GroupQueryAttention decode step (f16, 32 query heads over 8 KV heads of
# 64, rotary) at context 4096 over a 4096-entry past buffer, device-resident: GB/s of the keys
# and values it must read. The default build writes all of present (its own buffer); the
# --shared-kv-buffers build, the past donated, writes the new token in place.
gqa_bytes = 2 * 4096 * 8 * 64 * 2
def f16(shape):
    return (0.5 * rng.standard_normal(shape)).astype("<f2")
for variant in ("", "_shared"):
    gqa = os.path.join(d, "models", f"gqa_genai_f16_decode{variant}.cuda.so")
    if os.path.exists(gqa):
        arrays = {"query": f16((1, 1, 2048)), "key": f16((1, 1, 512)), "value": f16((1, 1, 512)),
                  "past_key": f16((1, 8, 4096, 64)), "past_value": f16((1, 8, 4096, 64)),
                  "seqlens_k": np.array([4095], np.int32),
                  "total_sequence_length": np.array(4096, np.int32)}
        bench(gqa, arrays, f"gqa_decode_t4096{variant}", bytes_=gqa_bytes, device=True,
              host=("seqlens_k", "total_sequence_length"))
const = os.path.join(d, "models", "llama32_1b_const.cuda.so")
if os.path.exists(const):
    T = 2048
    flops = 2 * T * (2 * H * H + 2 * KV * D * H + 3 * F * H) + 2 * 2 * T * T * H / 2
    bench(const, {"h": bf16((1, T, H))}, "const_prefill_T2048", flops=flops)
    cdec = os.path.join(d, "models", "llama32_1b_const_decode.cuda.so")
    bench(cdec if os.path.exists(cdec) else const, {"h": bf16((1, 1, H))}, "const_decode_T1",
          bytes_=weights)
    if os.path.exists(cdec):
        bench(const, {"h": bf16((1, 1, H))}, "const_decode_T1_dynamic_build", bytes_=weights)
# The block with int4 weights (4-bit codes, bf16 scale and zero point per 32 weights: 0.625 bytes
# a weight): a decode step's GB/s of those bytes (the GEMV kernels read the codes) and, as the
# figure to hold against const_decode_T1, the bf16-equivalent rate (what bf16 weights would have
# to be read at to match); prefill T = 2048 (a dequantisation kernel per weight first).
params = 2 * H * H + 2 * KV * D * H + 3 * F * H
i4 = os.path.join(d, "models", "llama32_1b_int4_decode.cuda.so")
if os.path.exists(i4):
    bench(i4, {"h": bf16((1, 1, H))}, "int4_decode_T1",
          bytes_=params // 2 + 2 * (params // 32) * 2 + 2 * 2 * H, prio=1)
    bench(i4, {"h": bf16((1, 1, H))}, "int4_decode_T1_bf16_equivalent", bytes_=2 * params + 2 * 2 * H)
# The same step with the SIMT GEMV kernels (--gpu-gemv-mma=false): codes made floats in f32,
# the exact products summed; against int4_decode_T1's tensor-core GEMV.
i4s = os.path.join(d, "models", "llama32_1b_int4_decode_simt.cuda.so")
if os.path.exists(i4s):
    bench(i4s, {"h": bf16((1, 1, H))}, "int4_decode_T1_simt",
          bytes_=params // 2 + 2 * (params // 32) * 2 + 2 * 2 * H)
i4p = os.path.join(d, "models", "llama32_1b_int4.cuda.so")
if os.path.exists(i4p):
    T = 2048
    bench(i4p, {"h": bf16((1, T, H))}, "int4_prefill_T2048",
          flops=2 * T * params + 2 * 2 * T * T * H / 2)
# Causal attention at T = 4096, head dim 128, in each build: the default wgmma kernel; the
# mma.sync one (--gpu-attention-wgmma=false); 128-row blocks (two warpgroups sharing each K/V
# tile, read once for 128 rows rather than 64); 128-key K/V tiles (S as m64n128k16: half the
# tiles, each with twice the tensor-core work for the same barrier, row-max butterflies and
# rescale); K/V by TMA from a producer warp with mbarriers per stage instead of the block
# barrier per tile (--gpu-attention-tma), with one and with two warpgroups (these taking turns
# at the tensor cores, FlashAttention-3's ping-pong, and not: _nopp), and FA3's configuration at
# head dim 128 (128 rows, 128 keys, TMA, ping-pong: _rows128_keys128_tma).
T = 4096
qkv = {"q": bf16((1, T, 32, 128)), "k": bf16((1, T, 8, 128)), "v": bf16((1, T, 8, 128))}
for variant in ("", "_mmasync", "_rows128", "_keys128", "_tma", "_rows128_tma", "_rows128_tma_nopp",
                "_rows128_keys128_tma"):
    attn = os.path.join(d, "models", f"attention_d128{variant}.cuda.so")
    if os.path.exists(attn):
        bench(attn, qkv,
              f"attention_T4096_d128_causal{variant}", flops=4 * T * T * 32 * 128 / 2,
              prio=1 if variant in ("", "_rows128_keys128_tma") else 2)
# Head dims other than 128 on the wgmma kernel (tiles of whole 64-column blocks, padded): 256
# (Gemma 2/3, 8 query heads over 4 KV heads) and 96 (Phi-3-mini, 32 heads), causal, T = 4096.
for name, h, hkv, dh in (("attention_d256", 8, 4, 256), ("attention_d96", 32, 32, 96)):
    attn = os.path.join(d, "models", f"{name}.cuda.so")
    if os.path.exists(attn):
        bench(attn, {"q": bf16((1, T, h, dh)), "k": bf16((1, T, hkv, dh)), "v": bf16((1, T, hkv, dh))},
              f"attention_T4096_d{dh}_causal", flops=4 * T * T * h * dh / 2, prio=2)
# A decode step of absorbed MLA (DeepSeek-V2-Lite: 16 heads over the latent cache, D = 576,
# Dv = 512; the SIMT split form with dynamic shared memory): GB/s of the K and V read, device
# resident.
# DeepSeek-V3's 128 heads: the split form over 8 row blocks (bytes counted once; each row
# block of a split reads them again, from L2 when its neighbours have).
for name, heads in (("mla_absorbed_decode", 16), ("mla128_absorbed_decode", 128)):
    mla = os.path.join(d, "models", f"{name}.cuda.so")
    if os.path.exists(mla):
        S = 4096
        bench(mla, {"q": bf16((1, 1, heads, 576)), "k": bf16((1, S, 1, 576)), "v": bf16((1, S, 1, 512))},
              f"{name}_S4096", bytes_=S * (576 + 512) * 2, device=True, prio=2)
# The same steps as decoda-absorb-mla writes them, V the first 512 columns of K (the one latent
# input): K staged alone, P·V from the K tile; GB/s of the 576 numbers a key read, and the
# time beside the two-input form's above.
for name, heads in (("mla_latent_decode", 16), ("mla128_latent_decode", 128)):
    mla = os.path.join(d, "models", f"{name}.cuda.so")
    if os.path.exists(mla):
        S = 4096
        bench(mla, {"q": bf16((1, 1, heads, 576)), "k": bf16((1, S, 1, 576))},
              f"{name}_S4096", bytes_=S * 576 * 2, device=True, prio=2)
# The whole decode step of MLA as a model states it (decoda.mla, weights as inputs, absorbed:
# W_UK's column kernel into the query, the latent attention, W_UV's per-head GEMV; five
# launches): GB/s of the latent cache, its RoPE key and both weights read once.
# DeepSeek-V3's 128 heads: 32 MiB of weights a step beside the 4.7 MB latent.
for name, heads in (("mla_step_decode", 16), ("mla128_step_decode", 128)):
    mla = os.path.join(d, "models", f"{name}.cuda.so")
    if os.path.exists(mla):
        S = 4096
        bench(mla, {"q_nope": bf16((1, 1, heads, 128)), "q_rope": bf16((1, 1, heads, 64)),
                    "latent": bf16((1, S, 512)), "k_rope": bf16((1, S, 64)),
                    "w_uk": bf16((heads, 128, 512)), "w_uv": bf16((heads, 128, 512))},
              f"{name}_S4096", bytes_=S * 576 * 2 + 2 * heads * 128 * 512 * 2, device=True,
              prio=2)
# The same attention in INT8 (two passes over K: the Q·Kᵀ of the row max is computed twice, so
# the integer tensor cores do 6 T² H D / 2 operations; the figure counts the 4 T² H D / 2 of the
# attention, against the 1979 dense INT8 TOPS).
attn8 = os.path.join(d, "models", "attention_int8_d128.cuda.so")
if os.path.exists(attn8):
    bench(attn8, qkv,
          "attention_int8_T4096_d128_causal", flops=4 * T * T * 32 * 128 / 2)
    print("  (INT8: the TFLOP/s above are TOPS; H200 dense INT8 peak 1979)")
# The row-norm kernel alone (fused residual add + RMSNorm, T = 2048, hidden 2048): GB/s of the
# two inputs read and two outputs written. Like every decoda-run timing on CUDA this includes
# the per-call copies of inputs and outputs between host and device (docs/GPU.md).
norm = os.path.join(d, "models", "add_rms_norm_2048.cuda.so")
if os.path.exists(norm):
    T = 2048
    bench(norm, {"r": bf16((1, T, 2048)), "a": bf16((1, T, 2048)), "w": bf16((2048,))},
          "add_rms_norm_T2048_D2048", bytes_=4 * T * 2048 * 2)
# One decode step of cached attention over a 4096-entry cache (GB/s of the K/V cache read; the
# caches device-resident and donated).
dec = os.path.join(d, "models", "decode_attention_d128.cuda.so")
if os.path.exists(dec):
    bench(dec, {"q": bf16((1, 1, 32, 128)), "k": bf16((1, 1, 8, 128)), "v": bf16((1, 1, 8, 128)),
                "k_cache": bf16((1, 4096, 8, 128)), "v_cache": bf16((1, 4096, 8, 128)),
                "offset": np.array(4095, np.int64)},
          "decode_attention_S4096_d128", bytes_=2 * 4096 * 8 * 128 * 2, device=True)
# Eight draft tokens at once over the same cache (speculative decoding: 32 rows per K/V head, the
# tensor-core kernel's split form and its combine).
spec = os.path.join(d, "models", "spec_decode_attention_d128.cuda.so")
if os.path.exists(spec):
    bench(spec, {"q": bf16((1, 8, 32, 128)), "k": bf16((1, 8, 8, 128)), "v": bf16((1, 8, 8, 128)),
                 "k_cache": bf16((1, 4096, 8, 128)), "v_cache": bf16((1, 4096, 8, 128)),
                 "offset": np.array(4088, np.int64)},
          "spec_decode_attention_T8_S4096_d128", bytes_=2 * 4096 * 8 * 128 * 2, device=True)
# The same step in INT8 (the cache quantised by the call, then the split kernels): GB/s of the
# bf16 cache read once (the quantisation reads it, writes half as much in i8; pass 1 reads K
# again in i8, pass 2 K and V).
dec8 = os.path.join(d, "models", "decode_attention_int8_d128.cuda.so")
if os.path.exists(dec8):
    bench(dec8, {"q": bf16((1, 1, 32, 128)), "k": bf16((1, 1, 8, 128)), "v": bf16((1, 1, 8, 128)),
                 "k_cache": bf16((1, 4096, 8, 128)), "v_cache": bf16((1, 4096, 8, 128)),
                 "offset": np.array(4095, np.int64)},
          "decode_attention_int8_S4096_d128", bytes_=2 * 4096 * 8 * 128 * 2, device=True)
def peer():
    try:
        import torch, torch.nn.functional as Fn
        dev = "cuda"
        def t(fn, n=10):
            for _ in range(2): fn()
            torch.cuda.synchronize()
            s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            times = []
            for _ in range(n):
                s.record(); fn(); e.record(); torch.cuda.synchronize(); times.append(s.elapsed_time(e))
            return sorted(times)[len(times) // 2]
        T = 4096
        q = torch.randn(1, 32, T, 128, device=dev, dtype=torch.bfloat16)
        k = torch.randn(1, 8, T, 128, device=dev, dtype=torch.bfloat16)
        v = torch.randn(1, 8, T, 128, device=dev, dtype=torch.bfloat16)
        ms = t(lambda: Fn.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True))
        say(f"pytorch attention T4096 d128 causal: {ms:.3f} ms, {4 * T * T * 32 * 128 / 2 / ms / 1e9:.1f} TFLOP/s")
        for h, hkv, dh in ((8, 4, 256), (32, 32, 96)):
            qh = torch.randn(1, h, T, dh, device=dev, dtype=torch.bfloat16)
            kh = torch.randn(1, hkv, T, dh, device=dev, dtype=torch.bfloat16)
            vh = torch.randn(1, hkv, T, dh, device=dev, dtype=torch.bfloat16)
            ms = t(lambda: Fn.scaled_dot_product_attention(qh, kh, vh, is_causal=True, enable_gqa=True))
            say(f"pytorch attention T4096 d{dh} causal: {ms:.3f} ms, {4 * T * T * h * dh / 2 / ms / 1e9:.1f} TFLOP/s")
        q1 = torch.randn(1, 32, 1, 128, device=dev, dtype=torch.bfloat16)
        ms = t(lambda: Fn.scaled_dot_product_attention(q1, k, v, enable_gqa=True))
        say(f"pytorch decode attention S4096 d128: {ms:.3f} ms, {2 * T * 8 * 128 * 2 / ms / 1e6:.1f} GB/s of K/V")
        # Eight draft tokens over the cache: each sees the cache and the drafts before it (the
        # causal mask aligned to the end, as in the op).
        q8 = torch.randn(1, 32, 8, 128, device=dev, dtype=torch.bfloat16)
        keep = torch.ones(8, T, device=dev, dtype=torch.bool).tril(T - 8)
        ms = t(lambda: Fn.scaled_dot_product_attention(q8, k, v, attn_mask=keep, enable_gqa=True))
        say(f"pytorch spec decode attention T8 S4096 d128: {ms:.3f} ms, {2 * T * 8 * 128 * 2 / ms / 1e6:.1f} GB/s of K/V")
        r = torch.randn(2048, 2048, device=dev, dtype=torch.bfloat16)
        a = torch.randn(2048, 2048, device=dev, dtype=torch.bfloat16)
        w = torch.randn(2048, device=dev, dtype=torch.bfloat16)
        def add_norm():
            h = r + a
            return h, Fn.rms_norm(h, (2048,), w, 1e-5)
        ms = t(add_norm)
        say(f"pytorch add + rms_norm T2048 D2048: {ms:.3f} ms, {4 * 2048 * 2048 * 2 / ms / 1e6:.1f} GB/s")
        x = torch.randn(2048, H, device=dev, dtype=torch.bfloat16)
        wq = torch.randn(H, H, device=dev, dtype=torch.bfloat16)
        wg = torch.randn(F, H, device=dev, dtype=torch.bfloat16)
        ms = t(lambda: (x @ wg.T))
        say(f"pytorch 2048x{H}x{F} bf16 matmul: {ms:.3f} ms, {2 * 2048 * H * F / ms / 1e9:.1f} TFLOP/s")
        ws = [torch.randn(n, k, device=dev, dtype=torch.bfloat16) * 0.05 for n, k in
              [(H, H), (KV * D, H), (KV * D, H), (H, H), (F, H), (F, H), (H, F)]]
        def projections(x):
            for w in ws:
                (x if w.shape[1] == x.shape[1] else torch.empty(x.shape[0], w.shape[1], device=dev, dtype=x.dtype)) @ w.T
        for T in (2048, 8, 1):
            xt = torch.randn(T, H, device=dev, dtype=torch.bfloat16)
            ms = t(lambda: projections(xt))
            fl = 2 * T * sum(w.numel() for w in ws)
            say(f"pytorch block projections T={T}: {ms:.3f} ms, {fl / ms / 1e9:.1f} TFLOP/s, "
                  f"{2 * sum(w.numel() for w in ws) / ms / 1e6:.1f} GB/s of weights")
    except Exception as e:  # no PyTorch or no GPU for it: the peer numbers are missing
        say(f"pytorch peer unavailable: {e}")

print(f"{len(CASES)} cases queued ({time.time() - start:.0f} s making their inputs)", flush=True)
for prio in (1, 2):
    for _, args, kwargs in [c for c in CASES if c[0] == prio]:
        run_case(*args, **kwargs)
    if prio == 1:
        if time.time() > deadline:
            say("pytorch peer: SKIPPED (GPU_CHECK_BUDGET spent)")
        else:
            peer()
print(f"== summary ({time.time() - start:.0f} s of timings; kernels: the median span of a call's "
      "launches, CUDA events; call: decoda-run's median wall time, copies of host inputs and "
      "outputs included; rates of the kernels | of the call, of the H200's 989 bf16 TFLOP/s or "
      "4.8 TB/s)")
print("| case | kernels ms | call ms | rate (kernels) | rate (call) |")
print("|---|---|---|---|---|")
for label, kernels, call, note in RESULTS:
    fmt = lambda ms: "-" if ms is None else f"{ms:.4f}"
    rates = note if " | " in note else f"{note} | "
    print(f"| {label} | {fmt(kernels)} | {fmt(call)} | {rates} |")
for line in PEER:
    print(line)
PYEOF
stamp "done"
exit $status
