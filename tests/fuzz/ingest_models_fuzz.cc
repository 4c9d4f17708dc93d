// libFuzzer harness of models.json as `ompdash ingest` reads it (dashboard/ingest/read_models.h):
// the modeler's reader, then each class model's own JSON kept whole and its statistics taken;
// its sources (results files) are looked up last and do not exist here. An InputError is
// expected, any other exception, crash or sanitizer report is a finding.
// tests/fuzz/reader_harness.h says how to run it for minutes.

#include "dashboard/ingest/read_models.h"
#include "tests/fuzz/reader_harness.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  ompscale::fuzz::read_content(data, size, [](const std::string& content) {
    ompscale::dashboard::parse_models(content, "/nonexistent-fuzz-dir/models.json");
  });
  return 0;
}
