# RUN: %PYTHON %s
"""decoda.reference.moe against independent facts: the dense softmax mixture when every expert is
chosen, the seed's top-1 Switch example, DeepSeek-V3 selection bias (chooses, never weights), ties
to the lower index, sigmoid scoring, routed_scale, and that unchosen experts are never evaluated."""

import numpy as np

from decoda import reference as R
from decoda import testing as T


def weights(seed, e=6, d=8, f=12, fs=10, storage="f32"):
    g = T.rng(seed)
    return dict(x=T.randn(g, (2, 5, d), storage=storage),
                router=T.randn(g, (e, d)),
                w_gate=T.randn(g, (e, f, d), scale=0.4),
                w_up=T.randn(g, (e, f, d), scale=0.4),
                w_down=T.randn(g, (e, d, f), scale=0.4),
                shared=(T.randn(g, (fs, d), scale=0.4), T.randn(g, (fs, d), scale=0.4),
                        T.randn(g, (d, fs), scale=0.4)))


def run(wts, shared=True, **kw):
    sg, su, sd = wts["shared"] if shared else (None, None, None)
    return R.moe(wts["x"], wts["router"], wts["w_gate"], wts["w_up"], wts["w_down"],
                 shared_gate=sg, shared_up=su, shared_down=sd, **kw)


def expert_out(wts, e, x, kind="swiglu"):
    return R.gated_mlp(x, wts["w_gate"][e], wts["w_up"][e], wts["w_down"][e], kind)


def softmax_scores(wts):
    z = wts["x"].astype(np.float64) @ wts["router"].astype(np.float64).T
    p = np.exp(z - z.max(-1, keepdims=True))
    return p / p.sum(-1, keepdims=True)


def test_all_experts_is_the_dense_softmax_mixture():
    wts = weights(70)
    p = softmax_scores(wts)
    dense = sum(p[..., e:e + 1] * expert_out(wts, e, wts["x"]) for e in range(6))
    sg, su, sd = wts["shared"]
    shared = R.gated_mlp(wts["x"], sg, su, sd, "swiglu")
    for normalize in (True, False):
        T.assert_allclose(run(wts, top_k=6, scoring="softmax", normalize=normalize),
                          dense + shared, rtol=1e-5, atol=1e-5, op="moe",
                          what=f"top_k = E, normalize={normalize}")
    T.assert_allclose(run(wts, shared=False, top_k=6, normalize=True), dense, rtol=1e-5,
                      atol=1e-5, op="moe", what="no shared expert")


def test_switch_top1_example():
    # The seed's example: router probabilities (.1, .7, .2), top-1 without renormalisation:
    # only E2 runs, its output times .7. With D = 1 and x = 1, logits log p give softmax p.
    g = T.rng(71)
    x = np.ones((1, 1), np.float32)
    router = np.log(np.array([[0.1], [0.7], [0.2]], np.float32))
    wg, wu, wd = T.randn(g, (3, 4, 1)), T.randn(g, (3, 4, 1)), T.randn(g, (3, 1, 4))
    y, chosen, gates = R.moe(x, router, wg, wu, wd, top_k=1, scoring="softmax",
                             return_routing=True)
    T.assert_equal(chosen, [[1]], op="moe", what="expert E2 chosen")
    T.assert_allclose(gates, [[0.7]], rtol=1e-6, op="moe", what="gate .7")
    T.assert_allclose(y, 0.7 * R.gated_mlp(x, wg[1], wu[1], wd[1], "swiglu"), rtol=1e-6,
                      op="moe", what="0.7 E2(x)")
    # With normalisation a single chosen expert gets weight 1.
    y1 = R.moe(x, router, wg, wu, wd, top_k=1, scoring="softmax", normalize=True)
    T.assert_allclose(y1, R.gated_mlp(x, wg[1], wu[1], wd[1], "swiglu"), rtol=1e-6, op="moe",
                      what="normalised top-1")


def test_selection_bias_chooses_but_never_weights():
    wts = weights(72)
    p = softmax_scores(wts)
    # Force experts 4 and 5 for every token with a large bias.
    bias = np.array([0, 0, 0, 0, 10.0, 20.0], np.float32)
    y, chosen, gates = run(wts, shared=False, top_k=2, normalize=False, selection_bias=bias,
                           return_routing=True)
    T.assert_equal(chosen, np.tile([5, 4], (10, 1)), op="moe", what="bias decides the choice")
    flat_p = p.reshape(-1, 6)
    T.assert_allclose(gates, flat_p[:, [5, 4]], rtol=1e-6, op="moe",
                      what="gates are the unbiased scores")
    want = p[..., 5:6] * expert_out(wts, 5, wts["x"]) + p[..., 4:5] * expert_out(wts, 4, wts["x"])
    T.assert_allclose(y, want, rtol=1e-5, atol=1e-6, op="moe", what="output with bias")
    # Without the bias the choice is the top-2 of the scores themselves.
    _, chosen0, gates0 = run(wts, top_k=2, return_routing=True)
    T.assert_equal(chosen0, np.argsort(-flat_p, axis=-1, kind="stable")[:, :2], op="moe",
                   what="unbiased choice")
    T.check(not np.array_equal(chosen0, chosen), "the bias changed the choice")
    # normalize divides the (unbiased) gates by their sum.
    _, _, gn = run(wts, top_k=2, normalize=True, selection_bias=bias, return_routing=True)
    sel = flat_p[:, [5, 4]]
    T.assert_allclose(gn, sel / sel.sum(-1, keepdims=True), rtol=1e-6, op="moe",
                      what="normalised unbiased gates")


def test_ties_go_to_the_lower_index():
    wts = weights(73)
    wts["router"] = np.zeros_like(wts["router"])        # all scores equal 1/E
    _, chosen, gates = run(wts, top_k=3, return_routing=True)
    T.assert_equal(chosen, np.tile([0, 1, 2], (10, 1)), op="moe", what="ties -> lower index")
    T.assert_allclose(gates, np.full((10, 3), 1 / 6), rtol=1e-6, op="moe", what="equal gates")
    # A bias tie between experts 3 and 1 also resolves to the lower index first.
    bias = np.array([0, 1, 0, 1, 0, 0], np.float32)
    _, chosen, _ = run(wts, top_k=2, selection_bias=bias, return_routing=True)
    T.assert_equal(chosen, np.tile([1, 3], (10, 1)), op="moe", what="tied bias")


def test_sigmoid_scoring_and_routed_scale():
    wts = weights(74)
    z = wts["x"].astype(np.float64) @ wts["router"].astype(np.float64).T
    s = (1 / (1 + np.exp(-z))).reshape(-1, 6)
    _, chosen, gates = run(wts, top_k=3, scoring="sigmoid", return_routing=True)
    T.assert_equal(chosen, np.argsort(-s, axis=-1, kind="stable")[:, :3], op="moe",
                   what="sigmoid choice")
    T.assert_allclose(gates, np.take_along_axis(s, chosen, -1), rtol=1e-6, op="moe",
                      what="sigmoid gates")
    _, _, gn = run(wts, top_k=3, scoring="sigmoid", normalize=True, routed_scale=2.5,
                   return_routing=True)
    top = np.take_along_axis(s, chosen, -1)
    T.assert_allclose(gn, 2.5 * top / top.sum(-1, keepdims=True), rtol=1e-6, op="moe",
                      what="DeepSeek-V3 gates: normalised sigmoid times routed_scale")
    # routed_scale scales the routed part only.
    sg, su, sd = wts["shared"]
    shared = R.gated_mlp(wts["x"], sg, su, sd, "swiglu")
    y1 = run(wts, top_k=3, scoring="sigmoid")
    y25 = run(wts, top_k=3, scoring="sigmoid", routed_scale=2.5)
    T.assert_allclose(y25 - shared, 2.5 * (y1 - shared), rtol=1e-4, atol=1e-5, op="moe",
                      what="routed_scale")


def test_only_chosen_experts_are_evaluated():
    wts = weights(75)
    bias = np.array([9.0, 0, 9.0, 0, 0, 0], np.float32)  # every token picks experts 0 and 2
    clean = run(wts, top_k=2, selection_bias=bias)
    for name in ("w_gate", "w_up", "w_down"):
        for e in (1, 3, 4, 5):
            wts[name][e] = np.nan
    poisoned = run(wts, top_k=2, selection_bias=bias)
    T.check(np.isfinite(poisoned).all(), "NaN weights of unchosen experts never reach y")
    T.assert_equal(poisoned, clean, op="moe", what="unchosen experts do not matter")


def test_layouts_and_kinds():
    wts = weights(76)
    kind = R.Glu("situ", beta1=4.0, beta2=25.0)
    y = run(wts, top_k=2, normalize=True, kind=kind)
    sg, su, sd = wts["shared"]
    t = lambda a: np.ascontiguousarray(np.swapaxes(a, -1, -2))   # noqa: E731
    y_io = R.moe(wts["x"], wts["router"], t(wts["w_gate"]), t(wts["w_up"]), t(wts["w_down"]),
                 shared_gate=t(sg), shared_up=t(su), shared_down=t(sd), top_k=2, normalize=True,
                 kind=kind, weight_layout="in_out")
    T.assert_allclose(y_io, y, rtol=1e-6, atol=1e-6, op="moe", what="in_out = out_in")
    # The same routing computed by hand with situ experts.
    p = softmax_scores(wts).reshape(-1, 6)
    top = np.argsort(-p, axis=-1, kind="stable")[:, :2]
    g = np.take_along_axis(p, top, -1)
    g = g / g.sum(-1, keepdims=True)
    xs = wts["x"].reshape(-1, 8)
    want = np.stack([sum(g[i, j] * expert_out(wts, top[i, j], xs[i:i + 1], kind)[0]
                         for j in range(2)) for i in range(10)])
    want = want + R.gated_mlp(xs, sg, su, sd, kind)
    T.assert_allclose(y.reshape(-1, 8), want, rtol=1e-5, atol=1e-6, op="moe",
                      what="situ experts by hand")
    T.assert_raises(ValueError, run, wts, top_k=7, op="moe", what="top_k > E")


def test_low_precision():
    for st in ("f16", "bf16"):
        wts = weights(77, e=8, d=32, f=48, fs=32, storage=st)
        y = run(wts, top_k=2, normalize=True, storage=st)
        wts32 = dict(wts, x=wts["x"].astype(np.float32))
        T.assert_close_to_fp32(y, run(wts32, top_k=2, normalize=True), st, op="moe")


if __name__ == "__main__":
    T.run_tests(globals())
