// decoda-gpu-align-workgroup-memory: every workgroup attribution of a kernel gets llvm.align
// (16 bytes by default, for cp.async, ldmatrix and vector accesses), which the NVVM lowering
// turns into the .shared array's .align; a larger alignment is kept; a bad option is an error.
// RUN: decoda-opt %s --split-input-file --pass-pipeline="builtin.module(gpu.module(decoda-gpu-align-workgroup-memory))" | FileCheck %s
// RUN: decoda-opt %s --split-input-file --pass-pipeline="builtin.module(gpu.module(decoda-gpu-align-workgroup-memory),gpu.module(convert-gpu-to-nvvm))" | FileCheck %s --check-prefix=NVVM
// RUN: not decoda-opt %s --split-input-file --pass-pipeline="builtin.module(gpu.module(decoda-gpu-align-workgroup-memory{alignment=12}))" 2>&1 | FileCheck %s --check-prefix=BAD

// CHECK-LABEL: gpu.func @two
// CHECK-SAME: workgroup(%{{.*}} : memref<2x64x40xbf16, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}, %{{.*}} : memref<8xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64})
// NVVM: llvm.mlir.global internal @__wg_two_0() {addr_space = 3 : i32, alignment = 16 : i64}
// NVVM: llvm.mlir.global internal @__wg_two_1() {addr_space = 3 : i32, alignment = 16 : i64}
// BAD: decoda-gpu-align-workgroup-memory: alignment 12 is not a power of two
gpu.module @kernels {
  gpu.func @two() workgroup(%a : memref<2x64x40xbf16, #gpu.address_space<workgroup>>,
                            %b : memref<8xf32, #gpu.address_space<workgroup>>) kernel {
    gpu.return
  }
}

// -----

// A kernel without shared memory is untouched; a larger alignment stays.
// CHECK-LABEL: gpu.func @none() kernel
// CHECK-LABEL: gpu.func @big
// CHECK-SAME: {llvm.align = 128 : i64}
gpu.module @kernels {
  gpu.func @none() kernel {
    gpu.return
  }
  gpu.func @big() workgroup(%a : memref<64xf32, #gpu.address_space<workgroup>> {llvm.align = 128 : i64}) kernel {
    gpu.return
  }
}
