//===- Passes.td - graph and lowering-support passes of Decoda -*- tablegen -*-===//

#ifndef DECODA_TRANSFORMS_PASSES_TD
#define DECODA_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"
include "decoda/Transforms/QuantPasses.td"
include "decoda/Transforms/GPUPasses.td"

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
    returns) followed by `llvm.unreachable`. An assert inside a region of one block (an
    `scf.if` or `scf.for` not yet lowered, as in the GPU pipeline, which lowers the host's
    checks before scf) becomes `scf.if %ok {} else { call }` instead, leaving the region
    whole. See docs/ABI.md.
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
    fused op's `sum` result. Numerics are unchanged: the fused op rounds the sum to the storage
    type before normalising, as the unfused program does.

    Not fused: a norm whose input is not a `decoda.residual_add`; a norm in another block or
    region than the add; a norm whose weight or bias is defined after the add; a sum that
    several norms read (GPT-NeoX's parallel block: both norms of the layer's input): the add
    stays, for the projection before it to compute in its epilogue, and the norms of one value
    are placed side by side (after the first, where their operands are defined), so the GPU
    runs them as one launch.
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

def CPUInt8CodegenPass : Pass<"decoda-cpu-int8-codegen", "ModuleOp"> {
  let summary = "AVX-512 VNNI (vpdpbusd) code for the i8 x i8 -> i32 contraction of qlinear";
  let description = [{
    Runs after bufferization. Rewrites the `i32` contraction generic that the `decoda.qlinear`
    lowering emits (tagged `decoda.qlinear_acc`: `acc[lead..., n] += (x[lead..., k] - zp) *
    w[n, k]`, `x`/`w` `i8`, optional rank-0 or per-token zero point) into register-tiled
    `vpdpbusd` loops: `x + 128` (as `u8`, K padded with zeros to a multiple of 64) times the
    weight packed in the VNNI layout `[ceil(N/32)][ceil(K/4)][32 x 4]` (`s8`, zero padded),
    corrected by `(128 + zp) * colsum[n]` with `colsum[n] = Σ_k w[n, k]`. The integer result
    is bit-exact with the scalar loops. An `scf.parallel` over 32-wide `n` panels; per panel
    `m-tile x 32` register tiles (two `vector<16xi32>` accumulators a row), then 2- and 1-row
    tiles for the leftover rows (decode is the 1-row tile: the weight is streamed once).

    A constant weight (a constant `memref.global`, `dense` or `dense_resource`) is packed at
    compile time into `<name>_vnni32` with its column sums in `<name>_vnni32_colsum`; other
    weights are packed at run time into a heap buffer before the panel loop. Contraction
    inputs or outputs with non-identity layouts are left to the scalar loops.

    The qlinear's epilogue generic (tagged `decoda.qlinear_epilogue`: scales, bias, rounding or
    requantisation) is computed on the accumulators in the register tiles and stored straight
    into its output when the i32 accumulator buffer serves only the two (zero-filled, nothing
    writing memory in between); the accumulator buffer then disappears.

    `vnni=false` (set by `decoda-lower-to-cpu{vnni=false}`, which `decoda-compile` sets when
    the target CPU lacks `avx512vnni`, e.g. `--target-cpu=haswell`) keeps the layout, tiles and
    corrections but computes each `vpdpbusd` with plain `i32` vector ops (the four products of a
    zero-extended `u8` and a sign-extended `s8` per lane, shifts, multiplies and adds; each
    product fits 16 bits, so LLVM selects `vpmaddwd`), which every x86-64 CPU runs; same bits.
    Every function with rewritten contractions gets a remark naming the form used.
  }];
  let options = [
    Option<"mTile", "m-tile", "int64_t", /*default=*/"8", "Rows of a register tile">,
    Option<"vnni", "vnni", "bool", /*default=*/"true",
           "Use AVX-512 VNNI vpdpbusd (false: i32 vector multiply-adds any x86-64 CPU runs)">
  ];
  let dependentDialects = ["::mlir::vector::VectorDialect", "::mlir::scf::SCFDialect",
                           "::mlir::memref::MemRefDialect", "::mlir::arith::ArithDialect",
                           "::mlir::LLVM::LLVMDialect"];
  let statistics = [
    Statistic<"numRewritten", "num-rewritten", "i8 contractions turned into register-tiled code">,
    Statistic<"numPrepacked", "num-prepacked",
              "of which with a weight packed at compile time">,
    Statistic<"numFusedEpilogues", "num-fused-epilogues",
              "of which with the dequantising epilogue computed in the register tiles">
  ];
}

def CPUInt8AttentionPass : Pass<"decoda-cpu-int8-attention", "ModuleOp"> {
  let summary = "AVX-512 VNNI (vpdpbusd) kernel for INT8 attention (QK^T and PV)";
  let description = [{
    Runs after bufferization, on the private functions that
    `decoda-convert-to-linalg{int8-attention-calls=true}` makes of every INT8 attention
    (`quantize(q_scale, k_scale, v_scale)` on `decoda.attention` or `decoda.cached_attention`;
    tagged `decoda.int8_attention` with the op's configuration). Their target-neutral body is
    replaced by a fused kernel:

    - K and V are quantised and packed per call (K is an activation), in parallel over
      (batch, K/V head, panel of 32 keys): K in the VNNI layout (4 `s8` of a key per 32-bit
      lane, 32 keys a panel) with the per-key sums `Σ_d k_i8`, V with 4 keys per lane;
    - per work item (batch, K/V head, block of queries; the rows are every (query, head) of the
      K/V head's group, so GQA/MQA read K/V by index and nothing is copied per query head):
      `q_i8 + 128` as `u8`, scores over the block's visible key range in 8/4/1-row x 32-key
      `vpdpbusd` register tiles, corrected by `128 · Σ_d k_i8` (exact: `Σ (q+128) k - 128 Σ k`),
      scaled, capped, masked from indices (causal, window, chunk, segment ids; additive mask)
      and kept for the block; per row the max (with the sink), `p = exp(s - m)`, `l = Σ p`
      and `pᵤ = clamp(rint(255 p), 0, 255)` as `u8`; then `pᵤ · v_i8` in 4/1-row x 64-column
      `vpdpbusd` tiles and `out = acc · v_scale / (255 · l)` (0 for a row without keys).

    q·k is computed once (the form before the pass computes it in a first pass for the row max
    and again for the probabilities); results are those of the op's INT8 semantics with exact
    integer sums, exp/tanh through MLIR's polynomial approximations. Functions with a head dim
    that is not a multiple of 4, a value head dim that is not a multiple of 16, a storage
    type other than f32/f16/bf16 or non-identity buffers keep their body (a remark says why).

    `vnni=false` (set by `decoda-lower-to-cpu{vnni=false}` for targets without `avx512vnni`)
    computes each `vpdpbusd` of the kernel with the i32 vector ops of
    `decoda-cpu-int8-codegen{vnni=false}` (one shared helper); same tiles, same bits.
  }];
  let options = [
    Option<"vnni", "vnni", "bool", /*default=*/"true",
           "Use AVX-512 VNNI vpdpbusd (false: i32 vector multiply-adds any x86-64 CPU runs)">
  ];
  let dependentDialects = ["::mlir::vector::VectorDialect", "::mlir::scf::SCFDialect",
                           "::mlir::memref::MemRefDialect", "::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect", "::mlir::func::FuncDialect",
                           "::mlir::LLVM::LLVMDialect"];
  let statistics = [
    Statistic<"numRewritten", "num-rewritten", "INT8 attention functions given the VNNI kernel">,
    Statistic<"numKept", "num-kept", "INT8 attention functions left in their scalar form">
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

    A whole nest whose static work estimate is below `min-work` element operations becomes
    sequential too (loops multiply their bodies by static trip counts; an op counts its widest
    vector, a `math` op ten times that; a dynamic trip count, a call or a `scf.while` make the
    estimate unknown and the loop stays parallel): a parallel region costs microseconds to fork
    and join on a quiet machine and far more when a worker thread first has to be scheduled,
    more than the work of a one-token decode step's RoPE, norms, epilogues and fills (a few
    thousand elements). 0 turns this off.
  }];
  let options = [
    Option<"minTripCount", "min-trip-count", "int64_t", /*default=*/"2",
           "Smallest static number of parallel iterations worth a parallel region">,
    Option<"minWork", "min-work", "int64_t", /*default=*/"16384",
           "Smallest static work estimate (element operations) worth a parallel region">
  ];
  let dependentDialects = ["::mlir::scf::SCFDialect", "::mlir::arith::ArithDialect"];
  let statistics = [
    Statistic<"numParallel", "num-parallel", "parallel loops kept parallel">,
    Statistic<"numSerialized", "num-serialized", "parallel loops (or dims) made sequential">,
    Statistic<"numSmall", "num-small", "parallel loops made sequential for too little work">
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

def ForwardTransposedCopiesPass : Pass<"decoda-forward-transposed-copies", "func::FuncOp"> {
  let summary = "Read a transposed copy's source through a memref.transpose view instead";
  let description = [{
    After bufferization, a `linalg.transpose` into a fresh `memref.alloc` whose buffer is only
    read (as linalg inputs, directly or through subviews, also inside loops after the copy;
    `memref.dim`; its deallocations) becomes `memref.transpose` of the source, read in its
    place (subviews rebuilt on it with their strided types inferred); the copy, the buffer
    and its deallocations go. Only permutations that keep the last dim last, of a source
    contiguous along it (readers keep unit-stride rows). Not when anything between the copy
    and the last reader may
    write memory the source views (a write to a buffer of an aliasing root, or an op of
    unknown effects), nor when a use is anything else (a write, a call, a reshape that needs
    contiguity). ONNX attention keeps KV caches as `[B, H, S, D]` and `decoda.attention` reads
    `[B, S, H, D]`: on the CPU each step copied the attended keys and values; with this pass
    the attention reads the cache in place (the GPU pipeline forwards them to its attention
    kernels itself, decoda-gpu-flash-attention).
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
  let statistics = [
    Statistic<"numForwarded", "num-forwarded", "transposed copies read as views instead">
  ];
}

def WriteThroughTransposesPass : Pass<"decoda-write-through-transposes", "func::FuncOp"> {
  let summary = "A gather whose buffer is only copied by a linalg.transpose writes the copy's destination through a transposed view";
  let description = [{
    After bufferization, a `linalg.generic` that gathers (its body loads from memory: RoPE's
    pair partner, a table lookup) into a fresh `memref.alloc` that is then only copied by a
    `linalg.transpose` into another buffer (and asked for its extents, and deallocated after
    the copy) moves to the copy and writes `memref.transpose` of the copy's destination by the
    inverse permutation; the copy, the buffer and its deallocations go. Hugging Face exports
    rotate the new keys in `[B, T, H, D]` and transpose them into the present cache's
    `[B, H, S, D]` slice: the rotation now writes the slice (one pass over the keys instead of
    two; on the GPU one kernel less a layer, decoda-gpu-rope writing any view with unit-stride
    rows). Conditions: all loops parallel, the one output indexed by a permutation and not
    read by the payload; the permutation keeps the last dim last; nothing between the generic
    and the copy may write memory the generic reads (by root, an op of unknown effects
    counting as a write), and nothing it reads may be the destination's memory. Elementwise
    generics are left alone: on the GPU one may be a projection's epilogue, which the kernels
    fuse only into identity-layout outputs.
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect", "::mlir::arith::ArithDialect"];
  let statistics = [
    Statistic<"numRewritten", "num-rewritten", "gathers writing a transposed copy's destination">
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

def ExpandTensorReshapesPass : Pass<"decoda-expand-tensor-reshapes", "func::FuncOp"> {
  let summary = "tensor.reshape with a known shape operand -> collapse_shape and expand_shape";
  let description = [{
    ONNX `Reshape` with a computed target shape imports as `tensor.reshape %x(%shape)`, the
    shape a `tensor.from_elements` of index values or a constant. Bufferized, that is a shape
    buffer written on the host (`memref.store`) and read by `memref.reshape`: host code that
    touches memory, which the GPU pipeline refuses (its host code only launches kernels and
    copies), so exported GPT-2 blocks did not compile for CUDA. Each such reshape becomes
    `tensor.collapse_shape` to one dimension (unless the source has one) and
    `tensor.expand_shape` to the result's rank with the shape's elements as `output_shape`
    (static where they are constants, which also refines the result type; a `tensor.cast` back
    to the written type), both views of the same buffer. A reshape whose shape operand is
    anything else is left alone. On buffers (the pass runs again on the host code before the
    NVVM lowering), a `memref.expand_shape` that splits one extent into two or more dynamic
    ones (`[B·T, F]` into `[B, T, F]`) becomes `memref.reinterpret_cast` with the strides
    computed from the source's: MLIR 22's `expand-strided-metadata` crashes on that expansion.
    Used by `decoda-lower-to-cuda`; the CPU pipeline keeps `memref.reshape` (a view on the
    host).
  }];
  let dependentDialects = ["::mlir::tensor::TensorDialect", "::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect"];
  let statistics = [
    Statistic<"numExpanded", "num-expanded",
              "reshapes rewritten as views (collapse and expand, or reinterpret_cast)">
  ];
}

def ConcatsInPlacePass : Pass<"decoda-concats-in-place"> {
  let summary = "Compute the operands of a tensor.concat in their slices of the result";
  let description = [{
    A `tensor.concat` some of whose operands are computed by a linalg op into a `tensor.empty`
    of their own (and read by nothing else) becomes a `tensor.empty` of the result made before
    the first such op, the other operands inserted into it there, and each computed operand
    written into an `extract_slice` of the running result and inserted back at the same
    offsets: one-shot bufferization then computes it in its slice of the result buffer (an
    in-place extract/insert pair) instead of into a temporary that a copy moves. Hugging Face
    exports build every layer's `present` as `Concat(past, Transpose(new keys))`; on the GPU
    the transpose and the copy were a kernel each (the GPU pipeline runs this before
    bufferization). A concatenation without such an operand, or whose other operands or sizes
    are not available before the first one, is left as it is.

    ```mlir
    %e = tensor.empty(%b, %t) : tensor<?x2x?x16xf32>
    %k = linalg.transpose ins(%new : tensor<?x?x2x16xf32>) outs(%e : tensor<?x2x?x16xf32>)
        permutation = [0, 2, 1, 3]
    %c = tensor.concat dim(2) %past, %k : (...) -> tensor<?x2x?x16xf32>
    // becomes
    %r = tensor.empty(%b, %n) : tensor<?x2x?x16xf32>          // %n = past length + %t
    %0 = tensor.insert_slice %past into %r[0, 0, 0, 0] [..] [1, 1, 1, 1]
    %s = tensor.extract_slice %0[0, 0, %p, 0] [%b, 2, %t, 16] [1, 1, 1, 1]
    %k = linalg.transpose ins(%new : ...) outs(%s : tensor<?x2x?x16xf32>) permutation = [0, 2, 1, 3]
    %c = tensor.insert_slice %k into %0[0, 0, %p, 0] [%b, 2, %t, 16] [1, 1, 1, 1]
    ```
  }];
  let dependentDialects = ["::mlir::tensor::TensorDialect", "::mlir::arith::ArithDialect"];
  let statistics = [
    Statistic<"numRewritten", "num-rewritten", "concatenations whose parts are computed in place">
  ];
}

def UnshareFillsPass : Pass<"decoda-unshare-fills"> {
  let summary = "Give every op that writes into a shared fill of an empty tensor a fill of its "
                "own";
  let description = [{
    CSE merges equal `linalg.fill`s of `tensor.empty`s: the zero accumulators of two
    projections of the same shape (a decoder block's attention output and down projections)
    become one tensor that both write into. Bufferization then gives it one buffer: the first
    writer overwrites it in place and every other one works on a copy made before, so the
    program fills a buffer, copies it, and a kernel that would have folded the fill of its own
    accumulator (and applied its consumer in its stores) sees an accumulator it did not make.
    This pass undoes that merge where it matters: when a fill of a `tensor.empty` has more than
    one use, each use as a destination (a DPS init: `outs` of a linalg op, the dest of
    `tensor.insert_slice`) gets its own `tensor.empty` and fill, made right before it. Uses
    that only read the fill keep it.

    Likewise a `tensor.empty` that several linalg ops write into (CSE merges the empties of
    results of one shape): each gets its own, so that `decoda-concats-in-place` can compute a
    concatenated part in its slice of the result (an exported graph's transposed keys and
    values, each inserted into its present), and so that bufferization gives each
    `decoda.dequantize_blocks` weight a buffer of its own, which `decoda-gpu-gemv` needs to
    read the codes instead.

    ```mlir
    %e = tensor.empty() : tensor<4x8xf32>
    %z = linalg.fill ins(%c0 : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
    %a = linalg.matmul ins(%x, %w : ...) outs(%z : tensor<4x8xf32>) -> tensor<4x8xf32>
    %b = linalg.matmul ins(%y, %v : ...) outs(%z : tensor<4x8xf32>) -> tensor<4x8xf32>
    // becomes: each matmul writes into a fill of its own
    ```
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect", "::mlir::tensor::TensorDialect"];
  let statistics = [
    Statistic<"numUnshared", "num-unshared", "destination uses given a fill of their own">
  ];
}

def MarkReadOnlyInputsPass : Pass<"decoda-mark-readonly-inputs", "ModuleOp"> {
  let summary = "Mark the tensor arguments of entry points as not writable for bufferization";
  let description = [{
    The model ABI (docs/ABI.md) makes inputs read-only: a caller's KV cache or activations must
    not change under it. One-shot bufferization would otherwise update a function argument in
    place (e.g. the `tensor.insert_slice` of `cached_attention` into its cache operand). This
    pass sets `bufferization.writable = false` on every tensor argument of every public function,
    so bufferization copies before writing, except on arguments donated to a result that
    `decoda-donate-inputs` made writable (`decoda.donate`).
  }];
  let statistics = [
    Statistic<"numMarked", "num-marked", "arguments marked read-only">
  ];
}

def DonateInputsPass : Pass<"decoda-donate-inputs", "ModuleOp"> {
  let summary = "Write donated entry-point outputs in place into their input buffers";
  let description = [{
    An argument of a public function with `decoda.donate = N : i64` is donated to result `N`
    (docs/ABI.md): the caller hands its buffer to the model, and result `N` is written into it,
    so a KV cache that goes in and comes out updated is not copied. The result must have the
    argument's type. This pass (on tensors, before one-shot bufferization) replaces the returned
    value with `bufferization.materialize_in_destination %value in %arg` and marks the argument
    `bufferization.writable = true`: bufferization then computes the value in the argument's
    buffer (the cache append of `cached_attention` becomes an in-place `insert_slice`), or
    copies it there when that is not possible. With `auto-caches`, every cache operand of a
    `decoda.cached_attention` that is a function argument whose updated cache is returned is
    donated to that result first (`markDonatedCaches`). A malformed `decoda.donate` (not an
    integer, out of range, another type, two arguments donated to one result) is an error
    naming the function and argument.
  }];
  let options = [
    Option<"autoCaches", "auto-caches", "bool", /*default=*/"false",
           "Donate cache arguments of cached_attention whose updated cache is returned">
  ];
  let dependentDialects = ["::mlir::bufferization::BufferizationDialect"];
  let statistics = [
    Statistic<"numDonated", "num-donated", "donated arguments">
  ];
}

def DropDonatedResultsPass : Pass<"decoda-drop-donated-results", "ModuleOp"> {
  let summary = "Remove the results of entry points that were written into donated inputs";
  let description = [{
    After one-shot bufferization, a result donated from argument `M` (`decoda.donate = N` on
    `M`, see `decoda-donate-inputs`) is the argument's buffer itself. This pass checks that
    (through `memref.cast`s) and removes the result from the function, so the entry point
    neither returns nor the deallocation pipeline clones it: the runtime reads that output from
    the input it passed (docs/ABI.md). A result that is not the argument's buffer is an error.
    The `decoda.donate` attributes are removed; with `mark-written` each is replaced by the unit
    attribute `decoda.written` (the CUDA pipeline: decoda-gpu-device-buffers copies such an
    argument back when the caller passed host memory, and removes the mark).
  }];
  let options = [
    Option<"markWritten", "mark-written", "bool", /*default=*/"false",
           "Mark each donated argument `decoda.written` instead of dropping the attribute">
  ];
  let statistics = [
    Statistic<"numDropped", "num-dropped", "results dropped">
  ];
}

def SpecializeDimsPass : Pass<"decoda-specialize-dims", "ModuleOp"> {
  let summary = "Make named dynamic dims of entry points static; add decode entry points";
  let description = [{
    `dims` (`NAME=N` for every argument dim named NAME by the `decoda.dims` argument attribute,
    or `ARG:DIM=N` for dim DIM of the argument whose `decoda.name` or index is ARG) gives those
    dims of every public function's arguments a static size; a `tensor.cast` back to the
    dynamic type at entry lets the lowering's folds carry the sizes through the program; the
    result a retyped argument is donated to (`decoda.donate = N`, an in-place update such as an
    ONNX shared KV buffer) takes its new type, cast at the return. A spec that matches nothing, a dim that is static with another size, or a dim past the rank is an
    error naming the spec (decoda-compile `--static-dims`).

    With `decode-entries`, every public function that uses `decoda.cached_attention` with a
    dynamic query length gets a copy `<name>_decode` with query length 1 (the dims named `seq`,
    or else dim 1 of every non-cache argument of rank >= 2), so single-token steps take the
    contraction codegen's static-row (GEMV) path; `<name>` stays for prefill.
  }];
  let options = [
    ListOption<"dims", "dims", "std::string", "NAME=N or ARG:DIM=N items">,
    Option<"decodeEntries", "decode-entries", "bool", /*default=*/"false",
           "Add <name>_decode (query length 1) for cached-attention functions">
  ];
  let dependentDialects = ["::mlir::tensor::TensorDialect"];
}

def RefineShapesPass : Pass<"decoda-refine-shapes"> {
  let summary = "Carry static sizes from tensor.casts through decoda ops (after decoda-specialize-dims)";
  let description = [{
    `--static-dims` and the `<name>_decode` entries give arguments static sizes and reach the
    old uses through a `tensor.cast` back to the dynamic type; upstream folds carry the sizes
    through tensor and linalg ops but not through decoda ops. Here a decoda op (without
    regions) reading a `tensor.cast` that dropped static sizes reads the cast's source instead,
    its result types inferred again (InferTypeOpInterface: linear, attention,
    cached_attention, ...) or taken from the operand of the same type (norms, RoPE, MLPs); the
    new op must verify and its results must be at least as static as before, else the op is
    left as it was. Results whose type changed reach their old uses through a `tensor.cast`,
    which the next decoda op takes in turn. Runs with the canonicalization patterns (so
    `tensor.dim`, `expand_shape` and the like fold on the way). decoda-specialize-dims (and
    decoda-compile's `--static-dims` / decode entries) run it on the functions they retype.

    ```mlir
    %c = tensor.cast %h : tensor<1x1x64xf32> to tensor<1x?x64xf32>
    %n = decoda.rms_norm %c, %w {eps = 1.0e-05 : f64} : tensor<1x?x64xf32>, tensor<64xf32>
    // becomes
    %n = decoda.rms_norm %h, %w {eps = 1.0e-05 : f64} : tensor<1x1x64xf32>, tensor<64xf32>
    %c = tensor.cast %n : tensor<1x1x64xf32> to tensor<1x?x64xf32>
    ```
  }];
  let dependentDialects = ["::mlir::tensor::TensorDialect"];
}

def ConvertFloatTypePass : Pass<"decoda-convert-float-type", "func::FuncOp"> {
  let summary = "Run a model's f32 tensors in bf16 or f16: ops, constants and casts at the boundary";
  let description = [{
    `decoda-compile --float-type=bf16` (or f16): an f32 model (most ONNX exports) stored and
    computed in a 16-bit float type, as TensorRT's `--fp16`/`--bf16` do, so that the GPU's
    tensor-core and 16-bit GEMV kernels take it and its weights take half the memory.

    In every function, each op of the decoda dialect (but ops with regions) and each tensor
    reshape/slice/concat/cast op whose f32 tensors become the 16-bit type is rebuilt with those
    types, if it verifies so (the INT8 ops do not: their scales are f32), except a
    `cached_attention` whose caches are function arguments (converting them would cost two
    passes over the whole cache per call); the f32 `arith.constant` tensors it reads are
    converted at compile time (round to nearest even; `dense` stays `dense`, `dense_resource`
    becomes a new resource), `tensor.empty` is recreated. Everything else (function arguments
    and results, which keep their f32 types, calls, linalg ops left from an import, the INT8
    ops) stays f32: `arith.truncf` where a converted op reads its values, `arith.extf` where it
    reads a converted op's. The decoda ops keep their accumulation rules (f32 sums and
    softmax), so only the storage of activations and weights rounds.

    With `io` (`decoda-compile --float-type-io`) the public functions' f32 tensor arguments
    and results take the 16-bit type as well: the caller passes and receives 16-bit data, no
    conversion runs at the boundary (on a GPU, no launch for it), and a `cached_attention`
    whose caches are arguments is converted (the caches are stored in 16 bits). An op kept in
    f32 reads such an argument through an `arith.extf`, and a kept op's result is returned
    through an `arith.truncf`. Private functions keep their signatures.
  }];
  let options = [
    Option<"to", "to", "std::string", /*default=*/"\"bf16\"",
           "The 16-bit float type: bf16 or f16">,
    Option<"report", "report", "bool", /*default=*/"false",
           "Remark on every op left in f32 that reads or writes f32 tensors">,
    Option<"io", "io", "bool", /*default=*/"false",
           "Public functions' f32 tensor arguments and results take the 16-bit type too">
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::tensor::TensorDialect"];
  let statistics = [
    Statistic<"numConverted", "num-converted", "ops rebuilt with 16-bit float tensors">,
    Statistic<"numKept", "num-kept", "ops with f32 tensors left in f32">,
    Statistic<"numConstants", "num-constants", "f32 constants converted">,
    Statistic<"numCasts", "num-casts", "truncf/extf casts inserted">
  ];
}

def FoldConstantDequantizePass : Pass<"decoda-fold-constant-dequantize"> {
  let summary = "Constant block-quantised weights (decoda.dequantize_blocks) as float constants";
  let description = [{
    The CPU pipeline computes in float with float weights: a `decoda.dequantize_blocks` whose
    codes, scales and zero points are `arith.constant`s with their data (`dense` or
    `dense_resource`) becomes an `arith.constant` `[N, K]` of the result's float type, each
    element `(code - zero_point) · scale` in f32 rounded once to that type (the op's
    definition, so the result is the same bit for bit as its lowered generic computes); a
    resource when the codes are one. Operands no longer read are erased. Ops with a run-time
    operand are left to decoda-convert-to-linalg (`report`: a remark says so). The GPU pipeline
    does not run it: its GEMV kernels read the codes.
  }];
  let options = [
    Option<"report", "report", "bool", /*default=*/"false",
           "Remark on every dequantize_blocks left alone">
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
  let statistics = [
    Statistic<"numFolded", "num-folded", "dequantize_blocks ops folded into constants">
  ];
}

def TransposeConstantWeightsPass : Pass<"decoda-transpose-constant-weights"> {
  let summary = "Constant in_out weights of decoda.linear, mlp and gated_mlp transposed at compile time to out_in";
  let description = [{
    ONNX `MatMul`/`Gemm` initializers (how PyTorch exports `nn.Linear`) are `[K, N]` weights,
    imported as `decoda.linear {weight_layout = in_out}`. The GPU's GEMV and tensor-core
    kernels read `[N, K]` weights, and so does the CPU contraction codegen's few-row path (dot
    products along k, each weight read once), so both lowering pipelines run this pass first:
    the weight of an in_out linear (rank 2, or rank 3 per head: `[H, K, N]`) that is an
    `arith.constant` with its data (`dense`, splat or not, or `dense_resource`) becomes a new
    constant `[N, K]` (`[H, N, K]`; a resource stays a resource), one per weight however many
    linears read it, and the linear states `out_in`. `decoda.mlp` and `decoda.gated_mlp`
    likewise when all their weights are such constants (one layout attribute covers them all).
    Argument weights and elided resources are left as they are (a transpose would run on every
    call). First, a weight that is a `linalg.transpose` swapping its last two dims (leading
    dims kept) is read untransposed as `out_in`, constant or not, nothing copied: a tied
    `lm_head` exported as `MatMul(x, Transpose(embed_tokens))` reads the embedding table itself
    (for an MLP or gated MLP, when every weight is such a transpose).
    Bit-identical results: the same products, summed in the same order.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
  let statistics = [
    Statistic<"numTransposed", "num-transposed",
              "linears, MLPs and gated MLPs given transposed constant weights">,
    Statistic<"numUntransposed", "num-untransposed",
              "linears, MLPs and gated MLPs reading a transposed weight's source as out_in">
  ];
}

def FuseProjectionsPass : Pass<"decoda-fuse-projections"> {
  let summary = "Fuse linears that share an input (Q/K/V, gate/up) into one wider linear";
  let description = [{
    A group of at least `min-group` `decoda.linear` ops in one block that read the same input,
    with rank-2 weights of the same layout, element type and input width `K`, static shapes,
    and biases on all or none of them, becomes one `decoda.linear` on the weights concatenated
    along `N` (`[ΣN, K]` for `out_in`, `[K, ΣN]` for `in_out`) followed by one
    `tensor.extract_slice` per original projection on the last axis, so the input is read once
    and the contraction is wider. The fused linear takes the place of the first member of the
    group, in program order; concatenation follows program order.

    Weights that are `arith.constant`s (`dense` or `dense_resource` with data) are concatenated
    at compile time into one new constant (a `dense_resource` when any part was one), which the
    CPU pipeline packs at compile time like any constant weight. Weights that are function
    arguments can only be concatenated by a `tensor.concat` that runs on every call: it reads
    and writes every weight once more, far more traffic than the repeated reads of the input
    that fusion saves (on a Llama-3.2-1B-shaped block with argument weights, 26 ms → 758 ms per
    decode step and 207 ms → 1215 ms per 128-token prefill on this project's machine, the copy
    lowering to strided scalar loops). So by default (`weights=constant`) only groups whose
    weights all fold are fused (biases are small and may be concatenated at run time);
    `weights=any` fuses function-argument weights too.

    Block-quantised constant weights (`decoda.dequantize_blocks` of constants: `MatMulNBits`)
    fold too when their `bits`, `block_size` and the presence of zero points agree: their
    codes, scales and zero points are concatenated along `N` and one `dequantize_blocks` of
    them is the fused weight (still packed, for the GPU's GEMV kernels). They do not group
    with float weights.

    `decoda.gated_mlp` (with `gated-mlp`) becomes a linear on `[W_gate ; W_up]`, two slices,
    a `decoda.glu` of the halves and the down projection, so gate and up share one contraction
    (and may join other projections of the same input, e.g. in a parallel block). Only for
    `f32` storage: there the linear's epilogue (bias add in f32, rounding to f32) is exactly
    what `gated_mlp` computes; for `f16`/`bf16` the split form would round gate and up to the
    storage type before the GLU, which `gated_mlp` does not, so those are left alone.

    Results are bit-identical for `f32` (each output element sums the same products in the
    same order). Not fused: linears with different inputs, weight layouts, element types or
    `K`; per-head (rank-3) weights; dynamic weight shapes; a lone linear; a group that mixes
    linears with and without bias; linears in different blocks; a member whose non-constant
    weight is defined after the first member of its group.

    `decoda.qlinear` groups (hand-written INT8 programs; `--quantize=int8` quantizes after this
    pass, so its projections are fused as linears already) fuse the same way when they share
    the input, `x_scale` and `x_zero_point` (the same values), the requantisation scale (or
    none), the result type and `K`, with biases on all or none and weight scales all per
    channel (`[N]`, concatenated like the weights) or one shared per-tensor value. Results are
    bit-identical: the i32 sums are exact and each column's epilogue is unchanged.
  }];
  let dependentDialects = ["::mlir::decoda::DecodaDialect", "::mlir::tensor::TensorDialect",
                           "::mlir::arith::ArithDialect"];
  let options = [
    Option<"minGroup", "min-group", "int64_t", /*default=*/"2",
           "Smallest number of linears fused into one">,
    Option<"fuseGatedMLP", "gated-mlp", "bool", /*default=*/"true",
           "Split f32 gated MLPs into a fused gate/up linear, a glu and the down linear">,
    Option<"weights", "weights", "std::string", /*default=*/"\"constant\"",
           "Which weights to fuse: 'constant' (only groups whose weights all fold at compile "
           "time) or 'any' (function arguments too, via a tensor.concat on every call)">
  ];
  let statistics = [
    Statistic<"numFusedGroups", "num-fused-groups", "groups of linears fused into one linear">,
    Statistic<"numFusedLinears", "num-fused-linears", "linears replaced by a slice of a fused one">,
    Statistic<"numFusedGatedMLPs", "num-fused-gated-mlps",
              "gated MLPs split into a fused gate/up linear, glu and down linear">,
    Statistic<"numFusedQLinearGroups", "num-fused-qlinear-groups",
              "groups of qlinears fused into one qlinear">,
    Statistic<"numFusedQLinears", "num-fused-qlinears",
              "qlinears replaced by a slice of a fused one">,
    Statistic<"numFoldedConcats", "num-folded-concats",
              "weight or bias concatenations folded into one constant at compile time">,
    Statistic<"numRuntimeConcats", "num-runtime-concats",
              "weight or bias concatenations emitted as tensor.concat">
  ];
}

def AbsorbMLAPass : Pass<"decoda-absorb-mla"> {
  let summary = "Absorb MLA's W_UK into the query and W_UV into the output (MQA over the latent)";
  let description = [{
    Rewrites `decoda.mla` into the absorbed form (DeepSeek-V2 §2.1; seeds 004, MLA), exact in real
    arithmetic:

    - `q_lat[h] = q_nope[h] · W_UK[h]`: a per-head `decoda.linear` (`w_uk` `[H, Dn, Dc]` read as
      `in_out`), giving `[B, Tq, H, Dc]`;
    - `decoda.attention` with `num_kv_heads = 1` (MQA) of the query `[q_lat ; q_rope]`
      (`[B, Tq, H, Dc + Dr]`) against the key `[c ; k_rope]` (`[B, Tk, 1, Dc + Dr]`) with the
      latent `c` as the value, taken as the key's first `Dc` columns (`tensor.extract_slice`,
      `[B, Tk, 1, Dc]`: the GPU's SIMT attention kernel then reads P·V from its K tile), at the
      MLA scale (`1/sqrt(Dn + Dr)` unless
      set) and mask. Only the non-rotary part is absorbed; the RoPE key stays a separate
      `Dr`-wide part of the key, shared by all heads;
    - `W_UV`: a per-head `decoda.linear` (`[H, Dv, Dc]`, `out_in`) of the attended latent, or,
      when the result only feeds `collapse_shape` → `decoda.linear` with a constant rank-2
      `f32` output projection `W_O` and `W_UV` is a constant `f32` too, folded into that
      projection at compile time: `W_O'[:, h·Dc + c] = Σ_v W_O[:, h·Dv + v] · W_UV[h, v, c]`
      (accumulated in f64), a new constant `[D, H·Dc]`.

    Folding `W_UV` into `W_O` trades `H·Dv·Dc + D·H·Dv` multiply-adds per token for `D·H·Dc`;
    with DeepSeek-V2's shapes (`Dc = 512`, `Dv = 128`, `D = 5120`) the folded projection is
    3.6x more work and weight, so `fold-output-projection=cost` (the default) folds only when it
    is not more work, `always` whenever the weights are constant, `never` not at all. `W_UK`
    is not folded into `W_UQ` for the same reason. The absorbed attention is scored against
    `Dc + Dr` numbers per key instead of decompressing `H·(Dn + Dr)` key and `H·Dv` value
    numbers, which is what a KV cache of this layer holds per token; `report` emits that figure
    as a remark on every `decoda.mla` (`computeMLACacheFigures` in
    `decoda/Transforms/AbsorbMLA.h` computes it for a driver).

    Numerics: for `f32` the result matches `decoda.mla` to rounding order. For `f16`/`bf16`,
    `q_lat` and the attended latent are rounded to the storage type (op boundaries), where the
    `decoda.mla` lowering keeps them in `f32`. Folding reads the constants on the host and
    costs `D·H·Dv·Dc` multiply-adds of compile time.

    The `decoda.mla` lowering already computes this absorbed form on the fly (scores against
    the latent, `W_UV` after the softmax), so the pass changes no arithmetic by itself; it makes
    the MQA form explicit for the passes and targets after it. Measured on this project's CPU
    path (H = 16, Dn = 64, Dr = 32, Dc = 256, Dv = 64): decode over 512 or 2048 keys takes the
    same time either way, a 128-token prefill is slower through the generic attention
    (≈ 43 ms against ≈ 25 ms), which is why `decoda-graph-opt` runs it only with
    `absorb-mla=true`.
  }];
  let dependentDialects = ["::mlir::decoda::DecodaDialect", "::mlir::tensor::TensorDialect",
                           "::mlir::arith::ArithDialect"];
  let options = [
    Option<"foldOutputProjection", "fold-output-projection", "std::string",
           /*default=*/"\"cost\"",
           "Fold a constant W_UV into a constant output projection: 'cost' (when it is not more "
           "multiply-adds per token), 'always' or 'never'">,
    Option<"report", "report", "bool", /*default=*/"false",
           "Emit the KV-cache figures (numbers and bytes per token, absorbed vs not) as a remark">
  ];
  let statistics = [
    Statistic<"numAbsorbed", "num-absorbed", "decoda.mla ops rewritten into the absorbed form">,
    Statistic<"numFoldedOutputProjections", "num-folded-output-projections",
              "W_UV products folded into a constant output projection">
  ];
}

def RaiseONNXPass : Pass<"decoda-raise-onnx"> {
  let summary = "Recognise decomposed exporter subgraphs and replace them with decoda ops";
  let description = [{
    The ONNX importer turns every exporter node into one linalg/tensor op. This pass reads chains
    of elementwise `linalg.generic`s (through unit-dim reshapes, constants and last-axis sum
    reductions) as scalar expression trees and raises:

    - RMSNorm `x·w/sqrt(mean(x²)+eps)` and LayerNorm `(x-μ)·w/sqrt(mean((x-μ)²)+eps)+b` in
      their Div, Reciprocal, Rsqrt and `Pow(·, ±0.5)` forms, weight/bias optional and in any
      order, to `decoda.rms_norm` / `decoda.layer_norm`;
    - two-input elementwise trees that compute a GLU (SwiGLU, GeGLU erf/tanh, SiTU-GLU, clamped
      SwiGLU, constants taken from the tree) to `decoda.glu`, and one-input trees that compute
      `c·tanh(x/c)` to `decoda.softcap`. GLUs and activations are recognised by evaluating the
      tree at sample points against the definitions, so every algebraic spelling an exporter
      uses matches, and nothing else does;
    - `linear(glu(linear(x), linear(x)))` to `decoda.gated_mlp`, also when the GLU's gate
      and up are two column ranges of one projection (Phi-3's `gate_up_proj` Split: a constant
      weight is split at compile time, a run-time one sliced; slice extents that are not
      x's own are checked at run time), and
      `linear(act(linear(x)))` (GELU erf/tanh, SiLU, ReLU) to `decoda.mlp`;
    - `softmax(mask(softcap(scale·Q·Kᵀ)))·V` over `[B, H, T, D]` operands to
      `decoda.attention` (queries pre-scaled by a constant included; the repeat-KV
      expand/broadcast/collapse of GQA folded into `num_kv_heads`; an additive Trilu mask of a
      very negative fill above the diagonal becomes `causal`, any other additive or boolean
      `Where` mask becomes the `mask` operand);
    - `x·cos + rotate_half(x)·sin` (Slice/Neg/Concat) whose tables are `cos/sin(concat(F, F))`
      of `F = positions ⊗ inv_freq` with a constant `inv_freq = theta^(-2k/D)` to
      `decoda.rope` (positions from the cast position ids, or none for `0..T-1`), in
      `[B, H, T, D]` and `[B, T, H, D]` layouts;
    - `linear(x) + b` with a vector `b` to a `linear` with a bias;
    - `x + branch` where the branch is a `linear`, `mlp`, `gated_mlp` or `moe` result to
      `decoda.residual_add`, so `decoda-fuse-residual-norm` applies; a parallel block's
      `(b1 + b2) + x` of two branches (GPT-NeoX, Phi-2, Falcon: `mlp_out + attn_out + x`) to
      `(x + b1) + b2`, b1 the branch defined first and `x + b1` placed right after it (the
      epilogue of its projection on the GPU);
    - `transpose(extract_slice(transpose(x, p)), p⁻¹)` to a slice of x, and a slice of a
      transpose that only slices read to a transpose of a slice (GPT-NeoX's q/k/v interleaved
      per head in one projection: q and k become slices of it for RoPE, v moves only its own
      third into the cache's layout).

    `report` emits one remark with how many of each pattern fired.
  }];
  let dependentDialects = ["::mlir::decoda::DecodaDialect", "::mlir::tensor::TensorDialect",
                           "::mlir::linalg::LinalgDialect", "::mlir::arith::ArithDialect",
                           "::mlir::cf::ControlFlowDialect"];
  let options = [
    Option<"report", "report", "bool", /*default=*/"false",
           "Emit a remark with the number of each raised pattern">
  ];
  let statistics = [
    Statistic<"numRMSNorm", "num-rms-norm", "RMSNorm subgraphs raised">,
    Statistic<"numLayerNorm", "num-layer-norm", "LayerNorm subgraphs raised">,
    Statistic<"numGlu", "num-glu", "GLU subgraphs raised">,
    Statistic<"numMLP", "num-mlp", "plain MLPs raised">,
    Statistic<"numGatedMLP", "num-gated-mlp", "gated MLPs raised">,
    Statistic<"numSoftcap", "num-softcap", "softcaps raised">,
    Statistic<"numAttention", "num-attention", "attention subgraphs raised">,
    Statistic<"numCausal", "num-causal", "attention masks recognised as causal">,
    Statistic<"numResidual", "num-residual", "residual adds raised">,
    Statistic<"numLinearBias", "num-linear-bias", "bias adds folded into linear ops">,
    Statistic<"numRope", "num-rope", "rotate-half RoPE subgraphs raised">
  ];
}

#endif // DECODA_TRANSFORMS_PASSES_TD
