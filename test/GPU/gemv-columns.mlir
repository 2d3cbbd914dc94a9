// decoda-gpu-gemv on weights stored [k, n] that are not constants (an in_out decoda.linear
// whose weight is an argument, such as absorbed MLA's W_UK [H, Dn, Dc] as decoda.mla states
// it; constant ones are transposed at compile time and take the row kernel): the column
// kernel. A block of 128 threads takes a tile of N (lanes x V columns, V elements a 16-byte
// vector, lanes 32 halved while the grid is short of min-blocks blocks, 8 at least, and while
// half of them would cover N), each thread V columns and every parts-th k (parts = 128 /
// lanes): acc[r] += A[r, k] · B[k, n .. n + V) with 8 rows of B loaded before the FMAs; the
// parts' sums meet in shared memory [parts][M · tile] and are added in part order (the same
// on every run) by the thread of each (row, column). Per head ([H, K, N]) the grid's y is the
// head: B's rows h·K + k, A's and C's rows r·H + h.
// Numerics on the PTX interpreter: gemv-heads-sim.mlir (the c_* cases).
// RUN: decoda-opt %s --split-input-file --decoda-gpu-gemv=report=true --verify-diagnostics --canonicalize --cse | FileCheck %s

#a = affine_map<(m, n, k) -> (m, k)>
#wt = affine_map<(m, n, k) -> (k, n)>
#c = affine_map<(m, n, k) -> (m, n)>

// Two rows, K = 256, N = 1000: lanes 8 (32 and 16 give 4 and 8 blocks), tiles of 64 columns,
// 16 blocks, 16 parts of 16 k each (two steps of 8); the last vector of N (992 ..) read by the
// threads past it, not stored.
// CHECK-LABEL: func.func @cols_bf16(
// CHECK-SAME: %[[X:[^:]*]]: memref<2x256xbf16>, %[[W:[^:]*]]: memref<256x1000xbf16>, %[[Y:[^:]*]]: memref<2x1000xf32>
// CHECK-NOT: linalg.fill
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}} = %c16{{.*}}, {{.*}} = %c1{{.*}}, {{.*}}) threads({{.*}}) in ({{.*}} = %c128{{.*}}) workgroup(%[[P:.*]] : memref<16x128xf32, #gpu.address_space<workgroup>>)
// CHECK: %[[CHUNK:.*]] = arith.remui %{{.*}}, %c8
// CHECK: %[[PART:.*]] = arith.divui %{{.*}}, %c8
// CHECK: %[[N:.*]] = arith.select %{{.*}}, %{{.*}}, %c992
// CHECK: scf.for %[[I:.*]] = %c0{{.*}} to %c2{{.*}} step %c1
// CHECK: %[[K0:.*]] = arith.addi %{{.*}}, %[[PART]]
// CHECK-COUNT-8: vector.load %[[W]][%{{.*}}, %[[N]]] {alignment = 16 : i64} : memref<256x1000xbf16>, vector<8xbf16>
// CHECK: %[[A:.*]] = memref.load %[[X]][%c0{{.*}}, %[[K0]]] : memref<2x256xbf16>
// CHECK: %[[AF:.*]] = arith.extf %[[A]] : bf16 to f32
// CHECK: %[[AS:.*]] = vector.broadcast %[[AF]] : f32 to vector<8xf32>
// CHECK: vector.fma %[[AS]]
// CHECK: scf.yield
// CHECK: vector.store %{{.*}}, %[[P]][%[[PART]], %{{.*}}] : memref<16x128xf32, #gpu.address_space<workgroup>>, vector<8xf32>
// CHECK: vector.store %{{.*}}, %[[P]][%[[PART]], %{{.*}}] : memref<16x128xf32, #gpu.address_space<workgroup>>, vector<8xf32>
// CHECK: gpu.barrier
// CHECK: scf.for %[[E:.*]] = %{{.*}} to %c128{{.*}} step %c128
// CHECK-COUNT-16: memref.load %[[P]][%{{.*}}, %[[E]]]
// CHECK: scf.if
// CHECK: memref.store %{{.*}}, %[[Y]][
// CHECK-NOT: linalg.generic
func.func @cols_bf16(%x: memref<2x256xbf16>, %w: memref<256x1000xbf16>, %y: memref<2x1000xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%y : memref<2x1000xf32>)
  linalg.generic {indexing_maps = [#a, #wt, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<2x256xbf16>, memref<256x1000xbf16>) outs(%y : memref<2x1000xf32>) {
  ^bb0(%p: bf16, %q: bf16, %o: f32):
    %pe = arith.extf %p : bf16 to f32
    %qe = arith.extf %q : bf16 to f32
    %r = arith.mulf %pe, %qe : f32
    %s = arith.addf %o, %r : f32
    linalg.yield %s : f32
  }
  return
}

// -----

#a = affine_map<(m, h, n, k) -> (m, h, k)>
#wt = affine_map<(m, h, n, k) -> (h, k, n)>
#c = affine_map<(m, h, n, k) -> (m, h, n)>

// Per head (absorbed MLA's W_UK as stated, 16 heads of 64 -> 512) onto an input C: the grid's
// y is the head, B collapsed to [H·K, N] and read at rows h·64 + k, A at row h (one row), C
// loaded and added at row h.
// CHECK-LABEL: func.func @cols_heads(
// CHECK-SAME: %[[X:[^:]*]]: memref<1x16x64xbf16>, %[[W:[^:]*]]: memref<16x64x512xbf16>, %[[Y:[^:]*]]: memref<1x16x512xf32>
// CHECK-DAG: %[[A2:.*]] = memref.collapse_shape %[[X]] {{\[\[}}0, 1], [2]] : memref<1x16x64xbf16> into memref<16x64xbf16>
// CHECK-DAG: %[[C2:.*]] = memref.collapse_shape %[[Y]] {{\[\[}}0, 1], [2]] : memref<1x16x512xf32> into memref<16x512xf32>
// CHECK-DAG: %[[B2:.*]] = memref.collapse_shape %[[W]] {{\[\[}}0, 1], [2]] : memref<16x64x512xbf16> into memref<1024x512xbf16>
// CHECK: gpu.launch blocks(%{{.*}}, %[[HEAD:[^,]*]], %{{.*}}) in ({{.*}} = %c8{{.*}}, {{.*}} = %c16{{.*}}, {{.*}})
// CHECK: %[[KB:.*]] = arith.muli %[[HEAD]], %c64
// CHECK: %[[ROW:.*]] = arith.addi %[[KB]], %{{.*}}
// CHECK: vector.load %[[B2]][%[[ROW]], %{{.*}}] {{.*}} : memref<1024x512xbf16>, vector<8xbf16>
// CHECK: memref.load %[[A2]][%[[HEAD]], %{{.*}}] : memref<16x64xbf16>
// CHECK: gpu.barrier
// CHECK: %[[R:.*]] = arith.divui %[[E:.*]], %c64
// CHECK: %[[RH:.*]] = arith.muli %[[R]], %c16
// CHECK: %[[CROW:.*]] = arith.addi %[[RH]], %[[HEAD]]
// CHECK: %[[OLD:.*]] = memref.load %[[C2]][%[[CROW]], %[[N:.*]]] : memref<16x512xf32>
// CHECK: %[[NEW:.*]] = arith.addf %[[OLD]],
// CHECK: memref.store %[[NEW]], %[[C2]][%[[CROW]], %[[N]]] : memref<16x512xf32>
func.func @cols_heads(%x: memref<1x16x64xbf16>, %w: memref<16x64x512xbf16>, %y: memref<1x16x512xf32>) {
  linalg.generic {indexing_maps = [#a, #wt, #c], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<1x16x64xbf16>, memref<16x64x512xbf16>) outs(%y : memref<1x16x512xf32>) {
  ^bb0(%p: bf16, %q: bf16, %o: f32):
    %pe = arith.extf %p : bf16 to f32
    %qe = arith.extf %q : bf16 to f32
    %r = arith.mulf %pe, %qe : f32
    %s = arith.addf %o, %r : f32
    linalg.yield %s : f32
  }
  return
}

// -----

#a = affine_map<(m, n, k) -> (m, k)>
#wt = affine_map<(m, n, k) -> (k, n)>
#c = affine_map<(m, n, k) -> (m, n)>

// f32, N = 7: scalar columns (V = 1, 7 not a multiple of 2), 8 lanes, one block.
// CHECK-LABEL: func.func @cols_f32_odd(
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}} = %c1{{.*}}, {{.*}} = %c1{{.*}}, {{.*}}) threads({{.*}}) in ({{.*}} = %c128{{.*}}) workgroup(%{{.*}} : memref<16x24xf32, #gpu.address_space<workgroup>>)
// CHECK: vector.load %{{.*}} {alignment = 4 : i64} : memref<30x7xf32>, vector<1xf32>
func.func @cols_f32_odd(%x: memref<3x30xf32>, %w: memref<30x7xf32>, %y: memref<3x7xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%y : memref<3x7xf32>)
  linalg.generic {indexing_maps = [#a, #wt, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<3x30xf32>, memref<30x7xf32>) outs(%y : memref<3x7xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %r = arith.mulf %p, %q : f32
    %s = arith.addf %o, %r : f32
    linalg.yield %s : f32
  }
  return
}

// -----

#a = affine_map<(m, n, k) -> (m, k)>
#wt = affine_map<(m, n, k) -> (k, n)>
#c = affine_map<(m, n, k) -> (m, n)>

// Left alone: INT8 stored [k, n] (dp4a sums four consecutive k of one column), and 16 rows.
// CHECK-LABEL: func.func @cols_refused(
// CHECK-NOT: gpu.launch
// CHECK-COUNT-2: linalg.generic
func.func @cols_refused(%x: memref<1x64xi8>, %w: memref<64x32xi8>, %y: memref<1x32xi32>,
                        %x16: memref<16x64xbf16>, %wb: memref<64x32xbf16>, %y16: memref<16x32xf32>) {
  // expected-remark @+1 {{an INT8 weight stored [k, n] (dp4a takes four consecutive k)}}
  linalg.generic {indexing_maps = [#a, #wt, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<1x64xi8>, memref<64x32xi8>) outs(%y : memref<1x32xi32>) {
  ^bb0(%p: i8, %q: i8, %o: i32):
    %pe = arith.extsi %p : i8 to i32
    %qe = arith.extsi %q : i8 to i32
    %r = arith.muli %pe, %qe : i32
    %s = arith.addi %o, %r : i32
    linalg.yield %s : i32
  }
  // expected-remark @+1 {{M = 16 is above max-m = 8}}
  linalg.generic {indexing_maps = [#a, #wt, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x16, %wb : memref<16x64xbf16>, memref<64x32xbf16>) outs(%y16 : memref<16x32xf32>) {
  ^bb0(%p: bf16, %q: bf16, %o: f32):
    %pe = arith.extf %p : bf16 to f32
    %qe = arith.extf %q : bf16 to f32
    %r = arith.mulf %pe, %qe : f32
    %s = arith.addf %o, %r : f32
    linalg.yield %s : f32
  }
  return
}
