//===- Passes.td - graph and lowering-support passes of Decoda -*- tablegen -*-===//

#ifndef DECODA_TRANSFORMS_PASSES_TD
#define DECODA_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def CheckBackendContractPass : Pass<"decoda-check-backend-contract", "ModuleOp"> {
  let summary = "Verify that only the dialects a backend accepts remain";
  let description = [{
    The last pass of every lowering pipeline: fails, naming the first offending op of each
    kind, when an op of a dialect outside `dialects` survives, so a pipeline never hands an
    illegal program downstream.
  }];
  let options = [
    ListOption<"dialects", "dialects", "std::string",
               "Dialects allowed to remain (builtin is always allowed)">
  ];
  let statistics = [
    Statistic<"numIllegal", "num-illegal", "ops outside the backend contract">
  ];
}

def LowerRuntimeChecksPass : Pass<"decoda-lower-runtime-checks", "ModuleOp"> {
  let summary = "Turn cf.assert into calls of the model's failure hook";
  let description = [{
    A failed `cf.assert` must reach the runtime as an error, not abort the process. Each assert
    becomes a conditional branch to a block that calls `decoda_check_failed(message)` (provided
    by the model's support code; it calls the runtime's `decoda_fail_handler`, which never
    returns) followed by `llvm.unreachable`. See docs/ABI.md.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect", "::mlir::cf::ControlFlowDialect",
                           "::mlir::func::FuncDialect"];
  let statistics = [
    Statistic<"numChecks", "num-checks", "run-time checks lowered">
  ];
}

def FuseResidualNormPass : Pass<"decoda-fuse-residual-norm"> {
  let summary = "Fuse a residual add with the norm of its sum (add_rms_norm / add_layer_norm)";
  let description = [{
    `%s = decoda.residual_add %h, %b` followed by `decoda.rms_norm %s` (or `layer_norm`) becomes
    one `decoda.add_rms_norm %h, %b` (`add_layer_norm`) that returns both the new residual stream
    and its normalised value, so the lowering reads the stream once. The pattern is local, so it
    fuses across block boundaries (the MLP residual of block l with the first norm of block l+1)
    and in post-norm placement (the sum then has no other user). Other users of the sum read the
    fused op's `sum` result; when several norms read one sum, one is fused and the others
    read the fused sum. Numerics are unchanged: the fused op rounds the sum to the storage type
    before normalising, as the unfused program does.

    Not fused: a norm whose input is not a `decoda.residual_add`; a norm in another block or
    region than the add; a norm whose weight or bias is defined after the add.
  }];
  let dependentDialects = ["::mlir::decoda::DecodaDialect"];
  let options = [
    Option<"fuseRMSNorm", "rms-norm", "bool", /*default=*/"true", "Fuse RMSNorms">,
    Option<"fuseLayerNorm", "layer-norm", "bool", /*default=*/"true", "Fuse LayerNorms">
  ];
  let statistics = [
    Statistic<"numFused", "num-fused", "residual adds fused with a norm">
  ];
}

def CPUContractionCodegenPass : Pass<"decoda-cpu-contraction-codegen", "ModuleOp"> {
  let summary = "Register-tiled, packed, AVX-512 code for contraction generics on buffers";
  let description = [{
    Runs after bufferization. Rewrites every `linalg.generic` on memrefs that is a contraction
    of the projection form -- iterators `(lead..., n, k)` with only `k` a reduction, output
    `C[lead..., n]` (unit stride along `n`), `A[f(lead), k]` not depending on `n`, `B` indexed
    by `n` and `k` (and possibly leading dims, e.g. the head of a per-head weight or GQA's
    `h floordiv g`), body `out + ext?(a) * ext?(b)` -- into explicit loops:

    * an `scf.parallel` over the leading dims that `A` does not range over as rows and over
      32-wide panels of `n` (one OpenMP work item each after `convert-scf-to-openmp`);
    * per panel and per `k-tile`-long block of `k`, the panel of `B` is packed (zero padded past
      `n`) into a `k-tile x 32` stack buffer laid out `[k][n]`;
    * `m-tile x 32` register tiles over the remaining row dim (`m-tile` rows of two
      `vector<16xf32>` accumulators), loaded from and stored to `C` with masks on the last
      panel, accumulated with `vector.fma` over the `k` block; leftover rows use 1 x 32 tiles.

    Each output element still sums its `k` terms in order onto the initial value of `C`;
    only the fusion of multiply and add (FMA) differs from the scalar loops.

    With a static row count of at most `gemv-max-rows` (decode: one token) and `A`, `B`
    contiguous along `k`, the product is instead a set of dot products: an `scf.parallel` over
    blocks of 16 columns, per column and row a `vector<16xf32>` of partial sums along `k`
    (masked tail), reduced and added to `C` (a reassociated sum). `B` is read once, unpacked.
    Contractions of any other form are left for `convert-linalg-to-loops`.

    A weight that is a constant `memref.global` (an `arith.constant` weight after
    bufferization; 2-D f32, map `(n, k)` or `(k, n)`) is packed at compile time into a new
    constant global `<name>_packed32 : memref<ceil(N/32) x K x 32 x f32>`; its panels are read
    directly and no packing happens at run time. (A module pass for that reason.)
  }];
  let options = [
    Option<"mTile", "m-tile", "int64_t", /*default=*/"6", "Rows of a register tile">,
    Option<"kTile", "k-tile", "int64_t", /*default=*/"1024",
           "Reduction elements per packed panel block">,
    Option<"gemvMaxRows", "gemv-max-rows", "int64_t", /*default=*/"4",
           "Up to this static number of rows, dot products along k without packing">
  ];
  let dependentDialects = ["::mlir::vector::VectorDialect", "::mlir::scf::SCFDialect",
                           "::mlir::memref::MemRefDialect", "::mlir::arith::ArithDialect",
                           "::mlir::affine::AffineDialect"];
  let statistics = [
    Statistic<"numRewritten", "num-rewritten", "contractions turned into tiled vector code">,
    Statistic<"numDotProducts", "num-dot-products",
              "of which few-row contractions emitted as dot products along k">,
    Statistic<"numPrepacked", "num-prepacked",
              "of which contractions reading a weight packed at compile time">,
    Statistic<"numSkipped", "num-skipped",
              "generics with a reduction that did not match the contraction form">
  ];
}

def CPUParallelLoopsPass : Pass<"decoda-cpu-parallel-loops", "func::FuncOp"> {
  let summary = "Keep one level of scf.parallel per loop nest, over its leading dims";
  let description = [{
    Prepares `scf.parallel` loops for `convert-scf-to-openmp`: a parallel loop nested inside
    another becomes an `scf.for` nest (nested OpenMP regions would only add fork overhead on a
    small machine), and an outermost parallel loop keeps as parallel only the leading dims
    needed for 16 static iterations (a dynamic dim ends the run), never the innermost dim of a
    multi-dim loop; the inner dims become `scf.for` loops, so the innermost (contiguous) loop
    stays a plain loop that LLVM can vectorise. Loops marked `decoda.parallel_all_dims` (the
    tiled contractions, whose bodies are heavy) keep every dim. A loop whose kept dims have a
    static trip count below `min-trip-count` becomes sequential.
  }];
  let options = [
    Option<"minTripCount", "min-trip-count", "int64_t", /*default=*/"2",
           "Smallest static number of parallel iterations worth a parallel region">
  ];
  let dependentDialects = ["::mlir::scf::SCFDialect", "::mlir::arith::ArithDialect"];
  let statistics = [
    Statistic<"numParallel", "num-parallel", "parallel loops kept parallel">,
    Statistic<"numSerialized", "num-serialized", "parallel loops (or dims) made sequential">
  ];
}

def CPUPrivateAllocasPass : Pass<"decoda-cpu-private-allocas", "func::FuncOp"> {
  let summary = "Per-thread scratch buffers for OpenMP loops; drop memref.alloca_scope";
  let description = [{
    Runs right after `convert-scf-to-openmp`, which wraps every parallel loop body in a
    `memref.alloca_scope` (a single-block op that `convert-scf-to-cf` cannot lower into).
    Static `memref.alloca`s inside an `omp.parallel` (in such scopes or loops) move to the
    start of the parallel region: allocated once per thread instead of once per iteration;
    static allocas elsewhere move to the function entry. Scopes left
    without allocas are inlined; the others become `llvm.intr.stacksave` /
    `llvm.intr.stackrestore` around their inlined body.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
  let statistics = [
    Statistic<"numHoisted", "num-hoisted", "allocas made per-thread">,
    Statistic<"numInlined", "num-inlined", "alloca scopes inlined">,
    Statistic<"numStackSaves", "num-stack-saves", "alloca scopes lowered to stacksave/restore">
  ];
}

def CPUCopiesToLinalgPass : Pass<"decoda-cpu-copies-to-linalg", "func::FuncOp"> {
  let summary = "memref.copy between non-contiguous buffers becomes linalg.copy";
  let description = [{
    `finalize-memref-to-llvm` lowers a `memref.copy` of identity-layout buffers to `memcpy`
    but one involving a strided view (a KV-cache slice, a clone of a subview) to a call of
    `memrefCopy` from `libmlir_c_runner_utils`, which models do not link (it drags in
    libMLIR). Such copies become `linalg.copy`, lowered to loops with everything else.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
  let statistics = [
    Statistic<"numCopies", "num-copies", "strided copies turned into linalg.copy">
  ];
}

def FuseElementwisePass : Pass<"decoda-fuse-elementwise"> {
  let summary = "linalg-fuse-elementwise-ops that keeps contractions recognisable";
  let description = [{
    Upstream elementwise fusion, reshape folding by expansion and constant folding of linalg
    generics, with one restriction: no elementwise producer is fused into a generic with a
    reduction loop that reads it through a map that does not cover every loop (a contraction
    reading `A[m, k]` across all `n`: the producer would be recomputed for every `n`, and the
    contraction would no longer have the form decoda-cpu-contraction-codegen tiles), and no
    reshape is folded into or out of a generic with a reduction loop (that would split a
    projection's `k` into two reduction dims). Fusion into row reductions that read their
    input through a permutation (a norm's sum of squares) still happens.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect", "::mlir::tensor::TensorDialect",
                           "::mlir::affine::AffineDialect"];
  let statistics = [
    Statistic<"numRefused", "num-refused", "fusions refused to keep contractions intact">
  ];
}

def MarkReadOnlyInputsPass : Pass<"decoda-mark-readonly-inputs", "ModuleOp"> {
  let summary = "Mark the tensor arguments of entry points as not writable for bufferization";
  let description = [{
    The model ABI (docs/ABI.md) makes inputs read-only: a caller's KV cache or activations must
    not change under it. One-shot bufferization would otherwise update a function argument in
    place (e.g. the `tensor.insert_slice` of `cached_attention` into its cache operand). This
    pass sets `bufferization.writable = false` on every tensor argument of every public function,
    so bufferization copies before writing.
  }];
  let statistics = [
    Statistic<"numMarked", "num-marked", "arguments marked read-only">
  ];
}

#endif // DECODA_TRANSFORMS_PASSES_TD
