//===- Precision.h - which ops compute in INT8 and which in float -*- C++ -*-===//
//
// `decoda-compile --report` lists the precision of every op of each entry point after the graph
// (and INT8) passes; `--emit-precision-graph=FILE.dot|FILE.svg` draws the ops coloured by
// precision (INT8 compute, quantize/dequantize boundaries, float, views), as in SmoothQuant's
// precision-flow diagram.
//
//===----------------------------------------------------------------------===//

#ifndef DECODA_DRIVER_PRECISION_H
#define DECODA_DRIVER_PRECISION_H

#include "mlir/IR/BuiltinOps.h"

#include "llvm/Support/raw_ostream.h"

#include <string>

namespace mlir::decoda {

enum class PrecisionClass { Int8, Boundary, Float, View };

struct OpPrecision {
  PrecisionClass kind;
  std::string label;  ///< "int8", "f32", "f32 -> i8", ...
  std::string detail; ///< what runs in which type
};

/// The precision of `op`; nullopt for ops that compute nothing worth listing (constants, shape
/// queries, empty tensors, fills).
std::optional<OpPrecision> classifyPrecision(Operation *op);

/// One line per listed op of every entry point, then counts per class. `stage` names a pass
/// after the graph passes the module has been through (e.g. decoda-convert-float-type), or "".
void printPrecisionReport(ModuleOp module, llvm::raw_ostream &os, StringRef stage = "");

/// Writes the graph of every entry point as Graphviz DOT (`.dot`) or as a self-contained SVG
/// (`.svg`, laid out by depth); any other extension is an error.
LogicalResult writePrecisionGraph(ModuleOp module, StringRef path, Location loc);

} // namespace mlir::decoda

#endif // DECODA_DRIVER_PRECISION_H
