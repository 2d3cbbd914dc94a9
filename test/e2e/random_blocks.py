# RUN: rm -rf %t && mkdir -p %t
# RUN: %PYTHON %s %t
"""Randomized differential testing, CI size: 50 random decoder blocks (fixed seeds 0-49) from
python/tools/random_blocks.py, each compiled through one of the pipeline configurations
(default, --no-graph-opt, fuse-projections off, a small attention key tile, in rotation; MLA
blocks also through absorb-mla) and run at 2-3 sequence lengths
against the NumPy reference. The long run (every block through every configuration) is the
documented command of docs/Reliability.md.

Also checks that the generator covers what it claims over these 50 seeds (every dtype, norm kind
and placement, MLP kind, RoPE variant, GQA/MQA, window, chunked attention, sinks, softcap, MLA,
constant weights), so a change to the generator cannot quietly shrink the coverage.
"""

import os
import sys
from collections import Counter

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "python", "tools"))
import random_blocks as RB  # noqa: E402
from decoda import testing as T  # noqa: E402

WORK = sys.argv[1] if len(sys.argv) > 1 else None
SEEDS = list(range(50))


def test_generator_coverage():
    specs = [RB.draw_spec(s) for s in SEEDS]
    seen = Counter()
    for s in specs:
        seen[s.dtype] += 1
        seen[f"{s.placement}-{s.norm}"] += 1
        seen[s.mlp] += 1
        seen["mla" if s.mla else ("mqa" if s.kv_heads == 1 else
                                  "gqa" if s.kv_heads < s.heads else "mha")] += 1
        if s.rope and not s.mla:
            seen["partial-rope" if s.rope["rotary_dim"] < s.head_dim else "full-rope"] += 1
            seen["rope-" + (s.rope["scaling"]["kind"] if s.rope["scaling"] else "plain")] += 1
            seen["rope-" + s.rope["layout"]] += 1
        for flag in ("window", "chunk", "sinks", "softcap", "qk_norm", "qkv_bias", "mlp_bias"):
            if getattr(s, flag):
                seen[flag] += 1
        seen["causal" if s.causal else "bidirectional"] += 1
        seen["weights-" + s.weights] += 1
        seen["T=1"] += 1 in s.lengths
        seen["T>tile"] += any(t > s.key_tile for t in s.lengths)
    want = ["f32", "f16", "bf16", "pre-rms", "post-rms", "pre-layer", "post-layer", "swiglu",
            "geglu", "situ", "clamped_swiglu", "mla", "mqa", "gqa", "mha",
            "partial-rope", "full-rope", "rope-plain", "rope-linear", "rope-yarn", "rope-llama3",
            "rope-interleaved", "rope-half_split", "window", "chunk", "sinks", "softcap", "qk_norm",
            "qkv_bias", "mlp_bias", "causal", "bidirectional", "weights-args", "weights-consts",
            "weights-mixed", "T=1", "T>tile"]
    missing = [w for w in want if not seen[w]]
    T.check(not missing, f"seeds 0-49 never draw: {missing}")
    T.check(any(seen[k] for k in seen if k.startswith("mlp:")), "no plain MLP drawn")
    print("  coverage: " + ", ".join(f"{k} {v}" for k, v in sorted(seen.items())))


def test_random_blocks_ci():
    result = RB.run(SEEDS, rotate=True, group=25, chunk=len(SEEDS), workdir=WORK)
    summary = result["summary"]
    print("  " + str(summary))
    T.check(summary["cases"] == 50, summary)
    T.check(set(summary["pipelines"]) == set(RB.PIPELINES), summary["pipelines"])
    T.check(summary["failures"] == 0, "\n".join(
        f"seed {f['seed']} [{f['pipeline']}] T={f['T']}: {f['spec']}\n  {f['failure'][:600]}"
        for f in result["failures"]))


if __name__ == "__main__":
    T.run_tests(globals())
