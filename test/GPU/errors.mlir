// User errors of the CUDA target: one clear message, non-zero exit.
// RUN: not decoda-compile %s --target=cuda --gpu-arch=sm_91 -o %t.so 2>&1 | FileCheck %s --check-prefix=ARCH
// ARCH: error: --gpu-arch=sm_91: unknown NVIDIA architecture (known: sm_70 {{.*}} sm_90a
// RUN: not decoda-compile %s --emit=ptx -o %t.ptx 2>&1 | FileCheck %s --check-prefix=PTX
// PTX: error: --emit=ptx needs --target=cuda
// RUN: not decoda-compile %s --gpu-arch=sm_90a -o %t.so 2>&1 | FileCheck %s --check-prefix=CPU
// CPU: error: --gpu-arch needs --target=cuda
// The pipeline's own options in decoda-opt: an error on the module, not an abort.
// RUN: not decoda-opt %s --decoda-lower-to-cuda="gpu-arch=sm_12" -o /dev/null 2>&1 | FileCheck %s --check-prefix=OPTARCH
// OPTARCH: error: decoda-lower-to-cuda: unknown gpu-arch 'sm_12' (known: sm_70 {{.*}} sm_120a)
// OPTARCH-NOT: Stack dump
// RUN: not decoda-opt %s --decoda-lower-to-cuda="format=elf" -o /dev/null 2>&1 | FileCheck %s --check-prefix=OPTFMT
// OPTFMT: error: decoda-lower-to-cuda: format must be bin or isa, got 'elf'
// OPTFMT-NOT: Stack dump
// RUN: not decoda-opt %s --decoda-lower-to-cuda="block-x=64 block-y=32" -o /dev/null 2>&1 | FileCheck %s --check-prefix=BLOCK
// BLOCK: error: decoda-gpu-map-parallel-loops: block-x (64) times block-y (32) must be between 1 and 1024 threads
// RUN: not decoda-opt %s --decoda-lower-to-cuda="attention-key-tile=0" -o /dev/null 2>&1 | FileCheck %s --check-prefix=KEYTILE
// KEYTILE: error: decoda-convert-to-linalg: attention-key-tile must be positive and attention-decode-key-tile non-negative (got 0, 0)
// RUN: not decoda-opt %s --decoda-lower-to-cuda="gpu-attention-rows=96" -o /dev/null 2>&1 | FileCheck %s --check-prefix=OPTROWS
// OPTROWS: error: decoda-gpu-flash-attention: wgmma-rows must be 64 or 128 (got 96)
// RUN: not decoda-compile %s --target=cuda --gpu-attention-rows=32 -o %t.so 2>&1 | FileCheck %s --check-prefix=ROWS
// ROWS: error: --gpu-attention-rows=32: expected 64 or 128
// RUN: not decoda-compile %s --target=cuda --gpu-arch=sm_80 --gpu-attention-rows=64 -o %t.so 2>&1 | FileCheck %s --check-prefix=ROWSARCH
// ROWSARCH: decoda-compile: error: --gpu-attention-rows needs --target=cuda --gpu-arch=sm_90a and the wgmma attention kernel (--gpu-attention-wgmma, on by default there); elsewhere it would change nothing
// RUN: not decoda-compile %s --gpu-attention-rows=64 -o %t.so 2>&1 | FileCheck %s --check-prefix=ROWSARCH
// INT8 attention before sm_80 (no integer tensor-core kernel there): refused by name.
// RUN: not decoda-compile %S/Inputs/int8_attention_small.mlir --target=cuda --gpu-arch=sm_75 -o %t.so 2>&1 | FileCheck %s --check-prefix=INT8ARCH
// INT8ARCH: error: decoda-gpu-flash-attention: INT8 attention needs the integer tensor-core kernel (tensor-cores=false: the GPU is before sm_80)
// INT8ARCH-NOT: Stack dump
// RUN: decoda-compile %S/Inputs/int8_attention_small.mlir --target=cuda --gpu-arch=sm_80 --emit=ptx -o %t.ptx
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
