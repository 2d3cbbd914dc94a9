"""Random inputs for an ONNX model at given dim_param sizes and ONNX Runtime's outputs, as the
.npz files gpusim_run.py reads (inputs arg0, arg1, ... in graph order; outputs out0, ...).

  onnx_ort_io.py MODEL.onnx IN.npz OUT.npz NAME=N [NAME=N ...]

Integer inputs named position_ids get 0..T-1 offset by a per-row start (Hugging Face style);
other integer inputs small non-negative values; floats standard normal (seed 0)."""
import os
import sys

import numpy as np
import onnx

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..",
                                "python"))
from decoda.ort import OrtSession  # noqa: E402

ONNX_TO_NP = {onnx.TensorProto.FLOAT: np.float32, onnx.TensorProto.INT64: np.int64,
              onnx.TensorProto.INT32: np.int32, onnx.TensorProto.FLOAT16: np.float16}


def main():
    model_path, in_path, out_path = sys.argv[1:4]
    dims = {}
    for item in sys.argv[4:]:
        name, _, size = item.partition("=")
        dims[name] = int(size)
    model = onnx.load(model_path)
    inits = {t.name for t in model.graph.initializer}
    rng = np.random.default_rng(0)
    feeds = {}
    for vi in model.graph.input:
        if vi.name in inits:
            continue
        tt = vi.type.tensor_type
        shape = []
        for d in tt.shape.dim:
            if d.HasField("dim_value"):
                shape.append(d.dim_value)
            elif d.dim_param in dims:
                shape.append(dims[d.dim_param])
            else:
                sys.exit(f"input '{vi.name}': dim '{d.dim_param}' has no size on the command line")
        dtype = ONNX_TO_NP[tt.elem_type]
        if np.issubdtype(dtype, np.integer):
            if vi.name == "position_ids":
                a = rng.integers(0, 8, (shape[0], 1)) + np.arange(shape[1])[None, :]
            else:
                a = rng.integers(0, 4, shape)
            feeds[vi.name] = a.astype(dtype)
        else:
            feeds[vi.name] = rng.standard_normal(shape).astype(dtype)
    with OrtSession(model_path) as s:
        outs = s.run(feeds)
        names = s.output_names
    np.savez(in_path, **{f"arg{i}": a for i, a in enumerate(feeds.values())})
    np.savez(out_path, **{f"out{i}": outs[n] for i, n in enumerate(names)})


if __name__ == "__main__":
    main()
