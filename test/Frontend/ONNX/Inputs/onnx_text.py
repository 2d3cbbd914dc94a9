"""Builds an .onnx file from ONNX's textual syntax embedded in a lit test.

Usage: onnx_text.py TEST_FILE OUT.onnx [--case NAME] [--raw] [--external DIR-RELATIVE-NAME]
       [--external-location L] [--external-offset N] [--external-length N]
       [--external-key K=V]... [--truncate N] [--set-initializer-bytes NAME=N] [--set-dtype NAME=T]

The model text is every line of TEST_FILE that starts with "//ONNX " (or "//ONNX-<NAME> " with
--case NAME), with the prefix removed. --raw stores initializers as raw_data; --external moves
every initializer's data into one external file next to OUT (offsets recorded; the
--external-* options record something else instead, for the rejection tests); --truncate keeps
the first N bytes of the serialised model; the --set-* options corrupt an initializer on purpose
(for the importer's error tests). Run with Debian's /usr/bin/python3 (python3-onnx).
"""

import argparse
import os
import sys

import onnx
import onnx.parser
from onnx import numpy_helper


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("test")
    ap.add_argument("out")
    ap.add_argument("--case", default="")
    ap.add_argument("--raw", action="store_true")
    ap.add_argument("--external", default="")
    ap.add_argument("--truncate", type=int, default=-1)
    ap.add_argument("--set-initializer-bytes", default="")
    ap.add_argument("--set-dtype", default="")
    ap.add_argument("--external-location", default="",
                    help="record this location instead of the file written")
    ap.add_argument("--external-offset", default="", help="recorded as given (any text)")
    ap.add_argument("--external-length", default="", help="recorded as given (any text)")
    ap.add_argument("--external-key", action="append", default=[],
                    help="an extra KEY=VALUE entry (repeatable)")
    a = ap.parse_args()

    prefix = f"//ONNX-{a.case} " if a.case else "//ONNX "
    lines = []
    with open(a.test) as f:
        for line in f:
            if line.startswith(prefix):
                lines.append(line[len(prefix):])
            elif line.rstrip() == prefix.rstrip():
                lines.append("\n")
    if not lines:
        sys.exit(f"{a.test}: no lines start with '{prefix}'")
    model = onnx.parser.parse_model("".join(lines))

    if a.raw or a.external:
        for t in model.graph.initializer:
            arr = numpy_helper.to_array(t)
            t.CopyFrom(numpy_helper.from_array(arr, t.name))
    if a.external:
        path = os.path.join(os.path.dirname(os.path.abspath(a.out)), a.external)
        offset = 0
        with open(path, "wb") as blob:
            for t in model.graph.initializer:
                data = t.raw_data
                blob.write(data)
                t.ClearField("raw_data")
                t.data_location = onnx.TensorProto.EXTERNAL
                loc = a.external_location or a.external
                off = a.external_offset or str(offset)
                length = a.external_length or str(len(data))
                entries = [("location", loc), ("offset", off), ("length", length)]
                entries += [tuple(kv.split("=", 1)) for kv in a.external_key]
                for k, v in entries:
                    e = t.external_data.add()
                    e.key, e.value = k, v
                offset += len(data)
    if a.set_initializer_bytes:
        name, n = a.set_initializer_bytes.split("=")
        for t in model.graph.initializer:
            if t.name == name:
                arr = numpy_helper.to_array(t)
                t.CopyFrom(numpy_helper.from_array(arr, t.name))
                t.raw_data = t.raw_data[: int(n)]
    if a.set_dtype:
        name, dt = a.set_dtype.split("=")
        for t in model.graph.initializer:
            if t.name == name:
                t.data_type = int(dt)

    data = model.SerializeToString()
    if a.truncate >= 0:
        data = data[: a.truncate]
    with open(a.out, "wb") as f:
        f.write(data)


if __name__ == "__main__":
    main()
