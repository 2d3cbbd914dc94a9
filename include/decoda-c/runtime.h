/*===- decoda-c/runtime.h - load and run compiled Decoda models ---*- C -*-===*\
|*                                                                            *|
|* The C ABI of the Decoda runtime (libdecoda_runtime.so). It depends on libc *|
|* and libdl only; see docs/ABI.md for what a compiled model exports.         *|
\*===----------------------------------------------------------------------===*/

#ifndef DECODA_C_RUNTIME_H
#define DECODA_C_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define DECODA_MAX_RANK 8

typedef enum decoda_status {
  DECODA_OK = 0,
  DECODA_ERROR_IO = 1,        /* a file could not be opened or read */
  DECODA_ERROR_FORMAT = 2,    /* not a Decoda model, or a malformed one */
  DECODA_ERROR_ARGUMENT = 3,  /* wrong entry, input count, name or null pointer */
  DECODA_ERROR_DTYPE = 4,     /* an input has the wrong element type */
  DECODA_ERROR_SHAPE = 5,     /* an input has the wrong rank or a wrong static extent */
  DECODA_ERROR_RUNTIME = 6,   /* a run-time check inside the model failed */
  DECODA_ERROR_NO_DEVICE = 7  /* the model needs a device this machine lacks */
} decoda_status;

typedef enum decoda_dtype {
  DECODA_F32 = 0,
  DECODA_F16 = 1,
  DECODA_BF16 = 2,
  DECODA_F64 = 3,
  DECODA_I8 = 4,
  DECODA_I32 = 5,
  DECODA_I64 = 6,
  DECODA_I1 = 7 /* one byte per element */
} decoda_dtype;

/* A dense row-major tensor. */
typedef struct decoda_tensor {
  decoda_dtype dtype;
  int32_t rank;
  int64_t shape[DECODA_MAX_RANK];
  void *data;
} decoda_tensor;

typedef struct decoda_model decoda_model;

/* The message of the last failed call on this thread ("" if none). */
const char *decoda_last_error(void);

/* Size in bytes of one element. */
size_t decoda_dtype_size(decoda_dtype dtype);
const char *decoda_dtype_name(decoda_dtype dtype);

decoda_status decoda_model_load(const char *path, decoda_model **model);
void decoda_model_free(decoda_model *model);

int decoda_model_num_entries(const decoda_model *model);
const char *decoda_model_entry_name(const decoda_model *model, int entry);
/* Index of the entry named `name`, or -1. */
int decoda_model_find_entry(const decoda_model *model, const char *name);

int decoda_entry_num_inputs(const decoda_model *model, int entry);
int decoda_entry_num_outputs(const decoda_model *model, int entry);
/* Name, dtype and shape (-1 for a dynamic extent) of input/output `i`. `shape` points to `rank`
   entries owned by the model. Returns DECODA_ERROR_ARGUMENT for a bad index. */
decoda_status decoda_entry_input(const decoda_model *model, int entry, int i, const char **name,
                                 decoda_dtype *dtype, int32_t *rank, const int64_t **shape);
decoda_status decoda_entry_output(const decoda_model *model, int entry, int i, const char **name,
                                  decoda_dtype *dtype, int32_t *rank, const int64_t **shape);

/* Runs entry `entry`. Inputs are checked against the signature (count, dtype, rank, static
   extents). On success every outputs[i] holds a tensor whose data the caller releases with
   decoda_tensor_free. Safe to call concurrently on one model. */
decoda_status decoda_run(decoda_model *model, int entry, const decoda_tensor *inputs,
                         int num_inputs, decoda_tensor *outputs, int num_outputs);

/* Donated inputs (docs/ABI.md). An entry may write one of its outputs into the buffer of an
   input ("input i is donated to output o"), typically a KV cache that goes in and comes out
   updated. Returns o for such an input, -1 for an input that is not donated, -2 for a bad
   entry or index. */
int decoda_entry_input_donated_to(const decoda_model *model, int entry, int i);

/* decoda_run where the caller may hand over the buffers of donatable inputs: donate[i] != 0
   (donate may be null: nothing donated) gives input i's buffer to the model, which overwrites
   it with output o = decoda_entry_input_donated_to(i); on success outputs[o].data ==
   inputs[i].data, still the caller's memory (release it as the input was allocated, never with
   decoda_tensor_free). The buffer must be writable, aligned for its dtype and must not overlap
   any other input; on a failed call its contents are unspecified. Donating an input the entry
   does not donate is DECODA_ERROR_ARGUMENT. A donatable input that the caller does not donate
   (and every input of decoda_run) is copied first and left unchanged, as for any input. */
decoda_status decoda_run_donating(decoda_model *model, int entry, const decoda_tensor *inputs,
                                  int num_inputs, decoda_tensor *outputs, int num_outputs,
                                  const uint8_t *donate);

/* Releases an output's data (host memory, or device memory for the donated output of a
   device-resident input that was not donated). */
void decoda_tensor_free(decoda_tensor *tensor);

/* Device-resident tensors (CUDA models; docs/ABI.md). A decoda_tensor whose data is device
   memory (from decoda_device_alloc, or any allocation of the CUDA driver in the runtime's
   context) may be an input of decoda_run / decoda_run_donating of a CUDA model: the model reads
   it in place instead of copying it to the device, and a donated one (a KV cache) is written in
   place, so a decode step moves only its small inputs and outputs. Outputs that are not
   donated are host memory. A call returns when its work on the device is done. These return
   DECODA_ERROR_NO_DEVICE for a CPU model. */
decoda_status decoda_device_alloc(const decoda_model *model, size_t bytes, void **ptr);
/* Frees device memory of decoda_device_alloc (null: nothing); DECODA_ERROR_ARGUMENT for a
   pointer that is not device memory. */
decoda_status decoda_device_free(const decoda_model *model, void *ptr);
/* Copies `bytes` between host and/or device memory (either direction), synchronously. */
decoda_status decoda_device_copy(const decoda_model *model, void *dst, const void *src,
                                 size_t bytes);
/* 1 when `ptr` is device memory of the model's device, else 0 (always 0 for a CPU model). */
int decoda_is_device_pointer(const decoda_model *model, const void *ptr);

/* Kernel profiles (CUDA models; docs/ABI.md, "Kernel profiles"). While enabled on the calling
   thread, every decoda_run / decoda_run_donating of a CUDA model on that thread records a CUDA
   event before its first kernel launch and one after each launch; when the call succeeds,
   decoda_profile_last gives its launches in order, each with the kernel's name and the device
   time from the end of the launch before it (for the first, from just before it) to its end.
   The times add up to the span of the call's kernels on the device, without the copies of
   inputs before the first launch and of outputs after the last. Recording adds a little host
   work per launch, so time calls without it. Turning it off releases the thread's events.
   DECODA_ERROR_NO_DEVICE for a CPU model; DECODA_ERROR_RUNTIME when the driver has no events. */
typedef struct decoda_kernel_time {
  const char *kernel; /* the kernel's name in the model's cubin */
  double ms;
} decoda_kernel_time;
decoda_status decoda_profile_enable(const decoda_model *model, int on);
/* The launches of the calling thread's last successful profiled call (count 0 when it launched
   nothing, or when the thread's last call was not profiled); valid until the thread's next
   call. */
decoda_status decoda_profile_last(const decoda_model *model, const decoda_kernel_time **kernels,
                                  int64_t *count);

/* Launch graphs (CUDA models; docs/ABI.md, "Launch graphs"). While on for the calling thread,
   the kernel launches of its calls are held back and each run of them that nothing else on the
   stream separates (no copy, free or wait) goes to the device as one CUDA graph launch; the
   executable graph is kept (up to 8 per stream, the least recently launched replaced) and
   replayed by later runs with the same kernels and launch dimensions, after updating the nodes
   whose argument values changed. Fewer driver calls per call: for decode steps, whose kernels
   are a few microseconds each. A profiled call (decoda_profile_enable) launches one by one.
   Turning it off destroys the thread's graphs. DECODA_ERROR_NO_DEVICE for a CPU model;
   DECODA_ERROR_RUNTIME when the driver lacks the graph entry points (CUDA 12.4 or later). */
decoda_status decoda_cuda_graphs_enable(const decoda_model *model, int on);

#ifdef __cplusplus
}
#endif

#endif /* DECODA_C_RUNTIME_H */
