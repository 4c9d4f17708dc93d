// libFuzzer harness of resuming a results file (ResultsFile::open, microbench/driver/
// results_file.h): the input bytes are the existing file, which is opened as `ompbench run -o`
// opens it (its header checked, an incomplete last line cut off, the rows counted per
// configuration). An InputError is expected, any other exception, crash or sanitizer report is a
// finding. tests/fuzz/reader_harness.h says how to run it for minutes.

#include <fstream>
#include <vector>

#include "common/temporary_directory.h"
#include "microbench/driver/results_file.h"
#include "tests/fuzz/reader_harness.h"

using namespace ompscale::microbench;

namespace {

// The reader opens a file (it may cut its last line off): one scratch file for all inputs.
const std::string& results_path() {
  static const ompscale::TemporaryDirectory directory("results_resume_fuzz");
  static const std::string path = directory.path() + "/results.csv";
  return path;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  ompscale::fuzz::read_content(data, size, [](const std::string& content) {
    std::ofstream(results_path(), std::ios::binary | std::ios::trunc) << content;
    std::vector<std::string> warnings;
    ResultsFile::open(results_path(), warnings);
  });
  return 0;
}
