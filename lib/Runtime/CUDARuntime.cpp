//===- CUDARuntime.cpp - the CUDA driver, loaded at run time --------------===//
//
// The driver API through dlopen("libcuda.so.1") (or $DECODA_CUDA_DRIVER): no CUDA header or
// library is needed to build or load the runtime. Only the handful of entry points CUDA models
// call (CUDAAPI.h) are resolved; their types are those of cuda.h (CUDA 12/13, 64-bit).
//
//===----------------------------------------------------------------------===//

#include "CUDARuntime.h"
#include "CUDAAPI.h"

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <memory>
#include <mutex>
#include <thread>
#include <string>
#include <unordered_map>
#include <vector>

namespace {
using CUresult = int;
using CUdevice = int;
using CUcontext = void *;
using CUdeviceptr = unsigned long long;

struct Driver {
  CUresult (*cuInit)(unsigned);
  CUresult (*cuDeviceGetCount)(int *);
  CUresult (*cuDeviceGet)(CUdevice *, int);
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *, CUdevice);
  CUresult (*cuCtxSetCurrent)(CUcontext);
  CUresult (*cuGetErrorString)(CUresult, const char **);
  CUresult (*cuModuleLoadData)(void **, const void *);
  CUresult (*cuModuleUnload)(void *);
  CUresult (*cuModuleGetFunction)(void **, void *, const char *);
  CUresult (*cuLaunchKernel)(void *, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                             unsigned, void *, void **, void **);
  CUresult (*cuStreamCreate)(void **, unsigned);
  CUresult (*cuStreamSynchronize)(void *);
  CUresult (*cuStreamDestroy)(void *);
  CUresult (*cuMemAlloc)(CUdeviceptr *, size_t);
  CUresult (*cuMemFree)(CUdeviceptr);
  CUresult (*cuMemcpyAsync)(CUdeviceptr, CUdeviceptr, size_t, void *);
  CUresult (*cuPointerGetAttribute)(void *, int, CUdeviceptr);
  // Optional (CUDA 11.2 and later): stream-ordered allocation from the default memory pool.
  CUresult (*cuMemAllocAsync)(CUdeviceptr *, size_t, void *) = nullptr;
  CUresult (*cuMemFreeAsync)(CUdeviceptr, void *) = nullptr;
  CUresult (*cuDeviceGetDefaultMemPool)(void **, CUdevice) = nullptr;
  CUresult (*cuMemPoolSetAttribute)(void *, int, void *) = nullptr;
  CUresult (*cuMemPoolTrimTo)(void *, size_t) = nullptr;
  CUresult (*cuFuncSetAttribute)(void *, int, int);
  // Optional (CUDA 12 and later): TMA tensor maps.
  CUresult (*cuTensorMapEncodeTiled)(void *, int, unsigned, void *, const uint64_t *,
                                     const uint64_t *, const unsigned *, const unsigned *, int,
                                     int, int, int) = nullptr;
  // Optional: events, for kernel profiles (decoda_profile_enable).
  CUresult (*cuEventCreate)(void **, unsigned) = nullptr;
  CUresult (*cuEventRecord)(void *, void *) = nullptr;
  CUresult (*cuEventSynchronize)(void *) = nullptr;
  CUresult (*cuEventElapsedTime)(float *, void *, void *) = nullptr;
  CUresult (*cuEventDestroy)(void *) = nullptr;
  // Optional (CUDA 12.4 and later): launch graphs (decoda_cuda_graphs_enable). The node
  // parameters are cuda.h's CUDA_KERNEL_NODE_PARAMS (KernelNode below).
  CUresult (*cuFuncGetParamInfo)(void *, size_t, size_t *, size_t *) = nullptr;
  CUresult (*cuGraphCreate)(void **, unsigned) = nullptr;
  CUresult (*cuGraphAddKernelNode)(void **, void *, void *const *, size_t, const void *) =
      nullptr;
  CUresult (*cuGraphInstantiateWithFlags)(void **, void *, unsigned long long) = nullptr;
  CUresult (*cuGraphExecKernelNodeSetParams)(void *, void *, const void *) = nullptr;
  CUresult (*cuGraphLaunch)(void *, void *) = nullptr;
  CUresult (*cuGraphExecDestroy)(void *) = nullptr;
  CUresult (*cuGraphDestroy)(void *) = nullptr;
  std::string noGraphs; // the graph entry points the driver lacks
  // Optional (CUDA 12.3 and later): programmatic dependent launch (kernels of modules that
  // define the global decoda_dependent_launch, decoda-gpu-dependent-launch): the marker's
  // lookup, the launch with its attribute, and the graphs' programmatic edges
  // (cuGraphAddDependencies_v2 and its CUgraphEdgeData). Without them kernels launch in plain
  // stream order.
  CUresult (*cuModuleGetGlobal)(CUdeviceptr *, size_t *, void *, const char *) = nullptr;
  CUresult (*cuLaunchKernelEx)(const void *, void *, void **, void **) = nullptr;
  CUresult (*cuGraphAddDependencies)(void *, void *const *, void *const *, const void *,
                                     size_t) = nullptr;
  bool dependentLaunch = false; // the driver has them and DECODA_CUDA_DEPENDENT_LAUNCH != 0
  CUcontext context = nullptr;
  void *pool = nullptr; // the device's default pool, when stream-ordered allocation is there
};

Driver gDriver;
thread_local std::string tlMessage;

std::string describe(CUresult rc) {
  const char *text = nullptr;
  if (gDriver.cuGetErrorString && gDriver.cuGetErrorString(rc, &text) == 0 && text)
    return std::string(text) + " (CUDA error " + std::to_string(rc) + ")";
  return "CUDA error " + std::to_string(rc);
}

/// Every call runs in the primary context, whichever thread makes it.
int call(CUresult rc) {
  if (rc != 0)
    tlMessage = describe(rc);
  return rc;
}
int enter() { return call(gDriver.cuCtxSetCurrent(gDriver.context)); }

// Launch graphs (below): the held-back launches go out before anything else on the stream,
// the frees held back behind them right after them.
int flushLaunches();
int issueHeldFrees(int rc);
void forgetGraphs(void *stream);
int arenaAlloc(void **ptr, uint64_t size, void *stream);
int arenaFree(void *ptr, void *stream);
void dropArena(void *stream);

int moduleLoad(void **module, const void *image, size_t) {
  if (int rc = enter())
    return rc;
  return call(gDriver.cuModuleLoadData(module, image));
}
// Dynamic shared memory allowed per function (cuFuncSetAttribute, launch). A module unload
// forgets them all: its functions' handles may come back as another module's.
std::mutex gSharedAllowedLock;
std::unordered_map<void *, int32_t> gSharedAllowed;

// Functions whose kernels wait for the grids before them (their module defines
// decoda_dependent_launch): launched as programmatic dependents. Set by getFunction, which
// looks the marker up once per module; a module unload forgets the modules (handles may come
// back as another module's) and getFunction overwrites a reused function handle's entry.
std::mutex gDependentLock;
std::unordered_map<void *, bool> gDependentModules;
std::unordered_map<void *, bool> gDependentFunctions;

bool isDependent(void *function) {
  std::lock_guard<std::mutex> guard(gDependentLock);
  auto it = gDependentFunctions.find(function);
  return it != gDependentFunctions.end() && it->second;
}

int moduleUnload(void *module) {
  {
    std::lock_guard<std::mutex> guard(gSharedAllowedLock);
    gSharedAllowed.clear();
  }
  {
    std::lock_guard<std::mutex> guard(gDependentLock);
    gDependentModules.erase(module);
  }
  if (int rc = enter())
    return rc;
  forgetGraphs(nullptr); // their nodes may launch the module's functions
  return call(gDriver.cuModuleUnload(module));
}
// Kernel names by function handle, for profiles (a handle may be reused by a later module:
// getFunction overwrites its name).
std::mutex gNamesLock;
std::unordered_map<void *, std::string> gNames;

int getFunction(void **function, void *module, const char *name) {
  if (int rc = enter())
    return rc;
  int rc = call(gDriver.cuModuleGetFunction(function, module, name));
  if (rc == 0) {
    std::lock_guard<std::mutex> guard(gNamesLock);
    gNames[*function] = name;
  }
  if (rc == 0 && gDriver.dependentLaunch) {
    std::lock_guard<std::mutex> guard(gDependentLock);
    auto known = gDependentModules.find(module);
    if (known == gDependentModules.end()) {
      CUdeviceptr where = 0;
      size_t bytes = 0;
      // CUDA_ERROR_NOT_FOUND (no marker): a kernel compiled without the wait.
      bool marked = gDriver.cuModuleGetGlobal(&where, &bytes, module,
                                              "decoda_dependent_launch") == 0;
      known = gDependentModules.emplace(module, marked).first;
    }
    gDependentFunctions[*function] = known->second;
  }
  return rc;
}

//===----------------------------------------------------------------------===//
// Launch graphs (docs/ABI.md, "Launch graphs"): while on for the calling thread, launches are
// held back and each run of them that nothing else on the stream separates (no copy, free or
// wait) goes to the device as one CUDA graph launch. The executable graph of a run is kept,
// keyed by its stream and the kernels, launch dimensions and parameter sizes of its launches;
// the next run of that shape replays it, first updating the nodes whose parameter values
// changed (cuGraphExecKernelNodeSetParams). A decode step then costs one graph launch (and an
// update per kernel whose arguments moved) instead of a driver launch per kernel.
//===----------------------------------------------------------------------===//

/// cuda.h's CUDA_KERNEL_NODE_PARAMS (_v2: func, grid, block, shared memory, kernelParams,
/// extra, kern, ctx); the v1 entry points read its first eight fields, the same layout.
struct KernelNode {
  void *func;
  unsigned grid[3], block[3], sharedMemBytes;
  void **kernelParams;
  void **extra;
  void *kern;
  void *ctx;
};

/// One held-back launch: its parameter values copied (the host code's are gone after the
/// launch call returns), each at an 8-byte-aligned offset of `bytes`.
struct Launch {
  void *function = nullptr;
  bool dependent = false; // a programmatic dependent of the launch before it (isDependent)
  unsigned dims[7] = {}; // grid x, y, z, block x, y, z, dynamic shared bytes
  std::shared_ptr<const std::vector<size_t>> sizes; // the function's parameter sizes
  std::vector<unsigned char> bytes;

  bool sameShape(const Launch &o) const {
    return function == o.function && std::equal(dims, dims + 7, o.dims) && *sizes == *o.sizes;
  }
  /// Pointers to the parameter values, as cuLaunchKernel and the graph nodes take them.
  std::vector<void *> pointers() {
    std::vector<void *> p;
    size_t at = 0;
    for (size_t size : *sizes) {
      p.push_back(bytes.data() + at);
      at += (size + 7) & ~size_t(7);
    }
    return p;
  }
  KernelNode node(void **params) const {
    return {function, {dims[0], dims[1], dims[2]}, {dims[3], dims[4], dims[5]}, dims[6],
            params, nullptr, nullptr, nullptr};
  }
};

// Parameter sizes by function (cuFuncGetParamInfo, once per function); forgotten at a module
// unload, like gSharedAllowed (a held-back launch keeps its own reference).
std::mutex gParamSizesLock;
std::unordered_map<void *, std::shared_ptr<const std::vector<size_t>>> gParamSizes;

std::shared_ptr<const std::vector<size_t>> paramSizes(void *function, size_t count) {
  std::lock_guard<std::mutex> guard(gParamSizesLock);
  std::shared_ptr<const std::vector<size_t>> &sizes = gParamSizes[function];
  if (sizes && sizes->size() == count)
    return sizes;
  auto fresh = std::make_shared<std::vector<size_t>>();
  for (size_t i = 0; i < count; ++i) {
    size_t offset = 0, size = 0;
    if (CUresult rc = gDriver.cuFuncGetParamInfo(function, i, &offset, &size)) {
      tlMessage = "cuFuncGetParamInfo (parameter " + std::to_string(i) + " of " +
                  std::to_string(count) + "): " + describe(rc);
      return nullptr;
    }
    fresh->push_back(size);
  }
  sizes = std::move(fresh);
  return sizes;
}

struct Pending {
  void *stream = nullptr;
  std::vector<Launch> launches;
  // Pool frees not yet issued: behind held-back launches that may use the buffers, issued
  // right after them, so the run stays one graph (a free within a call, after a buffer's last
  // kernel, ends no run); without graphs, issued with the stream's next allocation, copy or
  // wait, so the kernels between them keep launching back to back (programmatic dependent
  // launch) while the next allocation still gets the memory.
  std::vector<std::pair<CUdeviceptr, void *>> frees;
};
thread_local Pending tlPending;
thread_local bool tlGraphsOn = false;

/// An executable graph of one run of launches on one stream.
struct Graph {
  void *stream = nullptr;
  std::vector<Launch> launches; // the values its nodes hold now
  std::vector<void *> nodes;
  void *graph = nullptr, *exec = nullptr;
  std::thread::id owner = std::this_thread::get_id();
  uint64_t used = 0; // gGraphClock at its last launch (the least recent goes first)
};
constexpr size_t kGraphsPerStream = 8;
std::mutex gGraphsLock;
std::vector<std::unique_ptr<Graph>> gGraphs;
uint64_t gGraphClock = 0;

void destroyGraph(Graph &g) {
  if (g.exec)
    gDriver.cuGraphExecDestroy(g.exec);
  if (g.graph)
    gDriver.cuGraphDestroy(g.graph);
}

/// Destroys the graphs `drop` selects. Callers hold gGraphsLock.
template <typename F> void dropGraphs(F drop) {
  auto keep = std::remove_if(gGraphs.begin(), gGraphs.end(), [&](std::unique_ptr<Graph> &g) {
    if (!drop(*g))
      return false;
    destroyGraph(*g);
    return true;
  });
  gGraphs.erase(keep, gGraphs.end());
}

/// The graphs of `stream` go (it is being destroyed); null: every graph and the parameter
/// sizes go (a module is unloaded, so no call is running and functions may change).
void forgetGraphs(void *stream) {
  if (!stream) {
    issueHeldFrees(0);
    tlPending = Pending();
  }
  if (!gDriver.cuGraphExecDestroy)
    return;
  std::lock_guard<std::mutex> guard(gGraphsLock);
  dropGraphs([&](const Graph &g) { return !stream || g.stream == stream; });
  if (!stream) {
    std::lock_guard<std::mutex> sizes(gParamSizesLock);
    gParamSizes.clear();
  }
}

std::string runName(const std::vector<Launch> &run) {
  std::lock_guard<std::mutex> guard(gNamesLock);
  auto it = gNames.find(run.front().function);
  return "a CUDA graph of " + std::to_string(run.size()) + " launches (the first " +
         (it == gNames.end() ? std::string("?") : it->second) + ")";
}

/// cuda.h's CUlaunchAttribute (an id, padding, a 64-byte value union) and CUlaunchConfig.
struct LaunchAttribute {
  int id;
  char pad[4];
  union {
    char bytes[64];
    int value; // programmaticStreamSerializationAllowed
  };
};
struct LaunchConfig {
  unsigned grid[3], block[3], sharedMemBytes;
  void *stream;
  LaunchAttribute *attrs;
  unsigned numAttrs;
};
static_assert(sizeof(LaunchAttribute) == 72 && offsetof(LaunchConfig, stream) == 32 &&
                  offsetof(LaunchConfig, attrs) == 40 && sizeof(LaunchConfig) == 56,
              "CUlaunchAttribute / CUlaunchConfig layout");
/// cuda.h's CUgraphEdgeData.
struct EdgeData {
  unsigned char fromPort, toPort, type, reserved[5];
};

/// A kernel launch; `dependent`: with the programmatic-stream-serialization attribute, so it
/// may start while the kernel before it on the stream still runs (its kernel waits for it,
/// griddepcontrol.wait, before touching memory).
int launchKernel(void *function, const unsigned dims[7], void *stream, void **params,
                 bool dependent) {
  if (!dependent)
    return call(gDriver.cuLaunchKernel(function, dims[0], dims[1], dims[2], dims[3], dims[4],
                                       dims[5], dims[6], stream, params, nullptr));
  LaunchAttribute attr = {};
  attr.id = /*CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION=*/6;
  attr.value = 1;
  LaunchConfig config = {{dims[0], dims[1], dims[2]}, {dims[3], dims[4], dims[5]}, dims[6],
                         stream, &attr, 1};
  return call(gDriver.cuLaunchKernelEx(&config, function, params, nullptr));
}

int launchNow(Launch &l, void *stream) {
  std::vector<void *> params = l.pointers();
  return launchKernel(l.function, l.dims, stream, params.data(), l.dependent);
}

/// A new executable graph of `run` (its launches in order, each depending on the one before).
std::unique_ptr<Graph> buildGraph(std::vector<Launch> &run, void *stream) {
  auto g = std::make_unique<Graph>();
  g->stream = stream;
  auto fail = [&](const char *what, CUresult rc) -> std::unique_ptr<Graph> {
    tlMessage = runName(run) + ": " + what + ": " + describe(rc);
    destroyGraph(*g);
    return nullptr;
  };
  if (CUresult rc = gDriver.cuGraphCreate(&g->graph, 0))
    return fail("cuGraphCreate", rc);
  for (Launch &l : run) {
    std::vector<void *> params = l.pointers();
    KernelNode node = l.node(params.data());
    void *added = nullptr;
    void *const *after = g->nodes.empty() ? nullptr : &g->nodes.back();
    // A programmatic dependent follows the node before it on a programmatic edge (from the
    // port its blocks' griddepcontrol.launch_dependents trigger), added after the node.
    bool programmatic = after && l.dependent && gDriver.cuGraphAddDependencies;
    if (CUresult rc = gDriver.cuGraphAddKernelNode(&added, g->graph, programmatic ? nullptr : after,
                                                   after && !programmatic ? 1 : 0, &node))
      return fail("cuGraphAddKernelNode", rc);
    if (programmatic) {
      EdgeData edge = {/*CU_GRAPH_KERNEL_NODE_PORT_PROGRAMMATIC=*/1, 0,
                       /*CU_GRAPH_DEPENDENCY_TYPE_PROGRAMMATIC=*/1, {}};
      if (CUresult rc = gDriver.cuGraphAddDependencies(g->graph, after, &added, &edge, 1))
        return fail("cuGraphAddDependencies", rc);
    }
    g->nodes.push_back(added);
  }
  if (CUresult rc = gDriver.cuGraphInstantiateWithFlags(&g->exec, g->graph, 0))
    return fail("cuGraphInstantiateWithFlags", rc);
  g->launches = std::move(run);
  return g;
}

/// Issues the calling thread's held-back launches: one alone as a launch, a run of several as
/// its graph (built the first time its shape is seen, its changed nodes updated after).
int issueLaunches() {
  Pending &p = tlPending;
  if (p.launches.empty())
    return 0;
  std::vector<Launch> run;
  run.swap(p.launches);
  void *stream = p.stream;
  p.stream = nullptr;
  if (run.size() == 1)
    return launchNow(run.front(), stream);
  std::lock_guard<std::mutex> guard(gGraphsLock);
  Graph *g = nullptr;
  size_t onStream = 0;
  for (std::unique_ptr<Graph> &c : gGraphs) {
    if (c->stream != stream)
      continue;
    ++onStream;
    if (c->launches.size() == run.size() &&
        std::equal(run.begin(), run.end(), c->launches.begin(),
                   [](const Launch &a, const Launch &b) { return a.sameShape(b); }))
      g = c.get();
  }
  if (g) {
    for (size_t i = 0; i < run.size(); ++i) {
      if (run[i].bytes == g->launches[i].bytes)
        continue;
      std::vector<void *> params = run[i].pointers();
      KernelNode node = run[i].node(params.data());
      if (CUresult rc = gDriver.cuGraphExecKernelNodeSetParams(g->exec, g->nodes[i], &node)) {
        tlMessage = runName(run) + ": cuGraphExecKernelNodeSetParams: " + describe(rc);
        return rc;
      }
      g->launches[i].bytes.swap(run[i].bytes);
    }
  } else {
    if (onStream >= kGraphsPerStream) {
      auto oldest = gGraphs.end();
      for (auto it = gGraphs.begin(); it != gGraphs.end(); ++it)
        if ((*it)->stream == stream && (oldest == gGraphs.end() || (*it)->used < (*oldest)->used))
          oldest = it;
      destroyGraph(**oldest);
      gGraphs.erase(oldest);
    }
    std::unique_ptr<Graph> built = buildGraph(run, stream);
    if (!built)
      return 1;
    g = built.get();
    gGraphs.push_back(std::move(built));
  }
  g->used = ++gGraphClock;
  if (CUresult rc = gDriver.cuGraphLaunch(g->exec, stream)) {
    tlMessage = runName(g->launches) + ": cuGraphLaunch: " + describe(rc);
    return rc;
  }
  return 0;
}

/// Issues the frees held back behind launches (after them in stream order, whatever became of
/// the launches: a dropped run's buffers are freed too). Keeps `rc`, else the first error.
int issueHeldFrees(int rc) {
  std::vector<std::pair<CUdeviceptr, void *>> frees;
  frees.swap(tlPending.frees);
  for (auto [ptr, stream] : frees)
    if (CUresult r = gDriver.cuMemFreeAsync(ptr, stream); r && rc == 0)
      rc = call(r);
  return rc;
}

int flushLaunches() { return issueHeldFrees(issueLaunches()); }

/// Frees without a memory pool (cuMemFree, which no stream orders after the kernels using the
/// buffer) wait for the stream's next synchronisation instead of one each.
thread_local std::vector<std::pair<CUdeviceptr, void *>> tlDeferredFrees;

/// The deferred frees of `stream` (null: all), after a wait for it; keeps `rc`, else the first
/// error.
int releaseDeferredFrees(void *stream, int rc, bool waited) {
  std::vector<std::pair<CUdeviceptr, void *>> keep, go;
  for (auto &f : tlDeferredFrees)
    (!stream || f.second == stream ? go : keep).push_back(f);
  tlDeferredFrees.swap(keep);
  if (go.empty())
    return rc;
  if (!waited) {
    std::vector<void *> streams;
    for (auto &f : go)
      if (std::find(streams.begin(), streams.end(), f.second) == streams.end())
        streams.push_back(f.second);
    for (void *st : streams)
      if (CUresult r = gDriver.cuStreamSynchronize(st); r && rc == 0)
        rc = call(r);
  }
  for (auto &f : go)
    if (CUresult r = gDriver.cuMemFree(f.first); r && rc == 0)
      rc = call(r);
  return rc;
}

// The temporaries of a call with graphs on come from its stream's arena: one pool allocation
// from which the call's allocations are placed first fit in call order (the lowest offset
// where no live allocation of the call overlaps), a free releasing its range for the
// allocations after it, and the placement starting over when the next call begins (the
// stream orders that call's kernels after this one's). A call's temporaries then have the same
// addresses every call (the same allocations and frees in the same order: the same places),
// so its graphs replay without node updates, whatever order the pool would hand blocks back
// in; the arena holds what the call's live temporaries need at most, not all it makes; and
// neither allocations nor frees cost driver calls or end a run of launches. The first call, or
// one that needs more, takes what does not fit from the pool as usual (placed all the same);
// the next call begins with an arena of what it needed (up to kArenaLimit; past it the rest
// keeps coming from the pool).
constexpr size_t kArenaLimit = size_t(256) << 20;
constexpr size_t kArenaAlign = 256; // as cuMemAlloc's
struct Arena {
  void *stream = nullptr;
  std::thread::id owner = std::this_thread::get_id();
  CUdeviceptr base = 0;
  size_t capacity = 0;
  size_t wanted = 0; // the end of the current call's highest placement so far
  struct Placed {
    size_t at, size;
    CUdeviceptr ptr; // base + at, or the pool's block when past the capacity
  };
  std::vector<Placed> live; // the call's live allocations, by offset
};
std::mutex gArenasLock;
std::vector<Arena> gArenas;

Arena *arenaOf(void *stream) {
  for (Arena &a : gArenas)
    if (a.stream == stream)
      return &a;
  return nullptr;
}

/// An allocation of a call with graphs on: placed in the stream's arena (first fit among the
/// call's live allocations), served there when it fits the capacity, else by the pool.
int arenaAlloc(void **ptr, uint64_t size, void *stream) {
  std::lock_guard<std::mutex> guard(gArenasLock);
  Arena *a = arenaOf(stream);
  if (!a) {
    gArenas.push_back(Arena());
    a = &gArenas.back();
    a->stream = stream;
  }
  size_t at = 0;
  auto pos = a->live.begin();
  for (; pos != a->live.end(); ++pos) {
    if (pos->at >= at + size)
      break; // the gap before it fits
    at = (pos->at + pos->size + kArenaAlign - 1) & ~(kArenaAlign - 1);
  }
  a->wanted = std::max(a->wanted, at + size);
  CUdeviceptr p = 0;
  if (at + size <= a->capacity) {
    p = a->base + at;
  } else if (int rc = call(gDriver.cuMemAllocAsync(&p, size, stream))) {
    return rc;
  }
  a->live.insert(pos, Arena::Placed{at, size, p});
  *ptr = reinterpret_cast<void *>(static_cast<uintptr_t>(p));
  return 0;
}

/// 0 when `ptr` is in the arena of `stream` (its range released for later placements), else
/// 1 (the pool frees it; a placement past the capacity is released too).
int arenaFree(void *ptr, void *stream) {
  std::lock_guard<std::mutex> guard(gArenasLock);
  Arena *a = arenaOf(stream);
  if (!a)
    return 1;
  CUdeviceptr p = reinterpret_cast<uintptr_t>(ptr);
  auto placed = std::find_if(a->live.begin(), a->live.end(),
                             [&](const Arena::Placed &x) { return x.ptr == p; });
  if (placed != a->live.end())
    a->live.erase(placed);
  return a->capacity && p >= a->base && p < a->base + a->capacity ? 0 : 1;
}

/// Drops the arenas `drop` selects, their memory freed in their streams' order (errors
/// ignored: they go away). Callers hold gArenasLock.
template <typename F> void dropArenas(F drop) {
  auto keep = std::remove_if(gArenas.begin(), gArenas.end(), [&](const Arena &a) {
    if (!drop(a))
      return false;
    if (a.base)
      gDriver.cuMemFreeAsync(a.base, a.stream);
    return true;
  });
  gArenas.erase(keep, gArenas.end());
}

void dropArena(void *stream) {
  std::lock_guard<std::mutex> guard(gArenasLock);
  dropArenas([&](const Arena &a) { return a.stream == stream; });
}

/// The start of a call: the calling thread's arenas hand out from their start again, each
/// first grown to what its last call needed.
void resetArenas() {
  std::lock_guard<std::mutex> guard(gArenasLock);
  std::thread::id self = std::this_thread::get_id();
  for (Arena &a : gArenas) {
    if (a.owner != self)
      continue;
    if (a.wanted > a.capacity && a.capacity < kArenaLimit) {
      size_t grown = std::min(kArenaLimit, a.wanted + a.wanted / 8);
      CUdeviceptr fresh = 0;
      if (gDriver.cuMemAllocAsync(&fresh, grown, a.stream) == 0) {
        if (a.base)
          gDriver.cuMemFreeAsync(a.base, a.stream);
        a.base = fresh;
        a.capacity = grown;
      }
    }
    a.wanted = 0;
    a.live.clear();
  }
}

// The calling thread's kernel profile (decoda::runtime::cudaProfileBegin/End): an event
// before the call's first launch, one after each launch, all on the launch's stream. The
// events are reused by every call and destroyed when profiling is turned off (not at thread
// exit, which may come after the driver's own teardown).
struct Profile {
  bool on = false;        // decoda_profile_enable on this thread
  bool recording = false; // within a call
  std::vector<void *> events;
  std::vector<void *> functions;
  std::string failure; // the first event error of the call
  std::string error;   // why the last call has no profile
  std::vector<std::string> names;
  std::vector<decoda::runtime::KernelTime> last;
};
thread_local Profile tlProfile;

/// Event `i` of the thread's profile (created on first use), or null with the failure noted.
void *profileEvent(size_t i) {
  Profile &p = tlProfile;
  while (p.events.size() <= i) {
    void *e = nullptr;
    if (CUresult rc = gDriver.cuEventCreate(&e, /*CU_EVENT_DEFAULT=*/0)) {
      if (p.failure.empty())
        p.failure = "cuEventCreate: " + describe(rc);
      return nullptr;
    }
    p.events.push_back(e);
  }
  return p.events[i];
}

void profileRecord(size_t i, void *stream) {
  Profile &p = tlProfile;
  void *e = profileEvent(i);
  if (!e)
    return;
  if (CUresult rc = gDriver.cuEventRecord(e, stream); rc && p.failure.empty())
    p.failure = "cuEventRecord: " + describe(rc);
}
int launch(void *function, int64_t gx, int64_t gy, int64_t gz, int64_t bx, int64_t by,
           int64_t bz, int32_t sharedBytes, void *stream, void **params, size_t numParams) {
  // Grid limits (x < 2^31, y and z < 2^16) are the driver's to check.
  for (int64_t d : {gx, gy, gz, bx, by, bz})
    if (d > INT32_MAX) {
      tlMessage = "launch dimension " + std::to_string(d) + " exceeds the CUDA limits";
      return 1;
    }
  if (int rc = enter())
    return rc;
  // Over 48 KiB of dynamic shared memory (the TMA kernels) must be allowed per function,
  // once.
  if (sharedBytes > 48 * 1024) {
    std::lock_guard<std::mutex> guard(gSharedAllowedLock);
    int32_t &bytes = gSharedAllowed[function];
    if (bytes < sharedBytes) {
      if (int rc = call(gDriver.cuFuncSetAttribute(
              function, /*CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES=*/8, sharedBytes))) {
        tlMessage = "allowing " + std::to_string(sharedBytes) +
                    " bytes of dynamic shared memory: " + tlMessage;
        return rc;
      }
      bytes = sharedBytes;
    }
  }
  Profile &prof = tlProfile;
  if (tlGraphsOn && !prof.recording) {
    Pending &p = tlPending;
    if (p.stream && p.stream != stream)
      if (int rc = flushLaunches())
        return rc;
    Launch l;
    l.function = function;
    l.dependent = isDependent(function);
    const int64_t dims[7] = {gx, gy, gz, bx, by, bz, sharedBytes};
    std::copy(dims, dims + 7, l.dims);
    if (!(l.sizes = paramSizes(function, numParams)))
      return 1;
    for (size_t i = 0; i < numParams; ++i) {
      size_t at = l.bytes.size(), size = (*l.sizes)[i];
      l.bytes.resize(at + ((size + 7) & ~size_t(7)));
      std::memcpy(l.bytes.data() + at, params[i], size);
    }
    p.stream = stream;
    p.launches.push_back(std::move(l));
    return 0;
  }
  if (int rc = flushLaunches())
    return rc;
  if (prof.recording && prof.functions.empty())
    profileRecord(0, stream);
  const unsigned dims[7] = {unsigned(gx), unsigned(gy), unsigned(gz), unsigned(bx),
                            unsigned(by), unsigned(bz), unsigned(sharedBytes)};
  // A profiled launch runs alone between its events: no overlap with the kernel before.
  int rc = launchKernel(function, dims, stream, params, !prof.recording && isDependent(function));
  if (rc == 0 && prof.recording) {
    prof.functions.push_back(function);
    profileRecord(prof.functions.size(), stream);
  }
  return rc;
}
int streamCreate(void **stream) {
  if (int rc = enter())
    return rc;
  return call(gDriver.cuStreamCreate(stream, /*CU_STREAM_NON_BLOCKING=*/1));
}
int streamSynchronize(void *stream) {
  if (int rc = enter())
    return rc;
  if (int rc = flushLaunches())
    return rc;
  int rc = call(gDriver.cuStreamSynchronize(stream));
  return releaseDeferredFrees(stream, rc, /*waited=*/true);
}
int streamDestroy(void *stream) {
  if (int rc = enter())
    return rc;
  if (tlPending.stream == stream) {
    issueHeldFrees(0);
    tlPending = Pending();
  }
  releaseDeferredFrees(stream, 0, /*waited=*/false);
  forgetGraphs(stream);
  dropArena(stream);
  return call(gDriver.cuStreamDestroy(stream));
}
int memAlloc(void **ptr, uint64_t size) {
  if (int rc = enter())
    return rc;
  CUdeviceptr p = 0;
  int rc = call(gDriver.cuMemAlloc(&p, size));
  *ptr = reinterpret_cast<void *>(static_cast<uintptr_t>(p));
  return rc;
}
int memFree(void *ptr) {
  if (int rc = enter())
    return rc;
  if (int rc = flushLaunches())
    return rc;
  return call(gDriver.cuMemFree(reinterpret_cast<uintptr_t>(ptr)));
}
int memcpyAsync(void *dst, const void *src, uint64_t size, void *stream) {
  // Unified addressing (every 64-bit platform CUDA supports): the driver tells host from
  // device pointers.
  if (int rc = enter())
    return rc;
  if (int rc = flushLaunches())
    return rc;
  return call(gDriver.cuMemcpyAsync(reinterpret_cast<uintptr_t>(dst),
                                    reinterpret_cast<uintptr_t>(src), size, stream));
}
const char *errorMessage() { return tlMessage.c_str(); }

// Temporaries are allocated and freed in stream order, so a free does not wait for the kernels
// still using the buffer and an allocation reuses what the pool holds instead of a cuMemAlloc
// (which is slow, and whose cuMemFree synchronises the device).
int memAllocAsync(void **ptr, uint64_t size, void *stream) {
  if (!gDriver.pool)
    return memAlloc(ptr, size);
  if (int rc = enter())
    return rc;
  if (tlGraphsOn)
    return arenaAlloc(ptr, size, stream);
  // The frees before it first, so it may reuse their memory (none are behind held launches:
  // those are held only with graphs on).
  if (tlPending.launches.empty())
    if (int rc = issueHeldFrees(0))
      return rc;
  CUdeviceptr p = 0;
  int rc = call(gDriver.cuMemAllocAsync(&p, size, stream));
  *ptr = reinterpret_cast<void *>(static_cast<uintptr_t>(p));
  return rc;
}
int memFreeAsync(void *ptr, void *stream) {
  if (int rc = enter())
    return rc;
  if (arenaFree(ptr, stream) == 0)
    return 0;
  CUdeviceptr p = reinterpret_cast<uintptr_t>(ptr);
  if (gDriver.pool) {
    // After the held-back launches, which may use the buffer; else with the stream's next
    // allocation, copy or wait (Pending::frees).
    tlPending.frees.emplace_back(p, stream);
    return 0;
  }
  // Without a pool the buffer may still be in use by the stream's kernels: freed after the
  // stream's next synchronisation (the call's end at the latest).
  tlDeferredFrees.emplace_back(p, stream);
  return 0;
}
int isDevicePointer(const void *ptr) {
  if (enter())
    return 0;
  // CU_POINTER_ATTRIBUTE_MEMORY_TYPE (2) is CU_MEMORYTYPE_DEVICE (2) for device memory; pageable
  // host memory is not known to the driver (an error, hence host).
  unsigned type = 0;
  CUresult rc = gDriver.cuPointerGetAttribute(&type, /*CU_POINTER_ATTRIBUTE_MEMORY_TYPE=*/2,
                                              reinterpret_cast<uintptr_t>(ptr));
  return rc == 0 && type == /*CU_MEMORYTYPE_DEVICE=*/2;
}
int memTrim() {
  if (!gDriver.pool)
    return 0;
  return enter() ? 1 : call(gDriver.cuMemPoolTrimTo(gDriver.pool, 0));
}

// cuTensorMapEncodeTiled of a tensor of `rank` (2 or 3) dimensions, innermost first, `strides`
// the byte strides of dimensions 1 .. rank - 1, `box` a box extent per dimension: the checks,
// driver call and messages shared by the 2-D and 3-D entry points.
int tensorMapEncodeTiled(void *map, const void *base, unsigned rank, const uint64_t *dims,
                         const uint64_t *strides, const unsigned *box, int32_t elementBytes,
                         int32_t swizzleBytes) {
  if (!gDriver.cuTensorMapEncodeTiled) {
    // 2-D maps are the projections' (--gpu-tma, on by default), 3-D maps the attention's K
    // and V (--gpu-attention-tma): the way out names the flag that made them.
    tlMessage = std::string("the CUDA driver has no cuTensorMapEncodeTiled (TMA needs a CUDA 12 "
                            "or newer driver; ") +
                (rank == 3 ? "compile without --gpu-attention-tma for the cp.async attention "
                             "kernel)"
                           : "compile with --gpu-tma=false for cp.async kernels)");
    return 1;
  }
  // CU_TENSOR_MAP_DATA_TYPE_UINT8 / UINT16 / UINT32: the bits are copied, whatever they hold.
  int dataType = elementBytes == 1 ? 0 : elementBytes == 2 ? 1 : elementBytes == 4 ? 2 : -1;
  // CU_TENSOR_MAP_SWIZZLE_NONE / 32B / 64B / 128B.
  int swizzle = swizzleBytes == 0    ? 0
                : swizzleBytes == 32 ? 1
                : swizzleBytes == 64 ? 2
                : swizzleBytes == 128 ? 3
                                      : -1;
  if (dataType < 0 || swizzle < 0) {
    tlMessage = "tensor map of " + std::to_string(elementBytes) + "-byte elements with a " +
                std::to_string(swizzleBytes) + "-byte swizzle is not supported";
    return 1;
  }
  if (int rc = enter())
    return rc;
  const unsigned elementStrides[3] = {1, 1, 1};
  int rc = call(gDriver.cuTensorMapEncodeTiled(
      map, dataType, rank, const_cast<void *>(base), dims, strides, box, elementStrides,
      /*CU_TENSOR_MAP_INTERLEAVE_NONE=*/0, swizzle, /*CU_TENSOR_MAP_L2_PROMOTION_L2_256B=*/3,
      /*CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE (zeros)=*/0));
  if (rc) {
    // Outermost first: "rows x inner", "planes x rows x inner".
    std::string shape = std::to_string(dims[rank - 1]), boxShape = std::to_string(box[rank - 1]);
    for (unsigned i = rank - 1; i-- > 0;) {
      shape += " x " + std::to_string(dims[i]);
      boxShape += " x " + std::to_string(box[i]);
    }
    std::string layout = std::to_string(strides[0]) + "-byte rows";
    if (rank == 3)
      layout += ", " + std::to_string(strides[1]) + "-byte planes";
    tlMessage = "cuTensorMapEncodeTiled of a " + shape + (rank == 2 ? " matrix (" : " tensor (") +
                layout + ", box " + boxShape + "): " + tlMessage;
  }
  return rc;
}

int tensorMapEncode(void *map, const void *base, uint64_t inner, uint64_t rows,
                    uint64_t rowStrideBytes, int32_t elementBytes, int32_t boxInner,
                    int32_t boxRows, int32_t swizzleBytes) {
  const uint64_t dims[2] = {inner, rows};
  const uint64_t strides[1] = {rowStrideBytes};
  const unsigned box[2] = {unsigned(boxInner), unsigned(boxRows)};
  return tensorMapEncodeTiled(map, base, 2, dims, strides, box, elementBytes, swizzleBytes);
}

int tensorMapEncode3D(void *map, const void *base, uint64_t inner, uint64_t rows,
                      uint64_t planes, uint64_t rowStrideBytes, uint64_t planeStrideBytes,
                      int32_t elementBytes, int32_t boxInner, int32_t boxRows,
                      int32_t swizzleBytes) {
  const uint64_t dims[3] = {inner, rows, planes};
  const uint64_t strides[2] = {rowStrideBytes, planeStrideBytes};
  const unsigned box[3] = {unsigned(boxInner), unsigned(boxRows), 1};
  return tensorMapEncodeTiled(map, base, 3, dims, strides, box, elementBytes, swizzleBytes);
}

const decoda_cuda_api gAPI = {DECODA_CUDA_API_VERSION,
                              moduleLoad,
                              moduleUnload,
                              getFunction,
                              launch,
                              streamCreate,
                              streamSynchronize,
                              streamDestroy,
                              memAlloc,
                              memFree,
                              memcpyAsync,
                              errorMessage,
                              memAllocAsync,
                              memFreeAsync,
                              isDevicePointer,
                              memTrim,
                              tensorMapEncode,
                              tensorMapEncode3D};

template <typename F> bool resolve(void *lib, F &fn, const char *name, std::string &missing) {
  fn = reinterpret_cast<F>(dlsym(lib, name));
  if (!fn)
    missing += std::string(missing.empty() ? "" : ", ") + name;
  return fn != nullptr;
}

std::string initialize() {
  const char *env = std::getenv("DECODA_CUDA_DRIVER");
  std::string path = env && *env ? env : "libcuda.so.1";
  void *lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char *why = dlerror();
    return "no CUDA device: the CUDA driver '" + path + "' cannot be loaded (" +
           (why ? why : "dlopen failed") + ")";
  }
  Driver &d = gDriver;
  std::string missing;
  resolve(lib, d.cuInit, "cuInit", missing);
  resolve(lib, d.cuDeviceGetCount, "cuDeviceGetCount", missing);
  resolve(lib, d.cuDeviceGet, "cuDeviceGet", missing);
  resolve(lib, d.cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain", missing);
  resolve(lib, d.cuCtxSetCurrent, "cuCtxSetCurrent", missing);
  resolve(lib, d.cuGetErrorString, "cuGetErrorString", missing);
  resolve(lib, d.cuModuleLoadData, "cuModuleLoadData", missing);
  resolve(lib, d.cuModuleUnload, "cuModuleUnload", missing);
  resolve(lib, d.cuModuleGetFunction, "cuModuleGetFunction", missing);
  resolve(lib, d.cuLaunchKernel, "cuLaunchKernel", missing);
  resolve(lib, d.cuStreamCreate, "cuStreamCreate", missing);
  resolve(lib, d.cuStreamSynchronize, "cuStreamSynchronize", missing);
  resolve(lib, d.cuStreamDestroy, "cuStreamDestroy_v2", missing);
  resolve(lib, d.cuMemAlloc, "cuMemAlloc_v2", missing);
  resolve(lib, d.cuMemFree, "cuMemFree_v2", missing);
  resolve(lib, d.cuMemcpyAsync, "cuMemcpyAsync", missing);
  resolve(lib, d.cuPointerGetAttribute, "cuPointerGetAttribute", missing);
  resolve(lib, d.cuFuncSetAttribute, "cuFuncSetAttribute", missing);
  std::string optional; // missing optional entry points: plain allocation
  resolve(lib, d.cuMemAllocAsync, "cuMemAllocAsync", optional);
  resolve(lib, d.cuMemFreeAsync, "cuMemFreeAsync", optional);
  resolve(lib, d.cuDeviceGetDefaultMemPool, "cuDeviceGetDefaultMemPool", optional);
  resolve(lib, d.cuMemPoolSetAttribute, "cuMemPoolSetAttribute", optional);
  resolve(lib, d.cuMemPoolTrimTo, "cuMemPoolTrimTo", optional);
  std::string noTma; // TMA kernels then fail with their own message
  resolve(lib, d.cuTensorMapEncodeTiled, "cuTensorMapEncodeTiled", noTma);
  std::string noEvents; // decoda_profile_enable then fails, naming them
  resolve(lib, d.cuEventCreate, "cuEventCreate", noEvents);
  resolve(lib, d.cuEventRecord, "cuEventRecord", noEvents);
  resolve(lib, d.cuEventSynchronize, "cuEventSynchronize", noEvents);
  resolve(lib, d.cuEventDestroy, "cuEventDestroy_v2", noEvents);
  // CUDA 12.8 added the _v2 name (the same signature); older drivers have only the first.
  if (!(d.cuEventElapsedTime = reinterpret_cast<decltype(d.cuEventElapsedTime)>(
            dlsym(lib, "cuEventElapsedTime_v2"))))
    resolve(lib, d.cuEventElapsedTime, "cuEventElapsedTime", noEvents);
  // Launch graphs; the _v2 node entry points (CUDA 12) take the same struct as the first ones,
  // two fields longer (KernelNode).
  std::string noGraphs; // decoda_cuda_graphs_enable then fails, naming them
  resolve(lib, d.cuFuncGetParamInfo, "cuFuncGetParamInfo", noGraphs);
  resolve(lib, d.cuGraphCreate, "cuGraphCreate", noGraphs);
  if (!(d.cuGraphAddKernelNode = reinterpret_cast<decltype(d.cuGraphAddKernelNode)>(
            dlsym(lib, "cuGraphAddKernelNode_v2"))))
    resolve(lib, d.cuGraphAddKernelNode, "cuGraphAddKernelNode", noGraphs);
  resolve(lib, d.cuGraphInstantiateWithFlags, "cuGraphInstantiateWithFlags", noGraphs);
  if (!(d.cuGraphExecKernelNodeSetParams =
            reinterpret_cast<decltype(d.cuGraphExecKernelNodeSetParams)>(
                dlsym(lib, "cuGraphExecKernelNodeSetParams_v2"))))
    resolve(lib, d.cuGraphExecKernelNodeSetParams, "cuGraphExecKernelNodeSetParams", noGraphs);
  resolve(lib, d.cuGraphLaunch, "cuGraphLaunch", noGraphs);
  resolve(lib, d.cuGraphExecDestroy, "cuGraphExecDestroy", noGraphs);
  resolve(lib, d.cuGraphDestroy, "cuGraphDestroy", noGraphs);
  d.noGraphs = noGraphs;
  std::string noDependentLaunch; // kernels then launch in plain stream order
  if (!(d.cuModuleGetGlobal = reinterpret_cast<decltype(d.cuModuleGetGlobal)>(
            dlsym(lib, "cuModuleGetGlobal_v2"))))
    resolve(lib, d.cuModuleGetGlobal, "cuModuleGetGlobal", noDependentLaunch);
  resolve(lib, d.cuLaunchKernelEx, "cuLaunchKernelEx", noDependentLaunch);
  // Optional within it: graphs then order a dependent's node after the one before it fully.
  std::string noEdgeData;
  resolve(lib, d.cuGraphAddDependencies, "cuGraphAddDependencies_v2", noEdgeData);
  // DECODA_CUDA_DEPENDENT_LAUNCH=0: plain stream order (compare without recompiling).
  const char *dependentEnv = std::getenv("DECODA_CUDA_DEPENDENT_LAUNCH");
  std::string dependentSetting = dependentEnv ? dependentEnv : "";
  if (!dependentSetting.empty() && dependentSetting != "0" && dependentSetting != "1")
    return "no CUDA device: DECODA_CUDA_DEPENDENT_LAUNCH=" + dependentSetting +
           " (expected 0, plain stream order, or 1, programmatic dependent launch)";
  d.dependentLaunch = noDependentLaunch.empty() && dependentSetting != "0";
  if (!missing.empty())
    return "no CUDA device: the CUDA driver '" + path + "' lacks " + missing;
  if (CUresult rc = d.cuInit(0))
    return "no CUDA device: cuInit failed: " + describe(rc);
  int count = 0;
  if (CUresult rc = d.cuDeviceGetCount(&count))
    return "no CUDA device: cuDeviceGetCount failed: " + describe(rc);
  if (count == 0)
    return "no CUDA device: the driver reports no devices";
  int ordinal = 0;
  if (const char *dev = std::getenv("DECODA_CUDA_DEVICE"); dev && *dev) {
    char *end = nullptr;
    long v = std::strtol(dev, &end, 10);
    if (*end || v < 0 || v >= count)
      return "no CUDA device: DECODA_CUDA_DEVICE=" + std::string(dev) + " is not a device "
             "ordinal below " + std::to_string(count);
    ordinal = int(v);
  }
  CUdevice device = 0;
  if (CUresult rc = d.cuDeviceGet(&device, ordinal))
    return "no CUDA device: cuDeviceGet failed: " + describe(rc);
  if (CUresult rc = d.cuDevicePrimaryCtxRetain(&d.context, device))
    return "no CUDA device: cannot create a context: " + describe(rc);
  // The default pool keeps what is freed (release threshold: unlimited) so the next call's
  // temporaries reuse it; devices without memory pools (or old drivers) use cuMemAlloc.
  void *pool = nullptr;
  if (optional.empty() && d.cuCtxSetCurrent(d.context) == 0 &&
      d.cuDeviceGetDefaultMemPool(&pool, device) == 0 && pool) {
    uint64_t keep = UINT64_MAX;
    if (d.cuMemPoolSetAttribute(pool, /*CU_MEMPOOL_ATTR_RELEASE_THRESHOLD=*/4, &keep) == 0)
      d.pool = pool;
  }
  return "";
}
} // namespace

namespace {
std::atomic<bool> gAcquired{false};
}

const decoda_cuda_api *decoda::runtime::acquireCUDA(std::string &error) {
  static std::once_flag once;
  static std::string failure;
  std::call_once(once, [] {
    failure = initialize();
    gAcquired = failure.empty();
  });
  if (!failure.empty()) {
    error = failure;
    return nullptr;
  }
  return &gAPI;
}

const decoda_cuda_api *decoda::runtime::loadedCUDA() { return gAcquired ? &gAPI : nullptr; }

std::string decoda::runtime::cudaProfileEnable(bool on) {
  const Driver &d = gDriver;
  if (on && (!d.cuEventCreate || !d.cuEventRecord || !d.cuEventSynchronize ||
             !d.cuEventElapsedTime || !d.cuEventDestroy))
    return "the CUDA driver lacks the event entry points kernel profiles use (cuEventCreate, "
           "cuEventRecord, cuEventSynchronize, cuEventElapsedTime, cuEventDestroy_v2)";
  Profile &p = tlProfile;
  p.on = on;
  if (!on && !p.events.empty()) {
    if (enter())
      return tlMessage;
    for (void *e : p.events)
      d.cuEventDestroy(e);
    p.events.clear();
  }
  return "";
}

void decoda::runtime::cudaProfileBegin() {
  Profile &p = tlProfile;
  p.last.clear();
  p.names.clear();
  p.error.clear();
  p.recording = p.on && gAcquired;
  p.functions.clear();
  p.failure.clear();
}

void decoda::runtime::cudaProfileEnd(bool keep) {
  Profile &p = tlProfile;
  if (!p.recording)
    return;
  p.recording = false;
  auto fail = [&](const std::string &why) {
    p.last.clear();
    p.error = "kernel profile: " + why;
  };
  if (!keep || p.functions.empty())
    return;
  if (!p.failure.empty())
    return fail(p.failure);
  if (enter())
    return fail(tlMessage);
  size_t n = p.functions.size();
  if (CUresult rc = gDriver.cuEventSynchronize(p.events[n]))
    return fail("cuEventSynchronize: " + describe(rc));
  {
    std::lock_guard<std::mutex> guard(gNamesLock);
    for (void *f : p.functions) {
      auto it = gNames.find(f);
      p.names.push_back(it == gNames.end() ? "?" : it->second);
    }
  }
  for (size_t i = 0; i < n; ++i) {
    // One stream per calling thread (docs/ABI.md, "Streams"): the events are in stream order.
    float ms = 0;
    if (CUresult rc = gDriver.cuEventElapsedTime(&ms, p.events[i], p.events[i + 1]))
      return fail("cuEventElapsedTime: " + describe(rc));
    p.last.push_back({p.names[i].c_str(), double(ms)});
  }
}

const std::vector<decoda::runtime::KernelTime> &
decoda::runtime::cudaProfileLast(std::string &error) {
  error = tlProfile.error;
  return tlProfile.last;
}

std::string decoda::runtime::cudaGraphsEnable(bool on) {
  if (on && !gDriver.noGraphs.empty())
    return "the CUDA driver lacks the entry points launch graphs use (" + gDriver.noGraphs +
           "; CUDA 12.4 or later has them)";
  tlGraphsOn = on;
  if (!on && gDriver.cuGraphExecDestroy) {
    if (enter())
      return tlMessage;
    std::thread::id self = std::this_thread::get_id();
    {
      std::lock_guard<std::mutex> guard(gGraphsLock);
      dropGraphs([&](const Graph &g) { return g.owner == self; });
    }
    std::lock_guard<std::mutex> guard(gArenasLock);
    dropArenas([&](const Arena &a) { return a.owner == self; });
  }
  return "";
}

void decoda::runtime::cudaCallBegin() {
  if (tlGraphsOn && enter() == 0)
    resetArenas();
}

void decoda::runtime::cudaCallEnd(bool ok) {
  // A successful call has issued everything (its end waits for the stream); a failed one may
  // leave launches held back: they belong to the failed call and are dropped, the frees behind
  // them issued. Frees still deferred (no pool) go after a wait.
  if (ok && tlDeferredFrees.empty() && tlPending.frees.empty())
    return;
  if (enter() != 0)
    return;
  if (!ok)
    tlPending.launches.clear();
  issueHeldFrees(0);
  if (!ok)
    tlPending = Pending();
  releaseDeferredFrees(nullptr, 0, /*waited=*/false);
}
