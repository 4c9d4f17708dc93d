// A shared library for the symbolizer's tests (tests/regions/symbolize_test.cc): dlopen'ed into
// the test process, it yields a return address inside a library loaded at a nonzero bias, with a
// known source line.

namespace {

// Not inlined, so it has a return address into ompscale_probe_call.
__attribute__((noinline)) const void* return_address() {
  return __builtin_return_address(0);
}

}  // namespace

// The return address of a call made on the line stored in `line`.
extern "C" __attribute__((noinline)) const void* ompscale_probe_call(int* line) {
  const void* address = (*line = __LINE__, return_address());
  // Uses the result after the call, so the call is not turned into a jump (no return address).
  asm volatile("" : : "r"(address) : "memory");
  return address;
}
