/*===- CUDAAPI.h - the driver table a CUDA model calls through ---*- C -*-===*\
|*                                                                            *|
|* Shared by the runtime (CUDARuntime.cpp) and, as text, by the support      *|
|* source decoda-compile writes into every CUDA model                        *|
|* (lib/Target/CUDA/CUDATarget.cpp): keep the two identical.                 *|
|* Every function returns 0 on success, else a CUDA error code; the message  *|
|* of the last failure on the calling thread is error_message().             *|
\*===----------------------------------------------------------------------===*/

#ifndef DECODA_RUNTIME_CUDAAPI_H
#define DECODA_RUNTIME_CUDAAPI_H

#include <stddef.h>
#include <stdint.h>

#define DECODA_CUDA_API_VERSION 5

struct decoda_cuda_api {
  int32_t version; /* DECODA_CUDA_API_VERSION */
  int (*module_load)(void **module, const void *image, size_t size);
  int (*module_unload)(void *module);
  int (*get_function)(void **function, void *module, const char *name);
  /* Version 4: num_params, the number of kernel parameters `params` points to (launch graphs
     copy their values). */
  int (*launch)(void *function, int64_t gx, int64_t gy, int64_t gz, int64_t bx, int64_t by,
                int64_t bz, int32_t shared_bytes, void *stream, void **params,
                size_t num_params);
  int (*stream_create)(void **stream);
  int (*stream_synchronize)(void *stream);
  int (*stream_destroy)(void *stream);
  int (*mem_alloc)(void **ptr, uint64_t size);
  int (*mem_free)(void *ptr);
  int (*memcpy)(void *dst, const void *src, uint64_t size, void *stream);
  const char *(*error_message)(void);
  /* Version 2: stream-ordered allocation (cuMemAllocAsync/cuMemFreeAsync from the device's
     default memory pool, which keeps freed memory for reuse; plain cuMemAlloc/cuMemFree after a
     synchronisation of the stream on drivers without them), whether a pointer is device memory
     (so a copy to the host is waited for and nothing else is), and giving the pool's unused
     memory back to the device (at model unload). */
  int (*mem_alloc_async)(void **ptr, uint64_t size, void *stream);
  int (*mem_free_async)(void *ptr, void *stream);
  int (*is_device_pointer)(const void *ptr);
  int (*mem_trim)(void);
  /* Version 3: TMA. Encodes into `map` (128 bytes, the driver's CUtensorMap) the 2-D tiled
     tensor map of the row-major matrix at device address `base` ([rows][inner] elements of
     `element_bytes`, rows `row_stride_bytes` apart) in boxes of box_rows x box_inner elements
     with the given swizzle (0, 32, 64 or 128 bytes), out-of-bounds elements read as zero
     (cuTensorMapEncodeTiled: CUDA 12 and later; an error naming it on older drivers). */
  int (*tensor_map_encode)(void *map, const void *base, uint64_t inner, uint64_t rows,
                           uint64_t row_stride_bytes, int32_t element_bytes, int32_t box_inner,
                           int32_t box_rows, int32_t swizzle_bytes);
  /* Version 5: the 3-D tiled tensor map of `planes` such matrices, `plane_stride_bytes` apart
     ([planes][rows][inner]; a K/V tensor [B, S, H, D] as B planes of its first rows <= S rows
     of H * D elements), in boxes of box_rows x box_inner elements of one plane; out-of-bounds
     elements (rows >= `rows` of a plane included) read as zero. */
  int (*tensor_map_encode_3d)(void *map, const void *base, uint64_t inner, uint64_t rows,
                              uint64_t planes, uint64_t row_stride_bytes,
                              uint64_t plane_stride_bytes, int32_t element_bytes,
                              int32_t box_inner, int32_t box_rows, int32_t swizzle_bytes);
};

#endif /* DECODA_RUNTIME_CUDAAPI_H */
