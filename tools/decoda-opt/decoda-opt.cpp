//===- decoda-opt.cpp - mlir-opt with the decoda dialect and pipelines ----===//

#include "decoda/Conversion/Passes.h"
#include "decoda/Dialect/Decoda/IR/DecodaOps.h"
#include "decoda/Pipelines/Pipelines.h"
#include "decoda/Transforms/Passes.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::registerAllPasses();
  mlir::decoda::registerDecodaConversionPasses();
  mlir::decoda::registerDecodaTransformsPasses();
  mlir::decoda::registerDecodaPipelines();

  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  registry.insert<mlir::decoda::DecodaDialect>();

  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "Decoda optimizer driver\n", registry));
}
