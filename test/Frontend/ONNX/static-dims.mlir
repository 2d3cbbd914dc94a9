// ONNX dim_params name the dims of the entry's arguments (decoda.dims, "" for a dim without
// one), so `decoda-compile --static-dims=NAME=N` takes the names the exporter wrote; a dim_param
// shared by two inputs is one name. test/Frontend/ONNX/e2e/torch_exports.py runs the PyTorch
// exports built this way against ONNX Runtime.
// RUN: rm -rf %t && mkdir -p %t
// RUN: decoda-translate --import-onnx %S/models/torch_llama_decoder_layer_dynamic.onnx | FileCheck %s --check-prefix=IMPORT
// IMPORT: func.func @main(%arg0: tensor<?x?x64xf32> {decoda.dims = ["batch", "sequence", ""], decoda.name = "hidden_states"}, %arg1: tensor<?x?xi64> {decoda.dims = ["batch", "sequence"], decoda.name = "position_ids"})

// RUN: decoda-compile %S/models/torch_llama_decoder_layer_dynamic.onnx --static-dims=batch=1,sequence=1 -o %t/one.so
// RUN: decoda-run %t/one.so --list | FileCheck %s --check-prefix=LIST
// LIST:      input hidden_states: f32 [1, 1, 64]
// LIST-NEXT: input position_ids: i64 [1, 1]
// RUN: decoda-compile %S/models/torch_llama_decoder_layer_dynamic.onnx --static-dims=sequence=5 -o %t/five.so
// RUN: decoda-run %t/five.so --list | FileCheck %s --check-prefix=FIVE
// FIVE:      input hidden_states: f32 [?, 5, 64]
// FIVE-NEXT: input position_ids: i64 [?, 5]

// The compiled model refuses another binding, naming the input.
// RUN: %PYTHON -c "import numpy as np; np.save('%t/h.npy', np.zeros((1, 2, 64), np.float32)); np.save('%t/p.npy', np.zeros((1, 2), np.int64))"
// RUN: not decoda-run %t/one.so --input hidden_states=%t/h.npy --input position_ids=%t/p.npy 2>&1 | FileCheck %s --check-prefix=WRONG
// WRONG: input 'hidden_states'{{.*}}shape [1, 2, 64] does not match the model's [1, 1, 64]

// A name the model does not have is an error listing the ones it has; static dims stay unnamed.
// RUN: not decoda-compile %S/models/torch_llama_decoder_layer_dynamic.onnx --static-dims=seq=1 -o %t/e.so 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// UNKNOWN: error: --static-dims=seq=1: no argument dimension is named 'seq' (named dimensions: batch, sequence)
// RUN: decoda-translate --import-onnx %S/models/torch_llama_decoder_layer_static.onnx | FileCheck %s --check-prefix=STATIC
// STATIC: func.func @main(%arg0: tensor<2x7x64xf32> {decoda.name = "hidden_states"}, %arg1: tensor<2x7xi64> {decoda.name = "position_ids"})

// decoda-raise-onnx runs before the static dims (on the graph as imported, the form its patterns
// read), so a static build raises what the dynamic one does: RoPE and the gated MLP included
// (before: 'no change' for them). --verify-numerics compares the raised program with the one
// as written, both with the static sizes (the worst element of [?, 3, 64] at sequence index 2
// shows the static length).
// RUN: decoda-compile %S/models/torch_llama_decoder_layer_dynamic.onnx --static-dims=sequence=3 --report -o %t/r.so 2>&1 | FileCheck %s --check-prefix=REPORT
// REPORT: decoda-raise-onnx: {{.*}}+1 decoda.attention, +1 decoda.gated_mlp, +2 decoda.residual_add, +2 decoda.rms_norm, +2 decoda.rope
// RUN: decoda-compile %S/models/torch_llama_decoder_layer_dynamic.onnx --static-dims=sequence=3 --verify-numerics --verify-numerics-dim=2 -o %t/v.so 2>&1 | FileCheck %s --check-prefix=VERIFY
// VERIFY: verify-numerics: @main after decoda-raise-onnx: ok, {{.*}} (worst at [{{[01]}}, {{[012]}}, {{[0-9]+}}]
// VERIFY: verify-numerics: no drift after 5 graph passes
// The dump numbers the passes of both stages in the order they ran.
// RUN: decoda-compile %S/models/torch_llama_decoder_layer_dynamic.onnx --static-dims=sequence=3 --dump-ir-after-each=%t/dump -o %t/d.so
// RUN: ls %t/dump | FileCheck %s --check-prefix=DUMP
// DUMP:      01-decoda-raise-onnx.mlir
// DUMP-NEXT: 02-canonicalize.mlir
// DUMP-NEXT: 03-cse.mlir
// DUMP-NEXT: 04-decoda-fuse-projections.mlir
