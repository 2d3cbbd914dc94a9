"""A small f32 decoder block with constant weights for decoda-convert-float-type, its input, and
its NumPy reference (python/decoda/reference.py) with the block's activations and weights stored
in bf16 and in f16 (the op's own f32 accumulation rules), as the converted programs compute it.

  float_type_block.py OUT_DIR   -> block.mlir, x.npy (x_bf16.npy, x_f16.npy: the same in 16 bits),
                                   ref_bf16.npy, ref_f16.npy, ref_f32.npy
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..",
                                "python"))
from decoda import reference as R  # noqa: E402
from decoda.runtime import float32_to_bf16  # noqa: E402

D, F, EPS = 64, 128, 1e-5
EPS_TEXT = "1.0e-05"


def dense(a):
    a = np.ascontiguousarray(a, dtype=np.float32)
    return 'dense<"0x' + a.tobytes().hex().upper() + '">'


def main():
    out = sys.argv[1]
    g = np.random.default_rng(0)
    x = g.standard_normal((2, 3, D)).astype(np.float32)
    w1 = (1.0 + 0.1 * g.standard_normal(D)).astype(np.float32)
    w2 = (1.0 + 0.1 * g.standard_normal(D)).astype(np.float32)
    wq = (g.standard_normal((D, D)) / np.sqrt(D)).astype(np.float32)
    wg = (g.standard_normal((F, D)) / np.sqrt(D)).astype(np.float32)
    wu = (g.standard_normal((F, D)) / np.sqrt(D)).astype(np.float32)
    wd = (g.standard_normal((D, F)) / np.sqrt(F)).astype(np.float32)
    t = lambda s: f"tensor<{'x'.join(map(str, s))}xf32>"  # noqa: E731
    xt = t((2, 3, D))
    mlir = f"""func.func @block(%x: {xt} {{decoda.name = "x"}}) -> ({xt} {{decoda.name = "y"}}) {{
  %w1 = arith.constant {dense(w1)} : {t((D,))}
  %w2 = arith.constant {dense(w2)} : {t((D,))}
  %wq = arith.constant {dense(wq)} : {t((D, D))}
  %wg = arith.constant {dense(wg)} : {t((F, D))}
  %wu = arith.constant {dense(wu)} : {t((F, D))}
  %wd = arith.constant {dense(wd)} : {t((D, F))}
  %n = decoda.rms_norm %x, %w1 {{eps = {EPS_TEXT} : f64}} : {xt}, {t((D,))}
  %q = decoda.linear %n, %wq : {xt}, {t((D, D))}
  %h = decoda.residual_add %x, %q : {xt}
  %n2 = decoda.rms_norm %h, %w2 {{eps = {EPS_TEXT} : f64}} : {xt}, {t((D,))}
  %m = decoda.gated_mlp %n2, %wg, %wu, %wd {{kind = #decoda.glu<swiglu>}} : {xt}, {t((F, D))}, {t((F, D))}, {t((D, F))}
  %y = decoda.residual_add %h, %m : {xt}
  return %y : {xt}
}}
"""
    with open(os.path.join(out, "block.mlir"), "w") as f:
        f.write(mlir)
    np.save(os.path.join(out, "x.npy"), x)
    # The input of the --float-type-io builds: bf16 bit patterns ('<u2', docs/ABI.md), float16.
    np.save(os.path.join(out, "x_bf16.npy"), float32_to_bf16(x).astype("<u2"))
    np.save(os.path.join(out, "x_f16.npy"), x.astype(np.float16))

    def run(cast, storage):
        xs = cast(x)
        ws = [cast(w) for w in (w1, w2, wq, wg, wu, wd)]
        n = R.rms_norm(xs, ws[0], EPS, storage=storage)
        h = R.residual_add(xs, R.linear(n, ws[2], storage=storage), storage=storage)
        n2 = R.rms_norm(h, ws[1], EPS, storage=storage)
        m = R.gated_mlp(n2, ws[3], ws[4], ws[5], "swiglu", storage=storage)
        return np.asarray(R.residual_add(h, m, storage=storage)).astype(np.float32)

    np.save(os.path.join(out, "ref_bf16.npy"), run(R.to_bf16, "bf16"))
    np.save(os.path.join(out, "ref_f16.npy"), run(lambda a: a.astype(np.float16), "f16"))
    np.save(os.path.join(out, "ref_f32.npy"), run(lambda a: a, "f32"))


if __name__ == "__main__":
    main()
