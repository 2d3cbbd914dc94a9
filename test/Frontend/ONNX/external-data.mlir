// External data: accepted only inside the model's directory, as a regular file with one link,
// known keys each given once, and offset + length within the file; no path component may be a
// symbolic link. Every rejection names the initializer and the location. Two initializers may
// share bytes of one file (overlapping ranges are allowed: the data is read-only).
// RUN: rm -rf %t && mkdir -p %t/m %t/outside
// RUN: %PYTHON %S/Inputs/onnx_text.py %s %t/m/ok.onnx --external ok.bin
// RUN: decoda-translate --import-onnx %t/m/ok.onnx --mlir-elide-resource-strings-if-larger=1000 | FileCheck %s --check-prefix=OK
// RUN: %PYTHON %S/Inputs/onnx_text.py %s %t/m/abs.onnx --external abs.bin --external-location %t/m/abs.bin
// RUN: not decoda-translate --import-onnx %t/m/abs.onnx 2>&1 | FileCheck %s --check-prefix=ABS
// RUN: %PYTHON %S/Inputs/onnx_text.py %s %t/m/dotdot.onnx --external dotdot.bin --external-location ../outside/w.bin
// RUN: cp %t/m/dotdot.bin %t/outside/w.bin
// RUN: not decoda-translate --import-onnx %t/m/dotdot.onnx 2>&1 | FileCheck %s --check-prefix=DOTDOT
// RUN: %PYTHON %S/Inputs/onnx_text.py %s %t/m/link.onnx --external real.bin --external-location link.bin
// RUN: ln -s real.bin %t/m/link.bin
// RUN: not decoda-translate --import-onnx %t/m/link.onnx 2>&1 | FileCheck %s --check-prefix=SYMLINK
// RUN: %PYTHON %S/Inputs/onnx_text.py %s %t/m/esc.onnx --external esc.bin --external-location escape.bin
// RUN: cp %t/m/esc.bin %t/outside/secret.bin && ln -s ../outside/secret.bin %t/m/escape.bin
// RUN: not decoda-translate --import-onnx %t/m/esc.onnx 2>&1 | FileCheck %s --check-prefix=ESCAPE
// RUN: %PYTHON %S/Inputs/onnx_text.py %s %t/m/hard.onnx --external hard.bin
// RUN: ln %t/m/hard.bin %t/outside/hard-copy.bin
// RUN: not decoda-translate --import-onnx %t/m/hard.onnx 2>&1 | FileCheck %s --check-prefix=HARDLINK
// RUN: %PYTHON %S/Inputs/onnx_text.py %s %t/m/off.onnx --external off.bin --external-offset 4096
// RUN: not decoda-translate --import-onnx %t/m/off.onnx 2>&1 | FileCheck %s --check-prefix=OFFSET
// RUN: %PYTHON %S/Inputs/onnx_text.py %s %t/m/len.onnx --external len.bin --external-length 100000
// RUN: not decoda-translate --import-onnx %t/m/len.onnx 2>&1 | FileCheck %s --check-prefix=LENGTH
// RUN: %PYTHON %S/Inputs/onnx_text.py %s %t/m/short.onnx --external short.bin --external-length 8
// RUN: not decoda-translate --import-onnx %t/m/short.onnx 2>&1 | FileCheck %s --check-prefix=SHORT
// RUN: %PYTHON %S/Inputs/onnx_text.py %s %t/m/key.onnx --external key.bin --external-key basepath=/etc
// RUN: not decoda-translate --import-onnx %t/m/key.onnx 2>&1 | FileCheck %s --check-prefix=KEY
// RUN: %PYTHON %S/Inputs/onnx_text.py %s %t/m/dir.onnx --external dir.bin --external-location sub
// RUN: mkdir -p %t/m/sub
// RUN: not decoda-translate --import-onnx %t/m/dir.onnx 2>&1 | FileCheck %s --check-prefix=DIR
// RUN: %PYTHON %S/Inputs/onnx_text.py %s %t/m/gone.onnx --external gone.bin --external-location gone-missing.bin
// RUN: not decoda-translate --import-onnx %t/m/gone.onnx 2>&1 | FileCheck %s --check-prefix=GONE
// RUN: %PYTHON %S/Inputs/onnx_text.py %s %t/m/nested.onnx --external nested.bin --external-location a/../../outside/w.bin
// RUN: mkdir -p %t/m/a
// RUN: not decoda-translate --import-onnx %t/m/nested.onnx 2>&1 | FileCheck %s --check-prefix=NESTED
// RUN: %PYTHON %S/Inputs/onnx_text.py %s %t/m/pdir.onnx --external pdir.bin --external-location linkdir/w.bin
// RUN: ln -s ../outside %t/m/linkdir
// RUN: not decoda-translate --import-onnx %t/m/pdir.onnx 2>&1 | FileCheck %s --check-prefix=PARENT-LINK
// RUN: mkdir -p %t/m/real && cp %t/m/pdir.bin %t/m/real/w.bin && ln -s real %t/m/inlink
// RUN: %PYTHON %S/Inputs/onnx_text.py %s %t/m/pdir2.onnx --external pdir2.bin --external-location inlink/w.bin
// RUN: not decoda-translate --import-onnx %t/m/pdir2.onnx 2>&1 | FileCheck %s --check-prefix=PARENT-LINK-IN
// RUN: %PYTHON %S/Inputs/onnx_text.py %s %t/m/negoff.onnx --external negoff.bin --external-offset=-4
// RUN: not decoda-translate --import-onnx %t/m/negoff.onnx 2>&1 | FileCheck %s --check-prefix=NEG-OFFSET
// RUN: %PYTHON %S/Inputs/onnx_text.py %s %t/m/neglen.onnx --external neglen.bin --external-length=-384
// RUN: not decoda-translate --import-onnx %t/m/neglen.onnx 2>&1 | FileCheck %s --check-prefix=NEG-LENGTH
// RUN: %PYTHON %S/Inputs/onnx_text.py %s %t/m/hugeoff.onnx --external hugeoff.bin --external-offset 9223372036854775807
// RUN: not decoda-translate --import-onnx %t/m/hugeoff.onnx 2>&1 | FileCheck %s --check-prefix=HUGE-OFFSET
// RUN: %PYTHON %S/Inputs/onnx_text.py %s %t/m/hugelen.onnx --external hugelen.bin --external-offset 48 --external-length 9223372036854775807
// RUN: not decoda-translate --import-onnx %t/m/hugelen.onnx 2>&1 | FileCheck %s --check-prefix=HUGE-LENGTH
// RUN: %PYTHON %S/Inputs/onnx_text.py %s %t/m/ovf.onnx --external ovf.bin --external-length 18446744073709551616
// RUN: not decoda-translate --import-onnx %t/m/ovf.onnx 2>&1 | FileCheck %s --check-prefix=OVERFLOW
// RUN: %PYTHON %S/Inputs/onnx_text.py %s %t/m/past.onnx --external past.bin --external-offset 100 --external-length 384
// RUN: not decoda-translate --import-onnx %t/m/past.onnx 2>&1 | FileCheck %s --check-prefix=PAST-END
// RUN: %PYTHON %S/Inputs/onnx_text.py %s %t/m/dup.onnx --external dup.bin --external-key location=other.bin
// RUN: not decoda-translate --import-onnx %t/m/dup.onnx 2>&1 | FileCheck %s --check-prefix=DUP-KEY
// RUN: %PYTHON %S/Inputs/onnx_text.py %s %t/m/dupoff.onnx --external dupoff.bin --external-key offset=0
// RUN: not decoda-translate --import-onnx %t/m/dupoff.onnx 2>&1 | FileCheck %s --check-prefix=DUP-OFFSET
// Two initializers reading overlapping bytes of one file is allowed (the bytes are read-only):
// with every offset 0, b reads the first 48 bytes that w reads too.
// RUN: %PYTHON %S/Inputs/onnx_text.py %s %t/m/overlap.onnx --external overlap.bin --external-offset 0
// RUN: decoda-translate --import-onnx %t/m/overlap.onnx --mlir-elide-resource-strings-if-larger=1000 | FileCheck %s --check-prefix=OVERLAP

//ONNX <ir_version: 8, opset_import: ["" : 17]>
//ONNX g (float[t, 8] x) => (float[t, 12] y)
//ONNX <float[8, 12] w = {0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 0.0, 0.5, 1.0, 1.5, 2.0}, float[12] b = {0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5}>
//ONNX {
//ONNX   h = MatMul(x, w)
//ONNX   y = Add(h, b)
//ONNX }

// The weights come from ok.bin through a blob that shares the bytes; the bias is small enough
// to be inline. 0x04000000 is the blob's alignment, then 0.0, 0.5, 1.0, 1.5 as little-endian floats.
// OK: %[[W:.+]] = arith.constant dense_resource<w> : tensor<8x12xf32>
// OK: decoda.linear %arg0, %[[W]]
// OK: arith.constant dense<5.000000e-01> : tensor<12xf32>
// OK: w: "0x04000000000000000000003F0000803F0000C03F

// ABS: error: initializer 'w': external data location '{{.*}}abs.bin' rejected: absolute paths are not allowed
// DOTDOT: error: initializer 'w': external data location '../outside/w.bin' rejected: '..' components are not allowed
// SYMLINK: error: initializer 'w': external data location 'link.bin' rejected: it is a symbolic link
// ESCAPE: error: initializer 'w': external data location 'escape.bin' rejected: it resolves outside the model's directory
// HARDLINK: error: initializer 'w': external data location 'hard.bin' rejected: the file has 2 hard links (expected 1)
// OFFSET: error: initializer 'w': external data location 'off.bin' rejected: offset 4096 is outside the file (432 bytes)
// LENGTH: error: initializer 'w': external data location 'len.bin' rejected: offset 0 + length 100000 exceeds the file size 432
// SHORT: error: initializer 'w': external data location 'short.bin' rejected: length 8 does not match the tensor's 384 bytes
// KEY: error: initializer 'w': external data location 'key.bin': unknown key 'basepath' (known: location, offset, length, checksum)
// DIR: error: initializer 'w': external data location 'sub' rejected: not a regular file
// GONE: error: initializer 'w': external data location 'gone-missing.bin' rejected: cannot open: No such file or directory
// NESTED: error: initializer 'w': external data location 'a/../../outside/w.bin' rejected: '..' components are not allowed
// PARENT-LINK: error: initializer 'w': external data location 'linkdir/w.bin' rejected: directory 'linkdir' is a symbolic link
// PARENT-LINK-IN: error: initializer 'w': external data location 'inlink/w.bin' rejected: directory 'inlink' is a symbolic link
// NEG-OFFSET: error: initializer 'w': external data location 'negoff.bin': offset '-4' is not a non-negative 64-bit integer
// NEG-LENGTH: error: initializer 'w': external data location 'neglen.bin': length '-384' is not a non-negative 64-bit integer
// HUGE-OFFSET: error: initializer 'w': external data location 'hugeoff.bin' rejected: offset 9223372036854775807 is outside the file (432 bytes)
// HUGE-LENGTH: error: initializer 'w': external data location 'hugelen.bin' rejected: offset 48 + length 9223372036854775807 exceeds the file size 432
// OVERFLOW: error: initializer 'w': external data location 'ovf.bin': length '18446744073709551616' is not a non-negative 64-bit integer
// PAST-END: error: initializer 'w': external data location 'past.bin' rejected: offset 100 + length 384 exceeds the file size 432
// DUP-KEY: error: initializer 'w': external data location 'dup.bin': key 'location' is given more than once ('dup.bin', 'other.bin')
// DUP-OFFSET: error: initializer 'w': external data location 'dupoff.bin': key 'offset' is given more than once ('0', '0')
// OVERLAP: %[[W:.+]] = arith.constant dense_resource<w> : tensor<8x12xf32>
// OVERLAP: arith.constant dense<[0.000000e+00, 5.000000e-01, 1.000000e+00, 1.500000e+00, 2.000000e+00, 2.500000e+00, 3.000000e+00, 0.000000e+00, 5.000000e-01, 1.000000e+00, 1.500000e+00, 2.000000e+00]> : tensor<12xf32>
