// The bench's decode step (bench/gpu/decode_attention_d128.mlir: bf16 cached attention, GQA 32
// over 8 heads of 128, one token, a 4096-entry cache) for sm_90a: the cache append, the SIMT
// split kernel and the combine. The split kernel stages K/V in 16-byte chunks: 32 keys x 128
// bf16 of K and of V are 512 chunks each, 4 a thread each, so 8 ld.global.v4.b32 for the first
// tile (before the loop) and 8 for the next tile's prefetch in the loop: 16 in all, and the
// scalar 2-byte loads are Q's only (16 x 128 elements, 16 a thread, of which the 4 of the 4
// existing rows remain: the row count is static). P·V broadcasts P by 16 shfl.sync.idx (4 keys
// a step of its loop unrolled by 4, 4 rows).
// The combine reads 8 splits a step: 8 maxima in the first loop, 8 maxima, sums and
// accumulators in the second (32 ld.global.b32). ptxas assembles both without spills.
// REQUIRES: cuda-toolkit
// RUN: rm -rf %t && mkdir -p %t
// RUN: decoda-compile %decoda_src/bench/gpu/decode_attention_d128.mlir --target=cuda --gpu-arch=sm_90a --emit=ptx -o %t/a.ptx
// RUN: %PYTHON -c "import re; t = open('%t/a.ptx').read(); p = re.split(r'(?m)^// gpu.binary @(\S+)\n', t); [open('%t/' + n + '.ptx', 'w').write(b) for n, b in zip(p[1::2], p[2::2])]; print(' '.join(p[1::2]))" | FileCheck %s --check-prefix=NAMES
// NAMES: decode_attention_d128_kernel decode_attention_d128_kernel_0 decode_attention_d128_kernel_1{{$}}
// RUN: %PYTHON -c "t = [open('%t/decode_attention_d128_kernel_%%d.ptx' %% i).read() for i in (0, 1)]; print(*[(x.count('ld.global.v4.b32'), x.count('ld.global.b16'), x.count('ld.global.b32'), x.count('shfl.sync.idx')) for x in t])" | FileCheck %s --check-prefix=LOADS
// LOADS: (16, 4, 0, 16) (0, 0, 32, 0){{$}}
// RUN: %ptxas -arch=sm_90a -v %t/decode_attention_d128_kernel_0.ptx -o %t/s.cubin 2>&1 | FileCheck %s --check-prefix=SPLIT
// RUN: %ptxas -arch=sm_90a -v %t/decode_attention_d128_kernel_1.ptx -o %t/c.cubin 2>&1 | FileCheck %s --check-prefix=COMBINE
// SPLIT: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// SPLIT: Used {{[0-9]+}} registers, used 1 barriers, 41216 bytes smem
// COMBINE: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// COMBINE: Used {{[0-9]+}} registers, used 0 barriers
