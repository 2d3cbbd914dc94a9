// decoda-gpu-merge-launches: consecutive independent launches of one block shape become one.
// RUN: decoda-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(decoda-gpu-merge-launches))" | FileCheck %s
// In the CUDA pipeline: the Llama-3.2-1B-shaped decode step (weights as arguments) has its q, k
// and v GEMV kernels as one launch of 512 + 512 + 512 blocks (k and v split K over 4 warps; v
// rounded straight into the V cache's slice since 8 Dec 2026, when the V cache write, [32, 8]
// threads, left the launch of q's and k's RoPE kernels, 2 + 1 + 1 blocks then, 2 now) (7
// launches: the two RMSNorms computed by the GEMV kernels reading them;
// 9 before that, 11 before RoPE was one kernel and the caches were written in place, 12 before
// gate and up became one GEMV kernel); the small f32 block at T = 1 computes what NumPy does on the PTX interpreter with its
// q, k and v GEMVs (16 + 8 + 8 blocks) as one launch.
// RUN: rm -rf %t && mkdir -p %t
// RUN: decoda-compile %decoda_src/bench/gpu/llama32_1b_step.mlir --target=cuda --emit=ptx -o %t/step.ptx --dump-ir-after-each=%t/step
// RUN: %PYTHON -c "import glob, re; t = open(glob.glob('%t/step/*-decoda-gpu-name-kernels.mlir')[0]).read(); print('launches', t.count('gpu.launch_func'), 'grids', *re.findall(r'gpu.launch_func .* blocks in \(%%c(\d+)', t)[:3])" | FileCheck %s --check-prefix=STEP
// STEP: launches 7 grids 1536 2 2
// RUN: decoda-compile %S/Inputs/llama_small_f32.mlir --static-dims=0:1=1 --target=cuda --emit=ptx -o %t/f.ptx --dump-ir-after-each=%t/f
// RUN: %PYTHON %S/Inputs/block_data.py llama-f32 1 %t/f1-in.npz %t/f1-out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/f %t/f.ptx --inputs %t/f1-in.npz --expect %t/f1-out.npz --rtol 1e-5 --atol 1e-5 | FileCheck %s --check-prefix=SIM
// (The merged q/k/v kernel computes the RMSNorm too: 816 bytes of shared memory for the
// normalised row and the warps' sums, since the --static-dims build's shapes are static from
// the start, decoda-refine-shapes.)
// SIM: launch blk_kernel{{(_[0-9]+)?}}: grid [32, 1, 1] block [128, 1, 1] shared 816 bytes
// SIM: out0: ok (64 elements
// 9 before the norms were folded, 11 before the merge (gemv-sim.mlir's F1 count without it);
// 10 before RoPE was one kernel (its table computed in the rotation's blocks), 11 before gate
// and up became one GEMV kernel.
// SIM: 7 launches
// Two sibling projections whose kernels split K over their warps (41 + 20 blocks, each with
// 16 bytes of partial sums and a barrier), merged, against NumPy:
// RUN: decoda-compile %S/Inputs/sibling_gemv.mlir --target=cuda --emit=ptx -o %t/s.ptx --dump-ir-after-each=%t/s
// RUN: %PYTHON -c "import numpy as np; r = np.random.default_rng(3); x, w1, w2 = r.standard_normal((1, 1, 1030)).astype('f4'), r.standard_normal((41, 1030)).astype('f4'), r.standard_normal((20, 1030)).astype('f4'); np.savez('%t/s-in.npz', arg0=x, arg1=w1, arg2=w2); np.savez('%t/s-out.npz', out0=(x @ w1.T).astype('f4'), out1=(x @ w2.T).astype('f4'))"
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/s %t/s.ptx --inputs %t/s-in.npz --expect %t/s-out.npz --rtol 1e-4 --atol 1e-4 | FileCheck %s --check-prefix=SIBLINGS
// SIBLINGS: launch siblings_kernel: grid [61, 1, 1] block [128, 1, 1] shared 32 bytes; bar 61,
// SIBLINGS: out0: ok (41 elements
// SIBLINGS: out1: ok (20 elements
// SIBLINGS: 1 launches

// Two independent launches (each reads x, writes its own buffer), an allocation between them:
// one launch of 4 + 2 blocks, each body at its own block index and grid size, their shared
// memory side by side.
// CHECK-LABEL: func.func @independent
// CHECK: memref.alloc() : memref<8xf32>
// CHECK: %[[C6:.+]] = arith.constant 6 : index
// CHECK: gpu.launch blocks(%[[B:.+]], %{{.+}}, %{{.+}}) in (%{{.+}} = %[[C6]], %{{.+}} = %{{.+}}, %{{.+}} = %{{.+}}) threads
// CHECK-SAME: workgroup(%[[S1:.+]] : memref<4xf32, #gpu.address_space<workgroup>>, %[[S2:.+]] : memref<2xf32, #gpu.address_space<workgroup>>)
// CHECK: %[[IN1:.+]] = arith.cmpi ult, %[[B]], %c4
// CHECK: scf.if %[[IN1]] {
// CHECK: memref.store %{{.+}}, %[[S1]]
// CHECK: gpu.barrier
// CHECK: memref.store %{{.+}}, %arg1[%[[B]]]
// CHECK: } else {
// CHECK: %[[K:.+]] = arith.subi %[[B]], %c4
// CHECK: memref.store %{{.+}}, %[[S2]]
// CHECK: arith.index_cast %c2 : index to i32
// CHECK: memref.store %{{.+}}, %alloc[%[[K]]]
// CHECK: } {decoda.merged_launches = 2 : i64}
// CHECK-NOT: gpu.launch
func.func @independent(%x: memref<8xf32>, %y: memref<8xf32>) -> memref<8xf32> {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  %c0 = arith.constant 0 : index
  gpu.launch blocks(%b, %by, %bz) in (%gx = %c4, %gy = %c1, %gz = %c1)
             threads(%t, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1)
             workgroup(%s : memref<4xf32, #gpu.address_space<workgroup>>) {
    %v = memref.load %x[%b] : memref<8xf32>
    memref.store %v, %s[%c0] : memref<4xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    memref.store %v, %y[%b] : memref<8xf32>
    gpu.terminator
  }
  %o = memref.alloc() : memref<8xf32>
  gpu.launch blocks(%b, %by, %bz) in (%gx = %c2, %gy = %c1, %gz = %c1)
             threads(%t, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1)
             workgroup(%s : memref<2xf32, #gpu.address_space<workgroup>>) {
    %v = memref.load %x[%b] : memref<8xf32>
    memref.store %v, %s[%c0] : memref<2xf32, #gpu.address_space<workgroup>>
    %g = arith.index_cast %gx : index to i32
    %f = arith.sitofp %g : i32 to f32
    memref.store %f, %o[%b] : memref<8xf32>
    gpu.terminator
  }
  return %o : memref<8xf32>
}

// -----

// Shared memory side by side stays within the 48 KiB a kernel may declare statically: of
// three launches with 40 KiB, 16 KiB and 16 KiB, the first stays alone (40 + 16 > 48) and the
// other two merge (32 KiB).
// CHECK-LABEL: func.func @shared_budget
// CHECK: gpu.launch {{.*}} workgroup(%{{.*}} : memref<10240xf32, #gpu.address_space<workgroup>>) {
// CHECK: gpu.launch {{.*}} workgroup(%{{.*}} : memref<4096xf32, #gpu.address_space<workgroup>>, %{{.*}} : memref<4096xf32, #gpu.address_space<workgroup>>) {
// CHECK: } {decoda.merged_launches = 2 : i64}
// CHECK-NOT: gpu.launch
func.func @shared_budget(%x: memref<8xf32>, %y: memref<8xf32>, %z: memref<8xf32>, %w: memref<8xf32>) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  %c0 = arith.constant 0 : index
  gpu.launch blocks(%b, %by, %bz) in (%gx = %c2, %gy = %c1, %gz = %c1)
             threads(%t, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1)
             workgroup(%s : memref<10240xf32, #gpu.address_space<workgroup>>) {
    %v = memref.load %x[%b] : memref<8xf32>
    memref.store %v, %s[%c0] : memref<10240xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    %u = memref.load %s[%c0] : memref<10240xf32, #gpu.address_space<workgroup>>
    memref.store %u, %y[%b] : memref<8xf32>
    gpu.terminator
  }
  gpu.launch blocks(%b, %by, %bz) in (%gx = %c2, %gy = %c1, %gz = %c1)
             threads(%t, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1)
             workgroup(%s : memref<4096xf32, #gpu.address_space<workgroup>>) {
    %v = memref.load %x[%b] : memref<8xf32>
    memref.store %v, %s[%c0] : memref<4096xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    %u = memref.load %s[%c0] : memref<4096xf32, #gpu.address_space<workgroup>>
    memref.store %u, %z[%b] : memref<8xf32>
    gpu.terminator
  }
  gpu.launch blocks(%b, %by, %bz) in (%gx = %c2, %gy = %c1, %gz = %c1)
             threads(%t, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1)
             workgroup(%s : memref<4096xf32, #gpu.address_space<workgroup>>) {
    %v = memref.load %x[%b] : memref<8xf32>
    memref.store %v, %s[%c0] : memref<4096xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    %u = memref.load %s[%c0] : memref<4096xf32, #gpu.address_space<workgroup>>
    memref.store %u, %w[%b] : memref<8xf32>
    gpu.terminator
  }
  return
}

// -----

// The same thread count in two shapes (64 x 1 and 16 x 4, as a [32, 8] elementwise nest beside
// a 256-thread kernel): the second body takes its thread ids from the linear id, x fastest
// (x = lin % 16, y = lin / 16 % 4, z = lin / 64), its block size its own.
// CHECK-LABEL: func.func @reshaped
// CHECK: gpu.launch blocks(%[[B:.+]], %{{.+}}, %{{.+}}) in (%{{.+}} = %c3, %{{.+}} = %{{.+}}, %{{.+}} = %{{.+}}) threads(%[[TX:.+]], %[[TY:.+]], %[[TZ:.+]]) in (%[[SX:.+]] = %c64, %[[SY:.+]] = %c1, %{{.+}} = %c1)
// CHECK: scf.if
// CHECK: memref.store %{{.+}}, %arg1[%[[TX]]]
// CHECK: } else {
// CHECK: %[[ZY:.+]] = arith.muli %[[SY]], %[[TZ]]
// CHECK: %[[YZ:.+]] = arith.addi %[[TY]], %[[ZY]]
// CHECK: %[[X64:.+]] = arith.muli %[[SX]], %[[YZ]]
// CHECK: %[[LIN:.+]] = arith.addi %[[TX]], %[[X64]]
// CHECK: %[[X:.+]] = arith.remui %[[LIN]], %c16
// CHECK: %[[REST:.+]] = arith.divui %[[LIN]], %c16
// CHECK: %[[Y:.+]] = arith.remui %[[REST]], %c4
// CHECK: %[[Y16:.+]] = arith.muli %[[Y]], %c16
// CHECK: %[[I:.+]] = arith.addi %[[X]], %[[Y16]]
// CHECK: memref.store %{{.+}}, %arg2[%[[I]]]
// CHECK: } {decoda.merged_launches = 2 : i64}
func.func @reshaped(%x: memref<64xf32>, %y: memref<64xf32>, %z: memref<64xf32>) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  gpu.launch blocks(%b, %by, %bz) in (%gx = %c2, %gy = %c1, %gz = %c1)
             threads(%t, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    %v = memref.load %x[%t] : memref<64xf32>
    memref.store %v, %y[%t] : memref<64xf32>
    gpu.terminator
  }
  gpu.launch blocks(%b, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%t, %ty, %tz) in (%sx = %c16, %sy = %c4, %sz = %c1) {
    %r = arith.muli %ty, %sx : index
    %i = arith.addi %t, %r : index
    %v = memref.load %x[%i] : memref<64xf32>
    memref.store %v, %z[%i] : memref<64xf32>
    gpu.terminator
  }
  return
}

// -----

// Left alone: the second reads what the first writes; different block sizes.
// CHECK-LABEL: func.func @left_alone
// CHECK-COUNT-3: gpu.launch blocks
// CHECK-NOT: decoda.merged_launches
func.func @left_alone(%x: memref<8xf32>, %y: memref<8xf32>, %z: memref<8xf32>) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  gpu.launch blocks(%b, %by, %bz) in (%gx = %c2, %gy = %c1, %gz = %c1)
             threads(%t, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    %v = memref.load %x[%b] : memref<8xf32>
    memref.store %v, %y[%b] : memref<8xf32>
    gpu.terminator
  }
  gpu.launch blocks(%b, %by, %bz) in (%gx = %c2, %gy = %c1, %gz = %c1)
             threads(%t, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    %v = memref.load %y[%b] : memref<8xf32>
    memref.store %v, %z[%b] : memref<8xf32>
    gpu.terminator
  }
  gpu.launch blocks(%b, %by, %bz) in (%gx = %c2, %gy = %c1, %gz = %c1)
             threads(%t, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    %v = memref.load %x[%b] : memref<8xf32>
    memref.store %v, %x[%c1] : memref<8xf32>
    gpu.terminator
  }
  return
}

// -----

// A 3-D grid (2 x 3 x 2 blocks, a [32, 8]-style nest over heads and tokens: the new values'
// copy into a cache beside the RoPE kernel of a Hugging Face decode step) after a 1-D one: one
// launch of 4 + 12 blocks; the second body's block ids from its linear index (x = l % 2,
// y = l / 2 % 3, z = l / 6), its grid sizes its own.
// CHECK-LABEL: func.func @grid3d
// CHECK: %[[TOTAL:.+]] = arith.constant 16 : index
// CHECK: gpu.launch blocks(%[[B:.+]], %{{.+}}, %{{.+}}) in (%{{.+}} = %[[TOTAL]], %{{.+}} = %c1{{.*}}, %{{.+}} = %c1{{.*}}) threads
// CHECK: scf.if
// CHECK: memref.store %{{.+}}, %arg1[%[[B]]]
// CHECK: } else {
// CHECK: %[[L:.+]] = arith.subi %[[B]], %c4
// CHECK: %[[X:.+]] = arith.remui %[[L]], %c2
// CHECK: %[[R:.+]] = arith.divui %[[L]], %c2
// CHECK: %[[Y:.+]] = arith.remui %[[R]], %c3
// CHECK: %[[Z:.+]] = arith.divui %[[R]], %c3
// CHECK: %[[I:.+]] = arith.addi %[[X]], %[[Y]]
// CHECK: %[[J:.+]] = arith.addi %[[I]], %[[Z]]
// CHECK: %[[G:.+]] = arith.addi %c2{{.*}}, %c3
// CHECK: memref.store %{{.+}}, %arg2[%[[J]], %[[G]]]
// CHECK: } {decoda.merged_launches = 2 : i64}
func.func @grid3d(%x: memref<16xf32>, %y: memref<16xf32>, %z: memref<16x16xf32>) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  gpu.launch blocks(%b, %by, %bz) in (%gx = %c4, %gy = %c1, %gz = %c1)
             threads(%t, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    %v = memref.load %x[%b] : memref<16xf32>
    memref.store %v, %y[%b] : memref<16xf32>
    gpu.terminator
  }
  gpu.launch blocks(%b, %by, %bz) in (%gx = %c2, %gy = %c3, %gz = %c2)
             threads(%t, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    %i = arith.addi %b, %by : index
    %j = arith.addi %i, %bz : index
    %g = arith.addi %gx, %gy : index
    %v = memref.load %x[%j] : memref<16xf32>
    memref.store %v, %z[%j, %g] : memref<16x16xf32>
    gpu.terminator
  }
  return
}

// -----

// Launches each under the guard against an empty grid (`scf.if (rows > 0)`, the row norms of a
// dynamic row count: GPT-NeoX's two norms of one input) merge: one launch of n + m blocks under
// a guard of its own grid. A guard of another condition keeps its launch (and ends the run).
// CHECK-LABEL: func.func @guarded
// CHECK-SAME:  (%[[X:.+]]: memref<?xf32>, %[[Y:.+]]: memref<?xf32>, %[[Z:.+]]: memref<?xf32>, %[[N:.+]]: index, %[[M:.+]]: index, %[[F:.+]]: i1)
// CHECK: %[[TOTAL:.+]] = arith.addi %[[N]], %[[M]]
// CHECK: %[[ANY:.+]] = arith.cmpi sgt, %[[TOTAL]], %c0
// CHECK-NEXT: scf.if %[[ANY]] {
// CHECK-NEXT: gpu.launch blocks(%{{.+}}, %{{.+}}, %{{.+}}) in (%{{.+}} = %[[TOTAL]],
// CHECK: } {decoda.merged_launches = 2 : i64}
// CHECK-NOT: decoda.grid_guard
// CHECK: scf.if %[[F]] {
// CHECK-NEXT: gpu.launch
// CHECK-NOT: decoda.merged_launches
func.func @guarded(%x: memref<?xf32>, %y: memref<?xf32>, %z: memref<?xf32>, %n: index, %m: index, %f: i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %p = arith.cmpi sgt, %n, %c0 : index
  scf.if %p {
    gpu.launch blocks(%b, %by, %bz) in (%gx = %n, %gy = %c1, %gz = %c1)
               threads(%t, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
      %v = memref.load %x[%b] : memref<?xf32>
      memref.store %v, %y[%b] : memref<?xf32>
      gpu.terminator
    }
  }
  %q = arith.cmpi ne, %m, %c0 : index
  scf.if %q {
    gpu.launch blocks(%b, %by, %bz) in (%gx = %m, %gy = %c1, %gz = %c1)
               threads(%t, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
      %v = memref.load %x[%b] : memref<?xf32>
      memref.store %v, %z[%b] : memref<?xf32>
      gpu.terminator
    }
  }
  scf.if %f {
    gpu.launch blocks(%b, %by, %bz) in (%gx = %m, %gy = %c1, %gz = %c1)
               threads(%t, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
      %v = memref.load %y[%b] : memref<?xf32>
      memref.store %v, %x[%b] : memref<?xf32>
      gpu.terminator
    }
  }
  return
}

// -----

// A guarded launch that does not merge (it reads what the launch before it writes) keeps a
// guard of its own grid.
// CHECK-LABEL: func.func @guarded_alone
// CHECK: gpu.launch
// CHECK-NOT: decoda.merged_launches
// CHECK: %[[P:.+]] = arith.cmpi sgt, %arg2, %c0
// CHECK-NEXT: scf.if %[[P]] {
// CHECK-NEXT: gpu.launch
// CHECK-NOT: decoda.grid_guard
func.func @guarded_alone(%x: memref<?xf32>, %y: memref<?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  gpu.launch blocks(%b, %by, %bz) in (%gx = %c4, %gy = %c1, %gz = %c1)
             threads(%t, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    %v = memref.load %x[%b] : memref<?xf32>
    memref.store %v, %y[%b] : memref<?xf32>
    gpu.terminator
  }
  %p = arith.cmpi sgt, %n, %c0 : index
  scf.if %p {
    gpu.launch blocks(%b, %by, %bz) in (%gx = %n, %gy = %c1, %gz = %c1)
               threads(%t, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
      %v = memref.load %y[%b] : memref<?xf32>
      memref.store %v, %x[%b] : memref<?xf32>
      gpu.terminator
    }
  }
  return
}
