// OpenMP regions of a compiled model, counted and timed through OMPT (libomp's tool interface):
// per parallel region (told apart by its return address, listed in first-seen order = program
// order) the runs per call and wall time on the master thread, and the time threads 0 and 1
// wait at its barriers; the time spent between regions. Not a test; see bench/README.md.
//
//   /usr/lib/llvm-22/bin/clang -O2 -shared -fPIC bench/ompt_regions.c -o /tmp/libompt_regions.so
//   CALLS=43 OMP_TOOL_LIBRARIES=/tmp/libompt_regions.so build/bin/decoda-run model.so ... --bench 40
//
// CALLS: the number of calls the process makes (decoda-run: warm-up + timed + 0), to print per
// call figures. omp-tools.h is in clang's resource directory.
#include <omp-tools.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
#define MAXR 4096
static struct { const void *ra; long n; double t; double wait[2]; long nb; } regs[MAXR];
static int nregs;
static __thread double tbegin, wbegin;
static __thread int tid = -1;
static int nextTid;
static double lastEnd, serial, t0;
static long total;
static int find(const void *ra){ for(int i=0;i<nregs;i++) if(regs[i].ra==ra) return i; if(nregs<MAXR){regs[nregs].ra=ra; return nregs++;} return MAXR-1; }
static void on_par_begin(ompt_data_t *ed, const ompt_frame_t *ef, ompt_data_t *pd, unsigned int req, int flags, const void *ra){
  double t = now();
  if (lastEnd > 0) serial += t - lastEnd;
  int i = find(ra); pd->value = i; tbegin = t; }
static void on_par_end(ompt_data_t *pd, ompt_data_t *ed, int flags, const void *ra){
  double t = now(); int i = (int)pd->value; regs[i].n++; regs[i].t += t - tbegin; lastEnd = t; total++; }
static void on_sync(ompt_sync_region_t kind, ompt_scope_endpoint_t ep, ompt_data_t *pd, ompt_data_t *td, const void *ra){
  if (tid < 0) tid = __sync_fetch_and_add(&nextTid, 1);
  if (ep == ompt_scope_begin) { wbegin = now(); return; }
  int i = pd ? (int)pd->value : -1; if (i < 0 || i >= MAXR) return;
  double w = now() - wbegin; if (tid < 2) __sync_synchronize(), regs[i].wait[tid] += w; if (tid==0) regs[i].nb++; }
static int init(ompt_function_lookup_t lookup, int dev, ompt_data_t *td){
  ompt_set_callback_t set = (ompt_set_callback_t)lookup("ompt_set_callback");
  set(ompt_callback_parallel_begin, (ompt_callback_t)on_par_begin);
  set(ompt_callback_parallel_end, (ompt_callback_t)on_par_end);
  set(ompt_callback_sync_region_wait, (ompt_callback_t)on_sync);
  t0 = now(); return 1; }
static void fini(ompt_data_t *td){
  long calls = getenv("CALLS") ? atol(getenv("CALLS")) : 1;
  double sum = 0; for (int i=0;i<nregs;i++) sum += regs[i].t;
  fprintf(stderr, "ompt: %d distinct regions, %ld region runs (%.1f per call over %ld calls); time in regions %.3f ms/call, serial between regions %.3f ms/call\n",
          nregs, total, (double)total/calls, calls, sum*1e3/calls, serial*1e3/calls);
  for (int i=0;i<nregs;i++)
    fprintf(stderr, "  region %2d: runs %6.1f/call  %8.1f us/call  barrier wait t0 %7.1f t1 %7.1f us/call\n", i, (double)regs[i].n/calls, regs[i].t*1e6/calls, regs[i].wait[0]*1e6/calls, regs[i].wait[1]*1e6/calls);
}
ompt_start_tool_result_t *ompt_start_tool(unsigned int v, const char *rv){ static ompt_start_tool_result_t r = {init, fini, {0}}; return &r; }
