// com.microsoft MatMulNBits (onnxruntime-genai's int4 weight-only models) for CUDA, on the PTX
// interpreter against ONNX Runtime: the importer keeps the codes packed (a
// decoda.dequantize_blocks of constants read by a decoda.linear in out_in layout). Decode-sized
// rows (6) take the GEMV kernel reading the codes and dequantizing in registers (f16: the bias
// fused into its stores, one launch: the dequantisation's own kernel is gone; f32 with packed
// zero points, a ragged last block and a bias: the bias add fused too, one launch, since its
// destination is a tensor.empty of its own, decoda-unshare-fills; 2 before), 80 rows in f16
// the TMA-fed wgmma kernel after a kernel that dequantizes the weight (2 launches).
// RUN: rm -rf %t && mkdir -p %t
// RUN: %PYTHON %S/Inputs/onnx_ort_io.py --case ms_matmul_nbits_f16 0 %t/h.onnx %t/h.npz %t/ho.npz
// RUN: decoda-compile %t/h.onnx --target=cuda --emit=ptx -o %t/h.ptx --dump-ir-after-each=%t/h
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/h %t/h.ptx --inputs %t/h.npz --expect %t/ho.npz --rtol 2e-3 --atol 2e-3 | FileCheck %s --check-prefix=HALF
// RUN: %PYTHON %S/Inputs/onnx_ort_io.py --case ms_matmul_nbits_4bit_zero_points_bias 0 %t/f.onnx %t/f.npz %t/fo.npz
// RUN: decoda-compile %t/f.onnx --target=cuda --emit=ptx -o %t/f.ptx --dump-ir-after-each=%t/f
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/f %t/f.ptx --inputs %t/f.npz --expect %t/fo.npz --rtol 1e-5 --atol 1e-5 | FileCheck %s --check-prefix=F32
// The f32 model run in bf16 (--float-type=bf16: scales, zero points and the dequantized weights
// bf16): the GEMV kernel rounds each weight to bf16 as the generic does; against ONNX Runtime's
// f32 result within bf16's precision.
// RUN: decoda-compile %t/f.onnx --target=cuda --float-type=bf16 --emit=ptx -o %t/b.ptx --dump-ir-after-each=%t/b
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/b %t/b.ptx --inputs %t/f.npz --expect %t/fo.npz --rtol 2e-2 --atol 2e-2 | FileCheck %s --check-prefix=BF16
// RUN: %PYTHON %S/Inputs/onnx_ort_io.py --case ms_matmul_nbits_f16_prefill 0 %t/p.onnx %t/p.npz %t/po.npz
// RUN: decoda-compile %t/p.onnx --target=cuda --gpu-arch=sm_90a --emit=ptx -o %t/p.ptx --dump-ir-after-each=%t/p
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/p %t/p.ptx --inputs %t/p.npz --expect %t/po.npz --rtol 2e-3 --atol 1e-2 | FileCheck %s --check-prefix=PREFILL

// HALF: out0: ok
// HALF: 1 launches;
// F32: out0: ok
// F32: 1 launches;
// BF16: out0: ok
// The outputs reach 18.7; ONNX Runtime's own f16 result is within 6.6e-3 of the exact product
// of the f16 weights (NumPy in float64), which these kernels match to f16 rounding.
// PREFILL: wgmma
// PREFILL: out0: ok
// PREFILL: 2 launches;
