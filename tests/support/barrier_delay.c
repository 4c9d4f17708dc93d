/* A planted regression for testing ompdash: an LD_PRELOAD library that adds a fixed delay to the
   OpenMP runtime's barrier entry point, GOMP_barrier (libgomp) and __kmpc_barrier (libomp), as a
   slower barrier in a runtime build would. The delay is a busy wait of OMPSCALE_BARRIER_DELAY_NS
   nanoseconds (default 1000) before the real barrier, only in teams of more than one thread (a
   team of one has nothing to wait for, and runtimes return at once there).

   Only calls through the entry points are delayed: explicit barriers and the implicit barriers
   compilers emit as calls (the end of a single or worksharing loop), not the barriers a runtime
   runs inside itself (a parallel region's join). */

#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef void (*GompBarrier)(void);
typedef void (*KmpcBarrier)(void*, int32_t);
typedef int (*NumThreads)(void);

/* dlsym returns an object pointer; ISO C converts it to a function pointer only through memory. */
#define LOOKUP(function, handle, name)         \
  do {                                         \
    void* symbol = dlsym(handle, name);        \
    memcpy(&function, &symbol, sizeof symbol); \
  } while (0)

static long delay_ns(void) {
  static long delay = -1;
  if (delay < 0) {
    const char* text = getenv("OMPSCALE_BARRIER_DELAY_NS");
    delay = text != NULL ? atol(text) : 1000;
  }
  return delay;
}

static void wait_if_in_team(void) {
  static NumThreads num_threads = NULL;
  if (num_threads == NULL) LOOKUP(num_threads, RTLD_DEFAULT, "omp_get_num_threads");
  if (num_threads == NULL || num_threads() <= 1) return;
  struct timespec start, now;
  clock_gettime(CLOCK_MONOTONIC, &start);
  const long long end = start.tv_sec * 1000000000LL + start.tv_nsec + delay_ns();
  do {
    clock_gettime(CLOCK_MONOTONIC, &now);
  } while (now.tv_sec * 1000000000LL + now.tv_nsec < end);
}

__attribute__((visibility("default"))) void GOMP_barrier(void) {
  static GompBarrier real = NULL;
  if (real == NULL) LOOKUP(real, RTLD_NEXT, "GOMP_barrier");
  wait_if_in_team();
  real();
}

__attribute__((visibility("default"))) void __kmpc_barrier(void* location, int32_t thread) {
  static KmpcBarrier real = NULL;
  if (real == NULL) LOOKUP(real, RTLD_NEXT, "__kmpc_barrier");
  wait_if_in_team();
  real(location, thread);
}
