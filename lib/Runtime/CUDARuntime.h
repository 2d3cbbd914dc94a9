//===- CUDARuntime.h - the CUDA driver, loaded at run time ------*- C++ -*-===//
//
// Part of libdecoda_runtime.so. The CUDA driver (libcuda.so.1) is opened with dlopen on the
// first CUDA model, so the runtime and decoda-run load and work on machines without it.
//
//===----------------------------------------------------------------------===//

#ifndef DECODA_RUNTIME_CUDARUNTIME_H
#define DECODA_RUNTIME_CUDARUNTIME_H

#include <string>

struct decoda_cuda_api;

namespace decoda::runtime {

/// The driver table handed to CUDA models (CUDAAPI.h), once libcuda is loaded, initialised and
/// has a device (the primary context of device 0, or of $DECODA_CUDA_DEVICE). Null with
/// `error` set ("no CUDA device: ...") otherwise; the outcome of the first call is kept.
const decoda_cuda_api *acquireCUDA(std::string &error);

/// The driver table when a CUDA model was loaded before (acquireCUDA succeeded), else null;
/// never loads the driver.
const decoda_cuda_api *loadedCUDA();

} // namespace decoda::runtime

#endif // DECODA_RUNTIME_CUDARUNTIME_H
