// Host code of a TMA kernel as decoda-compile's CUDA model would hold it before
// decoda-lower-runtime-checks (ptxsim-tma-selftest.mlir runs it with gpusim_run.py): device
// buffers, tensor maps made by decoda_cuda_tensor_map from the buffers' byte addresses, a launch
// with dynamic shared memory. The kernel is @wgmma_tma of ptxsim-tma-selftest.mlir, its output
// the accumulator registers, 32 per thread (the kernel takes a raw pointer).
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @wgmma_tma(%a: i64, %b: i64, %o: i64, %f: i64, %r: i32) kernel {
      gpu.return
    }
  }
  llvm.func @decoda_cuda_tensor_map(i64, i64, i64, i64, i64, i64, i64, i64) -> i64
  llvm.func @decoda_cuda_finish()
  func.func @f(%a: memref<64x64xbf16>, %b: memref<64x64xbf16>, %boff: index) -> memref<128x32xf32> {
    %c1 = arith.constant 1 : index
    %c128 = arith.constant 128 : index
    %da = gpu.alloc () : memref<64x64xbf16>
    %db = gpu.alloc () : memref<64x64xbf16>
    %do = gpu.alloc () : memref<128x32xf32>
    gpu.memcpy %da, %a : memref<64x64xbf16>, memref<64x64xbf16>
    gpu.memcpy %db, %b : memref<64x64xbf16>, memref<64x64xbf16>
    %pa = memref.extract_aligned_pointer_as_index %da : memref<64x64xbf16> -> index
    %pb0 = memref.extract_aligned_pointer_as_index %db : memref<64x64xbf16> -> index
    %pb = arith.addi %pb0, %boff : index
    %ia = arith.index_cast %pa : index to i64
    %ib = arith.index_cast %pb : index to i64
    %i64 = arith.constant 64 : i64
    %i128 = arith.constant 128 : i64
    %i2 = arith.constant 2 : i64
    %ta = llvm.call @decoda_cuda_tensor_map(%ia, %i64, %i64, %i128, %i2, %i64, %i64, %i128) : (i64, i64, i64, i64, i64, i64, i64, i64) -> i64
    %tb = llvm.call @decoda_cuda_tensor_map(%ib, %i64, %i64, %i128, %i2, %i64, %i64, %i128) : (i64, i64, i64, i64, i64, i64, i64, i64) -> i64
    %po = memref.extract_aligned_pointer_as_index %do : memref<128x32xf32> -> index
    %io = arith.index_cast %po : index to i64
    // (1 << 62) | (1024 >> 4) << 32 | 1 << 16: 128-byte swizzle, SBO 1024, LBO 16.
    %flags = arith.constant 4611686293305360384 : i64
    %zero = arith.constant 0 : i32
    %dyn = arith.constant 17408 : i32
    gpu.launch_func @m::@wgmma_tma blocks in (%c1, %c1, %c1) threads in (%c128, %c1, %c1) dynamic_shared_memory_size %dyn args(%ta : i64, %tb : i64, %io : i64, %flags : i64, %zero : i32)
    %h = memref.alloc() : memref<128x32xf32>
    gpu.memcpy %h, %do : memref<128x32xf32>, memref<128x32xf32>
    gpu.dealloc %da : memref<64x64xbf16>
    gpu.dealloc %db : memref<64x64xbf16>
    gpu.dealloc %do : memref<128x32xf32>
    llvm.call @decoda_cuda_finish() : () -> ()
    return %h : memref<128x32xf32>
  }
}
