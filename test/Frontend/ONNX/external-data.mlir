// External data: accepted only inside the model's directory, as a regular file with one link,
// known keys, and offset + length within the file. Every rejection names the initializer.
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
// KEY: error: initializer 'w': unknown external data key 'basepath' (known: location, offset, length, checksum)
// DIR: error: initializer 'w': external data location 'sub' rejected: not a regular file
// GONE: error: initializer 'w': external data location 'gone-missing.bin' rejected: cannot open: No such file or directory
