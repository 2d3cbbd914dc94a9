// decoda-gpu-outline-kernels: gpu-kernel-outlining, then each launch's decoda.kernel_attrs set on
// the kernel it became (launches and the new gpu.launch_func ops pair up in order; a launch_func
// that was there before is skipped). Errors name the launch.
// RUN: decoda-opt %s --split-input-file --decoda-gpu-outline-kernels --verify-diagnostics | FileCheck %s
// In the CUDA pipeline: the TMA attention kernel with two warpgroups (288 threads) asks for
// 224 registers (ptxas would budget 168, for a block rounded up to 384 threads), the other
// kernels of the module nothing; at 128-key tiles (FA3's configuration at head dim 128) that
// is what lets ptxas build it without spills (168: 380 bytes of spill stores), and the kernel
// computes what reference.py does (flash-attention-wgmma-keys128-sim.mlir).
// RUN: rm -rf %t && mkdir -p %t
// RUN: decoda-compile %decoda_src/bench/gpu/attention_d128.mlir --target=cuda --gpu-arch=sm_90a --gpu-attention-tma --gpu-attention-rows=128 --emit=ptx -o %t/a.ptx
// RUN: %PYTHON -c "import re; t = open('%t/a.ptx').read(); p = re.split(r'(?m)^// gpu.binary @(\S+)\n', t); print(' '.join(n + ('=' + b.split('.maxnreg ')[1].split()[0] if '.maxnreg' in b else '') for n, b in zip(p[1::2], p[2::2])))" | FileCheck %s --check-prefix=PIPE
// PIPE: attention_d128_kernel attention_d128_kernel_0 attention_d128_kernel_1 attention_d128_kernel_2 attention_d128_kernel_3=224{{$}}

// CHECK-LABEL: func.func @two
// CHECK: gpu.launch_func @existing::@k
// CHECK: gpu.launch_func @two_kernel::@two_kernel
// CHECK: gpu.launch_func @two_kernel_0::@two_kernel
// CHECK: gpu.module @two_kernel
// CHECK: gpu.func @two_kernel({{.*}}) kernel attributes {known_block_size = array<i32: 288, 1, 1>, known_grid_size = array<i32: 1, 1, 1>, nvvm.maxnreg = 224 : i32}
// CHECK: gpu.module @two_kernel_0
// CHECK-NOT: nvvm.maxnreg
// CHECK: gpu.func @two_kernel({{.*}}) kernel attributes {known_block_size = array<i32: 4, 1, 1>, known_grid_size = array<i32: 1, 1, 1>}
module attributes {gpu.container_module} {
  gpu.module @existing {
    gpu.func @k() kernel {
      gpu.return
    }
  }
  func.func @two(%m: memref<288xf32>) {
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c288 = arith.constant 288 : index
    gpu.launch_func @existing::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
    gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1) threads(%tx, %ty, %tz) in (%a = %c288, %b = %c1, %c = %c1) {
      %v = memref.load %m[%tx] : memref<288xf32>
      %w = arith.addf %v, %v : f32
      memref.store %w, %m[%tx] : memref<288xf32>
      gpu.terminator
    } {decoda.kernel_attrs = {nvvm.maxnreg = 224 : i32}}
    gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1) threads(%tx, %ty, %tz) in (%a = %c4, %b = %c1, %c = %c1) {
      %v = memref.load %m[%tx] : memref<288xf32>
      memref.store %v, %m[%tx] : memref<288xf32>
      gpu.terminator
    }
    return
  }
}

// -----

// Nothing asked: plain outlining.
// CHECK-LABEL: func.func @plain
// CHECK: gpu.launch_func @plain_kernel::@plain_kernel
// CHECK: gpu.func @plain_kernel({{.*}}) kernel attributes {known_block_size = array<i32: 4, 1, 1>, known_grid_size = array<i32: 1, 1, 1>} {
func.func @plain(%m: memref<4xf32>) {
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1) threads(%tx, %ty, %tz) in (%a = %c4, %b = %c1, %c = %c1) {
    %v = memref.load %m[%tx] : memref<4xf32>
    memref.store %v, %m[%tx] : memref<4xf32>
    gpu.terminator
  }
  return
}

// -----

func.func @not_dict(%m: memref<4xf32>) {
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  // expected-error @+1 {{decoda.kernel_attrs must be a dictionary of attributes, got 224 : i32}}
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1) threads(%tx, %ty, %tz) in (%a = %c4, %b = %c1, %c = %c1) {
    gpu.terminator
  } {decoda.kernel_attrs = 224 : i32}
  return
}

// -----

func.func @maxnreg_range(%m: memref<4xf32>) {
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  // expected-error @+1 {{decoda.kernel_attrs: nvvm.maxnreg must be an i32 in 16..255, got 256 : i32}}
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1) threads(%tx, %ty, %tz) in (%a = %c4, %b = %c1, %c = %c1) {
    gpu.terminator
  } {decoda.kernel_attrs = {nvvm.maxnreg = 256 : i32}}
  return
}

// -----

func.func @maxnreg_type(%m: memref<4xf32>) {
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  // expected-error @+1 {{decoda.kernel_attrs: nvvm.maxnreg must be an i32 in 16..255, got 128 : i64}}
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1) threads(%tx, %ty, %tz) in (%a = %c4, %b = %c1, %c = %c1) {
    gpu.terminator
  } {decoda.kernel_attrs = {nvvm.maxnreg = 128 : i64}}
  return
}

// -----

// An attribute outlining sets itself, asked with another value: refused.
func.func @clash(%m: memref<4xf32>) {
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  // expected-error @+1 {{decoda.kernel_attrs: kernel clash_kernel already has known_block_size = array<i32: 4, 1, 1>, this launch asks for array<i32: 8, 1, 1>}}
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1) threads(%tx, %ty, %tz) in (%a = %c4, %b = %c1, %c = %c1) {
    gpu.terminator
  } {decoda.kernel_attrs = {known_block_size = array<i32: 8, 1, 1>}}
  return
}

// -----

// A flag computed on the host (an i1 the kernel uses) is passed as an i64: zero-extended at the
// launch, truncated at the kernel's entry; the other operands keep their types.
// CHECK-LABEL: func.func @flag(
// CHECK-SAME: %[[M:[^:]*]]: memref<4xf32>, %[[N:[^:]*]]: index
// CHECK: %[[F:.*]] = arith.cmpi eq, %[[N]], %c0
// CHECK: %[[W:.*]] = arith.extui %[[F]] : i1 to i64
// CHECK: gpu.launch_func @flag_kernel::@flag_kernel {{.*}} args(%{{.*}} : f32, %[[M]] : memref<4xf32>, %[[W]] : i64)
// CHECK: gpu.func @flag_kernel(%{{[^:]*}}: f32, %{{[^:]*}}: memref<4xf32>, %[[ARG:[^:]*]]: i64) kernel
// CHECK-NEXT: %[[T:.*]] = arith.trunci %[[ARG]] : i64 to i1
// CHECK: scf.if %[[T]] {
func.func @flag(%m: memref<4xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %f = arith.cmpi eq, %n, %c0 : index
  %one = arith.constant 1.0 : f32
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1) threads(%tx, %ty, %tz) in (%a = %c4, %b = %c1, %c = %c1) {
    scf.if %f {
      memref.store %one, %m[%tx] : memref<4xf32>
    }
    gpu.terminator
  }
  return
}
