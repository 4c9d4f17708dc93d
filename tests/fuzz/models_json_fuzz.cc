// libFuzzer harness of the models.json reader (parse_models_json); what it accepts must also be
// writable again (format_models_json): the input bytes are the file content; an InputError is
// expected, any other exception, crash or sanitizer report is a finding.
// tests/fuzz/reader_harness.h says how to run it for minutes.

#include "modeler/io/models_json.h"
#include "tests/fuzz/reader_harness.h"

using namespace ompscale::modeler;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  ompscale::fuzz::read_content(data, size, [](const std::string& content) {
    format_models_json(parse_models_json(content, "models.json"));
  });
  return 0;
}
