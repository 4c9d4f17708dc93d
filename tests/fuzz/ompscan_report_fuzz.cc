// libFuzzer harness of ompdash's reader of ompscan's report JSON (dashboard/ingest/read_report.h,
// format ompscan-report-1): the input bytes are the report; an InputError is expected, any other
// exception, crash or sanitizer report is a finding. tests/fuzz/reader_harness.h says how to run
// it for minutes.

#include "dashboard/ingest/read_report.h"
#include "tests/fuzz/reader_harness.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  ompscale::fuzz::read_content(data, size, [](const std::string& content) {
    ompscale::dashboard::ReportReadOptions options;
    options.date = "2026-11-01T00:00:00Z";  // no run files to date it by
    ompscale::dashboard::parse_report(content, "report.json", options);
  });
  return 0;
}
