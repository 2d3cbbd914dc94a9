// decoda-fold-constant-dequantize: a decoda.dequantize_blocks of constants becomes a float
// constant computed from the op's formula, (code - zp) · scale in f32 rounded once; ops with an
// operand that is no constant stay (a remark with report). That the folded constant equals the
// lowered generic bit for bit, and both the formula in NumPy, is checked on the CPU in
// test/e2e/dequantize_blocks.py (2, 4 and 8 bits, f32/f16/bf16, ragged blocks).
// RUN: decoda-opt %s --split-input-file --decoda-fold-constant-dequantize | FileCheck %s
// RUN: decoda-opt %s --split-input-file --decoda-fold-constant-dequantize=report=true --verify-diagnostics -o /dev/null

// 2-bit codes, low bits first: row 0's bytes 0x1B (27) are codes 3, 2, 1, 0, zero point 2 ->
// 1, 0, -1, -2 at scale 0.5; row 1's 0xE4 (-28) are 0, 1, 2, 3, zero point 1 -> -1, 0, 1, 2 at
// scale 2. The constants read only by the op go.
// CHECK-LABEL: func.func @two_bits(
// CHECK-NOT:     decoda.dequantize_blocks
// CHECK-NOT:     xi8>
// CHECK:         %[[W:.+]] = arith.constant dense<{{\[}}[5.000000e-01, 0.000000e+00, -5.000000e-01, -1.000000e+00, 5.000000e-01, 0.000000e+00, -5.000000e-01, -1.000000e+00, 5.000000e-01, 0.000000e+00, -5.000000e-01, -1.000000e+00, 5.000000e-01, 0.000000e+00, -5.000000e-01, -1.000000e+00], [-2.000000e+00, 0.000000e+00, 2.000000e+00, 4.000000e+00, -2.000000e+00, 0.000000e+00, 2.000000e+00, 4.000000e+00, -2.000000e+00, 0.000000e+00, 2.000000e+00, 4.000000e+00, -2.000000e+00, 0.000000e+00, 2.000000e+00, 4.000000e+00]]> : tensor<2x16xf32>
// CHECK:         decoda.linear %{{.+}}, %[[W]]
func.func @two_bits(%x: tensor<1x16xf32>) -> tensor<1x2xf32> {
  %c = arith.constant dense<[[27, 27, 27, 27], [-28, -28, -28, -28]]> : tensor<2x4xi8>
  %s = arith.constant dense<[[0.5], [2.0]]> : tensor<2x1xf32>
  %z = arith.constant dense<[[2.0], [1.0]]> : tensor<2x1xf32>
  %w = decoda.dequantize_blocks %c, %s zero_points(%z : tensor<2x1xf32>) {bits = 2 : i64, block_size = 16 : i64} : tensor<2x4xi8>, tensor<2x1xf32> -> tensor<2x16xf32>
  %y = decoda.linear %x, %w : tensor<1x16xf32>, tensor<2x16xf32>
  return %y : tensor<1x2xf32>
}

// -----

// 4 bits in f16, the default zero point 8, one rounding: the byte 0xF0 (-16) holds codes 0 and
// 15 -> -8 and 7 times 0.1 (f16: 0.0999755859375) = -0.7998046875 and 0.69982910156, rounded to
// f16: -0.7998 (-7.998040e-01) and 0.7 (6.997070e-01). A K of 24 in blocks of 16: the codes of the
// second block are padded to 16 (8 bytes), only 8 of them read.
// CHECK-LABEL: func.func @four_bits_f16_ragged(
// CHECK:         arith.constant dense<{{\[}}[-7.998050e-01, 6.997070e-01, -7.998050e-01, 6.997070e-01, -7.998050e-01, 6.997070e-01, -7.998050e-01, 6.997070e-01, -7.998050e-01, 6.997070e-01, -7.998050e-01, 6.997070e-01, -7.998050e-01, 6.997070e-01, -7.998050e-01, 6.997070e-01, -1.600000e+01, 1.400000e+01, -1.600000e+01, 1.400000e+01, -1.600000e+01, 1.400000e+01, -1.600000e+01, 1.400000e+01]]> : tensor<1x24xf16>
func.func @four_bits_f16_ragged() -> tensor<1x24xf16> {
  %c = arith.constant dense<-16> : tensor<1x16xi8>
  %s = arith.constant dense<[[0.1, 2.0]]> : tensor<1x2xf16>
  %w = decoda.dequantize_blocks %c, %s {bits = 4 : i64, block_size = 16 : i64} : tensor<1x16xi8>, tensor<1x2xf16> -> tensor<1x24xf16>
  return %w : tensor<1x24xf16>
}

// -----

// A resource stays a resource: 8-bit codes 0x81 (-127) = 129, zero point 128 -> 1 times 3 = 3.0
// (0x40400000).
// CHECK-LABEL: func.func @resource(
// CHECK:         arith.constant dense_resource<decoda_dequantized> : tensor<1x16xf32>
// CHECK:         decoda_dequantized: "0x{{[0-9A-F]+}}00004040000040400000404000004040000040400000404000004040000040400000404000004040000040400000404000004040000040400000404000004040"
func.func @resource() -> tensor<1x16xf32> {
  %c = arith.constant dense_resource<codes> : tensor<1x16xi8>
  %s = arith.constant dense<[[3.0]]> : tensor<1x1xf32>
  %w = decoda.dequantize_blocks %c, %s {bits = 8 : i64, block_size = 16 : i64} : tensor<1x16xi8>, tensor<1x1xf32> -> tensor<1x16xf32>
  return %w : tensor<1x16xf32>
}
{-#
  dialect_resources: {
    builtin: {
      codes: "0x0100000081818181818181818181818181818181"
    }
  }
#-}

// -----

// Codes that are an argument: left alone.
// CHECK-LABEL: func.func @argument_codes(
// CHECK:         decoda.dequantize_blocks %arg0
func.func @argument_codes(%c: tensor<2x8xi8>) -> tensor<2x16xf32> {
  %s = arith.constant dense<1.0> : tensor<2x1xf32>
  // expected-remark @+1 {{decoda-fold-constant-dequantize: left alone: an operand is not a constant with its data}}
  %w = decoda.dequantize_blocks %c, %s {bits = 4 : i64, block_size = 16 : i64} : tensor<2x8xi8>, tensor<2x1xf32> -> tensor<2x16xf32>
  return %w : tensor<2x16xf32>
}
