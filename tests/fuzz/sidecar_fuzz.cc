// libFuzzer harness of ompdash's ompbench sidecar reader (dashboard/ingest/read_sidecar.h): the
// input bytes are a results file's .meta.json; an InputError is expected, any other exception,
// crash or sanitizer report is a finding. tests/fuzz/reader_harness.h says how to run it for
// minutes.

#include "dashboard/ingest/read_sidecar.h"
#include "tests/fuzz/reader_harness.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  ompscale::fuzz::read_content(data, size, [](const std::string& content) {
    ompscale::dashboard::parse_sidecar(content, "results.csv.meta.json");
  });
  return 0;
}
