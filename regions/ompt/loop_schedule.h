#pragma once
// The schedule of a worksharing loop, which OMPT 5.0 does not report (libomp 14 passes
// ompt_work_loop for every schedule). The work-begin callback's codeptr_ra is the return address
// of the call that started the loop, so the call's target names it: the instruction before
// codeptr_ra is decoded (call rel32, or call through the GOT), a PLT stub followed to its GOT
// slot, and the function found named with dladdr:
//   __kmpc_for_static_init_* (clang)              -> "static"
//   __kmpc_dispatch_init_* (clang)                -> the schedule the call passes (below), else
//                                                    "dispatch" (dynamic, guided, runtime or auto:
//                                                    the kind is an argument, not the name)
//   GOMP_loop_*static*, *dynamic*, *guided*, *runtime* (gcc) -> that schedule
//   anything else, or code that cannot be read   -> "unknown"
// clang passes __kmpc_dispatch_init its sched_type as the third argument, a constant moved into
// edx shortly before the call (`mov $0x40000023, %edx`: dynamic, nonmonotonic), and the chunk as
// the seventh, on the stack (`push $0x40`, `movl $1, (%rsp)`): both are read from the code before
// the call when they are there (decode_dispatch).
// Memory is read with process_vm_readv on the own process, so an unmapped address fails
// instead of faulting. Called at finalize, once per loop.

#include <cstddef>
#include <cstdint>

namespace ompscale::regions::ompt {

struct LoopSchedule {
  const char* schedule = "unknown";
  std::uint64_t chunk = 0;  ///< 0: not known
};

LoopSchedule loop_schedule_of(const void* codeptr);

/// loop_schedule_of(codeptr).schedule.
const char* loop_schedule(const void* codeptr);

/// The schedule and chunk a __kmpc_dispatch_init call passes, from the `size` bytes of code that
/// end at the call instruction: the last `mov $imm32, %edx` with a libomp sched_type, and the
/// last constant pushed or stored at (%rsp) (not for runtime and auto). "dispatch" and 0 when
/// not found.
LoopSchedule decode_dispatch(const unsigned char* code, std::size_t size);

/// The name of a libomp sched_type value (modifier bits ignored), or null when not one.
const char* sched_type_name(std::uint32_t value);

/// The schedule a loop-starting runtime function's name implies ("unknown" when none).
const char* schedule_of_function(const char* name);

}  // namespace ompscale::regions::ompt
