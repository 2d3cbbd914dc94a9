# RUN: %PYTHON %s
"""fp32 code for CPUs other than this host: the Llama block of examples/llama_block.mlir (RMSNorm,
GQA + RoPE, causal attention, SwiGLU; contraction codegen's AVX-512-shaped 16- and 32-lane
vectors, OpenMP) compiled with --target-cpu=haswell (AVX2, no AVX-512) and --target-cpu=x86-64
(SSE2 baseline), run on this machine (which executes both) against the NumPy reference at
several sequence lengths. LLVM splits the wide vectors into the target's registers; the
libraries must not use registers the target lacks (no zmm for haswell, no ymm/zmm for x86-64).
INT8 on such targets: test/e2e/qlinear_int8.py (test_qlinear_without_vnni)."""

import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
from blocks import _example, _llama_reference, _run_example  # noqa: E402
from harness import CompiledModule, testing  # noqa: E402

# (name, flags, registers the library must not use, registers it should use)
TARGETS = [
    ("haswell", ["--target-cpu=haswell"], ("zmm",), "ymm"),
    ("x86-64", ["--target-cpu=x86-64"], ("ymm", "zmm"), "xmm"),
]


def _registers_used(so):
    proc = subprocess.run(["objdump", "-d", "--no-show-raw-insn", str(so)], capture_output=True,
                          text=True)
    testing.check(proc.returncode == 0, f"objdump -d {so} failed: {proc.stderr[-500:]}")
    return set(re.findall(r"%([xyz]mm)\d+", proc.stdout))


def test_llama_block_on_other_cpus():
    text = _example("llama_block.mlir")
    for cpu, flags, forbidden, widest in TARGETS:
        model = CompiledModule(text, flags=flags, name=f"llama_block_{cpu}")
        used = _registers_used(model.path)
        for reg in forbidden:
            testing.check(reg not in used, f"{cpu}: the library uses %{reg} registers, which "
                          f"this CPU does not have")
        testing.check(widest in used, f"{cpu}: expected vector code on %{widest} registers")
        _run_example(text, "llama_block", _llama_reference, compiled=model)


if __name__ == "__main__":
    testing.run_tests(globals())
