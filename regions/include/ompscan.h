/* ompscan.h: manual regions for ompscan, in C and C++.
 *
 *   ompscan_region_begin("assembly");
 *   ...                                 (any code, parallel regions included; may nest)
 *   ompscan_region_end("assembly");
 *
 * A manual region appears in the ompscan profile as kind "manual" with its name: executions and
 * wall time per thread; nested manual regions and parallel regions started inside it have it
 * as parent. Begin and end must be called on the same thread with equal names; an end closes
 * the innermost open region of that name.
 *
 * Header only: nothing to link. The first call looks up the tool's implementation with
 * dlsym(RTLD_DEFAULT, ...), which finds it when libompscan.so is loaded with global symbols
 * (`ompscan run` LD_PRELOADs it); without the tool every call does nothing beyond a load and a
 * branch. dlsym is part of the C library since glibc 2.34 (older systems link with -ldl).
 */
#ifndef OMPSCAN_H_
#define OMPSCAN_H_

#include <dlfcn.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef void (*ompscan_region_function_t)(const char*);

/* The tool's function `symbol`, resolved once per translation unit and cached in *cache:
 * (ompscan_region_function_t)1 marks "looked up, absent". Concurrent first calls may both look
 * it up; they store the same result. */
static inline ompscan_region_function_t ompscan_resolve_(ompscan_region_function_t* cache,
                                                         const char* symbol) {
  ompscan_region_function_t function = __atomic_load_n(cache, __ATOMIC_ACQUIRE);
  if (function == 0) {
    /* RTLD_DEFAULT is ((void*)0) in glibc but only declared with _GNU_SOURCE in C. */
#ifdef RTLD_DEFAULT
    void* found = dlsym(RTLD_DEFAULT, symbol);
#else
    void* found = dlsym((void*)0, symbol);
#endif
    /* POSIX allows converting dlsym's result to a function pointer; the union says so to
     * compilers that warn about object-to-function casts under -Wpedantic. */
    union {
      void* object;
      ompscan_region_function_t function;
    } converted;
    converted.object = found;
    function = found != 0 ? converted.function : (ompscan_region_function_t)1;
    __atomic_store_n(cache, function, __ATOMIC_RELEASE);
  }
  return function != (ompscan_region_function_t)1 ? function : 0;
}

static inline void ompscan_region_begin(const char* name) {
  static ompscan_region_function_t cache;
  ompscan_region_function_t function = ompscan_resolve_(&cache, "ompscan_tool_region_begin");
  if (function != 0) function(name);
}

static inline void ompscan_region_end(const char* name) {
  static ompscan_region_function_t cache;
  ompscan_region_function_t function = ompscan_resolve_(&cache, "ompscan_tool_region_end");
  if (function != 0) function(name);
}

#ifdef __cplusplus
}
#endif

#endif /* OMPSCAN_H_ */
