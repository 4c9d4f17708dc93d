// An OMPT tool that registers the callbacks libompscan.so registers and does nothing in them:
// what attaching any such tool costs in libomp (its OMPT paths, the indirect calls), measured by
// ompscan_overhead next to ompscan's own cost.
#include <omp-tools.h>

#include <cstdint>

namespace {

void on_thread_begin(ompt_thread_t, ompt_data_t*) {}
void on_thread_end(ompt_data_t*) {}
void on_parallel_begin(ompt_data_t*, const ompt_frame_t*, ompt_data_t*, unsigned, int,
                       const void*) {}
void on_parallel_end(ompt_data_t*, ompt_data_t*, int, const void*) {}
void on_implicit_task(ompt_scope_endpoint_t, ompt_data_t*, ompt_data_t*, unsigned, unsigned, int) {}
void on_sync_region(ompt_sync_region_t, ompt_scope_endpoint_t, ompt_data_t*, ompt_data_t*,
                    const void*) {}
void on_mutex_acquire(ompt_mutex_t, unsigned, unsigned, ompt_wait_id_t, const void*) {}
void on_mutex(ompt_mutex_t, ompt_wait_id_t, const void*) {}
void on_nest_lock(ompt_scope_endpoint_t, ompt_wait_id_t, const void*) {}
void on_task_create(ompt_data_t*, const ompt_frame_t*, ompt_data_t*, int, int, const void*) {}
void on_task_schedule(ompt_data_t*, ompt_task_status_t, ompt_data_t*) {}
void on_work(ompt_work_t, ompt_scope_endpoint_t, ompt_data_t*, ompt_data_t*, std::uint64_t,
             const void*) {}
void on_masked(ompt_scope_endpoint_t, ompt_data_t*, ompt_data_t*, const void*) {}

template <typename Callback>
void set(ompt_set_callback_t set_callback, ompt_callbacks_t event, Callback callback) {
  set_callback(event, reinterpret_cast<ompt_callback_t>(callback));
}

int initialize(ompt_function_lookup_t lookup, int, ompt_data_t*) {
  auto set_callback = reinterpret_cast<ompt_set_callback_t>(lookup("ompt_set_callback"));
  if (set_callback == nullptr) return 0;
  set(set_callback, ompt_callback_thread_begin, on_thread_begin);
  set(set_callback, ompt_callback_thread_end, on_thread_end);
  set(set_callback, ompt_callback_parallel_begin, on_parallel_begin);
  set(set_callback, ompt_callback_parallel_end, on_parallel_end);
  set(set_callback, ompt_callback_implicit_task, on_implicit_task);
  set(set_callback, ompt_callback_sync_region, on_sync_region);
  set(set_callback, ompt_callback_mutex_acquire, on_mutex_acquire);
  set(set_callback, ompt_callback_mutex_acquired, on_mutex);
  set(set_callback, ompt_callback_mutex_released, on_mutex);
  set(set_callback, ompt_callback_nest_lock, on_nest_lock);
  set(set_callback, ompt_callback_task_create, on_task_create);
  set(set_callback, ompt_callback_task_schedule, on_task_schedule);
  set(set_callback, ompt_callback_work, on_work);
  set(set_callback, ompt_callback_masked, on_masked);
  return 1;
}

void finalize(ompt_data_t*) {}

}  // namespace

extern "C" __attribute__((visibility("default"))) ompt_start_tool_result_t* ompt_start_tool(
    unsigned int, const char*) {
  static ompt_start_tool_result_t result{&initialize, &finalize, {0}};
  return &result;
}
