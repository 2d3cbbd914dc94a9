// decoda-gpu-tensorcore-matmul refuses tilings it cannot emit, naming the options.
// RUN: not decoda-opt %s --decoda-gpu-tensorcore-matmul="tile-k=24" 2>&1 | FileCheck %s --check-prefix=TILEK
// TILEK: error: decoda-gpu-tensorcore-matmul: invalid tiling tile-m=128 tile-n=128 tile-k=24 warps-m=2 warps-n=4
// RUN: not decoda-opt %s --decoda-gpu-tensorcore-matmul="warps-m=8 warps-n=8" 2>&1 | FileCheck %s --check-prefix=THREADS
// THREADS: error: decoda-gpu-tensorcore-matmul: invalid tiling {{.*}}at most 1024 threads
// RUN: not decoda-opt %s --decoda-gpu-tensorcore-matmul="tile-k=64 tile-m=256" 2>&1 | FileCheck %s --check-prefix=SHARED
// SHARED: error: decoda-gpu-tensorcore-matmul: the tiles need 110592 bytes of shared memory, over the 48 KiB static limit
// fuse-epilogue is a boolean on both projection passes and the pipeline (its effect:
// epilogue-fusion.mlir, gemv-epilogue.mlir, epilogue-sim.mlir).
// RUN: not decoda-opt %s --decoda-gpu-tensorcore-matmul="fuse-epilogue=maybe" 2>&1 | FileCheck %s --check-prefix=FUSE
// RUN: not decoda-opt %s --decoda-gpu-gemv="fuse-epilogue=maybe" 2>&1 | FileCheck %s --check-prefix=FUSE
// RUN: not decoda-opt %s --decoda-lower-to-cuda="fuse-epilogue=maybe" 2>&1 | FileCheck %s --check-prefix=FUSE
// FUSE: for the --fuse-epilogue option: 'maybe' is invalid value for boolean argument
func.func @f() {
  return
}
