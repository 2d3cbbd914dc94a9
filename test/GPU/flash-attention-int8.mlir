// decoda-gpu-flash-attention on decoda.int8_attention functions (INT8 attention: q, k, v
// quantised per tensor with q_scale, k_scale, v_scale; made by decoda-convert-to-linalg
// {int8-attention-calls}, here bufferized at the function boundary): the body becomes two
// launches between allocations of the quantised K ([B][Hkv][Jpad][Dp] i8) and V (tiles
// [B][Hkv][Jpad/64][Dvp][16] i32): the quantisation (grid (tiles, Hkv, B); rint, clamp to
// [-127, 127]; V's tile through shared memory [64][Dvp + 4] i8 into the permuted words) and the attention (64 rows a block, K [2][64][Dp + 16] i8 and V [2][Dvp][20] i32
// stages by cp.async; two key loops: the row max from Q·Kᵀ on i8 mma.sync, then the sums and P·V
// with u8 probabilities on mma.sync marked decoda.unsigned_a); a decode step splits the keys
// over blocks (three more launches). Head dims over 128 (after
// rounding up to 32) and malformed signatures keep the target-neutral body with a remark;
// tensor-cores=false (the pipeline's setting before sm_80) is an error naming the op: the
// target-neutral body reads scalars in host code, which the GPU pipeline cannot map. (Numbers: attention-int8-sim.mlir; PTX and ptxas: attention-int8-ptx.mlir.)
// RUN: decoda-opt %s --split-input-file --decoda-convert-to-linalg="int8-attention-calls=true gpu-kernel-calls=true" --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" --decoda-gpu-flash-attention --verify-diagnostics | FileCheck %s
// RUN: not decoda-opt %s --split-input-file --decoda-convert-to-linalg="int8-attention-calls=true gpu-kernel-calls=true" --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" --decoda-gpu-flash-attention=tensor-cores=false 2>&1 | FileCheck %s --check-prefix=OFF

// CHECK-LABEL: func.func private @__decoda_int8_attention(
// CHECK-SAME: %[[Q:[^:]*]]: memref<1x70x8x64xbf16>, %[[K:[^:]*]]: memref<1x70x2x64xbf16>, %[[V:[^:]*]]: memref<1x70x2x64xbf16>, %[[N:[^:]*]]: index, %[[QS:[^:]*]]: memref<f32>, %[[KS:[^:]*]]: memref<f32>, %[[VS:[^:]*]]: memref<f32>) -> memref<1x70x8x64xbf16> {
// CHECK-NOT: decoda.int8_attention
// CHECK: %[[OUT:.*]] = memref.alloc() : memref<1x70x8x64xbf16>
// CHECK: scf.if
// CHECK: %[[KQ:.*]] = memref.alloc(%{{.*}}, %{{.*}}) : memref<?x2x?x64xi8>
// CHECK: %[[VT:.*]] = memref.alloc(%{{.*}}, %{{.*}}) : memref<?x2x?x64x16xi32>
// The quantisation launch.
// CHECK: gpu.launch blocks(%{{.*}}) in (%{{.*}} = %{{.*}}, %{{.*}} = %c2{{.*}}, %{{.*}} = %{{.*}}) threads(%{{.*}}) in (%{{.*}} = %c128{{.*}}, %{{.*}} = %c1{{.*}}, %{{.*}} = %c1{{.*}}) workgroup(%[[VB:.*]] : memref<64x68xi8, #gpu.address_space<workgroup>>) {
// CHECK: memref.load %[[KS]][] : memref<f32>
// CHECK: memref.load %[[VS]][] : memref<f32>
// CHECK: memref.load %[[K]]
// CHECK: arith.divf
// CHECK: math.roundeven
// CHECK: arith.fptosi %{{.*}} : f32 to i32
// CHECK: arith.trunci %{{.*}} : i32 to i8
// CHECK: vector.store %{{.*}}, %[[KQ]][{{.*}}] {alignment = 4 : i64} : memref<?x2x?x64xi8>, vector<4xi8>
// CHECK: memref.load %[[V]]
// CHECK: memref.store %{{.*}}, %[[VB]]
// CHECK: gpu.barrier
// CHECK: memref.load %[[VB]]
// CHECK: arith.shli
// CHECK: arith.ori
// CHECK: memref.store %{{.*}}, %[[VT]]
// CHECK: gpu.terminator
// The attention launch.
// CHECK: gpu.launch {{.*}} threads({{.*}}) in (%{{.*}} = %c128{{.*}}, %{{.*}} = %c1{{.*}}, %{{.*}} = %c1{{.*}}) workgroup(%[[KSH:.*]] : memref<2x64x80xi8, #gpu.address_space<workgroup>>, %[[VSH:.*]] : memref<2x64x20xi32, #gpu.address_space<workgroup>>) {
// CHECK: memref.load %[[QS]][] : memref<f32>
// CHECK: memref.load %[[Q]]
// CHECK: vector.from_elements {{.*}} : vector<4x4xi8>
// Pass 1: K tiles only, the running max.
// CHECK: nvgpu.device_async_copy %[[KQ]][{{.*}}], %[[KSH]][{{.*}}], 16, %{{.*}} {bypassL1}
// CHECK-NOT: nvgpu.device_async_copy %[[VT]]
// CHECK: scf.for {{.*}} -> (f32, f32) {
// CHECK: nvgpu.device_async_wait %{{.*}} {numGroups = 1 : i32}
// CHECK: gpu.barrier
// CHECK: nvgpu.ldmatrix %[[KSH]]{{.*}} {numTiles = 4 : i32, transpose = false} : memref<2x64x80xi8, #gpu.address_space<workgroup>> -> vector<4x4xi8>
// CHECK: nvgpu.mma.sync({{.*}}) {mmaShape = [16, 8, 32]} : (vector<4x4xi8>, vector<2x4xi8>, vector<2x2xi32>) -> vector<2x2xi32>
// CHECK: arith.sitofp %{{.*}} : i32 to f32
// CHECK: arith.maximumf
// CHECK: gpu.barrier
// CHECK: gpu.shuffle  xor
// Pass 2: K and V tiles, u8 probabilities against s8 values.
// CHECK: nvgpu.device_async_copy %[[VT]][{{.*}}], %[[VSH]][{{.*}}], 4, %{{.*}} {bypassL1}
// CHECK: scf.for {{.*}} -> (f32, f32, vector<2x2xi32>, vector<2x2xi32>, vector<2x2xi32>, vector<2x2xi32>, vector<2x2xi32>, vector<2x2xi32>, vector<2x2xi32>, vector<2x2xi32>) {
// CHECK: math.exp
// CHECK: math.roundeven
// CHECK: memref.load %[[VSH]]
// CHECK: vector.bitcast %{{.*}} : vector<1xi32> to vector<4xi8>
// CHECK: nvgpu.mma.sync({{.*}}) {decoda.unsigned_a, mmaShape = [16, 8, 32]} : (vector<4x4xi8>, vector<2x4xi8>, vector<2x2xi32>) -> vector<2x2xi32>
// CHECK: memref.store %{{.*}}, %[[OUT]]
// CHECK: gpu.terminator
// CHECK-NOT: gpu.launch
// CHECK: memref.dealloc %[[KQ]]
// CHECK: memref.dealloc %[[VT]]
// CHECK: return %[[OUT]]
// OFF: error: decoda-gpu-flash-attention: INT8 attention needs the integer tensor-core kernel (tensor-cores=false: the GPU is before sm_80); quantize without INT8 attention (--quant-attention=false) for it
// OFF-NOT: decoda.unsigned_a
func.func @gqa(%q: tensor<1x70x8x64xbf16>, %k: tensor<1x70x2x64xbf16>, %v: tensor<1x70x2x64xbf16>, %qs: tensor<f32>, %ks: tensor<f32>, %vs: tensor<f32>) -> tensor<1x70x8x64xbf16> {
  %o = decoda.attention %q, %k, %v quantize(%qs, %ks, %vs : tensor<f32>, tensor<f32>, tensor<f32>) {num_heads = 8 : i64, num_kv_heads = 2 : i64, causal}
      : tensor<1x70x8x64xbf16>, tensor<1x70x2x64xbf16>, tensor<1x70x2x64xbf16>
  return %o : tensor<1x70x8x64xbf16>
}

// -----

// Head dims that are not multiples of 32 are padded (D = 40 -> 64 bytes per K row, Dv = 24 -> 32
// value columns; the stores are guarded col < 24); sinks follow the scales.
// CHECK-LABEL: func.func private @__decoda_int8_attention(
// CHECK-SAME: memref<2x?x3x40xf32>, %{{.*}}: memref<2x?x1x40xf32>, %{{.*}}: memref<2x?x1x24xf32>, %{{.*}}: index, %{{.*}}: memref<f32>, %{{.*}}: memref<f32>, %{{.*}}: memref<f32>, %[[SINKS:.*]]: memref<3xf32>)
// CHECK: memref.alloc(%{{.*}}, %{{.*}}) : memref<?x1x?x64xi8>
// CHECK: memref.alloc(%{{.*}}, %{{.*}}) : memref<?x1x?x32x16xi32>
// CHECK: workgroup(%{{.*}} : memref<2x64x80xi8, #gpu.address_space<workgroup>>, %{{.*}} : memref<2x32x20xi32, #gpu.address_space<workgroup>>)
// CHECK: memref.load %[[SINKS]]
func.func @padded_sinks(%q: tensor<2x?x3x40xf32>, %k: tensor<2x?x1x40xf32>, %v: tensor<2x?x1x24xf32>, %s: tensor<3xf32>, %qs: tensor<f32>, %ks: tensor<f32>, %vs: tensor<f32>) -> tensor<2x?x3x24xf32> {
  %o = decoda.attention %q, %k, %v sinks(%s : tensor<3xf32>) quantize(%qs, %ks, %vs : tensor<f32>, tensor<f32>, tensor<f32>) {num_heads = 3 : i64, num_kv_heads = 1 : i64, causal, window = 16 : i64}
      : tensor<2x?x3x40xf32>, tensor<2x?x1x40xf32>, tensor<2x?x1x24xf32>
  return %o : tensor<2x?x3x24xf32>
}

// -----

// A decode step (one query of 8 heads over 2 K/V heads: the rows of a (batch, K/V head) fit one
// block): splits = max(1, min(ceil(264 / (B Hkv)), ceil(keys / 256), 64, tiles)) computed at
// run time, workspaces for the partial maxima, sums and i32 accumulators, then four launches:
// the quantisation, the partial maxima over each split's tiles (grid x = splits), the partial
// sums and P·V (the maxima of all splits first), the combination (grid (ceil(rows * Dv / 128), Hkv, B)).
// CHECK-LABEL: func.func private @__decoda_int8_attention(
// CHECK-SAME: memref<1x1x8x64xbf16>
// CHECK: %[[TILES:.*]] = arith.maxsi %{{.*}}, %c1{{.*}} : index
// CHECK: %[[KQ:.*]] = memref.alloc(%{{.*}}, %{{.*}}) : memref<?x2x?x64xi8>
// CHECK: %[[VT:.*]] = memref.alloc(%{{.*}}, %[[TILES]]) : memref<?x2x?x64x16xi32>
// CHECK: arith.ceildivui %c264{{.*}}, %{{.*}} : index
// CHECK: arith.ceildivui %{{.*}}, %c256{{.*}} : index
// CHECK: arith.minsi %{{.*}}, %c64{{.*}} : index
// CHECK: %[[ATLEAST1:.*]] = arith.maxsi %c1{{.*}}, %{{.*}} : index
// CHECK: %[[SPLITS:.*]] = arith.minsi %[[ATLEAST1]], %[[TILES]] : index
// CHECK: %[[WM:.*]] = memref.alloc(%{{.*}}) : memref<?xf32>
// CHECK: %[[WL:.*]] = memref.alloc(%{{.*}}) : memref<?xf32>
// CHECK: %[[WA:.*]] = memref.alloc(%{{.*}}) : memref<?xi32>
// CHECK: gpu.launch blocks({{.*}}) in (%{{.*}} = %[[TILES]],
// CHECK: vector.store %{{.*}}, %[[KQ]]
// CHECK: gpu.launch blocks({{.*}}) in (%{{.*}} = %[[SPLITS]],
// CHECK-NOT: gpu.terminator
// CHECK: nvgpu.mma.sync({{.*}}) {mmaShape = [16, 8, 32]}
// CHECK-NOT: decoda.unsigned_a
// CHECK: memref.store %{{.*}}, %[[WM]]
// CHECK: gpu.terminator
// CHECK: gpu.launch blocks({{.*}}) in (%{{.*}} = %[[SPLITS]],
// CHECK: memref.load %[[WM]]
// CHECK: nvgpu.mma.sync({{.*}}) {decoda.unsigned_a, mmaShape = [16, 8, 32]}
// CHECK: memref.store %{{.*}}, %[[WL]]
// CHECK: memref.store %{{.*}}, %[[WA]]
// CHECK: gpu.terminator
// The combine: a thread per (row, value column), ceil(rows * Dv / 128) blocks.
// CHECK: %[[CB:.*]] = arith.ceildivui %{{.*}}, %c128{{.*}} : index
// CHECK: gpu.launch blocks({{.*}}) in (%{{.*}} = %[[CB]], %{{.*}} = %c2{{.*}}, %{{.*}} = %{{.*}})
// CHECK: memref.load %[[WM]]
// CHECK: memref.load %[[WL]]
// CHECK: memref.load %[[WA]]
// CHECK: arith.addi %{{.*}}, %{{.*}} : i32
// CHECK: gpu.terminator
// CHECK: memref.dealloc %[[KQ]]
// CHECK: memref.dealloc %[[WA]]
func.func @decode(%q: tensor<1x1x8x64xbf16>, %k: tensor<1x?x2x64xbf16>, %v: tensor<1x?x2x64xbf16>, %qs: tensor<f32>, %ks: tensor<f32>, %vs: tensor<f32>) -> tensor<1x1x8x64xbf16> {
  %o = decoda.attention %q, %k, %v quantize(%qs, %ks, %vs : tensor<f32>, tensor<f32>, tensor<f32>) {num_heads = 8 : i64, num_kv_heads = 2 : i64, causal}
      : tensor<1x1x8x64xbf16>, tensor<1x?x2x64xbf16>, tensor<1x?x2x64xbf16>
  return %o : tensor<1x1x8x64xbf16>
}

// -----

// D = 160: the Q fragments and accumulators would not fit in registers; the target-neutral body
// stays (inlined later by the pipeline).
// CHECK-LABEL: func.func private @__decoda_int8_attention(
// CHECK: decoda.int8_attention
// CHECK-NOT: gpu.launch
// CHECK-LABEL: func.func @too_wide(
// expected-remark @+2 {{decoda-gpu-flash-attention: INT8 attention keeps the target-neutral lowering (key-tile loop of kernels): head dims 160, 160 over 128 (Q fragments and accumulators would not fit in registers)}}
func.func @too_wide(%q: tensor<1x8x2x160xbf16>, %k: tensor<1x8x2x160xbf16>, %v: tensor<1x8x2x160xbf16>, %qs: tensor<f32>, %ks: tensor<f32>, %vs: tensor<f32>) -> tensor<1x8x2x160xbf16> {
  %o = decoda.attention %q, %k, %v quantize(%qs, %ks, %vs : tensor<f32>, tensor<f32>, tensor<f32>) {num_heads = 2 : i64, num_kv_heads = 2 : i64}
      : tensor<1x8x2x160xbf16>, tensor<1x8x2x160xbf16>, tensor<1x8x2x160xbf16>
  return %o : tensor<1x8x2x160xbf16>
}

// -----

// A tagged function (written here after bufferization) whose q_scale is not a rank-0 f32 buffer.
// CHECK-LABEL: func.func private @__decoda_int8_attention(
// CHECK: decoda.int8_attention
// CHECK-NOT: gpu.launch
// expected-remark @+1 {{decoda-gpu-flash-attention: INT8 attention keeps the target-neutral lowering (key-tile loop of kernels): unexpected quantisation scale operand (expected rank-0 f32 buffers)}}
func.func private @__decoda_int8_attention(%q: memref<1x8x2x32xf32>, %k: memref<1x8x2x32xf32>, %v: memref<1x8x2x32xf32>, %n: index, %qs: memref<2xf32>, %ks: memref<f32>, %vs: memref<f32>) -> memref<1x8x2x32xf32> attributes {decoda.int8_attention = {causal = false, mask = false, num_heads = 2 : i64, num_kv_heads = 2 : i64, scale = 0.25 : f64, segment_ids = false, sinks = false}} {
  %o = memref.alloc() : memref<1x8x2x32xf32>
  return %o : memref<1x8x2x32xf32>
}
