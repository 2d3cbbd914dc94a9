// decoda-gpu-device-buffers: the argument is used in place when the caller passed device memory
// (decoda_cuda_is_device) and otherwise copied into a device buffer, which the kernel uses; the
// constant (a weight) is the model's resident device copy (decoda_cuda_constant: uploaded once
// per load, docs/ABI.md), the temporary is a device buffer, the result comes back in a host
// buffer, every per-call device buffer is freed (the argument's copy only when one was made)
// and decoda_cuda_finish waits for what is left before the return. Every gpu op is async with
// its own stream and waited for (the form gpu-to-llvm lowers).
// RUN: decoda-opt %s --split-input-file --decoda-gpu-device-buffers --verify-diagnostics | FileCheck %s

memref.global "private" constant @w : memref<4xf32> = dense<[1.0, 2.0, 3.0, 4.0]>

// CHECK-LABEL: func.func @f(
// CHECK-SAME: %[[X:.*]]: memref<?xf32>) -> memref<?xf32>
// CHECK: %[[XA:.*]] = memref.extract_aligned_pointer_as_index %[[X]]
// CHECK: %[[XI:.*]] = arith.index_cast %[[XA]] : index to i64
// CHECK: %[[XP:.*]] = llvm.inttoptr %[[XI]] : i64 to !llvm.ptr
// CHECK: %[[ISDEV:.*]] = llvm.call @decoda_cuda_is_device(%[[XP]]) : (!llvm.ptr) -> i32
// CHECK: %[[ISHOST:.*]] = arith.cmpi eq, %[[ISDEV]], %{{.*}} : i32
// CHECK: %[[XD:.*]] = scf.if %[[ISHOST]] -> (memref<?xf32>) {
// CHECK:   %[[N:.*]] = memref.dim %[[X]], %{{.*}} : memref<?xf32>
// CHECK:   %[[XC:.*]], %[[T0:.*]] = gpu.alloc async [%{{.*}}] (%[[N]]) : memref<?xf32>
// CHECK:   gpu.wait [%[[T0]]]
// CHECK:   %[[T1:.*]] = gpu.memcpy async [%{{.*}}] %[[XC]], %[[X]] : memref<?xf32>, memref<?xf32>
// CHECK:   gpu.wait [%[[T1]]]
// CHECK:   scf.yield %[[XC]] : memref<?xf32>
// CHECK: } else {
// CHECK:   scf.yield %[[X]] : memref<?xf32>
// CHECK: }
// CHECK: %[[WH:.*]] = memref.get_global @w
// CHECK: %[[WA:.*]] = memref.extract_aligned_pointer_as_index %[[WH]]
// CHECK: %[[WI:.*]] = arith.index_cast %[[WA]] : index to i64
// CHECK: %[[WP:.*]] = llvm.inttoptr %[[WI]] : i64 to !llvm.ptr
// CHECK: %[[SLOT:.*]] = llvm.mlir.constant(0 : i64) : i64
// CHECK: %[[BYTES:.*]] = llvm.mlir.constant(16 : i64) : i64
// CHECK: %[[DP:.*]] = llvm.call @decoda_cuda_constant(%[[SLOT]], %[[WP]], %[[BYTES]])
// CHECK: llvm.insertvalue %[[DP]], %{{.*}}[0]
// CHECK: llvm.insertvalue %[[DP]], %{{.*}}[1]
// CHECK: %[[WD:.*]] = builtin.unrealized_conversion_cast %{{.*}} : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> to memref<4xf32>
// CHECK-NOT: gpu.memcpy
// CHECK: %[[YD:.*]], %{{.*}} = gpu.alloc async [%{{.*}}] (%{{.*}}) : memref<?xf32>
// CHECK-NOT: memref.alloc
// CHECK: gpu.launch
// CHECK: memref.load %[[XD]]
// CHECK: memref.load %[[WD]]
// CHECK: memref.store %{{.*}}, %[[YD]]
// CHECK: gpu.terminator
// Each buffer is freed after its last use: the argument's device copy after the kernel, only
// when there is one, nothing copied back into it (arguments are read-only unless donated);
// the temporary after the copy of the result.
// CHECK: scf.if %[[ISHOST]] {
// CHECK-NOT: gpu.memcpy
// CHECK:   gpu.dealloc async [%{{.*}}] %[[XD]]
// CHECK: }
// CHECK: %[[YH:.*]] = memref.alloc(%{{.*}}) : memref<?xf32>
// CHECK: gpu.memcpy async [%{{.*}}] %[[YH]], %[[YD]]
// CHECK: gpu.dealloc async [%{{.*}}] %[[YD]]
// CHECK-NOT: gpu.dealloc
// CHECK: llvm.call @decoda_cuda_finish() : () -> ()
// CHECK-NEXT: return %[[YH]] : memref<?xf32>
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

// One device copy per constant global: two functions reading @w share slot 0, @v gets slot 1.
// A mutable global is copied in per call (and freed), like an argument.
memref.global "private" constant @w : memref<4xf32> = dense<[1.0, 2.0, 3.0, 4.0]>
memref.global "private" constant @v : memref<2x3xbf16> = dense<1.0>
memref.global "private" @state : memref<4xf32> = dense<0.0>

// CHECK-LABEL: func.func @first(
// CHECK: llvm.call @decoda_cuda_constant(%{{.*}}) : (i64, !llvm.ptr, i64) -> !llvm.ptr
// CHECK: llvm.mlir.constant(1 : i64) : i64
// CHECK: llvm.mlir.constant(12 : i64) : i64
// CHECK: llvm.call @decoda_cuda_constant(
// CHECK: builtin.unrealized_conversion_cast %{{.*}} : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> to memref<2x3xbf16>
// CHECK: %[[S:.*]] = memref.get_global @state
// CHECK: %[[SD:.*]], %{{.*}} = gpu.alloc async
// CHECK: gpu.memcpy async [%{{.*}}] %[[SD]], %[[S]]
// CHECK: gpu.dealloc async [%{{.*}}] %[[SD]]
func.func @first() {
  %c1 = arith.constant 1 : index
  %w = memref.get_global @w : memref<4xf32>
  %v = memref.get_global @v : memref<2x3xbf16>
  %s = memref.get_global @state : memref<4xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %a = memref.load %w[%bx] : memref<4xf32>
    %b = memref.load %v[%bx, %bx] : memref<2x3xbf16>
    memref.store %a, %s[%bx] : memref<4xf32>
    gpu.terminator
  }
  return
}

// CHECK-LABEL: func.func @second(
// CHECK: %[[SLOT0:.*]] = llvm.mlir.constant(0 : i64) : i64
// CHECK: llvm.call @decoda_cuda_constant(%[[SLOT0]],
func.func @second() {
  %c1 = arith.constant 1 : index
  %w = memref.get_global @w : memref<4xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %a = memref.load %w[%bx] : memref<4xf32>
    gpu.terminator
  }
  return
}
// CHECK: llvm.func @decoda_cuda_constant(i64, !llvm.ptr, i64) -> !llvm.ptr

// -----

// A constant whose elements have no byte size on the device is refused.
memref.global "private" constant @c : memref<2xcomplex<f32>> = dense<[(1.0, 0.0), (0.0, 1.0)]>

func.func @complex_constant() {
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{decoda-gpu-device-buffers: constant of type 'memref<2xcomplex<f32>>' has no byte size on the device}}
  %w = memref.get_global @c : memref<2xcomplex<f32>>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %a = memref.load %w[%bx] : memref<2xcomplex<f32>>
    gpu.terminator
  }
  return
}

// -----

// A host read of an argument (a decode step's cache offset) reads the caller's buffer when it
// is host memory (arguments are read-only) and otherwise a host copy made at entry (on the
// stack: 8 bytes), never the device buffer the kernels use.
// CHECK-LABEL: func.func @host_load_argument(
// CHECK-SAME:    %[[X:.*]]: memref<i64>, %[[Y:.*]]: memref<4xf32>
// CHECK:         %[[ISHOST:.*]] = arith.cmpi eq
// CHECK:         %[[DEV:.*]] = scf.if %[[ISHOST]] -> (memref<i64>) {
// CHECK:           gpu.alloc async {{.*}} () : memref<i64>
// CHECK:         %[[VIEW:.*]] = scf.if %[[ISHOST]] -> (memref<i64>) {
// CHECK-NEXT:      scf.yield %[[X]] : memref<i64>
// CHECK-NEXT:    } else {
// CHECK-NEXT:      %[[STACK:.*]] = memref.alloca() : memref<i64>
// CHECK:           gpu.memcpy async [%{{.*}}] %[[STACK]], %[[X]] : memref<i64>, memref<i64>
// CHECK:           scf.yield %[[STACK]] : memref<i64>
// CHECK:         memref.load %[[VIEW]][] : memref<i64>
// CHECK:         gpu.launch
// CHECK:           memref.load %[[DEV]][]
// CHECK-NOT:     memref.dealloc
// CHECK:         return
func.func @host_load_argument(%x: memref<i64>, %y: memref<4xf32>) -> index {
  %c1 = arith.constant 1 : index
  %v = memref.load %x[] : memref<i64>
  %i = arith.index_cast %v : i64 to index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %a = memref.load %x[] : memref<i64>
    %f = arith.sitofp %a : i64 to f32
    %c0 = arith.constant 0 : index
    memref.store %f, %y[%c0] : memref<4xf32>
    gpu.terminator
  }
  return %i : index
}

// -----

// Host code reading a temporary the kernels computed (GroupQueryAttention's row lengths when the
// model computes them): the temporary is a device buffer; the host reads a copy made after the
// kernel and before the loop that reads it (one copy for all its reads; the copy waits for the
// kernel), a static one of at most 4 KiB on the stack, freed with the block otherwise.
// CHECK-LABEL: func.func @host_load(
// CHECK:         %[[T:[^,]*]], %{{.*}} = gpu.alloc async [%{{.*}}] () : memref<4xi32>
// CHECK:         %[[D:[^,]*]], %{{.*}} = gpu.alloc async [%{{.*}}] (%{{.*}}) : memref<?xi32>
// CHECK:         gpu.launch
// CHECK:           memref.store %{{.*}}, %[[T]]
// CHECK:         %[[H:.*]] = memref.alloca() : memref<4xi32>
// CHECK-NEXT:    %[[W:.*]] = gpu.wait async
// CHECK-NEXT:    gpu.memcpy async [%[[W]]] %[[H]], %[[T]] : memref<4xi32>, memref<4xi32>
// CHECK:         %[[HD:.*]] = memref.alloc(%{{.*}}) : memref<?xi32>
// CHECK:         gpu.memcpy async [%{{.*}}] %[[HD]], %[[D]]
// CHECK:         scf.for
// CHECK:           memref.load %[[H]]
// CHECK:           memref.load %[[HD]]
// CHECK:           cf.assert
// CHECK:         memref.dealloc %[[HD]] : memref<?xi32>
// CHECK-NOT:     memref.load %[[T]]
// CHECK:         return
func.func @host_load(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %x = memref.alloc() : memref<4xi32>
  %y = memref.alloc(%n) : memref<?xi32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c4, %sy = %c1, %sz = %c1) {
    %v = arith.index_cast %tx : index to i32
    memref.store %v, %x[%tx] : memref<4xi32>
    memref.store %v, %y[%tx] : memref<?xi32>
    gpu.terminator
  }
  scf.for %i = %c0 to %c4 step %c1 {
    %a = memref.load %x[%i] : memref<4xi32>
    %b = memref.load %y[%i] : memref<?xi32>
    %ok = arith.cmpi eq, %a, %b : i32
    cf.assert %ok, "rows agree"
  }
  memref.dealloc %x : memref<4xi32>
  memref.dealloc %y : memref<?xi32>
  return
}

// -----

// A temporary that kernels in the same loop write and host code reads would be copied before
// those kernels ran: refused.
func.func @host_load_in_loop(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %x = memref.alloc() : memref<4xi32>
  scf.for %i = %c0 to %n step %c1 {
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
      %z = arith.constant 0 : i32
      memref.store %z, %x[%c0] : memref<4xi32>
      gpu.terminator
    }
    // expected-error @+1 {{decoda-gpu-device-buffers: host code reads a device buffer that kernels of the same loop or branch write}}
    %a = memref.load %x[%c0] : memref<4xi32>
    %ok = arith.cmpi eq, %a, %a : i32
    cf.assert %ok, "read"
  }
  return
}

// -----

// The same through a view of the temporary that the kernel writes.
func.func @host_load_in_loop_view(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %x = memref.alloc() : memref<4xi32>
  scf.for %i = %c0 to %n step %c1 {
    %v = memref.subview %x[1] [2] [1] : memref<4xi32> to memref<2xi32, strided<[1], offset: 1>>
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
      %z = arith.constant 0 : i32
      memref.store %z, %v[%c0] : memref<2xi32, strided<[1], offset: 1>>
      gpu.terminator
    }
    // expected-error @+1 {{decoda-gpu-device-buffers: host code reads a device buffer that kernels of the same loop or branch write}}
    %a = memref.load %x[%c0] : memref<4xi32>
    %ok = arith.cmpi eq, %a, %a : i32
    cf.assert %ok, "read"
  }
  return
}

// -----

// Host code that writes a buffer is refused: after this pass the buffer lives on the device.
func.func @host_store(%n: index, %f: f32) {
  %c0 = arith.constant 0 : index
  %x = memref.alloc() : memref<4xf32>
  // expected-error @+1 {{decoda-gpu-device-buffers: 'memref.store' reads or writes a buffer in host code}}
  memref.store %f, %x[%c0] : memref<4xf32>
  return
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

// -----

// A tensor each branch of an scf.if computes bufferizes to a buffer per branch, yielded: the
// if's result owns it and is freed as a buffer of the if's block (here after the result's copy
// to the host, before the return), not inside the branches. Nested ifs hand it outwards.
// CHECK-LABEL: func.func @branch_result(
// CHECK:         %[[R:[^ ]+]] = scf.if %{{.+}} -> (memref<4xf32>) {
// CHECK:           %[[A:[^,]+]], %{{.+}} = gpu.alloc async
// CHECK-NOT:       gpu.dealloc
// CHECK:           scf.yield %[[A]]
// CHECK:         } else {
// CHECK:           %[[IN:[^ ]+]] = scf.if %{{.+}} -> (memref<4xf32>) {
// CHECK:             %[[B:[^,]+]], %{{.+}} = gpu.alloc async
// CHECK:             scf.yield %[[B]]
// CHECK:           } else {
// CHECK:             %[[C:[^,]+]], %{{.+}} = gpu.alloc async
// CHECK:             scf.yield %[[C]]
// CHECK:           }
// CHECK-NOT:       gpu.dealloc
// CHECK:           scf.yield %[[IN]]
// CHECK:         }
// CHECK:         %[[HOST:[^ ]+]] = memref.alloc() : memref<4xf32>
// CHECK:         gpu.memcpy async [%{{.+}}] %[[HOST]], %[[R]]
// CHECK:         gpu.dealloc async [%{{.+}}] %[[R]]
// CHECK:         return %[[HOST]]
func.func @branch_result(%p: i1, %q: i1) -> memref<4xf32> {
  %r = scf.if %p -> (memref<4xf32>) {
    %a = memref.alloc() : memref<4xf32>
    scf.yield %a : memref<4xf32>
  } else {
    %in = scf.if %q -> (memref<4xf32>) {
      %b = memref.alloc() : memref<4xf32>
      scf.yield %b : memref<4xf32>
    } else {
      %c = memref.alloc() : memref<4xf32>
      scf.yield %c : memref<4xf32>
    }
    scf.yield %in : memref<4xf32>
  }
  return %r : memref<4xf32>
}

// -----

// A branch's buffer yielded through a memref.cast (a static-dims build: the branch's result is
// static, the if's type dynamic) is still the if result's own buffer.
// CHECK-LABEL: func.func @branch_result_cast(
// CHECK:         %[[R:[^ ]+]] = scf.if %{{.+}} -> (memref<?xf32>) {
// CHECK-NOT:       gpu.dealloc
// CHECK:         } else {
// CHECK-NOT:       gpu.dealloc
// CHECK:         }
// CHECK:         gpu.memcpy
// CHECK:         gpu.dealloc async [%{{.+}}] %[[R]]
func.func @branch_result_cast(%p: i1, %n: index) -> memref<?xf32> {
  %r = scf.if %p -> (memref<?xf32>) {
    %a = memref.alloc() : memref<4xf32>
    %c = memref.cast %a : memref<4xf32> to memref<?xf32>
    scf.yield %c : memref<?xf32>
  } else {
    %b = memref.alloc(%n) : memref<?xf32>
    scf.yield %b : memref<?xf32>
  }
  return %r : memref<?xf32>
}

// -----

// A branch yielding a buffer made outside it: the if's result does not own what it holds.
func.func @branch_result_not_owned(%p: i1) -> memref<4xf32> {
  %outer = memref.alloc() : memref<4xf32>
  %r = scf.if %p -> (memref<4xf32>) {
    // expected-error @+1 {{leaves it other than as an scf.if result that every branch allocates}}
    %a = memref.alloc() : memref<4xf32>
    scf.yield %a : memref<4xf32>
  } else {
    scf.yield %outer : memref<4xf32>
  }
  return %r : memref<4xf32>
}

// -----

// A view of a branch's buffer yielded: refused too (the result is not the allocation).
func.func @branch_result_view(%p: i1) -> memref<2x2xf32> {
  %r = scf.if %p -> (memref<2x2xf32>) {
    // expected-error @+1 {{leaves it other than as an scf.if result that every branch allocates}}
    %a = memref.alloc() : memref<4xf32>
    %v = memref.expand_shape %a [[0, 1]] output_shape [2, 2] : memref<4xf32> into memref<2x2xf32>
    scf.yield %v : memref<2x2xf32>
  } else {
    %b = memref.alloc() : memref<2x2xf32>
    scf.yield %b : memref<2x2xf32>
  }
  return %r : memref<2x2xf32>
}

// -----

// A donated argument (decoda.written, from decoda-drop-donated-results{mark-written}) that the
// caller passed in host memory is copied back into the caller's buffer after the kernels, then
// its device copy is freed; in device memory it is written in place and nothing is copied. The
// mark is removed. A host read of a larger argument (here a dynamic one) goes through a heap copy,
// freed at the end when one was made.
// CHECK-LABEL: func.func @written(
// CHECK-SAME:    %[[C:[^:]*]]: memref<16xf32>, %[[N:[^:]*]]: memref<?xi64>) {
// CHECK:         %[[CHOST:.*]] = arith.cmpi eq
// CHECK:         %[[CD:.*]] = scf.if %[[CHOST]] -> (memref<16xf32>)
// CHECK:         %[[NHOST:.*]] = arith.cmpi eq
// CHECK:         scf.if %[[NHOST]] -> (memref<?xi64>) {
// CHECK:           gpu.alloc
// CHECK:         %[[NVIEW:.*]] = scf.if %[[NHOST]] -> (memref<?xi64>) {
// CHECK:           scf.yield %[[N]]
// CHECK:         } else {
// CHECK:           %[[HEAP:.*]] = memref.alloc(%{{.*}}) : memref<?xi64>
// CHECK:           gpu.memcpy async [%{{.*}}] %[[HEAP]], %[[N]]
// CHECK:         memref.load %[[NVIEW]]
// CHECK:         gpu.launch
// CHECK:           memref.store %{{.*}}, %[[CD]]
// CHECK:         scf.if %[[CHOST]] {
// CHECK-NEXT:      gpu.wait async
// CHECK-NEXT:      gpu.memcpy async [%{{.*}}] %[[C]], %[[CD]] : memref<16xf32>, memref<16xf32>
// CHECK:           gpu.dealloc async [%{{.*}}] %[[CD]]
// CHECK:         scf.if %[[NHOST]] {
// CHECK-NOT:       gpu.memcpy
// CHECK:           gpu.dealloc
// CHECK:         %[[NDEV:.*]] = arith.xori %[[NHOST]], %{{.*}} : i1
// CHECK:         scf.if %[[NDEV]] {
// CHECK-NEXT:      memref.dealloc %[[NVIEW]] : memref<?xi64>
// CHECK:         llvm.call @decoda_cuda_finish()
// CHECK-NOT:   decoda.written
func.func @written(%c: memref<16xf32> {decoda.written}, %n: memref<?xi64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %v = memref.load %n[%c0] : memref<?xi64>
  %i = arith.index_cast %v : i64 to index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %f = arith.constant 1.0 : f32
    memref.store %f, %c[%i] : memref<16xf32>
    gpu.terminator
  }
  return
}

// -----

// Host code reading an argument the kernels write (donated) is refused: its host copy would be
// stale after the kernels, and a device-resident one has no host copy to write.
func.func @written_and_read(%c: memref<16xi64> {decoda.written}) -> i64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{decoda-gpu-device-buffers: host code reads argument #0, which the kernels write (donated)}}
  %v = memref.load %c[%c0] : memref<16xi64>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %z = arith.constant 0 : i64
    memref.store %z, %c[%bx] : memref<16xi64>
    gpu.terminator
  }
  return %v : i64
}

// -----

// Temporaries are freed right after their last use, in stream order, so later ones reuse their
// memory: %t1 after the second kernel (its last reader), %t2 after the loop whose kernel reads
// a view of it, %t3 after the call that takes its address (a TMA tensor map is made that way,
// and the kernel after it reads the map, not the buffer: the free waits for the map's reader
// too); the sizes read from %t1 (memref.dim) hold nothing.
// CHECK-LABEL: func.func @early_frees(
// CHECK-SAME: %{{.*}}: memref<64xf32>, %[[Y:.*]]: memref<64xf32>)
// CHECK:      scf.yield %[[Y]] : memref<64xf32>
// CHECK:      %[[T1:.*]], %{{.*}} = gpu.alloc async
// CHECK:      gpu.launch
// CHECK:      %[[T2:.*]], %{{.*}} = gpu.alloc async
// CHECK:      gpu.launch
// CHECK:      gpu.terminator
// CHECK-NEXT: }
// CHECK-NEXT: %{{.*}} = gpu.wait async
// CHECK-NEXT: %{{.*}} = gpu.dealloc async [%{{.*}}] %[[T1]]
// CHECK:      %[[T3:.*]], %{{.*}} = gpu.alloc async
// CHECK:      scf.for
// CHECK:        gpu.launch
// CHECK:        gpu.terminator
// CHECK-NEXT:   }
// CHECK-NEXT: }
// CHECK-NEXT: %{{.*}} = gpu.wait async
// CHECK-NEXT: %{{.*}} = gpu.dealloc async [%{{.*}}] %[[T2]]
// CHECK:      llvm.call @use_pointer
// CHECK:      gpu.launch
// CHECK:      gpu.terminator
// CHECK-NEXT: }
// CHECK-NEXT: %{{.*}} = gpu.wait async
// CHECK-NEXT: %{{.*}} = gpu.dealloc async [%{{.*}}] %[[T3]]
// The written argument's device copy (when made) is copied back and freed at the end; the
// read-only one's was freed after the first kernel.
// CHECK:      scf.if
// CHECK:        gpu.memcpy
// CHECK:        gpu.dealloc
// CHECK:      return
llvm.func @use_pointer(!llvm.ptr) -> !llvm.ptr
func.func @early_frees(%x: memref<64xf32>, %y: memref<64xf32> {decoda.written}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %t1 = memref.alloc() : memref<64xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %a = memref.load %x[%tx] : memref<64xf32>
    memref.store %a, %t1[%tx] : memref<64xf32>
    gpu.terminator
  }
  %n = memref.dim %t1, %c0 : memref<64xf32>
  %t2 = memref.alloc() : memref<64xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %a = memref.load %t1[%tx] : memref<64xf32>
    memref.store %a, %t2[%tx] : memref<64xf32>
    gpu.terminator
  }
  %t3 = memref.alloc() : memref<64xf32>
  scf.for %i = %c0 to %c4 step %c1 {
    %v = memref.subview %t2[0] [32] [1] : memref<64xf32> to memref<32xf32, strided<[1]>>
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
      %a = memref.load %v[%tx] : memref<32xf32, strided<[1]>>
      memref.store %a, %t3[%tx] : memref<64xf32>
      gpu.terminator
    }
  }
  %p = memref.extract_aligned_pointer_as_index %t3 : memref<64xf32> -> index
  %pi = arith.index_cast %p : index to i64
  %pp = llvm.inttoptr %pi : i64 to !llvm.ptr
  %map = llvm.call @use_pointer(%pp) : (!llvm.ptr) -> !llvm.ptr
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %n, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %q = llvm.load %map : !llvm.ptr -> f32
    memref.store %q, %y[%tx] : memref<64xf32>
    gpu.terminator
  }
  return
}
