"""The INT8 Llama-style block for int8-block-sim.mlir: examples/llama_block.mlir (RMSNorm, GQA
with RoPE, causal attention, SwiGLU; hidden 64) with its weights as constants (INT8 weights
are stored in the artifact), as test/e2e/int8_accuracy.py builds it, calibration samples with
outlier channels (20-100x), and one held-out input.

  int8_block.py prepare DIR     DIR/block.mlir, DIR/calib.npz (h: 4 samples), DIR/in.npz
                                (arg0 = one held-out h [1, T, 64]), DIR/ref.npz (out0: the fp32
                                NumPy reference of the block, python/decoda/reference.py)
  int8_block.py compare GOT.npz CPU.npy REF.npz IN.npz
      the CUDA build's output on the interpreter (GOT: gpusim_run.py --save) against the CPU
      build's (CPU: decoda-run --output-dir, AVX-512 VNNI kernels of the same --quantize=int8
      program) and, for scale, both against the fp32 reference: on the residual update
      (output - input) the cosine and the max relative error (max |a - b| / max |b|). The GPU
      and CPU INT8 builds share every quantisation decision (static attention scales, dynamic
      per-token activation scales, the folded weights), so they must agree far more closely
      than either agrees with fp32: asserted GPU-vs-CPU max relative error <= 1e-3 and cosine
      >= 0.99999 (an exp that differs in the last bit between the two targets moves a
      rint(255 p) or a per-token rounding now and then), and GPU-vs-fp32 within 1.25x of
      CPU-vs-fp32.
"""
import os
import sys

import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "..", "e2e"))
sys.path.insert(0, os.path.join(here, "..", "..", "..", "python"))

T = 21


def prepare(d):
    import blocks  # noqa: E402 (test/e2e: example texts, input makers, NumPy references)
    from harness import testing  # noqa: E402
    from int8_accuracy import constant_weights, outlier_inputs  # noqa: E402
    text = blocks._example("llama_block.mlir")
    params = blocks._inputs(text, "llama_block", T, testing.rng(7))
    text = constant_weights(text, "llama_block", params)
    hidden = params["h"].shape[-1]
    calib = outlier_inputs(np.random.default_rng(8), 4, hidden)[:, :T]
    held = outlier_inputs(np.random.default_rng(9), 1, hidden)[:, :T]
    with open(os.path.join(d, "block.mlir"), "w") as f:
        f.write(text)
    np.savez(os.path.join(d, "calib.npz"), h=calib)
    np.savez(os.path.join(d, "in.npz"), arg0=held)
    p = dict(params)
    p["h"] = held
    np.savez(os.path.join(d, "ref.npz"), out0=blocks._llama_reference(p).astype(np.float32))


def metrics(a, b):
    a, b = a.ravel().astype(np.float64), b.ravel().astype(np.float64)
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b))), float(np.abs(a - b).max() / np.abs(b).max())


def compare(got_p, cpu_p, ref_p, in_p):
    h = np.load(in_p)["arg0"]
    got = np.load(got_p)["out0"] - h
    cpu = np.load(cpu_p) - h
    ref = np.load(ref_p)["out0"] - h
    cos_gc, rel_gc = metrics(got, cpu)
    cos_cr, rel_cr = metrics(cpu, ref)
    cos_gr, rel_gr = metrics(got, ref)
    print(f"gpu vs cpu int8: cosine {cos_gc:.7f} max rel err {rel_gc:.2e}")
    print(f"cpu int8 vs fp32: cosine {cos_cr:.6f} max rel err {rel_cr:.4f}")
    print(f"gpu int8 vs fp32: cosine {cos_gr:.6f} max rel err {rel_gr:.4f}")
    ok = rel_gc <= 1e-3 and cos_gc >= 0.99999 and rel_gr <= 1.25 * rel_cr
    print("ok" if ok else "FAIL")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    if sys.argv[1] == "prepare":
        prepare(sys.argv[2])
    else:
        compare(*sys.argv[2:6])
