// decoda-gpu-dependent-launch: every kernel gets griddepcontrol.wait (then launch_dependents)
// before its first op that may access memory, and its gpu.module the global
// @decoda_dependent_launch the runtime looks up. Errors name the gpu.module.
// RUN: decoda-opt %s --split-input-file --decoda-gpu-dependent-launch --verify-diagnostics | FileCheck %s
// Numerics: the pass is part of decoda-lower-to-cuda on sm_90 and later, so every kernel of the
// interpreter tests runs with it, and the interpreter fails a kernel whose thread touches global
// memory before its wait (dependent-launch-sim.mlir: the same results with and without the
// pass, and a load moved before the wait reported).

// Address arithmetic (no memory effects) may run before the wait; the first load may not.
// CHECK-LABEL: gpu.module @simple
// CHECK-NEXT: llvm.mlir.global external constant @decoda_dependent_launch(1 : i32) {addr_space = 1 : i32, alignment = 4 : i64} : i32
// CHECK: gpu.func @simple
// CHECK-NEXT: gpu.thread_id x
// CHECK-NEXT: arith.constant
// CHECK-NEXT: arith.muli
// CHECK-NEXT: nvvm.griddepcontrol wait
// CHECK-NEXT: nvvm.griddepcontrol launch_dependents
// CHECK-NEXT: memref.load
// Both kernels of a module wait; the module has one marker.
// CHECK: gpu.func @second
// CHECK-COUNT-2: arith.constant
// CHECK-NEXT: nvvm.griddepcontrol wait
// CHECK-NEXT: nvvm.griddepcontrol launch_dependents
// CHECK-NEXT: memref.store
// A device function that is not a kernel is left alone.
// CHECK: gpu.func @helper
// CHECK-NOT: griddepcontrol
// CHECK: gpu.return
module attributes {gpu.container_module} {
  gpu.module @simple {
    gpu.func @simple(%m: memref<64xf32>) kernel {
      %t = gpu.thread_id x
      %c2 = arith.constant 2 : index
      %i = arith.muli %t, %c2 : index
      %v = memref.load %m[%i] : memref<64xf32>
      memref.store %v, %m[%t] : memref<64xf32>
      gpu.return
    }
    gpu.func @second(%m: memref<64xf32>) kernel {
      %c0 = arith.constant 0 : index
      %z = arith.constant 0.0 : f32
      memref.store %z, %m[%c0] : memref<64xf32>
      gpu.return
    }
    gpu.func @helper(%m: memref<64xf32>) {
      %c0 = arith.constant 0 : index
      %v = memref.load %m[%c0] : memref<64xf32>
      gpu.return
    }
  }
}

// -----

// An L2 prefetch under an scf.if of pure ops (lane 0 of a GEMV warp) runs before the wait; a
// kernel that touches no memory still waits (before its return).
// CHECK-LABEL: gpu.module @prefetch
// CHECK: gpu.func @prefetch
// CHECK: scf.if
// CHECK-NEXT: memref.extract_aligned_pointer_as_index
// CHECK-NEXT: arith.index_cast
// CHECK-NEXT: llvm.inttoptr
// CHECK-NEXT: arith.constant 512
// CHECK-NEXT: nvvm.cp.async.bulk.prefetch
// CHECK: }
// CHECK-NEXT: nvvm.griddepcontrol wait
// CHECK-NEXT: nvvm.griddepcontrol launch_dependents
// CHECK-NEXT: vector.load
// CHECK: gpu.func @empty
// CHECK-NEXT: nvvm.griddepcontrol wait
// CHECK-NEXT: nvvm.griddepcontrol launch_dependents
// CHECK-NEXT: gpu.return
module attributes {gpu.container_module} {
  gpu.module @prefetch {
    gpu.func @prefetch(%w: memref<64x256xbf16>) kernel {
      %t = gpu.thread_id x
      %c0 = arith.constant 0 : index
      %lane0 = arith.cmpi eq, %t, %c0 : index
      scf.if %lane0 {
        %p = memref.extract_aligned_pointer_as_index %w : memref<64x256xbf16> -> index
        %i = arith.index_cast %p : index to i64
        %ptr = llvm.inttoptr %i : i64 to !llvm.ptr<1>
        %size = arith.constant 512 : i32
        nvvm.cp.async.bulk.prefetch %ptr, %size : !llvm.ptr<1>
      }
      %v = vector.load %w[%t, %c0] : memref<64x256xbf16>, vector<8xbf16>
      gpu.return
    }
    gpu.func @empty() kernel {
      gpu.return
    }
  }
}

// -----

// A merged launch (decoda-gpu-merge-launches) dispatches on the block id: each branch waits
// after its own prefetch, so every path waits before its first access and every prefetch runs
// before a wait.
// CHECK-LABEL: gpu.module @merged
// CHECK: gpu.func @merged
// CHECK: %[[FIRST:.*]] = arith.cmpi ult
// CHECK-NEXT: scf.if %[[FIRST]] {
// CHECK-NEXT: nvvm.cp.async.bulk.prefetch
// CHECK-NEXT: nvvm.griddepcontrol wait
// CHECK-NEXT: nvvm.griddepcontrol launch_dependents
// CHECK-NEXT: memref.load
// CHECK: } else {
// CHECK-NEXT: arith.constant
// CHECK-NEXT: nvvm.griddepcontrol wait
// CHECK-NEXT: nvvm.griddepcontrol launch_dependents
// CHECK-NEXT: memref.store
module attributes {gpu.container_module} {
  gpu.module @merged {
    gpu.func @merged(%a: memref<64xf32>, %b: memref<64xf32>, %ptr: !llvm.ptr<1>) kernel {
      %bid = gpu.block_id x
      %c4 = arith.constant 4 : index
      %size = arith.constant 256 : i32
      %first = arith.cmpi ult, %bid, %c4 : index
      scf.if %first {
        nvvm.cp.async.bulk.prefetch %ptr, %size : !llvm.ptr<1>
        %v = memref.load %a[%bid] : memref<64xf32>
      } else {
        %z = arith.constant 0.0 : f32
        memref.store %z, %b[%bid] : memref<64xf32>
      }
      gpu.return
    }
  }
}

// -----

// A kernel that already waits keeps its own placement (one wait); its module is marked.
// CHECK-LABEL: gpu.module @own
// CHECK-NEXT: llvm.mlir.global external constant @decoda_dependent_launch
// CHECK: gpu.func @own
// CHECK-NEXT: arith.constant
// CHECK-NEXT: memref.load
// CHECK-NEXT: nvvm.griddepcontrol wait
// CHECK-NOT: griddepcontrol
// CHECK: gpu.return
// A module without kernels gets no marker.
// CHECK-LABEL: gpu.module @nokernels
// CHECK-NOT: decoda_dependent_launch
// CHECK: gpu.func @f
module attributes {gpu.container_module} {
  gpu.module @own {
    gpu.func @own(%m: memref<64xf32>) kernel {
      %c0 = arith.constant 0 : index
      %v = memref.load %m[%c0] : memref<64xf32>
      nvvm.griddepcontrol wait
      gpu.return
    }
  }
  gpu.module @nokernels {
    gpu.func @f() {
      gpu.return
    }
  }
}

// -----

// An sm_80 module: no griddepcontrol.
module attributes {gpu.container_module} {
  // expected-error @below {{decoda-gpu-dependent-launch: gpu.module @old targets sm_80; griddepcontrol needs sm_90 or later}}
  gpu.module @old [#nvvm.target<chip = "sm_80">] {
    gpu.func @k() kernel {
      gpu.return
    }
  }
}

// -----

// The marker's name taken.
module attributes {gpu.container_module} {
  // expected-error @below {{decoda-gpu-dependent-launch: gpu.module @taken already defines the symbol @decoda_dependent_launch}}
  gpu.module @taken {
    llvm.mlir.global external constant @decoda_dependent_launch(7 : i32) {addr_space = 1 : i32} : i32
    gpu.func @k() kernel {
      gpu.return
    }
  }
}

// -----

// sm_90a passes.
// CHECK-LABEL: gpu.module @hopper
// CHECK-NEXT: llvm.mlir.global external constant @decoda_dependent_launch
module attributes {gpu.container_module} {
  gpu.module @hopper [#nvvm.target<chip = "sm_90a">] {
    gpu.func @k() kernel {
      gpu.return
    }
  }
}
