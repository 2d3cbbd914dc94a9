//===- ReportFormat.cpp - how the driver's reports print IR facts ---------===//

#include "decoda/Driver/ReportFormat.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Location.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"

using namespace mlir;

std::string mlir::decoda::formatLocation(Location loc) {
  if (auto file = dyn_cast<FileLineColLoc>(loc))
    return llvm::formatv("{0}:{1}:{2}", llvm::sys::path::filename(file.getFilename().getValue()),
                         file.getLine(), file.getColumn())
        .str();
  std::string text;
  llvm::raw_string_ostream os(text);
  loc.print(os);
  return text;
}
