// decoda-compile --weights=file: constants of at least --weights-min-bytes move to OUT.weights
// (4096-byte header, then the data), which the runtime maps read-only at load; the model's
// results equal NumPy's; a missing, truncated, foreign or corrupted weights file is an error
// naming it (docs/ABI.md, "Weights in a side file").
// RUN: rm -rf %t && mkdir -p %t
// RUN: %PYTHON %S/Inputs/make_weights_model.py %t
// RUN: decoda-compile %t/a.mlir -o %t/a.so --weights=file --weights-min-bytes=1024
// RUN: decoda-compile %t/b.mlir -o %t/b.so --weights=file --weights-min-bytes=1024
// RUN: decoda-compile %t/a.mlir -o %t/embedded.so
// The library loses the weights' bytes: compared on the loaded size (`size`: text + data + bss),
// since file sizes move by page padding (+ 8056 bytes only, once the support source grew).
// RUN: %PYTHON -c "import os, subprocess; out = subprocess.run(['size', '%t/a.so', '%t/embedded.so'], capture_output=True, text=True, check=True).stdout; a, e = (int(l.split()[3]) for l in out.splitlines()[1:]); w = os.path.getsize('%t/a.weights'); print('weights', w, 'smaller', e - a >= w - 4096)" | FileCheck %s --check-prefix=SIZE
// SIZE: weights {{[0-9]+}} smaller True
// RUN: decoda-compile %t/a.mlir -o %t/a.mlir.ll --emit=mlir --weights=file --weights-min-bytes=1024 && FileCheck %s --check-prefix=IR < %t/a.mlir.ll
// IR: llvm.mlir.global external @decoda_weight_table() {{.*}} : !llvm.array<1 x ptr>
// IR-NOT: dense<"0x
// RUN: decoda-run %t/a.so --input x=%t/x.npy --check y=%t/ref.npy --rtol 1e-5 --atol 1e-5 | FileCheck %s --check-prefix=OK
// OK: check y: PASS
// The same file loaded twice shares one mapping, unmapped with the last model loaded from it.
// RUN: %PYTHON %S/Inputs/load_twice.py %t/a.so proj %t/x.npy %t/ref.npy | FileCheck %s --check-prefix=TWICE
// TWICE: second: max abs error {{.*}} PASS
// TWICE-NEXT: first, after the second was freed: max abs error {{.*}} PASS
// TWICE-NEXT: third, after the first was freed: max abs error {{.*}} PASS
// A weight below the threshold stays in the library: no table, nothing mapped.
// RUN: decoda-compile %t/a.mlir -o %t/small.mlir.ll --emit=mlir --weights=file --weights-min-bytes=16384 && FileCheck %s --check-prefix=KEEP < %t/small.mlir.ll
// KEEP-NOT: decoda_weight_table
// Errors.
// RUN: cp %t/a.so %t/lonely.so && not decoda-run %t/lonely.so --input x=%t/x.npy 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: cannot open the weights file '{{.*}}lonely.weights' of model '{{.*}}lonely.so': No such file or directory
// RUN: cp %t/a.so %t/foreign.so && cp %t/b.weights %t/foreign.weights && not decoda-run %t/foreign.so --input x=%t/x.npy 2>&1 | FileCheck %s --check-prefix=FOREIGN
// FOREIGN: '{{.*}}foreign.weights' does not match model '{{.*}}foreign.so': content hash differs (written by another compile)
// RUN: cp %t/a.so %t/short.so && head -c 5000 %t/a.weights > %t/short.weights && not decoda-run %t/short.so --input x=%t/x.npy 2>&1 | FileCheck %s --check-prefix=SHORT
// SHORT: '{{.*}}short.weights' has 5000 bytes; model '{{.*}}short.so' was compiled with a weights file of {{[0-9]+}} bytes
// RUN: cp %t/a.so %t/bad.so && cp %t/a.weights %t/bad.weights && printf 'XXXXXXXX' | dd of=%t/bad.weights conv=notrunc status=none && not decoda-run %t/bad.so --input x=%t/x.npy 2>&1 | FileCheck %s --check-prefix=MAGIC
// MAGIC: '{{.*}}bad.weights' does not match model '{{.*}}bad.so': no Decoda weights header
