//===- GPUMergeLaunches.cpp - independent launches as one launch ----------===//
//
// decoda-gpu-merge-launches (GPUPasses.td): consecutive gpu.launch ops that touch disjoint
// memory and have the same block shape (the q, k and v GEMV kernels of a decode step) become
// one launch over the concatenation of their grids (a 2-D or 3-D grid counted as its X·Y·Z
// blocks, its ids recovered from the linear one, x fastest),
//
//   gpu.launch blocks(%b) in (X1 + ... + Xk) threads(%t) in (the common block size) {
//     if (%b < X1) { body 1 with block %b, grid X1 }
//     else if (%b < X1 + X2) { body 2 with block %b - X1, grid X2 } ...
//   }
//
// one launch of fixed cost instead of k. The branch is uniform over a block, so the bodies'
// barriers stay block-wide; their shared memory stands side by side. A body whose block shape
// differs from the first's (same thread count: a [32, 8] elementwise nest beside a 256-thread
// kernel) recovers its thread ids from the linear id, x fastest, as the hardware numbers
// threads: its warps hold the same threads as before. Independence as in
// decoda-gpu-merge-parallel-loops (GPUIndependence.h).
//
//===----------------------------------------------------------------------===//

#include "decoda/Transforms/Passes.h"

#include "GPUIndependence.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"

namespace mlir::decoda {
#define GEN_PASS_DEF_GPUMERGELAUNCHESPASS
#include "decoda/Transforms/Passes.h.inc"
} // namespace mlir::decoda

using namespace mlir;
using namespace mlir::decoda::gpu_independence;

namespace {
bool isOne(Value v) { return matchPattern(v, m_One()); }

/// Two index values known to be equal: the same value, or equal constants.
bool sameExtent(Value a, Value b) {
  if (a == b)
    return true;
  APInt x, y;
  return matchPattern(a, m_ConstantInt(&x)) && matchPattern(b, m_ConstantInt(&y)) && x == y;
}

/// A launch this pass can merge: no async tokens, clusters, dynamic shared memory, private
/// memory or results, one block, nothing asked of its kernel (decoda.kernel_attrs). A 2-D or
/// 3-D grid is merged as its X·Y·Z blocks, its block ids recovered from the linear one.
bool mergeable(gpu::LaunchOp launch) {
  return launch.getAsyncDependencies().empty() && !launch.getAsyncToken() &&
         !launch.hasClusterSize() && !launch.getDynamicSharedMemorySize() &&
         launch.getNumPrivateAttributions() == 0 && launch.getBody().hasOneBlock() &&
         !launch->hasAttr("decoda.kernel_attrs");
}

/// The threads of a block when its shape is static.
std::optional<int64_t> staticThreads(gpu::LaunchOp l) {
  int64_t n = 1;
  for (Value v : {l.getBlockSizeX(), l.getBlockSizeY(), l.getBlockSizeZ()}) {
    APInt x;
    if (!matchPattern(v, m_ConstantInt(&x)))
      return std::nullopt;
    n *= x.getSExtValue();
  }
  return n;
}

/// Static shared memory a kernel may declare.
constexpr int64_t kStaticSharedLimit = 48 * 1024;

/// Bytes of a launch's workgroup attributions, when their shapes are static.
std::optional<int64_t> workgroupBytes(gpu::LaunchOp launch) {
  int64_t total = 0;
  for (BlockArgument arg : launch.getWorkgroupAttributions()) {
    auto type = dyn_cast<MemRefType>(arg.getType());
    if (!type || !type.hasStaticShape() || !type.getElementType().isIntOrFloat())
      return std::nullopt;
    total += type.getNumElements() * type.getElementTypeBitWidth() / 8;
  }
  return total;
}

bool sameBlock(gpu::LaunchOp a, gpu::LaunchOp b) {
  return sameExtent(a.getBlockSizeX(), b.getBlockSizeX()) &&
         sameExtent(a.getBlockSizeY(), b.getBlockSizeY()) &&
         sameExtent(a.getBlockSizeZ(), b.getBlockSizeZ());
}

/// Marks a launch taken out of its empty-grid guard; put back under one after merging.
constexpr StringLiteral kGridGuard = "decoda.grid_guard";

/// Whether `cond` is `x > 0` (`x != 0`, `0 < x`) for `x` a launch's whole grid (its X extent,
/// Y and Z one): the guard the kernels of dynamic extents get against an empty launch.
bool isNonEmptyGrid(Value cond, gpu::LaunchOp launch) {
  auto cmp = cond.getDefiningOp<arith::CmpIOp>();
  if (!cmp || !isOne(launch.getGridSizeY()) || !isOne(launch.getGridSizeZ()))
    return false;
  Value x = launch.getGridSizeX();
  using P = arith::CmpIPredicate;
  P pred = cmp.getPredicate();
  if (sameExtent(cmp.getLhs(), x) && matchPattern(cmp.getRhs(), m_Zero()))
    return pred == P::sgt || pred == P::ugt || pred == P::ne;
  if (matchPattern(cmp.getLhs(), m_Zero()) && sameExtent(cmp.getRhs(), x))
    return pred == P::slt || pred == P::ult || pred == P::ne;
  return false;
}

/// `scf.if (grid > 0) { launch }` -> `launch {decoda.grid_guard}` in `block`, so guarded
/// launches (the row norms of a dynamic row count) merge with their neighbours; guard() puts
/// every launch still marked back under a guard of its (maybe merged) grid.
void unguard(Block *block) {
  for (Operation &op : llvm::make_early_inc_range(*block)) {
    auto guard = dyn_cast<scf::IfOp>(op);
    if (!guard || guard.getNumResults() || !guard.getElseRegion().empty())
      continue;
    Block &then = guard.getThenRegion().front();
    auto launch = dyn_cast<gpu::LaunchOp>(then.front());
    if (!launch || &then.front() != then.getTerminator()->getPrevNode() || !mergeable(launch) ||
        !isNonEmptyGrid(guard.getCondition(), launch))
      continue;
    launch->moveBefore(guard);
    launch->setAttr(kGridGuard, UnitAttr::get(launch.getContext()));
    Operation *cond = guard.getCondition().getDefiningOp();
    guard.erase();
    if (cond->use_empty())
      cond->erase();
  }
}

void guard(Operation *root) {
  SmallVector<gpu::LaunchOp> marked;
  root->walk([&](gpu::LaunchOp l) {
    if (l->hasAttr(kGridGuard))
      marked.push_back(l);
  });
  for (gpu::LaunchOp launch : marked) {
    launch->removeAttr(kGridGuard);
    OpBuilder b(launch);
    Location loc = launch.getLoc();
    Value blocks = b.createOrFold<arith::MulIOp>(
        loc, launch.getGridSizeX(),
        b.createOrFold<arith::MulIOp>(loc, launch.getGridSizeY(), launch.getGridSizeZ()));
    Value zero = b.createOrFold<arith::ConstantIndexOp>(loc, 0);
    auto guardOp = scf::IfOp::create(
        b, loc, TypeRange{},
        b.createOrFold<arith::CmpIOp>(loc, arith::CmpIPredicate::sgt, blocks, zero),
        /*withElseRegion=*/false);
    launch->moveBefore(guardOp.getThenRegion().front().getTerminator());
  }
}

struct GPUMergeLaunchesPass
    : public mlir::decoda::impl::GPUMergeLaunchesPassBase<GPUMergeLaunchesPass> {
  using Base::Base;

  void runOnOperation() override {
    auto hostBlocks = [&] {
      SmallVector<Block *> blocks;
      getOperation().walk([&](Block *block) {
        // Launches are not nested in other launches.
        if (!block->getParentOp()->getParentOfType<gpu::LaunchOp>() &&
            !isa<gpu::LaunchOp>(block->getParentOp()))
          blocks.push_back(block);
      });
      return blocks;
    };
    // (Unguarding erases the guards' blocks: the blocks are collected again after it.)
    for (Block *block : hostBlocks())
      unguard(block);
    for (Block *block : hostBlocks())
      mergeRuns(block);
    guard(getOperation());
  }

  void mergeRuns(Block *block) {
    // The merged kernel's static shared memory is the sum of the pieces' (side by side): a
    // run stops before it would pass the 48 KiB a kernel may declare statically (a GEMV
    // kernel with a folded norm of 8 rows of 2048 holds 32 KiB).
    int64_t sharedBytes = 0;
    RunCounts counts = mlir::decoda::gpu_independence::mergeRuns<gpu::LaunchOp>(
        block, maxLaunches, /*barriersAllowed=*/true,
        [&](gpu::LaunchOp first, gpu::LaunchOp launch) {
          if (!mergeable(launch))
            return false;
          std::optional<int64_t> bytes = workgroupBytes(launch);
          if (!bytes)
            return false;
          sharedBytes = (launch == first ? 0 : sharedBytes) + *bytes;
          if (sharedBytes > kStaticSharedLimit)
            return false;
          if (sameBlock(first, launch))
            return true;
          std::optional<int64_t> x = staticThreads(first), y = staticThreads(launch);
          return x && y && *x == *y;
        },
        [](gpu::LaunchOp launch) -> Region & { return launch.getBody(); },
        [&](MutableArrayRef<gpu::LaunchOp> run) { return merge(run); });
    numMerged += counts.runs;
    numLaunches += counts.pieces;
  }

  /// One launch over the concatenated grids of `run`, replacing them.
  gpu::LaunchOp merge(MutableArrayRef<gpu::LaunchOp> run) {
    OpBuilder b(run.front());
    Location loc = run.front().getLoc();
    SmallVector<Value> offsets; // the first block of each launch, then the total
    Value total = b.createOrFold<arith::ConstantIndexOp>(loc, 0);
    SmallVector<Type> workgroup;
    auto flat = [](gpu::LaunchOp l) { return isOne(l.getGridSizeY()) && isOne(l.getGridSizeZ()); };
    for (gpu::LaunchOp launch : run) {
      offsets.push_back(total);
      Value blocks = launch.getGridSizeX();
      if (!flat(launch))
        blocks = b.createOrFold<arith::MulIOp>(
            loc, blocks,
            b.createOrFold<arith::MulIOp>(loc, launch.getGridSizeY(), launch.getGridSizeZ()));
      total = b.createOrFold<arith::AddIOp>(loc, total, blocks);
      for (BlockArgument arg : launch.getWorkgroupAttributions())
        workgroup.push_back(arg.getType());
    }
    offsets.push_back(total);
    gpu::LaunchOp front = run.front();
    Value one = b.createOrFold<arith::ConstantIndexOp>(loc, 1);
    auto merged = gpu::LaunchOp::create(
        b, loc, total, one, one, front.getBlockSizeX(),
        front.getBlockSizeY(), front.getBlockSizeZ(), /*dynamicSharedMemorySize=*/nullptr,
        /*asyncTokenType=*/nullptr, /*asyncDependencies=*/{}, workgroup);
    merged->setAttr("decoda.merged_launches", b.getI64IntegerAttr(run.size()));
    if (llvm::any_of(run, [](gpu::LaunchOp l) { return l->hasAttr(kGridGuard); }))
      merged->setAttr(kGridGuard, b.getUnitAttr());
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&merged.getBody().front());
    Value blockX = merged.getBlockIds().x;
    ArrayRef<BlockArgument> sharedArgs = merged.getWorkgroupAttributions();
    size_t nextShared = 0;
    for (size_t l = 0; l < run.size(); ++l) {
      gpu::LaunchOp launch = run[l];
      // if (block < offsets[l + 1]) { ... } else { the next launches }; the last unguarded.
      bool last = l + 1 == run.size();
      scf::IfOp branch;
      if (!last) {
        Value inside =
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, blockX, offsets[l + 1]);
        branch = scf::IfOp::create(b, loc, TypeRange{}, inside, /*withElseRegion=*/true);
        b.setInsertionPointToStart(&branch.getThenRegion().front());
      }
      IRMapping map;
      gpu::KernelDim3 ids = launch.getBlockIds(), mergedIds = merged.getBlockIds();
      Value local = b.createOrFold<arith::SubIOp>(loc, blockX, offsets[l]);
      if (flat(launch)) {
        map.map(ids.x, local);
        map.map(ids.y, mergedIds.y);
        map.map(ids.z, mergedIds.z);
      } else {
        // The piece's block ids from its linear one, x fastest.
        Value gx = launch.getGridSizeX(), gy = launch.getGridSizeY();
        map.map(ids.x, arith::RemUIOp::create(b, loc, local, gx));
        Value rest = arith::DivUIOp::create(b, loc, local, gx);
        map.map(ids.y, arith::RemUIOp::create(b, loc, rest, gy));
        map.map(ids.z, arith::DivUIOp::create(b, loc, rest, gy));
      }
      gpu::KernelDim3 threads = launch.getThreadIds(), mergedThreads = merged.getThreadIds();
      if (sameBlock(front, launch)) {
        map.map(threads.x, mergedThreads.x);
        map.map(threads.y, mergedThreads.y);
        map.map(threads.z, mergedThreads.z);
      } else {
        // The same thread count in another shape: ids from the linear id, x fastest.
        gpu::KernelDim3 ms = merged.getBlockSize();
        Value lin = arith::AddIOp::create(
            b, loc, mergedThreads.x,
            arith::MulIOp::create(
                b, loc, ms.x,
                arith::AddIOp::create(b, loc, mergedThreads.y,
                                      arith::MulIOp::create(b, loc, ms.y, mergedThreads.z))));
        Value bx = launch.getBlockSizeX(), by = launch.getBlockSizeY();
        map.map(threads.x, arith::RemUIOp::create(b, loc, lin, bx));
        Value rest = arith::DivUIOp::create(b, loc, lin, bx);
        map.map(threads.y, arith::RemUIOp::create(b, loc, rest, by));
        map.map(threads.z, arith::DivUIOp::create(b, loc, rest, by));
      }
      gpu::KernelDim3 grid = launch.getGridSize();
      map.map(grid.x, launch.getGridSizeX());
      map.map(grid.y, launch.getGridSizeY());
      map.map(grid.z, launch.getGridSizeZ());
      gpu::KernelDim3 sizes = launch.getBlockSize();
      map.map(sizes.x, launch.getBlockSizeX());
      map.map(sizes.y, launch.getBlockSizeY());
      map.map(sizes.z, launch.getBlockSizeZ());
      for (BlockArgument arg : launch.getWorkgroupAttributions())
        map.map(arg, sharedArgs[nextShared++]);
      for (Operation &op : launch.getBody().front().without_terminator())
        b.clone(op, map);
      if (!last)
        b.setInsertionPointToStart(&branch.getElseRegion().front());
    }
    b.setInsertionPointToEnd(&merged.getBody().front());
    gpu::TerminatorOp::create(b, loc);
    for (gpu::LaunchOp launch : run)
      launch.erase();
    return merged;
  }
};
} // namespace
