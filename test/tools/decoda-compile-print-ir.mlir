// decoda-compile --print-ir-after (names checked against the passes of the compile), the
// per-pass dumps' errors, and the upstream IR-printing and statistics flags of decoda-opt.
// RUN: rm -rf %t && mkdir -p %t
// RUN: decoda-compile %s -o %t/m.mlir --emit=mlir --print-ir-after=decoda-fuse-residual-norm 2>&1 \
// RUN:   | FileCheck %s --check-prefix=ONE
// RUN: decoda-compile %s -o %t/m.mlir --emit=mlir \
// RUN:   --print-ir-after=decoda-fuse-residual-norm,decoda-convert-to-linalg \
// RUN:   --print-ir-after=decoda-fuse-elementwise 2>&1 | FileCheck %s --check-prefix=LIST
// RUN: not decoda-compile %s -o %t/m.mlir --print-ir-after=decoda-fuse-residul-norm 2>&1 \
// RUN:   | FileCheck %s --check-prefix=UNKNOWN
// A pass that exists but does not run in this compile is refused the same way.
// RUN: not decoda-compile %s -o %t/m.mlir --no-graph-opt \
// RUN:   --print-ir-after=decoda-fuse-residual-norm 2>&1 | FileCheck %s --check-prefix=ABSENT
// RUN: touch %t/file
// RUN: not decoda-compile %s -o %t/m.so --dump-ir-after-each=%t/file/dumps 2>&1 \
// RUN:   | FileCheck %s --check-prefix=BADDIR
// decoda-opt: the standard flags. Debian's LLVM 22 compiles statistics out, so the report has a
// title and no counters (decoda-compile --report measures what the graph passes did instead).
// RUN: decoda-opt %s --decoda-graph-opt --mlir-print-ir-after-all -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=OPT-ALL
// RUN: decoda-opt %s --decoda-graph-opt --mlir-pass-statistics -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=OPT-STATS

// ONE: // -----// IR Dump After FuseResidualNormPass (decoda-fuse-residual-norm) //----- //
// ONE-NEXT: module {
// ONE: decoda.add_rms_norm
// ONE-NOT: IR Dump After

// LIST: IR Dump After FuseResidualNormPass (decoda-fuse-residual-norm)
// LIST: IR Dump After DecodaToLinalgPass (decoda-convert-to-linalg)
// LIST-NOT: decoda.add_rms_norm
// A nested (func.func) pass prints the function it ran on.
// LIST: IR Dump After FuseElementwisePass (decoda-fuse-elementwise)
// LIST-NEXT: func.func @block
// LIST-NOT: IR Dump After

// UNKNOWN: error: --print-ir-after=decoda-fuse-residul-norm: no pass 'decoda-fuse-residul-norm' runs in this compile; the passes that run, in order: decoda-raise-onnx, canonicalize, cse, {{.*}}decoda-fuse-residual-norm, {{.*}}decoda-convert-to-linalg, {{.*}}decoda-check-backend-contract{{$}}
// ABSENT: error: --print-ir-after=decoda-fuse-residual-norm: no pass 'decoda-fuse-residual-norm' runs in this compile; the passes that run, in order: decoda-transpose-constant-weights, decoda-fold-constant-dequantize, decoda-convert-to-linalg,
// BADDIR: error: cannot create '{{.*}}file/dumps': Not a directory

// OPT-ALL: IR Dump After Canonicalizer (canonicalize)
// OPT-ALL: IR Dump After CSE (cse)
// OPT-ALL: IR Dump After FuseResidualNormPass (decoda-fuse-residual-norm)
// OPT-ALL: decoda.add_rms_norm
// OPT-STATS: Pass statistics report

func.func @block(%h: tensor<2x?x16xf32> {decoda.name = "h"}, %a: tensor<2x?x16xf32> {decoda.name = "a"},
                 %w: tensor<16xf32> {decoda.name = "w"}) -> (tensor<2x?x16xf32> {decoda.name = "y"}) {
  %u = decoda.residual_add %h, %a : tensor<2x?x16xf32>
  %n = decoda.rms_norm %u, %w {eps = 1.0e-05 : f64} : tensor<2x?x16xf32>, tensor<16xf32>
  %y = decoda.residual_add %u, %n : tensor<2x?x16xf32>
  return %y : tensor<2x?x16xf32>
}
