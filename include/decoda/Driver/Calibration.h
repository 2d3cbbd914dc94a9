//===- Calibration.h - INT8 calibration and the quantisation stage -*- C++ -*-===//
//
// `decoda-compile --quantize=int8`: after decoda-graph-opt, the float program is JIT-run on the
// calibration inputs (an .npz whose keys are the entry point's input names, samples stacked
// along the first axis) and the statistics the INT8 passes need are recorded as op attributes
// (`decoda.calib_absmax`, see decoda/Transforms/Quantization.h): per input channel of every
// `decoda.linear`, per tensor for the q, k, v of every `decoda.attention` (top-level ops of
// public functions). Statistics can be saved as JSON and loaded instead of running the model.
// Then decoda-smooth-quant, decoda-insert-qdq and decoda-fold-qlinear run.
//
//===----------------------------------------------------------------------===//

#ifndef DECODA_DRIVER_CALIBRATION_H
#define DECODA_DRIVER_CALIBRATION_H

#include "decoda/Target/CPU/CPUTarget.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"

#include <string>
#include <vector>

namespace mlir::decoda {

/// Statistics of one op: its function, its position among the calibrated ops of that function
/// (program order), its name and location (for messages), and the maxima.
struct CalibrationRecord {
  std::string function;
  int64_t index = 0;
  std::string op;
  std::string loc;
  std::vector<float> absmax;
};

struct CalibrationStats {
  int64_t samples = 0;
  std::vector<CalibrationRecord> records;
};

/// Runs every entry point of `module` (not modified) on the samples of `npzPath` and returns the
/// statistics. Bad input (unreadable file, a key that is no input name, a missing input, wrong
/// dtype, rank or shape, different sample counts) is an error naming the file, key and input.
FailureOr<CalibrationStats> runCalibration(ModuleOp module,
                                           ArrayRef<EntrySignature> signature,
                                           StringRef npzPath);

/// Writes `stats` onto the ops of `module`; an error when they do not match its ops.
LogicalResult applyCalibration(ModuleOp module, const CalibrationStats &stats,
                               StringRef source);

LogicalResult saveCalibration(const CalibrationStats &stats, StringRef path, Location loc);
FailureOr<CalibrationStats> loadCalibration(StringRef path, Location loc);

struct QuantizeOptions {
  bool smooth = true;
  double alpha = 0.5;
  std::string activations = "per-token"; // per-token | per-tensor
  std::string scales = "dynamic";        // dynamic | static
  bool attention = true;
  std::vector<std::string> keepFloat;
};

/// Whether these options need calibration statistics (smoothing, static scales, INT8
/// attention).
bool quantizationNeedsCalibration(const QuantizeOptions &options);

/// Adds decoda-smooth-quant (when `smooth`), decoda-insert-qdq and decoda-fold-qlinear, then
/// canonicalization and CSE.
void buildQuantizePassPipeline(OpPassManager &pm, const QuantizeOptions &options);

/// What the driver's INT8 stage does (one module pass, `decoda-quantize-stage`, run right after
/// the graph passes): obtain statistics (run `calibration` when it is an .npz, load it when it
/// is a .json written by `saveCalibration`; none when empty), optionally save them, write them
/// onto the ops, run buildQuantizePassPipeline (unless `quantize` is false) and keep a clone of
/// the result in `*snapshot` (for the precision report and graph).
struct QuantizeStageConfig {
  bool quantize = true;
  QuantizeOptions options;
  std::vector<EntrySignature> signature;
  std::string calibration;
  std::string saveCalibration;
  OwningOpRef<ModuleOp> *snapshot = nullptr;
};
std::unique_ptr<Pass> createQuantizeStagePass(QuantizeStageConfig config);

} // namespace mlir::decoda

#endif // DECODA_DRIVER_CALIBRATION_H
