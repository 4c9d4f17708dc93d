// libFuzzer harness of `ompbench import-epcc` (import_epcc, microbench/driver/import_epcc.h): the
// input bytes are EPCC's output text; what it accepts is written as results rows, as the command
// does. An InputError is expected, any other exception, crash or sanitizer report is a finding.
// tests/fuzz/reader_harness.h says how to run it for minutes.

#include "microbench/driver/import_epcc.h"
#include "microbench/result_row.h"
#include "tests/fuzz/reader_harness.h"

using namespace ompscale::microbench;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  ompscale::fuzz::read_content(data, size, [](const std::string& content) {
    // A thread count for text without EPCC's header (a cut log), and a compiler, whose version
    // decides what DYNAMIC meant: both change the paths the import takes.
    const EpccImportOptions options{.bind = "close",
                                    .places = "cores",
                                    .runtime = "libgomp",
                                    .runtime_version = "12.2.0",
                                    .compiler = "gcc-12.2.0",
                                    .platform = "fuzz",
                                    .run_id = "fuzz",
                                    .threads = 4};
    for (const ResultRow& row : import_epcc(content, "epcc.txt", options).rows) format_row(row);
  });
  return 0;
}
