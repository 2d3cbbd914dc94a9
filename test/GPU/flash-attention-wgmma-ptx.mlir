// The sm_90a wgmma form of the tensor-core attention kernel (the default of decoda-lower-to-cuda
// for sm_90a, head dims 64 and 128) on the bench's attention (bf16, causal GQA 32 over 8 heads,
// head dim 128; bench/gpu_check.sh times it at T = 4096). With its dynamic T the module has the
// same five kernels as with mma.sync (flash-attention-ptx.mlir): flash decoding's SIMT split
// kernel and combine, this kernel's split form (_1) and combine, and the one-pass kernel (_3);
// each kernel carries its module's name (decoda-gpu-name-kernels).
// The one-pass kernel with --gpu-attention-rows=128 (the default is 64, below): 256 threads (two
// warpgroups of 64 rows sharing each K/V tile), the split
// form 128 (its 64 rows); no static shared memory but the dynamic Q tile and two stages of
// 64-key K and V tiles (one-pass: 32 + 2 x (16 + 16) KiB + 1 KiB of alignment, passed at
// launch), filled by cp.async in 16-byte chunks, one fence.proxy.async before the barrier that
// publishes a tile to wgmma. Per tile, one inline-asm block issues S = Q·Kᵀ as 8 wgmma
// m64n64k16 (k slices of 16 of D = 128) with both operands from shared descriptors (K-major:
// imm-trans 0, 0), the first not accumulating (scale-d false), a commit, then O += P·V of the
// tile before as 4 wgmma m64n128k16 with A from registers ({4 registers}) and V MN-major
// (imm-trans-b 1), a commit: the softmax of a tile runs while the tensor cores do P·V of the
// one before (FlashAttention-3's overlap): wait_group 1, the softmax, wait_group 0, P rounded.
// No ldmatrix, no mma.sync. ptxas: no spills, no warpgroup.arrive injected and no wgmma
// serialised (no instruction writes a register an issued wgmma reads before its wait: the
// block takes its operands before its wgmma.fence, P is rounded after the wait for the P·V
// that reads the previous one).
// REQUIRES: cuda-toolkit
// RUN: rm -rf %t && mkdir -p %t
// RUN: decoda-compile %decoda_src/bench/gpu/attention_d128.mlir --target=cuda --gpu-arch=sm_90a --gpu-attention-rows=128 --emit=ptx -o %t/a.ptx
// RUN: %PYTHON -c "import re; t = open('%t/a.ptx').read(); p = re.split(r'(?m)^// gpu.binary @(\S+)\n', t); [open('%t/' + n + '.ptx', 'w').write(b) for n, b in zip(p[1::2], p[2::2])]; print(' '.join(p[1::2]))" | FileCheck %s --check-prefix=NAMES
// NAMES: attention_d128_kernel attention_d128_kernel_0 attention_d128_kernel_1 attention_d128_kernel_2 attention_d128_kernel_3{{$}}
// RUN: FileCheck %s --check-prefixes=CHECK,ONEPASS --input-file=%t/attention_d128_kernel_3.ptx
// RUN: FileCheck %s --check-prefixes=CHECK,SPLIT --input-file=%t/attention_d128_kernel_1.ptx
// The wgmma blocks (Inputs/wgmma_blocks.py: each block's instructions, then its waits and
// where the exponentials and P's roundings fall), wherever the blocks are laid out:
// RUN: %PYTHON %S/Inputs/wgmma_blocks.py %t/attention_d128_kernel_3.ptx | FileCheck %s --check-prefix=BLOCKS
// RUN: %PYTHON %S/Inputs/wgmma_blocks.py %t/attention_d128_kernel_1.ptx | FileCheck %s --check-prefix=BLOCKS
// ONEPASS: .entry attention_d128_kernel_3(
// ONEPASS: .maxntid 256, 1, 1
// SPLIT: .entry attention_d128_kernel_1(
// SPLIT: .maxntid 128, 1, 1
// CHECK: .shared .align 16 .b8 __dynamic_shmem__0;
// CHECK: cp.async.cg.shared.global [%rd{{[0-9]+}}], [%rd{{[0-9]+}}], 16, %r{{[0-9]+}};
// CHECK: fence.proxy.async.shared::cta;
// CHECK-NEXT: bar.sync 0;
// The first tile: S alone.
// CHECK: wgmma.fence.sync.aligned;
// CHECK-NEXT: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {{{(%r[0-9]+, ){31}%r[0-9]+}}}, %rd{{[0-9]+}}, %rd{{[0-9]+}}, scale0, 1, 1, 0, 0;
// CHECK-NEXT: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {{{(%r[0-9]+, ){31}%r[0-9]+}}}, %rd{{[0-9]+}}, %rd{{[0-9]+}}, scale1, 1, 1, 0, 0;
// CHECK: wgmma.commit_group.sync.aligned;
// CHECK: wgmma.wait_group.sync.aligned 0;
// CHECK: ex2.approx
// CHECK: cvt.rn.bf16x2.f32
// The first tile: S alone, waited for, its softmax and P. The loop: S of this tile, then P·V
// of the one before, in one block; the softmax between the two waits, P rounded after the
// second. The last tile: P·V alone. The loop's logits are two branches (a tile every row sees
// whole, one that needs the mask: tileUnmasked), and LLVM lays the rest of the loop body (the
// softmax, the wait for P·V, P's rounding) out after the first tile's code: the text after the
// loop's block ends at its wait 1, and the first tile's line continues with the loop's
// "ex2 wait 0 cvt" (the order within the loop holds: ptxas below reports no serialisation).
// BLOCKS-DAG: {{^}}fence Sx8 commit | wait 0 ex2 cvt ex2 wait 0 cvt{{$}}
// BLOCKS-DAG: {{^}}fence Sx8 commit PVx4 commit | wait 1{{$}}
// BLOCKS-DAG: {{^}}fence PVx4 commit | wait 0{{$}}
// BLOCKS-NOT: fence
// Static counts: wgmma S 8 in the first tile's block and 8 in the loop's, P·V 4 in the loop's
// and 4 in the last one's; three blocks (fence each), four groups (commit each), waits: the
// first tile's, the loop's two, the last one's; three barriers (first tile, loop, last P·V),
// each after one fence.proxy.async. cp.async per thread: the one-pass kernel's 256 threads Q
// 128 rows x 16 chunks / 256 = 8, a K or V tile 64 x 16 / 256 = 4, copied K_0 before the first
// tile, K_1 + V_0 in it, K_{t+1} + V_t in the loop, each tile's copies in two forms (a whole
// tile below the key count without bounds: `16, 16` from one address plus immediate offsets;
// else each copy's source size 16 or 0): 8 + 2 (4 + 8 + 8) = 48, of them 20 unbounded; the
// split form's 128 threads twice as many per tile and its 64 rows of Q 8: 8 + 2 (8 + 16 + 16)
// = 88, 40 unbounded. The one-pass
// kernel stores 64 bf16 outputs per thread (two rows x 32 columns), the split form 68 f32
// partials (64 accumulators, m and l of two rows).
// RUN: %PYTHON -c "[print(k, 'wgmma.n64', t.count('wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16'), 'wgmma.n128', t.count('wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16'), 'regA', t.count('scale1, 1, 1, 1;'), 'fence', t.count('wgmma.fence'), 'commit', t.count('wgmma.commit_group'), 'wait', t.count('wgmma.wait_group'), 'cp.async', t.count('cp.async.cg.shared.global'), 'whole', t.count(', 16, 16;'), 'proxy', t.count('fence.proxy.async'), 'bar.sync', t.count('bar.sync'), 'ldmatrix', t.count('ldmatrix'), 'mma.sync', t.count('mma.sync'), 'st.global.b16', t.count('st.global.b16'), 'st.global.b32', t.count('st.global.b32')) for k in ('_3', '_1') for t in [open('%t/attention_d128_kernel' + k + '.ptx').read()]]" | FileCheck %s --check-prefix=COUNT
// COUNT: _3 wgmma.n64 16 wgmma.n128 8 regA 8 fence 3 commit 4 wait 4 cp.async 48 whole 20 proxy 3 bar.sync 3 ldmatrix 0 mma.sync 0 st.global.b16 64 st.global.b32 0
// COUNT: _1 wgmma.n64 16 wgmma.n128 8 regA 8 fence 3 commit 4 wait 4 cp.async 88 whole 40 proxy 3 bar.sync 3 ldmatrix 0 mma.sync 0 st.global.b16 0 st.global.b32 68
// RUN: %ptxas -arch=sm_90a -v %t/attention_d128_kernel_3.ptx -o %t/o.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS --implicit-check-not=serialized --implicit-check-not="warpgroup.arrive is injected"
// RUN: %ptxas -arch=sm_90a -v %t/attention_d128_kernel_1.ptx -o %t/t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS --implicit-check-not=serialized --implicit-check-not="warpgroup.arrive is injected"
// PTXAS: Compiling entry function 'attention_d128_kernel_{{[13]}}' for 'sm_90a'
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS-NEXT: Used {{[0-9]+}} registers, used 1 barriers
//
// The 64-row one-pass kernel (--gpu-attention-rows=64, the default): 128 threads, Q 16 KiB, its cp.async
// per thread Q 8 and K/V 8 each, in two forms: 8 + 2 (8 + 16 + 16) = 88; the same ptxas checks.
// RUN: decoda-compile %decoda_src/bench/gpu/attention_d128.mlir --target=cuda --gpu-arch=sm_90a --gpu-attention-rows=64 --emit=ptx -o %t/n.ptx
// RUN: %PYTHON -c "import re; t = open('%t/n.ptx').read(); p = re.split(r'(?m)^// gpu.binary @(\S+)\n', t); [open('%t/n' + n + '.ptx', 'w').write(b) for n, b in zip(p[1::2], p[2::2])]"
// RUN: %PYTHON -c "t = open('%t/nattention_d128_kernel_3.ptx').read(); print('maxntid', t.split('.maxntid ')[1].split(',')[0], 'cp.async', t.count('cp.async.cg.shared.global'))" | FileCheck %s --check-prefix=ROWS64
// ROWS64: maxntid 128 cp.async 88
// RUN: %ptxas -arch=sm_90a -v %t/nattention_d128_kernel_3.ptx -o %t/n.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS --implicit-check-not=serialized --implicit-check-not="warpgroup.arrive is injected"
//
// Head dims held as padded 64-column blocks (flash-attention-wgmma-headdims.mlir): Gemma's 256
// (O's 128 accumulators a thread; S 16 k slices) and Phi-3's 96 (6 k slices, 12 chunks a row
// copied by 16 lanes, a quarter idle, so that each thread's rows are one address plus
// immediate offsets) in the default build and with 128 rows and 128 keys (which 256 keeps at
// 64): every wgmma kernel (the split form and the one-pass one) without spills or serialised
// wgmma.
// RUN: decoda-compile %decoda_src/bench/gpu/attention_d256.mlir --target=cuda --gpu-arch=sm_90a --emit=ptx -o %t/d256.ptx
// RUN: decoda-compile %decoda_src/bench/gpu/attention_d256.mlir --target=cuda --gpu-arch=sm_90a --gpu-attention-rows=128 --gpu-attention-keys=128 --emit=ptx -o %t/d256w.ptx
// RUN: decoda-compile %decoda_src/bench/gpu/attention_d96.mlir --target=cuda --gpu-arch=sm_90a --emit=ptx -o %t/d96.ptx
// RUN: decoda-compile %decoda_src/bench/gpu/attention_d96.mlir --target=cuda --gpu-arch=sm_90a --gpu-attention-rows=128 --gpu-attention-keys=128 --emit=ptx -o %t/d96w.ptx
// RUN: %PYTHON -c "import re; [open('%t/' + f + '-' + n + '.ptx', 'w').write(b) for f in ('d256', 'd256w', 'd96', 'd96w') for t in [open('%t/' + f + '.ptx').read()] for p in [re.split(r'(?m)^// gpu.binary @(\S+)\n', t)] for n, b in zip(p[1::2], p[2::2]) if 'wgmma.mma_async' in b]"
// RUN: ls %t | grep -c -- '^d[0-9]*w\?-attention_d[0-9]*_kernel.*[.]ptx$' | FileCheck %s --check-prefix=HDKERNELS
// HDKERNELS: 8
// RUN: for f in %t/d256-*.ptx %t/d256w-*.ptx %t/d96-*.ptx %t/d96w-*.ptx; do %ptxas -arch=sm_90a -v $f -o %t/hd.cubin 2>&1; done | FileCheck %s --check-prefix=HDPTXAS --implicit-check-not=serialized --implicit-check-not="warpgroup.arrive is injected"
// HDPTXAS-COUNT-8: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// RUN: %PYTHON -c "t = open('%t/d96w.ptx').read(); print('S', t.count('m64n128k16.f32.bf16.bf16 {'), 'n64', t.count('m64n64k16'))" | FileCheck %s --check-prefix=HD96
// Two kernels (split form, one-pass), each S of 6 k slices in two blocks and P·V of 8 slices
// in two, all m64n128k16: 2 x (12 + 16) = 56.
// HD96: S 56 n64 0
