# RUN: %PYTHON %s
"""The dtype policy of decoda.reference: bf16 emulation (round to nearest even on the float32
pattern) against hand values and an independent frexp-based rounding, storage-type inference, and
results that come back in the storage type."""

import numpy as np

from decoda import reference as R
from decoda import testing as T


def bf16_by_frexp(x):
    """Round finite normal float32 values to 8 significant bits, half to even, in float64."""
    m, e = np.frexp(np.asarray(x, np.float64))         # x = m 2^e, 0.5 <= |m| < 1
    return np.ldexp(np.rint(np.ldexp(m, 8)), e - 8)


def test_bf16_hand_values():
    u = 2.0 ** -7                                     # bf16 spacing in [1, 2)
    cases = {
        1.0: 1.0,
        1 + u / 2: 1.0,                               # tie, 1 is even
        1 + 3 * u / 2: 1 + 2 * u,                     # tie, 1 + u is odd -> up to 1 + 2u
        1 + u / 2 + 2.0 ** -20: 1 + u,                # above the tie -> up
        -(1 + 3 * u / 2): -(1 + 2 * u),               # symmetric for negatives
        3.3895313892515355e38: 3.3895313892515355e38,  # largest finite bf16 (0x7F7F)
        float(np.finfo(np.float32).max): np.inf,       # past it: overflow to inf
        2.0 ** -133: 2.0 ** -133,                      # smallest bf16 subnormal
        2.0 ** -140: 0.0,                              # below half of it: to zero
        np.inf: np.inf, -np.inf: -np.inf, 0.0: 0.0,
    }
    xs = np.array(list(cases), np.float32)
    T.assert_equal(R.to_bf16(xs), np.array(list(cases.values()), np.float32), op="to_bf16",
                   what="hand values")
    T.check(np.isnan(R.to_bf16(np.float32(np.nan))), "NaN stays NaN")
    T.check(R.to_bf16(xs).dtype == np.float32, "to_bf16 returns float32")
    T.check(np.all(R.to_bf16(xs[np.isfinite(xs)]).view(np.uint32) & 0xFFFF == 0),
            "the low 16 bits are dropped")


def test_bf16_against_frexp_rounding():
    g = T.rng(90)
    x = (g.standard_normal(20000) * np.exp(g.uniform(-30, 30, 20000))).astype(np.float32)
    T.assert_equal(R.to_bf16(x), bf16_by_frexp(x).astype(np.float32), op="to_bf16",
                   what="random normal values")
    # Idempotent, and is_bf16 recognises its results.
    T.assert_equal(R.to_bf16(R.to_bf16(x)), R.to_bf16(x), op="to_bf16", what="idempotent")
    T.check(R.is_bf16(R.to_bf16(x)) and not R.is_bf16(x), "is_bf16")
    # Relative rounding error at most 2^-8 (half a unit in the 8-bit significand).
    rel = np.abs(R.to_bf16(x).astype(np.float64) - x) / np.abs(x.astype(np.float64))
    T.check(rel.max() <= 2.0 ** -8, f"bf16 relative error {rel.max():.3g} <= 2^-8")


def test_storage_types():
    T.check(R.storage_of(np.zeros(2, np.float32)) == "f32", "float32 -> f32")
    T.check(R.storage_of(np.zeros(2, np.float16)) == "f16", "float16 -> f16")
    T.check(R.storage_of(np.zeros(2, np.float32), "bf16") == "bf16", "explicit bf16")
    T.assert_raises(TypeError, R.storage_of, np.zeros(2, np.int32), op="storage_of",
                    what="integer tensor")
    T.assert_raises(ValueError, R.storage_of, np.zeros(2), "f8", op="storage_of",
                    what="unknown storage")
    T.check(R.to_storage(np.array([1 / 3]), "f16").dtype == np.float16, "to_storage f16")


def test_results_in_storage_type():
    g = T.rng(91)
    x32 = T.randn(g, (2, 4, 2, 8))
    w = T.randn(g, (8,))
    wl = T.randn(g, (8, 8))
    ops = {
        "rms_norm": lambda x, st: R.rms_norm(x, w, 1e-6, storage=st),
        "layer_norm": lambda x, st: R.layer_norm(x, w, None, 1e-5, storage=st),
        "linear": lambda x, st: R.linear(x, wl, storage=st),
        "softcap": lambda x, st: R.softcap(x, 1.5, storage=st),
        "glu": lambda x, st: R.glu(x, x, "geglu", storage=st),
        "rope": lambda x, st: R.rope(x, storage=st),
        "attention": lambda x, st: R.attention(x, x, x, causal=True, storage=st),
        "residual_add": lambda x, st: R.residual_add(x, x, 0.3, storage=st),
    }
    for name, op in ops.items():
        y16 = op(x32.astype(np.float16), None)
        T.check(y16.dtype == np.float16, f"{name}: f16 in, f16 out")
        yb = op(x32, "bf16")
        T.check(yb.dtype == np.float32 and R.is_bf16(yb), f"{name}: bf16 result is bf16-valued")
        # bf16 operands are rounded on entry: unrounded float32 input = pre-rounded input.
        T.assert_equal(yb, op(R.to_bf16(x32), "bf16"), op=name, what="bf16 rounding on entry")
        T.check(op(x32, None).dtype == np.float32, f"{name}: f32 in, f32 out")


if __name__ == "__main__":
    T.run_tests(globals())
