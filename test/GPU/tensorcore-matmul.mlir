// decoda-gpu-tensorcore-matmul: bf16/f16 projection contractions with f32 accumulation become
// one gpu.launch each (cp.async double-buffered shared tiles, ldmatrix, mma.sync m16n8k16);
// other contractions are left for the SIMT loops, with a remark under report=true. Numerics of
// the generated kernels: tensorcore-sim.mlir.
// RUN: decoda-opt %s --split-input-file --decoda-gpu-tensorcore-matmul=report=true --verify-diagnostics | FileCheck %s

#a = affine_map<(b, m, n, k) -> (b, m, k)>
#w = affine_map<(b, m, n, k) -> (n, k)>
#c = affine_map<(b, m, n, k) -> (b, m, n)>

// The zero fill is folded (the accumulators start at zero); lead dims are collapsed into M;
// 2 blocks along N = 136 (the second one zero-fills rows 136..255 of its B tile), ceil(M/128)
// along y, 8 warps.
// CHECK-LABEL: func.func @linear(
// CHECK-SAME: %[[X:.*]]: memref<1x?x64xbf16>, %[[W:.*]]: memref<136x64xbf16>, %[[Y:.*]]: memref<1x?x136xf32>)
// CHECK-NOT: linalg.fill
// CHECK-DAG: %[[A:.*]] = memref.collapse_shape %[[X]] {{\[\[}}0, 1], [2]] : memref<1x?x64xbf16> into memref<?x64xbf16>
// CHECK-DAG: %[[C:.*]] = memref.collapse_shape %[[Y]] {{\[\[}}0, 1], [2]] : memref<1x?x136xf32> into memref<?x136xf32>
// CHECK-DAG: %[[C2:.*]] = arith.constant 2 : index
// CHECK-DAG: %[[C256:.*]] = arith.constant 256 : index
// CHECK: gpu.launch blocks({{.*}}) in (%{{[^ ]+}} = %[[C2]], {{.*}} threads({{.*}}) in (%{{[^ ]+}} = %[[C256]],
// CHECK-SAME: workgroup(%[[AS:.*]] : memref<2x128x40xbf16, #gpu.address_space<workgroup>>, %[[BS:.*]] : memref<2x128x40xbf16, #gpu.address_space<workgroup>>)
// CHECK: nvgpu.device_async_copy %[[A]][{{.*}}], %[[AS]][{{.*}}], 8, %{{.*}} {bypassL1} : memref<?x64xbf16> to memref<2x128x40xbf16, #gpu.address_space<workgroup>>
// CHECK: nvgpu.device_async_copy %[[W]][{{.*}}], %[[BS]][{{.*}}], 8, %{{.*}} {bypassL1}
// CHECK: %[[FIRST:.*]] = nvgpu.device_async_create_group
// CHECK: scf.for {{.*}} iter_args({{.*}}) -> (vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>)
// CHECK: scf.if
// CHECK: %[[NEXT:.*]] = nvgpu.device_async_create_group
// CHECK: nvgpu.device_async_wait %[[NEXT]] {numGroups = 1 : i32}
// CHECK: } else {
// CHECK: nvgpu.device_async_wait %[[FIRST]] {numGroups = 0 : i32}
// CHECK: gpu.barrier
// CHECK: nvgpu.ldmatrix %[[AS]][{{.*}}] {numTiles = 4 : i32, transpose = false} : {{.*}} -> vector<4x2xbf16>
// CHECK: %[[B01:.*]] = nvgpu.ldmatrix %[[BS]][{{.*}}] {numTiles = 4 : i32, transpose = false} : {{.*}} -> vector<4x2xbf16>
// CHECK: vector.extract %[[B01]][0] : vector<2xbf16> from vector<4x2xbf16>
// CHECK: vector.extract %[[B01]][1]
// CHECK: vector.extract %[[B01]][2]
// CHECK: vector.extract %[[B01]][3]
// CHECK-COUNT-16: nvgpu.mma.sync({{.*}}) {mmaShape = [16, 8, 16]} : (vector<4x2xbf16>, vector<2x2xbf16>, vector<2x2xf32>) -> vector<2x2xf32>
// CHECK: gpu.barrier
// CHECK: scf.yield
// CHECK: scf.if
// CHECK: vector.store %{{.*}}, %[[C]][{{.*}}] {alignment = 8 : i64} : memref<?x136xf32>, vector<2xf32>
// CHECK: gpu.terminator
// CHECK-NOT: linalg.generic
func.func @linear(%x: memref<1x?x64xbf16>, %w: memref<136x64xbf16>, %y: memref<1x?x136xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%y : memref<1x?x136xf32>)
  linalg.generic {indexing_maps = [#a, #w, #c], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<1x?x64xbf16>, memref<136x64xbf16>) outs(%y : memref<1x?x136xf32>) {
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

// f16, 2-D A, operands of the multiply and add in the other order, no fill: the accumulators
// start from C (guarded loads).
#a2 = affine_map<(m, n, k) -> (m, k)>
#w2 = affine_map<(m, n, k) -> (n, k)>
#c2 = affine_map<(m, n, k) -> (m, n)>
// CHECK-LABEL: func.func @accumulate(
// CHECK: gpu.launch
// CHECK: scf.if %{{.*}} -> (vector<2xf32>) {
// CHECK: vector.load %{{.*}} {alignment = 8 : i64} : memref<?x32xf32>, vector<2xf32>
// CHECK: nvgpu.mma.sync({{.*}}) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
func.func @accumulate(%x: memref<?x32xf16>, %w: memref<32x32xf16>, %y: memref<?x32xf32>) {
  linalg.generic {indexing_maps = [#a2, #w2, #c2], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<?x32xf16>, memref<32x32xf16>) outs(%y : memref<?x32xf32>) {
  ^bb0(%p: f16, %q: f16, %o: f32):
    %pe = arith.extf %p : f16 to f32
    %qe = arith.extf %q : f16 to f32
    %r = arith.mulf %qe, %pe : f32
    %s = arith.addf %r, %o : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Left to the SIMT path: f32 operands (no TF32), K not a multiple of tile-k, N not a multiple
// of 8, a transposed [k, n] weight, a body that is not a plain multiply-accumulate.
#a = affine_map<(m, n, k) -> (m, k)>
#w = affine_map<(m, n, k) -> (n, k)>
#wt = affine_map<(m, n, k) -> (k, n)>
#c = affine_map<(m, n, k) -> (m, n)>
// CHECK-LABEL: func.func @refused(
// CHECK-NOT: gpu.launch
// CHECK-COUNT-5: linalg.generic
func.func @refused(%x: memref<?x64xf32>, %w: memref<64x64xf32>, %y: memref<?x64xf32>,
                   %xb: memref<?x48xbf16>, %wb: memref<64x48xbf16>, %wn: memref<60x64xbf16>,
                   %xb64: memref<?x64xbf16>, %yn: memref<?x60xf32>, %wk: memref<64x64xbf16>) {
  // expected-remark @+1 {{decoda-gpu-tensorcore-matmul: left to the SIMT path: operands are not bf16, f16 or i8 (f32 contractions stay SIMT: TF32 would change the numerics)}}
  linalg.generic {indexing_maps = [#a, #w, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<?x64xf32>, memref<64x64xf32>) outs(%y : memref<?x64xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %r = arith.mulf %p, %q : f32
    %s = arith.addf %o, %r : f32
    linalg.yield %s : f32
  }
  // expected-remark @+1 {{K = 48 is not a multiple of tile-k = 32}}
  linalg.generic {indexing_maps = [#a, #w, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%xb, %wb : memref<?x48xbf16>, memref<64x48xbf16>) outs(%y : memref<?x64xf32>) {
  ^bb0(%p: bf16, %q: bf16, %o: f32):
    %pe = arith.extf %p : bf16 to f32
    %qe = arith.extf %q : bf16 to f32
    %r = arith.mulf %pe, %qe : f32
    %s = arith.addf %o, %r : f32
    linalg.yield %s : f32
  }
  // expected-remark @+1 {{N = 60 is not a multiple of 8}}
  linalg.generic {indexing_maps = [#a, #w, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%xb64, %wn : memref<?x64xbf16>, memref<60x64xbf16>) outs(%yn : memref<?x60xf32>) {
  ^bb0(%p: bf16, %q: bf16, %o: f32):
    %pe = arith.extf %p : bf16 to f32
    %qe = arith.extf %q : bf16 to f32
    %r = arith.mulf %pe, %qe : f32
    %s = arith.addf %o, %r : f32
    linalg.yield %s : f32
  }
  // expected-remark @+1 {{B is not a [n, k] weight}}
  linalg.generic {indexing_maps = [#a, #wt, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%xb64, %wk : memref<?x64xbf16>, memref<64x64xbf16>) outs(%y : memref<?x64xf32>) {
  ^bb0(%p: bf16, %q: bf16, %o: f32):
    %pe = arith.extf %p : bf16 to f32
    %qe = arith.extf %q : bf16 to f32
    %r = arith.mulf %pe, %qe : f32
    %s = arith.addf %o, %r : f32
    linalg.yield %s : f32
  }
  // expected-remark @+1 {{the body is not out + extf(a) * extf(b)}}
  linalg.generic {indexing_maps = [#a, #w, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%xb64, %wk : memref<?x64xbf16>, memref<64x64xbf16>) outs(%y : memref<?x64xf32>) {
  ^bb0(%p: bf16, %q: bf16, %o: f32):
    %pe = arith.extf %p : bf16 to f32
    %qe = arith.extf %q : bf16 to f32
    %r = arith.mulf %pe, %qe : f32
    %s = arith.maximumf %o, %r : f32
    linalg.yield %s : f32
  }
  return
}
