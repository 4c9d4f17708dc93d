// Data-environment kernels: EPCC arraybench. Each execution is a parallel region whose clause
// creates or copies an array of `param` doubles and whose body writes it (array_delay).
//
// EPCC fixes the array size at compile time (-DIDA=n). Here it is a run-time parameter, realised
// with DataArray: storage for the largest size, but its copy constructor and copy assignment copy
// only the `size` elements in use. The OpenMP clauses then do what they do to an array of `size`
// doubles:
// - private: a default-constructed copy per thread, storage only, never initialised (as a private
//   C array);
// - firstprivate: each thread's copy is copy-constructed from the original: `size` doubles copied;
// - copyprivate: the single thread sets the size and writes its copy; the others' copies are
//   copy-assigned from it: `size` doubles copied per thread;
// - copyin: a threadprivate DataArray (static, so every thread of the process holds one: 472 KB
//   of TLS each) is copy-assigned from the primary thread's: `size` doubles copied per thread.
#include <algorithm>

#include "microbench/constructs/epcc_kernels.h"

namespace ompscale::microbench::epcc {

namespace {

class DataArray {
 public:
  // Trivial, so a private copy costs only its stack space, and the threadprivate instance is
  // constant-initialised (zero) in TLS.
  DataArray() = default;
  DataArray(const DataArray& other) : size_(other.size_) {
    std::copy_n(other.values_, size_, values_);
  }
  DataArray& operator=(const DataArray& other) {
    size_ = other.size_;
    std::copy_n(other.values_, size_, values_);
    return *this;
  }

  /// Precondition: 0 <= size <= kMaxArraySize.
  void resize(int size) { size_ = size; }
  double* data() { return values_; }

 private:
  int size_;
  double values_[kMaxArraySize];
};

DataArray copyin_array;
#pragma omp threadprivate(copyin_array)

void test_private(const KernelArgs& args) {
  const int length = args.delay_length;
  DataArray array;
  for (long j = 0; j < args.inner; ++j) {
#pragma omp parallel num_threads(args.threads) private(array)
    array_delay(length, array.data());
  }
}

void test_firstprivate_array(const KernelArgs& args) {
  const int length = args.delay_length;
  DataArray array;
  array.resize(args.param);
  std::fill_n(array.data(), args.param, 1.0);
  for (long j = 0; j < args.inner; ++j) {
#pragma omp parallel num_threads(args.threads) firstprivate(array)
    array_delay(length, array.data());
  }
}

void test_copyprivate(const KernelArgs& args) {
  const int length = args.delay_length;
  const int size = args.param;
  DataArray array;
  for (long j = 0; j < args.inner; ++j) {
#pragma omp parallel num_threads(args.threads) private(array)
    {
#pragma omp single copyprivate(array)
      {
        array.resize(size);
        array_delay(length, array.data());
      }
    }
  }
}

void test_copyin(const KernelArgs& args) {
  const int length = args.delay_length;
  copyin_array.resize(args.param);
  std::fill_n(copyin_array.data(), args.param, 1.0);
  for (long j = 0; j < args.inner; ++j) {
#pragma omp parallel num_threads(args.threads) copyin(copyin_array)
    array_delay(length, copyin_array.data());
  }
}

constexpr Kernel kDataKernels[] = {
    {.name = "private", .test = test_private, .reference = refer_array},
    {.name = "firstprivate_array", .test = test_firstprivate_array, .reference = refer_array},
    {.name = "copyprivate", .test = test_copyprivate, .reference = refer_array},
    {.name = "copyin", .test = test_copyin, .reference = refer_array},
};

}  // namespace

std::span<const Kernel> data_kernels() {
  return kDataKernels;
}

}  // namespace ompscale::microbench::epcc
