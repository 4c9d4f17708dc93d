// libFuzzer harness of the platform description reader (parse_platform, platforms/platform.h): the
// input bytes are the file content; an InputError is expected, any other exception, crash or
// sanitizer report is a finding. tests/fuzz/reader_harness.h says how to run it for minutes.

#include "platforms/platform.h"
#include "tests/fuzz/reader_harness.h"

using namespace ompscale::platforms;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  ompscale::fuzz::read_content(
      data, size, [](const std::string& content) { parse_platform(content, "platform.json"); });
  return 0;
}
