#pragma once
// Expands RunOptions into the runs to make, in the order to make them: one run per (repetition,
// input, thread count), repetition-major so that a slow phase of the machine is spread over every
// configuration, each with its id and its command with the placeholders replaced.

#include <optional>
#include <string>
#include <vector>

#include "regions/run/run_options.h"

namespace ompscale::regions {

struct PlannedRun {
  std::string id;  // "t4-i1-r0" ("t4-r0" without --inputs): the run file is DIR/<id>.json
  int threads = 1;
  std::optional<int> input_index;  // position in --inputs; nullopt without --inputs
  std::string input;               // the input value ("" without --inputs)
  int repetition = 0;
  bool oversubscribed = false;       // threads above the hardware threads
  std::vector<std::string> command;  // placeholders replaced
  // Without the tool, for its wall and CPU time only: a GCC binary on its own libgomp, or a
  // runtime knob (`variant`).
  bool native = false;
  // Of a native run: which runtime and settings (kRunVariants); "" for the measured runs.
  std::string variant;
};

/// The runtime settings a GCC build's native runs compare (docs/ompscan-run.md, "Native runs"):
/// its own libgomp as it is ("libgomp"), with OMP_WAIT_POLICY=passive or active, with a longer
/// spin before sleeping (GOMP_SPINCOUNT), and libomp without the tool ("libomp").
struct RunVariant {
  const char* name;         ///< the run id's and run file's word
  const char* environment;  ///< "NAME=VALUE" the run adds; "" none
  bool on_libomp;           ///< through the GOMP shim, as the measured runs (without the tool)
};
inline constexpr RunVariant kRunVariants[] = {
    {"libgomp", "", false},
    {"passive", "OMP_WAIT_POLICY=passive", false},
    {"active", "OMP_WAIT_POLICY=active", false},
    {"spincount", "GOMP_SPINCOUNT=30000000", false},
    {"libomp", "", true},
};
/// The variant named `name`, or nullptr.
const RunVariant* find_variant(const std::string& name);

/// Native runs for a GCC build, each repetition's placed right after its measured runs, so both
/// meet the same phase of the machine: its own libgomp at every (input, thread count), and every
/// other variant at the largest thread count of each input, in an order that turns with the
/// repetition. Ids "t<threads>[-i<input>]-<variant>-r<repetition>" ("native" for libgomp).
std::vector<PlannedRun> with_native_runs(const std::vector<PlannedRun>& runs);

/// The run id: "t<threads>-i<input index>-r<repetition>", or "t<threads>-r<repetition>" without
/// inputs. Only letters, digits and '-', so it is a file name everywhere.
std::string run_id(int threads, std::optional<int> input_index, int repetition);

/// `text` with every "{threads}" replaced by the count and every "{input}" by `input`. Other
/// braces are left alone (arguments may be JSON). Throws UsageError for "{input}" when `input`
/// is null (no --inputs).
std::string substitute_placeholders(const std::string& text, int threads, const std::string* input);

/// The runs, in execution order. `hardware_threads` bounds the thread counts unless
/// options.oversubscribe and is what class names expand to when options.max_threads is 0.
/// Throws UsageError (one line, naming the option) for a bad --threads, --reps, --bind or
/// --places, --inputs without "{input}" in the command, "{input}" without --inputs, or counts
/// above the hardware threads without --oversubscribe.
std::vector<PlannedRun> plan_runs(const RunOptions& options, int hardware_threads);

}  // namespace ompscale::regions
