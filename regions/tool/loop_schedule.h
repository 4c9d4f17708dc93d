#pragma once
// The schedule of a worksharing loop, which OMPT 5.0 does not report (libomp 14 passes
// ompt_work_loop for every schedule). The work-begin callback's codeptr_ra is the return address
// of the call that started the loop, so the call's target names it: the instruction before
// codeptr_ra is decoded (call rel32, or call through the GOT), a PLT stub followed to its GOT
// slot, and the function found named with dladdr:
//   __kmpc_for_static_init_* (clang)              -> "static"
//   __kmpc_dispatch_init_* (clang)                -> "dispatch" (dynamic, guided, runtime or auto:
//                                                    the kind is an argument, not the name)
//   GOMP_loop_*static*, *dynamic*, *guided*, *runtime* (gcc) -> that schedule
//   anything else, or code that cannot be read   -> "unknown"
// Memory is read with process_vm_readv on the own process, so an unmapped address fails
// instead of faulting. Called at finalize, once per loop.

namespace ompscale::regions::tool {

const char* loop_schedule(const void* codeptr);

/// The schedule a loop-starting runtime function's name implies ("unknown" when none).
const char* schedule_of_function(const char* name);

}  // namespace ompscale::regions::tool
