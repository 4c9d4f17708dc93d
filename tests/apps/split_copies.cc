// split_copies [elements] [steps]: LULESH's force gather (IntegrateStressForElems): with more
// than one thread each element writes its own copy of its nodal forces, which are summed
// serially after the loop; with one thread it adds into the nodes directly. The branch on the
// thread count is inside and around one parallel loop, and GCC (-O3, as LULESH is built) splits
// the function in two along it: two copies of the region, at two code addresses, one run at one
// thread and the other at more. They are one region of the source: one row, measured at every
// thread count. Prints a checksum independent of the thread count.
#include <omp.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "app_util.h"

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("O3")
#endif

namespace {

void gather_forces(std::vector<std::uint64_t>& node_force, const std::vector<int>& nodes,
                   int elements) {
  const int numthreads = omp_get_max_threads();
  std::uint64_t* element_force = nullptr;
  if (numthreads > 1) {
    element_force = static_cast<std::uint64_t*>(std::malloc(sizeof(std::uint64_t) * 4 * elements));
  }
#pragma omp parallel for
  for (int k = 0; k < elements; ++k) {
    std::uint64_t local[4];
    for (int j = 0; j < 4; ++j) {
      local[j] = apps::mix(static_cast<std::uint64_t>(k) * 4 + j) % 1000;
    }
    if (numthreads > 1) {
      for (int j = 0; j < 4; ++j) element_force[k * 4 + j] = local[j];
    } else {
      for (int j = 0; j < 4; ++j) node_force[nodes[k * 4 + j]] += local[j];
    }
  }
  if (numthreads > 1) {
    for (int k = 0; k < elements * 4; ++k) node_force[nodes[k]] += element_force[k];
    std::free(element_force);
  }
}

}  // namespace

int main(int argc, char** argv) {
  const int elements = static_cast<int>(apps::arg_or(argc, argv, 1, 200000));
  const int steps = static_cast<int>(apps::arg_or(argc, argv, 2, 10));
  std::vector<int> nodes(static_cast<std::size_t>(elements) * 4);
  for (std::size_t k = 0; k < nodes.size(); ++k) {
    nodes[k] = static_cast<int>(apps::mix(k) % static_cast<std::uint64_t>(elements + 1));
  }
  std::vector<std::uint64_t> force(static_cast<std::size_t>(elements) + 1, 0);
  for (int step = 0; step < steps; ++step) gather_forces(force, nodes, elements);
  std::uint64_t sum = 0;
  for (const std::uint64_t f : force) sum += f;
  std::printf("split_copies %d: checksum %llu\n", elements, static_cast<unsigned long long>(sum));
  return 0;
}
