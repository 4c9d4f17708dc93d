#include "regions/run/plan.h"

#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <iterator>
#include <map>
#include <string_view>

#include "common/error.h"
#include "common/text.h"
#include "platforms/thread_class.h"

namespace ompscale::regions {

namespace {

constexpr std::string_view kThreads = "{threads}";
constexpr std::string_view kInput = "{input}";

bool mentions_input(const std::vector<std::string>& command) {
  for (const std::string& arg : command)
    if (arg.find(kInput) != std::string::npos) return true;
  return false;
}

// OMP_PROC_BIND: one policy, or a list of them for nested levels.
void check_bind(const std::string& bind) {
  static const std::vector<std::string> kPolicies = {"spread",  "close", "master",
                                                     "primary", "true",  "false"};
  for (const std::string& item : split(bind, ','))
    if (std::find(kPolicies.begin(), kPolicies.end(), item) == kPolicies.end())
      throw UsageError(fmt::format(
          "--bind '{}': '{}' is not a binding; expected spread, close, master, primary, true or "
          "false (or a comma-separated list of them for nested levels)",
          bind, item));
}

// OMP_PLACES: an abstract name with an optional count, or an explicit list ("{0,1},{2,3}"),
// which the runtime itself checks.
void check_places(const std::string& places) {
  if (places.starts_with("{")) return;
  static const std::vector<std::string> kNames = {"threads", "cores", "sockets", "ll_caches",
                                                  "numa_domains"};
  std::string name = places;
  if (const std::size_t paren = places.find('('); paren != std::string::npos) {
    const std::string_view count =
        std::string_view(places).substr(paren + 1, places.size() - paren - 2);
    if (places.back() != ')' || !parse_integer(count, 1, INT_MAX))
      throw UsageError(
          fmt::format("--places '{}': expected NAME or NAME(COUNT) with a positive count", places));
    name = places.substr(0, paren);
  }
  if (std::find(kNames.begin(), kNames.end(), name) == kNames.end())
    throw UsageError(fmt::format(
        "--places '{}': expected threads, cores, sockets, ll_caches, numa_domains (optionally "
        "with a count, as in cores(4)) or an explicit list like {{0,1}},{{2,3}}",
        places));
}

}  // namespace

std::string run_id(int threads, std::optional<int> input_index, int repetition) {
  if (!input_index) return fmt::format("t{}-r{}", threads, repetition);
  return fmt::format("t{}-i{}-r{}", threads, *input_index, repetition);
}

std::string substitute_placeholders(const std::string& text, int threads,
                                    const std::string* input) {
  std::string out;
  std::size_t pos = 0;
  while (pos < text.size()) {
    const std::size_t brace = text.find('{', pos);
    if (brace == std::string::npos) break;
    out.append(text, pos, brace - pos);
    const std::string_view rest = std::string_view(text).substr(brace);
    if (rest.starts_with(kThreads)) {
      out += std::to_string(threads);
      pos = brace + kThreads.size();
    } else if (rest.starts_with(kInput)) {
      if (input == nullptr)
        throw UsageError(fmt::format(
            "'{}' uses {{input}} but no --inputs were given; pass --inputs A B ... or remove "
            "{{input}}",
            text));
      out += *input;
      pos = brace + kInput.size();
    } else {
      out += '{';
      pos = brace + 1;
    }
  }
  if (pos < text.size()) out.append(text, pos);
  return out;
}

const RunVariant* find_variant(const std::string& name) {
  for (const RunVariant& v : kRunVariants) {
    if (name == v.name) return &v;
  }
  return nullptr;
}

namespace {

PlannedRun native_copy(const PlannedRun& run, const RunVariant& variant) {
  PlannedRun copy = run;
  copy.native = true;
  copy.variant = variant.name;
  const std::string word = copy.variant == "libgomp" ? "native" : copy.variant;
  copy.id = run.input_index
                ? fmt::format("t{}-i{}-{}-r{}", run.threads, *run.input_index, word, run.repetition)
                : fmt::format("t{}-{}-r{}", run.threads, word, run.repetition);
  return copy;
}

}  // namespace

std::vector<PlannedRun> with_native_runs(const std::vector<PlannedRun>& runs) {
  std::map<std::string, int> largest;  // per input: the largest thread count
  for (const PlannedRun& run : runs) largest[run.input] = std::max(largest[run.input], run.threads);
  std::vector<PlannedRun> out;
  constexpr std::size_t kVariants = std::size(kRunVariants);
  for (std::size_t i = 0; i < runs.size(); ++i) {
    out.push_back(runs[i]);
    const bool last_of_repetition =
        i + 1 == runs.size() || runs[i + 1].repetition != runs[i].repetition;
    if (!last_of_repetition) continue;
    const int rep = runs[i].repetition;
    for (const PlannedRun& run : runs) {
      if (run.repetition != rep) continue;
      if (run.threads != largest[run.input]) {
        out.push_back(native_copy(run, kRunVariants[0]));
        continue;
      }
      for (std::size_t k = 0; k < kVariants; ++k) {
        out.push_back(
            native_copy(run, kRunVariants[(k + static_cast<std::size_t>(rep)) % kVariants]));
      }
    }
  }
  return out;
}

std::vector<PlannedRun> plan_runs(const RunOptions& options, int hardware_threads) {
  if (options.command.empty())
    throw UsageError("no application given; usage: ompscan run [options] -- APP [ARGS...]");
  if (options.reps < 1)
    throw UsageError(fmt::format("--reps {}: needs at least 1 repetition", options.reps));
  if (options.max_threads < 0)
    throw UsageError(fmt::format("--max-threads {}: not a thread count", options.max_threads));
  if (!options.bind.empty()) check_bind(options.bind);
  if (!options.places.empty()) check_places(options.places);
  const int max_threads = options.max_threads > 0 ? options.max_threads : hardware_threads;
  const std::vector<int> counts =
      platforms::parse_thread_counts(options.threads, max_threads, "--threads");
  if (!options.oversubscribe && counts.back() > hardware_threads)
    throw UsageError(
        fmt::format("--threads: {} threads exceed the {} hardware threads of this machine; pass "
                    "--oversubscribe to run anyway (runs are marked oversubscribed)",
                    counts.back(), hardware_threads));
  // Inputs that no argument receives would make identical runs under different ids.
  if (!options.inputs.empty() && !mentions_input(options.command))
    throw UsageError(
        "--inputs given but no argument contains {input}; put {input} where the application "
        "expects its input");

  std::vector<PlannedRun> runs;
  const int inputs = options.inputs.empty() ? 1 : static_cast<int>(options.inputs.size());
  for (int rep = 0; rep < options.reps; ++rep)
    for (int i = 0; i < inputs; ++i)
      for (int threads : counts) {
        PlannedRun run;
        run.threads = threads;
        if (!options.inputs.empty()) {
          run.input_index = i;
          run.input = options.inputs[static_cast<std::size_t>(i)];
        }
        run.repetition = rep;
        run.id = run_id(threads, run.input_index, rep);
        run.oversubscribed = threads > hardware_threads;
        const std::string* input = run.input_index ? &run.input : nullptr;
        for (const std::string& arg : options.command)
          run.command.push_back(substitute_placeholders(arg, threads, input));
        runs.push_back(std::move(run));
      }
  return runs;
}

}  // namespace ompscale::regions
