// --target-cpu / --target-features: the CPU lowering picks instruction forms by the target's
// features (qlinear's i8 contractions use vpdpbusd only with avx512vnni; otherwise i32 vector
// ops every x86-64 CPU runs), with a remark naming the form; LLVM never sees an intrinsic the
// target lacks. Bad names are errors naming the flag. Numbers on these targets:
// test/e2e/qlinear_int8.py (test_qlinear_without_vnni) and test/e2e/target_cpu.py.
// RUN: rm -rf %t && mkdir -p %t
// RUN: decoda-compile %s -o %t/spr.ll --emit=llvm --target-cpu=sapphirerapids 2>&1 | FileCheck %s --check-prefix=VNNI
// RUN: FileCheck %s --check-prefix=LL-VNNI < %t/spr.ll
// RUN: decoda-compile %s -o %t/hsw.ll --emit=llvm --target-cpu=haswell 2>&1 | FileCheck %s --check-prefix=I32
// RUN: FileCheck %s --check-prefix=LL-I32 < %t/hsw.ll
// RUN: decoda-compile %s -o %t/skx.ll --emit=llvm --target-cpu=skylake-avx512 2>&1 | FileCheck %s --check-prefix=I32
// RUN: FileCheck %s --check-prefix=LL-I32 < %t/skx.ll
// RUN: decoda-compile %s -o %t/nov.ll --emit=llvm --target-cpu=sapphirerapids --target-features=-avx512vnni 2>&1 | FileCheck %s --check-prefix=I32
// RUN: FileCheck %s --check-prefix=LL-I32 < %t/nov.ll
// A removed feature removes what depends on it: no AVX-512 F, no VNNI.
// RUN: decoda-compile %s -o %t/nof.ll --emit=llvm --target-cpu=icelake-server --target-features=-avx512f 2>&1 | FileCheck %s --check-prefix=I32
// RUN: FileCheck %s --check-prefix=LL-I32 < %t/nof.ll
// An added one counts too.
// RUN: decoda-compile %s -o %t/add.ll --emit=llvm --target-cpu=skylake-avx512 --target-features=+avx512vnni 2>&1 | FileCheck %s --check-prefix=VNNI
// Objects for the baseline and for a CPU without AVX-512 build (LLVM used to abort on both).
// RUN: decoda-compile %s -o %t/x86-64.o --emit=obj --target-cpu=x86-64 2>/dev/null && test -s %t/x86-64.o
// RUN: decoda-compile %s -o %t/hsw.o --emit=obj --target-cpu=haswell 2>/dev/null && test -s %t/hsw.o
// RUN: not decoda-compile %s -o %t/x.so --target-cpu=bogus 2>&1 | FileCheck %s --check-prefix=BOGUS
// RUN: not decoda-compile %s -o %t/x.so --target-cpu=i686 2>&1 | FileCheck %s --check-prefix=BITS32
// RUN: not decoda-compile %s -o %t/x.so --target-features=avx2 2>&1 | FileCheck %s --check-prefix=SIGN
// RUN: not decoda-compile %s -o %t/x.so --target-features=+avx2,+avx512vnnni 2>&1 | FileCheck %s --check-prefix=FEATURE
// RUN: not test -e %t/x.so

// VNNI: remark: decoda-cpu-int8-codegen: 1 i8 contraction as AVX-512 VNNI vpdpbusd register tiles
// LL-VNNI: call <16 x i32> @llvm.x86.avx512.vpdpbusd.512(
// I32: remark: decoda-cpu-int8-codegen: 1 i8 contraction as i32 vector multiply-adds (vnni=false: the target has no AVX-512 VNNI)
// LL-I32-NOT: vpdpbusd
// LL-I32: define {{.*}} @_mlir_ciface_q(
// LL-I32-NOT: vpdpbusd
// BOGUS: error: --target-cpu=bogus: not a CPU LLVM knows for x86_64 (e.g. host, x86-64,
// BITS32: error: --target-cpu=i686: 'i686' is a 32-bit CPU; Decoda builds x86_64 code
// SIGN: error: --target-features=avx2: 'avx2' is not +FEATURE or -FEATURE
// FEATURE: error: --target-features=+avx2,+avx512vnnni: 'avx512vnnni' is not a feature LLVM knows for x86_64

func.func @q(%x: tensor<1x?x64xi8> {decoda.name = "x"}, %w: tensor<40x64xi8> {decoda.name = "w"},
             %ws: tensor<40xf32> {decoda.name = "ws"}) -> (tensor<1x?x40xf32> {decoda.name = "y"}) {
  %xs = arith.constant dense<0.25> : tensor<f32>
  %y = decoda.qlinear %x, %w, %xs, %ws : tensor<1x?x64xi8>, tensor<40x64xi8>, tensor<f32>, tensor<40xf32> -> tensor<1x?x40xf32>
  return %y : tensor<1x?x40xf32>
}
