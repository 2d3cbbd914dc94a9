// decoda-gpu-gemv{fold-norms only-folded} (the CUDA pipeline's first GEMV run, before
// decoda-gpu-row-norm): an RMSNorm call whose rows only GEMV kernels with static rows read is
// computed in those kernels' prologue and its call erased (with dynamic rows: in the
// dispatch's M = 1 kernels, the call kept for the other row counts); the others keep their
// call (and only-folded leaves their contractions to the second run). The input is the IR of
// Inputs/norm_fold_cases.mlir right before that run (decoda-compile's dump); numerics of every
// case against NumPy: norm-fold-sim.mlir.
// RUN: rm -rf %t && mkdir -p %t
// RUN: decoda-compile %S/Inputs/norm_fold_cases.mlir --target=cuda --emit=ptx -o %t/k.ptx --dump-ir-after-each=%t/d
// RUN: decoda-opt %t/d/*-decoda-gpu-flash-attention.mlir --pass-pipeline="builtin.module(func.func(decoda-gpu-gemv{fold-norms only-folded}))" | FileCheck %s
// Without fold-norms (or in the second run) nothing of this happens: the calls stay.
// RUN: decoda-opt %t/d/*-decoda-gpu-flash-attention.mlir --pass-pipeline="builtin.module(func.func(decoda-gpu-gemv{fold-norms=false only-folded}))" | FileCheck %s --check-prefix=OFF
// A write to the norm's input between the call and its readers (a fill of x inserted after
// the call in @plain_f32): not folded.
// RUN: %PYTHON -c "import glob; t = open(glob.glob('%t/d/*-decoda-gpu-flash-attention.mlir')[0]).read(); i = t.index('func.func @plain_f32'); j = t.index('\n', t.index('call @__decoda_gpu_norm', i)); open('%t/written.mlir', 'w').write(t[:j] + '\n    linalg.fill ins(%%cst : f32) outs(%%arg0 : memref<1x2x1024xf32>)' + t[j:])"
// RUN: decoda-opt %t/written.mlir --pass-pipeline="builtin.module(func.func(decoda-gpu-gemv{fold-norms only-folded}))" | FileCheck %s --check-prefix=WRITTEN
// The projection's C buffer used again after a write of x (bufferization reuses a dead buffer:
// a static T = 1 ONNX decoder layer's GLU output in its q/k/v result's): uses after C is
// written again are not the projection's readers, so the write of x after them does not
// block the fold (REUSED; before, the first norm of that layer kept a kernel of its own). A
// write of x before a reader of C (the copy) still does (READ). (These were calls of another
// norm of x; a norm's call only reads its operands, which no longer blocks a fold: GPT-NeoX's
// two norms of one input.)
// RUN: %PYTHON -c "import glob; t = open(glob.glob('%t/d/*-decoda-gpu-flash-attention.mlir')[0]).read(); i = t.index('func.func @plain_f32'); j = t.index('    return %%alloc', i); open('%t/reused.mlir', 'w').write(t[:j] + '    linalg.fill ins(%%cst : f32) outs(%%alloc : memref<1x2x40xf32>)\n    linalg.fill ins(%%cst : f32) outs(%%arg0 : memref<1x2x1024xf32>)\n' + t[j:]); open('%t/read.mlir', 'w').write(t[:j] + '    linalg.fill ins(%%cst : f32) outs(%%arg0 : memref<1x2x1024xf32>)\n    %%c2 = memref.alloc() : memref<1x2x40xf32>\n    memref.copy %%alloc, %%c2 : memref<1x2x40xf32> to memref<1x2x40xf32>\n' + t[j:])"
// RUN: decoda-opt %t/reused.mlir --pass-pipeline="builtin.module(func.func(decoda-gpu-gemv{fold-norms only-folded}))" | FileCheck %s --check-prefix=REUSED
// RUN: decoda-opt %t/read.mlir --pass-pipeline="builtin.module(func.func(decoda-gpu-gemv{fold-norms only-folded}))" | FileCheck %s --check-prefix=READ

// Two projections read one row of 72: two kernels (12 and 6 blocks of 4 warps), each with the
// row [1][72] and the warps' partial sums [4][1] in shared memory, the sums of squares, a
// barrier, rsqrt, the normalised row, a barrier; the call is gone.
// CHECK-LABEL: func.func @plain_bf16(
// CHECK-NOT: call @__decoda_gpu_norm
// CHECK: gpu.launch {{.*}} in (%{{.*}} = %c12,{{.*}} workgroup(%[[Y:.*]] : memref<1x72xbf16, #gpu.address_space<workgroup>>, %[[RED:.*]] : memref<4x1xf32, #gpu.address_space<workgroup>>)
// CHECK: %[[X:.*]] = memref.collapse_shape %arg0
// CHECK: scf.for
// CHECK: vector.load %[[X]]
// CHECK: vector.store %{{.*}}, %[[Y]]
// CHECK: gpu.shuffle xor
// CHECK: memref.store %{{.*}}, %[[RED]]
// CHECK: gpu.barrier
// CHECK: math.rsqrt
// CHECK: scf.for
// CHECK: vector.load %arg1
// CHECK: vector.store %{{.*}}, %[[Y]]
// CHECK: gpu.barrier
// CHECK: vector.load %[[Y]]
// CHECK: gpu.launch {{.*}} in (%{{.*}} = %c6,{{.*}} workgroup(
// CHECK-NOT: call @__decoda_gpu_norm
// CHECK: return
// The add form: the sum's buffer is the caller's, written by block 0 of the gate and up
// kernel; the scale 0.5 multiplies the branch, the offset 1 the weight; down stays for the
// second run (its A is not the norm's).
// CHECK-LABEL: func.func @add_f16(
// CHECK: %[[SUM:.*]] = memref.alloc() : memref<1x4x256xf16>
// CHECK-NOT: call @__decoda_gpu_norm
// CHECK: gpu.launch {{.*}} workgroup(%[[Y2:.*]] : memref<4x256xf16, #gpu.address_space<workgroup>>, %{{.*}} : memref<4x4xf32, #gpu.address_space<workgroup>>)
// CHECK: %[[B0:.*]] = arith.cmpi eq, %{{.*}}, %c0
// CHECK: %[[HALF:.*]] = arith.constant 5.000000e-01 : f32
// CHECK: %[[HALFV:.*]] = vector.broadcast %[[HALF]]
// CHECK: arith.mulf %{{.*}}, %[[HALFV]] : vector<8xf32>
// CHECK: scf.if %[[B0]] {
// CHECK: vector.store %{{.*}}, %{{.*}}
// CHECK: vector.store %{{.*}}, %[[Y2]]
// CHECK: math.rsqrt
// CHECK: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK: %[[ONEV:.*]] = vector.broadcast %[[ONE]]
// CHECK: arith.addf %{{.*}}, %[[ONEV]] : vector<8xf32>
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %arg5 :
// CHECK: linalg.generic {{.*}} ins(%[[SUM]],
// CHECK-LABEL: func.func @plain_f32(
// CHECK-NOT: call @__decoda_gpu_norm
// CHECK: gpu.launch {{.*}} workgroup(%{{.*}} : memref<2x1024xf32, #gpu.address_space<workgroup>>
// An f32 weight beside bf16 rows: read as f32.
// CHECK-LABEL: func.func @mixed_weight(
// CHECK-NOT: call @__decoda_gpu_norm
// CHECK: gpu.launch
// CHECK: vector.load %arg1[%{{.*}}] {alignment = 16 : i64} : memref<64xf32>, vector<8xf32>
// Not folded: the rows are also returned.
// CHECK-LABEL: func.func @returned(
// CHECK: call @__decoda_gpu_norm
// CHECK-NOT: gpu.launch
// LayerNorm with a bias: two block sums (the mean, then the centred squares), each in its own
// buffer; the mean subtracted, the bias added.
// CHECK-LABEL: func.func @layer(
// CHECK-NOT: call @__decoda_gpu_norm
// CHECK: gpu.launch {{.*}} workgroup(%{{.*}} : memref<1x64xbf16, #gpu.address_space<workgroup>>, %[[R1:.*]] : memref<4x1xf32, #gpu.address_space<workgroup>>, %[[R2:.*]] : memref<4x1xf32, #gpu.address_space<workgroup>>)
// CHECK: memref.store %{{.*}}, %[[R1]]
// CHECK: gpu.barrier
// CHECK: arith.subf
// CHECK: memref.store %{{.*}}, %[[R2]]
// CHECK: gpu.barrier
// CHECK: math.rsqrt
// CHECK: vector.load %arg2
// CHECK: arith.subf
// CHECK: arith.addf
// CHECK: gpu.barrier
// T dynamic: the call kept in `scf.if (rows != 1)`, the other branch a buffer shaped like x
// (not read: the dispatch's M = 1 kernel computes the rows in its prologue); the dispatch's
// other kernels read the if's result.
// CHECK-LABEL: func.func @dynamic(
// CHECK: %[[OTHER:.+]] = arith.cmpi ne, %{{.+}}, %{{.+}} : index
// CHECK: %[[N:.+]] = scf.if %[[OTHER]] -> (memref<1x?x64xbf16>) {
// CHECK-NEXT: %[[C:.+]] = func.call @__decoda_gpu_norm{{[0-9_]*}}(%arg0, %arg1)
// CHECK-NEXT: scf.yield %[[C]]
// CHECK-NEXT: } else {
// CHECK: %[[X:.+]] = memref.alloc(%{{.+}}) : memref<1x?x64xbf16>
// CHECK-NEXT: scf.yield %[[X]]
// CHECK: gpu.launch {{.*}} workgroup(%{{.*}} : memref<1x64xbf16, #gpu.address_space<workgroup>>, %{{.*}} : memref<4x1xf32, #gpu.address_space<workgroup>>)
// CHECK: math.rsqrt
// CHECK: } else {
// CHECK: memref.collapse_shape %[[N]]
// CHECK: gpu.launch
// Not folded: 16 rows (above max-m 8; with mma, as the pipeline sets it for sm_80 and later,
// the tensor-core GEMV folds 16 bf16 rows: norm-fold-sim.mlir).
// CHECK-LABEL: func.func @many_rows(
// CHECK: call @__decoda_gpu_norm
// CHECK-NOT: gpu.launch
// CHECK: return

// A parallel block's two LayerNorms of one input, side by side: both folded, the second into
// the GEMV after the attention's run-time checks and call (neither writes x: cf.assert writes
// no buffer, the call's buffer operands are not x, the first norm's call only reads).
// CHECK-LABEL: func.func @parallel(
// CHECK-NOT: call @__decoda_gpu_norm
// CHECK: gpu.launch
// CHECK: cf.assert
// CHECK: call @__decoda_gpu_attention
// CHECK-NOT: call @__decoda_gpu_norm
// CHECK: gpu.launch {{.*}} workgroup(%{{.*}} : memref<1x64xbf16, #gpu.address_space<workgroup>>, %{{.*}} : memref<4x1xf32, #gpu.address_space<workgroup>>, %{{.*}} : memref<4x1xf32, #gpu.address_space<workgroup>>)
// CHECK: return

// OFF-LABEL: func.func @plain_bf16(
// OFF: call @__decoda_gpu_norm
// OFF-NOT: gpu.launch
// OFF-LABEL: func.func @add_f16(
// OFF: call @__decoda_gpu_norm
// OFF-NOT: gpu.launch
// OFF-LABEL: func.func @layer(
// OFF: call @__decoda_gpu_norm
// OFF-NOT: gpu.launch
// OFF: return

// WRITTEN-LABEL: func.func @plain_bf16(
// WRITTEN-NOT: call @__decoda_gpu_norm
// WRITTEN-LABEL: func.func @plain_f32(
// WRITTEN: call @__decoda_gpu_norm
// WRITTEN-NEXT: linalg.fill
// WRITTEN-NOT: gpu.launch
// WRITTEN: return

// REUSED-LABEL: func.func @plain_f32(
// REUSED-NOT: call @__decoda_gpu_norm
// REUSED: gpu.launch
// REUSED: linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : memref<1x2x40xf32>)
// REUSED-NEXT: linalg.fill ins(%{{.+}} : f32) outs(%arg0 : memref<1x2x1024xf32>)
// REUSED: return
// READ-LABEL: func.func @plain_f32(
// READ: call @__decoda_gpu_norm{{[0-9_]*}}(%arg0, %arg1)
// READ-NOT: gpu.launch
// READ: linalg.fill ins(%{{.+}} : f32) outs(%arg0 : memref<1x2x1024xf32>)
// READ-NEXT: memref.alloc
// READ-NEXT: memref.copy
// READ: return
