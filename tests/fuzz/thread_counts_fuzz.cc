// libFuzzer harness of the --threads syntax (parse_thread_counts, platforms/thread_class.h): the
// input bytes are the spec; a UsageError is the expected answer to a bad one, any other exception,
// crash or sanitizer report is a finding. tests/fuzz/reader_harness.h says how to run it for
// minutes.

#include "platforms/thread_class.h"
#include "tests/fuzz/reader_harness.h"

using namespace ompscale::platforms;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  ompscale::fuzz::read_content<ompscale::UsageError>(
      data, size, [](const std::string& spec) { parse_thread_counts(spec, 256, "--threads"); });
  return 0;
}
