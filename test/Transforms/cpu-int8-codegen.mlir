// RUN: decoda-opt %s --decoda-cpu-int8-codegen --split-input-file | FileCheck %s
// RUN: decoda-opt %s --decoda-cpu-int8-codegen="m-tile=3" --split-input-file | FileCheck %s --check-prefix=TILE3
// RUN: not decoda-opt %s --decoda-cpu-int8-codegen="m-tile=15" --split-input-file 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: decoda-opt %s --decoda-cpu-int8-codegen="vnni=false" --split-input-file | FileCheck %s --check-prefix=I32
// RUN: decoda-opt %s --decoda-cpu-int8-codegen --split-input-file 2>&1 >/dev/null | FileCheck %s --check-prefix=REMARK
// RUN: decoda-opt %s --decoda-cpu-int8-codegen="vnni=false" --split-input-file 2>&1 >/dev/null | FileCheck %s --check-prefix=REMARK-I32

// The tagged i32 contraction of qlinear (x i8 [lead..., K], w i8 [N, K]) becomes x + 128 as u8
// rows padded to 64 bytes, a VNNI-packed weight ([ceil(N/32)][ceil(K/4)][128] bytes and column
// sums), and an scf.parallel over 32-wide panels of vpdpbusd register tiles corrected by
// (128 + zp) * colsum. Untagged generics and tagged ones on strided buffers are left alone.
// (The numbers: test/e2e/qlinear_int8.py.)

// BAD: m-tile must be in [1, 14]

// vnni=false (a target without AVX-512 VNNI, set by decoda-lower-to-cpu{vnni=false}): the same
// layout, tiles and corrections, each vpdpbusd as i32 vector ops: byte r of every 32-bit weight
// lane sign-extended (shift left 24 - 8r, arithmetic shift right 24), times the broadcast u8
// activation byte r, added. The numbers: test/e2e/qlinear_int8.py (test_qlinear_without_vnni).
// I32-LABEL: func.func @runtime_weight(
// I32-NOT:     llvm.call_intrinsic
// I32:         %{{.*}}:16 = scf.for
// I32:           %[[W0:.*]] = vector.load %{{.*}} : memref<?x?x128xi8>, vector<64xi8>
// I32:           %[[A:.*]] = vector.extract %{{.*}}[0] : i32 from vector<1xi32>
// I32:           %[[L:.*]] = vector.bitcast %[[W0]] : vector<64xi8> to vector<16xi32>
// I32:           %[[S0:.*]] = arith.shli %[[L]], %{{.*}} : vector<16xi32>
// I32:           %[[B0:.*]] = arith.shrsi %[[S0]], %{{.*}} : vector<16xi32>
// I32:           %[[A0:.*]] = arith.andi %[[A]], %{{.*}} : i32
// I32:           %[[V0:.*]] = vector.broadcast %[[A0]] : i32 to vector<16xi32>
// I32:           %[[P0:.*]] = arith.muli %[[B0]], %[[V0]] : vector<16xi32>
// I32:           arith.addi %{{.*}}, %[[P0]] : vector<16xi32>
// I32:           arith.shrsi %[[L]], %{{.*}} : vector<16xi32>
// I32:           arith.shrui %[[A]], %{{.*}} : i32
// I32-NOT:     llvm.call_intrinsic
// I32:         memref.dealloc
// I32-LABEL: func.func @constant_weight_token_zp(
// I32-NOT:     llvm.call_intrinsic
// I32:         memref.get_global @w_vnni32
// I32-LABEL: func.func @left_alone(
// I32:         linalg.generic {{.*}} attrs = {decoda.qlinear_acc}
// I32-LABEL: func.func @fused_epilogue(
// I32-NOT:     llvm.call_intrinsic
// I32:         arith.muli %{{.*}} : vector<16xi32>
// I32:         math.roundeven %{{.*}} : vector<16xf32>

// One remark per function with rewritten contractions, naming the form; none for @left_alone.
// REMARK: remark: decoda-cpu-int8-codegen: 1 i8 contraction as AVX-512 VNNI vpdpbusd register tiles
// REMARK: remark: decoda-cpu-int8-codegen: 1 i8 contraction as AVX-512 VNNI vpdpbusd register tiles
// REMARK-NOT: remark
// REMARK: remark: decoda-cpu-int8-codegen: 1 i8 contraction as AVX-512 VNNI vpdpbusd register tiles
// REMARK: remark: decoda-cpu-int8-codegen: 1 i8 contraction as AVX-512 VNNI vpdpbusd register tiles
// REMARK-NOT: remark
// REMARK-I32-COUNT-4: remark: decoda-cpu-int8-codegen: 1 i8 contraction as i32 vector multiply-adds (vnni=false: the target has no AVX-512 VNNI)
// REMARK-I32-NOT: remark

#x = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
#w = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
#o = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @runtime_weight(
// CHECK-SAME:    %[[X:.*]]: memref<1x?x40xi8>, %[[W:.*]]: memref<50x40xi8>, %[[ACC:.*]]: memref<1x?x50xi32>)
//                the panel counter of the dynamic schedule, at the function entry
// CHECK:         %[[CNT:.*]] = memref.alloca() : memref<1xi64>
// CHECK-NOT:     linalg.generic
// CHECK:         %[[XC:.*]] = memref.collapse_shape %[[X]] {{\[\[}}0, 1], [2]] : memref<1x?x40xi8> into memref<?x40xi8>
// CHECK:         %[[OC:.*]] = memref.collapse_shape %[[ACC]] {{\[\[}}0, 1], [2]] : memref<1x?x50xi32> into memref<?x50xi32>
// CHECK:         %[[XU:.*]] = memref.alloc(%{{.*}}, %{{.*}}) {alignment = 64 : i64} : memref<?x?xi8>
// CHECK:         %[[FLIP:.*]] = arith.constant dense<-128> : vector<64xi8>
// CHECK:           vector.maskedload %[[XC]]
// CHECK:           arith.xori %{{.*}}, %[[FLIP]] : vector<64xi8>
// CHECK:           vector.store %{{.*}}, %[[XU]]
// CHECK:         %[[PACKED:.*]] = memref.alloc(%{{.*}}, %{{.*}}) {alignment = 64 : i64} : memref<?x?x128xi8>
// CHECK:         %[[SUMS:.*]] = memref.alloc(%{{.*}}) {alignment = 64 : i64} : memref<?xi32>
// CHECK:         scf.parallel
// CHECK-COUNT-4:   memref.load %[[W]]
// CHECK:           memref.store %{{.*}}, %[[SUMS]]
// CHECK:         } {decoda.parallel_all_dims}
// CHECK:         memref.store %{{.*}}, %[[CNT]][%{{.*}}] : memref<1xi64>
// CHECK:         scf.parallel
// CHECK:           scf.while
// CHECK:             %[[OLD:.*]] = memref.atomic_rmw addi %{{.*}}, %[[CNT]][%{{.*}}] : (i64, memref<1xi64>) -> i64
// CHECK:             %[[P:.*]] = arith.index_cast %[[OLD]] : i64 to index
// CHECK:             %[[MORE:.*]] = arith.cmpi slt, %[[P]], %{{.*}} : index
// CHECK:             scf.condition(%[[MORE]]) %[[P]] : index
// CHECK:           vector.load %[[SUMS]]
//                  8-row tiles: 16 accumulators, two 64-byte weight loads and per row a 4-byte
//                  broadcast and two vpdpbusd per k group
// CHECK:           %{{.*}}:16 = scf.for
// CHECK-COUNT-2:     vector.load %[[PACKED]]{{.*}} : memref<?x?x128xi8>, vector<64xi8>
// CHECK:             vector.load %[[XU]]{{.*}} : memref<?x?xi8>, vector<4xi8>
// CHECK:             vector.bitcast %{{.*}} : vector<4xi8> to vector<1xi32>
// CHECK:             vector.broadcast %{{.*}} : i32 to vector<16xi32>
// CHECK:             vector.bitcast %{{.*}} : vector<16xi32> to vector<64xi8>
// CHECK-COUNT-16:    llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"
// CHECK:           vector.maskedload %[[OC]]
// CHECK:           arith.subi
// CHECK:           vector.maskedstore %[[OC]]
//                  then 2-row tiles and single rows (four chains over alternate k groups)
// CHECK:           %{{.*}}:4 = scf.for
// CHECK:           %{{.*}}:4 = scf.for
// CHECK:           %{{.*}}:2 = scf.for
// CHECK:         } {decoda.parallel_all_dims}
// CHECK:         memref.dealloc %[[XU]]
// CHECK:         memref.dealloc %[[PACKED]]
// CHECK:         memref.dealloc %[[SUMS]]
// TILE3-LABEL: func.func @runtime_weight(
// TILE3:         %{{.*}}:6 = scf.for
// TILE3-COUNT-6:   llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"
func.func @runtime_weight(%x: memref<1x?x40xi8>, %w: memref<50x40xi8>, %acc: memref<1x?x50xi32>) {
  linalg.generic {indexing_maps = [#x, #w, #o], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%x, %w : memref<1x?x40xi8>, memref<50x40xi8>) outs(%acc : memref<1x?x50xi32>) attrs = {decoda.qlinear_acc} {
  ^bb0(%a: i8, %b: i8, %c: i32):
    %0 = arith.extsi %a : i8 to i32
    %1 = arith.extsi %b : i8 to i32
    %2 = arith.muli %0, %1 : i32
    %3 = arith.addi %c, %2 : i32
    linalg.yield %3 : i32
  }
  return
}

// -----

// A constant weight [3, 5] is packed at compile time: panel 0, two k groups of 4, column n at
// bytes 4n..4n+3 of each group (group 1: k = 4 only, then zeros); column sums 15, -15, 0.
#x = affine_map<(d0, d1, d2) -> (d0, d2)>
#w = affine_map<(d0, d1, d2) -> (d1, d2)>
#o = affine_map<(d0, d1, d2) -> (d0, d1)>
#tok = affine_map<(d0, d1, d2) -> (d0, 0)>
// CHECK:       memref.global "private" constant @w_vnni32 : memref<1x2x128xi8> = dense<"0x01020304FFFEFDFC{{0+}}05000000FB{{0+}}">
// CHECK:       memref.global "private" constant @w_vnni32_colsum : memref<32xi32> = dense<[15, -15, 0, 0,
// CHECK-LABEL: func.func @constant_weight_token_zp(
// CHECK-NOT:     linalg.generic
// CHECK:         memref.get_global @w_vnni32 : memref<1x2x128xi8>
// CHECK:         memref.get_global @w_vnni32_colsum : memref<32xi32>
// CHECK:         scf.parallel
// CHECK:           arith.constant 128 : i32
// CHECK:           llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"
memref.global "private" constant @w : memref<3x5xi8> = dense<[[1, 2, 3, 4, 5], [-1, -2, -3, -4, -5], [0, 0, 0, 0, 0]]>
func.func @constant_weight_token_zp(%x: memref<?x5xi8>, %zp: memref<?x1xi8>, %acc: memref<?x3xi32>) {
  %w = memref.get_global @w : memref<3x5xi8>
  linalg.generic {indexing_maps = [#x, #w, #tok, #o], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %w, %zp : memref<?x5xi8>, memref<3x5xi8>, memref<?x1xi8>) outs(%acc : memref<?x3xi32>) attrs = {decoda.qlinear_acc} {
  ^bb0(%a: i8, %b: i8, %z: i8, %c: i32):
    %0 = arith.extsi %a : i8 to i32
    %1 = arith.extsi %z : i8 to i32
    %2 = arith.subi %0, %1 : i32
    %3 = arith.extsi %b : i8 to i32
    %4 = arith.muli %2, %3 : i32
    %5 = arith.addi %c, %4 : i32
    linalg.yield %5 : i32
  }
  return
}

// -----

// Negative: no tag (not a qlinear contraction), and a tagged one on a strided input.
#x = affine_map<(d0, d1, d2) -> (d0, d2)>
#w = affine_map<(d0, d1, d2) -> (d1, d2)>
#o = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @left_alone(
// CHECK-NOT:     llvm.call_intrinsic
// CHECK:         linalg.generic
// CHECK:         linalg.generic {{.*}} attrs = {decoda.qlinear_acc}
// CHECK-NOT:     llvm.call_intrinsic
func.func @left_alone(%x: memref<4x8xi8>, %xs: memref<4x8xi8, strided<[16, 1]>>, %w: memref<5x8xi8>, %acc: memref<4x5xi32>) {
  linalg.generic {indexing_maps = [#x, #w, #o], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %w : memref<4x8xi8>, memref<5x8xi8>) outs(%acc : memref<4x5xi32>) {
  ^bb0(%a: i8, %b: i8, %c: i32):
    %0 = arith.extsi %a : i8 to i32
    %1 = arith.extsi %b : i8 to i32
    %2 = arith.muli %0, %1 : i32
    %3 = arith.addi %c, %2 : i32
    linalg.yield %3 : i32
  }
  linalg.generic {indexing_maps = [#x, #w, #o], iterator_types = ["parallel", "parallel", "reduction"]} ins(%xs, %w : memref<4x8xi8, strided<[16, 1]>>, memref<5x8xi8>) outs(%acc : memref<4x5xi32>) attrs = {decoda.qlinear_acc} {
  ^bb0(%a: i8, %b: i8, %c: i32):
    %0 = arith.extsi %a : i8 to i32
    %1 = arith.extsi %b : i8 to i32
    %2 = arith.muli %0, %1 : i32
    %3 = arith.addi %c, %2 : i32
    linalg.yield %3 : i32
  }
  return
}

// -----

// The zero-filled accumulator serves only the contraction and the tagged epilogue (per-channel
// scale, bias, requantisation to i8): the epilogue runs in the register tiles and the i32
// buffer disappears.
#x = affine_map<(d0, d1, d2) -> (d0, d2)>
#w = affine_map<(d0, d1, d2) -> (d1, d2)>
#o = affine_map<(d0, d1, d2) -> (d0, d1)>
#id = affine_map<(d0, d1) -> (d0, d1)>
#sc = affine_map<(d0, d1) -> ()>
#ch = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @fused_epilogue(
// CHECK-SAME:    %[[Y:[a-z0-9]+]]: memref<4x5xi8>)
// CHECK-NOT:     linalg
// CHECK-NOT:     memref<4x5xi32>
// CHECK:         llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"
// CHECK:         arith.sitofp %{{.*}} : vector<16xi32> to vector<16xf32>
// CHECK:         math.roundeven %{{.*}} : vector<16xf32>
// CHECK:         arith.fptosi %{{.*}} : vector<16xf32> to vector<16xi8>
// CHECK:         vector.maskedstore %[[Y]]
// CHECK-NOT:     linalg
func.func @fused_epilogue(%x: memref<4x8xi8>, %w: memref<5x8xi8>, %xs: memref<f32>, %ws: memref<5xf32>, %bias: memref<5xf32>, %os: memref<f32>, %y: memref<4x5xi8>) {
  %c0 = arith.constant 0 : i32
  %cl = arith.constant -128.0 : f32
  %ch = arith.constant 127.0 : f32
  %acc = memref.alloc() : memref<4x5xi32>
  linalg.fill ins(%c0 : i32) outs(%acc : memref<4x5xi32>)
  linalg.generic {indexing_maps = [#x, #w, #o], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %w : memref<4x8xi8>, memref<5x8xi8>) outs(%acc : memref<4x5xi32>) attrs = {decoda.qlinear_acc} {
  ^bb0(%a: i8, %b: i8, %c: i32):
    %0 = arith.extsi %a : i8 to i32
    %1 = arith.extsi %b : i8 to i32
    %2 = arith.muli %0, %1 : i32
    %3 = arith.addi %c, %2 : i32
    linalg.yield %3 : i32
  }
  linalg.generic {indexing_maps = [#id, #sc, #ch, #ch, #sc, #id], iterator_types = ["parallel", "parallel"]} ins(%acc, %xs, %ws, %bias, %os : memref<4x5xi32>, memref<f32>, memref<5xf32>, memref<5xf32>, memref<f32>) outs(%y : memref<4x5xi8>) attrs = {decoda.qlinear_epilogue} {
  ^bb0(%a: i32, %s: f32, %t: f32, %u: f32, %v: f32, %o: i8):
    %0 = arith.sitofp %a : i32 to f32
    %1 = arith.mulf %0, %s : f32
    %2 = arith.mulf %1, %t : f32
    %3 = arith.addf %2, %u : f32
    %4 = arith.divf %3, %v : f32
    %5 = math.roundeven %4 : f32
    %6 = arith.maxnumf %5, %cl : f32
    %7 = arith.minnumf %6, %ch : f32
    %8 = arith.fptosi %7 : f32 to i8
    linalg.yield %8 : i8
  }
  memref.dealloc %acc : memref<4x5xi32>
  return
}

// -----

// Inside another parallel loop (whose iterations would share a counter) the panels are split
// statically: no counter, no atomics.
#x = affine_map<(d0, d1, d2) -> (d0, d2)>
#w = affine_map<(d0, d1, d2) -> (d1, d2)>
#o = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @inside_parallel(
// CHECK-NOT:     memref.alloca
// CHECK-NOT:     memref.atomic_rmw
// CHECK:         llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"
// CHECK-NOT:     memref.atomic_rmw
func.func @inside_parallel(%x: memref<3x4x8xi8>, %w: memref<5x8xi8>, %acc: memref<3x4x5xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  scf.parallel (%e) = (%c0) to (%c3) step (%c1) {
    %xe = memref.subview %x[%e, 0, 0] [1, 4, 8] [1, 1, 1] : memref<3x4x8xi8> to memref<4x8xi8, strided<[8, 1], offset: ?>>
    %xc = memref.alloc() : memref<4x8xi8>
    memref.copy %xe, %xc : memref<4x8xi8, strided<[8, 1], offset: ?>> to memref<4x8xi8>
    %ac = memref.alloc() : memref<4x5xi32>
    linalg.generic {indexing_maps = [#x, #w, #o], iterator_types = ["parallel", "parallel", "reduction"]} ins(%xc, %w : memref<4x8xi8>, memref<5x8xi8>) outs(%ac : memref<4x5xi32>) attrs = {decoda.qlinear_acc} {
    ^bb0(%a: i8, %b: i8, %c: i32):
      %0 = arith.extsi %a : i8 to i32
      %1 = arith.extsi %b : i8 to i32
      %2 = arith.muli %0, %1 : i32
      %3 = arith.addi %c, %2 : i32
      linalg.yield %3 : i32
    }
    %ae = memref.subview %acc[%e, 0, 0] [1, 4, 5] [1, 1, 1] : memref<3x4x5xi32> to memref<4x5xi32, strided<[5, 1], offset: ?>>
    memref.copy %ac, %ae : memref<4x5xi32> to memref<4x5xi32, strided<[5, 1], offset: ?>>
    scf.reduce
  }
  return
}
