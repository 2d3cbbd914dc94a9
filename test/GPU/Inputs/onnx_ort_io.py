"""Random inputs for an ONNX model at given dim_param sizes and ONNX Runtime's outputs, as the
.npz files gpusim_run.py reads (inputs arg0, arg1, ... in graph order; outputs out0, ...).

  onnx_ort_io.py MODEL.onnx IN.npz OUT.npz NAME=N [NAME=N ...]
  onnx_ort_io.py --case CASE INDEX MODEL.onnx IN.npz OUT.npz [--shared-kv]

decoda.onnx_models.random_feeds (seed 0): floats standard normal, integers small; an input
named position_ids gets 0..T-1 offset by a per-row start (Hugging Face style). With --case, the
model is the registered case CASE (written to MODEL.onnx) and the inputs its input set INDEX;
--shared-kv (a GroupQueryAttention case built with --shared-kv-buffers): each past's entries
after its rows' earlier tokens are zeroed (what ONNX Runtime's unshared present holds there), and
the presents are expected in the donated past arguments (argN) rather than as results."""
import os
import sys

import numpy as np
import onnx

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..",
                                "python"))
from decoda.onnx_models import case, input_names, random_feeds, save  # noqa: E402
from decoda.ort import OrtSession  # noqa: E402


def positions(rng, shape):
    return rng.integers(0, 8, (shape[0], 1)) + np.arange(shape[1])[None, :]


def main():
    shared = False
    if sys.argv[1] == "--case":
        name, index, model_path, in_path, out_path = sys.argv[2:7]
        c = case(name)
        model = c.build()
        save(model, model_path)
        feeds = c.feeds(model)[int(index)]
        shared = "--shared-kv" in sys.argv[7:]
        if shared:
            s, total = feeds["query"].shape[1], int(feeds["total_sequence_length"])
            for past in ("past_key", "past_value"):
                for b, n in enumerate(feeds["seqlens_k"]):
                    feeds[past][b, :, (0 if s == total else n + 1 - s):] = 0
    else:
        model_path, in_path, out_path = sys.argv[1:4]
        dims = {}
        for item in sys.argv[4:]:
            name, _, size = item.partition("=")
            dims[name] = int(size)
        model = onnx.load(model_path)
        feeds = random_feeds(model, dims, seed=0, special={"position_ids": positions})
    with OrtSession(model_path) as s:
        outs = s.run(feeds)
        names = s.output_names
    inputs = input_names(model)
    np.savez(in_path, **{f"arg{i}": feeds[n] for i, n in enumerate(inputs)})
    if shared:
        kept = [n for n in names if not n.startswith("present_")]
        expect = {f"out{i}": outs[n] for i, n in enumerate(kept)}
        for past, present in (("past_key", "present_key"), ("past_value", "present_value")):
            expect[f"arg{inputs.index(past)}"] = outs[present]
        np.savez(out_path, **expect)
    else:
        np.savez(out_path, **{f"out{i}": outs[n] for i, n in enumerate(names)})


if __name__ == "__main__":
    main()
