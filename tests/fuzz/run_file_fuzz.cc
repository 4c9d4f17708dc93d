// libFuzzer harness of the ompscan run-file reader (parse_run_file, regions/report/read_runs.h),
// what `ompscan report` reads from every run of a directory, the tool's profile inside included:
// the input bytes are the file content; an InputError is expected, any other exception, crash or
// sanitizer report is a finding. tests/fuzz/reader_harness.h says how to run it for minutes.

#include "regions/report/read_runs.h"
#include "tests/fuzz/reader_harness.h"

using namespace ompscale::regions::report;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  ompscale::fuzz::read_content(
      data, size, [](const std::string& content) { parse_run_file(content, "t2-r0.json"); });
  return 0;
}
