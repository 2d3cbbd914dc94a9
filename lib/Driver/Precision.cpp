//===- Precision.cpp - which ops compute in INT8 and which in float -------===//

#include "decoda/Driver/Precision.h"

#include "decoda/Dialect/Decoda/IR/DecodaOps.h"
#include "decoda/Transforms/Quantization.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Diagnostics.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"

using namespace mlir;
using namespace mlir::decoda;

namespace {
std::string typeName(Type t) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << t;
  return text;
}

/// The element type of the first ranked-tensor result, or of the first operand.
Type elementTypeOf(Operation *op) {
  for (Value v : llvm::concat<Value>(op->getResults(), op->getOperands()))
    if (auto t = dyn_cast<RankedTensorType>(v.getType()))
      return t.getElementType();
  return {};
}

bool isFuncEntry(func::FuncOp fn) { return fn.isPublic() && !fn.isExternal(); }

const char *className(PrecisionClass c) {
  switch (c) {
  case PrecisionClass::Int8: return "int8";
  case PrecisionClass::Boundary: return "boundary";
  case PrecisionClass::Float: return "float";
  case PrecisionClass::View: return "view";
  }
  return "?";
}

const char *fillColour(PrecisionClass c) {
  switch (c) {
  case PrecisionClass::Int8: return "#f4a261";     // orange: INT8 compute
  case PrecisionClass::Boundary: return "#e9c46a"; // yellow: quantize / dequantize
  case PrecisionClass::Float: return "#8ecae6";    // blue: floating point
  case PrecisionClass::View: return "#e5e5e5";     // grey: reshapes and slices
  }
  return "#ffffff";
}

std::string shortName(Operation *op) {
  StringRef name = op->getName().getStringRef();
  name.consume_front("decoda.");
  return name.str();
}

std::string escape(StringRef s) {
  std::string out;
  for (char c : s) {
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    if (c == '"' || c == '\\')
      out += '\\';
    out += c;
  }
  return out;
}

std::string xmlEscape(StringRef s) {
  std::string out;
  for (char c : s) {
    switch (c) {
    case '<': out += "&lt;"; break;
    case '>': out += "&gt;"; break;
    case '&': out += "&amp;"; break;
    case '"': out += "&quot;"; break;
    default: out += c;
    }
  }
  return out;
}
} // namespace

std::optional<OpPrecision> mlir::decoda::classifyPrecision(Operation *op) {
  if (op->hasTrait<OpTrait::ConstantLike>() || op->hasTrait<OpTrait::IsTerminator>() ||
      isa<tensor::DimOp, tensor::EmptyOp, linalg::FillOp>(op))
    return std::nullopt;
  if (auto q = dyn_cast<QLinearOp>(op)) {
    if (q.getOutScale())
      return OpPrecision{PrecisionClass::Int8, "int8",
                         "i8 x i8 -> i32 accumulation, requantising epilogue -> i8"};
    return OpPrecision{PrecisionClass::Int8, "int8",
                       "i8 x i8 -> i32 accumulation, dequantising epilogue -> " +
                           typeName(elementTypeOf(op))};
  }
  if (auto a = dyn_cast<AttentionOp>(op); a && a.getQScale())
    return OpPrecision{PrecisionClass::Int8, "int8",
                       "QK^T s8 x s8 -> i32, PV u8 x s8 -> i32; softmax f32"};
  if (auto a = dyn_cast<CachedAttentionOp>(op); a && a.getQScale())
    return OpPrecision{PrecisionClass::Int8, "int8",
                       "QK^T s8 x s8 -> i32, PV u8 x s8 -> i32; softmax f32; KV cache " +
                           typeName(a.getKeyCache().getType().getElementType()) +
                           ", quantized when read"};
  if (auto q = dyn_cast<QuantizeOp>(op))
    return OpPrecision{PrecisionClass::Boundary,
                       typeName(q.getInput().getType().getElementType()) + " -> i8", "quantize"};
  if (isa<DequantizeOp>(op))
    return OpPrecision{PrecisionClass::Boundary, "i8 -> " + typeName(elementTypeOf(op)),
                       "dequantize"};
  if (isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp, tensor::ExtractSliceOp,
          tensor::CastOp, tensor::ReshapeOp>(op))
    return OpPrecision{PrecisionClass::View, "view", "reshape/slice"};
  Type et = elementTypeOf(op);
  if (!et)
    return std::nullopt;
  std::string detail = "computes in " + typeName(et);
  // The decoda ops accumulate in f32 whatever their storage type (the dialect's rules).
  if (isa<DecodaDialect>(op->getDialect()) && et.getIntOrFloatBitWidth() < 32)
    detail = typeName(et) + " storage, f32 accumulation";
  if (isa<arith::TruncFOp, arith::ExtFOp>(op))
    detail = "cast " + typeName(getElementTypeOrSelf(op->getOperand(0).getType())) + " -> " +
             typeName(getElementTypeOrSelf(op->getResult(0).getType()));
  if (auto l = dyn_cast<LinearOp>(op); l && l.getWeight().getDefiningOp<DequantizeOp>())
    detail = "float linear on dequantized INT8 operands (not folded to qlinear)";
  if (op->hasAttr(quant::kDynamicScale))
    detail = "dynamic activation scale (max|x| / 127)";
  return OpPrecision{PrecisionClass::Float, typeName(et), detail};
}

void mlir::decoda::printPrecisionReport(ModuleOp module, llvm::raw_ostream &os,
                                        StringRef stage) {
  os << "precision of every op (after the graph passes"
     << (module->walk([](QLinearOp) { return WalkResult::interrupt(); }).wasInterrupted()
             ? " and the INT8 passes"
             : "");
  if (!stage.empty())
    os << " and " << stage;
  os << "):\n";
  for (auto fn : module.getOps<func::FuncOp>()) {
    if (!isFuncEntry(fn))
      continue;
    os << "  @" << fn.getSymName() << "\n";
    std::map<std::string, int64_t> counts;
    fn.walk([&](Operation *op) {
      std::optional<OpPrecision> p = classifyPrecision(op);
      if (!p || op == fn)
        return;
      ++counts[className(p->kind)];
      std::string loc;
      llvm::raw_string_ostream ls(loc);
      ls << op->getLoc();
      os << llvm::formatv("    {0,-9} {1,-24} {2,-14} {3}  {4}\n", className(p->kind),
                          op->getName().getStringRef(), p->label, p->detail, loc);
    });
    os << "    total:";
    for (const char *c : {"int8", "boundary", "float", "view"})
      os << " " << counts[c] << " " << c;
    os << "\n";
  }
}

//===----------------------------------------------------------------------===//
// The graph
//===----------------------------------------------------------------------===//

namespace {
struct GraphNode {
  std::string id, label, colour;
  int64_t level = 0;
};
struct Graph {
  std::vector<GraphNode> nodes;
  std::vector<std::pair<size_t, size_t>> edges;
};

/// Nodes: arguments, listed ops, the results; an edge where a value flows (through unlisted
/// ops such as constants, which are left out).
Graph buildGraph(func::FuncOp fn) {
  Graph g;
  llvm::DenseMap<Value, size_t> producer;
  for (BlockArgument arg : fn.getArguments()) {
    g.nodes.push_back({"a" + std::to_string(arg.getArgNumber()),
                       "input " + std::to_string(arg.getArgNumber()) + "\n" +
                           typeName(arg.getType()),
                       "#ffffff", 0});
    producer[arg] = g.nodes.size() - 1;
  }
  for (Operation &op : fn.getBody().front()) {
    if (auto ret = dyn_cast<func::ReturnOp>(op)) {
      for (auto [i, v] : llvm::enumerate(ret.getOperands())) {
        g.nodes.push_back({"r" + std::to_string(i), "output " + std::to_string(i), "#ffffff", 0});
        if (auto it = producer.find(v); it != producer.end()) {
          g.edges.push_back({it->second, g.nodes.size() - 1});
          g.nodes.back().level = g.nodes[it->second].level + 1;
        }
      }
      continue;
    }
    std::optional<OpPrecision> p = classifyPrecision(&op);
    if (!p)
      continue;
    GraphNode node{"n" + std::to_string(g.nodes.size()), shortName(&op) + "\n" + p->label,
                   fillColour(p->kind), 0};
    size_t index = g.nodes.size();
    llvm::SmallSetVector<size_t, 4> from;
    for (Value v : op.getOperands())
      if (auto it = producer.find(v); it != producer.end())
        from.insert(it->second);
    for (size_t f : from) {
      g.edges.push_back({f, index});
      node.level = std::max(node.level, g.nodes[f].level + 1);
    }
    g.nodes.push_back(node);
    for (Value r : op.getResults())
      producer[r] = index;
  }
  return g;
}

void writeDot(ModuleOp module, llvm::raw_ostream &os) {
  os << "digraph precision {\n  rankdir=TB;\n  node [shape=box, style=\"rounded,filled\", "
        "fontname=\"Helvetica\"];\n";
  os << "  subgraph cluster_legend { label=\"precision\"; ";
  for (PrecisionClass c : {PrecisionClass::Int8, PrecisionClass::Boundary, PrecisionClass::Float,
                           PrecisionClass::View})
    os << "legend_" << className(c) << " [label=\"" << className(c) << "\", fillcolor=\""
       << fillColour(c) << "\"]; ";
  os << "}\n";
  for (auto fn : module.getOps<func::FuncOp>()) {
    if (!isFuncEntry(fn) || !fn.getBody().hasOneBlock())
      continue;
    Graph g = buildGraph(fn);
    std::string prefix = fn.getSymName().str() + "_";
    os << "  subgraph \"cluster_" << escape(fn.getSymName()) << "\" { label=\"@"
       << escape(fn.getSymName()) << "\";\n";
    for (const GraphNode &n : g.nodes)
      os << "    \"" << prefix << n.id << "\" [label=\"" << escape(n.label)
         << "\", fillcolor=\"" << n.colour << "\"];\n";
    for (auto [a, b] : g.edges)
      os << "    \"" << prefix << g.nodes[a].id << "\" -> \"" << prefix << g.nodes[b].id
         << "\";\n";
    os << "  }\n";
  }
  os << "}\n";
}

/// A plain layered layout: one row per depth, nodes left to right in program order.
void writeSvg(ModuleOp module, llvm::raw_ostream &os) {
  constexpr int w = 190, h = 44, gapX = 24, gapY = 46, margin = 20, legendH = 40;
  struct Placed {
    Graph g;
    std::vector<std::pair<int, int>> xy;
    int height = 0, width = 0;
    std::string name;
  };
  std::vector<Placed> placed;
  int totalW = 4 * (w / 2 + gapX) + 2 * margin, totalH = legendH + margin;
  for (auto fn : module.getOps<func::FuncOp>()) {
    if (!isFuncEntry(fn) || !fn.getBody().hasOneBlock())
      continue;
    Placed p{buildGraph(fn), {}, 0, 0, fn.getSymName().str()};
    std::map<int64_t, int> column;
    int64_t maxLevel = 0;
    for (const GraphNode &n : p.g.nodes) {
      int c = column[n.level]++;
      p.xy.push_back({margin + c * (w + gapX), totalH + 30 + int(n.level) * (h + gapY)});
      maxLevel = std::max(maxLevel, n.level);
      p.width = std::max(p.width, margin * 2 + (c + 1) * (w + gapX));
    }
    p.height = 30 + int(maxLevel + 1) * (h + gapY);
    totalH += p.height + margin;
    totalW = std::max(totalW, p.width);
    placed.push_back(std::move(p));
  }
  os << llvm::formatv("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" "
                      "font-family=\"Helvetica, Arial, sans-serif\" font-size=\"12\">\n",
                      totalW, totalH);
  os << "<defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" "
        "markerWidth=\"6\" markerHeight=\"6\" orient=\"auto\"><path d=\"M0,0 L10,5 L0,10 z\" "
        "fill=\"#555\"/></marker></defs>\n";
  int lx = margin;
  for (PrecisionClass c : {PrecisionClass::Int8, PrecisionClass::Boundary, PrecisionClass::Float,
                           PrecisionClass::View}) {
    os << llvm::formatv("<rect x=\"{0}\" y=\"{1}\" width=\"{2}\" height=\"24\" rx=\"6\" "
                        "fill=\"{3}\" stroke=\"#333\"/><text x=\"{4}\" y=\"{5}\" "
                        "text-anchor=\"middle\">{6}</text>\n",
                        lx, margin / 2, w / 2, fillColour(c), lx + w / 4, margin / 2 + 16,
                        className(c));
    lx += w / 2 + gapX;
  }
  for (const Placed &p : placed) {
    int top = p.xy.empty() ? 0 : p.xy.front().second - 30;
    os << llvm::formatv("<text x=\"{0}\" y=\"{1}\" font-weight=\"bold\">@{2}</text>\n", margin,
                        top + 18, xmlEscape(p.name));
    for (auto [a, b] : p.g.edges)
      os << llvm::formatv("<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{3}\" stroke=\"#555\" "
                          "marker-end=\"url(#arrow)\"/>\n",
                          p.xy[a].first + w / 2, p.xy[a].second + h, p.xy[b].first + w / 2,
                          p.xy[b].second);
    for (auto [n, xy] : llvm::zip_equal(p.g.nodes, p.xy)) {
      os << llvm::formatv("<rect x=\"{0}\" y=\"{1}\" width=\"{2}\" height=\"{3}\" rx=\"8\" "
                          "fill=\"{4}\" stroke=\"#333\"/>\n",
                          xy.first, xy.second, w, h, n.colour);
      StringRef first, second;
      std::tie(first, second) = StringRef(n.label).split('\n');
      os << llvm::formatv("<text x=\"{0}\" y=\"{1}\" text-anchor=\"middle\">{2}</text>\n",
                          xy.first + w / 2, xy.second + 18, xmlEscape(first));
      os << llvm::formatv("<text x=\"{0}\" y=\"{1}\" text-anchor=\"middle\" "
                          "font-size=\"10\">{2}</text>\n",
                          xy.first + w / 2, xy.second + 34, xmlEscape(second));
    }
  }
  os << "</svg>\n";
}
} // namespace

LogicalResult mlir::decoda::writePrecisionGraph(ModuleOp module, StringRef path, Location loc) {
  StringRef ext = llvm::sys::path::extension(path);
  if (ext != ".dot" && ext != ".svg")
    return emitError(loc) << "--emit-precision-graph=" << path
                          << ": the file must end in .dot (Graphviz) or .svg";
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  if (ec)
    return emitError(loc) << "--emit-precision-graph: cannot write '" << path
                          << "': " << ec.message();
  if (ext == ".dot")
    writeDot(module, os);
  else
    writeSvg(module, os);
  return success();
}
