#include "modeler/core/boundaries.h"

#include <fmt/format.h>

#include <algorithm>

namespace ompscale::modeler {

namespace {

void add(std::vector<TopologyBoundary>& out, int threads, std::string what, int total) {
  // A boundary at the machine's end is the hardware-thread boundary; one past it is none.
  if (threads <= 0 || threads >= total) return;
  const auto same = std::find_if(out.begin(), out.end(), [&](const TopologyBoundary& b) {
    return b.threads == static_cast<double>(threads);
  });
  if (same != out.end()) {
    same->what += " and " + what;
    return;
  }
  out.push_back({static_cast<double>(threads), std::move(what)});
}

}  // namespace

std::vector<TopologyBoundary> topology_boundaries(const platforms::Platform& platform) {
  std::vector<TopologyBoundary> out;
  const int hardware = platform.hardware_threads();
  const int cores = platform.cores();
  if (platform.numa_nodes > 1 && cores % platform.numa_nodes == 0) {
    const int per_node = cores / platform.numa_nodes;
    add(out, per_node, fmt::format("a second NUMA node (past {} cores)", per_node), hardware);
  }
  if (platform.sockets() > 1) {
    add(out, platform.cores_per_socket,
        fmt::format("a second socket (past {} cores)", platform.cores_per_socket), hardware);
  }
  if (platform.threads_per_core > 1) {
    add(out, cores, fmt::format("more threads than cores ({}): hyperthreads share cores", cores),
        hardware + 1);
  }
  out.push_back({static_cast<double>(hardware),
                 fmt::format("more threads than hardware threads ({}): oversubscribed", hardware)});
  std::sort(out.begin(), out.end(), [](const TopologyBoundary& a, const TopologyBoundary& b) {
    return a.threads < b.threads;
  });
  return out;
}

std::vector<TopologyBoundary> uncrossed_boundaries(const std::vector<TopologyBoundary>& boundaries,
                                                   double largest_measured, double t) {
  std::vector<TopologyBoundary> out;
  for (const TopologyBoundary& b : boundaries) {
    if (b.threads >= largest_measured && b.threads < t) out.push_back(b);
  }
  return out;
}

}  // namespace ompscale::modeler
