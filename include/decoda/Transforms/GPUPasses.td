//===- GPUPasses.td - passes of the NVIDIA GPU pipeline -------*- tablegen -*-===//
//
// Included by Passes.td. decoda-lower-to-cuda (lib/Pipelines/GPUPipeline.cpp, docs/GPU.md)
// runs them in this order:
//   decoda-gpu-flash-attention -> decoda-gpu-row-norm -> (inline)
//   -> decoda-gpu-gemv -> decoda-gpu-tensorcore-matmul -> decoda-gpu-copies-to-linalg -> (linalg to parallel loops)
//   -> decoda-gpu-map-parallel-loops -> (parallel loops to gpu.launch, outlining)
//   -> decoda-gpu-device-buffers -> decoda-gpu-align-workgroup-memory
//   -> decoda-gpu-lower-bf16-mma -> (NVVM, ptxas, host LLVM)
//   -> decoda-check-backend-contract -> decoda-gpu-check-host-contract
//
//===----------------------------------------------------------------------===//

#ifndef DECODA_TRANSFORMS_GPUPASSES_TD
#define DECODA_TRANSFORMS_GPUPASSES_TD

def GPUCopiesToLinalgPass : Pass<"decoda-gpu-copies-to-linalg", "func::FuncOp"> {
  let summary = "Turn every memref.copy into a linalg.copy, so that it becomes a device kernel";
  let description = [{
    In the GPU pipeline every buffer lives on the device, so a copy is a kernel like any other
    linalg op (`convert-linalg-to-parallel-loops` then maps it to threads).
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
  let statistics = [
    Statistic<"numCopies", "num-copies", "copies turned into linalg.copy">
  ];
}

def GPUPromoteAccumulatorsPass : Pass<"decoda-gpu-promote-accumulators", "func::FuncOp"> {
  let summary = "Carry a reduction loop's output element in a register instead of loading and "
                "storing it every iteration";
  let description = [{
    For every `scf.for` outside a `gpu.launch` (the loop nests
    `convert-linalg-to-parallel-loops` made of reductions no dedicated kernel takes, such as a
    per-head `decoda.linear`): a `memref.load` and a later `memref.store` of one element at
    loop-invariant indices, directly in the body, with no other access in the loop to memory
    that may alias it (roots through views compared as `decoda-gpu-merge-parallel-loops`
    does: allocations are distinct from everything, distinct arguments from each other) and no
    op of unknown effects in the loop, become a load before the loop, an `iter_arg` and a
    store after it. On the GPU the store every iteration kept the next iteration's input loads
    behind it (they may alias, as far as LLVM and ptxas know): one global latency per
    iteration or two. The same operations in the same order (bit-identical results); inner
    loops first, so nests of reduction loops are promoted level by level.
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect", "::mlir::scf::SCFDialect"];
  let statistics = [
    Statistic<"numPromoted", "num-promoted", "accumulators carried in registers">
  ];
}

def GPUMergeParallelLoopsPass : Pass<"decoda-gpu-merge-parallel-loops", "func::FuncOp"> {
  let summary = "Merge consecutive independent outermost scf.parallel nests into one 1-D loop "
                "(one kernel instead of several)";
  let description = [{
    Runs after `convert-linalg-to-parallel-loops`, before `decoda-gpu-map-parallel-loops`.
    A run of consecutive outermost `scf.parallel` nests without reductions (only allocations
    and side-effect-free ops between them, moved before the run) whose memory accesses are
    disjoint -- no buffer one writes is read or written by another, buffers compared by their
    root through view-like ops (allocations are distinct from everything; distinct function
    arguments do not overlap when one is written: only donated arguments are written, and the
    runtime refuses a donated buffer overlapping another input; the same global is the same
    buffer) -- becomes one `scf.parallel` over `[0, N1 + ... + Nk)` (`Ni` the trip counts)
    whose body picks its nest by comparing the index with the running offsets and
    delinearises it row-major (consecutive indices: consecutive innermost elements). It
    carries `decoda.merged_loops = k`; `decoda-gpu-map-parallel-loops` gives such a loop
    `block-x * block-y` threads a block. Typical runs: the RoPE of q and of k (after their
    shared cos/sin table), the K and V cache appends of a cached attention. A body with an
    effect on no particular value or an op of unknown effects is not merged.
  }];
  let dependentDialects = ["::mlir::scf::SCFDialect", "::mlir::arith::ArithDialect"];
  let options = [
    Option<"maxLoops", "max-loops", "int64_t", /*default=*/"8",
           "Most nests merged into one loop">
  ];
  let statistics = [
    Statistic<"numMerged", "num-merged", "merged loops created">,
    Statistic<"numLoops", "num-loops", "nests merged into them">
  ];
}

def GPUMergeLaunchesPass : Pass<"decoda-gpu-merge-launches", "func::FuncOp"> {
  let summary = "Merge consecutive independent gpu.launch ops of the same block shape (or static "
                "thread count) into one launch";
  let description = [{
    Runs on `gpu.launch` ops before `gpu-kernel-outlining`. A run of consecutive launches
    (only allocations and side-effect-free ops between them, moved before the run) with the
    same block size -- or the same static number of threads in another shape, whose body then
    takes its thread ids from the linear id (x fastest, the hardware's numbering, so its warps
    hold the same threads) -- no dynamic shared memory, no async
    dependencies and single-block bodies, whose memory accesses are disjoint (as
    `decoda-gpu-merge-parallel-loops` decides it; a `gpu.barrier` is allowed: a block runs one
    body), becomes one launch of `X1 + ... + Xk` blocks whose body picks its launch's body by
    comparing the block index with the running offsets, the body seeing its own block index
    (minus its offset) and grid size (a launch with a 2-D or 3-D grid counts X·Y·Z blocks and
    takes its block ids from its linear index, x fastest: the new keys' and values' copies,
    a [32, 8] nest over heads and tokens, merge with the RoPE kernel beside them); their shared memory (workgroup attributions) side by
    side, at most 48 KiB in all (what a kernel may declare statically: a run stops before a
    launch that would pass it). Typical run: the q, k and v projections of a decode step whose weights are
    arguments (three GEMV kernels reading the same normalised token). A launch alone under
    the guard against an empty grid (`scf.if (X > 0)`, `X != 0`, with X its grid: the row
    norms of a run-time row count) joins a run as if unguarded; the merged launch (or the
    launch left alone) is put under a guard of its own grid (GPT-NeoX's two norms of one
    input: one launch).

    ```mlir
    gpu.launch blocks(%b0, ...) in (%g0 = %c512, ...) threads(...) in (%c128, ...) { q }
    gpu.launch blocks(%b1, ...) in (%g1 = %c128, ...) threads(...) in (%c128, ...) { k }
    // becomes
    gpu.launch blocks(%b, ...) in (%g = %c640, ...) threads(...) in (%c128, ...) {
      scf.if %b < 512 { q at block %b } else { k at block %b - 512 }
    }
    ```
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect", "::mlir::scf::SCFDialect",
                           "::mlir::arith::ArithDialect"];
  let options = [
    Option<"maxLaunches", "max-launches", "int64_t", /*default=*/"8",
           "Most launches merged into one">
  ];
  let statistics = [
    Statistic<"numMerged", "num-merged", "merged launches created">,
    Statistic<"numLaunches", "num-launches", "launches merged into them">
  ];
}

def GPUMapParallelLoopsPass : Pass<"decoda-gpu-map-parallel-loops", "func::FuncOp"> {
  let summary = "Tile outermost scf.parallel nests to (block-y, block-x) threads and map them "
                "to GPU blocks and threads, innermost dimension to x";
  let description = [{
    Each outermost `scf.parallel` (not inside a `gpu.launch`) is tiled, its innermost two
    dimensions by `(block-y, block-x)` threads, and mapped: innermost dimension to x (so
    consecutive threads of a warp touch consecutive elements), then y, then z; further
    dimensions and the threads' unit dimensions run sequentially in the kernel. A 1-D loop
    made by `decoda-gpu-merge-parallel-loops` (`decoda.merged_loops`) is tiled by
    `block-x * block-y` threads. A parallel loop with reductions is refused.
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect", "::mlir::scf::SCFDialect"];
  let options = [
    Option<"blockX", "block-x", "int64_t", /*default=*/"32", "Threads along the innermost dim">,
    Option<"blockY", "block-y", "int64_t", /*default=*/"8",
           "Threads along the second-innermost dim">
  ];
  let statistics = [
    Statistic<"numMapped", "num-mapped", "loop nests mapped to blocks and threads">
  ];
}

def GPUDeviceBuffersPass : Pass<"decoda-gpu-device-buffers", "ModuleOp"> {
  let summary = "Give kernels device buffers: arguments copied in, results out, constants "
                "resident on the device, temporaries allocated there; refuse host memory "
                "accesses";
  let description = [{
    After `gpu-kernel-outlining`, in every function with a body:

    * each memref argument is used in place when the caller passed device memory (a
      device-resident tensor: `llvm.call @decoda_cuda_is_device` at entry), else gets a device
      copy at entry (`gpu.alloc` + `gpu.memcpy` under an `scf.if`), used everywhere instead;
      an argument marked `decoda.written` (donated, see `decoda-drop-donated-results`) is
      copied back into a host caller's buffer at the end; the mark is removed;
    * each `memref.get_global` of a **constant** global (a weight) becomes the model's device
      copy of it: `llvm.call @decoda_cuda_constant(slot, host address, bytes)` returns a
      device pointer, wrapped into a memref descriptor (an `unrealized_conversion_cast` that
      the LLVM lowering folds). The model's support code uploads each constant on its first
      use and frees it when the runtime unloads the model (`decoda_cuda_release`, docs/ABI.md
      "GPU models"), so weights cross the bus once per load, not per call. One slot per
      global symbol. A non-constant global is still copied in per call;
    * host temporaries (`memref.alloc`/`alloca`) become `gpu.alloc`;
    * results are copied into `malloc`ed host buffers (the C ABI of docs/ABI.md);
    * every per-call device buffer is freed right after the last op of its block that uses it
      or anything derived from it (views, addresses, TMA tensor maps, loop and branch
      results): `gpu.dealloc` in stream order, after the kernels before it, the memory back in
      the pool for the kernels after it, so a call holds at once only the temporaries live
      together (a whole model's layers reuse one layer's); a buffer that leaves its block is
      freed before the return (one allocated inside a loop or branch at the end of its block;
      an `scf.if` result that every branch yields as a buffer it allocated, as bufferization
      makes of a tensor each branch computes, as a buffer of the if's block; any other buffer
      leaving its block is refused).

    Every gpu op is async with its own stream and waited for (the form `gpu-to-llvm` lowers).
    A host `memref.load` of an argument (a decode step's cache offset, `tensor.extract` of a
    `tensor<i64>` input) reads the caller's buffer when it is host memory, else a host copy
    made at entry (`memref.alloca` up to 4 KiB, else `memref.alloc`, freed at the end); an
    argument that is also written (donated) is refused. A host `memref.load` of a
    temporary the kernels computed (GroupQueryAttention's row checks on a `seqlens_k` the model
    computes) reads a host copy made right before the outermost op of the temporary's block
    that holds the loads (one copy per such op; it waits for the kernels before it, a
    synchronisation of the call), freed at the end of that block; kernels in that op that
    write the temporary are refused. Before every return,
    `llvm.call @decoda_cuda_finish` waits for the call's remaining device work (a call whose
    results all stay on the device copies nothing back). Other host code that still reads or writes a buffer and run-time checks inside kernels are
    refused with an error naming the op; so are non-identity layouts at the boundaries and
    constants of element types without a byte size.
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect", "::mlir::memref::MemRefDialect",
                           "::mlir::LLVM::LLVMDialect", "::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect"];
  let statistics = [
    Statistic<"numArguments", "num-arguments",
              "memref arguments (used in place when in device memory, else copied)">,
    Statistic<"numConstants", "num-constants",
              "constant globals read from the model's resident device copies">,
    Statistic<"numResults", "num-results", "results copied back per call">,
    Statistic<"numHostReads", "num-host-reads",
              "device temporaries copied to the host for host code to read">,
    Statistic<"numBranchResults", "num-branch-results",
              "scf.if results freed as buffers of the if's block (each branch allocates one)">,
    Statistic<"numEarlyFrees", "num-early-frees",
              "device buffers freed right after their last use in their block">
  ];
}

def GPUCheckHostContractPass : Pass<"decoda-gpu-check-host-contract", "ModuleOp"> {
  let summary = "Check that only gpu.binary and gpu.launch_func remain of the gpu dialect";
  let description = [{
    Runs after `decoda-check-backend-contract{dialects=llvm,gpu}`: of the gpu dialect only the
    kernel images (`gpu.binary`) and their launches (`gpu.launch_func`) may remain; anything
    else (a `gpu.alloc` the host lowering left, a `gpu.module` not compiled) has no LLVM
    translation.
  }];
}

def GPUGemvPass : Pass<"decoda-gpu-gemv", "func::FuncOp"> {
  let summary = "Projection contractions with few static rows (decode steps) become one "
                "memory-bound GEMV kernel: a warp per weight row, 16-byte loads, warp "
                "butterfly reduction";
  let description = [{
    Runs after bufferization, before `decoda-gpu-tensorcore-matmul` (which would compute
    128-row tiles for them). Every `linalg.generic` on memrefs of the projection form --
    iterators `(lead..., n, k)` with only `k` a reduction, `A[lead..., k]`, `B[n, k]` (the
    weight as stored, k contiguous), `C[lead..., n]` in f32, body `C + extf(a) * extf(b)`
    (bf16 or f16) or `C + a * b` (f32), or i8 operands with an i32 `C` (below) -- whose lead
    dims are static with a product `M <= max-m` becomes one `gpu.launch`:

    * `ceil(N / (warps / s * cols-per-warp))` blocks of `32 * warps` threads (`s` the K
      split below, 1 for wide projections); warp `w` of block `b` owns the columns
      `n = (b * warps / s + w / s) * cols-per-warp + j` (a column past `N` reads the last row
      and stores nothing, so the shuffles and the barrier stay uniform);
    * lane `l` reads `B[n, k .. k + V)` for `k = l * V + i * 32 * V` with vector loads of
      `V` elements (16 bytes: 8 bf16/f16 or 4 f32; halved while `K` is not a multiple of
      `V`, so every row stays aligned), coalesced along `k`, `unroll` loads in flight per
      column (8, halved while the step's 16-byte weight and activation vectors, 4 registers
      each for every column and row, would pass 144 registers: 8 up to 3 rows, 4 for 4 to 8;
      a K = 2048 bf16 row is then one step, all 8 of a lane's loads at once); the
      remainder of `K` past the unrolled steps is a per-lane loop (lanes past `K` do
      nothing). The matching `A[m, k ..]` vectors are read through L1 (A is at most
      `max-m` rows, read by every warp). f32 accumulators `V` wide per (column, row), FMA;
    * while the grid would have fewer than `min-blocks` blocks (a narrow projection: too
      few loads in flight to cover memory latency), `s` = 2, 4, ... (up to `warps`) warps
      share each column, warp part `p` taking every `s`-th 32-lane stride of `K` from
      `p * 32 * V` (only while each part still gets a whole stride);
    * the lane partials are summed (vector reduction, then a butterfly of `gpu.shuffle xor`
      16, 8, 4, 2, 1); with a split, lane 0 of each warp leaves its sums in shared memory
      (`[warps][cols-per-warp * M]` f32), a barrier, and the column's first warp adds the
      parts in order; lane 0 writes `C[m, n]` for every row `m`, adding the previous
      `C` unless a zero `linalg.fill` of `C` right before it was folded in.

    i8 operands with an i32 accumulator (`C + extsi(a) * extsi(b)`: `decoda.qlinear`
    without an activation zero point) take the same kernel with one i32 accumulator per
    (column, row): every 4-byte group of a 16-byte vector is one `dp4a.s32.s32`
    (`nvvm.dot.accumulate.4way`; element by element when `K` is not a multiple of 4), the
    sums are i32 (wrapping, as the reference).

    A float weight `B` that a `decoda.dequantize_blocks` generic writes from constants (an
    int4/int2/int8 weight-only model: ONNX Runtime's `MatMulNBits`) is not read: the
    kernel's vectors become 16 bytes of codes (`128 / bits` weights, at most a block, halved
    while `K` is not a multiple), each with its block's scale and zero point; a code masked
    where it lies in its 32-bit word and or'ed with `0x4b000000` is `2^23 + code · 2^at` as
    f32, one FMA makes it `code - zp` exactly (whole zero points, read from the constant;
    else a subtraction follows), the vector's products with `A` are summed in two FMA
    chains and scaled once into one f32 accumulator per (column, row). The sums take the
    exact `(code - zp) · scale` (the unfused form rounds each weight to its type first). A
    decode step reads the packed weights (a fourth of f16's bytes at 4 bits, plus the
    scales). With `mma` (sm_80 and later), 4-bit codes in blocks of a multiple of 32 with
    bf16/f16 activations and whole zero points go to tensor cores instead, up to 16 rows
    (a dynamic `M` is dispatched up to 16 rows then): a warp takes 8 weight rows, each lane
    16 bytes of codes of its row; the two codes of each byte of a 32-bit word are spread
    (`nvvm.prmt`) and masked into the two halves of a bf16x2/f16x2 with the exponent of
    128 / 1024, made `(code - zp) · scale` by a subtraction and a multiplication in the
    weight's type (the generic's weights, bit for bit) and fed to `mma.sync.m16n8k16` as B
    fragments, A's 16-byte loads being the matching pairs as they come. With `mma`, bf16/f16
    weights read as they are with 2 to 16 rows (and 16-byte rows) take the same tensor-core
    kernel: each lane's 16-byte load of 8 weights is the B fragments of two `mma.sync`
    (no conversions, no shuffles), so a few rows cost what one does instead of an FMA per
    weight and row; one row keeps the SIMT kernel. The generics are first moved with
    their buffers to the start of their block (out of the way of gate/up pairing); one whose
    weight no kernel reads any more is erased, and under a dynamic-`M` dispatch it moves into
    the `M > max-m` branch, the only one that still reads the float weight (the tensor
    cores'). Weights whose vectors are not whole bytes of codes are read as floats.

    Per-head weights (`decoda.linear` with a `[H, N, K]` weight: absorbed MLA's `W_UK`,
    transposed at compile time when constant, and `W_UV`): `B[h, n, k]` where `h` is A's and
    C's last lead dim. The kernel's columns are B's `H * N` rows (B collapsed to
    `[H * N, K]`), a warp's columns in one head (`cols-per-warp` is 1 when `N` is no
    multiple of it), `h = column / N`; it reads A's row `m * H + h` and stores C's
    `(m * H + h, column - h * N)`, A and C collapsed over all their lead dims; `M` counts
    the lead dims without the head (so does a dynamic-`M` dispatch). With `mma`, 2 to 16
    bf16/f16 rows and `N` a multiple of 8 (a warp's 8 weight rows in one head) take the
    tensor-core GEMV the same way.

    Weights stored `[K, N]` (`B[k, n]`, per head `[H, K, N]`): an `in_out` weight that is an
    argument (constant ones are transposed at compile time). A column kernel: blocks of
    `32 * warps` threads over tiles of `lanes * V` columns (`V` a 16-byte vector along `N`,
    halved while `N` is no multiple; `lanes` 32, halved while the grid has fewer than
    `min-blocks` blocks, 8 at least, and while half of them cover `N`), the grid's y the
    head; a thread takes `V` columns and every `parts`-th `k` (`parts = threads / lanes`),
    `unroll` rows of B loaded before their FMAs with A's element broadcast; the parts' sums
    meet in shared memory (`[parts][M * tile]` f32, at most 32 KiB) and the thread of each
    (row, column) adds them in part order and stores (through the epilogue). Not for i8
    (`dp4a` takes four consecutive `k`) nor dequantised weights.

    With `fuse-epilogue`, when the kernel starts from a zero fill and the next op is an
    elementwise consumer of `C` (a temporary; the bf16/f16 rounding, residual adds, a GLU
    product, the INT8 dequantisation: GPUContraction.h, fusableEpilogue), the storing lane
    applies its body to each sum and stores its result; `C` and the consumer are gone. The
    consumer's output may be a strided view whose lead dims and whose `N` dims each collapse
    into one (a slice of a concatenation: absorbed MLA's `q_lat` rounded straight into
    `[q_lat ; q_rope]`); the tensor-core kernels keep identity outputs.

    A dynamic `M` (a model whose token count is a run-time dim, called with one token for a
    decode step, or with a few for speculative decoding) is dispatched at run time when
    `dynamic-m` is set: `scf.if (M == 1)` holds the GEMV kernel for one row; else, when
    `2 <= M <= max-m` (and `max-m > 1`), the GEMV kernel for `max-m` rows, rows past `M`
    reading A's row `M - 1` (cached) and not stored; else the contraction (and its zero fill,
    and a fused consumer again), which `decoda-gpu-tensorcore-matmul` then takes; float and
    INT8.

    Left alone (with a remark when `report` is set): static `M` above `max-m` (prefill: the
    tensor-core or SIMT path), a dynamic `M` without `dynamic-m` (or with i8 operands), and
    whatever is not a projection contraction; under `report`, a consumer of `C` that is not
    fused, with the reason.

    With `fold-norms` (run it before `decoda-gpu-row-norm`, while norms are calls of
    functions tagged `decoda.gpu_norm`), a norm (RMSNorm, LayerNorm, their add forms, with a
    bias or not) whose normalised rows are read only by contractions this pass takes with
    static `M` (a decode step's q, k and v projections, or its gate and up pair) is computed
    by each of those kernels instead of a kernel of its own: every block first reads the `M`
    rows (`x`, or `residual + scale * branch` rounded to the storage type for the add forms),
    sums their squares (LayerNorm: their elements, then the centred squares; the block's
    warps, through shared memory), and keeps the row-norm kernel's
    `round((x [- mean]) * rsqrt(var + eps) * (weight + offset) [+ bias])` in shared memory
    (`[M][K]`, at most 32 KiB), which the K loop reads instead of A. The add form's rounded
    sum, which later ops read, is stored by block 0 of the first of those kernels into a
    buffer that replaces the call's. With a dynamic `M` (every reader dispatched at run time,
    `dynamic-m`), the norm is folded into the dispatch's `M = 1` kernels only: the call moves
    into `scf.if (M != 1)`, whose results (the other branch: fresh buffers shaped like `x`,
    the sum's filled by the first `M = 1` kernel) replace the call's, so a decode step of a
    model with a run-time token count needs no norm kernel and every other `M` runs the
    norm's kernel as before. Not folded: a normalised result with any other reader (sizes
    read by `memref.dim` are `x`'s), an add form whose sum is read before those kernels
    (`memref.cast`s of it are followed to their readers), and norm inputs written between the
    call and them (or maybe written: a call of an external function, or of a module function
    with a buffer operand viewing the inputs; another norm's call only reads, and a
    `cf.assert` writes no buffer).
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect", "::mlir::vector::VectorDialect",
                           "::mlir::NVVM::NVVMDialect", "::mlir::LLVM::LLVMDialect",
                           "::mlir::scf::SCFDialect", "::mlir::memref::MemRefDialect",
                           "::mlir::arith::ArithDialect", "::mlir::math::MathDialect",
                           "::mlir::nvgpu::NVGPUDialect"];
  let options = [
    Option<"maxM", "max-m", "int64_t", /*default=*/"8",
           "Largest static row count (product of the lead dims) taken">,
    Option<"warps", "warps", "int64_t", /*default=*/"4", "Warps per block">,
    Option<"colsPerWarp", "cols-per-warp", "int64_t", /*default=*/"1",
           "Output columns (weight rows) per warp">,
    Option<"unroll", "unroll", "int64_t", /*default=*/"8",
           "Vector loads of each weight row in flight per lane (at most; fewer when the "
           "weight and activation vectors of a step would pass 144 registers: 4 for 4 to 8 "
           "rows)">,
    Option<"minBlocks", "min-blocks", "int64_t", /*default=*/"512",
           "Split K among 2, 4, ... warps of a block while the grid has fewer blocks than "
           "this (several per SM: an H200 has 132)">,
    Option<"dynamicM", "dynamic-m", "bool", /*default=*/"true",
           "With a dynamic M, run the GEMV kernels when M <= max-m and the contraction "
           "otherwise">,
    Option<"gateUp", "gate-up", "bool", /*default=*/"true",
           "A GLU's gate and up projections (the first one's f32 result read only by the "
           "second one's fused epilogue) as one kernel: each warp reads both weight rows of "
           "its column and the storing lane applies the GLU to both sums; with dynamic rows "
           "under one dispatch whose M > max-m branch keeps both contractions together">,
    Option<"fuseEpilogue", "fuse-epilogue", "bool", /*default=*/"true",
           "Apply the elementwise consumer of C (bf16/f16 rounding, residual adds, GLU "
           "products, the INT8 dequantisation) in the storing lane instead of a following "
           "kernel">,
    Option<"foldNorms", "fold-norms", "bool", /*default=*/"true",
           "Compute a norm read only by GEMV kernels (a decoda.gpu_norm call) in those "
           "kernels' prologue instead of a kernel of its own">,
    Option<"onlyFolded", "only-folded", "bool", /*default=*/"false",
           "Rewrite only the contractions that read a folded norm's rows (the pipeline's "
           "first run, before decoda-gpu-row-norm; the others are left to its second run, "
           "after inlining has made more shapes static)">,
    Option<"prefetchBytes", "prefetch-bytes", "int64_t", /*default=*/"0",
           "Before anything else (and so before the griddepcontrol.wait of "
           "decoda-gpu-dependent-launch), prefetch the start of every weight row into L2 "
           "(cp.async.bulk.prefetch: PTX ISA 8.0, sm_90a, sm_100 and later), this many "
           "bytes over all rows of a kernel's "
           "weights (0: none)">,
    Option<"mma", "mma", "bool", /*default=*/"false",
           "The tensor-core GEMV (mma.sync m16n8k16, sm_80 and later; 8 weight rows a "
           "warp, at most 16 rows of A): 4-bit block-quantised weights "
           "(decoda.dequantize_blocks of constants) with bf16/f16 activations, the codes "
           "dequantised into B fragments in registers, and bf16/f16 weights with 2 to 16 "
           "rows, their 16-byte loads the B fragments">,
    Option<"report", "report", "bool", /*default=*/"false",
           "Remark on every contraction left alone, with the reason">
  ];
  let statistics = [
    Statistic<"numNormsFolded", "num-norms-folded",
              "norm calls computed by the GEMV kernels that read them">,
    Statistic<"numNormsFoldedAtOneRow", "num-norms-folded-at-one-row",
              "norm calls of dynamic rows computed by the M = 1 GEMV kernels that read them "
              "(the call kept for the other row counts)">,
    Statistic<"numRewritten", "num-rewritten", "contractions turned into GEMV kernels">,
    Statistic<"numDispatched", "num-dispatched",
              "of those, dynamic-M contractions dispatched at run time (M = 1, M <= max-m)">,
    Statistic<"numFillsFolded", "num-fills-folded", "zero fills folded into the kernels">,
    Statistic<"numEpiloguesFused", "num-epilogues-fused",
              "elementwise consumers of C computed in the kernels' stores">,
    Statistic<"numGateUp", "num-gate-up", "GLU gate and up projections in one kernel">,
    Statistic<"numDequantized", "num-dequantized",
              "block-quantised weights read as codes by the kernels (their dequantisation erased)">
  ];
}

def GPUTensorCoreMatmulPass : Pass<"decoda-gpu-tensorcore-matmul", "ModuleOp"> {
  let summary = "Projection contractions in bf16/f16 with f32 accumulation, or i8 with i32 "
                "accumulation, become tensor-core kernels (cp.async into shared memory, "
                "ldmatrix, mma.sync m16n8k16 / m16n8k32.s8)";
  let description = [{
    Runs after bufferization and after `decoda-gpu-gemv` (which takes the bf16/f16/f32
    contractions with few static rows, decode steps). Every remaining `linalg.generic` on
    memrefs of the projection form -- iterators `(lead..., n, k)` with only `k` a reduction,
    `A[lead..., k]`, `B[n, k]` (a weight, k contiguous), `C[lead..., n]` in f32, body
    `C + extf(a) * extf(b)` with `a`, `b` both bf16 or both f16, or `C` in i32 with body
    `C + extsi(a) * extsi(b)` and `a`, `b` both i8 (the `decoda.qlinear` contraction without
    an activation zero point) -- becomes one `gpu.launch`:

    * `M` = the product of the lead dims (dynamic), `N`, `K` static; a block computes a
      `tile-m x tile-n` tile of `C` with `warps-m x warps-n` warps (each a
      `tile-m/warps-m x tile-n/warps-n` warp tile of 16x8 fragments);
    * the `k` loop steps by `tile-k` (i8: by `2 * tile-k`, the same bytes, or by `tile-k`
      when K is not a multiple of `2 * tile-k`); the `A` and `B` tiles are staged in shared memory by
      `nvgpu.device_async_copy` (cp.async.cg, 16 bytes per thread and copy, rows past `M` or
      `N` zero-filled through the source size), two stages deep: the copy of step `k+1` is in
      flight while step `k` computes (`nvgpu.device_async_wait`, `gpu.barrier`). Shared rows
      are padded by 16 bytes so the eight row addresses of an ldmatrix hit distinct banks;
    * per 32-byte k slice (16 bf16/f16, 32 i8), each warp loads its A fragments with
      `nvgpu.ldmatrix` x4 and its B fragments with x2 (rows of `B[n][k]` are the "col"
      operand of mma), and issues `nvgpu.mma.sync` m16n8k16 (m16n8k32 for i8) with f32 (i32)
      accumulators kept in registers across the k loop;
    * the epilogue stores each thread's accumulator pairs to `C`, guarded by `M` and `N`. A
      zero `linalg.fill` of `C` right before the contraction is folded into the kernel (the
      accumulators start at zero); otherwise they start from `C`.

    With `wgmma` (sm_90a; set by `decoda-lower-to-cuda` for `gpu-arch=sm_90a`) a bf16/f16
    contraction becomes the Hopper kernel instead (lib/Transforms/GPUWgmmaKernel.cpp):
    `tile-m / 64` warpgroups of 128 threads (`tile-m` 64 or 128), each computing 64 rows of
    the `tile-m x tile-n` tile with `nvvm.wgmma.mma_async` m64n{tile-n}k16 (f32 accumulators
    in registers, the wgmma D fragment), A and B both read from shared memory through 64-bit
    matrix descriptors in the no-swizzle K-major core-matrix layout; `wgmma-stages` shared
    stages filled by cp.async (16-byte chunks placed as the descriptor describes) with
    `fence.proxy.async` before the barrier that publishes them; per stage `wgmma.fence`,
    `tile-k / 16` wgmma, `wgmma.commit_group`, `wgmma.wait_group 1` (one group in flight).
    Stores, guards and the zero-fill fold as above. An INT8 contraction whose K is a multiple
    of `2 * tile-k` takes the same kernel in bytes (wgmma m64n{tile-n}k32 .s32.s8.s8, i32
    accumulators, the fused `decoda.qlinear_epilogue` as above); other INT8 ones keep
    mma.sync.

    With `wgmma-tma` as well (set by `decoda-lower-to-cuda` for sm_90a unless `gpu-tma=false`)
    the stages are filled by the Tensor Memory Accelerator instead: the host code asks the
    support code for a tensor map of A and of B (`llvm.call @decoda_cuda_tensor_map`: the
    device address of a CUtensorMap, encoded once per thread and matrix, docs/ABI.md); the
    kernel keeps `tma-stages` stages of 128-byte rows (64 bf16/f16 or 128 i8 of k; `tile-k`
    is not used) in the 128-byte swizzle, in dynamic shared memory aligned to 1024 bytes at run
    time, with one mbarrier per stage. Thread 0 issues `cp.async.bulk.tensor.2d` for A's
    `tile-m` rows and B's `tile-n` rows after `mbarrier.arrive.expect_tx` of their bytes,
    `tma-stages - 1` tiles ahead; every thread waits with `mbarrier.try_wait.parity` for the
    stage's phase, the warpgroups issue the wgmma through 128B-swizzle descriptors (SBO 1024,
    32 bytes per k slice), and after `wgmma.wait_group 1` and a barrier the stage of the
    previous tile is refilled. Rows past M or N and k past K are zero-filled by the TMA, so
    any K whose rows are 16-byte aligned (K * element bytes a multiple of 16) takes it, INT8
    included; the others are left to the SIMT loops (the cp.async kernel, which needs K a
    multiple of its stage, would not take them either).

    The fragment coordinates are those of the PTX ISA for mma.m16n8k16 with .bf16/.f16 (one
    layout for both); those of mma.m16n8k32 with .s8 are the same bytes. With
    `fuse-epilogue`, a contraction that starts from a zero fill and whose f32/i32 result is a
    temporary read only by the following elementwise generic (the bf16/f16 rounding, residual
    adds and bias chains, a GLU product, the INT8 `decoda.qlinear_epilogue`:
    GPUContraction.h, fusableEpilogue) is emitted where that generic was, and its body is
    applied to each accumulator before the store (its other operands read at the element's
    indices; a pair stored as one vector of the output type); otherwise the result is stored
    and the generic stays a SIMT kernel (a refusal is a remark under `report`). Not rewritten (left to the
    SIMT loops, with a remark when `report` is set): f32 operands (no TF32: it would change
    the numerics), INT8 contractions with an activation zero point, `K` not a multiple of
    the stage (`tile-k`; 32 for i8 with the defaults; with `wgmma-tma`: rows not 16-byte
    aligned), `N` not a multiple of 8, dynamic
    `N`/`K`, non-identity layouts, other maps or bodies.

    With `gate-up` (and `wgmma-tma`) the two projections of a GLU become
    one kernel: consecutive bf16/f16 contractions reading the same A, with weights of one
    type, both starting from a folded zero fill, the first one's f32 result read only by the
    second one's fused epilogue (with the identity map). B's stage holds n = min(`tile-n`,
    128) rows of each weight (two TMA boxes, one mbarrier; with `tile-n=256` the other
    projections keep 256), one wgmma m64n{2 n}k16 per k slice computes
    both tiles, and the epilogue takes the first result from the registers: the f32 gate
    (M x N x 4 bytes) is no longer written by one kernel and read back by the other, and the
    activation is read once for both.
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect", "::mlir::nvgpu::NVGPUDialect",
                           "::mlir::vector::VectorDialect", "::mlir::scf::SCFDialect",
                           "::mlir::memref::MemRefDialect", "::mlir::arith::ArithDialect",
                           "::mlir::NVVM::NVVMDialect", "::mlir::LLVM::LLVMDialect"];
  let options = [
    Option<"tileM", "tile-m", "int64_t", /*default=*/"128", "Rows of C per block">,
    Option<"tileN", "tile-n", "int64_t", /*default=*/"128", "Columns of C per block">,
    Option<"tileK", "tile-k", "int64_t", /*default=*/"32", "Reduction elements per stage">,
    Option<"warpsM", "warps-m", "int64_t", /*default=*/"2", "Warps along M in a block">,
    Option<"warpsN", "warps-n", "int64_t", /*default=*/"4", "Warps along N in a block">,
    Option<"wgmma", "wgmma", "bool", /*default=*/"false",
           "sm_90a: bf16/f16 contractions (and INT8 ones with K a multiple of 2 * tile-k) on "
           "warpgroup MMA (wgmma.mma_async, operands in shared memory through matrix "
           "descriptors) instead of mma.sync. Set by decoda-lower-to-cuda for gpu-arch=sm_90a">,
    Option<"wgmmaStages", "wgmma-stages", "int64_t", /*default=*/"3",
           "Shared-memory stages of the wgmma kernel (copies run stages - 2 tiles ahead, "
           "one wgmma group stays in flight)">,
    Option<"wgmmaTma", "wgmma-tma", "bool", /*default=*/"false",
           "With wgmma: fill the stages by TMA (cp.async.bulk.tensor, tensor maps from the "
           "host, 128-byte swizzle, mbarriers) instead of cp.async. Set by "
           "decoda-lower-to-cuda for gpu-arch=sm_90a unless gpu-tma=false">,
    Option<"tmaStages", "tma-stages", "int64_t", /*default=*/"4",
           "Shared-memory stages of the TMA wgmma kernel (loads run stages - 1 tiles ahead)">,
    Option<"tmaWarpSpecialize", "tma-warp-specialize", "bool", /*default=*/"false",
           "With wgmma-tma: a producer warpgroup issues the loads (waiting on per-stage empty "
           "mbarriers) and the MMA warpgroups release each stage after its wgmma, with no "
           "block-wide barrier per k tile">,
    Option<"fuseEpilogue", "fuse-epilogue", "bool", /*default=*/"true",
           "Apply the elementwise consumer of C (bf16/f16 rounding, residual adds, GLU "
           "products, the INT8 dequantisation) in the kernel's stores instead of a following "
           "SIMT kernel">,
    Option<"gateUp", "gate-up", "bool", /*default=*/"true",
           "With wgmma-tma: a GLU's gate and up projections (same activation, the gate read "
           "only by the up projection's epilogue) in one kernel of two weights">,
    Option<"report", "report", "bool", /*default=*/"false",
           "Remark on every contraction left to the SIMT path, with the reason">
  ];
  let statistics = [
    Statistic<"numRewritten", "num-rewritten", "contractions turned into tensor-core kernels">,
    Statistic<"numWgmma", "num-wgmma", "of them, wgmma (sm_90a) kernels">,
    Statistic<"numFillsFolded", "num-fills-folded", "zero fills folded into the kernels">,
    Statistic<"numEpiloguesFused", "num-epilogues-fused",
              "elementwise consumers of C computed in the kernels' stores">,
    Statistic<"numGateUp", "num-gate-up", "GLU gate and up projections in one kernel">
  ];
}

def GPULowerBF16MmaPass : Pass<"decoda-gpu-lower-bf16-mma", "gpu::GPUModuleOp"> {
  let summary = "Lower bf16 and i8 nvgpu.mma.sync to nvvm.mma.sync";
  let description = [{
    Upstream `convert-nvgpu-to-nvvm` (LLVM 22) lowers `nvgpu.mma.sync` only for f16, tf32,
    f64 and integer operands ("failed to deduce operand PTX types" for bf16). This pass, run
    on the kernel modules before it, rewrites each bf16 m16n8k16 `nvgpu.mma.sync` into
    `nvvm.mma.sync` (row-major A, column-major B, bf16 multiplicands, f32 accumulators): each
    `vector<2xbf16>` register of A and B is bitcast to the `i32` the intrinsic takes, and the
    four f32 results are packed back into the `vector<2x2xf32>` accumulator. Fragment layouts
    are the same as for f16 (PTX ISA, mma.m16n8k16), so ldmatrix-loaded fragments feed it
    unchanged. i8 m16n8k32 (`vector<4x4xi8>`, `vector<2x4xi8>`, `vector<2x2xi32>`) is
    lowered here too, to the wrapping `mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32`
    (upstream lowers i8 only to `.satfinite`, which clamps where the INT8 reference wraps;
    the two agree wherever `decoda.qlinear` is exact). Other shapes or accumulator types with
    bf16 or i8 operands are an error naming the op.
  }];
  let dependentDialects = ["::mlir::NVVM::NVVMDialect", "::mlir::LLVM::LLVMDialect",
                           "::mlir::vector::VectorDialect"];
  let statistics = [
    Statistic<"numLowered", "num-lowered", "bf16 and s8 mma.sync ops lowered">
  ];
}

def GPUAlignWorkgroupMemoryPass : Pass<"decoda-gpu-align-workgroup-memory", "gpu::GPUModuleOp"> {
  let summary = "Give every workgroup (shared-memory) attribution of a kernel an explicit "
                "alignment";
  let description = [{
    `gpu-kernel-outlining` turns a `gpu.launch`'s workgroup attributions into a `gpu.func`'s
    without attribute dictionaries, and the NVVM lowering then declares each as a `.shared`
    array aligned only to its element type (`.align 2` for bf16), while `cp.async` of 16 bytes,
    `ldmatrix` rows and vector accesses need 16-byte aligned shared addresses. This pass, run on
    the kernel modules after outlining, sets `llvm.align` (which the lowering honours) to
    `alignment` bytes on every workgroup attribution that has no larger one.
  }];
  let options = [
    Option<"alignment", "alignment", "int64_t", /*default=*/"16",
           "Bytes of alignment (a power of two)">
  ];
  let statistics = [
    Statistic<"numAligned", "num-aligned", "workgroup attributions given an alignment">
  ];
}

def GPUOutlineKernelsPass : Pass<"decoda-gpu-outline-kernels", "ModuleOp"> {
  let summary = "gpu-kernel-outlining, then what each launch asks of its kernel set on the "
                "outlined gpu.func (decoda.kernel_attrs)";
  let description = [{
    Runs upstream `gpu-kernel-outlining` and keeps what it drops: a `gpu.launch` may carry a
    dictionary `decoda.kernel_attrs` of attributes meant for its kernel function (a kernel
    generator knows them, e.g. `nvvm.maxnreg`, the register budget a one-block-per-SM kernel
    may use: ptxas otherwise assumes a block rounded up to whole warpgroups, so a block of
    288 threads gets 168 registers a thread where 224 fit). Outlining replaces each launch by a
    `gpu.launch_func` at the same place, so the launches and the new launch_func ops pair up
    in order; each dictionary's entries are set on the kernel the launch_func names.

    ```mlir
    gpu.launch blocks(...) threads(...) { ... } {decoda.kernel_attrs = {nvvm.maxnreg = 224 : i32}}
    // becomes
    gpu.launch_func @f_kernel::@f_kernel ...
    gpu.module @f_kernel { gpu.func @f_kernel(...) kernel attributes {nvvm.maxnreg = 224 : i32, ...} }
    ```

    An `i1` operand of an outlined kernel (a flag computed on the host, such as RoPE's test
    of an output offset's alignment) becomes an `i64` parameter, zero-extended at the launch
    and truncated at the kernel's entry: every kernel parameter is then a whole 8-byte value
    (`.u64`), with no undefined bytes above a 1-byte flag in a runtime's or a test driver's
    8-byte parameter slot.

    Errors, naming the launch: `decoda.kernel_attrs` that is not a dictionary; a kernel asked
    for two different values of one attribute (two launches of one kernel); `nvvm.maxnreg`
    that is not an i32 in 16..255.
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect", "::mlir::DLTIDialect",
                           "::mlir::cf::ControlFlowDialect", "::mlir::arith::ArithDialect"];
  let statistics = [
    Statistic<"numKernelAttrs", "num-kernel-attrs", "attributes set on outlined kernels">,
    Statistic<"numWidenedFlags", "num-widened-flags", "i1 kernel parameters passed as i64">
  ];
}

def GPUDependentLaunchPass : Pass<"decoda-gpu-dependent-launch", "ModuleOp"> {
  let summary = "Programmatic dependent launch (sm_90+): every kernel waits for the grids "
                "before it (griddepcontrol.wait) before touching memory, so the runtime may "
                "start it while the kernel before it still runs";
  let description = [{
    With the driver's programmatic-stream-serialization launch attribute (a graph's
    programmatic edge), a kernel's blocks may be scheduled as soon as every block of the
    kernel before it on the stream has executed `griddepcontrol.launch_dependents` (or ended):
    the launch latency and the kernel's prologue overlap the end of the kernel before. Such a
    kernel must not access memory the kernels before it write or read until its
    `griddepcontrol.wait` returns (their completion and memory visibility).

    For every kernel `gpu.func` this pass inserts `nvvm.griddepcontrol wait` and then
    `nvvm.griddepcontrol launch_dependents` before the first operation of its entry block that
    may access memory: ops without memory effects, `nvvm.cp.async.bulk.prefetch` (an L2
    prefetch: a GEMV kernel's weight rows, which no kernel writes) and region ops (`scf.if`)
    holding only such ops may come first; when that first op is an `scf.if` with both
    branches (a merged launch's dispatch on the block id, decoda-gpu-merge-launches), each
    branch gets the wait after its own such ops instead. Each `gpu.module` with kernels gets the global
    `@decoda_dependent_launch` (an i32 constant in global memory), which the runtime looks up
    (`cuModuleGetGlobal`) to launch that module's kernels as programmatic dependents; kernels
    of modules without it are launched in plain stream order. A kernel that already executes
    `griddepcontrol.wait` is left as it is.

    ```mlir
    gpu.module @k { gpu.func @k(%a: memref<?xf32>) kernel { %t = gpu.thread_id x  memref.load ... } }
    // becomes
    gpu.module @k {
      llvm.mlir.global external constant @decoda_dependent_launch(1 : i32) {addr_space = 1 : i32} : i32
      gpu.func @k(%a: memref<?xf32>) kernel {
        %t = gpu.thread_id x
        nvvm.griddepcontrol wait
        nvvm.griddepcontrol launch_dependents
        memref.load ...
      }
    }
    ```

    Errors, naming the gpu.module: a module whose NVVM target is older than sm_90 (no
    `griddepcontrol`); a module that already defines `@decoda_dependent_launch`.
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect", "::mlir::LLVM::LLVMDialect",
                           "::mlir::NVVM::NVVMDialect"];
  let statistics = [
    Statistic<"numKernels", "num-kernels", "kernels given griddepcontrol.wait">
  ];
}

def GPUNameKernelsPass : Pass<"decoda-gpu-name-kernels", "ModuleOp"> {
  let summary = "Give every outlined kernel the name of its gpu.module";
  let description = [{
    `gpu-kernel-outlining` names each kernel after the function it came from (`@f_kernel`) and
    makes only the names of the `gpu.module`s unique (`@f_kernel`, `@f_kernel_0`, ...), so
    every kernel of a model has the same name in its cubin, in a profiler and in `decoda-run
    --profile`. This pass renames the kernel of every `gpu.module` holding one `gpu.func`
    kernel to the module's name and updates the `gpu.launch_func` ops that launch it. A module
    with several kernels keeps its names (its kernels' names already differ).

    ```mlir
    gpu.module @f_kernel_0 { gpu.func @f_kernel(...) kernel { ... } }
    gpu.launch_func @f_kernel_0::@f_kernel ...
    // becomes
    gpu.module @f_kernel_0 { gpu.func @f_kernel_0(...) kernel { ... } }
    gpu.launch_func @f_kernel_0::@f_kernel_0 ...
    ```
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
  let statistics = [
    Statistic<"numRenamed", "num-renamed", "kernels renamed after their module">
  ];
}

def GPUFlashAttentionPass : Pass<"decoda-gpu-flash-attention", "ModuleOp"> {
  let summary = "Replace the body of every decoda.gpu_attention function by one flash-attention "
                "kernel (tensor cores for bf16/f16, f32 SIMT otherwise; K/V tiles in shared "
                "memory, online softmax in registers)";
  let description = [{
    Runs after bufferization on the private functions that `decoda-convert-to-linalg
    {gpu-kernel-calls}` made of each non-INT8 `decoda.attention` / `decoda.cached_attention`
    (`decoda.gpu_attention` dictionary; arguments q, k, v, the number of keys, then mask,
    segment_ids, sinks when present). Each body becomes one `gpu.launch`.

    K and V that are copies of a transposed cache (an allocation filled by `linalg.transpose`
    with permutation [0, 2, 1, 3] from a [B, H, S, D] buffer — ONNX GroupQueryAttention's and
    Attention-23's caches — read only by the function's one call, then freed) are forwarded:
    the call takes `memref.transpose` of the cache (a strided view the kernels' indexed loads
    and async copies read as well) and the copy goes, unless a kernel encodes TMA tensor maps
    of K/V or something between the copy and the call may write the cache.

    Tensor-core kernel (bf16/f16 storage, f32 accumulation; head dims multiples of 16 up to
    128, with two stages of K/V tiles within 48 KiB; default, `tensor-cores=false` turns it
    off), FlashAttention-2 style:

    * a block of 128 threads (4 warps) owns 64 rows, each warp 16 (one m16 fragment); a row is
      a (query, head) pair of one K/V head's group (GQA/MQA by index); grid
      (ceil(Tq * group / 64), Hkv, B);
    * Q is copied with cp.async (`nvgpu.device_async_copy`) through the K stages and held in
      registers as ldmatrix.x4 A fragments; K/V tiles of 64 keys (32 when the head dim makes
      two stages of 64 exceed 48 KiB, e.g. 128) stream through two shared-memory stages
      (`[2][keys][D + 8]`, rows padded by 16 bytes against ldmatrix bank conflicts), the copy
      of tile j + 1 in flight while tile j computes; only the key range the block's rows can
      see is loaded (causal, window, chunk bounds from indices);
    * S = Q·Kᵀ with `mma.sync.m16n8k16` (K rows as the "col" B operand, ldmatrix.x4); scale,
      softcap, additive mask and the index masks per fragment element; row max and sum across
      the 4 lanes of a quad (`gpu.shuffle xor` 1, 2); P rounded to the storage type in
      registers is the A operand of O += P·V (V by `ldmatrix.trans`);
    * at the end the partial sums are summed across the quad, sinks join as in the op's
      definition, a row without visible keys gives 0, and the result is rounded and stored.

    With `wgmma` (sm_90a; set by `decoda-lower-to-cuda` unless `gpu-attention-wgmma=false`) the
    tensor-core kernel is its warpgroup-MMA form, for head dims that are multiples of 16 up to
    256 (over 128 too, where the mma.sync kernel stops): the same block, grid, masks, softmax,
    split form and stores; Q and two stages of 64-key K/V tiles in dynamic shared memory in the
    128-byte swizzle, each head dim held as whole 64-column blocks (cp.async, `fence.proxy.async`,
    a barrier); S = Q·Kᵀ by D / 16 k slices of wgmma m64n64k16 with both operands K-major from
    shared memory; O += P·V by m64n{Dv rounded up to 64}k16 with P from registers and V
    MN-major (imm-trans-b; inline PTX, NVVM's op has no register A), O's padding columns neither
    rescaled nor stored. A value head dim over 128 keeps 64-key tiles, a block 64 rows when 128
    would not fit 227 KiB, TMA loads only whole 64-column boxes (`report=true` says so, and why
    a call takes the SIMT kernel instead: whatever mma.sync takes, wgmma takes too).

    SIMT kernel (everything else: f32, other head dims): a block of 128 threads owns 16 rows;
    the queries are staged in shared memory (f32), keys stream in tiles of 32 (`Ks[32][D+1]`,
    `Vs[32][32 ceil(Dv/32) + 1]` f32), by 16-byte loads when both head dims are whole 16-byte
    chunks (all of a tile's loads before its stores, the next tile's loaded while the current
    one is computed), element by element otherwise; lane j scores key j for the warp's 4 rows; warp
    butterflies for max and sum; P·V broadcasts each key's probability with `gpu.shuffle idx`.
    Its tiles within 48 KiB (D = Dv up to about 120 in f32) are static shared memory; larger
    ones dynamic shared memory up to `max-shared-bytes` (set by `decoda-lower-to-cuda` to the
    arch's opt-in limit: 227 KiB on sm_90/sm_100, 163 KiB on sm_80, 99 KiB on sm_86/sm_89/
    sm_120, 96 KiB on sm_70, 64 KiB on sm_75), so f32 attention at Gemma's 256 and absorbed
    MLA's 576 / 512 (bf16, above what the tensor-core kernels take) are one kernel per call;
    what does not fit keeps the target-neutral body. A V that is the first Dv columns of K (a
    buffer one `memref.copy` filled from a subview of K at offset 0, as `decoda-absorb-mla`'s
    slice bufferizes) is not staged: P·V reads `Ks`, the copy goes (absorbed MLA: 110720 bytes
    of tiles instead of 176384). A K that two `memref.copy` filled from two buffers, column
    ranges [0, s) and [s, D) (absorbed MLA's `[c ; k_rope]`), is read from those buffers: the
    call takes the first as K and the second as an extra last operand, each 16-byte chunk load
    picks its buffer, and the copies go (16-byte staging, s a whole chunk).

    Decode steps (flash decoding, SIMT): when all rows of a (batch, K/V head) fit one block
    of the SIMT kernel (`Tq * group <= 16`, e.g. one token of a GQA model; decided at compile
    time for a static query count, at run time, with both forms emitted, for a dynamic one),
    the grid would be only `B * Hkv` blocks (8 for Llama-3.2-1B at batch 1, on 132 SMs).
    Instead the visible key range of each (batch, K/V head) is split over
    `splits = max(1, min(ceil(decode-target-blocks / (B * Hkv)), ceil(keys /
    decode-min-keys), decode-splits))` blocks (computed at run time; whole 32-key tiles each;
    by default 528 and 64: Hkv = 8, B = 1 at 4096 keys gives 64 splits, 512 blocks):
    grid `(splits, Hkv, B)`, each block leaving its rows' running max, denominator and
    unnormalised f32 accumulator in a workspace `[B][Hkv][splits][16][Dv + 2]`; a second
    kernel (grid `(ceil(rows * Dv / 128), Hkv, B)`, a thread per (row, column)) rescales the
    partials to their common max, sums them in split order, adds the sinks and normalises as
    above; its loops over the splits step by 8 with the loads of a step issued first.
    `decode-splits=1` keeps the single kernel. Calls only the SIMT kernel takes (f32, head
    dims no tensor-core kernel takes) split up to 128 rows over up to 8 row blocks: grid
    `(splits * blocks, Hkv, B)`, block x row block `x % blocks` of split `x / blocks`, the
    workspace `[B][Hkv][splits][16 * blocks][Dv + 2]`, the split count aiming at the target
    over all row blocks; over 16 rows only when that count is above 1 (decided at run time,
    also for a static query count). Calls the tensor-core kernel takes
    (bf16/f16) with `16 < Tq * group <= 64` (a few tokens at once, as in speculative decoding)
    take its own split form when its run-time split count (the formula with
    `decode-tc-target-blocks` and `decode-tc-min-keys`, 264 and 256) is above 1: the tensor-core kernel
    with grid `(splits, Hkv, B)`, each block the 64 rows and whole key tiles of its share,
    leaving its partials in the same workspace layout with 64 rows a split for the same
    combining kernel; the one-pass kernel otherwise (also for up to 16 rows when the SIMT
    tiles do not fit). A dynamic query count compiles the SIMT split form (up to 16 rows), the
    tensor-core split form (up to 64 rows and more than one split) and the one-pass kernel,
    and picks at run time.

    INT8 attention (`decoda.int8_attention` functions from `decoda-convert-to-linalg
    {int8-attention-calls}`: arguments q, k, v, the number of keys, q_scale, k_scale, v_scale
    as rank-0 f32 buffers, then the extras; head dims up to 128 after rounding up to 32): a
    quantisation launch (K rows as s8, V per 64-key tile in the word order of the u8 P
    fragments, through shared memory) and the integer tensor-core kernel: pass 1 the row max
    from `mma.sync.m16n8k32.s8.s8`, pass 2 p = exp(x - max), P = rint(255 p) as u8 and
    acc += P·V on `mma.sync.m16n8k32.u8.s8` (the op carries `decoda.unsigned_a`); a decode
    step (`Tq * group <= 64`) splits the keys over blocks (partial maxima, partial sums and
    i32 accumulators against the maxima of all splits, combination). `tensor-cores=false`
    leaves INT8 attention to its target-neutral body.

    Anything neither kernel takes keeps the target-neutral body (linalg on buffers, inlined
    back by the pipeline) with a remark naming the reason; with `report=true` every attention
    that takes the SIMT kernel instead of the tensor-core one gets a remark with the reason.
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect", "::mlir::nvgpu::NVGPUDialect",
                           "::mlir::vector::VectorDialect", "::mlir::scf::SCFDialect",
                           "::mlir::memref::MemRefDialect", "::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::LLVM::LLVMDialect", "::mlir::NVVM::NVVMDialect"];
  let options = [
    Option<"decodeSplits", "decode-splits", "int64_t", /*default=*/"64",
           "Most blocks the keys of one (batch, K/V head) of a decode step are split over "
           "(1: no split)">,
    Option<"decodeTargetBlocks", "decode-target-blocks", "int64_t", /*default=*/"528",
           "Blocks the SIMT split form of a decode step aims at (four per SM of an H200)">,
    Option<"decodeMinKeys", "decode-min-keys", "int64_t", /*default=*/"64",
           "Fewest keys per split of the SIMT split form (two 32-key tiles)">,
    Option<"decodeTcTargetBlocks", "decode-tc-target-blocks", "int64_t", /*default=*/"264",
           "Blocks the tensor-core and INT8 split forms aim at (two per SM of an H200)">,
    Option<"decodeTcMinKeys", "decode-tc-min-keys", "int64_t", /*default=*/"256",
           "Fewest keys per split of the tensor-core and INT8 split forms">,
    Option<"tensorCores", "tensor-cores", "bool", /*default=*/"true",
           "Use the tensor-core kernel for bf16/f16 attention where it applies">,
    Option<"maxSharedBytes", "max-shared-bytes", "int64_t", /*default=*/"49152",
           "Shared memory a block may use on the target, in bytes (49152, the static limit, "
           "to 232448, sm_90's): SIMT tiles over 48 KiB live in dynamic shared memory up to "
           "this (decoda-lower-to-cuda sets the arch's opt-in limit)">,
    Option<"wgmma", "wgmma", "bool", /*default=*/"false",
           "sm_90a: the tensor-core kernel on warpgroup MMA (wgmma.mma_async; head dims that "
           "are multiples of 16 up to 256, dynamic shared memory in the 128-byte swizzle)">,
    Option<"wgmmaRows", "wgmma-rows", "int64_t", /*default=*/"64",
           "With wgmma: rows per block of the one-pass kernel, 64 (one warpgroup, the "
           "default) or 128 (two warpgroups sharing each K/V tile); the split form keeps 64">,
    Option<"wgmmaKeys", "wgmma-keys", "int64_t", /*default=*/"64",
           "With wgmma: keys per K/V tile, 64 (the default) or 128 (S as m64n128k16: half "
           "the tiles, each with twice the tensor-core work for the same fixed cost)">,
    Option<"wgmmaTma", "wgmma-tma", "bool", /*default=*/"false",
           "With wgmma: the one-pass kernel's K/V tiles loaded by TMA (3-D tensor maps encoded "
           "on the host) from a producer warp, each stage handed over by full/empty mbarriers "
           "instead of the block barrier per tile (FlashAttention-3's producer)">,
    Option<"wgmmaPingPong", "wgmma-pingpong", "bool", /*default=*/"true",
           "With wgmma-tma and wgmma-rows=128: the two consumer warpgroups take turns at the "
           "tensor cores (FlashAttention-3's ping-pong: each issues its wgmma after the other's, "
           "on two named barriers, so one's softmax runs under the other's matrix products)">,
    Option<"report", "report", "bool", /*default=*/"false",
           "Remark on every attention given the SIMT kernel instead of the tensor-core one "
           "(with wgmma, both kernels' reasons; and when a wgmma call keeps 64 rows or keys, "
           "or cp.async instead of TMA)">
  ];
  let statistics = [
    Statistic<"numKernels", "num-kernels", "attention functions given a flash-attention kernel">,
    Statistic<"numTensorCore", "num-tensor-core", "of those, given the tensor-core kernel">,
    Statistic<"numWgmma", "num-wgmma", "of those, its wgmma (sm_90a) form">,
    Statistic<"numInt8", "num-int8", "of those, INT8 attention (integer tensor cores)">,
    Statistic<"numSplit", "num-split", "of those, decode steps with the keys split over blocks">,
    Statistic<"numLeft", "num-left", "attention functions left to the target-neutral body">,
    Statistic<"numForwarded", "num-forwarded",
              "Q/K/V operands read through the strided or transposed view they were copied from instead of the copy">
  ];
}

def GPURowNormPass : Pass<"decoda-gpu-row-norm", "ModuleOp"> {
  let summary = "Replace the body of every decoda.gpu_norm function by one kernel: a block per "
                "row, the reduction with warp shuffles and shared memory, the residual add and "
                "the scaling in the same kernel";
  let description = [{
    Runs after bufferization on the private functions that `decoda-convert-to-linalg
    {gpu-kernel-calls}` made of each `decoda.rms_norm`, `layer_norm`, `add_rms_norm` and
    `add_layer_norm` (`decoda.gpu_norm` dictionary). Each body becomes one `gpu.launch` over
    the rows ([R, D] views of the row-major buffers): a block of T = clamp(32 ceil(D / 256),
    32, 1024) threads per row, each thread keeping its features in registers as chunks of V
    consecutive ones (V: 16 bytes of the storage type, halved until it divides D; one vector
    load or store per chunk, chunk `tid + i T`), every load of a thread (row, weight, bias)
    issued before its first store; the add forms compute and store the rounded sum
    `residual + scale * branch` first and normalise that; the row sums (one for RMSNorm, two for LayerNorm: the mean, then the
    centred variance, as the op definitions) are a butterfly of `gpu.shuffle xor` per warp,
    then one partial per warp through shared memory and a barrier; the scaling by
    `weight (+ weight_offset)` and the bias are in the same pass, rounded to the storage type.
    Supported: f32/f16/bf16 rows with a static D of at most 16384 features; anything else
    keeps the target-neutral body (linalg on buffers, inlined back) with a remark.
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect", "::mlir::scf::SCFDialect",
                           "::mlir::vector::VectorDialect",
                           "::mlir::memref::MemRefDialect", "::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect"];
  let statistics = [
    Statistic<"numKernels", "num-kernels", "norm functions given a row kernel">,
    Statistic<"numLeft", "num-left", "norm functions left to the target-neutral body">
  ];
}

def GPURopePass : Pass<"decoda-gpu-rope", "func::FuncOp"> {
  let summary = "Replace each decoda.rope (its cos/sin table and rotation generics) by one "
                "kernel: the block's table in shared memory, pairs rotated as 16-byte vectors";
  let description = [{
    Runs after bufferization on the generics that `decoda-convert-to-linalg
    {gpu-kernel-calls}` made of each `decoda.rope`: the cos/sin table (`decoda.rope_table`)
    and the rotation over [B, T, H, D] (`decoda.rope_apply`, reading the table and the pair
    partners with memref.load). Each rotation becomes one `gpu.launch` of 256 threads over a
    1-D grid of B ceil(T / P) blocks, P tokens a block (P = max(1, 256 / work items of a
    token), fewer if the table would pass 32 KiB):

      phase 1: for the block's tokens and each pair k < r/2: angle = f32(position) inv_freq[k],
               cos/sin (times YaRN's attention factor) into shared memory; one barrier
      phase 2: work item (token, head, chunk): half_split takes V pairs (x[k0..], x[k0+r/2..])
               as two V-element loads and stores; interleaved V features (V/2 adjacent pairs,
               partners by vector shuffles); features past rotary_dim copied V at a time

    V: 16 bytes of the storage type, halved until it divides r/2 (half_split) or r
    (interleaved, at least 2) and D - r. The f32 arithmetic is the linalg lowering's, op for
    op, so the results are bit-identical to it; the table is computed once per block instead
    of in a kernel of its own, and the q and k rotations (one block shape) merge into one
    launch (decoda-gpu-merge-launches). Vector accesses need the views' offsets and outer
    strides to be multiples of V (checked on the host; otherwise each chunk is accessed element
    by element, a uniform branch). The output may be any view with a unit inner stride (a
    decode step's K written straight into the cache). The table generic is erased once no
    rotation reads it. A tagged generic whose structure changed since lowering (inputs,
    maps, body op count: something fused into it), or with dynamic H / D or another storage
    type than f32/f16/bf16, is left to the generic lowering with a remark.
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect", "::mlir::scf::SCFDialect",
                           "::mlir::vector::VectorDialect",
                           "::mlir::memref::MemRefDialect", "::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect"];
  let statistics = [
    Statistic<"numKernels", "num-kernels", "rotations given a rope kernel">,
    Statistic<"numTables", "num-tables", "cos/sin tables erased">,
    Statistic<"numLeft", "num-left", "tagged rotations left to the generic lowering">
  ];
}

def GPUSplitZeroPointPass : Pass<"decoda-gpu-split-zero-point", "func::FuncOp"> {
  let summary = "Split the activation zero point out of every INT8 contraction: Σ (x - zp) w = "
                "Σ x w - zp Σ w, so the contraction maps to s8 tensor cores / dp4a";
  let description = [{
    Runs on tensors, after `decoda-convert-to-linalg` and before `decoda-fuse-elementwise`, on
    the `decoda.qlinear_acc` contractions that carry an activation zero point (three inputs
    x [lead..., K] i8, w [N, K] i8, zp (rank 0 or per token) i8; body
    `out + (extsi(x) - extsi(zp)) * extsi(w)` in i32). Each becomes

      acc0[lead..., n] = Σ_k extsi(x) extsi(w)      (decoda.qlinear_acc, two inputs)
      colsum[n] = Σ_k extsi(w[n, k])                (a constant when w is one: folded here)
      acc[lead..., n] = acc0 - extsi(zp) * colsum[n]

    and the correction, elementwise over (lead..., n), joins the dequantising epilogue in
    `decoda-fuse-elementwise`, so the tensor-core and GEMV kernels compute it in their stores.
    In wrapping i32 arithmetic the two forms are equal bit for bit (a ring identity), overflow
    or not. A run-time weight gets its column sums from one reduction per call (an extra read
    of w). Contractions whose body is not that form are left as they are.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect", "::mlir::arith::ArithDialect",
                           "::mlir::tensor::TensorDialect"];
  let statistics = [
    Statistic<"numSplit", "num-split", "INT8 contractions with the zero point split out">,
    Statistic<"numFolded", "num-folded", "of those, column sums folded from a constant weight">
  ];
}

#endif // DECODA_TRANSFORMS_GPUPASSES_TD
