//===- decoda-translate.cpp - translations into and out of Decoda's MLIR --===//
//
// mlir-translate with Decoda's translations: `--import-onnx model.onnx` prints the imported
// module (decoda, linalg, tensor, arith ops), plus upstream's MLIR <-> LLVM IR translations.
//
//===----------------------------------------------------------------------===//

#include "decoda/Frontend/ONNX/Importer.h"

#include "mlir/InitAllTranslations.h"
#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"

int main(int argc, char **argv) {
  mlir::registerAllTranslations();
  mlir::decoda::onnx_import::registerONNXImportTranslation();
  return mlir::failed(mlir::mlirTranslateMain(argc, argv, "Decoda translation tool"));
}
