// libFuzzer harness of the ompbench results CSV reader (parse_dataset, InputFormat::kOmpbenchCsv):
// the input bytes are the file content; an InputError is expected, any other exception, crash or
// sanitizer report is a finding. tests/fuzz/reader_harness.h says how to run it for minutes.

#include "modeler/io/readers.h"
#include "tests/fuzz/reader_harness.h"

using namespace ompscale::modeler;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  ompscale::fuzz::read_content(data, size, [](const std::string& content) {
    parse_dataset(content, "results.csv", {.format = InputFormat::kOmpbenchCsv});
  });
  return 0;
}
