//===- GPUMapParallelLoops.cpp - scf.parallel nests to blocks and threads -===//

#include "decoda/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/ParallelLoopMapper.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"

namespace mlir::decoda {
#define GEN_PASS_DEF_GPUMAPPARALLELLOOPSPASS
#include "decoda/Transforms/Passes.h.inc"
} // namespace mlir::decoda

using namespace mlir;

namespace {
/// Mapping of a rank-`rank` loop: the innermost dims to `innerToOuter`, the rest sequential.
SmallVector<gpu::ParallelLoopDimMappingAttr> mapping(MLIRContext *ctx, unsigned rank,
                                                     ArrayRef<gpu::Processor> innerToOuter) {
  AffineMap id = AffineMap::getMultiDimIdentityMap(1, ctx);
  SmallVector<gpu::ParallelLoopDimMappingAttr> attrs;
  for (unsigned d = 0; d < rank; ++d) {
    unsigned fromInner = rank - 1 - d;
    gpu::Processor p = fromInner < innerToOuter.size() ? innerToOuter[fromInner]
                                                       : gpu::Processor::Sequential;
    attrs.push_back(gpu::ParallelLoopDimMappingAttr::get(ctx, p, id, id));
  }
  return attrs;
}

struct GPUMapParallelLoopsPass
    : public mlir::decoda::impl::GPUMapParallelLoopsPassBase<GPUMapParallelLoopsPass> {
  using Base::Base;

  void runOnOperation() override {
    if (blockX < 1 || blockY < 1 || blockX * blockY > 1024) {
      // The values, not the option objects (those would print as a char).
      getOperation().emitError() << "decoda-gpu-map-parallel-loops: block-x ("
                                 << static_cast<int64_t>(blockX) << ") times block-y ("
                                 << static_cast<int64_t>(blockY)
                                 << ") must be between 1 and 1024 threads";
      return signalPassFailure();
    }
    SmallVector<scf::ParallelOp> roots;
    getOperation().walk([&](scf::ParallelOp op) {
      if (!op->getParentOfType<scf::ParallelOp>() && !op->getParentOfType<gpu::LaunchOp>())
        roots.push_back(op);
    });
    MLIRContext *ctx = &getContext();
    for (scf::ParallelOp op : roots) {
      if (op.getNumReductions() != 0) {
        op.emitError() << "decoda-gpu-map-parallel-loops: a parallel loop with reductions "
                          "cannot be mapped to GPU threads yet";
        return signalPassFailure();
      }
      unsigned rank = op.getNumLoops();
      SmallVector<int64_t> tiles(rank, 1);
      tiles[rank - 1] = blockX;
      if (rank >= 2)
        tiles[rank - 2] = blockY;
      else if (op->hasAttr("decoda.merged_loops"))
        tiles[0] = blockX * blockY; // a flat loop of several nests (merge-parallel-loops)
      auto [outer, inner] = scf::tileParallelLoop(op, tiles, /*noMinMaxBounds=*/true);
      if (failed(gpu::setMappingAttr(
              outer, mapping(ctx, rank,
                             {gpu::Processor::BlockX, gpu::Processor::BlockY,
                              gpu::Processor::BlockZ}))) ||
          failed(gpu::setMappingAttr(
              inner, mapping(ctx, rank, {gpu::Processor::ThreadX, gpu::Processor::ThreadY})))) {
        op.emitError() << "decoda-gpu-map-parallel-loops: invalid mapping";
        return signalPassFailure();
      }
      ++numMapped;
    }
  }
};
} // namespace
