// decoda-gpu-lower-bf16-mma: a bf16 m16n8k16 nvgpu.mma.sync becomes nvvm.mma.sync with bf16
// multiplicands (each vector<2xbf16> register as the i32 the intrinsic takes) and its four f32
// results packed back into the vector<2x2xf32> accumulator; f16 mma is left to upstream. An
// i8 m16n8k32 one becomes the wrapping (not .satfinite) s8 nvvm.mma.sync, each vector<4xi8>
// register as one i32, four i32 results.
// RUN: decoda-opt %s --split-input-file --pass-pipeline="builtin.module(gpu.module(decoda-gpu-lower-bf16-mma))" --verify-diagnostics | FileCheck %s

// CHECK-LABEL: gpu.func @bf16(
// CHECK-SAME: %[[A:.*]]: vector<4x2xbf16>, %[[B:.*]]: vector<2x2xbf16>, %[[C:.*]]: vector<2x2xf32>
// CHECK: %[[A0:.*]] = vector.extract %[[A]][0] : vector<2xbf16> from vector<4x2xbf16>
// CHECK: %[[A0I:.*]] = vector.bitcast %[[A0]] : vector<2xbf16> to vector<1xi32>
// CHECK: %[[A0S:.*]] = vector.extract %[[A0I]][0] : i32 from vector<1xi32>
// CHECK: vector.extract %[[A]][3]
// CHECK: vector.extract %[[B]][1]
// CHECK: %[[C11:.*]] = vector.extract %[[C]][1, 1] : f32 from vector<2x2xf32>
// CHECK: %[[D:.*]] = nvvm.mma.sync A[%[[A0S]], {{.*}}] B[{{.*}}] C[{{.*}}, %[[C11]]] {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>, shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
// CHECK: %[[D3:.*]] = llvm.extractvalue %[[D]][3]
// CHECK: %[[R:.*]] = vector.from_elements %{{.*}}, %{{.*}}, %{{.*}}, %[[D3]] : vector<2x2xf32>
// CHECK: vector.store %[[R]]
// CHECK-LABEL: gpu.func @f16(
// CHECK: nvgpu.mma.sync
// CHECK-NOT: nvvm.mma.sync
gpu.module @kernels {
  gpu.func @bf16(%a: vector<4x2xbf16>, %b: vector<2x2xbf16>, %c: vector<2x2xf32>, %o: memref<2x2xf32>) kernel {
    %d = nvgpu.mma.sync(%a, %b, %c) {mmaShape = [16, 8, 16]} : (vector<4x2xbf16>, vector<2x2xbf16>, vector<2x2xf32>) -> vector<2x2xf32>
    %c0 = arith.constant 0 : index
    vector.store %d, %o[%c0, %c0] : memref<2x2xf32>, vector<2x2xf32>
    gpu.return
  }
  gpu.func @f16(%a: vector<4x2xf16>, %b: vector<2x2xf16>, %c: vector<2x2xf32>, %o: memref<2x2xf32>) kernel {
    %d = nvgpu.mma.sync(%a, %b, %c) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
    %c0 = arith.constant 0 : index
    vector.store %d, %o[%c0, %c0] : memref<2x2xf32>, vector<2x2xf32>
    gpu.return
  }
}

// -----

// Another bf16 shape (m16n8k8) is refused by name.
gpu.module @kernels {
  gpu.func @k8(%a: vector<2x2xbf16>, %b: vector<1x2xbf16>, %c: vector<2x2xf32>, %o: memref<2x2xf32>) kernel {
    // expected-error @+1 {{decoda-gpu-lower-bf16-mma: only m16n8k16 with vector<4x2xbf16>, vector<2x2xbf16> and vector<2x2xf32> operands is supported, found 'vector<2x2xbf16>', 'vector<1x2xbf16>', 'vector<2x2xf32>'}}
    %d = nvgpu.mma.sync(%a, %b, %c) {mmaShape = [16, 8, 8]} : (vector<2x2xbf16>, vector<1x2xbf16>, vector<2x2xf32>) -> vector<2x2xf32>
    %c0 = arith.constant 0 : index
    vector.store %d, %o[%c0, %c0] : memref<2x2xf32>, vector<2x2xf32>
    gpu.return
  }
}

// -----

// CHECK-LABEL: gpu.func @s8(
// CHECK-SAME: %[[A:.*]]: vector<4x4xi8>, %[[B:.*]]: vector<2x4xi8>, %[[C:.*]]: vector<2x2xi32>
// CHECK: %[[A0:.*]] = vector.extract %[[A]][0] : vector<4xi8> from vector<4x4xi8>
// CHECK: %[[A0I:.*]] = vector.bitcast %[[A0]] : vector<4xi8> to vector<1xi32>
// CHECK: %[[A0S:.*]] = vector.extract %[[A0I]][0] : i32 from vector<1xi32>
// CHECK: vector.extract %[[B]][1] : vector<4xi8> from vector<2x4xi8>
// CHECK: %[[D:.*]] = nvvm.mma.sync A[%[[A0S]], {{.*}}] B[{{.*}}] C[{{.*}}] {intOverflowBehavior = #nvvm.mma_int_overflow<wrapped>, layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<s8>, multiplicandBPtxType = #nvvm.mma_type<s8>, shape = #nvvm.shape<m = 16, n = 8, k = 32>} : (i32, i32, i32) -> !llvm.struct<(i32, i32, i32, i32)>
// CHECK: vector.from_elements {{.*}} : vector<2x2xi32>
// CHECK-NOT: nvgpu.mma.sync
gpu.module @kernels {
  gpu.func @s8(%a: vector<4x4xi8>, %b: vector<2x4xi8>, %c: vector<2x2xi32>, %o: memref<2x2xi32>) kernel {
    %d = nvgpu.mma.sync(%a, %b, %c) {mmaShape = [16, 8, 32]} : (vector<4x4xi8>, vector<2x4xi8>, vector<2x2xi32>) -> vector<2x2xi32>
    %c0 = arith.constant 0 : index
    vector.store %d, %o[%c0, %c0] : memref<2x2xi32>, vector<2x2xi32>
    gpu.return
  }
}

// -----

// decoda.unsigned_a (the INT8 attention's u8 probabilities): A is u8, B stays s8.
// CHECK-LABEL: gpu.func @u8s8(
// CHECK: nvvm.mma.sync A[{{.*}}] B[{{.*}}] C[{{.*}}] {intOverflowBehavior = #nvvm.mma_int_overflow<wrapped>, layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<u8>, multiplicandBPtxType = #nvvm.mma_type<s8>, shape = #nvvm.shape<m = 16, n = 8, k = 32>} : (i32, i32, i32) -> !llvm.struct<(i32, i32, i32, i32)>
// CHECK-NOT: nvgpu.mma.sync
gpu.module @kernels {
  gpu.func @u8s8(%a: vector<4x4xi8>, %b: vector<2x4xi8>, %c: vector<2x2xi32>, %o: memref<2x2xi32>) kernel {
    %d = nvgpu.mma.sync(%a, %b, %c) {decoda.unsigned_a, mmaShape = [16, 8, 32]} : (vector<4x4xi8>, vector<2x4xi8>, vector<2x2xi32>) -> vector<2x2xi32>
    %c0 = arith.constant 0 : index
    vector.store %d, %o[%c0, %c0] : memref<2x2xi32>, vector<2x2xi32>
    gpu.return
  }
}

// -----

// i8 m8n8k16 is refused by name.
gpu.module @kernels {
  gpu.func @s8k16(%a: vector<1x4xi8>, %b: vector<1x4xi8>, %c: vector<1x2xi32>, %o: memref<1x2xi32>) kernel {
    // expected-error @+1 {{decoda-gpu-lower-bf16-mma: only m16n8k32 with vector<4x4xi8>, vector<2x4xi8> and vector<2x2xi32> operands is supported, found 'vector<1x4xi8>', 'vector<1x4xi8>', 'vector<1x2xi32>'}}
    %d = nvgpu.mma.sync(%a, %b, %c) {mmaShape = [8, 8, 16]} : (vector<1x4xi8>, vector<1x4xi8>, vector<1x2xi32>) -> vector<1x2xi32>
    %c0 = arith.constant 0 : index
    vector.store %d, %o[%c0, %c0] : memref<1x2xi32>, vector<1x2xi32>
    gpu.return
  }
}
