//===- DecodaAttrs.cpp - enums and attributes of decoda -------------------===//

#include "decoda/Dialect/Decoda/IR/DecodaAttrs.h"
#include "decoda/Dialect/Decoda/IR/DecodaDialect.h"
#include "decoda/Dialect/Decoda/IR/Semantics.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>

using namespace mlir;
using namespace mlir::decoda;

#include "Decoda/DecodaEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "Decoda/DecodaAttrs.cpp.inc"

void DecodaDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "Decoda/DecodaAttrs.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// `key = value` lists shared by the parameterised attributes
//===----------------------------------------------------------------------===//

namespace {
/// Parses a double written as a float literal (`4.0`, not `4`), a hex bit pattern
/// (`0x7FF0000000000000`) or the keyword `inf`.
ParseResult parseDoubleValue(AsmParser &parser, double &value) {
  if (succeeded(parser.parseOptionalKeyword("inf"))) {
    value = std::numeric_limits<double>::infinity();
    return success();
  }
  APFloat f(0.0);
  if (parser.parseFloat(APFloat::IEEEdouble(), f))
    return failure();
  value = f.convertToDouble();
  return success();
}

void printDoubleValue(AsmPrinter &printer, double value) {
  if (std::isinf(value) && value > 0) {
    printer << "inf";
    return;
  }
  printer.printFloat(APFloat(value));
}

/// Parses `(, key = value)*` up to (not including) the closing `>`, handing each key to
/// `parseValue`, which must consume `value` and reject unknown or repeated keys.
ParseResult
parseKeyValues(AsmParser &parser,
               llvm::function_ref<ParseResult(StringRef key, SMLoc loc)> parseValue) {
  while (succeeded(parser.parseOptionalComma())) {
    SMLoc loc = parser.getCurrentLocation();
    StringRef key;
    if (parser.parseKeyword(&key) || parser.parseEqual() || parseValue(key, loc))
      return failure();
  }
  return success();
}

ParseResult parseOptionalDoubleParam(AsmParser &parser, SMLoc loc, StringRef key,
                                     std::optional<double> &slot) {
  if (slot)
    return parser.emitError(loc) << "parameter '" << key << "' given twice";
  double v;
  if (parseDoubleValue(parser, v))
    return failure();
  slot = v;
  return success();
}

void printOptionalDoubleParam(AsmPrinter &printer, StringRef key,
                              const std::optional<APFloat> &v) {
  if (!v)
    return;
  printer << ", " << key << " = ";
  printDoubleValue(printer, v->convertToDouble());
}

bool isPositive(std::optional<double> v) { return v && !std::isnan(*v) && *v > 0.0; }
} // namespace

//===----------------------------------------------------------------------===//
// GluAttr
//===----------------------------------------------------------------------===//

Attribute GluAttr::parse(AsmParser &parser, Type) {
  SMLoc kindLoc = parser.getCurrentLocation();
  StringRef kindName;
  if (parser.parseLess() || parser.parseKeyword(&kindName))
    return {};
  std::optional<GluKind> kind = symbolizeGluKind(kindName);
  if (!kind) {
    parser.emitError(kindLoc) << "unknown GLU kind '" << kindName
                              << "'; expected swiglu, geglu, geglu_tanh, situ or clamped_swiglu";
    return {};
  }
  std::optional<double> beta1, beta2, limit;
  auto parseValue = [&](StringRef key, SMLoc loc) -> ParseResult {
    if (key == "beta1")
      return parseOptionalDoubleParam(parser, loc, key, beta1);
    if (key == "beta2")
      return parseOptionalDoubleParam(parser, loc, key, beta2);
    if (key == "limit")
      return parseOptionalDoubleParam(parser, loc, key, limit);
    return parser.emitError(loc) << "unknown GLU parameter '" << key
                                 << "'; expected beta1, beta2 or limit";
  };
  if (parseKeyValues(parser, parseValue) || parser.parseGreater())
    return {};
  return parser.getChecked<GluAttr>(kindLoc, parser.getContext(), *kind, toAPFloat(beta1),
                                    toAPFloat(beta2), toAPFloat(limit));
}

void GluAttr::print(AsmPrinter &printer) const {
  printer << "<" << stringifyGluKind(getKind());
  printOptionalDoubleParam(printer, "beta1", getBeta1());
  printOptionalDoubleParam(printer, "beta2", getBeta2());
  printOptionalDoubleParam(printer, "limit", getLimit());
  printer << ">";
}

LogicalResult GluAttr::verify(function_ref<InFlightDiagnostic()> emitError, GluKind kind,
                              std::optional<APFloat> beta1Param,
                              std::optional<APFloat> beta2Param,
                              std::optional<APFloat> limitParam) {
  std::optional<double> beta1 = toDouble(beta1Param), beta2 = toDouble(beta2Param),
                        limit = toDouble(limitParam);
  StringRef name = stringifyGluKind(kind);
  if (kind == GluKind::situ) {
    if (!beta1 || !beta2)
      return emitError() << "GLU kind 'situ' needs beta1 and beta2 (SiTU-GLU caps gate and up: "
                            "beta1 * tanh(g / beta1) * sigmoid(g) * beta2 * tanh(u / beta2))";
    if (!isPositive(beta1) || !isPositive(beta2))
      return emitError() << "SiTU-GLU caps must be positive, found beta1 = " << *beta1
                         << ", beta2 = " << *beta2;
  } else if (beta1 || beta2) {
    return emitError() << "beta1/beta2 belong to GLU kind 'situ', not '" << name << "'";
  }
  if (kind == GluKind::clamped_swiglu) {
    if (!limit)
      return emitError() << "GLU kind 'clamped_swiglu' needs limit (the clamp bound L)";
    if (!isPositive(limit))
      return emitError() << "clamped SwiGLU limit must be positive, found " << *limit;
  } else if (limit) {
    return emitError() << "limit belongs to GLU kind 'clamped_swiglu', not '" << name << "'";
  }
  return success();
}

double GluAttr::getOutputBound() const {
  return computeGluOutputBound(getKind(), toDouble(getBeta1()), toDouble(getBeta2()),
                               toDouble(getLimit()));
}

//===----------------------------------------------------------------------===//
// RopeScalingAttr
//===----------------------------------------------------------------------===//

Attribute RopeScalingAttr::parse(AsmParser &parser, Type) {
  SMLoc kindLoc = parser.getCurrentLocation();
  StringRef kindName;
  if (parser.parseLess() || parser.parseKeyword(&kindName))
    return {};
  std::optional<RopeScalingKind> kind = symbolizeRopeScalingKind(kindName);
  if (!kind) {
    parser.emitError(kindLoc) << "unknown RoPE scaling '" << kindName
                              << "'; expected linear, yarn or llama3";
    return {};
  }
  std::optional<double> factor, betaFast, betaSlow, attnFactor, lowFreq, highFreq;
  std::optional<int64_t> originalMax;
  auto parseValue = [&](StringRef key, SMLoc loc) -> ParseResult {
    if (key == "original_max_position") {
      if (originalMax)
        return parser.emitError(loc) << "parameter '" << key << "' given twice";
      int64_t v = 0;
      if (parser.parseInteger(v))
        return failure();
      originalMax = v;
      return success();
    }
    std::optional<double> *slot = llvm::StringSwitch<std::optional<double> *>(key)
                                      .Case("factor", &factor)
                                      .Case("beta_fast", &betaFast)
                                      .Case("beta_slow", &betaSlow)
                                      .Case("attention_factor", &attnFactor)
                                      .Case("low_freq_factor", &lowFreq)
                                      .Case("high_freq_factor", &highFreq)
                                      .Default(nullptr);
    if (!slot)
      return parser.emitError(loc)
             << "unknown RoPE scaling parameter '" << key
             << "'; expected factor, original_max_position, beta_fast, beta_slow, "
                "attention_factor, low_freq_factor or high_freq_factor";
    return parseOptionalDoubleParam(parser, loc, key, *slot);
  };
  if (parseKeyValues(parser, parseValue) || parser.parseGreater())
    return {};
  if (!factor) {
    parser.emitError(kindLoc) << "RoPE scaling '" << kindName << "' needs a factor";
    return {};
  }
  return parser.getChecked<RopeScalingAttr>(
      kindLoc, parser.getContext(), *kind, APFloat(*factor), originalMax, toAPFloat(betaFast),
      toAPFloat(betaSlow), toAPFloat(attnFactor), toAPFloat(lowFreq), toAPFloat(highFreq));
}

void RopeScalingAttr::print(AsmPrinter &printer) const {
  printer << "<" << stringifyRopeScalingKind(getKind()) << ", factor = ";
  printDoubleValue(printer, getFactor().convertToDouble());
  if (getOriginalMaxPosition())
    printer << ", original_max_position = " << *getOriginalMaxPosition();
  printOptionalDoubleParam(printer, "beta_fast", getBetaFast());
  printOptionalDoubleParam(printer, "beta_slow", getBetaSlow());
  printOptionalDoubleParam(printer, "attention_factor", getAttentionFactor());
  printOptionalDoubleParam(printer, "low_freq_factor", getLowFreqFactor());
  printOptionalDoubleParam(printer, "high_freq_factor", getHighFreqFactor());
  printer << ">";
}

LogicalResult RopeScalingAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                      RopeScalingKind kind, APFloat factorParam,
                                      std::optional<int64_t> originalMax,
                                      std::optional<APFloat> betaFastParam,
                                      std::optional<APFloat> betaSlowParam,
                                      std::optional<APFloat> attnFactorParam,
                                      std::optional<APFloat> lowFreqParam,
                                      std::optional<APFloat> highFreqParam) {
  double factor = factorParam.convertToDouble();
  std::optional<double> betaFast = toDouble(betaFastParam), betaSlow = toDouble(betaSlowParam),
                        attnFactor = toDouble(attnFactorParam),
                        lowFreq = toDouble(lowFreqParam), highFreq = toDouble(highFreqParam);
  StringRef name = stringifyRopeScalingKind(kind);
  if (!(factor >= 1.0) || std::isinf(factor))
    return emitError() << "RoPE scaling factor must be finite and >= 1, found " << factor;
  bool isYarn = kind == RopeScalingKind::yarn, isLlama3 = kind == RopeScalingKind::llama3;
  if (isYarn || isLlama3) {
    if (!originalMax)
      return emitError() << "RoPE scaling '" << name
                         << "' needs original_max_position (the pre-training context length)";
    if (*originalMax <= 0)
      return emitError() << "original_max_position must be positive, found " << *originalMax;
  } else if (originalMax) {
    return emitError() << "original_max_position does not apply to RoPE scaling '" << name
                       << "'";
  }
  if (!isYarn && (betaFast || betaSlow || attnFactor))
    return emitError() << "beta_fast, beta_slow and attention_factor belong to 'yarn', not '"
                       << name << "'";
  if (isYarn) {
    if ((betaFast && !isPositive(betaFast)) || (betaSlow && !isPositive(betaSlow)))
      return emitError() << "YaRN beta_fast and beta_slow must be positive";
    if (betaFast.value_or(32.0) <= betaSlow.value_or(1.0))
      return emitError() << "YaRN needs beta_fast > beta_slow, found " << betaFast.value_or(32.0)
                         << " <= " << betaSlow.value_or(1.0);
    if (attnFactor && !isPositive(attnFactor))
      return emitError() << "YaRN attention_factor must be positive, found " << *attnFactor;
  }
  if (!isLlama3 && (lowFreq || highFreq))
    return emitError() << "low_freq_factor and high_freq_factor belong to 'llama3', not '"
                       << name << "'";
  if (isLlama3) {
    double lo = lowFreq.value_or(1.0), hi = highFreq.value_or(4.0);
    if (!(lo > 0.0) || !(hi > lo) || std::isinf(hi))
      return emitError() << "llama3 RoPE scaling needs 0 < low_freq_factor < high_freq_factor, "
                            "found "
                         << lo << " and " << hi;
  }
  return success();
}
