// The mma.sync kernels (--gpu-attention-wgmma=false; the default wgmma form on sm_90a:
// flash-attention-wgmma-ptx.mlir) of the bench's attention (bf16, causal GQA 32 over 8 heads,
// head dim 128; bench/gpu_check.sh times it at T = 4096) with its dynamic T is five kernels: flash decoding's split kernel and
// combine (SIMT, taken at run time when the rows of a K/V head fit its block, T <= 4), the
// tensor-core kernel's split form and its combine (5 <= T <= 16: 17 to 64 rows, with more
// than one split) and the one-pass tensor-core flash-attention kernel (T = 4096): two stages of
// 32-key K and V tiles
// (2 x 32 x 136 bf16 each, 34 KiB, 16-byte aligned), Q and the tiles copied with cp.async,
// Q·Kᵀ and P·V on mma.sync m16n8k16 with ldmatrix (V with .trans), quad butterflies for the
// row max and sum. The split form is the same loop (the same counts) over its share of the
// keys, ending in f32 stores of m, l and the unnormalised accumulators (68 st.global.b32: 64
// accumulators and m, l of two rows) instead of the normalised bf16 outputs (64
// st.global.b16). ptxas for sm_90a assembles each without spills.
// REQUIRES: cuda-toolkit
// RUN: rm -rf %t && mkdir -p %t
// RUN: decoda-compile %decoda_src/bench/gpu/attention_d128.mlir --target=cuda --gpu-arch=sm_90a --gpu-attention-wgmma=false --emit=ptx -o %t/a.ptx
// RUN: %PYTHON -c "import re; t = open('%t/a.ptx').read(); p = re.split(r'(?m)^// gpu.binary @(\S+)\n', t); [open('%t/' + n + '.ptx', 'w').write(b) for n, b in zip(p[1::2], p[2::2])]; print(' '.join(p[1::2]))" | FileCheck %s --check-prefix=NAMES
// NAMES: attention_d128_kernel attention_d128_kernel_0 attention_d128_kernel_1 attention_d128_kernel_2 attention_d128_kernel_3{{$}}
// RUN: FileCheck %s --check-prefix=SPLIT --input-file=%t/attention_d128_kernel.ptx
// RUN: FileCheck %s --input-file=%t/attention_d128_kernel_3.ptx
// RUN: FileCheck %s --check-prefix=TILE --input-file=%t/attention_d128_kernel_3.ptx
// RUN: FileCheck %s --check-prefix=TCSPLIT --input-file=%t/attention_d128_kernel_1.ptx
// RUN: %ptxas -arch=sm_90a -v %t/attention_d128_kernel.ptx -o %t/s.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS-SPLIT
// RUN: %ptxas -arch=sm_90a -v %t/attention_d128_kernel_0.ptx -o %t/c.cubin 2>&1 | FileCheck %s --check-prefix=COMBINE
// RUN: %ptxas -arch=sm_90a -v %t/attention_d128_kernel_1.ptx -o %t/t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: %ptxas -arch=sm_90a -v %t/attention_d128_kernel_2.ptx -o %t/c2.cubin 2>&1 | FileCheck %s --check-prefix=COMBINE
// RUN: %ptxas -arch=sm_90a -v %t/attention_d128_kernel_3.ptx -o %t/o.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// SPLIT: .shared .align 16 .b8 __wg_attention_d128_kernel_0[8192];
// SPLIT: shfl.sync.idx.b32
// SPLIT-NOT: mma.sync
// The SIMT kernel stages K/V tiles by 16-byte loads (ld.global.v4.b32: 8 bf16; K and V 32 x 128
// each, 512 chunks, 4 a thread each): the first tile's 8 before Q's staging (16 x 128 elements
// in 2 groups of 8 scalar loads issued before their stores), the next tile's 8 in the loop after
// the current tile's stores and barrier (prefetch: they are waited on only at the next
// iteration's stores). So 16 global loads before the first shared store run (the first tile's 8
// and Q's first group), 8 before the second (Q's second group), and 16 ld.global.v4 in all;
// the scalar loads are Q's only.
// RUN: %PYTHON -c "import re; t = open('%t/attention_d128_kernel.ptx').read(); runs = []; cur = 0; exec('for l in t.splitlines():\n if \'ld.global\' in l: cur += 1\n elif \'st.shared\' in l:\n  runs += [cur] if cur else []\n  cur = 0'); print('global loads before each shared store run:', *runs)" | FileCheck %s --check-prefix=STAGE
// STAGE: global loads before each shared store run: 16 8{{$}}
// RUN: %PYTHON -c "t = open('%t/attention_d128_kernel.ptx').read(); print('v4', t.count('ld.global.v4.b32'), 'b16', t.count('ld.global.b16'))" | FileCheck %s --check-prefix=WIDE
// WIDE: v4 16 b16 16{{$}}
// TCSPLIT: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// TCSPLIT: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// TCSPLIT-NOT: st.global.b16
// TCSPLIT: st.global.b32
// CHECK: .maxntid 128, 1, 1
// CHECK: .shared .align 16 .b8 __wg_attention_d128_kernel_3_0[17408];
// CHECK: .shared .align 16 .b8 __wg_attention_d128_kernel_3_1[17408];
// CHECK: cp.async.cg.shared.global [%rd{{[0-9]+}}], [%rd{{[0-9]+}}], 16, %r{{[0-9]+}};
// CHECK: cp.async.commit_group;
// CHECK: cp.async.wait_group 0;
// CHECK: bar.sync 0;
// CHECK: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// CHECK: bar.sync 0;
// CHECK: cp.async.wait_group 1;
// CHECK: bar.sync 0;
// The tile's compute: S on mma.sync, the quad butterflies, the exponentials, P rounded, V with
// ldmatrix .trans, P·V; their order in the text is LLVM's block layout (the logits of a tile
// every row sees whole and of one that needs the mask are two branches: tileUnmasked), COUNT
// below pins how many of each (the TILE prefix: anywhere in the kernel).
// TILE-DAG: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// TILE-DAG: shfl.sync.bfly.b32 {{.*}}, 2, 31, -1;
// TILE-DAG: shfl.sync.bfly.b32 {{.*}}, 1, 31, -1;
// TILE-DAG: ex2.approx
// TILE-DAG: cvt.rn.bf16x2.f32
// TILE-DAG: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// (The barrier that ends a tile is in the loop latch, which LLVM lays out before the tile's
// compute, skipped by a warp without rows: COUNT below has the four barriers.)
// CHECK: st.global.b16
// Static counts of the tensor-core kernel (the loop body is one K/V tile of 32 keys): Q 8
// ldmatrix.x4 (D / 16 A fragments) once; per tile S = Q·Kᵀ 8 k-slices x 2 key pairs = 16
// ldmatrix.x4 and 32 mma, P·V 2 key slices x 8 dv pairs = 16 ldmatrix.x4.trans and 32 mma;
// cp.async per thread: Q 8, K + V 4 + 4 in the first tile's copy and again in the prefetch.
// RUN: %PYTHON -c "import re; [print(k, 'mma.sync', t.count('mma.sync.aligned.m16n8k16'), 'ldmatrix.x4', t.count('ldmatrix.sync.aligned.m8n8.x4.shared'), 'ldmatrix.x4.trans', t.count('ldmatrix.sync.aligned.m8n8.x4.trans'), 'cp.async', t.count('cp.async.cg.shared.global'), 'bar.sync', t.count('bar.sync'), 'st.global.b16', t.count('st.global.b16'), 'st.global.b32', t.count('st.global.b32')) for k in ('_3', '_1') for t in [open('%t/attention_d128_kernel' + k + '.ptx').read()]]" | FileCheck %s --check-prefix=COUNT
// COUNT: _3 mma.sync 64 ldmatrix.x4 24 ldmatrix.x4.trans 16 cp.async 24 bar.sync 4 st.global.b16 64 st.global.b32 0
// COUNT: _1 mma.sync 64 ldmatrix.x4 24 ldmatrix.x4.trans 16 cp.async 24 bar.sync 4 st.global.b16 0 st.global.b32 68
// PTXAS-SPLIT: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS-SPLIT: Used {{[0-9]+}} registers, used 1 barriers, 41216 bytes smem
// COMBINE: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// COMBINE: Used {{[0-9]+}} registers, used 0 barriers
// PTXAS: Compiling entry function 'attention_d128_kernel_{{[13]}}' for 'sm_90a'
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS: Used {{[0-9]+}} registers, used 1 barriers, 34816 bytes smem
