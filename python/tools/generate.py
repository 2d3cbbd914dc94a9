#!/usr/bin/python3
"""Greedy generation with a KV cache on the small ONNX decoder model, compiled by Decoda, step by
step next to ONNX Runtime.

Builds ``decoda.onnx_models.decoder_model`` (2 layers, hidden 64, GQA, vocab 256, random weights;
Hugging Face input/output names) or takes ``--model``, compiles it with ``decoda-compile``, and
generates greedily: one prefill of the prompt, then one decode step per token feeding
``present.*`` back as ``past_key_values.*``. ONNX Runtime runs its own chain on the same prompt;
every step's logits are compared and the tokens must agree. Prints tokens per second.

    /usr/bin/python3 python/tools/generate.py [--steps 16] [--prompt-len 8] [--batch 1]
        [--threads 1] [--ort-only] [--model decoder.onnx]

Exit status: 0 when the two agree within --rtol/--atol on every step, 1 otherwise, 2 on a usage
or compile error.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

from decoda import onnx_models as M  # noqa: E402
from decoda.ort import OrtSession  # noqa: E402


class DecodaStepper:
    """Runs the compiled model's entry ``main`` with inputs by ONNX name."""

    def __init__(self, so_path, input_names, output_names):
        from decoda import runtime
        self.model = runtime.load(str(so_path))
        self.inputs, self.outputs = list(input_names), list(output_names)

    def run(self, feeds):
        outs = self.model.run("main", *[feeds[n] for n in self.inputs])
        if not isinstance(outs, tuple):
            outs = (outs,)
        return dict(zip(self.outputs, outs))


class OrtStepper:
    def __init__(self, path, threads):
        self.session = OrtSession(path, threads=threads)

    def run(self, feeds):
        return self.session.run(feeds)


def generate(stepper, cfg: M.DecoderConfig, prompt: np.ndarray, steps: int):
    """Greedy decoding: returns (tokens [B, steps], per-step logits of the last position,
    prefill seconds, decode seconds)."""
    batch, plen = prompt.shape
    feeds = {"input_ids": prompt, "attention_mask": np.ones((batch, plen), np.int64),
             "position_ids": np.tile(np.arange(plen, dtype=np.int64), (batch, 1))}
    for i in range(cfg.layers):
        for kv in ("key", "value"):
            feeds[f"past_key_values.{i}.{kv}"] = np.zeros((batch, cfg.kv_heads, 0, cfg.head_dim),
                                                          np.float32)
    tokens, logits_seen = [], []
    t0 = time.perf_counter()
    t_prefill = 0.0
    for step in range(steps):
        out = stepper.run(feeds)
        if step == 0:
            t_prefill = time.perf_counter() - t0
        last = out["logits"][:, -1, :]
        logits_seen.append(last)
        nxt = np.argmax(last, axis=-1).astype(np.int64)
        tokens.append(nxt)
        total = feeds["attention_mask"].shape[1] + 1
        feeds = {"input_ids": nxt[:, None],
                 "attention_mask": np.ones((batch, total), np.int64),
                 "position_ids": np.full((batch, 1), total - 1, np.int64)}
        for i in range(cfg.layers):
            for kv in ("key", "value"):
                feeds[f"past_key_values.{i}.{kv}"] = out[f"present.{i}.{kv}"]
    t_total = time.perf_counter() - t0
    return np.stack(tokens, axis=1), logits_seen, t_prefill, t_total - t_prefill


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--steps", type=int, default=16, help="tokens to generate")
    p.add_argument("--prompt-len", type=int, default=8)
    p.add_argument("--batch", type=int, default=1)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--threads", type=int, default=1, help="ONNX Runtime intra-op threads")
    p.add_argument("--model", help="an ONNX decoder with the HF cache interface (default: build "
                   "decoda.onnx_models.decoder_model)")
    p.add_argument("--workdir", help="where the .onnx and .so go (default: a temporary dir)")
    p.add_argument("--ort-only", action="store_true", help="generate with ONNX Runtime only")
    p.add_argument("--rtol", type=float, default=1e-4)
    p.add_argument("--atol", type=float, default=1e-4)
    args = p.parse_args(argv)

    cfg = M.DecoderConfig()
    work = Path(args.workdir or tempfile.mkdtemp(prefix="decoda-generate-"))
    try:
        return _run(args, cfg, work)
    finally:
        if not args.workdir:
            shutil.rmtree(work, ignore_errors=True)


def _run(args, cfg, work) -> int:
    if args.model:
        path = Path(args.model)
        import onnx
        model = onnx.load(str(path), load_external_data=False)
    else:
        model = M.decoder_model(cfg)
        path = M.save(model, work / "decoder_kv.onnx")
    rng = np.random.default_rng(args.seed)
    prompt = rng.integers(0, cfg.vocab, (args.batch, args.prompt_len)).astype(np.int64)
    print(f"model {path}: {cfg.layers} layers, hidden {cfg.hidden}, {cfg.heads} heads / "
          f"{cfg.kv_heads} KV heads, vocab {cfg.vocab}; prompt {args.batch}x{args.prompt_len}, "
          f"{args.steps} greedy steps")

    ort = OrtStepper(path, args.threads)
    ref_tokens, ref_logits, ort_pre, ort_dec = generate(ort, cfg, prompt, args.steps)
    ort.session.close()
    n_dec = max(args.steps - 1, 1) * args.batch
    print(f"ONNX Runtime: tokens {ref_tokens.tolist()}")
    print(f"ONNX Runtime: prefill {ort_pre * 1e3:.2f} ms, decode {n_dec / max(ort_dec, 1e-9):.1f} "
          "tokens/s (through the Node pipe, per-call overhead included)")
    if args.ort_only:
        return 0

    from decoda.compiler import CompileError, compile_onnx
    try:
        so = compile_onnx(path, work / "decoder_kv.so")
    except CompileError as exc:
        print(exc)
        return 2
    dec = DecodaStepper(so, M.input_names(model), M.output_names(model))
    tokens, logits, pre, dec_t = generate(dec, cfg, prompt, args.steps)
    print(f"Decoda:       tokens {tokens.tolist()}")
    print(f"Decoda:       prefill {pre * 1e3:.2f} ms, decode {n_dec / max(dec_t, 1e-9):.1f} "
          "tokens/s")
    ok = True
    for step, (a, r) in enumerate(zip(logits, ref_logits)):
        err = float(np.max(np.abs(a - r)))
        tol = args.atol + args.rtol * float(np.max(np.abs(r)))
        same = bool(np.array_equal(tokens[:, step], ref_tokens[:, step]))
        flag = "ok" if err <= tol and same else "MISMATCH"
        ok &= flag == "ok"
        print(f"  step {step:3d} ({'prefill' if step == 0 else 'decode '}): logits max abs "
              f"error {err:.3g} (tol {tol:.3g}), tokens {'agree' if same else 'DIFFER'} {flag}")
        if not same:
            break
    print("generation matches ONNX Runtime" if ok else "generation does NOT match ONNX Runtime")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
