// The PTX interpreter's sm_90a TMA path (Inputs/ptxsim.py): hand-written NVVM kernels, lowered by
// LLVM (mlir-opt, mlir-translate, llc), run by Inputs/ptxsim_tma_check.py against NumPy.
//  @tile: thread 0 inits an mbarrier (count 1) in dynamic shared memory (.extern, placed by the
//  simulator 16 bytes past a 1024-byte boundary: the kernel aligns its buffer at run time),
//  arrive.expect_tx + one cp.async.bulk.tensor.2d of a 64 x 32 bf16 box, every thread waits
//  (try_wait.parity) and copies the shared bytes as they lie to global memory: the box with its
//  out-of-bounds elements zero, 16-byte chunks at their 128B-swizzled addresses (or unswizzled).
//  @wgmma_tma: TMA loads A and B (64 x 64 bf16, 128B swizzle), four wgmma.m64n64k16 with
//  128B-swizzle descriptors (SBO 1024, start + 32 j), the accumulators stored per thread:
//  A @ B^T through the fragment layout. @pipe: a multi-stage pipeline (below). @tile3: @tile's
//  3-D form (below).
// Injected bugs, each reported: the wait removed (a read before the mbarrier phase is waited
// for, by ld.shared and by wgmma), the arrive.expect_tx removed (deadlock), the wrong parity
// (deadlock), a destination 128 bytes past the 1024-byte boundary with swizzle 128, the
// descriptors' swizzle mode left at 0 (wrong values), a TMA refilling A while the wgmma reading
// it is in flight, fewer expected transaction bytes than the copies bring, a tensor map whose
// 128-element box exceeds the 128-byte swizzle span, no mbarrier.init, a misaligned mbarrier.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %mlir_opt --convert-nvvm-to-llvm %s | %mlir_translate --mlir-to-llvmir | %llc -march=nvptx64 -mcpu=sm_90a -mattr=+ptx80 -o %t/k.ptx
// RUN: %PYTHON %S/Inputs/ptxsim_tma_check.py %t/k.ptx tile-swz128 | FileCheck %s --check-prefix=SWZ
// SWZ: box (0, 0) swizzle 128: ok (4096 bytes)
// SWZ-NEXT: box (48, 20) swizzle 128: ok
// SWZ-NEXT: box (-16, -3) swizzle 128: ok
// SWZ-NEXT: box (36, 8) swizzle 128: ok
// RUN: %PYTHON %S/Inputs/ptxsim_tma_check.py %t/k.ptx tile-none | FileCheck %s --check-prefix=NONE
// NONE: box (0, 0) swizzle 0: ok (4096 bytes)
// NONE-NEXT: box (48, 20) swizzle 0: ok
// NONE-NEXT: box (-16, -3) swizzle 0: ok
// NONE-NEXT: box (36, 8) swizzle 0: ok
// RUN: %PYTHON %S/Inputs/ptxsim_tma_check.py %t/k.ptx wgmma | FileCheck %s --check-prefix=WG
// WG: wgmma: ok (64 x 64, max abs error {{.*}}; cp 2, wgmma 7, tma bytes 16384)
// RUN: grep -v 'mbarrier.try_wait\|bra.uni.*LAB_WAIT' %t/k.ptx > %t/early.ptx
// RUN: not %PYTHON %S/Inputs/ptxsim_tma_check.py %t/early.ptx tile-swz128 | FileCheck %s --check-prefix=EARLY
// EARLY: error: ld.shared.b32: thread 0 reads shared bytes at 1024 written by the TMA copy (cp.async.bulk.tensor) of thread 0: read before the mbarrier phase that completes its TMA copy was waited for (mbarrier at 24, phase 0)
// RUN: not %PYTHON %S/Inputs/ptxsim_tma_check.py %t/early.ptx wgmma | FileCheck %s --check-prefix=EARLYWG
// EARLYWG: error: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16: warpgroup 0 reads shared bytes at 1024 written by the TMA copy (cp.async.bulk.tensor) of thread 0: read before the mbarrier phase that completes its TMA copy was waited for
// RUN: grep -v 'mbarrier.arrive.expect_tx' %t/k.ptx > %t/noexpect.ptx
// RUN: not %PYTHON %S/Inputs/ptxsim_tma_check.py %t/noexpect.ptx tile-swz128 | FileCheck %s --check-prefix=NOEXPECT
// NOEXPECT: error: mbarrier.try_wait.parity: deadlock: every live thread waits on an mbarrier (thread 0 on the mbarrier at shared offset 24 for the phase of parity 0; its phase 0 has 1 arrivals and -4096 transaction bytes pending and nothing else can run)
// RUN: not %PYTHON %S/Inputs/ptxsim_tma_check.py %t/k.ptx tile-swz128 --bug parity1 | FileCheck %s --check-prefix=PARITY
// PARITY: error: mbarrier.try_wait.parity: deadlock: every live thread waits on an mbarrier (thread 0 on the mbarrier at shared offset 24 for the phase of parity 1; its phase 1 has 1 arrivals and 0 transaction bytes pending and nothing else can run)
// RUN: not %PYTHON %S/Inputs/ptxsim_tma_check.py %t/k.ptx tile-swz128 --bug misaligned | FileCheck %s --check-prefix=ALIGN
// ALIGN: error: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes: destination at shared offset 1152 is not 1024-byte aligned (the 128-byte swizzle pattern would not match what wgmma expects)
// RUN: not %PYTHON %S/Inputs/ptxsim_tma_check.py %t/k.ptx wgmma --bug noswizzle | FileCheck %s --check-prefix=NOSWZ
// NOSWZ: wgmma: MISMATCH at
// RUN: not %PYTHON %S/Inputs/ptxsim_tma_check.py %t/k.ptx wgmma --bug refill | FileCheck %s --check-prefix=REFILL
// REFILL: error: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes: shared memory read by an in-flight wgmma.mma_async was overwritten (or has a copy pending into it) before the wgmma.wait_group that completes it
// The same refill after a wgmma.wait_group 0 but with no bar.sync: a write-after-read race with
// the wgmma's reads (the warpgroup's other threads).
// RUN: awk '/wgmma.wait_group.sync.aligned/{next} {print} /wgmma.commit_group.sync.aligned;/{print "\twgmma.wait_group.sync.aligned \t0;"}' %t/k.ptx > %t/war.ptx
// RUN: %PYTHON %S/Inputs/ptxsim_tma_check.py %t/war.ptx wgmma | FileCheck %s --check-prefix=WG
// RUN: not %PYTHON %S/Inputs/ptxsim_tma_check.py %t/war.ptx wgmma --bug refill | FileCheck %s --check-prefix=WAR
// WAR: error: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes: shared race: thread 0 writes bytes at 1024 read by another thread since the last barrier
// RUN: sed "s/, 16384;/, 16000;/" %t/k.ptx > %t/lesstx.ptx
// RUN: not %PYTHON %S/Inputs/ptxsim_tma_check.py %t/lesstx.ptx wgmma | FileCheck %s --check-prefix=LESSTX
// LESSTX: error: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes: the transaction count of the mbarrier at shared offset 24 went negative (-384: more bytes completed than expected in phase 0)
// RUN: not %PYTHON %S/Inputs/ptxsim_tma_check.py %t/k.ptx wgmma --bug badmap | FileCheck %s --check-prefix=BADMAP
// BADMAP: error: invalid tensor map: box inner dimension of 256 bytes exceeds the 128-byte swizzle span
// RUN: grep -v 'mbarrier.init' %t/k.ptx > %t/noinit.ptx
// RUN: not %PYTHON %S/Inputs/ptxsim_tma_check.py %t/noinit.ptx tile-swz128 | FileCheck %s --check-prefix=NOINIT
// NOINIT: error: mbarrier.arrive.expect_tx.shared.b64: use of the uninitialised mbarrier at shared offset 24
// RUN: sed '0,/mbarrier.init.shared.b64 \t\[dyn+8\]/s//mbarrier.init.shared.b64 \t[dyn+12]/' %t/k.ptx > %t/barmis.ptx
// RUN: not %PYTHON %S/Inputs/ptxsim_tma_check.py %t/barmis.ptx tile-swz128 | FileCheck %s --check-prefix=BARMIS
// BARMIS: error: mbarrier.init.shared.b64: mbarrier at shared offset 28 is not 8-byte aligned
// @pipe: a 3-stage pipeline as in the sm_90a TMA kernel: one mbarrier per stage, thread 0 fills
// stages ahead (arrive.expect_tx + two TMA loads), every thread waits with parity (kt / 3) & 1,
// bar.sync, four wgmma, wgmma.wait_group 1, then the stage of tile kt - 1 is refilled; six
// k-tiles (each barrier completes phases 0 and 1), A 60 x 384 and B 56 x 384 zero-filled to 64
// rows. With wgmma.wait_group 2 a stage is refilled while the wgmma reading it is in flight.
// RUN: %PYTHON %S/Inputs/ptxsim_tma_check.py %t/k.ptx pipe | FileCheck %s --check-prefix=PIPE
// PIPE: pipe: ok (64 x 64 over K = 384, max abs error {{.*}}; cp 12, wgmma 43, mbarrier 19, tma bytes 98304)
// RUN: sed 's/wgmma.wait_group.sync.aligned \t1;/wgmma.wait_group.sync.aligned \t2;/' %t/k.ptx > %t/pipe2.ptx
// RUN: not %PYTHON %S/Inputs/ptxsim_tma_check.py %t/pipe2.ptx pipe | FileCheck %s --check-prefix=REFILL
// RUN: sed '/mbarrier.arrive.expect_tx.shared.b64 %rd8/a mbarrier.init.shared.b64 [dyn+8], %r5;' %t/k.ptx > %t/reinit.ptx
// RUN: not %PYTHON %S/Inputs/ptxsim_tma_check.py %t/reinit.ptx tile-swz128 | FileCheck %s --check-prefix=REINIT
// REINIT: error: mbarrier.init.shared.b64: init of the mbarrier at shared offset 24 while it is in use (phase 0: 1 arrivals, 4096 transaction bytes pending)
// Without the bar.sync after thread 0's init, another thread's wait uses the barrier too early.
// RUN: awk '/^.visible .entry tile/{on=1} /^.visible .entry wgmma_tma/{on=0} on && /bar.sync/{next} {print}' %t/k.ptx > %t/nosync.ptx
// RUN: not %PYTHON %S/Inputs/ptxsim_tma_check.py %t/nosync.ptx tile-swz128 | FileCheck %s --check-prefix=NOSYNC
// NOSYNC: error: mbarrier.try_wait.parity.shared.b64: thread 1 uses the mbarrier at shared offset 24 that thread 0 initialised with no bar.sync in between
// The host side (gpusim_run.py, Inputs/tma_host.mlir): device buffers, two tensor maps from
// decoda_cuda_tensor_map on memref.extract_aligned_pointer_as_index addresses, a launch of
// @wgmma_tma with 17408 bytes of dynamic shared memory; a tensor map whose base is not 16-byte
// aligned, and one whose base lies past its buffer, are errors.
// RUN: mkdir -p %t/h && cp %S/Inputs/tma_host.mlir %t/h/0-host.mlir && touch %t/h/1-decoda-lower-runtime-checks.mlir
// RUN: echo "// gpu.binary @m" > %t/host.ptx && cat %t/k.ptx >> %t/host.ptx
// RUN: %PYTHON %S/Inputs/ptxsim_tma_check.py host-data %t/in.npz %t/out.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/h %t/host.ptx --inputs %t/in.npz --expect %t/out.npz | FileCheck %s --check-prefix=HOST
// HOST: launch m: grid [1, 1, 1] block [128, 1, 1] shared 0 + 17408 dynamic bytes; bar 1, cp 2, mbarrier {{[0-9]+}}, wgmma 7
// HOST-NEXT: out0: ok (4096 elements
// HOST-NEXT: 1 launches; bar 1, cp 2, mbarrier {{[0-9]+}}, wgmma 7
// HOST-NEXT: 2 tensor maps (decoda_cuda_tensor_map)
// RUN: %PYTHON %S/Inputs/ptxsim_tma_check.py host-data %t/in8.npz %t/out8.npz 8
// RUN: not %PYTHON %S/Inputs/gpusim_run.py %t/h %t/host.ptx --inputs %t/in8.npz --expect %t/out.npz | FileCheck %s --check-prefix=HOST8
// HOST8: error: decoda_cuda_tensor_map: invalid tensor map: global address {{0x[0-9a-f]+}} not 16-byte aligned
// RUN: %PYTHON %S/Inputs/ptxsim_tma_check.py host-data %t/inf.npz %t/outf.npz 1048576
// RUN: not %PYTHON %S/Inputs/gpusim_run.py %t/h %t/host.ptx --inputs %t/inf.npz --expect %t/out.npz | FileCheck %s --check-prefix=HOSTFAR
// HOSTFAR: error: decoda_cuda_tensor_map: base {{0x[0-9a-f]+}} is not inside a device buffer (no buffer)
// A block of 128 + 32 threads, a warpgroup and a producer warp (the warp-specialised kernels'
// shape): @wgmma_tma whose threads 128..159 leave after the bar.sync runs the warpgroup's wgmma
// (the warpgroup is threads 0..127 whatever the block size); if they stay, the trailing partial
// warpgroup reaching a wgmma is an error.
// RUN: awk '/^.visible .entry wgmma_tma/{on=1} /^.visible .entry pipe/{on=0} {print} on && /bar.sync/{print "\tsetp.gt.u32 \t%%p_ws, %r1, 127;"; print "\t@%%p_ws ret;"}' %t/k.ptx > %t/ws.ptx
// RUN: %PYTHON %S/Inputs/ptxsim_tma_check.py %t/ws.ptx wgmma --threads 160 | FileCheck %s --check-prefix=WG
// RUN: not %PYTHON %S/Inputs/ptxsim_tma_check.py %t/k.ptx wgmma --threads 160 | FileCheck %s --check-prefix=PARTIAL
// PARTIAL: error: wgmma.fence.sync.aligned: reached by threads 128..159, the trailing 32 threads of a block of 160: not a whole warpgroup
// @tile3: @tile with a 3-D box (cp.async.bulk.tensor.3d) through a 3-D tensor map of a K/V-like
// tensor [B = 3, S = 10, 128] (planes, rows = keyLen = 7 < S, 64 x 16 boxes): boxes at planes
// 0..2, rows 0 and 4, elements 0 and 64 (rows 7..15 of a box zero although rows 7..9 of the
// plane hold data), at planes -1 and 3 (all zero) and across the corner (-16, -3) of plane 1,
// expected values and the 128-byte swizzle placement (row i's chunk c at chunk c ^ (i mod 8))
// computed from the tensor by NumPy.
// RUN: %PYTHON %S/Inputs/ptxsim_tma_check.py %t/k.ptx tile3d-swz128 | FileCheck %s --check-prefix=SWZ3
// SWZ3: box (0, 0, 0) swizzle 128: ok (2048 bytes, 9 zero rows)
// SWZ3-NEXT: box (64, 4, 0) swizzle 128: ok (2048 bytes, 13 zero rows)
// SWZ3-NEXT: box (0, 4, 1) swizzle 128: ok (2048 bytes, 13 zero rows)
// SWZ3-NEXT: box (64, 0, 1) swizzle 128: ok (2048 bytes, 9 zero rows)
// SWZ3-NEXT: box (0, 0, 2) swizzle 128: ok (2048 bytes, 9 zero rows)
// SWZ3-NEXT: box (64, 4, 2) swizzle 128: ok (2048 bytes, 13 zero rows)
// SWZ3-NEXT: box (0, 0, -1) swizzle 128: ok (2048 bytes, 16 zero rows)
// SWZ3-NEXT: box (64, 4, 3) swizzle 128: ok (2048 bytes, 16 zero rows)
// SWZ3-NEXT: box (-16, -3, 1) swizzle 128: ok (2048 bytes, 9 zero rows)
// RUN: %PYTHON %S/Inputs/ptxsim_tma_check.py %t/k.ptx tile3d-none | FileCheck %s --check-prefix=NONE3
// NONE3: box (0, 0, 0) swizzle 0: ok
// NONE3-COUNT-8: swizzle 0: ok
// A 3d copy through a 2-D map, a 2d copy through a 3-D map, a plane stride that is not a multiple
// of 16 and one below the plane's rows are errors.
// RUN: not %PYTHON %S/Inputs/ptxsim_tma_check.py %t/k.ptx tile3d-swz128 --bug map2d | FileCheck %s --check-prefix=MAP2D
// MAP2D: error: cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes: a 3d copy through a 2-D tensor map (at {{0x[0-9a-f]+}}; a 3d copy needs a 3-D map)
// RUN: not %PYTHON %S/Inputs/ptxsim_tma_check.py %t/k.ptx tile-map3d | FileCheck %s --check-prefix=MAP3D
// MAP3D: error: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes: a 2d copy through a 3-D tensor map (at {{0x[0-9a-f]+}}; a 2d copy needs a 2-D map)
// RUN: not %PYTHON %S/Inputs/ptxsim_tma_check.py %t/k.ptx tile3d-swz128 --bug planestride | FileCheck %s --check-prefix=PSTRIDE
// PSTRIDE: error: invalid tensor map: plane stride 2568 bytes not a positive multiple of 16 below 2^40
// RUN: not %PYTHON %S/Inputs/ptxsim_tma_check.py %t/k.ptx tile3d-swz128 --bug planeoverlap | FileCheck %s --check-prefix=POVER
// POVER: error: invalid tensor map: plane stride 1536 bytes below the plane's 7 rows of 256 bytes
// The host side of a 3-D map (gpusim_run.py, Inputs/tma3_host.mlir): decoda_cuda_tensor_map_3d
// of a device buffer, @tile3 at (64, 4, 1); a map of no planes is address 0 and not encoded.
// RUN: mkdir -p %t/h3 && cp %S/Inputs/tma3_host.mlir %t/h3/0-host.mlir && touch %t/h3/1-decoda-lower-runtime-checks.mlir
// RUN: %PYTHON %S/Inputs/ptxsim_tma_check.py host-data3 %t/in3.npz %t/out3.npz
// RUN: %PYTHON %S/Inputs/gpusim_run.py %t/h3 %t/host.ptx --inputs %t/in3.npz --expect %t/out3.npz | FileCheck %s --check-prefix=HOST3
// HOST3: launch m: grid [1, 1, 1] block [128, 1, 1] shared 0 + 3072 dynamic bytes; bar 1, cp 1, mbarrier {{[0-9]+}}
// HOST3-NEXT: out0: ok (512 elements, max abs error 0)
// HOST3-NEXT: 1 launches; bar 1, cp 1, mbarrier {{[0-9]+}}
// HOST3-NEXT: 1 tensor maps (decoda_cuda_tensor_map)

module {
llvm.mlir.global external @dyn() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
llvm.func @tile(%tmap: i64, %out: !llvm.ptr<1>, %c0: i32, %c1: i32, %parity: i32, %dstoff: i32, %bytes: i32) attributes {nvvm.kernel} {
  %tid = nvvm.read.ptx.sreg.tid.x : i32
  %zero = llvm.mlir.constant(0 : i32) : i32
  %one = llvm.mlir.constant(1 : i32) : i32
  %base = llvm.mlir.addressof @dyn : !llvm.ptr<3>
  %bar = llvm.getelementptr %base[8] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
  %is0 = llvm.icmp "eq" %tid, %zero : i32
  llvm.cond_br %is0, ^init, ^after
^init:
  nvvm.mbarrier.init %bar, %one : !llvm.ptr<3>, i32
  nvvm.fence.mbarrier.init
  llvm.br ^after
^after:
  nvvm.barrier0
  %bi = llvm.ptrtoint %base : !llvm.ptr<3> to i32
  %c1023 = llvm.mlir.constant(1023 : i32) : i32
  %mk = llvm.mlir.constant(-1024 : i32) : i32
  %t1 = llvm.add %bi, %c1023 : i32
  %al = llvm.and %t1, %mk : i32
  %d = llvm.add %al, %dstoff : i32
  %doff = llvm.sub %d, %bi : i32
  %dst = llvm.getelementptr %base[%doff] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
  llvm.cond_br %is0, ^issue, ^wait
^issue:
  nvvm.mbarrier.arrive.expect_tx %bar, %bytes : !llvm.ptr<3>, i32
  %dstc = llvm.addrspacecast %dst : !llvm.ptr<3> to !llvm.ptr<7>
  %tp = llvm.inttoptr %tmap : i64 to !llvm.ptr
  nvvm.cp.async.bulk.tensor.shared.cluster.global %dstc, %tp, %bar, box[%c0, %c1] : !llvm.ptr<7>, !llvm.ptr
  llvm.br ^wait
^wait:
  nvvm.mbarrier.try_wait.parity %bar, %parity, %zero : !llvm.ptr<3>, i32, i32
  %two = llvm.mlir.constant(2 : i32) : i32
  %nw = llvm.lshr %bytes, %two : i32
  llvm.br ^loop(%tid : i32)
^loop(%i: i32):
  %c = llvm.icmp "ult" %i, %nw : i32
  llvm.cond_br %c, ^body, ^exit
^body:
  %sp = llvm.getelementptr %dst[%i] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i32
  %v = llvm.load %sp : !llvm.ptr<3> -> i32
  %gp = llvm.getelementptr %out[%i] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
  llvm.store %v, %gp : i32, !llvm.ptr<1>
  %c128 = llvm.mlir.constant(128 : i32) : i32
  %n = llvm.add %i, %c128 : i32
  llvm.br ^loop(%n : i32)
^exit:
  llvm.return
}
llvm.func @wgmma_tma(%tma: i64, %tmb: i64, %out: !llvm.ptr<1>, %dflags: i64, %refill: i32) attributes {nvvm.kernel} {
  %tid = nvvm.read.ptx.sreg.tid.x : i32
  %zero = llvm.mlir.constant(0 : i32) : i32
  %one = llvm.mlir.constant(1 : i32) : i32
  %base = llvm.mlir.addressof @dyn : !llvm.ptr<3>
  %bar = llvm.getelementptr %base[8] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
  %bar2 = llvm.getelementptr %base[16] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
  %is0 = llvm.icmp "eq" %tid, %zero : i32
  llvm.cond_br %is0, ^init, ^after
^init:
  nvvm.mbarrier.init %bar, %one : !llvm.ptr<3>, i32
  nvvm.mbarrier.init %bar2, %one : !llvm.ptr<3>, i32
  nvvm.fence.mbarrier.init
  llvm.br ^after
^after:
  nvvm.barrier0
  %bi = llvm.ptrtoint %base : !llvm.ptr<3> to i64
  %c1023 = llvm.mlir.constant(1023 : i64) : i64
  %mk = llvm.mlir.constant(-1024 : i64) : i64
  %t1 = llvm.add %bi, %c1023 : i64
  %al = llvm.and %t1, %mk : i64
  %offa = llvm.sub %al, %bi : i64
  %sa = llvm.getelementptr %base[%offa] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, i8
  %sb = llvm.getelementptr %sa[8192] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
  %ta = llvm.inttoptr %tma : i64 to !llvm.ptr
  %tb = llvm.inttoptr %tmb : i64 to !llvm.ptr
  %sac = llvm.addrspacecast %sa : !llvm.ptr<3> to !llvm.ptr<7>
  %sbc = llvm.addrspacecast %sb : !llvm.ptr<3> to !llvm.ptr<7>
  llvm.cond_br %is0, ^issue, ^wait
^issue:
  %tx = llvm.mlir.constant(16384 : i32) : i32
  nvvm.mbarrier.arrive.expect_tx %bar, %tx : !llvm.ptr<3>, i32
  nvvm.cp.async.bulk.tensor.shared.cluster.global %sac, %ta, %bar, box[%zero, %zero] : !llvm.ptr<7>, !llvm.ptr
  nvvm.cp.async.bulk.tensor.shared.cluster.global %sbc, %tb, %bar, box[%zero, %zero] : !llvm.ptr<7>, !llvm.ptr
  llvm.br ^wait
^wait:
  nvvm.mbarrier.try_wait.parity %bar, %zero, %zero : !llvm.ptr<3>, i32, i32
  %m14 = llvm.mlir.constant(262143 : i64) : i64
  %c4 = llvm.mlir.constant(4 : i64) : i64
  %aa = llvm.ptrtoint %sa : !llvm.ptr<3> to i64
  %ab = llvm.ptrtoint %sb : !llvm.ptr<3> to i64
  %acc0 = llvm.mlir.undef : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)>
  nvvm.wgmma.fence.aligned
  %o0 = llvm.mlir.constant(0 : i64) : i64
  %xa0 = llvm.add %aa, %o0 : i64
  %xb0 = llvm.add %ab, %o0 : i64
  %ya0 = llvm.and %xa0, %m14 : i64
  %yb0 = llvm.and %xb0, %m14 : i64
  %za0 = llvm.lshr %ya0, %c4 : i64
  %zb0 = llvm.lshr %yb0, %c4 : i64
  %da0 = llvm.or %za0, %dflags : i64
  %db0 = llvm.or %zb0, %dflags : i64
  %acc1 = nvvm.wgmma.mma_async %da0, %db0, %acc0, #nvvm.shape<m = 64, n = 64, k = 16>, D [<f32>, #nvvm.wgmma_scale_out<zero>], A [<bf16>, #nvvm.wgmma_scale_in<one>, <row>], B [<bf16>, #nvvm.wgmma_scale_in<one>, <col>] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)> -> !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)>
  %o1 = llvm.mlir.constant(32 : i64) : i64
  %xa1 = llvm.add %aa, %o1 : i64
  %xb1 = llvm.add %ab, %o1 : i64
  %ya1 = llvm.and %xa1, %m14 : i64
  %yb1 = llvm.and %xb1, %m14 : i64
  %za1 = llvm.lshr %ya1, %c4 : i64
  %zb1 = llvm.lshr %yb1, %c4 : i64
  %da1 = llvm.or %za1, %dflags : i64
  %db1 = llvm.or %zb1, %dflags : i64
  %acc2 = nvvm.wgmma.mma_async %da1, %db1, %acc1, #nvvm.shape<m = 64, n = 64, k = 16>, D [<f32>, #nvvm.wgmma_scale_out<one>], A [<bf16>, #nvvm.wgmma_scale_in<one>, <row>], B [<bf16>, #nvvm.wgmma_scale_in<one>, <col>] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)> -> !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)>
  %o2 = llvm.mlir.constant(64 : i64) : i64
  %xa2 = llvm.add %aa, %o2 : i64
  %xb2 = llvm.add %ab, %o2 : i64
  %ya2 = llvm.and %xa2, %m14 : i64
  %yb2 = llvm.and %xb2, %m14 : i64
  %za2 = llvm.lshr %ya2, %c4 : i64
  %zb2 = llvm.lshr %yb2, %c4 : i64
  %da2 = llvm.or %za2, %dflags : i64
  %db2 = llvm.or %zb2, %dflags : i64
  %acc3 = nvvm.wgmma.mma_async %da2, %db2, %acc2, #nvvm.shape<m = 64, n = 64, k = 16>, D [<f32>, #nvvm.wgmma_scale_out<one>], A [<bf16>, #nvvm.wgmma_scale_in<one>, <row>], B [<bf16>, #nvvm.wgmma_scale_in<one>, <col>] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)> -> !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)>
  %o3 = llvm.mlir.constant(96 : i64) : i64
  %xa3 = llvm.add %aa, %o3 : i64
  %xb3 = llvm.add %ab, %o3 : i64
  %ya3 = llvm.and %xa3, %m14 : i64
  %yb3 = llvm.and %xb3, %m14 : i64
  %za3 = llvm.lshr %ya3, %c4 : i64
  %zb3 = llvm.lshr %yb3, %c4 : i64
  %da3 = llvm.or %za3, %dflags : i64
  %db3 = llvm.or %zb3, %dflags : i64
  %acc4 = nvvm.wgmma.mma_async %da3, %db3, %acc3, #nvvm.shape<m = 64, n = 64, k = 16>, D [<f32>, #nvvm.wgmma_scale_out<one>], A [<bf16>, #nvvm.wgmma_scale_in<one>, <row>], B [<bf16>, #nvvm.wgmma_scale_in<one>, <col>] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)> -> !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)>
  nvvm.wgmma.commit.group.sync.aligned
  %rf = llvm.icmp "ne" %refill, %zero : i32
  %do = llvm.and %rf, %is0 : i1
  llvm.cond_br %do, ^refill, ^done
^refill:
  %tx2 = llvm.mlir.constant(8192 : i32) : i32
  nvvm.mbarrier.arrive.expect_tx %bar2, %tx2 : !llvm.ptr<3>, i32
  nvvm.cp.async.bulk.tensor.shared.cluster.global %sac, %ta, %bar2, box[%zero, %zero] : !llvm.ptr<7>, !llvm.ptr
  llvm.br ^done
^done:
  nvvm.wgmma.wait.group.sync.aligned 0
  %c32 = llvm.mlir.constant(32 : i32) : i32
  %row = llvm.mul %tid, %c32 : i32
  %k0 = llvm.mlir.constant(0 : i32) : i32
  %v0 = llvm.extractvalue %acc4[0] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)>
  %i0 = llvm.add %row, %k0 : i32
  %p0 = llvm.getelementptr %out[%i0] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
  llvm.store %v0, %p0 : f32, !llvm.ptr<1>
  %k1 = llvm.mlir.constant(1 : i32) : i32
  %v1 = llvm.extractvalue %acc4[1] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)>
  %i1 = llvm.add %row, %k1 : i32
  %p1 = llvm.getelementptr %out[%i1] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
  llvm.store %v1, %p1 : f32, !llvm.ptr<1>
  %k2 = llvm.mlir.constant(2 : i32) : i32
  %v2 = llvm.extractvalue %acc4[2] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)>
  %i2 = llvm.add %row, %k2 : i32
  %p2 = llvm.getelementptr %out[%i2] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
  llvm.store %v2, %p2 : f32, !llvm.ptr<1>
  %k3 = llvm.mlir.constant(3 : i32) : i32
  %v3 = llvm.extractvalue %acc4[3] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)>
  %i3 = llvm.add %row, %k3 : i32
  %p3 = llvm.getelementptr %out[%i3] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
  llvm.store %v3, %p3 : f32, !llvm.ptr<1>
  %k4 = llvm.mlir.constant(4 : i32) : i32
  %v4 = llvm.extractvalue %acc4[4] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)>
  %i4 = llvm.add %row, %k4 : i32
  %p4 = llvm.getelementptr %out[%i4] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
  llvm.store %v4, %p4 : f32, !llvm.ptr<1>
  %k5 = llvm.mlir.constant(5 : i32) : i32
  %v5 = llvm.extractvalue %acc4[5] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)>
  %i5 = llvm.add %row, %k5 : i32
  %p5 = llvm.getelementptr %out[%i5] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
  llvm.store %v5, %p5 : f32, !llvm.ptr<1>
  %k6 = llvm.mlir.constant(6 : i32) : i32
  %v6 = llvm.extractvalue %acc4[6] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)>
  %i6 = llvm.add %row, %k6 : i32
  %p6 = llvm.getelementptr %out[%i6] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
  llvm.store %v6, %p6 : f32, !llvm.ptr<1>
  %k7 = llvm.mlir.constant(7 : i32) : i32
  %v7 = llvm.extractvalue %acc4[7] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)>
  %i7 = llvm.add %row, %k7 : i32
  %p7 = llvm.getelementptr %out[%i7] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
  llvm.store %v7, %p7 : f32, !llvm.ptr<1>
  %k8 = llvm.mlir.constant(8 : i32) : i32
  %v8 = llvm.extractvalue %acc4[8] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)>
  %i8 = llvm.add %row, %k8 : i32
  %p8 = llvm.getelementptr %out[%i8] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
  llvm.store %v8, %p8 : f32, !llvm.ptr<1>
  %k9 = llvm.mlir.constant(9 : i32) : i32
  %v9 = llvm.extractvalue %acc4[9] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)>
  %i9 = llvm.add %row, %k9 : i32
  %p9 = llvm.getelementptr %out[%i9] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
  llvm.store %v9, %p9 : f32, !llvm.ptr<1>
  %k10 = llvm.mlir.constant(10 : i32) : i32
  %v10 = llvm.extractvalue %acc4[10] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)>
  %i10 = llvm.add %row, %k10 : i32
  %p10 = llvm.getelementptr %out[%i10] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
  llvm.store %v10, %p10 : f32, !llvm.ptr<1>
  %k11 = llvm.mlir.constant(11 : i32) : i32
  %v11 = llvm.extractvalue %acc4[11] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)>
  %i11 = llvm.add %row, %k11 : i32
  %p11 = llvm.getelementptr %out[%i11] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
  llvm.store %v11, %p11 : f32, !llvm.ptr<1>
  %k12 = llvm.mlir.constant(12 : i32) : i32
  %v12 = llvm.extractvalue %acc4[12] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)>
  %i12 = llvm.add %row, %k12 : i32
  %p12 = llvm.getelementptr %out[%i12] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
  llvm.store %v12, %p12 : f32, !llvm.ptr<1>
  %k13 = llvm.mlir.constant(13 : i32) : i32
  %v13 = llvm.extractvalue %acc4[13] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)>
  %i13 = llvm.add %row, %k13 : i32
  %p13 = llvm.getelementptr %out[%i13] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
  llvm.store %v13, %p13 : f32, !llvm.ptr<1>
  %k14 = llvm.mlir.constant(14 : i32) : i32
  %v14 = llvm.extractvalue %acc4[14] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)>
  %i14 = llvm.add %row, %k14 : i32
  %p14 = llvm.getelementptr %out[%i14] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
  llvm.store %v14, %p14 : f32, !llvm.ptr<1>
  %k15 = llvm.mlir.constant(15 : i32) : i32
  %v15 = llvm.extractvalue %acc4[15] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)>
  %i15 = llvm.add %row, %k15 : i32
  %p15 = llvm.getelementptr %out[%i15] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
  llvm.store %v15, %p15 : f32, !llvm.ptr<1>
  %k16 = llvm.mlir.constant(16 : i32) : i32
  %v16 = llvm.extractvalue %acc4[16] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)>
  %i16 = llvm.add %row, %k16 : i32
  %p16 = llvm.getelementptr %out[%i16] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
  llvm.store %v16, %p16 : f32, !llvm.ptr<1>
  %k17 = llvm.mlir.constant(17 : i32) : i32
  %v17 = llvm.extractvalue %acc4[17] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)>
  %i17 = llvm.add %row, %k17 : i32
  %p17 = llvm.getelementptr %out[%i17] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
  llvm.store %v17, %p17 : f32, !llvm.ptr<1>
  %k18 = llvm.mlir.constant(18 : i32) : i32
  %v18 = llvm.extractvalue %acc4[18] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)>
  %i18 = llvm.add %row, %k18 : i32
  %p18 = llvm.getelementptr %out[%i18] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
  llvm.store %v18, %p18 : f32, !llvm.ptr<1>
  %k19 = llvm.mlir.constant(19 : i32) : i32
  %v19 = llvm.extractvalue %acc4[19] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)>
  %i19 = llvm.add %row, %k19 : i32
  %p19 = llvm.getelementptr %out[%i19] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
  llvm.store %v19, %p19 : f32, !llvm.ptr<1>
  %k20 = llvm.mlir.constant(20 : i32) : i32
  %v20 = llvm.extractvalue %acc4[20] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)>
  %i20 = llvm.add %row, %k20 : i32
  %p20 = llvm.getelementptr %out[%i20] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
  llvm.store %v20, %p20 : f32, !llvm.ptr<1>
  %k21 = llvm.mlir.constant(21 : i32) : i32
  %v21 = llvm.extractvalue %acc4[21] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)>
  %i21 = llvm.add %row, %k21 : i32
  %p21 = llvm.getelementptr %out[%i21] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
  llvm.store %v21, %p21 : f32, !llvm.ptr<1>
  %k22 = llvm.mlir.constant(22 : i32) : i32
  %v22 = llvm.extractvalue %acc4[22] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)>
  %i22 = llvm.add %row, %k22 : i32
  %p22 = llvm.getelementptr %out[%i22] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
  llvm.store %v22, %p22 : f32, !llvm.ptr<1>
  %k23 = llvm.mlir.constant(23 : i32) : i32
  %v23 = llvm.extractvalue %acc4[23] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)>
  %i23 = llvm.add %row, %k23 : i32
  %p23 = llvm.getelementptr %out[%i23] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
  llvm.store %v23, %p23 : f32, !llvm.ptr<1>
  %k24 = llvm.mlir.constant(24 : i32) : i32
  %v24 = llvm.extractvalue %acc4[24] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)>
  %i24 = llvm.add %row, %k24 : i32
  %p24 = llvm.getelementptr %out[%i24] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
  llvm.store %v24, %p24 : f32, !llvm.ptr<1>
  %k25 = llvm.mlir.constant(25 : i32) : i32
  %v25 = llvm.extractvalue %acc4[25] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)>
  %i25 = llvm.add %row, %k25 : i32
  %p25 = llvm.getelementptr %out[%i25] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
  llvm.store %v25, %p25 : f32, !llvm.ptr<1>
  %k26 = llvm.mlir.constant(26 : i32) : i32
  %v26 = llvm.extractvalue %acc4[26] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)>
  %i26 = llvm.add %row, %k26 : i32
  %p26 = llvm.getelementptr %out[%i26] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
  llvm.store %v26, %p26 : f32, !llvm.ptr<1>
  %k27 = llvm.mlir.constant(27 : i32) : i32
  %v27 = llvm.extractvalue %acc4[27] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)>
  %i27 = llvm.add %row, %k27 : i32
  %p27 = llvm.getelementptr %out[%i27] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
  llvm.store %v27, %p27 : f32, !llvm.ptr<1>
  %k28 = llvm.mlir.constant(28 : i32) : i32
  %v28 = llvm.extractvalue %acc4[28] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)>
  %i28 = llvm.add %row, %k28 : i32
  %p28 = llvm.getelementptr %out[%i28] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
  llvm.store %v28, %p28 : f32, !llvm.ptr<1>
  %k29 = llvm.mlir.constant(29 : i32) : i32
  %v29 = llvm.extractvalue %acc4[29] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)>
  %i29 = llvm.add %row, %k29 : i32
  %p29 = llvm.getelementptr %out[%i29] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
  llvm.store %v29, %p29 : f32, !llvm.ptr<1>
  %k30 = llvm.mlir.constant(30 : i32) : i32
  %v30 = llvm.extractvalue %acc4[30] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)>
  %i30 = llvm.add %row, %k30 : i32
  %p30 = llvm.getelementptr %out[%i30] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
  llvm.store %v30, %p30 : f32, !llvm.ptr<1>
  %k31 = llvm.mlir.constant(31 : i32) : i32
  %v31 = llvm.extractvalue %acc4[31] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)>
  %i31 = llvm.add %row, %k31 : i32
  %p31 = llvm.getelementptr %out[%i31] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
  llvm.store %v31, %p31 : f32, !llvm.ptr<1>
  llvm.return
}
llvm.func @pipe(%tma: i64, %tmb: i64, %out: !llvm.ptr<1>, %kt_n: i32) attributes {nvvm.kernel} {
  %tid = nvvm.read.ptx.sreg.tid.x : i32
  %zero = llvm.mlir.constant(0 : i32) : i32
  %one = llvm.mlir.constant(1 : i32) : i32
  %c3 = llvm.mlir.constant(3 : i32) : i32
  %c8 = llvm.mlir.constant(8 : i32) : i32
  %c64 = llvm.mlir.constant(64 : i32) : i32
  %stage_bytes = llvm.mlir.constant(16384 : i32) : i32
  %fz = llvm.mlir.constant(0.0 : f32) : f32
  %u0 = llvm.mlir.undef : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)>
  %u1 = llvm.insertvalue %fz, %u0[0] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)>
  %u2 = llvm.insertvalue %fz, %u1[1] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)>
  %u3 = llvm.insertvalue %fz, %u2[2] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)>
  %u4 = llvm.insertvalue %fz, %u3[3] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)>
  %u5 = llvm.insertvalue %fz, %u4[4] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)>
  %u6 = llvm.insertvalue %fz, %u5[5] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)>
  %u7 = llvm.insertvalue %fz, %u6[6] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)>
  %u8 = llvm.insertvalue %fz, %u7[7] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)>
  %u9 = llvm.insertvalue %fz, %u8[8] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)>
  %u10 = llvm.insertvalue %fz, %u9[9] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)>
  %u11 = llvm.insertvalue %fz, %u10[10] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)>
  %u12 = llvm.insertvalue %fz, %u11[11] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)>
  %u13 = llvm.insertvalue %fz, %u12[12] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)>
  %u14 = llvm.insertvalue %fz, %u13[13] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)>
  %u15 = llvm.insertvalue %fz, %u14[14] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)>
  %u16 = llvm.insertvalue %fz, %u15[15] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)>
  %u17 = llvm.insertvalue %fz, %u16[16] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)>
  %u18 = llvm.insertvalue %fz, %u17[17] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)>
  %u19 = llvm.insertvalue %fz, %u18[18] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)>
  %u20 = llvm.insertvalue %fz, %u19[19] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)>
  %u21 = llvm.insertvalue %fz, %u20[20] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)>
  %u22 = llvm.insertvalue %fz, %u21[21] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)>
  %u23 = llvm.insertvalue %fz, %u22[22] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)>
  %u24 = llvm.insertvalue %fz, %u23[23] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)>
  %u25 = llvm.insertvalue %fz, %u24[24] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)>
  %u26 = llvm.insertvalue %fz, %u25[25] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)>
  %u27 = llvm.insertvalue %fz, %u26[26] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)>
  %u28 = llvm.insertvalue %fz, %u27[27] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)>
  %u29 = llvm.insertvalue %fz, %u28[28] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)>
  %u30 = llvm.insertvalue %fz, %u29[29] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)>
  %u31 = llvm.insertvalue %fz, %u30[30] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)>
  %u32 = llvm.insertvalue %fz, %u31[31] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)>
  %base = llvm.mlir.addressof @dyn : !llvm.ptr<3>
  %bar0 = llvm.getelementptr %base[8] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
  %is0 = llvm.icmp "eq" %tid, %zero : i32
  %bi = llvm.ptrtoint %base : !llvm.ptr<3> to i32
  %c1023 = llvm.mlir.constant(1023 : i32) : i32
  %mk = llvm.mlir.constant(-1024 : i32) : i32
  %t1 = llvm.add %bi, %c1023 : i32
  %al = llvm.and %t1, %mk : i32
  %offa = llvm.sub %al, %bi : i32
  %sa0 = llvm.getelementptr %base[%offa] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
  %ta = llvm.inttoptr %tma : i64 to !llvm.ptr
  %tb = llvm.inttoptr %tmb : i64 to !llvm.ptr
  llvm.cond_br %is0, ^init, ^after
^init:
  nvvm.mbarrier.init %bar0, %one : !llvm.ptr<3>, i32
  %bar1 = llvm.getelementptr %base[16] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
  nvvm.mbarrier.init %bar1, %one : !llvm.ptr<3>, i32
  %bar2 = llvm.getelementptr %base[24] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
  nvvm.mbarrier.init %bar2, %one : !llvm.ptr<3>, i32
  nvvm.fence.mbarrier.init
  llvm.br ^after
^after:
  nvvm.barrier0
  llvm.br ^pro(%zero : i32)
^pro(%p: i32):
  %s1 = llvm.sub %c3, %one : i32
  %pc = llvm.icmp "slt" %p, %s1 : i32
  %pk = llvm.icmp "slt" %p, %kt_n : i32
  %pc2 = llvm.and %pc, %pk : i1
  %pi = llvm.and %pc2, %is0 : i1
  %pnext = llvm.add %p, %one : i32
  llvm.cond_br %pc2, ^pro_body, ^loop(%zero, %u32 : i32, !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)>)
^pro_body:
  llvm.cond_br %pi, ^issP, ^pro_cont
^issP:
  %boffP = llvm.mul %p, %c8 : i32
  %barP = llvm.getelementptr %bar0[%boffP] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
  %soffP = llvm.mul %p, %stage_bytes : i32
  %saP = llvm.getelementptr %sa0[%soffP] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
  %sbP = llvm.getelementptr %saP[8192] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
  %sacP = llvm.addrspacecast %saP : !llvm.ptr<3> to !llvm.ptr<7>
  %sbcP = llvm.addrspacecast %sbP : !llvm.ptr<3> to !llvm.ptr<7>
  %k0P = llvm.mul %p, %c64 : i32
  nvvm.mbarrier.arrive.expect_tx %barP, %stage_bytes : !llvm.ptr<3>, i32
  nvvm.cp.async.bulk.tensor.shared.cluster.global %sacP, %ta, %barP, box[%k0P, %zero] : !llvm.ptr<7>, !llvm.ptr
  nvvm.cp.async.bulk.tensor.shared.cluster.global %sbcP, %tb, %barP, box[%k0P, %zero] : !llvm.ptr<7>, !llvm.ptr
  llvm.br ^pro_cont
^pro_cont:
  llvm.br ^pro(%pnext : i32)
^loop(%kt: i32, %acc: !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)>):
  %lc = llvm.icmp "slt" %kt, %kt_n : i32
  llvm.cond_br %lc, ^body, ^exit
^body:
  %st = llvm.urem %kt, %c3 : i32
  %ph0 = llvm.udiv %kt, %c3 : i32
  %ph = llvm.and %ph0, %one : i32
  %boff = llvm.mul %st, %c8 : i32
  %barp = llvm.getelementptr %bar0[%boff] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
  nvvm.mbarrier.try_wait.parity %barp, %ph, %zero : !llvm.ptr<3>, i32, i32
  nvvm.barrier0
  %soff = llvm.mul %st, %stage_bytes : i32
  %sa = llvm.getelementptr %sa0[%soff] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
  %sb = llvm.getelementptr %sa[8192] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
  %aa = llvm.ptrtoint %sa : !llvm.ptr<3> to i64
  %ab = llvm.ptrtoint %sb : !llvm.ptr<3> to i64
  %m14 = llvm.mlir.constant(262143 : i64) : i64
  %c4 = llvm.mlir.constant(4 : i64) : i64
  %dflags = llvm.mlir.constant(4611686293305360384 : i64) : i64
  nvvm.wgmma.fence.aligned
  %o0 = llvm.mlir.constant(0 : i64) : i64
  %xa0 = llvm.add %aa, %o0 : i64
  %xb0 = llvm.add %ab, %o0 : i64
  %ya0 = llvm.and %xa0, %m14 : i64
  %yb0 = llvm.and %xb0, %m14 : i64
  %za0 = llvm.lshr %ya0, %c4 : i64
  %zb0 = llvm.lshr %yb0, %c4 : i64
  %da0 = llvm.or %za0, %dflags : i64
  %db0 = llvm.or %zb0, %dflags : i64
  %acc_1 = nvvm.wgmma.mma_async %da0, %db0, %acc, #nvvm.shape<m = 64, n = 64, k = 16>, D [<f32>, #nvvm.wgmma_scale_out<one>], A [<bf16>, #nvvm.wgmma_scale_in<one>, <row>], B [<bf16>, #nvvm.wgmma_scale_in<one>, <col>] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)> -> !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)>
  %o1 = llvm.mlir.constant(32 : i64) : i64
  %xa1 = llvm.add %aa, %o1 : i64
  %xb1 = llvm.add %ab, %o1 : i64
  %ya1 = llvm.and %xa1, %m14 : i64
  %yb1 = llvm.and %xb1, %m14 : i64
  %za1 = llvm.lshr %ya1, %c4 : i64
  %zb1 = llvm.lshr %yb1, %c4 : i64
  %da1 = llvm.or %za1, %dflags : i64
  %db1 = llvm.or %zb1, %dflags : i64
  %acc_2 = nvvm.wgmma.mma_async %da1, %db1, %acc_1, #nvvm.shape<m = 64, n = 64, k = 16>, D [<f32>, #nvvm.wgmma_scale_out<one>], A [<bf16>, #nvvm.wgmma_scale_in<one>, <row>], B [<bf16>, #nvvm.wgmma_scale_in<one>, <col>] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)> -> !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)>
  %o2 = llvm.mlir.constant(64 : i64) : i64
  %xa2 = llvm.add %aa, %o2 : i64
  %xb2 = llvm.add %ab, %o2 : i64
  %ya2 = llvm.and %xa2, %m14 : i64
  %yb2 = llvm.and %xb2, %m14 : i64
  %za2 = llvm.lshr %ya2, %c4 : i64
  %zb2 = llvm.lshr %yb2, %c4 : i64
  %da2 = llvm.or %za2, %dflags : i64
  %db2 = llvm.or %zb2, %dflags : i64
  %acc_3 = nvvm.wgmma.mma_async %da2, %db2, %acc_2, #nvvm.shape<m = 64, n = 64, k = 16>, D [<f32>, #nvvm.wgmma_scale_out<one>], A [<bf16>, #nvvm.wgmma_scale_in<one>, <row>], B [<bf16>, #nvvm.wgmma_scale_in<one>, <col>] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)> -> !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)>
  %o3 = llvm.mlir.constant(96 : i64) : i64
  %xa3 = llvm.add %aa, %o3 : i64
  %xb3 = llvm.add %ab, %o3 : i64
  %ya3 = llvm.and %xa3, %m14 : i64
  %yb3 = llvm.and %xb3, %m14 : i64
  %za3 = llvm.lshr %ya3, %c4 : i64
  %zb3 = llvm.lshr %yb3, %c4 : i64
  %da3 = llvm.or %za3, %dflags : i64
  %db3 = llvm.or %zb3, %dflags : i64
  %acc_4 = nvvm.wgmma.mma_async %da3, %db3, %acc_3, #nvvm.shape<m = 64, n = 64, k = 16>, D [<f32>, #nvvm.wgmma_scale_out<one>], A [<bf16>, #nvvm.wgmma_scale_in<one>, <row>], B [<bf16>, #nvvm.wgmma_scale_in<one>, <col>] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)> -> !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)>
  nvvm.wgmma.commit.group.sync.aligned
  nvvm.wgmma.wait.group.sync.aligned 1
  %nk = llvm.add %kt, %c3 : i32
  %nk1 = llvm.sub %nk, %one : i32
  %rc = llvm.icmp "slt" %nk1, %kt_n : i32
  %ri = llvm.and %rc, %is0 : i1
  %nst = llvm.urem %nk1, %c3 : i32
  llvm.cond_br %ri, ^issB, ^body_cont
^issB:
  %boffB = llvm.mul %nst, %c8 : i32
  %barB = llvm.getelementptr %bar0[%boffB] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
  %soffB = llvm.mul %nst, %stage_bytes : i32
  %saB = llvm.getelementptr %sa0[%soffB] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
  %sbB = llvm.getelementptr %saB[8192] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
  %sacB = llvm.addrspacecast %saB : !llvm.ptr<3> to !llvm.ptr<7>
  %sbcB = llvm.addrspacecast %sbB : !llvm.ptr<3> to !llvm.ptr<7>
  %k0B = llvm.mul %nk1, %c64 : i32
  nvvm.mbarrier.arrive.expect_tx %barB, %stage_bytes : !llvm.ptr<3>, i32
  nvvm.cp.async.bulk.tensor.shared.cluster.global %sacB, %ta, %barB, box[%k0B, %zero] : !llvm.ptr<7>, !llvm.ptr
  nvvm.cp.async.bulk.tensor.shared.cluster.global %sbcB, %tb, %barB, box[%k0B, %zero] : !llvm.ptr<7>, !llvm.ptr
  llvm.br ^body_cont
^body_cont:
  %kt1 = llvm.add %kt, %one : i32
  llvm.br ^loop(%kt1, %acc_4 : i32, !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)>)
^exit:
  nvvm.wgmma.wait.group.sync.aligned 0
  %c32 = llvm.mlir.constant(32 : i32) : i32
  %row = llvm.mul %tid, %c32 : i32
  %k0 = llvm.mlir.constant(0 : i32) : i32
  %v0 = llvm.extractvalue %acc[0] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)>
  %i0 = llvm.add %row, %k0 : i32
  %p0 = llvm.getelementptr %out[%i0] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
  llvm.store %v0, %p0 : f32, !llvm.ptr<1>
  %k1 = llvm.mlir.constant(1 : i32) : i32
  %v1 = llvm.extractvalue %acc[1] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)>
  %i1 = llvm.add %row, %k1 : i32
  %p1 = llvm.getelementptr %out[%i1] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
  llvm.store %v1, %p1 : f32, !llvm.ptr<1>
  %k2 = llvm.mlir.constant(2 : i32) : i32
  %v2 = llvm.extractvalue %acc[2] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)>
  %i2 = llvm.add %row, %k2 : i32
  %p2 = llvm.getelementptr %out[%i2] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
  llvm.store %v2, %p2 : f32, !llvm.ptr<1>
  %k3 = llvm.mlir.constant(3 : i32) : i32
  %v3 = llvm.extractvalue %acc[3] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)>
  %i3 = llvm.add %row, %k3 : i32
  %p3 = llvm.getelementptr %out[%i3] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
  llvm.store %v3, %p3 : f32, !llvm.ptr<1>
  %k4 = llvm.mlir.constant(4 : i32) : i32
  %v4 = llvm.extractvalue %acc[4] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)>
  %i4 = llvm.add %row, %k4 : i32
  %p4 = llvm.getelementptr %out[%i4] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
  llvm.store %v4, %p4 : f32, !llvm.ptr<1>
  %k5 = llvm.mlir.constant(5 : i32) : i32
  %v5 = llvm.extractvalue %acc[5] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)>
  %i5 = llvm.add %row, %k5 : i32
  %p5 = llvm.getelementptr %out[%i5] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
  llvm.store %v5, %p5 : f32, !llvm.ptr<1>
  %k6 = llvm.mlir.constant(6 : i32) : i32
  %v6 = llvm.extractvalue %acc[6] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)>
  %i6 = llvm.add %row, %k6 : i32
  %p6 = llvm.getelementptr %out[%i6] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
  llvm.store %v6, %p6 : f32, !llvm.ptr<1>
  %k7 = llvm.mlir.constant(7 : i32) : i32
  %v7 = llvm.extractvalue %acc[7] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)>
  %i7 = llvm.add %row, %k7 : i32
  %p7 = llvm.getelementptr %out[%i7] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
  llvm.store %v7, %p7 : f32, !llvm.ptr<1>
  %k8 = llvm.mlir.constant(8 : i32) : i32
  %v8 = llvm.extractvalue %acc[8] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)>
  %i8 = llvm.add %row, %k8 : i32
  %p8 = llvm.getelementptr %out[%i8] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
  llvm.store %v8, %p8 : f32, !llvm.ptr<1>
  %k9 = llvm.mlir.constant(9 : i32) : i32
  %v9 = llvm.extractvalue %acc[9] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)>
  %i9 = llvm.add %row, %k9 : i32
  %p9 = llvm.getelementptr %out[%i9] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
  llvm.store %v9, %p9 : f32, !llvm.ptr<1>
  %k10 = llvm.mlir.constant(10 : i32) : i32
  %v10 = llvm.extractvalue %acc[10] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)>
  %i10 = llvm.add %row, %k10 : i32
  %p10 = llvm.getelementptr %out[%i10] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
  llvm.store %v10, %p10 : f32, !llvm.ptr<1>
  %k11 = llvm.mlir.constant(11 : i32) : i32
  %v11 = llvm.extractvalue %acc[11] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)>
  %i11 = llvm.add %row, %k11 : i32
  %p11 = llvm.getelementptr %out[%i11] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
  llvm.store %v11, %p11 : f32, !llvm.ptr<1>
  %k12 = llvm.mlir.constant(12 : i32) : i32
  %v12 = llvm.extractvalue %acc[12] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)>
  %i12 = llvm.add %row, %k12 : i32
  %p12 = llvm.getelementptr %out[%i12] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
  llvm.store %v12, %p12 : f32, !llvm.ptr<1>
  %k13 = llvm.mlir.constant(13 : i32) : i32
  %v13 = llvm.extractvalue %acc[13] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)>
  %i13 = llvm.add %row, %k13 : i32
  %p13 = llvm.getelementptr %out[%i13] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
  llvm.store %v13, %p13 : f32, !llvm.ptr<1>
  %k14 = llvm.mlir.constant(14 : i32) : i32
  %v14 = llvm.extractvalue %acc[14] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)>
  %i14 = llvm.add %row, %k14 : i32
  %p14 = llvm.getelementptr %out[%i14] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
  llvm.store %v14, %p14 : f32, !llvm.ptr<1>
  %k15 = llvm.mlir.constant(15 : i32) : i32
  %v15 = llvm.extractvalue %acc[15] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)>
  %i15 = llvm.add %row, %k15 : i32
  %p15 = llvm.getelementptr %out[%i15] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
  llvm.store %v15, %p15 : f32, !llvm.ptr<1>
  %k16 = llvm.mlir.constant(16 : i32) : i32
  %v16 = llvm.extractvalue %acc[16] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)>
  %i16 = llvm.add %row, %k16 : i32
  %p16 = llvm.getelementptr %out[%i16] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
  llvm.store %v16, %p16 : f32, !llvm.ptr<1>
  %k17 = llvm.mlir.constant(17 : i32) : i32
  %v17 = llvm.extractvalue %acc[17] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)>
  %i17 = llvm.add %row, %k17 : i32
  %p17 = llvm.getelementptr %out[%i17] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
  llvm.store %v17, %p17 : f32, !llvm.ptr<1>
  %k18 = llvm.mlir.constant(18 : i32) : i32
  %v18 = llvm.extractvalue %acc[18] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)>
  %i18 = llvm.add %row, %k18 : i32
  %p18 = llvm.getelementptr %out[%i18] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
  llvm.store %v18, %p18 : f32, !llvm.ptr<1>
  %k19 = llvm.mlir.constant(19 : i32) : i32
  %v19 = llvm.extractvalue %acc[19] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)>
  %i19 = llvm.add %row, %k19 : i32
  %p19 = llvm.getelementptr %out[%i19] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
  llvm.store %v19, %p19 : f32, !llvm.ptr<1>
  %k20 = llvm.mlir.constant(20 : i32) : i32
  %v20 = llvm.extractvalue %acc[20] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)>
  %i20 = llvm.add %row, %k20 : i32
  %p20 = llvm.getelementptr %out[%i20] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
  llvm.store %v20, %p20 : f32, !llvm.ptr<1>
  %k21 = llvm.mlir.constant(21 : i32) : i32
  %v21 = llvm.extractvalue %acc[21] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)>
  %i21 = llvm.add %row, %k21 : i32
  %p21 = llvm.getelementptr %out[%i21] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
  llvm.store %v21, %p21 : f32, !llvm.ptr<1>
  %k22 = llvm.mlir.constant(22 : i32) : i32
  %v22 = llvm.extractvalue %acc[22] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)>
  %i22 = llvm.add %row, %k22 : i32
  %p22 = llvm.getelementptr %out[%i22] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
  llvm.store %v22, %p22 : f32, !llvm.ptr<1>
  %k23 = llvm.mlir.constant(23 : i32) : i32
  %v23 = llvm.extractvalue %acc[23] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)>
  %i23 = llvm.add %row, %k23 : i32
  %p23 = llvm.getelementptr %out[%i23] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
  llvm.store %v23, %p23 : f32, !llvm.ptr<1>
  %k24 = llvm.mlir.constant(24 : i32) : i32
  %v24 = llvm.extractvalue %acc[24] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)>
  %i24 = llvm.add %row, %k24 : i32
  %p24 = llvm.getelementptr %out[%i24] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
  llvm.store %v24, %p24 : f32, !llvm.ptr<1>
  %k25 = llvm.mlir.constant(25 : i32) : i32
  %v25 = llvm.extractvalue %acc[25] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)>
  %i25 = llvm.add %row, %k25 : i32
  %p25 = llvm.getelementptr %out[%i25] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
  llvm.store %v25, %p25 : f32, !llvm.ptr<1>
  %k26 = llvm.mlir.constant(26 : i32) : i32
  %v26 = llvm.extractvalue %acc[26] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)>
  %i26 = llvm.add %row, %k26 : i32
  %p26 = llvm.getelementptr %out[%i26] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
  llvm.store %v26, %p26 : f32, !llvm.ptr<1>
  %k27 = llvm.mlir.constant(27 : i32) : i32
  %v27 = llvm.extractvalue %acc[27] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)>
  %i27 = llvm.add %row, %k27 : i32
  %p27 = llvm.getelementptr %out[%i27] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
  llvm.store %v27, %p27 : f32, !llvm.ptr<1>
  %k28 = llvm.mlir.constant(28 : i32) : i32
  %v28 = llvm.extractvalue %acc[28] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)>
  %i28 = llvm.add %row, %k28 : i32
  %p28 = llvm.getelementptr %out[%i28] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
  llvm.store %v28, %p28 : f32, !llvm.ptr<1>
  %k29 = llvm.mlir.constant(29 : i32) : i32
  %v29 = llvm.extractvalue %acc[29] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)>
  %i29 = llvm.add %row, %k29 : i32
  %p29 = llvm.getelementptr %out[%i29] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
  llvm.store %v29, %p29 : f32, !llvm.ptr<1>
  %k30 = llvm.mlir.constant(30 : i32) : i32
  %v30 = llvm.extractvalue %acc[30] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)>
  %i30 = llvm.add %row, %k30 : i32
  %p30 = llvm.getelementptr %out[%i30] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
  llvm.store %v30, %p30 : f32, !llvm.ptr<1>
  %k31 = llvm.mlir.constant(31 : i32) : i32
  %v31 = llvm.extractvalue %acc[31] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)>
  %i31 = llvm.add %row, %k31 : i32
  %p31 = llvm.getelementptr %out[%i31] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
  llvm.store %v31, %p31 : f32, !llvm.ptr<1>
  llvm.return
}
// @tile with a 3-D box coordinate (element, row, plane): cp.async.bulk.tensor.3d.
llvm.func @tile3(%tmap: i64, %out: !llvm.ptr<1>, %c0: i32, %c1: i32, %c2: i32, %parity: i32, %dstoff: i32, %bytes: i32) attributes {nvvm.kernel} {
  %tid = nvvm.read.ptx.sreg.tid.x : i32
  %zero = llvm.mlir.constant(0 : i32) : i32
  %one = llvm.mlir.constant(1 : i32) : i32
  %base = llvm.mlir.addressof @dyn : !llvm.ptr<3>
  %bar = llvm.getelementptr %base[8] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
  %is0 = llvm.icmp "eq" %tid, %zero : i32
  llvm.cond_br %is0, ^init, ^after
^init:
  nvvm.mbarrier.init %bar, %one : !llvm.ptr<3>, i32
  nvvm.fence.mbarrier.init
  llvm.br ^after
^after:
  nvvm.barrier0
  %bi = llvm.ptrtoint %base : !llvm.ptr<3> to i32
  %c1023 = llvm.mlir.constant(1023 : i32) : i32
  %mk = llvm.mlir.constant(-1024 : i32) : i32
  %t1 = llvm.add %bi, %c1023 : i32
  %al = llvm.and %t1, %mk : i32
  %d = llvm.add %al, %dstoff : i32
  %doff = llvm.sub %d, %bi : i32
  %dst = llvm.getelementptr %base[%doff] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
  llvm.cond_br %is0, ^issue, ^wait
^issue:
  nvvm.mbarrier.arrive.expect_tx %bar, %bytes : !llvm.ptr<3>, i32
  %dstc = llvm.addrspacecast %dst : !llvm.ptr<3> to !llvm.ptr<7>
  %tp = llvm.inttoptr %tmap : i64 to !llvm.ptr
  nvvm.cp.async.bulk.tensor.shared.cluster.global %dstc, %tp, %bar, box[%c0, %c1, %c2] : !llvm.ptr<7>, !llvm.ptr
  llvm.br ^wait
^wait:
  nvvm.mbarrier.try_wait.parity %bar, %parity, %zero : !llvm.ptr<3>, i32, i32
  %two = llvm.mlir.constant(2 : i32) : i32
  %nw = llvm.lshr %bytes, %two : i32
  llvm.br ^loop(%tid : i32)
^loop(%i: i32):
  %c = llvm.icmp "ult" %i, %nw : i32
  llvm.cond_br %c, ^body, ^exit
^body:
  %sp = llvm.getelementptr %dst[%i] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i32
  %v = llvm.load %sp : !llvm.ptr<3> -> i32
  %gp = llvm.getelementptr %out[%i] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
  llvm.store %v, %gp : i32, !llvm.ptr<1>
  %c128 = llvm.mlir.constant(128 : i32) : i32
  %n = llvm.add %i, %c128 : i32
  llvm.br ^loop(%n : i32)
^exit:
  llvm.return
}
}
