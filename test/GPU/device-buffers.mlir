// decoda-gpu-device-buffers: the argument and the constant are copied into device buffers that
// the kernel uses, the temporary is a device buffer, the result comes back in a host buffer,
// and every device buffer is freed before the return. Every gpu op is async with its own
// stream and waited for (the form gpu-to-llvm lowers).
// RUN: decoda-opt %s --split-input-file --decoda-gpu-device-buffers --verify-diagnostics | FileCheck %s

memref.global "private" constant @w : memref<4xf32> = dense<[1.0, 2.0, 3.0, 4.0]>

// CHECK-LABEL: func.func @f(
// CHECK-SAME: %[[X:.*]]: memref<?xf32>) -> memref<?xf32>
// CHECK: %[[N:.*]] = memref.dim %[[X]], %{{.*}} : memref<?xf32>
// CHECK: %[[XD:.*]], %[[T0:.*]] = gpu.alloc async [%{{.*}}] (%[[N]]) : memref<?xf32>
// CHECK: gpu.wait [%[[T0]]]
// CHECK: %[[T1:.*]] = gpu.memcpy async [%{{.*}}] %[[XD]], %[[X]] : memref<?xf32>, memref<?xf32>
// CHECK: gpu.wait [%[[T1]]]
// CHECK: %[[WH:.*]] = memref.get_global @w
// CHECK: %[[WD:.*]], %{{.*}} = gpu.alloc async
// CHECK: gpu.memcpy async [%{{.*}}] %[[WD]], %[[WH]]
// CHECK: %[[YD:.*]], %{{.*}} = gpu.alloc async [%{{.*}}] (%{{.*}}) : memref<?xf32>
// CHECK-NOT: memref.alloc
// CHECK: gpu.launch
// CHECK: memref.load %[[XD]]
// CHECK: memref.load %[[WD]]
// CHECK: memref.store %{{.*}}, %[[YD]]
// CHECK: gpu.terminator
// CHECK: %[[YH:.*]] = memref.alloc(%{{.*}}) : memref<?xf32>
// CHECK: gpu.memcpy async [%{{.*}}] %[[YH]], %[[YD]]
// CHECK-DAG: gpu.dealloc async [%{{.*}}] %[[XD]]
// CHECK-DAG: gpu.dealloc async [%{{.*}}] %[[WD]]
// CHECK-DAG: gpu.dealloc async [%{{.*}}] %[[YD]]
// CHECK: return %[[YH]] : memref<?xf32>
func.func @f(%x: memref<?xf32>) -> memref<?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %x, %c0 : memref<?xf32>
  %w = memref.get_global @w : memref<4xf32>
  %y = memref.alloc(%n) : memref<?xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %n, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %a = memref.load %x[%bx] : memref<?xf32>
    %b = memref.load %w[%c0] : memref<4xf32>
    %s = arith.addf %a, %b : f32
    memref.store %s, %y[%bx] : memref<?xf32>
    gpu.terminator
  }
  return %y : memref<?xf32>
}

// -----

// Host code that reads a buffer (here a scalar the GPU pipeline did not put in a kernel) is
// refused: after this pass the buffer lives on the device.
func.func @host_load(%x: memref<4xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{decoda-gpu-device-buffers: 'memref.load' reads or writes a buffer in host code}}
  %v = memref.load %x[%c0] : memref<4xf32>
  return %v : f32
}

// -----

// A buffer made in a loop iteration and carried out of it cannot be freed at the end of the
// iteration: refused.
func.func @escaping(%n: index) -> memref<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %init = memref.alloc() : memref<4xf32>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %init) -> (memref<4xf32>) {
    // expected-error @+1 {{a buffer allocated inside a loop or branch leaves it}}
    %t = memref.alloc() : memref<4xf32>
    scf.yield %t : memref<4xf32>
  }
  return %r : memref<4xf32>
}
