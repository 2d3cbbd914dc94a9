// decoda-gpu-gemv with block-quantised weights: a contraction whose weight B is written by a
// decoda.dequantize_blocks generic from constants reads the packed codes instead of B (V · bits
// / 8 bytes per vector of V weights, unpacked with shifts and masks, 0x4b000000 | code as f32
// minus 2^23, (code - zp) · scale in f32 rounded to B's type), and the generic and B go. Under a
// dynamic-M dispatch the generic moves into the M > max-m branch (the tensor cores' contraction
// still reads B); with codes that are no constant, or M above max-m, B is read as before.
// Numerics (ONNX MatMulNBits against ONNX Runtime on the PTX interpreter):
// onnx-matmul-nbits-sim.mlir, onnx-genai-layer-sim.mlir.
// RUN: decoda-opt %s --split-input-file --decoda-gpu-gemv | FileCheck %s
// With prefetch-bytes the rows of codes (32 bytes each here) are prefetched into L2.
// RUN: decoda-opt %s --split-input-file --decoda-gpu-gemv=prefetch-bytes=16777216 | FileCheck %s --check-prefix=PREFETCH
// With mma (the pipeline sets it for sm_80 and later) 4-bit codes with f16/bf16 and whole zero
// points take the tensor-core GEMV: 8 weight rows a warp, each lane 16 bytes of codes of its
// row; the two codes of byte j of a word (prmt of the word and the word shifted by 4: bytes 0
// and 2) masked into the two halves and or'ed with 0x64006400 (f16: 1024 + code), minus
// (1024 + zp), times the scale (the generic's rounding), B fragments of mma.sync m16n8k16; A's
// pairs are halves of its loaded registers. Fractional zero points and f32 keep the SIMT
// kernel.
// RUN: decoda-opt %s --split-input-file --decoda-gpu-gemv=mma=true | FileCheck %s --check-prefix=MMA
// MMA-LABEL: func.func @f16_m1(
// MMA:         gpu.launch
// MMA:           vector.load %{{.*}} : memref<64x32xi8>, vector<16xi8>
// MMA:           vector.bitcast %{{.*}} : vector<16xi8> to vector<4xi32>
// MMA:           %[[SCALE:.*]] = memref.load %{{.*}} : memref<64x2xf16>
// MMA:           %[[ZP:.*]] = memref.load %{{.*}} : memref<64x2xf16>
// MMA:           vector.shuffle %{{.*}}, %{{.*}} [0, 1] : vector<8xf16>, vector<8xf16>
// MMA:           %[[SCALES:.*]] = vector.broadcast %[[SCALE]] : f16 to vector<2xf16>
// MMA:           %[[BIAS:.*]] = arith.addf %[[ZP]], %{{.*}} : f16
// MMA:           %[[BIASES:.*]] = vector.broadcast %[[BIAS]] : f16 to vector<2xf16>
// MMA:           %[[MASK:.*]] = arith.constant 983055 : i32
// MMA:           %[[MAGIC:.*]] = arith.constant 1677747200 : i32
// MMA:           %[[HIGH:.*]] = arith.shrui %[[WORD:.*]], %{{.*}} : i32
// MMA:           %[[SPREAD:.*]] = nvvm.prmt <default> %{{.*}}, %[[WORD]], %[[HIGH]] : i32
// MMA:           %[[CODES:.*]] = arith.andi %[[SPREAD]], %[[MASK]] : i32
// MMA:           %[[BIASED:.*]] = arith.ori %[[CODES]], %[[MAGIC]] : i32
// MMA:           %[[PAIR:.*]] = vector.bitcast %{{.*}} : vector<1xi32> to vector<2xf16>
// MMA:           %[[CENTRED:.*]] = arith.subf %[[PAIR]], %[[BIASES]] : vector<2xf16>
// MMA:           arith.mulf %[[CENTRED]], %[[SCALES]] : vector<2xf16>
// MMA:           nvgpu.mma.sync
// MMA-SAME:        {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
// MMA-NOT:       gpu.shuffle
// MMA:         return
// MMA-LABEL: func.func @fractional_zp(
// MMA-NOT:       nvgpu.mma.sync
// MMA:           gpu.shuffle
// MMA:         return
// MMA-LABEL: func.func @large_zp(
// MMA-NOT:       nvgpu.mma.sync
// MMA:           gpu.shuffle
// MMA:         return
// MMA-LABEL: func.func @dynamic_m(
// MMA-NOT:       nvgpu.mma.sync
// MMA:         return
// PREFETCH-LABEL: func.func @f16_m1(
// PREFETCH: gpu.launch
// PREFETCH: %[[SIZE:.*]] = arith.constant 32 : i32
// PREFETCH-NEXT: memref.extract_strided_metadata %{{.*}} : memref<64x32xi8>
// PREFETCH: nvvm.cp.async.bulk.prefetch %{{.*}}, %[[SIZE]]

#dq_codes = affine_map<(d0, d1) -> (d0, d1 floordiv 2)>
#dq_blocks = affine_map<(d0, d1) -> (d0, d1 floordiv 32)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#b = affine_map<(d0, d1, d2) -> (d1, d2)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>
memref.global "private" constant @codes : memref<64x32xi8> = dense<17>
memref.global "private" constant @scales : memref<64x2xf16> = dense<5.000000e-01>
memref.global "private" constant @zps : memref<64x2xf16> = dense<7.000000e+00>

// CHECK-LABEL: func.func @f16_m1(
// CHECK-NOT:     linalg.generic
// CHECK:         gpu.launch
// 16 bytes of codes (32 4-bit codes) a lane and vector, the block's scale and zero point.
// CHECK:           vector.load %{{.*}} : memref<64x32xi8>, vector<16xi8>
// CHECK:           vector.bitcast %{{.*}} : vector<16xi8> to vector<4xi32>
// CHECK:           memref.load %{{.*}} : memref<64x2xf16>
// CHECK:           memref.load %{{.*}} : memref<64x2xf16>
// The code at bits 4 .. 7 masked in place: 2^23 + 16 code; times 1/16, minus (2^19 + zp):
// code - zp in one FMA (the zero points are whole numbers).
// CHECK:           %[[ZP:.*]] = arith.extf %{{.*}} : f16 to f32
// CHECK:           %[[MASK4:.*]] = arith.constant 240 : i32
// CHECK:           %[[CODE4:.*]] = arith.andi %{{.*}}, %[[MASK4]] : i32
// CHECK:           %[[BIASED4:.*]] = arith.ori %[[CODE4]], %{{.*}} : i32
// CHECK:           %[[F4:.*]] = arith.bitcast %[[BIASED4]] : i32 to f32
// CHECK:           %[[SIXTEENTH:.*]] = arith.constant 6.250000e-02 : f32
// CHECK:           %[[BIG4:.*]] = arith.constant -5.242880e+05 : f32
// CHECK:           %[[OFF4:.*]] = arith.subf %[[BIG4]], %[[ZP]] : f32
// CHECK:           math.fma %[[F4]], %[[SIXTEENTH]], %[[OFF4]] : f32
// Bits 20 .. 31 through the word shifted by 16.
// CHECK:           arith.constant 16 : i32
// CHECK:           arith.shrui
// The products summed per vector and scaled once: f32 accumulators, no weight rounded to f16.
// CHECK-NOT:       arith.truncf
// CHECK:           math.fma %{{.*}}, %{{.*}}, %{{.*}} : f32
// CHECK-NOT:       arith.truncf
// CHECK:           gpu.shuffle  xor
// CHECK-NOT:     memref<64x64xf16>
// CHECK:         return
func.func @f16_m1(%x: memref<1x64xf16>, %y: memref<1x64xf32>) {
  %codes = memref.get_global @codes : memref<64x32xi8>
  %scales = memref.get_global @scales : memref<64x2xf16>
  %zps = memref.get_global @zps : memref<64x2xf16>
  %w = memref.alloc() : memref<64x64xf16>
  linalg.generic {indexing_maps = [#dq_codes, #dq_blocks, #dq_blocks, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%codes, %scales, %zps : memref<64x32xi8>, memref<64x2xf16>, memref<64x2xf16>) outs(%w : memref<64x64xf16>)
      attrs = {decoda.dequantize_blocks = {bits = 4 : i64, block_size = 32 : i64}} {
  ^bb0(%byte: i8, %s: f16, %z: f16, %out: f16):
    %k = linalg.index 1 : index
    %k32 = arith.index_castui %k : index to i32
    %c2 = arith.constant 2 : i32
    %c4 = arith.constant 4 : i32
    %c15 = arith.constant 15 : i32
    %r = arith.remui %k32, %c2 : i32
    %sh = arith.muli %r, %c4 : i32
    %b32 = arith.extui %byte : i8 to i32
    %shifted = arith.shrui %b32, %sh : i32
    %code = arith.andi %shifted, %c15 : i32
    %cf = arith.uitofp %code : i32 to f32
    %zf = arith.extf %z : f16 to f32
    %sf = arith.extf %s : f16 to f32
    %d = arith.subf %cf, %zf : f32
    %v = arith.mulf %d, %sf : f32
    %h = arith.truncf %v : f32 to f16
    linalg.yield %h : f16
  }
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%y : memref<1x64xf32>)
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<1x64xf16>, memref<64x64xf16>) outs(%y : memref<1x64xf32>) {
  ^bb0(%p: f16, %q: f16, %acc: f32):
    %pe = arith.extf %p : f16 to f32
    %qe = arith.extf %q : f16 to f32
    %m = arith.mulf %pe, %qe : f32
    %s2 = arith.addf %acc, %m : f32
    linalg.yield %s2 : f32
  }
  return
}

// -----

#dq_codes = affine_map<(d0, d1) -> (d0, d1 floordiv 2)>
#dq_blocks = affine_map<(d0, d1) -> (d0, d1 floordiv 32)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#b = affine_map<(d0, d1, d2) -> (d1, d2)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>
memref.global "private" constant @fcodes : memref<64x32xi8> = dense<17>
memref.global "private" constant @fscales : memref<64x2xf16> = dense<5.000000e-01>
memref.global "private" constant @fzps : memref<64x2xf16> = dense<7.500000e+00>

// Zero points with a fraction: 2^23 + zp is no f32 (its ulp is 1), so the FMA gives the code
// exactly and code - zp is a subtraction of its own.
// CHECK-LABEL: func.func @fractional_zp(
// CHECK:         gpu.launch
// CHECK:           memref.load %{{.*}} : memref<64x2xf16>
// CHECK:           memref.load %{{.*}} : memref<64x2xf16>
// CHECK:           %[[ZP:.*]] = arith.extf %{{.*}} : f16 to f32
// CHECK:           %[[MASK4:.*]] = arith.constant 240 : i32
// CHECK:           arith.andi %{{.*}}, %[[MASK4]] : i32
// CHECK:           %[[F4:.*]] = arith.bitcast %{{.*}} : i32 to f32
// CHECK:           %[[SIXTEENTH:.*]] = arith.constant 6.250000e-02 : f32
// CHECK:           %[[BIG4:.*]] = arith.constant -5.242880e+05 : f32
// CHECK-NEXT:      %[[CODE:.*]] = math.fma %[[F4]], %[[SIXTEENTH]], %[[BIG4]] : f32
// CHECK-NEXT:      arith.subf %[[CODE]], %[[ZP]] : f32
// CHECK:         return
func.func @fractional_zp(%x: memref<1x64xf16>, %y: memref<1x64xf32>) {
  %codes = memref.get_global @fcodes : memref<64x32xi8>
  %scales = memref.get_global @fscales : memref<64x2xf16>
  %zps = memref.get_global @fzps : memref<64x2xf16>
  %w = memref.alloc() : memref<64x64xf16>
  linalg.generic {indexing_maps = [#dq_codes, #dq_blocks, #dq_blocks, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%codes, %scales, %zps : memref<64x32xi8>, memref<64x2xf16>, memref<64x2xf16>) outs(%w : memref<64x64xf16>)
      attrs = {decoda.dequantize_blocks = {bits = 4 : i64, block_size = 32 : i64}} {
  ^bb0(%byte: i8, %s: f16, %z: f16, %out: f16):
    %k = linalg.index 1 : index
    %k32 = arith.index_castui %k : index to i32
    %c2 = arith.constant 2 : i32
    %c4 = arith.constant 4 : i32
    %c15 = arith.constant 15 : i32
    %r = arith.remui %k32, %c2 : i32
    %sh = arith.muli %r, %c4 : i32
    %b32 = arith.extui %byte : i8 to i32
    %shifted = arith.shrui %b32, %sh : i32
    %code = arith.andi %shifted, %c15 : i32
    %cf = arith.uitofp %code : i32 to f32
    %zf = arith.extf %z : f16 to f32
    %sf = arith.extf %s : f16 to f32
    %d = arith.subf %cf, %zf : f32
    %v = arith.mulf %d, %sf : f32
    %h = arith.truncf %v : f32 to f16
    linalg.yield %h : f16
  }
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%y : memref<1x64xf32>)
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<1x64xf16>, memref<64x64xf16>) outs(%y : memref<1x64xf32>) {
  ^bb0(%p: f16, %q: f16, %acc: f32):
    %pe = arith.extf %p : f16 to f32
    %qe = arith.extf %q : f16 to f32
    %m = arith.mulf %pe, %qe : f32
    %s2 = arith.addf %acc, %m : f32
    linalg.yield %s2 : f32
  }
  return
}

// -----

#dq_codes = affine_map<(d0, d1) -> (d0, d1 floordiv 2)>
#dq_blocks = affine_map<(d0, d1) -> (d0, d1 floordiv 32)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#b = affine_map<(d0, d1, d2) -> (d1, d2)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>
memref.global "private" constant @lcodes : memref<64x32xi8> = dense<17>
memref.global "private" constant @lscales : memref<64x2xf16> = dense<5.000000e-01>
memref.global "private" constant @lzps : memref<64x2xf16> = dense<2.000000e+02>

// Whole zero points too large for the tensor-core GEMV (128 + 200 is no bf16, and its f16
// sibling is refused alike): SIMT, the zero point in the centring FMA's offset.
// CHECK-LABEL: func.func @large_zp(
// CHECK:         gpu.launch
// CHECK:           gpu.shuffle
// CHECK:         return
func.func @large_zp(%x: memref<1x64xf16>, %y: memref<1x64xf32>) {
  %codes = memref.get_global @lcodes : memref<64x32xi8>
  %scales = memref.get_global @lscales : memref<64x2xf16>
  %zps = memref.get_global @lzps : memref<64x2xf16>
  %w = memref.alloc() : memref<64x64xf16>
  linalg.generic {indexing_maps = [#dq_codes, #dq_blocks, #dq_blocks, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%codes, %scales, %zps : memref<64x32xi8>, memref<64x2xf16>, memref<64x2xf16>) outs(%w : memref<64x64xf16>)
      attrs = {decoda.dequantize_blocks = {bits = 4 : i64, block_size = 32 : i64}} {
  ^bb0(%byte: i8, %s: f16, %z: f16, %out: f16):
    %k = linalg.index 1 : index
    %k32 = arith.index_castui %k : index to i32
    %c2 = arith.constant 2 : i32
    %c4 = arith.constant 4 : i32
    %c15 = arith.constant 15 : i32
    %r = arith.remui %k32, %c2 : i32
    %sh = arith.muli %r, %c4 : i32
    %b32 = arith.extui %byte : i8 to i32
    %shifted = arith.shrui %b32, %sh : i32
    %code = arith.andi %shifted, %c15 : i32
    %cf = arith.uitofp %code : i32 to f32
    %zf = arith.extf %z : f16 to f32
    %sf = arith.extf %s : f16 to f32
    %d = arith.subf %cf, %zf : f32
    %v = arith.mulf %d, %sf : f32
    %h = arith.truncf %v : f32 to f16
    linalg.yield %h : f16
  }
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%y : memref<1x64xf32>)
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<1x64xf16>, memref<64x64xf16>) outs(%y : memref<1x64xf32>) {
  ^bb0(%p: f16, %q: f16, %acc: f32):
    %pe = arith.extf %p : f16 to f32
    %qe = arith.extf %q : f16 to f32
    %m = arith.mulf %pe, %qe : f32
    %s2 = arith.addf %acc, %m : f32
    linalg.yield %s2 : f32
  }
  return
}

// -----

#dq_codes = affine_map<(d0, d1) -> (d0, d1 floordiv 2)>
#dq_blocks = affine_map<(d0, d1) -> (d0, d1 floordiv 32)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#b = affine_map<(d0, d1, d2) -> (d1, d2)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>
memref.global "private" constant @codes : memref<64x32xi8> = dense<17>
memref.global "private" constant @scales : memref<64x2xf32> = dense<5.000000e-01>

// Dynamic M: the GEMV kernels (M = 1, M <= 8) read the codes; the dequantisation sits in the
// M > 8 branch, before the contraction left for the tensor cores. f32: no rounding of the
// weights, the default zero point 8.
// CHECK-LABEL: func.func @dynamic_m(
// CHECK-NOT:     linalg.generic
// CHECK:         scf.if
// CHECK:           gpu.launch
// CHECK:             vector.load %{{.*}} : memref<64x32xi8>, vector<16xi8>
// CHECK:             arith.constant 8.000000e+00 : f32
// CHECK-NOT:         arith.truncf
// CHECK:         } else {
// CHECK:           scf.if
// CHECK:             gpu.launch
// CHECK:           } else {
// CHECK:             memref.alloc() : memref<64x64xf32>
// CHECK:             linalg.generic {{.*}} attrs = {decoda.dequantize_blocks
// CHECK:             linalg.fill
// CHECK:             linalg.generic {{.*}}"reduction"
func.func @dynamic_m(%x: memref<?x64xf32>, %y: memref<?x64xf32>) {
  %codes = memref.get_global @codes : memref<64x32xi8>
  %scales = memref.get_global @scales : memref<64x2xf32>
  %w = memref.alloc() : memref<64x64xf32>
  linalg.generic {indexing_maps = [#dq_codes, #dq_blocks, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%codes, %scales : memref<64x32xi8>, memref<64x2xf32>) outs(%w : memref<64x64xf32>)
      attrs = {decoda.dequantize_blocks = {bits = 4 : i64, block_size = 32 : i64}} {
  ^bb0(%byte: i8, %s: f32, %out: f32):
    %b32 = arith.extui %byte : i8 to i32
    %cf = arith.uitofp %b32 : i32 to f32
    %v = arith.mulf %cf, %s : f32
    linalg.yield %v : f32
  }
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%y : memref<?x64xf32>)
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<?x64xf32>, memref<64x64xf32>) outs(%y : memref<?x64xf32>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %m = arith.mulf %p, %q : f32
    %s2 = arith.addf %acc, %m : f32
    linalg.yield %s2 : f32
  }
  return
}

// -----

#dq_codes = affine_map<(d0, d1) -> (d0, d1 floordiv 2)>
#dq_blocks = affine_map<(d0, d1) -> (d0, d1 floordiv 32)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#b = affine_map<(d0, d1, d2) -> (d1, d2)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>
memref.global "private" constant @scales : memref<64x2xf32> = dense<5.000000e-01>

// Codes that are an argument (the caller may change them): the generic stays, the GEMV kernel
// reads B's floats.
// CHECK-LABEL: func.func @argument_codes(
// CHECK:         linalg.generic {{.*}} attrs = {decoda.dequantize_blocks
// CHECK:         gpu.launch
// CHECK:           vector.load %{{.*}} : memref<64x64xf32>, vector<4xf32>
// CHECK-NOT:       memref<64x32xi8>, vector
// CHECK:         return
func.func @argument_codes(%x: memref<1x64xf32>, %y: memref<1x64xf32>, %codes: memref<64x32xi8>) {
  %scales = memref.get_global @scales : memref<64x2xf32>
  %w = memref.alloc() : memref<64x64xf32>
  linalg.generic {indexing_maps = [#dq_codes, #dq_blocks, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%codes, %scales : memref<64x32xi8>, memref<64x2xf32>) outs(%w : memref<64x64xf32>)
      attrs = {decoda.dequantize_blocks = {bits = 4 : i64, block_size = 32 : i64}} {
  ^bb0(%byte: i8, %s: f32, %out: f32):
    %b32 = arith.extui %byte : i8 to i32
    %cf = arith.uitofp %b32 : i32 to f32
    %v = arith.mulf %cf, %s : f32
    linalg.yield %v : f32
  }
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%y : memref<1x64xf32>)
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<1x64xf32>, memref<64x64xf32>) outs(%y : memref<1x64xf32>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %m = arith.mulf %p, %q : f32
    %s2 = arith.addf %acc, %m : f32
    linalg.yield %s2 : f32
  }
  return
}

// -----

#dq_codes = affine_map<(d0, d1) -> (d0, d1 floordiv 2)>
#dq_blocks = affine_map<(d0, d1) -> (d0, d1 floordiv 32)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#b = affine_map<(d0, d1, d2) -> (d1, d2)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>
memref.global "private" constant @codes : memref<64x32xi8> = dense<17>
memref.global "private" constant @scales : memref<64x2xf32> = dense<5.000000e-01>

// M = 16 (a prefill): no GEMV; the dequantisation stays for the contraction.
// CHECK-LABEL: func.func @static_m16(
// CHECK-NOT:     gpu.launch
// CHECK:         linalg.generic {{.*}} attrs = {decoda.dequantize_blocks
// CHECK:         linalg.generic {{.*}}"reduction"
func.func @static_m16(%x: memref<16x64xf32>, %y: memref<16x64xf32>) {
  %codes = memref.get_global @codes : memref<64x32xi8>
  %scales = memref.get_global @scales : memref<64x2xf32>
  %w = memref.alloc() : memref<64x64xf32>
  linalg.generic {indexing_maps = [#dq_codes, #dq_blocks, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%codes, %scales : memref<64x32xi8>, memref<64x2xf32>) outs(%w : memref<64x64xf32>)
      attrs = {decoda.dequantize_blocks = {bits = 4 : i64, block_size = 32 : i64}} {
  ^bb0(%byte: i8, %s: f32, %out: f32):
    %b32 = arith.extui %byte : i8 to i32
    %cf = arith.uitofp %b32 : i32 to f32
    %v = arith.mulf %cf, %s : f32
    linalg.yield %v : f32
  }
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%y : memref<16x64xf32>)
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<16x64xf32>, memref<64x64xf32>) outs(%y : memref<16x64xf32>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %m = arith.mulf %p, %q : f32
    %s2 = arith.addf %acc, %m : f32
    linalg.yield %s2 : f32
  }
  return
}

// -----

#dq_codes = affine_map<(d0, d1) -> (d0, d1 floordiv 2)>
#dq_blocks = affine_map<(d0, d1) -> (d0, d1 floordiv 32)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#b = affine_map<(d0, d1, d2) -> (d1, d2)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>
memref.global "private" @mutable_codes : memref<64x32xi8> = dense<17>
memref.global "private" constant @scales : memref<64x2xf32> = dense<5.000000e-01>

// Codes in a global that is not constant (something may write it): read as floats, the
// generic stays where it is.
// CHECK-LABEL: func.func @mutable_global(
// CHECK:         memref.get_global @mutable_codes
// CHECK:         linalg.generic {{.*}} attrs = {decoda.dequantize_blocks
// CHECK:         gpu.launch
// CHECK:           vector.load %{{.*}} : memref<64x64xf32>, vector<4xf32>
// CHECK-NOT:       memref<64x32xi8>, vector
// CHECK:         return
func.func @mutable_global(%x: memref<1x64xf32>, %y: memref<1x64xf32>) {
  %codes = memref.get_global @mutable_codes : memref<64x32xi8>
  %scales = memref.get_global @scales : memref<64x2xf32>
  %w = memref.alloc() : memref<64x64xf32>
  linalg.generic {indexing_maps = [#dq_codes, #dq_blocks, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%codes, %scales : memref<64x32xi8>, memref<64x2xf32>) outs(%w : memref<64x64xf32>)
      attrs = {decoda.dequantize_blocks = {bits = 4 : i64, block_size = 32 : i64}} {
  ^bb0(%byte: i8, %s: f32, %out: f32):
    %b32 = arith.extui %byte : i8 to i32
    %cf = arith.uitofp %b32 : i32 to f32
    %v = arith.mulf %cf, %s : f32
    linalg.yield %v : f32
  }
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%y : memref<1x64xf32>)
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<1x64xf32>, memref<64x64xf32>) outs(%y : memref<1x64xf32>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %m = arith.mulf %p, %q : f32
    %s2 = arith.addf %acc, %m : f32
    linalg.yield %s2 : f32
  }
  return
}
