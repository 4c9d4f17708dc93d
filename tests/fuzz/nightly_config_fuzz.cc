// libFuzzer harness of the `ompdash nightly` configuration reader (dashboard/nightly/config.h,
// with the A/B's previous build): the input bytes are the configuration; an InputError is
// expected, any other exception, crash or sanitizer report is a finding.
// tests/fuzz/reader_harness.h says how to run it for minutes.

#include "dashboard/nightly/config.h"
#include "tests/fuzz/reader_harness.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  ompscale::fuzz::read_content(data, size, [](const std::string& content) {
    ompscale::dashboard::parse_nightly_config(content, "/etc/ompscale/nightly.json");
  });
  return 0;
}
