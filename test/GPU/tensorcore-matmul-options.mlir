// decoda-gpu-tensorcore-matmul refuses tilings it cannot emit, naming the options.
// RUN: not decoda-opt %s --decoda-gpu-tensorcore-matmul="tile-k=24" 2>&1 | FileCheck %s --check-prefix=TILEK
// TILEK: error: decoda-gpu-tensorcore-matmul: invalid tiling tile-m=128 tile-n=128 tile-k=24 warps-m=2 warps-n=4
// RUN: not decoda-opt %s --decoda-gpu-tensorcore-matmul="warps-m=8 warps-n=8" 2>&1 | FileCheck %s --check-prefix=THREADS
// THREADS: error: decoda-gpu-tensorcore-matmul: invalid tiling {{.*}}at most 1024 threads
// RUN: not decoda-opt %s --decoda-gpu-tensorcore-matmul="tile-k=64 tile-m=256" 2>&1 | FileCheck %s --check-prefix=SHARED
// SHARED: error: decoda-gpu-tensorcore-matmul: the tiles need 110592 bytes of shared memory, over the 48 KiB static limit
func.func @f() {
  return
}
