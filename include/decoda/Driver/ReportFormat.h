//===- ReportFormat.h - how the driver's reports print IR facts -*- C++ -*-===//

#ifndef DECODA_DRIVER_REPORTFORMAT_H
#define DECODA_DRIVER_REPORTFORMAT_H

#include "mlir/IR/Location.h"

#include <string>

namespace mlir::decoda {

/// `file.mlir:12:8` for a file location (file name without its directory, so reports read the
/// same wherever the input lives); the printed attribute otherwise.
std::string formatLocation(Location loc);

} // namespace mlir::decoda

#endif // DECODA_DRIVER_REPORTFORMAT_H
