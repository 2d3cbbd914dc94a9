//===- CUDARuntime.h - the CUDA driver, loaded at run time ------*- C++ -*-===//
//
// Part of libdecoda_runtime.so. The CUDA driver (libcuda.so.1) is opened with dlopen on the
// first CUDA model, so the runtime and decoda-run load and work on machines without it.
//
//===----------------------------------------------------------------------===//

#ifndef DECODA_RUNTIME_CUDARUNTIME_H
#define DECODA_RUNTIME_CUDARUNTIME_H

#include <string>
#include <vector>

struct decoda_cuda_api;

namespace decoda::runtime {

/// The driver table handed to CUDA models (CUDAAPI.h), once libcuda is loaded, initialised and
/// has a device (the primary context of device 0, or of $DECODA_CUDA_DEVICE). Null with
/// `error` set ("no CUDA device: ...") otherwise; the outcome of the first call is kept.
const decoda_cuda_api *acquireCUDA(std::string &error);

/// The driver table when a CUDA model was loaded before (acquireCUDA succeeded), else null;
/// never loads the driver.
const decoda_cuda_api *loadedCUDA();

/// Kernel profiles of the calling thread (docs/ABI.md, "Kernel profiles"): while enabled,
/// every launch between cudaProfileBegin and cudaProfileEnd is bracketed by CUDA events on
/// its stream. Enabling returns an error when the driver lacks the event entry points.
std::string cudaProfileEnable(bool on);
/// The start of a call of a model (clears the thread's last profile).
void cudaProfileBegin();
/// The end of the call: with `keep` (the call succeeded), waits for the last event and makes
/// the launches' times the thread's last profile (an event error is kept for cudaProfileLast).
void cudaProfileEnd(bool keep);
/// One launch of a profiled call: its kernel and the device time from the end of the launch
/// before it (the first: from just before it) to its end.
struct KernelTime {
  const char *kernel;
  double ms;
};
/// The launches of the thread's last profiled call, in launch order (valid until its next
/// call); `error` set when its events failed.
const std::vector<KernelTime> &cudaProfileLast(std::string &error);

/// Launch graphs of the calling thread (docs/ABI.md, "Launch graphs"): while on, the
/// launches of a call that nothing else on the stream separates go to the device as one CUDA
/// graph, kept and replayed by later calls. Enabling returns an error when the driver lacks
/// the graph entry points; turning it off destroys the thread's graphs.
std::string cudaGraphsEnable(bool on);
/// The start of a call of a CUDA model (with graphs on: the thread's arenas start over).
void cudaCallBegin();
/// The end of a call of a CUDA model; a failed call's held-back launches are dropped.
void cudaCallEnd(bool ok);

} // namespace decoda::runtime

#endif // DECODA_RUNTIME_CUDARUNTIME_H
