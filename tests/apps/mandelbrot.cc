// mandelbrot [size] [static|dynamic|runtime]: counts the points of a size x size grid that lie in
// the Mandelbrot set, with one parallel region (the loop over rows).
//
// The grid covers only the upper half-plane (imaginary part 0 .. 1.25), so the rows near the
// real axis, which cross the set's body and run all iterations, come first: a static schedule
// gives the first thread most of the work, a dynamic one balances it. The loop uses
// schedule(runtime) so both modes share one parallel region (one code pointer); "runtime" keeps
// OMP_SCHEDULE. Prints the count, which does not depend on schedule or thread count.
#include <omp.h>

#include <cstdint>
#include <cstdio>
#include <cstring>

#include "app_util.h"

namespace {

constexpr int kMaxIterations = 500;

// Whether c = x + iy stays bounded for kMaxIterations steps.
bool in_set(double x, double y) {
  double zr = 0, zi = 0;
  for (int i = 0; i < kMaxIterations; ++i) {
    const double zr2 = zr * zr, zi2 = zi * zi;
    if (zr2 + zi2 > 4.0) return false;
    zi = 2.0 * zr * zi + y;
    zr = zr2 - zi2 + x;
  }
  return true;
}

std::uint64_t count_points(int size) {
  std::uint64_t count = 0;
  const double step_x = 2.5 / size, step_y = 1.25 / size;
#pragma omp parallel for schedule(runtime) reduction(+ : count)
  for (int row = 0; row < size; ++row) {
    const double y = row * step_y;
    for (int column = 0; column < size; ++column) {
      if (in_set(-2.0 + column * step_x, y)) ++count;
    }
  }
  return count;
}

}  // namespace

int main(int argc, char** argv) {
  const int size = static_cast<int>(apps::arg_or(argc, argv, 1, 860));
  const char* mode = argc > 2 ? argv[2] : "static";
  if (std::strcmp(mode, "static") == 0) {
    omp_set_schedule(omp_sched_static, 0);
  } else if (std::strcmp(mode, "dynamic") == 0) {
    omp_set_schedule(omp_sched_dynamic, 1);
  } else if (std::strcmp(mode, "runtime") != 0) {
    std::fprintf(stderr, "usage: %s [size] [static|dynamic|runtime]\n", argv[0]);
    return 2;
  }
  std::printf("mandelbrot size %d: %llu points in the set\n", size,
              static_cast<unsigned long long>(count_points(size)));
  return 0;
}
