// EPCC's delay loops (common.c delay, array_delay) and the references made of nothing else.
// The delays accumulate floats: without -ffast-math the additions cannot be reassociated, so the
// loop is neither vectorised nor folded and its time is linear in its length.
#include "microbench/constructs/epcc_kernels.h"

namespace ompscale::microbench::epcc {

[[gnu::noinline]] void consume(double value) {
  // A volatile store to this thread's own stack: observable, yet no cache line is shared.
  volatile double sink = value;
  (void)sink;
}

[[gnu::noinline]] void delay(int length) {
  float a = 0.0f;
  for (int i = 0; i < length; ++i) a += static_cast<float>(i);
  consume(a);
}

[[gnu::noinline]] void array_delay(int length, double* a) {
  a[0] = 1.0;
  for (int i = 0; i < length; ++i) a[0] += i;
  consume(a[0]);
}

void refer(const KernelArgs& args) {
  for (long j = 0; j < args.inner; ++j) delay(args.delay_length);
}

void refer_array(const KernelArgs& args) {
  double a[1];
  for (long j = 0; j < args.inner; ++j) array_delay(args.delay_length, a);
}

}  // namespace ompscale::microbench::epcc
