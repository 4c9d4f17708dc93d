// libFuzzer harness of both directions of the driver-worker protocol (microbench/protocol.h):
// each input line is read as a worker record (parse_record), the whole input as a job
// (parse_job). A record whose number fields do not parse is std::runtime_error by contract (a
// worker bug, not bad input) and a bad job is parse_job's false; any other exception, crash or
// sanitizer report is a finding. tests/fuzz/reader_harness.h says how to run it for minutes.

#include <stdexcept>
#include <string_view>

#include "microbench/protocol.h"
#include "tests/fuzz/reader_harness.h"

using namespace ompscale::microbench;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  // The driver reads the worker's stdout line by line; one bad record does not hide the rest.
  for (std::size_t start = 0; start <= text.size();) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    ompscale::fuzz::read_content<std::runtime_error>(
        data + start, end - start, [](const std::string& line) { parse_record(line); });
    start = end + 1;
  }
  Job job;
  std::string error;
  parse_job(std::string(text), job, error);
  return 0;
}
