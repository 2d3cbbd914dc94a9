"""The instruction mix of the GEMV kernels that read packed codes, in a CUDA build's PTX: a
static figure that needs no GPU (the timing of the same kernels is bench/gpu_check.sh's).

  ptx_loops.py MODEL.ptx [--kernel SUBSTRING] [--code-bits 4]

MODEL.ptx is `decoda-compile --target=cuda --emit=ptx` of a model (one `// gpu.binary @name`
section per kernel). For every loop of a kernel (a backward branch to a label) that loads
codes (global loads whose first register is masked, shifted or permuted), prints the PTX
instructions of one iteration by opcode and per weight (bytes of codes loaded × 8 /
--code-bits); a kernel with no such loop (K short enough to unroll whole) is counted whole,
prologue and epilogue included. Instructions spread over lines (mma.sync's operands) count
once.

PTX is not SASS: ptxas merges `and`/`or` pairs into one LOP3 and a `mov.b32 {lo, hi}` with the
conversion that follows; the counts bound the issue slots a weight costs from above and compare
two builds of the same kernel (before / after a change) one for one.
"""
import argparse
import collections
import re
import sys


def sections(text):
    """(kernel name, PTX text) per `// gpu.binary @name` section."""
    parts = re.split(r"(?m)^// gpu\.binary @", text)
    for p in parts[1:]:
        name, _, body = p.partition("\n")
        yield name.strip(), body


def all_instructions(body, labels=None):
    """The instructions of a kernel's PTX (no directives, comments or labels); `labels` (a
    dict) receives each label's instruction index."""
    instrs, pending = [], ""
    for line in body.split("\n"):
        s = line.strip()
        if pending:
            # An instruction over several lines (mma.sync's operand lists) ends at its ';'.
            pending += " " + s
            if s.endswith(";"):
                instrs.append(pending)
                pending = ""
            continue
        if re.match(r"^\$?[\w.]+:$", s):
            if labels is not None:
                labels[s[:-1]] = len(instrs)
            continue
        if not s or s.startswith("//") or s.startswith(".") or s in "{}" or s.startswith(")"):
            continue
        if s.endswith(";") or s.endswith("{") or s.endswith("}"):
            instrs.append(s)
        else:
            pending = s
    return instrs


def loops(body):
    """(label, [instructions]) of every loop: a label and a branch back to it."""
    labels = {}
    instrs = all_instructions(body, labels)
    for i, s in enumerate(instrs):
        m = re.search(r"\bbra(?:\.uni)?\s+(\S+);", s)
        if m and m.group(1) in labels and labels[m.group(1)] <= i:
            yield m.group(1), instrs[labels[m.group(1)]:i + 1]


def opcode(instr):
    return re.sub(r"^@!?%?p\d+\s+", "", instr).split()[0]


def code_bytes(instrs):
    """Bytes of codes `instrs` load: global loads whose first register is masked, shifted or
    permuted (A's loads feed conversions, scales and zero points too)."""
    n = 0
    for s in instrs:
        m = re.match(r"ld\.global(?:\.nc)?(?:\.v(\d))?\.[bu](\d+)\s+\{?([^},]*)", s)
        if not m:
            continue
        first = m.group(3).strip()
        uses = [t for t in instrs if t != s and re.search(re.escape(first) + r"(?!\d)", t)]
        if any(opcode(t) in ("and.b32", "shr.u32", "bfe.u32", "prmt.b32") for t in uses):
            n += int(m.group(1) or 1) * int(m.group(2)) // 8
    return n


def report(what, instrs, bits):
    ops = collections.Counter(opcode(s) for s in instrs)
    weights = code_bytes(instrs) * 8 // bits
    per = f", {len(instrs) / weights:.2f} per weight ({weights} weights a lane)" if weights else ""
    print(f"{what}: {len(instrs)} instructions{per}")
    print("   " + " ".join(f"{k}:{v}" for k, v in ops.most_common()))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("ptx")
    ap.add_argument("--kernel", default="", help="only kernels whose name contains this")
    ap.add_argument("--code-bits", type=int, default=4,
                    help="bits of the packed codes (weights per 16-byte code load: 128 / bits)")
    args = ap.parse_args()
    found = False
    for name, body in sections(open(args.ptx).read()):
        if args.kernel not in name:
            continue
        reported = False
        for label, instrs in loops(body):
            if code_bytes(instrs):
                report(f"{name} loop {label}", instrs, args.code_bits)
                reported = True
        if not reported:
            # No loop over codes (K short enough for the unrolled steps to cover it): the
            # kernel's whole body, prologue and epilogue included.
            instrs = all_instructions(body)
            if code_bytes(instrs):
                report(f"{name} (whole kernel, no loop)", instrs, args.code_bits)
                reported = True
        found |= reported
    if not found:
        print("no kernel loads codes (loads feeding masks, shifts or permutes)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
