"""Python side of Decoda, an MLIR compiler for transformer decoder blocks.

Submodules:

- ``decoda.reference``: NumPy reference implementations of every ``decoda`` dialect op, written
  from the op descriptions in ``dialects/Decoda/DecodaOps.td`` / ``DecodaAttrs.td`` and the
  formulas they cite (not from any compiler code). They define what a lowering must compute.
- ``decoda.testing``: small helpers for tests (seeded random tensors in f32/f16/emulated bf16,
  ``assert_allclose`` that names the op and the worst index, a tiny test runner).

Nothing heavy is imported by ``import decoda``; the submodules (and NumPy) load on first use::

    import decoda
    y = decoda.reference.rms_norm(x, w, eps=1e-6)
"""

import importlib

__all__ = ["reference", "testing"]


def __getattr__(name):
    if name in __all__:
        module = importlib.import_module(f"{__name__}.{name}")
        globals()[name] = module
        return module
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

try:  # the runtime binding; its library loads on first use, so this only guards the import
    from .runtime import load, DecodaError  # noqa: E402,F401
except (ImportError, OSError):  # pragma: no cover
    pass
