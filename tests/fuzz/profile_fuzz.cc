// libFuzzer harness of the tool's profile as `ompscan report` reads and uses it: the input bytes
// are a profile (ompscan-profile-1, the JSON the tool writes), put into a run file as `ompscan run`
// does and read by parse_run_file (regions/report/read_runs.h); a profile the reader accepts goes
// through the report's first steps (aggregate, pop_efficiencies), which index and divide by what
// it says. The fuzzer spends its time in the profile here, not in the run file around it. An
// InputError is expected, any other exception, crash or sanitizer report is a finding.
// tests/fuzz/reader_harness.h says how to run it for minutes.

#include "regions/report/pop.h"
#include "regions/report/read_runs.h"
#include "regions/report/regions.h"
#include "tests/fuzz/reader_harness.h"

using namespace ompscale::regions::report;

namespace {

// A successful run of 2 threads, as `ompscan run` writes it, up to its profile.
constexpr char kRunFileStart[] =
    R"({"format": "ompscan-run-1", "run_id": "t2-r0", "command": ["./app"], "threads": 2,
        "input": null, "input_index": 0, "repetition": 0, "oversubscribed": false,
        "status": "ok", "exit_status": 0, "signal": null, "wall_ns": 2000000, "cpu_ns": 3000000,
        "profile_error": "", "profile": )";

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  ompscale::fuzz::read_content(data, size, [](const std::string& profile) {
    const RunFile run = parse_run_file(kRunFileStart + profile + "}", "t2-r0.json");
    if (!run.profile) return;
    aggregate({run});
    pop_efficiencies(run);
  });
  return 0;
}
