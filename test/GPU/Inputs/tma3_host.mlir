// Host code of a 3-D TMA load as decoda-compile's CUDA model would hold it before
// decoda-lower-runtime-checks (ptxsim-tma-selftest.mlir runs it with gpusim_run.py): a K/V-like
// tensor [B = 3, S = 10, 128] of bf16 in a device buffer, its tensor map made by
// decoda_cuda_tensor_map_3d (B planes of keyLen = 7 rows of 128 elements, rows 256 bytes and
// planes 2560 bytes apart, boxes of 16 rows x 64 elements, 128-byte swizzle), a launch of @tile3
// of ptxsim-tma-selftest.mlir for the box at (element 64, row 4, plane 1); its output the box's
// shared bytes as 32-bit words. A map of no planes is no map (address 0, nothing encoded).
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @tile3(%t: i64, %o: i64, %c0: i32, %c1: i32, %c2: i32, %p: i32, %d: i32, %n: i32) kernel {
      gpu.return
    }
  }
  llvm.func @decoda_cuda_tensor_map_3d(i64, i64, i64, i64, i64, i64, i64, i64, i64, i64) -> i64
  llvm.func @decoda_cuda_finish()
  func.func @f(%x: memref<3x10x128xbf16>) -> memref<512xi32> {
    %c1 = arith.constant 1 : index
    %c128 = arith.constant 128 : index
    %dx = gpu.alloc () : memref<3x10x128xbf16>
    %do = gpu.alloc () : memref<512xi32>
    gpu.memcpy %dx, %x : memref<3x10x128xbf16>, memref<3x10x128xbf16>
    %px = memref.extract_aligned_pointer_as_index %dx : memref<3x10x128xbf16> -> index
    %ix = arith.index_cast %px : index to i64
    %inner = arith.constant 128 : i64
    %keys = arith.constant 7 : i64
    %planes = arith.constant 3 : i64
    %none = arith.constant 0 : i64
    %rowb = arith.constant 256 : i64
    %planeb = arith.constant 2560 : i64
    %eb = arith.constant 2 : i64
    %boxi = arith.constant 64 : i64
    %boxr = arith.constant 16 : i64
    %swz = arith.constant 128 : i64
    %tm = llvm.call @decoda_cuda_tensor_map_3d(%ix, %inner, %keys, %planes, %rowb, %planeb, %eb, %boxi, %boxr, %swz) : (i64, i64, i64, i64, i64, i64, i64, i64, i64, i64) -> i64
    %empty = llvm.call @decoda_cuda_tensor_map_3d(%ix, %inner, %keys, %none, %rowb, %planeb, %eb, %boxi, %boxr, %swz) : (i64, i64, i64, i64, i64, i64, i64, i64, i64, i64) -> i64
    %po = memref.extract_aligned_pointer_as_index %do : memref<512xi32> -> index
    %io = arith.index_cast %po : index to i64
    %e64 = arith.constant 64 : i32
    %r4 = arith.constant 4 : i32
    %p1 = arith.constant 1 : i32
    %zero = arith.constant 0 : i32
    %bytes = arith.constant 2048 : i32
    %dyn = arith.constant 3072 : i32
    gpu.launch_func @m::@tile3 blocks in (%c1, %c1, %c1) threads in (%c128, %c1, %c1) dynamic_shared_memory_size %dyn args(%tm : i64, %io : i64, %e64 : i32, %r4 : i32, %p1 : i32, %zero : i32, %zero : i32, %bytes : i32)
    %h = memref.alloc() : memref<512xi32>
    gpu.memcpy %h, %do : memref<512xi32>, memref<512xi32>
    gpu.dealloc %dx : memref<3x10x128xbf16>
    gpu.dealloc %do : memref<512xi32>
    llvm.call @decoda_cuda_finish() : () -> ()
    return %h : memref<512xi32>
  }
}
