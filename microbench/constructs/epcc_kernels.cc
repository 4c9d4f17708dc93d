#include "microbench/constructs/epcc_kernels.h"

namespace ompscale::microbench::epcc {

const Kernel* find_kernel(std::string_view name) {
  for (auto kernels : {sync_kernels(), sched_kernels(), data_kernels(), task_kernels()})
    for (const Kernel& kernel : kernels)
      if (kernel.name == name) return &kernel;
  return nullptr;
}

}  // namespace ompscale::microbench::epcc
